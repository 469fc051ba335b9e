#!/bin/bash
# The RPM: "make rpm" in a clean clone of HEAD (rpmbuild with --nodeps: the
# BuildRequires are RPMs, this is Debian), then the promise of the spec:
# name and version from configure.ac, the file list and modes
# (expected/rpm-files), the requirements (the shared libraries, nothing
# else), the %post/%postun udev reload that never fails, %check having run
# the unit tests, the payload's binaries (partalign without libparted, the
# libexec path compiled in), and rpmlint with no errors on the packages,
# signed with a throwaway key as a repository would, and on the spec.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/common.sh"
. "$top_srcdir/tests/pkg/lib.sh"

need_cmd rpmbuild rpm rpmlint rpmsign rpmkeys rpm2cpio cpio gpg readelf strings \
	autoreconf make gcc pkg-config

src=$T_TMP/src
pkg_clone "$src"
V=$(pkg_version "$src")
[ -n "$V" ] || fail "no version in configure.ac"
arch=$(rpm --eval '%{_arch}')

cd "$src"
timed autogen ./autogen.sh >"$T_TMP/autogen.log" 2>&1 || fail "autogen.sh: $(tail -5 "$T_TMP/autogen.log")"
./configure -q >"$T_TMP/configure.log" 2>&1 || fail "configure: $(tail -5 "$T_TMP/configure.log")"
grep -q "^Version: *$V\$" partalign.spec || fail "partalign.spec: Version is not $V"
# BuildRequires: every library configure.ac requires, at its minimum version
declare -A rpmname=([libparted]=parted-devel [blkid]=libblkid-devel [libudev]=systemd-devel
	[smartcols]=libsmartcols-devel [cmocka]=libcmocka-devel)
nmods=0
while read -r mod ver; do
	nmods=$((nmods + 1))
	[ -n "${rpmname[$mod]-}" ] || fail "configure.ac requires $mod: which RPM has it? (add it here and to the spec)"
	grep -q "^BuildRequires: *${rpmname[$mod]} >= $ver\$" partalign.spec ||
		fail "partalign.spec: no 'BuildRequires: ${rpmname[$mod]} >= $ver' for configure's $mod >= $ver"
done < <(pkg_minimums "$src")
[ "$nmods" -ge 5 ] || fail "found only $nmods PKG_CHECK_MODULES in configure.ac"
echo "ok: BuildRequires match configure.ac's $nmods library minimums"
if ! timed "make rpm" make rpm RPMBUILD_FLAGS=--nodeps >"$T_TMP/rpm.log" 2>&1; then
	fail "make rpm failed:
$(tail -30 "$T_TMP/rpm.log")"
fi

srpm=$src/rpmbuild/SRPMS/partalign-$V-1.src.rpm
rpmf=$src/rpmbuild/RPMS/$arch/partalign-$V-1.$arch.rpm
[ -f "$srpm" ] || fail "no source RPM $srpm: $(find rpmbuild -name '*.rpm')"
[ -f "$rpmf" ] || fail "no binary RPM $rpmf: $(find rpmbuild -name '*.rpm')"
assert_eq "partalign $V 1 $arch" "$(rpm -qp --qf '%{NAME} %{VERSION} %{RELEASE} %{ARCH}' "$rpmf")" \
	"binary RPM name, version, release, arch"
assert_eq "partalign-$V.tar.gz" "$(rpm -qlp "$srpm" | grep '\.tar\.gz$')" "source RPM tarball"
rpm -qlp "$srpm" | grep -x partalign.spec >/dev/null || fail "source RPM has no partalign.spec"

# --- the file list (build-id links are rpm's own; a compressed man page is
# the build host's brp-compress; the collection's tarball is .tar.gz) ------
rpm -qlp "$rpmf" | grep -v '^/usr/lib/\.build-id' | sed 's|^\(/usr/share/man/.*\)\.\(gz\|bz2\|xz\|zst\)$|\1|' |
	LC_ALL=C sort >"$T_TMP/qlp"
