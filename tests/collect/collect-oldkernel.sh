#!/bin/bash
# partalign-collect on hosts shaped like EL7 and EL6: real trees (the
# tests/data dumps from the qemu guest's 6.1 kernel -- virtio-blk, SCSI,
# NVMe, multipath with kpartx maps, dm linear and striped maps -- and a dump
# of a loop disk made here) with the sysfs files that those kernels do not
# have taken away and udev's database put where, and as, their udev kept it.
# The collector runs in a root of busybox alone on each (the shaped tree
# bound read-only as its /sys, /proc, /dev, /run/udev), and check --sysroot
# of the collection must give the reference rows (check --sysroot of the
# untouched tree): every topology value and verdict the same, an identity
# the old host cannot give null, never a different verdict.
#
# What partalign reads (src/scan/scan.c scan_sysfs_attrs) that they lack,
# from the kernel sources of mainline v3.10.105, v2.6.32.9, EL7's
# 3.10.0-1127 and EL6's 2.6.32-642.6.2 and Documentation/ABI:
#   hidden            no kernel before the NVMe multipath hidden flag
#                     (ABI stable/sysfs-block); not in EL7's 3.10.0-1127
#   wwid, device/serial, device/model of an NVMe namespace: no NVMe sysfs
#                     attributes in v3.10 or EL6's nvme backport
#   device/wwid       of a SCSI disk: not in v3.10 nor v2.6.32
#   loop/backing_file v2.6.37 (ABI testing/sysfs-block-loop): no loop/ on
#                     EL6, so the scan skips loop devices there (as unbound)
#   serial            of a virtio-blk disk: not in v2.6.32 (EL6's
#                     2.6.32-642 has it backported; the tree drops it)
# The queue/ limits and alignment_offset (v2.6.31, ABI stable/sysfs-block),
# partition and start, dm/name and dm/uuid, md/ and uevent's DEVTYPE,
# MAJOR, MINOR and DEVNAME are in both.
# udev: EL7's systemd 219 keeps /run/udev/data/bM:m as now (its lines
# without the V: and Q: of systemd 247); EL6's udev 147 kept
# /dev/.udev/db/block:NAME with N:, S:, W: and E: lines, and the properties
# of its 60-persistent-storage.rules only (scsi_id's serial and vendor, no
# WWN, no ID_PART_ENTRY_*, none for virtio, NVMe or dm), and wrote an entry
# without properties as a symlink whose target is the node's name.
# Without dmsetup (busybox) the dm tables are not saved: a kpartx map's
# start, a stacked device's place below are unknown (null, a verdict n/a,
# never another; check says so and exits 8); with the tables (put back)
# every row is the reference's.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/integration/helpers.sh"
. "$top_srcdir/tests/collect/lib.sh"
need_cmd tar gzip

all_cols=$("$PARTALIGN" check --list-columns | awk 'NF { print $1 }' | paste -sd, -)

# the trees: the captured dumps, and one of a loop disk (aligned and not)
trees=()
for t in "$top_srcdir"/tests/data/*.tar.gz; do
	n=${t##*/}
	n=${n%.tar.gz}
	mkdir -p "$T_TMP/ref/$n"
	tar -C "$T_TMP/ref/$n" -xzf "$t"
	trees+=("$n")
