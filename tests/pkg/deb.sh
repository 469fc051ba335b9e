#!/bin/bash
# The Debian package: "dpkg-buildpackage -us -uc -b" in a clean clone of
# HEAD; its version (configure.ac's), file list and modes
# (expected/deb-files), dependencies, the unit tests (and only them) in
# dh_auto_test, lintian with no errors; a second build in the same tree,
# and "debian/rules clean" leaving the tree exactly as cloned.  Then a
# fresh Debian 12 root (debootstrap --variant=minbase, made while the
# package builds), twice:
# - in a copy, the README's steps for the Debian package, as written, from
#   a clean clone: they must give the same files as the build above;
# - in the root itself, one "apt install ./partalign_*.deb", and
#   root-checks.sh runs check, plan on a loop disk of this test, the udev
#   rule, man partalign and the completion from the installed files, then
#   the README's fleet section, as the installed README says it: the
#   Ansible collection installed from the package's file, the control node
#   audited agentless, the report written.
# Each root is entered with pivot_root (PID 1 of its own PID namespace, the
# root of its own mount namespace, as a booted machine; not chroot); its
# mounts (its /dev a tmpfs holding only the test's loop disk and the usual
# nodes) are private: nothing of it is visible on the host, and nothing is
# left when the test ends.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/common.sh"
. "$top_srcdir/tests/pkg/lib.sh"

need_root
need_cmd dpkg-buildpackage dpkg-deb dh lintian debootstrap unshare chroot losetup sfdisk \
	partx sha256sum pkg-config autoreconf

mirror=${PARTALIGN_TEST_MIRROR:-}
if [ -z "$mirror" ]; then
	mirror=$({
		grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{ print $2 }'
		grep -hs '^deb ' /etc/apt/sources.list | sed -E 's/^deb +(\[[^]]*\] +)?([^ ]+).*/\2/'
	} | grep -v -- '-security' | head -1 || true)
fi
: "${mirror:=http://deb.debian.org/debian}"

# --- the fresh root, made in the background while the package builds ------
root=$T_TMP/root
t_dbs=$(date +%s)
setsid unshare -m debootstrap --variant=minbase bookworm "$root" "$mirror" \
	>"$T_TMP/debootstrap.log" 2>&1 &
dbs_pid=$!
at_exit "kill -- -$dbs_pid >/dev/null 2>&1; wait $dbs_pid 2>/dev/null"

# --- the build --------------------------------------------------------------
src=$T_TMP/build/src
mkdir "$T_TMP/build"
pkg_clone "$src"
V=$(pkg_version "$src")
[ -n "$V" ] || fail "no version in configure.ac"
arch=$(dpkg --print-architecture)
deb=$T_TMP/build/partalign_${V}_$arch.deb
cd "$src"
# Build-Depends: every library configure.ac requires, at its minimum version
declare -A debname=([libparted]=libparted-dev [blkid]=libblkid-dev [libudev]=libudev-dev
	[smartcols]=libsmartcols-dev [cmocka]=libcmocka-dev)
nmods=0
while read -r mod ver; do
	nmods=$((nmods + 1))
	[ -n "${debname[$mod]-}" ] || fail "configure.ac requires $mod: which package has it? (add it here and to debian/control)"
	grep -q "^ ${debname[$mod]} (>= $ver),\$" debian/control ||
		fail "debian/control: no '${debname[$mod]} (>= $ver)' for configure's $mod >= $ver"
done < <(pkg_minimums "$src")
[ "$nmods" -ge 5 ] || fail "found only $nmods PKG_CHECK_MODULES in configure.ac"
echo "ok: Build-Depends match configure.ac's $nmods library minimums"
if ! timed "dpkg-buildpackage" dpkg-buildpackage -us -uc -b >"$T_TMP/build1.log" 2>&1; then
	fail "dpkg-buildpackage failed:
