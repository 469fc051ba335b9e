# partalign fix on a disk one of whose partitions is held by another block
# device: an LVM logical volume as the kernel sees one (a device-mapper
# linear map over the partition with an LVM- DM UUID, what lvcreate makes;
# the host has no device-mapper, so this refusal can only be tested here).
# fix must refuse (exit 4) with a message naming the partition and its
# holder, write nothing (checksum of the whole disk) and save no backup.
# Once the map is gone, fix goes through (exit 1).  Disk: pa-vblk-fix, after
# 60-fix-512e.

label=fixheld
disk=$(vm_disks_by_serial pa-vblk-fix)
[ -n "$disk" ] || vm_fatal "no disk with serial pa-vblk-fix"
dev=/dev/$disk
bk=/tmp/backup-$label
lv=pa-held-vg-lv
lvuuid=LVM-5a1e0000held0000vg000000000062Lv00held0000lv0000000000000062

vm_sfdisk "$disk" "$label" 'label: gpt
first-lba: 34
start=63, size=8192, name=pv
start=20487, size=8192, name=other' "63 20487" || vm_fatal "cannot write the misaligned table"
p1=$(vm_kernel_parts "$disk" | head -n 1)
[ -n "$p1" ] || vm_fatal "no kernel partition on $disk"

dmsetup create "$lv" --uuid "$lvuuid" \
	--table "0 8192 linear $(cat "/sys/block/$disk/$p1/dev") 0" ||
	vm_fatal "dmsetup cannot make the LVM-like map over $p1"
vm_settle
holder=$(ls "/sys/block/$disk/$p1/holders")
[ -n "$holder" ] || vm_fatal "$p1 has no holder after dmsetup create"
echo "$p1 is held by $holder ($(cat "/sys/block/$holder/dm/uuid"))"

sum0=$(md5sum <"$dev")
partalign fix --yes --backup-dir "$bk" "$dev" >/tmp/fix.out 2>&1
rc=$?
cat /tmp/fix.out
if [ $rc = 4 ] && grep -q "refused: $p1 is held by $holder" /tmp/fix.out; then
	vm_pass "$label/refused" "fix exits 4: $(grep refused /tmp/fix.out | head -n 1)"
else
	vm_fail "$label/refused" "fix exits $rc, expected 4 and '$p1 is held by $holder': $(tr '\n' ' ' </tmp/fix.out)"
fi
if [ "$(md5sum <"$dev")" = "$sum0" ] && [ -z "$(find "$bk" -type f 2>/dev/null)" ]; then
	vm_pass "$label/unchanged" "$disk unchanged (checksum), no backup saved"
else
	vm_fail "$label/unchanged" "the refused fix changed $disk or saved a backup: $(ls "$bk" 2>/dev/null)"
fi

dmsetup remove "$lv" || vm_fatal "cannot remove $lv"
vm_settle
partalign fix --yes --backup-dir "$bk" "$dev" >/tmp/fix.out 2>&1
rc=$?
cat /tmp/fix.out
if [ $rc = 1 ]; then
	vm_pass "$label/fix-after" "with the holder gone, fix exits 1"
else
	vm_fail "$label/fix-after" "with the holder gone, fix exits $rc, expected 1: $(tr '\n' ' ' </tmp/fix.out)"
fi
vm_settle
