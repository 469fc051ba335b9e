#!/bin/bash
# What an admin sees in an 80x24 terminal: check and plan run in a tmux pane
# of 80 columns and are read back with capture-pane -J (which joins a wrapped
# line, so a line longer than 80 columns shows as one).  Each partition's row
# on one line, no line over 80 columns, the start as its logical sector (63s
# on a 512-byte disk and on a 4096-byte one), the verdicts the arithmetic on
# sysfs gives.  Piped, the same commands keep their columns and bytes.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/integration/helpers.sh"

. "$top_srcdir/tests/lib/term.sh"

# term NAME ARGS...: term_pane with standard error in $T_TMP/NAME.err; no
# line of the screen over 80 columns
term() {
	local name=$1 a
	shift
	term_pane "$name" file "$@"
	a=$(awk 'length > 80' "$T_TMP/$name.screen")
	[ -z "$a" ] || fail "$name: lines over 80 columns:
$a
the screen:
$(cat "$T_TMP/$name.screen")"
}

words() { awk '{ $1 = $1; print }'; }

# Disk A, 512-byte sectors: p1 at sector 63 (the seed's case), p2 at 100 MiB.
# Disk B, 4096-byte sectors: p1 at sector 63 (258048 bytes, 504 in sysfs's
# 512-byte units), p2 at 16 MiB.
A=$(mkdisk a 256M 512 'label: dos\nstart=63, size=100000\nstart=204800, size=200000')
B=$(mkdisk b 64M 4096 'label: dos\nstart=63, size=2000\nstart=4096, size=4096')
for d in "$A" "$B"; do
	[ -n "$(sysfs_parts "$d")" ] || fail "no partitions on $d"
done

# expected row of partition P of disk D: "NAME SECTORs PHYSICAL OPTIMAL POLICY"
# from sysfs alone
want_row() {
	local d=$1 p=$2 lbs start pg opt pol phys optv
	lbs=$(qattr "$d" logical_block_size)
	start=$(($(cat "/sys/block/${d#/dev/}/$p/start") * 512))
	pg=$(phys_grain "$d")
	opt=$(qattr "$d" optimal_io_size)
	phys=ok
	[ $((start % pg)) = 0 ] || phys=misaligned
	optv=n/a
	if [ "$opt" != 0 ]; then
		optv=ok
		[ $((start % opt)) = 0 ] || optv=misaligned
	fi
	pol=ok
	[ $((start % 2097152)) = 0 ] || pol=misaligned
	echo "$p $((start / lbs))s $phys $optv $pol"
}

