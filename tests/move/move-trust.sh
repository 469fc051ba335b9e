#!/bin/bash
# Move journals only where no one but root can change them (issue #27 item 4):
# a journal decides what resume writes back to the disk.
#  - fix --move-data, resume and plan --move-data refuse a --journal (or
#    PARTALIGN_JOURNAL, where the pointer goes) that is writable by its group
#    or others, owned by another user, below a directory others may write
#    that is not sticky, or a link to such a one: exit 8, one line, before
#    anything is written (disk byte for byte, no journal or backup anywhere);
#    tmpfs over the state directory with its own mode 1777 is refused too.
#  - a link planted at the journal's name or the pointer's is not followed
#    (names made predictable with the fault shim); one at the temporary's
#    name is removed as a dead run's temporary, never written through.
#  - resume refuses (exit 4, nothing written, the journal unchanged) a
#    journal owned by another user or writable by others, one reached through
#    a link into a directory others may write, and the path the disk's marker
#    records when its directory is not trusted; with the journal trusted
#    again, resume finishes the move byte-identical.
# without it nothing below is safe: every path would start at /
. "$top_srcdir/tests/lib/common.sh" || exit 99
need_no_sanitizers "the fault shim tests/move/faultshim.so"
. "$top_srcdir/tests/move/lib.sh"
need_cmd getent realpath unshare mount
getent passwd nobody >/dev/null || skip "needs the user nobody"

SHIM="$top_builddir/tests/move/.libs/faultshim.so"
[ -f "$SHIM" ] || SHIM="$top_builddir/tests/move/faultshim.so"
[ -f "$SHIM" ] || skip "no fault shim (make check builds it)"

T=$(realpath "$T_TMP")
J=$(realpath "$J")
export PARTALIGN_JOURNAL="$J"
RULE="journals and backups must be in a directory only root can change"
FRULE="a journal or backup is read only when root owns it and no one else can write it"
NOBODY="uid $(id -u nobody) (nobody)"

# GPT: its marker records where the journal was written (a dos one cannot)
dev=$(mkdisk trust 64M 512 'label: gpt\nfirst-lba: 34\nstart=34, size=32768')
fill_raw "$dev" 1
want=$(sums_of "$dev" 1)
snapshot "$dev" "$T_TMP/seed.snap"
s=$(disk_sum "$dev")

# The journals, backups and their temporaries below $T_TMP, and links.
files() {
	find "$T_TMP" \( -name '*.journal' -o -name '.*.journal.*' -o -name '*.pt' \
		-o -name '.*.pt.*' \) -printf '%p %y\n' | sort
}

# refused RC LINE WHAT: the last run refused with RC, stderr has exactly the
# line LINE, the disk and the files are as they were
refused() {
	expect_rc "$1" "$3"
	grep -Fxq -- "$2" "$T_TMP/err" || fail "$3: stderr lacks the line '$2': $(cat "$T_TMP/err")"
	unchanged "$dev" "$s" "$3"
	assert_eq "$before" "$(files)" "$3: journal and backup files"
	echo "ok: $3 -> $1: $2"
}

echo "# journal directories root alone cannot vouch for: refused before anything"
before=$(files)
mkdir -m 0770 "$T/group"
mkdir -m 0777 "$T/other"
mkdir -m 0700 "$T/theirs"
chown nobody "$T/theirs"
mkdir -m 0777 "$T/open"
mkdir -m 0700 "$T/open/j"
ln -s "$T/other" "$T/link"
pa_move "$dev" --journal "$T/group"
refused 8 "partalign: refused: $T/group is writable by its group (mode 0770); $RULE" group-writable
pa_move "$dev" --journal "$T/other"
refused 8 "partalign: refused: $T/other is writable by others (mode 0777); $RULE" other-writable
pa_move "$dev" --journal "$T/theirs"
refused 8 "partalign: refused: $T/theirs is owned by $NOBODY, not root; $RULE" not-root
pa_move "$dev" --journal "$T/open/j"
refused 8 "partalign: refused: $T/open/j: $T/open is writable by others (mode 0777); $RULE" \
	open-parent
pa_move "$dev" --journal "$T/link"
refused 8 "partalign: refused: $T/link: $T/other is writable by others (mode 0777); $RULE" \
	link-to-other
# the default directory, where a journal kept elsewhere leaves its pointer
PARTALIGN_JOURNAL="$T/other" pa_move "$dev"
refused 8 "partalign: refused: $T/other is writable by others (mode 0777); $RULE" \
	"PARTALIGN_JOURNAL other-writable"
pa_resume "$dev" --journal "$T/theirs"
refused 8 "partalign: refused: $T/theirs is owned by $NOBODY, not root; $RULE" resume
run_pa plan --move-data --journal "$T/group" "$dev"
refused 8 "partalign: refused: $T/group is writable by its group (mode 0770); $RULE" plan
# the rescue recipe with tmpfs's own mode: 1777 is others-writable, sticky or not
cat >"$T_TMP/rescue.sh" <<EOF
mount -t tmpfs none "$J" || exit 99
"$PARTALIGN" resume --quiet --backup-dir "$BK" "$dev"
EOF
PA_RC=0
unshare -m --propagation private bash "$T_TMP/rescue.sh" >"$T_TMP/out" 2>"$T_TMP/err" \
	</dev/null || PA_RC=$?
