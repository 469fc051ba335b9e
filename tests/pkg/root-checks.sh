#!/bin/bash
# Runs inside the fresh Debian root of deb.sh (PID 1 of its own PID
# namespace, /dev a private tmpfs with the test's loop disk in it):
#   root-checks.sh DEB VERSION DISK
# installs DEB with one "apt install", then uses partalign from the
# installed files only, and last follows the fleet section of the installed
# README (readme-steps.awk beside this script).  Prints "ok: ..." per check; exits 1 at the first
# failure with a "FAIL: ..." line.
set -euo pipefail
export LC_ALL=C DEBIAN_FRONTEND=noninteractive PATH=/usr/sbin:/usr/bin:/sbin:/bin
deb=$1 version=$2 disk=$3
n=${disk#/dev/}
part=${n}p1

fail() {
	echo "FAIL: $*"
	exit 1
}

# --- the one command the README promises ----------------------------------
apt-get update -qq || fail "apt-get update"
cd "$(dirname "$deb")"
apt install -y ./partalign_*.deb >/tmp/apt.log 2>&1 || fail "apt install ./partalign_*.deb: $(tail -20 /tmp/apt.log)"
cd /
dpkg-query -W -f='${Status} ${Version}\n' partalign | grep -x "install ok installed $version" >/dev/null ||
	fail "partalign $version not installed: $(dpkg-query -W partalign 2>&1)"
echo "ok: apt install ./partalign_*.deb: partalign $version installed with its dependencies"
# for the man page and the completion (not dependencies of partalign)
apt-get install -y -qq --no-install-recommends man-db bash-completion >/tmp/apt2.log 2>&1 ||
	fail "apt-get install man-db bash-completion: $(tail -20 /tmp/apt2.log)"

[ "$(command -v partalign)" = /usr/sbin/partalign ] || fail "partalign is not /usr/sbin/partalign"
[ "$(partalign --version)" = "partalign $version" ] || fail "partalign --version: $(partalign --version)"
if ldd /usr/sbin/partalign | grep libparted >/dev/null; then
	fail "/usr/sbin/partalign links libparted"
fi
if ldd /usr/libexec/partalign/partalign-apply | grep 'not found'; then
	fail "partalign-apply: a library is missing"
fi
echo "ok: /usr/sbin/partalign $version, all libraries found, libparted only in partalign-apply"

# --- check ------------------------------------------------------------------
rc=0
out=$(partalign check -r -n -o NAME,START,POLICY "$disk") || rc=$?
[ "$rc" = 4 ] || fail "check $disk: exit $rc, expected 4 (misaligned)"
[ "$out" = "$part 32256 misaligned" ] || fail "check $disk printed '$out'"
echo "ok: partalign check $disk: exit 4, '$out'"

rc=0
partalign check >/tmp/check.out 2>/tmp/check.err || rc=$?
case $rc in 0 | 4 | 8 | 12) ;; *) fail "check (all devices): exit $rc: $(cat /tmp/check.err)" ;; esac
head -1 /tmp/check.out | grep '^ *NAME .*PHYSICAL .*OPTIMAL .*POLICY' >/dev/null ||
	fail "check: no table heading: $(head -2 /tmp/check.out)"
grep -q "^ *$part " /tmp/check.out || fail "check (all devices) does not list $part"
echo "ok: partalign check (all devices): exit $rc, $(($(wc -l </tmp/check.out) - 1)) rows, $part among them"

# --- the installed collector (dash and coreutils here), audited by check ------
rc=0
sh /usr/share/partalign/partalign-collect /tmp/pa-collect >/tmp/collect.out 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "partalign-collect: exit $rc: $(cat /tmp/collect.out)"
head -n 1 /tmp/pa-collect/partalign-dump | grep -qx "partalign-collect $version" ||
	fail "partalign-collect's marker: $(cat /tmp/pa-collect/partalign-dump)"
rc=0
out=$(partalign check -r -n -o NAME,START,POLICY --sysroot /tmp/pa-collect "$disk") || rc=$?
[ "$rc" = 4 ] && [ "$out" = "$part 32256 misaligned" ] ||
	fail "check --sysroot of the collection: exit $rc, '$out'"
