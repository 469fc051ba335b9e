#!/bin/bash
# The default audit starts no other program: 'partalign check' under
# umockdev and strace -f makes exactly one execve, its own.
#
# It guards a fixed bug and fails if it comes back: Debian's
# libparted runs 'sh -c "dmidecode -s system-manufacturer"' from its
# constructor (gptsync.patch), in every process linked with it, and
# partalign linked libparted into the one binary (plan, fix and restore now
# run partalign-apply); dmidecode reads the firmware tables and may fall back
# to /dev/mem.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/mock/lib.sh"
need_cmd strace

mock_run scsi-512e -- strace -f -qq -o "$T_TMP/trace" -e trace=execve "$PARTALIGN" check --json
grep -q 'execve(.*partalign' "$T_TMP/trace" || skip "strace did not trace: $(cat "$T_TMP/err")"
assert_eq 4 "$MOCK_RC" "check exit status"
execs=$(grep -c ' execve(' "$T_TMP/trace")
[ "$execs" = 1 ] || fail "partalign check started other programs: $(grep ' execve(' "$T_TMP/trace" | grep -v partalign)"
