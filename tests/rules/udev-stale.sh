#!/bin/bash
# A udev database entry that disagrees with the device: the PARTUUID udev
# stored for a loop partition is not the one in its GPT entry (a table
# rewritten while udev was not looking).  Each run gets a private mount
# namespace (unshare -m) with a tmpfs on /run and a fake database file
# /run/udev/data/b<maj>:<min> ("E:KEY=value" lines, as udev writes them), so
# the host's /run is untouched.  The disk's own PARTUUID is read with blkid -p.
#   rules --disk NAME=PARTITION, and rules --disk NAME=partuuid:<udev's>:
#     exit 8, one line naming both UUIDs ("the udev database says PARTUUID X,
#     the partition table on the disk says Y: stale udev data; run 'udevadm
#     trigger ..."), no rules file;
#   check --probe: column UDEV (JSON key "udev") "stale" and the same line
#     as a warning; check without --probe cannot compare: null;
#   the control: a database that agrees gives "ok" and a rule on the disk's
#     PARTUUID;
#   partition 1 deleted from the table (sfdisk --delete, the kernel not
#     told): "the partition table on the disk says there is no partition 1",
#     refused and stale as well.  (A disk without any table tells nothing:
#     umockdev's nodes read as zeros too.)
. "$top_srcdir/tests/lib/common.sh"
need_root
need_cmd unshare mount sfdisk partx blkid jq

# the partition numbers in the on-disk table, as sfdisk lists them
sfd_parts() {
	sfdisk --json "$1" | jq -r '[.partitiontable.partitions[].node | capture("(?<n>[0-9]+)$").n] | join(" ")'
}

d=$(mkdisk stale 64M 512 'label: gpt\nstart=2048,size=20000\nstart=24576,size=20000')
p=${d}p1
[ -e "/sys/class/block/${p#/dev/}" ] || fail "no partition $p"
mm=$(cat "/sys/class/block/${p#/dev/}/dev")
ondisk=$(blkid -p -o value -s PART_ENTRY_UUID "$p")
[ -n "$ondisk" ] || fail "blkid found no PARTUUID on $p"
STALE=0badc0de-1111-4222-8333-444455556666
[ "$STALE" != "$ondisk" ] || fail "the stale UUID is the disk's"

# in_db UUID CMD...: CMD with a udev database that gives $p PARTUUID UUID;
# stdout in $T_TMP/out, stderr in $T_TMP/err, status in $RC
in_db() {
	local uuid=$1
	shift
	RC=0
	unshare -m --propagation private bash -c '
		set -e
		mount -t tmpfs partalign-test-run /run
		mkdir -p /run/udev/data
		printf "E:DEVTYPE=partition\nE:ID_PART_TABLE_TYPE=gpt\nE:ID_PART_ENTRY_SCHEME=gpt\nE:ID_PART_ENTRY_NUMBER=1\nE:ID_PART_ENTRY_UUID=%s\n" \
			"$1" >"/run/udev/data/b$2"
		shift 2
		exec "$@"' in-db "$uuid" "$mm" "$@" >"$T_TMP/out" 2>"$T_TMP/err" </dev/null || RC=$?
}

stale_line="the udev database says PARTUUID $STALE, the partition table on the disk says $ondisk: stale udev data; run 'udevadm trigger --action=change $p' and 'udevadm settle'"

# rules: refused, by path and by the stale PARTUUID itself
for sel in "$p" "partuuid:$STALE"; do
	rm -f "$T_TMP/asm.rules"
	in_db "$STALE" "$PARTALIGN" rules --disk "DATA1=$sel" --output "$T_TMP/asm.rules" --no-reload
	assert_eq 8 "$RC" "rules DATA1=$sel with a stale entry (stderr: $(cat "$T_TMP/err"))"
	grep -qF -- "$p: $stale_line (ASM disk DATA1)" "$T_TMP/err" ||
		fail "rules DATA1=$sel: stderr: $(cat "$T_TMP/err")"
	[ ! -e "$T_TMP/asm.rules" ] || fail "rules DATA1=$sel wrote $(cat "$T_TMP/asm.rules")"
	echo "ok: rules DATA1=$sel -> 8: $(head -n1 "$T_TMP/err")"
done

# check --probe marks it, check alone cannot tell
in_db "$STALE" "$PARTALIGN" check --probe --json -o name,partuuid,udev "$d"
assert_eq 4 "$RC" "check --probe (stderr: $(cat "$T_TMP/err"))"
assert_eq stale "$(json_get "${p#/dev/}" udev <"$T_TMP/out")" "check --probe: udev of $p"
assert_eq ok "$(json_get "${d#/dev/}p2" udev <"$T_TMP/out")" \
	"check --probe: udev of ${d}p2 (the database has no entry: the disk's own)"
grep -qF -- "$p: $stale_line" "$T_TMP/err" || fail "check --probe: no warning: $(cat "$T_TMP/err")"
echo "ok: check --probe: $p stale, warned"
in_db "$STALE" "$PARTALIGN" check --json "$d"
assert_eq 4 "$RC" "check (stderr: $(cat "$T_TMP/err"))"
assert_eq null "$(json_get "${p#/dev/}" udev <"$T_TMP/out")" "check without --probe: udev of $p"

# the control: a database that agrees with the disk
in_db "$ondisk" "$PARTALIGN" check --probe --json -o name,udev "$d"
assert_eq ok "$(json_get "${p#/dev/}" udev <"$T_TMP/out")" "check --probe, database right"
! grep -q 'stale' "$T_TMP/err" || fail "check --probe, database right: $(cat "$T_TMP/err")"
in_db "$ondisk" "$PARTALIGN" rules --disk "DATA1=$p" --output "$T_TMP/asm.rules" --no-reload
assert_eq 1 "$RC" "rules with a right database (stderr: $(cat "$T_TMP/err"))"
grep -qF "ENV{ID_PART_ENTRY_UUID}==\"$ondisk\"" "$T_TMP/asm.rules" ||
	fail "rules with a right database: $(cat "$T_TMP/asm.rules")"
echo "ok: a database that agrees: udev ok, the rule on $ondisk"

# partition 1 deleted from the table behind udev's back (the kernel is not
# told, so it still has the partition): udev's PARTUUID names a partition
# the disk no longer has
sfdisk -q --no-reread --no-tell-kernel --delete "$d" 1 >/dev/null
[ -e "/sys/class/block/${p#/dev/}" ] || fail "the kernel dropped $p"
assert_eq 2 "$(sfd_parts "$d")" "the partitions sfdisk sees after --delete 1"
[ -z "$(blkid -p -o value -s PART_ENTRY_UUID "$p")" ] || fail "blkid still finds an entry for $p"
rm -f "$T_TMP/asm.rules"
in_db "$ondisk" "$PARTALIGN" rules --disk "DATA1=$p" --output "$T_TMP/asm.rules" --no-reload
assert_eq 8 "$RC" "rules, partition deleted (stderr: $(cat "$T_TMP/err"))"
grep -qF -- "$p: the udev database says PARTUUID $ondisk, the partition table on the disk says there is no partition 1: stale udev data" "$T_TMP/err" ||
	fail "rules, partition deleted: stderr: $(cat "$T_TMP/err")"
[ ! -e "$T_TMP/asm.rules" ] || fail "rules, partition deleted, wrote $(cat "$T_TMP/asm.rules")"
in_db "$ondisk" "$PARTALIGN" check --probe --json -o name,udev "$d"
assert_eq stale "$(json_get "${p#/dev/}" udev <"$T_TMP/out")" "check --probe, partition deleted"
echo "ok: partition 1 deleted from the table: rules refused, check --probe stale"
