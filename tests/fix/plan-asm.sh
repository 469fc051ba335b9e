#!/bin/bash
# plan and fix on a disk whose partitions hold Oracle ASM disk group members
# (headers written by the test from the public kfed layout): plan advises
# ASM's online move (ALTER DISKGROUP ... ADD DISK ... DROP DISK ...
# REBALANCE) for the misaligned member only, in the table and as the
# ADVICE of its JSON row, and the offline one beside it; plain fix refuses
# the disk (oracleasm is data) and writes nothing (sha256 of the image,
# sfdisk's table); fix --move-data is refused while a process holds the
# member open, and once it is closed moves it: the header is at the new,
# aligned start (od), the old start holds no header, and check --asm sees
# the member aligned.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd python3 od

HDR="$top_srcdir/tests/lib/asm-header.py"
J=$T_TMP/journal
mkdir -p "$J" "$BK"
export PARTALIGN_JOURNAL="$J"

img=$T_TMP/asm.img
truncate -s 64M "$img"
# partition 1 at 1 MiB + 512 B (off the 2 MiB grain), 2 at 32 MiB (on it)
printf 'label: gpt\nstart=2049, size=20480\nstart=65536, size=20480\n' |
	sfdisk -q "$img" >/dev/null
python3 "$HDR" "$img" --at $((2049 * 512)) --group DATA --disk DATA_0003 --num 3 --dsksize 8
python3 "$HDR" "$img" --at $((65536 * 512)) --group DATA --disk DATA_0004 --num 4 --dsksize 8
dev=$(loop_attach "$img" 512)
partx -a "$dev" 2>/dev/null || partx -u "$dev"
[ -b "${dev}p1" ] && [ -b "${dev}p2" ] || fail "$dev: partitions did not reach the kernel"
od_at() {
	od -An -v -tx1 -j "$2" -N "$3" "$1" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//'
}
assert_eq "01 82 01 01" "$(od_at "$dev" $((2049 * 512)) 4)" "the header of partition 1"
blkid -p "${dev}p1" | grep -q 'TYPE="oracleasm"' || fail "${dev}p1: blkid -p: not oracleasm"

# --- plan: the online move for DATA_0003, none for the aligned DATA_0004 ---
before=$(dev_sum "$dev")
layout=$(sfd_layout "$dev")
run_pa "$T_TMP/out" "$T_TMP/err" plan "$dev"
expect_rc 4 "plan"
sql="ALTER DISKGROUP DATA ADD DISK '<new path>' DROP DISK DATA_0003 REBALANCE POWER 4;"
grep -qF "$dev partition 1: asm: ASM disk DATA_0003 of disk group DATA is misaligned; ASM can move its data online" \
	"$T_TMP/out" || fail "plan: no ASM advice for partition 1: $(cat "$T_TMP/out")"
grep -qF "  fix online: partition a new disk on the grain (partalign fix --new), name it for ASM (partalign rules), then as SYSASM: $sql" \
	"$T_TMP/out" || fail "plan: no ALTER DISKGROUP line: $(cat "$T_TMP/out")"
grep -qF "  fix offline: dismount disk group DATA, then partalign fix --move-data $dev" \
	"$T_TMP/out" || fail "plan: no offline way: $(cat "$T_TMP/out")"
grep -qF DATA_0004 "$T_TMP/out" && fail "plan: advice for the aligned DATA_0004: $(cat "$T_TMP/out")"
run_pa "$T_TMP/out" "$T_TMP/err" plan --json -o +ADVICE "$dev"
expect_rc 4 "plan --json"
assert_eq "1 $sql" "$(jq -r '.plan[] | select(.advice != null) | "\(.num) \(.advice)"' "$T_TMP/out" |
	sed 's/ partition a new disk.*SYSASM: / /')" "plan --json: the ADVICE of partition 1"
assert_eq "$before" "$(dev_sum "$dev")" "plan wrote to the disk"
echo "ok: plan advises ALTER DISKGROUP ... ADD DISK ... DROP DISK DATA_0003 REBALANCE for the misaligned member only"

# --- plain fix refuses the member: nothing written ------------------------
pa_fix "$dev"
expect_rc 4 "fix of a disk holding ASM members"
grep -qF "partition 1 holds oracleasm" "$T_TMP/err" || fail "fix: $(cat "$T_TMP/err")"
assert_eq "$before" "$(dev_sum "$dev")" "fix wrote to the disk"
assert_eq "$layout" "$(sfd_layout "$dev")" "the table after the refused fix"
echo "ok: fix refuses the ASM member, the disk unchanged (sha256, sfdisk)"

# --- fix --move-data: refused while held, then the offline move ------------
sleep 600 <"${dev}p1" &
holder=$!
at_exit "kill $holder 2>/dev/null"
run_pa "$T_TMP/out" "$T_TMP/err" fix --yes --move-data --journal "$J" --backup-dir "$BK" "$dev"
expect_rc 4 "fix --move-data while a process holds the member"
grep -qF "$holder" "$T_TMP/err" || fail "fix --move-data: the holder is not named: $(cat "$T_TMP/err")"
assert_eq "$before" "$(dev_sum "$dev")" "fix --move-data wrote while the member was held"
kill "$holder"
wait "$holder" 2>/dev/null || true
run_pa "$T_TMP/out" "$T_TMP/err" fix --yes --move-data --journal "$J" --backup-dir "$BK" "$dev"
expect_rc 1 "fix --move-data of the dismounted member ($(cat "$T_TMP/out"))"
start=$(sfd_layout "$dev" | awk '$1 == 1 { print $2 }')
[ $((start * 512 % (2 << 20))) = 0 ] || fail "partition 1 at sector $start: not on the grain"
assert_eq "01 82 01 01" "$(od_at "$dev" $((start * 512)) 4)" "the header at the new start"
assert_eq "4f 52 43 4c 44 49 53 4b" "$(od_at "$dev" $((start * 512 + 32)) 8)" \
	"ORCLDISK at the new start"
assert_eq "$(od_at "$img" $((2049 * 512 + 0x48)) 9)" "$(od_at "$dev" $((start * 512 + 0x48)) 9)" \
	"the disk name, as written"
run_pa "$T_TMP/out" "$T_TMP/err" check --asm --json "$dev"
expect_rc 0 "check --asm after the move"
assert_eq "DATA_0003 ok" "$(jq -r --arg n "${dev#/dev/}p1" '.devices[] | select(.name == $n) |
	"\(."asm-disk") \(.policy)"' "$T_TMP/out")" "check --asm: the moved member"
echo "ok: fix --move-data: refused while held, then the member at $start, its header with it"
