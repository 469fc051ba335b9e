#!/bin/bash
# fix --move-data round trips on loop devices, 512- and 4096-byte sectors:
# the first partition (ext4) moves forward, a middle one (xfs on 512, ext4
# on 4096) back, one stays, the last moves forward; then a dos disk.  With
# the default chunk (the forward moves by ~2 MiB in chunks of half that,
# recording progress only; the one-sector moves saving each chunk in the
# journal), with 64 KiB chunks, and with every move saved
# (PARTALIGN_MOVE_RECORD_MIN at its largest).
# After each: the same bytes at the new starts (sha256 read at sfdisk's
# offsets), e2fsck -fn and xfs_repair -n clean, PARTUUIDs, types and names
# kept (sgdisk -i), starts on the 2 MiB grain, check clean, journal gone, a
# second run a no-op.
. "${top_srcdir:-.}/tests/lib/common.sh"
. "$top_srcdir/tests/move/lib.sh"
need_cmd mkfs.xfs xfs_repair mount umount

GRAIN=$((2 << 20))

# layout SECTOR MIDDLE_MIB: the four partitions, in sectors of SECTOR bytes
layout() {
	local s=$1 m=$((1048576 / $1)) mid=$2
	printf 'label: gpt\nfirst-lba: %d\n' $((2 + 16384 / s))
	printf 'start=%d, size=%d, name=first\n' $((2 + 16384 / s)) $((40 * m))
	printf 'start=%d, size=%d, name=middle\n' $((44 * m + 1)) $((mid * m))
	printf 'start=%d, size=%d, name=kept\n' $(((46 + mid) * m)) $((20 * m + 1))
	printf 'start=%d, size=%d, name=last\n' $(((66 + mid) * m + 2)) $((40 * m))
}

# expect_same BEFORE AFTER WHAT
expect_same() {
	diff -u "$1" "$2" >&2 || fail "$3"
}

