#!/bin/bash
# partalign(8), the page an admin opens first, shows the commands at work
# and lists only what an admin sets:
#   EXAMPLES: a section with example command lines ("# partalign COMMAND"),
#     each naming a command of "partalign --help", at least one for the audit
#     (check), the way to a fix (plan, fix) and the way back (restore);
#   ENVIRONMENT: every PARTALIGN_* variable the programs read (found in the
#     sources: getenv, the environment knobs, the tool directory) is in
#     exactly one of partalign(8)'s ENVIRONMENT (the admin's) or HACKING's
#     list of test and benchmark knobs; ENVIRONMENT names no variable that
#     is "for tests" or "for benchmarks".
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/common.sh"

[ -x "$PARTALIGN" ] || fail "$PARTALIGN: not built"
cd "$top_srcdir"

# Page $1's .SH section $2, roff escapes for '-' undone.
section() {
	sed -e 's/\\-/-/g' -e 's/\\&//g' "$1" | awk -v want="$2" '
		/^\.SH / { name = substr($0, 5); gsub(/"/, "", name); inside = (name == want); next }
		inside'
}

# --- EXAMPLES ---------------------------------------------------------------
section man/partalign.8 EXAMPLES >"$T_TMP/examples"
[ -s "$T_TMP/examples" ] || fail "partalign(8) has no EXAMPLES section"
"$PARTALIGN" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p' >"$T_TMP/commands"
[ -s "$T_TMP/commands" ] || fail "partalign --help lists no command"
sed -n 's/^# partalign \([a-z][a-z0-9-]*\).*/\1/p' "$T_TMP/examples" | sort -u >"$T_TMP/used"
[ "$(wc -l <"$T_TMP/used")" -ge 5 ] ||
	fail "partalign(8) EXAMPLES: too few commands shown: $(tr '\n' ' ' <"$T_TMP/used")"
while read -r c; do
	grep -qxF "$c" "$T_TMP/commands" || fail "partalign(8) EXAMPLES: no command '$c'"
done <"$T_TMP/used"
for c in check plan fix restore; do
	grep -qxF "$c" "$T_TMP/used" || fail "partalign(8) EXAMPLES: no example of $c"
done

# --- ENVIRONMENT ------------------------------------------------------------
section man/partalign.8 ENVIRONMENT >"$T_TMP/env"
[ -s "$T_TMP/env" ] || fail "partalign(8) has no ENVIRONMENT section"
# the variables the programs read: quoted PARTALIGN_ names in the C sources
grep -rhoE '"PARTALIGN_[A-Z_]+"' src --include='*.[ch]' | tr -d '"' | sort -u >"$T_TMP/read"
[ -s "$T_TMP/read" ] || fail "no PARTALIGN_ variable found in src/"
# HACKING's knobs: the list after its heading "Environment knobs for tests"
awk '/^Environment knobs for tests/ { on = 1 } on && /^[A-Z][a-z]/ && !/^Environment knobs/ { on = 0 } on' \
	HACKING >"$T_TMP/hacking"
[ -s "$T_TMP/hacking" ] || fail "HACKING has no 'Environment knobs for tests' list"
while read -r v; do
	in_man=0 in_hacking=0
	grep -qE "^\.B $v\$" "$T_TMP/env" && in_man=1
	grep -qw -- "$v" "$T_TMP/hacking" && in_hacking=1
	case $in_man$in_hacking in
	10 | 01) ;;
	00) fail "$v: read by partalign, documented neither in partalign(8) ENVIRONMENT nor in HACKING" ;;
	11) fail "$v: in both partalign(8) ENVIRONMENT and HACKING's test knobs" ;;
	esac
done <"$T_TMP/read"
if grep -nE 'for (tests|benchmarks)' "$T_TMP/env"; then
	fail "partalign(8) ENVIRONMENT lists a knob for tests or benchmarks"
fi
echo "PASS: partalign(8): EXAMPLES of $(wc -l <"$T_TMP/used") commands; ENVIRONMENT: the admin's variables only"
