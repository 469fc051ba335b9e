# md arrays judged at their place on the disks (issue #15).  Three virtio-blk
# disks (512/4096, minimum I/O 4096, optimal I/O 196608 = 3 x 64 KiB;
# disks.conf pa-md-1..3), one partition each at 6 MiB, and over the three
# partitions, one after the other (metadata 1.2, chunk 64 KiB):
#   RAID0 data offset 6 MiB     byte 0 at 12 MiB of each disk: aligned; a
#                               partition of it at 1 MiB (misaligned)
#   RAID0 data offset 1 MiB     at 7 MiB: no multiple of 192 KiB or 2 MiB
#   RAID5 data offset 2052 KiB  at 8196 KiB: the same, physical still fine
#   RAID5 data offset 6 MiB     aligned; on it an LVM VG (extents of 1 MiB)
#                               with an LV at pe_start 1 MiB and one 5 MiB
#                               further, at 6 MiB of the array
# Every expectation is worked out here from sysfs (md/level, md/chunk_size,
# md/dev-*/{slot,offset,block}, the partitions' start, the disks' queue
# limits), cross-checked with mdadm --examine and --detail, and for the LVs
# from dmsetup table -- never from partalign.  Everything is removed at the
# end (vgremove, mdadm --stop, --zero-superblock, wipefs): later scenarios see
# three empty disks.

label=md
md=md0
export MDADM_NO_UDEV=1 # no md udev rules in the guest: mdadm makes /dev/md0
lvmconf='devices { obtain_device_list_from_udev = 0 } activation { udev_sync = 0 udev_rules = 0 }'
mkdir -p /run/mdadm /run/lvm /run/lock/lvm
vm_modprobe raid0 || vm_fatal "cannot load raid0"
vm_modprobe raid456 || vm_fatal "cannot load raid456"

disks=
parts=
for n in 1 2 3; do
	d=$(vm_disks_by_serial "pa-md-$n")
	[ -n "$d" ] || vm_fatal "no virtio-blk disk pa-md-$n"
	vm_topology "$d" "$label/$d" "512 4096 4096 196608 0"
	vm_sfdisk "$d" "$label/$d" "label: gpt
start=12288, size=49152" "12288" || vm_fatal "cannot lay out $d"
	disks="$disks $d"
	parts="$parts $(vm_kernel_parts "$d" | head -n 1)"
done
pol=2097152

# "N MiB" / "N KiB" / "N B" as partalign prints exact sizes
units() {
	if [ $(($1 % 1048576)) = 0 ]; then
		echo "$(($1 / 1048576)) MiB"
	elif [ $(($1 % 1024)) = 0 ]; then
		echo "$(($1 / 1024)) KiB"
	else
		echo "$1 B"
	fi
}

# One line per member of $md, in slot order, from sysfs only:
# "SLOT BASE PHYS-GRAIN OPT-IO PARTITION DISK PART-START DATA-OFFSET"; BASE
# (partition start + data offset) and the offsets in bytes.
members() {
	local m slot off p disk st pg mio
	for m in "/sys/block/$md"/md/dev-*; do
		slot=$(cat "$m/slot")
		[ "$slot" = none ] && continue
		off=$(($(cat "$m/offset") * 512))
		p=$(basename "$(readlink "$m/block")")
		disk=$(basename "$(dirname "$(readlink -f "/sys/class/block/$p")")")
		st=$(($(cat "/sys/class/block/$p/start") * 512))
		pg=$(cat "/sys/block/$disk/queue/physical_block_size")
		mio=$(cat "/sys/block/$disk/queue/minimum_io_size")
		[ "$mio" -gt "$pg" ] && pg=$mio
		echo "$slot $((st + off)) $pg $(cat "/sys/block/$disk/queue/optimal_io_size") $p $disk $st $off"
	done | sort -n
}

