#!/bin/bash
# fix --move-data takes each moving partition away from the kernel (BLKPG)
# before its first write, so that nothing can open it while its data is in
# flight, and gives it back at its new start after the table write.  The
# deletion fails with EBUSY while someone has the partition open.  A prober
# (udev's blkid, another tool's scan) lets go within milliseconds: fix
# retries for a second and moves.  Someone who keeps it open stops the fix
# before anything is written: refused (exit 4, as any disk in use), naming
# the partition, the disk byte-identical, no journal left, the kernel's
# partition where it was.  The
# fault shim makes the first N deletions fail.  The kernel's view comes from
# sysfs, the table's from sfdisk.
. "${top_srcdir:-.}/tests/lib/common.sh"
need_no_sanitizers "the fault shim tests/move/faultshim.so"
. "$top_srcdir/tests/move/lib.sh"

need_shim

# kstart DEV NUM: the partition's start in 512-byte units, as the kernel has it
kstart() {
	cat "/sys/class/block/$(basename "$(pnode "$1" "$2")")/start"
}

for busy in 5 1000; do
	d=$(mkdisk "busy$busy" 16M 512 'label: gpt\nfirst-lba: 34\nstart=34, size=8192, name=data')
	fill_raw "$d" 1
	sums=$(sums_of "$d" 1)
	whole=$(disk_sum "$d")
	[ "$(kstart "$d" 1)" = 34 ] || fail "setup: the kernel has partition 1 at $(kstart "$d" 1)"
	t0=$(date +%s%N)
	FS_BLKPG_BUSY=$busy LD_PRELOAD="$SHIM" pa_move "$d"
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$(sums_of "$d" 1)" = "$sums" ] || fail "busy $busy: the content differs"
	if [ "$busy" = 5 ]; then
		expect_rc 1 "five busy deletions"
		expect_aligned "$d" 1 $((2 << 20))
		[ "$(kstart "$d" 1)" = 4096 ] ||
			fail "busy $busy: the kernel has partition 1 at $(kstart "$d" 1), not 4096"
	else
		expect_rc 4 "a partition kept open"
		expect_err "$d: refused: the kernel will not let partition 1 ($(pnode "$d" 1)) go: " "kept open"
		expect_err "; nothing written" "kept open"
		unchanged "$d" "$whole" "a partition kept open"
		[ "$(journals)" = 0 ] || fail "busy $busy: a journal was left: $(ls "$J")"
		[ "$(kstart "$d" 1)" = 34 ] || fail "busy $busy: the kernel moved partition 1 after all"
		[ "$ms" -lt 10000 ] || fail "busy $busy: fix took $ms ms"
	fi
	echo "ok: $busy busy deletions: exit $PA_RC in $ms ms, kernel at $(kstart "$d" 1)"
done
echo "PASS"