refused 8 "partalign: refused: $J is writable by others (mode 1777); $RULE" "tmpfs state directory"

echo "# links planted at the names a new move's files get: not followed"
id="file:$(sed 's/[^A-Za-z0-9._:-]/_/g' "/sys/block/${dev#/dev/}/loop/backing_file")"
jname="$id-4141414141414141.journal" # FS_RANDOM_BYTE=0x41 makes the move id
J1="$T/j1"
mkdir -m 0700 "$J1"
planted() {
	FS_RANDOM_BYTE=0x41 LD_PRELOAD="$SHIM" pa_move "$dev" --journal "$1"
}
ln -s "$T/target-journal" "$J/$jname"
before=$(files)
planted "$J"
refused 12 "partalign: $dev: cannot create the move journal in $J; nothing moved: File exists" \
	"a link at the journal's name"
[ ! -e "$T/target-journal" ] || fail "the link at the journal's name was followed"
# the pointer's name in the default directory, the journal kept in $J1
planted "$J1"
refused 12 "partalign: $dev: cannot create the move journal in $J1; nothing moved: File exists" \
	"a link at the pointer's name"
[ ! -e "$T/target-journal" ] || fail "the link at the pointer's name was followed"
rm "$J/$jname"
# the temporary's name (six 'D's): a dead run's temporary, removed unread
ln -s "$T/target-tmp" "$J/.$jname.DDDDDD"
planted "$J"
expect_rc 1 "a link at the temporary's name"
[ ! -e "$T/target-tmp" ] || fail "the link at the temporary's name was followed"
[ ! -L "$J/.$jname.DDDDDD" ] || fail "the link at the temporary's name is still there"
[ "$(sums_of "$dev" 1)" = "$want" ] || fail "content differs after the move"
[ "$(journals)" = 0 ] || fail "a journal was left: $(find "$J" -name '*.journal')"
restore_snapshot "$dev" "$T_TMP/seed.snap"
assert_eq "$s" "$(disk_sum "$dev")" "the disk back as it was"

echo "# a killed move, its journal in $J1, the pointer in $J"
FS_JOURNAL="$J1" FS_AT=40 FS_MODE=kill LD_PRELOAD="$SHIM" PARTALIGN_MOVE_CHUNK=65536 \
	pa_move "$dev" --journal "$J1"
expect_rc 137 "the killed move"
killed_journal "$J1" "$J"
s=$(disk_sum "$dev")
jsum=$(sha256sum <"$jf")
before=$(files)

chown nobody "$jf"
pa_resume "$dev" --journal "$J1"
refused 4 "partalign: $dev: refused: the journal $jf of the unfinished move $mid: $jf is owned by $NOBODY, not root; $FRULE" \
	"resume, the journal owned by nobody"
chown root "$jf"
chmod 0606 "$jf"
pa_resume "$dev" --journal "$J1"
refused 4 "partalign: $dev: refused: the journal $jf of the unfinished move $mid: $jf is writable by others (mode 0606); $FRULE" \
	"resume, the journal writable by others"
chmod 0600 "$jf"
# the journal's name a link into a directory others may write
mv "$jf" "$T/other/"
ln -s "$T/other/${jf##*/}" "$jf"
before=$(files)
pa_resume "$dev" --journal "$J1"
refused 4 "partalign: $dev: refused: the journal $jf of the unfinished move $mid: $T/other is writable by others (mode 0777); $RULE" \
	"resume, the journal a link into $T/other"
rm "$jf"
mv "$T/other/${jf##*/}" "$jf"
# the place the disk's marker records, in a directory others may write; no
# pointer and nothing in the directories given
mv "$ptr" "$T/pointer.saved"
chmod 0777 "$J1"
before=$(files)
pa_resume "$dev" --journal "$J"
refused 4 "partalign: $dev: refused: the journal of the unfinished data move (move id $mid) is recorded as $jf: $J1 is writable by others (mode 0777); $RULE: move it into one and give that to 'partalign resume --journal DIR'" \
	"resume, the marker's directory writable by others"
pa_resume "$dev" --journal "$J1"
refused 8 "partalign: refused: $J1 is writable by others (mode 0777); $RULE" \
	"resume --journal naming it"
assert_eq "$jsum" "$(sha256sum <"$jf")" "the journal's content"

echo "# trusted again: resume finishes byte-identical"
chmod 0700 "$J1"
mv "$T/pointer.saved" "$ptr"
pa_resume "$dev" --journal "$J1"
expect_rc 1 "resume with the trusted journal"
[ "$(sums_of "$dev" 1)" = "$want" ] || fail "content differs after resume"
[ "$(journals)" = 0 ] && [ -z "$(ls -A "$J1")" ] || fail "a journal or pointer was left"
echo "ok: resumed"
