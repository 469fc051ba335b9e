#!/bin/bash
# partalign provision end to end on loop devices:
#   - blank 512-byte and 4Kn disks, named by path and by size: the first run
#     partitions them (checked with sfdisk: one GPT partition at 2 MiB named
#     like the ASM disk), writes one rule per disk, exits 1 with "changed":
#     true; the second run exits 0, "changed": false, and leaves the rules
#     file (inode, mtime, bytes) and every disk (sha256) as they were;
#   - a disk holding a filesystem is refused and left alone; the rules are
#     then not written;
#   - a disk holding the partition under another name is refused;
#   - --dry-run changes nothing;
#   - two blank disks of one size: size: refuses to guess;
#   - a bad configuration line: exit 16 naming FILE:LINE, nothing touched.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/provision/lib.sh"
need_cmd mkfs.ext4 python3
export T_TMP

SZ1=$(unique_mib)
SZ2=$(unique_mib "$SZ1")
SZ3=$(unique_mib "$SZ1" "$SZ2")
D1=$(mkdisk p512 64M 512)
D2=$(mkdisk p4k 64M 4096)
D3=$(mkdisk s512 "${SZ1}M" 512)
D4=$(mkdisk s4k "${SZ2}M" 4096)

ROOT=$T_TMP/root
RULES=$ROOT/etc/udev/rules.d/99-oracle-asmdevices.rules
mkdir -p "$ROOT/etc/udev/rules.d"
printf 'root:x:0:0::/root:/bin/sh\ngrid:x:54331:54321::/home/grid:/bin/false\noracle:x:54321:54321::/home/oracle:/bin/false\n' >"$ROOT/etc/passwd"
printf 'root:x:0:\noinstall:x:54321:\nasmadmin:x:54329:grid\n' >"$ROOT/etc/group"

cat >"$T_TMP/asm.conf" <<CONF
# Oracle ASM disks of the test
owner grid
group asmadmin
mode 0660
align 2MiB
rules /etc/udev/rules.d/99-oracle-asmdevices.rules

DATA1   $D1
DATA2   $D2      owner=oracle mode=0640   # 4Kn, by path
DATA3   size:${SZ1}MiB
DATA4   size:${SZ2}MiB
CONF

# prov EXPECTED_RC CONFIG [ARGS...]: provision --json; stdout in $T_TMP/out.json,
# stderr in $T_TMP/err
prov() {
	local want=$1 cfg=$2 rc=0
	shift 2
	"$PARTALIGN" provision --config "$cfg" --json --root "$ROOT" \
		--backup-dir "$T_TMP/backup" "$@" >"$T_TMP/out.json" 2>"$T_TMP/err" || rc=$?
	[ "$rc" = "$want" ] || {
		cat "$T_TMP/err" "$T_TMP/out.json" >&2
		fail "provision --config ${cfg##*/} $*: exit $rc, expected $want"
	}
	[ "$rc" = 16 ] || jq -e . "$T_TMP/out.json" >/dev/null || fail "stdout is not JSON: $(cat "$T_TMP/out.json")"
}
# disk NAME KEY: a key of one disk of the JSON summary
disk() {
	jq -r --arg n "$1" --arg k "$2" '.disks[] | select(.name == $n) | .[$k]' "$T_TMP/out.json"
}

# --- first run: four blank disks --------------------------------------------
prov 1 "$T_TMP/asm.conf"
assert_eq true "$(jq -r .changed "$T_TMP/out.json")" "first run: changed"
assert_eq written "$(jq -r .rules.result "$T_TMP/out.json")" "first run: rules"
assert_eq "$RULES" "$(jq -r .rules.file "$T_TMP/out.json")" "first run: rules file"
n=0
for pair in "DATA1 $D1" "DATA2 $D2" "DATA3 $D3" "DATA4 $D4"; do
	set -- $pair
	n=$((n + 1))
	assert_eq created "$(disk "$1" action)" "first run: $1 action"
	assert_eq "$2" "$(disk "$1" device)" "first run: $1 device"
	assert_eq "${2}p1" "$(disk "$1" partition)" "first run: $1 partition"
	assert_eq true "$(disk "$1" aligned)" "first run: $1 aligned"
	bad=$(layout_ok "$2" "$1")
	[ -z "$bad" ] || fail "$1 on $2: $bad"
	rule=$(rule_for "$RULES" "$1")
	[ "$(printf '%s\n' "$rule" | grep -c .)" = 1 ] || fail "$1: not exactly one rule: $rule"
	printf '%s\n' "$rule" | grep -F "ENV{ID_PART_ENTRY_UUID}==\"$(part_uuid "$2")\"" >/dev/null ||
		fail "$1: the rule does not match its partition's UUID: $rule"
	printf '%s\n' "$rule" | grep 'ENV{DEVTYPE}=="partition"' >/dev/null ||
		fail "$1: the rule does not match partitions only: $rule"
