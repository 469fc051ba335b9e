#!/bin/bash
# partalign-collect brings the Oracle ASM header blocks: in a root of
# nothing but busybox (tree and --send) and under dash, on loop devices
# whose ASM headers the test writes from the public kfed layout -- a disk
# group on 512- and 4096-byte sectors, a whole-disk member with a dos table
# written over its header, a header whose backup disagrees -- and a GPT disk
# without ASM.  udev's database entries are real (udevadm test in the
# namespace): udev's own probe calls the ASM devices oracleasm.  The
# collection holds the first block and the backup of exactly those devices
# (asm/MAJ:MIN, byte for byte what partalign dump --asm saves, and the bytes
# od reads from the devices), none of the disk udev calls something else;
# check --asm --sysroot of it gives the rows and the exit status of the live
# check --asm; --no-asm opens no device and check --asm says the collection
# has no blocks.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/integration/helpers.sh"
. "$top_srcdir/tests/collect/lib.sh"
need_cmd udevadm dash gzip base64 od

HDR="$top_srcdir/tests/lib/asm-header.py"
mkimg() { # NAME SIZE -> path
	truncate -s "$2" "$T_TMP/$1.img"
	echo "$T_TMP/$1.img"
}
i0=$(mkimg d0 64M)
i1=$(mkimg d1 64M)
i2=$(mkimg redo 64M)
i3=$(mkimg ocr 32M)
python3 "$HDR" "$i0" --group DATA --disk DATA_0000 --num 0 --dsksize 64 --label DATA1
python3 "$HDR" "$i1" --group DATA --disk DATA_0001 --num 1 --dsksize 64
python3 "$HDR" "$i2" --group REDO --disk REDO_0000 --dsksize 64
python3 "$HDR" "$i3" --group OCR --disk OCR_0000 --dsksize 16 --backup-set dskname=OCR_0001
d0=$(loop_attach "$i0" 512)
d1=$(loop_attach "$i1" 4096)
d2=$(loop_attach "$i2" 512)
printf 'label: dos\nstart=2048, size=20480\n' | sfdisk -q --no-reread --no-tell-kernel "$d2" >/dev/null
d3=$(loop_attach "$i3" 512)
plain=$(mkdisk plain 32M 512 'label: gpt\nstart=2048, size=20480')
asm=("$d0" "$d1" "$d2" "$d3")
mine=()
for d in "${asm[@]}" "$plain"; do
	mine+=("${d#/dev/}")
done
mine+=("${plain#/dev/}p1")

root=$T_TMP/bbroot
bb_root "$root"
{
	ns_udev "${mine[@]}"
	printf 'cp -r /run/udev/data %q\n' "$T_TMP/udevdb"
	printf '%q check --asm --json %s >%q 2>%q || echo $? >%q\n' "$PARTALIGN" "${asm[*]} $plain" \
		"$T_TMP/live.json" "$T_TMP/live.err" "$T_TMP/live.rc"
	printf '%q dump --asm %q >%q 2>&1\n' "$PARTALIGN" "$T_TMP/dump" "$T_TMP/dump.err"
	bb_binds "$root" /sys /proc /dev /run/udev
	printf 'chroot %q /bin/sh /collect/partalign-collect /out/tree >%q 2>&1\n' "$root" "$T_TMP/bb.log"
	printf 'chroot %q /bin/sh /collect/partalign-collect --send >%q 2>%q\n' "$root" \
		"$T_TMP/send.out" "$T_TMP/send.err"
	printf 'chroot %q /bin/sh /collect/partalign-collect --no-asm /out/noasm >%q 2>&1\n' "$root" \
		"$T_TMP/noasm.log"
	printf 'dash %q %q >%q 2>&1\n' "$COLLECT" "$T_TMP/tree-dash" "$T_TMP/dash.log"
} >"$T_TMP/ns.sh"
ns_run "$T_TMP/ns.sh" 2>"$T_TMP/ns.err" ||
	fail "the namespace script failed (exit $?): $(cat "$T_TMP/ns.err" "$T_TMP"/*.log 2>/dev/null)"
live_rc=$(cat "$T_TMP/live.rc" 2>/dev/null || echo 0)

