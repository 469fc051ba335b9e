# shellcheck shell=bash
# Helpers for the tests of partalign-collect; source after tests/lib/common.sh.
#
# The collector runs in a root that holds nothing but busybox (the static
# binary of busybox-static and a link per applet) and the script, entered
# with chroot inside a private mount and PID namespace (unshare): the
# directories it reads -- the host's /sys, /proc, /dev and /run/udev, or an
# old-kernel-shaped tree -- are bind-mounted there read-only, and the
# namespace's mounts and processes end with it.

need_root
need_cmd unshare chroot jq python3

COLLECT=$top_srcdir/collect/partalign-collect
UNPACK=$top_srcdir/ansible/roles/audit/files/partalign-unpack
[ -f "$COLLECT" ] || fail "no collector at $COLLECT"
[ -f "$UNPACK" ] || fail "no partalign-unpack at $UNPACK"

# The busybox of busybox-static: statically linked, so that the root needs no
# library
collect_busybox() {
	local b
	for b in /bin/busybox /usr/bin/busybox; do
		if [ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1; then
			echo "$b"
			return 0
		fi
	done
	skip "needs a static busybox (Debian: busybox-static)"
}

# bb_root DIR [APPLET...]: a root of busybox and its applet links (but the
# APPLETs named), the collector in /collect, mount points for the rest
bb_root() {
	local root=$1 bb a skip_list
	shift
	skip_list=" $* "
	bb=$(collect_busybox)
	mkdir -p "$root"/{bin,collect,sys,proc,dev,run/udev,out,tmp}
	cp "$bb" "$root/bin/busybox"
	for a in $("$bb" --list); do
		case $skip_list in *" $a "*) continue ;; esac
		[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
	done
	cp "$COLLECT" "$root/collect/partalign-collect"
}

# bb_binds ROOT SYS PROC DEV RUN_UDEV: the shell commands (for an ns script)
# that bind the four directories into ROOT read-only
bb_binds() {
	local root=$1 src dst
	shift
	for dst in sys proc dev run/udev; do
		src=$1
		shift
		[ -n "$src" ] || continue
		printf 'mount --bind %q %q\n' "$src" "$root/$dst"
		printf 'mount -o remount,bind,ro %q\n' "$root/$dst"
	done
}

# ns_udev NAMES...: the opening of an ns script that has udev describe the
# kernel names NAMES (and nothing else) afresh: a private /run and /dev, a
# node for each, udevadm test (its output in $T_TMP/utest-NAME.out); the
# script stops at the first command that fails, naming it
ns_udev() {
	local n
	echo 'set -euo pipefail'
	echo 'trap '\''echo "namespace script: exit $? at: $BASH_COMMAND" >&2'\'' ERR'
	echo 'mount -t tmpfs -o mode=0755 pa-run /run'
	echo 'mount -t tmpfs -o mode=0755 pa-dev /dev'
	echo 'mknod -m 0666 /dev/null c 1 3'
	for n in "$@"; do
		echo "mknod -m 0660 /dev/$n b $(tr ':' ' ' <"/sys/class/block/$n/dev")"
		printf 'udevadm test --action=add %q >%q 2>&1\n' "/sys/class/block/$n" "$T_TMP/utest-$n.out"
	done
}

# ns_run SCRIPT: bash SCRIPT in a private mount and PID namespace.  Should
# the test end first (a signal), the namespace's PID 1 is killed, and with
# it every process in there; its mounts go with the namespace.
ns_run() {
	local pid rc=0
	unshare -m -p -f --kill-child --mount-proc --propagation private bash "$1" &
	pid=$!
	at_exit "kill $pid 2>/dev/null"
	wait "$pid" || rc=$?
	return $rc
}

# rows FILE NAMES...: the rows of check --json FILE whose device or disk is
# one of NAMES (kernel names), sorted, as jq -S prints them
rows() {
	local f=$1
	shift
	jq -S --arg mine "$*" '($mine | split(" ")) as $m | [.devices[] | select(
		(.kname // .name) as $n | .disk as $d |
		($m | index($n)) != null or ($d != null and ($m | index($d)) != null))]
		| sort_by(.kname // .name)' "$f"
}
