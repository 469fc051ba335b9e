#!/bin/bash
# partalign rules --from-asm on loop partitions whose Oracle ASM headers the
# test writes from the public kfed layout: ASMLib-labelled members named by
# their label, a member without a label by its ASM disk name, an ASMLib
# label without a header (PROVISIONED) by the label, a FORMER disk not at
# all; each rule keyed on the partition's PARTUUID as sfdisk reports it, the
# file's header saying it was made --from-asm.  --dry-run prints its diff
# and writes nothing; --root writes
# it into a directory tree (exactly the file expected), and a rerun changes
# nothing.  One ASM disk seen through two loop devices over one image (two
# paths to one LUN) is refused, naming both, nothing written; naming a disk
# without any ASM header is an error too.
. "$top_srcdir/tests/lib/common.sh"
need_root
need_cmd sfdisk partx losetup python3 jq blkid

HDR="$top_srcdir/tests/lib/asm-header.py"
img=$T_TMP/asm.img
truncate -s 64M "$img"
printf 'label: gpt\nstart=2048, size=20480\nstart=22528, size=20480\nstart=43008, size=20480\nstart=63488, size=40960\n' |
	sfdisk -q "$img" >/dev/null
at() { echo $(($1 * 512)); }
python3 "$HDR" "$img" --at "$(at 2048)" --group DATA --disk DATA_0000 --num 0 --label DATA1
python3 "$HDR" "$img" --at "$(at 22528)" --label-only --label FRA1
python3 "$HDR" "$img" --at "$(at 43008)" --group DATA --disk DATA_0002 --num 2
python3 "$HDR" "$img" --at "$(at 63488)" --group DATA --disk DATA_0009 --num 9 --status 4 \
	--label OLD1
A=$(loop_attach "$img" 512)
partx -a "$A" 2>/dev/null || partx -u "$A"
for n in 1 2 3 4; do
	[ -b "${A}p$n" ] || fail "${A}p$n was not created"
done
# the PARTUUIDs as sfdisk has them (the keys the rules must use)
uuid() {
	sfdisk --json "$A" | jq -r --arg n "${A}p$1" \
		'.partitiontable.partitions[] | select(.node == $n) | .uuid | ascii_downcase'
}
u1=$(uuid 1) u2=$(uuid 2) u3=$(uuid 3)
[ -n "$u1" ] && [ -n "$u2" ] && [ -n "$u3" ] || fail "no PARTUUIDs from sfdisk"
# libblkid's oracleasm probe reads the same label (its LABEL)
assert_eq "FRA1 oracleasm" "$(blkid -p -o value -s LABEL -s TYPE "${A}p2" | paste -sd' ')" \
	"${A}p2: blkid -p"

HEAD='# Oracle ASM disks: /dev/oracleasm/NAME with the owner, group and mode ASM needs.
# Written by partalign rules --from-asm from the Oracle ASM disk headers.
# Do not edit: run partalign rules --from-asm again (a disk left out loses
# its rule).'
rule() { # NAME UUID PARTNO
	printf '\n# %s: partition %s (10 MiB) of a 64 MiB loop device\n' "$1" "$3"
	printf 'ACTION=="add|change", SUBSYSTEM=="block", ENV{DEVTYPE}=="partition", ENV{ID_PART_ENTRY_UUID}=="%s", SYMLINK+="oracleasm/%s", OWNER="grid", GROUP="asmadmin", MODE="0660", OPTIONS:="nowatch"\n' "$2" "$1"
}
{
	echo "$HEAD"
	rule DATA1 "$u1" 1
	rule DATA_0002 "$u3" 3
	rule FRA1 "$u2" 2
} >"$T_TMP/want"

ROOT=$T_TMP/root
OUT=$ROOT/etc/udev/rules.d/99-oracle-asmdevices.rules
mkdir -p "$ROOT/etc/udev/rules.d"
run() { # EXPECTED_RC ARGS...
	local want=$1 rc=0
	shift
	"$PARTALIGN" rules "$@" >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
	[ "$rc" = "$want" ] ||
		fail "rules $*: exit $rc, expected $want; stdout: $(cat "$T_TMP/out"); stderr: $(cat "$T_TMP/err")"
}
err_has() {
	grep -qF -- "$1" "$T_TMP/err" || fail "stderr lacks '$1': $(cat "$T_TMP/err")"
}

# --- --dry-run: the diff, what each disk is named after ----------------------
run 1 --from-asm --dry-run --root "$ROOT" "$A"
{
	echo '--- /dev/null'
	echo "+++ $OUT"
	echo "@@ -0,0 +1,$(wc -l <"$T_TMP/want") @@"
	sed 's/^/+/' "$T_TMP/want"
} >"$T_TMP/want-dry"
diff -u "$T_TMP/want-dry" "$T_TMP/out" >&2 || fail "--from-asm --dry-run: not the diff expected"
[ ! -e "$OUT" ] || fail "--dry-run wrote $OUT"
err_has "${A}p1: ASM disk DATA_0000 of DATA (MEMBER): named DATA1 (its ASMLib label)"
err_has "${A}p3: ASM disk DATA_0002 of DATA (MEMBER): named DATA_0002 (its ASM disk name)"
err_has "${A}p2: an ASMLib label without an ASM header (PROVISIONED): named FRA1"
grep -qF OLD1 "$T_TMP/out" "$T_TMP/err" && fail "the FORMER disk got a rule: $(cat "$T_TMP/out")"
err_has "would be written (dry run)"
echo "ok: --from-asm --dry-run: labels, a disk name, no FORMER disk, nothing written"

# --- --root: the file, then a rerun that changes nothing ---------------------
run 1 --from-asm --root "$ROOT" "$A"
cmp "$T_TMP/want" "$OUT" || fail "--from-asm --root: $(diff "$T_TMP/want" "$OUT")"
st=$(stat -c '%i %Y' "$OUT")
run 0 --from-asm --root "$ROOT" "$A"
assert_eq "$st" "$(stat -c '%i %Y' "$OUT")" "a rerun rewrote the file"
# the same from the partitions named one by one
run 0 --from-asm --root "$ROOT" "${A}p1" "${A}p2" "${A}p3" "${A}p4"
echo "ok: --from-asm --root wrote exactly the rules expected; a rerun is a no-op"

# --- one ASM disk on two devices: refused -------------------------------------
i2=$T_TMP/lun.img
truncate -s 32M "$i2"
python3 "$HDR" "$i2" --group RECO --disk RECO_0000 --label RECO1 --dsksize 16
B1=$(loop_attach "$i2" 512)
B2=$(loop_attach "$i2" 512)
rm -f "$OUT"
run 8 --from-asm --root "$ROOT" "$B1" "$B2"
err_has "$B1: ASM disk RECO_0000 is also on ${B2#/dev/}: refusing to name one disk twice"
err_has "$B2: ASM disk RECO_0000 is also on ${B1#/dev/}"
[ ! -e "$OUT" ] || fail "a refused --from-asm wrote $OUT"
# a disk without any ASM header
i3=$T_TMP/blank.img
truncate -s 16M "$i3"
C=$(loop_attach "$i3" 512)
run 8 --from-asm --root "$ROOT" "$C"
err_has "no Oracle ASM disk group member or provisioned disk found on the devices named"
[ ! -e "$OUT" ] || fail "--from-asm of a blank disk wrote $OUT"
run 16 --from-asm --disk X=/dev/null --root "$ROOT"
echo "ok: one ASM disk on two devices refused naming both; no header: an error"
