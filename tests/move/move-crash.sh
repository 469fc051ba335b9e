#!/bin/bash
# Crash injection into fix --move-data: PARTALIGN_MOVE_CRASHES crashes
# (default 100) at random points of a move, each followed by `partalign
# resume` (sometimes crashed again itself), and every time the moved
# partitions must hold exactly their old bytes at their new starts.
#
# Two disks, 512- and 4096-byte sectors, each with a partition that moves
# forward by ~2 MiB (longer than the 32 KiB chunks used here: progress
# records) and one that moves back by one sector (shorter: chunks saved in
# the journal).  The crashes, in turn:
#   powercut    writes not yet flushed are lost, some torn (faultshim.so)
#   kill        SIGKILL before the Nth write or flush of the disk or journal
#   kill-after  SIGKILL right after it
#   eio         the Nth write or flush fails with EIO
#   timeout     SIGKILL after a random delay (timeout -s KILL)
# PARTALIGN_MOVE_SEED fixes the random choices (printed for a rerun).
. "${top_srcdir:-.}/tests/lib/common.sh"
need_no_sanitizers "the fault shim tests/move/faultshim.so"
. "$top_srcdir/tests/move/lib.sh"

need_shim
CRASHES=${PARTALIGN_MOVE_CRASHES:-100}
SEED=${PARTALIGN_MOVE_SEED:-$(date +%s)}
RANDOM=$SEED
echo "# $CRASHES crashes, PARTALIGN_MOVE_SEED=$SEED"
export PARTALIGN_MOVE_CHUNK=32768

layout() {
	local s=$1 m=$((1048576 / $1))
	printf 'label: gpt\nfirst-lba: %d\n' $((2 + 16384 / s))
	printf 'start=%d, size=%d, name=forward\n' $((2 + 16384 / s)) $((6 * m))
	printf 'start=%d, size=%d, name=back\n' $((10 * m + 1)) $((4 * m))
}

declare -A DEV SNAP SUMS CALLS SECS
for bs in 512 4096; do
	d=$(mkdisk "crash$bs" 24M "$bs" "$(layout "$bs")")
	fill_raw "$d" 1
	fill_raw "$d" 2
	DEV[$bs]=$d
	SNAP[$bs]="$T_TMP/snap$bs"
	snapshot "$d" "${SNAP[$bs]}"
	SUMS[$bs]=$(sums_of "$d" 1 2)
	# a clean run under the shim: how many calls it counts, how long it takes
	t0=$(date +%s%N)
	FS_JOURNAL="$J" FS_LOG="$T_TMP/log$bs" LD_PRELOAD="$SHIM" pa_move "$d"
	expect_rc 1 "clean run ($bs)"
	SECS[$bs]=$((($(date +%s%N) - t0) / 1000000))
	CALLS[$bs]=$(wc -l <"$T_TMP/log$bs")
	[ "$(sums_of "$d" 1 2)" = "${SUMS[$bs]}" ] || fail "clean run changed the content ($bs)"
	echo "# $bs: ${CALLS[$bs]} writes and flushes, ${SECS[$bs]} ms"
	[ "${CALLS[$bs]}" -gt 200 ] || fail "too few steps to crash in: ${CALLS[$bs]}"
done

# crash_run BS MODE: one run of fix (or resume) that crashes; sets $PA_RC
crash_run() {
	local bs=$1 mode=$2 cmd=$3 at delay
	at=$((RANDOM * 32768 + RANDOM))
	at=$((at % CALLS[$bs] + 1))
	if [ "$mode" = timeout ]; then
		delay=$((RANDOM % SECS[$bs] + 1))
		delay=$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))
		PA_RC=0
		timeout -s KILL "$delay" "$PARTALIGN" "$cmd" --yes --move-data --quiet --journal "$J" \
			--backup-dir "$BK" "${DEV[$bs]}" >"$T_TMP/out" 2>"$T_TMP/err" </dev/null || PA_RC=$?
		WHAT="$cmd timeout $delay s"
		return
	fi
	WHAT="$cmd $mode at $at"
	if [ "$cmd" = fix ]; then
		FS_JOURNAL="$J" FS_AT=$at FS_MODE=$mode FS_SEED=$RANDOM LD_PRELOAD="$SHIM" pa_move "${DEV[$bs]}"
	else
		FS_JOURNAL="$J" FS_AT=$at FS_MODE=$mode FS_SEED=$RANDOM LD_PRELOAD="$SHIM" pa_resume "${DEV[$bs]}"
	fi
	case "$mode:$PA_RC" in
	eio:12 | eio:1 | *:137 | *:1 | *:0) ;;
	*) fail "$WHAT ($bs): exit status $PA_RC: $(cat "$T_TMP/err")" ;;
	esac
	if [ "$mode" = eio ] && [ "$PA_RC" = 12 ]; then
		# before the journal exists nothing has moved; after, the way on is resume
		if [ "$(journals)" = 0 ]; then
			grep -q "nothing moved" "$T_TMP/err"
		else
			grep -q "partalign resume" "$T_TMP/err"
		fi || fail "$WHAT: the error does not say how to go on: $(cat "$T_TMP/err")"
	fi
}

