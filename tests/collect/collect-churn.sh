#!/bin/bash
# Devices that come and go while partalign-collect runs: a loop partition
# deleted and another made with its device number between two steps of the
# walk (tests running side by side do it; so does a host rescanning LUNs)
# showed the collector one device number under two names, and partalign-unpack
# refused the whole collection ("sys/dev/block/259:7: made twice"), failing
# the host's audit.  Here a tree made by partalign dump of a loop disk gets
# a second name for its partition 2 (same dev, as the churn leaves it); the
# collector, run in a busybox root with that tree as /sys, says the number
# once and warns; partalign-unpack takes the collection, and check --sysroot
# of it gives the rows of the untouched tree.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/integration/helpers.sh"
. "$top_srcdir/tests/collect/lib.sh"

lp=$(mkdisk churn 32M 512 'label: gpt\nstart=2048,size=4096\nstart=6207,size=4096')
run_pa "$T_TMP/o" "$T_TMP/e" dump "$T_TMP/ref" "$lp"
expect_rc 0 "partalign dump of $lp ($(cat "$T_TMP/e"))"
n=${lp#/dev/}
# the host as the churn leaves it: partition 2's number under a second name
host=$T_TMP/host
mkdir -p "$host/proc/sys/kernel" "$host/dev" "$host/run/udev"
mknod -m 0666 "$host/dev/null" c 1 3
cp -a "$T_TMP/ref/sys" "$host/sys"
cp -a "$T_TMP/ref/proc/self" "$host/proc/self"
[ ! -f "$T_TMP/ref/proc/swaps" ] || cp "$T_TMP/ref/proc/swaps" "$host/proc/swaps"
echo 6.1.0 >"$host/proc/sys/kernel/osrelease"
[ ! -d "$T_TMP/ref/run/udev" ] || cp -a "$T_TMP/ref/run/udev/." "$host/run/udev/"
real=$(readlink -f "$host/sys/class/block/${n}p2")
[ -f "$real/dev" ] || fail "the dump has no ${n}p2"
dev=$(cat "$real/dev")
cp -a "$real" "$(dirname "$real")/${n}p9"
echo 9 >"$(dirname "$real")/${n}p9/partition"
ln -s "$(readlink "$host/sys/class/block/${n}p2" | sed "s/${n}p2\$/${n}p9/")" "$host/sys/class/block/${n}p9"
[ "$(cat "$host/sys/class/block/${n}p9/dev")" = "$dev" ] || fail "setup: ${n}p9 is not $dev"

root=$T_TMP/bbroot
bb_root "$root"
{
	echo 'set -uo pipefail'
	bb_binds "$root" "$host/sys" "$host/proc" "$host/dev" "$host/run/udev"
	printf 'chroot %q /bin/sh /collect/partalign-collect --send >%q 2>&1; echo $? >%q\n' \
		"$root" "$T_TMP/send.out" "$T_TMP/send.rc"
	echo 'exit 0'
} >"$T_TMP/ns.sh"
ns_run "$T_TMP/ns.sh" || fail "the namespace script failed"
# the collection (compressed on the way: partalign-unpack reads it)
rc=0
python3 "$UNPACK" "$T_TMP/got" "$T_TMP/send.out" >"$T_TMP/unpack.out" 2>"$T_TMP/unpack.err" || rc=$?
[ "$rc" = 0 ] || fail "partalign-unpack: exit $rc: $(cat "$T_TMP/unpack.err")"
grep -q "device number $dev seen twice (devices changed during the collection); left out" \
	"$T_TMP/unpack.err" "$T_TMP/unpack.out" ||
	fail "no warning about $dev: $(cat "$T_TMP/unpack.err")"
[ "$(readlink "$T_TMP/got/sys/dev/block/$dev")" = "$(readlink "$T_TMP/ref/sys/dev/block/$dev")" ] ||
	fail "sys/dev/block/$dev is not the first device's"
run_pa "$T_TMP/got.json" "$T_TMP/e" check --json --sysroot "$T_TMP/got" "$lp"
run_pa "$T_TMP/ref.json" "$T_TMP/e" check --json --sysroot "$T_TMP/ref" "$lp"
assert_eq "$(rows "$T_TMP/ref.json" "$n" "${n}p1" "${n}p2")" \
	"$(rows "$T_TMP/got.json" "$n" "${n}p1" "${n}p2")" "the rows of the collection"
echo PASS
