#!/bin/bash
# Every write is proven against the disk as it is now.  fix, fix --move-data
# and restore re-read, under the write gate, what their plan was made from;
# anything different is refused before the first byte, with one line naming
# the device and what changed, and the disk is byte-identical to what the
# other party left (sha256 of the whole device, read around the page cache,
# when the other tool is done and after partalign refused).
#   the prompt race: fix waits at its [y/N] prompt on a real terminal
#     (tests/lib/at-prompt.py) while another tool changes the disk, then is
#     answered y -- sgdisk adds a GPT partition, sfdisk appends a dos one,
#     the LUN grows (truncate + losetup -c), mkfs puts a file system where
#     the plan re-creates an empty partition, a process opens a partition:
#     exit 12, the other tool's change still there (sfdisk, sgdisk)
#   restore waiting at its prompt while sgdisk changes the table: exit 8
#   at-prompt.py itself: 125 when the prompt never comes
#   a process holding a partition or the whole disk open without O_EXCL
#     (as ASM, a raw-device database, qemu or dd do): plan names it (pid and
#     command, in REFUSED), fix and fix --move-data refuse (exit 4), restore refuses
#     (exit 8), nothing written; once it is gone, fix writes
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd python3 mkfs.ext4 sleep
PROMPT="$top_srcdir/tests/lib/at-prompt.py"

holder=''
at_exit "stop_pid holder"