MOVE_TYPE=DB991ED2-F649-406F-B0F6-8BE79B36CD64
MOVE_TYPE=DB991ED2-F649-406F-B0F6-8BE79B36CD64
# after_crash K: resume (or rerun) and check the content, alignment, journals
after_crash() {
	local k=$1 stray
	if [ "$(journals)" != 0 ]; then
		stray=$(find "$J" -name '*.journal')
		pa_resume "${DEV[$bs]}"
		case $PA_RC in
		1) resumed=$((resumed + 1)) ;;
		0)
			# the crash came before the disk recorded the move: nothing moved,
			# the table is the old one, and the journal is never used
			grep -q "nothing to resume" "$T_TMP/out" ||
				fail "crash $k ($first): resume exit 0: $(cat "$T_TMP/out")"
			grep -qF "the move journal $stray (move" "$T_TMP/err" ||
				fail "crash $k ($first): the journal left over is not named: $(cat "$T_TMP/err")"
			[ "$(sums_of "${DEV[$bs]}" 1 2)" = "${SUMS[$bs]}" ] ||
				fail "crash $k ($first): data moved on a disk that records no move"
			! sfdisk -d "${DEV[$bs]}" | grep -i "type=$MOVE_TYPE" >/dev/null ||
				fail "crash $k ($first): the disk is marked, yet nothing to resume"
			pa_move "${DEV[$bs]}"
			[ "$PA_RC" = 1 ] || fail "crash $k ($first): fresh move exit $PA_RC: $(cat "$T_TMP/err")"
			# shellcheck disable=SC2086
			rm -f $stray
			;;
		*) fail "crash $k ($first): resume exit $PA_RC: $(cat "$T_TMP/err")" ;;
		esac
	elif [ "$PA_RC" != 1 ] && [ "$PA_RC" != 0 ]; then
		# no journal: the crash came before it was created, or after it was removed
		pa_move "${DEV[$bs]}"
		[ "$PA_RC" = 1 ] || [ "$PA_RC" = 0 ] ||
			fail "crash $k ($first): rerun exit $PA_RC: $(cat "$T_TMP/err")"
	fi
	[ "$(sums_of "${DEV[$bs]}" 1 2)" = "${SUMS[$bs]}" ] ||
		fail "crash $k ($bs, $first): the content differs after resume"
	expect_aligned "${DEV[$bs]}" 1 $((2 << 20))
	expect_aligned "${DEV[$bs]}" 2 $((2 << 20))
	[ "$(journals)" = 0 ] || fail "crash $k ($first): journal left after resume"
}

modes=(powercut kill kill-after eio timeout)
resumed=0
for ((k = 0; k < CRASHES; k++)); do
	bs=$((k % 2 ? 4096 : 512))
	mode=${modes[$(((k / 2) % ${#modes[@]}))]}
	restore_snapshot "${DEV[$bs]}" "${SNAP[$bs]}"
	rm -f "$J"/*
	crash_run "$bs" "$mode" fix
	first="$WHAT -> $PA_RC"
	# every third crash: the resume crashes too, somewhere
	if [ $((k % 3)) = 2 ] && [ "$(journals)" != 0 ]; then
		crash_run "$bs" "${modes[$((RANDOM % 4))]}" resume
		first="$first; $WHAT -> $PA_RC"
	fi
	after_crash "$k"
done
# Every call around the two switches, in each mode: from the marker's first
# write to the first data write, and from the last data writes to the end
# (the final table, which removes the marker), for both sector sizes.
swept=0
for bs in 512 4096; do
	log="$T_TMP/log$bs"
	m0=$(awk '$2 == "disk" {print $1; exit}' "$log")
	d0=$(awk -v c="$PARTALIGN_MOVE_CHUNK" '$2 == "disk" && $3 == "pwrite" && $5 == c {print $1; exit}' "$log")
	t0=$(awk -v o="$(awk '$2 == "disk" {print $4; exit}' "$log")" '$2 == "disk" && $3 == "pwrite" && $4 == o {n = $1} END {print n}' "$log")
	[ -n "$m0" ] && [ -n "$d0" ] && [ -n "$t0" ] && [ "$t0" -gt "$d0" ] ||
		fail "cannot find the marker, data and table writes in the log ($bs): $m0 $d0 $t0"
	for at in $(seq $((m0 - 1)) $((d0 + 1))) $(seq $((t0 - 3)) "${CALLS[$bs]}"); do
		for mode in kill kill-after powercut; do
			restore_snapshot "${DEV[$bs]}" "${SNAP[$bs]}"
			rm -f "$J"/*
			FS_JOURNAL="$J" FS_AT=$at FS_MODE=$mode FS_SEED=$RANDOM LD_PRELOAD="$SHIM" \
				pa_move "${DEV[$bs]}"
			case "$PA_RC" in
			137 | 1) ;;
			*) fail "sweep $mode at $at ($bs): exit status $PA_RC: $(cat "$T_TMP/err")" ;;
			esac
			first="sweep $mode at $at ($bs) -> $PA_RC"
			after_crash "sweep"
			swept=$((swept + 1))
		done
	done
done
echo "# $swept crashes around the marker and the final table"
echo "# $CRASHES crashes, $resumed resumed from a journal"
[ "$resumed" -ge $((CRASHES / 2)) ] || fail "only $resumed of $CRASHES crashes hit a move"
echo "PASS"
