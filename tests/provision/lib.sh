# Helpers of the provision tests; source it after tests/lib/common.sh.
need_root
need_cmd sfdisk partx losetup jq sha256sum stat

# unique_mib [MIB...]: a disk size in MiB that no block device of the host
# has now and that is none of the MIBs given.  size: selectors pick disks by
# size, so the tests' disks must not share it with a disk of anybody else
# (if one appears anyway, provision refuses the ambiguity: it never guesses).
unique_mib() {
	local m=$((40 + ($$ * 7) % 160)) taken
	# (a device that goes away while cat reads makes it fail: not an error)
	taken=" $* $({ cat /sys/block/*/size 2>/dev/null || true; } |
		awk '{ printf "%d ", $1 / 2048 }')"
	while :; do
		case $taken in
		*" $m "*) m=$((m + 1)) ;;
		*) break ;;
		esac
	done
	echo "$m"
}

# layout_ok DEV NAME: the one GPT partition fix --new makes -- from the first
# 2 MiB boundary to the last whole 2 MiB before the backup GPT, named NAME --
# read back independently with sfdisk.  Prints what is wrong, or nothing.
layout_ok() {
	sfdisk --json "$1" 2>/dev/null | jq -r --arg n "$2" '
		.partitiontable as $t | $t.sectorsize as $ss | $t.partitions as $p |
		if $t.label != "gpt" then "label \($t.label), not gpt"
		elif ($p | length) != 1 then "\($p | length) partitions, not 1"
		elif $p[0].start * $ss != 2097152 then "starts at byte \($p[0].start * $ss)"
		elif (($p[0].start + $p[0].size) * $ss) % 2097152 != 0 then "ends off the 2 MiB grain"
		elif ($t.lastlba + 1 - $p[0].start - $p[0].size) * $ss >= 2097152 then
			"a whole grain left at the end"
		elif ($p[0].name // "") != $n then "named \"\($p[0].name // "")\", not \($n)"
		else empty end' || echo "sfdisk cannot read $1"
}

# part_uuid DEV: the (lowercase) UUID of its first partition, from sfdisk.
part_uuid() {
	sfdisk --json "$1" | jq -r '.partitiontable.partitions[0].uuid | ascii_downcase'
}

# disk_sums DEV...: a checksum of every disk's whole content, one line each.
disk_sums() {
	local d
	for d; do
		echo "$d $(sha256sum <"$d" | cut -d' ' -f1)"
	done
}

# The rule lines (not comments) of a rules file that create oracleasm/NAME.
rule_for() {
	grep -v '^#' "$1" | grep -F "SYMLINK+=\"oracleasm/$2\"" || true
}
