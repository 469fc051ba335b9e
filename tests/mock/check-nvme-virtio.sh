#!/bin/bash
# partalign check under umockdev: an NVMe namespace with 4096-byte LBAs (sysfs
# still counts in 512-byte units) behind native NVMe multipath, and virtio
# disks, all without a udev database: serial and WWN must come from sysfs.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/mock/lib.sh"

# --- NVMe, 4096-byte LBAs -----------------------------------------------------
# p1 at LBA 512 = 2 MiB, p2 at LBA 262656 = 1 GiB + 2 MiB: multiples of 4 KiB,
# 128 KiB and 2 MiB, so ooo for both.  The hidden per-controller node
# nvme0c0n1 is not listed, and the head is shown through its partitions.
mock_check nvme-4kn --
expect_rows nvme0n1p1 nvme0n1p2
expect_part nvme0n1p1 nvme0n1 $((512 * 4096)) 4096 4096 4096 131072 0 131072 ooo
expect_part nvme0n1p2 nvme0n1 $((262656 * 4096)) 4096 4096 4096 131072 0 131072 ooo
# START-SEC counts logical sectors of the disk, not sysfs's 512-byte units
expect nvme0n1p1 start-sec 512
expect nvme0n1p2 start-sec 262656
for n in nvme0n1p1 nvme0n1p2; do
	expect $n serial S6EWNX0T123456
	expect $n wwn eui.36344730526054870025384500000001
	expect $n model "SAMSUNG MZWLR3T8HCLS-00A07"
done
# the partition name from the kernel's uevent (PARTNAME), no udev database
expect nvme0n1p1 partlabel esp
expect nvme0n1p2 partlabel data
expect nvme0n1p1 maj:min 259:2
expect_rc 0 "NVMe"
mock_check nvme-4kn -- /dev/nvme0n1
expect_rows nvme0n1p1 nvme0n1p2
expect_rc 0 "/dev/nvme0n1"

# --- virtio: serial attribute, a partition and a whole disk ------------------
# vda1 at sector 4096 = 2 MiB: multiple of 4 KiB, 1 MiB and 2 MiB (ooo).
# vdc has no partition table: checked whole, at byte 0, aligned by
# construction; no optimal I/O size (o-o).
mock_check virtio-serial --
expect_rows vda1 vdc
expect_part vda1 vda $((4096 * 512)) 512 4096 4096 1048576 0 1048576 ooo
expect vda1 serial QM00001SERIAL
expect vda1 partlabel root
expect vdc type disk
expect vdc disk vdc
expect vdc start 0
expect vdc size $((4194304 * 512))
expect vdc alignment 0
expect vdc physical ok
expect vdc optimal n/a
expect vdc policy ok
expect vdc serial QM00003PV
expect_reason vdc "aligned by construction"
expect_rc 0 "virtio"

# --- everything aligned at once: exit 0 ----------------------------------------
mock_check nvme-4kn virtio-serial usb-opt-ffff --
expect_rows nvme0n1p1 nvme0n1p2 sdc1 vda1 vdc
[ "$(misaligned_rows)" = 0 ] || fail "misaligned rows on aligned disks"
expect_rc 0 "aligned disks together"
[ -s "$T_TMP/err" ] && fail "stderr on aligned disks: $(cat "$T_TMP/err")"
true
