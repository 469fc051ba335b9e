#!/bin/bash
# The shipped udev rule (udev-rules/60-partalign.rules.in) and the
# subcommand it runs, partalign udev DEVNAME:
#   - exact output on a policy-aligned and a misaligned loop partition, and
#     on a physically misaligned partition of a faked 512e disk (umockdev);
#   - the output is safe for a shell's eval;
#   - real udev (udevadm test in a private namespace) imports PARTALIGN_* into
#     its database, where udevadm info shows them, and queues the syslog RUN
#     only for a physically or optimally misaligned partition.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/rules/lib.sh"
need_no_sanitizers "umockdev-run"
need_cmd umockdev-run

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

# --- a physically misaligned partition: a 512e disk faked with umockdev --------
# start 63 * 512 = 32256 B: 3584 B past a 4 KiB sector, so the kernel's
# alignment_offset of the partition is (4096 - 3584) % 4096 = 512
cat >"$T_TMP/512e.umockdev" <<'EOF'
P: /devices/pci0000:00/0000:00:05.0/virtio2/host0/target0:0:0/0:0:0:0/block/sdb
N: sdb
E: DEVNAME=/dev/sdb
E: DEVTYPE=disk
E: MAJOR=8
E: MINOR=16
E: SUBSYSTEM=block
A: dev=8:16
A: size=41943040
A: alignment_offset=0
A: queue/logical_block_size=512
A: queue/physical_block_size=4096
A: queue/minimum_io_size=4096
A: queue/optimal_io_size=1048576

P: /devices/pci0000:00/0000:00:05.0/virtio2/host0/target0:0:0/0:0:0:0/block/sdb/sdb1
N: sdb1
E: DEVNAME=/dev/sdb1
E: DEVTYPE=partition
E: PARTN=1
E: MAJOR=8
E: MINOR=17
E: SUBSYSTEM=block
A: dev=8:17
A: partition=1
A: start=63
A: size=2097152
A: alignment_offset=512
EOF
out=$(umockdev-run --device "$T_TMP/512e.umockdev" -- "$PARTALIGN" udev sdb1)
assert_eq "PARTALIGN_PHYSICAL=misaligned
PARTALIGN_OPTIMAL=misaligned
PARTALIGN_POLICY=misaligned
PARTALIGN_REASON='physical: 3584 B past a 4 KiB boundary; optimal: 32256 B past a 1 MiB boundary; policy: 32256 B past a 2 MiB boundary'" "$out" "512e partition at sector 63"
out=$(umockdev-run --device "$T_TMP/512e.umockdev" -- "$PARTALIGN" udev --log sdb1)
assert_eq "" "$out" "--log prints nothing"

# --- real udev ----------------------------------------------------------------------
# udev runs programs with an environment of its own; this wrapper carries
# umockdev's into partalign for the faked disk.
sed "s|@sbindir@|$R_NS/bin|g" "$IN" >"$R_RULES/60-partalign.rules"
ln -s "$PARTALIGN" "$R_NS/bin/partalign.real"
cat >"$R_NS/bin/partalign" <<EOF
#!/bin/sh
[ -f "$R_NS/umockdev.env" ] && . "$R_NS/umockdev.env"
exec "$R_NS/bin/partalign.real" "\$@"
EOF
chmod +x "$R_NS/bin/partalign"

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
grep -q 'partalign udev' \$R_NS/utest-\$d.out && fail 'the rule ran for a whole disk'
# a physically misaligned partition is logged when it is added
umockdev-run --device '$T_TMP/512e.umockdev' -- sh -c '
	echo \"export LD_PRELOAD=\\\"\$LD_PRELOAD\\\" UMOCKDEV_DIR=\\\"\$UMOCKDEV_DIR\\\"\" >\"\$1/umockdev.env\"
	udevadm test --action=add /sys/class/block/sdb1 >\"\$1/utest-mock.out\" 2>&1' sh \$R_NS
rm \$R_NS/umockdev.env
grep -q 'PARTALIGN_PHYSICAL=misaligned' \$R_NS/utest-mock.out ||
	fail \"udev did not import the faked partition's state: \$(grep -i partalign \$R_NS/utest-mock.out)\"
grep -q \"run: '\$R_NS/bin/partalign udev --log sdb1'\" \$R_NS/utest-mock.out ||
	fail \"no syslog RUN for a physically misaligned partition: \$(grep -i 'run' \$R_NS/utest-mock.out)\"
[ \$(grep -c \"run: '\$R_NS/bin/partalign udev --log\" \$R_NS/utest-mock.out) = 1 ] ||
	fail 'the syslog RUN was queued twice'
"
echo "PASS: shipped rule and partalign udev"
