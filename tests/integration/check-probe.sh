#!/bin/bash
# check --probe compares the kernel's partitions with the table on disk:
# after the table is rewritten without telling the kernel, a moved partition
# is "stale", one only on disk "disk-only", one only in the kernel
# "kernel-only".  Plain check keeps showing the kernel's view.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/integration/helpers.sh"

out=$T_TMP/out
err=$T_TMP/err

# probe_case SECTOR LABEL S1 S2 S3 NEW1 NEW4 (starts in sectors of SECTOR bytes)
# The kernel gets p1..p3 at S1..S3; the disk then holds p1 at NEW1, p2
# unchanged and p4 at NEW4, and no p3.
probe_case() {
	local bs=$1 label=$2 s1=$3 s2=$4 s3=$5 n1=$6 n4=$7 size=$8 dev disk name
	dev=$(mkdisk "probe$bs$label" 64M "$bs" "label: $label
start=$s1,size=$size\nstart=$s2,size=$size\nstart=$s3,size=$size")
	disk=${dev#/dev/}
	assert_eq "1 2 3" "$(for p in $(sysfs_parts "$dev"); do
		cat "/sys/block/$disk/$p/partition"; done | paste -sd' ')" "$disk: kernel partitions"

	run_pa "$out" "$err" check --probe --json -o NAME,PARTN,START,TABLE,ONDISK-START "$dev"
	[ -s "$err" ] && fail "$disk: --probe before the rewrite: $(cat "$err")"
	assert_eq "in-sync in-sync in-sync" "$(jq -r '[.devices[].table] | join(" ")' "$out")" \
		"$disk: table state before the rewrite"

	# Rewrite the table behind the kernel's back.
	printf '%s\n' "label: $label" "${dev}p1 : start=$n1, size=$size" \
		"${dev}p2 : start=$s2, size=$size" "${dev}p4 : start=$n4, size=$size" |
		sfdisk -q --no-reread --no-tell-kernel "$dev" >/dev/null
	# If something re-read the table (a udevd watching loop devices), the
	# kernel's view is gone and this test cannot tell anything.
	assert_eq "$((s1 * bs / 512))" "$(cat "/sys/block/$disk/${disk}p1/start")" \
		"$disk: kernel's p1 after the rewrite (is a udevd re-reading loop devices?)"
	assert_eq "$((n1 * bs))" "$(sfdisk --json "$dev" | jq -r --arg n "${dev}p1" \
		'.partitiontable as $t | $t.partitions[] | select(.node == $n) |
		.start * $t.sectorsize')" "$disk: on-disk p1 after the rewrite"

	run_pa "$out" "$err" check --probe --json -o NAME,PARTN,START,TABLE,ONDISK-START,REASON \
		"$dev"
	[ -s "$err" ] && fail "$disk: --probe: stderr: $(cat "$err")"
	[ $((PA_RC & 8)) = 0 ] || fail "$disk: --probe: exit $PA_RC"
	jq -r '.devices[] | "\(.partn) \(.table) \(.start) \(."ondisk-start")"' "$out" |
		sort -n >"$T_TMP/got"
	printf '%s\n' "1 stale $((s1 * bs)) $((n1 * bs))" "2 in-sync $((s2 * bs)) $((s2 * bs))" \
		"3 kernel-only $((s3 * bs)) null" "4 disk-only $((n4 * bs)) $((n4 * bs))" \
		>"$T_TMP/want"
	diff -u "$T_TMP/want" "$T_TMP/got" >&2 || fail "$disk: --probe table states"
	name=$(jq -r '.devices[] | select(.partn == 4) | .name' "$out")
	assert_eq "${disk}p4" "$name" "$disk: name of the disk-only partition"
	for n in 1 3 4; do
		jq -r --argjson n $n '.devices[] | select(.partn == $n) | .reason' "$out" |
			grep -qi 'kernel' || fail "$disk: p$n: reason does not explain the table state"
	done

	# Plain check: the kernel's partitions, where the kernel has them.
	run_pa "$out" "$err" check --json -o NAME,PARTN,START,TABLE,ONDISK-START "$dev"
	jq -r '.devices[] | "\(.partn) \(.table) \(.start) \(."ondisk-start")"' "$out" |
		sort -n >"$T_TMP/got"
	printf '%s\n' "1 null $((s1 * bs)) null" "2 null $((s2 * bs)) null" \
		"3 null $((s3 * bs)) null" >"$T_TMP/want"
	diff -u "$T_TMP/want" "$T_TMP/got" >&2 || fail "$disk: plain check after the rewrite"
	echo "ok: $bs $label"
}

# 512: the kernel has 1 MiB, 2 MiB, 4 MiB; the disk moves p1 to 3 MiB and
# adds p4 at 6 MiB.  4Kn msdos: the same in 4 KiB sectors.
probe_case 512 gpt 2048 4096 8192 6144 12288 2048
probe_case 4096 dos 256 512 1024 768 1536 256
