#!/bin/bash
# partalign rules against real udev: the generated file is applied by
# udevadm test (udev 252 applies rules for real) in a private mount namespace,
# and the link, its target, owner, group and mode are checked there.
#   disk A: GPT, two partitions with known PARTUUIDs        -> PARTUUID rules
#   disk B: MBR; a test rule gives it a WWN and a serial    -> ID_WWN + PARTN
#   disk C: MBR; a test rule gives it only a serial          -> ID_SERIAL + PARTN
#   disk D: MBR; the test rule gives it B's WWN (a clone)   -> refused
# A stand-in udevadm first in PATH must not be run (the system's is, and fails:
# no udevd in the namespace); nor one in a PARTALIGN_TOOLDIR its group may
# write or another user owns (a warning says it is ignored).
# Then the write-and-apply path with a stand-in udevadm (in PARTALIGN_TOOLDIR,
# the documented override) whose "trigger" runs
# the real udevadm test: links verified by partalign itself, a rerun that
# changes nothing, a lost link restored, a dropped name's link removed, and a
# verification that fails.
# without it nothing below is safe: every path would start at /
. "$top_srcdir/tests/lib/common.sh" || exit 99
. "$top_srcdir/tests/rules/lib.sh"

U1=6d3c6c1e-8e1b-4c4e-9f2a-0a1b2c3d4e01
U2=6d3c6c1e-8e1b-4c4e-9f2a-0a1b2c3d4e02
A=$(mkdisk a 64M 512 "label: gpt\nstart=2048, size=20480, uuid=$U1\nstart=22528, size=20480, uuid=$U2")
B=$(mkdisk b 64M 512 'label: dos\nlabel-id: 0x1234abcd\nstart=2048, size=20480\nstart=22528, size=20480')
C=$(mkdisk c 32M 512 'label: dos\nlabel-id: 0x5678abcd\nstart=2048, size=20480')
D=$(mkdisk d 32M 512 'label: dos\nlabel-id: 0x9abcdef0\nstart=2048, size=20480')
a=${A#/dev/} b=${B#/dev/} c=${C#/dev/} d=${D#/dev/}
for p in "${a}p1" "${a}p2" "${b}p1" "${b}p2" "${c}p1" "${d}p1"; do
	[ -e "/sys/class/block/$p" ] || fail "partition $p was not created"
done

# The test's stand-in for scsi_id: hardware IDs of the loop disks, which
# 60-persistent-storage.rules copies to their partitions.
cat >"$R_RULES/10-partalign-test-ids.rules" <<EOF
KERNEL=="$b", ENV{DEVTYPE}=="disk", ENV{ID_WWN}="0x5000c500a1b2c3d4", ENV{ID_SERIAL}="35000c500a1b2c3d4", ENV{ID_MODEL}="PA_TEST_DISK"
KERNEL=="$c", ENV{DEVTYPE}=="disk", ENV{ID_SERIAL}="PA-TEST-SERIAL-C"
EOF
cat >"$T_TMP/asm.map" <<EOF
# name   device
DATA1    $A
DATA1    ${A}p1
DATA2    partuuid:$U2
WWN1     ${B}p1     grid asmadmin 0660
SER1     serial:PA-TEST-SERIAL-C-part1
EOF
# one name twice is refused before anything is scanned
rc=0
"$PARTALIGN" rules --map "$T_TMP/asm.map" --output "$T_TMP/x.rules" --no-reload \
	2>"$T_TMP/err" || rc=$?
assert_eq 16 "$rc" "one name twice"
grep -q "asm.map:3: name DATA1 given twice (also $T_TMP/asm.map:2 as DATA1)" "$T_TMP/err" ||
	fail "no message for the name given twice: $(cat "$T_TMP/err")"
sed -i '/^DATA1    \/dev\/loop[0-9]*$/d' "$T_TMP/asm.map"

REAL_UDEVADM=$(command -v udevadm)
cat >"$R_NS/bin/udevadm" <<EOF
#!/bin/bash
# Stands in for udevadm in the test namespace, where no udevd runs: "trigger"
# has the real udevadm test apply the rules to each device named.
echo "udevadm \$*" >>"$R_NS/udevadm.log"
case "\$1" in
control | settle) exit 0 ;;
trigger)
	shift
	action=change
	for a; do
		case "\$a" in
		--action=*) action=\${a#--action=} ;;
		-*) ;;
		*) [ -e "$R_NS/trigger-noop" ] ||
			"$REAL_UDEVADM" test --action="\$action" "\$a" >>"$R_NS/trigger.out" 2>&1 ;;
		esac
	done
	;;
