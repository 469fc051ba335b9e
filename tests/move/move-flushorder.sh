#!/bin/bash
# A checkpoint's two flushes run side by side (the disk's and the journal's),
# so a power cut can leave the journal's newest progress record durable while
# the chunks it records never reached the disk.  A resume must notice (each
# chunk read back against its checksum) and go on from the record before.
#
# The fault shim holds every write back until its file is flushed and delays
# each flush of the disk by 100 ms, so the journal's record and flush come
# first; the power fails at the disk's flush of one checkpoint, and every
# held write is lost.  Then: resume (no shim) exits 1 and the partitions hold
# their old bytes at their new starts (sha256 of what sgdisk reports, never
# what partalign says); after a cut at the first checkpoint it must say it
# fell back.  The first four checkpoints, 512- and 4096-byte sectors.
. "${top_srcdir:-.}/tests/lib/common.sh"
need_no_sanitizers "the fault shim tests/move/faultshim.so"
. "$top_srcdir/tests/move/lib.sh"

SHIM="$top_builddir/tests/move/faultshim.so"
[ -f "$SHIM" ] || skip "no $SHIM (make check builds it)"
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
	FS_JOURNAL="$J" FS_LOG="$T_TMP/log$bs" FS_DISK_SYNC_DELAY_MS=100 LD_PRELOAD="$SHIM" pa_move "$d"
	expect_rc 1 "clean run ($bs)"
	[ "$(sums_of "$d" 1)" = "$sums" ] || fail "clean run changed the content ($bs)"
	# a disk flush right after a journal flush, once data has been written:
	# the journal's record of that checkpoint is durable, its chunks are not
	# (the writer goes on meanwhile with chunks whose sources are recorded)
	mapfile -t cuts < <(awk -v c="$PARTALIGN_MOVE_CHUNK" '
		$2 == "disk" && $3 == "pwrite" && $5 == c { data = 1 }
		$2 == "journal" && $3 == "fdatasync" { jsync = 1 }
		$2 == "disk" && $3 == "fdatasync" { if (data && jsync) print $1; jsync = 0 }' \
		"$T_TMP/log$bs" | head -n 4)
	[ "${#cuts[@]}" -ge 2 ] ||
		fail "no disk flush after a journal flush in the log ($bs): the flushes are not side by side"
	for at in "${cuts[@]}"; do
		restore_snapshot "$d" "$snap"
		rm -f "$J"/*
		FS_JOURNAL="$J" FS_AT=$at FS_MODE=powercut FS_CUT_KEEP=none FS_DISK_SYNC_DELAY_MS=100 \
			LD_PRELOAD="$SHIM" pa_move "$d"
		expect_rc 137 "power cut at call $at ($bs)"
		run_pa resume --journal "$J" --backup-dir "$BK" "$d"
		expect_rc 1 "resume after the cut at call $at ($bs)"
		fell=no
		! grep -F "resumed from the record before" "$T_TMP/out" >/dev/null || fell=yes
		# the first checkpoint's chunks were all held (nothing of the disk was
		# flushed before): they are lost, so that resume must fall back; later
		# records may hold only chunks an earlier flush made durable
		[ "$fell" = yes ] || [ "$at" != "${cuts[0]}" ] ||
			fail "cut at $at ($bs): resume did not fall back to the record before: $(cat "$T_TMP/out")"
		[ "$(sums_of "$d" 1)" = "$sums" ] || fail "cut at $at ($bs): the content differs after resume"
		expect_aligned "$d" 1 $((2 << 20))
		echo "ok $bs: cut at the disk flush (call $at) after the journal's record: fell back: $fell, content identical"
	done
done
echo "PASS"
