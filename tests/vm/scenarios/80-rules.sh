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
# one with --match serial.  The serial file also names a partition of an NVMe
# disk and of a virtio disk whose serial numbers hold blanks ("pa nvme sp",
# "pa vblk sp"): the rule must match what udev stores in ID_SERIAL, which for
# NVMe is not the serial (model_serial_nsid, blanks replaced).
#
# Every rule carries OPTIONS:="nowatch": udevd must not watch the named
# devices (no entry in /run/udev/watch), and a close after a write must not
# give them a change event, while a partition without a rule still gets one.

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
nvsp=$(vm_disks_by_serial "pa nvme sp")
vbsp=$(vm_disks_by_serial "pa vblk sp")
map=$(vm_dm_by_name pa-mpath)
[ -n "$scsi" ] && [ -n "$nvme" ] && [ -n "$vblk" ] && [ -n "$nvsp" ] && [ -n "$vbsp" ] ||
	vm_fatal "no disk with serial pa-scsihd, pa-nvme-4kn, pa-vblk-2m, 'pa nvme sp' or 'pa vblk sp'"
[ -n "$map" ] || vm_fatal "no multipath map pa-mpath: run with 50-multipath"
for d in "$scsi" "$nvme" "$vblk" "$nvsp" "$vbsp"; do
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
# what udev stores for the serials with blanks, from its database
nvsp_serial=$(vm_udev_prop "$nvsp" ID_SERIAL)
nvsp_short=$(vm_udev_prop "$nvsp" ID_SERIAL_SHORT)
vbsp_serial=$(vm_udev_prop "$vbsp" ID_SERIAL)
[ "$nvsp_short" = "pa nvme sp" ] || vm_fatal "$nvsp: udev's ID_SERIAL_SHORT is '$nvsp_short'"
[ "$vbsp_serial" = "pa vblk sp" ] || vm_fatal "$vbsp: udev's ID_SERIAL is '$vbsp_serial'"
[ -n "$nvsp_serial" ] || vm_fatal "$nvsp: udev has no ID_SERIAL"
vm_say "udev: $nvsp ID_SERIAL='$nvsp_serial' ID_SERIAL_SHORT='$nvsp_short'; $vbsp ID_SERIAL='$vbsp_serial'"

# NAME  EXPECTED-TARGET  KEYS THE RULE MUST MATCH ON (;-separated)  FILE, tab-separated
tab=$(printf '\t')
cat >/tmp/asm.expect <<EOF
ASM_SCSI_PUUID	${scsi}3	ENV{ID_PART_ENTRY_UUID}=="$puuid"	$main
ASM_NVME	${nvme}p4	ENV{ID_PART_ENTRY_UUID}=="$nvme_puuid"	$main
ASM_MPATH	$mpart	ENV{DM_UUID}=="part4-mpath-$wwid"	$main
ASM_SCSI_WWN	${scsi}4	ENV{ID_WWN}=="$scsi_wwn";ENV{PARTN}=="4"	$wwnfile
ASM_NVME_WWN	${nvme}p5	ENV{ID_WWN}=="$nvme_wwn";ENV{PARTN}=="5"	$wwnfile
ASM_SCSI_SERIAL	${scsi}5	ENV{ID_SERIAL}=="$scsi_serial";ENV{PARTN}=="5"	$serialfile
ASM_VBLK_SERIAL	${vblk}3	ENV{ID_SERIAL}=="pa-vblk-2m";ENV{PARTN}=="3"	$serialfile
ASM_NVME_SP	${nvsp}p3	ENV{ID_SERIAL}=="$nvsp_serial";ENV{PARTN}=="3"	$serialfile
ASM_VBLK_SP	${vbsp}3	ENV{ID_SERIAL}=="pa vblk sp";ENV{PARTN}=="3"	$serialfile
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
	--disk "ASM_VBLK_SERIAL=/dev/${vblk}3" --disk "ASM_NVME_SP=serial:pa nvme sp-part3" \
	--disk "ASM_VBLK_SP=/dev/${vbsp}3"