# udev's own probe calls the ASM devices oracleasm, the GPT disk not
for d in "${asm[@]}"; do
	grep -qx 'E:ID_FS_TYPE=oracleasm' "$T_TMP/udevdb/b$(cat "/sys/class/block/${d#/dev/}/dev")" ||
		fail "$d: udev's entry does not say oracleasm"
done
grep -q 'E:ID_FS_TYPE=oracleasm' "$T_TMP/udevdb/b$(cat "/sys/class/block/${plain#/dev/}/dev")" &&
	fail "$plain: udev says oracleasm"
assert_eq 32 "$live_rc" "the live check --asm: exit status ($(cat "$T_TMP/live.err"))"
python3 "$UNPACK" "$T_TMP/tree-send" "$T_TMP/send.out" 2>"$T_TMP/unpack.err" ||
	fail "partalign-unpack of --send: $(cat "$T_TMP/unpack.err")"
trees=("$root/out/tree" "$T_TMP/tree-send" "$T_TMP/tree-dash")
echo "ok: collected (busybox tree and stream, dash); udev calls the ASM devices oracleasm"

# the blocks: those of the ASM devices, the device's bytes, as dump --asm saves them
hexof() { # DEV OFFSET LENGTH
	od -An -v -tx1 -j "$2" -N "$3" "$1" | tr -s ' \n' ' '
}
for t in "${trees[@]}"; do
	grep -qx 'asm-headers [0-9]* devices read' "$t/partalign-dump" ||
		fail "$t: partalign-dump: $(cat "$t/partalign-dump")"
	for d in "${asm[@]}"; do
		f=$t/asm/$(cat "/sys/class/block/${d#/dev/}/dev")
		[ -f "$f" ] || fail "$t: no asm/ file for $d"
		cmp "$f" "$T_TMP/dump/asm/${f##*/}" || fail "$f: not what partalign dump --asm saved"
		assert_eq "$(hexof "$d" 0 4096)" "$(sed -n '3,258p' "$f" | tr -s ' \n' ' ')" \
			"$f: the first block"
		assert_eq "block 2088960 4096" "$(sed -n 259p "$f")" "$f: the backup's place"
		assert_eq "$(hexof "$d" 2088960 4096)" "$(sed -n '260,515p' "$f" | tr -s ' \n' ' ')" \
			"$f: the backup block"
	done
	f=$t/asm/$(cat "/sys/class/block/${plain#/dev/}/dev")
	[ ! -e "$f" ] || fail "$t: the GPT disk udev does not call oracleasm was read"
done
echo "ok: the collections hold the first block and the backup of the ASM devices only"

# check --asm --sysroot: the live rows and exit status
jq -S '.devices | sort_by(.name)' "$T_TMP/live.json" >"$T_TMP/live.rows"
[ "$(jq length "$T_TMP/live.rows")" = 4 ] || fail "the live check --asm: $(cat "$T_TMP/live.rows")"
for t in "${trees[@]}"; do
	run_pa "$T_TMP/sr.json" "$T_TMP/sr.err" check --asm --json --sysroot "$t" "${asm[@]}" "$plain"
	assert_eq "$live_rc" "$PA_RC" "check --asm --sysroot $t: exit status ($(cat "$T_TMP/sr.err"))"
	jq -S '.devices | sort_by(.name)' "$T_TMP/sr.json" >"$T_TMP/sr.rows"
	diff -u "$T_TMP/live.rows" "$T_TMP/sr.rows" >&2 ||
		fail "check --asm --sysroot $t: the rows differ from the live check's"
done
jq -e '.[] | select(.reason | contains("a dos partition table is written over the header of disk REDO_0000"))' \
	"$T_TMP/live.rows" >/dev/null || fail "no table-over-header finding: $(cat "$T_TMP/live.rows")"
echo "ok: check --asm --sysroot of each collection: the live rows, exit $live_rc"

# --no-asm: no block read, and check says so
[ ! -e "$root/out/noasm/asm" ] || fail "--no-asm: an asm/ directory"
grep -qx 'asm-headers not read (--no-asm)' "$root/out/noasm/partalign-dump" ||
	fail "--no-asm: $(cat "$root/out/noasm/partalign-dump")"
run_pa "$T_TMP/sr.json" "$T_TMP/sr.err" check --asm --sysroot "$root/out/noasm" "$d0"
grep -q 'holds no ASM header blocks' "$T_TMP/sr.err" || fail "--no-asm: $(cat "$T_TMP/sr.err")"
echo "ok: --no-asm reads no device; check --asm says the collection has no blocks"

# a read that never ends (dd blocked on a FIFO no one writes, as on a dead
# path): given up after the time limit, under dash and busybox's sh
sed -n '/^asm_read() {/,/^}/p' "$COLLECT" >"$T_TMP/asm_read.sh"
[ -s "$T_TMP/asm_read.sh" ] || fail "no asm_read in $COLLECT"
mkfifo "$T_TMP/dead"
for sh in dash "$(collect_busybox) sh"; do
	t0=$(date +%s%N)
	# shellcheck disable=SC2016
	got=$($sh -c '. "$1"; asm_timeout=1; asm_read "$2" 0 4096; printf "[%s]" "$hex"' sh \
		"$T_TMP/asm_read.sh" "$T_TMP/dead")
	ms=$((($(date +%s%N) - t0) / 1000000))
	assert_eq "[]" "$got" "$sh: asm_read of a FIFO no one writes"
	[ "$ms" -ge 900 ] && [ "$ms" -lt 3000 ] || fail "$sh: asm_read gave up after $ms ms, not 1 s"
	# let the blocked dd go: a writer (a read-write open never blocks) that
	# closes at once
	exec 5<>"$T_TMP/dead"
	exec 5>&-
done
echo "ok: a read that never ends is given up after the time limit (dash, busybox sh)"
