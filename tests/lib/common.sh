# Shared helpers for the shell tests; source it first thing:
#   . "$top_srcdir/tests/lib/common.sh"
# A test exits 0 (pass), 1 (fail), 77 (skip) or 99 (hard error).  Under
# PARTALIGN_TEST_STRICT=1 (tests/run-all, CI) a skip is a hard error: a test
# that could not run never counts as passed.
# Every loop device, image and temporary file made through these helpers is
# removed on every exit path; nothing else is touched.

set -euo pipefail
shopt -s inherit_errexit

: "${top_srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${PARTALIGN:=$top_builddir/partalign}"
export LC_ALL=C

skip() {
	if [ "${PARTALIGN_TEST_STRICT:-0}" = 1 ]; then
		echo "ERROR: cannot run (strict mode): $*" >&2
		exit 99
	fi
	echo "SKIP: $*"
	exit 77
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root"
}

# LD_PRELOAD shims and umockdev-run (an LD_PRELOAD library too) do not mix
# with AddressSanitizer, whose runtime must come first: in a build made with
# ./configure --enable-sanitizers such a test skips (even in strict mode: the
# plain build runs it).
# libparted 3.5 reads past the end of a string of its own with strchr() in
# ped_disk_gpt_init(), at load time: ASan would stop every run of
# partalign-apply there.  Not our code; the other checks stay on.
# A report aborts (SIGABRT): the default exit status 1 is one that partalign
# itself returns, so a test expecting it would pass over the report.
if [ "${PA_SANITIZERS:-no}" = yes ]; then
	export ASAN_OPTIONS=${ASAN_OPTIONS:-intercept_strchr=0:abort_on_error=1}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:abort_on_error=1}
fi

need_no_sanitizers() {
	[ "${PA_SANITIZERS:-no}" = yes ] || return 0
	echo "SKIP: $* uses LD_PRELOAD, which AddressSanitizer does not allow;" \
		"it runs in the build without --enable-sanitizers"
	exit 77
}

need_cmd() {
	local c
	for c; do
		command -v "$c" >/dev/null 2>&1 || skip "needs $c"
	done
}

T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/partalign-test.XXXXXX")
T_CLEANUP_HOOKS=()

# Run "$@" at exit, before the loop devices go (last registered runs first).
at_exit() {
	T_CLEANUP_HOOKS+=("$*")
}

t_cleanup() {
	local rc=$? i l
	set +e
	for ((i = ${#T_CLEANUP_HOOKS[@]} - 1; i >= 0; i--)); do
		eval "${T_CLEANUP_HOOKS[$i]}"
	done
	if [ -f "$T_TMP/loops" ]; then
		while read -r l img; do
			# only a loop device still over this test's image: a name the
			# test detached itself may be another test's by now
			loop_is_ours "$l" "$img" || continue
			# losetup -d leaves BLKPG partitions behind: delete them first
			partx -d "$l" >/dev/null 2>&1
			losetup -d "$l" >/dev/null 2>&1
		done <"$T_TMP/loops"
	fi
	rm -rf "$T_TMP"
	exit $rc
}
trap t_cleanup EXIT
trap 'exit 130' INT TERM

# loop_record DEV IMAGE: DEV, just attached over IMAGE, is detached when the
# test ends (t_cleanup), if it is still over IMAGE then
loop_record() {
	echo "$1 $(realpath "$2")" >>"$T_TMP/loops"
}

# loop_is_ours DEV IMAGE: DEV is attached and its backing file is IMAGE
loop_is_ours() {
	local b
	b=$(cat "/sys/block/${1#/dev/}/loop/backing_file" 2>/dev/null) || return 1
	[ "${b% (deleted)}" = "$2" ]
}

# loop_detach DEV: the test's own DEV and its partitions gone now
loop_detach() {
	partx -d "$1" >/dev/null 2>&1 || true
	losetup -d "$1"
}

# loop_attach IMAGE [SECTOR_SIZE] -> prints /dev/loopN; retries when another
# process takes the same free loop device first; partitions an earlier user
# left on it are deleted.
loop_attach() {
	local img=$1 bs=${2:-512} dev i
	for i in $(seq 1 20); do
		if dev=$(losetup -f --show -b "$bs" "$img" 2>/dev/null); then
			loop_record "$dev" "$img"
			# a loop device freed with a plain losetup -d (by anyone)
			# keeps its BLKPG partitions: ours starts bare
			partx -d "$dev" >/dev/null 2>&1 || true
			echo "$dev"
			return 0
		fi
		sleep 0.1
	done
	echo "cannot attach $img" >&2
	return 1
}

# mkdisk NAME SIZE SECTOR_SIZE [SFDISK_SCRIPT] -> prints /dev/loopN with the
# table written by sfdisk and its partitions added to the kernel by partx
# (this host's kernel has no partition parsers; a real one may have added
# them already, which partx tolerates).
mkdisk() {
	local name=$1 size=$2 bs=$3 script=${4:-} img dev
	img="$T_TMP/$name.img"
	truncate -s "$size" "$img"
	dev=$(loop_attach "$img" "$bs")
	if [ -n "$script" ]; then
		printf '%b\n' "$script" | sfdisk -q --no-reread --no-tell-kernel "$dev" >/dev/null
		partx -a "$dev" 2>/dev/null || partx -u "$dev"
	fi
	echo "$dev"
}

# The JSON value of KEY for device NAME in partalign JSON on stdin.
json_get() {
	jq -r --arg n "$1" --arg k "$2" '.devices[] | select(.name == $n) | .[$k]'
}

# assert_eq EXPECTED ACTUAL MESSAGE
assert_eq() {
	[ "$1" = "$2" ] || fail "$3: expected '$1', got '$2'"
}
