# Stacked device-mapper devices judged at their place on the disk (issue #15):
# on the virtio-blk disk with optimal I/O 192 KiB (disks.conf pa-vblk-192k),
# one partition at 6 MiB, and on it dm linear maps with an LVM- UUID at table
# offset 1 MiB (byte 7 MiB of the disk: no multiple of 192 KiB or 2 MiB) and
# at 6 MiB (byte 12 MiB: aligned), two striped tables (2 stripes, 64 KiB
# chunk; one on 2 MiB, one off it) and a linear map with a CRYPT- UUID at
# 16 MiB.  Every expectation is worked
# out here from `dmsetup table` and the partition's sysfs start, never from
# partalign.  With vm.capture=1 the dump of the stack goes to the results
# port (see 95-dump and tests/vm/capture-dumps.sh) as stack-on-p6m.

label=stack
d=$(vm_disks_by_serial pa-vblk-192k)
[ -n "$d" ] || vm_fatal "no virtio-blk disk pa-vblk-192k"
vm_topology "$d" "$label" "512 4096 4096 196608 0"
vm_sfdisk "$d" "$label" "label: gpt
start=12288, size=98304" "12288" || vm_fatal "cannot lay out $d"
p=$(vm_kernel_parts "$d" | head -n 1)
pmm=$(cat "/sys/block/$d/$p/dev")
pstart=$(($(cat "/sys/block/$d/$p/start") * 512))

lvu=LVM-pa1vg0000000000000000000000000000pa1lv00000000000000000000000000
mk() { # NAME UUID TABLE
	dmsetup create "$1" --uuid "$2" --table "$3" ||
		vm_fatal "dmsetup create $1 ($3) failed"
}
mk pa--st-lv1 "${lvu}1" "0 16384 linear $pmm 2048"
mk pa--st-lv6 "${lvu}6" "0 16384 linear $pmm 12288"
mk pa--st-str "${lvu}s" "0 16384 striped 2 128 $pmm 28672 $pmm 45056"
# stripes at 384 KiB and 9600 KiB of the partition: on the 192 KiB optimal
# I/O, off the 2 MiB policy (the policy is judged at each stripe's landing)
mk pa--st-str2 "${lvu}t" "0 16384 striped 2 128 $pmm 768 $pmm 19200"
mk pa-st-crypt CRYPT-PLAIN-pa0st0crypt "0 8192 linear $pmm 32768"
vm_settle

# the oracle: from the table, where byte 0 of each segment (each stripe of a
# striped one) lands on the disk, and the verdicts there: physical grain
# max(physical, minimum I/O, logical), optimal I/O, 2 MiB policy -- for a
# striped table too, at each stripe's landing (byte 0 of the segment is row
# 0 of every stripe, where data starts on that disk; as 97-md judges an
# array's members at their data offset) -- and the chunk must be a multiple
# of the physical grain and divide or be a multiple of the optimal I/O.  The worst landing (physical 4, optimal 2,
# policy 1) gives ABS-START, the first of equals.
s=/sys/block/$d
pg=$(cat "$s/queue/physical_block_size")
mio=$(cat "$s/queue/minimum_io_size")
[ "$mio" -gt "$pg" ] && pg=$mio
oio=$(cat "$s/queue/optimal_io_size")
oracle() { # DM-NAME: "PHYS OPT POL ABS"
	dmsetup table "$1" | awk -v pstart="$pstart" -v pg="$pg" -v og="$oio" -v pol=2097152 -v pmm="$pmm" '
		function verdict(x, g) { return x % g == 0 ? "ok" : "misaligned" }
		{
			if ($3 == "linear") { n = 1; dev[1] = $4; off[1] = $5; chunk = 0 }
			else if ($3 == "striped") {
				n = $4; chunk = $5 * 512
				for (i = 1; i <= n; i++) { dev[i] = $(4 + 2 * i); off[i] = $(5 + 2 * i) }
			} else { print "unknown target " $3; exit 1 }
			for (i = 1; i <= n; i++) {
				if (dev[i] != pmm) { print "not on the partition: " dev[i]; exit 1 }
				a = pstart + off[i] * 512
				ph = verdict(a, pg); op = verdict(a, og)
				po = verdict(a, pol)
				if (chunk && chunk % pg) ph = "misaligned"
				if (chunk && chunk % og && og % chunk) op = "misaligned"
				sc = (ph == "misaligned") * 4 + (op == "misaligned") * 2 + (po == "misaligned")
				if (!seen || sc > best) { best = sc; seen = 1; w = ph " " op " " po " " a }
			}
		}
		END { print w }'
}

rc_want=0
vm_run_check || vm_fatal "partalign check --json gave no JSON (exit $VM_RC)"
for name in pa--st-lv1 pa--st-lv6 pa--st-str pa--st-str2 pa-st-crypt; do
	dm=$(vm_dm_by_name "$name")
	[ -n "$dm" ] || { vm_fail "$label/$name" "no dm device"; continue; }
	want=$(oracle "$name")
	got="$(vm_json "$dm" physical) $(vm_json "$dm" optimal) $(vm_json "$dm" policy) $(vm_json "$dm" abs-start)"
	case $want in *misaligned*) rc_want=4 ;; esac
	if [ "$got" = "$want" ] && [ "$(vm_json "$dm" layers)" = "$d>$p>$dm" ]; then
		vm_pass "$label/$name" "$dm: $got, layers $d>$p>$dm ($(dmsetup table "$name" | head -n 1))"
	else
		vm_fail "$label/$name" "$dm: expected '$want' layers $d>$p>$dm, got '$got' layers $(vm_json "$dm" layers): $(vm_json "$dm" reason)"
	fi
	# partalign udev (its one-device reader) judges the stack as check does
	u=$(partalign udev "$dm" 2>&1 | sed -n 's/^PARTALIGN_\(PHYSICAL\|OPTIMAL\|POLICY\)=//p' | tr '\n' ' ')
	if [ "${u% }" = "$(echo "$want" | cut -d' ' -f1-3)" ]; then
		vm_pass "$label/$name-udev" "partalign udev $dm: ${u% }"
	else
		vm_fail "$label/$name-udev" "partalign udev $dm: '${u% }', check: '$(echo "$want" | cut -d' ' -f1-3)'"
	fi