echo "ok: /usr/share/partalign/partalign-collect, then check --sysroot $disk: exit 4, '$out'"

# --- plan: runs /usr/libexec/partalign/partalign-apply, writes nothing --------
before=$(sha256sum <"$disk")
rc=0
out=$(partalign plan -r -n -o NUM,OLD-START,NEW-START "$disk") || rc=$?
[ "$rc" = 4 ] || fail "plan $disk: exit $rc, expected 4"
[ "$out" = "1 32256 2097152" ] || fail "plan $disk printed '$out'"
[ "$(sha256sum <"$disk")" = "$before" ] || fail "plan changed $disk"
echo "ok: partalign plan $disk: exit 4, partition 1 from 32256 to 2097152, disk unchanged"

# --- the udev rule, where this udev reads it ---------------------------------
out=$(/usr/sbin/partalign udev "$part")
grep -qx 'PARTALIGN_POLICY=misaligned' <<<"$out" || fail "partalign udev $part: $out"
if command -v udevadm >/dev/null; then
	udevadm test --action=add "/sys/class/block/$part" >/tmp/udev.out 2>&1 || true
	grep -q 'PARTALIGN_POLICY=misaligned' /tmp/udev.out ||
		fail "udevadm test: the shipped rule did not set PARTALIGN_POLICY: $(grep -i partalign /tmp/udev.out | head)"
	grep -qi 'partalign.*\(error\|invalid\|failed\)' /tmp/udev.out &&
		fail "udevadm test: $(grep -i 'partalign.*\(error\|invalid\|failed\)' /tmp/udev.out)"
	echo "ok: udevadm test $part: the installed 60-partalign.rules imports PARTALIGN_POLICY=misaligned"
else
	fail "udev (Recommends) was not installed"
fi

# --- man partalign -------------------------------------------------------------
man -w partalign | grep '^/usr/share/man/man8/partalign.8.gz$' >/dev/null || fail "man -w: $(man -w partalign 2>&1)"
MANWIDTH=80 MANPAGER=cat man partalign 2>/tmp/man.err | sed 's/.\x08//g' >/tmp/man.out
grep -q '^NAME' /tmp/man.out && grep -q '^EXIT STATUS' /tmp/man.out &&
	grep -q 'partalign-apply' /tmp/man.out || fail "man partalign: $(head -5 /tmp/man.out) $(cat /tmp/man.err)"
echo "ok: man partalign: $(wc -l </tmp/man.out) lines with NAME, EXIT STATUS and FILES"
for page in check plan fix resume restore rules provision udev dump collect; do
	man -w "partalign-$page" | grep -qx "/usr/share/man/man8/partalign-$page.8.gz" ||
		fail "man -w partalign-$page: $(man -w "partalign-$page" 2>&1)"
done
man -w 5 partalign-formats | grep -qx /usr/share/man/man5/partalign-formats.5.gz ||
	fail "man -w 5 partalign-formats: $(man -w 5 partalign-formats 2>&1)"
MANWIDTH=80 MANPAGER=cat man partalign-fix 2>/tmp/man.err | sed 's/.\x08//g' >/tmp/man.out
grep -q '^DIAGNOSTICS' /tmp/man.out || fail "man partalign-fix: $(head -5 /tmp/man.out) $(cat /tmp/man.err)"
echo "ok: man partalign-COMMAND (10 pages) and man 5 partalign-formats installed"

