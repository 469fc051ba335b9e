#!/bin/bash
# A killed fix --move-data whose journal is out of reach: the disk itself
# records the move, so no command plans afresh from the old table, every
# writing command refuses (the whole disk stays byte-identical), check and
# plan report the move, and resume with the right journal finishes it
# byte-identical.  Variants: the pointer removed, an empty state directory
# (a private mount namespace with a tmpfs over the default directory),
# --journal naming another directory, the journal's file renamed.  Also: a
# journal directory on tmpfs is refused before anything is written, and two
# images of one disk never accept each other's journal.
# The seed's case: a dos partition at sector 63 on 512-byte sectors.
. "$top_srcdir/tests/lib/common.sh"
need_no_sanitizers "the fault shim tests/move/faultshim.so"
. "$top_srcdir/tests/move/lib.sh"
need_cmd unshare mount cmp

SHIM="$top_builddir/tests/move/.libs/faultshim.so"
[ -f "$SHIM" ] || SHIM="$top_builddir/tests/move/faultshim.so"
[ -f "$SHIM" ] || skip "no fault shim (make check builds it)"

# a killed move: 40 counted writes or flushes in, with the journal in $1
# (PARTALIGN_MOVE_RECORD_MIN in the environment picks the record-only mode)
killed_move() {
	FS_JOURNAL="$1" FS_AT=40 FS_MODE=kill LD_PRELOAD="$SHIM" PARTALIGN_MOVE_CHUNK=65536 \
		PARTALIGN_MOVE_RECORD_MIN=${RECORD_MIN:-0} \
		run_pa fix --yes --move-data --quiet --journal "$1" --backup-dir "$BK" "$dev"
	expect_rc 137 "the killed move"
	after_crash "$dev"
}

J1="$T_TMP/j1"
mkdir -p "$J1"
dev=$(mkdisk seed 128M 512 'label: dos\nstart=63, size=98304, type=83')
fill_raw "$dev" 1
want=$(sums_of "$dev" 1)
sig0=$(sfdisk --json "$dev" | jq -r .partitiontable.id)
snapshot "$dev" "$T_TMP/seed.snap"

echo "# killed with the journal in $J1, pointer in the default directory"
killed_move "$J1"
killed_journal "$J1" "$J"
# the disk records it: another tool sees the marker type and the move id
[ "$(sfdisk --part-type "$dev" 1)" = 7f ] || fail "partition 1 is not marked: $(sfdisk -d "$dev")"
[ "$(sfdisk --json "$dev" | jq -r .partitiontable.id)" = "0x${mid: -8}" ] ||
	fail "the disk signature is not the move id ${mid: -8}"
[ "$(sfdisk --json "$dev" | jq -r '.partitiontable.partitions[0].start')" = 63 ] ||
	fail "the table moved before the data did"
snapshot "$dev" "$T_TMP/killed.snap"
cp -a "$J1" "$T_TMP/j1.saved"
s=$(disk_sum "$dev")

# every command on a disk whose move cannot be proven: nothing written
refusals() {
	local what=$1
	shift
	run_pa check --probe "$dev"
	expect_rc 4 "$what: check --probe"
	expect_err "an unfinished data move" "$what: check --probe"
	expect_err "partalign resume $dev" "$what: check --probe"
	run_pa plan "$@" "$dev"
	expect_rc 4 "$what: plan"
	expect_err "unfinished data move ${mid: -8}" "$what: plan"
	for cmd in "fix --yes --move-data" "fix --yes" "fix --yes --discard-data" "resume"; do
		# shellcheck disable=SC2086
		run_pa $cmd --quiet --backup-dir "$BK" "$@" "$dev"
		expect_rc 4 "$what: $cmd"
		expect_err "refused: an unfinished data move (move id ${mid: -8})" "$what: $cmd"
		unchanged "$dev" "$s" "$what: $cmd"
	done
	expect_err "--journal DIR" "$what: resume names --journal"
	[ "$(find "$J" "$T_TMP/j2" -name '*.journal' 2>/dev/null | grep -vcF "$ptr")" = 0 ] ||
		fail "$what: a new journal was started"
}

