#!/bin/bash
# partalign rules, the write path on real loop partitions: --dry-run (an
# exact diff, the file not printed twice, nothing written), the first write, a rerun that
# changes nothing (same bytes, inode and mtime), crashes at each step of the
# atomic replace (the old or the new file, never a part), refusals (data on
# the partition, no usable ID, a whole disk with a table, a link as output),
# --force, --root into a directory tree (warnings about its passwd, ASMLib
# and other rules files) and the chroot of a kickstart %post.
. "$top_srcdir/tests/lib/common.sh"
need_no_sanitizers "the crash shim tests/rules/crashshim.so"
need_root
need_cmd sfdisk partx losetup unshare mkfs.ext4 ldd chroot cmp

SHIM="$top_builddir/tests/rules/crashshim.so"
[ -f "$SHIM" ] || fail "$SHIM not built (make check builds it)"

U1=0b7e3c6a-1f5e-4a4e-9d7a-3c1f0e2d4b01
U2=0b7e3c6a-1f5e-4a4e-9d7a-3c1f0e2d4b02
U3=0b7e3c6a-1f5e-4a4e-9d7a-3c1f0e2d4b03
A=$(mkdisk a 64M 512 "label: gpt\nstart=2048, size=20480, uuid=$U1\nstart=22528, size=20480, uuid=$U2\nstart=43008, size=20480, uuid=$U3")
M=$(mkdisk m 32M 512 'label: dos\nstart=2048, size=20480')
for p in "${A}p1" "${A}p2" "${A}p3" "${M}p1"; do
	[ -b "$p" ] || fail "partition $p was not created"
done
mkfs.ext4 -q "${A}p3"

ETC="$T_TMP/etc/udev/rules.d"
OUT="$ETC/99-oracle-asmdevices.rules"
mkdir -p "$ETC"
# (partuuid: selectors need udev's database, which this host may not have;
# golden.sh tests them)
printf 'DATA1 %s\nDATA2 %s\n' "${A}p1" "${A}p2" >"$T_TMP/map2"
printf 'DATA1 %s\n' "${A}p1" >"$T_TMP/map1"

# The header says how the file was made, and so how to change it: from a
# map (by its real path), or from --disk (every disk named again)
head_map() {
	echo '# Oracle ASM disks: /dev/oracleasm/NAME with the owner, group and mode ASM needs.'
	echo "# Written by partalign rules from the map $1"
	echo "# Do not edit: change the map and run 'partalign rules --map $1' again."
}
HEAD_DISK='# Oracle ASM disks: /dev/oracleasm/NAME with the owner, group and mode ASM needs.
# Written by partalign rules --disk NAME=DEVICE from the devices named.
# Do not edit: run partalign rules again with a --disk for every ASM disk
# (a disk left out loses its rule).'
rule() { # NAME UUID PARTNO
	printf '\n# %s: partition %s (10 MiB) of a 64 MiB loop device\n' "$1" "$3"
	printf 'ACTION=="add|change", SUBSYSTEM=="block", ENV{DEVTYPE}=="partition", ENV{ID_PART_ENTRY_UUID}=="%s", SYMLINK+="oracleasm/%s", OWNER="grid", GROUP="asmadmin", MODE="0660", OPTIONS:="nowatch"\n' "$2" "$1"
}
{
	head_map "$(realpath "$T_TMP/map2")"
	rule DATA1 "$U1" 1
	rule DATA2 "$U2" 2
} >"$T_TMP/want2"
{
	head_map "$(realpath "$T_TMP/map1")"
	rule DATA1 "$U1" 1
} >"$T_TMP/want1"
{
	echo "$HEAD_DISK"
	rule DATA1 "$U1" 1
	rule DATA2 "$U2" 2
} >"$T_TMP/want2disk"

# run EXPECTED_RC ARGS...: partalign rules, stdout/stderr in $T_TMP/out, err
run() {
	local want=$1 rc=0
	shift
	"$PARTALIGN" rules "$@" >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
	[ "$rc" = "$want" ] ||
		fail "rules $*: exit $rc, expected $want; stdout: $(cat "$T_TMP/out"); stderr: $(cat "$T_TMP/err")"
}
err_has() {
	grep -qF -- "$1" "$T_TMP/err" || fail "stderr lacks '$1': $(cat "$T_TMP/err")"
}
out_has() {
	grep -qF -- "$1" "$T_TMP/out" || fail "stdout lacks '$1': $(cat "$T_TMP/out")"
}
fstate() { stat -c '%i %y %s' "$1"; }
# crash STEP ARGS...: partalign rules killed at STEP of its write (the inner
# sh reports the kill to /dev/null, not to the test log)
crash() {
	LD_PRELOAD="$SHIM" PA_CRASH_AT=$1 sh -c '"$@"' sh "$PARTALIGN" rules "${@:2}" \
		>/dev/null 2>&1
}

