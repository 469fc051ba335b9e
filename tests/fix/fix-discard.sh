#!/bin/bash
# fix --discard-data on partitions holding ext4 and xfs: the fix goes ahead,
# and afterwards libblkid (blkid -p, low-level probing of the raw device)
# finds no signature at any old start nor in any new partition, so nothing
# stale turns up on a partition that now starts elsewhere.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd mkfs.ext4 mkfs.xfs

# type_at DEV OFFSET_BYTES -> the TYPE blkid -p finds there, or "none"
type_at() {
	local t rc=0
	t=$(blkid -p -O "$2" -o value -s TYPE "$1" 2>/dev/null) || rc=$?
	if [ "$rc" = 2 ] || [ -z "$t" ]; then
		echo none
	elif [ "$rc" = 0 ]; then
		echo "$t"
	else
		fail "blkid -p -O $2 $1: exit $rc"
	fi
}

# type_of PARTITION -> what blkid -p finds in it, or "none"
type_of() {
	local t rc=0
	t=$(blkid -p -o value -s TYPE "$1" 2>/dev/null) || rc=$?
	[ "$rc" = 0 ] && [ -n "$t" ] && echo "$t" || echo none
}

# mkfs.xfs wants at least 300 MiB; the image is sparse.
dev=$(mkdisk discard 512M 512 'label: gpt\nfirst-lba: 34
start=34,size=65536,name=ext\nstart=70001,size=655360,name=xfs')
mkfs.ext4 -q -F "${dev}p1"
mkfs.xfs -q -f "${dev}p2"
sfd_layout "$dev" | awk '{ print $1, $2, $3 }' | sort -k2,2n | expected_layout "$dev" 4096 \
	>"$T_TMP/want"
old_starts="$((34 * 512)) $((70001 * 512))"
# the probe itself must see what is there, or the checks below prove nothing
assert_eq "ext4 xfs" "$(type_at "$dev" $((34 * 512))) $(type_at "$dev" $((70001 * 512)))" \
	"signatures before the fix"

pa_fix "$dev"
expect_rc 4 "fix without --discard-data"
grep -q "holds ext4" "$T_TMP/err" || fail "refusal: $(cat "$T_TMP/err")"

pa_fix "$dev" --discard-data
expect_rc 1 "fix --discard-data"
grep -q "$dev: fixed" "$T_TMP/out" || fail "fix --discard-data: $(cat "$T_TMP/out")"
verify_fixed "$dev" 4096 "$T_TMP/want"

for off in $old_starts; do
	assert_eq none "$(type_at "$dev" "$off")" "signature at old start $off"
done
while read -r num start _; do
	assert_eq none "$(type_at "$dev" $((start * 512)))" "signature at new start of $num"
	assert_eq none "$(type_of "${dev}p$num")" "signature in new partition $num"
done <"$T_TMP/want"
# the whole device: only the new GPT
assert_eq gpt "$(blkid -p -o value -s PTTYPE "$dev")" "whole-device probe"
run_pa "$T_TMP/out" "$T_TMP/err" check "$dev"
expect_rc 0 "check after fix --discard-data"
echo "ok: ext4 and xfs wiped at $old_starts and in the new partitions"
