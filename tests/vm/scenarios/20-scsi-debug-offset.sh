# check --json on a 512e SCSI disk whose first aligned sector is 7
# (scsi_debug physblk_exp=3 lowest_aligned=7: alignment offset 3584 bytes,
# util-linux's align-512-4K-63 topology).  Here 7, 63 and 20487 are
# physically aligned and 2048 and 4096 are not.

vm_rmmod scsi_debug || vm_fatal "scsi_debug is loaded and cannot be unloaded"
vm_modprobe scsi_debug physblk_exp=3 lowest_aligned=7 dev_size_mb=32 ||
	vm_fatal "cannot load scsi_debug physblk_exp=3 lowest_aligned=7"
vm_settle
disk=$(vm_disks_by_model scsi_debug)
[ -n "$disk" ] || vm_fatal "scsi_debug made no disk"

label=sdebug-off3584
if vm_topology "$disk" "$label" "512 4096 - - 3584" && vm_layout "$disk" "$label"; then
	vm_check "$disk" "$label" "$(vm_parts "$disk")"
fi
vm_rmmod scsi_debug || vm_fail unload "scsi_debug cannot be unloaded"
