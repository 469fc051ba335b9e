#!/bin/bash
# fix --new on blank disks, 512- and 4096-byte sectors: one GPT partition
# from the first 2 MiB boundary to the last whole 2 MiB before the backup
# GPT.  The expectation is worked out here from the device size and the GPT
# layout (backup: 32 sectors of entries + header on 512, 4 + 1 on 4096);
# disk sizes that are no whole number of MiB make the rounding show.
# --name is applied (sgdisk -i); a second run is a no-op; a disk that is not
# blank (a table, or a filesystem on the whole device) is refused untouched.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd mkfs.ext4

# blank NAME SECTOR BYTES
blank() {
	local name=$1 bs=$2 bytes=$3 dev total tailsec start end want sum
	truncate -s "$bytes" "$T_TMP/$name.img"
	dev=$(loop_attach "$T_TMP/$name.img" "$bs")
	total=$((bytes / bs))
	# sectors the backup GPT takes at the end: entries (16 KiB) + header
	tailsec=$((16384 / bs + 1))
	g=$((2097152 / bs))
	start=$g
	end=$(((total - tailsec) / g * g)) # first sector past the partition
	want="1 $start $((end - start))"

	run_pa "$T_TMP/out" "$T_TMP/err" plan --json --new --name "data $name" "$dev"
	expect_rc 4 "$name: plan --new"
	assert_eq "create $((start * bs)) $(((end - start) * bs)) data $name" \
		"$(jq -r '.plan[] | "\(.action) \(.["new-start"]) \(.["new-size"]) \(.name)"' \
			"$T_TMP/out")" "$name: plan --new row"

	pa_fix "$dev" --new --name "data $name"
	expect_rc 1 "$name: fix --new"
	echo "$want" >"$T_TMP/want"
	verify_fixed "$dev" "$g" "$T_TMP/want"
	sgdisk -i 1 "$dev" | grep -x "Partition name: 'data $name'" >/dev/null ||
		fail "$name: sgdisk -i 1: $(sgdisk -i 1 "$dev")"
	[ -z "$(blkid -p -o value -s TYPE "${dev}p1" 2>/dev/null)" ] ||
		fail "$name: the new partition holds a signature"
	run_pa "$T_TMP/out" "$T_TMP/err" check "$dev"
	expect_rc 0 "$name: check after fix --new"

	sum=$(dev_sum "$dev")
	pa_fix "$dev" --new --name "data $name"
	expect_rc 0 "$name: second fix --new"
	grep -q "$dev: nothing to do" "$T_TMP/out" || fail "$name: $(cat "$T_TMP/out")"
	assert_eq "$sum" "$(dev_sum "$dev")" "$name: second fix --new changed the disk"
	echo "ok: $name: $want (sectors of $bs)"
}

blank b512 512 $((100 * 1048576 + 7 * 512))
blank b4k 4096 $((100 * 1048576 + 3 * 4096))
# exactly whole MiB: the last 2 MiB cannot hold the partition's end
blank b512-even 512 $((64 * 1048576))

# not blank: refused, untouched
nb() {
	local name=$1 dev=$2 re=$3 sum
	sum=$(dev_sum "$dev")
	pa_fix "$dev" --new
	expect_rc 4 "$name: fix --new"
	grep -Eq "$re" "$T_TMP/err" || fail "$name: stderr: $(cat "$T_TMP/err")"
	assert_eq "$sum" "$(dev_sum "$dev")" "$name: refused fix --new changed the disk"
	echo "ok: $name refused: $(cat "$T_TMP/err")"
}
d=$(mkdisk gpt 64M 512 'label: gpt\nstart=2048,size=4096')
nb gpt "$d" "refused: not blank: it has a gpt partition table with 1 partition"
d=$(mkdisk dos 64M 4096 'label: dos\nstart=256,size=4096,type=83')
nb dos "$d" "refused: not blank: it has a dos partition table"
d=$(mkdisk fs 64M 512)
mkfs.ext4 -q -F "$d"
# (libparted takes a filesystem on the whole device for its "loop" label)
nb ext4 "$d" "refused: not blank"

run_pa "$T_TMP/out" "$T_TMP/err" fix --yes --name x "$d"
expect_rc 16 "--name without --new"
