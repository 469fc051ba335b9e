#!/bin/bash
# A journal left over on a disk that records no move.  A crash after the
# journal was made and before the disk was marked leaves one, and so does a
# crash after the final table and before the journal's removal.  Nothing of
# that move is left to do on that disk.  resume, plan and check --probe say
# so, naming the file; check --probe no longer fails the audit for it; the
# file is kept (a copy of the disk may carry that move) and nothing is
# written.  With such a copy attached, check --probe names it.  The disks'
# state comes from sfdisk and a sha256 of the whole disk.
. "${top_srcdir:-.}/tests/lib/common.sh"
need_no_sanitizers "the fault shim tests/move/faultshim.so"
. "$top_srcdir/tests/move/lib.sh"

need_shim
TABLE='label: gpt\nfirst-lba: 34\nstart=63, size=40960, name=data'

# marked DEV: does the disk's own table carry the move marker?  (a hidden
# entry: type zero and a "partalign-move" name, as sfdisk reads it)
marked() {
	sfdisk -d "$1" >"$T_TMP/dump" || fail "sfdisk -d $1"
	grep -qi 'type=00000000-0000-0000-0000-000000000000.*name="partalign-move ' "$T_TMP/dump"
}

# the_journal: the one journal in $J -> $jf, its move id -> $mid
the_journal() {
	[ "$(journals)" = 1 ] || fail "$1: $(journals) journals in $J, expected 1"
	jf=$(find "$J" -name '*.journal')
	mid=${jf%.journal}
	mid=${mid##*-}
}

# stray_checks DEV WHAT: resume, plan and check --probe of DEV with $jf
# left over: each names it, nothing is written, the file stays
stray_checks() {
	local dev=$1 what=$2 s
	s=$(disk_sum "$dev")
	pa_resume "$dev"
	expect_rc 0 "$what: resume"
	grep -q "nothing to resume" "$T_TMP/out" || fail "$what: resume: $(cat "$T_TMP/out")"
	expect_err "$dev: the move journal $jf (move $mid) is left over" "$what: resume"
	run_pa plan "$dev"
	expect_err "$dev: the move journal $jf (move $mid) is left over" "$what: plan"
	run_pa check --probe "$dev"
	expect_err "$dev: the move journal $jf (move $mid) is left over" "$what: check --probe"
	! grep -q "an unfinished data move" "$T_TMP/err" || fail "$what: check --probe: $(cat "$T_TMP/err")"
	[ -f "$jf" ] || fail "$what: the journal is gone"
	unchanged "$dev" "$s" "$what"
}

dev=$(mkdisk stray 64M 512 "$TABLE")
fill_raw "$dev" 1
want=$(sums_of "$dev" 1)
snapshot "$dev" "$T_TMP/seed.snap"
seed=$(disk_sum "$dev")

# a reference move's calls: the marker is its first write to the disk
FS_JOURNAL="$J" FS_LOG="$T_TMP/log" LD_PRELOAD="$SHIM" pa_move "$dev"
expect_rc 1 "the reference move"
m0=$(awk '$2 == "disk" {print $1; exit}' "$T_TMP/log")
[ -n "$m0" ] || fail "no write to the disk in the log"

echo "# killed before the marker (call $m0)"
restore_snapshot "$dev" "$T_TMP/seed.snap"
rm -f "$J"/*
FS_JOURNAL="$J" FS_AT=$m0 FS_MODE=kill LD_PRELOAD="$SHIM" pa_move "$dev"
expect_rc 137 "the move killed before the marker"
the_journal "killed before the marker"
! marked "$dev" || fail "killed before the marker: the disk is marked: $(cat "$T_TMP/dump")"
unchanged "$dev" "$seed" "the move killed before the marker"
stray_checks "$dev" "killed before the marker"
# the left-over journal is never used: a new move runs, with its own id
pa_move "$dev"
expect_rc 1 "a new move beside the left-over journal"
[ "$(sums_of "$dev" 1)" = "$want" ] || fail "the new move: the content differs"
expect_aligned "$dev" 1 $((2 << 20))
if [ "$(journals)" != 1 ] || [ ! -f "$jf" ]; then
	fail "the new move: journals $(ls "$J")"
fi

echo "# the final table written, the journal still there"
# The state a crash between the final table and the journal's removal
# leaves, made without the crash: a copy of the journal of a killed move,
# put back once resume has finished the move and removed it.
restore_snapshot "$dev" "$T_TMP/seed.snap"
rm -f "$J"/*
FS_JOURNAL="$J" FS_AT=40 FS_MODE=kill LD_PRELOAD="$SHIM" PARTALIGN_MOVE_CHUNK=65536 pa_move "$dev"
expect_rc 137 "the killed move"
the_journal "the killed move"
marked "$dev" || fail "the killed move: the disk is not marked: $(cat "$T_TMP/dump")"
cp -p "$jf" "$T_TMP/kept.journal"
pa_resume "$dev"
expect_rc 1 "the resume"
[ "$(journals)" = 0 ] || fail "the resume left $(journals) journals"
cp -p "$T_TMP/kept.journal" "$jf"
! marked "$dev" || fail "after the resume the disk is marked"
stray_checks "$dev" "the final table and a journal"
run_pa check --probe "$dev"
expect_rc 0 "check --probe of the moved disk with the journal left over"
# without the disk's own table (udev's database at most), check cannot tell
run_pa check "$dev"
expect_rc 4 "check without --probe"
expect_err "$jf" "check without --probe"
[ "$(sums_of "$dev" 1)" = "$want" ] || fail "the content differs"

echo "# a copy of the disk carries that move"
rm -f "$J"/*
restore_snapshot "$dev" "$T_TMP/seed.snap"
cp "$T_TMP/seed.snap" "$T_TMP/twin.img"
twin=$(loop_attach "$T_TMP/twin.img" 512)
partx -a "$twin" 2>/dev/null || partx -u "$twin"
FS_JOURNAL="$J" FS_AT=40 FS_MODE=kill LD_PRELOAD="$SHIM" PARTALIGN_MOVE_CHUNK=65536 pa_move "$twin"
expect_rc 137 "the twin's killed move"
tj=$(find "$J" -name '*.journal')
mid=${tj%.journal}
mid=${mid##*-}
# the kernel without the twin's partitions (the killed move took its moving
# one away, the rest go here; no rescan yet): the marker is read from the
# twin's table all the same, and its journal is no left-over
partx -d "$twin" 2>/dev/null || true
run_pa check --probe "$twin"
expect_err "$twin: an unfinished data move $mid is recorded on the disk" \
	"check --probe of the twin without its kernel partitions"
! grep -q "left over" "$T_TMP/err" ||
	fail "check --probe of the twin without its kernel partitions: $(cat "$T_TMP/err")"
partx -a "$twin" 2>/dev/null || partx -u "$twin"
# one disk id for both, as clones of a VM disk share a serial: the twin's
# journal under the name of the first disk
jf="${jf%-*}-$mid.journal"
cp -p "$tj" "$jf"
s=$(disk_sum "$dev")
run_pa check --probe "$dev" "$twin"
expect_rc 4 "check --probe of both"
expect_err "$dev: the move journal $jf (move $mid) is not this disk's: $twin, a copy of it, carries that move" \
	"check --probe of both"
expect_err "$twin: an unfinished data move $mid is recorded on the disk" "check --probe of both"
pa_resume "$twin"
expect_rc 1 "the twin's resume"
[ "$(sums_of "$twin" 1)" = "$want" ] || fail "the twin's resume: the content differs"
unchanged "$dev" "$s" "the twin's move"
echo "PASS"
