#!/bin/bash
# partalign check under umockdev: udev database entries that disagree with
# the kernel's own sysfs identity are marked stale (column UDEV, JSON key
# udev, and a warning naming both values); those that agree are ok.
#   virtio-serial: vdc's database says serial QM00099OLD, sysfs serial says
#     QM00003PV (stale); vda1's says vda's QM00001SERIAL (ok);
#   nvme-4kn: nvme0n1p1's database says WWN eui.…dead, the namespace's sysfs
#     wwid is eui.…0001 (stale); nvme0n1p2's is the wwid (ok);
#   scsi-512e with a sysfs device/wwid naa.5000c500a1b2c3d4 on sda: sda2's
#     ID_WWN 0x5000c500a1b2c3d4 agrees (ok), sda1's 0x5000c500ffffffff does
#     not (stale).
# rules refuses vdc and sda1 (exit 8, the same line, no file) and writes
# sda2's rule.  The testbeds are copies of tests/mock/testbeds with those
# lines added.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/mock/lib.sh"

mkdir "$T_TMP/beds"
# bed NAME DEVICE LINE...: a copy of testbed NAME with LINEs after DEVICE's N: line
bed() {
	local name=$1 dev=$2 src="$T_TMP/beds/$1.umockdev"
	shift 2
	[ -e "$src" ] || cp "$MOCK_BEDS/$name.umockdev" "$src"
	# through the environment: awk -v would turn the \n of an A: line into a newline
	DEV="N: $dev" ADD="$(printf '%s\n' "$@")" \
		awk '{ print } $0 == ENVIRON["DEV"] { print ENVIRON["ADD"] }' "$src" >"$src.new"
	mv "$src.new" "$src"
	grep -qF -- "$1" "$src" || fail "bed $name: $dev not found"
}
bed virtio-serial vdc 'E: ID_SERIAL=QM00099OLD'
bed virtio-serial vda1 'E: ID_SERIAL=QM00001SERIAL'
bed nvme-4kn nvme0n1p1 'E: ID_WWN=eui.3634473052605487002538450000dead'
bed nvme-4kn nvme0n1p2 'E: ID_WWN=eui.36344730526054870025384500000001'
bed scsi-512e sda 'A: device/wwid=naa.5000c500a1b2c3d4\n'
bed scsi-512e sda1 'E: ID_WWN=0x5000c500ffffffff'
bed scsi-512e sda2 'E: ID_WWN=0x5000c500a1b2c3d4'
MOCK_BEDS="$T_TMP/beds"

mock_run virtio-serial nvme-4kn scsi-512e -- "$PARTALIGN" check --json -o kname,name,serial,wwn,udev
mock_load || fail "no JSON: $(cat "$T_TMP/out" "$T_TMP/err")"
expect vdc udev stale
expect vda1 udev ok
expect nvme0n1p1 udev stale
expect nvme0n1p2 udev ok
expect sda1 udev stale
expect sda2 udev ok
grep -qF "/dev/vdc: the udev database says serial QM00099OLD, the kernel (sysfs) says QM00003PV: stale udev data; run 'udevadm trigger --action=change /dev/vdc' and 'udevadm settle'" "$T_TMP/err" ||
	fail "no warning for vdc: $(cat "$T_TMP/err")"
grep -qF "/dev/nvme0n1p1: the udev database says WWN eui.3634473052605487002538450000dead, the kernel (sysfs) says eui.36344730526054870025384500000001: stale udev data" "$T_TMP/err" ||
	fail "no warning for nvme0n1p1: $(cat "$T_TMP/err")"
grep -qF "/dev/sda1: the udev database says WWN 0x5000c500ffffffff, the kernel (sysfs) says naa.5000c500a1b2c3d4: stale udev data" "$T_TMP/err" ||
	fail "no warning for sda1: $(cat "$T_TMP/err")"
[ "$(grep -c 'stale udev data' "$T_TMP/err")" = 3 ] || fail "warnings: $(cat "$T_TMP/err")"
echo "ok: stale serial and WWNs marked, the others ok"

# rules refuses to name the stale disk, and names the one that agrees (sda2
# holds LVM2_member in the testbed: --force)
mock_run virtio-serial nvme-4kn scsi-512e -- "$PARTALIGN" rules --disk DATA1=/dev/vdc \
	--output "$T_TMP/stale.rules" --no-reload
[ "$MOCK_RC" = 8 ] || fail "rules on vdc: exit $MOCK_RC: $(cat "$T_TMP/err")"
grep -qF "/dev/vdc: the udev database says serial QM00099OLD, the kernel (sysfs) says QM00003PV: stale udev data" "$T_TMP/err" ||
	fail "rules on vdc: $(cat "$T_TMP/err")"
[ ! -e "$T_TMP/stale.rules" ] || fail "rules on vdc wrote $(cat "$T_TMP/stale.rules")"
mock_run virtio-serial nvme-4kn scsi-512e -- "$PARTALIGN" rules --force --disk DATA2=/dev/sda2 \
	--output "$T_TMP/ok.rules" --no-reload
[ "$MOCK_RC" = 1 ] || fail "rules on sda2: exit $MOCK_RC: $(cat "$T_TMP/err")"
mock_run virtio-serial nvme-4kn scsi-512e -- "$PARTALIGN" rules --disk DATA3=/dev/sda1 \
	--output "$T_TMP/stale1.rules" --no-reload
[ "$MOCK_RC" = 8 ] || fail "rules on sda1: exit $MOCK_RC: $(cat "$T_TMP/err")"
grep -qF "/dev/sda1: the udev database says WWN 0x5000c500ffffffff, the kernel (sysfs) says naa.5000c500a1b2c3d4" "$T_TMP/err" ||
	fail "rules on sda1: $(cat "$T_TMP/err")"
echo "ok: rules refuses the stale vdc and sda1, writes sda2's rule"
