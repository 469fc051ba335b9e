# partalign check --json with no arguments, over every device the earlier
# scenarios left (virtio-blk, virtio-scsi, NVMe, the multipath map and its
# kpartx maps): every kernel partition of a non-path disk and every kpartx
# map is listed once with the kernel's own alignment offset, no partition of
# a multipath path is listed, and the exit status says "misaligned" without
# "operational error".

label=all
vm_run_check || vm_fatal "partalign check --json gave no JSON (exit $VM_RC)"

# the expected rows: kernel partitions of disks that are not multipath paths
# (those the multipath maps hold), and the kpartx maps
held=$(for m in /sys/block/dm-*; do
	case $(cat "$m/dm/uuid" 2>/dev/null) in
	mpath-*) for p in "$m"/slaves/*; do echo "${p##*/}"; done ;;
	esac
done)
want=
for s in /sys/block/*; do
	d=${s##*/}
	case $d in loop* | ram* | zram*) continue ;; esac
	echo "$held" | grep -xF "$d" >/dev/null && continue
	case $d in
	dm-*)
		case $(cat "$s/dm/uuid" 2>/dev/null) in
		part*-mpath-*) want="$want$d $(cat "$s/alignment_offset")
" ;;
		esac
		;;
	*)
		for p in $(vm_kernel_parts "$d"); do
			want="$want$p $(cat "$s/$p/alignment_offset")
"
		done
		;;
	esac
done
want=$(printf '%s' "$want" | sort)
[ -n "$want" ] || vm_fatal "nothing to audit: run with the scenarios that make the partitions"
got=$(for r in $(vm_json_select type part); do echo "$r $(vm_json "$r" alignment)"; done | sort)
if [ "$got" = "$want" ]; then
	vm_pass "$label/partitions" "$(echo "$want" | wc -l) partitions, each once, alignment as the kernel's"
else
	vm_fail "$label/partitions" "expected [$(echo "$want" | tr '\n' ';')] got [$(echo "$got" | tr '\n' ';')]"
fi

paths=$(vm_json_select type path | sort | tr '\n' ' ')
wantpaths=$(echo "$held" | grep . | sort | tr '\n' ' ')
if [ "$paths" = "$wantpaths" ]; then
	vm_pass "$label/paths" "paths listed as such: ${paths:-none}"
else
	vm_fail "$label/paths" "expected paths '$wantpaths', got '$paths'"
fi

if [ $((VM_RC & 4)) -ne 0 ] && [ $((VM_RC & 24)) -eq 0 ]; then
	vm_pass "$label/exit" "exit $VM_RC: misalignment found, no error"
else
	vm_fail "$label/exit" "exit $VM_RC, expected 4 (misaligned partitions exist) without 8 or 16"
fi
