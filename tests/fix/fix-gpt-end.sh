#!/bin/bash
# A GPT whose backup is not at the disk's end.  A LUN or vmdk made larger
# keeps its backup header and entries where the old end was.  check --probe
# and plan say so; fix and fix --move-data write a complete GPT, the backup
# at the real end, both copies agreeing: sgdisk -v finds no problem, and the
# primary header's alternate LBA (read here with od, not with partalign) is
# the last sector.  A disk smaller than its GPT says is refused, untouched.
# Shapes: 512-byte and 4096-byte sectors, 256 entries, partitions all on
# the grain already (only the backup to move: plan exits 1, a change to
# make but no misalignment, where a misaligned grown disk gives 4),
# --move-data, and a dos table converted to GPT.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd od

# alt_lba DEV: the alternate LBA of the primary GPT header (LBA 1, byte 32)
alt_lba() {
	local l
	l=$(lsec_of "$1")
	od -An -t u8 -j $((l + 32)) -N 8 "$1" | tr -d ' '
}

# last_lba DEV
last_lba() {
	echo $(($(blockdev --getsize64 "$1") / $(lsec_of "$1") - 1))
}

# grown NAME SECTOR TABLE: the disk made with TABLE at 64 MiB, then grown to
# 96 MiB (the loop device told with losetup -c)
grown() {
	local d
	d=$(mkdisk "$1" 64M "$2" "$3")
	truncate -s 96M "$T_TMP/$1.img"
	losetup -c "$d"
	[ "$(alt_lba "$d")" -lt "$(last_lba "$d")" ] || fail "setup: $d did not grow"
	echo "$d"
}

# end_ok DEV WHAT: both copies agree, the backup at the end
end_ok() {
	sgdisk_ok "$1"
	assert_eq "$(last_lba "$1")" "$(alt_lba "$1")" "$2: the primary's alternate LBA"
}

for bs in 512 4096; do
	m=$((1048576 / bs))
	echo "# a grown disk, $bs-byte sectors"
	d=$(grown "g$bs" "$bs" "label: gpt\nfirst-lba: $((2 + 16384 / bs))\nstart=$((2 + 16384 / bs)), size=$((8 * m)), name=a\nstart=$((16 * m)), size=$((4 * m)), name=b")
	run_pa "$T_TMP/out" "$T_TMP/err" check --probe "$d"
	grep -qF "$d: the backup GPT is at sector $(alt_lba "$d"), not at the end of the disk (sector $(last_lba "$d")): the disk grew" \
		"$T_TMP/err" || fail "check --probe, grown $bs: $(cat "$T_TMP/err")"
	run_pa "$T_TMP/out" "$T_TMP/err" plan -o NUM,ACTION,NOTE "$d"
	expect_rc 4 "plan of the grown $bs disk"
	grep -qF "the disk grew: fix writes the backup GPT at its end" "$T_TMP/out" ||
		fail "plan, grown $bs: $(cat "$T_TMP/out")"
	pa_fix "$d"
	expect_rc 1 "fix of the grown $bs disk"
	end_ok "$d" "fix, grown $bs"
	assert_eq "2" "$(sfdisk --json "$d" | jq '.partitiontable.partitions | length')" \
		"partitions after fix, grown $bs"
	echo "ok: grown, $bs-byte sectors: backup at the end"
done

echo "# a grown disk whose partitions are all on the grain"
d=$(grown aligned 512 'label: gpt\nstart=4096, size=16384, name=a')
# plan: a change to make, none of it alignment: exit 1, not 4
sum=$(dev_sum "$d")
run_pa "$T_TMP/out" "$T_TMP/err" plan -o NUM,ACTION,NOTE "$d"
expect_rc 1 "plan of a grown aligned disk"
grep -qF "the disk grew: fix writes the backup GPT at its end" "$T_TMP/out" ||
	fail "plan, grown aligned: $(cat "$T_TMP/out")"
assert_eq "1 keep" "$(awk 'NR > 1 { print $1, $2 }' "$T_TMP/out")" "plan, grown aligned: the row"
assert_eq "$sum" "$(dev_sum "$d")" "the grown aligned disk after plan"
pa_fix "$d"
expect_rc 1 "fix of a grown aligned disk"
end_ok "$d" "grown aligned"
assert_eq "4096 16384" "$(sfdisk --json "$d" | jq -r '.partitiontable.partitions[0] | "\(.start) \(.size)"')" \
	"the aligned partition"
