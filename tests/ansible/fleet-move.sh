#!/bin/bash
# The fleet report counts an unfinished data move as a finding beside
# misalignment: host golf's disk was moved with fix --move-data, killed in
# the middle (the fault shim of tests/move), so the marker hides its moving
# partition; check --json says "move": "unfinished" on the disk's row and its
# partitions' rows (its journal, in PARTALIGN_JOURNAL, says where they go).
# The report must list them with 'partalign resume' in their reasons, count
# them on golf's line and in the summary, and still fit 100 columns; host
# hotel, aligned, must not mention a move.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/ansible/lib.sh"

need_root
need_no_sanitizers "the fault shim tests/move/faultshim.so"
need_cmd sfdisk partx losetup
SHIM=$top_builddir/tests/move/faultshim.so
[ -f "$SHIM" ] || skip "no $SHIM (make check builds it)"

collection_install
g1=$(mkdisk g1 32M 512 'label: gpt\nstart=2049, size=16384, name=data\nstart=20480, size=4096, name=keep')
h1=$(mkdisk h1 16M 512 'label: gpt\nstart=4096, size=4096')
head -c 8M /dev/urandom | dd of="${g1}p1" bs=1M conv=fsync status=none
mkdir -p "$T_TMP/j" "$T_TMP/bk"
export PARTALIGN_JOURNAL=$T_TMP/j
rc=0
FS_JOURNAL="$T_TMP/j" FS_AT=40 FS_MODE=kill LD_PRELOAD="$SHIM" PARTALIGN_MOVE_CHUNK=65536 \
	"$PARTALIGN" fix --yes --move-data --quiet --journal "$T_TMP/j" --backup-dir "$T_TMP/bk" \
	"$g1" >/dev/null 2>&1 || rc=$?
[ "$rc" = 137 ] || fail "the move was not killed (exit $rc)"
# independent: sfdisk lists partition 1 with a zero type (hidden), libblkid not at all
sfdisk --json "$g1" | jq -e '.partitiontable.partitions[0].type == "00000000-0000-0000-0000-000000000000"' \
	>/dev/null || fail "partition 1 is not hidden: $(sfdisk -d "$g1")"

cat >"$T_TMP/inventory.yml" <<EOI
all:
  vars:
    ansible_connection: local
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
    partalign_binary: "$PARTALIGN"
  hosts:
    golf:
      partalign_devices: ["$g1"]
    hotel:
      partalign_devices: ["$h1"]
EOI
PB_RC=0
ansible-playbook -i "$T_TMP/inventory.yml" -e "partalign_report=$T_TMP/report" \
	partalign.fleet.audit >"$T_TMP/play.log" 2>&1 || PB_RC=$?
[ -f "$T_TMP/report" ] || fail "no report (exit $PB_RC): $(tail -20 "$T_TMP/play.log")"
cat "$T_TMP/report"
[ "$PB_RC" = 0 ] || fail "the playbook failed (exit $PB_RC): $(tail -20 "$T_TMP/play.log")"
awk 'length > 100 { exit 1 }' "$T_TMP/report" || fail "a report line over 100 columns"
g=${g1#/dev/}
# the disk's row, its hidden partition 1 (at its old start, misaligned) and
# partition 2, each saying the move
grep -qx "golf: 1 misaligned, 3 in an unfinished data move of 3 checked" "$T_TMP/report" ||
	fail "golf's line"
for d in "$g1" "${g1}p1" "${g1}p2"; do
	grep -q "^  $d " "$T_TMP/report" || fail "no row of $d"
done
# (reasons are wrapped: compared without spaces and line ends)
[ "$(tr -d ' \n' <"$T_TMP/report" | grep -o "finishitwith'partalignresume$g1'" | wc -l)" = 3 ] ||
	fail "the rows do not say 'partalign resume $g1'"
grep -qx "hotel: aligned, 1 checked" "$T_TMP/report" || fail "hotel's line"
assert_eq "fleet: 2 hosts, 1 with findings, 1 misaligned partition, 3 devices in an unfinished data move" \
	"$(tail -n 1 "$T_TMP/report")" "summary line"
echo "PASS: the fleet report counts the unfinished move (${g}: 3 rows)"
