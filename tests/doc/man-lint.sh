#!/bin/bash
# man/partalign.8 is clean under both formatters people read it with:
# mandoc -Tlint at warning level and groff with every warning enabled.
# Any message fails the test; a missing formatter skips it.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/common.sh"

need_cmd mandoc groff
page="$top_srcdir/man/partalign.8"
[ -f "$page" ] || fail "$page: missing"

out=$(mandoc -Tlint -Wwarning "$page" 2>&1) || rc=$?
[ -z "$out" ] && [ "${rc:-0}" = 0 ] || fail "mandoc -Tlint (status ${rc:-0}):
$out"

# groff reports its warnings on stderr and exits 0 regardless
out=$(groff -man -ww -z "$page" 2>&1) || fail "groff failed: $out"
[ -z "$out" ] || fail "groff -man -ww:
$out"

echo "PASS: mandoc and groff report nothing"