# oracle X: byte X of $md (0: the array itself; an LV's table offset) judged
# through the array: on the array against the chunk (physical), chunk x data
# disks (optimal) and 2 MiB; then where X lands on each member it reaches
# (RAID0: chunk X/chunk on member (X/chunk) % n at row (X/chunk)/n, every
# member at a row start; RAID5: row (X/chunk)/(n-1) on every member, data or
# parity) at partition start + data offset + row x chunk + X % chunk, against
# the disk's physical grain and optimal I/O, and the policy there when the
# landing is at the member's data offset itself; the chunk against the disk
# (a multiple of the physical grain, dividing or a multiple of the optimal
# I/O).  Prints "PHYS OPT POL ABS DISK>PARTITION" of the worst landing (the
# first of equals, in slot order).
oracle() {
	members | awk -v x="$1" -v level="$(cat "/sys/block/$md/md/level")" \
		-v chunk="$(cat "/sys/block/$md/md/chunk_size")" -v pol=$pol '
		function v(bad) { return bad ? "misaligned" : "ok" }
		{ n++; base[n] = $2; pg[n] = $3; og[n] = $4; path[n] = $6 ">" $5 }
		END {
			nd = level == "raid0" ? n : n - 1
			P = x % chunk != 0; O = x % (chunk * nd) != 0; L = x % pol != 0
			q = int(x / chunk); within = x % chunk; best = -1
			for (k = 1; k <= n; k++) {
				if (level == "raid0") {
					if (x % (chunk * n) && k - 1 != q % n) continue
					row = int(q / n)
				} else row = int(q / nd)
				ro = row * chunk + within; a = base[k] + ro
				p = a % pg[k] != 0 || chunk % pg[k] != 0
				o = a % og[k] != 0 || (chunk % og[k] != 0 && og[k] % chunk != 0)
				l = ro == 0 && a % pol != 0
				P = P || p; O = O || o; L = L || l
				if (p * 4 + o * 2 + l > best) { best = p * 4 + o * 2 + l; w = a " " path[k] }
			}
			print v(P), v(O), v(L), w
		}'
}

# mdadm's own account of the array agrees with sysfs (the oracle's input)
mdadm_agrees() { # CASE
	local c=$1 ch want got m p
	ch=$(mdadm --detail "/dev/$md" | sed -n 's/^ *Chunk Size : \([0-9]*\)K$/\1/p')
	want="chunk $(($(cat "/sys/block/$md/md/chunk_size") / 1024))"
	got="chunk $ch"
	for m in "/sys/block/$md"/md/dev-*; do
		p=$(basename "$(readlink "$m/block")")
		want="$want $p:$(cat "$m/offset")"
		got="$got $p:$(mdadm --examine "/dev/$p" | sed -n 's/^ *Data Offset : \([0-9]*\) sectors$/\1/p')"
	done
	if [ "$want" = "$got" ]; then
		vm_pass "$c/mdadm" "mdadm --detail/--examine agree with sysfs: $got"
	else
		vm_fail "$c/mdadm" "sysfs says '$want', mdadm '$got'"
	fi
}

mkmd() { # LEVEL DATA-OFFSET-KiB
	local clean='' p
	[ "$1" = 5 ] && clean=--assume-clean # no resync under emulation
	# shellcheck disable=SC2046,SC2086 # kernel names, no blanks
	if ! mdadm --create "/dev/$md" --run --metadata=1.2 $clean --level="$1" \
		--raid-devices=3 --chunk=64 --data-offset="$2K" \
		$(for p in $parts; do echo "/dev/$p"; done) </dev/null >/tmp/mdadm.out 2>&1; then
		vm_fatal "mdadm --create level $1 data offset $2K: $(tr '\n' ' ' </tmp/mdadm.out)"
	fi
	vm_settle
}

stopmd() {
	local p
	mdadm --stop "/dev/$md" >/dev/null 2>&1 || vm_fail "$label/cleanup" "mdadm --stop $md"
	for p in $parts; do
		mdadm --zero-superblock "/dev/$p" >/dev/null 2>&1
		wipefs -q -a "/dev/$p"
	done
	vm_settle
}

