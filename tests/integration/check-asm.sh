#!/bin/bash
# check --asm on real loop devices whose Oracle ASM headers the test writes
# itself from the public kfed layout (tests/lib/asm-header.py), on 512- and
# 4096-byte sectors (losetup -b): each finding with its words and exit bit,
# checked against what independent tools say of the same bytes (od of the
# header and its backup, blockdev --getss, losetup's backing file, sfdisk,
# blkid -p):
#   two disks of one group on 512 and 4096-byte sectors    32
#   one image attached twice (two paths to one LUN)          32
#   a dos or GPT table written over a whole-disk member       32, the backup named
#   (sfdisk)
#   a misaligned partition holding a member (4 MiB AU)        4 (policy, AU)
#   a header whose backup disagrees                           32
#   a loop device over a member partition                      32, the partition named
#   a healthy 4Kn group, an ASMLib label without a header     nothing
# then the same through --probe, the JSON keys (null where no header), plain
# check (no header read: no ASM column filled, no bit 32), and check --asm
# --sysroot of a dump made with --asm: the same rows as the live check.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/integration/helpers.sh"
need_cmd python3 od blockdev blkid

HDR="$top_srcdir/tests/lib/asm-header.py"
hdr() { python3 "$HDR" "$@"; }
out=$T_TMP/out
err=$T_TMP/err

# od_at FILE OFFSET COUNT: the bytes, as od prints them, on one line
od_at() {
	od -An -v -tx1 -j "$2" -N "$3" "$1" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//'
}

# --- the disks --------------------------------------------------------------
mkimg() { # NAME SIZE -> path
	truncate -s "$2" "$T_TMP/$1.img"
	echo "$T_TMP/$1.img"
}
# group DATA: DATA_0000 on 512-byte sectors, DATA_0001 on 4096 (header 512)
i_d0=$(mkimg d0 64M)
i_d1=$(mkimg d1 64M)
hdr "$i_d0" --group DATA --disk DATA_0000 --num 0 --dsksize 64
hdr "$i_d1" --group DATA --disk DATA_0001 --num 1 --dsksize 64
d0=$(loop_attach "$i_d0" 512)
d1=$(loop_attach "$i_d1" 4096)
# group FRA: one LUN seen through two loop devices
i_fra=$(mkimg fra 32M)
hdr "$i_fra" --group FRA --disk FRA_0000 --num 0 --dsksize 32
f1=$(loop_attach "$i_fra" 512)
f2=$(loop_attach "$i_fra" 512)
# group REDO: a whole-disk member, then a dos table over its header
i_redo=$(mkimg redo 64M)
hdr "$i_redo" --group REDO --disk REDO_0000 --num 0 --dsksize 64
r0=$(loop_attach "$i_redo" 512)
printf 'label: dos\nstart=2048, size=20480, type=83\n' |
	sfdisk -q --no-reread --no-tell-kernel "$r0" >/dev/null
partx -a "$r0" 2>/dev/null || partx -u "$r0"
# and a GPT (its protective MBR) over another one, AU 4 MiB
i_redo1=$(mkimg redo1 64M)
hdr "$i_redo1" --group REDO --disk REDO_0001 --num 1 --dsksize 16 --ausize $((4 << 20))
r1=$(loop_attach "$i_redo1" 512)
printf 'label: gpt\nstart=16384, size=20480\n' |
	sfdisk -q --no-reread --no-tell-kernel "$r1" >/dev/null
# group ARCH: a member in a partition at 1 MiB + 512 B, AU 4 MiB
i_arch=$(mkimg arch 64M)
printf 'label: gpt\nstart=2049, size=40960\n' | sfdisk -q "$i_arch" >/dev/null
hdr "$i_arch" --at $((2049 * 512)) --group ARCH --disk ARCH_0000 --ausize $((4 << 20)) \
	--dsksize 4
a0=$(loop_attach "$i_arch" 512)
partx -a "$a0" 2>/dev/null || partx -u "$a0"
a0p=${a0}p1
# group OCR: its backup says another disk name and status
i_ocr=$(mkimg ocr 32M)
hdr "$i_ocr" --group OCR --disk OCR_0000 --num 0 --dsksize 16 \
	--backup-set dskname=OCR_0007 --backup-set hdrsts=4
