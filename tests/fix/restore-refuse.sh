#!/bin/bash
# restore's refusals of a wrong backup or a wrong disk, on loop devices.
# Every refusal must exit 8, say why, leave the whole disk byte-identical
# (sha256 of the device) and save no backup of its own.  Backups are edited
# with tests/fix/ptedit.py, which computes the CRC-32 itself (zlib), so a
# file can be damaged (edited, no new checksum) or forged (edited, valid
# checksum).  Identities are read with sfdisk, never with partalign.
#   1. dos disk turned into GPT by fix: the backup records the dos
#      signature and the new GPT GUID; a changed region line, a changed
#      header byte, a flipped region byte, truncations, a label line that
#      does not match the bytes and an unknown line are damaged; a forged
#      region in the data area is no label sector; a move id is refused;
#      a format-1 copy (written here) restores the disk byte for byte, one
#      with a data region does not; the backup restore saved undoes the
#      restore; a dos signature changed with sfdisk --disk-id is another disk.
#   2. a wiped disk (sgdisk -Z): refused without --force, restored with it.
#   3. a GPT backup whose tail region was moved into the data area (with and
#      without a new checksum); two images of one GPT disk, one after
#      sgdisk -G: neither accepts the other's backup, also with the same
#      device id (the other's content copied onto the disk) and with
#      --force; a disk carrying a move marker takes none; each takes its own.
#   4. the device node replaced (a bind mount in a private mount namespace)
#      while restore, or fix, waits for the disk's lock: refused, naming
#      both major:minor numbers.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd python3 flock unshare mount umount
PTEDIT=(python3 "$top_srcdir/tests/fix/ptedit.py")
B2="$T_TMP/bk2"

# The label identity as sfdisk reports it: gpt:<GUID> or dos:<8 hex>.
ident_of() {
	local j
	j=$(sfdisk --json "$1")
	case $(jq -r .partitiontable.label <<<"$j") in
	gpt) echo "gpt:$(jq -r .partitiontable.id <<<"$j" | tr a-f A-F)" ;;
	dos) printf 'dos:%08x\n' "$(jq -r .partitiontable.id <<<"$j")" ;;
	*) echo none ;;
	esac
}

# The device id of the loop device over $T_TMP/NAME.img ('/' is not kept in ids).
file_id() {
	local p="$T_TMP/$1.img"
	echo "file:${p//\//_}"
}

# refuse NAME DEV FILE TEXT [OPTIONS...]: restore FILE onto DEV must exit 8,
# print TEXT on stderr, change no byte of DEV and save no backup.
refuse() {
	local name=$1 dev=$2 file=$3 text=$4 sum
	shift 4
	sum=$(dev_sum "$dev")
	rm -rf "$B2"
	run_pa "$T_TMP/out" "$T_TMP/err" restore --yes --backup-dir "$B2" "$@" "$file" "$dev"
	expect_rc 8 "$name"
	grep -qF -- "$text" "$T_TMP/err" || fail "$name: expected '$text' on stderr, got: $(cat "$T_TMP/err")"
	[ "$(grep -vc ': warning: ' "$T_TMP/err")" = 1 ] ||
		fail "$name: more than one error line on stderr: $(cat "$T_TMP/err")"
	assert_eq "$sum" "$(dev_sum "$dev")" "$name: the disk after the refusal"
	[ ! -e "$B2" ] || [ -z "$(ls -A "$B2")" ] || fail "$name: a refused restore saved a backup"
	echo "ok: refused: $name"
}

# restore_ok NAME DEV FILE WANT_SUM [OPTIONS...]: restore exits 1 and DEV's
# content is WANT_SUM afterwards.
restore_ok() {
	local name=$1 dev=$2 file=$3 want=$4
	shift 4
	rm -rf "$B2"
	run_pa "$T_TMP/out" "$T_TMP/err" restore --yes --backup-dir "$B2" "$@" "$file" "$dev"
	expect_rc 1 "$name"
	grep -q "^$dev: restored" "$T_TMP/out" || fail "$name: $(cat "$T_TMP/out")"
	assert_eq "$want" "$(dev_sum "$dev")" "$name: the whole disk after the restore"
	echo "ok: restored: $name"
}

