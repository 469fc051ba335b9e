#!/bin/bash
# Capture the real-kernel fixtures of tests/data: boots the qemu guest of
# run-vm.sh with the scenarios that lay out its disks and 95-dump, which runs
# `partalign dump` for each topology and, with vm.capture=1 on the kernel
# command line, sends each dump to the results port.  Each dump becomes
# DATADIR/NAME.tar.gz (a tarball: a dump is mostly symlinks, which make dist's
# `tar -h` would follow).  Not part of make check or check-vm; run it by hand
# after a change to what the scan reads, and commit the new tarballs:
#
#   bash tests/vm/capture-dumps.sh [--workdir DIR] [--data DATADIR] [PARTALIGN]
#
# DATADIR defaults to tests/data of this source tree.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
data=$here/../data
workdir=$here/work
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--data) data=$2; shift 2 ;;
	--workdir) workdir=$2; shift 2 ;;
	*) args+=("$1"); shift ;;
	esac
done
mkdir -p "$data" "$workdir"
rc=0
VM_APPEND="quiet vm.capture=1" VM_SCENARIOS="10-* 40-* 50-* 95-*" \
	bash "$here/run-vm.sh" --workdir "$workdir" "${args[@]}" || rc=$?
[ "$rc" = 0 ] || echo "capture: the VM suite reported failures (exit $rc); dumps are kept only when complete" >&2
tr -d '\r' <"$workdir/results.log" >"$workdir/results.capture"
n=0
for name in $(sed -n 's/^@@DUMP \([^ ]*\) .*/\1/p' "$workdir/results.capture" | sort -u); do
	tmp=$(mktemp "$workdir/dump.XXXXXX")
	sed -n "s/^@@DUMP $name //p" "$workdir/results.capture" | base64 -d >"$tmp"
	if gzip -t "$tmp" && tar -tzf "$tmp" ./partalign-dump >/dev/null; then
		mv "$tmp" "$data/$name.tar.gz"
		chmod 644 "$data/$name.tar.gz"
		echo "capture: $data/$name.tar.gz"
		n=$((n + 1))
	else
		rm -f "$tmp"
		echo "capture: $name: incomplete dump, not kept" >&2
		rc=1
	fi
done
[ "$n" -gt 0 ] || { echo "capture: no dump received" >&2; exit 1; }
exit "$rc"
