# Power-cut test, boot 2 (see 10-cut.sh): the same disks after the power cut,
# as a reboot finds them.  Every cut point comes after the move marker is on
# the disk, so the table the kernel read at boot hides both moving
# partitions: the kernel has no partition over them, udev no by-uuid link,
# and mounting their file systems by UUID, as an fstab line does, finds
# nothing (util-linux mount, blkid -U, blkid -p of every block device).  The
# journal must have survived on its ext4 disk, check must report the
# unfinished move from udev's database (the marked disk GUID) and on its
# rows, `partalign resume` must finish it, and then every partition must be
# on the 2 MiB grain, with the content the host wrote before boot 1
# (sha256 given as vm.sumN=HEX on the kernel command line), mount by its
# UUID (vm.uuidN=) again, and no journal may be left.  The host checks the
# image again after power-off.

label=powercut
data=$(vm_disks_by_serial pa-pcut-data)
jdisk=$(vm_disks_by_serial pa-pcut-jrnl)
[ -n "$data" ] || vm_fatal "no disk with serial pa-pcut-data"
[ -n "$jdisk" ] || vm_fatal "no disk with serial pa-pcut-jrnl"
dev=/dev/$data
vm_modprobe ext4 || vm_fatal "cannot load ext4"
mkdir -p /mnt/j
mount -t ext4 "/dev/$jdisk" /mnt/j || vm_fatal "cannot mount the journal disk /dev/$jdisk"

# the partitions' numbers, sums and UUIDs from the kernel command line
nums='' n=0
for arg in $(cat /proc/cmdline); do
	case $arg in
	vm.sum*=*)
		num=${arg#vm.sum}
		num=${num%%=*}
		nums="$nums $num"
		eval "sum_$num=\${arg#*=}"
		n=$((n + 1))
		;;
	vm.uuid*=*)
		num=${arg#vm.uuid}
		num=${num%%=*}
		eval "uuid_$num=\${arg#*=}"
		;;
	esac
done
[ $n -gt 0 ] || vm_fatal "no vm.sumN= on the kernel command line"

ls -l /mnt/j/journal
if [ -n "$(ls /mnt/j/journal/*.journal 2>/dev/null)" ]; then
	vm_pass "$label/journal-survived" "$(cd /mnt/j/journal && ls ./*.journal)"
else
	vm_fail "$label/journal-survived" "no journal on the journal disk after the power cut"
fi
for mid in /mnt/j/journal/*.journal; do break; done
mid=${mid%.journal}
mid=${mid##*-}

echo "=== table after the power cut (sfdisk reads the disk)"
sfdisk -d "$dev"
# the disk's own table: the marked disk GUID, the moving entries hidden
guid=$(sfdisk --json "$dev" | jq -r .partitiontable.id | tr -d - | tr 'A-F' 'a-f')
if [ "$guid" = "db991ed2f649406f$mid" ]; then
	vm_pass "$label/marker-on-disk" "the disk GUID is move $mid's"
else
	vm_fail "$label/marker-on-disk" "the disk GUID is $guid, not move $mid's"
fi

echo "=== what the boot made of it"
ls "/sys/block/$data/"
ls -l /dev/disk/by-uuid/ 2>/dev/null
cat >/etc/fstab <<EOF
# as an admin's fstab names the file systems
EOF
for num in $nums; do
	eval "uuid=\$uuid_$num"
	echo "UUID=$uuid /mnt/p$num ext4 defaults 0 2" >>/etc/fstab
	mkdir -p "/mnt/p$num"
	if [ -e "/sys/block/$data/$data$num" ]; then
		vm_fail "$label/p$num-hidden" "the kernel has partition $num after the reboot"
	else
		vm_pass "$label/p$num-hidden" "the kernel has no partition $num after the reboot"
	fi
	if [ -e "/dev/disk/by-uuid/$uuid" ]; then
		vm_fail "$label/p$num-no-link" "udev made /dev/disk/by-uuid/$uuid -> $(readlink "/dev/disk/by-uuid/$uuid")"
	else
		vm_pass "$label/p$num-no-link" "no /dev/disk/by-uuid/$uuid"
	fi
	if found=$(blkid -U "$uuid"); then
		vm_fail "$label/p$num-blkid-U" "blkid -U $uuid finds $found"
	else
		vm_pass "$label/p$num-blkid-U" "blkid -U $uuid finds nothing"
	fi
	# every block device of the guest, probed (not udev's cache)
	hit=''
	for b in /sys/class/block/*; do
		b=/dev/${b##*/}
		[ -b "$b" ] || continue
		if [ "$(blkid -p -s UUID -o value "$b" 2>/dev/null)" = "$uuid" ]; then
			hit="$hit $b"
		fi
	done
	if [ -z "$hit" ]; then
		vm_pass "$label/p$num-probe" "no block device holds a file system with UUID $uuid"
	else
		vm_fail "$label/p$num-probe" "blkid -p finds UUID $uuid on$hit"
	fi
	# the mount an fstab line makes, as the boot would try it
	if mount.util-linux "/mnt/p$num" >/tmp/mount.out 2>&1; then
		vm_fail "$label/p$num-mount" "fstab's UUID=$uuid mounted: $(grep " /mnt/p$num " /proc/mounts)"
		umount "/mnt/p$num"
	else
		vm_pass "$label/p$num-mount" "fstab's UUID=$uuid is not mounted: $(tr '\n' ' ' </tmp/mount.out)"
	fi