*) exec "$REAL_UDEVADM" "\$@" ;;
esac
EOF
chmod +x "$R_NS/bin/udevadm"

ns_run "$A" "${A}p1" "${A}p2" "$B" "${B}p1" "${B}p2" "$C" "${C}p1" "$D" "${D}p1" -- "
a=$a b=$b c=$c d=$d U1=$U1 U2=$U2 MAP='$T_TMP/asm.map'
$(declare -f fail assert_eq)

# udev's database of the namespace: every disk first, then its partitions
for n in \$a \$b \$c \$d \${a}p1 \${a}p2 \${b}p1 \${b}p2 \${c}p1 \${d}p1; do
	utest add \$n
done
grep -q '^ID_SERIAL=PA-TEST-SERIAL-C\$' \$R_NS/utest-\${c}p1.out ||
	fail 'the partition did not inherit the test serial'

rc=0
\"\$PARTALIGN\" rules --map \"\$MAP\" --output \$R_OUT --no-reload >\$R_NS/out 2>\$R_NS/err || rc=\$?
assert_eq 1 \$rc \"first run: \$(cat \$R_NS/err)\"
grep -q 'written (4 rules)' \$R_NS/out || fail \"no 'written': \$(cat \$R_NS/out)\"
want() {
	grep -Fxq \"\$1\" \$R_OUT || fail \"rule missing: \$1\"\$'\\n'\"\$(cat \$R_OUT)\"
}
A='ACTION==\"add|change\", SUBSYSTEM==\"block\", ENV{DEVTYPE}==\"partition\"'
O='OWNER=\"grid\", GROUP=\"asmadmin\", MODE=\"0660\", OPTIONS:=\"nowatch\"'
want \"\$A, ENV{ID_PART_ENTRY_UUID}==\\\"\$U1\\\", SYMLINK+=\\\"oracleasm/DATA1\\\", \$O\"
want \"\$A, ENV{ID_PART_ENTRY_UUID}==\\\"\$U2\\\", SYMLINK+=\\\"oracleasm/DATA2\\\", \$O\"
want \"\$A, ENV{ID_WWN}==\\\"0x5000c500a1b2c3d4\\\", ENV{PARTN}==\\\"1\\\", SYMLINK+=\\\"oracleasm/WWN1\\\", \$O\"
want \"\$A, ENV{ID_SERIAL}==\\\"PA-TEST-SERIAL-C\\\", ENV{PARTN}==\\\"1\\\", SYMLINK+=\\\"oracleasm/SER1\\\", \$O\"
want '# WWN1: partition 1 (10 MiB) of PA_TEST_DISK (64 MiB), WWN 0x5000c500a1b2c3d4'

# real udev applies them
for n in \${a}p1 \${a}p2 \${b}p1 \${c}p1; do
	utest add \$n
