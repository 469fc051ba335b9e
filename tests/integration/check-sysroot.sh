#!/bin/bash
# partalign dump and check --sysroot on real loop devices: the rows that
# check --sysroot gives for a fresh dump are exactly the rows of the live
# check (every column, JSON, all devices and named ones), partalign udev
# gives the same verdicts as check (one reader: live and below the dump),
# and dump refuses a directory that is not new or empty.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/integration/helpers.sh"

# GPT and msdos, 512 and 4096 bytes, aligned and misaligned starts
sysroot_disks

all_cols=$("$PARTALIGN" check --list-columns | awk 'NF { print $1 }' | paste -sd, -)
[ -n "$all_cols" ] || fail "check --list-columns printed nothing"

# only_mine FILE: the rows of our own loop devices and their partitions
only_mine() {
	jq -S --arg mine "${mine[*]}" '[.devices[] | select(
		(.name as $n | ($mine | split(" ") | index($n)) != null) or
		(.disk as $d | $d != null and ($mine | split(" ") | index($d)) != null))]' "$1"
}

dump=$T_TMP/dump
run_pa "$T_TMP/dump.out" "$T_TMP/dump.err" dump "$dump"
expect_rc 0 "dump $dump ($(cat "$T_TMP/dump.err"))"
[ -s "$dump/partalign-dump" ] || fail "the dump has no partalign-dump file"
for d in "${mine[@]}"; do
	[ -L "$dump/sys/class/block/$d" ] || fail "$d: not in the dump"
	[ -d "$dump/sys/dev/block" ] || fail "no sys/dev/block in the dump"
	majmin=$(cat "/sys/class/block/$d/dev")
	[ -L "$dump/sys/dev/block/$majmin" ] || fail "$d: no sys/dev/block/$majmin in the dump"
done
# only attributes partalign reads: nothing the scan does not know of
if find "$dump/sys/devices" -type f | grep -E '/(stat|inflight|ro|ext_range|capability)$'; then
	fail "the dump holds sysfs files partalign does not read"
fi

# live and sysroot, with every column
for args in "--json" "--json -o $all_cols" "--json --bytes --topology -o +DISK"; do
	# shellcheck disable=SC2086
	run_pa "$T_TMP/live" "$T_TMP/live.err" check $args
	# shellcheck disable=SC2086
	run_pa "$T_TMP/sr" "$T_TMP/sr.err" check $args --sysroot "$dump"
	# other processes' loop devices may come and go meanwhile: only ours count
	for d in "${mine[@]}"; do
		grep -q "/dev/$d" "$T_TMP/sr.err" &&
			fail "check $args --sysroot: stderr: $(cat "$T_TMP/sr.err")"
	done
	only_mine "$T_TMP/live" >"$T_TMP/live.mine"
	only_mine "$T_TMP/sr" >"$T_TMP/sr.mine"
	n=$(jq length "$T_TMP/live.mine")
	[ "$n" -ge 11 ] || fail "check $args: only $n rows of our devices"
	diff -u "$T_TMP/live.mine" "$T_TMP/sr.mine" >&2 ||
		fail "check $args: the dump's rows differ from the live rows"
	echo "ok: check $args: $n rows equal"
done

# named devices, by path and by kernel name, in the dump as on the host; the
# exit status is theirs
for d in "$g512" "$g4k"; do
	run_pa "$T_TMP/live" "$T_TMP/live.err" check --json -o "$all_cols" "$d"
	live_rc=$PA_RC
	for name in "$d" "${d#/dev/}"; do
		run_pa "$T_TMP/sr" "$T_TMP/sr.err" check --json -o "$all_cols" --sysroot "$dump" "$name"
		[ -s "$T_TMP/sr.err" ] && fail "check --sysroot $name: stderr: $(cat "$T_TMP/sr.err")"
		assert_eq "$(jq -S . "$T_TMP/live")" "$(jq -S . "$T_TMP/sr")" "check --sysroot $name"
		assert_eq "$live_rc" "$PA_RC" "check --sysroot $name: exit status"
	done
	p=$(sysfs_parts "$d" | head -n 1)
	run_pa "$T_TMP/live" "$T_TMP/live.err" check --json "/dev/$p"
	run_pa "$T_TMP/sr" "$T_TMP/sr.err" check --json --sysroot "$dump" "/dev/$p"
	assert_eq "$p" "$(jq -r '.devices[].name' "$T_TMP/sr")" "check --sysroot /dev/$p: its row"
	assert_eq "$(jq -S . "$T_TMP/live")" "$(jq -S . "$T_TMP/sr")" "check --sysroot /dev/$p"
