#!/bin/bash
# The fleet audit shows the Oracle ASM disk groups and counts their findings,
# for a host with partalign (check --asm there) and for one without
# (agentless: check --asm --sysroot of the header blocks partalign-collect
# brought), with the findings of a live check --asm.  Headers are written by
# tests/lib/asm-header.py from the public kfed layout; each host audits its
# own loop disks:
#   india   (partalign)  group IDATA on a 512 and a 4096-byte sector disk;
#                        a whole-disk member of IREDO with a dos table
#                        written over its header (sfdisk); a member of IARCH
#                        (AU 4 MiB) in a partition at 1 MiB + 512 B, which is
#                        misaligned too (one row, both reasons); a healthy
#                        group IGOOD               -> 1 misaligned, 4 ASM
#   juliet  (agentless, no Python) the same with J...  -> 1 misaligned, 4 ASM
#   kilo    partalign_asm: false; a member whose header says 4096-byte
#           sectors on a 512-byte disk (an ASM finding, were the view run)
#                                                 -> aligned, no check --asm
#           (then with -e partalign_asm=true      -> 1 ASM finding)
#   lima    partalign run as nobody: check reads sysfs and passes, check
#           --asm cannot open the disk             -> audit failed (exit 8)
# The report must name each finding once with its reason, show the groups,
# count the findings on the host lines and in the summary (singular and
# plural), fit 100 columns; juliet's and india's ASM findings and groups
# (the fact partalign_audit) must equal a live check --asm --json of their
# devices.  Findings do not fail the playbook, lima's check --asm does.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/ansible/lib.sh"

need_root
need_cmd sfdisk partx losetup python3 od blockdev setpriv
getent passwd nobody >/dev/null || skip "needs the user nobody"

collection_install
HDR="$top_srcdir/tests/lib/asm-header.py"
hdr() { python3 "$HDR" "$@"; }
mkimg() { # NAME SIZE -> path
	truncate -s "$2" "$T_TMP/$1.img"
	echo "$T_TMP/$1.img"
}
od_at() { # FILE OFFSET COUNT: the bytes, as od prints them, on one line
	od -An -v -tx1 -j "$2" -N "$3" "$1" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//'
}
n() { echo "${1#/dev/}"; }

# asm_host P: the disks of one host, groups named P...: sets ${P}_d0 (512),
# ${P}_d1 (4096), ${P}_r0 (dos over the header), ${P}_a0p (misaligned
# member partition), ${P}_g0 (healthy)
asm_host() {
	local p=$1 i a
	i=$(mkimg "${p}d0" 64M)
	hdr "$i" --group "${p}DATA" --disk "${p}DATA_0000" --num 0 --dsksize 64
	printf -v "${p}_d0" %s "$(loop_attach "$i" 512)"
	i=$(mkimg "${p}d1" 64M)
	hdr "$i" --group "${p}DATA" --disk "${p}DATA_0001" --num 1 --dsksize 64
	printf -v "${p}_d1" %s "$(loop_attach "$i" 4096)"
	i=$(mkimg "${p}r0" 64M)
	hdr "$i" --group "${p}REDO" --disk "${p}REDO_0000" --num 0 --dsksize 64
	a=$(loop_attach "$i" 512)
	printf 'label: dos\nstart=4096, size=20480, type=83\n' |
		sfdisk -q --no-reread --no-tell-kernel "$a" >/dev/null
	partx -a "$a" 2>/dev/null || partx -u "$a"
	printf -v "${p}_r0" %s "$a"
	i=$(mkimg "${p}a0" 64M)
	printf 'label: gpt\nstart=2049, size=40960\n' | sfdisk -q "$i" >/dev/null
	hdr "$i" --at $((2049 * 512)) --group "${p}ARCH" --disk "${p}ARCH_0000" \
		--ausize $((4 << 20)) --dsksize 4
	a=$(loop_attach "$i" 512)
	partx -a "$a" 2>/dev/null || partx -u "$a"
	[ -b "${a}p1" ] || fail "${a}p1: not created"
	printf -v "${p}_a0p" %s "${a}p1"
	i=$(mkimg "${p}g0" 32M)
	hdr "$i" --group "${p}GOOD" --disk "${p}GOOD_0000" --dsksize 16
	printf -v "${p}_g0" %s "$(loop_attach "$i" 512)"
}
asm_host I
asm_host J
# shellcheck disable=SC2154 # set by asm_host
i_devs=("$I_d0" "$I_d1" "$I_r0" "$I_a0p" "$I_g0")
# shellcheck disable=SC2154
j_devs=("$J_d0" "$J_d1" "$J_r0" "$J_a0p" "$J_g0")
i=$(mkimg k0 32M)
hdr "$i" --group KDATA --disk KDATA_0000 --secsize 4096 --dsksize 16
k0=$(loop_attach "$i" 512)
i=$(mkimg l0 32M)
hdr "$i" --group LDATA --disk LDATA_0000 --dsksize 16
l0=$(loop_attach "$i" 512)

