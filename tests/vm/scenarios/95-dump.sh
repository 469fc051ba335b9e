# partalign dump on the guest's real kernel, and check --sysroot of each dump:
# the rows (every column) and the udev verdicts must be those of the live
# devices.  One dump per topology: virtio-blk 512e with optimal I/O 1 MiB,
# scsi_debug with alignment offset 3584, scsi_debug reporting 0xffff sectors
# of optimal I/O (kept on 512/512, dropped by the kernel on 512e), NVMe 4Kn,
# a dm-multipath map with kpartx maps (left by 50-multipath), and a dm
# linear map with an LVM- UUID on a misaligned partition (the guest has no
# lvm or mdadm: LVM is what its logical volume is to the kernel, md is not
# covered).
#
# All of that runs only with "vm.capture=1" on the kernel command line
# (VM_APPEND, see tests/vm/capture-dumps.sh), which also sends each dump to
# the results port as "@@DUMP NAME <base64 of a tar>" lines, for tests/data.
# In the plain suite (check-vm), which must stay within its time limit, one
# dump of every device the earlier scenarios left is compared instead.

capture=0
grep -qw vm.capture=1 /proc/cmdline && capture=1
cols=$(partalign check --list-columns | awk 'NF { print $1 }' | tr '\n' ',' | sed 's/,$//')

# dump_case NAME DEVICE...: dump, compare, send
dump_case() {
	local name=$1 dir=/tmp/dump-$1 p
	shift
	rm -rf "$dir"
	if ! partalign dump "$dir" "$@" 2>/tmp/dump.err; then
		vm_fail "$name/dump" "partalign dump $*: $(tr '\n' ' ' </tmp/dump.err)"
		return 1
	fi
	partalign check --json -o "$cols" "$@" >/tmp/live.json 2>/tmp/live.err
	partalign check --json -o "$cols" --sysroot "$dir" "$@" >/tmp/sr.json 2>/tmp/sr.err
	if [ -s /tmp/sr.json ] && [ "$(jq -S . /tmp/live.json)" = "$(jq -S . /tmp/sr.json)" ]; then
		vm_pass "$name/rows" "$(jq '.devices | length' /tmp/sr.json) rows equal live and --sysroot"
	else
		vm_fail "$name/rows" "check --sysroot differs: $(tr '\n' ' ' </tmp/sr.err)"
		diff /tmp/live.json /tmp/sr.json | head -n 20
	fi
	[ $capture = 1 ] || return 0
	for p in $(jq -r '.devices[] | select(.type == "part") | .name' /tmp/live.json); do
		[ "$(partalign udev "$p" 2>&1)" = "$(partalign udev --sysroot "$dir" "$p" 2>&1)" ] ||
			vm_fail "$name/udev-$p" "partalign udev $p differs below the dump"
	done
	tar -C "$dir" -cf - . | gzip -9 | base64 | sed "s/^/@@DUMP $name /" >&3
}

if [ $capture = 0 ]; then
	dump_case all
	return 0 2>/dev/null || exit 0
fi

# a disk with the standard layout (laid out again only when it has none)
laid_out() {
	[ -n "$(vm_kernel_parts "$1")" ] || vm_layout "$1" "$2"
}

# virtio-blk 512e, optimal I/O 1 MiB
d=$(vm_disks_by_serial pa-vblk-1m)
if [ -n "$d" ] && laid_out "$d" virtio-512e; then
	dump_case virtio-512e-opt1m "/dev/$d"
else
	vm_fail virtio-512e-opt1m/setup "no virtio-blk disk pa-vblk-1m"
fi

# NVMe 4Kn
d=$(vm_disks_by_serial pa-nvme-4kn)
if [ -n "$d" ] && laid_out "$d" nvme-4kn; then
	dump_case nvme-4kn "/dev/$d"
else
	vm_fail nvme-4kn/setup "no NVMe disk pa-nvme-4kn"
fi

# scsi_debug: alignment offset 3584; 0xffff sectors optimal I/O on 512/512
# and on 512e (where the kernel drops it: not a multiple of 4096)
for spec in "scsi-offset3584:physblk_exp=3 lowest_aligned=7" \
	"scsi-opt-ffff:opt_blks=65535" \
	"scsi-512e-opt-ffff:physblk_exp=3 opt_blks=65535"; do
	name=${spec%%:*}
	vm_rmmod scsi_debug || vm_fatal "scsi_debug cannot be unloaded"
	# shellcheck disable=SC2086
	vm_modprobe scsi_debug ${spec#*:} dev_size_mb=32 || {
		vm_fail "$name/setup" "cannot load scsi_debug ${spec#*:}"
		continue
	}
	vm_settle
	d=$(vm_disks_by_model scsi_debug)
	if [ -n "$d" ] && vm_layout "$d" "$name"; then
		dump_case "$name" "/dev/$d"
	else
		vm_fail "$name/setup" "no scsi_debug disk with a layout"
	fi
done
vm_rmmod scsi_debug || vm_fail unload "scsi_debug cannot be unloaded"

# dm-multipath + kpartx (50-multipath made them)
map=$(vm_dm_by_name pa-mpath)
if [ -n "$map" ]; then
	dump_case mpath-kpartx "/dev/$map"
else
	vm_fail mpath-kpartx/setup "no multipath map pa-mpath: run with 50-multipath"
fi

# an LVM logical volume to the kernel: a dm linear map, UUID LVM-<vg><lv>,
# on the partition at sector 63 of the 512e disk with optimal I/O 8 MiB
d=$(vm_disks_by_serial pa-vblk-8m)
if [ -n "$d" ] && laid_out "$d" lvm; then
	p=$(vm_kernel_parts "$d" | sed -n 2p)
	sz=$(cat "/sys/block/$d/$p/size")
	uuid=LVM-pa0vg0000000000000000000000000000pa0lv0000000000000000000000000000
	if dmsetup create pa--vg-lv --uuid "$uuid" --table "0 $((sz - 8)) linear /dev/$p 8"; then
		vm_settle
		lv=$(vm_dm_by_name pa--vg-lv)
		dump_case lvm-on-p63 "/dev/$lv"
		dmsetup remove pa--vg-lv
	else
		vm_fail lvm-on-p63/setup "dmsetup create of the LVM volume failed"
	fi
else
	vm_fail lvm-on-p63/setup "no virtio-blk disk pa-vblk-8m"
fi
