# partalign rules, applied by the guest's real systemd-udevd: names for
# Oracle ASM partitions on the virtio-scsi disk (keyed on its GPT PARTUUID,
# its WWN and its serial number), a virtio-blk disk (serial), the NVMe
# namespace (PARTUUID and WWN) and
# the multipath map's kpartx partition (DM_UUID part<N>-mpath-<wwid>, left
# by 50-multipath and 70-multipath-fix).  partalign writes the rules,
# reloads udev and triggers the devices; then every /dev/oracleasm/NAME must
# exist, resolve to the named partition (the dm partition for multipath,
# never an sdX path), be owned grid:asmadmin with mode 0660, and stay so
# after a change event for every block device.  The users come from the
# initramfs (/etc/passwd, /etc/group).
#
# One --match per run, so three files: the default one (auto: PARTUUID for a
# GPT partition, DM_UUID for a multipath partition), one with --match wwn and
# one with --match serial.

label=rules
asmdir=/dev/oracleasm
main=/etc/udev/rules.d/99-oracle-asmdevices.rules
wwnfile=/etc/udev/rules.d/98-oracle-asm-wwn.rules
serialfile=/etc/udev/rules.d/98-oracle-asm-serial.rules

grep -q '^grid:' /etc/passwd && grep -q '^asmadmin:' /etc/group ||
	vm_fatal "no user grid or group asmadmin in the guest"

scsi=$(vm_disks_by_serial pa-scsihd)
nvme=$(vm_disks_by_serial pa-nvme-4kn)
vblk=$(vm_disks_by_serial pa-vblk-2m)
map=$(vm_dm_by_name pa-mpath)
[ -n "$scsi" ] && [ -n "$nvme" ] && [ -n "$vblk" ] ||
	vm_fatal "no disk with serial pa-scsihd, pa-nvme-4kn or pa-vblk-2m"
[ -n "$map" ] || vm_fatal "no multipath map pa-mpath: run with 50-multipath"
for d in "$scsi" "$nvme" "$vblk"; do
	[ -n "$(vm_kernel_parts "$d")" ] || vm_layout "$d" "$label-$d" || vm_fatal "cannot partition $d"
