#!/bin/bash
# partalign rules on hosts this machine cannot build, faked with umockdev
# (tests/rules/testbeds): SCSI disks with NAA-5 and NAA-6 WWNs, virtio with and
# without a serial (one with blanks in it), NVMe namespaces, dm-multipath maps
# with kpartx partitions and their paths, hostile and cloned IDs.
#
# What a generated file does is judged by real udev, not by a copy of an
# earlier output: every device of the testbed is played, one after the other,
# by one bare loop device of this host whose udev properties are replaced by
# that device's (ID_SERIAL, ID_WWN, DEVTYPE, PARTN, DM_UUID... imported from
# the testbed's own lines by a test rule), and `udevadm test` applies the
# generated file to it in a private mount namespace.  The expectation, written
# here from the map alone, is which testbed device gets which
# /dev/oracleasm name with which owner, group and mode, and that every other
# device gets none.  Refusals are checked by their messages.
. "$top_srcdir/tests/lib/common.sh"
need_no_sanitizers "umockdev-run"
need_cmd umockdev-run
. "$top_srcdir/tests/rules/lib.sh"

BEDS="$top_srcdir/tests/rules/testbeds"

# ARCH1 of the SCSI map is owned by oracle:dba
grep -q '^oracle:' "$R_NS/passwd" ||
	echo 'oracle:x:54321:54321:Oracle:/home/oracle:/bin/false' >>"$R_NS/passwd"
grep -q '^dba:' "$R_NS/group" || echo 'dba:x:54322:oracle' >>"$R_NS/group"

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

# The testbed's devices, and each one's udev properties as KEY=value lines
# ($T_TMP/props/BED/NAME): what udev's own rules gave the real device.
# DEVNAME, MAJOR, MINOR and SUBSYSTEM stay the loop device's.
split_props() {
	local bed=$1
	mkdir -p "$T_TMP/props/$bed"
	awk -v dir="$T_TMP/props/$bed" '
		/^N: / && $2 ~ /\// { name = ""; next }   # mapper/control: not a block device
		/^N: / { name = $2; print name; printf "" > (dir "/" name); next }
		/^E: / && name != "" {
			kv = substr($0, 4)
			if (kv !~ /^(DEVNAME|MAJOR|MINOR|SUBSYSTEM|DEVPATH)=/)
				print kv >> (dir "/" name)
		}
		/^$/ { name = "" }' "$BEDS/$bed.umockdev"
}

