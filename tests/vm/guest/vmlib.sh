# Helpers for the VM suite's guest (busybox sh), sourced by /init and by every
# scenario.  A scenario reports each thing it checked with vm_pass/vm_fail;
# the host counts those lines, and anything but PASS is a failure (there is
# no "known bug" status).  The expected verdicts are computed here from
# the kernel's sysfs numbers, independently of partalign's code:
#   PHYSICAL  (start - alignment_offset) is a multiple of
#             max(physical sector, minimum I/O, logical sector)
#   OPTIMAL   the same with the optimal I/O size, n/a when it is 0, 0xffff
#             sectors (a controller error), not a multiple of the physical
#             grain, 64 MiB or more, or larger than the disk
#   POLICY    the same with the 2 MiB grain
# and the kernel's own per-partition alignment_offset is predicted with the
# block layer's formula (queue_limit_alignment_offset), in 512-byte sectors.

VM_FATAL=3                # status of a scenario that stopped after vm_fatal
VM_GRAIN=2097152          # partalign's default policy grain
VM_OPT_MAX=67108864       # optimal I/O sizes from here up are not believed
# The standard layout, START:SIZE in logical sectors: every start of the
# issue's list on one GPT disk (first-lba 4, room for 8 entries).
VM_LAYOUT="7:56 63:1985 2048:2048 4096:16391 20487:8192"
VM_JSON=
VM_RC=

# ---- results ---------------------------------------------------------------
vm_say() {
	echo "$*" >&3
}

# vm_result CASE PASS|FAIL DETAIL...
vm_result() {
	local c=$1 s=$2
	shift 2
	vm_say "@@RESULT ${VM_SCENARIO:-unknown}/$c $s $*"
	echo "$s: ${VM_SCENARIO:-unknown}/$c $*"
}

vm_pass() {
	local c=$1
	shift
	vm_result "$c" PASS "$@"
}

vm_fail() {
	local c=$1
	shift
	vm_result "$c" FAIL "$@"
	return 1
}

# Report and stop the scenario: nothing after this can be checked.
vm_fatal() {
	vm_result setup FAIL "$*"
	exit "$VM_FATAL"
}

