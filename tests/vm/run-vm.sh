#!/bin/bash
# make check-vm: boots one qemu guest (software emulation, no KVM needed) with
# the emulated disks of disks.conf, runs every scenario of scenarios/ inside it
# against the partalign binary just built, and reports each result:
#
#   PASS: 10-virtio-blk/vblk-1m/start63 ...
#   FAIL: 70-multipath-fix/mpath-fix/fix-exit ...
#   vm: N passed, M failed
#
# Every result line that is not PASS counts as failed (a bug a scenario
# found is fixed, then asserted plainly), and so does a
# scenario that did not finish (guest hang, crash, timeout).
# Exit status: 0 all passed, 1 something failed, 77 skipped (no qemu, no
# kernel image...: the reason is printed), 99 the harness itself could not
# run.  Under PARTALIGN_TEST_STRICT=1 (CI) a skip is an error (99): the suite
# never reports a pass it did not run.
#
# Usage: run-vm.sh [--workdir DIR] [PARTALIGN]
# Environment:
#   VM_KERNEL     kernel image (default: the newest /boot/vmlinuz-* with modules)
#   VM_SCENARIOS  space-separated patterns of scenario names to run (default all)
#   VM_TIMEOUT    seconds before the guest is killed (default 900: the whole
#                 suite took 390 s under software emulation on a
#                 loaded 2-core host)
#   VM_SCENARIO_TIMEOUT  seconds one scenario may take in the guest (default 150)
#   VM_SMP, VM_MEM  guest CPUs (default 1) and memory in MiB (default 512)
#   VM_APPEND     kernel command-line words in place of "quiet"
#   QEMU          the emulator (default qemu-system-x86_64)
# The work directory keeps the cached initramfs base and, after each run,
# console.log (the guest's console), results.log and qemu.log.
vm_prefix=vm
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=runlib.sh
. "$here/runlib.sh"
for t in busybox cpio modprobe ldd udevadm sfdisk partx lsblk blkid wipefs blockdev dmsetup \
	jq sha256sum timeout truncate; do
	command -v "$t" >/dev/null || skip "$t not found (Debian: busybox-static cpio kmod udev util-linux dmsetup jq)"
done
for h in scsi_id ata_id; do
	[ -x "/usr/lib/udev/$h" ] || skip "/usr/lib/udev/$h not found (Debian: apt-get install udev)"
done
[ -x "$partalign" ] || error "$partalign is not built"
partalign=$(cd "$(dirname "$partalign")" && pwd)/${partalign##*/}
[ -x "$(dirname "$partalign")/partalign-apply" ] ||
	error "$(dirname "$partalign")/partalign-apply is not built (partalign runs it for plan, fix and restore)"
command -v kpartx >/dev/null ||
	echo "vm: note: no kpartx on this host (Debian: kpartx): fix on a multipath map is tested without it"

scenarios=()
for s in "$here"/scenarios/*.sh; do
	name=${s##*/}
	name=${name%.sh}
	if [ -n "${VM_SCENARIOS:-}" ]; then
		keep=0
		for pat in $VM_SCENARIOS; do
			# shellcheck disable=SC2053
			[[ $name == $pat ]] && keep=1
		done
		[ $keep = 1 ] || continue
	fi
	scenarios+=("$name")
done
[ ${#scenarios[@]} -gt 0 ] || error "no scenario matches VM_SCENARIOS='${VM_SCENARIOS:-}'"

vm_timeout=${VM_TIMEOUT:-900}
mkdir -p "$workdir"
workdir=$(cd "$workdir" && pwd)
run=$(mktemp -d "$workdir/run.XXXXXX")
qpid='' tpid=''
cleanup() {
	local rc=$?
	set +e
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null && wait "$qpid" 2>/dev/null
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null && wait "$tpid" 2>/dev/null
	rm -rf "$run"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the kernel ---------------------------------------------------------------
# qemu boots an uncompressed vmlinux through its PVH entry point much faster
# than a bzImage under software emulation, where unpacking the xz payload
# alone takes many seconds.  Extracted once per kernel and cached; the bzImage
# is used when there is no payload we can unpack or no PVH note.
pvh_kernel() {
	local img=$1 out magic off tool
	out=$workdir/vmlinux-$(sha256sum <"$img" | cut -c1-16)
	if [ ! -s "$out" ]; then
		rm -f "$workdir"/vmlinux-*
		for magic in xz gzip zstd; do
			case $magic in
			xz) off=$(grep -abo $'\xfd7zXZ' "$img" | head -n 1 | cut -d: -f1) ;;
			gzip) off=$(grep -abo $'\x1f\x8b\x08' "$img" | head -n 1 | cut -d: -f1) ;;
			zstd) off=$(grep -abo $'\x28\xb5\x2f\xfd' "$img" | head -n 1 | cut -d: -f1) ;;
			esac
			# (busybox's xz cannot: it lacks the x86 BCJ filter kernels use)
			tool="$magic -dc"
			if [ -z "$off" ] || ! command -v "$magic" >/dev/null; then
				continue
			fi
			tail -c +$((off + 1)) "$img" | $tool 2>/dev/null >"$run/vmlinux" || true
			# 0x12: XEN_ELFNOTE_PHYS32_ENTRY, the PVH entry point qemu needs
			if [ "$(head -c 4 "$run/vmlinux" | od -An -c | tr -d ' ')" = '177ELF' ] &&
				readelf -n "$run/vmlinux" 2>/dev/null | grep 'note type: (0x00000012)' >/dev/null; then
				mv "$run/vmlinux" "$out"
				break
			fi
			rm -f "$run/vmlinux"
		done
	fi
	if [ -s "$out" ]; then echo "$out"; else echo "$img"; fi
}

