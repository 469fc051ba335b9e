#!/bin/bash
# Crash safety of the table write (see tests/fix/crashlib.sh): a fault at
# any write or flush of the table leaves exactly the old or the new table,
# and a second fix finishes the job.  GPT -> GPT on 512-byte sectors and
# dos (primary partitions only) -> GPT on 4096-byte sectors.
#
# Observed (libparted 3.5, this host): GPT -> GPT is 4 steps (backup GPT
# write + flush, primary header and entries in one write + flush; sector 0
# is unchanged and skipped).  A fault after the backup GPT is written and
# before the primary is leaves the old table readable by sfdisk, while
# `sgdisk -v` reports PROBLEMS (the two copies disagree); the rerun repairs
# it.  dos -> GPT is 6 steps, sector 0 last; sfdisk reads the dos table
# until sector 0 is written, and sgdisk -v then only sees a dos table.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
. "$top_srcdir/tests/fix/crashlib.sh"

crash_case gpt512 512 16M 'label: gpt\nfirst-lba: 34
start=34,size=2000,name=a\nstart=2047,size=3000,name=b\nstart=5100,size=3000,name=c'
crash_case dos4k 4096 32M 'label: dos
start=63,size=300,type=83\nstart=2047,size=1000,type=8e'
