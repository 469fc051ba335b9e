# Helpers for the tests of partalign plan, fix and restore; source it after
# tests/lib/common.sh.  Expected layouts are worked out here with shell
# arithmetic and read back with sfdisk, sgdisk, parted and sysfs, never with
# partalign itself.  Every fix and restore writes its backups under $T_TMP.

need_root
need_cmd jq sfdisk sgdisk parted partx losetup blkid sha256sum

BK="$T_TMP/bk"

# GPT type GUIDs of the dos system ids partalign maps.
GUID_LINUX=0FC63DAF-8483-4772-8E79-3D69D8477DE4
GUID_LVM=E6D6D379-F507-44C2-A23C-238F2A3DF928
GUID_RAID=A19D880F-05FC-4D3B-A006-743F0F84911E
GUID_SWAP=0657FD6D-A4AB-43C4-84E5-0933C84B4F4F

# run_pa OUT ERR ARGS... -> runs partalign, stdout to OUT, stderr to ERR;
# the exit status lands in $PA_RC (the caller's set -e is not tripped).
run_pa() {
	local out=$1 err=$2
	shift 2
	PA_RC=0
	"$PARTALIGN" "$@" >"$out" 2>"$err" </dev/null || PA_RC=$?
}

# expect_rc EXPECTED MESSAGE
expect_rc() {
	[ "$PA_RC" = "$1" ] || fail "$2: exit status $PA_RC, expected $1 (stderr: $(cat "$T_TMP/err" 2>/dev/null))"
}

# pa_fix DEV [ARGS...] -> partalign fix --yes with the test's backup dir;
# output in $T_TMP/out, $T_TMP/err, status in $PA_RC.
pa_fix() {
	local dev=$1
	shift
	run_pa "$T_TMP/out" "$T_TMP/err" fix --yes --backup-dir "$BK" "$@" "$dev"
}

# The checksum of the whole device's content.
dev_sum() {
	sha256sum <"$1" | cut -d' ' -f1
}

lsec_of() {
	cat "/sys/block/${1#/dev/}/queue/logical_block_size"
}

