#!/bin/bash
# check --probe reads the stripe geometry of XFS and ext4 file systems from
# their superblocks (issue #15) and judges it against the device's minimum
# and optimal I/O.  A loop device reports no optimal I/O: a file system with
# a stripe geometry is n/a with a reason that names it, one without is n/a
# without a clause; plain check leaves the FS column empty.  The expected
# numbers come from xfs_db and dumpe2fs.  (Geometry against a real optimal
# I/O size: tests/vm/scenarios/98-lvm-fs.sh.)
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/integration/helpers.sh"
need_root
need_cmd mkfs.xfs xfs_db mke2fs dumpe2fs jq

out=$T_TMP/out
err=$T_TMP/err

dev=$(mkdisk fsdisk 256M 512 "label: gpt\nstart=4096,size=196608\nstart=200704,size=196608")
disk=${dev#/dev/}
p1=${disk}p1 p2=${disk}p2
bare=$(mkdisk fsbare 64M 512)
# xfsprogs 6 makes file systems under 300 MB only for its test suite
TEST_DIR=1 TEST_DEV=1 QA_CHECK_FS=1 mkfs.xfs -q -f -l size=16m -d agcount=2,su=64k,sw=3 \
	"/dev/$p1" >/dev/null 2>&1 || fail "mkfs.xfs on $p1"
mke2fs -q -F -t ext4 "/dev/$p2" >/dev/null 2>&1 || fail "mke2fs on $p2"
mke2fs -q -F -t ext4 -b 4096 -E stride=16,stripe_width=48 "$bare" >/dev/null 2>&1 ||
	fail "mke2fs on $bare"

# the oracle: bytes from the tools, "N KiB" as partalign writes sizes
kib() { echo "$(($1 / 1024)) KiB"; }
xv() { xfs_db -r -c sb -c "p $2" "$1" | awk '{ print $3 }'; }
ev() { dumpe2fs -h "$1" 2>/dev/null | awk -F: -v k="$2" '$1 == k { gsub(/ /, "", $2); print $2 }'; }
xw=$(($(xv "/dev/$p1" width) * $(xv "/dev/$p1" blocksize)))
ew=$(($(ev "$bare" "RAID stripe width") * $(ev "$bare" "Block size")))
[ "$xw" -gt 0 ] && [ "$ew" -gt 0 ] || fail "no stripe geometry from xfs_db/dumpe2fs ($xw $ew)"
[ -z "$(ev "/dev/$p2" "RAID stripe width")" ] || fail "$p2: mke2fs set a stripe width"
[ "$(cat "/sys/block/$disk/queue/optimal_io_size")" = 0 ] || skip "loop device with an optimal I/O size"

run_pa "$out" "$err" check --probe --json "$dev" "$bare"
[ -s "$err" ] && fail "--probe: stderr: $(cat "$err")"
expect_rc 0 "--probe"
assert_eq "n/a n/a n/a" "$(json_get "$p1" fs <"$out") $(json_get "$p2" fs <"$out") \
$(json_get "${bare#/dev/}" fs <"$out")" "--probe: FS verdicts"
json_get "$p1" reason <"$out" | grep -qF "fs: XFS swidth $(kib "$xw"), the device reports no optimal I/O size" ||
	fail "$p1: reason: $(json_get "$p1" reason <"$out")"
json_get "${bare#/dev/}" reason <"$out" |
	grep -qF "fs: ext4 stripe_width $(kib "$ew"), the device reports no optimal I/O size" ||
	fail "${bare#/dev/}: reason: $(json_get "${bare#/dev/}" reason <"$out")"
json_get "$p2" reason <"$out" | grep -q "fs:" &&
	fail "$p2: an fs clause without geometry: $(json_get "$p2" reason <"$out")"

# -o FS in a table; not among the default columns
run_pa "$out" "$err" check --probe -r -n -o NAME,FS "$dev"
assert_eq "$p1 n/a|$p2 n/a" "$(paste -sd'|' "$out")" "-o NAME,FS"
run_pa "$out" "$err" check --probe -r "$dev"
head -n 1 "$out" | grep -qw FS && fail "FS in the default table: $(head -n 1 "$out")"

# without --probe: nothing read, FS empty, no fs clause
run_pa "$out" "$err" check --json "$dev" "$bare"
expect_rc 0 "plain check"
assert_eq "null null null" "$(json_get "$p1" fs <"$out") $(json_get "$p2" fs <"$out") \
$(json_get "${bare#/dev/}" fs <"$out")" "plain check: FS"
grep -q '"fs: ' "$out" && fail "plain check: an fs clause: $(cat "$out")"
exit 0