# --- the completion, loaded the way bash-completion loads it ---------------
comp_out=$(bash -c '
	. /usr/share/bash-completion/bash_completion
	. /root/complib.sh
	_completion_loader partalign
	complete -p partalign
	echo "=1"; comp "partalign ch"
	echo "=2"; comp "partalign check --o"
	echo "=3"; comp "partalign check -o NA"
	echo "=4"; comp "partalign plan -o NEW-S"
	echo "=5"; comp "partalign plan /dev/lo"
' 2>&1) || fail "completion: $comp_out"
block() { awk -v b="=$1" '$0 == b { on = 1; next } /^=[0-9]/ { on = 0 } on' <<<"$comp_out" | tr '\n' ' '; }
grep -q '^complete -F _partalign partalign$' <<<"$comp_out" ||
	fail "bash-completion did not load /usr/share/bash-completion/completions/partalign: $comp_out"
[ "$(block 1)" = "check " ] || fail "completion 'partalign ch': $(block 1)"
[ "$(block 2)" = "--output " ] || fail "completion 'partalign check --o': $(block 2)"
[ "$(block 3)" = "NAME " ] || fail "completion 'partalign check -o NA': $(block 3)"
[ "$(block 4)" = "NEW-START NEW-SIZE " ] || [ "$(block 4)" = "NEW-SIZE NEW-START " ] ||
	fail "completion 'partalign plan -o NEW-S': $(block 4)"
grep -qw -- "$disk" <<<"$(block 5)" || fail "completion 'partalign plan /dev/lo': $(block 5)"
echo "ok: completion from the installed file: ch -> check, --o -> --output, -o NA -> NAME, plan -o NEW-S, devices"

# --- the README's fleet section, as the installed README says it: Ansible
# from Debian, the collection from the package's file, this machine audited
# as a host with nothing installed, the report written ----------------------
zcat /usr/share/doc/partalign/README.gz |
	awk -v start='The fleet: Ansible' -v last='cat partalign-fleet-report.txt' \
		-f /root/readme-steps.awk >/tmp/fleet-steps.sh ||
	fail "the installed README has no fleet recipe ending in 'cat partalign-fleet-report.txt'"
for c in 'apt-get install -y ansible-core' \
	'ansible-galaxy collection install /usr/share/partalign/partalign-fleet-' \
	'ansible_connection: local' 'partalign_agentless: true' \
	'ansible-playbook -i inventory.yml partalign.fleet.audit'; do
	grep -qF -- "$c" /tmp/fleet-steps.sh || fail "the README's fleet recipe lacks '$c': $(cat /tmp/fleet-steps.sh)"
done
if grep -n 'contrib/\|ansible/roles\|tests/' /tmp/fleet-steps.sh; then
	fail "the README's fleet recipe refers to the source tree"
fi
mkdir /root/fleet
rc=0
# as root in a login session, whose locale a Debian 12 install sets (this
# root has none): nothing else of this script's environment
(cd /root/fleet && env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
	/bin/sh -e /tmp/fleet-steps.sh </dev/null >/tmp/fleet.out 2>&1) || rc=$?
[ "$rc" = 0 ] || fail "the README's fleet recipe (exit $rc): $(tail -30 /tmp/fleet.out)"
LANG=C.UTF-8 LC_ALL=C.UTF-8 ansible-galaxy collection list partalign.fleet 2>/dev/null |
	grep -Eq "^partalign\.fleet +$version *\$" ||
	fail "partalign.fleet $version is not installed: $(LC_ALL=C.UTF-8 ansible-galaxy collection list 2>&1)"
ls /root/.ansible/collections/ansible_collections/partalign/fleet/roles/audit/files/partalign-unpack >/dev/null ||
	fail "the collection is not in /root/.ansible/collections"
report=/root/fleet/partalign-fleet-report.txt
[ -f "$report" ] || fail "no $report: $(tail -20 /tmp/fleet.out)"
cat "$report"
grep -Eqx "localhost: [0-9]+ misaligned of [0-9]+ checked, from a collection" "$report" ||
	fail "the report's line for localhost: $(grep '^localhost' "$report")"
grep -Eqx "  $disk""p1 +ok +n/a +misaligned" "$report" || fail "the report does not list ${disk}p1 as misaligned"
grep -A1 -x "  $disk""p1 .*" "$report" | grep -q '^    .*policy: 32256 B past a 2 MiB boundary' ||
	fail "the report gives no reason below ${disk}p1"
tail -n 1 "$report" | grep -Eqx 'fleet: 1 host, 1 with findings, [0-9]+ misaligned partitions?' ||
	fail "the report's summary: $(tail -n 1 "$report")"
grep -qF "$(tail -n 1 "$report")" /tmp/fleet.out || fail "the recipe's last command did not show the report"
if awk 'length > 100 { exit 1 }' "$report"; then :; else fail "a report line is wider than 100 columns"; fi
echo "ok: the README's fleet section: ansible-core $(dpkg-query -W -f='${Version}' ansible-core), partalign.fleet $version from /usr/share/partalign, localhost audited agentless, $report"

echo "ok: all checks in the fresh root"
