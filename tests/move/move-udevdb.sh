#!/bin/bash
# An unfinished move as check sees it when the journal is out of reach.
# The marker hides the moving partitions (1 and 2) from libblkid, so neither
# udev nor the kernel has them; a GPT disk's entry in udev's database holds
# the marked disk GUID (DB991ED2-F649-406F-<move id>), from which check
# without --probe reads the move and its id, and shows the disk's row and
# its other partition ("my data", udev's "\x20" decoded) as moving.  A dos
# disk's marker is in no udev entry: check --probe reads it from the disk's
# own table and shows the hidden partition at its old start.  Then plan of
# a copy of the disk from before the move names the marked disk as the one
# that carries the journal's move.  udev's own entries come from `udevadm
# test`, in a private mount and PID namespace with a tmpfs on /run and /dev,
# so the host's database and /dev are never touched.  The disk's table is
# read by sfdisk and libblkid.
. "${top_srcdir:-.}/tests/lib/common.sh"
need_no_sanitizers "the fault shim tests/move/faultshim.so"
. "$top_srcdir/tests/move/lib.sh"

need_shim
need_cmd udevadm unshare
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
	if [ "$name" = gpt ]; then
		id=$mid
	else
		id=${mid: -8}
	fi
	# partitions 1 and 2 hidden: no tool that builds the kernel's or udev's
	# view lists them
	hidden_by_marker "$dev" "$mid" 1 2
	# the journal out of reach: only the disk tells of the move
	if [ "$name" = gpt ]; then
		# through udev's database: the disk's entry holds the marked disk GUID
		PARTALIGN_JOURNAL="$T_TMP/empty" ns_pa "$dev" check -o NAME,PARTLABEL,MOVE "$dev"
		grep -qix "E:ID_PART_TABLE_UUID=db991ed2-f649-406f-${mid:0:4}-${mid:4}" "$T_TMP/db-$d" ||
			fail "udev's entry of $d lacks the marked disk GUID: $(cat "$T_TMP/db-$d")"
		[ ! -e "$T_TMP/db-${d}p1" ] && [ ! -e "$T_TMP/db-${d}p2" ] ||
			fail "udev has entries of the moving partitions: $(ls "$T_TMP"/db-*)"
		grep -q '\\x' "$T_TMP/out" && fail "check shows udev's encoding: $(cat "$T_TMP/out")"
		grep -qE "^${d}p3 +my data +unfinished *\$" "$T_TMP/out" ||
			fail "check does not show partition 3 ('my data') of the moving disk: $(cat "$T_TMP/out")"
	else
		# a dos marker is in no udev entry: the disk's own table (--probe)
		PARTALIGN_JOURNAL="$T_TMP/empty" ns_pa "$dev" check --probe -o NAME,START,MOVE "$dev"
		grep -qE "^${d}p1 +32256 +unfinished *\$" "$T_TMP/out" ||
			fail "check --probe does not show the hidden partition 1: $(cat "$T_TMP/out")"
	fi
	expect_rc 4 "check of the moving disk"
	expect_err "$dev: an unfinished data move $id is recorded on the disk" \
		"check of the moving disk"
	grep -qE "^$d +(.+ +)?unfinished *\$" "$T_TMP/out" ||
		fail "check has no row of the disk saying the move: $(cat "$T_TMP/out")"

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
