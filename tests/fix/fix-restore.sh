#!/bin/bash
# Backup + restore round trip.  fix saves the label sectors it is about to
# write; restore writes them back.  Since fix (without --discard-data)
# writes only label sectors, after restore the WHOLE device must equal the
# device before the fix, and the kernel's partitions (sysfs) the old ones.
# restore refuses (exit 8, device untouched): a disk of another identity (a
# copy of the image on another loop device: same size, same content), the
# same disk grown to another size, a damaged backup file; no --yes without a
# tty is a usage error (16).  A second restore is a no-op (exit 0).  GPT and
# dos on 512-byte sectors, GPT on 4Kn.  Without its arguments restore says
# which one is missing, as fix does ("no device given"), and exits 16.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"

# A missing argument is named on the first line of stderr; exit 16.
missing_arg() {
	local want=$1
	shift
	run_pa "$T_TMP/out" "$T_TMP/err" restore "$@"
	expect_rc 16 "restore $*"
	assert_eq "partalign: $want" "$(head -n1 "$T_TMP/err")" "restore $*: the first line"
	[ ! -s "$T_TMP/out" ] || fail "restore $*: stdout: $(cat "$T_TMP/out")"
}
missing_arg "no backup file given"
missing_arg "no backup file given" --yes
missing_arg "no device given" --yes "$T_TMP/some.pt"
missing_arg "unexpected argument 'extra' (restore takes FILE DEVICE)" --yes "$T_TMP/some.pt" /dev/null extra
echo "ok: restore without its arguments names the one missing"

