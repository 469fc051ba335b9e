# Helpers for the integration tests of 'partalign check'; source it after
# tests/lib/common.sh.  Expected values come from sysfs, sfdisk and shell
# arithmetic, never from partalign itself.

need_root
need_cmd jq sfdisk partx losetup

# run_pa OUT ERR ARGS... -> runs partalign, stdout to OUT, stderr to ERR;
# the exit status lands in $PA_RC (the caller's set -e is not tripped).
run_pa() {
	local out=$1 err=$2
	shift 2
	PA_RC=0
	"$PARTALIGN" "$@" >"$out" 2>"$err" || PA_RC=$?
}

# expect_rc EXPECTED MESSAGE
expect_rc() {
	[ "$PA_RC" = "$1" ] || fail "$2: exit status $PA_RC, expected $1"
}

# The kernel's partitions of whole device DEV (loopN), one name a line,
# sorted by partition number.
sysfs_parts() {
	local disk=${1#/dev/} p
	for p in /sys/block/"$disk"/"$disk"p*; do
		[ -e "$p/partition" ] || continue
		echo "$(cat "$p/partition") ${p##*/}"
	done | sort -n | cut -d' ' -f2
}

# sysroot_disks: the devices whose rows a collection or a dump must keep,
# GPT and dos on 512-byte sectors with aligned and misaligned starts, GPT on
# a 4Kn device and a whole device without a table (one row of its own); sets
# g512 d512 g4k plain, and mine to their names (the partitions' are added by
# who needs them)
sysroot_disks() {
	local d
	g512=$(mkdisk g512 64M 512 'label: gpt\nfirst-lba: 34
start=34,size=29\nstart=63,size=1985\nstart=2048,size=2047\nstart=4095,size=8193')
	d512=$(mkdisk d512 64M 512 'label: dos
start=63,size=1985\nstart=2048,size=2047\nstart=4096,size=4096')
	g4k=$(mkdisk g4k 64M 4096 'label: gpt\nfirst-lba: 6
start=7,size=249\nstart=256,size=255\nstart=511,size=1025')
	plain=$(mkdisk plain 8M 512)
	mine=()
	for d in "$g512" "$d512" "$g4k" "$plain"; do
		mine+=("${d#/dev/}")
	done
	for d in "$g512" "$d512" "$g4k"; do
		[ "$(sysfs_parts "$d" | wc -l)" -ge 3 ] || fail "$d: partitions did not reach the kernel"
	done
}

qattr() {
	cat "/sys/block/${1#/dev/}/queue/$2"
}

# Physical grain as the kernel defines it: the larger of the physical sector
# and the minimum I/O size (never less than a logical sector).
phys_grain() {
	local dev=$1 g l m
	g=$(qattr "$dev" physical_block_size)
	m=$(qattr "$dev" minimum_io_size)
	l=$(qattr "$dev" logical_block_size)
	[ "$m" -gt "$g" ] && g=$m
	[ "$l" -gt "$g" ] && g=$l
	echo "$g"
}

# verdict START GRAIN OFFSET -> ok or misaligned
verdict() {
	if [ $((($1 % $2 + $2 - $3 % $2) % $2)) = 0 ]; then echo ok; else echo misaligned; fi
}

# verify_disk JSONFILE DEV GRAIN_BYTES
# Checks every kernel partition of DEV against its row in JSONFILE: start
# (sysfs and sfdisk --json), alignment_offset, queue limits and the three
# verdicts recomputed here.  GRAIN_BYTES 0 means the policy must be n/a.
# Prints the policy verdicts, one letter per partition (o ok, M misaligned,
# - n/a), for the caller to compare with the expected pattern.
verify_disk() {
	local json=$1 dev=$2 grain=$3 disk=${2#/dev/}
	local lsec psec mio oio doff pg exp pattern="" sfd p kalign sys_start
	local name path rdisk start align rlsec rpsec rmio roio phys opt pol reason
	local -A sfd_start=() seen=()

	lsec=$(qattr "$dev" logical_block_size)
	psec=$(qattr "$dev" physical_block_size)
	mio=$(qattr "$dev" minimum_io_size)
	oio=$(qattr "$dev" optimal_io_size)
	doff=$(cat "/sys/block/$disk/alignment_offset")
	pg=$(phys_grain "$dev")
	# jq is slow to start: one call for sfdisk's view, one for partalign's
	sfd=$(sfdisk --json "$dev" | jq -r '.partitiontable | "sectorsize \(.sectorsize)",
		(.partitions[] | "\(.node) \(.start)")')
	while read -r p sys_start; do
		sfd_start[$p]=$sys_start
	done <<<"$sfd"
	assert_eq "$lsec" "${sfd_start[sectorsize]}" "$disk: sfdisk sector size"

	while IFS=$'\t' read -r name path rdisk start align rlsec rpsec rmio roio phys opt pol \
		reason; do
		p=$name
		[ -z "${seen[$p]:-}" ] || fail "$p: more than one row"
		seen[$p]=1
		[ -e "/sys/block/$disk/$p/partition" ] || fail "$p: row for no kernel partition"
		sys_start=$(($(cat "/sys/block/$disk/$p/start") * 512))
		kalign=$(cat "/sys/block/$disk/$p/alignment_offset")
		[ -n "${sfd_start[/dev/$p]:-}" ] || fail "$p: not in sfdisk's table"
		assert_eq "$sys_start" "$((sfd_start[/dev/$p] * lsec))" "$p: sysfs vs sfdisk start"
		assert_eq "$sys_start" "$start" "$p: start"
		assert_eq "$kalign" "$align" "$p: alignment"
		assert_eq "$lsec" "$rlsec" "$p: log-sec"
		assert_eq "$psec" "$rpsec" "$p: phy-sec"
		assert_eq "$mio" "$rmio" "$p: min-io"
		assert_eq "$oio" "$roio" "$p: opt-io"
		assert_eq "$disk" "$rdisk" "$p: disk"
		assert_eq "/dev/$p" "$path" "$p: path"

		exp=$(verdict "$sys_start" "$pg" "$doff")
		# the kernel's own offset for the partition must agree too
		[ "$kalign" = $(((pg + doff % pg - sys_start % pg) % pg)) ] || exp=misaligned
		assert_eq "$exp" "$phys" "$p: physical verdict"
		if [ "$oio" = 0 ]; then
			assert_eq "n/a" "$opt" "$p: optimal verdict (no opt-io)"
		fi
		if [ "$grain" = 0 ]; then
			exp="n/a"
		else
			exp=$(verdict "$sys_start" "$grain" "$doff")
		fi
		assert_eq "$exp" "$pol" "$p: policy verdict (start $sys_start, grain $grain)"
		[ "$pol" != misaligned ] || [[ $reason == *policy* ]] ||
			fail "$p: misaligned policy without a policy reason: '$reason'"
	done < <(jq -r --arg d "$disk" '.devices[] | select(.disk == $d) |
		[.name, .path, .disk, .start, .alignment, ."log-sec", ."phy-sec", ."min-io",
		 ."opt-io", .physical, .optimal, .policy, .reason] | @tsv' "$json")

	# every kernel partition of the disk has its row; the pattern follows
	# partition order
	for p in $(sysfs_parts "$dev"); do
		[ -n "${seen[$p]:-}" ] || fail "$p: no row"
	done
	while IFS=$'\t' read -r name pol; do
		case $pol in
		ok) pattern+=o ;;
		misaligned) pattern+=M ;;
		*) pattern+=- ;;
		esac
	done < <(jq -r --arg d "$disk" '.devices[] | select(.disk == $d) |
		[.partn, .policy] | @tsv' "$json" | sort -n)
	echo "$pattern"
}