o0=$(loop_attach "$i_ocr" 512)
# group GOOD on 4Kn, header 4096: nothing to say; an ASMLib label alone
i_good=$(mkimg good 32M)
hdr "$i_good" --group GOOD --disk GOOD_0000 --secsize 4096 --dsksize 16 --label GOODLBL
g0=$(loop_attach "$i_good" 4096)
i_lbl=$(mkimg lbl 16M)
hdr "$i_lbl" --label-only --label NEWDISK1
l0=$(loop_attach "$i_lbl" 512)
# group STK: a member in a partition, and a loop device over that partition
# (a device stacked on it): ASM must see the partition
i_stk=$(mkimg stk 64M)
printf 'label: gpt\nstart=4096, size=40960\n' | sfdisk -q "$i_stk" >/dev/null
hdr "$i_stk" --at $((4096 * 512)) --group STK --disk STK_0000 --dsksize 16
s0=$(loop_attach "$i_stk" 512)
partx -a "$s0" 2>/dev/null || partx -u "$s0"
s0p=${s0}p1
[ -b "$s0p" ] || fail "$s0p: not created"
s1=$(losetup -f --show "$s0p")
# detached before the loop device below it (at_exit hooks run first)
at_exit "loop_detach $s1"
# a loop device with no ASM at all
i_none=$(mkimg none 16M)
n0=$(loop_attach "$i_none" 512)
devs=("$d0" "$d1" "$f1" "$f2" "$r0" "$r1" "$a0" "$o0" "$g0" "$l0" "$n0" "$s0" "$s1")

# --- what the tools say of them --------------------------------------------
assert_eq 512 "$(blockdev --getss "$d0")" "$d0: logical sector size"
assert_eq 4096 "$(blockdev --getss "$d1")" "$d1: logical sector size"
# kfbh: endian 1, hard 0x82, type 1; provstr ORCLDISK; secsize 512 at 0xd8
assert_eq "01 82 01 01" "$(od_at "$d1" 0 4)" "$d1: kfbh"
assert_eq "4f 52 43 4c 44 49 53 4b" "$(od_at "$d1" 32 8)" "$d1: provstr"
assert_eq "00 02" "$(od_at "$d1" $((0xd8)) 2)" "$d1: secsize"
assert_eq "$(losetup -n -O BACK-FILE "$f1")" "$(losetup -n -O BACK-FILE "$f2")" \
	"$f1 and $f2: one backing file"
assert_eq "55 aa" "$(od_at "$r0" 510 2)" "$r0: the dos signature over the header"
assert_eq dos "$(sfdisk --json "$r0" | jq -r .partitiontable.label)" "$r0: sfdisk's label"
blkid -p "$r0" | grep -q 'TYPE="oracleasm"' || fail "$r0: blkid -p does not see oracleasm"
# the backup of a 1 MiB AU: AU 1, block 254 = byte 2088960
assert_eq "01 82 01 01" "$(od_at "$r0" 2088960 4)" "$r0: the backup header"
assert_eq gpt "$(sfdisk --json "$r1" | jq -r .partitiontable.label)" "$r1: sfdisk's label"
assert_eq "ee" "$(od_at "$r1" 450 1)" "$r1: the protective MBR's type"
# of a 4 MiB AU: AU 1, block 1022 = byte 8380416
assert_eq "01 82 01 01" "$(od_at "$r1" 8380416 4)" "$r1: the backup header"
assert_eq "$(od_at "$i_ocr" $((0x48)) 9)" "4f 43 52 5f 30 30 30 30 00" "OCR: dskname"
assert_eq "$(od_at "$i_ocr" $((2088960 + 0x48)) 8)" "4f 43 52 5f 30 30 30 37" \
	"OCR: the backup's dskname"
[ $(($(cat "/sys/class/block/${a0p#/dev/}/start") * 512 % (2 << 20))) != 0 ] ||
	fail "$a0p: not off the grain"
echo "ok: the headers on disk, as od, blockdev, losetup, sfdisk and blkid see them"

