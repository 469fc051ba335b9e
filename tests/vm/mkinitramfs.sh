#!/bin/bash
# Builds the initramfs of the VM suite's guest (see run-vm.sh) as two cpio
# archives, concatenated (the kernel unpacks both, the second over the first):
#
#   base     busybox, the kernel modules, udev (udevadm, rules, scsi_id and
#            ata_id), sfdisk & co., dmsetup, jq and every library they load.
#            Cached in WORKDIR under the checksum of all its inputs, so a rerun
#            on an unchanged host costs one pass of sha256sum.
#   overlay  partalign, partalign-apply (the program partalign runs for
#            plan, fix and restore; it must sit beside partalign) and their
#            libraries, partalign-collect, the guest init, vmlib.sh and the
#            scenarios.  Rebuilt every time: the guest always runs the
#            binaries just built.
#
# kpartx goes into the base when the host has it (Debian: kpartx), with the
# udev rules of its package: the guest then makes the partition maps of a
# multipath map as a server does, and `partalign fix` on a map can run
# `kpartx -u`.  Without it the scenarios test what partalign says instead.
#
# Usage: mkinitramfs.sh --kver KVER --partalign BIN --workdir DIR --out FILE
#                       [--scenario FILE]...
# (BIN's directory must also hold partalign-apply.)
# Exits 0, or 1 with a message on stderr when an input is missing.
set -euo pipefail
shopt -s nullglob

export LC_ALL=C
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=$(cd "$here/../.." && pwd)

kver='' partalign='' workdir='' out=''
scenarios=()
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--partalign) partalign=$2; shift 2 ;;
	--workdir) workdir=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--scenario) scenarios+=("$2"); shift 2 ;;
	*) echo "mkinitramfs.sh: unknown argument $1" >&2; exit 1 ;;
	esac
done
if [ -z "$kver" ] || [ -z "$partalign" ] || [ -z "$workdir" ] || [ -z "$out" ]; then
	echo "usage: mkinitramfs.sh --kver KVER --partalign BIN --workdir DIR --out FILE" >&2
	exit 1
fi

# Modules the guest can load (guest/vmlib.sh vm_modprobe), with their
# dependencies.  crc64_rocksoft_generic is only a soft dependency of t10-pi,
# which sd_mod and nvme need: list it so it can be loaded first.
modules=(crc64_rocksoft_generic t10-pi sd_mod virtio_pci virtio_blk virtio_scsi nvme
	scsi_debug dm_mod dm_multipath dm_round_robin loop ext4
	md_mod raid0 raid456 dm_crypt xts algif_skcipher)
# Programs from the host, by name; every one is required.
programs=(busybox udevadm sfdisk partx lsblk blkid wipefs blockdev dmsetup jq
	lvm mdadm cryptsetup mkfs.xfs xfs_db mke2fs dumpe2fs e2fsck)
# udev helpers the storage rules run (60-persistent-storage.rules).
udev_helpers=(scsi_id ata_id)
# Optional programs: in the guest when the host has them.
optional_programs=(kpartx)
optional_helpers=(kpartx_id)

die() {
	echo "mkinitramfs.sh: $*" >&2
	exit 1
}

# Paths inside the guest are merged-/usr: /lib, /bin, /sbin and /lib64 are
# symlinks into /usr (and so /lib/udev is ../usr/lib/udev, as scsi_id needs).
canon() {
	case $1 in
	/lib/* | /bin/* | /sbin/* | /lib64/*) echo "/usr$1" ;;
	*) echo "$1" ;;
	esac
}

# manifest: guest path -> host file
declare -A files=()
add() {
	local src=$1 dest
	dest=$(canon "${2:-$1}")
	[ -e "$src" ] || die "missing input: $src"
	files[$dest]=$src
}

# An ELF program and every shared library ldd lists, the loader included.
add_elf() {
	local lib
	add "$1" "${2:-$1}"
	while read -r lib; do
		[ -n "$lib" ] && add "$lib"
	done < <(ldd "$1" 2>/dev/null | sed -n -e 's/.*=> \(\/[^ ]*\) .*/\1/p' \
		-e 's/^[[:space:]]*\(\/[^ ]*\) (0x.*/\1/p' || true)
}

which_host() {
	command -v "$1" 2>/dev/null || die "$1 not found on this host"
}

# Writes the cpio archive of the tree in $1 to $2.
pack() {
	(cd "$1" && find . -mindepth 1 | sort | cpio -o -H newc -R 0:0 --quiet) >"$2"
}

# Copies the manifest into the staging tree $1.
stage_files() {
	local root=$1 dest
	for dest in "${!files[@]}"; do
		mkdir -p "$root$(dirname "$dest")"
		rm -f "$root$dest"
		cp -L "${files[$dest]}" "$root$dest"
	done
}

moddir=/lib/modules/$kver
[ -f "$moddir/modules.dep" ] || die "no modules for kernel $kver in $moddir"
mkdir -p "$workdir"
stage=$(mktemp -d "$workdir/stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# ---- base ------------------------------------------------------------------
for p in "${programs[@]}"; do
	add_elf "$(which_host "$p")"
done
for h in "${udev_helpers[@]}"; do
	add_elf "/usr/lib/udev/$h"
done
# util-linux mount beside busybox's: it finds UUID= and LABEL= as fstab and
# systemd do (libblkid, udev's /dev/disk/by-uuid links)
add_elf "$(which_host mount)" /usr/sbin/mount.util-linux
for p in "${optional_programs[@]}"; do
	if command -v "$p" >/dev/null 2>&1; then
		add_elf "$(command -v "$p")"
	fi
done
for h in "${optional_helpers[@]}"; do
	if [ -x "/usr/lib/udev/$h" ]; then
		add_elf "/usr/lib/udev/$h"
	fi
done
for r in /usr/lib/udev/rules.d/*.rules; do
	case ${r##*/} in
	*partalign* | *oracle*) continue ;; # a rule installed on this host is not under test
	esac
	add "$r"
