# fix --move-data on a disk that disappears in the middle of the move (issue
# #11): a 512e scsi_debug disk with one partition at sector 63 full of
# random bytes, on GPT and then on dos (whose marker has no room for the
# journal's path: resume finds it by --journal), the journal on an ext2 file
# system of another disk (a journal on the initramfs's tmpfs is refused).  Once the move has written some data
# the SCSI device is deleted (scsi_debug keeps its RAM store while the module
# stays loaded).  fix must stop within VANISH_LIMIT seconds with exit 12 and
# one error line naming the device, and must not say "fixed".  The device is
# then scanned back in (its kernel name may change): check must report the
# unfinished move, fix without --move-data must refuse, resume must finish,
# and the table (read by sfdisk) must have the partition at an aligned start
# with its size, type, PARTUUID, name and the disk's label-id as before
# (the move marker gone), and the bytes there must hash as before.

VANISH_LIMIT=120	 # seconds fix may take once the device is gone
VANISH_START=63		 # the partition: start and size in 512-byte sectors
VANISH_SIZE=8192
VANISH_CUT=1024		 # delete the device after this many sectors written
VANISH_CHUNK=65536	 # PARTALIGN_MOVE_CHUNK: many chunks, so the move lasts
mnt=/mnt/vanish
jdir=$mnt/journal
bdir=$mnt/backup

vm_journal_fs "$mnt"

vm_rmmod scsi_debug || vm_fatal "scsi_debug is loaded and cannot be unloaded"
vm_modprobe scsi_debug sector_size=512 physblk_exp=3 dev_size_mb=8 ||
	vm_fatal "cannot load scsi_debug sector_size=512 physblk_exp=3"
vm_settle
# sectors written to DISK so far (field 7 of its stat)
written() {
	awk '{ print $7 }' "/sys/block/$1/stat" 2>/dev/null
}

# sha256 of COUNT 512-byte sectors of DEVICE from sector START
sum_at() {
	dd if="$1" bs=1M iflag=skip_bytes,count_bytes,fullblock skip=$(($2 * 512)) \
		count=$(($3 * 512)) 2>/dev/null | sha256sum | cut -d' ' -f1
}

# DEVICE's table as sfdisk dumps it, without the starts and the device
# names: its label-id, then each partition's size, type, PARTUUID, name
# (one sfdisk run: each costs half a second under emulation).
ids_of() {
	sfdisk -d "$1" | sed -n -e 's/^label-id: *//p' \
		-e '/ : start=/{s/^[^:]*: *//;s/start= *[0-9]*, *//;p}'
}

# run gpt|dos
run() {
	local label=vanish-$1 script disk host pid rc i t0 t base point dev2 disk2
	local before after ids n start size got

	case $1 in
	gpt) script="label: gpt
first-lba: 34
start=$VANISH_START, size=$VANISH_SIZE, name=vanish" ;;
	dos) script="label: dos
