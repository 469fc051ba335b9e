#!/bin/bash
# partalign check under umockdev leaves out what is not storage to align:
# zram and ram disks, an unbound loop device (size 0, no loop/), an empty CD
# drive (size 0) and the hidden per-controller node of NVMe multipath; a
# bound loop device next to them is checked.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/mock/lib.sh"

mock_check skip nvme-4kn --
expect_rows loop0 nvme0n1p1 nvme0n1p2
expect loop0 type loop
expect loop0 start 0
expect loop0 physical ok
expect loop0 policy ok
expect_rc 0 "skip testbed"
[ -s "$T_TMP/err" ] && fail "stderr: $(cat "$T_TMP/err")"

# Named, a skipped device is an error (exit 8) with a message naming it; a
# device named with them is still checked.
mock_check skip -- /dev/zram0 /dev/ram0 /dev/loop7 /dev/sr0 /dev/loop0
expect_rows loop0
expect_rc 8 "skipped devices named"
for d in zram0 ram0 loop7 sr0; do
	grep -q "^partalign: /dev/$d: not a device partalign checks" "$T_TMP/err" ||
		fail "/dev/$d: stderr: $(cat "$T_TMP/err")"
done
[ "$(wc -l <"$T_TMP/err")" = 4 ] || fail "expected 4 messages: $(cat "$T_TMP/err")"
# A node that does not exist at all
mock_check skip -- /dev/nosuchdisk
expect_rows
expect_rc 8 "/dev/nosuchdisk"
grep -q "/dev/nosuchdisk" "$T_TMP/err" || fail "/dev/nosuchdisk: stderr: $(cat "$T_TMP/err")"
true
