#!/bin/bash
# Table backups only where no one but root can change them (issue #27 item 4).
# fix and restore refuse a --backup-dir that is writable by its group or by
# others, owned by another user, below a directory others may write that is
# not sticky, or a link to such a one: exit 8, one line naming the directory
# and why, before anything is written (the disk byte for byte as it was, no
# backup or temporary file anywhere).  A sticky directory above is fine, and
# the directory partalign makes is 0700.  A link planted where the backup or
# its temporary file will be made is not followed (the names are made
# predictable with the fault shim).  restore reads a backup only when it is a
# regular file (not a link) owned by root that no one else can write, in such
# a directory: refused with 8 otherwise.
# without it nothing below is safe: every path would start at /
. "$top_srcdir/tests/lib/common.sh" || exit 99
. "$top_srcdir/tests/fix/lib.sh"
need_no_sanitizers "the fault shim tests/move/faultshim.so"
need_cmd getent realpath
getent passwd nobody >/dev/null || skip "needs the user nobody"

SHIM="$top_builddir/tests/move/.libs/faultshim.so"
[ -f "$SHIM" ] || SHIM="$top_builddir/tests/move/faultshim.so"
[ -f "$SHIM" ] || skip "no fault shim (make check builds it)"

T=$(realpath "$T_TMP")
RULE="journals and backups must be in a directory only root can change"
FRULE="a journal or backup is read only when root owns it and no one else can write it"
NOBODY="uid $(id -u nobody) (nobody)"

d=$(mkdisk trust 64M 512 'label: dos\nstart=63, size=65536, type=83')
s0=$(dev_sum "$d")

# no_files WHAT: no backup and no temporary of one anywhere below $T_TMP
no_files() {
	local f
	f=$(find "$T_TMP" \( -name '*.pt' -o -name '.*.pt.*' \) -print)
	[ -z "$f" ] || fail "$1: a backup file was made: $f"
}

# refused_fix NAME DIR LINE: fix --backup-dir DIR refuses with exactly LINE
refused_fix() {
	pa_fix "$d" --backup-dir "$2"
	expect_rc 8 "$1"
	assert_eq "partalign: refused: $3; $RULE" "$(cat "$T_TMP/err")" "$1: message"
	assert_eq "$s0" "$(dev_sum "$d")" "$1: disk content"
	no_files "$1"
	echo "ok: $1 -> 8: $(cat "$T_TMP/err")"
}

echo "# fix --backup-dir that root alone cannot vouch for"
mkdir -m 0770 "$T/group"
refused_fix group-writable "$T/group" "$T/group is writable by its group (mode 0770)"
mkdir -m 0777 "$T/other"
refused_fix other-writable "$T/other" "$T/other is writable by others (mode 0777)"
mkdir -m 0700 "$T/theirs"
chown nobody "$T/theirs"
refused_fix not-root "$T/theirs" "$T/theirs is owned by $NOBODY, not root"
# a good directory below one others may write (not sticky): the one above is named
mkdir -m 0777 "$T/open"
mkdir -m 0700 "$T/open/bk"
refused_fix open-parent "$T/open/bk" "$T/open/bk: $T/open is writable by others (mode 0777)"
refused_fix open-parent-new "$T/open/new/bk" \
	"$T/open/new/bk: $T/open is writable by others (mode 0777)"
[ ! -e "$T/open/new" ] || fail "open-parent-new: the directory was made"
# a link planted where the backup directory should be, to one others may write
ln -s "$T/other" "$T/link"
refused_fix link-to-other "$T/link" "$T/link: $T/other is writable by others (mode 0777)"
# a relative name: the directory it names from the working directory
cd "$T"
refused_fix relative group "group: $T/group is writable by its group (mode 0770)"
cd /

