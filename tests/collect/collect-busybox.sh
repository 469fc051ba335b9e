#!/bin/bash
# partalign-collect on real loop devices, run where nothing but busybox is
# (a root of busybox-static with the host's /sys, /proc, /dev and /run/udev
# bound read-only into it), and under dash with the host's own commands:
# `partalign check --sysroot` of every collection gives exactly the rows of
# the live check (every column) for the test's devices -- GPT and dos on
# 512-byte sectors with aligned and misaligned starts, GPT on a 4Kn device
# (losetup -b 4096), a whole device without a table -- and the tree is the
# one `partalign dump` writes, file for file and link for link.  The tree as
# a stream (--send, gzip'd and plain) comes back equal through
# partalign-unpack (ansible/).  udev's database entries are real (udevadm
# test, in the namespace, on a tmpfs /run and /dev).  The collector's lists
# of sysfs files must be the scanner's.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/integration/helpers.sh"
. "$top_srcdir/tests/collect/lib.sh"
need_cmd udevadm dash gzip base64

# 1. The lists of files the scanner reads, as the script has them
c_list() {
	sed -n "/^const char \*const $2\[\] = {/,/NULL/p" "$top_srcdir/$1" |
		grep -o '"[^"]*"' | tr -d '"' | sort | tr '\n' ' '
}
s_list() {
	# the two assignments, one after the other in the script
	(eval "$(sed -n "/^sysfs_attrs='/,/^md_member_attrs=/p" "$COLLECT")" &&
		eval "printf '%s\\n' \$$1") | sort | tr '\n' ' '
}
assert_eq "$(c_list src/scan/scan.c scan_sysfs_attrs)" "$(s_list sysfs_attrs)" \
	"the collector's sysfs files (src/scan/scan.c scan_sysfs_attrs)"
assert_eq "$(c_list src/scan/md.c scan_md_member_attrs)" "$(s_list md_member_attrs)" \
	"the collector's md member files (src/scan/md.c scan_md_member_attrs)"
assert_eq "partalign-collect $("$PARTALIGN" --version | cut -d' ' -f2)" \
	"$(sh "$COLLECT" --version)" "the collector's version"
echo "ok: file lists, the version"

# 2. The devices
sysroot_disks
for d in "$g512" "$d512" "$g4k"; do
	while read -r p; do
		mine+=("$p")
	done < <(sysfs_parts "$d")
done
all_cols=$("$PARTALIGN" check --list-columns | awk 'NF { print $1 }' | paste -sd, -)

# 3. In one namespace: udev's entries, the live check, partalign dump, and
# the collector in the busybox root (tree and stream) and under dash (tree,
# and the stream on a PATH without gzip and base64: busybox's sh finds its
# own applets without a PATH)
root=$T_TMP/bbroot
bb_root "$root"
mkdir "$T_TMP/nogz"
for c in ls cat readlink uname; do
	ln -s "$(command -v "$c")" "$T_TMP/nogz/$c"
done
{
	ns_udev "${mine[@]}"
	printf '%q check --json -o %q >%q 2>%q || true\n' "$PARTALIGN" "$all_cols" \
		"$T_TMP/live.json" "$T_TMP/live.err"
	printf '%q dump %q >%q 2>&1\n' "$PARTALIGN" "$T_TMP/dump" "$T_TMP/dump.err"
	bb_binds "$root" /sys /proc /dev /run/udev
	printf 'chroot %q /bin/sh /collect/partalign-collect /out/tree >%q 2>&1\n' "$root" "$T_TMP/bb.log"
	printf 'chroot %q /bin/sh /collect/partalign-collect --send >%q 2>%q\n' "$root" \
		"$T_TMP/send-gz.out" "$T_TMP/send-gz.err"
	printf 'PATH=%q %q %q --send >%q 2>%q\n' "$T_TMP/nogz" "$(command -v dash)" "$COLLECT" \
		"$T_TMP/send-text.out" "$T_TMP/send-text.err"
	printf 'dash %q %q >%q 2>&1\n' "$COLLECT" "$T_TMP/tree-dash" "$T_TMP/dash.log"
} >"$T_TMP/ns.sh"
ns_run "$T_TMP/ns.sh" 2>"$T_TMP/ns.err" ||
	fail "the namespace script failed (exit $?): $(cat "$T_TMP/ns.err" "$T_TMP"/*.log 2>/dev/null)"