# ---- the initramfs -----------------------------------------------------------
t0=$SECONDS
boot_kernel=$(pvh_kernel "$kernel")
scen_args=()
for n in "${scenarios[@]}"; do
	scen_args+=(--scenario "$here/scenarios/$n.sh")
done
bash "$here/mkinitramfs.sh" --kver "$kver" --partalign "$partalign" --workdir "$workdir" \
	--out "$run/initramfs.cpio" "${scen_args[@]}" | sed 's/^/vm: /' ||
	error "cannot build the initramfs"
[ -s "$run/initramfs.cpio" ] || error "cannot build the initramfs"
t_build=$((SECONDS - t0))

# ---- the disks -----------------------------------------------------------------
qargs=()
ndrive=0
while read -r img size rest; do
	case $img in '' | '#'*) continue ;; esac
	if [ "$img" != - ]; then
		id=d$ndrive
		ndrive=$((ndrive + 1))
		[ -e "$run/$img.img" ] || truncate -s "$size" "$run/$img.img"
		# paths to one image share it: no image locking
		f=$run/$img.img
		qargs+=(-drive "if=none,id=$id,file=${f//,/,,},format=raw,cache=unsafe,file.locking=off")
		rest=${rest//@DRIVE@/$id}
	fi
	read -ra words <<<"$rest"
	# @SP@ is a blank inside one argument (a serial number with blanks)
	qargs+=("${words[@]//@SP@/ }")
done <"$here/disks.conf"

# ---- the guest -------------------------------------------------------------------
console=$workdir/console.log
results=$workdir/results.log
: >"$console"
: >"$results"
how=
[ "$boot_kernel" = "$kernel" ] || how=" (uncompressed, PVH entry)"
echo "vm: booting $kernel$how with ${#scenarios[@]} scenarios (guest console: $console)"
t0=$SECONDS
timeout -k 10 "$vm_timeout" "$qemu" -accel tcg -cpu max -m "${VM_MEM:-512}" \
	-smp "${VM_SMP:-1}" -nodefaults -no-user-config -display none -no-reboot \
	-kernel "$boot_kernel" -initrd "$run/initramfs.cpio" \
	-append "console=ttyS0 ${VM_APPEND:-quiet} panic=-1 rdinit=/init vm.timeout=${VM_SCENARIO_TIMEOUT:-150}" \
	-serial "file:$console" -serial "file:$results" \
	"${qargs[@]}" >"$workdir/qemu.log" 2>&1 &
qpid=$!

# results as they come
tail -n +1 -f --pid="$qpid" "$results" 2>/dev/null | tr -d '\r' |
	sed -n 's/^@@RESULT \([^ ]*\) \([A-Z]*\) \(.*\)$/\2: \1 \3/p' &
tpid=$!

qrc=0
wait "$qpid" || qrc=$?
qpid=
wait "$tpid" || true
tpid=
t_guest=$((SECONDS - t0))

# ---- the tally ---------------------------------------------------------------------
tr -d '\r' <"$results" >"$run/results"
pass=$(grep -Ec '^@@RESULT [^ ]+ PASS( |$)' "$run/results" || true)
fail=$(grep '^@@RESULT ' "$run/results" | grep -Evc '^@@RESULT [^ ]+ PASS( |$)' || true)
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "vm: the guest was killed after ${vm_timeout}s"
elif [ "$qrc" != 0 ]; then
	echo "vm: qemu exited with status $qrc: $(tail -n 3 "$workdir/qemu.log" | tr '\n' ' ')"
fi
grep -q '^@@BOOTED' "$run/results" || echo "vm: the guest did not boot; see $console"
for n in "${scenarios[@]}"; do
	if ! grep -q "^@@DONE $n " "$run/results"; then
		echo "FAIL: $n did not finish; see $console"
		fail=$((fail + 1))
	elif ! grep -q "^@@RESULT $n/" "$run/results"; then
		echo "FAIL: $n reported nothing"
		fail=$((fail + 1))
	fi
done
echo "vm: initramfs ${t_build}s, guest ${t_guest}s"
echo "vm: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