done

# One load list per module: the .ko files in insmod order, deepest first.
declare -A loadlist=()
for m in "${modules[@]}"; do
	list=
	while read -r kind path _; do
		[ "$kind" = insmod ] || continue
		add "$path"
		case " $list " in *" $path "*) ;; *) list+="$path " ;; esac
	done < <(modprobe -S "$kver" --show-depends "$m" 2>/dev/null ||
		die "modprobe -S $kver --show-depends $m failed")
	[ -n "$list" ] || die "module $m: no .ko file for $kver"
	loadlist[$m]=$list
done

# The key covers this script, every input file's content and its guest path.
key=$({
	sha256sum "${BASH_SOURCE[0]}"
	echo "$kver ${modules[*]}"
	for dest in $(printf '%s\n' "${!files[@]}" | sort); do
		echo "$dest $(sha256sum <"${files[$dest]}")"
	done
} | sha256sum | cut -c1-16)
base=$workdir/initramfs-base-$key.cpio

if [ -f "$base" ]; then
	echo "initramfs: base $key cached"
else
	echo "initramfs: building base $key"
	root=$stage/base
	mkdir -p "$root"/usr/{bin,sbin,lib,lib64} "$root"/{proc,sys,dev,run,tmp,root,mnt} \
		"$root"/etc/udev/rules.d "$root"/etc/vm-modules "$root"/var/lib/partalign
	for l in bin sbin lib lib64; do
		ln -s "usr/$l" "$root/$l"
	done
	stage_files "$root"
	for a in $(busybox --list); do
		[ -e "$root/usr/bin/$a" ] || [ -e "$root/usr/sbin/$a" ] || ln -s busybox "$root/usr/bin/$a"
	done
	mkdir -p "$root/usr/lib/systemd"
	ln -s ../../bin/udevadm "$root/usr/lib/systemd/systemd-udevd"
	for m in "${!loadlist[@]}"; do
		# shellcheck disable=SC2086 # one .ko per word
		printf '%s\n' ${loadlist[$m]} >"$root/etc/vm-modules/$m"
	done
	cat >"$root/etc/passwd" <<-'EOF'
		root:x:0:0:root:/root:/bin/sh
		grid:x:54331:54321:Oracle Grid Infrastructure:/nonexistent:/bin/false
		nobody:x:65534:65534:nobody:/nonexistent:/bin/false
	EOF
	cat >"$root/etc/group" <<-'EOF'
		root:x:0:
		disk:x:6:
		tty:x:5:
		kmem:x:15:
		cdrom:x:24:
		tape:x:26:
		audio:x:29:
		video:x:44:
		input:x:105:
		kvm:x:106:
		render:x:107:
		sgx:x:108:
		oinstall:x:54321:
		asmadmin:x:54329:grid
		nogroup:x:65534:
	EOF
	pack "$root" "$stage/base.cpio"
	mv "$stage/base.cpio" "$base"
	for old in "$workdir"/initramfs-base-*.cpio; do
		[ "$old" = "$base" ] || rm -f "$old"
	done
fi

# ---- overlay ---------------------------------------------------------------
files=()
apply=$(dirname "$partalign")/partalign-apply
[ -x "$apply" ] || die "no partalign-apply beside $partalign (partalign runs it for plan, fix and restore)"
add_elf "$partalign" /usr/sbin/partalign
add_elf "$apply" /usr/sbin/partalign-apply
root=$stage/overlay
mkdir -p "$root/vm/scenarios"
stage_files "$root"
install -m 0755 "$here/guest/init" "$root/init"
install -m 0644 "$here/guest/vmlib.sh" "$root/vm/vmlib.sh"
for s in "${scenarios[@]}"; do
	install -m 0644 "$s" "$root/vm/scenarios/"
done
# the sh collector where the package puts it (99-collect runs it)
install -D -m 0755 "$top_srcdir/collect/partalign-collect" \
	"$root/usr/share/partalign/partalign-collect"
# the shipped udev rule(s), for scenarios that install them: as built (next
# to the binary, @sbindir@ filled in), else as in the source tree
mkdir -p "$root/vm/udev-rules"
for r in "$top_srcdir"/udev-rules/*.rules "$(dirname "$partalign")"/udev-rules/*.rules; do
	cp "$r" "$root/vm/udev-rules/"
done
pack "$root" "$stage/overlay.cpio"

cat "$base" "$stage/overlay.cpio" >"$out.tmp"
mv "$out.tmp" "$out"
