# check --json on virtio-blk disks, 512-byte logical and 4 KiB physical
# sectors, minimum I/O 4096, optimal I/O 1, 2 and 8 MiB (disks.conf serials
# pa-vblk-1m, pa-vblk-2m, pa-vblk-8m): the standard layout on each, every
# verdict and alignment offset compared with the independent expectation.

for spec in 1m:1048576 2m:2097152 8m:8388608; do
	label=vblk-${spec%%:*}
	disk=$(vm_disks_by_serial "pa-$label")
	if [ -z "$disk" ]; then
		vm_fail "$label/find" "no disk with serial pa-$label"
		continue
	fi
	vm_topology "$disk" "$label" "512 4096 4096 ${spec#*:} 0" || continue
	vm_layout "$disk" "$label" || continue
	vm_check "$disk" "$label" "$(vm_parts "$disk")"
done
