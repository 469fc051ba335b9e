#!/bin/bash
# partalign rules on hosts this machine cannot build, faked with umockdev
# (tests/rules/testbeds): SCSI disks with NAA-5 and NAA-6 WWNs, virtio with and
# without a serial, NVMe namespaces, dm-multipath maps with kpartx partitions
# and their paths, hostile and cloned IDs.  Generated files are compared byte
# for byte with tests/rules/expected/; refusals by their messages.
. "$top_srcdir/tests/lib/common.sh"
need_cmd umockdev-run

BEDS="$top_srcdir/tests/rules/testbeds"
EXPECTED="$top_srcdir/tests/rules/expected"

# libudev also reads the host's udev database (/run/udev/data), which
# umockdev does not redirect: hide it behind an empty /run when it exists.
WRAP=()
if [ -e /run/udev/data ]; then
	unshare -m --propagation private true 2>/dev/null ||
		skip "cannot hide the host's udev database from the testbeds"
	WRAP=(unshare -m --propagation private -- sh -c
		'mount -t tmpfs -o size=64k partalign-golden /run && exec "$@"' golden)
fi

# rules BED EXPECTED_RC ARGS...: partalign rules under the testbed; stdout in
# $T_TMP/out, stderr without the host-dependent account warnings in $T_TMP/err.
rules() {
	local bed=$1 want=$2 rc=0
	shift 2
	[ -f "$T_TMP/$bed.umockdev" ] || sed '/^#/d' "$BEDS/$bed.umockdev" >"$T_TMP/$bed.umockdev"
	"${WRAP[@]}" umockdev-run --device "$T_TMP/$bed.umockdev" -- \
		"$PARTALIGN" rules --no-reload "$@" >"$T_TMP/out" 2>"$T_TMP/err.all" || rc=$?
	grep -vE '^partalign: warning: (user|group) [a-z]+ does not exist' "$T_TMP/err.all" \
		>"$T_TMP/err" || true
	[ "$rc" = "$want" ] ||
		fail "$bed: rules $*: exit $rc, expected $want: $(cat "$T_TMP/out" "$T_TMP/err")"
}
err_has() {
	grep -qF -- "$1" "$T_TMP/err" || fail "stderr lacks '$1': $(cat "$T_TMP/err")"
}
# golden NAME: the file written to $T_TMP/NAME.rules is expected/NAME.rules
golden() {
	cmp -s "$EXPECTED/$1.rules" "$T_TMP/$1.rules" ||
		fail "$1.rules differs from the expected file: $(diff -u "$EXPECTED/$1.rules" "$T_TMP/$1.rules")"
	[ ! -s "$T_TMP/err" ] || fail "$1: unexpected messages: $(cat "$T_TMP/err")"
}

# --- SCSI ---------------------------------------------------------------------
cat >"$T_TMP/scsi.map" <<'EOF'
# GPT partitions by path and by PARTUUID
DATA1 /dev/sda1
DATA2 partuuid:3F2C7A10-5B6E-4D8F-9A1B-2C3D4E5F6072
# MBR partition: WWN + partition number
ARCH1 /dev/sdb1 oracle dba 0640
# whole LUNs of one array, told apart by the WWN extension only
LUN1 wwn:0x600a0b80001234560000abcd5e6f7081
LUN2 /dev/sdd
EOF
rules scsi 1 --map "$T_TMP/scsi.map" --output "$T_TMP/scsi.rules"
golden scsi
rules scsi 0 --map "$T_TMP/scsi.map" --output "$T_TMP/scsi.rules"
grep -q 'unchanged' "$T_TMP/out" || fail "scsi rerun: $(cat "$T_TMP/out")"
rules scsi 1 --match serial --disk DATA1=/dev/sda1 --disk ARCH1=/dev/sdb1 \
	--disk LUN1=/dev/sdc --output "$T_TMP/scsi-serial.rules"
golden scsi-serial
rules scsi 1 --match wwn --disk DATA1=/dev/sda1 --disk LUN1=/dev/sdc \
	--output "$T_TMP/scsi-wwn.rules"
golden scsi-wwn
rules scsi 8 --disk X=/dev/sdb2 --disk Y=/dev/sda --output "$T_TMP/no.rules"
err_has "/dev/sdb2: holds data (signature: xfs): ASM would destroy it"
err_has "/dev/sda: holds a gpt partition table: name a partition, not the whole disk"
rules scsi 8 --match dm-uuid --disk X=/dev/sda1 --output "$T_TMP/no.rules"
err_has "/dev/sda1: --match dm-uuid: not a device-mapper device"
rules scsi 8 --match partuuid --disk X=/dev/sdc --output "$T_TMP/no.rules"
err_has "/dev/sdc: --match partuuid: a whole disk has no partition UUID"
[ ! -e "$T_TMP/no.rules" ] || fail "a refused map was written"

# --- virtio and NVMe ------------------------------------------------------------
rules virtio-nvme 1 --disk V1=/dev/vda1 --disk N1=/dev/nvme0n1p1 \
	--disk N2=serial:QEMU_NVMe_Ctrl_NVME0001_2 --output "$T_TMP/virtio-nvme.rules"
