# Helpers for the umockdev tests of 'partalign check'; source it after
# tests/lib/common.sh.
#
# The testbeds in tests/mock/testbeds/ are umockdev device descriptions
# (umockdev-record's format: P: sysfs path, N: device node, S: node symlink,
# E: property, A: sysfs attribute, L: sysfs symlink) written by hand
# for topologies this host's kernel cannot make.  Lines starting with '#'
# explain where each number comes from; umockdev's format has no comments,
# so tests/lib/umockdev-udevdb (mock_run) strips them first.
#
# Expected values are worked out here and in the tests from the testbed
# parameters, never taken from partalign's output.
#
# What umockdev 0.17 fakes, and what not:
# - stat() of a node made by an N: line is a block device with the A: dev
#   number, so 'check /dev/sda' works; a node reached through an S: symlink
#   (/dev/disk/by-id/..., /dev/mapper/NAME) stats as device 0:0, so those
#   names cannot be tested here.
# - /sys/dev/block/MAJ:MIN links are made only for sysfs paths containing
#   "/block/"; nvme-4kn.umockdev adds its own with L: lines.
# - /run is not redirected, and umockdev writes every E: property into the
#   device's uevent file, where a real kernel puts only its own few keys.
#   So mock_run goes through tests/lib/umockdev-udevdb: the kernel's keys
#   stay in uevent, udev's (ID_*, DM_*, MD_*...) go into a udev database
#   file /run/udev/data/b<maj>:<min> bound in a private mount namespace,
#   which partalign's scanner and libudev read as on a real host (and the
#   host's own database is hidden).
# - /proc is the host's, so mount points are never asserted.

need_no_sanitizers "umockdev-run"
need_cmd umockdev-run jq
[ -x "$PARTALIGN" ] || fail "no partalign binary at $PARTALIGN"

MOCK_BEDS="$top_srcdir/tests/mock/testbeds"
POLICY_DEFAULT=2097152

MOCK_UDEVDB="$top_srcdir/tests/lib/umockdev-udevdb"
# the udev database needs a private mount namespace (root, or an
# unprivileged user namespace)
unshare --mount --propagation private true 2>/dev/null ||
	unshare --map-root-user --mount true 2>/dev/null ||
	skip "cannot make a private mount namespace for the testbeds' udev database"

# mock_run BED... -- COMMAND [ARG...]
# Runs COMMAND under umockdev with the testbeds BED (names in
# tests/mock/testbeds, without .umockdev), their udev properties in a udev
# database (see above).  Stdout goes to $T_TMP/out, stderr to $T_TMP/err,
# the exit status to $MOCK_RC.
mock_run() {
	local args=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		args+=(--device "$MOCK_BEDS/$1.umockdev")
		shift
	done
	[ "${1:-}" = -- ] || fail "mock_run: no -- before the command"
	shift
	MOCK_RC=0
	bash "$MOCK_UDEVDB" "${args[@]}" -- "$@" >"$T_TMP/out" 2>"$T_TMP/err" || MOCK_RC=$?
}

# mock_check BED... -- [ARG...]: 'partalign check --json ARG...' under the
# testbeds, with a few columns beyond the JSON defaults; the output must be
# JSON.
mock_check() {
	local beds=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		beds+=("$1")
		shift
	done
	shift
	mock_run "${beds[@]}" -- "$PARTALIGN" check --json \
		-o +MODEL,PTTYPE,PARTTYPE,START-SEC,MAJ:MIN,PATHS "$@"
	mock_load || fail "check --json $*: no JSON device list (exit $MOCK_RC): $(cat "$T_TMP/err")"
}