$(tail -30 "$T_TMP/build1.log")"
fi
[ -f "$deb" ] || fail "no $deb: $(ls "$T_TMP/build")"
assert_eq "partalign $V $arch" "$(dpkg-deb -f "$deb" Package Version Architecture |
	awk -F': ' '{ printf "%s%s", sep, $2; sep = " " }')" "package, version (configure.ac's), arch"
assert_eq "$V" "$(dpkg-parsechangelog -S Version)" "debian/changelog version"

# file list and modes; the udev rule where this release's udev reads it
udevdir=$(pkg-config --variable=udevdir udev)
[ -n "$udevdir" ] || fail "pkg-config knows no udevdir"
dpkg -c "$deb" | awk '$1 !~ /^d/ { p = $6; sub(/^\./, "", p); print $1, $2, p }' |
	LC_ALL=C sort -k3 >"$T_TMP/files"
expected deb-files UDEVRULESDIR="$udevdir/rules.d" VERSION="$V" | LC_ALL=C sort -k3 >"$T_TMP/files.want"
same_list "dpkg -c" "$T_TMP/files.want" "$T_TMP/files"
echo "ok: dpkg -c: $(wc -l <"$T_TMP/files") files as expected, the rule in $udevdir/rules.d"

deps=$(dpkg-deb -f "$deb" Depends)
for p in libblkid1 libc6 libparted2 libsmartcols1 libudev1; do
	grep -qE "(^|, )$p( |,|$)" <<<"$deps" || fail "Depends lacks $p: $deps"
done
if odd=$(tr ',' '\n' <<<"$deps" | sed 's/^ *//; s/ .*//' |
	grep -Ev '^(libblkid1|libc6|libparted2|libsmartcols1|libudev1)$'); then
	fail "unexpected dependencies: $odd"
fi
assert_eq "udev" "$(dpkg-deb -f "$deb" Recommends)" "Recommends"
echo "ok: Depends: $deps"

# dh_auto_test: the unit tests, none of the root or device suites
grep -q 'make.* check-unit' "$T_TMP/build1.log" || fail "dh_auto_test did not run make check-unit"
grep -q '^# FAIL: *0$' "$T_TMP/build1.log" || fail "dh_auto_test: failures"
grep -q '^PASS: tests/unit/test-align$' "$T_TMP/build1.log" || fail "dh_auto_test: test-align did not run"
if grep -E '^(PASS|FAIL|SKIP|ERROR): tests/(integration|fix|move|rules/.*\.sh|vm|pkg)' "$T_TMP/build1.log"; then
	fail "dh_auto_test ran tests that need root or devices"
fi
echo "ok: dh_auto_test ran the unit tests only ($(sed -n 's/^# PASS: *//p' "$T_TMP/build1.log") passed)"

# lintian: no errors (warnings and the rest are printed)
rc=0
lintian -EvIL +pedantic --fail-on error "$T_TMP/build/partalign_${V}_$arch.changes" \
	>"$T_TMP/lintian.out" 2>&1 || rc=$?
grep -v '^running with root privileges' "$T_TMP/lintian.out" | sed 's/^/lintian: /' || true
grep -q '^E: ' "$T_TMP/lintian.out" && fail "lintian reports errors"
[ "$rc" = 0 ] || fail "lintian exited $rc"
# lintian is silent on a clean package: show that it does read this one by
# removing its copyright file, which must be an error
mkdir "$T_TMP/lintian-bad"
dpkg-deb -R "$deb" "$T_TMP/lintian-bad/p"
rm "$T_TMP/lintian-bad/p/usr/share/doc/partalign/copyright"
dpkg-deb -b "$T_TMP/lintian-bad/p" "$T_TMP/lintian-bad/bad.deb" >/dev/null
rc=0
lintian --fail-on error "$T_TMP/lintian-bad/bad.deb" >"$T_TMP/lintian-bad.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q '^E: partalign: no-copyright-file' "$T_TMP/lintian-bad.out" ||
	fail "lintian does not catch a missing copyright file (exit $rc): $(cat "$T_TMP/lintian-bad.out")"
echo "ok: lintian: no errors ($(grep -c '^[WIP]: ' "$T_TMP/lintian.out" || true) other tags)"

# a second build in the same tree, then clean: the tree as cloned
if ! timed "second dpkg-buildpackage" dpkg-buildpackage -us -uc -b >"$T_TMP/build2.log" 2>&1; then
	fail "second dpkg-buildpackage in the same tree failed:
$(tail -30 "$T_TMP/build2.log")"
fi
debian/rules clean >"$T_TMP/clean.log" 2>&1 || fail "debian/rules clean: $(tail -10 "$T_TMP/clean.log")"
left=$(git status --porcelain --ignored)
[ -z "$left" ] || fail "after debian/rules clean the tree is not as cloned:
$left"
echo "ok: a second build in the same tree works; debian/rules clean leaves the tree as cloned"
cd "$T_TMP"

# --- the fresh root -----------------------------------------------------------
rc=0
wait "$dbs_pid" || rc=$?
echo "time: debootstrap (in the background) $(($(date +%s) - t_dbs)) s"
if [ "$rc" != 0 ]; then
	if grep -qi 'Failed getting release file\|Temporary failure resolving\|Could not resolve' \
		"$T_TMP/debootstrap.log"; then
		skip "debootstrap cannot reach $mirror: $(tail -2 "$T_TMP/debootstrap.log")"
	fi
	fail "debootstrap --variant=minbase bookworm (mirror $mirror) failed:
$(tail -15 "$T_TMP/debootstrap.log")"
fi
[ -x "$root/usr/bin/apt" ] || fail "debootstrap made no root with apt"

# the loop disk: one partition at sector 63 (misaligned for the 2 MiB policy)
disk=$(mkdisk rootdisk 64M 512 'label: dos\nstart=63, size=40960, type=83')
[ -b "${disk}p1" ] || fail "${disk}p1 did not appear"

# no service starts in this root (udev comes as a Recommends)
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# the copy for the README's build steps, before anything is installed
timed "copy of the fresh root" cp -a "$root" "$T_TMP/root-build"

# enter-root.sh ROOT DISK CMD...: CMD in ROOT, entered with pivot_root, with
# DISK (or no disk: "") and its first partition in its /dev
cat >"$T_TMP/enter-root.sh" <<'EOF'
set -euo pipefail
root=$1 disk=$2
shift 2
mount --bind "$root" "$root"
mount -t tmpfs -o mode=0755,size=16m partalign-test-dev "$root/dev"
cp -a /dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty "$root/dev/"
[ -z "$disk" ] || cp -a "$disk" "${disk}p1" "$root/dev/"
mkdir "$root/dev/pts" "$root/dev/shm"
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mount --bind /sys "$root/sys"
mount -o remount,bind,ro "$root/sys"
mount -t tmpfs partalign-test-run "$root/run"
mount -t tmpfs partalign-test-tmp "$root/tmp"
# the root becomes the root of the (new, private) mount namespace, the
# host's root is unmounted from it, and CMD runs as PID 1 of a new PID
# namespace with the root's /proc
exec unshare --pid --fork --mount-proc="$root/proc" /bin/sh -c \
	'cd "$1" && pivot_root . . && umount -l . && cd / && shift && exec "$@"' sh "$root" "$@"
EOF

# --- the README's steps for the Debian package, as written ------------------
# (the README of the clone: its lines from "**The Debian package**" to
# dpkg-buildpackage), run by root in the copy of the fresh root, in a clean
# clone, with no terminal and nothing of this test's environment
awk -v start='**The Debian package**' -v last='dpkg-buildpackage ' \
	-f "$top_srcdir/tests/pkg/readme-steps.awk" "$src/README" >"$T_TMP/root-build/root/build-steps.sh" ||
	fail "README: no Debian package steps ending in dpkg-buildpackage"
for c in 'apt-get update' 'apt-get build-dep -y ./' 'dpkg-buildpackage -us -uc -b'; do
	grep -qF -- "$c" "$T_TMP/root-build/root/build-steps.sh" ||
		fail "README's Debian steps lack '$c': $(cat "$T_TMP/root-build/root/build-steps.sh")"
done
pkg_clone "$T_TMP/root-build/root/partalign"
rc=0
timed "the README's Debian steps in a fresh root" unshare -m bash "$T_TMP/enter-root.sh" \
	"$T_TMP/root-build" "" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	/bin/sh -c 'cd /root/partalign && exec /bin/sh -e /root/build-steps.sh' \
	</dev/null >"$T_TMP/root-build.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "the README's Debian steps (exit $rc):
$(cat "$T_TMP/root-build/root/build-steps.sh")
$(tail -25 "$T_TMP/root-build.log")"
rdeb=$T_TMP/root-build/root/partalign_${V}_$arch.deb
[ -f "$rdeb" ] || fail "the README's Debian steps made no ${rdeb##*/}: $(ls "$T_TMP/root-build/root")"
dpkg -c "$rdeb" | awk '{ p = $6; sub(/^\./, "", p); print $1, $2, p }' | LC_ALL=C sort -k3 >"$T_TMP/rfiles"
dpkg -c "$deb" | awk '{ p = $6; sub(/^\./, "", p); print $1, $2, p }' | LC_ALL=C sort -k3 >"$T_TMP/hfiles"
same_list "the README's .deb (dpkg -c)" "$T_TMP/hfiles" "$T_TMP/rfiles"
echo "ok: the README's Debian steps, as written, in a fresh root: ${rdeb##*/}, the same files"
rm -rf "$T_TMP/root-build"

cp "$deb" "$root/root/"
cp "$top_srcdir/tests/pkg/root-checks.sh" "$top_srcdir/tests/pkg/complib.sh" \
	"$top_srcdir/tests/pkg/readme-steps.awk" "$root/root/"
rc=0
timed "install and run in the fresh root" unshare -m bash "$T_TMP/enter-root.sh" "$root" "$disk" \
	/bin/bash /root/root-checks.sh "/root/${deb##*/}" "$V" "$disk" >"$T_TMP/root.out" 2>&1 || rc=$?
cat "$T_TMP/root.out"
[ "$rc" = 0 ] || fail "in the fresh root (exit $rc)"
grep -q '^ok: all checks in the fresh root$' "$T_TMP/root.out" || fail "the root checks did not finish"
# nothing of the root is mounted on the host
if findmnt -rn -o TARGET | grep -F "$root" >/dev/null; then
	fail "a mount of the root is visible on the host"
fi

echo "PASS: partalign_${V}_$arch.deb: built from a clean clone, lintian-clean, installed and run in a fresh Debian 12 root"
