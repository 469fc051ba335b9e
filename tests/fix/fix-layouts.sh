#!/bin/bash
# partalign plan + fix on misaligned GPT and dos layouts, 512- and 4096-byte
# sectors, disks with free space and disks 100% full.  For each layout:
#  - plan --json shows the new starts and sizes worked out here by hand
#    (expected_layout), flags exactly the partitions whose size shrinks, and
#    drops exactly the dos extended partition;
#  - fix --yes exits 1; sfdisk, parted and the kernel (sysfs) then show that
#    layout, every start on the grain, nothing overlapping, sgdisk -v clean;
#  - GPT: numbers, names, type GUIDs, attributes and PARTUUIDs are kept;
#    dos: converted to GPT with the numbers kept and the types mapped;
#  - check then exits 0, and a second fix is a no-op (exit 0, the whole
#    device byte-identical).
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"

# dos system id -> GPT type GUID partalign must give it
map_type() {
	case $1 in
	83) echo $GUID_LINUX ;;
	8e) echo $GUID_LVM ;;
	fd) echo $GUID_RAID ;;
	82) echo $GUID_SWAP ;;
	*) echo "unexpected dos type $1" ;;
	esac
}

# run_case NAME SIZE SECTOR GRAIN_SECTORS "FIX ARGS" SFDISK_SCRIPT
run_case() {
	local name=$1 size=$2 bs=$3 g=$4 args=$5 script=$6 dev label old want sum
	local num start nsize osize note act rows f_old f_new guid
	dev=$(mkdisk "$name" "$size" "$bs" "$script")
	old="$T_TMP/$name.old"
	want="$T_TMP/$name.want"
	label=$(sfd_label "$dev")
	sfd_layout "$dev" >"$old"
	[ -s "$old" ] || fail "$name: sfdisk wrote no partitions"
	# dos extended partitions (5, f, 85) are dropped; the rest keep their
	# order.  (The kernel holds an extended partition as 2 sectors: left out.)
	awk '$4 !~ /^(5|f|85)$/ { print $1, $2, $3 }' "$old" >"$T_TMP/$name.data"
	assert_eq "$(cat "$T_TMP/$name.data")" \
		"$(sysfs_layout "$dev" | grep -v -x -E "($(awk '$4 ~ /^(5|f|85)$/ { printf "%s|", $1 }' \
			"$old")x) .*")" "$name: kernel before fix"
	sort -k2,2n "$T_TMP/$name.data" | expected_layout "$dev" "$g" >"$want"

	# plan first: it shows every start and every size change, writes nothing
	sum=$(dev_sum "$dev")
	# shellcheck disable=SC2086
	run_pa "$T_TMP/out" "$T_TMP/err" plan --json $args "$dev"
	expect_rc 4 "$name: plan"
	assert_eq "$sum" "$(dev_sum "$dev")" "$name: plan changed the disk"
	rows=$(jq -r --argjson l "$bs" '.plan[] | select(.action != "drop") |
		"\(.num) \(.["new-start"] / $l) \(.["new-size"] / $l)"' "$T_TMP/out" | sort -n)
	assert_eq "$(cat "$want")" "$rows" "$name: plan's new layout"
	while read -r num start nsize; do
		osize=$(awk -v n="$num" '$1 == n { print $3 }' "$old")
		note=$(jq -r --argjson n "$num" '.plan[] | select(.num == $n) | .note // ""' \
			"$T_TMP/out")
		act=$(jq -r --argjson n "$num" '.plan[] | select(.num == $n) | .action' "$T_TMP/out")
		if [ "$osize" != "$nsize" ]; then
			[[ $note == *rounded* ]] || fail "$name: partition $num shrinks, plan note '$note'"
		else
			assert_eq "" "$note" "$name: partition $num note"
		fi
		if [ "$(awk -v n="$num" '$1 == n { print $2 }' "$old")" = "$start" ] &&
			[ "$osize" = "$nsize" ]; then
			assert_eq keep "$act" "$name: partition $num action"
		else
			assert_eq recreate "$act" "$name: partition $num action"
		fi
	done <"$want"
	assert_eq "$(awk '$4 ~ /^(5|f|85)$/ { print $1 }' "$old")" \
		"$(jq -r '.plan[] | select(.action == "drop") | .num' "$T_TMP/out")" \
		"$name: dropped partitions"

	# shellcheck disable=SC2086
	pa_fix "$dev" $args
	expect_rc 1 "$name: fix"
	grep -q "$dev: fixed" "$T_TMP/out" || fail "$name: fix did not say fixed: $(cat "$T_TMP/out")"
	verify_fixed "$dev" "$g" "$want"

	# what each partition is, apart from where it lies
	if [ "$label" = gpt ]; then
		f_old=$(cut -d' ' -f1,4- "$old" | sort -n)
		f_new=$(sfd_layout "$dev" | cut -d' ' -f1,4-)
		assert_eq "$f_old" "$f_new" "$name: numbers, types, PARTUUIDs, names, attributes"
	else
		while read -r num _ _ guid _; do
			f_old=$(awk -v n="$num" '$1 == n { print $4 }' "$old")
			assert_eq "$(map_type "$f_old")" "$guid" "$name: type of partition $num"
		done < <(sfd_layout "$dev")
		f_new=$(sfd_layout "$dev" | cut -d' ' -f5 | sort -u | grep -c -E \
			'^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$')
		assert_eq "$(wc -l <"$want")" "$f_new" "$name: distinct PARTUUIDs"
	fi

	# shellcheck disable=SC2086
	run_pa "$T_TMP/out" "$T_TMP/err" check $args "$dev"
	expect_rc 0 "$name: check after fix"

	sum=$(dev_sum "$dev")
	# shellcheck disable=SC2086
	pa_fix "$dev" $args
	expect_rc 0 "$name: second fix"
	grep -q "$dev: nothing to do" "$T_TMP/out" || fail "$name: second fix: $(cat "$T_TMP/out")"
	assert_eq "$sum" "$(dev_sum "$dev")" "$name: second fix changed the disk"
	echo "ok: $name ${args:-default grain}: $(tr '\n' ' ' <"$want")"
}

# 512-byte sectors: 2 MiB = 4096 sectors, 1 MiB = 2048.
gpt4='label: gpt\nfirst-lba: 34
start=34,size=2000,type=0FC63DAF-8483-4772-8E79-3D69D8477DE4,name=data
start=2047,size=2048,type=E6D6D379-F507-44C2-A23C-238F2A3DF928,name="pv one"
start=4095,size=4097,type=A19D880F-05FC-4D3B-A006-743F0F84911E,attrs="RequiredPartition GUID:63"
start=20000,size=3000,type=0657FD6D-A4AB-43C4-84E5-0933C84B4F4F,name=swap'
run_case g512 64M 512 4096 "" "$gpt4"
run_case g512-1m 64M 512 2048 "--align 1MiB" "$gpt4"
run_case g512-4096s 64M 512 4096 "--align 4096s" "$gpt4"
# 100% full: the last partition runs to the last usable sector and must
# shrink to whole grains; partition numbers out of disk order are kept.
run_case g512-full 32M 512 4096 "" 'label: gpt\nfirst-lba: 34
2: start=63,size=4000,name=first
1: start=4095,name=rest'
run_case d512 64M 512 4096 "" 'label: dos
start=63,size=1984,type=83\nstart=2047,size=3000,type=8e
start=6000,size=40000,type=5\nstart=8000,size=3000,type=fd\nstart=12000,size=2000,type=82'
# dos may use the disk to its last sector, GPT needs room for its backup
run_case d512-full 16M 512 4096 "" 'label: dos\nstart=2047,type=83'

# 4096-byte sectors: 2 MiB = 512 sectors, 1 MiB = 256, 4096s = 16 MiB.
gpt4k='label: gpt\nfirst-lba: 6
start=6,size=50,name=a\nstart=63,size=300,name=b
start=2047,size=600,type=E6D6D379-F507-44C2-A23C-238F2A3DF928,name=c
start=4095,size=10,name=d'
run_case g4k 128M 4096 512 "" "$gpt4k"
run_case g4k-1m 128M 4096 256 "--align 1MiB" "$gpt4k"
run_case g4k-4096s 128M 4096 4096 "--align 4096s" "$gpt4k"
run_case g4k-full 32M 4096 512 "" 'label: gpt\nfirst-lba: 6\nstart=6,name=all'
run_case d4k 64M 4096 512 "" 'label: dos
start=63,size=100,type=83\nstart=2047,size=3000,type=82\nstart=5000,type=8e'