backup_of() {
	local b
	b=$(sed -n "s|^$1: table saved to ||p" "$T_TMP/out")
	[ -f "$b" ] || fail "$1: no backup named: $(cat "$T_TMP/out")"
	echo "$b"
}

# ---- 1. a dos disk that fix turned into GPT ----
rm -rf "$BK"
dev=$(mkdisk dos 64M 512 'label: dos\nlabel-id: 0x1a2b3c4d
start=63,size=2000,type=83\nstart=4095,size=20000,type=5
start=4200,size=3000,type=8e\nstart=8000,size=3000,type=83')
sum0=$(dev_sum "$dev")
sfd0=$(sfdisk -d "$dev")
id0=$(ident_of "$dev")
assert_eq dos:1a2b3c4d "$id0" "sfdisk's dos identity"
pa_fix "$dev"
expect_rc 1 "dos: fix"
bk=$(backup_of "$dev")
sum1=$(dev_sum "$dev")
assert_eq gpt "$(sfd_label "$dev")" "dos: label after fix"
id1=$(ident_of "$dev")
assert_eq "partalign-backup 2" "$(head -n1 "$bk")" "backup magic"
grep -qx "label $id0" "$bk" || fail "backup: no 'label $id0' line: $(grep -a '^label' "$bk")"
grep -qx "after $id1" "$bk" || fail "backup: no 'after $id1' line: $(grep -a '^after' "$bk")"
grep -qx "id $(file_id dos)" "$bk" || fail "backup: id line: $(grep -a '^id ' "$bk")"
grep -qx "size 67108864" "$bk" || fail "backup: size line"
! grep -qa '^part ' "$bk" || fail "backup: part lines for a dos table"
"${PTEDIT[@]}" reseal "$bk" "$T_TMP/resealed.pt"
cmp -s "$bk" "$T_TMP/resealed.pt" || fail "ptedit's CRC-32 differs from partalign's"
# the tail region: the backup GPT of the new table, last region line
tail_line=$(grep -a '^region ' "$bk" | tail -n1)
tail_off=${tail_line#region }
tail_off=${tail_off%% *}
[ "$tail_off" -gt 60000000 ] || fail "the last region is not at the end of the disk: $tail_line"

# damaged: edited without a new checksum
python3 - "$bk" "$T_TMP/moved.pt" "$tail_off" <<'EOF'
import sys
d = open(sys.argv[1], "rb").read()
old = b"\nregion %s " % sys.argv[3].encode()
new = b"\nregion %d " % (int(sys.argv[3]) - 8388608)
assert len(old) == len(new) and d.count(old) == 1
open(sys.argv[2], "wb").write(d.replace(old, new))
EOF
refuse "a changed region line" "$dev" "$T_TMP/moved.pt" "not a partalign backup, or damaged"
python3 - "$bk" "$T_TMP/created.pt" <<'EOF'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
i = d.index(b"\ncreated 2") + len(b"\ncreated 2")
d[i] = ord("1") if d[i] != ord("1") else ord("2")
open(sys.argv[2], "wb").write(d)
EOF
refuse "one changed header byte" "$dev" "$T_TMP/created.pt" "damaged"
size=$(stat -c %s "$bk")
cp "$bk" "$T_TMP/flip.pt"
printf '\x5a' | dd of="$T_TMP/flip.pt" bs=1 seek=$((size - 1000)) conv=notrunc status=none
cmp -s "$bk" "$T_TMP/flip.pt" && fail "the flip changed nothing"
refuse "a flipped region byte" "$dev" "$T_TMP/flip.pt" "damaged"
head -c $((size - 1)) "$bk" >"$T_TMP/trunc1.pt"
refuse "the last byte cut off" "$dev" "$T_TMP/trunc1.pt" "damaged"
head -c $((size - 15)) "$bk" >"$T_TMP/trunc15.pt"
refuse "the checksum line cut off" "$dev" "$T_TMP/trunc15.pt" "damaged"
head -c 4096 "$bk" >"$T_TMP/trunc4k.pt"
refuse "cut in the region bytes" "$dev" "$T_TMP/trunc4k.pt" "damaged"
# damaged although the checksum is valid: what the header says is not what the bytes are
"${PTEDIT[@]}" set "$bk" "$T_TMP/label.pt" label dos:00c0ffee
refuse "a label line the bytes contradict" "$dev" "$T_TMP/label.pt" "damaged"
"${PTEDIT[@]}" add-line "$bk" "$T_TMP/unknown.pt" "colour blue"
refuse "an unknown header line" "$dev" "$T_TMP/unknown.pt" "damaged"

# forged with a valid checksum: regions that are no label sector
"${PTEDIT[@]}" add-region "$bk" "$T_TMP/data.pt" 33554432 4096 5a
refuse "a region in the data area" "$dev" "$T_TMP/data.pt" \
	"refused: the backup has a region at byte 33554432 that is no label sector of its table"
"${PTEDIT[@]}" add-line "$bk" "$T_TMP/move.pt" "move 0123456789abcdef"
refuse "a backup taken before a data move" "$dev" "$T_TMP/move.pt" \
	"refused: the backup was taken before data move 0123456789abcdef; its partitions' data has moved since"
# format 1 gets the same label-sector rule
"${PTEDIT[@]}" to-v1 "$T_TMP/data.pt" "$T_TMP/v1-data.pt"
refuse "format 1 with a region in the data area" "$dev" "$T_TMP/v1-data.pt" \
	"region at byte 33554432 that is no label sector"

# a format-1 backup (the old layout, written here) still restores
"${PTEDIT[@]}" to-v1 "$bk" "$T_TMP/v1.pt"
assert_eq "partalign-backup 1" "$(head -n1 "$T_TMP/v1.pt")" "format-1 magic"
restore_ok "format 1" "$dev" "$T_TMP/v1.pt" "$sum0"
grep -q "warning: $T_TMP/v1.pt: a format-1 backup" "$T_TMP/err" ||
	fail "format 1: no warning: $(cat "$T_TMP/err")"
assert_eq "$sfd0" "$(sfdisk -d "$dev")" "format 1: sfdisk -d after the restore"
# the restore's own backup undoes it: back to the GPT that fix wrote
undo=$(sed -n "s|^$dev: current table saved to ||p" "$T_TMP/out")
[ -f "$undo" ] || fail "format 1: no backup of the replaced table: $(cat "$T_TMP/out")"
cp "$undo" "$T_TMP/undo.pt"
grep -qx "label $id1" "$T_TMP/undo.pt" || fail "undo: label line: $(grep -a '^label' "$T_TMP/undo.pt")"
grep -qx "after $id0" "$T_TMP/undo.pt" || fail "undo: after line: $(grep -a '^after' "$T_TMP/undo.pt")"
restore_ok "the restore's own backup" "$dev" "$T_TMP/undo.pt" "$sum1"
assert_eq "$id1" "$(ident_of "$dev")" "undo: the GPT is back"
"${PTEDIT[@]}" to-v1 "$bk" "$T_TMP/v1.pt"
restore_ok "format 1 again" "$dev" "$T_TMP/v1.pt" "$sum0"

# a dos disk with another signature is another disk
sfdisk -q --disk-id "$dev" 0xdeadbeef >/dev/null 2>&1
assert_eq dos:deadbeef "$(ident_of "$dev")" "sfdisk --disk-id"
refuse "a dos disk with another signature" "$dev" "$bk" \
	"refused: the backup is of the table $id0 (or $id1, which partalign wrote over it), this disk has dos:deadbeef"
sfdisk -q --disk-id "$dev" 0x1a2b3c4d >/dev/null 2>&1
assert_eq "$sum0" "$(dev_sum "$dev")" "the dos signature set back"

# ---- 2. a wiped disk: only --force, and only with the same device id ----
pa_fix "$dev"
expect_rc 1 "dos: second fix"
bk2=$(backup_of "$dev")
sgdisk -Z "$dev" >/dev/null 2>&1
assert_eq none "$(blkid -p -o value -s PTTYPE "$dev" || echo none)" "no table after sgdisk -Z"
refuse "a wiped disk without --force" "$dev" "$bk2" \
	"refused: the disk has no partition table to identify it by (the backup is of $id0)"
restore_ok "a wiped disk with --force" "$dev" "$bk2" "$sum0" --force
grep -q "no partition table to identify the disk by; restoring (--force" "$T_TMP/err" ||
	fail "wiped: no warning: $(cat "$T_TMP/err")"
assert_eq "$sfd0" "$(sfdisk -d "$dev")" "wiped: sfdisk -d after the restore"

# ---- 3. two images of one GPT disk, one with new GUIDs ----
a=$(mkdisk ca 64M 512 'label: gpt\nfirst-lba: 34
start=34,size=2000,name=a\nstart=2047,size=5000,name=b')
cp --sparse=always "$T_TMP/ca.img" "$T_TMP/cb.img"
b=$(loop_attach "$T_TMP/cb.img" 512)
sgdisk -G "$b" >/dev/null
partx -a "$b" 2>/dev/null || partx -u "$b"
suma0=$(dev_sum "$a")
sumb0=$(dev_sum "$b")
ida=$(ident_of "$a")
idb=$(ident_of "$b")
[ "$ida" != "$idb" ] || fail "sgdisk -G kept the disk GUID"
sfd_layout "$a" >"$T_TMP/a-layout"
pa_fix "$a"
expect_rc 1 "clone a: fix"
bka=$(backup_of "$a")
pa_fix "$b"
expect_rc 1 "clone b: fix"
bkb=$(backup_of "$b")
assert_eq "$ida" "$(ident_of "$a")" "a fix in place keeps the disk GUID"
grep -qx "label $ida" "$bka" || fail "backup of a: label line: $(grep -a '^label' "$bka")"
# the partitions' unique GUIDs, as sfdisk saw them before the fix
while read -r num _ _ _ uuid _; do
	grep -qx "part $num $uuid" "$bka" || fail "backup of a: no 'part $num $uuid'"
done <"$T_TMP/a-layout"
[ "$(grep -ac '^part ' "$bka")" = 2 ] || fail "backup of a: not two part lines"
dd if="$a" of="$T_TMP/a-fixed.img" bs=1M conv=sparse status=none
dd if="$b" of="$T_TMP/b-fixed.img" bs=1M conv=sparse status=none

# a's old backup GPT (the tail region) moved 8 MiB down, into the data area
tail_line=$(grep -a '^region ' "$bka" | tail -n1)
tail_off=${tail_line#region }
tail_off=${tail_off%% *}
[ "$tail_off" -gt 60000000 ] || fail "the last region is not at the end of the disk: $tail_line"
python3 - "$bka" "$T_TMP/a-moved.pt" "$tail_off" <<'EOF'
import sys
d = open(sys.argv[1], "rb").read()
old = b"\nregion %s " % sys.argv[3].encode()
new = b"\nregion %d " % (int(sys.argv[3]) - 8388608)
assert len(old) == len(new) and d.count(old) == 1
open(sys.argv[2], "wb").write(d.replace(old, new))
EOF
refuse "a changed region line (GPT)" "$a" "$T_TMP/a-moved.pt" "damaged"
"${PTEDIT[@]}" reseal "$T_TMP/a-moved.pt" "$T_TMP/a-moved-sealed.pt"
refuse "the tail region moved 8 MiB down, checksum valid" "$a" "$T_TMP/a-moved-sealed.pt" \
	"refused: the backup has a region at byte $((tail_off - 8388608)) that is no label sector of its table"

refuse "a's backup on b" "$b" "$bka" "refused: the backup is of the table $ida, this disk has $idb"
refuse "b's backup on a" "$a" "$bkb" "refused: the backup is of the table $idb, this disk has $ida"
refuse "a's backup on b, --force" "$b" "$bka" "this disk has $idb" --force
# the same device id: b's content on a's disk, and a's on b's
dd if="$T_TMP/b-fixed.img" of="$a" bs=1M conv=fsync status=none
refuse "a's backup on a disk holding b" "$a" "$bka" \
	"refused: the backup is of the table $ida, this disk has $idb"
dd if="$T_TMP/a-fixed.img" of="$b" bs=1M conv=fsync status=none
refuse "b's backup on b's disk holding a" "$b" "$bkb" \
	"refused: the backup is of the table $idb, this disk has $ida"
# a disk in the middle of a data move (the marker of core/marker.h by hand:
# partition 1 of the move type, named after the move id) takes no backup
sgdisk -t 1:DB991ED2-F649-406F-B0F6-8BE79B36CD64 -c "1:partalign-move 00000000c0ffee42" \
	"$b" >/dev/null
assert_eq "$ida" "$(ident_of "$b")" "the marker keeps the disk GUID"
refuse "a disk with an unfinished data move" "$b" "$bka" \
	"refused: an unfinished data move (move id 00000000c0ffee42) is recorded on the disk: finish it with 'partalign resume $b'"
dd if="$T_TMP/a-fixed.img" of="$b" bs=1M conv=fsync status=none
# a byte-identical copy is told apart only by its device id (format 1 too)
refuse "a's backup on b holding a's content" "$b" "$bka" \
	"refused: the backup is of $(file_id ca), this disk is $(file_id cb) (its label $ida matches"
"${PTEDIT[@]}" to-v1 "$bka" "$T_TMP/a-v1.pt"
refuse "a's format-1 backup on b holding a's content" "$b" "$T_TMP/a-v1.pt" \
	"refused: the backup is of $(file_id ca), this disk is $(file_id cb)"
# each takes its own
dd if="$T_TMP/a-fixed.img" of="$a" bs=1M conv=fsync status=none
dd if="$T_TMP/b-fixed.img" of="$b" bs=1M conv=fsync status=none
restore_ok "a's own backup" "$a" "$bka" "$suma0"
restore_ok "b's own backup" "$b" "$bkb" "$sumb0"

# ---- 4. the node replaced while restore (and fix) wait for the lock ----
# lock_swap NAME PARTALIGN-ARGS...: in a private mount namespace hold a's
# lock (flock(1), as udev does), run partalign ARGS... on a, wait until it
# holds a descriptor of a (its lock fd: it has scanned and waits), bind b's
# node over a's path and release the lock.  It must refuse (exit 8), naming
# both major:minor numbers, and change neither disk.
lock_swap() {
	local name=$1 suma sumb was now waiting rc
	shift
	suma=$(dev_sum "$a")
	sumb=$(dev_sum "$b")
	was=$(cat "/sys/block/${a#/dev/}/dev")
	now=$(cat "/sys/block/${b#/dev/}/dev")
	rm -rf "$B2" "$T_TMP/locked" "$T_TMP/release"
	unshare -m --propagation private bash -s "$a" "$b" "$T_TMP" "$PARTALIGN" "$@" <<'EOF'
set -u
a=$1 b=$2 t=$3 pa=$4
shift 4
flock "$a" -c "touch '$t/locked'; while [ ! -e '$t/release' ]; do sleep 0.05; done" &
fl=$!
for i in $(seq 1 100); do [ -e "$t/locked" ] && break; sleep 0.05; done
rc=0
"$pa" "$@" "$a" >"$t/out" 2>"$t/err" </dev/null &
rp=$!
# holds a descriptor of a in two looks 0.3 s apart: past the scan, in the wait
holds() {
	local f
	for f in /proc/$rp/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = "$a" ] && return 0
	done
	return 1
}
waiting=0
for i in $(seq 1 100); do
	if holds && sleep 0.3 && holds; then
		waiting=1
		break
	fi
	sleep 0.05
done
[ $waiting = 1 ] && mount --bind "$b" "$a"
touch "$t/release"
wait $rp || rc=$?
wait $fl
mountpoint -q "$a" && umount "$a"
echo "$waiting $rc" >"$t/lockcase"
EOF
	read -r waiting rc <"$T_TMP/lockcase"
	assert_eq 1 "$waiting" "$name: it never waited for the lock holding a descriptor of $a"
	PA_RC=$rc
	expect_rc 8 "$name: the node replaced during the lock wait"
	grep -qF "refused: $a changed while waiting for its lock (was $was, now $now)" \
		"$T_TMP/err" || fail "$name: lock wait: stderr: $(cat "$T_TMP/err")"
	assert_eq "$suma" "$(dev_sum "$a")" "$name: a after the refusal"
	assert_eq "$sumb" "$(dev_sum "$b")" "$name: b after the refusal"
	[ ! -e "$B2" ] || [ -z "$(ls -A "$B2")" ] || fail "$name: a refused run saved a backup"
	echo "ok: refused: $name: the node replaced during the lock wait ($was -> $now)"
}

# a holds its old, misaligned table again: fix would write
lock_swap fix fix --yes --backup-dir "$B2"
pa_fix "$a"
expect_rc 1 "clone a: fix again"
lock_swap restore restore --yes --backup-dir "$B2" "$(backup_of "$a")"