# --- dry run of a new file: the diff from /dev/null, the file once -----------
run 1 --map "$T_TMP/map2" --output "$OUT" --dry-run
{
	echo '--- /dev/null'
	echo "+++ $OUT"
	echo '@@ -0,0 +1,9 @@'
	sed 's/^/+/' "$T_TMP/want2"
} >"$T_TMP/want-dry"
cmp -s "$T_TMP/want-dry" "$T_TMP/out" || fail "dry run output: $(diff -u "$T_TMP/want-dry" "$T_TMP/out")"
err_has "$OUT: would be written (dry run)"
[ ! -e "$OUT" ] || fail "the dry run wrote the file"

# --- first write, then a rerun that changes nothing ---------------------------
run 1 --map "$T_TMP/map2" --output "$OUT" --no-reload
out_has "$OUT: written (2 rules)"
out_has "--no-reload: udev not reloaded"
cmp -s "$T_TMP/want2" "$OUT" || fail "written file: $(diff -u "$T_TMP/want2" "$OUT")"
[ "$(stat -c %a "$OUT")" = 644 ] || fail "mode of the rules file: $(stat -c %a "$OUT")"
before=$(fstate "$OUT")
sleep 0.05
run 0 --map "$T_TMP/map2" --output "$OUT" --no-reload
out_has "$OUT: unchanged"
assert_eq "$before" "$(fstate "$OUT")" "inode, mtime and size after the rerun"
cmp -s "$T_TMP/want2" "$OUT" || fail "content changed on the rerun"
run 0 --map "$T_TMP/map2" --output "$OUT" --no-reload --quiet
[ ! -s "$T_TMP/out" ] || fail "--quiet printed: $(cat "$T_TMP/out")"
# the same map in another order, from --disk: the same rules, the header
# of --disk; again: unchanged
run 1 --disk "DATA2=${A}p2" --disk "DATA1=${A}p1" --output "$OUT" --no-reload
cmp -s "$T_TMP/want2disk" "$OUT" || fail "file from --disk: $(diff -u "$T_TMP/want2disk" "$OUT")"
run 0 --disk "DATA1=${A}p1" --disk "DATA2=${A}p2" --output "$OUT" --no-reload
out_has unchanged
# the map by another name of the same file: its real path, unchanged
run 1 --map "$T_TMP/map2" --output "$OUT" --no-reload
(cd "$T_TMP" && run 0 --map ./map2 --output "$OUT" --no-reload)
before=$(fstate "$OUT")

# --- dry run of a change: an exact diff, nothing written ----------------------
run 1 --map "$T_TMP/map1" --output "$OUT" --dry-run
cat >"$T_TMP/want-diff" <<EOF
--- $OUT
+++ $OUT
@@ -1,9 +1,6 @@
 # Oracle ASM disks: /dev/oracleasm/NAME with the owner, group and mode ASM needs.
-# Written by partalign rules from the map $(realpath "$T_TMP/map2")
-# Do not edit: change the map and run 'partalign rules --map $(realpath "$T_TMP/map2")' again.
+# Written by partalign rules from the map $(realpath "$T_TMP/map1")
+# Do not edit: change the map and run 'partalign rules --map $(realpath "$T_TMP/map1")' again.
 
 # DATA1: partition 1 (10 MiB) of a 64 MiB loop device
 ACTION=="add|change", SUBSYSTEM=="block", ENV{DEVTYPE}=="partition", ENV{ID_PART_ENTRY_UUID}=="$U1", SYMLINK+="oracleasm/DATA1", OWNER="grid", GROUP="asmadmin", MODE="0660", OPTIONS:="nowatch"
-
-# DATA2: partition 2 (10 MiB) of a 64 MiB loop device
-ACTION=="add|change", SUBSYSTEM=="block", ENV{DEVTYPE}=="partition", ENV{ID_PART_ENTRY_UUID}=="$U2", SYMLINK+="oracleasm/DATA2", OWNER="grid", GROUP="asmadmin", MODE="0660", OPTIONS:="nowatch"
EOF
cmp -s "$T_TMP/want-diff" "$T_TMP/out" || fail "dry-run diff: $(diff -u "$T_TMP/want-diff" "$T_TMP/out")"
assert_eq "$before" "$(fstate "$OUT")" "file after a dry run"

