#!/bin/bash
# Names in the admin's locale.  GPT partition names with non-ASCII
# characters (café, 日本, set with sgdisk -c and read back with sgdisk -i),
# under a UTF-8 locale (C.UTF-8, which every glibc has):
#   plan shows them (the table and --json); fix's table on a terminal (a pty,
#     answered y) too, and after the fix both names are on the disk as they
#     were (sgdisk -i) with partition 1 on the grain (sfdisk);
#   fix --new --name 日本 writes that name (sgdisk -i);
#   a --name the locale cannot convert (in the C locale) is refused (16),
#     not written as an empty name; one of 37 characters is refused, one of
#     36 three-byte characters is not;
#   under a locale with a decimal comma and its own messages (de_DE.UTF-8,
#     made with localedef into a directory of the test), sizes keep their
#     decimal point (48.8M) and the messages stay as documented (English).
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd python3 localedef
PROMPT="$top_srcdir/tests/lib/at-prompt.py"
UTF=C.UTF-8
locale -a | grep -qiE '^c\.utf-?8$' || skip "no C.UTF-8 locale"

# name_of DEV NUM: the partition's GPT name as sgdisk reads it
name_of() {
	sgdisk -i "$2" "$1" | sed -n "s/^Partition name: '\(.*\)'\$/\1/p"
}

echo "# plan and fix of a disk whose partitions are named café and 日本"
d=$(mkdisk names 64M 512 'label: gpt\nfirst-lba: 34\nstart=34, size=20480\nstart=40960, size=8192')
sgdisk -c 1:café -c 2:日本 "$d" >/dev/null
assert_eq "café" "$(name_of "$d" 1)" "setup: the name of partition 1"
assert_eq "日本" "$(name_of "$d" 2)" "setup: the name of partition 2"
kernel_reload "$d"

PA_RC=0
LC_ALL=$UTF "$PARTALIGN" plan --json "$d" >"$T_TMP/out" 2>"$T_TMP/err" || PA_RC=$?
expect_rc 4 "plan --json under $UTF"
assert_eq "1 café
2 日本" "$(jq -r '.plan[] | "\(.num) \(.name)"' "$T_TMP/out")" "plan --json: the names"
PA_RC=0
LC_ALL=$UTF "$PARTALIGN" plan "$d" >"$T_TMP/out" 2>"$T_TMP/err" || PA_RC=$?
expect_rc 4 "plan under $UTF"
awk -v d="$d" '$1 == d && $2 == 1 && $3 == "café" { ok = 1 } END { exit !ok }' "$T_TMP/out" ||
	fail "plan: the name of partition 1: $(cat "$T_TMP/out")"
awk -v d="$d" '$1 == d && $2 == 2 && $3 == "日本" { ok = 1 } END { exit !ok }' "$T_TMP/out" ||
	fail "plan: the name of partition 2: $(cat "$T_TMP/out")"

PA_RC=0
LC_ALL=$UTF python3 "$PROMPT" "$T_TMP/tty" y true -- "$PARTALIGN" fix --backup-dir "$BK" "$d" || PA_RC=$?
expect_rc 1 "fix under $UTF"
grep -q "^$d  *1 café  *recreate " "$T_TMP/tty" || fail "fix's table: $(cat "$T_TMP/tty")"
grep -q "^$d  *2 日本  *keep " "$T_TMP/tty" || fail "fix's table: $(cat "$T_TMP/tty")"
assert_eq "café" "$(name_of "$d" 1)" "the name of partition 1 after fix"
assert_eq "日本" "$(name_of "$d" 2)" "the name of partition 2 after fix"
assert_eq 4096 "$(sfdisk --json "$d" | jq '.partitiontable.partitions[0].start')" \
	"partition 1 after fix"
sgdisk_ok "$d"
echo "ok: café and 日本 shown by plan and fix, kept on the disk"

echo "# fix --new --name 日本"
n=$(mkdisk new 64M 512)
PA_RC=0
LC_ALL=$UTF "$PARTALIGN" fix --new --name 日本 --yes --backup-dir "$BK" "$n" \
	>"$T_TMP/out" 2>"$T_TMP/err" || PA_RC=$?
expect_rc 1 "fix --new --name 日本"
assert_eq "日本" "$(name_of "$n" 1)" "the name fix --new wrote"
grep -q "^$n  *1 日本  *create " "$T_TMP/out" || fail "fix --new's table: $(cat "$T_TMP/out")"
# a name the locale cannot convert: refused, not written empty
n2=$(mkdisk new2 64M 512)
sum=$(dev_sum "$n2")
run_pa "$T_TMP/out" "$T_TMP/err" fix --new --name 日本 --yes --backup-dir "$BK" "$n2"
expect_rc 16 "fix --new --name 日本 in the C locale"
grep -qF -- "--name: not valid in this locale's character set" "$T_TMP/err" ||
	fail "--name in the C locale: $(cat "$T_TMP/err")"
assert_eq "$sum" "$(dev_sum "$n2")" "the disk after a refused --name"
# GPT holds 36 characters, whatever their bytes
long=$(printf '日%.0s' $(seq 1 36))
PA_RC=0
LC_ALL=$UTF "$PARTALIGN" plan --new --name "$long" "$n2" >"$T_TMP/out" 2>"$T_TMP/err" || PA_RC=$?
expect_rc 4 "plan --new --name of 36 characters (108 bytes)"
PA_RC=0
LC_ALL=$UTF "$PARTALIGN" plan --new --name "${long}x" "$n2" >"$T_TMP/out" 2>"$T_TMP/err" || PA_RC=$?
expect_rc 16 "plan --new --name of 37 characters"
grep -qF -- "--name: at most 36 characters (GPT)" "$T_TMP/err" || fail "37 characters: $(cat "$T_TMP/err")"
echo "ok: --name in the locale's characters, 36 at most"

echo "# a locale with a decimal comma: numbers and messages as documented"
[ -e /usr/share/i18n/locales/de_DE ] || skip "no de_DE locale source (package locales)"
mkdir -p "$T_TMP/loc"
localedef -i de_DE -f UTF-8 "$T_TMP/loc/de_DE.UTF-8" >/dev/null 2>&1 || true
[ -f "$T_TMP/loc/de_DE.UTF-8/LC_NUMERIC" ] || skip "localedef made no de_DE.UTF-8"
# the shell's printf in that locale: a comma, so the locale works
assert_eq "1,5" "$(LOCPATH=$T_TMP/loc LC_ALL=de_DE.UTF-8 /usr/bin/printf '%.1f' 1.5)" \
	"setup: de_DE's decimal comma"
m=$(mkdisk sizes 128M 512 'label: gpt\nfirst-lba: 34\nstart=34, size=100000')
PA_RC=0
LOCPATH=$T_TMP/loc LC_ALL=de_DE.UTF-8 "$PARTALIGN" plan "$m" /dev/partalign-missing-$$ \
	>"$T_TMP/out" 2>"$T_TMP/err" || PA_RC=$?
expect_rc 12 "plan under de_DE.UTF-8"
awk -v d="$m" '$1 == d && $2 == 1 && $5 == "48.8M" { ok = 1 } END { exit !ok }' "$T_TMP/out" ||
	fail "plan under de_DE.UTF-8: the size: $(cat "$T_TMP/out")"
grep -qF "/dev/partalign-missing-$$: cannot open: No such file or directory" "$T_TMP/err" ||
	fail "plan under de_DE.UTF-8: the message: $(cat "$T_TMP/err")"
echo "ok: 48.8M and English messages under de_DE.UTF-8"
echo "PASS: names in the admin's locale"
