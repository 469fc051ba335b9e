#!/bin/bash
# A write-protected disk (losetup -r: BLKROGET 1, sysfs ro 1, as a read-only
# LUN) is refused by every command that writes, before anything is written,
# backed up or journalled:
#   fix, fix --new --discard-data (a blank disk), fix --move-data: exit 4,
#     "refused: /dev/loopN is read-only (write-protected)";
#   restore of the disk's own backup: exit 8, the same message;
#   resume of a move cut short by SIGKILL (the disk carries the move
#     marker), the disk then attached read-only: exit 4, the same message;
#   plan shows the refusal in its REFUSED column and exits 4;
#   an aligned read-only disk: fix and resume have nothing to do (exit 0).
# Each time the whole device is byte-identical (sha256), no backup file and
# no new journal appear.  The protection is checked independently first
# (blockdev --getro, /sys/block/loopN/ro).
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
J="$T_TMP/journal"
mkdir -p "$J"
export PARTALIGN_JOURNAL="$J"
SHIM="$top_builddir/tests/move/faultshim.so"
[ -e "$SHIM" ] || skip "needs $SHIM (make check builds it)"

two_parts='label: gpt\nfirst-lba: 34\nstart=34,size=20000\nstart=24000,size=40000'

# ro_attach NAME -> /dev/loopN over $T_TMP/NAME.img, read-only, partitions added
ro_attach() {
	local dev i
	for i in $(seq 1 20); do
		if dev=$(losetup -r -f --show "$T_TMP/$1.img" 2>/dev/null); then
			loop_record "$dev" "$T_TMP/$1.img"
			partx -a "$dev" 2>/dev/null || true
			[ "$(blockdev --getro "$dev")" = 1 ] || fail "$dev: blockdev --getro is not 1"
			[ "$(cat "/sys/block/${dev#/dev/}/ro")" = 1 ] || fail "$dev: sysfs ro is not 1"
			echo "$dev"
			return 0
		fi
		sleep 0.1
	done
	fail "cannot attach $1 read-only"
}

# refused_ro NAME DEV WANT_RC ARGS... -> partalign ARGS on DEV must exit WANT_RC
# with the read-only refusal, and change nothing anywhere.
refused_ro() {
	local name=$1 dev=$2 want=$3 sum jn
	shift 3
	sum=$(dev_sum "$dev")
	jn=$(find "$J" -type f | sort)
	rm -rf "$BK"
	run_pa "$T_TMP/out" "$T_TMP/err" "$@"
	expect_rc "$want" "$name"
	grep -qF "refused: $dev is read-only (write-protected)" "$T_TMP/err" ||
		fail "$name: stderr: $(cat "$T_TMP/err")"
	[ "$(grep -vc ': warning: ' "$T_TMP/err")" = 1 ] ||
		fail "$name: more than one error line: $(cat "$T_TMP/err")"
	assert_eq "$sum" "$(dev_sum "$dev")" "$name: device content"
	[ ! -e "$BK" ] || [ -z "$(ls -A "$BK")" ] || fail "$name: a backup was written: $(ls "$BK")"
	assert_eq "$jn" "$(find "$J" -type f | sort)" "$name: journal files"
	echo "ok: $name -> $want: $(grep -v ': warning: ' "$T_TMP/err")"
}

# fix and fix --move-data of a misaligned disk; plan says fix would refuse it
truncate -s 64M "$T_TMP/ro.img"
printf '%b\n' "$two_parts" | sfdisk -q "$T_TMP/ro.img" >/dev/null
d=$(ro_attach ro)
refused_ro fix "$d" 4 fix --yes --backup-dir "$BK" "$d"
refused_ro move-data "$d" 4 fix --yes --move-data --quiet --journal "$J" --backup-dir "$BK" "$d"
run_pa "$T_TMP/out" "$T_TMP/err" plan --json "$d"
expect_rc 4 "plan of a read-only disk"
assert_eq "$d is read-only (write-protected)" \
	"$(jq -r '[.plan[].refused] | unique | join(",")' "$T_TMP/out")" "plan's REFUSED column"

# fix --new of a blank disk, even with --discard-data
truncate -s 64M "$T_TMP/blank.img"
b=$(ro_attach blank)
refused_ro fix-new "$b" 4 fix --new --discard-data --yes --backup-dir "$BK" "$b"

# restore: a backup fix took while the disk was writable, then made read-only
truncate -s 64M "$T_TMP/rs.img"
printf '%b\n' "$two_parts" | sfdisk -q "$T_TMP/rs.img" >/dev/null
w=$(loop_attach "$T_TMP/rs.img")
partx -a "$w" 2>/dev/null || true
pa_fix "$w"
expect_rc 1 "fix of the writable disk"
bk=$(ls "$BK"/*.pt)
mv "$bk" "$T_TMP/saved.pt"
loop_detach "$w"
r=$(ro_attach rs)
refused_ro restore "$r" 8 restore --yes --backup-dir "$BK" "$T_TMP/saved.pt" "$r"

# resume: a move killed before its first data write (the marker is written)
truncate -s 64M "$T_TMP/mv.img"
printf '%b\n' "$two_parts" | sfdisk -q "$T_TMP/mv.img" >/dev/null
w=$(loop_attach "$T_TMP/mv.img")
partx -a "$w" 2>/dev/null || true
FS_JOURNAL="$J" FS_COUNT=disk FS_AT=5 FS_MODE=kill LD_PRELOAD="$SHIM" \
	run_pa "$T_TMP/out" "$T_TMP/err" fix --yes --move-data --quiet --journal "$J" \
	--backup-dir "$BK" "$w"
[ "$PA_RC" = 137 ] || fail "the move was not killed: exit $PA_RC: $(cat "$T_TMP/err")"
# the marker, as sgdisk sees it: a partition of type FFFF
sgdisk -p "$w" | grep ' FFFF ' >/dev/null || fail "no move marker after the kill: $(sgdisk -p "$w")"
[ -n "$(find "$J" -type f -name '*.journal')" ] || fail "no journal after the kill"
loop_detach "$w" # (the killed move took its partition from the kernel)
m=$(ro_attach mv)
refused_ro resume "$m" 4 resume --quiet --journal "$J" --backup-dir "$BK" "$m"

# nothing to write, nothing refused: an aligned read-only disk
truncate -s 64M "$T_TMP/al.img"
printf '%b\n' 'label: gpt\nstart=4096,size=20480' | sfdisk -q "$T_TMP/al.img" >/dev/null
a=$(ro_attach al)
sum=$(dev_sum "$a")
rm -rf "$BK"
pa_fix "$a"
expect_rc 0 "fix of an aligned read-only disk"
grep -q "$a: nothing to do" "$T_TMP/out" || fail "aligned read-only disk: $(cat "$T_TMP/out" "$T_TMP/err")"
run_pa "$T_TMP/out" "$T_TMP/err" resume --quiet --journal "$J" --backup-dir "$BK" "$a"
expect_rc 0 "resume of a read-only disk without a move"
assert_eq "$sum" "$(dev_sum "$a")" "aligned read-only disk: content"
[ ! -e "$BK" ] || [ -z "$(ls -A "$BK")" ] || fail "aligned read-only disk: a backup: $(ls "$BK")"
echo "ok: an aligned read-only disk: fix and resume have nothing to do (0)"
