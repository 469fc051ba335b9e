#!/bin/bash
# A kpartx partition map is a partition (TYPE part): its GPT name, UUID and
# type from the udev database (ID_PART_ENTRY_*) belong in PARTLABEL, PARTUUID
# and PARTTYPE like those of a kernel partition.
#
# It guards a fixed bug and fails if it comes back:
# src/scan/scan.c read the ID_PART_ENTRY_* properties only for
# DEVTYPE=partition, and a dm device is DEVTYPE=disk.  The properties come
# from the udev database, as on a real host (tests/lib/umockdev-udevdb).
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/mock/lib.sh"

mock_check multipath -- /dev/dm-1
expect_rows dm-1
expect dm-1 type part
expect dm-1 partlabel oradata1
expect dm-1 partuuid 9d4c6f0e-2a71-4b5e-8c3d-1f0a2b3c4d5e
expect dm-1 parttype 0fc63daf-8483-4772-8e79-3d69d8477de4
