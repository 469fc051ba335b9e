# check --json on a virtio-scsi scsi-hd disk, 512/4096, with a serial and a
# WWN (disks.conf serial pa-scsihd, wwn 0x5000c500a1b2c301): verdicts as
# everywhere, and the identities udev's scsi_id found reach the rows.

label=scsihd
disk=$(vm_disks_by_serial pa-scsihd)
[ -n "$disk" ] || vm_fatal "no disk with serial pa-scsihd"
if vm_topology "$disk" "$label" "512 4096 - - 0" && vm_layout "$disk" "$label"; then
	vm_check "$disk" "$label" "$(vm_parts "$disk")"
	bad=
	for p in $(vm_kernel_parts "$disk"); do
		[ "$(vm_json "$p" serial)" = pa-scsihd ] || bad="$bad $p:serial=$(vm_json "$p" serial)"
		vm_json "$p" wwn | grep -i 5000c500a1b2c301 >/dev/null || bad="$bad $p:wwn=$(vm_json "$p" wwn)"
	done
	if [ -z "$bad" ]; then
		vm_pass "$label/ids" "serial pa-scsihd and WWN 0x5000c500a1b2c301 on every row"
	else
		vm_fail "$label/ids" "wrong identities:$bad"
	fi
fi