roundtrip() {
	local bs=$1 chunk=$2 fs=$3 dev mid=30
	[ "$fs" = xfs ] && mid=300 # the smallest xfs mkfs.xfs makes
	echo "# $bs-byte sectors, chunk ${chunk:-default}, $fs in the middle"
	dev=$(mkdisk "rt$bs${chunk}" $((116 + mid))M "$bs" "$(layout "$bs" "$mid")")
	fill_ext4 "$dev" 1 12
	"fill_$fs" "$dev" 2 8
	fill_raw "$dev" 3
	fill_raw "$dev" 4
	sums_of "$dev" 1 2 3 4 >"$T_TMP/sums.before"
	ids_of "$dev" 1 2 3 4 >"$T_TMP/ids.before"
	before=$(sha256sum <"$dev")

	# plan: four rows, three moves, and nothing written
	run_pa plan --move-data --journal "$J" -r -n -o NUM,ACTION "$dev"
	expect_rc 4 "plan --move-data"
	[ "$(tr '\n' ' ' <"$T_TMP/out")" = "1 move 2 move 3 keep 4 move " ] ||
		fail "plan: $(cat "$T_TMP/out")"
	[ "$(sha256sum <"$dev")" = "$before" ] || fail "plan wrote to the disk"

	PARTALIGN_MOVE_CHUNK=$chunk PARTALIGN_MOVE_RECORD_MIN=${RT_RECORD_MIN:-0} \
		pa_move "$dev" ${chunk:+--verify}
	expect_rc 1 "fix --move-data ($bs, chunk ${chunk:-default})"
	grep -q "moved .* MB/s" "$T_TMP/out" || fail "no closing report: $(cat "$T_TMP/out")"
	[ -z "$chunk" ] || grep "verified" "$T_TMP/out" >/dev/null || fail "--verify said nothing"

	sums_of "$dev" 1 2 3 4 >"$T_TMP/sums.after"
	expect_same "$T_TMP/sums.before" "$T_TMP/sums.after" "content changed ($bs)"
	ids_of "$dev" 1 2 3 4 >"$T_TMP/ids.after"
	expect_same "$T_TMP/ids.before" "$T_TMP/ids.after" "identities changed ($bs)"
	[ "$(sfdisk --json "$dev" | jq -r .partitiontable.label)" = gpt ] || fail "label changed"
	for n in 1 2 3 4; do
		expect_aligned "$dev" "$n" "$GRAIN"
	done
	# the kept partition did not move; the others moved the expected way
	assert_eq "$(((46 + mid) << 20))" "$(part_geom "$dev" 3 | cut -d' ' -f1)" "partition 3 moved"
	assert_eq "$((2 << 20))" "$(part_geom "$dev" 1 | cut -d' ' -f1)" "partition 1 start"
	assert_eq "$((44 << 20))" "$(part_geom "$dev" 2 | cut -d' ' -f1)" "partition 2 start"
	assert_eq "$(((68 + mid) << 20))" "$(part_geom "$dev" 4 | cut -d' ' -f1)" "partition 4 start"
	sgdisk -v "$dev" | grep "No problems found" >/dev/null || fail "sgdisk -v: $(sgdisk -v "$dev")"
	e2fsck -fn "$(pnode "$dev" 1)" >"$T_TMP/fsck" 2>&1 || fail "e2fsck: $(cat "$T_TMP/fsck")"
	if [ "$fs" = xfs ]; then
		xfs_repair -n "$(pnode "$dev" 2)" >"$T_TMP/fsck" 2>&1 || fail "xfs_repair: $(cat "$T_TMP/fsck")"
	else
		e2fsck -fn "$(pnode "$dev" 2)" >"$T_TMP/fsck" 2>&1 || fail "e2fsck 2: $(cat "$T_TMP/fsck")"
	fi
	# the kernel sees the new partitions: its nodes hold the same bytes
	for n in 1 4; do
		[ "$(sha256sum <"$(pnode "$dev" "$n")" | cut -d' ' -f1)" = \
			"$(grep "^$n " "$T_TMP/sums.before" | cut -d' ' -f2)" ] ||
			fail "the kernel's partition $n differs"
	done
	[ "$(journals)" = 0 ] || fail "journal left behind"

	run_pa check "$dev"
	expect_rc 0 "check after the move"
	pa_move "$dev"
	expect_rc 0 "second fix --move-data"
	grep -q "nothing to do" "$T_TMP/out" || fail "second run: $(cat "$T_TMP/out")"
}

roundtrip 512 "" xfs
roundtrip 4096 "" ext4
roundtrip 512 65536 ext4
# every move saved in the journal, the far ones too (the default below 512 KiB)
RT_RECORD_MIN=18446744073709551615 roundtrip 4096 "" ext4

echo "# dos label kept"
dev=$(mkdisk dos 64M 512 'label: dos\nstart=63, size=40960, type=83\nstart=45056, size=8192, type=83')
fill_ext4 "$dev" 1 8
fill_raw "$dev" 2
sums_of "$dev" 1 2 >"$T_TMP/sums.before"
pa_move "$dev"
expect_rc 1 "dos fix --move-data"
sums_of "$dev" 1 2 >"$T_TMP/sums.after"
expect_same "$T_TMP/sums.before" "$T_TMP/sums.after" "dos content changed"
[ "$(sfdisk --json "$dev" | jq -r .partitiontable.label)" = dos ] || fail "dos became gpt"
assert_eq "$((2 << 20))" "$(part_geom "$dev" 1 | cut -d' ' -f1)" "dos partition 1 start"
assert_eq "$((45056 * 512))" "$(part_geom "$dev" 2 | cut -d' ' -f1)" "dos partition 2 moved"
e2fsck -fn "$(pnode "$dev" 1)" >"$T_TMP/fsck" 2>&1 || fail "e2fsck (dos): $(cat "$T_TMP/fsck")"
echo "PASS"
