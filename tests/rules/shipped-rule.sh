#!/bin/bash
# The shipped udev rule (udev-rules/60-partalign.rules.in) and the
# subcommand it runs, partalign udev DEVNAME, on real loop partitions:
#   - exact output on a policy-aligned and a misaligned loop partition;
#   - the output is safe for a shell's eval;
#   - real udev (udevadm test in a private namespace) imports PARTALIGN_* into
#     its database, where udevadm info shows them, and does not queue the
#     syslog RUN for a partition misaligned only against the policy.
# The physically misaligned partition of a faked 512e disk, which only
# umockdev can show here, is shipped-rule-512e.sh: this test needs no
# umockdev and always runs.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/rules/lib.sh"

IN="$top_srcdir/udev-rules/60-partalign.rules.in"
BUILT="$top_builddir/udev-rules/60-partalign.rules"
[ -f "$BUILT" ] || fail "$BUILT was not built"
grep -q '@' "$BUILT" && fail "$BUILT still holds @...@ placeholders"
diff <(sed 's|@sbindir@|X|g' "$IN") <(sed -E 's|(IMPORT\{program\}="\|RUN\+=")[^ ]*/partalign|\1X/partalign|' "$BUILT") >/dev/null ||
	fail "$BUILT is not $IN with the binary's directory filled in"

# 2 MiB-aligned (4096) and misaligned (34) starts on a 512-byte loop disk
D=$(mkdisk d 32M 512 'label: gpt\nfirst-lba: 34\nstart=4096, size=8192\nstart=34, size=2048')
d=${D#/dev/}
[ -e "/sys/class/block/${d}p2" ] || fail "partitions of $D were not created"

out=$("$PARTALIGN" udev "${d}p1")
assert_eq "PARTALIGN_PHYSICAL=ok
PARTALIGN_OPTIMAL=n/a
PARTALIGN_POLICY=ok
PARTALIGN_REASON='optimal: the device reports no optimal I/O size'" "$out" "aligned partition"
out=$("$PARTALIGN" udev "/dev/${d}p2")
assert_eq "PARTALIGN_PHYSICAL=ok
PARTALIGN_OPTIMAL=n/a
PARTALIGN_POLICY=misaligned
PARTALIGN_REASON='policy: 17 KiB past a 2 MiB boundary; optimal: the device reports no optimal I/O size'" "$out" "misaligned partition"
out=$("$PARTALIGN" udev --align 1KiB "${d}p2")
assert_eq "PARTALIGN_POLICY=ok" "$(echo "$out" | grep POLICY)" "--align"
# a shell can eval it
(
	eval "$out"
	[ "$PARTALIGN_PHYSICAL" = ok ] && [ "$PARTALIGN_POLICY" = ok ] &&
		[ "$PARTALIGN_REASON" = "optimal: the device reports no optimal I/O size" ]
) || fail "the output does not eval in a shell: $out"
rc=0
"$PARTALIGN" udev "${d}p9" >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
assert_eq 8 "$rc" "no such device"
[ ! -s "$T_TMP/out" ] || fail "output for a missing device"
rc=0
"$PARTALIGN" udev ../../etc >/dev/null 2>&1 || rc=$?
assert_eq 8 "$rc" "a path that is not a kernel name"
rc=0
"$PARTALIGN" udev >/dev/null 2>&1 || rc=$?
assert_eq 16 "$rc" "no device name"

# --- real udev ----------------------------------------------------------------------
sed "s|@sbindir@|$R_NS/bin|g" "$IN" >"$R_RULES/60-partalign.rules"
ln -s "$PARTALIGN" "$R_NS/bin/partalign"

ns_run "$D" "${D}p1" "${D}p2" -- "
d=$d
$(declare -f fail assert_eq)
utest add \$d
for p in \${d}p1 \${d}p2; do
	utest add \$p
	grep -q \"Importing properties from results of '\$R_NS/bin/partalign udev \$p'\" \$R_NS/utest-\$p.out ||
		fail \"the rule did not run partalign udev for \$p\"
done
info=\$(udevadm info --query=property /dev/\${d}p1 | grep '^PARTALIGN_')
assert_eq \"PARTALIGN_PHYSICAL=ok
PARTALIGN_OPTIMAL=n/a
PARTALIGN_POLICY=ok
PARTALIGN_REASON=optimal: the device reports no optimal I/O size\" \"\$info\" 'udevadm info, aligned'
udevadm info --query=property /dev/\${d}p2 | grep -x 'PARTALIGN_POLICY=misaligned' >/dev/null ||
	fail 'udevadm info, misaligned'
grep -q 'partalign udev --log' \$R_NS/utest-\${d}p2.out && fail 'syslog RUN queued for a policy-only misalignment'
# the whole disk is not a partition: no import
utest change \$d
if grep -q 'partalign udev' \$R_NS/utest-\$d.out; then fail 'the rule ran for a whole disk'; fi
"
echo "PASS: shipped rule and partalign udev"