grep -q '^E:ID_PART_ENTRY_UUID=' "$T_TMP/dump/run/udev/data/b$(cat "/sys/class/block/${mine[4]}/dev")" ||
	fail "udevadm test made no database entry with a partition UUID for ${mine[4]}"
head -n 1 "$T_TMP/send-gz.out" | grep -qx '@@PARTALIGN-COLLECT BEGIN 1 gzip' ||
	fail "--send with gzip and base64: $(head -c 200 "$T_TMP/send-gz.out")"
head -n 1 "$T_TMP/send-text.out" | grep -qx '@@PARTALIGN-COLLECT BEGIN 1 text' ||
	fail "--send without gzip: $(head -c 200 "$T_TMP/send-text.out")"
for s in gz text; do
	python3 "$UNPACK" "$T_TMP/tree-send-$s" "$T_TMP/send-$s.out" 2>"$T_TMP/unpack-$s.err" ||
		fail "partalign-unpack of --send ($s): exit $?: $(cat "$T_TMP/unpack-$s.err")"
done
trees=("$root/out/tree" "$T_TMP/tree-dash" "$T_TMP/tree-send-gz" "$T_TMP/tree-send-text")
for t in "${trees[@]}"; do
	[ -s "$t/partalign-dump" ] || fail "$t: no collection ($(cat "$T_TMP/bb.log" "$T_TMP/dash.log"))"
	head -n 1 "$t/partalign-dump" | grep -qx "partalign-collect [0-9.]*" ||
		fail "$t: the marker does not name the collector: $(cat "$t/partalign-dump")"
	grep -qx 'udev-database /run/udev/data' "$t/partalign-dump" ||
		fail "$t: the collector did not find udev's database: $(cat "$t/partalign-dump")"
done
echo "ok: collected in the busybox root (tree, --send gzip'd and plain) and under dash"

# 4. The trees are partalign dump's, for the test's devices
for t in "${trees[@]}"; do
	for n in "${mine[@]}"; do
		majmin=$(cat "/sys/class/block/$n/dev")
		assert_eq "$(readlink "$T_TMP/dump/sys/class/block/$n")" "$(readlink "$t/sys/class/block/$n")" \
			"$t: the link sys/class/block/$n"
		assert_eq "$(readlink "$T_TMP/dump/sys/dev/block/$majmin")" \
			"$(readlink "$t/sys/dev/block/$majmin")" "$t: the link sys/dev/block/$majmin"
		real=$(readlink -f "/sys/class/block/$n")
		diff -r --no-dereference "$T_TMP/dump$real" "$t$real" >&2 ||
			fail "$t: ${real#/sys/} differs from partalign dump's"
		cmp "$T_TMP/dump/run/udev/data/b$majmin" "$t/run/udev/data/b$majmin" ||
			fail "$t: udev's entry of $n differs from partalign dump's"
	done
done
echo "ok: the trees hold what partalign dump saves, file for file, for ${#mine[@]} devices"

# 5. check --sysroot of each gives the live rows
for n in "${mine[@]}"; do
	grep -q "/dev/$n:" "$T_TMP/live.err" && fail "the live check: $(cat "$T_TMP/live.err")"
done
rows "$T_TMP/live.json" "${mine[@]}" >"$T_TMP/live.rows"
nrows=$(jq length "$T_TMP/live.rows")
[ "$nrows" -ge 11 ] || fail "the live check shows only $nrows rows of the test's devices"
[ "$(jq '[.[] | select(.policy == "misaligned")] | length' "$T_TMP/live.rows")" -ge 3 ] ||
	fail "fewer than 3 misaligned partitions among the live rows"
