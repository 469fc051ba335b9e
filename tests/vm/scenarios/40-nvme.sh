# check --json on an NVMe namespace with 4096-byte logical blocks (4Kn), with
# a controller serial and namespace IDs (disks.conf serial pa-nvme-4kn): the
# layout's starts are in 4 KiB sectors here, and the identities reach the
# rows: the serial, and as WWN the namespace's wwid as the kernel builds it
# (the 6.1 kernel ignores the namespace uuid and eui64 of QEMU's controller,
# NVME_QUIRK_BOGUS_NID, and builds the wwid from vendor, serial, model, nsid).

label=nvme-4kn
disk=$(vm_disks_by_serial pa-nvme-4kn)
[ -n "$disk" ] || vm_fatal "no disk with serial pa-nvme-4kn"
wwid=$(sed 's/[[:space:]]*$//' "/sys/block/$disk/wwid")
[ "$(cat "/sys/block/$disk/nsid")" = 1 ] || vm_fail "$label/nsid" "namespace id $(cat "/sys/block/$disk/nsid"), expected 1"
if vm_topology "$disk" "$label" "4096 4096 - - 0" && vm_layout "$disk" "$label"; then
	vm_check "$disk" "$label" "$(vm_parts "$disk")"
	bad=
	for p in $(vm_kernel_parts "$disk"); do
		[ "$(vm_json "$p" serial)" = pa-nvme-4kn ] || bad="$bad $p:serial=$(vm_json "$p" serial)"
		[ "$(vm_json "$p" wwn)" = "$wwid" ] || bad="$bad $p:wwn=$(vm_json "$p" wwn)"
	done
	if [ -z "$bad" ]; then
		vm_pass "$label/ids" "serial pa-nvme-4kn and wwid $wwid on every row"
	else
		vm_fail "$label/ids" "wrong identities:$bad"
	fi
fi