PROBE=$(mkdisk probe 1M 512)
probe=${PROBE#/dev/}

# udev_names BED FILE: for each device of BED, "NAME LINKS OWNER:GROUP MODE"
# as real udev leaves the loop device playing it with FILE installed; LINKS
# are the oracleasm names udev gave it, comma-separated, or "-".
udev_names() {
	local bed=$1 file=$2 devs
	devs=$(split_props "$bed" | tr '\n' ' ')
	cp "$file" "$R_RULES/99-oracle-asmdevices.rules"
	ns_run "$PROBE" -- "
for n in $devs; do
	echo \"KERNEL==\\\"$probe\\\", IMPORT{file}=\\\"$T_TMP/props/$bed/\$n\\\"\" \
		>/etc/udev/rules.d/98-partalign-testbed.rules
	# a fresh node each time: udev keeps the owner of a node it is not told to change
	rm -rf /dev/oracleasm /dev/$probe
	mknod -m 0600 /dev/$probe b \$(tr : ' ' </sys/class/block/$probe/dev)
	utest add $probe
	links=\$(sed -n 's/^DEVLINKS=//p' \$R_NS/utest-$probe.out | tr ' ' '\n' |
		sed -n 's|^/dev/oracleasm/||p' | sort | paste -sd, -)
	echo \"\$n \${links:--} \$(stat -c '%U:%G %a' /dev/$probe)\"
done" >"$T_TMP/udev.$bed" || fail "$bed: udev could not apply $file"
	rm -f "$R_RULES"/*.rules
}

# expect BED FILE: udev_names against the lines on stdin (devices not listed
# must get no name and root:disk 0660, udev's default for a disk)
expect() {
	local bed=$1 file=$2 n
	udev_names "$bed" "$file"
	cat >"$T_TMP/want.named"
	for n in $(split_props "$bed"); do
		grep -q "^$n " "$T_TMP/want.named" || echo "$n - root:disk 660"
	done | cat - "$T_TMP/want.named" | sort >"$T_TMP/want.$bed"
	sort "$T_TMP/udev.$bed" >"$T_TMP/got.$bed"
	cmp -s "$T_TMP/want.$bed" "$T_TMP/got.$bed" ||
		fail "$bed: $file as real udev applies it differs from the expectation:
$(diff -u "$T_TMP/want.$bed" "$T_TMP/got.$bed")
the file:
$(cat "$file")"
	# the documented shape: a comment naming each rule, the keys partalign
	# promises, nowatch on every rule
	awk '
		/^#/ { c = $0; next }
		/^$/ { next }
		{
			if (c !~ /^# [A-Za-z0-9_.-]+: /) { print "no comment before: " $0; bad = 1 }
			split(c, w, ":"); sub(/^# /, "", w[1])
			if (index($0, "SYMLINK+=\"oracleasm/" w[1] "\"") == 0) { print "comment and rule disagree: " $0; bad = 1 }
			if ($0 !~ /^ACTION=="add\|change", SUBSYSTEM=="block", /) { print "no ACTION/SUBSYSTEM: " $0; bad = 1 }
			if ($0 !~ /, OPTIONS:="nowatch"$/) { print "no nowatch: " $0; bad = 1 }
			c = ""
		}
		END { exit bad }' "$file" >"$T_TMP/shape" || fail "$bed: $(cat "$T_TMP/shape")"
	[ ! -s "$T_TMP/err" ] || fail "$bed: unexpected messages: $(cat "$T_TMP/err")"
}

# The loop device really plays the testbed: every device is played, and udev
# has the last one's properties (vdd1), not the loop's.
udev_names virtio-nvme /dev/null
[ "$(wc -l <"$T_TMP/udev.virtio-nvme")" = "$(split_props virtio-nvme | wc -l)" ] ||
	fail "not every testbed device was played: $(cat "$T_TMP/udev.virtio-nvme")"
grep -qx 'ID_SERIAL=pa_vblk_sp' "$R_NS/utest-$probe.out" &&
	grep -qx 'DEVTYPE=partition' "$R_NS/utest-$probe.out" &&
	grep -qx 'ID_PART_ENTRY_UUID=5e6f7084-01' "$R_NS/utest-$probe.out" ||
	fail "the probe did not take vdd1's properties: $(grep -E '^(ID_|DEVTYPE)' "$R_NS/utest-$probe.out")"

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
expect scsi "$T_TMP/scsi.rules" <<'EOF'
sda1 DATA1 grid:asmadmin 660
sda2 DATA2 grid:asmadmin 660
sdb1 ARCH1 oracle:dba 640
sdc LUN1 grid:asmadmin 660
sdd LUN2 grid:asmadmin 660
EOF
# keys chosen as documented: PARTUUID for GPT, WWN + PARTN for MBR, the
# extended WWN for LUNs that share the 64-bit one
grep -qF 'ENV{ID_PART_ENTRY_UUID}=="3f2c7a10-5b6e-4d8f-9a1b-2c3d4e5f6071"' "$T_TMP/scsi.rules" &&
	grep -qF 'ENV{ID_WWN}=="0x5000c500a1b2c3d4", ENV{PARTN}=="1"' "$T_TMP/scsi.rules" &&
	grep -qF 'ENV{ID_WWN_WITH_EXTENSION}=="0x600a0b80001234560000abcd5e6f7082"' "$T_TMP/scsi.rules" ||
	fail "scsi: keys: $(cat "$T_TMP/scsi.rules")"
cp "$T_TMP/scsi.rules" "$T_TMP/scsi.first"
rules scsi 0 --map "$T_TMP/scsi.map" --output "$T_TMP/scsi.rules"
grep -q 'unchanged' "$T_TMP/out" || fail "scsi rerun: $(cat "$T_TMP/out")"
cmp -s "$T_TMP/scsi.first" "$T_TMP/scsi.rules" || fail "scsi rerun changed the file"
rules scsi 1 --match serial --disk DATA1=/dev/sda1 --disk ARCH1=/dev/sdb1 \
	--disk LUN1=/dev/sdc --output "$T_TMP/scsi-serial.rules"
expect scsi "$T_TMP/scsi-serial.rules" <<'EOF'
sda1 DATA1 grid:asmadmin 660
sdb1 ARCH1 grid:asmadmin 660
sdc LUN1 grid:asmadmin 660
EOF
rules scsi 1 --match wwn --disk DATA1=/dev/sda1 --disk LUN1=/dev/sdc \
	--output "$T_TMP/scsi-wwn.rules"
expect scsi "$T_TMP/scsi-wwn.rules" <<'EOF'
sda1 DATA1 grid:asmadmin 660
sdc LUN1 grid:asmadmin 660
EOF
rules scsi 8 --disk X=/dev/sdb2 --disk Y=/dev/sda --output "$T_TMP/no.rules"
err_has "/dev/sdb2: holds data (signature: xfs): ASM would destroy it"
err_has "/dev/sda: holds a gpt partition table: name a partition, not the whole disk"
rules scsi 8 --match dm-uuid --disk X=/dev/sda1 --output "$T_TMP/no.rules"
err_has "/dev/sda1: --match dm-uuid: not a device-mapper device"
rules scsi 8 --match partuuid --disk X=/dev/sdc --output "$T_TMP/no.rules"
err_has "/dev/sdc: --match partuuid: a whole disk has no partition UUID"
[ ! -e "$T_TMP/no.rules" ] || fail "a refused map was written"

# --- virtio and NVMe ------------------------------------------------------------
# vdc's serial holds blanks, which udev keeps in ID_SERIAL; vdd's is the same
# with underscores (as in the by-id link) and must not get vdc's name.  The
# NVMe namespace is named by its controller's serial as udev has it in
# ID_SERIAL_SHORT, and the rule keys on what udev stores.
rules virtio-nvme 1 --disk V1=/dev/vda1 --disk N1=/dev/nvme0n1p1 \
	--disk N2=serial:QEMU_NVMe_Ctrl_NVME0001_2 --disk "V3=serial:pa vblk sp-part1" \
	--output "$T_TMP/virtio-nvme.rules"
expect virtio-nvme "$T_TMP/virtio-nvme.rules" <<'EOF'
vda1 V1 grid:asmadmin 660
nvme0n1p1 N1 grid:asmadmin 660
nvme0n2 N2 grid:asmadmin 660
vdc1 V3 grid:asmadmin 660
EOF
rules virtio-nvme 1 --match serial --disk N1=/dev/nvme0n1p1 --disk V4=/dev/vdd1 \
	--output "$T_TMP/nvme-serial.rules"
expect virtio-nvme "$T_TMP/nvme-serial.rules" <<'EOF'
nvme0n1p1 N1 grid:asmadmin 660
vdd1 V4 grid:asmadmin 660
EOF
grep -qF 'ENV{ID_SERIAL}=="QEMU_NVMe_Ctrl_NVME0001_1", ENV{PARTN}=="1"' "$T_TMP/nvme-serial.rules" ||
	fail "NVMe serial rule: $(cat "$T_TMP/nvme-serial.rules")"
rules virtio-nvme 8 --disk X=/dev/vdb1 --output "$T_TMP/no.rules"
err_has "/dev/vdb1: no usable ID: no GPT partition UUID, and udev knows no WWN or serial number of its disk (virtio disks need a serial number (qemu -device virtio-blk,serial=...; libvirt <serial>), or use a GPT partition (PARTUUID))"

# --- multipath --------------------------------------------------------------------
W=36001405a1b2c3d4e5f60718293a4b5c6
rules multipath 1 --disk DATA1=/dev/dm-1 --disk DATA2=wwn:360014059f8e7d6c5b4a39281706f5e4d \
	--output "$T_TMP/multipath.rules"
# never a path (sdh, sdi) nor the partition the kernel made on one (sdi1)
expect multipath "$T_TMP/multipath.rules" <<'EOF'
dm-1 DATA1 grid:asmadmin 660
dm-2 DATA2 grid:asmadmin 660
EOF
cp "$T_TMP/multipath.rules" "$T_TMP/multipath.first"
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
cmp -s "$T_TMP/multipath.first" "$T_TMP/multipath.rules" || fail "multipath: file changed"
rules multipath 8 --disk X=/dev/sdh --disk Y=/dev/dm-0 --output "$T_TMP/no.rules"
err_has "/dev/sdh: is a path of multipath map mpatha: name the map (/dev/mapper/mpatha) or its partition instead"
err_has "/dev/dm-0: multipath map mpatha holds 1 partition(s): name a partition, not the whole map"
rules multipath 8 --match partuuid --disk X=/dev/dm-1 --output "$T_TMP/no.rules"
err_has "/dev/dm-1: --match partuuid cannot name a device-mapper device: udev matches it by DM_UUID"

# --- hostile and cloned IDs: refused, never written -------------------------------
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
[ ! -e "$T_TMP/no.rules" ] || fail "a refused map was written"
# the clean partition of a clone pair is still fine by its unique PARTUUID:
# udev names it and not its clone, nor the devices with hostile IDs
rules hostile-clones 1 --disk H=/dev/sdt1 --output "$T_TMP/clone-ok.rules"
expect hostile-clones "$T_TMP/clone-ok.rules" <<'EOF'
sdt1 H grid:asmadmin 660
EOF
echo "PASS: rules for SCSI, virtio, NVMe, multipath applied by real udev as expected; hostile and cloned IDs refused"