echo "--- the rules files"
cat "$main" "$wwnfile" "$serialfile"
bad=$(cat "$main" "$wwnfile" "$serialfile" | grep -v '^#' | grep . |
	grep -v '^ACTION=="add|change", .*, OPTIONS:="nowatch"$' || true)
if [ -z "$bad" ]; then
	vm_pass "$label/nowatch" "every rule: ACTION==\"add|change\" ... OPTIONS:=\"nowatch\""
else
	vm_fail "$label/nowatch" "rules without nowatch: $bad"
fi

# check_links CASE: every expected link, its target, owner, group and mode
check_links() {
	local c=$1 name want keys file line k bad target own
	while IFS=$tab read -r name want keys file; do
		bad=
		line=$(grep -F "SYMLINK+=\"oracleasm/$name\"" "$file" 2>/dev/null)
		if [ "$(echo "$line" | grep -c .)" != 1 ]; then
			bad="$bad; $(echo "$line" | grep -c .) rules for it in $file"
		else
			IFS=';'
			for k in $keys 'ENV{DEVTYPE}=="partition"'; do
				case $name:$k in ASM_MPATH:*DEVTYPE*) continue ;; esac
				echo "$line" | grep -F "$k" >/dev/null || bad="$bad; the rule lacks $k"
			done
			unset IFS
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
	for name in $(cut -f1 /tmp/asm.expect); do
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

# nowatch, as udevd applies it: no inotify watch on a named device, and a
# close after a write gives it no change event.  A partition without a rule
# (partition 1 of each disk; udev's 60-block.rules watches it) is the
# control: it must be watched and get its event, or this check proves nothing.
# udevd keeps a pair of links per watched device in /run/udev/watch: one
# named by the device (b8:3) and one pointing at it
watched() {
	local id l
	id=b$(cat "/sys/class/block/$1/dev")
	[ -e "/run/udev/watch/$id" ] && return 0
	for l in /run/udev/watch/*; do
		[ "$(readlink "$l" 2>/dev/null)" = "$id" ] && return 0
	done
	return 1
}
bad=
for name in $(cut -f1 /tmp/asm.expect); do
	dev=$(readlink -f "$asmdir/$name")
	dev=${dev#/dev/}
	! watched "$dev" || bad="$bad $name($dev)"
done
ctl="${scsi}1 ${vblk}1 ${nvsp}p1 ${vbsp}1"
for dev in $ctl; do
	watched "$dev" || bad="$bad control:$dev-not-watched"
done
if [ -z "$bad" ]; then
	vm_pass "$label/nowatch-applied" "udevd watches none of the named devices, and does watch $ctl"
else
	vm_fail "$label/nowatch-applied" "/run/udev/watch:$bad; it holds: $(ls -l /run/udev/watch 2>&1 | tr '\n' ' ')"
fi
udevadm monitor --udev --subsystem-match=block >/tmp/monitor.log 2>&1 &
mon=$!
sleep 2
asmparts=
for name in $(cut -f1 /tmp/asm.expect); do
	case $name in ASM_MPATH) continue ;; esac
	dev=$(readlink -f "$asmdir/$name")
	asmparts="$asmparts ${dev#/dev/}"
done
# open for writing and close, writing nothing: what a database's close does
for dev in $asmparts $ctl; do
	: >>"/dev/$dev"
done
sleep 3
vm_settle
kill "$mon" 2>/dev/null
wait "$mon" 2>/dev/null
bad=
for dev in $asmparts; do
	grep -q " change .*/$dev (block)\$" /tmp/monitor.log && bad="$bad $dev"
done
for dev in $ctl; do
	grep -q " change .*/$dev (block)\$" /tmp/monitor.log || bad="$bad control:$dev-no-event"
done
if [ -z "$bad" ]; then
	vm_pass "$label/no-change-on-close" "a close after write: no change event for$asmparts; one for each of $ctl"
else
	vm_fail "$label/no-change-on-close" "change events:$bad; monitor: $(tr '\n' ' ' </tmp/monitor.log)"
fi

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
