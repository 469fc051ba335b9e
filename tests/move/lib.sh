# Helpers for the tests of fix --move-data and resume; source it after
# tests/lib/common.sh.  Contents are compared with sha256sum of what the
# partitions hold, read at the offsets sgdisk/sfdisk report (never what
# partalign says); file systems are checked with e2fsck -fn / xfs_repair -n.
# Every journal and backup goes under $T_TMP.

need_root
need_cmd jq sfdisk sgdisk partx losetup sha256sum dd mkfs.ext4 e2fsck timeout

J="$T_TMP/journal"
BK="$T_TMP/bk"
mkdir -p "$J" "$BK"
# the default journal directory too: check looks there, and a move journalled
# elsewhere leaves its pointer there -- never in the host's state directory
export PARTALIGN_JOURNAL="$J"

# need_shim: $SHIM, the LD_PRELOAD fault shim (faultshim.c), or skip
need_shim() {
	SHIM="$top_builddir/tests/move/faultshim.so"
	[ -f "$SHIM" ] || skip "no $SHIM (make check builds it)"
}

# run_pa ARGS... -> partalign with stdout in $T_TMP/out, stderr in
# $T_TMP/err and the exit status in $PA_RC.
run_pa() {
	PA_RC=0
	"$PARTALIGN" "$@" >"$T_TMP/out" 2>"$T_TMP/err" </dev/null || PA_RC=$?
}

# expect_rc EXPECTED WHAT
expect_rc() {
	[ "$PA_RC" = "$1" ] ||
		fail "$2: exit status $PA_RC, expected $1; stdout: $(cat "$T_TMP/out"); stderr: $(cat "$T_TMP/err")"
}

# expect_err TEXT WHAT: stderr contains TEXT
expect_err() {
	grep -qF -- "$1" "$T_TMP/err" || fail "$2: stderr lacks '$1': $(cat "$T_TMP/err")"
}

pa_move() {
	local dev=$1
	shift
	run_pa fix --yes --move-data --quiet --journal "$J" --backup-dir "$BK" "$@" "$dev"
}

pa_resume() {
	local dev=$1
	shift
	run_pa resume --quiet --journal "$J" --backup-dir "$BK" "$@" "$dev"
}

lsec_of() {
	cat "/sys/block/${1#/dev/}/queue/logical_block_size"
}

# part_geom DEV NUM -> "START SIZE" in bytes, from the table on disk (sfdisk).
part_geom() {
	local l
	l=$(lsec_of "$1")
	sfdisk --json "$1" | jq -r --arg n "$2" --argjson l "$l" '.partitiontable.partitions[] |
		select(.node | test("[^0-9]" + $n + "$")) | "\(.start * $l) \(.size * $l)"'
}

# part_sum DEV NUM -> sha256 of the partition's bytes, read from the whole
# disk at the offset the on-disk table gives.
part_sum() {
	local g s z
	g=$(part_geom "$1" "$2")
	s=${g% *}
	z=${g#* }
	dd if="$1" bs=64K iflag=skip_bytes,count_bytes,direct skip="$s" count="$z" status=none |
		sha256sum | cut -d' ' -f1
}

# sums_of DEV NUMS... -> one "NUM SHA" line per partition
sums_of() {
	local dev=$1 n
	shift
	for n; do
		echo "$n $(part_sum "$dev" "$n")"
	done
}

# ids_of DEV NUMS... -> "NUM PARTUUID TYPE NAME" per partition (sgdisk -i)
ids_of() {
	local dev=$1 n
	shift
	for n; do
		sgdisk -i "$n" "$dev" | awk -v n="$n" '
			/^Partition GUID code:/ {t = $4}
			/^Partition unique GUID:/ {u = $4}
			/^Partition name:/ {sub(/^Partition name: /, ""); nm = $0}
			END {print n, u, t, nm}'
	done
}

# The node of partition NUM of DEV, once the kernel has it.
pnode() {
	# a disk whose name ends in a digit (loop1, nvme0n1) has "p" before the
	# number, whether or not the node is there now (a hidden partition's is
	# not: "$1$2" would name another device, loop1 -> loop11)
	case $1 in
	*[0-9]) echo "${1}p$2" ;;
	*) echo "$1$2" ;;
	esac
}

# fill_ext4 DEV NUM MiB: an ext4 file system with MiB of random files.
fill_ext4() {
	local node mnt
	node=$(pnode "$1" "$2")
	mkfs.ext4 -q -F "$node"
	mnt="$T_TMP/mnt.$$"
	mkdir -p "$mnt"
	# mounted in a mount namespace of its own: a namespace another test
	# creates meanwhile (unshare -m) would otherwise copy the mount and keep
	# the file system, and so the disk, claimed after our umount (the
	# "cannot be opened exclusively: it is in use" flake of move-roundtrip)
	unshare -m --propagation private sh -ec '
		mount "$1" "$2"
		head -c "$3" /dev/urandom >"$2/data"
		mkdir "$2/dir"
		seq 1 2000 | while read -r i; do echo "$i" >"$2/dir/f$i"; done
		umount "$2"' sh "$node" "$mnt" "$(($3 << 20))"
}

