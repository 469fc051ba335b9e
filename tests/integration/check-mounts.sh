#!/bin/bash
# check reports where a partition is mounted (MOUNTPOINTS) and, with --probe,
# the filesystem on it (FSTYPE).  The mount lives in a private mount namespace,
# so it goes away with the test whatever happens.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/integration/helpers.sh"
need_cmd mkfs.ext4 unshare mount findmnt blkid

dev=$(mkdisk mnt 64M 512 'label: gpt\nstart=4096,size=32768\nstart=40960,size=8192')
disk=${dev#/dev/}
[ -e "/sys/block/$disk/${disk}p2" ] || fail "partitions not added"
mkfs.ext4 -q -F "${dev}p1" >/dev/null 2>&1 || fail "mkfs.ext4 ${dev}p1"
assert_eq ext4 "$(blkid -p -o value -s TYPE "${dev}p1")" "blkid of ${dev}p1"
mkdir "$T_TMP/mnt"

export dev disk T_TMP PARTALIGN
unshare -m --propagation private bash -c '
	set -eu
	mount -t ext4 "${dev}p1" "$T_TMP/mnt"
	findmnt -n -o TARGET --source "${dev}p1" >"$T_TMP/findmnt"
	# every exit status is kept: both partitions are on the 2 MiB grain
	rc=0; "$PARTALIGN" check --json -o NAME,MOUNTPOINTS "$dev" >"$T_TMP/plain" || rc=$?
	echo "$rc" >"$T_TMP/rc.plain"
	rc=0; "$PARTALIGN" check --probe --json -o NAME,FSTYPE,MOUNTPOINTS "$dev" \
		>"$T_TMP/probe" || rc=$?
	echo "$rc" >"$T_TMP/rc.probe"
	rc=0; "$PARTALIGN" check -r -n -o NAME,MOUNTPOINTS "$dev" >"$T_TMP/raw" || rc=$?
	echo "$rc" >"$T_TMP/rc.raw"
' || fail "mount in a private namespace"

target=$(cat "$T_TMP/findmnt")
# 0: nothing misaligned, nothing unreadable (a mounted partition is no error)
for run in plain probe raw; do
	assert_eq 0 "$(cat "$T_TMP/rc.$run")" "exit status of check ($run) with ${dev}p1 mounted"
done
assert_eq "$(realpath "$T_TMP/mnt")" "$(realpath "$target")" "findmnt target"
assert_eq "$target" "$(json_get "${disk}p1" mountpoints <"$T_TMP/plain")" "mountpoints of p1"
assert_eq null "$(json_get "${disk}p2" mountpoints <"$T_TMP/plain")" "mountpoints of p2"
assert_eq "$target" "$(json_get "${disk}p1" mountpoints <"$T_TMP/probe")" \
	"mountpoints of p1, --probe"
assert_eq ext4 "$(json_get "${disk}p1" fstype <"$T_TMP/probe")" "fstype of p1, --probe"
assert_eq null "$(json_get "${disk}p2" fstype <"$T_TMP/probe")" "fstype of p2, --probe"
grep -qx "${disk}p1 $target" "$T_TMP/raw" || fail "raw MOUNTPOINTS: $(cat "$T_TMP/raw")"

# outside the namespace nothing is mounted
run_pa "$T_TMP/out" "$T_TMP/err" check --json -o NAME,MOUNTPOINTS "$dev"
expect_rc 0 "check after umount"
assert_eq null "$(json_get "${disk}p1" mountpoints <"$T_TMP/out")" "mountpoints after umount"
echo ok
