# check --json on a SCSI disk reporting 0xffff sectors (33553920 bytes) as its
# optimal I/O size, as some USB bridges and RAID controllers do: the size must
# be ignored (optimal n/a) and the reason must say so.  512/512: the kernel
# itself drops an optimal size that is no multiple of the physical sector, so
# on a 512e disk the value would never reach sysfs.

vm_rmmod scsi_debug || vm_fatal "scsi_debug is loaded and cannot be unloaded"
vm_modprobe scsi_debug opt_blks=65535 dev_size_mb=32 ||
	vm_fatal "cannot load scsi_debug opt_blks=65535"
vm_settle
disk=$(vm_disks_by_model scsi_debug)
[ -n "$disk" ] || vm_fatal "scsi_debug made no disk"

label=sdebug-opt65535
if vm_topology "$disk" "$label" "512 512 - 33553920 0" && vm_layout "$disk" "$label"; then
	vm_check "$disk" "$label" "$(vm_parts "$disk")"
	missing=
	for p in $(vm_kernel_parts "$disk"); do
		vm_json "$p" reason | grep 33553920 >/dev/null || missing="$missing $p"
	done
	if [ -z "$missing" ]; then
		vm_pass "$label/reason" "every row names the ignored 33553920"
	else
		vm_fail "$label/reason" "no mention of the ignored 33553920 in the reason of$missing"
	fi
fi
vm_rmmod scsi_debug || vm_fail unload "scsi_debug cannot be unloaded"
