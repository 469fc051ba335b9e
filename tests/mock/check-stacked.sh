#!/bin/bash
# partalign check under umockdev on stacked devices: an LVM logical volume
# on an md RAID0 of two whole disks (testbeds/md-lvm.umockdev).  The array,
# used without a partition table, is checked whole at byte 0; the LV is a
# stacked dm device, checked against the kernel's offset with the policy (and
# an optimal I/O above the physical grain) n/a.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/mock/lib.sh"

mock_check md-lvm --
expect_rows dm-3 md0 sdg sdh

# The array: RAID0 with 512 KiB chunks on two disks, so minimum I/O 512 KiB
# and optimal I/O 1 MiB; byte 0 with offset 0 is on every grain (ooo).
expect md0 type raid
expect md0 start 0
expect md0 log-sec 512
expect md0 phy-sec 4096
expect md0 min-io 524288
expect md0 opt-io 1048576
expect md0 alignment 0
expect md0 physical ok
expect md0 optimal ok
expect md0 policy ok
expect md0 holders dm-3
expect md0 fstype LVM2_member
expect_reason md0 "aligned by construction"

# The LV: stacked, so the policy is n/a and the reason says why; physical
# from the kernel's alignment offset 0.  The kernel computes that offset on
# the physical grain (512 KiB here, the minimum I/O) only: on the 1 MiB
# optimal I/O the LV's place is not known, so optimal is n/a too.
expect dm-3 type lvm
expect dm-3 disk dm-3
# named as lsblk names it (the testbed's dm/name), the node under /dev/mapper;
# md keeps its kernel name, as in lsblk
expect dm-3 lsblk-name vg0-data
expect dm-3 path /dev/mapper/vg0-data
expect md0 lsblk-name md0
expect md0 path /dev/md0
expect dm-3 start 0
expect dm-3 min-io 524288
expect dm-3 opt-io 1048576
expect dm-3 alignment 0
expect dm-3 physical ok
expect dm-3 optimal n/a
expect dm-3 policy n/a
expect_reason dm-3 "policy: stacked device"
expect_reason dm-3 "optimal: stacked device"
expect_no_reason dm-3 "physical:"

# The members are whole disks without a partition table: checked whole.
for d in sdg sdh; do
	expect $d type disk
	expect $d holders md0
	expect $d fstype linux_raid_member
	expect $d physical ok
	expect $d optimal n/a
	expect $d policy ok
done
expect sdg serial WD-WX12D80A1B2C
expect sdh wwn 0x50014ee2b1c2f7a8
expect_rc 0 "md + LVM, all aligned"

# A stacked device with a non-zero offset is physically misaligned at its
# byte 0: the kpartx map dm-2 of the multipath testbed (offset 512), checked
# here together with the LV.  The policy stays n/a for both.
mock_check md-lvm multipath -- /dev/dm-3 /dev/dm-2
expect_rows dm-2 dm-3
expect dm-3 policy n/a
expect dm-2 policy n/a
expect dm-2 physical misaligned
expect_rc 4 "dm-3 and dm-2"