# --- crashes during the atomic replace ----------------------------------------
for step in write fsync rename; do
	rc=0
	crash $step --map "$T_TMP/map1" --output "$OUT" --no-reload || rc=$?
	assert_eq 137 "$rc" "killed at $step"
	cmp -s "$T_TMP/want2" "$OUT" || fail "after a crash at $step the file is not the old one"
	# what is left is a hidden temporary file that udev never reads
	left=$(find "$ETC" -mindepth 1 ! -name 99-oracle-asmdevices.rules)
	[ -n "$left" ] || fail "crash at $step left no temporary file (was it written elsewhere?)"
	case "$left" in
	"$ETC/.99-oracle-asmdevices.rules."??????) ;;
	*) fail "unexpected files after a crash at $step: $left" ;;
	esac
done
# a crash on the very first write leaves no rules file at all
rc=0
crash rename --map "$T_TMP/map1" --output "$ETC/98-new.rules" --no-reload || rc=$?
assert_eq 137 "$rc" "killed at the first rename"
[ ! -e "$ETC/98-new.rules" ] || fail "a crash before the rename left a rules file"
ls "$ETC"/.98-new.rules.?????? >/dev/null || fail "no temporary file of the first write"
rm "$ETC"/.98-new.rules.??????
# the next run replaces the file and clears the leftovers of the dead runs
run 1 --map "$T_TMP/map1" --output "$OUT" --no-reload
cmp -s "$T_TMP/want1" "$OUT" || fail "file after the crashes: $(diff -u "$T_TMP/want1" "$OUT")"
left=$(find "$ETC" -mindepth 1 ! -name 99-oracle-asmdevices.rules)
[ -z "$left" ] || fail "leftovers not removed: $left"

# --- refusals: nothing is written when one entry is bad -----------------------
# every entry is checked in one run, each refusal names its device and cause
before=$(fstate "$OUT")
run 8 --disk "DATA1=${A}p1" --disk "FS1=${A}p3" --disk "X=${M}p1" --disk "W=$A" \
	--disk "P=/etc/passwd" --disk "N=/dev/partalign-no-such-disk" \
	--disk "U=partuuid:00000000-0000-0000-0000-00000000dead" --output "$OUT" --no-reload
err_has "${A}p3: holds data (signature: ext4): ASM would destroy it"
err_has "${M}p1: no usable ID: no GPT partition UUID"
err_has "a loop device has no serial number or WWN"
err_has "$A: holds a gpt partition table: name a partition"
err_has "/etc/passwd: not a block device (P)"
err_has "/dev/partalign-no-such-disk: cannot use it for N: No such file or directory"
err_has "partuuid:00000000-0000-0000-0000-00000000dead: no device of the host has this ID"
err_has "$OUT: not written"
[ "$(grep -v '^partalign: warning: ' "$T_TMP/err" | grep -c '^partalign: ')" = 7 ] || fail "not one line per refusal: $(cat "$T_TMP/err")"
grep -q "${A}p1" "$T_TMP/err" && fail "the good entry was reported"
ln -s "${A}p1" "$T_TMP/by-id-link"
run 8 --disk "X=${A}p1" --disk "Y=$T_TMP/by-id-link" --output "$OUT" --no-reload
err_has "${A}p1: two names for one device: X and Y"
run 16 --disk "bad name=${A}p1" --output "$OUT" --no-reload
err_has "ASM name 'bad name' is not valid"
run 16 --disk "X=${A}p1" --match uuid --output "$OUT"
run 16 --disk "X=${A}p1" --mode 999 --output "$OUT"
assert_eq "$before" "$(fstate "$OUT")" "file after the refusals"
# a link in place of the rules file (an admin masking it) is not replaced
ln -s /dev/null "$ETC/97-masked.rules"
run 8 --map "$T_TMP/map1" --output "$ETC/97-masked.rules" --no-reload
err_has "exists and is not a regular file"
[ -L "$ETC/97-masked.rules" ] || fail "the masking link was replaced"
rm "$ETC/97-masked.rules"
run 8 --map "$T_TMP/map1" --output "$T_TMP/no/such/dir/x.rules" --no-reload
err_has "cannot open its directory"
# --force takes the partition with a filesystem, with a warning
run 1 --disk "FS1=${A}p3" --output "$T_TMP/force.rules" --no-reload --force
err_has "warning: ${A}p3: holds data (signature: ext4); --force"
grep -q "ENV{ID_PART_ENTRY_UUID}==\"$U3\", SYMLINK+=\"oracleasm/FS1\"" "$T_TMP/force.rules" ||
	fail "--force rule missing"

