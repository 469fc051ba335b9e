#!/bin/bash
# The manual documents what the binary offers: every column of
# "check --list-columns" has an entry in COLUMNS of partalign-check(8); every
# command of "partalign --help" that is implemented (its --help does not say
# "not implemented yet") has its page partalign-COMMAND(8), which names each
# long option of "partalign COMMAND --help" in its OPTIONS, and partalign(8)
# lists it under COMMANDS; the options of partalign-collect's --help are in
# OPTIONS of partalign-collect(8).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/common.sh"

[ -x "$PARTALIGN" ] || fail "$PARTALIGN: not built"
man="$top_srcdir/man"

# one line per item missing (options_named runs in a subshell)
: >"$T_TMP/missing"
missing() {
	echo "missing: $*" >&2
	echo "$*" >>"$T_TMP/missing"
}

# Page $1 as plain source text in $T_TMP/$1: roff escapes for '-' and
# zero-width '\&' undone.
plain() {
	[ -f "$man/$1" ] || return 1
	sed -e 's/\\-/-/g' -e 's/\\(hy/-/g' -e 's/\\&//g' "$man/$1" >"$T_TMP/$1"
}

# Lines of the .SH section $2 of plain page $1, up to the next .SH.
section() {
	awk -v want="$2" '
		/^\.SH / { name = substr($0, 5); gsub(/"/, "", name); inside = (name == want); next }
		inside' "$T_TMP/$1"
}

# Each long option of the help text in file $1 (the first one of each line
# of its option list) named in OPTIONS of page $2; prints how many.
options_named() {
	local n=0 opt
	section "$2" OPTIONS >"$T_TMP/$2.options"
	[ -s "$T_TMP/$2.options" ] || missing "section OPTIONS in $2"
	for opt in $(sed -nE 's/^ +(-[A-Za-z], )?(--[a-z][a-z0-9-]*).*/\2/p' "$1" | sort -u); do
		n=$((n + 1))
		grep -qE -- "(^|[^a-z0-9-])$opt([^a-z0-9-]|\$)" "$T_TMP/$2.options" ||
			missing "option $opt in OPTIONS of $2"
	done
	echo "$n"
}

plain partalign.8 || fail "$man/partalign.8: missing"
section partalign.8 COMMANDS >"$T_TMP/overview-commands"

# Commands: each implemented one has its page, with its options, and a
# place in partalign(8)'s COMMANDS.
"$PARTALIGN" --help >"$T_TMP/cmds" || fail "partalign --help failed"
ncmds=0 nopts=0
for cmd in $(sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p' "$T_TMP/cmds"); do
	ncmds=$((ncmds + 1))
	out=$(timeout 30 "$PARTALIGN" "$cmd" --help </dev/null 2>&1) || true
	case "$out" in
	*"not implemented yet"*) continue ;;
	esac
	grep -qxF ".B $cmd" "$T_TMP/overview-commands" || missing "command $cmd in COMMANDS of partalign.8"
	page=partalign-$cmd.8
	if ! plain "$page"; then
		missing "page man/$page for command $cmd"
		continue
	fi
	printf '%s\n' "$out" >"$T_TMP/help-$cmd"
	n=$(options_named "$T_TMP/help-$cmd" "$page")
	[ "$n" -gt 0 ] || missing "long options in '$cmd --help'"
	nopts=$((nopts + n))
done
[ "$ncmds" -gt 0 ] || fail "partalign --help lists no command"

# Columns: each one an entry of its own (".B NAME" line) in COLUMNS of check.
plain partalign-check.8 || fail "$man/partalign-check.8: missing"
section partalign-check.8 COLUMNS >"$T_TMP/columns"
[ -s "$T_TMP/columns" ] || fail "no COLUMNS section in partalign-check.8"
"$PARTALIGN" check --list-columns >"$T_TMP/list" || fail "check --list-columns failed"
ncols=0
while read -r col _; do
	ncols=$((ncols + 1))
	grep -qxF ".B $col" "$T_TMP/columns" || missing "column $col in COLUMNS of partalign-check.8"
done <"$T_TMP/list"
[ "$ncols" -gt 0 ] || fail "check --list-columns printed nothing"

# partalign-collect, the sh collector.
plain partalign-collect.8 || fail "$man/partalign-collect.8: missing"
sh "$top_srcdir/collect/partalign-collect" --help >"$T_TMP/help-collect" 2>&1 ||
	fail "partalign-collect --help failed"
n=$(options_named "$T_TMP/help-collect" partalign-collect.8)
[ "$n" -gt 0 ] || fail "partalign-collect --help lists no long option"
nopts=$((nopts + n))

errors=$(wc -l <"$T_TMP/missing")
[ "$errors" = 0 ] || fail "$errors item(s) of the programs not in the manual"
echo "PASS: $ncols columns, $ncmds commands, $nopts options checked"
