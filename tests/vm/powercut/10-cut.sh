# Power-cut test, boot 1 (run by tests/vm/run-powercut.sh, not by check-vm):
# starts `partalign fix --move-data` on the disk with serial pa-pcut-data,
# journal on the ext4 disk pa-pcut-jrnl, with a small chunk so the move takes
# a while.  Once the journal exists it waits for the cut point given on the
# kernel command line: vm.cutdelay=SECONDS, or vm.cutwrite=SECTORS (until
# the kernel's count of 512-byte sectors written to the data disk, field 7
# of /sys/block/DISK/stat, has grown by SECTORS since the journal appeared:
# a point in the move that does not depend on the emulator's speed).
# vm.cutdelay=0 cuts as soon as the disk's own table carries the move
# marker: between the journal's appearance and the marker nothing of the
# move is on the disk yet (that window is tests/move/move-stray.sh's, with
# the fault shim), and a cut there would make the outcome a race.  It
# then checks the move is still running and prints @@CUT on the result
# port.  The host then kills qemu with SIGKILL: the guest loses power in the
# middle of the move.  Boot 2 (20-resume.sh) resumes and verifies.

label=powercut
data=$(vm_disks_by_serial pa-pcut-data)
jdisk=$(vm_disks_by_serial pa-pcut-jrnl)
[ -n "$data" ] || vm_fatal "no disk with serial pa-pcut-data"
[ -n "$jdisk" ] || vm_fatal "no disk with serial pa-pcut-jrnl"
delay=1 cutwrite=
for arg in $(cat /proc/cmdline); do
	case $arg in
	vm.cutdelay=*) delay=${arg#vm.cutdelay=} ;;
	vm.cutwrite=*) cutwrite=${arg#vm.cutwrite=} ;;
	esac
done
# sectors written to the data disk so far
written() {
	awk '{ print $7 }' "/sys/block/$data/stat"
}
vm_modprobe ext4 || vm_fatal "cannot load ext4"
mkdir -p /mnt/j
mount -t ext4 "/dev/$jdisk" /mnt/j || vm_fatal "cannot mount the journal disk /dev/$jdisk"
mkdir -p /mnt/j/journal /mnt/j/backup
sync

echo "=== partitions before the move"
sfdisk -d "/dev/$data"
PARTALIGN_MOVE_CHUNK=4096 partalign fix --move-data --yes --quiet \
	--journal /mnt/j/journal --backup-dir /mnt/j/backup "/dev/$data" >/tmp/move.out 2>&1 &
pid=$!
i=0
while [ -z "$(ls /mnt/j/journal/*.journal 2>/dev/null)" ]; do
	kill -0 $pid 2>/dev/null || break
	i=$((i + 1))
	[ $i -lt 600 ] || break
	sleep 0.1
done
if [ -z "$(ls /mnt/j/journal/*.journal 2>/dev/null)" ]; then
	cat /tmp/move.out
	vm_fatal "no journal appeared in /mnt/j/journal: $(tr '\n' ' ' </tmp/move.out)"
fi
# what the move's threads wait on, when it seems stuck (for the log)
stuck() {
	local t
	echo "=== partalign $pid: no progress to the cut point after $1 s; its threads:"
	for t in /proc/$pid/task/*; do
		echo "$t: $(cat "$t/wchan" 2>/dev/null) $(tr '\0' ' ' <"$t/stat" 2>/dev/null | cut -d' ' -f3)"
		cat "$t/stack" 2>/dev/null
	done
	cat /tmp/move.out
	awk '{ print "vda stat: " $0 }' "/sys/block/$data/stat"
}
if [ -n "$cutwrite" ]; then
	base=$(written)
	t0=$(cut -d' ' -f1 /proc/uptime)
	while kill -0 $pid 2>/dev/null && [ $(($(written) - base)) -lt "$cutwrite" ]; do
		sleep 0.05
		t=$(cut -d' ' -f1 /proc/uptime)
		if [ "${t%.*}" -gt $((${t0%.*} + 100)) ]; then
			stuck 100
			vm_fatal "the move made no progress to $cutwrite sectors in 100 s ($(($(written) - base)) written)"
		fi
	done
	point="$(($(written) - base)) sectors written to $data (cut at $cutwrite)"
elif [ "$delay" = 0 ]; then
	# the disk's GUID as its table has it now (sfdisk reads the device): the
	# marker's once the move's entries are hidden
	i=0
	while kill -0 $pid 2>/dev/null &&
		! sfdisk --json "/dev/$data" 2>/dev/null | jq -r .partitiontable.id |
		grep -qi '^DB991ED2-F649-406F-'; do
		i=$((i + 1))
		if [ $i -ge 2000 ]; then
			stuck 100
			vm_fatal "the disk carries no move marker 100 s after the journal appeared"
		fi
		sleep 0.05
	done
	point="with its marker on the disk, 0 s"
else
	sleep "$delay"
	point="$delay s"
fi
if kill -0 $pid 2>/dev/null; then
	vm_pass "$label/cut-armed" "move running $point after its journal appeared; cutting power"
	ls -l /mnt/j/journal
	vm_say "@@CUT"
	# the host kills qemu now; nothing after this line should run
	sleep 600
	vm_fail "$label/cut" "the host did not cut the power"
else
	wait $pid
	rc=$?
	cat /tmp/move.out
	vm_fail "$label/cut-armed" "the move ended (status $rc) before the cut ($point): use an earlier cut point or a smaller chunk"
fi
