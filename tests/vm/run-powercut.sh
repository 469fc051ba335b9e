#!/bin/bash
# make check-vm-powercut: a real power cut in the middle of
# `partalign fix --move-data`, in the qemu guest of the VM suite (run-vm.sh).
# For each cut point (VM_CUT_DELAYS: seconds after the move's journal
# appears, or wSECTORS: once that many sectors have been written to the data
# disk since then):
#   host    a 128 MiB 512e data image with two GPT partitions at misaligned
#           starts, each an ext4 file system of its own UUID holding files of
#           deterministic pseudo-random bytes (mkfs.ext4 -d), whose sha256 is
#           recorded, and a 64 MiB ext4 image for the journal
#   boot 1  powercut/10-cut.sh starts the move; when it prints @@CUT the host
#           kills qemu with SIGKILL (the guest's caches and any request qemu
#           has not yet passed to the host are lost)
#   boot 2  powercut/20-resume.sh: the reboot's kernel and udev have no
#           partition over the moving data, so mounting by UUID (as fstab
#           would) finds nothing; the journal survived, check reports the
#           unfinished move, `partalign resume` finishes it, the partitions
#           are on the 2 MiB grain with identical content and mount by UUID
#   host    reads the image's table, hashes each partition at its new start
#           and checks its file system (e2fsck -fn), independently of the
#           guest
# Drives use cache=none (O_DIRECT on the host side, guest flushes honoured).
# Exit status as run-vm.sh: 0 passed, 1 failed, 77 skipped, 99 harness error.
#
# Usage: run-powercut.sh [--workdir DIR] [PARTALIGN]
# Environment: VM_KERNEL, QEMU, VM_MEM as run-vm.sh;
#   VM_CUT_DELAYS  space-separated cut points: N (seconds) or wN (sectors
#                 written to the data disk; independent of the emulator's
#                 speed).  Default "0 w32768 w81920": as the move starts, in
#                 the middle of the first partition (65536 sectors, a short
#                 forward move) and in the middle of the second (32768
#                 sectors, a long backward move)
#   VM_BOOT_TIMEOUT seconds one boot may take (default 600: a hang guard;
#                  boot 2's resume took over 150 s once on a loaded 2-core host)
vm_prefix=vm-powercut
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=runlib.sh
. "$here/runlib.sh"
for t in sfdisk mkfs.ext4 e2fsck openssl sha256sum cpio modprobe truncate; do
	command -v "$t" >/dev/null || skip "$t not found"