# ---- modules and udev -------------------------------------------------------
# vm_modprobe MODULE [PARAM=VALUE...]: its dependencies first (the list made
# on the host with modprobe --show-depends), the parameters for MODULE only.
vm_modprobe() {
	local m=$1 f=/etc/vm-modules/$1 last ko name
	shift
	[ -f "$f" ] || {
		echo "vm_modprobe: no module list for $m" >&2
		return 1
	}
	last=$(tail -n 1 "$f")
	while read -r ko; do
		name=${ko##*/}
		name=$(echo "${name%.ko}" | tr - _)
		grep -q "^$name " /proc/modules && continue
		if [ "$ko" = "$last" ]; then
			insmod "$ko" "$@" || return 1
		else
			insmod "$ko" || return 1
		fi
	done <"$f"
}

vm_is_loaded() {
	grep -q "^$(echo "$1" | tr - _) " /proc/modules
}

# Unload a module whose devices udev may still hold for a moment.
vm_rmmod() {
	local i
	vm_is_loaded "$1" || return 0
	vm_settle
	for i in 1 2 3 4 5 6 7 8 9 10; do
		rmmod "$1" 2>/dev/null && break
		sleep 0.5
	done
	vm_settle
	! vm_is_loaded "$1"
}

# vm_journal_fs MOUNTPOINT: a fresh ext2 on the journal disk (serial
# pa-vblk-jrnl) mounted there, with journal/ and backup/ in it: a move's
# journal must be on a disk file system (one on the initramfs's tmpfs is
# refused).  Fatal when it cannot be made.
vm_journal_fs() {
	local jdisk
	jdisk=$(vm_disks_by_serial pa-vblk-jrnl)
	[ -n "$jdisk" ] || vm_fatal "no disk with serial pa-vblk-jrnl"
	vm_modprobe ext4 || vm_fatal "cannot load ext4"
	mke2fs -q -F "/dev/$jdisk" >/dev/null 2>&1 || vm_fatal "mke2fs /dev/$jdisk failed"
	mkdir -p "$1"
	mount -t ext2 "/dev/$jdisk" "$1" 2>/dev/null || mount -t ext4 "/dev/$jdisk" "$1" ||
		vm_fatal "cannot mount /dev/$jdisk"
	mkdir -p "$1/journal" "$1/backup"
}

vm_settle() {
	udevadm settle --timeout=30
}

# ---- finding disks -----------------------------------------------------------
# A udev property of a block device, read from the udev database directly
# (one udevadm run costs a fraction of a second under emulation).
vm_udev_prop() { # NAME KEY
	local dev
	dev=$(cat "/sys/class/block/${1#/dev/}/dev" 2>/dev/null) || return 0
	sed -n "s/^E:$2=//p" "/run/udev/data/b$dev" 2>/dev/null
}

# Every serial a whole disk answers to: virtio-blk and NVMe in sysfs, SCSI
# through udev (scsi_id).
vm_serials() {
	local s=/sys/block/$1 k
	{
		# virtio-blk's serial has no newline
		[ -r "$s/serial" ] && echo "$(cat "$s/serial")"
		[ -r "$s/device/serial" ] && echo "$(cat "$s/device/serial")"
		for k in ID_SCSI_SERIAL ID_SERIAL_SHORT ID_SERIAL; do
			vm_udev_prop "$1" "$k"
		done
	} | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//'
}

# Kernel names of the whole disks with this serial (two for multipath paths).
vm_disks_by_serial() {
	local s n
	for s in /sys/block/*; do
		n=${s##*/}
		case $n in loop* | ram* | zram* | dm-*) continue ;; esac
		vm_serials "$n" | grep -xF "$1" >/dev/null && echo "$n"
	done
}

# Kernel names of the SCSI disks whose model is MODEL (scsi_debug).
vm_disks_by_model() {
	local s
	for s in /sys/block/sd*; do
		[ -r "$s/device/model" ] || continue
		[ "$(sed 's/[[:space:]]*$//' "$s/device/model")" = "$1" ] && echo "${s##*/}"
	done
}

# Kernel name (dm-N) of the device-mapper device called NAME.
vm_dm_by_name() {
	local s
	for s in /sys/block/dm-*; do
		[ "$(cat "$s/dm/name" 2>/dev/null)" = "$1" ] && echo "${s##*/}"
	done
}

# Kernel name (dm-N) of the device-mapper device whose DM UUID is UUID.
vm_dm_by_uuid() {
	local s
	for s in /sys/block/dm-*; do
		[ "$(cat "$s/dm/uuid" 2>/dev/null)" = "$1" ] && echo "${s##*/}"
	done
}

# ---- topology and layout -----------------------------------------------------
# vm_topology DISK LABEL "LOGICAL PHYSICAL MIN_IO OPT_IO ALIGNMENT_OFFSET"
# ("-" for a value not asserted).  Proves the emulated disk is what the
# scenario means to test before any verdict is compared.
vm_topology() {
	local disk=$1 label=$2 s=/sys/block/$1 got want
	got="$(cat "$s/queue/logical_block_size") $(cat "$s/queue/physical_block_size")"
	got="$got $(cat "$s/queue/minimum_io_size") $(cat "$s/queue/optimal_io_size")"
	got="$got $(cat "$s/alignment_offset")"
	want=$(echo "$3" "$got" | awk '{ n = NF / 2; o = "";
		for (i = 1; i <= n; i++) o = o (i > 1 ? " " : "") ($i == "-" ? $(i + n) : $i);
		print o }')
	if [ "$got" = "$want" ]; then
		vm_pass "$label/topology" "$disk: logical physical min-io opt-io alignment = $got"
	else
		vm_fail "$label/topology" "$disk: expected $want, the kernel reports $got"
	fi
}