# --- check --asm -----------------------------------------------------------
run_pa "$out" "$err" check --asm --json "${devs[@]}"
[ $((PA_RC & 16)) = 0 ] || fail "check --asm: usage error: $(cat "$err")"
[ $((PA_RC & 8)) = 0 ] || fail "check --asm: exit $PA_RC: $(cat "$err")"
assert_eq 36 "$PA_RC" "check --asm: exit status (32 ASM, 4 misaligned)"
row() { # NAME KEY
	json_get "$1" "$2" <"$out"
}
name() { echo "${1#/dev/}"; }
# one row per device with a header; the healthy disk without ASM is no row
assert_eq "" "$(row "$(name "$n0")" name)" "$n0: a row without an ASM header"
order=$(jq -r '[.devices[] | ."asm-group" // "-"] | join(" ")' "$out")
assert_eq "ARCH DATA DATA FRA FRA GOOD OCR REDO REDO STK STK -" "$order" "the rows by disk group"
# sector sizes
r=$(row "$(name "$d1")" reason)
[[ $r == *"asm: disk DATA_0001 of DATA: the header says 512-byte sectors, the kernel 4096 (ORA-15085)"* ]] ||
	fail "$d1: $r"
for d in "$d0" "$d1"; do
	r=$(row "$(name "$d")" reason)
	[[ $r == *"asm: disk group DATA mixes 512-byte ($(name "$d0")) and 4096-byte ($(name "$d1")) logical sectors: ASM refuses that (ORA-15085)"* ]] ||
		fail "$d: no mixed-sector finding: $r"
	assert_eq "$(blockdev --getss "$d")" "$(row "$(name "$d")" log-sec)" "$d: log-sec"
	assert_eq 512 "$(row "$(name "$d")" asm-secsize)" "$d: asm-secsize"
done
# one LUN, two devices
r=$(row "$(name "$f1")" reason)
[[ $r == *"asm: disk FRA_0000 of FRA is also on $(name "$f2"): ASM must see only one of them (ORA-15020)"* ]] ||
	fail "$f1: $r"
r=$(row "$(name "$f2")" reason)
[[ $r == *"is also on $(name "$f1")"* ]] || fail "$f2: $r"
# a loop device over a partition: the partition is the one to use
assert_eq "$s0p" "$(losetup -n -O BACK-FILE "$s1")" "$s1: its backing device"
for d in "$s0p" "$s1"; do
	r=$(row "$(name "$d")" reason)
	[[ $r == *"asm: disk STK_0000 of STK is also on "*": ASM must see it only as $s0p (ORA-15020)"* ]] ||
		fail "$d: $r"
done
assert_eq "$(name "$s0p") $(name "$s1")" \
	"$(jq -r '[.devices[] | select(."asm-group" == "STK") | .name] | join(" ")' "$out")" \
	"the partition before the loop device over it"
# the table over the header: the whole disk is a row, the backup named
r=$(row "$(name "$r0")" reason)
[[ $r == *"asm: a dos partition table is written over the header of disk REDO_0000 of REDO: the backup in AU 1 block 254 (byte 2088960) holds it ('kfed repair $r0' restores it)"* ]] ||
	fail "$r0: $r"
assert_eq loop "$(row "$(name "$r0")" type)" "$r0: type"
r=$(row "$(name "$r1")" reason)
[[ $r == *"asm: a GPT partition table is written over the header of disk REDO_0001 of REDO: the backup in AU 1 block 1022 (byte 8380416) holds it ('kfed repair $r1 ausz=4194304' restores it)"* ]] ||
	fail "$r1: $r"
# the misaligned member: policy and AU, no bit 32 of its own
r=$(row "$(name "$a0p")" reason)
[[ $r == *"policy: 1049088 B past a 2 MiB boundary"* &&
	$r == *"asm: disk ARCH_0000 of ARCH starts 1049088 B past a 4 MiB allocation unit boundary"* ]] ||
	fail "$a0p: $r"
assert_eq misaligned "$(row "$(name "$a0p")" policy)" "$a0p: policy"
assert_eq 4194304 "$(row "$(name "$a0p")" asm-au)" "$a0p: asm-au"
# the backup that disagrees
r=$(row "$(name "$o0")" reason)
[[ $r == *"asm: the backup in AU 1 block 254 (byte 2088960) differs from the header in hdrsts, dskname"* ]] ||
	fail "$o0: $r"
# nothing to say of the healthy group and the label
for d in "$g0" "$l0"; do
	r=$(row "$(name "$d")" reason)
	[[ $r != *asm:* ]] || fail "$d: a finding on a healthy disk: $r"