done

# the default journal directory (in the initramfs) did not survive: check
# finds the journal through PARTALIGN_JOURNAL; udev's database says the move
# on its own (the marked disk GUID)
echo "=== udev's entry of the disk (plain check reads it)"
udevadm info --query=property --name="$data" | grep '^ID_PART_TABLE_'
partalign check "$dev" >/tmp/check0.out 2>&1
rc=$?
cat /tmp/check0.out
if [ $((rc & 4)) = 4 ] && grep -q "unfinished data move $mid is recorded on the disk" /tmp/check0.out; then
	vm_pass "$label/check-move-id" "check exits $rc and names move $mid, from udev's database alone"
else
	vm_fail "$label/check-move-id" "check exits $rc, does not name move $mid: $(tr '\n' ' ' </tmp/check0.out)"
fi
PARTALIGN_JOURNAL=/mnt/j/journal partalign check --json "$dev" >/tmp/check1.out 2>/tmp/check1.err
rc=$?
cat /tmp/check1.out /tmp/check1.err
rows=$(jq -r '.devices[] | "\(.name) \(.move) \(.start)"' /tmp/check1.out | tr '\n' ',')
want="$data unfinished 0,"
for num in $nums; do
	start=$(sfdisk --json "$dev" | jq -r --arg n "$num" '.partitiontable.partitions[] |
		select(.node | test("[^0-9]" + $n + "$")) | .start')
	want="$want$data$num unfinished $((start * 512)),"
done
if [ $((rc & 4)) = 4 ] && [ "$rows" = "$want" ]; then
	vm_pass "$label/check-rows" "check --json: the disk and its moving partitions, at their old starts, say unfinished"
else
	vm_fail "$label/check-rows" "check --json exits $rc, rows '$rows', expected '$want'"
fi

PARTALIGN_MOVE_CHUNK=4096 partalign resume --quiet --verify --journal /mnt/j/journal \
	--backup-dir /mnt/j/backup "$dev" >/tmp/resume.out 2>&1
rc=$?
cat /tmp/resume.out
if [ $rc = 1 ]; then
	vm_pass "$label/resume-exit" "resume exits 1 (moved)"
else
	vm_fail "$label/resume-exit" "resume exits $rc, expected 1: $(tr '\n' ' ' </tmp/resume.out)"
fi
vm_settle
echo "=== table after resume"
sfdisk -d "$dev"
if [ -z "$(ls /mnt/j/journal/*.journal 2>/dev/null)" ]; then
	vm_pass "$label/journal-gone" "no journal left after resume"
else
	vm_fail "$label/journal-gone" "journal still there: $(ls /mnt/j/journal)"
fi

for num in $nums; do
	eval "want=\$sum_$num uuid=\$uuid_$num"
	start=$(cat "/sys/block/$data/${data}$num/start" 2>/dev/null)
	# the move's target: the 2 MiB grain (4096 sectors), not only 4 KiB
	if [ -n "$start" ] && [ $((start % 4096)) = 0 ]; then
		vm_pass "$label/p$num-aligned" "the kernel's partition $num starts at $start"
	else
		vm_fail "$label/p$num-aligned" "the kernel's partition $num starts at '${start}'"
	fi
	got=$(sha256sum <"$dev$num" | cut -d' ' -f1)
	if [ "$got" = "$want" ]; then
		vm_pass "$label/p$num-content" "sha256 identical after the power cut and resume"
	else
		vm_fail "$label/p$num-content" "sha256 $got, expected $want"
	fi
	if mount.util-linux -o ro "/mnt/p$num" >/tmp/mount.out 2>&1; then
		vm_pass "$label/p$num-mount-after" "fstab's UUID=$uuid mounts after resume ($(ls "/mnt/p$num" | tr '\n' ' '))"
		umount "/mnt/p$num"
	else
		vm_fail "$label/p$num-mount-after" "fstab's UUID=$uuid does not mount after resume: $(tr '\n' ' ' </tmp/mount.out)"
	fi
done

partalign check "$dev" >/tmp/check2.out 2>&1
rc=$?
cat /tmp/check2.out
if [ $rc = 0 ]; then
	vm_pass "$label/check-aligned" "check exits 0 after resume"
else
	vm_fail "$label/check-aligned" "check exits $rc after resume: $(tr '\n' ' ' </tmp/check2.out)"
fi
umount /mnt/j
