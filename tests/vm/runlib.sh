# tests/vm/runlib.sh: the start shared by run-vm.sh and run-powercut.sh.
# Source it after setting vm_prefix (the name on every line, e.g. "vm") and
# here (the tests/vm directory).  It parses [--workdir DIR] [PARTALIGN],
# defines skip (exit 77; 99 under PARTALIGN_TEST_STRICT=1) and error
# (exit 99), and finds qemu and a kernel image that has its modules:
# sets workdir, partalign, qemu, kernel and kver.
set -euo pipefail
export LC_ALL=C
export PATH="$PATH:/usr/sbin:/sbin"

workdir=$here/work
while [ $# -gt 0 ]; do
	case $1 in
	--workdir) workdir=$2; shift 2 ;;
	-*) echo "usage: ${0##*/} [--workdir DIR] [PARTALIGN]" >&2; exit 99 ;;
	*) break ;;
	esac
done
partalign=${1:-${PARTALIGN:-$here/../../partalign}}

skip() {
	echo "$vm_prefix: SKIPPED: $*"
	if [ "${PARTALIGN_TEST_STRICT:-0}" = 1 ]; then
		echo "$vm_prefix: ERROR: the VM suite cannot run and PARTALIGN_TEST_STRICT=1" >&2
		exit 99
	fi
	exit 77
}

error() {
	echo "$vm_prefix: ERROR: $*" >&2
	exit 99
}

qemu=${QEMU:-qemu-system-x86_64}
command -v "$qemu" >/dev/null || skip "$qemu not found (Debian: apt-get install qemu-system-x86)"
kernel=${VM_KERNEL:-}
if [ -z "$kernel" ]; then
	# shellcheck disable=SC2012 # version sort
	for k in $(ls -1v /boot/vmlinuz-* 2>/dev/null | tac); do
		if [ -f "/lib/modules/${k##*/vmlinuz-}/modules.dep" ]; then
			kernel=$k
			break
		fi
	done
fi
[ -n "$kernel" ] || skip "no kernel image with modules in /boot (Debian: apt-get install linux-image-amd64; or set VM_KERNEL)"
[ -f "$kernel" ] || skip "no kernel image $kernel"
[ -r "$kernel" ] || skip "cannot read $kernel (run as root or set VM_KERNEL)"
kver=${kernel##*/vmlinuz-}
[ -f "/lib/modules/$kver/modules.dep" ] || skip "no modules for $kver in /lib/modules"