done
assert_eq "GOOD GOOD_0000 MEMBER 4096 4096 GOODLBL" \
	"$(jq -r --arg n "$(name "$g0")" '.devices[] | select(.name == $n) |
	"\(."asm-group") \(."asm-disk") \(."asm-status") \(."asm-secsize") \(."log-sec") \(."asm-label")"' "$out")" \
	"$g0: its ASM columns"
assert_eq "null null PROVISIONED null NEWDISK1" \
	"$(jq -r --arg n "$(name "$l0")" '.devices[] | select(.name == $n) |
	"\(."asm-group") \(."asm-disk") \(."asm-status") \(."asm-au") \(."asm-label")"' "$out")" \
	"$l0: an ASMLib label without a header"
echo "ok: check --asm: every finding, its words and exit status 36"

# each finding alone sets its own bit
for c in "32 $d0 $d1" "32 $f1 $f2" "32 $r0" "32 $r1" "4 $a0" "32 $o0" "32 $s0 $s1" \
	"0 $g0 $l0 $n0 $s0"; do
	set -- $c
	want=$1
	shift
	run_pa "$out" "$err" check --asm --json "$@"
	assert_eq "$want" "$PA_RC" "check --asm $*: exit status ($(cat "$err"))"
done
echo "ok: check --asm: 32 for each group at risk, 4 for the misaligned member, 0 else"

# --- --probe reads them too; plain check reads no device data --------------
run_pa "$out" "$err" check --probe --json "$d0" "$d1" "$n0"
assert_eq 32 "$PA_RC" "check --probe: exit status ($(cat "$err"))"
assert_eq DATA_0001 "$(row "$(name "$d1")" asm-disk)" "check --probe: asm-disk of $d1"
assert_eq null "$(row "$(name "$n0")" asm-group)" "check --probe: asm-group of $n0"
run_pa "$out" "$err" check --json "${devs[@]}"
assert_eq 4 "$PA_RC" "plain check: exit status ($(cat "$err"))"
assert_eq 0 "$(jq '[.devices[] | select(."asm-group" != null or ."asm-status" != null)] | length' "$out")" \
	"plain check: no ASM column filled"
jq -e '.devices[0] | has("asm-group") and has("asm-disk") and has("asm-status") and
	has("asm-au") and has("asm-secsize") and has("asm-label")' "$out" >/dev/null ||
	fail "plain check --json: the asm keys are missing"
echo "ok: --probe fills the ASM columns; plain check leaves them null and exits 4"

# --- a dump with --asm: the same rows below --sysroot ---------------------
run_pa "$T_TMP/d.out" "$T_TMP/d.err" dump --asm "$T_TMP/dump" "${devs[@]}"
expect_rc 0 "dump --asm ($(cat "$T_TMP/d.err"))"
for d in "$d0" "$r0" "$o0"; do
	f="$T_TMP/dump/asm/$(cat "/sys/class/block/$(name "$d")/dev")"
	head -n 2 "$f" | tr '\n' ' ' | grep -qx 'partalign-asm 1 block 0 4096 ' ||
		fail "$f: $(head -n 3 "$f")"
	# the saved bytes are the device's
	assert_eq "$(od -An -v -tx1 -N 4096 "$d" | tr -s ' \n' ' ')" \
		"$(sed -n '3,258p' "$f" | tr -s ' \n' ' ')" "$f: the first block"
	grep -q '^block 2088960 4096$' "$f" || fail "$f: no backup block"
done
run_pa "$T_TMP/live" "$T_TMP/live.err" check --asm --json "${devs[@]}"
live_rc=$PA_RC
run_pa "$T_TMP/sr" "$T_TMP/sr.err" check --asm --json --sysroot "$T_TMP/dump" "${devs[@]}"
assert_eq "$live_rc" "$PA_RC" "check --asm --sysroot: exit status ($(cat "$T_TMP/sr.err"))"
diff -u <(jq -S . "$T_TMP/live") <(jq -S . "$T_TMP/sr") >&2 ||
	fail "check --asm --sysroot: the rows differ from the live check's"
# a dump made without --asm says it has no blocks
run_pa "$T_TMP/d.out" "$T_TMP/d.err" dump "$T_TMP/dump2" "$d0"
run_pa "$out" "$err" check --asm --sysroot "$T_TMP/dump2" "$d0"
grep -q 'holds no ASM header blocks' "$err" || fail "dump without --asm: $(cat "$err")"
echo "ok: check --asm --sysroot of dump --asm: the live rows and status"
