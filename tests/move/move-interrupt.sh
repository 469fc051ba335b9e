#!/bin/bash
# Ctrl-C (SIGINT) and SIGTERM stop a move between two chunks: fix exits 12
# within a second with one line naming the signal, the journal and resume;
# the disk stays marked (check exits 4 and names the move); resume finishes
# it and the partition holds its old bytes at the new start (sha256 of what
# sgdisk reports).  The journal's flushes are slowed down (fault shim), so
# that its steps queue up behind the reader: a stream of them must not keep
# the signal from being seen.
. "${top_srcdir:-.}/tests/lib/common.sh"
need_no_sanitizers "the fault shim tests/move/faultshim.so"
. "$top_srcdir/tests/move/lib.sh"

need_shim
# 32 KiB chunks over a ~2 MiB distance: a record-only move of many chunks
export PARTALIGN_MOVE_CHUNK=32768

for sig in INT TERM; do
	d=$(mkdisk "intr$sig" 64M 512 'label: gpt\nfirst-lba: 34\nstart=34, size=90000, name=data')
	fill_raw "$d" 1
	sums=$(sums_of "$d" 1)
	rm -f "$J"/*
	# the move: about 40 ms per journal flush makes it last many seconds
	FS_JOURNAL="$J" FS_JOURNAL_SYNC_DELAY_MS=40 LD_PRELOAD="$SHIM" \
		"$PARTALIGN" fix --yes --move-data --journal "$J" --backup-dir "$BK" "$d" \
		>"$T_TMP/out" 2>"$T_TMP/err" </dev/null &
	pid=$!
	# once data moves: the marker is on the disk and the journal has a record
	for _ in $(seq 100); do
		[ "$(journals)" = 1 ] && break
		sleep 0.1
	done
	[ "$(journals)" = 1 ] || { kill -9 "$pid"; fail "$sig: no journal after 10 s"; }
	sleep 0.5
	kill -0 "$pid" 2>/dev/null || fail "$sig: the move was over before the signal: $(cat "$T_TMP/out" "$T_TMP/err")"
	t0=$(date +%s%N)
	kill -s "$sig" "$pid"
	PA_RC=0
	wait "$pid" || PA_RC=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	expect_rc 12 "fix stopped by SIG$sig"
	[ "$ms" -lt 1500 ] || fail "$sig: fix took $ms ms to stop"
	sig_no=$(kill -l "$sig")
	expect_err "interrupted by signal $sig_no; the journal" "SIG$sig"
	expect_err "finish with 'partalign resume $d'" "SIG$sig"
	! grep -F fixed "$T_TMP/out" >/dev/null || fail "$sig: an interrupted fix says fixed: $(cat "$T_TMP/out")"
	[ "$(journals)" = 1 ] || fail "$sig: the journal is gone"
	run_pa check --probe -o NAME "$d"
	expect_rc 4 "check after SIG$sig"
	grep -F "unfinished data move" "$T_TMP/out" "$T_TMP/err" >/dev/null ||
		fail "$sig: check does not report the move: $(cat "$T_TMP/out" "$T_TMP/err")"
	pa_resume "$d"
	expect_rc 1 "resume after SIG$sig"
	[ "$(sums_of "$d" 1)" = "$sums" ] || fail "$sig: the content differs after resume"
	expect_aligned "$d" 1 $((2 << 20))
	[ "$(journals)" = 0 ] || fail "$sig: resume left the journal"
	echo "ok SIG$sig: stopped in $ms ms, resumed, content identical"
done
echo "PASS"