done
assert_eq 4 "$(grep -c 'SYMLINK+="oracleasm/' "$RULES")" "rules in the file"
# the header names the configuration the file is made from, and how to redo it
assert_eq "# Written by partalign provision from $(realpath "$T_TMP/asm.conf")
# Do not edit: change that configuration and run partalign provision again." \
	"$(sed -n 2,3p "$RULES")" "the rules file's header"
assert_eq 4 "$(jq '.disks | length' "$T_TMP/out.json")" "disks in the summary"
rule_for "$RULES" DATA2 | grep 'OWNER="oracle", GROUP="asmadmin", MODE="0640"' >/dev/null ||
	fail "DATA2: owner=/mode= not applied: $(rule_for "$RULES" DATA2)"
rule_for "$RULES" DATA3 | grep 'OWNER="grid", GROUP="asmadmin", MODE="0660"' >/dev/null ||
	fail "DATA3: global owner/group/mode not applied: $(rule_for "$RULES" DATA3)"
grep -q 'udev not triggered' <<<"$(jq -r .msg "$T_TMP/out.json")" ||
	fail "--root: the summary does not say that udev was not triggered"
[ -n "$(find "$T_TMP/backup" -type f)" ] || fail "no table backup in --backup-dir"

# --- second run: nothing to do ----------------------------------------------
rules_before=$(stat -c '%i %Y.%y %s' "$RULES")
sums_before=$(disk_sums "$D1" "$D2" "$D3" "$D4")
cp "$RULES" "$T_TMP/rules.1"
prov 0 "$T_TMP/asm.conf"
assert_eq false "$(jq -r .changed "$T_TMP/out.json")" "second run: changed"
assert_eq unchanged "$(jq -r .rules.result "$T_TMP/out.json")" "second run: rules"
for n in DATA1 DATA2 DATA3 DATA4; do
	assert_eq kept "$(disk "$n" action)" "second run: $n action"
	assert_eq true "$(disk "$n" aligned)" "second run: $n aligned"
done
assert_eq "$D3" "$(disk DATA3 device)" "second run: size: finds the same disk"
assert_eq "$D4" "$(disk DATA4 device)" "second run: size: finds the same disk (4Kn)"
assert_eq "$rules_before" "$(stat -c '%i %Y.%y %s' "$RULES")" "rules file inode/mtime"
cmp -s "$T_TMP/rules.1" "$RULES" || fail "rules file content changed"
assert_eq "$sums_before" "$(disk_sums "$D1" "$D2" "$D3" "$D4")" "disk contents after run 2"

# --- a third run while two partitions are open exclusively (in use) --------
# nothing is to be written, so being in use is no reason to refuse
python3 -c '
import os, sys, time
fds = [os.open(p, os.O_RDONLY | os.O_EXCL) for p in sys.argv[1:]]
open(os.environ["T_TMP"] + "/held", "w").close()
time.sleep(120)' "${D1}p1" "${D3}p1" &
holder=$!
at_exit "kill $holder 2>/dev/null; wait $holder 2>/dev/null"
for i in $(seq 1 50); do
	[ -e "$T_TMP/held" ] && break
	sleep 0.1
done
[ -e "$T_TMP/held" ] || fail "could not open the partitions exclusively"
prov 0 "$T_TMP/asm.conf"
for n in DATA1 DATA3; do
	assert_eq kept "$(disk "$n" action)" "in use: $n action"
done
assert_eq "$D3" "$(disk DATA3 device)" "in use: size: finds the same disk"
kill "$holder"
wait "$holder" 2>/dev/null || true
assert_eq "$rules_before" "$(stat -c '%i %Y.%y %s' "$RULES")" "in use: rules file inode/mtime"

# --- the table output, and --dry-run on a provisioned set -------------------
rc=0
"$PARTALIGN" provision --config "$T_TMP/asm.conf" --root "$ROOT" --dry-run \
	>"$T_TMP/table" 2>"$T_TMP/err" || rc=$?
assert_eq 0 "$rc" "dry run of a provisioned set: $(cat "$T_TMP/err")"
grep -Eq "^DATA3 +$D3 +${D3}p1 +kept +yes" "$T_TMP/table" ||
	fail "table output: $(cat "$T_TMP/table")"

