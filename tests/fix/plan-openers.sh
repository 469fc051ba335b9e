#!/bin/bash
# plan of several disks reads /proc once for the run (issue 33: the opener
# scan "runs once per run").  Three disks; one process holds a partition of
# the first and of the second (descriptors 7 and 8: its first hold is on
# the first disk, so a record of "the first hold of each process" would miss
# it on the second), a thread with a descriptor table of its own holds the
# third's.  plan A B C names each holder in REFUSED (exit 4), and strace
# shows one read of the holding process's /proc/PID/fd (the old code read
# /proc once per disk: three).  Then the holders are stopped and the same
# plan refuses nothing.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd python3
need_cmd strace

holder=''
two=''
at_exit "stop_pid holder"
at_exit "stop_pid two"

layout='label: gpt\nfirst-lba: 34\nstart=63, size=20480, name=a'
d1=$(mkdisk opa 32M 512 "$layout")
d2=$(mkdisk opb 32M 512 "$layout")
d3=$(mkdisk opc 32M 512 "$layout")
p1=$(pnode_of "$d1" 1)
p2=$(pnode_of "$d2" 1)
p3=$(pnode_of "$d3" 1)

# one process, descriptors 7 and 8: the first disk's partition, then the second's
bash -c 'exec 7<"$1" 8<"$2"; exec sleep 600' holds "$p1" "$p2" &
two=$!
python3 "$top_srcdir/tests/lib/holder.py" thread "$p3" >"$T_TMP/holder.out" &
holder=$!
for _ in $(seq 1 100); do
	grep -q '^ready' "$T_TMP/holder.out" && [ "$(readlink "/proc/$two/fd/8")" = "$p2" ] && break
	sleep 0.1
done
read -r _ hpid htid <"$T_TMP/holder.out" || fail "holder.py never held $p3"
[ "$(readlink "/proc/$two/fd/7")" = "$p1" ] || fail "process $two does not hold $p1 on 7"
[ "$(readlink "/proc/$two/fd/8")" = "$p2" ] || fail "process $two does not hold $p2 on 8"

run_pa "$T_TMP/out" "$T_TMP/err" plan -o DISK,NUM,REFUSED "$d1" "$d2" "$d3"
expect_rc 4 "plan of three held disks"
for want in "$p1 is open by process $two (sleep)" "$p2 is open by process $two (sleep)" \
	"$p3 is open by thread $htid of process $hpid (python3)"; do
	grep -qF "$want" "$T_TMP/out" || fail "plan: REFUSED lacks '$want': $(cat "$T_TMP/out" "$T_TMP/err")"
done
echo "ok: each disk's holder named"

# /proc/PID/fd of the holding process is opened once per scan of /proc
strace -f -qq -e trace=openat -o "$T_TMP/trace" "$PARTALIGN" plan "$d1" "$d2" "$d3" \
	>/dev/null 2>&1 || true
reads=$(grep -c "\"$two/fd\", O_RDONLY" "$T_TMP/trace" || true)
assert_eq 1 "$reads" "reads of /proc/$two/fd by plan of three disks"
echo "ok: /proc read once for three disks"

stop_pid two
stop_pid holder
run_pa "$T_TMP/out" "$T_TMP/err" plan -o DISK,NUM,REFUSED "$d1" "$d2" "$d3"
grep -q "is open by" "$T_TMP/out" && fail "plan after the holders left: $(cat "$T_TMP/out")"
echo "ok: nothing held once they left"