start=$VANISH_START, size=$VANISH_SIZE, type=83" ;;
	esac
	disk=$(vm_disks_by_model scsi_debug)
	[ -n "$disk" ] || vm_fatal "no scsi_debug disk"
	# .../hostN/targetN:0:0/N:0:0:0: the SCSI host to scan the disk back in from
	host=$(readlink -f "/sys/block/$disk/device" | tr / '\n' | grep '^host[0-9]*$')
	[ -n "$host" ] || vm_fatal "no SCSI host for $disk"
	vm_topology "$disk" "$label" "512 4096 - - 0" || return 1
	vm_sfdisk "$disk" "$label" "$script" "$VANISH_START" || return 1
	dd if=/dev/urandom of="/dev/$disk" bs=1M iflag=count_bytes,fullblock oflag=seek_bytes \
		seek=$((VANISH_START * 512)) count=$((VANISH_SIZE * 512)) conv=fsync 2>/dev/null
	before=$(sum_at "/dev/$disk" "$VANISH_START" "$VANISH_SIZE")
	ids=$(ids_of "/dev/$disk")
	echo "=== $disk ($host) before the move: partition 1 at $VANISH_START, sha256 $before"
	sfdisk -d "/dev/$disk"

	echo "=== fix --move-data at $(cut -d' ' -f1 /proc/uptime)s"
	PARTALIGN_MOVE_CHUNK=$VANISH_CHUNK partalign fix --move-data --yes --quiet \
		--journal "$jdir" --backup-dir "$bdir" "/dev/$disk" >/tmp/vanish-fix.out 2>&1 &
	pid=$!
	i=0
	while [ -z "$(ls "$jdir"/*.journal 2>/dev/null)" ] && kill -0 $pid 2>/dev/null &&
		[ $i -lt 600 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	base=$(written "$disk")
	while kill -0 $pid 2>/dev/null && [ $(($(written "$disk") - base)) -lt $VANISH_CUT ]; do
		sleep 0.05
	done
	point="$(($(written "$disk") - base)) sectors written after the journal appeared"
	if ! kill -0 $pid 2>/dev/null; then
		wait $pid
		rc=$?
		cat /tmp/vanish-fix.out
		vm_fail "$label/removed-mid-move" "fix ended (status $rc) before the device" \
			"could be removed ($point): use a larger partition or a smaller chunk"
		return 1
	fi
	echo "=== deleting $disk at $(cut -d' ' -f1 /proc/uptime)s"
	echo 1 >"/sys/block/$disk/device/delete"
	if [ -e "/sys/block/$disk" ]; then
		vm_fail "$label/removed-mid-move" "/sys/block/$disk is still there after delete"
	else
		vm_pass "$label/removed-mid-move" "$disk deleted while fix was moving ($point)"
	fi
	t0=$(cut -d. -f1 /proc/uptime)
	t=0
	while kill -0 $pid 2>/dev/null && [ $t -le $VANISH_LIMIT ]; do
		sleep 0.2
		t=$(($(cut -d. -f1 /proc/uptime) - t0))
	done
	if kill -0 $pid 2>/dev/null; then
		kill -9 $pid
		wait $pid
		cat /tmp/vanish-fix.out
		vm_fail "$label/bounded" "fix still running ${VANISH_LIMIT}s after $disk disappeared (killed)"
		return 1
	fi
	wait $pid
	rc=$?
	cat /tmp/vanish-fix.out
	vm_pass "$label/bounded" "fix ended ${t}s after $disk disappeared"
	# the error: one line, naming the device, with the cause
	n=$(grep -c . /tmp/vanish-fix.out)
	got=$(grep "^partalign: /dev/$disk: " /tmp/vanish-fix.out)
	if [ $rc = 12 ] && ! grep -qw fixed /tmp/vanish-fix.out && [ -n "$got" ] &&
		[ "$(echo "$got" | grep -c .)" = 1 ]; then
		vm_pass "$label/fix-stopped" "fix exits 12: $got"
	else
		vm_fail "$label/fix-stopped" "fix exits $rc (expected 12, one error line naming" \
			"/dev/$disk, no \"fixed\"): $(tr '\n' ' ' </tmp/vanish-fix.out)"
	fi

	# the device comes back, possibly under another name
	echo "=== scanning $host at $(cut -d' ' -f1 /proc/uptime)s"
	echo '- - -' >"/sys/class/scsi_host/$host/scan"
	vm_settle
	disk2=$(vm_disks_by_model scsi_debug)
	if [ -z "$disk2" ]; then
		vm_fail "$label/back" "no scsi_debug disk after scanning $host"
		return 1
	fi
	dev2=/dev/$disk2
	vm_pass "$label/back" "the disk is back as $disk2 (was $disk)"
	echo "=== $disk2 after the failed move"
	sfdisk -d "$dev2"

	PARTALIGN_JOURNAL=$jdir partalign check --probe "$dev2" >/tmp/vanish-check.out 2>&1
	rc=$?
	cat /tmp/vanish-check.out
	if [ $((rc & 4)) = 4 ] && grep -q 'unfinished data move' /tmp/vanish-check.out; then
		vm_pass "$label/check-unfinished" "check --probe exits $rc and reports the unfinished move"
	else
		vm_fail "$label/check-unfinished" "check --probe exits $rc: $(tr '\n' ' ' </tmp/vanish-check.out)"
	fi

	partalign fix --yes --backup-dir "$bdir" "$dev2" >/tmp/vanish-refuse.out 2>&1
	rc=$?
	cat /tmp/vanish-refuse.out
	if [ $rc = 4 ] && grep -q 'refused: an unfinished data move' /tmp/vanish-refuse.out; then
		vm_pass "$label/fix-refuses" "fix without --move-data refuses (exit 4)"
	else
		vm_fail "$label/fix-refuses" "fix without --move-data exits $rc: $(tr '\n' ' ' </tmp/vanish-refuse.out)"
	fi

	echo "=== resume at $(cut -d' ' -f1 /proc/uptime)s"
	PARTALIGN_MOVE_CHUNK=$VANISH_CHUNK partalign resume --quiet --journal "$jdir" \
		--backup-dir "$bdir" "$dev2" >/tmp/vanish-resume.out 2>&1
	rc=$?
	cat /tmp/vanish-resume.out
	if [ $rc = 1 ]; then
		vm_pass "$label/resume" "resume exits 1 (moved)"
	else
		vm_fail "$label/resume" "resume exits $rc, expected 1: $(tr '\n' ' ' </tmp/vanish-resume.out)"
	fi
	vm_settle
	echo "=== $disk2 after resume"
	sfdisk -d "$dev2"

	read -r n start size _ <<EOF
$(vm_table "$dev2")
EOF
	got=$(ids_of "$dev2")
	if [ "$n" = 1 ] && [ "$start" != $VANISH_START ] && [ $((start % 8)) = 0 ] &&
		[ "$got" = "$ids" ]; then
		vm_pass "$label/table" "sfdisk: partition 1 at $start; label-id, size, type, PARTUUID," \
			"name kept"
	else
		vm_fail "$label/table" "sfdisk: partition '$n' at '$start', [$(echo "$got" | tr '\n' ';')]" \
			"(expected an aligned start and [$(echo "$ids" | tr '\n' ';')])"
	fi
	after=$(sum_at "$dev2" "${start:-0}" "${size:-0}")
	if [ "$after" = "$before" ]; then
		vm_pass "$label/content" "sha256 of the partition at its new start as before the move"
	else
		vm_fail "$label/content" "sha256 $after at sector $start, expected $before"
	fi
	if [ -z "$(ls "$jdir"/*.journal 2>/dev/null)" ]; then
		vm_pass "$label/journal-gone" "no journal left after resume"
	else
		vm_fail "$label/journal-gone" "journal still there: $(ls "$jdir")"
	fi
}
run gpt
run dos
umount "$mnt" || vm_fail unmount "cannot unmount $mnt"
vm_rmmod scsi_debug || vm_fail unload "scsi_debug cannot be unloaded"