done
[ ${#trees[@]} -ge 8 ] || fail "only ${#trees[@]} dumps in tests/data"
lp=$(mkdisk loop 32M 512 'label: gpt\nstart=2048,size=4096\nstart=6207,size=4096')
run_pa "$T_TMP/o" "$T_TMP/e" dump "$T_TMP/ref/loop" "$lp"
expect_rc 0 "partalign dump of $lp ($(cat "$T_TMP/e"))"
trees+=(loop)

# shape TREE el7|el6 DEST: the tree as the old host's /sys, /proc, /dev, /run
shape() {
	local src=$T_TMP/ref/$1 k=$2 dst=$3 l n real dev f
	mkdir -p "$dst/proc/sys/kernel" "$dst/dev" "$dst/run"
	mknod -m 0666 "$dst/dev/null" c 1 3
	cp -a "$src/sys" "$dst/sys"
	cp -a "$src/proc/self" "$dst/proc/self"
	[ ! -f "$src/proc/swaps" ] || cp "$src/proc/swaps" "$dst/proc/swaps"
	if [ "$k" = el7 ]; then
		echo 3.10.0-123.el7.x86_64 >"$dst/proc/sys/kernel/osrelease"
		mkdir -p "$dst/run/udev/data"
	else
		echo 2.6.32-71.el6.x86_64 >"$dst/proc/sys/kernel/osrelease"
		mkdir -p "$dst/dev/.udev/db"
	fi
	find "$dst/sys" -name hidden -type f -delete
	for l in "$dst"/sys/class/block/*; do
		n=${l##*/}
		real=$(readlink -f "$l")
		case $n in
		nvme*) rm -f "$real/wwid" "$real/device/serial" "$real/device/model" ;;
		sd*) rm -f "$real/device/wwid" ;;
		loop*) [ "$k" = el7 ] || rm -rf "$real/loop" ;;
		vd*) [ "$k" = el7 ] || rm -f "$real/serial" ;;
		esac
		dev=$(cat "$real/dev")
		f=$src/run/udev/data/b$dev
		[ -f "$f" ] || continue
		if [ "$k" = el7 ]; then
			grep -v '^[VQ]:' "$f" >"$dst/run/udev/data/b$dev" || true
			continue
		fi
		udev147 "$n" "$f" "$dst/dev/.udev/db/block:$n"
	done
}

# udev147 NAME ENTRY DEST: what udev 147 kept for device NAME
udev147() {
	local n=$1 keys props links
	case $n in
	sd*) keys='ID_VENDOR|ID_VENDOR_ENC|ID_MODEL|ID_MODEL_ENC|ID_REVISION|ID_TYPE|ID_SERIAL|ID_SERIAL_SHORT|ID_BUS|ID_PATH|ID_FS_[A-Z_]*' ;;
	dm-* | md*) keys='DM_NAME|DM_UUID' ;;
	*) keys='ID_PATH|ID_FS_[A-Z_]*' ;;
	esac
	props=$(grep -E "^E:($keys)=" "$2" || true)
	links=$(sed -n 's/^S://p' "$2" | tr '\n' ' ')
	if [ -z "$props" ]; then
		ln -s "$n${links:+ ${links% }}" "$3"
	else
		{
			echo "N:$n"
			sed -n 's/^S:/S:/p' "$2"
			echo "W:1"
			echo "$props"
		} >"$3"
	fi
}

# 1. Collect every tree in both shapes, in one namespace
root=$T_TMP/bbroot
bb_root "$root"
{
	echo 'set -uo pipefail'
	for n in "${trees[@]}"; do
		for k in el7 el6; do
			r=$T_TMP/host-$n-$k
			shape "$n" "$k" "$r"
			if [ "$k" = el7 ]; then
				bb_binds "$root" "$r/sys" "$r/proc" "$r/dev" "$r/run/udev"
			else
				bb_binds "$root" "$r/sys" "$r/proc" "$r/dev" ""
			fi
			printf 'chroot %q /bin/sh /collect/partalign-collect /out/%q >%q 2>&1; echo $? >%q\n' \
				"$root" "$n-$k" "$T_TMP/collect-$n-$k.log" "$T_TMP/collect-$n-$k.rc"
			printf 'chroot %q /bin/sh /collect/partalign-collect --send >%q 2>&1\n' \
				"$root" "$T_TMP/send-$n-$k.out"
			for d in sys proc dev run/udev; do
				printf 'umount %q 2>/dev/null\n' "$root/$d"
			done
		done
	done
	echo 'exit 0'
} >"$T_TMP/ns.sh"
ns_run "$T_TMP/ns.sh" || fail "the namespace script failed"