# The table as sfdisk sees it, one partition a line, by number:
# "NUM START SIZE TYPE UUID NAME ATTRS" (sectors; - for what a dos table lacks).
sfd_layout() {
	sfdisk --json "$1" | jq -r '.partitiontable.partitions // [] | .[] |
		[(.node | capture("(?<n>[0-9]+)$").n), .start, .size, .type,
		 (.uuid // "-"), ((.name // "") | if . == "" then "-" else . end),
		 ((.attrs // "") | if . == "" then "-" else . end)] | join(" ")' | sort -n
}

# The label type as sfdisk sees it (gpt or dos).
sfd_label() {
	sfdisk --json "$1" | jq -r '.partitiontable.label'
}

# "NUM START SIZE" in logical sectors, from parted.
parted_layout() {
	parted -s -m "$1" unit s print | awk -F: 'NR > 2 {
		sub(/s$/, "", $2); sub(/s$/, "", $4); print $1, $2, $4 }' | sort -n
}

# "NUM START SIZE" in logical sectors, from the kernel (sysfs counts 512s).
sysfs_layout() {
	local disk=${1#/dev/} l p
	l=$(lsec_of "$1")
	for p in /sys/block/"$disk"/"$disk"p*; do
		[ -e "$p/partition" ] || continue
		echo "$(cat "$p/partition") $(($(cat "$p/start") * 512 / l)) $(($(cat "$p/size") * 512 / l))"
	done | sort -n
}

# sgdisk -v must find no problems.
sgdisk_ok() {
	local out
	out=$(sgdisk -v "$1" 2>&1) || fail "sgdisk -v $1 failed: $out"
	grep -q '^No problems found' <<<"$out" || fail "sgdisk -v $1: $out"
}

# kernel_reload DEV: make the kernel's partitions those of the table on DEV.
kernel_reload() {
	partx -d "$1" >/dev/null 2>&1 || true
	partx -a "$1" >/dev/null 2>&1 || true
}

# expected_layout DEV GRAIN_SECTORS < "NUM START SIZE" lines (old layout in
# on-disk order) -> "NUM START SIZE" of the plan, worked out independently:
# in order, a start on the grain that is clear of the previous partition
# stays; every other one goes to the next grain boundary after the previous
# end (never before the first usable sector of a GPT); a size that does not
# fit before the backup GPT is rounded down to a whole number of grains.
expected_layout() {
	local dev=$1 g=$2 l total first last cursor num start size ns room
	l=$(lsec_of "$dev")
	total=$(($(blockdev --getsize64 "$dev") / l))
	first=$((2 + (16384 + l - 1) / l))
	last=$((total - 1 - (16384 + l - 1) / l - 1))
	cursor=$first
	while read -r num start size; do
		if [ $((start % g)) = 0 ] && [ "$start" -ge "$cursor" ]; then
			ns=$start
		else
			ns=$(((cursor + g - 1) / g * g))
		fi
		room=$((last + 1 - ns))
		[ "$size" -le "$room" ] || size=$((room / g * g))
		echo "$num $ns $size"
		cursor=$((ns + size))
	done | sort -n
}

# verify_fixed DEV GRAIN_SECTORS EXPECTED_FILE
# EXPECTED_FILE: "NUM START SIZE" lines.  sfdisk, parted and sysfs must all
# show exactly that layout; every start on the grain, no overlaps, the GPT
# clean for sgdisk, and a GPT label.
verify_fixed() {
	local dev=$1 g=$2 want=$3 got prev_end=-1 num start size
	assert_eq gpt "$(sfd_label "$dev")" "$dev: label after fix"
	got=$(sfd_layout "$dev" | cut -d' ' -f1-3)
	assert_eq "$(cat "$want")" "$got" "$dev: sfdisk layout"
	assert_eq "$(cat "$want")" "$(parted_layout "$dev")" "$dev: parted layout"
	assert_eq "$(cat "$want")" "$(sysfs_layout "$dev")" "$dev: kernel (sysfs) layout"
	while read -r num start size; do
		[ $((start % g)) = 0 ] || fail "$dev: partition $num starts at $start, not on $g"
		[ "$start" -gt "$prev_end" ] || fail "$dev: partition $num overlaps its predecessor"
		prev_end=$((start + size - 1))
	done < <(sort -k2,2n "$want")
	sgdisk_ok "$dev"
}

# stop_pid VAR: kill and reap the background process whose pid is in $VAR (if
# it is still ours), then clear VAR so an at_exit hook never kills a reused pid.
stop_pid() {
	local p=${!1:-}
	[ -n "$p" ] || return 0
	kill "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
	printf -v "$1" '%s' ''
}

# wait_file FILE: wait up to 10 s for FILE to appear.
wait_file() {
	local i
	for i in $(seq 1 100); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# pnode_of DEV NUM: the node of partition NUM of DEV (loop0p1, sda1)
pnode_of() {
	# "p" before the number after a name ending in a digit, node there or not
	# ("$1$2" would name another device: loop1 -> loop11)
	case $1 in
	*[0-9]) echo "${1}p$2" ;;
	*) echo "$1$2" ;;
	esac
}

# two_labels DEV: true when sector 0 holds a dos table (55 AA, no 0xEE entry)
# and a GPT header with a valid CRC sits at LBA 1: two labels, which readers
# take differently (the kernel and libparted dos, gdisk and a GPT-first tool
# the GPT).  (A lone backup GPT at the end beside a dos table is what a
# dos -> GPT write has made first; no reader takes it without a primary.)
# Read here, byte by byte.
two_labels() {
	python3 - "$1" "$(cat "/sys/block/${1#/dev/}/queue/logical_block_size")" <<'PY'
import struct, sys, zlib
path, ss = sys.argv[1], int(sys.argv[2])
with open(path, 'rb') as f:
    f.seek(0, 2)
    size = f.tell()
    f.seek(0)
    s0 = f.read(512)
    def gpt_at(lba):
        f.seek(lba * ss)
        h = bytearray(f.read(512))
        if h[:8] != b'EFI PART':
            return False
        hs = struct.unpack_from('<I', h, 12)[0]
        if hs < 92 or hs > 512:
            return False
        crc = struct.unpack_from('<I', h, 16)[0]
        struct.pack_into('<I', h, 16, 0)
        return zlib.crc32(bytes(h[:hs])) & 0xffffffff == crc
    dos = s0[510:512] == b'\x55\xaa' and all(s0[446 + 16 * i + 4] != 0xee for i in range(4))
    sys.exit(0 if dos and gpt_at(1) else 1)
PY
}