# judge DEVICE X CASE: the check row of DEVICE (md0, a partition of it or an
# LV's dm-N) against oracle X; layers disk>partition>md0[>DEVICE].  Sets want.
judge() {
	local dev=$1 c=$3 o got layers
	o=$(oracle "$2")
	want=${o% *}
	layers="${o##* }>$md"
	[ "$dev" = "$md" ] || layers="$layers>$dev"
	got="$(vm_json "$dev" physical) $(vm_json "$dev" optimal) $(vm_json "$dev" policy) $(vm_json "$dev" abs-start)"
	if [ "$got" = "$want" ] && [ "$(vm_json "$dev" layers)" = "$layers" ]; then
		vm_pass "$c" "$dev: $got, layers $layers"
	else
		vm_fail "$c" "$dev: expected '$want' layers $layers, got '$got' layers $(vm_json "$dev" layers): $(vm_json "$dev" reason)"
	fi
	# on the array: the reason names the array (its chunk, stripe width or
	# rows on the members)
	case $dev:$want in
	"$md":* | *:*ok\ ok\ ok*) ;;
	*)
		case $(vm_json "$dev" reason) in
		*"of $md"*) vm_pass "$c/reason" "$dev: $(vm_json "$dev" reason)" ;;
		*) vm_fail "$c/reason" "$dev: reason '$(vm_json "$dev" reason)' does not name $md" ;;
		esac
		;;
	esac
	# partalign udev (its one-device reader) judges it as check does
	u=$(partalign udev "$dev" 2>&1 | sed -n 's/^PARTALIGN_\(PHYSICAL\|OPTIMAL\|POLICY\)=//p' | tr '\n' ' ')
	if [ "${u% }" = "$(echo "$want" | cut -d' ' -f1-3)" ]; then
		vm_pass "$c-udev" "partalign udev $dev: ${u% }"
	else
		vm_fail "$c-udev" "partalign udev $dev: '${u% }', expected '$(echo "$want" | cut -d' ' -f1-3)'"
	fi
}

# exit_bit CASE: bit 4 of the last check exactly when a row of ours is misaligned
exit_bit() {
	local rcw=0
	case $all_want in *misaligned*) rcw=4 ;; esac
	if [ $((VM_RC & 4)) = "$rcw" ] && [ $((VM_RC & 8)) = 0 ]; then
		vm_pass "$1/exit" "exit $VM_RC"
	else
		vm_fail "$1/exit" "exit $VM_RC, want bit 4 = $rcw"
	fi
}

for spec in 0:6144 0:1024 5:2052 5:6144; do
	lvl=${spec%:*}
	doff=${spec#*:}
	c=$label/raid$lvl-off${doff}k
	mkmd "$lvl" "$doff"
	[ "$(cat "/sys/block/$md/md/level")" = "raid$lvl" ] || vm_fatal "$md is not raid$lvl"
	mdadm_agrees "$c"
	vm_run_check "/dev/$md" || vm_fatal "partalign check --json /dev/$md gave no JSON (exit $VM_RC)"
	judge "$md" 0 "$c"
	all_want=$want
	# the reason names the data offset of the array on the member of slot 0
	# shellcheck disable=SC2046 # numbers and kernel names
	set -- $(members | head -n 1)
	sum=$(($7 + $8))
	if [ $((sum % 196608)) != 0 ]; then
		want_r="optimal: data offset $(units "$8") of $md on partition $5 at $(units "$7"): $(units $sum) is no multiple of the 192 KiB optimal I/O of $6"
		r=$(vm_json "$md" reason)
		case $r in
		"$want_r"*) vm_pass "$c/reason" "$md: $want_r" ;;
		*) vm_fail "$c/reason" "$md: reason '$r' does not start '$want_r'" ;;
		esac
	fi
	exit_bit "$c"
	# plan: for the RAID0 off its grain, the mdadm command with the smallest
	# data offset at or past the current one that puts byte 0 of the array on
	# every disk's physical grain, optimal I/O and the 2 MiB policy (judged at
	# the member's data offset, as above); for the aligned one no advice, exit
	# 0; nothing written
	case $spec in
	0:*)
		# shellcheck disable=SC2046 # numbers and kernel names
		set -- $(members | head -n 1)
		g=$3
		for x in $4 $pol; do
			a=$g b=$x
			while [ "$b" != 0 ]; do t=$((a % b)) a=$b b=$t; done
			g=$((g / a * x))
		done
		p=$8
		while [ $((($7 + p) % g)) != 0 ]; do p=$((p + 512)); done
		want_a="mdadm --create /dev/$md --level=0 --raid-devices=3 --chunk=64K --data-offset=$((p / 1024))K$(members | awk '{printf " /dev/%s", $5}')"
		h0=$(sha256sum <"/dev/$md")
		prc=0
		partalign-apply plan --json "/dev/$md" >/tmp/plan.json 2>/tmp/plan.err || prc=$?
		adv=$(jq -r '.plan[0].advice // ""' /tmp/plan.json 2>/dev/null)
		h1=$(sha256sum <"/dev/$md")
		if [ $(($7 + $8)) = $(($7 + p)) ]; then
			want_a='' want_rc=0
		else
			want_rc=4
		fi
		if [ "$adv" = "$want_a" ] && [ "$prc" = "$want_rc" ] && [ "$h0" = "$h1" ]; then
			vm_pass "$c/plan" "plan /dev/$md: exit $prc, advice '$adv'"
		else
			vm_fail "$c/plan" "plan /dev/$md: exit $prc (want $want_rc), advice '$adv', want '$want_a'; $(tr '\n' ' ' </tmp/plan.err)"
		fi
		;;
	esac
	if [ "$spec" = 0:6144 ]; then
		# a partition of the array at 1 MiB: chunk 16 of the array, on the
		# member of slot 1 at row 5, 12 MiB + 320 KiB of its disk; 1 MiB is
		# no multiple of the 192 KiB stripe width or of 2 MiB
		vm_sfdisk "$md" "$c/part" "label: gpt
