#!/bin/bash
# rules --dry-run as an admin sees it on an 80x24 terminal (tmux, read back
# with capture-pane -J): the rules once, as a diff against the current file
# (a new file: each line with "+"), then the warnings (no grid user, no
# asmadmin group on the target), then the verdict line, so that what is
# still on the screen at the end is what needs doing.  Nothing is written.
. "$top_srcdir/tests/lib/common.sh"
need_root
need_cmd sfdisk partx losetup

. "$top_srcdir/tests/lib/term.sh"

# term NAME ARGS...: term_pane with the warnings on the screen
term() { term_pane "$1" - "${@:2}"; }

d=$(mkdisk a 64M 512 'label: gpt\nstart=2048, size=20480\nstart=22528, size=20480')
for p in "${d}p1" "${d}p2"; do
	[ -b "$p" ] || fail "partition $p was not created"
done
# a target system without the grid user and the asmadmin group
ROOT="$T_TMP/root"
mkdir -p "$ROOT/etc/udev/rules.d"
echo 'root:x:0:0:root:/root:/bin/sh' >"$ROOT/etc/passwd"
echo 'root:x:0:' >"$ROOT/etc/group"
OUT="$ROOT/etc/udev/rules.d/99-oracle-asmdevices.rules"
W1="partalign: warning: user grid does not exist on the target system ($ROOT/etc/passwd): udev leaves the devices owned by root until it does"
W2="partalign: warning: group asmadmin does not exist on the target system ($ROOT/etc/group): udev leaves the devices in group root until it does"

echo "# a new file"
term new rules --dry-run --root "$ROOT" --disk "DATA1=${d}p1" --disk "DATA2=${d}p2"
assert_eq 1 "$T_RC" "rules --dry-run of a new file: exit status"
scr=$T_TMP/new.screen
assert_eq "$W1
$W2
partalign: $OUT: would be written (dry run)" "$(tail -n 3 "$scr")" "the last lines on the screen"
# the file once, as the diff from nothing
assert_eq 1 "$(grep -c 'oracleasm/DATA1' "$scr")" "DATA1's rule on the screen"
grep -q '^+ACTION==.*oracleasm/DATA2' "$scr" || fail "DATA2's rule is not a + line: $(cat "$scr")"
! grep -q '^# DATA' "$scr" || fail "the file printed as well as its diff: $(cat "$scr")"
[ ! -e "$OUT" ] || fail "the dry run wrote $OUT"

echo "# the same file there already: no diff, the warnings and the verdict"
"$PARTALIGN" rules --root "$ROOT" --disk "DATA1=${d}p1" --disk "DATA2=${d}p2" >/dev/null 2>&1 ||
	[ $? = 1 ] || fail "rules --root: the first write failed"
[ -f "$OUT" ] || fail "rules --root wrote no $OUT"
sum=$(sha256sum <"$OUT")
term same rules --dry-run --root "$ROOT" --disk "DATA1=${d}p1" --disk "DATA2=${d}p2"
assert_eq 0 "$T_RC" "rules --dry-run, unchanged: exit status"
assert_eq "$W1
$W2
partalign: $OUT: unchanged (dry run)" "$(cat "$T_TMP/same.screen")" "rules --dry-run, unchanged: the screen"

echo "# one disk less: the diff, then the warnings"
term less rules --dry-run --root "$ROOT" --disk "DATA1=${d}p1"
assert_eq 1 "$T_RC" "rules --dry-run of a change: exit status"
grep -q '^-ACTION==.*oracleasm/DATA2' "$T_TMP/less.screen" ||
	fail "DATA2's rule is not a - line: $(cat "$T_TMP/less.screen")"
assert_eq "$W1
$W2
partalign: $OUT: would be written (dry run)" "$(tail -n 3 "$T_TMP/less.screen")" \
	"a change: the last lines on the screen"
assert_eq "$sum" "$(sha256sum <"$OUT")" "the rules file after the dry runs"
echo "PASS: rules --dry-run ends with its warnings on an 80x24 terminal"
