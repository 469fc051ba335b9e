# Helpers of the rules tests; source it after tests/lib/common.sh.
#
# Real udev without touching the host: ns_run runs a script in a private
# mount namespace (unshare -m) with
#   - a tmpfs on /dev holding only null and device nodes made for the loop
#     devices the test names (so udev's chown/chmod and links land there),
#   - a tmpfs on /run (a private, empty udev database),
#   - $R_RULES bind-mounted on /etc/udev/rules.d,
#   - a passwd and group with grid, asmadmin and oinstall on /etc/passwd and
#     /etc/group.
# `udevadm test` (udev 252) then applies rules for real inside it.  It is a
# PID namespace as well, with its own /proc.  Every
# mount disappears with the namespace.

need_root
need_cmd udevadm unshare sfdisk partx losetup

R_NS="$T_TMP/ns"
R_RULES="$R_NS/rules"
R_OUT=/etc/udev/rules.d/99-oracle-asmdevices.rules
mkdir -p "$R_RULES" "$R_NS/bin"

cp /etc/passwd "$R_NS/passwd"
cp /etc/group "$R_NS/group"
grep -q '^grid:' "$R_NS/passwd" ||
	echo 'grid:x:54331:54321:Oracle Grid:/home/grid:/bin/false' >>"$R_NS/passwd"
grep -q '^oinstall:' "$R_NS/group" || echo 'oinstall:x:54321:' >>"$R_NS/group"
grep -q '^asmadmin:' "$R_NS/group" || echo 'asmadmin:x:54329:grid' >>"$R_NS/group"
R_GRID_UID=$(awk -F: '$1 == "grid" { print $3 }' "$R_NS/passwd")
R_ASMADMIN_GID=$(awk -F: '$1 == "asmadmin" { print $3 }' "$R_NS/group")

# Functions the namespace scripts use (passed in with declare -f).

# utest ACTION NAME: udevadm test on /sys/class/block/NAME, output in
# $R_NS/utest-NAME.out.  Its exit status is 0 even on a rule syntax error;
# udev reports those while reading the files, on lines that start with the
# file name (lines about applying a rule start with the device name), so any
# such line is a failure.
utest() {
	local out="$R_NS/utest-$2.out" bad
	udevadm test --action="$1" "/sys/class/block/$2" >"$out" 2>&1 || {
		echo "udevadm test $2 failed:" >&2
		cat "$out" >&2
		return 1
	}
	grep -q '^Reading rules file: /etc/udev/rules.d/' "$out" || {
		echo "udevadm test $2 read none of our rules files" >&2
		return 1
	}
	bad=$(grep -E '^/etc/udev/rules\.d/' "$out" || true)
	if [ -n "$bad" ]; then
		echo "udevadm test $2: complaints about our rules:" >&2
		echo "$bad" >&2
		return 1
	fi
}

# The link's target, owner:group and mode of the node behind it, or "missing".
link_state() {
	local l="/dev/oracleasm/$1"
	if [ -L "$l" ]; then
		echo "$(readlink "$l") $(stat -L -c '%U:%G %a' "$l")"
	else
		echo missing
	fi
}

# ns_run LOOPDEV... -- SCRIPT: SCRIPT (bash text) in the namespace.
ns_run() {
	local devs=() d
	while [ "$1" != -- ]; do
		devs+=("$1")
		shift
	done
	shift
	{
		echo 'set -euo pipefail'
		echo "R_NS='$R_NS'; PARTALIGN='$PARTALIGN'; R_OUT='$R_OUT'"
		declare -f utest link_state
		echo 'mount -t tmpfs -o mode=0755 partalign-dev /dev'
		echo 'mknod -m 0666 /dev/null c 1 3'
		for d in "${devs[@]}"; do
			echo "mknod -m 0660 $d b $(tr ':' ' ' <"/sys/class/block/${d#/dev/}/dev")"
		done
		echo 'mount -t tmpfs -o mode=0755 partalign-run /run'
		echo "mount --bind '$R_RULES' /etc/udev/rules.d"
		echo "mount --bind '$R_NS/passwd' /etc/passwd"
		echo "mount --bind '$R_NS/group' /etc/group"
		echo "$1"
	} >"$R_NS/script.sh"
	# a PID namespace too: its /proc/1/root is our root, so partalign does
	# not take the namespace for a chroot (on some hosts PID 1 itself runs
	# in another root)
	unshare -m -p -f --mount-proc --propagation private bash "$R_NS/script.sh"
}

# The partitions of a disk made by mkdisk: "loop7p1 loop7p2".
part_nodes() {
	local d=${1#/dev/} p
	for p in "/sys/class/block/$d/$d"p*; do
		[ -e "$p" ] && echo "/dev/${p##*/}"
	done
}