done
assert_eq \"../\${a}p1 grid:asmadmin 660\" \"\$(link_state DATA1)\" DATA1
assert_eq \"../\${a}p2 grid:asmadmin 660\" \"\$(link_state DATA2)\" DATA2
assert_eq \"../\${b}p1 grid:asmadmin 660\" \"\$(link_state WWN1)\" WWN1
assert_eq \"../\${c}p1 grid:asmadmin 660\" \"\$(link_state SER1)\" SER1
# ... and to nothing else: the other partition and the disk of the WWN rule
utest add \${b}p2
utest add \$b
! grep -q oracleasm \$R_NS/utest-\${b}p2.out || fail 'the WWN rule matched partition 2'
! grep -q oracleasm \$R_NS/utest-\$b.out || fail 'the WWN rule matched the whole disk'
assert_eq 'root:disk 660' \"\$(stat -c '%U:%G %a' /dev/\${b}p2)\" 'owner of an unnamed partition'

# disk D claims B's WWN (a clone): a rule on it would name both
echo 'KERNEL==\"'\$d'\", ENV{DEVTYPE}==\"disk\", ENV{ID_WWN}=\"0x5000c500a1b2c3d4\"' \
	>>/etc/udev/rules.d/10-partalign-test-ids.rules
utest add \$d
utest add \${d}p1
rc=0
\"\$PARTALIGN\" rules --disk X=/dev/\${b}p1 --output \$R_NS/clone.rules --no-reload 2>\$R_NS/err || rc=\$?
assert_eq 8 \$rc 'clone refused'
grep -q \"/dev/\${b}p1: ID_WWN 0x5000c500a1b2c3d4 with partition 1 is not unique: /dev/\${d}p1 has it too\" \$R_NS/err ||
	fail \"clone message: \$(cat \$R_NS/err)\"
[ ! -e \$R_NS/clone.rules ] || fail 'a refused rule was written'
rc=0
\"\$PARTALIGN\" rules --disk X=wwn:0x5000c500a1b2c3d4-part1 --output \$R_NS/clone.rules --no-reload 2>\$R_NS/err || rc=\$?
assert_eq 8 \$rc 'ambiguous selector'
grep -q 'matches both' \$R_NS/err || fail \"ambiguous selector: \$(cat \$R_NS/err)\"
sed -i '\$d' /etc/udev/rules.d/10-partalign-test-ids.rules
utest add \$d
utest add \${d}p1

# a stand-in first in PATH is never run: programs come from the system path
rc=0
PATH=\$R_NS/bin:\$PATH \"\$PARTALIGN\" rules --map \"\$MAP\" --output \$R_NS/path.rules >\$R_NS/out 2>\$R_NS/err || rc=\$?
[ ! -s \$R_NS/udevadm.log ] || fail \"the udevadm found through PATH was run: \$(cat \$R_NS/udevadm.log)\"
grep -q \"'udevadm control --reload' failed\" \$R_NS/err ||
	fail \"the system's udevadm was not run (no udevd here): \$(cat \$R_NS/err)\"
rm -f \$R_NS/path.rules

# nor from a PARTALIGN_TOOLDIR its group may write, or another user owns:
# ignored, with a warning, and the system's udevadm runs
for how in 'chmod 0775' 'chown nobody'; do
	\$how \$R_NS/bin
	rc=0
	PARTALIGN_TOOLDIR=\$R_NS/bin \"\$PARTALIGN\" rules --map \"\$MAP\" --output \$R_NS/tool.rules \
		>\$R_NS/out 2>\$R_NS/err || rc=\$?
	[ ! -s \$R_NS/udevadm.log ] || fail \"\$how: the udevadm of PARTALIGN_TOOLDIR was run\"
	case \$how in
	chmod*) why='is writable by its group (mode 0775)' ;;
	*) why='is owned by uid 65534 (nobody), not root' ;;
	esac
	grep -Fxq \"partalign: warning: PARTALIGN_TOOLDIR ignored: \$R_NS/bin \$why; the programs partalign runs come from /usr/sbin:/usr/bin:/sbin:/bin only\" \$R_NS/err ||
		fail \"\$how: no warning: \$(cat \$R_NS/err)\"
	grep -q \"'udevadm control --reload' failed\" \$R_NS/err ||
		fail \"\$how: the system's udevadm was not run: \$(cat \$R_NS/err)\"
	chmod 0755 \$R_NS/bin
	chown root \$R_NS/bin
	rm -f \$R_NS/tool.rules
