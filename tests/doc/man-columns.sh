#!/bin/bash
# The man page documents what the binary offers: every column of
# "check --list-columns" has an entry in COLUMNS, every long option of
# "check --help" appears in OPTIONS, and every command of "partalign --help"
# that is implemented (its --help does not say "not implemented yet") has
# its own .SS section.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/common.sh"

page="$top_srcdir/man/partalign.8"
[ -f "$page" ] || fail "$page: missing"
[ -x "$PARTALIGN" ] || fail "$PARTALIGN: not built"

# The page as plain source text: roff escapes for '-' and zero-width '\&' undone.
sed -e 's/\\-/-/g' -e 's/\\(hy/-/g' -e 's/\\&//g' "$page" >"$T_TMP/page"

# Lines of the .SH section $1, up to the next .SH.
section() {
	awk -v want="$1" '
		/^\.SH / { name = substr($0, 5); gsub(/"/, "", name); inside = (name == want); next }
		inside' "$T_TMP/page"
}
section COLUMNS >"$T_TMP/columns"
section OPTIONS >"$T_TMP/options"
[ -s "$T_TMP/columns" ] || fail "no COLUMNS section"
[ -s "$T_TMP/options" ] || fail "no OPTIONS section"

errors=0
missing() {
	echo "missing: $*" >&2
	errors=$((errors + 1))
}

# Columns: each one an entry of its own (".B NAME" line) in COLUMNS.
"$PARTALIGN" check --list-columns >"$T_TMP/list" || fail "check --list-columns failed"
ncols=0
while read -r col _; do
	ncols=$((ncols + 1))
	grep -qxF ".B $col" "$T_TMP/columns" || missing "column $col in COLUMNS"
done <"$T_TMP/list"
[ "$ncols" -gt 0 ] || fail "check --list-columns printed nothing"

# Long options of check: each one named in OPTIONS.
"$PARTALIGN" check --help >"$T_TMP/help" || fail "check --help failed"
nopts=0
for opt in $(grep -oE -- '--[a-z][a-z0-9-]*' "$T_TMP/help" | sort -u); do
	nopts=$((nopts + 1))
	grep -qE -- "(^|[^a-z0-9-])$opt([^a-z0-9-]|\$)" "$T_TMP/options" ||
		missing "option $opt in OPTIONS"
done
[ "$nopts" -gt 0 ] || fail "check --help lists no long option"

# Commands: each implemented one has a .SS section of its own.
"$PARTALIGN" --help >"$T_TMP/cmds" || fail "partalign --help failed"
ncmds=0
for cmd in $(sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p' "$T_TMP/cmds"); do
	ncmds=$((ncmds + 1))
	out=$(timeout 30 "$PARTALIGN" "$cmd" --help </dev/null 2>&1) || true
	case "$out" in
	*"not implemented yet"*) continue ;;
	esac
	grep -qE "^\.SS \"?$cmd\"?\$" "$T_TMP/page" || missing "section .SS $cmd"
done
[ "$ncmds" -gt 0 ] || fail "partalign --help lists no command"

[ "$errors" = 0 ] || fail "$errors item(s) of the binary not in $page"
echo "PASS: $ncols columns, $nopts options, $ncmds commands checked"
