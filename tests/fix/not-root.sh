#!/bin/bash
# partalign run by a user who is not root (setpriv with a uid no account
# has): wherever a permission stops it, the one line naming the device or
# path and the reason ends with "; run partalign as root" -- plan, fix,
# resume, restore, check --probe, rules (the partition, and the rules
# file's directory), provision (its JSON reason too) and dump -- with the
# exit status of that error (8) and the disk byte-identical (sha256).  Every
# "Permission denied" any of them prints carries the hint.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd setpriv

# a uid that no account has: nothing here may depend on a user's setup
U=4242
while getent passwd "$U" >/dev/null || getent group "$U" >/dev/null; do
	U=$((U + 1))
done

# what the user can reach: the programs (the build tree may be private),
# a configuration, and directories only root can write
PUB=$(mktemp -d "${TMPDIR:-/tmp}/partalign-notroot.XXXXXX")
at_exit "rm -rf '$PUB'"
chmod 755 "$PUB"
mkdir -m 755 "$PUB/bin" "$PUB/ro"
cp "$top_builddir/partalign" "$top_builddir/partalign-apply" "$PUB/bin/"

HINT="; run partalign as root"
: >"$T_TMP/all-err"

# as_user WHAT ARGS...: partalign ARGS as uid $U; output in $T_TMP/out and
# $T_TMP/err, the status in $PA_RC
as_user() {
	local what=$1
	shift
	PA_RC=0
	setpriv --reuid "$U" --regid "$U" --clear-groups "$PUB/bin/partalign" "$@" \
		>"$T_TMP/out" 2>"$T_TMP/err" </dev/null || PA_RC=$?
	sed "s|^|$what: |" "$T_TMP/err" >>"$T_TMP/all-err"
}

# err_line TEXT WHAT: stderr has exactly the line TEXT (the hint at its end)
err_line() {
	grep -qxF -- "$1$HINT" "$T_TMP/err" || fail "$2: stderr lacks '$1$HINT': $(cat "$T_TMP/err")"
}

d=$(mkdisk nr 64M 512 'label: gpt\nfirst-lba: 34\nstart=34, size=20480, name=a\nstart=40960, size=8192, name=b')
p1=$(pnode_of "$d" 1)
# a backup file (root's, mode 0600) for restore: from a fix as root
run_pa "$T_TMP/out" "$T_TMP/err" fix --yes --backup-dir "$T_TMP/bk0" "$d"
expect_rc 1 "fix as root"
bk=$(find "$T_TMP/bk0" -name '*.pt' | head -n1)
sum=$(dev_sum "$d")

echo "# plan, fix, resume: the disk cannot be opened"
as_user plan plan "$d"
expect_rc 8 "plan as a user"
assert_eq "partalign: $d: cannot open: Permission denied$HINT" "$(cat "$T_TMP/err")" "plan as a user"
as_user fix fix --yes --backup-dir "$PUB/bk" "$d"
expect_rc 8 "fix as a user"
err_line "partalign: $d: cannot open: Permission denied" "fix as a user"
as_user resume resume --backup-dir "$PUB/bk" --journal "$PUB/ro" "$d"
expect_rc 8 "resume as a user"
grep -qF "$HINT" "$T_TMP/err" || fail "resume as a user: $(cat "$T_TMP/err")"

echo "# fix and plan --move-data: a backup or journal directory it cannot look into"
# (the test's own directory is root's, mode 0700)
as_user fix-dir fix --yes --backup-dir "$T_TMP/bk" "$d"
expect_rc 8 "fix with a directory a user cannot check"
grep -qE "^partalign: refused: $T_TMP(/bk)? cannot be checked: Permission denied$HINT\$" "$T_TMP/err" ||
	fail "fix with a directory a user cannot check: $(cat "$T_TMP/err")"
as_user plan-move plan --move-data --journal "$T_TMP/j" "$d"
expect_rc 8 "plan --move-data with a journal directory a user cannot check"
grep -qF "cannot be checked: Permission denied$HINT" "$T_TMP/err" ||
	fail "plan --move-data as a user: $(cat "$T_TMP/err")"

echo "# restore: the backup file cannot be read"
as_user restore restore --yes --backup-dir "$PUB/bk" "$bk" "$d"
expect_rc 8 "restore as a user"
err_line "partalign: $bk: cannot read; nothing written to $d: Permission denied" "restore as a user"

echo "# check --probe: reads the disk"
as_user check check --probe "$d"
expect_rc 8 "check --probe as a user"
err_line "partalign: $d: cannot open for --probe: Permission denied" "check --probe as a user"
grep -q "^${d#/dev/}p1 " "$T_TMP/out" || fail "check --probe as a user: no rows: $(cat "$T_TMP/out")"

echo "# rules: the partition, then the rules file's directory"
as_user rules rules --dry-run --disk "A=$p1" --output "$PUB/ro/x.rules"
expect_rc 8 "rules as a user"
err_line "partalign: $p1: cannot open read-only to check it for signatures (A): Permission denied" \
	"rules as a user"
# the disk and partition readable (as for a member of a disk group): the
# write fails
chmod o+r "$d" "$p1"
as_user rules-write rules --no-reload --disk "A=$p1" --output "$PUB/ro/x.rules"
chmod o-r "$d" "$p1"
expect_rc 8 "rules into root's directory as a user"
err_line "partalign: $PUB/ro/x.rules: cannot create a temporary file next to it: Permission denied" \
	"rules into root's directory as a user"
[ -z "$(ls -A "$PUB/ro")" ] || fail "rules as a user left: $(ls -A "$PUB/ro")"

echo "# provision: the disk cannot be opened; its JSON says why too"
printf 'DATA1 %s\n' "$d" >"$PUB/asm.conf"
chmod 644 "$PUB/asm.conf"
as_user provision provision --config "$PUB/asm.conf" --root "$PUB/ro" --backup-dir "$PUB/bk" --json
[ $((PA_RC & 8)) = 8 ] || fail "provision as a user: exit status $PA_RC"
err_line "partalign: $d: cannot open: Permission denied" "provision as a user"
assert_eq "$d: cannot open: Permission denied$HINT" "$(jq -r '.disks[0].reason' "$T_TMP/out")" \
	"provision --json as a user: the reason"

echo "# dump: a directory it cannot create"
as_user dump dump "$PUB/ro/d"
expect_rc 8 "dump as a user"
err_line "partalign: $PUB/ro/d: cannot create it: Permission denied" "dump as a user"

echo "# every permission error says what to do"
bad=$(grep -E 'Permission denied|Operation not permitted' "$T_TMP/all-err" | grep -vF "$HINT" || true)
[ -z "$bad" ] || fail "permission errors without the hint: $bad"
assert_eq "$sum" "$(dev_sum "$d")" "the disk after everything the user ran"

echo "# root is never told to run as root"
run_pa "$T_TMP/out" "$T_TMP/err" plan "$d"
! grep -qF "$HINT" "$T_TMP/err" || fail "root told to run as root: $(cat "$T_TMP/err")"
echo "PASS: a user who is not root is told to run partalign as root"
