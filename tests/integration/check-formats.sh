#!/bin/bash
# partalign check output formats: table, --pairs, --raw, -n, -o, -o +LIST,
# --list-columns and the JSON keys and types of the contract.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/integration/helpers.sh"

out=$T_TMP/out
err=$T_TMP/err
# p1 at 1 MiB (misses the default 2 MiB grain), p2 at 2 MiB; a bare disk.
dev=$(mkdisk fmt 64M 512 'label: gpt
start=2048,size=2048,name="first part"\nstart=4096,size=4096,name=data')
bare=$(mkdisk bare 8M 4096)
disk=${dev#/dev/}
p1=${disk}p1
p2=${disk}p2
[ -e "/sys/block/$disk/$p2" ] || fail "partitions not added"
start1=$(($(cat "/sys/block/$disk/$p1/start") * 512))
start2=$(($(cat "/sys/block/$disk/$p2/start") * 512))
assert_eq 1048576 "$start1" "sysfs start of p1"
assert_eq 2097152 "$start2" "sysfs start of p2"

# each line with its blanks squeezed; words: all lines on one line
norm() { awk '{ $1 = $1; print }'; }
words() { norm | paste -sd' '; }

# --list-columns: one column a line, name then help text.
run_pa "$out" "$err" check --list-columns
expect_rc 0 "--list-columns"
awk 'NF < 2 { exit 1 }' "$out" || fail "--list-columns: a column without help text"
mapfile -t cols < <(awk '{ print $1 }' "$out")
[ "${#cols[@]}" -ge 20 ] || fail "--list-columns: only ${#cols[@]} columns"
[ "$(printf '%s\n' "${cols[@]}" | sort | uniq -d)" = "" ] || fail "--list-columns: duplicates"
for c in NAME PATH DISK TYPE START SIZE LOG-SEC PHY-SEC MIN-IO OPT-IO ALIGNMENT \
	PHYSICAL OPTIMAL POLICY REASON WWN SERIAL FSTYPE MOUNTPOINTS HOLDERS TABLE \
	PARTLABEL PARTUUID; do
	printf '%s\n' "${cols[@]}" | grep -x -- "$c" >/dev/null || fail "--list-columns: no $c"
done
all=$(
	IFS=,
	echo "${cols[*]}"
)

# Every listed column is accepted by -o, in the order given, in every format.
run_pa "$out" "$err" check -r -o "$all" "$dev"
expect_rc 4 "-r -o all"
assert_eq "${cols[*]}" "$(head -1 "$out")" "-r -o all: header"
assert_eq 3 "$(wc -l <"$out")" "-r -o all: lines"
run_pa "$out" "$err" check -J -o "$all" "$dev" "$bare"
expect_rc 4 "-J -o all"
want=$(printf '%s\n' "${cols[@]}" | tr '[:upper:]' '[:lower:]' | tr '\n' ' ')
for n in "$p1" "$p2" "${bare#/dev/}"; do
	assert_eq "$want" "$(jq -r --arg n "$n" \
		'.devices[] | select(.name == $n) | keys_unsorted[]' "$out" | tr '\n' ' ')" \
		"-J -o all: keys of $n"
done

# The JSON contract: keys present for every row, numbers as JSON numbers.
run_pa "$out" "$err" check --json "$dev" "$bare"
expect_rc 4 "--json"
assert_eq 3 "$(jq '.devices | length' "$out")" "--json: rows"
jq -e '.devices | all(has("name") and has("path") and has("disk") and has("start") and
	has("log-sec") and has("phy-sec") and has("min-io") and has("opt-io") and
	has("alignment") and has("physical") and has("optimal") and has("policy") and
	has("reason"))' "$out" >/dev/null || fail "--json: a contract key is missing"
jq -e '.devices | all((.start, ."log-sec", ."phy-sec", ."min-io", ."opt-io", .alignment,
	.size) | type == "number")' "$out" >/dev/null || fail "--json: a number is not a number"
jq -e '.devices | all((.name, .path, .disk, .physical, .optimal, .policy) |
	type == "string")' "$out" >/dev/null || fail "--json: a string is not a string"
jq -e '.devices | all((.physical, .optimal, .policy) | IN("ok", "misaligned", "n/a"))' \
	"$out" >/dev/null || fail "--json: a verdict outside ok, misaligned, n/a"
assert_eq "$start1 misaligned" "$(json_get "$p1" start <"$out") $(json_get "$p1" policy <"$out")" \
	"--json p1"
assert_eq "$start2 ok" "$(json_get "$p2" start <"$out") $(json_get "$p2" policy <"$out")" \
	"--json p2"

