#!/bin/bash
# The playbook partalign.fleet.audit of the collection, installed with
# ansible-galaxy from the tarball make built, against an inventory of six
# hosts on the local connection, each auditing its own loop disks:
#   alpha    two disks (512 and 4096-byte sectors), one partition off the
#            2 MiB grain on each                      -> 2 findings
#   bravo    one disk, all partitions on 2 MiB          -> aligned
#   charlie  --align 1MiB: a partition at 1 MiB (fine here) and one 512 B
#            past 5 MiB                                 -> 1 finding
#   delta    names a file that is no block device       -> audit fails (exit 8)
#   echo     partalign_agentless: partalign-collect runs there, check
#            --sysroot on the control node; one partition off 2 MiB
#                                                       -> 1 finding, collected
#   foxtrot  agentless, names a device the host has not, with a name longer
#            than a line of the report                  -> audit fails (exit 8)
# echo and foxtrot have no Python (their interpreter does not exist): an
# agentless audit runs nothing but sh on the host.
# The report must name exactly the misaligned partitions set up, each with
# its reason, the summary line must count them, and no line may be wider
# than 100 columns; findings must not fail the run, a failed audit must.  A
# collection is kept only where partalign_collect_dir says.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/ansible/lib.sh"

need_root
need_cmd sfdisk partx losetup

collection_install
a1=$(mkdisk a1 16M 512 'label: gpt\nstart=4096, size=4096\nstart=8255, size=4096')
a2=$(mkdisk a2 16M 4096 'label: gpt\nstart=512, size=512\nstart=1032, size=512')
b1=$(mkdisk b1 16M 512 'label: gpt\nstart=4096, size=4096\nstart=8192, size=4096')
c1=$(mkdisk c1 16M 512 'label: gpt\nstart=2048, size=4096\nstart=10241, size=4096')
e1=$(mkdisk e1 16M 512 'label: gpt\nstart=4096, size=4096\nstart=8200, size=4096')
: >"$T_TMP/not-a-device"
for d in "$a1" "$a2" "$b1" "$c1" "$e1"; do
	[ -e "/sys/class/block/${d#/dev/}/${d#/dev/}p2" ] || fail "no partitions on $d"
done

# the control node's temporary collections go here, and must go again
mkdir -p "$T_TMP/tmp"
export TMPDIR=$T_TMP/tmp

longdev=/dev/pa-no-such-disk-$(printf 'with-a-name-longer-than-a-line-%.0s' 1 2 3 4)
cat >"$T_TMP/inventory.yml" <<EOF
all:
  vars:
    ansible_connection: local
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
    partalign_binary: "$PARTALIGN"
  hosts:
    alpha:
      partalign_devices: ["$a1", "$a2"]
    bravo:
      partalign_devices: ["$b1"]
    charlie:
      partalign_devices: ["$c1"]
      partalign_align: 1MiB
    delta:
      partalign_devices: ["$T_TMP/not-a-device"]
    echo:
      partalign_agentless: true
      partalign_devices: ["$e1"]
      partalign_controller_binary: "$PARTALIGN"
      ansible_python_interpreter: /nonexistent/python3
    foxtrot:
      partalign_agentless: true
      partalign_devices: ["$longdev"]
      partalign_controller_binary: "$PARTALIGN"
      ansible_python_interpreter: /nonexistent/python3
EOF

# play [ANSIBLE-PLAYBOOK ARGS...]: runs the playbook, report in $T_TMP/report,
# exit status in $PB_RC, output in $T_TMP/play.log.
play() {
	rm -f "$T_TMP/report"
	PB_RC=0
	ansible-playbook -i "$T_TMP/inventory.yml" -e "partalign_report=$T_TMP/report" \
		"$@" partalign.fleet.audit >"$T_TMP/play.log" 2>&1 || PB_RC=$?
	[ -f "$T_TMP/report" ] || {
		cat "$T_TMP/play.log" >&2
		fail "no report written (ansible-playbook exit $PB_RC)"
	}
	if awk 'length > 100 { print FNR ": " length " columns"; bad = 1 } END { exit !bad }' \
		"$T_TMP/report" >"$T_TMP/wide"; then
		cat "$T_TMP/report" >&2
		fail "report lines wider than 100 columns: $(tr '\n' ' ' <"$T_TMP/wide")"
	fi
}

# in_report TEXT: TEXT is in the report, wherever its lines were wrapped
# (spaces and line ends aside)
in_report() {
	tr -d ' \n' <"$T_TMP/report" | grep -qF -- "$(tr -d ' \n' <<<"$1")"
}

