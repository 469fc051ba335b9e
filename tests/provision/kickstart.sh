#!/bin/bash
# The kickstart %post case: partalign provision inside a chroot, as anaconda
# runs %post in the installed system with /dev, /sys and /proc bound into it.
# The chroot holds only the two partalign programs, their libraries, a shell
# and a fake udevadm that logs every call.  In a private mount and PID
# namespace (its /proc/1/root is the real root, so the chroot is visible as
# one), provision must partition the blank disks, write the rules inside the
# chroot's /etc/udev/rules.d, say that udev was not triggered, and never run
# `udevadm trigger` or `udevadm control`.  A second run changes nothing.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/provision/lib.sh"
need_cmd unshare chroot ldd cmp

APPLY=$(dirname "$PARTALIGN")/partalign-apply
[ -x "$APPLY" ] || fail "no partalign-apply beside $PARTALIGN"

SZ=$(unique_mib)
D1=$(mkdisk ks512 48M 512)
D2=$(mkdisk ks4k "${SZ}M" 4096)

C=$T_TMP/sysimage
mkdir -p "$C/usr/sbin" "$C/usr/bin" "$C/etc/udev/rules.d" "$C/etc/partalign" \
	"$C/dev" "$C/sys" "$C/proc" "$C/run" "$C/tmp" "$C/root" "$C/var/lib"
# both programs side by side: partalign finds partalign-apply beside itself
cp "$PARTALIGN" "$APPLY" "$C/usr/sbin/"
cp "$(command -v dash || command -v sh)" "$C/usr/bin/sh"
for bin in "$PARTALIGN" "$APPLY" "$C/usr/bin/sh"; do
	for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
		mkdir -p "$C$(dirname "$lib")"
		[ -e "$C$lib" ] || cp -L "$lib" "$C$lib"
	done
done
ln -s usr/bin "$C/bin"
ln -s usr/sbin "$C/sbin"
cat >"$C/usr/bin/udevadm" <<'SH'
#!/bin/sh
echo "udevadm $*" >>/udevadm.log
exit 0
SH
chmod 755 "$C/usr/bin/udevadm"
printf 'root:x:0:0::/root:/bin/sh\ngrid:x:54331:54321::/home/grid:/bin/false\n' >"$C/etc/passwd"
printf 'root:x:0:\noinstall:x:54321:\nasmadmin:x:54329:grid\n' >"$C/etc/group"
cat >"$C/etc/partalign/asm-disks.conf" <<CONF
# written by the kickstart before %post
owner grid
group asmadmin
mode 0660
DATA01  $D1
DATA02  size:${SZ}MiB
CONF

host_rules_before=$(ls -la /etc/udev/rules.d 2>&1)

# The %post body, as documented (--log= of %post keeps stderr; stdout is the
# JSON summary); run twice in one namespace.
cat >"$T_TMP/post.sh" <<SH
set -u
mount --rbind /dev '$C/dev'
mount --rbind /sys '$C/sys'
mount -t proc proc '$C/proc'
for run in 1 2; do
	rc=0
	PATH=/usr/sbin:/usr/bin chroot '$C' /usr/sbin/partalign provision \
		--config /etc/partalign/asm-disks.conf --json \
		--backup-dir /var/lib/partalign/backup \
		>'$T_TMP/out.'\$run 2>'$T_TMP/err.'\$run || rc=\$?
	echo \$rc >'$T_TMP/rc.'\$run
done
SH
unshare -m -p -f --mount-proc --propagation private bash "$T_TMP/post.sh" ||
	fail "the namespace script failed"

assert_eq 1 "$(cat "$T_TMP/rc.1")" "first run in the chroot: $(cat "$T_TMP/err.1")"
jq -e . "$T_TMP/out.1" >/dev/null || fail "first run: stdout is not JSON"
assert_eq true "$(jq -r .changed "$T_TMP/out.1")" "first run: changed"
assert_eq "created created" "$(jq -r '[.disks[].action] | join(" ")' "$T_TMP/out.1")" \
	"first run: actions"
assert_eq "$D2" "$(jq -r '.disks[1].device' "$T_TMP/out.1")" "size: in the chroot"
assert_eq written "$(jq -r .rules.result "$T_TMP/out.1")" "first run: rules"
assert_eq /etc/udev/rules.d/99-oracle-asmdevices.rules "$(jq -r .rules.file "$T_TMP/out.1")" \
	"first run: rules file (as the chroot sees it)"
jq -r .msg "$T_TMP/out.1" | grep "chroot: udev not triggered" >/dev/null ||
	fail "the summary does not say the chroot kept udev from being triggered: $(jq -r .msg "$T_TMP/out.1")"
grep -q "running in a chroot" "$T_TMP/err.1" || fail "the log does not mention the chroot"

RULES=$C/etc/udev/rules.d/99-oracle-asmdevices.rules
[ -f "$RULES" ] || fail "no rules file inside the chroot"
for pair in "DATA01 $D1" "DATA02 $D2"; do
	set -- $pair
	bad=$(layout_ok "$2" "$1")
	[ -z "$bad" ] || fail "$1 on $2: $bad"
	rule=$(rule_for "$RULES" "$1")
	printf '%s\n' "$rule" | grep -F "ENV{ID_PART_ENTRY_UUID}==\"$(part_uuid "$2")\"" >/dev/null ||
		fail "$1: rule: $rule"
done
[ -n "$(find "$C/var/lib/partalign/backup" -type f)" ] || fail "no backup inside the chroot"
if [ -e "$C/udevadm.log" ]; then
	grep -Eq 'trigger|control' "$C/udevadm.log" &&
		fail "udev was triggered from the chroot: $(cat "$C/udevadm.log")"
fi

assert_eq 0 "$(cat "$T_TMP/rc.2")" "second run in the chroot: $(cat "$T_TMP/err.2")"
assert_eq false "$(jq -r .changed "$T_TMP/out.2")" "second run: changed"
assert_eq "kept kept" "$(jq -r '[.disks[].action] | join(" ")' "$T_TMP/out.2")" \
	"second run: actions"
assert_eq unchanged "$(jq -r .rules.result "$T_TMP/out.2")" "second run: rules"
assert_eq "$host_rules_before" "$(ls -la /etc/udev/rules.d 2>&1)" "the host's rules directory"
echo "PASS: provision in a kickstart-style chroot, twice"
