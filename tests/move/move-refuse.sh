#!/bin/bash
# What fix --move-data refuses, each with its message and exit status, and
# the disk byte-identical afterwards (sha256 of the whole device): not
# enough room (how much, where), a disk in use, a journal on the disk being
# moved, a damaged journal; an unfinished move, which check and plan show
# and plain fix refuses; usage errors.
. "${top_srcdir:-.}/tests/lib/common.sh"
need_no_sanitizers "the fault shim tests/move/faultshim.so"
. "$top_srcdir/tests/move/lib.sh"
need_cmd mount umount

SHIM="$top_builddir/tests/move/faultshim.so"

# unchanged DEV SUM WHAT: the whole disk, byte for byte, and no journal left
unchanged() {
	[ "$(disk_sum "$1")" = "$2" ] || fail "$3 changed the disk"
	[ "$(journals)" = 0 ] || [ -n "${KEEP_JOURNAL:-}" ] || fail "$3 left a journal"
}

echo "# no room at the end: grow the LUN"
# 64 MiB disk, GPT on 512: the last usable sector is 131038; partition 1 fills it from 34
dev=$(mkdisk full 64M 512 'label: gpt\nfirst-lba: 34\nstart=34, size=131005')
fill_raw "$dev" 1
s=$(disk_sum "$dev")
pa_move "$dev"
expect_rc 4 "no room"
expect_err "no room to move partition 1 to an aligned start: grow the LUN by 2.0 MiB (2079744 bytes)" "no room"
unchanged "$dev" "$s" "a refused move (no room)"
run_pa plan --move-data --journal "$J" -J -o NUM,REFUSED "$dev"
expect_rc 4 "plan, no room"
jq -r '.plan[].refused' "$T_TMP/out" | grep "grow the LUN by 2.0 MiB (2079744 bytes)" >/dev/null ||
	fail "plan does not show the refusal: $(cat "$T_TMP/out")"

echo "# no room between partitions: free space after partition 1"
dev=$(mkdisk between 64M 512 'label: gpt\nfirst-lba: 34\nstart=34, size=22528\nstart=24576, size=8192')
s=$(disk_sum "$dev")
pa_move "$dev"
expect_rc 4 "no room between"
expect_err "free 1 MiB after partition 1" "no room between"
unchanged "$dev" "$s" "a refused move (between)"

echo "# in use: a partition mounted"
dev=$(mkdisk inuse 64M 512 'label: gpt\nfirst-lba: 34\nstart=34, size=40960\nstart=49152, size=40960')
fill_ext4 "$dev" 2 1
mnt="$T_TMP/mnt"
mkdir -p "$mnt"
mount "$(pnode "$dev" 2)" "$mnt"
mkdir "$mnt/journal"
umount "$mnt"
# read-only: the file system writes nothing while mounted, the disk stays comparable
mount -o ro,noload "$(pnode "$dev" 2)" "$mnt"
at_exit "umount '$mnt' 2>/dev/null"
s=$(disk_sum "$dev")
pa_move "$dev"
expect_rc 4 "in use"
expect_err "is mounted on $mnt" "in use"
unchanged "$dev" "$s" "a refused move (in use)"

echo "# the journal on the disk being moved"
run_pa fix --yes --move-data --quiet --journal "$mnt/journal" --backup-dir "$BK" "$dev"
expect_rc 4 "journal on the disk"
expect_err "the journal directory $mnt/journal is on $(pnode "$dev" 2), on the disk being moved" \
	"journal on the disk"
[ -z "$(ls -A "$mnt/journal")" ] || fail "a journal was written on the disk being moved"
umount "$mnt"
unchanged "$dev" "$s" "a refused move (journal on the disk)"

echo "# an unfinished move"
dev=$(mkdisk unfinished 64M 512 'label: gpt\nfirst-lba: 34\nstart=34, size=40960\nstart=49153, size=16384')
fill_raw "$dev" 1
fill_raw "$dev" 2
want=$(sums_of "$dev" 1 2)
snapshot "$dev" "$T_TMP/unfinished.snap"
[ -f "$SHIM" ] || skip "no $SHIM (make check builds it)"
FS_JOURNAL="$J" FS_AT=40 FS_MODE=kill LD_PRELOAD="$SHIM" PARTALIGN_MOVE_CHUNK=65536 pa_move "$dev"
expect_rc 137 "the interrupted move"
[ "$(journals)" = 1 ] || fail "no journal after the interrupted move"
jf=$(find "$J" -name '*.journal')
s=$(disk_sum "$dev")
KEEP_JOURNAL=1