# The finding rows of the report as "HOST DEVICE PHYSICAL OPTIMAL POLICY"
# (a row: two spaces, then the device; its reason and wrapped lines: four)
findings() {
	awk '/^#/ || /^fleet:/ { next }
	/^[^ ]/ { host = $1; sub(/:$/, "", host); next }
	/^  ! / || /^  DEVICE / || /^    / { next }
	/^  [^ ]/ { print host, $1, $2, $3, $4 }' "$T_TMP/report" | sort
}

n() { echo "${1#/dev/}"; }
expected_rows=$(sort <<EOF
alpha ${a1}p2 ok n/a misaligned
alpha ${a2}p2 ok n/a misaligned
charlie ${c1}p2 ok n/a misaligned
echo ${e1}p2 ok n/a misaligned
EOF
)

# no collection may stay behind in the control node's temporary directory
no_leftover() {
	[ -z "$(ls -A "$T_TMP/tmp")" ] || fail "left in TMPDIR: $(ls -A "$T_TMP/tmp")"
}

# 1. The whole fleet: delta's failed audit is in the report and fails the run.
play
[ "$PB_RC" != 0 ] || { cat "$T_TMP/report" >&2; fail "a failed audit (delta) did not fail the playbook"; }
cat "$T_TMP/report"
assert_eq "$expected_rows" "$(findings)" "finding rows of the report"
assert_eq "fleet: 6 hosts, 3 with findings, 4 misaligned partitions, 2 failed" \
	"$(tail -n 1 "$T_TMP/report")" "summary line"
grep -qx 'alpha: 2 misaligned of 4 checked' "$T_TMP/report" || fail "alpha's header line"
grep -qx 'bravo: aligned, 2 checked' "$T_TMP/report" || fail "bravo's header line"
grep -qx 'charlie: 1 misaligned of 2 checked' "$T_TMP/report" || fail "charlie's header line"
grep -qx 'delta: audit failed (exit 8)' "$T_TMP/report" || fail "delta's header line"
grep -q "^  ! .*not-a-device" "$T_TMP/report" || fail "delta's error message is not in the report"
grep -qx 'echo: 1 misaligned of 2 checked, from a collection' "$T_TMP/report" ||
	fail "echo's header line"
grep -qx 'foxtrot: audit failed (exit 8), from a collection' "$T_TMP/report" ||
	fail "foxtrot's header line"
grep -q "^  ! partalign: /dev/pa-no-such-disk-" "$T_TMP/report" && in_report "$longdev: not a device partalign checks in " ||
	fail "foxtrot's error message is not in the report"
# every finding row carries check's reason (the policy grain here), on the
# lines below it
[ "$(awk '/^  \/dev\/loop/ { row = 1; next } row && /^    / && /policy: / { n++ } !/^    / { row = 0 }
	END { print n + 0 }' "$T_TMP/report")" = 4 ] || fail "reasons missing below the rows"
for h in delta foxtrot; do
	grep -qE "^$h +:.* failed=1 " "$T_TMP/play.log" || fail "$h did not fail in the recap"
done
no_leftover

# 2. Without delta and foxtrot: findings (check's exit 4) are no failure;
# echo's collection is kept where partalign_collect_dir says.
play --limit 'all:!delta:!foxtrot' -e "partalign_collect_dir=$T_TMP/trees"
[ "$PB_RC" = 0 ] || { cat "$T_TMP/play.log" >&2; fail "findings failed the playbook (exit $PB_RC)"; }
assert_eq "$expected_rows" "$(findings)" "finding rows of the report without delta"
assert_eq "fleet: 4 hosts, 3 with findings, 4 misaligned partitions" \
	"$(tail -n 1 "$T_TMP/report")" "summary line without delta"
grep -q 'fleet: 4 hosts, 3 with findings, 4 misaligned partitions' "$T_TMP/play.log" ||
	fail "the summary is not shown in the play output"
head -n 1 "$T_TMP/trees/echo/partalign-dump" 2>/dev/null | grep -q '^partalign-collect ' ||
	fail "echo's collection is not in partalign_collect_dir"
[ -L "$T_TMP/trees/echo/sys/class/block/$(n "$e1")" ] || fail "echo's collection lacks $e1"
[ ! -e "$T_TMP/trees/alpha" ] || fail "alpha (partalign installed) has a collection"
no_leftover

# 3. partalign_fail_on_findings turns findings into failed hosts; under
# --check the (read-only) audit and the report run all the same.
play --limit 'all:!delta:!foxtrot' -e partalign_fail_on_findings=true --check
[ "$PB_RC" != 0 ] || fail "partalign_fail_on_findings=true did not fail the playbook"
assert_eq "fleet: 4 hosts, 3 with findings, 4 misaligned partitions" \
	"$(tail -n 1 "$T_TMP/report")" "summary line with partalign_fail_on_findings"
assert_eq "$expected_rows" "$(findings)" "finding rows of the report under --check"
no_leftover
echo "PASS: fleet report names exactly the misaligned partitions set up"
