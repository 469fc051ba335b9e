#!/bin/bash
# Holders no /proc/PID/fd shows (issue 33 item 5): a thread with a
# descriptor table of its own (unshare(CLONE_FILES)) that opened a
# partition, a MAP_SHARED and a MAP_PRIVATE mapping of a partition whose
# descriptor was closed (tests/lib/holder.py), and a loop device set up on a
# partition (losetup).  Each time: plan names the holder in REFUSED ("thread
# TID of process PID (python3)", "process PID (python3) has NODE mapped",
# "used by loop device LOOP"), fix refuses with exit 4 naming it, nothing
# written (sha256 of the whole disk, sfdisk's table); once the holder is
# gone, plan has nothing in REFUSED.  The holder's pid and thread id are the
# ones the helper reports, /proc/PID/maps shows the mapping.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd python3
HOLD="$top_srcdir/tests/lib/holder.py"

holder=''
at_exit "stop_pid holder"
hloop=''
at_exit '[ -z "$hloop" ] || loop_detach "$hloop"'

d=$(mkdisk held 64M 512 'label: gpt\nfirst-lba: 34\nstart=63, size=20480, name=a\nstart=40960, size=8192, name=b')
p1=$(pnode_of "$d" 1)
p2=$(pnode_of "$d" 2)
sum=$(dev_sum "$d")
table=$(sfd_layout "$d")

# start_holder HOW NODE: holder.py in the background; $hpid and $htid set
start_holder() {
	python3 "$HOLD" "$1" "$2" >"$T_TMP/holder.out" &
	holder=$!
	for _ in $(seq 1 100); do
		grep -q '^ready' "$T_TMP/holder.out" && break
		kill -0 "$holder" 2>/dev/null || fail "$1: holder.py died"
		sleep 0.1
	done
	read -r _ hpid htid <"$T_TMP/holder.out" || fail "$1: holder.py never held $2"
	[ "$hpid" = "$holder" ] || fail "$1: holder.py says pid $hpid, started $holder"
}

# refused WHAT TEXT: plan names TEXT in REFUSED, fix refuses naming it,
# nothing written
refused() {
	local what=$1 text=$2
	run_pa "$T_TMP/out" "$T_TMP/err" plan -o DISK,NUM,REFUSED "$d"
	expect_rc 4 "plan, $what"
	grep -qF "$text" "$T_TMP/out" || fail "plan, $what: REFUSED lacks '$text': $(cat "$T_TMP/out" "$T_TMP/err")"
	pa_fix "$d"
	expect_rc 4 "fix, $what"
	grep -qxF "partalign: $d: refused: $text" "$T_TMP/err" ||
		fail "fix, $what: expected 'refused: $text': $(cat "$T_TMP/err")"
	assert_eq "$sum" "$(dev_sum "$d")" "the disk after the refused fix, $what"
	assert_eq "$table" "$(sfd_layout "$d")" "the table after the refused fix, $what"
	echo "ok: $what: $text"
}

echo "# a thread with a descriptor table of its own"
start_holder thread "$p2"
[ "$htid" != "$hpid" ] || fail "thread: the helper's thread is its leader"
# the leader's table does not have it, the thread's does
ls -l "/proc/$hpid/fd" | grep -q "$p2" && fail "thread: the leader's table has $p2"
ls -l "/proc/$hpid/task/$htid/fd" | grep -q "$p2" || fail "thread: the thread's table lacks $p2"
refused thread "$p2 is open by thread $htid of process $hpid (python3)"
stop_pid holder

for how in map-shared map-private; do
	echo "# a $how mapping, its descriptor closed"
	start_holder "$how" "$p1"
	grep -q " $p1\$" "/proc/$hpid/maps" || fail "$how: /proc/$hpid/maps has no mapping of $p1"
	ls -l "/proc/$hpid/fd" | grep -q "$p1" && fail "$how: a descriptor of $p1 is still open"
	refused "$how" "process $hpid (python3) has $p1 mapped"
	stop_pid holder
done

echo "# a loop device set up on a partition"
hloop=$(losetup -f --show "$p2")
assert_eq "$p2" "$(cat "/sys/block/${hloop#/dev/}/loop/backing_file")" "the loop's backing file"
refused loop "$p2 is used by loop device $hloop"
loop_detach "$hloop"
hloop=''

echo "# nothing holds it any more"
run_pa "$T_TMP/out" "$T_TMP/err" plan -o DISK,NUM,REFUSED "$d"
expect_rc 4 "plan, nothing held"
if awk 'NR > 1 && NF > 2' "$T_TMP/out" | grep -q .; then
	fail "plan, nothing held: still refused: $(cat "$T_TMP/out")"
fi
echo PASS
