#!/bin/bash
# partalign check under umockdev on a dm-multipath map with two paths and
# kpartx partition maps (testbeds/multipath.umockdev).  The paths are listed
# once each, as type path with n/a verdicts and a reason naming the map; a
# partition the kernel made on a path is not listed; the kpartx maps are the
# partitions of the map.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/mock/lib.sh"

wwid=36001405a1b2c3d4e5f60718293a4b5c6

# The testbed itself: the stacking links resolve as in a real sysfs.
links="sde/holders/dm-0 sdf/holders/dm-0 dm-0/slaves/sde dm-0/slaves/sdf
dm-0/holders/dm-1 dm-0/holders/dm-2 dm-1/slaves/dm-0 dm-2/slaves/dm-0"
mock_run multipath -- sh -c 'for l; do readlink -e "/sys/class/block/$l" || echo "$l"; done' \
	sh $links
assert_eq "dm-0 dm-0 sde sdf dm-1 dm-2 dm-0 dm-0" "$(sed 's#.*/##' "$T_TMP/out" | xargs)" \
	"testbed stacking links"
grep -q '^/sys/devices/platform/host7/.*/block/sde$' "$T_TMP/out" || fail "sde link: $(cat "$T_TMP/out")"

mock_check multipath --
# dm-0 holds partitions: shown through them.  sdf1 is on a path: not shown.
expect_rows dm-1 dm-2 sde sdf

for p in sde sdf; do
	expect $p type path
	expect $p physical n/a
	expect $p optimal n/a
	expect $p policy n/a
	expect_reason $p "multipath path of dm-0 (mpatha)"
	expect_reason $p "checked on the map"
	expect $p serial a1b2c3d4-e5f6-0718-293a-4b5c6d7e8f90
	expect $p wwn 0x6001405a1b2c3d4e5f60718293a4b5c6
	expect $p holders dm-0
	expect $p fstype mpath_member
done

# The kpartx maps are partitions of the map (DISK dm-0), numbered from their
# DM UUID.  Their start on the map lives only in the device-mapper table,
# which umockdev cannot answer (the ioctl on /dev/mapper/control fails): the
# start must be unknown (null), not 0, and the check falls back to the
# kernel's stacked alignment offset (dm-1: 0, dm-2: 512, see the testbed),
# with the policy n/a because the place on the map is not known.
for p in dm-1 dm-2; do
	expect $p type part
	expect $p disk dm-0
	expect $p start null
	expect $p start-sec null
	expect $p log-sec 512
	expect $p phy-sec 4096
	expect $p min-io 4096
	expect $p opt-io 0
	expect $p optimal n/a
	expect $p policy n/a
	expect_reason $p "policy: stacked device"
	expect_reason $p "not known"
	expect_no_reason $p "policy: 0 B"
done
expect dm-1 partn 1
expect dm-2 partn 2
# named as lsblk names them (the testbed's dm/name), the node under /dev/mapper
expect dm-1 lsblk-name mpatha-part1
expect dm-2 lsblk-name mpatha-part2
expect dm-1 path /dev/mapper/mpatha-part1
expect dm-1 disk dm-0
ka1=$(kernel_align $((2048 * 512)) 4096 0)
ka2=$(kernel_align $((1050623 * 512)) 4096 0)
assert_eq "0 512" "$ka1 $ka2" "kernel formula for the kpartx offsets (test bug)"
expect dm-1 alignment "$ka1"
expect dm-2 alignment "$ka2"
expect dm-1 physical ok
expect dm-2 physical misaligned
expect_reason dm-2 "alignment offset 512 B"
expect_rc 4 "multipath with a misaligned kpartx map"

# Named devices.  The map: its partitions.  A path: the path row only, and
# nothing checked, so exit 0.  A kpartx map: itself.
mock_check multipath -- /dev/dm-0
expect_rows dm-1 dm-2
expect_rc 4 "/dev/dm-0"
mock_check multipath -- /dev/sdf
expect_rows sdf
expect sdf type path
expect_rc 0 "/dev/sdf"
mock_check multipath -- /dev/dm-1
expect_rows dm-1
expect_rc 0 "/dev/dm-1"
# A partition of a path is never checked: nothing misaligned, nothing
# wrong with naming it, so exit 0 and no message.  (Today the answer is no
# row at all; a row of type path with n/a verdicts would do as well.)
mock_check multipath -- /dev/sdf1
for n in $MOCK_ROWS; do
	expect $n type path
	expect $n physical n/a
	expect $n policy n/a
done
expect_rc 0 "/dev/sdf1 (a partition of a path)"
[ ! -s "$T_TMP/err" ] || fail "/dev/sdf1: stderr: $(cat "$T_TMP/err")"
mock_check multipath -- /dev/sde /dev/sdf
expect_rows sde sdf
expect_rc 0 "/dev/sde /dev/sdf"