done
# the reason names the layer: the table offset on the partition, the sum
lv1=$(vm_dm_by_name pa--st-lv1)
r=$(vm_json "$lv1" reason)
want_r="table offset 1 MiB of $lv1 on partition $p at 6 MiB: 7 MiB is no multiple of the 192 KiB optimal I/O of $d"
case $r in
*"$want_r"*) vm_pass "$label/reason" "$lv1: $want_r" ;;
*) vm_fail "$label/reason" "$lv1: reason '$r' does not say '$want_r'" ;;
esac
if [ $((VM_RC & 4)) = "$rc_want" ] && [ $((VM_RC & 8)) = 0 ]; then
	vm_pass "$label/exit" "exit $VM_RC"
else
	vm_fail "$label/exit" "exit $VM_RC, want bit 4 = $rc_want"
fi

# plan advises for the layer partalign does not rewrite (issue #15): exit bit
# 4 and, for the dm table blamed, offsets on the grain worked out here (the lcm
# of the disk's physical grain, optimal I/O and the 2 MiB policy); nothing
# written (the map's content hashed before and after); an aligned map: exit 0,
# no advice
gcd() { local a=$1 b=$2 t; while [ "$b" != 0 ]; do t=$((a % b)); a=$b; b=$t; done; echo "$a"; }
lcm() { echo $(($1 / $(gcd "$1" "$2") * $2)); }
fg=$(lcm "$(lcm "$pg" "$oio")" 2097152)
mib() { if [ $(($1 % 1048576)) = 0 ]; then echo "$(($1 / 1048576)) MiB"; else echo "$(($1 / 1024)) KiB"; fi; }
for name in pa--st-lv1 pa--st-lv6; do
	dm=$(vm_dm_by_name "$name")
	h0=$(sha256sum <"/dev/mapper/$name")
	prc=0
	partalign-apply plan --json "/dev/mapper/$name" >/tmp/plan.json 2>/tmp/plan.err || prc=$?
	adv=$(jq -r '.plan[0].advice // ""' /tmp/plan.json 2>/dev/null)
	trc=0
	partalign-apply plan "/dev/mapper/$name" >/tmp/plan.txt 2>&1 || trc=$?
	h1=$(sha256sum <"/dev/mapper/$name")
	if [ "$name" = pa--st-lv1 ]; then
		want="dm device $dm: a table whose offsets are multiples of $(mib "$fg") (dmsetup reload), or move the data"
		if [ "$adv" = "$want" ] && [ $((prc & 4)) = 4 ] && [ $((trc & 4)) = 4 ] &&
			[ $((prc & 24)) = 0 ] && grep -F -- "  fix: $want" /tmp/plan.txt >/dev/null &&
			[ "$h0" = "$h1" ]; then
			vm_pass "$label/plan-advice" "$name: exit $prc, '$adv'"
		else
			vm_fail "$label/plan-advice" "$name: exit $prc/$trc, advice '$adv', want '$want'; $(tr '\n' ' ' </tmp/plan.err) $(tr '\n' ' ' </tmp/plan.txt)"
		fi
	elif [ -z "$adv" ] && [ "$prc" = 0 ] && [ "$h0" = "$h1" ] && ! grep -F "  fix:" /tmp/plan.txt >/dev/null; then
		vm_pass "$label/plan-aligned" "$name: exit 0, no advice"
	else
		vm_fail "$label/plan-aligned" "$name: exit $prc, advice '$adv'; $(tr '\n' ' ' </tmp/plan.err) $(tr '\n' ' ' </tmp/plan.json)"
	fi
done

# the same under --sysroot of a dump of the stack (named: the dump follows
# each map down to its disk)
# shellcheck disable=SC2046 # dm-N names, no blanks
set -- $(for n in pa--st-lv1 pa--st-lv6 pa--st-str pa--st-str2 pa-st-crypt; do echo "/dev/$(vm_dm_by_name "$n")"; done)
rm -rf /tmp/dump-stack
if partalign dump /tmp/dump-stack "$@" 2>/tmp/dump.err; then
	partalign check --json "$@" >/tmp/live.json 2>/dev/null
	partalign check --json --sysroot /tmp/dump-stack "$@" >/tmp/sr.json 2>/tmp/sr.err
	if [ "$(jq -S . /tmp/live.json)" = "$(jq -S . /tmp/sr.json)" ]; then
		vm_pass "$label/sysroot" "$(jq '.devices | length' /tmp/sr.json) rows equal live and --sysroot"
	else
		vm_fail "$label/sysroot" "check --sysroot differs: $(tr '\n' ' ' </tmp/sr.err)"
		diff /tmp/live.json /tmp/sr.json | head -n 20
	fi
	if grep -qw vm.capture=1 /proc/cmdline; then
		tar -C /tmp/dump-stack -cf - . | gzip -9 | base64 | sed "s/^/@@DUMP stack-on-p6m /" >&3
	fi
else
	vm_fail "$label/dump" "partalign dump $*: $(tr '\n' ' ' </tmp/dump.err)"
fi

for n in pa--st-lv1 pa--st-lv6 pa--st-str pa--st-str2 pa-st-crypt; do
	dmsetup remove "$n" || vm_fail "$label/cleanup" "dmsetup remove $n"
done
vm_settle