echo "# a link planted at the backup's temporary name: not followed, nothing written"
id="file:$(sed 's/[^A-Za-z0-9._:-]/_/g' "/sys/block/${d#/dev/}/loop/backing_file")"
name="$id-20010909T014640.000000000Z.pt"
mkdir -m 1777 "$T/sticky"
mkdir -m 0700 "$T/sticky/bk"
# FS_RANDOM_BYTE=0x41: the temporary's six characters are all 'D'
ln -s "$T/target-tmp" "$T/sticky/bk/.$name.DDDDDD"
FS_RANDOM_BYTE=0x41 FS_REALTIME=1000000000 LD_PRELOAD="$SHIM" \
	pa_fix "$d" --backup-dir "$T/sticky/bk"
expect_rc 8 "planted temporary"
grep -qF "partalign: $d: cannot save the table backup in $T/sticky/bk; nothing written: File exists" \
	"$T_TMP/err" || fail "planted temporary: $(cat "$T_TMP/err")"
assert_eq "$s0" "$(dev_sum "$d")" "planted temporary: disk content"
[ ! -e "$T/target-tmp" ] || fail "the link at the temporary name was followed"
[ -L "$T/sticky/bk/.$name.DDDDDD" ] || fail "the planted link went"
rm "$T/sticky/bk/.$name.DDDDDD"
no_files "planted temporary"

echo "# below a sticky directory; a link planted at the backup's own name"
ln -s "$T/target-final" "$T/sticky/bk/$name"
FS_RANDOM_BYTE=0x41 FS_REALTIME=1000000000 LD_PRELOAD="$SHIM" \
	pa_fix "$d" --backup-dir "$T/sticky/bk"
expect_rc 1 "fix below a sticky directory"
[ ! -e "$T/target-final" ] || fail "the link at the backup's name was followed"
[ -f "$T/sticky/bk/$name" ] && [ ! -L "$T/sticky/bk/$name" ] ||
	fail "the backup is not a regular file at $T/sticky/bk/$name: $(ls -la "$T/sticky/bk")"
assert_eq "600 root" "$(stat -c '%a %U' "$T/sticky/bk/$name")" "the backup's mode"
bk="$T/sticky/bk/$name"
s1=$(dev_sum "$d")

mkdir -m 0755 "$T/made"
cp "$bk" "$T/good.pt"

# refused_restore NAME LINE ARGS...: restore refuses with exactly LINE
refused_restore() {
	local name=$1 line=$2
	shift 2
	run_pa "$T_TMP/out" "$T_TMP/err" restore --yes --backup-dir "$T/made/a/b" "$@" "$d"
	expect_rc 8 "$name"
	assert_eq "$line" "$(cat "$T_TMP/err")" "$name: message"
	assert_eq "$s1" "$(dev_sum "$d")" "$name: disk content"
	[ ! -e "$T/made/a" ] || fail "$name: the backup directory was made"
	echo "ok: $name -> 8: $(cat "$T_TMP/err")"
}

echo "# restore: the file and its directory"
cp "$bk" "$T/theirs.pt"
chown nobody "$T/theirs.pt"
refused_restore restore-not-root \
	"partalign: refused: $T/theirs.pt is owned by $NOBODY, not root; $FRULE" "$T/theirs.pt"
cp "$bk" "$T/open.pt"
chmod 0646 "$T/open.pt"
refused_restore restore-other-writable \
	"partalign: refused: $T/open.pt is writable by others (mode 0646); $FRULE" "$T/open.pt"
cp "$bk" "$T/group.pt"
chmod 0620 "$T/group.pt"
refused_restore restore-group-writable \
	"partalign: refused: $T/group.pt is writable by its group (mode 0620); $FRULE" "$T/group.pt"
ln -s "$T/good.pt" "$T/link.pt"
refused_restore restore-link "partalign: refused: $T/link.pt is a symbolic link; $FRULE" \
	"$T/link.pt"
cp "$bk" "$T/other/in-open.pt"
refused_restore restore-open-dir \
	"partalign: refused: $T/other/in-open.pt: $T/other is writable by others (mode 0777); $RULE" \
	"$T/other/in-open.pt"
run_pa "$T_TMP/out" "$T_TMP/err" restore --yes --backup-dir "$T/other" "$T/good.pt" "$d"
expect_rc 8 "restore --backup-dir"
assert_eq "partalign: refused: $T/other is writable by others (mode 0777); $RULE" \
	"$(cat "$T_TMP/err")" "restore --backup-dir: message"
assert_eq "$s1" "$(dev_sum "$d")" "restore --backup-dir: disk content"
[ -z "$(ls -A "$T/other" | grep -v in-open.pt)" ] || fail "restore wrote into $T/other"

echo "# restore of a good backup: the current table saved in a new 0700 directory"
run_pa "$T_TMP/out" "$T_TMP/err" restore --yes --backup-dir "$T/made/a/b" "$T/good.pt" "$d"
expect_rc 1 "restore of a good backup"
assert_eq "700 700" "$(stat -c '%a' "$T/made/a" "$T/made/a/b" | tr '\n' ' ' | sed 's/ $//')" \
	"modes of the directories restore made"
[ "$(find "$T/made/a/b" -name '*.pt' | wc -l)" = 1 ] || fail "restore saved no backup"
assert_eq dos "$(sfd_label "$d")" "the label after restore"
echo "ok: restore of a trusted backup"
