#!/bin/bash
# Two fix runs on one disk at once (issue 33 item 6).  The first waits at its
# [y/N] prompt on a real terminal (tests/lib/at-prompt.py), holding the
# disk's flock; a second `fix --yes` starts meanwhile and waits for the lock
# with the disk's node open read-only.
#   the first is answered y while the second waits (--wait 60): the first
#     writes (exit 1, "fixed"; the table aligned, sgdisk -v clean), never
#     naming the waiting run as the disk's user; /proc/locks listed the
#     second as a waiter ("->") on the disk node's inode; the second then
#     gets the lock, finds nothing to do (exit 0)
#   the second gives up (--wait 1) while the first is at its prompt: exit 8,
#     "locked by partalign (pid P); try again", P the first run's pid (pgrep
#     of its command line); the first is answered n, nothing written
#   another program holds the lock (python3's fcntl.flock): "locked by
#     python3 (pid P); try again", P its pid ($!)
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd python3 pgrep stat
PROMPT="$top_srcdir/tests/lib/at-prompt.py"

second=''
locker=''
at_exit '[ -z "$second" ] || kill "$second" 2>/dev/null'
at_exit "stop_pid locker"

d=$(mkdisk lock 64M 512 'label: gpt\nfirst-lba: 34\nstart=63, size=20480, name=a\nstart=40960, size=8192, name=b')
orig="$T_TMP/lock.orig"
dd if="$d" of="$orig" bs=1M conv=sparse status=none
node_id=$(stat -c '%d %i' "$d")

# at_prompt ANSWER 'CMD' ARGS...: partalign ARGS on a terminal, CMD at its
# prompt, then ANSWER; output in $T_TMP/tty, status in $PA_RC
at_prompt() {
	local answer=$1 between=$2
	shift 2
	PA_RC=0
	python3 "$PROMPT" "$T_TMP/tty" "$answer" "$between" -- "$PARTALIGN" "$@" || PA_RC=$?
	[ "$PA_RC" != 125 ] || fail "at-prompt: no prompt, or '$between' failed: $(cat "$T_TMP/tty")"
}

echo "# the first run is answered while the second waits for the lock"
# the second run in the background: its pid (that of partalign, which execs
# partalign-apply) in pid2, its status in rc2 once it ends; the command
# between returns once it has the disk open and has waited a moment more
cat >"$T_TMP/start-second.sh" <<EOF
( sh -c 'echo \$\$ >"$T_TMP/pid2"; exec "\$@"' sh "$PARTALIGN" fix --yes --wait 60 \
	--backup-dir "$BK" "$d" >"$T_TMP/out2" 2>"$T_TMP/err2" </dev/null
  echo \$? >"$T_TMP/rc2" ) &
for i in \$(seq 1 100); do
	[ -s "$T_TMP/pid2" ] && ls -l /proc/\$(cat "$T_TMP/pid2")/fd 2>/dev/null | grep -q -- '-> $d\$' && break
	sleep 0.1
done
sleep 0.5
cp /proc/locks "$T_TMP/locks"
EOF
rm -f "$T_TMP/pid2" "$T_TMP/rc2"
at_prompt y "sh $T_TMP/start-second.sh" fix --backup-dir "$BK" "$d"
second=$(cat "$T_TMP/pid2")
grep -q "is open by process" "$T_TMP/tty" &&
	fail "the first run named a user of the disk: $(cat "$T_TMP/tty")"
[ "$PA_RC" = 1 ] && grep -qF "$d: fixed" "$T_TMP/tty" ||
	fail "the first run exited $PA_RC, expected 1 and 'fixed': $(cat "$T_TMP/tty")"
# what the kernel listed while the second waited: it, blocked on the node's flock
read -r dev ino <<<"$node_id"
want=$(printf '%02x:%02x:%s' $((dev >> 8 & 0xfff)) $((dev & 0xff | (dev >> 12 & 0xfff00))) "$ino")
grep -E -- "-> FLOCK +ADVISORY +WRITE +$second +$want " "$T_TMP/locks" >/dev/null ||
	fail "/proc/locks did not list the second run ($second) waiting for $want: $(cat "$T_TMP/locks")"
for _ in $(seq 1 300); do
	[ -s "$T_TMP/rc2" ] && break
	sleep 0.1
done
second=''
[ -s "$T_TMP/rc2" ] || fail "the second run did not finish: $(cat "$T_TMP/err2")"
assert_eq 0 "$(cat "$T_TMP/rc2")" "the second run, once it had the lock: $(cat "$T_TMP/out2" "$T_TMP/err2")"
sgdisk_ok "$d"
assert_eq "1 4096 20480
2 40960 8192" "$(sfd_layout "$d" | awk '{ print $1, $2, $3 }')" "the table after the first run"
echo "ok: the first writes, the waiting second is no user of the disk, then has nothing to do"

echo "# the second gives up while the first waits at its prompt"
dd if="$orig" of="$d" bs=1M conv=fsync status=none
kernel_reload "$d"
sum=$(dev_sum "$d")
rm -f "$T_TMP/rc2"
between="pgrep -xf '$PARTALIGN fix --backup-dir $BK $d' >$T_TMP/pid1;
	'$PARTALIGN' fix --yes --wait 1 --backup-dir '$BK' '$d' >$T_TMP/out2 2>$T_TMP/err2 </dev/null;
	echo \$? >$T_TMP/rc2"
at_prompt n "$between" fix --backup-dir "$BK" "$d"
first=$(cat "$T_TMP/pid1")
[ -n "$first" ] || fail "pgrep did not find the first run"
assert_eq 8 "$(cat "$T_TMP/rc2")" "the second run's status"
assert_eq "partalign: $d: locked by partalign (pid $first); try again" "$(cat "$T_TMP/err2")" \
	"the second run's message"
assert_eq 4 "$PA_RC" "the first run, answered n"
assert_eq "$sum" "$(dev_sum "$d")" "the disk after both"
echo "ok: $(cat "$T_TMP/err2")"

echo "# another program holds the lock"
# one process that takes the lock itself (flock(1) would leave its command
# holding the node after flock is killed)
python3 -c 'import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX)
time.sleep(600)' "$d" &
locker=$!
for _ in $(seq 1 50); do
	grep -qE "FLOCK +ADVISORY +WRITE +$locker " /proc/locks && break
	sleep 0.1
done
run_pa "$T_TMP/out" "$T_TMP/err" fix --yes --wait 1 --backup-dir "$BK" "$d"
expect_rc 8 "fix while another program holds the lock"
assert_eq "partalign: $d: locked by python3 (pid $locker); try again" "$(cat "$T_TMP/err")" \
	"the message naming the other program"
stop_pid locker
assert_eq "$sum" "$(dev_sum "$d")" "the disk after the refused fix"
echo "ok: $(cat "$T_TMP/err")"
echo PASS
