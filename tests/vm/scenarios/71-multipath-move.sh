# partalign fix --move-data on a multipath map (pa-mpath, made by
# 50-multipath, fixed by 70-multipath-fix), whose partitions are kpartx
# device-mapper maps the kernel cannot delete with BLKPG:
#  - a process holding the partition map of the moving partition open
#    (without O_EXCL, as ASM): refused, exit 4, naming its pid; table and
#    data unchanged;
#  - nobody holding it: the moving partition's map is removed for the move
#    (dmsetup remove, so nobody can open it meanwhile) and made again at the
#    new start by kpartx -u (exit 1), or said to be run (exit 3, no kpartx in
#    the guest); the data read through the new partition map is the data
#    written before, byte for byte (md5), and the table is on the grain.

label=mpath-move
map=$(vm_dm_by_name pa-mpath)
[ -n "$map" ] || vm_fatal "no multipath map pa-mpath: run with 50-multipath"
wwid=$(cat "/sys/block/$map/dm/uuid")
wwid=${wwid#mpath-}
mnt=/mnt/$label
vm_journal_fs "$mnt"
bk=$mnt/backup
j=$mnt/journal
has_kpartx=0
command -v kpartx >/dev/null && has_kpartx=1

# the table 50-multipath and 70-multipath-fix left, written back at the end
# for the scenarios after this one (80-rules names the map's partition 4)
sfdisk -d "/dev/$map" >/tmp/mpath-before.dump 2>/dev/null ||
	vm_fatal "sfdisk -d /dev/$map: cannot save the map's table"

# one misaligned partition with data, one aligned after it
if ! printf 'label: gpt\nfirst-lba: 34\nstart=63, size=8192, name=data\nstart=20480, size=4096, name=kept\n' |
	sfdisk -q --wipe always --no-reread --no-tell-kernel "/dev/$map" >/tmp/sfdisk.out 2>&1; then
	vm_fatal "sfdisk on $map: $(tr '\n' ' ' </tmp/sfdisk.out)"
fi
vm_kpartx "$map" "$wwid" || vm_fatal "cannot make the partition maps of $map"
p1=$(vm_dm_by_uuid "part1-mpath-$wwid")
[ -n "$p1" ] || vm_fatal "no partition map 1 of $map"
dd if=/dev/urandom of=/tmp/data bs=512 count=8192 2>/dev/null
dd if=/tmp/data of="/dev/$p1" bs=512 conv=fsync 2>/dev/null || vm_fatal "cannot write $p1"
want=$(md5sum </tmp/data)
before=$(vm_table "/dev/$map")

# ---- held: refused, nothing written
sleep 600 <"/dev/$p1" &
holder=$!
sleep 0.3
partalign fix --yes --move-data --quiet --journal "$j" --backup-dir "$bk" \
	/dev/mapper/pa-mpath >/tmp/fix.out 2>&1
rc=$?
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
cat /tmp/fix.out
if [ $rc = 4 ] && grep -q "is open by process $holder (sleep)" /tmp/fix.out &&
	[ "$(vm_table "/dev/$map")" = "$before" ] && [ "$(md5sum <"/dev/$p1")" = "$want" ]; then
	vm_pass "$label/held" "--move-data with partition map $p1 held: exit 4, $(grep -o "[^ ]* is open by process [0-9]* (sleep)" /tmp/fix.out | head -n 1), table and data unchanged"
else
	vm_fail "$label/held" "--move-data with $p1 held by $holder: exit $rc (expected 4 naming it): $(tr '\n' ' ' </tmp/fix.out)"
fi

# ---- nobody holding it: moved, the partition map made again at the new start
partalign fix --yes --move-data --quiet --journal "$j" --backup-dir "$bk" \
	/dev/mapper/pa-mpath >/tmp/fix.out 2>&1
rc=$?
cat /tmp/fix.out
if [ $has_kpartx = 0 ]; then
	[ $rc = 3 ] && vm_kpartx "$map" "$wwid" && rc=1
fi
after=$(vm_table "/dev/$map")
start=$(echo "$after" | awk '$1 == 1 { print $2 }')
p1=$(vm_dm_by_uuid "part1-mpath-$wwid")
if [ $rc = 1 ] && [ -n "$start" ] && [ $((start * 512 % VM_GRAIN)) = 0 ] && [ -n "$p1" ] &&
	[ "$(dmsetup table "$(cat "/sys/block/$p1/dm/name")" | cut -d' ' -f5)" = "$start" ] &&
	[ "$(md5sum <"/dev/$p1")" = "$want" ]; then
	vm_pass "$label/moved" "--move-data on the map: exit 1, partition 1 at sector $start, its map there, the data the same (md5)"
else
	vm_fail "$label/moved" "--move-data on the map: exit $rc, partition 1 at ${start:-?}, map ${p1:-none}: $(tr '\n' ' ' </tmp/fix.out)"
fi
umount "$mnt" || vm_fail "$label/unmount" "cannot unmount $mnt"

if sfdisk -q --wipe always --no-reread --no-tell-kernel "/dev/$map" </tmp/mpath-before.dump \
	>/tmp/sfdisk.out 2>&1 && vm_kpartx "$map" "$wwid"; then
	vm_pass "$label/restored" "the table of 50 and 70 written back, its partition maps made"
else
	vm_fail "$label/restored" "cannot write back the table of $map: $(tr '\n' ' ' </tmp/sfdisk.out)"
fi
