# Oracle ASM on a dm-multipath map (issue #34): an ASM disk header, written
# here from the public kfed layout (block 0 and its backup in AU 1, block
# 254), on a LUN seen through two virtio-scsi paths (disks.conf serial
# pa-asm-mp), a map over them with queue_if_no_path, as multipathd makes it.
# Every block device of the LUN carries the header: check --asm shows the
# disk on the map and on both paths, names the map as the one ASM should
# see and exits 32; rules --from-asm names the map (DM_UUID), never a path;
# partalign-collect (busybox sh) brings the same blocks and check --asm
# --sysroot of its collection gives the live rows.  Then both paths fail:
# I/O to the map queues for good, as on a dead SAN, and check --asm and the
# collector still finish, each read given up after 10 s, naming the map,
# also through a pipe (nothing left stuck holds it open).
# Everything is undone at the end (paths back, map removed, header wiped).

label=asm
collector=/usr/share/partalign/partalign-collect
map=pa-asm-mp
set -- $(vm_disks_by_serial pa-asm-mp)
[ $# -eq 2 ] || vm_fatal "expected two paths with serial pa-asm-mp, found $#: $*"
p1=$1 p2=$2
wwid=$(vm_udev_prop "/dev/$p1" ID_SERIAL)
[ -n "$wwid" ] || vm_fatal "$p1 has no ID_SERIAL"

# the header, byte by byte (kfed's kfdhdb offsets + 32), little-endian
le16() { printf "\\$(printf %o $(($1 & 255)))\\$(printf %o $((($1 >> 8) & 255)))"; }
le32() {
	le16 $(($1 & 65535))
	le16 $((($1 >> 16) & 65535))
}
pad() { dd if=/dev/zero bs="$1" count=1 2>/dev/null; }
name32() {
	printf '%s' "$1"
	pad $((32 - ${#1}))
}
hdr_block() { # GROUP DISK NUM BLK -> one 4096-byte block on stdout
	printf '\001\202\001\001' # endian 1, hard 0x82, type 1 (disk header), datfmt 1
	le32 "$4"                 # block.blk
	le32 $((0x80000000 + $3)) # block.obj: disk number
	pad 20                    # check (not public: 0), fcn, spare
	printf 'ORCLDISK'
	pad 24                                      # provstr, no ASMLib label
	le32 $((0x0b200000))                        # compat 11.2
	le16 "$3"                                   # dsknum
	printf '\001\003'                           # grptyp external, hdrsts MEMBER
	name32 "$2"                                 # dskname
	name32 "$1"                                 # grpname
	name32 "$2"                                 # fgname
	pad $((0xd8 - 0xa8))                        # capname, time stamps
	le16 512                                    # secsize
	le16 4096                                   # blksize
	le32 1048576                                # ausize
	le32 0                                      # mfact
	le32 30                                     # dsksize, in AUs
	pad $((4096 - 0xe8))
}
hdr_block MPDATA MPDATA_0000 0 0 >/tmp/asm-h0
hdr_block MPDATA MPDATA_0000 0 254 >/tmp/asm-h1
dd if=/tmp/asm-h0 of="/dev/$p1" bs=4096 seek=0 conv=fsync 2>/dev/null &&
	dd if=/tmp/asm-h1 of="/dev/$p1" bs=4096 seek=510 conv=fsync 2>/dev/null ||
	vm_fatal "cannot write the ASM header to $p1"
blockdev --flushbufs "/dev/$p2"
got=$(od -An -tx1 -N 4 "/dev/$p2" | tr -s ' ')
[ "$got" = " 01 82 01 01" ] || vm_fatal "$p2 does not show the header written through $p1: $got"
sectors=$(cat "/sys/block/$p1/size")
dmsetup create "$map" --uuid "mpath-$wwid" --table \
	"0 $sectors multipath 1 queue_if_no_path 0 1 1 round-robin 0 2 1 /dev/$p1 1000 /dev/$p2 1000" ||
	vm_fatal "dmsetup create of the multipath map failed"
udevadm trigger --action=change "/sys/class/block/$p1" "/sys/class/block/$p2"
vm_settle
dm=$(vm_dm_by_name "$map")
[ -n "$dm" ] || vm_fatal "no dm device for $map"
udevadm trigger --action=change "/sys/class/block/$dm"
vm_settle

cleanup() {
	dmsetup message "$map" 0 fail_if_no_path 2>/dev/null
	dmsetup message "$map" 0 "reinstate_path /dev/$p1" 2>/dev/null
	dmsetup message "$map" 0 "reinstate_path /dev/$p2" 2>/dev/null
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		dmsetup remove "$map" 2>/dev/null && break
		sleep 1
	done
	dd if=/dev/zero of="/dev/$p1" bs=4096 count=1 conv=fsync 2>/dev/null
	dd if=/dev/zero of="/dev/$p1" bs=4096 seek=510 count=1 conv=fsync 2>/dev/null
	udevadm trigger --action=change "/sys/class/block/$p1" "/sys/class/block/$p2"
	vm_settle
	rm -rf /tmp/asm-col /tmp/asm-dead
}

# --- every device of the LUN carries the header ------------------------------
devs="/dev/mapper/$map /dev/$p1 /dev/$p2"
# shellcheck disable=SC2086
partalign check --asm --json $devs >/tmp/asm.json 2>/tmp/asm.err
rc=$?
rows=$(jq -r '.devices[] | "\(.name) \(.type) \(."asm-group") \(."asm-disk") \(."asm-status")"' /tmp/asm.json)
want=$(printf '%s\n' "$map mpath MPDATA MPDATA_0000 MEMBER" "$p1 path MPDATA MPDATA_0000 MEMBER" \
	"$p2 path MPDATA MPDATA_0000 MEMBER")
if [ "$rc" = 32 ] && [ "$rows" = "$want" ]; then
	vm_pass "$label/rows" "the map first, then its paths, each with the header; exit 32"
else
	vm_fail "$label/rows" "exit $rc, rows: $(echo "$rows" | tr '\n' ';') stderr: $(tr '\n' ' ' </tmp/asm.err)"
fi
bad=
for n in "$map" "$p1" "$p2"; do
	r=$(jq -r --arg n "$n" '.devices[] | select(.name == $n) | .reason' /tmp/asm.json)
	case $r in
	*"disk MPDATA_0000 of MPDATA is also on "*": ASM must see it only as /dev/mapper/$map (ORA-15020)"*) ;;
	*) bad="$bad $n: $r;" ;;
	esac
done
if [ -z "$bad" ]; then
	vm_pass "$label/duplicate" "each device names the others and /dev/mapper/$map as the one ASM should see"
else
	vm_fail "$label/duplicate" "$bad"
fi

# rules --from-asm: one rule, on the map's DM_UUID
# shellcheck disable=SC2086
partalign rules --from-asm --dry-run --output /tmp/asm.rules $devs >/tmp/asm-rules.out 2>/tmp/asm-rules.err
rc=$?
n=$(grep -c '^+ACTION==' /tmp/asm-rules.out)
if [ "$rc" = 1 ] && [ "$n" = 1 ] &&
	grep -qF "ENV{DM_UUID}==\"mpath-$wwid\", SYMLINK+=\"oracleasm/MPDATA_0000\"" /tmp/asm-rules.out; then
	vm_pass "$label/rules" "rules --from-asm: one rule, MPDATA_0000 on DM_UUID mpath-$wwid"
else
	vm_fail "$label/rules" "exit $rc, $n rules: $(tr '\n' ' ' </tmp/asm-rules.out) $(tr '\n' ' ' </tmp/asm-rules.err)"
fi

# the collector brings the blocks; check --asm --sysroot gives the live rows
rm -rf /tmp/asm-col
sh "$collector" /tmp/asm-col >/tmp/asm-col.log 2>&1 || vm_fail "$label/collect" "exit $?: $(tr '\n' ' ' </tmp/asm-col.log)"
# shellcheck disable=SC2086
partalign check --asm --json --sysroot /tmp/asm-col $devs >/tmp/asm-sr.json 2>/tmp/asm-sr.err
sr_rc=$?
if [ "$sr_rc" = 32 ] && [ "$(jq -S . /tmp/asm.json)" = "$(jq -S . /tmp/asm-sr.json)" ]; then
	vm_pass "$label/collect" "check --asm --sysroot of the collection: the live rows, exit 32"
else
	vm_fail "$label/collect" "exit $sr_rc: $(tr '\n' ' ' </tmp/asm-sr.err)"
	diff /tmp/asm.json /tmp/asm-sr.json | head -n 10
fi

# --- both paths fail: I/O to the map queues for good -----------------------
dmsetup message "$map" 0 "fail_path /dev/$p1" && dmsetup message "$map" 0 "fail_path /dev/$p2" ||
	vm_fail "$label/dead-setup" "cannot fail the paths of $map"
t0=$(date +%s)
# through a pipe: the reader left stuck on the map must not hold it open
{
	# shellcheck disable=SC2086
	partalign check --asm --json $devs 2>/tmp/asm-dead.err
	echo $? >/tmp/asm-dead.rc
} | cat >/tmp/asm-dead.json
rc=$(cat /tmp/asm-dead.rc)
t=$(($(date +%s) - t0))
rows=$(jq -r '[.devices[].name] | join(" ")' /tmp/asm-dead.json 2>/dev/null)
if [ $((rc & 8)) = 8 ] && [ "$t" -lt 60 ] && [ "$rows" = "$p1 $p2" ] &&
	grep -q "/dev/$dm: no answer within 10 s (a dead path?): its ASM header is not read" /tmp/asm-dead.err; then
	vm_pass "$label/dead-check" "check --asm gave up on the queueing map after $t s (exit $rc) and showed the paths"
else
	vm_fail "$label/dead-check" "exit $rc after $t s, rows '$rows': $(tr '\n' ' ' </tmp/asm-dead.err)"
fi
t0=$(date +%s)
rm -rf /tmp/asm-dead
sh "$collector" /tmp/asm-dead >/tmp/asm-dead.log 2>&1
rc=$?
t=$(($(date +%s) - t0))
if [ "$rc" = 0 ] && [ "$t" -lt 60 ] && grep -q "^error 0 " "/tmp/asm-dead/asm/$(cat "/sys/block/$dm/dev")" &&
	grep -q "/dev/$dm: cannot read its ASM header block at byte 0" /tmp/asm-dead.log; then
	vm_pass "$label/dead-collect" "partalign-collect gave up on the map after $t s and went on"
else
	vm_fail "$label/dead-collect" "exit $rc after $t s: $(tr '\n' ' ' </tmp/asm-dead.log)"
fi
t0=$(date +%s)
sh "$collector" --send 2>/dev/null | cat >/tmp/asm-dead.send
t=$(($(date +%s) - t0))
if [ "$t" -lt 60 ] && [ "$(tail -n 1 /tmp/asm-dead.send)" = "@@PARTALIGN-COLLECT END" ]; then
	vm_pass "$label/dead-send" "partalign-collect --send through a pipe ended after $t s"
else
	vm_fail "$label/dead-send" "after $t s: $(tail -n 2 /tmp/asm-dead.send | tr '\n' ' ')"
fi

cleanup
