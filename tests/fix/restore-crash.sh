#!/bin/bash
# Crash safety of partalign restore (see tests/fix/crashlib.sh): restoring
# the dos table (primaries, an extended partition and logicals) of a disk
# that fix converted to GPT, with a fault at every write and flush of the
# restore -- EIO, SIGKILL before or after, and a power cut that loses or
# tears the writes not yet flushed -- must leave, at every point, either the
# whole GPT or the whole dos table (never a protective MBR with both GPT
# copies already cleared, never a dos table without its logicals), and the
# same restore run again must bring back the original table byte for byte.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
. "$top_srcdir/tests/fix/crashlib.sh"

restore_crash_case dosrestore 512 16M 'label: dos
start=63,size=1000,type=83\nstart=8000,type=5
start=8100,size=1000,type=fd\nstart=10000,size=2000,type=82'
