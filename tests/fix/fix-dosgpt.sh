#!/bin/bash
# A dos table beside a valid GPT header (another tool's leftover, or what a
# dos -> GPT fix of an earlier build left when it was killed between the
# primary GPT and sector 0).  The kernel, libblkid and libparted read such a
# disk as dos (parted and blkid -p say so here); partalign reads it as they
# do, warns about the GPT beside it, and proves, under the write gate, what
# they read: the dos sector 0 and every extended boot record.  Before, the
# proof covered the GPT areas only, so an EBR another tool changed while fix
# waited at its prompt was overwritten, and fix said "fixed".  Now: exit 12,
# the disk byte-identical to what the other tool left.  The crash sweep of
# fix-crash.sh checks that no crash point of a dos -> GPT fix leaves two
# labels (two_labels in tests/fix/lib.sh).
. "${top_srcdir:-.}/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd python3
PROMPT="$top_srcdir/tests/lib/at-prompt.py"

# the dos layout, made in an image of its own: sector 0 and the EBR chain
truncate -s 64M "$T_TMP/dos.img"
printf 'label: dos\nstart=63, size=20000, type=83\nstart=40960, size=40960, type=5\nstart=41023, size=20000, type=83\n' |
	sfdisk -q --no-reread --no-tell-kernel "$T_TMP/dos.img" >/dev/null
# the disk: a GPT first, then the dos sector 0 and EBR over it
truncate -s 64M "$T_TMP/two.img"
sgdisk -n 1:2048:+16M -c 1:leftover "$T_TMP/two.img" >/dev/null
dd if="$T_TMP/dos.img" of="$T_TMP/two.img" bs=512 count=1 conv=notrunc status=none
dd if="$T_TMP/dos.img" of="$T_TMP/two.img" bs=512 skip=40960 seek=40960 count=1 conv=notrunc status=none
dev=$(loop_attach "$T_TMP/two.img" 512)
partx -a "$dev" 2>/dev/null || partx -u "$dev"

# independent readers: dos for libparted and libblkid, a valid GPT at LBA 1
parted -s "$dev" print 2>/dev/null | grep -q '^Partition Table: msdos' ||
	fail "parted does not read dos: $(parted -s "$dev" print 2>&1)"
[ "$(blkid -p -s PTTYPE -o value "$dev")" = dos ] || fail "blkid -p: $(blkid -p "$dev")"
two_labels "$dev" || fail "the fixture has no valid GPT header beside its dos table"

echo "# plan reads dos, as they do, and names the GPT beside it"
run_pa "$T_TMP/out" "$T_TMP/err" plan -r -n -o NUM,ACTION "$dev"
expect_rc 4 "plan"
grep -q "a valid GPT header is on the disk too (sector 1), beside its dos table" "$T_TMP/err" ||
	fail "plan does not warn: $(cat "$T_TMP/err")"
[ "$(awk '{print $1}' "$T_TMP/out" | sort -n | tr '\n' ' ')" = "1 2 5 " ] ||
	fail "plan does not show the dos partitions 1, 2 and 5: $(cat "$T_TMP/out")"

echo "# an EBR changed at fix's prompt: the gate sees it"
# the logical partition's size in its EBR, made 10000 sectors
ebr_edit="python3 -c 'import struct,sys; f=open(sys.argv[1],\"r+b\"); f.seek(40960*512+446+12); f.write(struct.pack(\"<I\",10000)); f.flush(); import os; os.fsync(f.fileno())' $dev"
PA_RC=0
python3 "$PROMPT" "$T_TMP/tty" y "$ebr_edit" -- "$PARTALIGN" fix --backup-dir "$BK" "$dev" || PA_RC=$?
[ "$PA_RC" != 125 ] || fail "at-prompt: no prompt, or the edit failed: $(cat "$T_TMP/tty")"
expect_rc 12 "fix with an EBR changed at its prompt"
grep -q "refused: the disk changed since it was read: an extended boot record changed" "$T_TMP/tty" ||
	fail "fix: $(cat "$T_TMP/tty")"
[ "$(sfdisk -d "$dev" | sed -n 's/.*5 : start= *41023, size= *\([0-9]*\).*/\1/p')" = 10000 ] ||
	fail "the other tool's EBR is not on the disk: $(sfdisk -d "$dev")"
[ "$(sfd_label "$dev")" = dos ] || fail "the table is no longer dos"
echo PASS