jq -e '.[] | select(."log-sec" == 4096)' "$T_TMP/live.rows" >/dev/null || fail "no 4Kn row"
jq -e '.[] | select(.partuuid != null)' "$T_TMP/live.rows" >/dev/null || fail "no row with udev's PARTUUID"
for t in "${trees[@]}"; do
	run_pa "$T_TMP/sr.json" "$T_TMP/sr.err" check --json -o "$all_cols" --sysroot "$t"
	for n in "${mine[@]}"; do
		grep -q "/dev/$n:" "$T_TMP/sr.err" && fail "check --sysroot $t: $(cat "$T_TMP/sr.err")"
	done
	rows "$T_TMP/sr.json" "${mine[@]}" >"$T_TMP/sr.rows"
	diff -u "$T_TMP/live.rows" "$T_TMP/sr.rows" >&2 ||
		fail "check --sysroot $t: the rows differ from the live check's"
	for d in "$g512" "$g4k"; do
		run_pa "$T_TMP/live1" "$T_TMP/live1.err" check --json -o "$all_cols" --sysroot "$T_TMP/dump" "$d"
		live_rc=$PA_RC
		run_pa "$T_TMP/sr1" "$T_TMP/sr1.err" check --json -o "$all_cols" --sysroot "$t" "$d"
		assert_eq "$(jq -S . "$T_TMP/live1")" "$(jq -S . "$T_TMP/sr1")" "check --sysroot $t $d"
		assert_eq "$live_rc" "$PA_RC" "check --sysroot $t $d: exit status"
	done
done
echo "ok: check --sysroot of each collection: the $nrows live rows, every column"

# 6. The collector writes nothing but its directory, which must be new or empty
run_c() {
	PA_RC=0
	dash "$COLLECT" "$@" >"$T_TMP/c.out" 2>"$T_TMP/c.err" || PA_RC=$?
}
echo keep >"$T_TMP/file"
run_c "$T_TMP/file"
expect_rc 8 "partalign-collect onto a file"
grep -q 'not a directory' "$T_TMP/c.err" || fail "onto a file: $(cat "$T_TMP/c.err")"
run_c "$T_TMP/dump"
expect_rc 8 "partalign-collect into a non-empty directory"
grep -q 'is not empty' "$T_TMP/c.err" || fail "into a non-empty directory: $(cat "$T_TMP/c.err")"
assert_eq keep "$(cat "$T_TMP/file")" "the file partalign-collect refused"
run_c
expect_rc 16 "partalign-collect without DIR"
run_c --bogus "$T_TMP/x"
expect_rc 16 "partalign-collect --bogus"
[ ! -e "$T_TMP/x" ] || fail "a usage error made $T_TMP/x"
[ -z "$(find "$root/out/tree" -maxdepth 1 -name '.*')" ] ||
	fail "scratch files left in the tree: $(find "$root/out/tree" -maxdepth 1 -name '.*')"
echo "ok: refusals"

