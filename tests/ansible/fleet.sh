#!/bin/bash
# The fleet audit playbook (contrib/ansible) against an inventory of four
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
#   foxtrot  agentless, names a device the host has not -> audit fails (exit 8)
# echo and foxtrot have no Python (their interpreter does not exist): an
# agentless audit runs nothing but sh on the host.
# The report must name exactly the misaligned partitions set up, and the
# summary line must count them; findings must not fail the run, a failed
# audit must.  A collection is kept only where partalign_collect_dir says.
. "$top_srcdir/tests/lib/common.sh"

need_root
need_cmd ansible-playbook jq sfdisk partx losetup

playbook=$top_srcdir/contrib/ansible/partalign-audit.yml
[ -f "$playbook" ] || fail "no playbook at $playbook"

a1=$(mkdisk a1 16M 512 'label: gpt\nstart=4096, size=4096\nstart=8255, size=4096')
a2=$(mkdisk a2 16M 4096 'label: gpt\nstart=512, size=512\nstart=1032, size=512')
b1=$(mkdisk b1 16M 512 'label: gpt\nstart=4096, size=4096\nstart=8192, size=4096')
c1=$(mkdisk c1 16M 512 'label: gpt\nstart=2048, size=4096\nstart=10241, size=4096')
e1=$(mkdisk e1 16M 512 'label: gpt\nstart=4096, size=4096\nstart=8200, size=4096')
: >"$T_TMP/not-a-device"
for d in "$a1" "$a2" "$b1" "$c1" "$e1"; do
	[ -e "/sys/class/block/${d#/dev/}/${d#/dev/}p2" ] || fail "no partitions on $d"
done

# Keep ansible's state and configuration inside the test directory (it
# needs a UTF-8 locale: play() sets C.UTF-8, which Debian always has).
mkdir -p "$T_TMP/ansible-home"
printf '[defaults]\n' >"$T_TMP/ansible.cfg"
export ANSIBLE_CONFIG=$T_TMP/ansible.cfg ANSIBLE_HOME=$T_TMP/ansible-home
export ANSIBLE_LOCAL_TEMP=$T_TMP/ansible-local ANSIBLE_REMOTE_TEMP=$T_TMP/ansible-remote
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_FORKS=4
# the control node's temporary collections go here, and must go again
mkdir -p "$T_TMP/tmp"
export TMPDIR=$T_TMP/tmp

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
      partalign_devices: ["/dev/pa-no-such-disk"]
      partalign_controller_binary: "$PARTALIGN"
      ansible_python_interpreter: /nonexistent/python3
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
echo $(n "$e1")p2 ${e1}p2 ok n/a misaligned
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
grep -q "^  ! .*/dev/pa-no-such-disk: not a device partalign checks in " "$T_TMP/report" ||
	fail "foxtrot's error message is not in the report"
# every finding row carries check's reason, here the policy grain
[ "$(grep -c '^  loop.* policy: ' "$T_TMP/report")" = 4 ] || fail "reasons missing from the rows"
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
