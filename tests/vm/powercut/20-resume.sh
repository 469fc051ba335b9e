# Power-cut test, boot 2 (see 10-cut.sh): the same disks after the power cut.
# The journal must have survived on its ext4 disk, check must report the
# unfinished move (exit bit 4), `partalign resume` must finish it, and then
# every partition must be aligned, with the content the host wrote before
# boot 1 (sha256 given as vm.sumN=HEX on the kernel command line) and no
# journal left.  The host checks the image again after power-off.

label=powercut
data=$(vm_disks_by_serial pa-pcut-data)
jdisk=$(vm_disks_by_serial pa-pcut-jrnl)
[ -n "$data" ] || vm_fatal "no disk with serial pa-pcut-data"
[ -n "$jdisk" ] || vm_fatal "no disk with serial pa-pcut-jrnl"
dev=/dev/$data
vm_modprobe ext4 || vm_fatal "cannot load ext4"
mkdir -p /mnt/j
mount -t ext4 "/dev/$jdisk" /mnt/j || vm_fatal "cannot mount the journal disk /dev/$jdisk"

ls -l /mnt/j/journal
if [ -n "$(ls /mnt/j/journal/*.journal 2>/dev/null)" ]; then
	vm_pass "$label/journal-survived" "$(cd /mnt/j/journal && ls ./*.journal)"
else
	vm_fail "$label/journal-survived" "no journal on the journal disk after the power cut"
fi

echo "=== table after the power cut"
sfdisk -d "$dev"
echo "=== udev's entries of its partitions (plain check reads these)"
for p in "/sys/block/$data/$data"*; do
	[ -e "$p/partition" ] || continue
	echo "${p##*/}: $(udevadm info --query=property --name="${p##*/}" | grep '^ID_PART_ENTRY_\(TYPE\|NAME\)=' | tr '\n' ' ')"
done
# the default journal directory (in the initramfs) did not survive: check
# finds the journal through PARTALIGN_JOURNAL
PARTALIGN_JOURNAL=/mnt/j/journal partalign check "$dev" >/tmp/check1.out 2>&1
rc=$?
cat /tmp/check1.out
if [ $((rc & 4)) = 4 ] && grep -q 'unfinished data move' /tmp/check1.out; then
	vm_pass "$label/check-unfinished" "check exits $rc and warns about the unfinished move"
else
	vm_fail "$label/check-unfinished" "check exits $rc: $(tr '\n' ' ' </tmp/check1.out)"
fi
# udev's entry of partition 1 shows the marker (unless the cut came before
# it was written): check reports the move by its id, from udev's encoded name
for mid in /mnt/j/journal/*.journal; do break; done
mid=${mid%.journal}
mid=${mid##*-}
if udevadm info --query=property --name="${data}1" |
	grep -qi '^ID_PART_ENTRY_TYPE=DB991ED2-F649-406F-B0F6-8BE79B36CD64$'; then
	if grep -q "unfinished data move $mid is recorded on the disk (partition 1)" /tmp/check1.out; then
		vm_pass "$label/check-move-id" "check names move $mid, from udev's database"
	else
		vm_fail "$label/check-move-id" "udev shows the marker, check does not name move $mid (partition 1): $(tr '\n' ' ' </tmp/check1.out)"
	fi
else
	echo "udev's entry of ${data}1 shows no marker: the cut came before it"
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

n=0
for arg in $(cat /proc/cmdline); do
	case $arg in vm.sum*=*) ;; *) continue ;; esac
	num=${arg#vm.sum}
	num=${num%%=*}
	want=${arg#*=}
	n=$((n + 1))
	start=$(cat "/sys/block/$data/${data}$num/start" 2>/dev/null)
	if [ -n "$start" ] && [ $((start % 8)) = 0 ]; then
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
done
[ $n -gt 0 ] || vm_fail "$label/sums" "no vm.sumN= on the kernel command line"

partalign check "$dev" >/tmp/check2.out 2>&1
rc=$?
cat /tmp/check2.out
if [ $rc = 0 ]; then
	vm_pass "$label/check-aligned" "check exits 0 after resume"
else
	vm_fail "$label/check-aligned" "check exits $rc after resume: $(tr '\n' ' ' </tmp/check2.out)"
fi
umount /mnt/j
