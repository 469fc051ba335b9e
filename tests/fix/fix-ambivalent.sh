#!/bin/bash
# Two signatures are data.  A partition (or a whole disk) whose start holds
# an ext4 file system and a stale xfs superblock in its first sector is
# what libblkid calls "ambivalent": its safe probe names no type, and udev
# records none.  partalign used to count that as holding nothing: plain fix
# re-created the partition and fix --new wrote a GPT over such a disk.
# Now it is data everywhere a signature is: plan names it (DESTROYS,
# REFUSED), fix refuses it (exit 4, disk sha256 unchanged), fix --new
# refuses such a disk, provision leaves it untouched, and a partition made
# ambivalent while fix waits at its prompt is caught under the write gate
# (exit 12).  blkid -p confirms each fixture is ambivalent.
. "${top_srcdir:-.}/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd mkfs.ext4 mkfs.xfs python3
PROMPT="$top_srcdir/tests/lib/at-prompt.py"

# the first sector of an xfs file system (its superblock), once
truncate -s 320M "$T_TMP/xfs.img"
mkfs.xfs -q -f "$T_TMP/xfs.img"
dd if="$T_TMP/xfs.img" of="$T_TMP/xfs.sb" bs=512 count=1 status=none
rm -f "$T_TMP/xfs.img"

# ambivalent DEV: ext4 on DEV, xfs's superblock over its first sector
ambivalent() {
	mkfs.ext4 -q -F "$1"
	dd if="$T_TMP/xfs.sb" of="$1" bs=512 count=1 conv=notrunc,fsync status=none
	if blkid -p "$1" >"$T_TMP/blkid" 2>&1; then
		fail "blkid -p $1 names one type: $(cat "$T_TMP/blkid")"
	fi
	grep -q "ambivalent result" "$T_TMP/blkid" || fail "blkid -p $1: $(cat "$T_TMP/blkid")"
}

TABLE='label: gpt\nfirst-lba: 34\nstart=63, size=131072, name=data\nstart=135168, size=8192, name=spare'

echo "# a partition with two signatures: plan names it, fix refuses it"
dev=$(mkdisk amb 96M 512 "$TABLE")
ambivalent "${dev}p1"
sum=$(dev_sum "$dev")
run_pa "$T_TMP/out" "$T_TMP/err" plan -J -o NUM,DESTROYS,REFUSED "$dev"
expect_rc 4 "plan"
jq -e '.plan[] | select(.num == 1) | .destroys | test("^ambivalent: ")' "$T_TMP/out" >/dev/null ||
	fail "plan does not name what partition 1 holds: $(cat "$T_TMP/out")"
jq -e '.plan[] | select(.num == 1) | .refused | test("partition 1 holds ambivalent: ")' "$T_TMP/out" >/dev/null ||
	fail "plan shows no refusal for partition 1: $(cat "$T_TMP/out")"
pa_fix "$dev"
expect_rc 4 "fix"
grep -q "partition 1 holds ambivalent: " "$T_TMP/err" ||
	fail "fix: $(cat "$T_TMP/err")"
[ "$(dev_sum "$dev")" = "$sum" ] || fail "fix wrote to the disk"

echo "# a whole disk with two signatures: fix --new refuses it"
blank=$(mkdisk ambwhole 96M 512)
ambivalent "$blank"
sum=$(dev_sum "$blank")
run_pa "$T_TMP/out" "$T_TMP/err" fix --new --yes --backup-dir "$BK" "$blank"
expect_rc 4 "fix --new"
grep -q "ambivalent: " "$T_TMP/err" || fail "fix --new: $(cat "$T_TMP/err")"
[ "$(dev_sum "$blank")" = "$sum" ] || fail "fix --new wrote to the disk"
[ "$(sfdisk -d "$blank" 2>/dev/null | grep -c '^label')" = 0 ] || fail "fix --new: a table on the disk"

echo "# provision leaves such a disk untouched"
id=$(cat "/sys/block/${blank#/dev/}/loop/backing_file")
printf 'rules %s\nDATA01 %s\n' "$T_TMP/asm.rules" "$blank" >"$T_TMP/prov.conf"
run_pa "$T_TMP/out" "$T_TMP/err" provision --config "$T_TMP/prov.conf" --backup-dir "$BK"
[ "$PA_RC" -ge 4 ] || fail "provision: exit $PA_RC, expected a refusal: $(cat "$T_TMP/err")"
grep -q "ambivalent" "$T_TMP/err" "$T_TMP/out" || fail "provision does not say why: $(cat "$T_TMP/err")"
[ "$(dev_sum "$blank")" = "$sum" ] || fail "provision wrote to the disk ($id)"

echo "# made ambivalent while fix waits at its prompt: caught under the write gate"
dev=$(mkdisk ambgate 96M 512 "$TABLE")
# (mkfs refuses a disk fix holds O_EXCL: the file systems are made in a file
# and written with dd, as any tool without O_EXCL can)
truncate -s 64M "$T_TMP/amb.img"
ambivalent "$T_TMP/amb.img"
PA_RC=0
python3 "$PROMPT" "$T_TMP/tty" y "dd if=$T_TMP/amb.img of=${dev}p1 bs=1M conv=fsync status=none" \
	-- "$PARTALIGN" fix --backup-dir "$BK" "$dev" || PA_RC=$?
[ "$PA_RC" != 125 ] || fail "at-prompt: no prompt: $(cat "$T_TMP/tty")"
expect_rc 12 "fix, partition 1 made ambivalent at the prompt"
grep -q "partition 1 now holds ambivalent: " "$T_TMP/tty" || fail "the gate: $(cat "$T_TMP/tty")"
blkid -p "${dev}p1" >"$T_TMP/blkid" 2>&1 || true
grep -q "ambivalent result" "$T_TMP/blkid" || fail "the other party's file systems are gone: $(cat "$T_TMP/blkid")"
[ "$(sfd_layout "$dev" | awk '{print $2}' | head -1)" = 63 ] || fail "the table changed"
echo PASS
