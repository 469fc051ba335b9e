# partalign fix on a 512e disk that grew since its GPT was written (as a
# vmdk or LUN made larger): the virtio-blk 512e disk pa-vblk-fix (512-byte
# logical, 4 KiB physical sectors) gets the GPT sfdisk writes for a 16 MiB
# disk -- the head at the start, the backup entries and header at the 16 MiB
# mark -- so its backup is not at the end.  plan says the disk grew; fix
# (exit 1) re-creates the misaligned partition on the grain and writes the
# backup at the real end: the primary header's alternate LBA (read with od)
# is the last sector, the backup header there says it is the backup (its
# own LBA, the primary at LBA 1), and sfdisk --verify finds no problem.  A
# second fix has nothing to do.  After 62-fix-held (same disk).

label=fix512e-grown
disk=$(vm_disks_by_serial pa-vblk-fix)
[ -n "$disk" ] || vm_fatal "no disk with serial pa-vblk-fix"
vm_topology "$disk" "$label" "512 4096 4096 1048576 0" || vm_fatal "not the 512e disk the scenario needs"
dev=/dev/$disk
bk=/tmp/backup-$label
small=$((16 << 20))
last=$(($(blockdev --getsize64 "$dev") / 512 - 1))

# u64 FILE-OR-DEV BYTE: the little-endian 64-bit number there
u64() {
	od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '
}

wipefs -q -a "$dev" >/dev/null 2>&1
dd if=/dev/zero of="$dev" bs=1M count=1 conv=fsync 2>/dev/null
truncate -s "$small" /tmp/small.img
printf 'label: gpt\nfirst-lba: 34\nstart=63, size=8192, name=data\n' |
	sfdisk -q /tmp/small.img >/dev/null 2>&1 || vm_fatal "sfdisk on the 16 MiB image failed"
# the head and the tail of the small disk's GPT, at their places on the big one
dd if=/tmp/small.img of="$dev" bs=512 count=34 conv=notrunc,fsync 2>/dev/null
dd if=/tmp/small.img of="$dev" bs=512 skip=$((small / 512 - 33)) seek=$((small / 512 - 33)) \
	count=33 conv=notrunc,fsync 2>/dev/null
blockdev --rereadpt "$dev" 2>/dev/null
vm_settle
alt=$(u64 "$dev" $((512 + 32)))
if [ "$alt" = $((small / 512 - 1)) ] && [ "$alt" -lt "$last" ]; then
	vm_pass "$label/setup" "$disk: the primary GPT says the backup is at $alt, the last sector is $last"
else
	vm_fatal "setup: alternate LBA $alt, last $last"
fi

partalign plan "$dev" >/tmp/plan.out 2>&1
rc=$?
cat /tmp/plan.out
if [ $rc = 4 ] && grep -q "the disk grew" /tmp/plan.out; then
	vm_pass "$label/plan" "plan exits 4: $(grep -o 'the backup GPT is at sector [0-9]*[^:]*: the disk grew' /tmp/plan.out | head -n 1)"
else
	vm_fail "$label/plan" "plan exits $rc, expected 4 saying the disk grew: $(tr '\n' ' ' </tmp/plan.out)"
fi

partalign fix --yes --backup-dir "$bk" "$dev" >/tmp/fix.out 2>&1
rc=$?
cat /tmp/fix.out
alt=$(u64 "$dev" $((512 + 32)))
self=$(u64 "$dev" $((last * 512 + 24)))
other=$(u64 "$dev" $((last * 512 + 32)))
sig=$(dd if="$dev" bs=512 skip="$last" count=1 2>/dev/null | head -c 8)
start=$(vm_table "$dev" | awk '$1 == 1 { print $2 }')
if sfdisk --verify "$dev" >/tmp/verify.out 2>&1 && ! grep -qi "not on the end\|mismatch\|corrupt\|invalid" /tmp/verify.out; then
	verified=1
else
	verified=0
fi
if [ $rc = 1 ] && [ "$alt" = "$last" ] && [ "$sig" = "EFI PART" ] && [ "$self" = "$last" ] &&
	[ "$other" = 1 ] && [ $verified = 1 ] && [ $((start * 512 % VM_GRAIN)) = 0 ]; then
	vm_pass "$label/fixed" "fix exits 1: partition 1 at $start, the backup GPT at the last sector $last, sfdisk --verify clean"
else
	vm_fail "$label/fixed" "fix exits $rc: start $start, alternate $alt, backup '$sig' self $self other $other (last $last), verify: $(tr '\n' ' ' </tmp/verify.out) $(tr '\n' ' ' </tmp/fix.out)"
fi

partalign fix --yes --backup-dir "$bk" "$dev" >/tmp/fix.out 2>&1
rc=$?
if [ $rc = 0 ]; then
	vm_pass "$label/fix-again" "a second fix exits 0"
else
	vm_fail "$label/fix-again" "a second fix exits $rc: $(tr '\n' ' ' </tmp/fix.out)"
fi