# round_trip NAME SECTOR SFDISK_SCRIPT
round_trip() {
	local name=$1 bs=$2 script=$3 dev img sum0 sfd0 sys0 head0 tail0 backup n copy sum
	local size nsec
	dev=$(mkdisk "$name" 64M "$bs" "$script")
	img="$T_TMP/$name.img"
	rm -rf "$BK" "$T_TMP/bk2"
	nsec=$(($(blockdev --getsize64 "$dev") / bs))
	sum0=$(dev_sum "$dev")
	sfd0=$(sfdisk -d "$dev")
	sys0=$(sysfs_layout "$dev")
	# GPT label sectors on a 512-byte disk: the first 34 and the last 33
	head0=$(dd if="$dev" bs="$bs" count=34 status=none | sha256sum)
	tail0=$(dd if="$dev" bs="$bs" skip=$((nsec - 33)) status=none | sha256sum)

	pa_fix "$dev"
	expect_rc 1 "$name: fix"
	backup=$(sed -n "s|^$dev: table saved to ||p" "$T_TMP/out")
	[ -f "$backup" ] || fail "$name: no backup file named: $(cat "$T_TMP/out")"
	n=$(find "$BK" -name '*.pt' | wc -l)
	assert_eq 1 "$n" "$name: backup files"
	assert_eq "$BK" "$(dirname "$backup")" "$name: backup directory"
	assert_eq "partalign-backup 2" "$(head -n1 "$backup")" "$name: backup magic"
	grep -qx "size $(blockdev --getsize64 "$dev")" "$backup" || fail "$name: backup size line"
	[ "$(dev_sum "$dev")" != "$sum0" ] || fail "$name: fix changed nothing"
	sum=$(dev_sum "$dev")

	# refusals first; each leaves the disk as the fix left it
	run_pa "$T_TMP/out" "$T_TMP/err" restore --backup-dir "$T_TMP/bk2" "$backup" "$dev"
	expect_rc 16 "$name: restore without --yes, no tty"

	cp --sparse=always "$img" "$T_TMP/$name-copy.img"
	copy=$(loop_attach "$T_TMP/$name-copy.img" "$bs")
	local csum
	csum=$(dev_sum "$copy")
	run_pa "$T_TMP/out" "$T_TMP/err" restore --yes --backup-dir "$T_TMP/bk2" "$backup" "$copy"
	expect_rc 8 "$name: restore to another disk of the same size"
	grep -q "refused: the backup is of file:" "$T_TMP/err" || fail "$name: $(cat "$T_TMP/err")"
	assert_eq "$csum" "$(dev_sum "$copy")" "$name: the other disk after a refused restore"

	size=$(stat -c %s "$img")
	truncate -s $((size + 1048576)) "$img"
	losetup -c "$dev"
	run_pa "$T_TMP/out" "$T_TMP/err" restore --yes --backup-dir "$T_TMP/bk2" "$backup" "$dev"
	expect_rc 8 "$name: restore to the disk grown by 1 MiB"
	grep -q "refused: the backup is of a $size-byte disk" "$T_TMP/err" ||
		fail "$name: $(cat "$T_TMP/err")"
	truncate -s "$size" "$img"
	losetup -c "$dev"
	assert_eq "$sum" "$(dev_sum "$dev")" "$name: disk after the refused restore"

	cp "$backup" "$T_TMP/damaged.pt"
	printf '\x5a' | dd of="$T_TMP/damaged.pt" bs=1 seek=$(($(stat -c %s "$backup") - 100)) \
		conv=notrunc status=none
	run_pa "$T_TMP/out" "$T_TMP/err" restore --yes --backup-dir "$T_TMP/bk2" \
		"$T_TMP/damaged.pt" "$dev"
	expect_rc 8 "$name: restore of a damaged backup"
	grep -q "damaged" "$T_TMP/err" || fail "$name: $(cat "$T_TMP/err")"
	assert_eq "$sum" "$(dev_sum "$dev")" "$name: disk after the damaged restore"

	# the round trip
	run_pa "$T_TMP/out" "$T_TMP/err" restore --yes --backup-dir "$T_TMP/bk2" "$backup" "$dev"
	expect_rc 1 "$name: restore"
	grep -q "$dev: restored" "$T_TMP/out" || fail "$name: restore: $(cat "$T_TMP/out")"
	assert_eq "$head0" "$(dd if="$dev" bs="$bs" count=34 status=none | sha256sum)" \
		"$name: first 34 sectors"
	assert_eq "$tail0" "$(dd if="$dev" bs="$bs" skip=$((nsec - 33)) status=none | sha256sum)" \
		"$name: last 33 sectors"
	assert_eq "$sum0" "$(dev_sum "$dev")" "$name: whole device after restore"
	assert_eq "$sfd0" "$(sfdisk -d "$dev")" "$name: sfdisk -d after restore"
	assert_eq "$sys0" "$(sysfs_layout "$dev")" "$name: kernel partitions after restore"
	[ "$(find "$T_TMP/bk2" -name '*.pt' | wc -l)" = 1 ] ||
		fail "$name: restore saved no backup of the table it replaced"

	run_pa "$T_TMP/out" "$T_TMP/err" restore --yes --backup-dir "$T_TMP/bk2" "$backup" "$dev"
	expect_rc 0 "$name: second restore"
	assert_eq "$sum0" "$(dev_sum "$dev")" "$name: whole device after the second restore"
	echo "ok: $name: fix, restore, byte-identical; refusals exit 8"
}

round_trip gpt 512 'label: gpt\nfirst-lba: 34
start=34,size=2000,name=a\nstart=2047,size=5000,name=b,attrs="GUID:60"
start=9000,size=3000,type=E6D6D379-F507-44C2-A23C-238F2A3DF928'
# dos with an extended partition: the MBR and every EBR come back
round_trip dos 512 'label: dos
start=63,size=2000,type=83\nstart=4095,size=20000,type=5
start=4200,size=3000,type=8e\nstart=8000,size=3000,type=83'
# 4Kn: the label identity and the label sectors in 4096-byte units
round_trip gpt4k 4096 'label: gpt\nfirst-lba: 6
start=6,size=2000,name=a\nstart=2047,size=3000,name=b'