mid=${jf%.journal}
mid=${mid##*-}

PARTALIGN_JOURNAL="$J" run_pa check "$dev"
expect_rc 4 "check with an unfinished move"
expect_err "warning: $dev: an unfinished data move: its journal $jf is there" "check"
expect_err "partalign resume $dev" "check"
run_pa check --probe "$dev"
expect_rc 4 "check --probe with an unfinished move"
expect_err "warning: $dev: an unfinished data move $mid is recorded on the disk" "check --probe"
# what other tools see: partition 1 hidden by the marker (sfdisk, libblkid)
hidden_by_marker "$dev" "$mid" 1

run_pa plan --journal "$J" -J -o NUM,REFUSED "$dev"
expect_rc 4 "plan with an unfinished move"
expect_err "warning: $dev: unfinished data move $mid, journal $jf" "plan"
jq -r '.plan[].refused' "$T_TMP/out" |
	grep -qF "an unfinished data move (move id $mid, journal $jf): finish it with 'partalign resume $dev'" ||
	fail "plan: no refusal row: $(cat "$T_TMP/out")"

run_pa plan --move-data --journal "$J" -r -n -o NUM,ACTION,REFUSED "$dev"
expect_rc 4 "plan --move-data with an unfinished move"
[ "$(awk '{print $1, $2}' "$T_TMP/out" | tr '\n' ' ')" = "1 move 2 move " ] ||
	fail "plan --move-data does not show the journal's moves: $(cat "$T_TMP/out")"

run_pa fix --yes --journal "$J" --backup-dir "$BK" "$dev"
expect_rc 4 "fix without --move-data"
expect_err "refused: an unfinished data move (move id $mid, journal $jf)" "fix without --move-data"
unchanged "$dev" "$s" "fix without --move-data"

run_pa fix --yes --discard-data --journal "$J" --backup-dir "$BK" "$dev"
expect_rc 4 "fix --discard-data on an unfinished move"
unchanged "$dev" "$s" "fix --discard-data"

echo "# a damaged journal is refused, not guessed at"
cp "$jf" "$T_TMP/journal.good"
printf 'X' | dd of="$jf" bs=1 seek=30 conv=notrunc status=none
pa_move "$dev"
expect_rc 4 "damaged journal"
expect_err "cannot read the journal $jf" "damaged journal"
unchanged "$dev" "$s" "a damaged journal"
cp "$T_TMP/journal.good" "$jf"

echo "# the journal of a table with another disk GUID is refused"
snapshot "$dev" "$T_TMP/killed.snap"
sgdisk --disk-guid=R "$dev" >/dev/null
s2=$(disk_sum "$dev")
pa_move "$dev"
expect_rc 4 "another disk GUID"
expect_err "is not this disk's: the journal is of the table gpt:" "another disk GUID"
unchanged "$dev" "$s2" "a journal of another disk GUID"
restore_snapshot "$dev" "$T_TMP/killed.snap"

echo "# fix --move-data resumes it"
pa_move "$dev"
expect_rc 1 "fix --move-data resuming"
[ "$(sums_of "$dev" 1 2)" = "$want" ] || fail "resumed content differs"
[ "$(journals)" = 0 ] || fail "journal left after the resume"
pa_resume "$dev"
expect_rc 0 "resume with nothing to resume"
grep -q "nothing to resume" "$T_TMP/out" || fail "resume: $(cat "$T_TMP/out")"

echo "# a journal elsewhere leaves a pointer in the default directory"
restore_snapshot "$dev" "$T_TMP/unfinished.snap"
FS_JOURNAL="$T_TMP/elsewhere" FS_AT=40 FS_MODE=kill LD_PRELOAD="$SHIM" PARTALIGN_MOVE_CHUNK=65536 \
	run_pa fix --yes --move-data --quiet --journal "$T_TMP/elsewhere" --backup-dir "$BK" "$dev"
expect_rc 137 "the interrupted move (journal elsewhere)"
ptr=$(find "$J" -name '*.journal' -type l)
[ -n "$ptr" ] || fail "no pointer in $J to the journal in $T_TMP/elsewhere"
[ "$(readlink -f "$ptr")" = "$(readlink -f "$T_TMP/elsewhere/$(basename "$ptr")")" ] ||
	fail "the pointer leads to $(readlink -f "$ptr")"
run_pa check "$dev"
expect_rc 4 "check, journal elsewhere"
expect_err "an unfinished data move: its journal $ptr is there" "check, journal elsewhere"
run_pa fix --yes --journal "$T_TMP/other" --backup-dir "$BK" "$dev"
expect_rc 4 "fix with a third journal directory"
pa_move "$dev" # the default directory: found through the pointer
expect_rc 1 "fix --move-data through the pointer"
[ "$(sums_of "$dev" 1 2)" = "$want" ] || fail "content differs after a resume through the pointer"
[ ! -e "$ptr" ] && [ ! -L "$ptr" ] || fail "pointer left behind"
[ -z "$(ls -A "$T_TMP/elsewhere")" ] || fail "journal left behind: $(ls "$T_TMP/elsewhere")"

echo "# usage"
run_pa fix --yes --move-data --discard-data "$dev"
expect_rc 16 "--move-data --discard-data"
run_pa fix --yes --move-data --new "$dev"
expect_rc 16 "--move-data --new"
run_pa resume
expect_rc 16 "resume without a device"
echo "PASS"