rpm -qp --qf '[%{FILEMODES:perms} %{FILEUSERNAME} %{FILEGROUPNAME} %{FILENAMES}\n]' "$rpmf" |
	grep -v ' /usr/lib/\.build-id' | sed 's| \(/usr/share/man/.*\)\.\(gz\|bz2\|xz\|zst\)$| \1|' |
	LC_ALL=C sort -k4 >"$T_TMP/files"
expected rpm-files VERSION="$V" | LC_ALL=C sort -k4 >"$T_TMP/files.want"
same_list "rpm -qp file modes" "$T_TMP/files.want" "$T_TMP/files"
awk '{ print $4 }' "$T_TMP/files.want" | LC_ALL=C sort >"$T_TMP/qlp.want"
same_list "rpm -qlp" "$T_TMP/qlp.want" "$T_TMP/qlp"
echo "ok: rpm -qlp: $(wc -l <"$T_TMP/qlp") files and directories as expected"

# --- requirements: the four libraries and libc, the shell of the scriptlets,
# rpm's own features; nothing from the build (cmocka) or the tests ---------
rpm -qp --requires "$rpmf" | sed 's/ *$//' >"$T_TMP/requires"
for lib in libparted.so.2 libblkid.so.1 libudev.so.1 libsmartcols.so.1 libc.so.6; do
	grep -q "^$lib()(64bit)\$" "$T_TMP/requires" || grep "^$lib()\$" "$T_TMP/requires" >/dev/null ||
		fail "rpm --requires lacks $lib: $(cat "$T_TMP/requires")"
done
if odd=$(grep -Ev '^(lib(parted|blkid|udev|smartcols|c)\.so\.[0-9]+(\([A-Za-z0-9_.]*\))?(\(64bit\))?|/bin/sh|rpmlib\(.*\) <= .*|rtld\(GNU_HASH\))$' "$T_TMP/requires"); then
	fail "unexpected requirements:
$odd"
fi
echo "ok: rpm --requires: $(wc -l <"$T_TMP/requires") entries, only the libraries, /bin/sh and rpmlib"

# --- %post and %postun: udev reloaded, and never a failed transaction -------
rpm -qp --qf '%{POSTIN}' "$rpmf" >"$T_TMP/post"
rpm -qp --qf '%{POSTUN}' "$rpmf" >"$T_TMP/postun"
mkdir "$T_TMP/bin-fail" "$T_TMP/bin-none"
printf '#!/bin/sh\necho "$*" >>"%s/udevadm.calls"\nexit 3\n' "$T_TMP" >"$T_TMP/bin-fail/udevadm"
chmod +x "$T_TMP/bin-fail/udevadm"
for s in post postun; do
	grep -q 'udevadm control --reload' "$T_TMP/$s" || fail "%$s does not reload udev: $(cat "$T_TMP/$s")"
	: >"$T_TMP/udevadm.calls"
	PATH=$T_TMP/bin-fail:/usr/bin:/bin /bin/sh -e "$T_TMP/$s" 1 || fail "%$s fails when udevadm fails"
	assert_eq "control --reload" "$(cat "$T_TMP/udevadm.calls")" "%$s: udevadm call"
	PATH=$T_TMP/bin-none /bin/sh -e "$T_TMP/$s" 0 || fail "%$s fails without udevadm"
done
echo "ok: %post/%postun run 'udevadm control --reload' and succeed when it fails or is missing"

# --- %check ran the unit tests, and only them -------------------------------
grep -q 'make .*check-unit' "$T_TMP/rpm.log" || fail "%check did not run make check-unit"
npass=$(sed -n 's/^# PASS: *//p' "$T_TMP/rpm.log")
[ "${npass:-0}" -ge 5 ] || fail "%check: '# PASS: $npass'"
grep -q '^# FAIL: *0$' "$T_TMP/rpm.log" || fail "%check: failures"
grep -q '^PASS: tests/unit/test-align$' "$T_TMP/rpm.log" || fail "%check: test-align did not run"
if grep -E '^(PASS|FAIL|SKIP|ERROR): tests/(integration|fix|move|rules/.*\.sh|vm)' "$T_TMP/rpm.log"; then
	fail "%check ran tests that need root or devices"