done
[ -x "$partalign" ] || error "$partalign is not built"
partalign=$(cd "$(dirname "$partalign")" && pwd)/${partalign##*/}

mkdir -p "$workdir"
workdir=$(cd "$workdir" && pwd)
run=$(mktemp -d "$workdir/powercut.XXXXXX")
qpid=''
cleanup() {
	local rc=$?
	set +e
	if [ -n "$qpid" ]; then
		kill -9 "$qpid" 2>/dev/null
		wait "$qpid" 2>/dev/null
	fi
	rm -rf "$run"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the uncompressed kernel run-vm.sh caches (PVH entry, much faster to boot
# under emulation), else the bzImage
boot_kernel=$kernel
cached=$workdir/vmlinux-$(sha256sum <"$kernel" | cut -c1-16)
[ -s "$cached" ] && boot_kernel=$cached

# ---- two initramfs images: boot 1 cuts, boot 2 resumes -------------------------
# plus the ext4 modules for the journal disk, as a third cpio archive
t0=$SECONDS
mod=$run/mods
mkdir -p "$mod/etc/vm-modules"
while read -r kind path _; do
	[ "$kind" = insmod ] || continue
	# under usr/: /lib is a symbolic link to usr/lib in the base archive
	mkdir -p "$mod/usr$(dirname "$path")"
	cp "$path" "$mod/usr$path"
	echo "$path" >>"$mod/etc/vm-modules/ext4"
done < <(modprobe -S "$kver" --show-depends ext4)
[ -s "$mod/etc/vm-modules/ext4" ] || error "no ext4 module for $kver"
(cd "$mod" && find . -mindepth 1 | cpio -o -H newc --quiet) >"$run/ext4.cpio"
for b in cut resume; do
	case $b in cut) s=10-cut ;; resume) s=20-resume ;; esac
	bash "$here/mkinitramfs.sh" --kver "$kver" --partalign "$partalign" --workdir "$workdir" \
		--out "$run/$b.cpio" --scenario "$here/powercut/$s.sh" | sed 's/^/vm-powercut: /' ||
		error "cannot build the initramfs"
	cat "$run/ext4.cpio" >>"$run/$b.cpio"
done
echo "vm-powercut: initramfs $((SECONDS - t0))s"

# ---- the disks ---------------------------------------------------------------------
# START:SIZE in 512-byte sectors: misaligned for a 4 KiB physical sector
parts="2049:65536 100001:32768"
make_images() {
	local img=$run/data.img i=0 p start size
	rm -f "$img" "$run/jrnl.img"
	truncate -s 128M "$img"
	{
		echo 'label: gpt'
		for p in $parts; do
			echo "start=${p%%:*}, size=${p##*:}, name=pcut$i"
			i=$((i + 1))
		done
	} | sfdisk -q --no-reread --no-tell-kernel "$img" >/dev/null
	sums=()
	i=0
	for p in $parts; do
		i=$((i + 1))
		start=${p%%:*} size=${p##*:}
		# an ext4 file system of its own UUID, files of pseudo-random bytes
		rm -rf "$run/files" && mkdir -p "$run/files"
		for f in 1 2 3 4; do
			openssl enc -aes-128-ctr -nosalt -pass "pass:partalign-powercut-$i-$f" \
				-pbkdf2 -out "$run/files/f$f" < <(head -c $((size * 512 / 8)) /dev/zero)
		done
		uuids[i]=$(printf '5a5a%04x-0000-4000-8000-00000000000%x' "$i" "$i")
		truncate -s $((size * 512)) "$run/p$i.bin"
		mkfs.ext4 -q -F -d "$run/files" -U "${uuids[i]}" -L "pcut$i" "$run/p$i.bin" ||
			error "mkfs.ext4 -d of partition $i"
		rm -rf "$run/files"
		sums[i]=$(sha256sum <"$run/p$i.bin" | cut -d' ' -f1)
		dd if="$run/p$i.bin" of="$img" bs=512 seek="$start" conv=notrunc status=none
		rm -f "$run/p$i.bin"
	done
	truncate -s 64M "$run/jrnl.img"
	mkfs.ext4 -q -F "$run/jrnl.img"
}

# boot INITRAMFS APPEND: runs the guest, kills it with SIGKILL when it prints
# @@CUT; leaves the result lines in $run/results
boot() {
	local initrd=$1 append=$2 deadline
	: >"$run/results"
	"$qemu" -accel tcg -cpu max -m "${VM_MEM:-512}" -smp 1 -nodefaults -no-user-config \
		-display none -no-reboot -kernel "$boot_kernel" -initrd "$initrd" \
		-append "console=ttyS0 quiet panic=-1 rdinit=/init vm.timeout=${VM_BOOT_TIMEOUT:-600} $append" \
		-serial "file:$run/console" -serial "file:$run/results" \
		-drive "if=none,id=d0,file=$run/data.img,format=raw,cache=none" \
		-device virtio-blk-pci,drive=d0,serial=pa-pcut-data,logical_block_size=512,physical_block_size=4096,min_io_size=4096,opt_io_size=1048576 \
		-drive "if=none,id=d1,file=$run/jrnl.img,format=raw,cache=none" \
		-device virtio-blk-pci,drive=d1,serial=pa-pcut-jrnl \
		>"$run/qemu.log" 2>&1 &
	qpid=$!
	deadline=$((SECONDS + ${VM_BOOT_TIMEOUT:-600} + 30))
	cut=0
	while kill -0 "$qpid" 2>/dev/null; do
		if grep -q '^@@CUT' "$run/results"; then
			kill -9 "$qpid"
			cut=1
			break
		fi
		if [ $SECONDS -ge $deadline ]; then
			echo "vm-powercut: the guest was killed after its time limit"
			kill -9 "$qpid"
			break
		fi
		sleep 0.05
	done
	wait "$qpid" 2>/dev/null || true
	qpid=''
	tr -d '\r' <"$run/results" >"$run/results.txt"
	sed -n 's/^@@RESULT \([^ ]*\) \([A-Z]*\) \(.*\)$/\2: \1 \3/p' "$run/results.txt"
	cat "$run/console" >>"$workdir/powercut-console.log"
}

pass=0 fail=0
tally() { # BOOT-LABEL
	local p f
	p=$(grep -Ec '^@@RESULT [^ ]+ PASS( |$)' "$run/results.txt" || true)
	f=$(grep '^@@RESULT ' "$run/results.txt" | grep -Evc '^@@RESULT [^ ]+ PASS( |$)' || true)
	pass=$((pass + p)) fail=$((fail + f))
	if [ "$p" = 0 ] && [ "$f" = 0 ]; then
		echo "FAIL: $1 reported nothing; see $workdir/powercut-console.log"
		fail=$((fail + 1))
	fi
}

: >"$workdir/powercut-console.log"
for delay in ${VM_CUT_DELAYS:-0 w32768 w81920}; do
	make_images
	t0=$SECONDS
	case $delay in
	w[0-9]*)
		echo "vm-powercut: cut after ${delay#w} sectors written, counted from the journal's appearance"
		cutarg="vm.cutwrite=${delay#w}"
		;;
	*)
		echo "vm-powercut: cut $delay s after the journal appears"
		cutarg="vm.cutdelay=$delay"
		;;
	esac
	echo "===== powercut delay $delay: boot 1" >>"$workdir/powercut-console.log"
	boot "$run/cut.cpio" "$cutarg"
	tally "delay $delay boot 1"
	if [ "$cut" = 1 ]; then
		echo "PASS: powercut/$delay/killed qemu killed with SIGKILL mid-move"
		pass=$((pass + 1))
	else
		echo "FAIL: powercut/$delay/killed the guest never asked for the cut"
		fail=$((fail + 1))
		continue
	fi
	t1=$((SECONDS - t0))
	append=''
	i=0
	for p in $parts; do
		i=$((i + 1))
		append+=" vm.sum$i=${sums[i]} vm.uuid$i=${uuids[i]}"
	done
	echo "===== powercut delay $delay: boot 2" >>"$workdir/powercut-console.log"
	boot "$run/resume.cpio" "$append"
	tally "delay $delay boot 2"
	grep -q '^@@END' "$run/results.txt" || {
		echo "FAIL: powercut/$delay/boot2 the guest did not finish"
		fail=$((fail + 1))
	}
	# the host's own look at the image
	i=0
	while read -r start size; do
		i=$((i + 1))
		dd if="$run/data.img" of="$run/part.img" bs=512 skip="$start" count="$size" status=none
		got=$(sha256sum <"$run/part.img" | cut -d' ' -f1)
		# the move's target: the 2 MiB grain (4096 sectors), not only 4 KiB
		if [ $((start % 4096)) = 0 ] && [ "$got" = "${sums[i]:-}" ]; then
			echo "PASS: powercut/$delay/host-p$i partition $i at $start, content identical"
			pass=$((pass + 1))
		else
			echo "FAIL: powercut/$delay/host-p$i partition $i at $start, sha256 $got, expected ${sums[i]:-?}"
			fail=$((fail + 1))
		fi
		if e2fsck -fn "$run/part.img" >"$run/fsck.out" 2>&1; then
			echo "PASS: powercut/$delay/host-fsck$i e2fsck -fn of partition $i is clean"
			pass=$((pass + 1))
		else
			echo "FAIL: powercut/$delay/host-fsck$i e2fsck -fn of partition $i: $(tr '\n' ' ' <"$run/fsck.out")"
			fail=$((fail + 1))
		fi
		rm -f "$run/part.img"
	done < <(sfdisk -d "$run/data.img" | sed -n 's/.*start= *\([0-9]*\), size= *\([0-9]*\).*/\1 \2/p')
	[ "$i" = 2 ] || { echo "FAIL: powercut/$delay/host-table $i partitions in the image"; fail=$((fail + 1)); }
	echo "vm-powercut: delay $delay: boot 1 ${t1}s, boot 2 $((SECONDS - t0 - t1))s"
done
echo "vm-powercut: $pass passed, $fail failed (guest consoles: $workdir/powercut-console.log)"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
