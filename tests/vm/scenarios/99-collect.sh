# partalign-collect on the guest's real kernel, run by the guest's busybox
# sh (/usr/share/partalign/partalign-collect, as the package installs it):
# check --sysroot of the collection gives exactly the rows (every column) and
# the exit status of partalign check run in the guest, and the tree is
# partalign dump's, file for file and link for link.  Besides what earlier
# scenarios left (virtio-blk, virtio-scsi, NVMe disks, the multipath map of
# 50-multipath and its kpartx maps), an md RAID0 over partitions of pa-md-1
# and pa-md-2 (data offset 1 MiB), a linear map with an LVM- UUID on it and
# a plain dm-crypt map on that: the collector's md members and dm tables.
# Neither tree may hold the crypt key (dmsetup and dump write zeros).  Without dmsetup on the PATH the
# collection lacks the tables: the rows of every other device are the same,
# a dm row's verdicts are the same or n/a (unknown), never another, and
# check says so (exit bit 8).  Everything made here is removed at the end.

label=collect
collector=/usr/share/partalign/partalign-collect
md=md9
export MDADM_NO_UDEV=1
mkdir -p /run/mdadm
[ -f "$collector" ] || vm_fatal "no $collector in the guest"
for m in raid0 dm_crypt xts; do
	vm_modprobe "$m" || vm_fatal "cannot load $m"
done
cols=$(partalign check --list-columns | awk 'NF { print $1 }' | tr '\n' ',' | sed 's/,$//')

parts=
disks=
for n in 1 2; do
	d=$(vm_disks_by_serial "pa-md-$n")
	[ -n "$d" ] || vm_fatal "no virtio-blk disk pa-md-$n"
	vm_sfdisk "$d" "$label/$d" "label: gpt
start=12288, size=40960" "12288" || vm_fatal "cannot lay out $d"
	disks="$disks $d"
	parts="$parts $(vm_kernel_parts "$d" | head -n 1)"
done
# shellcheck disable=SC2046 # kernel names, no blanks
mdadm --create "/dev/$md" --run --metadata=1.2 --level=0 --raid-devices=2 --chunk=64 \
	--data-offset=1024K $(for p in $parts; do echo "/dev/$p"; done) </dev/null >/tmp/mdadm.out 2>&1 ||
	vm_fatal "mdadm --create: $(tr '\n' ' ' </tmp/mdadm.out)"
vm_settle
sz=$(cat "/sys/block/$md/size")
uuid=LVM-pacol000000000000000000000000000pacollv00000000000000000000000000
dmsetup create pa--col-lv --uuid "$uuid" --table "0 $((sz - 4096)) linear /dev/$md 2048" ||
	vm_fatal "dmsetup create of the LV on $md failed"
vm_settle
lv=$(vm_dm_by_name pa--col-lv)
[ -n "$lv" ] || vm_fatal "no dm device pa--col-lv"
key=5ec2e7005ec2e7005ec2e7005ec2e7005ec2e7005ec2e7005ec2e7005ec2e700
dmsetup create pa-col-crypt --uuid CRYPT-PLAIN-pa-col-crypt --table \
	"0 $(($(cat "/sys/block/$lv/size") - 2048)) crypt aes-xts-plain64 $key 0 /dev/$lv 2048" ||
	vm_fatal "dmsetup create of the crypt map on $lv failed"
vm_settle

cleanup() {
	local p
	dmsetup remove pa-col-crypt 2>/dev/null
	dmsetup remove pa--col-lv 2>/dev/null
	mdadm --stop "/dev/$md" >/dev/null 2>&1 || vm_fail "$label/cleanup" "mdadm --stop $md"
	for p in $parts; do
		mdadm --zero-superblock "/dev/$p" >/dev/null 2>&1
		wipefs -q -a "/dev/$p"
	done
	for p in $disks; do
		wipefs -q -a "/dev/$p"
	done
	vm_settle
}

# the live check, the collection (busybox sh), partalign dump
partalign check --json -o "$cols" >/tmp/live.json 2>/tmp/live.err
live_rc=$?
rm -rf /tmp/col /tmp/col-nodm /tmp/dump
if ! sh "$collector" /tmp/col >/tmp/col.log 2>&1; then
	vm_fail "$label/run" "partalign-collect exit $?: $(tr '\n' ' ' </tmp/col.log)"
	cleanup
	return 0 2>/dev/null || exit 0