# at_prompt 'CMD' ARGS...: partalign ARGS on a terminal, CMD run at its
# prompt, then "y"; output in $T_TMP/tty, status in $PA_RC.  The sha256 of
# the whole of the disk (the last argument) as CMD left it in $T_TMP/left.
at_prompt() {
	local between=$1 disk
	shift
	disk=${!#}
	rm -f "$T_TMP/left"
	PA_RC=0
	python3 "$PROMPT" "$T_TMP/tty" y \
		"$between && dd if=$disk bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1 >$T_TMP/left" \
		-- "$PARTALIGN" "$@" || PA_RC=$?
	[ "$PA_RC" != 125 ] || fail "at-prompt: no prompt, or '$between' failed: $(cat "$T_TMP/tty")"
	[ -s "$T_TMP/left" ] || fail "at-prompt: no checksum of $disk after '$between'"
}

# left_alone DEV WHAT: DEV is byte for byte what the other party left.  Both
# sums read around the page cache: a tool that wrote through a partition's
# node leaves the whole disk's cached pages as they were.
left_alone() {
	assert_eq "$(cat "$T_TMP/left")" \
		"$(dd if="$1" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1)" \
		"$2: the disk, against what the other tool left"
}

# tty_has TEXT WHAT
tty_has() {
	grep -qF -- "$1" "$T_TMP/tty" || fail "$2: the terminal lacks '$1': $(cat "$T_TMP/tty")"
}

# hold NODE: a process keeps NODE open read-write (no O_EXCL), as ASM does
hold() {
	sleep 600 <>"$1" &
	holder=$!
	# the shell opens the node before it execs sleep: wait until it has
	for _ in $(seq 1 50); do
		[ "$(cat "/proc/$holder/comm" 2>/dev/null)" = sleep ] && break
		sleep 0.1
	done
}

gpt_two='label: gpt\nfirst-lba: 34\nstart=63, size=20480, name=a\nstart=40960, size=8192, name=b'

echo "# at-prompt.py itself: a program that never asks is 125, not its own status"
rc=0
python3 "$PROMPT" "$T_TMP/tty" y "touch $T_TMP/ran" -- sh -c 'echo no question; exit 0' || rc=$?
assert_eq 125 "$rc" "at-prompt.py on a program without a prompt"
[ ! -e "$T_TMP/ran" ] || fail "at-prompt.py ran the command between without a prompt"
rc=0
python3 "$PROMPT" "$T_TMP/tty" y "touch $T_TMP/ran" -- sh -c 'printf "go? [y/N] "; read a; [ "$a" = y ] && exit 5' || rc=$?
assert_eq 5 "$rc" "at-prompt.py on a program that asks: its status"
[ -e "$T_TMP/ran" ] || fail "at-prompt.py did not run the command between"

echo "# sgdisk adds a partition while fix waits at its prompt"
d=$(mkdisk race 64M 512 "$gpt_two")
at_prompt "sgdisk -n 3:100000:+4M $d >/dev/null" fix --backup-dir "$BK" "$d"
left_alone "$d" "a table changed at the prompt"
expect_rc 12 "a table changed at the prompt"
tty_has "$d: refused: the disk changed since it was read: the primary GPT header changed" \
	"a table changed at the prompt"
tty_has "nothing written, run 'partalign plan' again" "a table changed at the prompt"
assert_eq "3" "$(sfdisk --json "$d" | jq '.partitiontable.partitions | length')" \
	"the partition sgdisk added"
assert_eq "63" "$(sfdisk --json "$d" | jq '.partitiontable.partitions[0].start')" \
	"partition 1 after the refused fix"
sgdisk_ok "$d"
after=$(dev_sum "$d")
# the same answer on the disk as it is now: fix plans again and writes
kernel_reload "$d"
at_prompt "true" fix --backup-dir "$BK" "$d"
expect_rc 1 "fix of the disk as it is now"
[ "$(dev_sum "$d")" != "$after" ] || fail "the second fix wrote nothing"
assert_eq "3" "$(sfdisk --json "$d" | jq '.partitiontable.partitions | length')" \
	"partitions after the second fix"
sgdisk_ok "$d"
echo "ok: a GPT partition added at the prompt"

echo "# sfdisk appends a dos partition while fix waits"
d=$(mkdisk racedos 64M 512 'label: dos\nstart=63, size=20480, type=83')
at_prompt "echo 'start=40960, size=8192, type=83' | sfdisk -q --append --no-reread --no-tell-kernel $d >/dev/null" \
	fix --backup-dir "$BK" "$d"
left_alone "$d" "a dos table changed at the prompt"
expect_rc 12 "a dos table changed at the prompt"
tty_has "$d: refused: the disk changed since it was read: sector 0 (the MBR) changed" \
	"a dos table changed at the prompt"
assert_eq "dos 2" "$(sfdisk --json "$d" | jq -r '.partitiontable | "\(.label) \(.partitions | length)"')" \
	"the dos table after the refused fix"
echo "ok: a dos partition appended at the prompt"

echo "# the LUN grows while fix waits"
d=$(mkdisk grow 64M 512 "$gpt_two")
img="$T_TMP/grow.img"
at_prompt "truncate -s 96M $img && losetup -c $d" fix --backup-dir "$BK" "$d"
left_alone "$d" "a disk grown at the prompt"
expect_rc 12 "a disk grown at the prompt"
tty_has "$d: refused: the disk changed since it was read: its size changed from 67108864 to 100663296 bytes" \
	"a disk grown at the prompt"
assert_eq "63" "$(sfdisk --json "$d" | jq '.partitiontable.partitions[0].start')" \
	"partition 1 after the refused fix"
echo "ok: the disk's size changed at the prompt"

echo "# a file system written where the plan re-creates an empty partition"
d=$(mkdisk mkfs 64M 512 "$gpt_two")
# (mkfs refuses a disk fix holds O_EXCL; dd, as any tool without O_EXCL, can)
truncate -s 8M "$T_TMP/fs.img"
mkfs.ext4 -q -F "$T_TMP/fs.img"
at_prompt "dd if=$T_TMP/fs.img of=$(pnode_of "$d" 1) bs=1M conv=fsync status=none" \
	fix --backup-dir "$BK" "$d"
left_alone "$d" "a file system made at the prompt"
expect_rc 12 "a file system made at the prompt"
tty_has "$d: refused: the disk changed since it was read: partition 1 now holds ext4 (it held nothing)" \
	"a file system made at the prompt"
blkid -p -s TYPE -o value "$(pnode_of "$d" 1)" | grep -qx ext4 ||
	fail "the ext4 made at the prompt is gone"
echo "ok: a signature made at the prompt"

echo "# a process opens a partition while fix waits"
d=$(mkdisk openlate 64M 512 "$gpt_two")
at_prompt "sleep 600 <>$(pnode_of "$d" 2) & echo \$! >$T_TMP/late.pid; sleep 0.3" \
	fix --backup-dir "$BK" "$d"
holder=$(cat "$T_TMP/late.pid")
left_alone "$d" "a partition opened at the prompt"
expect_rc 12 "a partition opened at the prompt"
tty_has "$d: refused: $(pnode_of "$d" 2) is open by process $holder (sleep): stop it first; nothing written" \
	"a partition opened at the prompt"
assert_eq "63" "$(sfdisk --json "$d" | jq '.partitiontable.partitions[0].start')" \
	"partition 1 after the refused fix"
stop_pid holder
echo "ok: a partition opened at the prompt"

echo "# a partition and a whole disk held open from the start"
for what in partition disk; do
	d=$(mkdisk "held$what" 64M 512 "$gpt_two")
	fill=$(dev_sum "$d")
	if [ "$what" = partition ]; then node=$(pnode_of "$d" 1); else node=$d; fi
	hold "$node"
	why="$node is open by process $holder (sleep)"
	run_pa "$T_TMP/out" "$T_TMP/err" plan "$d"
	expect_rc 4 "plan of a disk whose $what is held"
	grep -qF "$why" "$T_TMP/out" || fail "plan, $what held: REFUSED lacks it: $(cat "$T_TMP/out")"
	pa_fix "$d"
	expect_rc 4 "fix of a disk whose $what is held"
	grep -qF "$d: refused: $why" "$T_TMP/err" || fail "fix, $what held: $(cat "$T_TMP/err")"
	run_pa "$T_TMP/out" "$T_TMP/err" fix --yes --move-data --quiet --journal "$T_TMP/j" \
		--backup-dir "$BK" "$d"
	expect_rc 4 "fix --move-data of a disk whose $what is held"
	grep -qF "$d: refused: $why" "$T_TMP/err" ||
		fail "fix --move-data, $what held: $(cat "$T_TMP/err")"
	assert_eq "$fill" "$(dev_sum "$d")" "the disk whose $what is held"
	stop_pid holder
	echo "ok: $what held open: plan names it, fix and --move-data refuse"
done
# the holder gone, fix writes; its backup is then restored while one is held
pa_fix "$d"
expect_rc 1 "fix once the holder is gone"
bk=$(sed -n 's/^.*: table saved to //p' "$T_TMP/out")
[ -f "$bk" ] || fail "fix named no backup: $(cat "$T_TMP/out")"
hold "$(pnode_of "$d" 1)"
sum=$(dev_sum "$d")
run_pa "$T_TMP/out" "$T_TMP/err" restore --yes --backup-dir "$BK" "$bk" "$d"
expect_rc 8 "restore onto a disk whose partition is held"
grep -qF "$d: refused: $(pnode_of "$d" 1) is open by process $holder (sleep): stop it first" \
	"$T_TMP/err" || fail "restore, partition held: $(cat "$T_TMP/err")"
assert_eq "$sum" "$(dev_sum "$d")" "restore onto a held disk"
stop_pid holder
echo "ok: restore refuses a held partition"

echo "# sgdisk changes the table while restore waits at its prompt"
sum=''
at_prompt "sgdisk -n 3:100000:+4M $d >/dev/null" restore --backup-dir "$BK" "$bk" "$d"
left_alone "$d" "a table changed at restore's prompt"
expect_rc 8 "a table changed at restore's prompt"
tty_has "$d: refused: the disk changed since it was read: the primary GPT" \
	"a table changed at restore's prompt"
assert_eq "3" "$(sfdisk --json "$d" | jq '.partitiontable.partitions | length')" \
	"the partition sgdisk added before the refused restore"
sgdisk_ok "$d"
echo "ok: restore refuses a table changed at its prompt"
echo PASS