done
echo "ok: named devices"

# mount points and swap areas come from the dump's proc/, not the host's
p1=$(sysfs_parts "$g512" | sed -n 1p)
p2=$(sysfs_parts "$g512" | sed -n 2p)
cp -a "$dump" "$T_TMP/dump-mounts"
echo "999 1 $(cat "/sys/class/block/$p1/dev") / /mnt/pa\\040test rw - ext4 /dev/$p1 rw" \
	>>"$T_TMP/dump-mounts/proc/self/mountinfo"
echo "/dev/$p2 partition 1020 0 -2" >>"$T_TMP/dump-mounts/proc/swaps"
run_pa "$T_TMP/sr" "$T_TMP/sr.err" check --json -o NAME,MOUNTPOINTS --sysroot "$T_TMP/dump-mounts" "$g512"
assert_eq "/mnt/pa test" "$(json_get "$p1" mountpoints <"$T_TMP/sr")" "$p1: mount point from the dump"
assert_eq "[SWAP]" "$(json_get "$p2" mountpoints <"$T_TMP/sr")" "$p2: swap area from the dump"
run_pa "$T_TMP/live" "$T_TMP/live.err" check --json -o NAME,MOUNTPOINTS "$g512"
assert_eq null "$(json_get "$p1" mountpoints <"$T_TMP/live")" "$p1: not mounted on the host"
echo "ok: mount points and swap from the dump"

# partalign udev: the verdicts of check, live and below the dump
run_pa "$T_TMP/live" "$T_TMP/live.err" check --json "$g512" "$d512" "$g4k"
nparts=0
for d in "$g512" "$d512" "$g4k"; do
	for p in $(sysfs_parts "$d"); do
		for align in 2MiB 1MiB 4KiB; do
			run_pa "$T_TMP/live" "$T_TMP/live.err" check --json --align "$align" "$d"
			want=$(jq -r --arg n "$p" '.devices[] | select(.name == $n) |
				"PARTALIGN_PHYSICAL=\(.physical)\nPARTALIGN_OPTIMAL=\(.optimal)\nPARTALIGN_POLICY=\(.policy)"' \
				"$T_TMP/live")
			run_pa "$T_TMP/u" "$T_TMP/u.err" udev --align "$align" "$p"
			expect_rc 0 "udev $p"
			assert_eq "$want" "$(grep -v '^PARTALIGN_REASON=' "$T_TMP/u")" \
				"udev --align $align $p vs check"
			run_pa "$T_TMP/us" "$T_TMP/us.err" udev --align "$align" --sysroot "$dump" "$p"
			assert_eq "$(cat "$T_TMP/u")" "$(cat "$T_TMP/us")" "udev --sysroot $p vs udev"
		done
		nparts=$((nparts + 1))
	done
done
echo "ok: udev and check agree on $nparts partitions under three grains"

# dump refuses what is not a new or empty directory, and writes nothing there
echo keep >"$T_TMP/file"
run_pa "$T_TMP/o" "$T_TMP/e" dump "$T_TMP/file"
expect_rc 8 "dump onto a file"
grep -q 'not a directory' "$T_TMP/e" || fail "dump onto a file: $(cat "$T_TMP/e")"
run_pa "$T_TMP/o" "$T_TMP/e" dump "$dump"
expect_rc 8 "dump into a non-empty directory"
grep -q 'is not empty' "$T_TMP/e" || fail "dump into a non-empty directory: $(cat "$T_TMP/e")"
assert_eq keep "$(cat "$T_TMP/file")" "the file dump refused"
mkdir "$T_TMP/empty"
run_pa "$T_TMP/o" "$T_TMP/e" dump "$T_TMP/empty" "$g4k"
expect_rc 0 "dump into an empty directory"
assert_eq "$( (sysfs_parts "$g4k"; echo "${g4k#/dev/}") | sort)" \
	"$(ls "$T_TMP/empty/sys/class/block" | sort)" "dump of one named device"

# check --sysroot of something that is not a dump, and with --probe
run_pa "$T_TMP/o" "$T_TMP/e" check --sysroot "$T_TMP/empty/proc"
expect_rc 8 "check --sysroot of a directory without sys/"
grep -q 'not a partalign dump' "$T_TMP/e" || fail "check --sysroot non-dump: $(cat "$T_TMP/e")"
run_pa "$T_TMP/o" "$T_TMP/e" check --probe --sysroot "$dump"
expect_rc 16 "check --probe --sysroot"
echo "ok: refusals"
