# Helpers of the package tests; source it after tests/lib/common.sh.
# The packages are built from a clean clone of the tree's HEAD (committed
# work only) in the test's temporary directory, never in the tree itself.

need_cmd git

# The builds in the clone are make runs of their own: nothing of the make that
# runs this test (its MAKEFLAGS carry TESTS= and TEST_LOGS=, which would make
# the clone's check-unit run these very tests again) may reach them.
unset MAKEFLAGS MFLAGS GNUMAKEFLAGS MAKELEVEL MAKEOVERRIDES TESTS TEST_LOGS TEST_SUITE_LOG
git -C "$top_srcdir" rev-parse --verify -q HEAD >/dev/null ||
	skip "$top_srcdir is not a git checkout: the packages are built from a clone of HEAD"

# pkg_clone DIR: a fresh clone of HEAD in DIR (a note when the tree has
# uncommitted changes, which the packages then do not contain).
pkg_clone() {
	local head
	head=$(git -C "$top_srcdir" rev-parse HEAD)
	if [ -n "$(git -C "$top_srcdir" status --porcelain --untracked-files=no)" ]; then
		echo "note: the tree has uncommitted changes; testing HEAD ${head:0:12} only"
	fi
	git clone -q --no-checkout "$top_srcdir" "$1"
	git -C "$1" checkout -q --detach "$head"
}

# The version configure.ac gives (AC_INIT) in source tree $1.
pkg_version() {
	sed -n 's/^AC_INIT(\[partalign\], \[\([^]]*\)\].*/\1/p' "$1/configure.ac"
}

# The pkg-config modules configure.ac requires, "module version" a line.
pkg_minimums() {
	# (cmocka's, optional, sits indented inside an AS_IF: [PKG_CHECK_MODULES(...)
	sed -n 's/^[[:space:][]*PKG_CHECK_MODULES(\[[A-Z_]*\], *\[\([a-z]*\) >= \([0-9.]*\)\][,)].*/\1 \2/p' \
		"$1/configure.ac"
}

# expected NAME VAR=VALUE...: tests/pkg/expected/NAME with @VAR@ replaced.
expected() {
	local f=$top_srcdir/tests/pkg/expected/$1 kv script=
	shift
	for kv; do
		script+="s|@${kv%%=*}@|${kv#*=}|g;"
	done
	sed -e "$script" "$f"
}

# same_list WHAT EXPECTED_FILE ACTUAL_FILE: fail with a diff unless equal.
same_list() {
	local d
	if ! d=$(diff -u "$2" "$3"); then
		fail "$1 differs from the expected list (- expected, + got):
$d"
	fi
}

# timed LABEL CMD...: run CMD, print how long it took (on the test's
# stdout, also when CMD's output is redirected).
exec 3>&1
timed() {
	local label=$1 t0 rc=0
	shift
	t0=$(date +%s)
	"$@" || rc=$?
	echo "time: $label $(($(date +%s) - t0)) s" >&3
	return $rc
}
