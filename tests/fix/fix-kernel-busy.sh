#!/bin/bash
# The kernel judges "in use" for every table write: before the first byte,
# fix, fix --move-data and restore take each partition whose entry changes
# from the kernel (BLKPG); one the kernel will not let go is a refusal with
# nothing written, and every partition taken is given back.  The holders
# here are ones no /proc/PID/fd shows: a descriptor of the partition in
# flight in a unix socket (SCM_RIGHTS, sent and never received: the kernel
# holds it open, no process's table has it), and a loop device set up on
# the partition.  Before this, plain fix wrote the table under them (exit 2,
# "the kernel still uses the old table") and the kernel kept a partition the
# table no longer had.  Checked with sha256 of the whole disk, sfdisk and
# sysfs; then, the holder gone, fix does write (sfdisk).
. "${top_srcdir:-.}/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd python3

# hold_inflight PART: a process keeps an open descriptor of PART only inside
# a unix socket's queue; prints its pid once the descriptor is in flight
hold_inflight() {
	python3 - "$1" >"$T_TMP/holder.pid" <<'EOF' &
import array, os, socket, sys, time
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
fd = os.open(sys.argv[1], os.O_RDONLY)
a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))])
os.close(fd)
print(os.getpid(), flush=True)
time.sleep(600)
EOF
	local i
	for i in $(seq 1 100); do
		[ -s "$T_TMP/holder.pid" ] && break
		sleep 0.05
	done
	holder=$(cat "$T_TMP/holder.pid")
	[ -n "$holder" ] || fail "the holder did not start"
	at_exit "kill $holder 2>/dev/null"
}

# kernel_parts DEV -> "NUM START SIZE" of the kernel's partitions (sysfs)
kernel_parts() {
	local p
	for p in /sys/block/"${1#/dev/}"/"${1#/dev/}"p*; do
		[ -e "$p/partition" ] || continue
		echo "$(cat "$p/partition") $(cat "$p/start") $(cat "$p/size")"
	done | sort -n
}

# refused_untouched WHAT RC [TEXT]: the run exited RC, named partition NUM
# as held (TEXT: the refusal's words, by default the kernel's), and neither
# the disk nor the kernel's partitions changed
refused_untouched() {
	local text=${3:-"refused: the kernel will not let partition $num ($(pnode "$dev" "$num")) go"}
	expect_rc "$2" "$1"
	grep -qF "$text" "$T_TMP/err" ||
		fail "$1: no refusal naming partition $num: $(cat "$T_TMP/err")"
	[ -n "${3:-}" ] || grep -q "nothing written" "$T_TMP/err" || fail "$1: $(cat "$T_TMP/err")"
	[ "$(dev_sum "$dev")" = "$sum" ] || fail "$1: the disk changed"
	[ "$(kernel_parts "$dev")" = "$kp" ] ||
		fail "$1: the kernel's partitions changed: $(kernel_parts "$dev"), were $kp"
}

# pnode DEV NUM -> the partition's node (loop0p1)
pnode() {
	echo "${1}p$2"
}

TABLE='label: gpt\nfirst-lba: 34\nstart=63, size=8192, name=one\nstart=10240, size=8192, name=two\nstart=20481, size=8192, name=three'

echo "# a descriptor in flight in a unix socket: no process's table has it"
dev=$(mkdisk busy 32M 512 "$TABLE")
num=1
hold_inflight "$(pnode "$dev" 1)"
# independent: no /proc/*/fd and no /proc/*/task/*/fd names the partition
rdev=$(stat -c '%t:%T' "$(pnode "$dev" 1)")
for f in /proc/[0-9]*/fd/* /proc/[0-9]*/task/*/fd/*; do
	[ "$(stat -L -c '%t:%T' "$f" 2>/dev/null)" = "$rdev" ] &&
		fail "the test's holder is visible after all: $f"
done
sum=$(dev_sum "$dev")
kp=$(kernel_parts "$dev")
pa_fix "$dev"
refused_untouched "fix under an in-flight descriptor" 4
ls "$BK" >/dev/null 2>&1 || true

echo "# restore of fix's own backup, later, under the same holder: refused (8)"
kill "$holder"
wait "$holder" 2>/dev/null || true
pa_fix "$dev"
expect_rc 1 "fix once the holder is gone"
[ "$(sfd_layout "$dev" | awk '{print $2}' | tr '\n' ' ')" = "4096 12288 20480 " ] ||
	fail "fix: the starts are $(sfd_layout "$dev" | awk '{print $2}' | tr '\n' ' ')"
hold_inflight "$(pnode "$dev" 1)"
sum=$(dev_sum "$dev")
kp=$(kernel_parts "$dev")
bk=$(ls -t "$BK"/*.pt | head -1)
run_pa "$T_TMP/out" "$T_TMP/err" restore --yes --backup-dir "$BK" "$bk" "$dev"
refused_untouched "restore under an in-flight descriptor" 8
kill "$holder"
wait "$holder" 2>/dev/null || true

echo "# a loop device on a partition"
dev=$(mkdisk loopover 32M 512 "$TABLE")
num=3
over=$(losetup -f --show -r "$(pnode "$dev" 3)")
at_exit "loop_detach $over 2>/dev/null"
sum=$(dev_sum "$dev")
kp=$(kernel_parts "$dev")
# the look before the question sees a loop device on a partition already
# (the opener scan): refused there, before the kernel is asked
looped="refused: $(pnode "$dev" 3) is used by loop device $over"
pa_fix "$dev"
refused_untouched "fix under a loop device" 4 "$looped"
echo "# --move-data of the held partition: refused before the first byte, no journal left"
mkdir -p "$T_TMP/j"
run_pa "$T_TMP/out" "$T_TMP/err" fix --yes --move-data --quiet --journal "$T_TMP/j" \
	--backup-dir "$BK" "$dev"
refused_untouched "fix --move-data under a loop device" 4 "$looped"
[ -z "$(ls "$T_TMP/j")" ] || fail "fix --move-data left $(ls "$T_TMP/j")"
loop_detach "$over"
pa_fix "$dev"
expect_rc 1 "fix once the loop device is gone"
echo PASS
