#!/bin/bash
# Every page of man/ is clean under both formatters people read it with
# (mandoc -Tlint at warning level, groff with every warning enabled), has
# NAME, DESCRIPTION and SEE ALSO, and names in SEE ALSO only partalign pages
# that exist; the pages in man/ are exactly those man/Makemodule.am installs,
# and partalign(8)'s SEE ALSO names every other one.  Any message fails the
# test; a missing formatter skips it.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/common.sh"

need_cmd mandoc groff
cd "$top_srcdir"
[ -f man/Makemodule.am ] || fail "man/Makemodule.am: missing"

# The pages in the tree, and the pages the build installs.
ls man/ | grep -E '\.[1-9]$' | sed 's|^|man/|' | LC_ALL=C sort >"$T_TMP/tree"
grep -oE 'man/[A-Za-z0-9_.-]+\.[1-9]' man/Makemodule.am | LC_ALL=C sort >"$T_TMP/installed"
[ -s "$T_TMP/tree" ] || fail "no page in man/"
if ! diff -u "$T_TMP/installed" "$T_TMP/tree" >"$T_TMP/diff"; then
	fail "man/Makemodule.am (-) and the pages in man/ (+) differ:
$(cat "$T_TMP/diff")"
fi

errors=0
bad() {
	echo "$*" >&2
	errors=$((errors + 1))
}

# The .SH names of page $1, quotes dropped.
sections() {
	sed -n 's/^\.SH *//p' "$1" | tr -d '"'
}

npages=0
while read -r page; do
	npages=$((npages + 1))
	rc=0
	out=$(mandoc -Tlint -Wwarning "$page" 2>&1) || rc=$?
	[ -z "$out" ] && [ "$rc" = 0 ] || bad "$page: mandoc -Tlint (status $rc):
$out"
	# groff reports its warnings on stderr and exits 0 regardless
	out=$(groff -man -ww -z "$page" 2>&1) || bad "$page: groff failed: $out"
	[ -z "$out" ] || bad "$page: groff -man -ww:
$out"
	for s in NAME DESCRIPTION "SEE ALSO"; do
		sections "$page" | grep -qxF "$s" || bad "$page: no section $s"
	done
	# Cross-references to partalign pages: each one a page of man/.
	for ref in $(sed -e 's/\\-/-/g' "$page" | grep -oE 'partalign(-[a-z]+)? \([1-9]\)' |
		sed 's/ (\(.\))/.\1/' | sort -u); do
		[ -f "man/$ref" ] || bad "$page: refers to ${ref%.*}(${ref##*.}), which is no page of man/"
	done
done <"$T_TMP/tree"

# The overview points to every other page.
sed -e 's/\\-/-/g' man/partalign.8 |
	awk '/^\.SH / { on = ($0 ~ /SEE ALSO/); next } on' >"$T_TMP/seealso"
while read -r page; do
	[ "$page" = man/partalign.8 ] && continue
	name=${page#man/}
	grep -qE "^\.BR ${name%.*} \(${name##*.}\)" "$T_TMP/seealso" ||
		bad "man/partalign.8: SEE ALSO does not name ${name%.*}(${name##*.})"
done <"$T_TMP/tree"

[ "$errors" = 0 ] || fail "$errors problem(s) in the pages of man/"
echo "PASS: $npages pages: mandoc and groff report nothing, sections and cross-references complete"