# 7. partalign-unpack trusts nothing that came back: each of these streams
# is refused (exit 2) and leaves nothing behind
bad_stream() { # NAME RECORDS (between the stream's first line and its end)
	{
		echo "ssh banner"
		echo "@@PARTALIGN-COLLECT BEGIN 1 text"
		echo "partalign-collect stream 1"
		printf '%b\n' "$2"
		echo "e 0"
		echo "@@PARTALIGN-COLLECT END"
	} >"$T_TMP/bad-$1.out"
	PA_RC=0
	python3 "$UNPACK" "$T_TMP/bad-$1" "$T_TMP/bad-$1.out" 2>"$T_TMP/bad.err" || PA_RC=$?
	expect_rc 2 "partalign-unpack of a stream with $1 ($(cat "$T_TMP/bad.err"))"
	[ ! -e "$T_TMP/bad-$1" ] || fail "partalign-unpack left $T_TMP/bad-$1 behind ($1)"
}
bad_stream absolute 'f /etc/passwd\n+x'
bad_stream dotdot 'f sys/../../x\n+x'
bad_stream escape 'l sys/class/block/sda\n+../../../../../etc'
bad_stream absolute-link 'l sys/class/block/sda\n+/etc'
bad_stream inner-dotdot 'l sys/class/block/sda\n+../../devices/../../../etc'
bad_stream through-link 'd sys/devices\nl sys/class/block/x\n+../../devices\nf sys/class/block/x/size\n+1'
bad_stream twice 'f proc/swaps\n+a\nf proc/swaps\n+b'
bad_stream unknown 'x what'
bad_stream late-end 'e 0\nf proc/swaps\n+a'
printf '@@PARTALIGN-COLLECT BEGIN 1 text\npartalign-collect stream 1\nd sys\n' >"$T_TMP/cut.out"
PA_RC=0
python3 "$UNPACK" "$T_TMP/cut" "$T_TMP/cut.out" 2>/dev/null || PA_RC=$?
expect_rc 2 "partalign-unpack of a stream cut short"
[ ! -e "$T_TMP/cut" ] || fail "partalign-unpack left a cut stream's tree"
printf '@@PARTALIGN-COLLECT BEGIN 1 gzip\nH4sIAAAA!!\n@@PARTALIGN-COLLECT END\n' >"$T_TMP/gz.out"
PA_RC=0
python3 "$UNPACK" "$T_TMP/gz" "$T_TMP/gz.out" 2>/dev/null || PA_RC=$?
expect_rc 2 "partalign-unpack of broken base64"
# --check (the role's task): check's rows and status on a good stream, 8 on
# a broken one, no temporary directory left either way
mkdir "$T_TMP/tmpdir"
PA_RC=0
TMPDIR=$T_TMP/tmpdir python3 "$UNPACK" --check "$PARTALIGN" -- --json -o "$all_cols" "$g4k" \
	<"$T_TMP/send-gz.out" >"$T_TMP/uc.json" 2>"$T_TMP/uc.err" || PA_RC=$?
uc_rc=$PA_RC
run_pa "$T_TMP/live1" "$T_TMP/live1.err" check --json -o "$all_cols" --sysroot "$T_TMP/dump" "$g4k"
assert_eq "$PA_RC" "$uc_rc" "partalign-unpack --check: exit status ($(cat "$T_TMP/uc.err"))"
[ "$uc_rc" = 4 ] || fail "partalign-unpack --check $g4k: exit $uc_rc, expected 4 (misaligned)"
assert_eq "$(jq -S . "$T_TMP/live1")" "$(jq -S . "$T_TMP/uc.json")" "partalign-unpack --check $g4k"
PA_RC=0
TMPDIR=$T_TMP/tmpdir python3 "$UNPACK" --check "$PARTALIGN" <"$T_TMP/cut.out" >/dev/null 2>&1 || PA_RC=$?
expect_rc 8 "partalign-unpack --check of a stream cut short"
[ -z "$(ls -A "$T_TMP/tmpdir")" ] || fail "partalign-unpack --check left $(ls -A "$T_TMP/tmpdir")"
# a stream that came through a tty (CR LF) is whole
sed 's/$/\r/' "$T_TMP/send-text.out" >"$T_TMP/crlf.out"
python3 "$UNPACK" "$T_TMP/tree-crlf" "$T_TMP/crlf.out" || fail "partalign-unpack of CR LF lines: exit $?"
diff -r --no-dereference "$T_TMP/tree-send-text" "$T_TMP/tree-crlf" >&2 || fail "CR LF changed the tree"
echo "ok: partalign-unpack refuses unsafe or broken streams and reads one through a tty"