# what independent tools say of those disks
for p in I J; do
	d0=${p}_d0 d1=${p}_d1 r0=${p}_r0 a0p=${p}_a0p
	assert_eq 512 "$(blockdev --getss "${!d0}")" "${!d0}: logical sector size"
	assert_eq 4096 "$(blockdev --getss "${!d1}")" "${!d1}: logical sector size"
	assert_eq "4f 52 43 4c 44 49 53 4b" "$(od_at "${!d1}" 32 8)" "${!d1}: provstr"
	assert_eq "00 02" "$(od_at "${!d1}" $((0xd8)) 2)" "${!d1}: secsize 512 in its header"
	assert_eq "55 aa" "$(od_at "${!r0}" 510 2)" "${!r0}: the dos signature over the header"
	assert_eq dos "$(sfdisk --json "${!r0}" | jq -r .partitiontable.label)" "${!r0}: sfdisk's label"
	assert_eq "01 82 01 01" "$(od_at "${!r0}" 2088960 4)" "${!r0}: the backup header"
	assert_eq 2049 "$(cat "/sys/class/block/$(n "${!a0p}")/start")" "${!a0p}: start"
done
assert_eq "00 10" "$(od_at "$k0" $((0xd8)) 2)" "$k0: secsize 4096 in its header"
assert_eq 512 "$(blockdev --getss "$k0")" "$k0: logical sector size"

# lima's partalign: the same binary, run as nobody (no read of a disk node)
mkdir -m 0755 "$T_TMP/pub"
chmod o+x "$T_TMP"
cp "$PARTALIGN" "$T_TMP/pub/partalign"
printf '#!/bin/sh\nexec setpriv --reuid=nobody --regid=%s --clear-groups %s "$@"\n' \
	"$(id -g nobody)" "$T_TMP/pub/partalign" >"$T_TMP/pa-nobody"
chmod 0755 "$T_TMP/pa-nobody"

mkdir -p "$T_TMP/tmp"
export TMPDIR=$T_TMP/tmp
list() { # DEV... as a YAML flow list
	local IFS=,
	echo "[$*]"
}
cat >"$T_TMP/inventory.yml" <<EOF
all:
  vars:
    ansible_connection: local
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
    partalign_binary: "$PARTALIGN"
    partalign_controller_binary: "$PARTALIGN"
  hosts:
    india:
      partalign_devices: $(list "${i_devs[@]}")
    juliet:
      partalign_agentless: true
      partalign_devices: $(list "${j_devs[@]}")
      ansible_python_interpreter: /nonexistent/python3
    kilo:
      partalign_asm: false
      partalign_devices: ["$k0"]
    lima:
      partalign_binary: "$T_TMP/pa-nobody"
      partalign_devices: ["$l0"]
