#!/bin/bash
# No test is expected to fail: once a bug is fixed its test must fail again
# if the bug comes back, so no Makefile.am, Makemodule.am or configure.ac
# declares XFAIL_TESTS, the generated Makefile's list is empty, and no test
# script or C test marks itself as an expected failure.  (The "# XFAIL: 0"
# line of every test-suite.log is automake's fixed summary, a count.)
# tests/run-all also counts any XFAIL or XPASS result as a failure.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/common.sh"

found=$(cd "$top_srcdir" && grep -n 'XFAIL_TESTS' configure.ac Makefile.am \
	$(find src tests -name Makemodule.am) 2>/dev/null || true)
[ -z "$found" ] || fail "expected failures declared: $found"
mk="$top_builddir/Makefile"
[ -f "$mk" ] || fail "$mk: missing"
val=$(sed -n 's/^XFAIL_TESTS[[:space:]]*=[[:space:]]*//p' "$mk")
[ -z "$val" ] || fail "the Makefile lists expected failures: $val"
# a test that calls itself an expected failure, or is told to be one
marks=$(cd "$top_srcdir" && grep -rIlE 'XFAIL|expected[ -]failure|^[[:space:]]*exit 77[[:space:]]*#.*known' \
	tests --include='*.sh' --include='*.c' --include='*.am' |
	grep -v '^tests/doc/no-xfail.sh$' |
	grep -v '^tests/run-all$' || true)
[ -z "$marks" ] || fail "tests that mention expected failures: $marks"
echo "PASS: no expected failures declared"