# vm_layout DISK LABEL: the standard GPT layout written with sfdisk; the
# kernel's partition parser must then show every start.
vm_layout() {
	local disk=$1 lbs script p want=
	lbs=$(cat "/sys/block/$disk/queue/logical_block_size")
	script="label: gpt
table-length: 8
first-lba: 4"
	for p in $VM_LAYOUT; do
		script="$script
${p%:*},${p#*:}"
		want="$want $((${p%:*} * lbs / 512))"
	done
	vm_sfdisk "$disk" "$2" "$script" "$want"
}

# vm_sfdisk DISK LABEL SCRIPT STARTS: writes the sfdisk SCRIPT to DISK
# (wiping old signatures), then waits until the kernel shows the partitions
# of the new table at STARTS (space-separated, in 512-byte sectors).
vm_sfdisk() {
	local disk=$1 label=$2 script=$3 want=" $4" p try got
	want=$(echo "$want" | tr -s ' ')
	if ! echo "$script" | sfdisk -q --wipe always "/dev/$disk" >/tmp/sfdisk.out 2>&1; then
		vm_fail "$label/layout" "sfdisk on $disk failed: $(tr '\n' ' ' </tmp/sfdisk.out)"
		return 1
	fi
	# udev re-reads the table when sfdisk closes the disk: wait until the
	# kernel shows the partitions again
	for try in 1 2 3 4 5; do
		vm_settle
		got=
		for p in $(vm_kernel_parts "$disk"); do
			got="$got $(cat "/sys/block/$disk/$p/start")"
		done
		[ "$got" = "$want" ] && break
		sleep 1
	done
	if [ "$got" = "$want" ]; then
		vm_pass "$label/layout" "$disk: partitions at 512-byte sectors$got"
	else
		vm_fail "$label/layout" "$disk: expected partitions at$want, the kernel has$got"
	fi
}

# The partition table of DEVICE as sfdisk reads it from the device, one line
# "NUMBER START SIZE PARTUUID NAME" per partition (START and SIZE in logical
# sectors, PARTUUID in upper case, NAME possibly with spaces, last).
vm_table() {
	sfdisk -d "$1" 2>/dev/null | awk -F ' : ' '
		/ : start=/ {
			num = $1
			sub(/.*[^0-9]/, "", num)
			start = size = uuid = name = ""
			n = split($2, kv, /, +/)
			for (i = 1; i <= n; i++) {
				k = kv[i]
				sub(/=.*/, "", k)
				v = substr(kv[i], length(k) + 2)
				gsub(/^ +|"/, "", v)
				if (k == "start") start = v
				else if (k == "size") size = v
				else if (k == "uuid") uuid = toupper(v)
				else if (k == "name") name = v
			}
			print num, start, size, uuid, name
		}'
}

# The label-id (disk GUID) of DEVICE's GPT.
vm_label_id() {
	sfdisk -d "$1" 2>/dev/null | sed -n 's/^label-id: *//p' | tr a-z A-Z
}

# vm_kpartx MAP WWID: the kpartx partition maps of the multipath map MAP
# (dm-N) from its partition table, made with dmsetup as `kpartx -u` makes
# them: a linear map per partition, DM UUID part<N>-mpath-<WWID>, named
# <map name>-part<N>; a map that exists with another table is reloaded.
vm_kpartx() {
	local map=$1 wwid=$2 majmin lbs name n start size table dm pname _
	majmin=$(cat "/sys/block/$map/dev")
	lbs=$(cat "/sys/block/$map/queue/logical_block_size")
	name=$(cat "/sys/block/$map/dm/name")
	vm_table "/dev/$map" >/tmp/kpartx.parts
	while read -r n start size _; do
		table="0 $((size * lbs / 512)) linear $majmin $((start * lbs / 512))"
		dm=$(vm_dm_by_uuid "part$n-mpath-$wwid")
		if [ -z "$dm" ]; then
			dmsetup create "$name-part$n" --uuid "part$n-mpath-$wwid" --table "$table" ||
				return 1
			continue
		fi
		pname=$(cat "/sys/block/$dm/dm/name")
		[ "$(dmsetup table "$pname")" = "$table" ] && continue
		dmsetup reload "$pname" --table "$table" && dmsetup resume "$pname" || return 1
	done </tmp/kpartx.parts
	vm_settle
}

# Kernel partitions of DISK, in partition-number order.
vm_kernel_parts() {
	local p
	for p in /sys/block/$1/$1*; do
		[ -r "$p/partition" ] && echo "$(cat "$p/partition") ${p##*/}"
	done | sort -n | cut -d' ' -f2
}

# "NAME START_BYTES KERNEL_ALIGNMENT_OFFSET" for every kernel partition of DISK.
vm_parts() {
	local p s=/sys/block/$1
	for p in $(vm_kernel_parts "$1"); do
		echo "$p $(($(cat "$s/$p/start") * 512)) $(cat "$s/$p/alignment_offset")"
	done
}

# ---- expectations ------------------------------------------------------------
# vm_aligned START GRAIN OFFSET: (START - OFFSET) mod GRAIN == 0
vm_aligned() {
	[ $((($1 % $2 + $2 - $3 % $2) % $2)) -eq 0 ]
}

# vm_expect START LOGICAL PHYSICAL MIN_IO OPT_IO ALIGNMENT_OFFSET DISK_BYTES
# sets EXP_PHYS, EXP_OPT, EXP_POL and EXP_KALIGN.
vm_expect() {
	local start=$1 lbs=$2 pbs=$3 mio=$4 oio=$5 ao=$6 dsize=$7 g kg off=$6
	[ "$ao" -lt 0 ] && off=0
	g=$pbs
	[ "$mio" -gt "$g" ] && g=$mio
	[ "$lbs" -gt "$g" ] && g=$lbs

	if [ "$ao" -lt 0 ]; then
		EXP_PHYS=misaligned
	elif vm_aligned "$start" "$g" "$off"; then
		EXP_PHYS=ok
	else
		EXP_PHYS=misaligned
	fi

	if [ "$oio" -eq 0 ] || [ "$oio" -eq $((65535 * 512)) ] ||
		[ "$oio" -eq $((65535 * lbs)) ] || [ $((oio % g)) -ne 0 ] ||
		[ "$oio" -ge "$VM_OPT_MAX" ] || [ "$oio" -gt "$dsize" ]; then
		EXP_OPT=n/a
	elif [ "$ao" -lt 0 ]; then
		EXP_OPT=misaligned
	elif vm_aligned "$start" "$oio" "$off"; then
		EXP_OPT=ok
	else
		EXP_OPT=misaligned
	fi

	if vm_aligned "$start" "$VM_GRAIN" "$off"; then
		EXP_POL=ok
	else
		EXP_POL=misaligned
	fi

	# block/blk-settings.c: granularity max(physical, io_min); the offset
	# of the sector within it, counted back from the disk's own offset
	kg=$pbs
	[ "$mio" -gt "$kg" ] && kg=$mio
	if [ "$ao" -lt 0 ]; then
		EXP_KALIGN=-1
	else
		EXP_KALIGN=$(((kg + ao - (start / 512 % (kg / 512)) * 512) % kg))
	fi
}

# ---- running partalign ---------------------------------------------------------
# vm_run_check ARGS...: partalign check --json ARGS.  The output is kept in
# VM_JSON and, flattened by one jq run (jq starts slowly under emulation), in
# VM_ROWS: one line "NAME<TAB>KEY<TAB>VALUE" per key of every row (NAME the
# kernel name, kname: dm-N where the name column has the dm name), after a
# line "#<TAB>rows<TAB>COUNT".  Exit status in VM_RC; stderr on the console.
VM_ROWS=/tmp/vm-rows
vm_run_check() {
	VM_JSON=$(partalign check --json "$@" 2>/tmp/partalign.err)
	VM_RC=$?
	if [ -s /tmp/partalign.err ]; then
		echo "partalign check $* (stderr):"
		cat /tmp/partalign.err
	fi
	if ! printf '%s\n' "$VM_JSON" | jq -r '
		"#\trows\t\(.devices | length)",
		(.devices[] as $r | $r | to_entries[] |
			[$r.kname // $r.name, .key, (.value | tostring | gsub("[\t\n]"; " "))] | join("\t"))
		' >"$VM_ROWS" 2>/dev/null; then
		echo "partalign check $*: exit $VM_RC, output: $VM_JSON"
		: >"$VM_ROWS"
		return 1
	fi
}

# Value of KEY in the row of device NAME ("null" for a JSON null, nothing
# when there is no such row or key).
vm_json() {
	awk -F '\t' -v n="$1" -v k="$2" '$1 == n && $2 == k { print $3 }' "$VM_ROWS"
}

# Names of the rows whose KEY is VALUE.
vm_json_select() {
	awk -F '\t' -v k="$1" -v v="$2" '$2 == k && $3 == v { print $1 }' "$VM_ROWS"
}

# Number of rows of the last vm_run_check.
vm_json_rows() {
	vm_json '#' rows
}

# "NAME:KEY=VALUE" for every verdict of a partition row of the last
# vm_run_check that is not ok (optimal may also be n/a when $1 is n/a-ok:
# a disk without a usable optimal I/O size), space-separated.
vm_json_not_ok() {
	awk -F '\t' -v na="${1:-}" '
		$2 == "type" { t[$1] = $3 }
		$2 == "physical" || $2 == "optimal" || $2 == "policy" { v[$1 " " $2] = $3 }
		END {
			for (k in v) {
				split(k, a, " ")
				if (t[a[1]] != "part" || v[k] == "ok") continue
				if (a[2] == "optimal" && v[k] == "n/a" && na == "n/a-ok") continue
				printf "%s:%s=%s ", a[1], a[2], v[k]
			}
		}' "$VM_ROWS"
}

# The keys every checked row must have (the JSON contract of partalign check).
VM_CONTRACT="name path disk start log-sec phy-sec min-io opt-io alignment physical optimal policy reason"

# "NAME:KEY" for every contract key missing from a row, space-separated.
vm_json_missing() {
	awk -F '\t' -v want="$VM_CONTRACT" '
		$1 != "#" { has[$1 SUBSEP $2] = 1; names[$1] = 1 }
		END {
			n = split(want, w, " ")
			for (r in names) for (i = 1; i <= n; i++)
				if (!((r SUBSEP w[i]) in has)) printf "%s:%s ", r, w[i]
		}' "$VM_ROWS"
}

# vm_check DISK LABEL PARTS: runs partalign check --json /dev/DISK and compares
# every row with the independent expectation.  PARTS has one line
# "NAME START_BYTES KERNEL_ALIGNMENT_OFFSET" per partition of DISK (kernel
# partitions: vm_parts; kpartx maps: from the dm table).
vm_check() {
	local disk=$1 label=$2 parts=$3 s=/sys/block/$1
	local lbs pbs mio oio ao dsize want_rc=0 n nrows bad row errs
	local name start kal type rdisk rstart rlbs rpbs rmio roio ralign rcalc rphys ropt rpol
	lbs=$(cat "$s/queue/logical_block_size")
	pbs=$(cat "$s/queue/physical_block_size")
	mio=$(cat "$s/queue/minimum_io_size")
	oio=$(cat "$s/queue/optimal_io_size")
	ao=$(cat "$s/alignment_offset")
	dsize=$(($(cat "$s/size") * 512))

	if ! vm_run_check "/dev/$disk"; then
		vm_fail "$label/json" "partalign check --json /dev/$disk gave no JSON (exit $VM_RC)"
		return 1
	fi
	n=$(printf '%s\n' "$parts" | grep -c .)
	nrows=$(vm_json_rows)
	bad=$(vm_json_missing)
	if [ "$nrows" = "$n" ] && [ -z "$bad" ]; then
		vm_pass "$label/json" "$nrows rows, one per partition, with every contract key"
	else
		vm_fail "$label/json" "expected $n rows, got $nrows; missing keys: ${bad:-none}"
	fi

	while read -r name start kal; do
		[ -n "$name" ] || continue
		vm_expect "$start" "$lbs" "$pbs" "$mio" "$oio" "$ao" "$dsize"
		if [ "$EXP_PHYS" = misaligned ] || [ "$EXP_OPT" = misaligned ] ||
			[ "$EXP_POL" = misaligned ]; then
			want_rc=4
		fi
		row=$(awk -F '\t' -v n="$name" '
			function g(k) { return (k in v) ? v[k] : "missing" }
			$1 == n { v[$2] = $3; if ($2 == "name") c++ }
			END {
				if (c != 1) { print "rows: " c + 0; exit }
				print g("type"), g("disk"), g("start"), g("log-sec"), g("phy-sec"),
					g("min-io"), g("opt-io"), g("alignment"),
					(("align-calc" in v) ? v["align-calc"] : "absent"),
					g("physical"), g("optimal"), g("policy")
			}' "$VM_ROWS")
		errs=
		# shellcheck disable=SC2086
		set -- $row
		if [ $# -ne 12 ]; then
			errs="no single row for $name ($row)"
		else
			type=$1 rdisk=$2 rstart=$3 rlbs=$4 rpbs=$5 rmio=$6 roio=$7 ralign=$8
			rcalc=$9
			shift 9
			rphys=$1 ropt=$2 rpol=$3
			[ "$type" = part ] || errs="$errs; type $type, expected part"
			[ "$rdisk" = "$disk" ] || errs="$errs; disk $rdisk, expected $disk"
			[ "$rstart" = "$start" ] || errs="$errs; start $rstart, expected $start"
			[ "$rlbs $rpbs $rmio $roio" = "$lbs $pbs $mio $oio" ] ||
				errs="$errs; log/phy/min/opt $rlbs $rpbs $rmio $roio, sysfs has $lbs $pbs $mio $oio"
			[ "$ralign" = "$kal" ] ||
				errs="$errs; alignment $ralign, the kernel's alignment_offset is $kal"
			[ "$rcalc" = absent ] || [ "$rcalc" = "$kal" ] ||
				errs="$errs; align-calc $rcalc, the kernel's alignment_offset is $kal"
			[ "$EXP_KALIGN" = "$kal" ] ||
				errs="$errs; the kernel's alignment_offset $kal, the block layer's formula gives $EXP_KALIGN"
			[ "$rphys" = "$EXP_PHYS" ] || errs="$errs; physical $rphys, expected $EXP_PHYS"
			[ "$ropt" = "$EXP_OPT" ] || errs="$errs; optimal $ropt, expected $EXP_OPT"
			[ "$rpol" = "$EXP_POL" ] || errs="$errs; policy $rpol, expected $EXP_POL"
		fi
		if [ -z "$errs" ]; then
			vm_pass "$label/start$((start / lbs))" "$name at $start B: physical $rphys," \
				"optimal $ropt, policy $rpol, alignment $ralign"
		else
			vm_fail "$label/start$((start / lbs))" "$name:${errs#;}"
		fi
	done <<EOF
$parts
EOF

	if [ "$VM_RC" = "$want_rc" ]; then
		vm_pass "$label/exit" "partalign check exits $VM_RC"
	else
		vm_fail "$label/exit" "partalign check exits $VM_RC, expected $want_rc"
	fi
}
