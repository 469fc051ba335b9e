#!/bin/bash
# Crash safety of the table write (see tests/fix/crashlib.sh) for a dos table
# with logical partitions converted to GPT: the EBR chain must not be
# cleared while sector 0 still holds the dos MBR, or a fault in between
# leaves a dos table that has lost its logical partitions.
#
# The bug this test found is fixed (commit "fix: lock before the exclusive
# open and scan again under the lock; old EBRs cleared last"): the old EBRs
# are zeroed only after sector 0 holds the protective MBR.  The conversion is
# 10 steps: the backup GPT, the primary GPT, sector 0, then the two old EBRs,
# each written and flushed; before sector 0 sfdisk reads the whole dos table.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
. "$top_srcdir/tests/fix/crashlib.sh"

crash_case dosebr 512 16M 'label: dos
start=63,size=2000,type=83\nstart=4095,size=20000,type=5
start=4200,size=3000,type=83\nstart=8000,size=3000,type=8e'