EOF
# the collection's playbook, then each host's fact partalign_audit as JSON
cat >"$T_TMP/audit.yml" <<EOF
- ansible.builtin.import_playbook: partalign.fleet.audit
- name: Keep the facts
  hosts: all
  gather_facts: false
  tasks:
    - ansible.builtin.copy:
        content: "{{ partalign_audit | to_json }}"
        dest: "$T_TMP/fact-{{ inventory_hostname }}.json"
        mode: "0644"
      delegate_to: localhost
EOF

play() { # ANSIBLE-PLAYBOOK ARGS...: report in $T_TMP/report, status in $PB_RC
	rm -f "$T_TMP/report" "$T_TMP"/fact-*.json
	PB_RC=0
	ansible-playbook -i "$T_TMP/inventory.yml" -e "partalign_report=$T_TMP/report" \
		"$@" "$T_TMP/audit.yml" >"$T_TMP/play.log" 2>&1 || PB_RC=$?
	[ -f "$T_TMP/report" ] || fail "no report (exit $PB_RC): $(tail -30 "$T_TMP/play.log")"
	cat "$T_TMP/report"
	awk 'length > 100 { print FNR ": " length " columns"; bad = 1 } END { exit !bad }' \
		"$T_TMP/report" >"$T_TMP/wide" && fail "report lines over 100 columns: $(cat "$T_TMP/wide")"
	[ -z "$(ls -A "$T_TMP/tmp")" ] || fail "left in TMPDIR: $(ls -A "$T_TMP/tmp")"
}
# in_report TEXT: TEXT is in the report, wherever its lines were wrapped
in_report() {
	tr -d ' \n' <"$T_TMP/report" | grep -qF -- "$(tr -d ' \n' <<<"$1")"
}
# rows: the finding rows as "HOST DEVICE PHYSICAL OPTIMAL POLICY"
rows() {
	awk '/^#/ || /^fleet:/ { next }
	/^[^ ]/ { host = $1; sub(/:$/, "", host); next }
	/^  ! / || /^  DEVICE / || /^  ASM disk groups: / || /^    / { next }
	/^  [^ ]/ { print host, $1, $2, $3, $4 }' "$T_TMP/report" | sort
}
# reason HOST DEVICE: the reason below the row, its lines joined (wrapped
# at spaces, and no word of these reasons is longer than a line)
reason() {
	awk -v h="$1:" -v d="$2" '/^[^ ]/ { in_h = ($1 == h); next }
	in_h && /^  [^ ]/ { row = ($1 == d); sep = ""; next }
	in_h && row && /^    / { sub(/^    /, ""); printf "%s%s", sep, $0; sep = " " }' "$T_TMP/report"
}
# asm_rows FILE JQ-PATH: the rows with an "asm:" clause, their asm-* keys and
# reasons, sorted by name
asm_rows() {
	jq -S "[$2[] | select(.reason // \"\" | test(\"(^|; )asm: \"))
		| {name, path, \"asm-group\", \"asm-disk\", \"asm-status\", \"asm-au\",
		   \"asm-secsize\", \"asm-label\", reason}] | sort_by(.name)" "$1"
}

# 1. india, juliet, kilo: findings, none of them a failure
play --limit 'all:!lima'
[ "$PB_RC" = 0 ] || fail "the playbook failed (exit $PB_RC): $(tail -30 "$T_TMP/play.log")"
expected=$(sort <<EOF
india $I_a0p ok n/a misaligned
india $I_d0 ok n/a ok
india $I_d1 ok n/a ok
india $I_r0 n/a n/a n/a
juliet $J_a0p ok n/a misaligned
juliet $J_d0 ok n/a ok
juliet $J_d1 ok n/a ok
juliet $J_r0 n/a n/a n/a
EOF
)
assert_eq "$expected" "$(rows)" "the finding rows (each device once)"
grep -qx 'india: 1 misaligned, 4 ASM findings of 5 checked' "$T_TMP/report" || fail "india's line"
grep -qx 'juliet: 1 misaligned, 4 ASM findings of 5 checked, from a collection' "$T_TMP/report" ||
	fail "juliet's line"
grep -qx 'kilo: aligned, 1 checked' "$T_TMP/report" || fail "kilo's line (partalign_asm false)"
for p in I J; do
	grep -qx "  ASM disk groups: ${p}ARCH (1 disk), ${p}DATA (2 disks), ${p}GOOD (1 disk), ${p}REDO (1 disk)" \
		"$T_TMP/report" || fail "the disk groups of $p"
done
grep -q KDATA "$T_TMP/report" && fail "kilo (partalign_asm false) shows its ASM disk"
assert_eq "fleet: 3 hosts, 2 with findings, 2 misaligned partitions, 8 ASM findings" \
	"$(tail -n 1 "$T_TMP/report")" "summary line"
# each finding's reason, below its row
for h in india:I juliet:J; do
	p=${h#*:} h=${h%:*}
	d0=${p}_d0 d1=${p}_d1 r0=${p}_r0 a0p=${p}_a0p
	mixed="asm: disk group ${p}DATA mixes 512-byte ($(n "${!d0}")) and 4096-byte ($(n "${!d1}")) logical sectors: ASM refuses that (ORA-15085)"
	for d in "${!d0}" "${!d1}"; do
		[[ $(reason "$h" "$d") == *"$mixed"* ]] || fail "$h $d: $(reason "$h" "$d")"
	done
	[[ $(reason "$h" "${!d1}") == *"asm: disk ${p}DATA_0001 of ${p}DATA: the header says 512-byte sectors, the kernel 4096 (ORA-15085)"* ]] ||
		fail "$h ${!d1}: $(reason "$h" "${!d1}")"
	[[ $(reason "$h" "${!r0}") == *"asm: a dos partition table is written over the header of disk ${p}REDO_0000 of ${p}REDO: the backup in AU 1 block 254 (byte 2088960) holds it ('kfed repair ${!r0}' restores it)"* ]] ||
		fail "$h ${!r0}: $(reason "$h" "${!r0}")"
	# the misaligned member: one row, check's reason and the ASM view's
	r=$(reason "$h" "${!a0p}")
	[[ $r == *"policy: 1049088 B past a 2 MiB boundary"* &&
		$r == *"asm: disk ${p}ARCH_0000 of ${p}ARCH starts 1049088 B past a 4 MiB allocation unit boundary"* ]] ||
		fail "$h ${!a0p}: $r"
done

# the facts: the ASM findings and groups of a live check --asm, exit statuses
for h in india:I juliet:J; do
	p=${h#*:} h=${h%:*}
	f=$T_TMP/fact-$h.json
	[ -f "$f" ] || fail "no fact of $h"
	rc=0
	live=$T_TMP/live-$h.json
	if [ "$p" = I ]; then set -- "${i_devs[@]}"; else set -- "${j_devs[@]}"; fi
	"$PARTALIGN" check --asm --json "$@" >"$live" 2>"$T_TMP/live.err" || rc=$?
	assert_eq 36 "$rc" "$h: the live check --asm: exit status ($(cat "$T_TMP/live.err"))"
	assert_eq "$(asm_rows "$live" .devices)" "$(asm_rows "$f" .findings)" \
		"$h: the ASM findings of the fact and of the live check --asm"
	assert_eq "$(jq -S '[.devices[] | select(."asm-group" != null)] | group_by(."asm-group")
		| map({key: .[0]."asm-group", value: map({device: .path, disk: ."asm-disk",
		  status: ."asm-status", secsize: ."asm-secsize", log_sec: ."log-sec",
		  au: ."asm-au"})}) | from_entries' "$live")" "$(jq -S .asm_groups "$f")" \
		"$h: asm_groups of the fact and of the live check --asm"
	assert_eq '4 36 1 4 true' "$(jq -r '"\(.rc) \(.asm_rc) \(.counts.misaligned) \(.counts.asm) \(.ok)"' "$f")" \
		"$h: rc, asm_rc, counts, ok"
	# four ASM findings, the misaligned member among them: five would mean a
	# row listed twice
	assert_eq 4 "$(jq '.findings | length' "$f")" "$h: the findings of the fact"
done
assert_eq "0 -1 {} 0" "$(jq -c -r '"\(.rc) \(.asm_rc) \(.asm_groups) \(.findings | length)"' \
	"$T_TMP/fact-kilo.json")" "kilo: no check --asm run"
grep -A3 'TASK \[partalign.fleet.audit : Run partalign check --asm' "$T_TMP/play.log" |
	grep -q '^skipping: \[kilo\]' || fail "kilo: check --asm was not skipped"
echo "ok: india and juliet: their ASM findings and groups are those of the live check --asm"

# 2. lima: check --asm cannot read the disk (as nobody): the host fails,
# with partalign's message, its check's rows all the same
play --limit 'lima:india'
[ "$PB_RC" != 0 ] || fail "lima's failed check --asm did not fail the playbook"
grep -qx 'lima: audit failed (check --asm exit 8), 0 misaligned of 1 checked' "$T_TMP/report" ||
	fail "lima's line"
in_report "  ! partalign: $l0: cannot read its first block (--asm): Permission denied" ||
	fail "lima's message"
assert_eq "fleet: 2 hosts, 1 with findings, 1 misaligned partition, 4 ASM findings, 1 failed" \
	"$(tail -n 1 "$T_TMP/report")" "summary line with lima"
grep -qE '^lima +:.* failed=1 ' "$T_TMP/play.log" || fail "lima did not fail in the recap"
grep -qE '^india +:.* failed=0 ' "$T_TMP/play.log" || fail "india failed"
grep -q 'partalign check --asm failed (exit 8)' "$T_TMP/play.log" || fail "the failure's message"
echo "ok: lima: check --asm's exit 8 fails the host, with its message"

# 3. juliet alone, its collection kept: one unpack, with the ASM blocks,
# the same report; a singular summary
play --limit juliet -e "partalign_collect_dir=$T_TMP/trees"
[ "$PB_RC" = 0 ] || fail "the playbook failed (exit $PB_RC): $(tail -30 "$T_TMP/play.log")"
for d in "${j_devs[@]}"; do
	[ "$d" = "$J_a0p" ] && d=${J_a0p%p1}
	[ -f "$T_TMP/trees/juliet/asm/$(cat "/sys/class/block/$(n "$d")/dev")" ] ||
		fail "juliet's kept collection has no ASM blocks of $d"
done
assert_eq "$(grep '^juliet ' <<<"$expected")" "$(rows)" "juliet's rows from the kept collection"
assert_eq "fleet: 1 host, 1 with findings, 1 misaligned partition, 4 ASM findings" \
	"$(tail -n 1 "$T_TMP/report")" "summary line of juliet"
# 4. kilo with the ASM view (extra vars override its partalign_asm): one
# ASM finding, said in the singular
play --limit kilo -e partalign_asm=true
[ "$PB_RC" = 0 ] || fail "the playbook failed (exit $PB_RC): $(tail -30 "$T_TMP/play.log")"
grep -qx 'kilo: 1 ASM finding of 1 checked' "$T_TMP/report" || fail "kilo's line"
[[ $(reason kilo "$k0") == *"asm: disk KDATA_0000 of KDATA: the header says 4096-byte sectors, the kernel 512 (ORA-15085)"* ]] ||
	fail "kilo $k0: $(reason kilo "$k0")"
assert_eq "fleet: 1 host, 1 with findings, 0 misaligned partitions, 1 ASM finding" \
	"$(tail -n 1 "$T_TMP/report")" "summary line of kilo"
echo "PASS: the fleet report shows the ASM disk groups and counts their findings"
