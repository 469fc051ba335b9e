#!/bin/bash
# The fleet audit playbook (contrib/ansible) against an inventory of four
# hosts on the local connection, each auditing its own loop disks:
#   alpha    two disks (512 and 4096-byte sectors), one partition off the
#            2 MiB grain on each                      -> 2 findings
#   bravo    one disk, all partitions on 2 MiB          -> aligned
#   charlie  --align 1MiB: a partition at 1 MiB (fine here) and one 512 B
#            past 5 MiB                                 -> 1 finding
#   delta    names a file that is no block device       -> audit fails (exit 8)
# The report must name exactly the misaligned partitions set up, and the
# summary line must count them; findings must not fail the run, a failed
# audit must.
. "$top_srcdir/tests/lib/common.sh"

need_root
need_cmd ansible-playbook jq sfdisk partx losetup

playbook=$top_srcdir/contrib/ansible/partalign-audit.yml
[ -f "$playbook" ] || fail "no playbook at $playbook"

a1=$(mkdisk a1 16M 512 'label: gpt\nstart=4096, size=4096\nstart=8255, size=4096')
a2=$(mkdisk a2 16M 4096 'label: gpt\nstart=512, size=512\nstart=1032, size=512')
b1=$(mkdisk b1 16M 512 'label: gpt\nstart=4096, size=4096\nstart=8192, size=4096')
c1=$(mkdisk c1 16M 512 'label: gpt\nstart=2048, size=4096\nstart=10241, size=4096')
: >"$T_TMP/not-a-device"
for d in "$a1" "$a2" "$b1" "$c1"; do
	[ -e "/sys/class/block/${d#/dev/}/${d#/dev/}p2" ] || fail "no partitions on $d"
done

# Keep ansible's state and configuration inside the test directory (it
# needs a UTF-8 locale: play() sets C.UTF-8, which Debian always has).
mkdir -p "$T_TMP/ansible-home"
printf '[defaults]\n' >"$T_TMP/ansible.cfg"
export ANSIBLE_CONFIG=$T_TMP/ansible.cfg ANSIBLE_HOME=$T_TMP/ansible-home
export ANSIBLE_LOCAL_TEMP=$T_TMP/ansible-local ANSIBLE_REMOTE_TEMP=$T_TMP/ansible-remote
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_FORKS=4

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
EOF

# play [ANSIBLE-PLAYBOOK ARGS...]: runs the playbook, report in $T_TMP/report,
# exit status in $PB_RC, output in $T_TMP/play.log.
play() {
	rm -f "$T_TMP/report"
	PB_RC=0
	LC_ALL=C.UTF-8 ansible-playbook -i "$T_TMP/inventory.yml" -e "partalign_report=$T_TMP/report" \
		"$@" "$playbook" >"$T_TMP/play.log" 2>&1 || PB_RC=$?
	[ -f "$T_TMP/report" ] || {
		cat "$T_TMP/play.log" >&2
		fail "no report written (ansible-playbook exit $PB_RC)"
	}
}

# The finding rows of the report as "HOST NAME PATH PHYSICAL OPTIMAL POLICY".
findings() {
	awk '/^#/ || /^fleet:/ { next }
	/^[^ ]/ { host = $1; sub(/:$/, "", host); next }
	/^  ! / || /^  NAME / { next }
	/^  / { print host, $1, $2, $3, $4, $5 }' "$T_TMP/report" | sort
}

n() { echo "${1#/dev/}"; }
expected_rows=$(sort <<EOF
alpha $(n "$a1")p2 ${a1}p2 ok n/a misaligned
alpha $(n "$a2")p2 ${a2}p2 ok n/a misaligned
charlie $(n "$c1")p2 ${c1}p2 ok n/a misaligned
EOF
)

# 1. The whole fleet: delta's failed audit is in the report and fails the run.
play
[ "$PB_RC" != 0 ] || { cat "$T_TMP/report" >&2; fail "a failed audit (delta) did not fail the playbook"; }
cat "$T_TMP/report"
assert_eq "$expected_rows" "$(findings)" "finding rows of the report"
assert_eq "fleet: 4 hosts, 2 with findings, 3 misaligned partitions, 1 failed" \
	"$(tail -n 1 "$T_TMP/report")" "summary line"
grep -qx 'alpha: 2 misaligned of 4 checked' "$T_TMP/report" || fail "alpha's header line"
grep -qx 'bravo: aligned, 2 checked' "$T_TMP/report" || fail "bravo's header line"
grep -qx 'charlie: 1 misaligned of 2 checked' "$T_TMP/report" || fail "charlie's header line"
grep -qx 'delta: audit failed (exit 8)' "$T_TMP/report" || fail "delta's header line"
grep -q "^  ! .*not-a-device" "$T_TMP/report" || fail "delta's error message is not in the report"
# every finding row carries check's reason, here the policy grain
[ "$(grep -c '^  loop.* policy: ' "$T_TMP/report")" = 3 ] || fail "reasons missing from the rows"
grep -q 'failed=1' "$T_TMP/play.log" || fail "delta is not the one failed host in the recap"

# 2. Without delta: findings (check's exit 4) are no failure.
play --limit 'all:!delta'
[ "$PB_RC" = 0 ] || { cat "$T_TMP/play.log" >&2; fail "findings failed the playbook (exit $PB_RC)"; }
assert_eq "$expected_rows" "$(findings)" "finding rows of the report without delta"
assert_eq "fleet: 3 hosts, 2 with findings, 3 misaligned partitions" \
	"$(tail -n 1 "$T_TMP/report")" "summary line without delta"
grep -q 'fleet: 3 hosts, 2 with findings, 3 misaligned partitions' "$T_TMP/play.log" ||
	fail "the summary is not shown in the play output"

# 3. partalign_fail_on_findings turns findings into failed hosts; under
# --check the (read-only) audit and the report run all the same.
play --limit 'all:!delta' -e partalign_fail_on_findings=true --check
[ "$PB_RC" != 0 ] || fail "partalign_fail_on_findings=true did not fail the playbook"
assert_eq "fleet: 3 hosts, 2 with findings, 3 misaligned partitions" \
	"$(tail -n 1 "$T_TMP/report")" "summary line with partalign_fail_on_findings"
assert_eq "$expected_rows" "$(findings)" "finding rows of the report under --check"
echo "PASS: fleet report names exactly the misaligned partitions set up"
