#!/bin/bash
# Crash safety of the table write (see tests/fix/crashlib.sh) for a dos table
# with logical partitions converted to GPT: the EBR chain must not be
# cleared while sector 0 still holds the dos MBR, or a fault in between
# leaves a dos table that has lost its logical partitions.
#
# Observed (and why this test is in XFAIL_TESTS): the conversion is 10
# steps: the backup GPT, then the two old EBRs are zeroed (last one first),
# then the primary GPT, then sector 0, each written and flushed.  A fault at
# steps 4-9 (EIO or SIGKILL) leaves a dos table whose chain has lost logical
# partition 6 (steps 4-5) or 5 and 6 (steps 6-9); the rerun of fix then
# stops with "libparted: Invalid partition table ... wrong signature 0"
# (exit 8), so only `partalign restore` of the backup gets them back.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
. "$top_srcdir/tests/fix/crashlib.sh"

crash_case dosebr 512 16M 'label: dos
start=63,size=2000,type=83\nstart=4095,size=20000,type=5
start=4200,size=3000,type=83\nstart=8000,size=3000,type=8e'