start=2048, size=8192" "2048" || vm_fatal "cannot lay out $md"
		mp=$(vm_kernel_parts "$md" | head -n 1)
		vm_run_check "/dev/$md" || vm_fatal "partalign check --json /dev/$md gave no JSON (exit $VM_RC)"
		judge "$mp" $(($(cat "/sys/block/$md/$mp/start") * 512)) "$c/$mp"
		all_want=$want
		exit_bit "$c/$mp"
		wipefs -q -a "/dev/$md"
	fi
	[ "$spec" = 5:6144 ] || stopmd
done

# LVM on the aligned RAID5: PE 0 at pe_start 6 MiB (--dataalignment 6m),
# extents of 1 MiB; lv1 at PE 0 (15 MiB on each disk: aligned), lv2 at PE 5
# (11 MiB of the array, no multiple of 2 MiB; row 88 of the members, at
# 17.5 MiB of each disk: no multiple of 192 KiB)
c=$label/lvm
# shellcheck disable=SC2015 # any step failing is fatal
lvm pvcreate --config "$lvmconf" -q -y -ff --dataalignment 6m "/dev/$md" >/tmp/lvm.out 2>&1 &&
	lvm vgcreate --config "$lvmconf" -q -s 1m pamd "/dev/$md" >>/tmp/lvm.out 2>&1 &&
	lvm lvcreate --config "$lvmconf" -q -y -n lv1 -L 5m pamd >>/tmp/lvm.out 2>&1 &&
	lvm lvcreate --config "$lvmconf" -q -y -n lv2 -L 4m pamd >>/tmp/lvm.out 2>&1 ||
	vm_fatal "lvm on $md: $(tr '\n' ' ' </tmp/lvm.out)"
vm_settle
mdmm=$(cat "/sys/block/$md/dev")
pe=$(lvm pvs --config "$lvmconf" --noheadings --units b --nosuffix -o pe_start "/dev/$md" | tr -d ' ')
lvs=
for lv in lv1 lv2; do
	dm=$(vm_dm_by_name "pamd-$lv")
	[ -n "$dm" ] || vm_fatal "no dm device pamd-$lv"
	lvs="$lvs /dev/$dm"