# --- --root: a target system mounted at a directory ---------------------------
R="$T_TMP/target"
mkdir -p "$R/etc/udev/rules.d" "$R/usr/lib/udev/rules.d" "$R/etc/sysconfig"
echo 'root:x:0:0:root:/root:/bin/bash' >"$R/etc/passwd"
printf 'root:x:0:\nasmadmin:x:54329:\n' >"$R/etc/group"
: >"$R/etc/sysconfig/oracleasm"
cat >"$R/usr/lib/udev/rules.d/98-old-asm.rules" <<EOF
# an older hand-written file
KERNEL=="sdb1", SYMLINK+="oracleasm/DATA1", OWNER="oracle"
ENV{ID_PART_ENTRY_UUID}=="$U2", \\
  NAME="asm-data2"
EOF
host_before=$(ls -la /etc/udev/rules.d)
run 1 --root "$R" --map "$T_TMP/map2"
cmp -s "$T_TMP/want2" "$R/etc/udev/rules.d/99-oracle-asmdevices.rules" ||
	fail "--root file: $(diff -u "$T_TMP/want2" "$R/etc/udev/rules.d/99-oracle-asmdevices.rules")"
out_has "--root $R: the rules apply at the next boot of that system"
err_has "warning: user grid does not exist on the target system ($R/etc/passwd)"
grep -q 'group asmadmin' "$T_TMP/err" && fail "asmadmin is in the target's group file"
err_has "warning: $R/etc/sysconfig/oracleasm: ASMLib is present"
err_has "$R/usr/lib/udev/rules.d/98-old-asm.rules:2 also creates /dev/oracleasm/DATA1"
err_has "$R/usr/lib/udev/rules.d/98-old-asm.rules:3 also matches ENV{ID_PART_ENTRY_UUID}=$U2, the device named DATA2 here"
assert_eq "$host_before" "$(ls -la /etc/udev/rules.d)" "the host's rules directory"
run 0 --root "$R" --map "$T_TMP/map2"
out_has unchanged
run 16 --root "$R" --map "$T_TMP/map2" --output relative.rules

# --- a chroot, as in a kickstart %post ----------------------------------------
C="$T_TMP/chroot"
mkdir -p "$C/sbin" "$C/etc/udev/rules.d" "$C/dev" "$C/sys" "$C/proc" "$C/run" "$C/tmp"
cp "$PARTALIGN" "$C/sbin/partalign"
for lib in $(ldd "$PARTALIGN" | grep -o '/[^ ]*'); do
	mkdir -p "$C$(dirname "$lib")"
	cp -L "$lib" "$C$lib"
done
cp /etc/passwd /etc/group "$C/etc/"
# a private mount and PID namespace: its /proc/1/root is the real root, the
# chroot's is not; the mounts vanish with it
unshare -m -p -f --mount-proc --propagation private bash -c "
	set -e
	mount --rbind /dev '$C/dev'
	mount --rbind /sys '$C/sys'
	rc=0
	chroot '$C' /sbin/partalign rules --disk 'DATA1=${A}p1' >'$T_TMP/out' 2>'$T_TMP/err' || rc=\$?
	echo \$rc >'$T_TMP/rc-noproc'
	mount -t proc proc '$C/proc'
	rc=0
	chroot '$C' /sbin/partalign rules --disk 'DATA1=${A}p1' --disk 'DATA2=${A}p2' \
		>'$T_TMP/out2' 2>'$T_TMP/err2' || rc=\$?
	echo \$rc >'$T_TMP/rc-proc'
"
assert_eq 1 "$(cat "$T_TMP/rc-noproc")" "chroot without /proc: $(cat "$T_TMP/err")"
out_has "cannot tell whether this is a chroot (no /proc): udev not triggered"
assert_eq 1 "$(cat "$T_TMP/rc-proc")" "chroot: $(cat "$T_TMP/err2")"
grep -qF "running in a chroot: udev not triggered; the rules apply at the next boot" \
	"$T_TMP/out2" || fail "chroot not detected: $(cat "$T_TMP/out2")"
grep -q udevadm "$T_TMP/err" "$T_TMP/err2" && fail "udevadm was run in the chroot"
cmp -s "$T_TMP/want2disk" "$C/etc/udev/rules.d/99-oracle-asmdevices.rules" ||
	fail "chroot file: $(diff -u "$T_TMP/want2disk" "$C/etc/udev/rules.d/99-oracle-asmdevices.rules")"
assert_eq "$host_before" "$(ls -la /etc/udev/rules.d)" "the host's rules directory after the chroot"
echo "PASS: dry run, idempotency, atomic replace, refusals, --root, chroot"
