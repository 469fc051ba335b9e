#!/bin/bash
# Every refusal of partalign fix: its message on stderr, its exit status, and
# the whole device byte-identical afterwards (sha256 of the loop device).
#   in use:   a partition mounted, a partition used as swap, the disk held
#             open O_EXCL by another process (exit 4);
#   locked:   another process holds flock(LOCK_EX) on the disk (exit 8);
#   data:     a partition holding ext4, xfs, swap or an LVM physical volume
#             (LVM2_member, made by pvcreate: it writes the PV label and
#             needs no device-mapper) without --discard-data (exit 4);
#   no table: a blank disk without --new (exit 4);
#   usage:    a partition named instead of its disk, no --yes without a tty
#             (exit 16); a missing device (exit 8).
# Not covered on this host: holders (no device-mapper, no md here, so no
# active LVM volume either; tests/vm/scenarios/62-fix-held.sh tests that
# refusal in the guest) and multipath paths (70-multipath-fix.sh).
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd mkfs.ext4 mkfs.xfs mkswap swapon swapoff mount umount python3 pvcreate

# refused NAME DEV EXPECTED_RC STDERR_REGEX [FIX ARGS...]
refused() {
	local name=$1 dev=$2 want=$3 re=$4 sum parts disk=$2
	shift 4
	[[ $dev =~ ^(/dev/loop[0-9]+)p[0-9]+$ ]] && disk=${BASH_REMATCH[1]}
	sum=$(content_sum "$disk")
	parts=$(sysfs_layout "$disk")
	pa_fix "$dev" "$@"
	expect_rc "$want" "$name"
	grep -Eq -- "$re" "$T_TMP/err" || fail "$name: stderr '$(cat "$T_TMP/err")' !~ /$re/"
	assert_eq "$sum" "$(content_sum "$disk")" "$name: device content"
	assert_eq "$parts" "$(sysfs_layout "$disk")" "$name: kernel partitions"
	[ -z "$(ls -A "$BK" 2>/dev/null)" ] || fail "$name: a backup was written: $(ls "$BK")"
	echo "ok: $name -> $want: $(head -n1 "$T_TMP/err")"
}

# content_sum DISK: the sha256 of the disk, except the active swap area of
# $SWAP_PART when set: the kernel may page out into it while the test runs
# (seen under memory pressure in CI); the swap header stays in the sum.
content_sum() {
	local off len
	if [ -z "${SWAP_PART:-}" ]; then
		dev_sum "$1"
		return
	fi
	off=$(($(cat "/sys/class/block/${SWAP_PART#/dev/}/start") * 512 + 4096))
	len=$(($(cat "/sys/class/block/${SWAP_PART#/dev/}/size") * 512 - 4096))
	{
		head -c "$off" "$1"
		tail -c +$((off + len + 1)) "$1"
	} | sha256sum | cut -d' ' -f1
}

two_parts='label: gpt\nfirst-lba: 34\nstart=34,size=20000\nstart=24000,size=40000'

# a partition mounted (read-only, so the filesystem itself writes nothing)
m=$(mkdisk mounted 64M 512 "$two_parts")
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "${m}p2"
mkdir "$T_TMP/mnt"
mount -o ro "${m}p2" "$T_TMP/mnt"
at_exit "umount '$T_TMP/mnt' 2>/dev/null"
refused mounted "$m" 4 "refused: ${m#/dev/}p2 is mounted on $T_TMP/mnt"
# being in use outranks everything: --discard-data does not help
refused mounted-discard "$m" 4 "refused: ${m#/dev/}p2 is mounted on" --discard-data
# plan shows the same refusal, in its REFUSED column
run_pa "$T_TMP/out" "$T_TMP/err" plan --json "$m"
expect_rc 4 "plan of a disk in use"
[[ $(jq -r '[.plan[].refused] | unique | join(",")' "$T_TMP/out") == *"p2 is mounted on"* ]] ||
	fail "plan of a disk in use: $(cat "$T_TMP/out")"
umount "$T_TMP/mnt"

