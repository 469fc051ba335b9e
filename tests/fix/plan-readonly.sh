#!/bin/bash
# partalign plan writes nothing: the whole device is byte-identical after it
# (sha256 of the loop device), the kernel's partitions are unchanged, no
# backup appears, and under the fault-injection shim not one write or flush
# reaches a block device.  The JSON rows carry exactly the documented keys.
# Exit status: 4 when there is something to fix (or refused), 1 when fix
# would write but move no partition (here: the kernel's partitions differ
# from an aligned table), 0 when not, OR-ed over several disks; --yes is a
# usage error for plan.
. "$top_srcdir/tests/lib/common.sh"
need_no_sanitizers "the fault shim tests/fix/faultinject.so"
. "$top_srcdir/tests/fix/lib.sh"

SHIM="$top_builddir/tests/fix/faultinject.so"
[ -f "$SHIM" ] || skip "$SHIM not built (make check builds it)"

keys='action advice backup destroys disk grain label name new-end new-opt new-phys new-policy
new-size new-start note num old-end old-opt old-phys old-policy old-size old-start
refused result type'
keys=$(tr -s ' \n' '\n\n' <<<"$keys" | sort)

g512=$(mkdisk g512 64M 512 'label: gpt\nfirst-lba: 34
start=34,size=2000,name=one\nstart=4095,size=15905,name=two\nstart=20000,name=three')
d4k=$(mkdisk d4k 64M 4096 'label: dos
start=63,size=200,type=83\nstart=300,size=500,type=5\nstart=400,size=100,type=83')
ok=$(mkdisk ok 64M 512 'label: gpt\nstart=4096,size=4096\nstart=8192,size=4096')
blank=$(mkdisk blank 64M 4096)

# plan_once NAME DEV EXPECTED_RC [ARGS...]
plan_once() {
	local name=$1 dev=$2 want=$3 sum parts
	shift 3
	sum=$(dev_sum "$dev")
	parts=$(sysfs_layout "$dev")
	rm -f "$T_TMP/fi.log"
	PA_RC=0
	LD_PRELOAD="$SHIM" FI_LOG="$T_TMP/fi.log" "$PARTALIGN" plan --json \
		--backup-dir "$BK" "$@" "$dev" >"$T_TMP/out" 2>"$T_TMP/err" </dev/null || PA_RC=$?
	expect_rc "$want" "$name: plan $*"
	[ ! -s "$T_TMP/err" ] || fail "$name: plan wrote to stderr: $(cat "$T_TMP/err")"
	[ ! -e "$T_TMP/fi.log" ] ||
		fail "$name: plan wrote to or flushed a block device: $(cat "$T_TMP/fi.log")"
	assert_eq "$sum" "$(dev_sum "$dev")" "$name: device content after plan"
	assert_eq "$parts" "$(sysfs_layout "$dev")" "$name: kernel partitions after plan"
	[ ! -e "$BK" ] || fail "$name: plan created the backup directory"
	jq -e . "$T_TMP/out" >/dev/null || fail "$name: plan --json is not JSON"
	assert_eq "$keys" "$(jq -r '.plan[] | keys[]' "$T_TMP/out" | sort -u)" "$name: JSON keys"
	jq -e '.plan | length > 0' "$T_TMP/out" >/dev/null || fail "$name: no rows"
	echo "ok: $name plan $* -> $PA_RC, nothing written"
}

plan_once g512 "$g512" 4
assert_eq "gpt->gpt" "$(jq -r '[.plan[].label] | unique | join(",")' "$T_TMP/out")" "g512 label"
assert_eq "recreate recreate recreate" "$(jq -r '[.plan[].action] | join(" ")' "$T_TMP/out")" \
	"g512 actions"
# 20000 to the end of a 64 MiB disk does not fit from 24576 (after two at
# 8192): rounded down
assert_eq "size rounded down to the grain to fit" \
	"$(jq -r '.plan[] | select(.num == 3) | .note' "$T_TMP/out")" "g512 note of partition 3"
plan_once g512-1m "$g512" 4 --align 1MiB
plan_once d4k "$d4k" 4
assert_eq "dos->gpt" "$(jq -r '[.plan[].label] | unique | join(",")' "$T_TMP/out")" "d4k label"
assert_eq "2" "$(jq -r '.plan[] | select(.action == "drop") | .num' "$T_TMP/out")" \
	"d4k drops the extended partition"
plan_once ok "$ok" 0
assert_eq "keep keep" "$(jq -r '[.plan[].action] | join(" ")' "$T_TMP/out")" "ok: actions"
plan_once blank "$blank" 4
[[ $(jq -r '.plan[0].refused' "$T_TMP/out") == *"no partition table"* ]] ||
	fail "blank: refusal: $(jq -r '.plan[0].refused' "$T_TMP/out")"
plan_once blank-new "$blank" 4 --new --name data
assert_eq "create 1 data" "$(jq -r '.plan[] | "\(.action) \(.num) \(.name)"' "$T_TMP/out")" \
	"blank --new row"

# the table aligned, the kernel's partitions gone (as after a partx -d):
# fix would only tell the kernel
stale=$(mkdisk stale 64M 512 'label: gpt\nstart=4096,size=4096\nstart=8192,size=4096')
partx -d "$stale"
plan_once stale "$stale" 1
assert_eq "keep keep" "$(jq -r '[.plan[].action] | join(" ")' "$T_TMP/out")" "stale: actions"
assert_eq "the kernel's partitions differ from the table" \
	"$(jq -r '[.plan[].note] | unique | join(",")' "$T_TMP/out")" "stale: note"
run_pa "$T_TMP/out" "$T_TMP/err" plan --json "$stale" "$g512"
expect_rc 5 "plan of a stale and a misaligned disk"

# several disks: the exit bits are OR-ed, every disk gets rows
sums="$(dev_sum "$g512") $(dev_sum "$ok")"
run_pa "$T_TMP/out" "$T_TMP/err" plan --json "$ok" "$g512"
expect_rc 4 "plan of an aligned and a misaligned disk"
assert_eq "$(printf '%s\n' "$ok" "$g512" | sort)" "$(jq -r '.plan[].disk' "$T_TMP/out" | sort -u)" \
	"disks in the plan"
assert_eq "$sums" "$(dev_sum "$g512") $(dev_sum "$ok")" "two-disk plan changed a disk"

# the table output writes nothing either, and --yes belongs to fix
sum=$(dev_sum "$g512")
run_pa "$T_TMP/out" "$T_TMP/err" plan "$g512"
expect_rc 4 "plan (table output)"
grep -q recreate "$T_TMP/out" || fail "plan table: $(cat "$T_TMP/out")"
run_pa "$T_TMP/out" "$T_TMP/err" plan --yes "$g512"
expect_rc 16 "plan --yes"
assert_eq "$sum" "$(dev_sum "$g512")" "plan table output changed the disk"
echo "ok: several disks, table output, --yes refused"