for d in "$A" "$B"; do
	disk=${d#/dev/}
	term "check-$disk" check "$d"
	assert_eq 4 "$T_RC" "check $d on a terminal: exit status"
	[ ! -s "$T_TMP/check-$disk.err" ] || fail "check $d: stderr: $(cat "$T_TMP/check-$disk.err")"
	scr=$T_TMP/check-$disk.screen
	assert_eq "NAME START SIZE PHYSICAL OPTIMAL POLICY REASON" "$(head -1 "$scr" | words)" \
		"check $d: heading on the terminal"
	nparts=0
	for p in $(sysfs_parts "$d"); do
		nparts=$((nparts + 1))
		want=$(want_row "$d" "$p")
		[ "$(grep -c "^$p " "$scr")" = 1 ] || fail "check $d: $p is not on exactly one line:
$(cat "$scr")"
		got=$(awk -v p="$p" '$1 == p { print $1, $2, $4, $5, $6 }' "$scr")
		assert_eq "$want" "$got" "check $d: the row of $p"
		awk -v p="$p" '$1 == p && $3 ~ /^[0-9.]+[KMGT]$/ { ok = 1 } END { exit !ok }' "$scr" ||
			fail "check $d: size of $p: $(grep "^$p " "$scr")"
		# the reason explains the misaligned verdict first
		case $want in
		*misaligned) grep -q "^$p .* misaligned policy: " "$scr" ||
			fail "check $d: reason of $p: $(grep "^$p " "$scr")" ;;
		esac
	done
	assert_eq $((nparts + 1)) "$(wc -l <"$scr")" "check $d: lines on the terminal"

	# piped: the columns it always had, START in bytes, the reason in full
	run_pa "$T_TMP/pipe" "$T_TMP/err" check "$d"
	expect_rc 4 "check $d | cat"
	assert_eq "NAME TYPE START SIZE LOG-SEC PHY-SEC MIN-IO OPT-IO ALIGNMENT PHYSICAL OPTIMAL POLICY REASON" \
		"$(head -1 "$T_TMP/pipe" | words)" "check $d | cat: heading"
	for p in $(sysfs_parts "$d"); do
		assert_eq "$(($(cat "/sys/block/$disk/$p/start") * 512))" \
			"$(awk -v p="$p" '$1 == p { print $3 }' "$T_TMP/pipe")" "check $d | cat: START of $p"
	done
	# the reason in full, the failing verdict's clause first as on the terminal
	grep -q ' misaligned policy: [^;]*; optimal: the device reports no optimal I/O size$' "$T_TMP/pipe" ||
		fail "check $d | cat: the reason is not in full, its failing clause first: $(cat "$T_TMP/pipe")"
	# the same order in every format: JSON, pairs
	run_pa "$T_TMP/json" "$T_TMP/err" check --json "$d"
	p=$(sysfs_parts "$d" | head -n1)
	case $(json_get "$p" reason <"$T_TMP/json") in
	"policy: "*"; optimal: the device reports no optimal I/O size") ;;
	*) fail "check --json $d: reason of $p: $(json_get "$p" reason <"$T_TMP/json")" ;;
	esac
	run_pa "$T_TMP/pairs" "$T_TMP/err" check --pairs -o NAME,REASON "$d"
	grep -q "^NAME=\"$p\" REASON=\"policy: [^;]*; optimal: " "$T_TMP/pairs" ||
		fail "check --pairs $d: $(cat "$T_TMP/pairs")"
	# JSON: start in bytes as before, start-sec in logical sectors
	run_pa "$T_TMP/json" "$T_TMP/err" check --json "$d"
	lbs=$(qattr "$d" logical_block_size)
	for p in $(sysfs_parts "$d"); do
		s512=$(cat "/sys/block/$disk/$p/start")
		assert_eq "$((s512 * 512)) $((s512 * 512 / lbs)) $p" \
			"$(json_get "$p" start <"$T_TMP/json") $(json_get "$p" start-sec <"$T_TMP/json") $(json_get "$p" kname <"$T_TMP/json")" \
			"check --json $d: start, start-sec, kname of $p"
	done
done

# -t: the topology columns, still within 80 columns
term topo check -t "$A"
assert_eq "NAME START LOG-SEC PHY-SEC MIN-IO OPT-IO ALIGNMENT ALIGN-CALC" \
	"$(head -1 "$T_TMP/topo.screen" | words)" "check -t: heading"