# a partition used as swap
s=$(mkdisk swap 64M 512 "$two_parts")
mkswap -q "${s}p1"
swapon "${s}p1"
at_exit "swapoff '${s}p1' 2>/dev/null"
SWAP_PART="${s}p1" refused swap "$s" 4 "refused: ${s#/dev/}p1 is in use as swap" --discard-data
swapoff "${s}p1"

# the disk held open O_EXCL by another process
x=$(mkdisk excl 64M 512 "$two_parts")
python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)
open(sys.argv[2], "w").close()
time.sleep(120)' "$x" "$T_TMP/held" &
holder=$!
at_exit "stop_pid holder"
wait_file "$T_TMP/held" || fail "the O_EXCL holder did not start"
refused excl "$x" 4 "refused: ${x#/dev/} cannot be opened exclusively"
stop_pid holder

# another process holds the disk's flock (what udev and partalign take)
k=$(mkdisk locked 64M 512 "$two_parts")
python3 -c 'import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
time.sleep(120)' "$k" "$T_TMP/locked" &
locker=$!
at_exit "stop_pid locker"
wait_file "$T_TMP/locked" || fail "the flock holder did not start"
refused locked "$k" 8 "$k: locked" --wait 0
stop_pid locker

# signatures the fix would destroy, without --discard-data
d=$(mkdisk ext4 64M 512 "$two_parts")
mkfs.ext4 -q -F "${d}p2"
refused ext4 "$d" 4 "refused: partition 2 holds ext4, which the fix would destroy: --move-data to keep it, --discard-data to wipe it$"
d=$(mkdisk swapsig 64M 4096 'label: gpt\nfirst-lba: 6\nstart=6,size=5000\nstart=5100,size=5000')
mkswap -q "${d}p1"
refused swapsig "$d" 4 "refused: partition 1 holds swap, which the fix would destroy"
# mkfs.xfs wants 300 MiB; the image is sparse
d=$(mkdisk xfs 400M 512 'label: dos\nstart=63,size=700000,type=83')
mkfs.xfs -q -f "${d}p1"
refused xfs "$d" 4 "refused: partition 1 holds xfs, which the fix would destroy"
# an LVM physical volume: pvcreate only writes its label (no dm, no udev, no
# hints, devices file or backups on the host: lvm's own files stay in $T_TMP)
d=$(mkdisk lvm 64M 512 "$two_parts")
mkdir -p "$T_TMP/lvm"
LVM_SYSTEM_DIR=$T_TMP/lvm LVM_SUPPRESS_FD_WARNINGS=1 pvcreate -q -ff -y \
	--config 'devices { obtain_device_list_from_udev = 0 use_devicesfile = 0 hints = "none" }
		activation { udev_sync = 0 udev_rules = 0 monitoring = 0 }
		global { locking_dir = "'"$T_TMP/lvm"'" }
		backup { backup = 0 archive = 0 }' \
	"${d}p1" >/dev/null 2>"$T_TMP/pvcreate.err" ||
	fail "pvcreate ${d}p1: $(cat "$T_TMP/pvcreate.err")"
assert_eq LVM2_member "$(blkid -p -o value -s TYPE "${d}p1")" "blkid of the PV ${d}p1"
refused lvm "$d" 4 "refused: partition 1 holds LVM2_member, which the fix would destroy"

# a disk without a partition table
b=$(mkdisk blank 64M 512)
refused blank "$b" 4 "refused: no partition table"

# usage and operational errors
u=$(mkdisk usage 64M 512 "$two_parts")
refused partition "${u}p1" 16 "is a partition: name its whole disk, $u"
sum=$(dev_sum "$u")
run_pa "$T_TMP/out" "$T_TMP/err" fix --backup-dir "$BK" "$u"
expect_rc 16 "fix without --yes, stdin not a tty"
grep -q "use --yes" "$T_TMP/err" || fail "no --yes: stderr: $(cat "$T_TMP/err")"
assert_eq "$sum" "$(dev_sum "$u")" "fix without --yes changed the disk"
run_pa "$T_TMP/out" "$T_TMP/err" fix --yes --backup-dir "$BK" /dev/partalign-no-such-disk
expect_rc 8 "missing device"
grep -q "/dev/partalign-no-such-disk" "$T_TMP/err" || fail "missing device: $(cat "$T_TMP/err")"
echo "ok: no --yes -> 16, missing device -> 8"
