#!/bin/bash
# Every libparted function that a program of this build calls is one that
# libparted 3.2 (EL8's) has.  libparted has no symbol versions, so
# symbols.sh cannot tell a 3.3 function from a 3.2 one; the functions of
# 3.2 are listed in tests/el8/libparted-3.2.funcs (from parted's headers).
# A function a program needs (nm -D -u) counts as libparted's when its name
# starts with ped_ or _ped_, or when the libparted the program is linked to
# defines it and none of the program's other libraries does (libparted also
# exports gnulib helpers).  Each program that links libparted is checked;
# the check itself is shown to catch a 3.3 function first.
. "$top_srcdir/tests/lib/common.sh"

need_cmd nm readelf ldd
list=$top_srcdir/tests/el8/libparted-3.2.funcs
[ -f "$list" ] || fail "no $list"
grep -v '^#' "$list" | LC_ALL=C sort -u >"$T_TMP/funcs32"
[ "$(wc -l <"$T_TMP/funcs32")" -ge 150 ] || fail "$list lists only $(wc -l <"$T_TMP/funcs32") functions"

# parted_uses PARTED_DEFS OTHER_DEFS: of the names on stdin (undefined
# symbols of a program), each of libparted's as "ok NAME" when libparted 3.2
# has it, else "new NAME"
parted_uses() {
	awk -v defs="$1" -v others="$2" -v funcs="$T_TMP/funcs32" '
	BEGIN {
		while ((getline l <funcs) > 0) ok[l] = 1
		while ((getline l <defs) > 0) parted[l] = 1
		while ((getline l <others) > 0) other[l] = 1
	}
	{ sub(/@.*/, "", $1) }
	$1 ~ /^_?ped_/ || (($1 in parted) && !($1 in other)) { print (($1 in ok) ? "ok " : "new ") $1 }'
}

# defined SO...: the dynamic symbols the libraries define, one a line
defined() {
	local so
	for so; do
		nm -D --defined-only "$so" | awk '{ print $3 }' | sed 's/@.*//'
	done | LC_ALL=C sort -u
}

cd "$top_builddir"
parted_so=$(ldd ./partalign-apply | awk '$1 ~ /^libparted\.so/ { print $3 }')
[ -n "$parted_so" ] && [ -f "$parted_so" ] || fail "partalign-apply: no libparted in ldd's list"
defined "$parted_so" >"$T_TMP/parted-defs"

# the check catches a function of libparted 3.3 (the atari label's) and a
# gnulib helper libparted exports, and passes one of 3.2
: >"$T_TMP/none"
assert_eq "new ped_disk_atari_init" "$(echo ped_disk_atari_init | parted_uses "$T_TMP/parted-defs" "$T_TMP/none")" \
	"the check on a 3.3 function"
if grep -qx c_isdigit "$T_TMP/parted-defs"; then
	assert_eq "new c_isdigit" "$(echo c_isdigit | parted_uses "$T_TMP/parted-defs" "$T_TMP/none")" \
		"the check on a gnulib function libparted exports"
fi
assert_eq "ok ped_disk_new" "$(echo ped_disk_new | parted_uses "$T_TMP/parted-defs" "$T_TMP/none")" \
	"the check on a 3.2 function"

nprog=0 progs=
: >"$T_TMP/uses"
while IFS= read -r -d '' f; do
	readelf -d "$f" 2>/dev/null | grep -q 'NEEDED.*\[libparted\.so' || continue
	rel=${f#./}
	nprog=$((nprog + 1))
	progs+=" $rel"
	others=$(ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// && $1 !~ /^libparted\.so/ { print $3 }')
	# shellcheck disable=SC2086
	defined $others >"$T_TMP/other-defs"
	nm -D -u "$f" | awk '{ print $NF }' | parted_uses "$T_TMP/parted-defs" "$T_TMP/other-defs" |
		LC_ALL=C sort -u >"$T_TMP/prog-uses"
	cat "$T_TMP/prog-uses" >>"$T_TMP/uses"
	bad=$(sed -n 's/^new //p' "$T_TMP/prog-uses" | tr '\n' ' ')
	[ -z "$bad" ] || fail "$rel calls libparted functions that libparted 3.2 does not have: $bad"
done < <(find . -path ./src -prune -o -type f -perm -u+x -print0)
nfunc=$(LC_ALL=C sort -u "$T_TMP/uses" | wc -l)
[ "$nprog" -ge 1 ] || fail "no program links libparted in $top_builddir"
[ "$nfunc" -ge 20 ] || fail "only $nfunc libparted functions found in the programs: is the check blind?"
echo "ok: $nprog program(s) ($progs ) call $nfunc libparted functions, all of them in libparted 3.2"
