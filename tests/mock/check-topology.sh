#!/bin/bash
# partalign check on topologies a loop device cannot have, under umockdev: a
# 512e SAS disk with a partition at sector 63, a bridge reporting the bogus
# optimal I/O size 0xffff sectors, and a 1 MiB optimal I/O size.  (Alignment
# offset 3584 is tested on a real kernel's sysfs: check-sysroot-real.sh.)
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/mock/lib.sh"

# --- 512e SAS disk: sda1 at sector 63, sda2 at sector 2048 -----------------
# By hand: 63 * 512 = 32256 is 3584 past a 4 KiB boundary (physical M), no
# optimal size (-), 32256 is not a multiple of 2 MiB (policy M).  2048 * 512
# = 1 MiB is on a 4 KiB boundary (o), not on a 2 MiB one (M).
mock_check scsi-512e --
expect_rows sda1 sda2
expect_part sda1 sda $((63 * 512)) 512 4096 4096 0 0 0 M-M
expect_part sda2 sda $((2048 * 512)) 512 4096 4096 0 0 0 o-M
expect_reason sda1 "optimal: the device reports no optimal I/O size"
expect_reason sda1 "physical: 3584 B past a 4 KiB boundary"
expect_rc 4 "512e disk"
# identity from the udev database: the SCSI unit serial before ID_SERIAL,
# the WWN with its extension; a partition shows its disk's
for n in sda1 sda2; do
	expect $n serial ZC2A1B2C
	expect $n wwn 0x5000c500a1b2c3d4
done
expect sda1 partuuid 5e1f2a3b-01
expect sda1 parttype 0x83
expect sda1 pttype dos
expect sda1 partn 1
expect sda1 start-sec 63
expect sda1 maj:min 8:1
expect sda2 fstype LVM2_member

# A 1 MiB policy makes sda2 aligned; sda1 stays misaligned.
mock_check scsi-512e -- --align 1MiB
expect sda2 policy ok
expect sda2 physical ok
expect sda1 policy misaligned
expect sda1 physical misaligned
expect_rc 4 "512e disk, --align 1MiB"
# Named: only that partition, and the exit status is its own.
mock_check scsi-512e -- --align 1MiB /dev/sda2
expect_rows sda2
expect_rc 0 "/dev/sda2 with --align 1MiB"
mock_check scsi-512e -- /dev/sda
expect_rows sda1 sda2
expect_rc 4 "/dev/sda"

# --- optimal I/O size 0xffff sectors: ignored ---------------------------------
# sdc1 at sector 4096 (2 MiB): physical and policy ok, optimal n/a.
mock_check usb-opt-ffff --
expect_rows sdc1
expect_part sdc1 sdc $((4096 * 512)) 512 4096 4096 33553920 0 0 o-o
expect_reason sdc1 "33553920 B ignored (0xffff sectors"
expect sdc1 serial 0123456789AB
expect sdc1 wwn null
expect sdc1 partlabel backup
expect sdc1 parttype 0fc63daf-8483-4772-8e79-3d69d8477de4
expect sdc1 model Portable_SSD
expect_rc 0 "0xffff optimal I/O size"

# --- optimal I/O size 1 MiB on 512/512: vdb1 at 2048, vdb2 at 2049 -----------
# By hand: both on a 512 B physical sector (o); 2048 on a 1 MiB boundary, 2049
# 512 B past it; neither on 2 MiB.
mock_check virtio-opt-1m --
expect_rows vdb1 vdb2
expect_part vdb1 vdb $((2048 * 512)) 512 512 512 1048576 0 1048576 ooM
expect_part vdb2 vdb $((2049 * 512)) 512 512 512 1048576 0 1048576 oMM
expect_reason vdb2 "optimal: 512 B past a 1 MiB boundary"
expect_rc 4 "1 MiB optimal I/O size"
mock_check virtio-opt-1m -- --align 1MiB /dev/vdb1
expect_rows vdb1
expect vdb1 policy ok
expect_rc 0 "/dev/vdb1 with --align 1MiB"

# Two testbeds at once: one exit status OR-ed over all rows.
mock_check usb-opt-ffff virtio-opt-1m --
expect_rows sdc1 vdb1 vdb2
[ "$(misaligned_rows)" = 2 ] || fail "expected 2 misaligned rows, got $(misaligned_rows)"
expect_rc 4 "0xffff and 1 MiB disks together"
