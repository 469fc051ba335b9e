#!/bin/bash
# The disk's flushes and the journal's run side by side: the journal records
# the checksums of what has been read, with how far the disk's flushes had
# got, while the disk flushes what has been written.  A power cut can so
# leave the journal's newest record holding checksums of chunks that never
# reached the disk.  A resume must read those chunks back against their
# checksums and go on from the first that is not in place.
#
# The fault shim holds every write back until its file is flushed and delays
# each flush of the disk by 100 ms, so the journal's steps come first; the
# power fails at one of the disk's flushes, and every held write is lost.
# Then: resume (no shim) exits 1 and the partitions hold their old bytes at
# their new starts (sha256 of what sgdisk reports, never what partalign
# says); after a cut at the first flush of the disk it must have found none
# of the chunks the journal knew of in place.  The first four flushes, 512-
# and 4096-byte sectors (FS_COUNT=disk-sync: the Nth flush of the disk,
# whatever the threads did between flushes).
. "${top_srcdir:-.}/tests/lib/common.sh"
need_no_sanitizers "the fault shim tests/move/faultshim.so"
. "$top_srcdir/tests/move/lib.sh"

need_shim
# 32 KiB chunks over a ~2 MiB distance: a record-only move, many checkpoints
export PARTALIGN_MOVE_CHUNK=32768

for bs in 512 4096; do
	m=$((1048576 / bs))
	d=$(mkdisk "order$bs" 16M "$bs" "$(printf 'label: gpt\nfirst-lba: %d\nstart=%d, size=%d, name=fwd\n' \
		$((2 + 16384 / bs)) $((2 + 16384 / bs)) $((6 * m)))")
	fill_raw "$d" 1
	snap="$T_TMP/snap$bs"
	snapshot "$d" "$snap"
	sums=$(sums_of "$d" 1)
	# a clean run under the shim: its calls, to pick the disk's checkpoint flushes
	FS_JOURNAL="$J" FS_LOG="$T_TMP/log$bs" FS_COUNT=disk FS_DISK_SYNC_DELAY_MS=100 \
		LD_PRELOAD="$SHIM" pa_move "$d"
	expect_rc 1 "clean run ($bs)"
	[ "$(sums_of "$d" 1)" = "$sums" ] || fail "clean run changed the content ($bs)"
	# the disk's flushes before the mover's first data write (the marker's):
	# the mover's own flushes come after them, counted as the disk's only
	pre=$(awk -v c="$PARTALIGN_MOVE_CHUNK" '
		$2 == "disk" && $3 == "pwrite" && $5 == c { print n + 0; exit }
		$2 == "disk" && $3 ~ /sync/ { n++ }' "$T_TMP/log$bs")
	[ -n "$pre" ] || fail "no data write of $PARTALIGN_MOVE_CHUNK bytes in the log ($bs)"
	cuts=("$((pre + 1)) first" $((pre + 2)) $((pre + 3)) $((pre + 4)))
	for cut in "${cuts[@]}"; do
		at=${cut%% *}
		restore_snapshot "$d" "$snap"
		rm -f "$J"/*
		FS_JOURNAL="$J" FS_COUNT=disk-sync FS_AT=$at FS_MODE=powercut FS_CUT_KEEP=none \
			FS_DISK_SYNC_DELAY_MS=100 \
			LD_PRELOAD="$SHIM" pa_move "$d"
		expect_rc 137 "power cut at the disk's flush $at ($bs)"
		run_pa resume --journal "$J" --backup-dir "$BK" "$d"
		expect_rc 1 "resume after the cut at the disk's flush $at ($bs)"
		# "X of Y chunks past the last progress record were in place": the
		# first flush's chunks were all held (nothing of the disk was flushed
		# before), so none of them may count as in place
		found=$(sed -n 's/.*: \([0-9]*\) of \([0-9]*\) chunks past the last progress record were in place$/\1 \2/p' "$T_TMP/out")
		set -- ${found:-0 0}
		[ "$1" -le "$2" ] || fail "cut at $at ($bs): found $1 of $2"
		if [ "$cut" != "$at" ]; then
			# the journal was ahead of the disk, and nothing of it counted
			[ "$2" -ge 1 ] ||
				fail "cut at the first flush ($bs): resume checked no chunk past the last record: $(cat "$T_TMP/out")"
			[ "$1" = 0 ] ||
				fail "cut at the first flush ($bs): $1 chunks counted in place though none was flushed: $(cat "$T_TMP/out")"
		fi
		[ "$(sums_of "$d" 1)" = "$sums" ] || fail "cut at $at ($bs): the content differs after resume"
		expect_aligned "$d" 1 $((2 << 20))
		echo "ok $bs: cut at the disk's flush $at: $1 of $2 chunks past the last record in place, content identical"
	done
done
echo "PASS"
