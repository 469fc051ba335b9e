#!/bin/bash
# check without --probe reads a disk's move marker from udev's database.
# udev's blkid builtin writes a GPT partition name as blkid_encode_string()
# gives it, the space of "partalign-move <id>" as "\x20"; check must decode
# it, or it reports the move without its id and cannot match the marker to
# a journal.  Two partitions carry the marker; the warning names the first
# by number.  A third, unmoved, is named "my data": check's PARTLABEL shows
# it decoded.  A dos disk records the id's low 32 bits as its signature,
# which udev's partition UUID "<signature>-<number>" starts with: check
# names those 8 digits.  udev's own entries come from `udevadm test`, in a
# private mount and PID namespace with a tmpfs on /run and /dev, so the
# host's database and /dev are never touched.  The disk's table is read by
# sfdisk.
. "${top_srcdir:-.}/tests/lib/common.sh"
need_no_sanitizers "the fault shim tests/move/faultshim.so"
. "$top_srcdir/tests/move/lib.sh"

need_shim
need_cmd udevadm unshare
MOVE_TYPE=DB991ED2-F649-406F-B0F6-8BE79B36CD64
GPT='label: gpt\nfirst-lba: 34\nstart=63, size=40960, name=data\nstart=43008, size=8192, name=more\nstart=53248, size=8192, name="my data"'
DOS='label: dos\nstart=63, size=40960, type=83\nstart=43008, size=8192, type=83\nstart=53248, size=8192, type=83'

# ns_pa "DISKS" ARGS...: in a namespace of its own, udev's entries for DISKS
# and their partitions (udevadm test), then partalign ARGS, as run_pa
ns_pa() {
	local disks=$1 n d
	shift
	{
		echo 'set -euo pipefail'
		echo 'mount -t tmpfs -o mode=0755 partalign-run /run'
		echo 'mount -t tmpfs -o mode=0755 partalign-dev /dev'
		echo 'mknod -m 0666 /dev/null c 1 3'
		for d in $disks; do
			for n in "/sys/class/block/${d#/dev/}" "/sys/class/block/${d#/dev/}/${d#/dev/}"p*; do
				echo "mknod -m 0660 /dev/${n##*/} b $(tr ':' ' ' <"$n/dev")"
				echo "udevadm test --action=add $n >'$T_TMP/utest-${n##*/}.out' 2>&1"
				echo "cp /run/udev/data/b$(cat "$n/dev") '$T_TMP/db-${n##*/}'"
			done
		done
		echo 'rc=0'
		printf '%q ' "$PARTALIGN" "$@"
		echo ">'$T_TMP/out' 2>'$T_TMP/err' </dev/null || rc=\$?"
		echo "echo \$rc >'$T_TMP/rc'"
	} >"$T_TMP/ns.sh"
	unshare -m -p -f --mount-proc --propagation private bash "$T_TMP/ns.sh" ||
		fail "the namespace script failed: $(tail -5 "$T_TMP"/utest-*.out 2>/dev/null)"
	PA_RC=$(cat "$T_TMP/rc")
}

# one_case NAME TABLE: kill a move of partitions 1 and 2, then check
# through udev's database, then plan of the unmarked disk beside its
# marked copy
one_case() {
	local name=$1 table=$2 dev jf mid id d twin s1 s2
	echo "# $name"
	rm -rf "$J" "$T_TMP/empty" && mkdir -p "$J" "$T_TMP/empty"
	dev=$(mkdisk "udevdb-$name" 64M 512 "$table")
	fill_raw "$dev" 1
	snapshot "$dev" "$T_TMP/seed.snap"
	FS_JOURNAL="$J" FS_AT=40 FS_MODE=kill LD_PRELOAD="$SHIM" PARTALIGN_MOVE_CHUNK=65536 \
		pa_move "$dev"
	expect_rc 137 "the killed move"
	after_crash "$dev"
	jf=$(find "$J" -name '*.journal')
	[ -n "$jf" ] || fail "the killed move left no journal"
	mid=${jf%.journal}
	mid=${mid##*-}
	d=${dev#/dev/}
	sfdisk -d "$dev" >"$T_TMP/dump" || fail "sfdisk -d $dev"
	if [ "$name" = gpt ]; then
		id=$mid
		[ "$(grep -ci "type=$MOVE_TYPE.*name=\"partalign-move $mid\"" "$T_TMP/dump")" = 2 ] ||
			fail "the killed move did not mark partitions 1 and 2 with move $mid: $(cat "$T_TMP/dump")"
	else
		id=${mid: -8}
		grep -qi "^label-id: 0x$id\$" "$T_TMP/dump" &&
			[ "$(grep -c 'type=7f' "$T_TMP/dump")" = 2 ] ||
			fail "the killed move did not mark the dos disk with move $mid: $(cat "$T_TMP/dump")"
	fi
	# the journal out of reach: only the disk (through udev) tells of the move
	PARTALIGN_JOURNAL="$T_TMP/empty" ns_pa "$dev" check -o NAME,PARTLABEL "$dev"

	# the case this test is for: udev's entry holds the marker and the id
	if [ "$name" = gpt ]; then
		grep -qi "^E:ID_PART_ENTRY_TYPE=$MOVE_TYPE\$" "$T_TMP/db-${d}p1" ||
			fail "udev's entry of ${d}p1 lacks the marker type: $(cat "$T_TMP/db-${d}p1")"
		grep -qF 'E:ID_PART_ENTRY_NAME=partalign-move\x20'"$mid" "$T_TMP/db-${d}p1" ||
			fail "udev's entry of ${d}p1 has no encoded marker name: $(cat "$T_TMP/db-${d}p1")"
	else
		grep -qx "E:ID_PART_ENTRY_TYPE=0x7f" "$T_TMP/db-${d}p1" &&
			grep -qx "E:ID_PART_ENTRY_UUID=$id-01" "$T_TMP/db-${d}p1" ||
			fail "udev's entry of ${d}p1 lacks the dos marker: $(cat "$T_TMP/db-${d}p1")"
	fi
	expect_rc 4 "check through udev's database"
	expect_err "$dev: an unfinished data move $id is recorded on the disk (partition 1)" \
		"check through udev's database"
	if [ "$name" = gpt ]; then
		grep -q '\\x' "$T_TMP/out" && fail "check shows udev's encoding: $(cat "$T_TMP/out")"
		grep -qE "^${d}p3 +my data *\$" "$T_TMP/out" ||
			fail "check does not show partition 3's name 'my data': $(cat "$T_TMP/out")"
	fi

	# plan of the first disk names the copy, whose marker it knows from
	# udev's database alone; nothing is written to either
	snapshot "$dev" "$T_TMP/twin.img"
	twin=$(loop_attach "$T_TMP/twin.img" 512)
	partx -a "$twin" 2>/dev/null || partx -u "$twin"
	restore_snapshot "$dev" "$T_TMP/seed.snap"
	s1=$(disk_sum "$dev")
	s2=$(disk_sum "$twin")
	ns_pa "$dev $twin" plan "$dev"
	expect_err "$dev: the move journal $jf (move $mid) is not this disk's: $twin, a copy of it, carries that move" \
		"plan of the unmarked disk"
	unchanged "$dev" "$s1" "plan of the unmarked disk"
	unchanged "$twin" "$s2" "plan of the unmarked disk"
	[ -f "$jf" ] || fail "plan of the unmarked disk: the journal is gone"
}

one_case gpt "$GPT"
one_case dos "$DOS"
echo "PASS"
