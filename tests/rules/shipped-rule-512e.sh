#!/bin/bash
# The shipped udev rule (udev-rules/60-partalign.rules.in) and partalign udev
# on a physically misaligned partition of a 512e disk, which no loop device
# can be (their physical sector is their logical one): faked with umockdev.
#   - partalign udev sdb1 for a partition at sector 63 of a 512/4096 disk:
#     physical, optimal and policy misaligned, the exact reasons; --log
#     prints nothing;
#   - real udev (udevadm test in a private namespace, umockdev's environment
#     carried into the rule's partalign) imports PARTALIGN_PHYSICAL=misaligned
#     and queues the syslog RUN once.
# The rest of the shipped rule runs on real loop partitions without umockdev
# (shipped-rule.sh).
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/rules/lib.sh"
need_no_sanitizers "umockdev-run"
need_cmd umockdev-run

IN="$top_srcdir/udev-rules/60-partalign.rules.in"

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

ns_run -- "
$(declare -f fail assert_eq)
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
echo "PASS: shipped rule and partalign udev on a faked 512e disk"
