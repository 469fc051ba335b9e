# partalign plan and fix on the failure partalign exists for: a 512e disk
# (virtio-blk, 512-byte logical and 4 KiB physical sectors, minimum I/O
# 4096, optimal I/O 1 MiB; disks.conf serial pa-vblk-fix) with a GPT
# partition at sector 63 and a second one at 20487, both named, with known
# PARTUUIDs.  plan writes nothing and exits 4; fix exits 1 and leaves every
# verdict ok, the kernel's own partition starts (it parses the table itself;
# partalign tells it with BLKPG) on the 2 MiB grain with alignment offset 0,
# names, PARTUUIDs, sizes and the disk GUID kept; a second fix has nothing
# to do and writes nothing.

label=fix512e
disk=$(vm_disks_by_serial pa-vblk-fix)
[ -n "$disk" ] || vm_fatal "no disk with serial pa-vblk-fix"
vm_topology "$disk" "$label" "512 4096 4096 1048576 0" || vm_fatal "not the 512e disk the scenario needs"
dev=/dev/$disk
bk=/tmp/backup-$label

vm_sfdisk "$disk" "$label" 'label: gpt
label-id: 5A1E0000-0000-4000-8000-000000512E00
first-lba: 34
start=63, size=8192, name=asm-data, uuid=5A1E0063-0000-4000-8000-000000000001
start=20487, size=8192, name="asm fra 2", uuid=5A1E0063-0000-4000-8000-000000000002' \
	"63 20487" || vm_fatal "cannot write the misaligned table"
before=$(vm_table "$dev")
[ "$(echo "$before" | wc -l)" = 2 ] || vm_fatal "sfdisk -d shows: $before"

# ---- plan: exit 4, not one byte written
sum0=$(md5sum <"$dev")
partalign plan "$dev" >/tmp/plan.out 2>&1
rc=$?
cat /tmp/plan.out
if [ $rc = 4 ]; then
	vm_pass "$label/plan-exit" "plan exits 4 (misalignment to fix)"
else
	vm_fail "$label/plan-exit" "plan exits $rc, expected 4"
fi
if [ "$(md5sum <"$dev")" = "$sum0" ]; then
	vm_pass "$label/plan-writes-nothing" "the disk's checksum is unchanged after plan"
else
	vm_fail "$label/plan-writes-nothing" "plan changed the disk"
fi

# ---- fix
partalign fix --yes --backup-dir "$bk" "$dev" >/tmp/fix.out 2>&1
rc=$?
cat /tmp/fix.out
if [ $rc = 1 ]; then
	vm_pass "$label/fix-exit" "fix exits 1 (fixed)"
else
	vm_fail "$label/fix-exit" "fix exits $rc, expected 1: $(tr '\n' ' ' </tmp/fix.out)"
fi
if [ -n "$(find "$bk" -type f -size +0 2>/dev/null)" ]; then
	vm_pass "$label/backup" "table saved: $(ls "$bk")"
else
	vm_fail "$label/backup" "no table backup in $bk"
fi
vm_settle

# the kernel's partitions: on the grain, alignment offset 0
got=$(vm_parts "$disk")
bad=
while read -r p start kal; do
	[ $((start % VM_GRAIN)) = 0 ] && [ "$kal" = 0 ] || bad="$bad $p@$start:$kal"
done <<EOF
$got
EOF
if [ "$(echo "$got" | grep -c .)" = 2 ] && [ -z "$bad" ]; then
	vm_pass "$label/kernel" "the kernel's partitions start on the 2 MiB grain, alignment_offset 0:" \
		"$(echo "$got" | cut -d' ' -f1,2 | tr '\n' ' ')"
else
	vm_fail "$label/kernel" "the kernel has [$(echo "$got" | tr '\n' ';')], off-grain or offset:${bad:- wrong count}"
fi

# every verdict ok, and equal to the independent expectation
vm_check "$disk" "$label-after" "$got"
bad=$(vm_json_not_ok)
if [ -z "$bad" ] && [ "$VM_RC" = 0 ]; then
	vm_pass "$label/verdicts" "every verdict ok after fix, check exits 0"
else
	vm_fail "$label/verdicts" "after fix: ${bad:-check exits $VM_RC}"
fi

# names, PARTUUIDs and sizes kept, in the table and in udev's database
after=$(vm_table "$dev")
if [ "$(echo "$before" | cut -d' ' -f1,3-)" = "$(echo "$after" | cut -d' ' -f1,3-)" ]; then
	vm_pass "$label/ids-kept" "number, size, PARTUUID and name of each partition kept"
else
	vm_fail "$label/ids-kept" "before [$(echo "$before" | tr '\n' ';')] after [$(echo "$after" | tr '\n' ';')]"
fi
if [ "$(vm_label_id "$dev")" = 5A1E0000-0000-4000-8000-000000512E00 ]; then
	vm_pass "$label/disk-guid" "the disk GUID is kept"
else
	vm_fail "$label/disk-guid" "disk GUID $(vm_label_id "$dev"), was 5A1E0000-0000-4000-8000-000000512E00"
fi
udev=$(for p in $(vm_kernel_parts "$disk"); do
	echo "$(cat "/sys/block/$disk/$p/partition") $(vm_udev_prop "$p" ID_PART_ENTRY_UUID | tr a-z A-Z)" \
		"$(vm_udev_prop "$p" ID_PART_ENTRY_NAME | sed 's/\\x20/ /g')"
done)
if [ "$udev" = "$(echo "$before" | cut -d' ' -f1,4-)" ]; then
	vm_pass "$label/udev-ids" "udev sees the kept PARTUUIDs and names"
else
	vm_fail "$label/udev-ids" "udev has [$(echo "$udev" | tr '\n' ';')]"
fi

# ---- a second fix: nothing to do, nothing written
sum1=$(md5sum <"$dev")
partalign fix --yes --backup-dir "$bk" "$dev" >/tmp/fix.out 2>&1
rc=$?
cat /tmp/fix.out
if [ $rc = 0 ] && [ "$(md5sum <"$dev")" = "$sum1" ]; then
	vm_pass "$label/fix-again" "a second fix exits 0 and writes nothing"
else
	vm_fail "$label/fix-again" "a second fix exits $rc (expected 0)$([ "$(md5sum <"$dev")" = "$sum1" ] || echo ' and changed the disk')"
fi