p=$(sysfs_parts "$A" | head -1)
assert_eq "$p 63s $(qattr "$A" logical_block_size) $(qattr "$A" physical_block_size) $(qattr "$A" minimum_io_size) $(qattr "$A" optimal_io_size) $(cat "/sys/block/${A#/dev/}/$p/alignment_offset")" \
	"$(awk -v p="$p" '$1 == p { print $1, $2, $3, $4, $5, $6, $7 }' "$T_TMP/topo.screen")" "check -t: $p"
# --bytes: the start in bytes on the terminal too
term bytes check --bytes -o NAME,START "$B"
p=$(sysfs_parts "$B" | head -1)
assert_eq "$p $(($(cat "/sys/block/${B#/dev/}/$p/start") * 512))" \
	"$(awk -v p="$p" '$1 == p { print $1, $2 }' "$T_TMP/bytes.screen")" "check --bytes on a terminal"

# plan: dos becomes GPT; p1 (at 63) moves to the first 2 MiB boundary, p2
# (at 100 MiB, on the grain and clear of p1's new place) stays; the label
# change, which a BIOS-booted disk or one shared with another OS cannot
# take, is said on a line of its own below the table
LABEL_NOTE="$A: dos -> GPT: BIOS boot and dos-only OSes fail (--label keep)"
term plan plan "$A"
assert_eq 4 "$T_RC" "plan on a terminal: exit status"
assert_eq "DISK NUM NAME ACTION OLD-START OLD-SIZE NEW-START NEW-SIZE DESTROYS" \
	"$(head -1 "$T_TMP/plan.screen" | words)" "plan: heading on the terminal"
assert_eq 4 "$(wc -l <"$T_TMP/plan.screen")" "plan: lines on the terminal"
assert_eq "$LABEL_NOTE" "$(tail -n1 "$T_TMP/plan.screen")" "plan: the label change"
# --label keep: the table stays dos, nothing to say
term plankeep plan --label keep "$A"
assert_eq 3 "$(wc -l <"$T_TMP/plankeep.screen")" "plan --label keep: lines on the terminal"
! grep -q GPT "$T_TMP/plankeep.screen" || fail "plan --label keep: $(cat "$T_TMP/plankeep.screen")"
lbs=$(qattr "$A" logical_block_size)
p1=$(sysfs_parts "$A" | sed -n 1p)
p2=$(sysfs_parts "$A" | sed -n 2p)
s1=$(cat "/sys/block/${A#/dev/}/$p1/start")
s2=$(cat "/sys/block/${A#/dev/}/$p2/start")
assert_eq "$A 1 recreate ${s1}s $((2097152 / lbs))s" \
	"$(awk -v d="$A" '$1 == d && $2 == 1 { print $1, $2, $3, $4, $6 }' "$T_TMP/plan.screen")" "plan: row of partition 1"
assert_eq "$A 2 keep ${s2}s ${s2}s" \
	"$(awk -v d="$A" '$1 == d && $2 == 2 { print $1, $2, $3, $4, $6 }' "$T_TMP/plan.screen")" "plan: row of partition 2"
run_pa "$T_TMP/pipe" "$T_TMP/err" plan "$A"
assert_eq "DISK NUM NAME ACTION OLD-START OLD-SIZE NEW-START NEW-SIZE OLD-PHYS OLD-POLICY NEW-PHYS NEW-POLICY DESTROYS REFUSED" \
	"$(head -1 "$T_TMP/pipe" | words)" "plan | cat: heading"
assert_eq "$A 1 recreate $((s1 * 512)) 2097152" \
	"$(awk -v d="$A" '$1 == d && $2 == 1 { print $1, $2, $3, $4, $6 }' "$T_TMP/pipe")" "plan | cat: partition 1 in bytes"
assert_eq "$LABEL_NOTE" "$(tail -n1 "$T_TMP/pipe")" "plan | cat: the label change"
run_pa "$T_TMP/pipe" "$T_TMP/err" plan --json "$A"
assert_eq "dos->gpt" "$(jq -r '[.plan[].label] | unique | join(" ")' "$T_TMP/pipe")" "plan --json: label"

# a refusal, which the terminal table has no column for, is said in full on
# stderr: a GPT partition filling the disk has no room to move forward
F=$(mkdisk full 64M 512 'label: gpt\nfirst-lba: 34\nstart=34, size=131005')
mkdir -p "$T_TMP/journal"
term refused plan --move-data --journal "$T_TMP/journal" "$F"
assert_eq 4 "$T_RC" "plan of a refused disk: exit status"
assert_eq "partalign: warning: $F: fix would refuse it: no room to move partition 1 to an aligned start: grow the LUN by 2.0 MiB (2079744 bytes)" \
	"$(cat "$T_TMP/refused.err")" "plan of a refused disk: stderr"
grep -q "^$F  *1  *move  *34s " "$T_TMP/refused.screen" ||
	fail "plan of a refused disk: $(cat "$T_TMP/refused.screen")"
echo "PASS: check and plan fit an 80-column terminal, starts in sectors; pipes unchanged"
