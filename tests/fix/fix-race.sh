#!/bin/bash
# Two `partalign fix --yes` processes started at once on one disk: exactly
# one writes.  The winner says "fixed" and exits 1; the loser, with --wait 0,
# either finds the disk locked (exit 8, "locked") or, if it came after the
# winner was done, has nothing to do (exit 0).  With the default --wait the
# loser waits for the lock and then has nothing to do.  Exactly one backup
# is saved per round, and the final table is the expected aligned one.
#
# Observed (and why this test is in XFAIL_TESTS): exactly one process
# writes, but the other exits 4 with "refused: loopN cannot be opened
# exclusively: it is in use", also with --wait 10: partalign opens the disk
# O_EXCL before it asks for the flock, so a second partalign never waits
# for the lock and reports the first one as a user of the disk.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"

dev=$(mkdisk race 64M 512 'label: gpt\nfirst-lba: 34
start=34,size=2000,name=a\nstart=2047,size=3000,name=b\nstart=6000,size=9000,name=c')
orig="$T_TMP/race.orig"
dd if="$dev" of="$orig" bs=1M conv=sparse status=none
sfd_layout "$dev" | awk '{ print $1, $2, $3 }' | sort -k2,2n | expected_layout "$dev" 4096 \
	>"$T_TMP/want"

# round N [FIX ARGS...]
round() {
	local r=$1 i rc winners=0 pids=()
	shift
	dd if="$orig" of="$dev" bs=1M conv=fsync status=none
	kernel_reload "$dev"
	rm -rf "$BK"
	for i in 1 2; do
		(
			rc=0
			"$PARTALIGN" fix --yes --backup-dir "$BK" "$@" "$dev" >"$T_TMP/out$i" \
				2>"$T_TMP/err$i" </dev/null || rc=$?
			echo "$rc" >"$T_TMP/rc$i"
		) &
		pids+=($!)
	done
	wait "${pids[@]}" || true
	for i in 1 2; do
		rc=$(cat "$T_TMP/rc$i")
		if [ "$rc" = 1 ]; then
			grep -q "$dev: fixed" "$T_TMP/out$i" || fail "round $r: exit 1 without 'fixed'"
			winners=$((winners + 1))
		elif [ "$rc" = 8 ] && [ "$*" = "--wait 0" ]; then
			grep -q "$dev: locked" "$T_TMP/err$i" ||
				fail "round $r: exit 8 but not locked: $(cat "$T_TMP/err$i")"
		elif [ "$rc" = 0 ]; then
			grep -q "$dev: nothing to do" "$T_TMP/out$i" ||
				fail "round $r: exit 0 without 'nothing to do': $(cat "$T_TMP/out$i")"
		else
			fail "round $r ($*): process $i exited $rc: $(cat "$T_TMP/err$i")"
		fi
	done
	assert_eq 1 "$winners" "round $r ($*): processes that wrote"
	assert_eq 1 "$(find "$BK" -name '*.pt' | wc -l)" "round $r: backups saved"
	verify_fixed "$dev" 4096 "$T_TMP/want"
	echo "ok: round $r ($*): exits $(cat "$T_TMP/rc1") and $(cat "$T_TMP/rc2")"
}

for r in 1 2 3; do
	round "$r" --wait 0
done
round 4 --wait 10