fi
# --asm: the ASM header blocks the collector brings too (asm/)
partalign dump --asm /tmp/dump >/tmp/dump.log 2>&1 || vm_fail "$label/dump" "partalign dump: $(tr '\n' ' ' </tmp/dump.log)"
n=$(jq '.devices | length' /tmp/live.json)
kinds=$(jq -r '[.devices[].type] | unique | join(",")' /tmp/live.json)
case ",$kinds," in
*,raid,*) ;;
*) vm_fail "$label/devices" "no md row among the live rows ($kinds)" ;;
esac
for k in lvm crypt; do
	case ",$kinds," in
	*,$k,*) ;;
	*) vm_fail "$label/devices" "no $k row among the live rows ($kinds)" ;;
	esac
done
if grep -rq "$key" /tmp/dump /tmp/col; then
	vm_fail "$label/key" "the crypt key is in a tree: $(grep -rl "$key" /tmp/dump /tmp/col | tr '\n' ' ')"
else
	vm_pass "$label/key" "no tree holds the crypt key"
fi

partalign check --json -o "$cols" --sysroot /tmp/col >/tmp/sr.json 2>/tmp/sr.err
sr_rc=$?
if [ "$n" -gt 0 ] && [ "$(jq -S . /tmp/live.json)" = "$(jq -S . /tmp/sr.json)" ] &&
	[ "$live_rc" = "$sr_rc" ]; then
	vm_pass "$label/rows" "$n rows ($kinds) and exit $sr_rc equal live and --sysroot of the collection"
else
	vm_fail "$label/rows" "check --sysroot of the collection (exit $sr_rc) differs from the live check (exit $live_rc): $(tr '\n' ' ' </tmp/sr.err)"
	diff /tmp/live.json /tmp/sr.json | head -n 20
fi

# the tree is partalign dump's: the same directories, links (their text) and
# files (their content), listed with a few commands (forks are slow here)
tree_list() {
	(
		cd "$1" || exit 1
		find . -type d | sort
		find . -type l -exec ls -l {} + | sed 's/^.* \(\.\/.* -> .*\)$/\1/' | sort
		find . -type f ! -name partalign-dump -exec md5sum {} + | sort -k 2
	)
}
tree_list /tmp/dump >/tmp/dump.list
tree_list /tmp/col >/tmp/col.list
if cmp -s /tmp/dump.list /tmp/col.list && [ -s /tmp/col.list ]; then
	vm_pass "$label/tree" "$(wc -l </tmp/col.list) directories, links and files equal partalign dump's, md members and dm tables included"
else
	vm_fail "$label/tree" "the collection differs from partalign dump: $(diff /tmp/dump.list /tmp/col.list | grep '^[-+][^-+]' | head -n 5 | tr '\n' ' ')"
fi

# without dmsetup: the tables are missing, nothing else
mkdir -p /tmp/nodm
for c in ls cat readlink uname cp mkdir rm ln; do
	ln -sf /usr/bin/busybox "/tmp/nodm/$c"
done
PATH=/tmp/nodm sh "$collector" /tmp/col-nodm >/tmp/col-nodm.log 2>&1 ||
	vm_fail "$label/nodm-run" "partalign-collect without dmsetup: $(tr '\n' ' ' </tmp/col-nodm.log)"
grep -q 'dmsetup not found' /tmp/col-nodm.log ||
	vm_fail "$label/nodm-warn" "no word of the missing tables: $(tr '\n' ' ' </tmp/col-nodm.log)"
partalign check --json -o "$cols" --sysroot /tmp/col-nodm >/tmp/nodm.json 2>/tmp/nodm.err
nodm_rc=$?
bad=$(jq -r -n --slurpfile r /tmp/live.json --slurpfile g /tmp/nodm.json '
	($g[0].devices | map({(.kname): .}) | add) as $G |
	$r[0].devices[] | .kname as $k | . as $x | $G[$k] as $y |
	if $y == null then "\($k): no row"
	elif ($k | startswith("dm-")) then
		(["physical", "optimal", "policy"][] as $c |
			select($y[$c] != $x[$c] and $y[$c] != "n/a") | "\($k): \($c) \($y[$c]), live \($x[$c])")
	elif ($x | del(.reason)) != ($y | del(.reason)) or $x.reason != $y.reason then "\($k): differs"
	else empty end')
if [ -z "$bad" ] && [ $((nodm_rc & 8)) = 8 ] && grep -q 'no device-mapper table' /tmp/nodm.err; then
	vm_pass "$label/nodm" "without dmsetup: the dm rows unknown or equal, every other row equal, exit $nodm_rc"
else
	vm_fail "$label/nodm" "without dmsetup (exit $nodm_rc):$bad $(tr '\n' ' ' </tmp/nodm.err)"
fi

cleanup
