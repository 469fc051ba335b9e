# A dm-multipath map over two virtio-scsi paths to one image (disks.conf
# serial pa-mpath), made with dmsetup as multipathd would (DM_UUID
# mpath-<wwid>), with kpartx-style linear partition maps (part<N>-mpath-<wwid>)
# read from the map's own GPT.  The partitions are checked on the map, at the
# start the dm table gives; the sdX paths are type "path" with n/a verdicts,
# and the kernel's partitions of the paths are not checked twice.

label=mpath
set -- $(vm_disks_by_serial pa-mpath)
[ $# -eq 2 ] || vm_fatal "expected two paths with serial pa-mpath, found $#: $*"
p1=$1 p2=$2
wwid=$(vm_udev_prop "/dev/$p1" ID_SERIAL)
[ -n "$wwid" ] && [ "$wwid" = "$(vm_udev_prop "/dev/$p2" ID_SERIAL)" ] ||
	vm_fatal "the paths $p1 and $p2 have no common ID_SERIAL"
vm_topology "$p1" "$label-path" "512 4096 - - 0"

# The table is written through one path; the other re-reads it, as both do at
# boot on a real server, so the kernel has partitions on both paths.
vm_layout "$p1" "$label-path" || vm_fatal "cannot partition $p1"
blockdev --rereadpt "/dev/$p2"
vm_settle
[ "$(vm_kernel_parts "$p2" | wc -l)" = "$(vm_kernel_parts "$p1" | wc -l)" ] ||
	vm_fatal "$p2 does not show the partitions written through $p1"

sectors=$(cat "/sys/block/$p1/size")
dmsetup create pa-mpath --uuid "mpath-$wwid" --table \
	"0 $sectors multipath 0 0 1 1 round-robin 0 2 1 /dev/$p1 1000 /dev/$p2 1000" ||
	vm_fatal "dmsetup create of the multipath map failed"
vm_settle
map=$(vm_dm_by_name pa-mpath)
[ -n "$map" ] || vm_fatal "no dm device for the map pa-mpath"
[ -e "/sys/block/$map/slaves/$p1" ] && [ -e "/sys/block/$map/slaves/$p2" ] ||
	vm_fatal "$map does not hold $p1 and $p2"
vm_pass "$label/map" "$map (mpath-$wwid) over $p1 and $p2"

# kpartx: one linear map per partition of the map's table, DM UUID
# part<N>-mpath-<wwid>.  When the guest has kpartx, udev's kpartx rule
# (60-kpartx.rules) made them when the map appeared, as on a server; else
# vm_kpartx makes them with dmsetup, as kpartx would.
majmin=$(cat "/sys/block/$map/dev")
lbs=$(cat "/sys/block/$map/queue/logical_block_size")
vm_table "/dev/$map" >/tmp/mpath.parts
[ -s /tmp/mpath.parts ] || vm_fatal "sfdisk -d /dev/$map found no partitions"
if command -v kpartx >/dev/null; then
	missing=
	while read -r n _; do
		[ -n "$(vm_dm_by_uuid "part$n-mpath-$wwid")" ] || missing="$missing part$n-mpath-$wwid"
	done </tmp/mpath.parts
	if [ -z "$missing" ]; then
		vm_pass "$label/kpartx" "udev's kpartx rule made the partition maps"
	else
		vm_fail "$label/kpartx" "kpartx is in the guest, but udev made no map$missing"
	fi
fi
vm_kpartx "$map" "$wwid" || vm_fatal "dmsetup cannot make the partition maps of $map"

# the expected start of each kpartx partition comes from its dm table
parts=
while read -r n start _; do
	dm=$(vm_dm_by_uuid "part$n-mpath-$wwid")
	[ -n "$dm" ] || vm_fatal "no dm device with DM UUID part$n-mpath-$wwid"
	set -- $(dmsetup table "$(cat "/sys/block/$dm/dm/name")")
	[ "$3" = linear ] && [ "$4" = "$majmin" ] || vm_fatal "$dm: unexpected table $*"
	[ "$5" = $((start * lbs / 512)) ] || vm_fail "$label/part$n-table" "$dm starts at $5, the table says $((start * lbs / 512))"
	parts="$parts$dm $(($5 * 512)) $(cat "/sys/block/$dm/alignment_offset")
"
done </tmp/mpath.parts
vm_check "$map" "$label" "$parts"

# the kpartx maps by the names lsblk gives them: their device-mapper names
# (sysfs dm/name), with the node under /dev/mapper
bad=
for dm in $(echo "$parts" | cut -d' ' -f1); do
	n=$(cat "/sys/block/$dm/dm/name")
	[ -e "/dev/mapper/$n" ] || bad="$bad no /dev/mapper/$n;"
	got="$(vm_json "$dm" name) $(vm_json "$dm" path)"
	[ "$got" = "$n /dev/mapper/$n" ] || bad="$bad $dm: name, path $got, expected $n /dev/mapper/$n;"
done
if [ -z "$bad" ]; then
	vm_pass "$label/names" "kpartx maps named by their dm names, paths under /dev/mapper"
else
	vm_fail "$label/names" "$bad"
fi

# what udev rules keyed on DM_UUID (partalign rules) will match on
bad=
while read -r n _; do
	dm=$(vm_dm_by_uuid "part$n-mpath-$wwid")
	[ "$(vm_udev_prop "$dm" DM_UUID)" = "part$n-mpath-$wwid" ] ||
		bad="$bad $dm:DM_UUID=$(vm_udev_prop "$dm" DM_UUID)"
done </tmp/mpath.parts
if [ -z "$bad" ]; then
	vm_pass "$label/udev" "udev has DM_UUID part<N>-mpath-$wwid for every kpartx map"
else
	vm_fail "$label/udev" "udev database:$bad"
fi

# the paths: listed as paths of the map, not checked, their partitions hidden
if vm_run_check "/dev/$p1" "/dev/$p2"; then
	rows=$(for r in $(awk -F '\t' '$2 == "name" { print $1 }' "$VM_ROWS"); do
		echo "$r $(vm_json "$r" type) $(vm_json "$r" physical) $(vm_json "$r" optimal) $(vm_json "$r" policy)"
	done | sort | tr '\n' ';')
	want=$(printf '%s path n/a n/a n/a\n' "$p1" "$p2" | sort | tr '\n' ';')
	if [ "$rows" = "$want" ] && [ "$VM_RC" = 0 ]; then
		vm_pass "$label/paths" "$p1 and $p2: type path, verdicts n/a, exit 0"
	else
		vm_fail "$label/paths" "expected '$want' and exit 0, got '$rows' and exit $VM_RC"
	fi
	reason=$(vm_json "$p1" reason)
	case $reason in
	*"$map"*) vm_pass "$label/path-reason" "$p1: $reason" ;;
	*) vm_fail "$label/path-reason" "$p1's reason does not name the map $map: $reason" ;;
	esac
else
	vm_fail "$label/paths" "partalign check --json on the paths gave no JSON (exit $VM_RC)"
fi