sum=$(dev_sum "$d")
pa_fix "$d"
expect_rc 0 "the second fix of a grown aligned disk"
assert_eq "$sum" "$(dev_sum "$d")" "the second fix"
echo "ok: grown, aligned: only the backup moved, the second fix has nothing to do"

echo "# 256 entries"
d=$(grown wide 512 'label: gpt\ntable-length: 256\nfirst-lba: 66\nstart=66, size=8192, name=a')
pa_fix "$d"
expect_rc 1 "fix of a grown disk with 256 entries"
end_ok "$d" "256 entries"
assert_eq 256 "$(sgdisk -p "$d" | sed -n 's/.*holds up to \([0-9]*\) entries.*/\1/p')" \
	"the entry count"
echo "ok: 256 entries"

echo "# --move-data on a grown disk"
d=$(grown move 512 'label: gpt\nfirst-lba: 34\nstart=63, size=16384, name=a')
head -c $((16384 * 512)) /dev/urandom >"$T_TMP/data"
dd if="$T_TMP/data" of="$(pnode_of "$d" 1)" bs=1M conv=fsync status=none
run_pa "$T_TMP/out" "$T_TMP/err" fix --yes --move-data --quiet --journal "$T_TMP/j" \
	--backup-dir "$BK" "$d"
expect_rc 1 "fix --move-data of a grown disk"
end_ok "$d" "--move-data, grown"
start=$(sfdisk --json "$d" | jq '.partitiontable.partitions[0].start')
[ $((start % 4096)) = 0 ] || fail "--move-data, grown: partition 1 at $start"
cmp -n $((16384 * 512)) "$T_TMP/data" <(dd if="$d" bs=512 skip="$start" count=16384 status=none) ||
	fail "--move-data, grown: the data differs"
echo "ok: --move-data on a grown disk"

echo "# --move-data on a grown disk whose partitions are all aligned: the backup alone"
d=$(grown movealigned 512 'label: gpt\nfirst-lba: 34\nstart=4096, size=16384, name=a')
mkdir -p "$T_TMP/j2"
run_pa "$T_TMP/out" "$T_TMP/err" plan --move-data --journal "$T_TMP/j2" -o NUM,ACTION,NOTE "$d"
expect_rc 1 "plan --move-data of a grown, aligned disk (the backup GPT to write)"
run_pa "$T_TMP/out" "$T_TMP/err" fix --yes --move-data --quiet --journal "$T_TMP/j2" \
	--backup-dir "$BK" "$d"
expect_rc 1 "fix --move-data of a grown, aligned disk"
end_ok "$d" "--move-data, grown, aligned"
[ -z "$(ls "$T_TMP/j2")" ] || fail "--move-data, grown, aligned: a journal: $(ls "$T_TMP/j2")"
echo "ok: --move-data on a grown, aligned disk"

echo "# dos converted to GPT"
d=$(mkdisk dos 64M 512 'label: dos\nstart=63, size=16384, type=83\nstart=20480, size=8192, type=8e')
pa_fix "$d"
expect_rc 1 "fix of a dos disk"
assert_eq gpt "$(sfd_label "$d")" "the label after fix"
end_ok "$d" "dos converted"
echo "ok: dos converted to GPT"

echo "# a shrunk disk: refused, untouched"
d=$(mkdisk shrunk 64M 512 'label: gpt\nfirst-lba: 34\nstart=63, size=16384, name=a')
truncate -s 48M "$T_TMP/shrunk.img"
losetup -c "$d"
sum=$(dev_sum "$d")
want="the disk is smaller than its GPT says (the backup header belongs at sector 131071, the disk ends at sector 98303)"
run_pa "$T_TMP/out" "$T_TMP/err" check --probe "$d"
grep -qF "$d: the backup GPT belongs at sector 131071, past the end of the disk (sector 98303): the disk shrank" \
	"$T_TMP/err" || fail "check --probe, shrunk: $(cat "$T_TMP/err")"
for args in "" "--move-data --quiet --journal $T_TMP/j"; do
	# shellcheck disable=SC2086
	pa_fix "$d" $args
	expect_rc 4 "fix $args of a shrunk disk"
	grep -qF "$d: refused: $want" "$T_TMP/err" || fail "fix $args, shrunk: $(cat "$T_TMP/err")"
	assert_eq "$sum" "$(dev_sum "$d")" "fix $args of a shrunk disk"
done
echo "ok: a shrunk disk refused"
echo PASS