# fill_xfs DEV NUM MiB
fill_xfs() {
	local node mnt
	node=$(pnode "$1" "$2")
	mkfs.xfs -q -f "$node"
	mnt="$T_TMP/mnt.$$"
	mkdir -p "$mnt"
	# in a mount namespace of its own, as fill_ext4
	unshare -m --propagation private sh -ec '
		mount "$1" "$2"
		head -c "$3" /dev/urandom >"$2/data"
		umount "$2"' sh "$node" "$mnt" "$(($3 << 20))"
}

# fill_raw DEV NUM: random bytes over the whole partition
fill_raw() {
	local node
	node=$(pnode "$1" "$2")
	dd if=/dev/urandom of="$node" bs=1M status=none 2>/dev/null || true
	# written back before anyone checksums the disk: the partition node has
	# a page cache of its own, which a direct read of the disk does not see
	# (sums taken while writeback still ran made "content changed" flakes)
	blockdev --flushbufs "$node"
}

# disk_sum DEV -> sha256 of the whole disk, read past the page cache
disk_sum() {
	dd if="$1" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1
}

# unchanged DEV SUM WHAT: the whole disk, byte for byte
unchanged() {
	[ "$(disk_sum "$1")" = "$2" ] || fail "$3 changed the disk"
}

# The journal files left in $J.
# killed_journal DIR PTRDIR: after a killed move, its journal in DIR and the
# pointer to it in PTRDIR; sets jf (the journal), ptr (the pointer) and mid
# (the move id)
killed_journal() {
	jf=$(find "$1" -name '*.journal')
	[ -f "$jf" ] || fail "no journal in $1 after the killed move"
	ptr=$(find "$2" -name '*.journal' -type l)
	[ -n "$ptr" ] || fail "no pointer in $2"
	mid=${jf%.journal}
	mid=${mid##*-}
}

journals() {
	find "$J" -name '*.journal' | wc -l
}

# expect_aligned DEV NUM GRAIN_BYTES
expect_aligned() {
	local g
	g=$(part_geom "$1" "$2")
	[ $((${g% *} % $3)) = 0 ] || fail "partition $2 of $1 starts at ${g% *}, not on $3"
}

# after_crash DEV: a killed move took its moving partitions away from the
# kernel for the move; the kernel reads the (marked) table again, as at the
# boot after a crash.  The kernel must not have had them.
after_crash() {
	[ -z "$(ls -d /sys/class/block/"${1#/dev/}"/"${1#/dev/}"p1 2>/dev/null)" ] ||
		fail "$1: the killed move left partition 1 with the kernel"
	partx -a "$1" 2>/dev/null || partx -u "$1"
}

# snapshot DEV FILE: save the disk's content (a small image) for a reset
snapshot() {
	dd if="$1" of="$2" bs=1M iflag=direct status=none
}

# restore_snapshot DEV FILE: put it back, and the kernel's partitions with it
restore_snapshot() {
	partx -d "$1" >/dev/null 2>&1 || true
	dd if="$2" of="$1" bs=1M oflag=direct status=none
	partx -a "$1" 2>/dev/null || partx -u "$1"
}

# hidden_by_marker DEV ID NUMS...: the disk's own table (read with sfdisk and
# libblkid, not partalign) hides partitions NUMS for move ID: GPT, each entry's
# type is zero and its name "partalign-move ID", and the disk GUID is the
# marker's (DB991ED2-F649-406F-<ID>); dos, each entry has size 0 and type 7f,
# and the disk signature is ID's low 32 bits; and libblkid (udev, blkid -p,
# partx, what the kernel's partitions come from at boot) lists none of them.
# Fails the test, naming what differs.
hidden_by_marker() {
	local dev=$1 id=$2 n label
	shift 2
	sfdisk --json "$dev" >"$T_TMP/dump.json" || fail "sfdisk --json $dev"
	partx --show -g -o NR "$dev" >"$T_TMP/partx" 2>/dev/null || true
	label=$(jq -r .partitiontable.label "$T_TMP/dump.json")
	for n; do
		if [ "$label" = gpt ]; then
			jq -e --arg n "$n" --arg name "partalign-move $id" '.partitiontable.partitions[] |
				select(.node | test("[^0-9]" + $n + "$")) |
				select(.type == "00000000-0000-0000-0000-000000000000" and .name == $name)' \
				"$T_TMP/dump.json" >/dev/null ||
				fail "partition $n is not hidden for move $id: $(cat "$T_TMP/dump.json")"
		else
			jq -e --arg n "$n" '.partitiontable.partitions[] |
				select(.node | test("[^0-9]" + $n + "$")) | select(.type == "7f" and .size == 0)' \
				"$T_TMP/dump.json" >/dev/null ||
				fail "partition $n is not hidden for move $id: $(cat "$T_TMP/dump.json")"
		fi
		! grep -qx " *$n" "$T_TMP/partx" ||
			fail "libblkid still lists partition $n of $dev: $(cat "$T_TMP/partx")"
	done
	if [ "$label" = gpt ]; then
		[ "$(jq -r .partitiontable.id "$T_TMP/dump.json" | tr -d - | tr A-F a-f)" = "db991ed2f649406f$id" ] ||
			fail "the disk GUID is not move $id's: $(jq -r .partitiontable.id "$T_TMP/dump.json")"
	else
		[ "$(jq -r .partitiontable.id "$T_TMP/dump.json")" = "0x${id: -8}" ] ||
			fail "the disk signature is not move $id's: $(jq -r .partitiontable.id "$T_TMP/dump.json")"
	fi
}