fi
echo "ok: %check ran $npass unit tests, none failed"

# --- the payload ------------------------------------------------------------
mkdir "$T_TMP/payload"
(cd "$T_TMP/payload" && rpm2cpio "$rpmf" | cpio -idm --quiet)
p=$T_TMP/payload
readelf -d "$p/usr/sbin/partalign" | grep 'NEEDED.*libparted' >/dev/null &&
	fail "/usr/sbin/partalign links libparted (only partalign-apply may)"
readelf -d "$p/usr/libexec/partalign/partalign-apply" | grep 'NEEDED.*libparted' >/dev/null ||
	fail "partalign-apply does not link libparted"
# the directory and the program apart: it runs the program from the directory
# it checked (execveat), never by a path looked up again
strings "$p/usr/sbin/partalign" >"$T_TMP/strings"
grep -qx '/usr/libexec/partalign' "$T_TMP/strings" && grep -qx 'partalign-apply' "$T_TMP/strings" ||
	fail "partalign does not name /usr/libexec/partalign and partalign-apply"
grep -q 'IMPORT{program}="/usr/sbin/partalign udev ' "$p/usr/lib/udev/rules.d/60-partalign.rules" ||
	fail "the udev rule does not run /usr/sbin/partalign"
grep -q '^complete -F _partalign partalign' "$p/usr/share/bash-completion/completions/partalign" ||
	grep -q 'complete -F _partalign partalign' "$p/usr/share/bash-completion/completions/partalign" ||
	fail "the completion file does not register _partalign"
echo "ok: payload: partalign without libparted, partalign-apply in libexec, rule runs /usr/sbin/partalign"

# --- rpmlint: the packages signed with a throwaway key (a repository signs
# its packages; the key goes into a private rpm database), and the spec ------
export HOME=$T_TMP/home GNUPGHOME=$T_TMP/home/gnupg
mkdir -p "$GNUPGHOME" "$HOME/rpmdb"
chmod 700 "$GNUPGHOME"
at_exit "gpgconf --kill all >/dev/null 2>&1"
gpg --batch -q --pinentry-mode loopback --passphrase '' \
	--quick-gen-key 'partalign test signing <test@example.invalid>' ed25519 sign 1d 2>/dev/null ||
	fail "cannot make a signing key"
cat >"$HOME/.rpmmacros" <<EOM
%_dbpath $HOME/rpmdb
%_gpg_name partalign test signing <test@example.invalid>
%_gpg_path $GNUPGHOME
%__gpg $(command -v gpg)
EOM
cp "$rpmf" "$srpm" "$T_TMP/"
signed=("$T_TMP/${rpmf##*/}" "$T_TMP/${srpm##*/}")
rpmsign --addsign "${signed[@]}" >"$T_TMP/sign.log" 2>&1 || fail "rpmsign: $(cat "$T_TMP/sign.log")"
gpg --export --armor >"$T_TMP/key.asc"
rpmkeys --import "$T_TMP/key.asc"
rpm -K "${signed[0]}" | grep 'signatures OK' >/dev/null || fail "signature not OK: $(rpm -Kv "${signed[0]}")"
rc=0
rpmlint "${signed[@]}" "$src/partalign.spec" >"$T_TMP/rpmlint.out" 2>&1 || rc=$?
sed -n '/ [EW]: /p; /checked;/p' "$T_TMP/rpmlint.out"
grep -q ' 0 errors,' "$T_TMP/rpmlint.out" || fail "rpmlint reports errors (status $rc)"
grep -q ' E: ' "$T_TMP/rpmlint.out" && fail "rpmlint: errors"
[ "$rc" = 0 ] || fail "rpmlint exited $rc"
grep -q '2 packages and 1 specfiles checked' "$T_TMP/rpmlint.out" ||
	fail "rpmlint did not check both packages and the spec: $(tail -3 "$T_TMP/rpmlint.out")"
echo "ok: rpmlint: no errors ($(grep -c ' W: ' "$T_TMP/rpmlint.out") warnings, listed above)"

echo "PASS: make rpm: partalign-$V-1 ($arch) and its source RPM as the spec promises"
