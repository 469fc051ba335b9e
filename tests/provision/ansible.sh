#!/bin/bash
# The Ansible task of the documentation: `partalign provision --json` run
# through ansible.builtin.command with changed_when/failed_when on the exit
# bitmask, against localhost (local connection).  First play: the disks are
# partitioned -> "changed"; second play: nothing to do -> "ok"; a third
# configuration naming a disk that holds a filesystem -> the task fails.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/provision/lib.sh"
need_cmd mkfs.ext4
command -v ansible-playbook >/dev/null 2>&1 || skip "ansible-playbook (ansible-core) is not installed"

D1=$(mkdisk an512 40M 512)
D2=$(mkdisk an4k 40M 4096)
D3=$(mkdisk anfs 16M 512)
mkfs.ext4 -q "$D3"

ROOT=$T_TMP/root
mkdir -p "$ROOT/etc/udev/rules.d"
printf 'DATA1 %s\nDATA2 %s\n' "$D1" "$D2" >"$T_TMP/asm.conf"
printf 'DATA1 %s\nDATA2 %s\nDATA3 %s\n' "$D1" "$D2" "$D3" >"$T_TMP/bad.conf"

# ansible's state and configuration stay in the test directory; it needs a
# UTF-8 locale (C.UTF-8 is always there on Debian)
mkdir -p "$T_TMP/ansible-home"
printf '[defaults]\n' >"$T_TMP/ansible.cfg"
export ANSIBLE_CONFIG=$T_TMP/ansible.cfg ANSIBLE_HOME=$T_TMP/ansible-home
export ANSIBLE_LOCAL_TEMP=$T_TMP/ansible-local ANSIBLE_REMOTE_TEMP=$T_TMP/ansible-remote
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0

cat >"$T_TMP/inventory.yml" <<YML
all:
  hosts:
    localhost:
      ansible_connection: local
      ansible_python_interpreter: "{{ ansible_playbook_python }}"
YML

# The task as documented, with the paths of the test.
cat >"$T_TMP/provision.yml" <<YML
- hosts: all
  gather_facts: false
  tasks:
    - name: Partition and name the Oracle ASM disks
      ansible.builtin.command:
        argv:
          - "$PARTALIGN"
          - provision
          - --config
          - "{{ asm_config }}"
          - --json
          - --root
          - "$ROOT"
          - --backup-dir
          - "$T_TMP/backup"
      register: asm
      # exit status bits: 1 changed, 2 reboot needed, 4 refused or
      # misaligned, 8 error, 16 bad configuration
      changed_when: asm.rc % 2 == 1
      failed_when: asm.rc >= 2

    - name: Report
      ansible.builtin.debug:
        msg: "{{ (asm.stdout | from_json).msg }}"
YML

# play CONFIG: runs the playbook; the recap counters of localhost in $RECAP.
play() {
	PB_RC=0
	LC_ALL=C.UTF-8 ansible-playbook -i "$T_TMP/inventory.yml" -e "asm_config=$1" \
		"$T_TMP/provision.yml" >"$T_TMP/play.log" 2>&1 || PB_RC=$?
	RECAP=$(grep -E '^localhost +: ' "$T_TMP/play.log" |
		grep -oE '(ok|changed|failed)=[0-9]+' | tr '\n' ' ')
	[ -n "$RECAP" ] || {
		cat "$T_TMP/play.log" >&2
		fail "no PLAY RECAP (ansible-playbook exit $PB_RC)"
	}
}

play "$T_TMP/asm.conf"
assert_eq "0 ok=2 changed=1 failed=0 " "$PB_RC $RECAP" "first play: $(cat "$T_TMP/play.log")"
for pair in "DATA1 $D1" "DATA2 $D2"; do
	set -- $pair
	bad=$(layout_ok "$2" "$1")
	[ -z "$bad" ] || fail "$1 on $2: $bad"
done
grep -q '"2 disks: 2 created, 0 kept; rules .*: written' "$T_TMP/play.log" ||
	fail "first play: the summary is not in the report: $(cat "$T_TMP/play.log")"

sums=$(disk_sums "$D1" "$D2")
play "$T_TMP/asm.conf"
assert_eq "0 ok=2 changed=0 failed=0 " "$PB_RC $RECAP" "second play: $(cat "$T_TMP/play.log")"
assert_eq "$sums" "$(disk_sums "$D1" "$D2")" "second play: disk contents"

fs=$(disk_sums "$D3")
play "$T_TMP/bad.conf"
[ "$PB_RC" != 0 ] || fail "a refused disk did not fail the play"
assert_eq "ok=0 changed=0 failed=1 " "$RECAP" "third play: $(cat "$T_TMP/play.log")"
grep -q '"rc": 4,' "$T_TMP/play.log" ||
	fail "third play: exit status 4 not reported: $(cat "$T_TMP/play.log")"
assert_eq "$fs" "$(disk_sums "$D3")" "third play: the filesystem disk"
echo "PASS: the Ansible task: changed, then ok, then failed on a refused disk"
