#!/bin/bash
# The build made as on EL8 (tests/el8/config.site; make check-el8) needs
# nothing that EL8 lacks, in every program and test program it built:
# - no libsmartcols or libblkid symbol newer than util-linux 2.32, no
#   libudev symbol newer than systemd 239 (their symbol versions say so);
# - no glibc function newer than 2.28: a symbol version above GLIBC_2.28 is
#   allowed only for a function that 2.28 had, in libc or in libpthread,
#   libdl or librt (which 2.34 moved into libc: the libc linked against keeps
#   it under its old version too), and for stat and its kind (below);
# - whatever uses pthread_* (libpthread before glibc 2.34) was linked with
#   the thread flag configure found, dl* with -ldl (libdl before 2.34),
#   shm_*, timer_*, mq_* or aio_* with -lrt: in the link lines of the build's
#   log (EL8_BUILD_LOG, made with make V=1; tests/run-all gives it).
# It also checks that the build is that of config.site (no typed libsmartcols
# JSON, no shell variable names).
. "$top_srcdir/tests/lib/common.sh"

need_cmd objdump nm readelf
log=${EL8_BUILD_LOG:-}
[ -n "$log" ] && [ -s "$log" ] ||
	skip "EL8_BUILD_LOG names no log of this build made with make V=1 (tests/run-all)"
cfg=$top_builddir/config.h
for h in HAVE_SCOLS_COLUMN_SET_JSON_TYPE HAVE_SCOLS_TABLE_ENABLE_SHELLVAR; do
	! grep -q "^#define $h 1" "$cfg" || fail "$h is set: not a build made as on EL8"
done
grep -q '^#define HAVE_DECL_SCOLS_JSON_ARRAY_STRING 0' "$cfg" ||
	fail "SCOLS_JSON_ARRAY_STRING declared: not a build made as on EL8"

# The newest version of each symbol version tag that EL8 has.
newest='SMARTCOLS=2.32 BLKID=2.32 LIBUDEV=239 GLIBC=2.28'
# Functions that EL8's glibc has although this build links them at a newer
# version.  glibc 2.34 moved libpthread, libdl and librt into libc, each
# function under the version GLIBC_2.34 (and gave __libc_start_main that
# version): the libc the programs are linked against keeps the old versions
# for old programs, so a function with a version up to GLIBC_2.28 there was
# in 2.28 (pthread_create, dlopen: GLIBC_2.2.5), one whose oldest version is
# newer was not (pthread_cond_clockwait: GLIBC_2.30).  stat and its kind have
# no old version: before 2.33 they were inline wrappers of __xstat, allowed
# by name.
stat_kind='^((f|l)?stat(at)?(64)?|mknod(at)?)$'
libc=$(ldd "$top_builddir/partalign" | awk '$1 == "libc.so.6" { print $3 }')
[ -f "$libc" ] || fail "no libc.so.6 in ldd's list for partalign"
# "GLIBC_2.2.5" or "(GLIBC_2.2.5)" in objdump -T's second to last field
objdump -T "$libc" | awk '{ v = NF >= 2 ? $(NF - 1) : ""; gsub(/[()]/, "", v) }
	v ~ /^GLIBC_[0-9.]+$/ { print $NF, substr(v, 7) }' >"$T_TMP/libc-versions"
[ -s "$T_TMP/libc-versions" ] || fail "objdump -T $libc: no GLIBC versions"

# check_syms: objdump -T of a program on stdin; prints "newer SYMBOL@TAG_VER"
# for a symbol newer than EL8's, "uses SYMBOL LIBS" for a symbol that needs
# LIBS on the link line (alternatives with |)
check_syms() {
	awk -v newest="$newest" -v statkind="$stat_kind" -v libcv="$T_TMP/libc-versions" '
	function newer(v, max,   a, b, n, m, i) {
		n = split(v, a, "."); m = split(max, b, ".")
		for (i = 1; i <= n || i <= m; i++)
			if (a[i] + 0 != b[i] + 0)
				return a[i] + 0 > b[i] + 0
		return 0
	}
	BEGIN { n = split(newest, kv, " ")
		for (i = 1; i <= n; i++) { split(kv[i], p, "="); max[p[1]] = p[2] }
		# in28[SYM]: libc has SYM at a version EL8 has
		while ((getline l <libcv) > 0) {
			split(l, f, " ")
			if (!newer(f[2], max["GLIBC"])) in28[f[1]] = 1
		}
	}
	/\*UND\*/ {
		sym = $NF; v = $(NF - 1); gsub(/[()]/, "", v)
		i = index(v, "_"); tag = substr(v, 1, i - 1); ver = substr(v, i + 1)
		if (i && (tag in max) && newer(ver, max[tag]) &&
		    !(tag == "GLIBC" && (sym in in28 || sym ~ statkind)))
			print "newer " sym "@" v
		if (sym ~ /^pthread_/) print "uses " sym " -pthread|-lpthread"
		if (sym ~ /^dl(open|sym|close|error|addr|info|vsym)$/) print "uses " sym " -ldl"
		if (sym ~ /^(shm_|timer_|mq_|aio_)/) print "uses " sym " -lrt"
	}'
}

# the link line of FILE (relative to the build directory) in the log
link_line() {
	grep -E -- "-o $1( |\$)" "$log" | grep -v -- ' -c ' | tail -1
}

cd "$top_builddir"
nbin=0
while IFS= read -r -d '' f; do
	case $(readelf -h "$f" 2>/dev/null | awk '/Type:/ { print $2 }') in
	EXEC | DYN) ;;
	*) continue ;;
	esac
	rel=${f#./}
	nbin=$((nbin + 1))
	while read -r what sym libs; do
		[ "$what" = uses ] || fail "$rel: $sym is newer than EL8 has (${newest// /, })"
		line=$(link_line "$rel")
		[ -n "$line" ] || fail "$rel uses $sym: no link line in $log"
		grep -Eq -- " ($libs)( |\$)" <<<"$line" ||
			fail "$rel uses $sym but is linked without $libs: $line"
	done < <(objdump -T "$f" | check_syms | sort -u -k1,1 -k3,3)
done < <(find . -path ./src -prune -o -type f \( -perm -u+x -o -name '*.so' \) -print0)
[ "$nbin" -ge 5 ] || fail "only $nbin programs in $top_builddir"
for p in partalign partalign-apply tests/unit/test-output; do
	[ -x "$p" ] || fail "$p was not built"
done
echo "ok: $nbin programs need no symbol newer than EL8's, and link what they use"
