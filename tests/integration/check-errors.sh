#!/bin/bash
# partalign check: operational and usage errors, one line on stderr each,
# and the exit bits OR-ed over all the devices named.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/integration/helpers.sh"

# expect_one_line ERRFILE PATTERN MESSAGE: exactly one line, matching PATTERN
expect_one_line() {
	local n
	n=$(wc -l <"$1")
	[ "$n" = 1 ] || fail "$3: $n lines on stderr, expected 1: $(cat "$1")"
	grep -q -- "$2" "$1" || fail "$3: stderr '$(cat "$1")' does not match '$2'"
}

out=$T_TMP/out
err=$T_TMP/err
missing=/dev/partalign-test-missing-$$

# A missing device: one line naming it, exit 8, nothing on stdout but headings.
run_pa "$out" "$err" check "$missing"
expect_rc 8 "missing device"
expect_one_line "$err" "$missing" "missing device"
run_pa "$out" "$err" check --json "$missing"
expect_rc 8 "missing device, --json"
expect_one_line "$err" "$missing" "missing device, --json"
[ ! -s "$out" ] || [ "$(jq '.devices | length' "$out")" = 0 ] ||
	fail "missing device: rows on stdout: $(cat "$out")"

# A regular file is not a block device.
touch "$T_TMP/regular"
run_pa "$out" "$err" check "$T_TMP/regular"
expect_rc 8 "regular file"
expect_one_line "$err" "not a block device" "regular file"
grep -q -- "$T_TMP/regular" "$err" || fail "regular file: path not named: $(cat "$err")"

# Usage errors: exit 16, before any device is looked at.
run_pa "$out" "$err" check --no-such-option
expect_rc 16 "unknown option"
[ -s "$err" ] || fail "unknown option: nothing on stderr"
[ ! -s "$out" ] || fail "unknown option: output on stdout: $(cat "$out")"
run_pa "$out" "$err" check -o NAME,NO-SUCH-COLUMN
expect_rc 16 "unknown column"
expect_one_line "$err" "NO-SUCH-COLUMN" "unknown column"
run_pa "$out" "$err" check -o +NO-SUCH-COLUMN
expect_rc 16 "unknown column appended"
expect_one_line "$err" "NO-SUCH-COLUMN" "unknown column appended"

# --align refusals: a bare number, zero, and a size that is no whole number
# of 512-byte sectors.
for a in 2048 0MiB 3B 1.5MiB MiB -1MiB 2XiB; do
	run_pa "$out" "$err" check --align "$a"
	expect_rc 16 "--align $a"
	expect_one_line "$err" "$a" "--align $a"
	[ ! -s "$out" ] || fail "--align $a: output on stdout"
done

# Good and bad devices together: the bits are OR-ed.
bad=$(mkdisk bad 16M 512 'label: gpt\nfirst-lba: 34\nstart=34,size=2048')
good=$(mkdisk good 16M 512 'label: gpt\nstart=4096,size=4096')
run_pa "$out" "$err" check --json "$bad" "$missing"
expect_rc 12 "misaligned + missing"
expect_one_line "$err" "$missing" "misaligned + missing"
assert_eq "${bad#/dev/}p1" "$(jq -r '.devices[].name' "$out")" "misaligned + missing: rows"
run_pa "$out" "$err" check --json "$missing" "$good"
expect_rc 8 "missing + aligned"
assert_eq "${good#/dev/}p1" "$(jq -r '.devices[].name' "$out")" "missing + aligned: rows"
run_pa "$out" "$err" check "$good" "$T_TMP/regular" "$bad"
expect_rc 12 "aligned + regular file + misaligned"
# a usage error wins before any device is read
run_pa "$out" "$err" check --align 0MiB "$bad" "$missing"
expect_rc 16 "bad --align with devices"
echo "ok"
