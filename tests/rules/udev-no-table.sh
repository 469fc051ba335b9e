#!/bin/bash
# A partition whose disk holds no readable partition table any more: the
# GPT of a loop disk is zeroed (both copies and the protective MBR) while
# the kernel keeps the partition, and udev's database (a fake one in a
# private mount namespace, as in udev-stale.sh) still has the PARTUUID the
# table had.  That PARTUUID is confirmed nowhere on the device, and a rule on
# it would match nothing once the kernel reads the disk again:
#   rules --disk NAME=PARTITION and NAME=partuuid:<udev's>: exit 8, one
#     line naming the partition, the PARTUUID and the disk, no rules file;
#   the control, before the table is zeroed: the same database gives a rule
#     on that PARTUUID (exit 1);
#   --match wwn on the same partition (the rule is on the disk's WWN and
#     the partition number, not on the PARTUUID) is not refused for this.
. "$top_srcdir/tests/lib/common.sh"
need_root
need_cmd unshare mount sfdisk partx blkid dd

d=$(mkdisk notable 64M 512 'label: gpt\nstart=2048,size=20000')
p=${d}p1
[ -e "/sys/class/block/${p#/dev/}" ] || fail "no partition $p"
mm=$(cat "/sys/class/block/${p#/dev/}/dev")
uuid=$(blkid -p -o value -s PART_ENTRY_UUID "$p")
[ -n "$uuid" ] || fail "blkid found no PARTUUID on $p"
WWN=0x5000c500deadbeef

# in_db CMD...: CMD with a udev database that gives $p the PARTUUID $uuid
# (and a WWN); stdout in $T_TMP/out, stderr in $T_TMP/err, status in $RC
in_db() {
	RC=0
	unshare -m --propagation private bash -c '
		set -e
		mount -t tmpfs partalign-test-run /run
		mkdir -p /run/udev/data
		printf "E:DEVTYPE=partition\nE:ID_PART_TABLE_TYPE=gpt\nE:ID_PART_ENTRY_SCHEME=gpt\nE:ID_PART_ENTRY_NUMBER=1\nE:ID_PART_ENTRY_UUID=%s\nE:ID_WWN=%s\n" \
			"$1" "$2" >"/run/udev/data/b$3"
		shift 3
		exec "$@"' in-db "$uuid" "$WWN" "$mm" "$@" >"$T_TMP/out" 2>"$T_TMP/err" </dev/null || RC=$?
}

# the control: the table is there
in_db "$PARTALIGN" rules --disk "DATA1=$p" --output "$T_TMP/asm.rules" --no-reload
assert_eq 1 "$RC" "rules with the table in place (stderr: $(cat "$T_TMP/err"))"
grep -qF "ENV{ID_PART_ENTRY_UUID}==\"$uuid\"" "$T_TMP/asm.rules" ||
	fail "rules with the table in place: $(cat "$T_TMP/asm.rules")"
echo "ok: the table in place: a rule on $uuid"

# zero the protective MBR, the primary GPT (sectors 0-33) and the backup
# (the last 33 sectors), behind the kernel's back: it keeps $p
sectors=$(($(stat -c %s "$T_TMP/notable.img") / 512))
dd if=/dev/zero of="$d" bs=512 count=34 conv=notrunc,fsync status=none
dd if=/dev/zero of="$d" bs=512 seek=$((sectors - 33)) count=33 conv=notrunc,fsync status=none
[ -e "/sys/class/block/${p#/dev/}" ] || fail "the kernel dropped $p"
[ -z "$(blkid -p -o value -s PTTYPE "$d")" ] || fail "blkid still finds a table on $d"
[ -z "$(blkid -p -o value -s PART_ENTRY_UUID "$p")" ] || fail "blkid still finds an entry for $p"

line="$p: the udev database says PARTUUID $uuid, but its disk $d has no partition table libblkid can read: the PARTUUID is not on the device; restore the table (partalign restore) or check it with 'sfdisk -d $d' (ASM disk DATA1)"
for sel in "$p" "partuuid:$uuid"; do
	rm -f "$T_TMP/asm.rules"
	in_db "$PARTALIGN" rules --disk "DATA1=$sel" --output "$T_TMP/asm.rules" --no-reload
	assert_eq 8 "$RC" "rules DATA1=$sel, no table (stderr: $(cat "$T_TMP/err"))"
	grep -qxF -- "partalign: $line" "$T_TMP/err" ||
		fail "rules DATA1=$sel, no table: stderr: $(cat "$T_TMP/err")"
	[ ! -e "$T_TMP/asm.rules" ] || fail "rules DATA1=$sel, no table, wrote $(cat "$T_TMP/asm.rules")"
	echo "ok: rules DATA1=$sel, no table -> 8: $(head -n 1 "$T_TMP/err")"
done

# a rule on the disk's WWN and the partition number is not a PARTUUID rule
rm -f "$T_TMP/asm.rules"
in_db "$PARTALIGN" rules --match wwn --disk "DATA1=$p" --output "$T_TMP/asm.rules" --no-reload
! grep -qF 'no partition table libblkid can read' "$T_TMP/err" ||
	fail "rules --match wwn refused for the missing table: $(cat "$T_TMP/err")"
echo "ok: rules --match wwn, no table: exit $RC, not refused for the table"