echo "# restore refuses the marked disk, with the backup fix took"
bk=$(ls -t "$BK"/*.pt | head -1)
grep -qa "^move $mid\$" "$bk" || fail "the backup does not record move $mid"
run_pa restore --yes --backup-dir "$BK" "$bk" "$dev"
expect_rc 8 "restore on the marked disk"
expect_err "refused: an unfinished data move (move id ${mid: -8})" "restore on the marked disk"
unchanged "$dev" "$s" "restore on the marked disk"

echo "# rules and provision refuse it too"
run_pa rules --disk "DATA1=$(pnode "$dev" 1)" --dry-run
expect_rc 8 "rules on the marked disk"
expect_err "its disk records an unfinished data move" "rules on the marked disk"
mkdir -p "$T_TMP/root/etc/udev/rules.d"
printf 'owner root\ngroup root\nmode 0660\nrules /etc/udev/rules.d/99-x.rules\nDATA1 %s\n' "$dev" \
	>"$T_TMP/prov.conf"
run_pa provision --config "$T_TMP/prov.conf" --root "$T_TMP/root" --backup-dir "$BK"
expect_rc 4 "provision on the marked disk"
expect_err "an unfinished data move (move id ${mid: -8}" "provision on the marked disk"
[ ! -e "$T_TMP/root/etc/udev/rules.d/99-x.rules" ] || fail "provision wrote rules for the marked disk"
unchanged "$dev" "$s" "rules and provision on the marked disk"

echo "# the pointer removed, --journal naming another directory"
rm "$ptr"
mkdir -p "$T_TMP/j2"
refusals "pointer removed" --journal "$T_TMP/j2"
refusals "no --journal"

echo "# an empty state directory (a rescue system): tmpfs over the default directory"
# (mode 0700: a state directory only root can change; tmpfs's own 1777 is
# refused as such, see move-trust.sh)
cat >"$T_TMP/rescue.sh" <<EOF
mount -t tmpfs -o mode=0700 none "$J" || exit 99
"$PARTALIGN" fix --yes --move-data --quiet --backup-dir "$BK" "$dev"
echo "rc=\$?"
"$PARTALIGN" resume --quiet --backup-dir "$BK" "$dev"
echo "rc=\$?"
EOF
unshare -m --propagation private bash "$T_TMP/rescue.sh" >"$T_TMP/out" 2>"$T_TMP/err" </dev/null ||
	fail "the private namespace: $(cat "$T_TMP/err")"
[ "$(grep -c '^rc=4$' "$T_TMP/out")" = 2 ] ||
	fail "rescue system: fix and resume did not both refuse: $(cat "$T_TMP/out" "$T_TMP/err")"
expect_err "refused: an unfinished data move (move id ${mid: -8})" "rescue system"
unchanged "$dev" "$s" "the rescue system"

echo "# the journal's file renamed: found by its header"
mv "$jf" "$J1/renamed.journal"
pa_resume "$dev" --journal "$J1"
expect_rc 1 "resume with the renamed journal"
[ "$(sums_of "$dev" 1)" = "$want" ] || fail "content differs after resuming from the renamed journal"
[ "$(sfdisk --part-type "$dev" 1)" = 83 ] || fail "the partition type did not come back"
[ "$(sfdisk --json "$dev" | jq -r .partitiontable.id)" = "$sig0" ] ||
	fail "the disk signature did not come back ($sig0)"
[ "$(sfdisk --json "$dev" | jq -r '.partitiontable.partitions[0].start')" = 4096 ] ||
	fail "partition 1 is not at 2 MiB: $(sfdisk -d "$dev")"
[ -z "$(ls -A "$J1")" ] || fail "journal left behind: $(ls "$J1")"

echo "# given the right journal after all: resume finishes byte-identical"
restore_snapshot "$dev" "$T_TMP/killed.snap"
rm -rf "$J1" && cp -a "$T_TMP/j1.saved" "$J1"
pa_resume "$dev" --journal "$J1"
expect_rc 1 "resume with the journal"
[ "$(sums_of "$dev" 1)" = "$want" ] || fail "content differs after resume"
run_pa check --probe "$dev"
expect_rc 0 "check after the resume"
s=$(disk_sum "$dev")
run_pa restore --yes --backup-dir "$BK" "$bk" "$dev"
expect_rc 8 "restore of the pre-move backup over the moved data"
expect_err "was taken before data move $mid" "restore of the pre-move backup"
unchanged "$dev" "$s" "restore of the pre-move backup"

echo "# a journal directory on tmpfs is refused before anything is written"
restore_snapshot "$dev" "$T_TMP/seed.snap"
s=$(disk_sum "$dev")
cat >"$T_TMP/tmpfs.sh" <<EOF
mkdir -p "$T_TMP/shm" && mount -t tmpfs none "$T_TMP/shm" || exit 99
"$PARTALIGN" fix --yes --move-data --quiet --journal "$T_TMP/shm/j" --backup-dir "$BK" "$dev"
echo "rc=\$?"
ls -A "$T_TMP/shm"
EOF
unshare -m --propagation private bash "$T_TMP/tmpfs.sh" >"$T_TMP/out" 2>"$T_TMP/err" </dev/null
grep -q '^rc=4$' "$T_TMP/out" || fail "tmpfs journal: $(cat "$T_TMP/out" "$T_TMP/err")"
expect_err "is on tmpfs, which does not outlive a power cut" "tmpfs journal"
[ "$(sed -n '2,$p' "$T_TMP/out")" = "" ] || fail "tmpfs journal: something was written there"
unchanged "$dev" "$s" "a tmpfs journal"

echo "# two images of one disk: neither accepts the other's journal"
cp "$T_TMP/seed.img" "$T_TMP/clone.img"
twin=$(loop_attach "$T_TMP/clone.img" 512)
partx -a "$twin" 2>/dev/null || partx -u "$twin"
killed_move "$J1" # on $dev
jf=$(find "$J1" -name '*.journal')
mid=${jf%.journal}
mid=${mid##*-}
tsum=$(disk_sum "$twin")
# the twin carries no marker: nothing to resume there, whatever --journal says
run_pa resume --quiet --journal "$J1" --backup-dir "$BK" "$twin"
expect_rc 0 "resume on the twin"
grep -q "nothing to resume" "$T_TMP/out" || fail "resume on the twin: $(cat "$T_TMP/out")"
unchanged "$twin" "$tsum" "resume on the twin"
# the twin's own killed move, then its resume with only the other's journal
J3="$T_TMP/j3"
mkdir -p "$J3"
dev_save=$dev
dev=$twin
RECORD_MIN=1048576 killed_move "$J3" # this one records progress only, no chunk saved
grep -qa ' record 65536$' "$(find "$J3" -name '*.journal')" ||
	fail "the twin's move is not record-only: $(head -c 600 "$(find "$J3" -name '*.journal')")"
tsum=$(disk_sum "$twin")
find "$J" -name '*.journal' -type l -delete # no pointers: only the other disk's journal
run_pa resume --quiet --journal "$J1" --backup-dir "$BK" "$twin"
expect_rc 4 "the twin with the other disk's journal"
expect_err "refused: an unfinished data move" "the twin with the other disk's journal"
unchanged "$twin" "$tsum" "the twin with the other disk's journal"
run_pa resume --quiet --journal "$J3" --backup-dir "$BK" "$twin"
expect_rc 1 "the twin with its own journal"
[ "$(sums_of "$twin" 1)" = "$want" ] || fail "the twin's content differs after its resume"
dev=$dev_save
run_pa resume --quiet --journal "$J1" --backup-dir "$BK" "$dev"
expect_rc 1 "the first disk with its journal"
[ "$(sums_of "$dev" 1)" = "$want" ] || fail "content differs after the first disk's resume"
[ "$(sfdisk --json "$dev" | jq -r .partitiontable.id)" = "$sig0" ] ||
	fail "the first disk's signature did not come back"
echo "PASS"
