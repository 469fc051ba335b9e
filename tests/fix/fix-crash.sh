#!/bin/bash
# Crash safety of the table write (see tests/fix/crashlib.sh): a fault at
# any write or flush of the table (EIO, SIGKILL, or a power cut that loses
# or tears the writes not yet flushed) leaves exactly the old or the new
# table, and a second fix finishes the job.  GPT -> GPT on 512-byte sectors
# and dos (primary partitions only) -> GPT on 4096-byte sectors.
#
# Observed (libparted 3.5, Debian 12): GPT -> GPT is 4 steps: the backup
# GPT (entries + header) in one pwrite + fsync, then the primary header +
# entries in one pwrite + fsync; sector 0 (the protective MBR) is unchanged
# and skipped.  Once the backup copy is written and until the primary is,
# sfdisk reads the old table (the primary) while `sgdisk -v` reports
# problems ("Main and backup partition tables differ", "The CRC for the
# backup partition table is invalid": gdisk checks the backup entries
# against the main header; each copy on its own has valid header and entry
# CRCs).  That is expected, and the rerun repairs it.  dos -> GPT (4Kn) is 6
# steps, sector 0 last: sfdisk reads the dos table until sector 0 is
# written.  A power cut that tears the primary GPT write leaves a primary
# with bad CRCs and the new backup: both sfdisk and sgdisk -p read the new
# table (from the backup), and the rerun rewrites the primary.  The state
# after every step is printed in the test log.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
. "$top_srcdir/tests/fix/crashlib.sh"

crash_case gpt512 512 16M 'label: gpt\nfirst-lba: 34
start=34,size=2000,name=a\nstart=2047,size=3000,name=b\nstart=5100,size=3000,name=c'
crash_case dos4k 4096 32M 'label: dos
start=63,size=300,type=83\nstart=2047,size=1000,type=8e'