done
wwid=$(cat "/sys/block/$map/dm/uuid")
wwid=${wwid#mpath-}
mpart=$(vm_dm_by_uuid "part4-mpath-$wwid")
[ -n "$mpart" ] || vm_fatal "no kpartx map part4-mpath-$wwid"
mname=$(cat "/sys/block/$mpart/dm/name")
scsi_wwn=$(vm_udev_prop "$scsi" ID_WWN)
[ "$scsi_wwn" = 0x5000c500a1b2c301 ] || vm_fatal "$scsi: udev's ID_WWN is '$scsi_wwn'"
nvme_wwn=$(vm_udev_prop "$nvme" ID_WWN)
[ -n "$nvme_wwn" ] || vm_fatal "$nvme: udev has no ID_WWN"
scsi_serial=$(vm_udev_prop "$scsi" ID_SERIAL)
puuid=$(vm_udev_prop "${scsi}3" ID_PART_ENTRY_UUID)
[ -n "$puuid" ] || vm_fatal "${scsi}3: udev has no ID_PART_ENTRY_UUID"
nvme_puuid=$(vm_udev_prop "${nvme}p4" ID_PART_ENTRY_UUID)

# NAME  EXPECTED-TARGET  KEY THE RULE MUST MATCH ON  FILE
cat >/tmp/asm.expect <<EOF
ASM_SCSI_PUUID ${scsi}3 ENV{ID_PART_ENTRY_UUID}=="$puuid" $main
ASM_NVME ${nvme}p4 ENV{ID_PART_ENTRY_UUID}=="$nvme_puuid" $main
ASM_MPATH $mpart ENV{DM_UUID}=="part4-mpath-$wwid" $main
ASM_SCSI_WWN ${scsi}4 ENV{ID_WWN}=="$scsi_wwn",ENV{PARTN}=="4" $wwnfile
ASM_NVME_WWN ${nvme}p5 ENV{ID_WWN}=="$nvme_wwn",ENV{PARTN}=="5" $wwnfile
ASM_SCSI_SERIAL ${scsi}5 ENV{ID_SERIAL}=="$scsi_serial",ENV{PARTN}=="5" $serialfile
ASM_VBLK_SERIAL ${vblk}3 ENV{ID_SERIAL}=="pa-vblk-2m",ENV{PARTN}=="3" $serialfile
EOF

cat >/tmp/asm.map <<EOF
# name          device
ASM_SCSI_PUUID  partuuid:$puuid
ASM_NVME        /dev/${nvme}p4
ASM_MPATH       /dev/mapper/$mname
EOF

# rules FILE CASE [ARGS...]: partalign rules, must exit 1 (written)
rules() {
	local file=$1 c=$2 rc
	shift 2
	partalign rules --output "$file" "$@" >/tmp/rules.out 2>&1
	rc=$?
	cat /tmp/rules.out
	if [ $rc = 1 ]; then
		vm_pass "$label/$c" "partalign rules $* exits 1 (written, udev reloaded, links checked)"
	else
		vm_fail "$label/$c" "partalign rules $* exits $rc, expected 1: $(tr '\n' ' ' </tmp/rules.out)"
	fi
}
rm -f "$main" "$wwnfile" "$serialfile"
rules "$main" write-auto --map /tmp/asm.map
rules "$wwnfile" write-wwn --match wwn --disk "ASM_SCSI_WWN=wwn:$scsi_wwn-part4" \
	--disk "ASM_NVME_WWN=/dev/${nvme}p5"
rules "$serialfile" write-serial --match serial --disk "ASM_SCSI_SERIAL=/dev/${scsi}5" \
	--disk "ASM_VBLK_SERIAL=/dev/${vblk}3"
echo "--- the rules files"
cat "$main" "$wwnfile" "$serialfile"

# check_links CASE: every expected link, its target, owner, group and mode
check_links() {
	local c=$1 name want keys file line k bad target own
	while read -r name want keys file; do
		bad=
		line=$(grep -F "SYMLINK+=\"oracleasm/$name\"" "$file" 2>/dev/null)
		if [ "$(echo "$line" | grep -c .)" != 1 ]; then
			bad="$bad; $(echo "$line" | grep -c .) rules for it in $file"
		else
			for k in $(echo "$keys" | tr ',' ' ') 'ENV{DEVTYPE}=="partition"'; do
				case $name:$k in ASM_MPATH:*DEVTYPE*) continue ;; esac
				echo "$line" | grep -qF "$k" || bad="$bad; the rule lacks $k"
			done
		fi
		if [ ! -L "$asmdir/$name" ]; then
			bad="$bad; no link $asmdir/$name"
		else
			target=$(readlink -f "$asmdir/$name")
			[ "$target" = "/dev/$want" ] || bad="$bad; it resolves to $target, not /dev/$want"
			case $target in /dev/sd*) [ "$name" = ASM_MPATH ] && bad="$bad; a multipath path" ;; esac
			own=$(stat -L -c '%U %G %a' "$asmdir/$name")
			[ "$own" = "grid asmadmin 660" ] || bad="$bad; owner, group, mode: $own"
		fi
		if [ -z "$bad" ]; then
			vm_pass "$label/$c/$name" "$asmdir/$name -> /dev/$want, grid:asmadmin 0660, keyed on $keys"
		else
			vm_fail "$label/$c/$name" "${bad#; }"
		fi
	done </tmp/asm.expect
	# a rule that also matched the whole disk, another partition or a path
	# gives its name to several devices in udev's database (the link points
	# to one of them, the last one udev handled)
	bad=
	for name in $(cut -d' ' -f1 /tmp/asm.expect); do
		n=$(grep -l "^S:oracleasm/$name\$" /run/udev/data/b* 2>/dev/null | wc -l)
		[ "$n" = 1 ] || bad="$bad $name:$n"
	done
	if [ -z "$bad" ]; then
		vm_pass "$label/$c/one-device-each" "udev gives each oracleasm name to exactly one device"
	else
		vm_fail "$label/$c/one-device-each" "devices per name in udev's database:$bad"
	fi
}
check_links applied

# every block device gets a change event (a rescan, a path failover; udev's
# kpartx rule may rename the multipath partition maps): the names must not
# move
udevadm trigger --action=change --subsystem-match=block
vm_settle
check_links retriggered

# a rerun with the same devices: unchanged, exit 0.  The map file names the
# multipath partition by its current /dev/mapper name: udev's kpartx rule
# may have renamed the map on the change event above (kpartx -p -part),
# which is why the rule keys on DM_UUID and not on a name.
sed -i "s|^ASM_MPATH .*|ASM_MPATH /dev/mapper/$(cat "/sys/block/$mpart/dm/name")|" /tmp/asm.map
partalign rules --output "$main" --map /tmp/asm.map >/tmp/rules.out 2>&1
rc=$?
cat /tmp/rules.out
if [ $rc = 0 ]; then
	vm_pass "$label/rerun" "the same map again: exit 0, nothing changed"
else
	vm_fail "$label/rerun" "the same map again exits $rc, expected 0: $(tr '\n' ' ' </tmp/rules.out)"
fi
