#!/bin/bash
# partalign check under umockdev on a device the kernel reports as
# unalignable: alignment_offset -1 on an md RAID1 whose members disagree, and
# on each of its partitions.  Every partition is physically misaligned,
# whatever its start, and the reason says why; the policy is still judged.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/mock/lib.sh"

# By hand: physical M on both; no optimal size (-); policy on a plain 2 MiB
# grain: sector 2048 = 1 MiB is not (M), sector 4096 = 2 MiB is (o).
mock_check md-cannot-align --
expect_rows md127p1 md127p2
expect_part md127p1 md127 $((2048 * 512)) 512 4096 4096 0 -1 0 M-M
expect_part md127p2 md127 $((4096 * 512)) 512 4096 4096 0 -1 0 M-o
for n in md127p1 md127p2; do
	expect_reason $n "alignment offset -1"
	expect_reason $n "cannot be aligned"
	# -1 is the kernel's word, not a mismatch with partalign's prediction
	expect_no_reason $n "expected"
done
expect_rc 4 "alignment offset -1"

# md127p2 alone is still misaligned, although 2 MiB would be fine elsewhere.
mock_check md-cannot-align -- /dev/md127p2
expect_rows md127p2
expect md127p2 physical misaligned
expect_rc 4 "/dev/md127p2"
