#!/bin/bash
# Two `partalign fix --yes` runs on one disk, made to contend for certain: the
# first is held by tests/fix/faultinject.so (FI_MODE=pause) just before its
# first write to the disk -- it has the disk's lock and its exclusive open
# then -- and the second starts only once the shim says the first is there.
#   --wait 0   the second gives up at once: exit 8, "locked", and writes
#              nothing (checksum of the whole disk while the first is held)
#   --wait 10  the second is still waiting after 1.5 s while the first is
#              held (it neither wrote nor exited), finishes only after the
#              first is let go, and then has nothing to do (exit 0)
# The first then writes (exit 1, "fixed"); exactly one backup is saved per
# round, and the final table is the expected aligned one.  The bug this
# guards: partalign opened the disk O_EXCL before it asked for the flock, so
# a second run reported the first as a user of the disk (exit 4, "cannot be
# opened exclusively") instead of waiting for the lock.
. "$top_srcdir/tests/lib/common.sh"
need_no_sanitizers "the fault shim tests/fix/faultinject.so"
. "$top_srcdir/tests/fix/lib.sh"
SHIM="$top_builddir/tests/fix/faultinject.so"
[ -f "$SHIM" ] || skip "$SHIM not built (make check builds it)"

dev=$(mkdisk race 64M 512 'label: gpt\nfirst-lba: 34
start=34,size=2000,name=a\nstart=2047,size=3000,name=b\nstart=6000,size=9000,name=c')
orig="$T_TMP/race.orig"
dd if="$dev" of="$orig" bs=1M conv=sparse status=none
sfd_layout "$dev" | awk '{ print $1, $2, $3 }' | sort -k2,2n | expected_layout "$dev" 4096 \
	>"$T_TMP/want"

first='' second=''
at_exit "touch '$T_TMP/resume'; stop_pid first; stop_pid second"

# round N WAIT: the first run held mid-write, the second with --wait WAIT
round() {
	local r=$1 wait=$2 sum rc1 rc2 t0 t1
	dd if="$orig" of="$dev" bs=1M conv=fsync status=none
	kernel_reload "$dev"
	rm -rf "$BK" "$T_TMP/paused" "$T_TMP/resume"
	sum=$(dev_sum "$dev")

	LD_PRELOAD="$SHIM" FI_AT=1 FI_MODE=pause FI_PAUSED="$T_TMP/paused" \
		FI_RESUME="$T_TMP/resume" "$PARTALIGN" fix --yes --backup-dir "$BK" "$dev" \
		>"$T_TMP/out1" 2>"$T_TMP/err1" </dev/null &
	first=$!
	wait_file "$T_TMP/paused" || fail "round $r: the first run never reached its first write"
	assert_eq "$sum" "$(dev_sum "$dev")" "round $r: disk while the first run is held"

	t0=$SECONDS
	"$PARTALIGN" fix --yes --backup-dir "$BK" --wait "$wait" "$dev" >"$T_TMP/out2" \
		2>"$T_TMP/err2" </dev/null &
	second=$!
	if [ "$wait" = 0 ]; then
		rc2=0
		wait "$second" || rc2=$?
		second=
		[ "$rc2" = 8 ] && grep -q "$dev: locked" "$T_TMP/err2" ||
			fail "round $r: the second run (--wait 0) exited $rc2, expected 8 and" \
				"'locked': $(cat "$T_TMP/err2" "$T_TMP/out2")"
		assert_eq "$sum" "$(dev_sum "$dev")" "round $r: disk after the refused second run"
	else
		sleep 1.5
		if ! kill -0 "$second" 2>/dev/null; then
			rc2=0
			wait "$second" || rc2=$?
			second=''
			fail "round $r: the second run (--wait $wait) did not wait for the held" \
				"first one: exit $rc2: $(cat "$T_TMP/err2" "$T_TMP/out2")"
		fi
		assert_eq "$sum" "$(dev_sum "$dev")" "round $r: disk while the second run waits"
	fi
	touch "$T_TMP/resume"
	rc1=0
	wait "$first" || rc1=$?
	first=
	[ "$rc1" = 1 ] && grep -q "$dev: fixed" "$T_TMP/out1" ||
		fail "round $r: the first run exited $rc1: $(cat "$T_TMP/err1" "$T_TMP/out1")"
	if [ "$wait" != 0 ]; then
		rc2=0
		wait "$second" || rc2=$?
		second=''
		t1=$((SECONDS - t0))
		[ "$rc2" = 0 ] && grep -q "$dev: nothing to do" "$T_TMP/out2" ||
			fail "round $r: the second run (--wait $wait) exited $rc2 after the first," \
				"expected 0 and 'nothing to do': $(cat "$T_TMP/err2" "$T_TMP/out2")"
		[ "$t1" -lt "$wait" ] || fail "round $r: the second run took ${t1}s, past its --wait"
	fi
	assert_eq 1 "$(find "$BK" -name '*.pt' | wc -l)" "round $r: backups saved"
	verify_fixed "$dev" 4096 "$T_TMP/want"
	echo "ok: round $r (--wait $wait): the held first run exits $rc1, the second $rc2"
}

round 1 0
round 2 10
