#!/bin/sh
# The LOG_COMPILER of the test programs (the cmocka tests and the fuzz corpus
# replays): runs PROGRAM ARGS... with its output shown as it is, and its
# exit status as it is, except that under PARTALIGN_TEST_STRICT=1 (CI,
# tests/run-all) a cmocka test that called skip() makes the program a hard
# error (99).  cmocka's skip() counts as a pass in its exit status, so
# automake would record PASS for a test that never ran; strict mode promises
# that nothing counts as passed that did not run (tests/lib/common.sh does the
# same for the shell tests).
out=$(mktemp "${TMPDIR:-/tmp}/partalign-cmocka.XXXXXX") || exit 99
trap 'rm -f "$out"' EXIT
rc=0
"$@" >"$out" 2>&1 || rc=$?
cat "$out"
if [ "${PARTALIGN_TEST_STRICT:-0}" = 1 ] && grep -q '^\[  SKIPPED \] ' "$out"; then
	echo "ERROR: cannot run (strict mode): $1 skipped:" \
		"$(sed -n 's/^\[  SKIPPED \] \([a-z_0-9]*\)$/\1/p' "$out" | sort -u | tr '\n' ' ')" >&2
	exit 99
fi
exit "$rc"
