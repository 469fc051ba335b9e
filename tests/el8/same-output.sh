#!/bin/bash
# The output contract does not depend on the library: this build, made as on
# EL8 (tests/el8/config.site: libsmartcols cannot type --json values there,
# output.c writes the document), prints byte for byte what a reference build
# on the newer libsmartcols prints (PARTALIGN_REF, whose --json the library
# writes; tests/run-all gives it), with the same exit status and messages:
# check and plan in the table, --json (every column too), --pairs and --raw,
# on loop devices (GPT with odd partition names, dos, 4096-byte sectors, a
# bare device, Oracle ASM headers for check --asm and plan's ASM advice)
# and on every dump of tests/data.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/integration/helpers.sh"
need_cmd tar gzip cmp diff sgdisk python3

ref=${PARTALIGN_REF:-}
[ -n "$ref" ] && [ -x "$ref" ] ||
	skip "PARTALIGN_REF names no reference partalign (make check-el8 PARTALIGN_REF=...)"
[ "$(readlink -f "$ref")" != "$(readlink -f "$PARTALIGN")" ] ||
	fail "PARTALIGN_REF is this build's own partalign"
grep -q '^#define HAVE_DECL_SCOLS_JSON_ARRAY_STRING 0' "$top_builddir/config.h" ||
	fail "this build's libsmartcols writes --json: not the build made as on EL8"
grep -q '^#define HAVE_SCOLS_COLUMN_SET_JSON_TYPE 1' "$(dirname "$ref")/config.h" ||
	fail "$ref: not a build whose libsmartcols types --json"

n=0
# same ARGS...: both builds, the same stdout, stderr and exit status
same() {
	local rc_ref=0 rc=0
	"$ref" "$@" >"$T_TMP/ref.out" 2>"$T_TMP/ref.err" || rc_ref=$?
	"$PARTALIGN" "$@" >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
	if ! cmp -s "$T_TMP/ref.out" "$T_TMP/out"; then
		diff -u "$T_TMP/ref.out" "$T_TMP/out" | head -40 >&2
		fail "partalign $*: stdout differs from the reference build's"
	fi
	cmp -s "$T_TMP/ref.err" "$T_TMP/err" ||
		fail "partalign $*: stderr '$(cat "$T_TMP/err")', reference '$(cat "$T_TMP/ref.err")'"
	[ "$rc" = "$rc_ref" ] || fail "partalign $*: exit status $rc, reference $rc_ref"
	[ "$1" = --list-columns ] || [ -s "$T_TMP/out" ] || [ "$rc" != 0 ] ||
		fail "partalign $*: printed nothing"
	n=$((n + 1))
}

# names with a blank, a backslash, a dollar, UTF-8 and a quote (sgdisk:
# sfdisk takes no quote), which libblkid reads with --probe; a misaligned
# and an aligned start
g512=$(mkdisk g512 64M 512 'label: gpt\nfirst-lba: 34
start=63,size=1985,name="first part"\nstart=2048,size=2048,name="a\\\\b $d"
start=4096,size=4096,name="caf\xc3\xa9"')
sgdisk -c 1:'say "hi"' "$g512" >/dev/null
d512=$(mkdisk d512 32M 512 'label: dos
start=63,size=1985\nstart=2048,size=4096')
g4k=$(mkdisk g4k 64M 4096 'label: gpt\nfirst-lba: 6
start=7,size=249\nstart=256,size=255')
bare=$(mkdisk bare 8M 512)
for d in "$g512" "$d512" "$g4k"; do
	[ "$(sysfs_parts "$d" | wc -l)" -ge 2 ] || fail "$d: partitions did not reach the kernel"
done
devs=("$g512" "$d512" "$g4k" "$bare")
# ASM: a member with an ASMLib label on 4096-byte sectors under a 512-byte
# header (a finding), one in a partition off the grain (plan's advice)
asm1=$(mkdisk asm1 32M 4096)
python3 "$top_srcdir/tests/lib/asm-header.py" "$asm1" --group DATA --disk DATA_0001 --num 1 \
	--label 'DATA1' --dsksize 16
asm2=$(mkdisk asm2 64M 512 'label: gpt\nstart=2049,size=20480')
[ "$(sysfs_parts "$asm2" | wc -l)" = 1 ] || fail "$asm2: its partition did not reach the kernel"
python3 "$top_srcdir/tests/lib/asm-header.py" "$asm2" --at $((2049 * 512)) --group DATA \
	--disk DATA_0002 --num 2 --dsksize 8

all=$("$PARTALIGN" check --list-columns | awk '{ print $1 }' | paste -sd, -)
same check --list-columns
for fmt in "" -r -P -J "-n -r" "-b" "-t"; do
	# shellcheck disable=SC2086 # the format's options, word by word
	same check $fmt "${devs[@]}"
	# shellcheck disable=SC2086
	same check $fmt -o "$all" "${devs[@]}"
	# shellcheck disable=SC2086
	same check $fmt --probe -o "$all" "${devs[@]}"
	# shellcheck disable=SC2086
	same check $fmt --asm "$asm1" "$asm2" "$bare"
	# shellcheck disable=SC2086
	same check $fmt --asm -o "$all" "$asm1" "$asm2"
done
same check -J -o NAME,START "$g512"
same check -J /dev/null
same check -J -o NOSUCH "$g512"

# every dump of real kernels, every device in it
for t in "$top_srcdir"/tests/data/*.tar.gz; do
	d=$T_TMP/dump-$(basename "$t" .tar.gz)
	mkdir "$d"
	tar -xzf "$t" -C "$d"
	for fmt in "" -r -P -J; do
		# shellcheck disable=SC2086
		same check $fmt --sysroot "$d"
		# shellcheck disable=SC2086
		same check $fmt -o "$all" --sysroot "$d"
	done
done

# plan: a disk to change, one that needs nothing, and the empty plan
pall=$("$PARTALIGN" plan --list-columns | awk '{ print $1 }' | paste -sd, -)
for fmt in "" -r -P -J; do
	# shellcheck disable=SC2086
	same plan $fmt --backup-dir "$T_TMP/backup" "$g512" "$d512" "$g4k"
	# shellcheck disable=SC2086
	same plan $fmt -o "$pall" --backup-dir "$T_TMP/backup" "$g512" "$d512"
	# shellcheck disable=SC2086
	same plan $fmt --backup-dir "$T_TMP/backup" "$bare"
	# shellcheck disable=SC2086
	same plan $fmt -o "$pall" --backup-dir "$T_TMP/backup" "$asm2"
done
[ ! -e "$T_TMP/backup" ] || [ -z "$(ls -A "$T_TMP/backup")" ] || fail "plan wrote a backup"
echo "ok: $n runs of check and plan: the same bytes and exit status as $ref"