# Rows: whole devices in natural name order (loop2 before loop10), whatever
# the order on the command line; partitions after their disk by number.
run_pa "$out" "$err" check -r -n -o NAME "$bare" "$dev"
want=$(printf '%s\n' "${bare#/dev/}" "$disk" | sort -V | sed "s/^$disk\$/$p1 $p2/" | words)
assert_eq "$want" "$(words <"$out")" "row order"
# Any path to the node will do: it is resolved by device number.
ln -s "$dev" "$T_TMP/link"
run_pa "$out" "$err" check -r -n -o NAME "$T_TMP/link"
expect_rc 4 "a symlink to the disk"
assert_eq "$p1 $p2" "$(words <"$out")" "a symlink to the disk"

# Default table: fixed headings, one row per partition.
run_pa "$out" "$err" check "$dev"
expect_rc 4 "table"
hdr=$(head -1 "$out" | words)
[[ $hdr == NAME\ * ]] || fail "table header does not start with NAME: $hdr"
[[ $hdr == *\ REASON ]] || fail "table header does not end with REASON: $hdr"
for c in START LOG-SEC PHY-SEC MIN-IO OPT-IO ALIGNMENT PHYSICAL OPTIMAL POLICY; do
	[[ " $hdr " == *" $c "* ]] || fail "table header without $c: $hdr"
done
assert_eq "$p1 $p2" "$(tail -n +2 "$out" | awk '{ print $1 }' | words)" "table rows"
# -b: SIZE in bytes
run_pa "$out" "$err" check -b -o NAME,SIZE "$dev"
assert_eq "$p1 $(($(cat "/sys/block/$disk/$p1/size") * 512))" \
	"$(sed -n 2p "$out" | words)" "-b size"

# -n: no headings.
run_pa "$out" "$err" check -n "$dev"
assert_eq 2 "$(wc -l <"$out")" "-n: lines"
grep -q '^NAME' "$out" && fail "-n: headings printed"
run_pa "$out" "$err" check -n -r -o NAME "$dev"
assert_eq "$p1 $p2" "$(words <"$out")" "-n -r -o NAME"

# -o LIST: exactly those columns; -o +LIST: appended to the defaults.
run_pa "$out" "$err" check -o NAME,PHYSICAL "$dev"
assert_eq "NAME PHYSICAL|$p1 ok|$p2 ok" "$(norm <"$out" | paste -sd'|')" "-o NAME,PHYSICAL"
run_pa "$out" "$err" check -o physical,name "$dev"
assert_eq "PHYSICAL NAME" "$(head -1 "$out" | words)" "-o is case-insensitive and ordered"
run_pa "$out" "$err" check -o +WWN "$dev"
assert_eq "$hdr WWN" "$(head -1 "$out" | words)" "-o +WWN"
# the raw defaults have both already: +LIST adds a column once, never again
run_pa "$out" "$err" check -o +WWN,PATH -r "$dev"
run_pa "$T_TMP/out2" "$err" check -r "$dev"
assert_eq "$(head -1 "$T_TMP/out2")" "$(head -1 "$out")" "-o +WWN,PATH"
[ "$(head -1 "$out" | words | tr ' ' '\n' | grep -cxE 'WWN|PATH')" = 2 ] ||
	fail "-o +WWN,PATH: $(head -1 "$out")"

# --raw: one line per row, fields separated by single spaces, blanks escaped.
run_pa "$out" "$err" check -r -o NAME,START,POLICY "$dev"
assert_eq "NAME START POLICY|$p1 $start1 misaligned|$p2 $start2 ok" \
	"$(paste -sd'|' "$out")" "--raw"
run_pa "$out" "$err" check -r -o NAME,REASON,POLICY,PARTLABEL "$dev"
awk 'NR > 1 && NF != 3 && NF != 4 { exit 1 }' "$out" || fail "--raw: unescaped blank: $(cat "$out")"
grep -q "^$p1 .*policy.*misaligned" "$out" || fail "--raw: reason of p1: $(cat "$out")"

# --pairs: KEY="value", keys usable as shell variable names.
run_pa "$out" "$err" check -P -o "$all" "$dev"
expect_rc 4 "--pairs"
assert_eq 2 "$(wc -l <"$out")" "--pairs: lines"
while read -r line; do
	rest=$line
	while [ -n "$rest" ]; do
		[[ $rest =~ ^([A-Za-z_][A-Za-z0-9_]*)=\"([^\"\\]|\\.)*\"(\ |$) ]] ||
			fail "--pairs: not KEY=\"value\" at: $rest"
		rest=${rest:${#BASH_REMATCH[0]}}
	done
done <"$out"
line=$(sed -n 1p "$out")
lsec=$(qattr "$dev" logical_block_size)
majmin=$(cat "/sys/block/$disk/$p1/dev")
(
	# the row sets PATH too (as lsblk --pairs does): compute before eval
	set -u
	eval "$line"
	[ "$NAME" = "$p1" ] && [ "$START" = "$start1" ] && [ "$LOG_SEC" = "$lsec" ] &&
		[ "$MAJ_MIN" = "$majmin" ] && [ "$POLICY" = misaligned ] &&
		[ "$PATH" = "/dev/$p1" ]
) || fail "--pairs: eval of '$line' gives wrong values"
echo ok
