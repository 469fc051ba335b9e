#!/bin/bash
# check --probe reads the LVM2 metadata of each physical volume (issue #15):
# pe_start from the PV label and the VG's extent size from the text in its
# metadata area, in columns PE-START and EXTENT-SIZE (bytes).  PVs made by
# pvcreate and vgcreate on a partition at 6 MiB of a loop device and on a
# whole loop device; the expected values from pvs and vgs.  Plain check
# reads nothing: both null.  (LVs need device-mapper: tests/vm/scenarios/
# 98-lvm-fs.sh judges them.)
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/integration/helpers.sh"
need_root
need_cmd pvcreate vgcreate vgremove pvremove pvs vgs jq

out=$T_TMP/out
err=$T_TMP/err
mkdir -p /run/lvm /run/lock/lvm
lvmc='devices { obtain_device_list_from_udev = 0 } activation { udev_sync = 0 udev_rules = 0 }'

dev=$(mkdisk lvmdisk 64M 512 "label: gpt\nstart=12288,size=98304")
disk=${dev#/dev/}
p1=${disk}p1
bare=$(mkdisk lvmbare 64M 512)
vg1=pa_check_lvm_$$_a vg2=pa_check_lvm_$$_b
lvm_do() { "$@" --config "$lvmc" --devices "/dev/$p1,$bare" >/dev/null 2>&1 </dev/null; }
at_exit "lvm_do vgremove -f $vg1; lvm_do vgremove -f $vg2; lvm_do pvremove -ff -y /dev/$p1 $bare"
lvm_do pvcreate --dataalignment 1m "/dev/$p1" || fail "pvcreate on $p1"
lvm_do vgcreate -s 4m "$vg1" "/dev/$p1" || fail "vgcreate $vg1"
lvm_do pvcreate --dataalignment 192k "$bare" || fail "pvcreate on $bare"
lvm_do vgcreate -s 6m "$vg2" "$bare" || fail "vgcreate $vg2"

# the oracle: LVM's own numbers
num() { "$@" --config "$lvmc" --devices "/dev/$p1,$bare" --noheadings --nosuffix --units b 2>/dev/null | tr -d ' '; }
want1="$(num pvs -o pe_start "/dev/$p1") $(num vgs -o vg_extent_size "$vg1")"
want2="$(num pvs -o pe_start "$bare") $(num vgs -o vg_extent_size "$vg2")"
assert_eq "1048576 4194304" "$want1" "pvs/vgs of $p1"
pe2=${want2% *}
[ "${want2#* }" = 6291456 ] && [ $((pe2 % 196608)) = 0 ] || fail "pvs/vgs of $bare: $want2"

run_pa "$out" "$err" check --probe --json "$dev" "$bare"
[ -s "$err" ] && fail "--probe: stderr: $(cat "$err")"
[ $((PA_RC & 8)) = 0 ] || fail "--probe: exit $PA_RC"
assert_eq "$want1" "$(json_get "$p1" pe-start <"$out") $(json_get "$p1" extent-size <"$out")" \
	"$p1: pe-start extent-size"
assert_eq "$want2" "$(json_get "${bare#/dev/}" pe-start <"$out") \
$(json_get "${bare#/dev/}" extent-size <"$out")" "${bare#/dev/}: pe-start extent-size"
run_pa "$out" "$err" check --probe -r -n -b -o NAME,PE-START,EXTENT-SIZE "$dev"
assert_eq "$p1 $want1" "$(cat "$out")" "-o NAME,PE-START,EXTENT-SIZE"

# an orphan PV (no VG): pe_start, no extent size
lvm_do vgremove -f "$vg2" || fail "vgremove $vg2"
run_pa "$out" "$err" check --probe --json "$bare"
assert_eq "$(echo "$want2" | cut -d' ' -f1) null" "$(json_get "${bare#/dev/}" pe-start <"$out") \
$(json_get "${bare#/dev/}" extent-size <"$out")" "orphan PV"

# without --probe nothing is read
run_pa "$out" "$err" check --json "$dev" "$bare"
assert_eq "null null null null" "$(json_get "$p1" pe-start <"$out") \
$(json_get "$p1" extent-size <"$out") $(json_get "${bare#/dev/}" pe-start <"$out") \
$(json_get "${bare#/dev/}" extent-size <"$out")" "plain check"
exit 0