done

# the write-and-apply path, with the stand-in udevadm in PARTALIGN_TOOLDIR
export PARTALIGN_TOOLDIR=\$R_NS/bin
rm -f \$R_OUT /dev/oracleasm/*
rc=0
\"\$PARTALIGN\" rules --map \"\$MAP\" >\$R_NS/out 2>\$R_NS/err || rc=\$?
assert_eq 1 \$rc \"apply: \$(cat \$R_NS/err)\"
grep -Fxq 'udevadm control --reload' \$R_NS/udevadm.log || fail 'no reload'
grep -Fxq \"udevadm trigger --action=change /sys/class/block/\${a}p1 /sys/class/block/\${a}p2 /sys/class/block/\${b}p1 /sys/class/block/\${c}p1\" \$R_NS/udevadm.log ||
	fail \"trigger: \$(cat \$R_NS/udevadm.log)\"
grep -Fxq 'udevadm settle --timeout=60' \$R_NS/udevadm.log || fail 'no settle'
grep -Fxq \"/dev/oracleasm/WWN1 -> /dev/\${b}p1: grid:asmadmin 0660\" \$R_NS/out ||
	fail \"verified links: \$(cat \$R_NS/out)\"
assert_eq \"../\${b}p1 grid:asmadmin 660\" \"\$(link_state WWN1)\" 'WWN1 after apply'

# a second run: nothing written, nothing triggered
: >\$R_NS/udevadm.log
rc=0
\"\$PARTALIGN\" rules --map \"\$MAP\" >\$R_NS/out 2>\$R_NS/err || rc=\$?
assert_eq 0 \$rc 'second run'
grep -Fxq \"\$R_OUT: unchanged\" \$R_NS/out || fail \"second run: \$(cat \$R_NS/out)\"
[ ! -s \$R_NS/udevadm.log ] || fail \"second run ran udevadm: \$(cat \$R_NS/udevadm.log)\"

# a lost link is restored, though the file is unchanged
rm /dev/oracleasm/DATA2
rc=0
\"\$PARTALIGN\" rules --map \"\$MAP\" >\$R_NS/out 2>\$R_NS/err || rc=\$?
assert_eq 1 \$rc 'restore a link'
assert_eq \"../\${a}p2 grid:asmadmin 660\" \"\$(link_state DATA2)\" 'DATA2 restored'

# a name dropped from the map loses its link (its device gets a change event too)
grep -v '^WWN1' \"\$MAP\" >\$R_NS/map2
: >\$R_NS/udevadm.log
rc=0
\"\$PARTALIGN\" rules --map \$R_NS/map2 >\$R_NS/out 2>\$R_NS/err || rc=\$?
assert_eq 1 \$rc 'drop a name'
grep -q \"/sys/dev/block/\$(cat /sys/class/block/\${b}p1/dev)\" \$R_NS/udevadm.log ||
	fail \"dropped device not triggered: \$(cat \$R_NS/udevadm.log)\"
assert_eq missing \"\$(link_state WWN1)\" 'WWN1 after it was dropped'

# udev that does not apply the rules: partalign says so
rc=0
touch \$R_NS/trigger-noop
\"\$PARTALIGN\" rules --map \$R_NS/map2 --mode 0640 >\$R_NS/out 2>\$R_NS/err || rc=\$?
rm -f \$R_NS/trigger-noop
assert_eq 9 \$rc 'verification fails'
grep -q \"/dev/oracleasm/DATA1: /dev/\${a}p1 has mode 0660, not 0640\" \$R_NS/err ||
	fail \"verification message: \$(cat \$R_NS/err)\"
"
ls /dev/oracleasm >/dev/null 2>&1 && fail "the host's /dev got an oracleasm directory"
echo "PASS: real udev applied the generated rules"