# cmp_rows REF GOT SHAPE DM: the violations, one a line, of check --json GOT
# against REF (DM=1: the dm tables are missing: a dm row may lose its start
# and place, and a verdict may become n/a -- unknown -- but never another)
cmp_rows() {
	jq -n -r --slurpfile ref "$1" --slurpfile got "$2" --arg shape "$3" --arg dm "$4" '
	def key: .kname // .name;
	def same: ["name", "path", "disk", "type", "maj:min", "partn", "size", "log-sec",
		"phy-sec", "min-io", "opt-io", "alignment", "disk-align", "phys-grain",
		"holders", "paths", "mountpoints"];
	def judged: ["physical", "optimal", "policy", "start", "start-sec", "align-calc",
		"opt-grain", "policy-grain", "abs-start", "layers", "reason"];
	def isloop: (.type == "loop") or ((.disk // "") | startswith("loop"));
	def isdm: (.kname // "") | startswith("dm-");
	($ref[0].devices | map({(key): .}) | add) as $R |
	(($got[0].devices // []) | map({(key): .}) | add // {}) as $G |
	($R | to_entries[] | .key as $k | .value as $r | $G[$k] as $g |
		if $g == null then
			if $shape == "el6" and ($r | isloop) then empty
			else "\($k): no row" end
		elif $shape == "el6" and ($r | isloop) then "\($k): a loop row on EL6, which has no loop/"
		else
			(same[] as $c | select($r[$c] != $g[$c]) |
				"\($k): \($c) \($g[$c] | tojson), the reference has \($r[$c] | tojson)"),
			(judged[] as $c | select($r[$c] != $g[$c]) |
				if $dm == "1" and ($r | isdm) and
					($g[$c] == null or $g[$c] == "n/a" or $c == "reason" or $c == "align-calc")
				then empty
				else "\($k): \($c) \($g[$c] | tojson), the reference has \($r[$c] | tojson)" end),
			(if $shape == "el6" and $g.partuuid != null then
				"\($k): PARTUUID \($g.partuuid) though udev 147 kept none" else empty end),
			(if $shape == "el6" and (($g.kname // "") | startswith("vd")) and $g.serial != null then
				"\($k): SERIAL \($g.serial) though neither sysfs nor udev has one" else empty end),
			(if $shape == "el6" and (($g.kname // "") | startswith("sd")) and $g.wwn != null then
				"\($k): WWN \($g.wwn) though neither sysfs nor udev has one" else empty end)
		end),
	($G | keys[] | select($R[.] == null) | "\(.): a row the reference does not have")'
}

# 2. check --sysroot of each collection against the untouched tree
for n in "${trees[@]}"; do
	run_pa "$T_TMP/ref-$n.json" "$T_TMP/ref-$n.err" check --json -o "$all_cols" --sysroot "$T_TMP/ref/$n"
	ref_rc=$PA_RC
	[ "$(jq '.devices | length' "$T_TMP/ref-$n.json")" -gt 0 ] || fail "$n: no reference rows"
	# what the EL6 shape must take away is there to take
	if compgen -G "$T_TMP/ref/$n/run/udev/data/*" >/dev/null; then
		jq -e '[.devices[] | select(.partuuid != null)] | length > 0' "$T_TMP/ref-$n.json" \
			>/dev/null || fail "$n: no reference row with a PARTUUID"
	fi
	case $n in virtio*)
		jq -e '[.devices[] | select(.serial != null)] | length > 0' "$T_TMP/ref-$n.json" \
			>/dev/null || fail "$n: no reference row with a serial"
		;;
	esac
	# dm devices; any but a multipath map needs its table to be judged
	has_dm=0 needs_table=0
	for u in "$T_TMP/ref/$n"/sys/class/block/dm-*/dm/uuid; do
		[ -f "$u" ] || continue
		has_dm=1
		case $(cat "$u") in mpath-*) ;; *) needs_table=1 ;; esac
	done
	for k in el7 el6; do
		c=$root/out/$n-$k
		assert_eq 0 "$(cat "$T_TMP/collect-$n-$k.rc")" \
			"$n $k: the collector's exit status ($(cat "$T_TMP/collect-$n-$k.log"))"
		[ -s "$c/partalign-dump" ] || fail "$n $k: no collection"
		case $k in
		el7) want_db=/run/udev/data kver=3.10.0-123.el7.x86_64 ;;
		el6) want_db=/dev/.udev/db kver=2.6.32-71.el6.x86_64 ;;
		esac
		# (the loop disk's dump has none: no udevd on the test host)
		compgen -G "$T_TMP/ref/$n/run/udev/data/*" >/dev/null || want_db='none found'
		grep -qx "udev-database $want_db" "$c/partalign-dump" ||
			fail "$n $k: the collector did not find the udev database in $want_db: $(cat "$c/partalign-dump")"
		grep -qx "kernel $kver" "$c/partalign-dump" || fail "$n $k: marker: $(cat "$c/partalign-dump")"
		if [ $has_dm = 1 ]; then
			grep -q 'dmsetup not found' "$T_TMP/collect-$n-$k.log" ||
				fail "$n $k: no word of the dm tables left out: $(cat "$T_TMP/collect-$n-$k.log")"
			[ ! -e "$c/dm" ] || fail "$n $k: dm tables without dmsetup?"
		fi
		# the stream of --send is the same tree
		python3 "$UNPACK" "$T_TMP/send-$n-$k" "$T_TMP/send-$n-$k.out" 2>"$T_TMP/unpack.err" ||
			fail "$n $k: partalign-unpack of --send: exit $?: $(cat "$T_TMP/unpack.err")"
		diff -r --no-dereference "$c" "$T_TMP/send-$n-$k" >&2 ||
			fail "$n $k: --send and DIR collect different trees"
		run_pa "$T_TMP/got.json" "$T_TMP/got.err" check --json -o "$all_cols" --sysroot "$c"
		[ "$PA_RC" -lt 32 ] || fail "$n $k: check --sysroot exit $PA_RC: $(cat "$T_TMP/got.err")"
		if [ $needs_table = 1 ]; then
			# 8: something unknown; 4 as the rows say (a stacked finding
			# may be among the unknowns)
			mis=$(jq '[.devices[] | select(.physical == "misaligned" or
				.optimal == "misaligned" or .policy == "misaligned")] | length' "$T_TMP/got.json")
			assert_eq $((8 | (mis > 0 ? 4 : 0) | (ref_rc & ~12))) "$PA_RC" \
				"$n $k: exit status without the dm tables"
			grep -q 'no device-mapper table' "$T_TMP/got.err" ||
				fail "$n $k: check does not say the dm tables are missing: $(cat "$T_TMP/got.err")"
		elif [ "$n" = loop ] && [ "$k" = el6 ]; then
			assert_eq 0 "$PA_RC" "$n $k: exit status, no device ($(cat "$T_TMP/got.err"))"
		else
			assert_eq "$ref_rc" "$PA_RC" "$n $k: exit status ($(cat "$T_TMP/got.err"))"
		fi
		bad=$(cmp_rows "$T_TMP/ref-$n.json" "$T_TMP/got.json" "$k" "$has_dm")
		[ -z "$bad" ] || fail "$n $k, collected without dmsetup:
$bad"
		if [ $has_dm = 1 ]; then
			cp -a "$T_TMP/ref/$n/dm" "$c/dm"
			run_pa "$T_TMP/got.json" "$T_TMP/got.err" check --json -o "$all_cols" --sysroot "$c"
			assert_eq "$ref_rc" "$PA_RC" "$n $k with the dm tables: exit status ($(cat "$T_TMP/got.err"))"
			bad=$(cmp_rows "$T_TMP/ref-$n.json" "$T_TMP/got.json" "$k" 0)
			[ -z "$bad" ] || fail "$n $k, with the dm tables:
$bad"
		fi
		if [ "$n" = loop ] && [ "$k" = el6 ]; then
			[ "$(jq '.devices | length' "$T_TMP/got.json")" = 0 ] ||
				fail "loop el6: rows of loop devices without loop/"
			echo "ok: loop el6: no row (no loop/ in EL6's sysfs: the scan skips the loops)"
			continue
		fi
		echo "ok: $n $k: $(jq '.devices | length' "$T_TMP/got.json") rows as the reference's$([ $has_dm = 1 ] && echo ', unknown where the dm tables are missing')"
	done
done