# Read the JSON in $T_TMP/out into MOCK_F[NAME/KEY] and MOCK_ROWS (one jq
# run; a run of jq per field would make the suite slow).  Rows are keyed by
# the kernel name (kname; name without it, as with -o): key "name" is the
# kernel name, "lsblk-name" the name column (the device-mapper name of a dm
# device).
declare -A MOCK_F
MOCK_ROWS=
mock_load() {
	local n k v
	MOCK_F=()
	MOCK_ROWS=
	jq -e '.devices' "$T_TMP/out" >/dev/null || return 1
	while IFS=$'\t' read -r n k v; do
		if [ "$k" = name ]; then
			[ -z "${MOCK_F[$n/name]+set}" ] || fail "row $n printed twice"
			MOCK_ROWS+="${MOCK_ROWS:+ }$n"
		fi
		MOCK_F[$n/$k]=$v
	done < <(jq -r '.devices[] | (.kname // .name) as $n | to_entries[] |
		[$n, (if .key == "kname" then "name" elif .key == "name" then "lsblk-name" else .key end),
		 (.value | tostring)] | @tsv' "$T_TMP/out")
}

# get NAME KEY: the value of column KEY of row NAME in the last output, in
# $V ("null" when null).  Fails when there is no such row or column.
get() {
	[ -n "${MOCK_F[$1/name]+set}" ] || fail "no row $1 (rows: $MOCK_ROWS)"
	[ -n "${MOCK_F[$1/$2]+set}" ] || fail "row $1 has no column $2"
	V=${MOCK_F[$1/$2]}
}

# expect NAME KEY VALUE
expect() {
	get "$1" "$2"
	assert_eq "$3" "$V" "$1 $2"
}

# expect_reason NAME FRAGMENT: the reason of NAME contains FRAGMENT.
expect_reason() {
	get "$1" reason
	[[ $V == *"$2"* ]] || fail "$1 reason: '$2' not in '$V'"
}

# expect_no_reason NAME FRAGMENT
expect_no_reason() {
	get "$1" reason
	[[ $V != *"$2"* ]] || fail "$1 reason: '$2' unexpected in '$V'"
}

expect_rc() {
	[ "$MOCK_RC" = "$1" ] || fail "$2: exit status $MOCK_RC, expected $1 (stderr: $(cat "$T_TMP/err"))"
}

# expect_rows NAME...: the output has exactly these rows, in this order.
expect_rows() {
	assert_eq "$*" "$MOCK_ROWS" "rows"
}

# The kernel's alignment_offset of a partition starting START bytes into a
# disk with granularity G (max of physical sector and minimum I/O) and
# alignment offset OFF: block/blk-settings.c, queue_limit_alignment_offset().
kernel_align() {
	local start=$1 g=$2 off=$3
	if [ "$off" -lt 0 ]; then
		echo -1
	else
		echo $(((g + off - start % g) % g))
	fi
}

# on_grain START GRAIN OFF -> ok when (START - OFF) is a multiple of GRAIN
on_grain() {
	if [ $((($1 - $3) % $2)) = 0 ]; then echo ok; else echo misaligned; fi
}

# expect_part NAME DISK START_BYTES LOG PHY MIN OPT OFF OPT_GRAIN HAND
# Checks the row of partition NAME on DISK whose topology is LOG/PHY/MIN/OPT
# with disk alignment offset OFF.  OPT_GRAIN is the optimal size the check
# must use (0 when the reported OPT must be ignored).  HAND is the verdict
# triple worked out by hand in the test ("o" ok, "M" misaligned, "-" n/a, in
# the order physical, optimal, policy); it must agree with the arithmetic
# here and with partalign.
expect_part() {
	local name=$1 disk=$2 start=$3 log=$4 phy=$5 min=$6 opt=$7 off=$8 og=$9 hand=${10}
	local g=$phy ka p o q calc='' v

	[ "$min" -gt "$g" ] && g=$min
	[ "$log" -gt "$g" ] && g=$log
	ka=$(kernel_align "$start" "$g" "$off")
	if [ "$off" -lt 0 ]; then
		p=misaligned
		o=n/a
		[ "$og" -gt 0 ] && o=misaligned
		q=$(on_grain "$start" "$POLICY_DEFAULT" 0)
	else
		p=$(on_grain "$start" "$g" "$off")
		o=n/a
		[ "$og" -gt 0 ] && o=$(on_grain "$start" "$og" "$off")
		q=$(on_grain "$start" "$POLICY_DEFAULT" "$off")
	fi
	for v in "$p" "$o" "$q"; do
		case $v in
		ok) calc+=o ;;
		misaligned) calc+=M ;;
		*) calc+=- ;;
		esac
	done
	assert_eq "$hand" "$calc" "$name: verdicts by hand vs by arithmetic (test bug)"

	expect "$name" type part
	expect "$name" disk "$disk"
	expect "$name" start "$start"
	expect "$name" log-sec "$log"
	expect "$name" phy-sec "$phy"
	expect "$name" min-io "$min"
	expect "$name" opt-io "$opt"
	expect "$name" alignment "$ka"
	expect "$name" align-calc "$ka"
	expect "$name" physical "$p"
	expect "$name" optimal "$o"
	expect "$name" policy "$q"
	# the reason names exactly the checks that are not ok
	if [ "$p" = ok ]; then expect_no_reason "$name" physical:; else expect_reason "$name" physical:; fi
	if [ "$o" = ok ]; then expect_no_reason "$name" optimal:; else expect_reason "$name" optimal:; fi
	if [ "$q" = ok ]; then expect_no_reason "$name" policy:; else expect_reason "$name" policy:; fi
	if [ "$calc" = ooo ]; then expect "$name" reason null; fi
}

# mock_links_resolve BED...: every holders/, slaves/ and device link of the
# testbeds resolves, as in a real sysfs.
mock_links_resolve() {
	mock_run "$@" -- sh -c 'for l in /sys/class/block/*/holders/* \
		/sys/class/block/*/slaves/* /sys/class/block/*/device; do
		if [ -L "$l" ]; then readlink -e "$l" >/dev/null || echo "$l"; fi
	done'
	assert_eq 0 "$MOCK_RC" "testbed links: $(cat "$T_TMP/err")"
	[ ! -s "$T_TMP/out" ] || fail "testbed links that resolve nowhere: $(cat "$T_TMP/out")"
}

# Exit status 4 exactly when some row of the last output is misaligned.
misaligned_rows() {
	local n c=0
	for n in $MOCK_ROWS; do
		[[ "${MOCK_F[$n/physical]} ${MOCK_F[$n/optimal]} ${MOCK_F[$n/policy]}" == *misaligned* ]] &&
			c=$((c + 1))
	done
	echo $c
}
