# partalign fix on a 512e SCSI disk whose first aligned sector is 7
# (scsi_debug physblk_exp=3 lowest_aligned=7: alignment offset 3584 bytes).
# The placement grain is measured from the alignment offset, so the fixed
# partitions start 3584 bytes past a 2 MiB boundary, where the kernel's own
# per-partition alignment offset is 0 and every verdict is ok.  The layout
# has one partition that is only policy-misaligned (63: physically aligned
# on this disk), one physically misaligned (2048) and one both (20480).

label=fix-off3584
vm_rmmod scsi_debug || vm_fatal "scsi_debug is loaded and cannot be unloaded"
vm_modprobe scsi_debug physblk_exp=3 lowest_aligned=7 dev_size_mb=32 ||
	vm_fatal "cannot load scsi_debug physblk_exp=3 lowest_aligned=7"
vm_settle
disk=$(vm_disks_by_model scsi_debug)
[ -n "$disk" ] || vm_fatal "scsi_debug made no disk"
ao=3584

run() {
	vm_topology "$disk" "$label" "512 4096 - - $ao" || return 1
	vm_sfdisk "$disk" "$label" 'label: gpt
first-lba: 34
start=63, size=1985, name=p63
start=2048, size=8192, name=p2048
start=20480, size=4096, name=p20480' "63 2048 20480" || return 1
	before=$(vm_table "/dev/$disk")

	partalign fix --yes --backup-dir "/tmp/backup-$label" "/dev/$disk" >/tmp/fix.out 2>&1
	rc=$?
	cat /tmp/fix.out
	if [ $rc = 1 ]; then
		vm_pass "$label/fix-exit" "fix exits 1 (fixed)"
	else
		vm_fail "$label/fix-exit" "fix exits $rc, expected 1: $(tr '\n' ' ' </tmp/fix.out)"
	fi
	vm_settle

	got=$(vm_parts "$disk")
	bad=
	while read -r p start kal; do
		[ $(((start - ao) % VM_GRAIN)) = 0 ] && [ "$kal" = 0 ] || bad="$bad $p@$start:$kal"
	done <<EOF
$got
EOF
	if [ "$(echo "$got" | grep -c .)" = 3 ] && [ -z "$bad" ]; then
		vm_pass "$label/kernel" "the kernel's partitions start 3584 B past a 2 MiB boundary," \
			"alignment_offset 0: $(echo "$got" | cut -d' ' -f1,2 | tr '\n' ' ')"
	else
		vm_fail "$label/kernel" "the kernel has [$(echo "$got" | tr '\n' ';')], off-grain or offset:${bad:- wrong count}"
	fi

	vm_check "$disk" "$label-after" "$got"
	bad=$(vm_json_not_ok)
	if [ -z "$bad" ] && [ "$VM_RC" = 0 ]; then
		vm_pass "$label/verdicts" "every verdict ok after fix, check exits 0"
	else
		vm_fail "$label/verdicts" "after fix: ${bad:-check exits $VM_RC}"
	fi

	after=$(vm_table "/dev/$disk")
	if [ "$(echo "$before" | cut -d' ' -f1,3-)" = "$(echo "$after" | cut -d' ' -f1,3-)" ]; then
		vm_pass "$label/ids-kept" "number, size, PARTUUID and name of each partition kept"
	else
		vm_fail "$label/ids-kept" "before [$(echo "$before" | tr '\n' ';')] after [$(echo "$after" | tr '\n' ';')]"
	fi

	partalign fix --yes --backup-dir "/tmp/backup-$label" "/dev/$disk" >/tmp/fix.out 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		vm_pass "$label/fix-again" "a second fix exits 0"
	else
		vm_fail "$label/fix-again" "a second fix exits $rc, expected 0: $(tr '\n' ' ' </tmp/fix.out)"
	fi
}
run
vm_rmmod scsi_debug || vm_fail unload "scsi_debug cannot be unloaded"