# --- a disk with a filesystem, beside a blank one ---------------------------
D5=$(mkdisk fs 32M 512)
D6=$(mkdisk blank 32M 512)
mkfs.ext4 -q "$D5"
fs_before=$(disk_sums "$D5")
printf 'rules /etc/udev/rules.d/98-other.rules\nFS1 %s\nNEW1 %s\n' "$D5" "$D6" >"$T_TMP/fs.conf"
prov 5 "$T_TMP/fs.conf"
assert_eq refused "$(disk FS1 action)" "filesystem disk: action"
disk FS1 reason | grep ext4 >/dev/null || fail "filesystem disk: reason: $(disk FS1 reason)"
assert_eq null "$(disk FS1 partition)" "filesystem disk: partition"
assert_eq created "$(disk NEW1 action)" "blank disk beside it: action"
assert_eq skipped "$(jq -r .rules.result "$T_TMP/out.json")" "rules with a refused disk"
[ ! -e "$ROOT/etc/udev/rules.d/98-other.rules" ] || fail "rules written although a disk was refused"
assert_eq "$fs_before" "$(disk_sums "$D5")" "filesystem disk content"
grep -q "FS1: /dev/.*refused: .*ext4" "$T_TMP/err" ||
	grep -q "FS1: .*ext4" "$T_TMP/err" || fail "no refusal on stderr: $(cat "$T_TMP/err")"

# --- the partition provision makes, but under another name ------------------
printf 'OTHER %s\n' "$D1" >"$T_TMP/other.conf"
before=$(disk_sums "$D1")
prov 4 "$T_TMP/other.conf"
assert_eq refused "$(disk OTHER action)" "another name: action"
disk OTHER reason | grep "named DATA1, not OTHER" >/dev/null ||
	fail "another name: reason: $(disk OTHER reason)"
assert_eq "$before" "$(disk_sums "$D1")" "another name: disk content"

# --- --dry-run on a blank disk ----------------------------------------------
D7=$(mkdisk dry 32M 4096)
before=$(disk_sums "$D7")
printf 'rules /etc/udev/rules.d/97-dry.rules\nDRY1 %s\n' "$D7" >"$T_TMP/dry.conf"
prov 1 "$T_TMP/dry.conf" --dry-run
assert_eq true "$(jq -r .dry_run "$T_TMP/out.json")" "dry run: dry_run"
assert_eq true "$(jq -r .changed "$T_TMP/out.json")" "dry run: changed (would change)"
assert_eq created "$(disk DRY1 action)" "dry run: action"
assert_eq true "$(disk DRY1 aligned)" "dry run: aligned"
assert_eq "$before" "$(disk_sums "$D7")" "dry run: disk content"
[ ! -e "$ROOT/etc/udev/rules.d/97-dry.rules" ] || fail "dry run wrote rules"

# --- size: with two candidates ----------------------------------------------
D8=$(mkdisk amb1 "${SZ3}M" 512)
D9=$(mkdisk amb2 "${SZ3}M" 512)
before=$(disk_sums "$D8" "$D9")
printf 'AMB %s\n' "size:${SZ3}MiB" >"$T_TMP/amb.conf"
prov 8 "$T_TMP/amb.conf"
assert_eq error "$(disk AMB action)" "ambiguous size: action"
assert_eq null "$(disk AMB device)" "ambiguous size: device"
disk AMB reason | grep "2 blank disks" >/dev/null || fail "ambiguous size: reason: $(disk AMB reason)"
assert_eq "$before" "$(disk_sums "$D8" "$D9")" "ambiguous size: disk contents"

# --- JSON escaping: a selector with a quote and a backslash ------------------
printf 'ODD /dev/no"such\\disk\n' >"$T_TMP/odd.conf"
prov 8 "$T_TMP/odd.conf"
assert_eq '/dev/no"such\disk: no such device' "$(disk ODD reason)" "escaped reason"
assert_eq '/dev/no"such\disk' "$(disk ODD selector)" "escaped selector"

# --- a bad configuration line -----------------------------------------------
printf '# fine so far\nGOOD %s\nBAD %s mode=999\n' "$D8" "$D9" >"$T_TMP/bad.conf"
prov 16 "$T_TMP/bad.conf"
grep -qF "$T_TMP/bad.conf:3: mode=999" "$T_TMP/err" || fail "bad line not named: $(cat "$T_TMP/err")"
assert_eq 1 "$(grep -c . "$T_TMP/err")" "one line per bad line on stderr: $(cat "$T_TMP/err")"
[ ! -s "$T_TMP/out.json" ] || fail "a configuration error printed a summary"
assert_eq "$before" "$(disk_sums "$D8" "$D9")" "bad configuration: disk contents"
echo "PASS: provision on 512/4Kn disks by path and size, idempotency, refusals, dry run"