done
# shellcheck disable=SC2086 # dm-N names, no blanks
vm_run_check "/dev/$md" $lvs || vm_fatal "partalign check --json /dev/$md $lvs gave no JSON (exit $VM_RC)"
all_want=
for lv in lv1 lv2; do
	dm=$(vm_dm_by_name "pamd-$lv")
	# the LV's place on the array, from its table: one linear target on md0
	# shellcheck disable=SC2046 # a table line: words
	set -- $(dmsetup table "pamd-$lv")
	if [ "$3" != linear ] || [ "$4" != "$mdmm" ]; then
		vm_fail "$c/$lv" "pamd-$lv is not linear on $md ($mdmm): $*"
		continue
	fi
	x=$(($5 * 512))
	[ "$lv" = lv1 ] && [ "$x" != "$pe" ] && vm_fail "$c/$lv-pe" "table offset $x, pvs pe_start $pe"
	judge "$dm" "$x" "$c/$lv"
	all_want="$all_want $want"
done
judge "$md" 0 "$c/$md"
all_want="$all_want $want"
exit_bit "$c"

# a check of every device (no names) gives these rows the same verdicts
rows() {
	local dev
	for dev in $md $lvs; do
		dev=${dev#/dev/}
		printf '%s ' "$dev:$(vm_json "$dev" physical),$(vm_json "$dev" optimal),$(vm_json "$dev" policy),$(vm_json "$dev" abs-start),$(vm_json "$dev" layers)"
	done
}
named=$(rows)
vm_run_check || vm_fatal "partalign check --json gave no JSON (exit $VM_RC)"
if [ "$(rows)" = "$named" ] && [ $((VM_RC & 8)) = 0 ]; then
	vm_pass "$c/all" "check of every device: $named"
else
	vm_fail "$c/all" "check of every device: '$(rows)' (exit $VM_RC), named: '$named'"
fi

# the same under --sysroot of a dump of the array and its LVs (named: the
# dump follows each LV down to the disks)
rm -rf /tmp/dump-md
# shellcheck disable=SC2086 # dm-N names, no blanks
if partalign dump /tmp/dump-md "/dev/$md" $lvs 2>/tmp/dump.err; then
	partalign check --json "/dev/$md" $lvs >/tmp/live.json 2>/dev/null
	partalign check --json --sysroot /tmp/dump-md "/dev/$md" $lvs >/tmp/sr.json 2>/tmp/sr.err
	# holders in name order: the dump's directory lists them in its own order
	norm='.devices[] |= (.holders |= if . then (split(" ") | sort | join(" ")) else . end)'
	if [ "$(jq -S "$norm" /tmp/live.json)" = "$(jq -S "$norm" /tmp/sr.json)" ] &&
		[ "$(jq '[.devices[] | select(.layers != null)] | length' /tmp/sr.json)" -ge 3 ]; then
		vm_pass "$c/sysroot" "$(jq '.devices | length' /tmp/sr.json) rows equal live and --sysroot"
	else
		vm_fail "$c/sysroot" "check --sysroot differs or has no stacked rows ($(jq -c '[.devices[] | [.name, .layers]]' /tmp/sr.json)): $(tr '\n' ' ' </tmp/sr.err)"
		jq -S "$norm" /tmp/live.json >/tmp/live.n.json
		jq -S "$norm" /tmp/sr.json >/tmp/sr.n.json
		diff /tmp/live.n.json /tmp/sr.n.json | head -n 20
	fi
	if grep -qw vm.capture=1 /proc/cmdline; then
		tar -C /tmp/dump-md -cf - . | gzip -9 | base64 | sed "s/^/@@DUMP lvm-on-raid5 /" >&3
	fi
else
	vm_fail "$c/dump" "partalign dump /dev/$md $lvs: $(tr '\n' ' ' </tmp/dump.err)"
fi

lvm vgremove --config "$lvmconf" -q -f pamd >/dev/null 2>&1 || vm_fail "$label/cleanup" "vgremove pamd"
lvm pvremove --config "$lvmconf" -q -ff -y "/dev/$md" >/dev/null 2>&1
stopmd
for d in $disks; do
	wipefs -q -a "/dev/$d" || vm_fail "$label/cleanup" "wipefs $d"
done
vm_settle