golden virtio-nvme
rules virtio-nvme 8 --disk X=/dev/vdb1 --output "$T_TMP/no.rules"
err_has "/dev/vdb1: no usable ID: no GPT partition UUID, and udev knows no WWN or serial number of its disk (virtio disks need a serial number (qemu -device virtio-blk,serial=...; libvirt <serial>), or use a GPT partition (PARTUUID))"

# --- multipath --------------------------------------------------------------------
W=36001405a1b2c3d4e5f60718293a4b5c6
rules multipath 1 --disk DATA1=/dev/dm-1 --disk DATA2=wwn:360014059f8e7d6c5b4a39281706f5e4d \
	--output "$T_TMP/multipath.rules"
golden multipath
# the map's partition named through its paths' IDs: the same rules, unchanged
for sel in "partuuid:9d4c6f0e-2a71-4b5e-8c3d-1f0a2b3c4d5e" "serial:$W-part1" \
	"wwn:0x6001405a1b2c3d4e5f60718293a4b5c6-part1" /dev/sdi1; do
	if [ "$sel" = /dev/sdi1 ]; then
		rules multipath 8 --disk "DATA1=$sel" --disk DATA2=/dev/dm-2 \
			--output "$T_TMP/multipath.rules"
		err_has "/dev/sdi1: is partition 1 of a path of multipath map mpatha: name the map's partition (its kpartx device) instead"
	else
		rules multipath 0 --disk "DATA1=$sel" --disk DATA2=/dev/dm-2 \
			--output "$T_TMP/multipath.rules"
		grep -q unchanged "$T_TMP/out" || fail "DATA1=$sel: $(cat "$T_TMP/out")"
	fi
done
rules multipath 8 --disk X=/dev/sdh --disk Y=/dev/dm-0 --output "$T_TMP/no.rules"
err_has "/dev/sdh: is a path of multipath map mpatha: name the map (/dev/mapper/mpatha) or its partition instead"
err_has "/dev/dm-0: multipath map mpatha holds 1 partition(s): name a partition, not the whole map"
rules multipath 8 --match partuuid --disk X=/dev/dm-1 --output "$T_TMP/no.rules"
err_has "/dev/dm-1: --match partuuid cannot name a device-mapper device: udev matches it by DM_UUID"
grep -q 'sd[hi]' "$T_TMP/multipath.rules" && fail "a multipath rule names a path"

# --- hostile and cloned IDs: refused, never written -------------------------------
rm -f /tmp/partalign-pwned
rules hostile-clones 8 --disk A=/dev/sdq1 --disk B=/dev/sdr1 --output "$T_TMP/no.rules"
err_has "/dev/sdq1: the serial number (ID_SERIAL) udev reports for this device contains a double quote; such a string is never written to a rules file"
err_has "/dev/sdr1: the model name the hardware reports contains a backslash; such a string is never written to a rules file"
grep -qE 'RUN|pwned|KERNEL' "$T_TMP/err.all" && fail "a hostile string reached the messages: $(cat "$T_TMP/err.all")"
rules hostile-clones 8 --match serial --disk C=/dev/sds --output "$T_TMP/no.rules"
err_has "/dev/sds: the serial number (ID_SERIAL) udev reports for this device contains a glob character"
rules hostile-clones 8 --disk D=/dev/sdt2 --match wwn --disk E=/dev/sdu1 --output "$T_TMP/no.rules"
err_has "/dev/sdt2: ID_WWN 0x5000c500deadbeef with partition 2 is not unique: /dev/sdu2 has it too (a cloned VM disk, or a disk seen through two paths without multipath); a rule for D would name both"
err_has "/dev/sdu1: ID_WWN 0x5000c500deadbeef with partition 1 is not unique: /dev/sdt1 has it too"
rules hostile-clones 8 --disk F=/dev/sdt2 --output "$T_TMP/no.rules"
err_has "/dev/sdt2: ID_PART_ENTRY_UUID 4a5b6c7d-0000-4000-8000-00000000c102 is not unique: /dev/sdu2 has it too"
rules hostile-clones 8 --disk G=serial:CLONE-SER-part1 --output "$T_TMP/no.rules"
err_has "serial:CLONE-SER-part1: matches both /dev/sdt1 and /dev/sdu1 (cloned VM disks?): cannot tell which one is G"
# the clean partition of a clone pair is still fine by its unique PARTUUID
rules hostile-clones 1 --disk H=/dev/sdt1 --output "$T_TMP/clone-ok.rules"
grep -q 'ENV{ID_PART_ENTRY_UUID}=="4a5b6c7d-0000-4000-8000-00000000c101"' "$T_TMP/clone-ok.rules" ||
	fail "sdt1 by PARTUUID: $(cat "$T_TMP/clone-ok.rules")"
[ ! -e "$T_TMP/no.rules" ] || fail "a refused map was written"
[ ! -e /tmp/partalign-pwned ] || fail "a hostile serial ran a command"
echo "PASS: golden rules for SCSI, virtio, NVMe, multipath; hostile and cloned IDs refused"
