# Real LVM, LUKS2 and file systems judged with --probe (issue #15), on the
# virtio-blk disk with optimal I/O 192 KiB (disks.conf pa-vblk-192k; 96-stack
# leaves it as it found it, and so does this one):
#   p1 at 6 MiB: a PV with --dataalignment 1m (PE 0 at disk byte 7 MiB), VG
#      pa98p, LV pe: misaligned by pe_start; ext4 on it with a 128 KiB width
#   p2 at 17280 KiB: a PV with --dataalignment 192k, VG pa98a with 4 MiB
#      extents: LV a1 at 18 MiB (aligned, the extent size noted), LV a2 one
#      extent later at 22 MiB (off the 192 KiB stripe: the extents to blame);
#      LUKS2 on a1 with a 768 KiB payload offset; ext4 on a2 made for 64 KiB
#      x 3
#   p3, p4: two PVs of VG pa98s, a striped LV (-i2 -I64k) with XFS made for
#      its 64 KiB x 2
#   p5: XFS made for 64 KiB x 2 on the partition itself (the disk: 192 KiB)
# Every expectation is computed here from `dmsetup table`, `pvs -o pe_start`,
# `vgs -o vg_extent_size`, `cryptsetup luksDump`, `xfs_db`, `dumpe2fs` and
# sysfs, never from partalign.

label=lvmfs
d=$(vm_disks_by_serial pa-vblk-192k)
[ -n "$d" ] || vm_fatal "no virtio-blk disk pa-vblk-192k"
vm_topology "$d" "$label" "512 4096 4096 196608 0"
vm_sfdisk "$d" "$label" "label: gpt
start=12288, size=20480
start=34560, size=20480
start=57344, size=19456
start=76800, size=19456
start=96256, size=32768" "12288 34560 57344 76800 96256" || vm_fatal "cannot lay out $d"
# shellcheck disable=SC2046 # kernel names, no blanks
set -- $(vm_kernel_parts "$d")
[ $# = 5 ] || vm_fatal "$d: expected 5 partitions, the kernel has: $*"
p1=$1 p2=$2 p3=$3 p4=$4 p5=$5

mkdir -p /run/lvm /run/lock/lvm
lvmc='devices { obtain_device_list_from_udev = 0 } activation { udev_sync = 0 udev_rules = 0 }'
# The disk as 96-stack left it for later scenarios, also after a vm_fatal.
cleanup() {
	cryptsetup close pa98crypt 2>/dev/null
	lvm vgremove --config "$lvmc" -f pa98p pa98a pa98s >/dev/null 2>&1 </dev/null
	lvm pvremove --config "$lvmc" -ff -y "/dev/$p1" "/dev/$p2" "/dev/$p3" "/dev/$p4" \
		>/dev/null 2>&1 </dev/null
	for p in $p1 $p2 $p3 $p4 $p5; do
		wipefs -q -a "/dev/$p" >/dev/null 2>&1
	done
	if dmsetup ls 2>/dev/null | grep -q pa98; then
		vm_fail "$label/cleanup" "dm devices left: $(dmsetup ls | grep pa98 | tr '\n' ' ')"
	else
		vm_pass "$label/cleanup" "no pa98 dm devices left, signatures wiped"
	fi
	vm_settle
}
trap cleanup EXIT

lv() { # lvm COMMAND ARGS...
	local c=$1
	shift
	lvm "$c" --config "$lvmc" "$@" </dev/null >/tmp/lvm.out 2>&1 ||
		vm_fatal "lvm $c $*: $(tr '\n' ' ' </tmp/lvm.out)"
}
num() { # lvm COMMAND ARGS...: one number in bytes
	lvm "$1" --config "$lvmc" --noheadings --nosuffix --units b "$@" 2>/dev/null |
		tr -d ' '
}
# DM_DISABLE_UDEV: cryptsetup makes its node itself and waits for no udev
# cookie, as lvm does with the config above
export DM_DISABLE_UDEV=1
# the guest has no /etc/mke2fs.conf: ext4 as Debian's defines it (and
# busybox sh runs its own mke2fs applet before PATH's: /usr/sbin/mke2fs)
cat >/tmp/mke2fs.conf <<'EOF'
[defaults]
	base_features = sparse_super,large_file,filetype,resize_inode,dir_index,ext_attr
	blocksize = 4096
	inode_size = 256
	inode_ratio = 16384
[fs_types]
	ext4 = {
		features = has_journal,extent,huge_file,flex_bg,metadata_csum,64bit,dir_nlink,extra_isize
	}
EOF
export MKE2FS_CONFIG=/tmp/mke2fs.conf
# xfsprogs 6 makes file systems under 300 MB only for its test suite
xfs() { # SU-SW-OPTIONS DEVICE
	TEST_DIR=1 TEST_DEV=1 QA_CHECK_FS=1 mkfs.xfs -q -f -l size=8m -d "agcount=1,$1" "$2"
}

lv pvcreate -q --dataalignment 1m "/dev/$p1"
lv vgcreate -q -s 4m pa98p "/dev/$p1"
lv lvcreate -q -an -Zn -L 8m -n pe pa98p
lv pvcreate -q --dataalignment 192k "/dev/$p2"
lv vgcreate -q -s 4m pa98a "/dev/$p2"
lv lvcreate -q -an -Zn -L 4m -n a1 pa98a
lv lvcreate -q -an -Zn -L 4m -n a2 pa98a
lv pvcreate -q --dataalignment 192k "/dev/$p3" "/dev/$p4"
lv vgcreate -q -s 1m pa98s "/dev/$p3" "/dev/$p4"
lv lvcreate -q -an -Zn -i 2 -I 64k -L 16m -n str pa98s
lv vgchange -q -ay pa98p pa98a pa98s
vm_settle

# LUKS2 on a1 with its payload 768 KiB (1536 sectors, 4 x 192 KiB) in: a
# small header (two 16 KiB copies and 256 KiB of keyslots: one 256-bit key)
vm_modprobe dm_crypt && vm_modprobe xts && vm_modprobe algif_skcipher ||
	vm_fatal "cannot load dm_crypt, xts, algif_skcipher"
printf 'pa98-not-a-secret' >/tmp/pa98.key
cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
	--key-size 256 --luks2-metadata-size 16k --luks2-keyslots-size 256k --offset 1536 \
	--key-file /tmp/pa98.key /dev/mapper/pa98a-a1 >/tmp/luks.out 2>&1 ||
	vm_fatal "luksFormat: $(tr '\n' ' ' </tmp/luks.out)"
cryptsetup open -q --key-file /tmp/pa98.key /dev/mapper/pa98a-a1 pa98crypt >/tmp/luks.out 2>&1 ||
	vm_fatal "cryptsetup open: $(tr '\n' ' ' </tmp/luks.out)"
payload=$(cryptsetup luksDump /dev/mapper/pa98a-a1 | awk '/^Data segments:/ { d = 1 }
	d && $1 == "offset:" { print $2; exit }')

# the file systems
/usr/sbin/mke2fs -q -F -t ext4 -b 4096 -E stride=16,stripe_width=32 /dev/mapper/pa98p-pe >/tmp/mkfs.out 2>&1 ||
	vm_fatal "mke2fs on pa98p-pe: $(tr '\n' ' ' </tmp/mkfs.out)"
/usr/sbin/mke2fs -q -F -t ext4 -b 4096 -E stride=16,stripe_width=48 /dev/mapper/pa98a-a2 >/tmp/mkfs.out 2>&1 ||
	vm_fatal "mke2fs on pa98a-a2: $(tr '\n' ' ' </tmp/mkfs.out)"
xfs su=64k,sw=2 /dev/mapper/pa98s-str >/tmp/mkfs.out 2>&1 ||
	vm_fatal "mkfs.xfs on pa98s-str: $(tr '\n' ' ' </tmp/mkfs.out)"
xfs su=64k,sw=2 "/dev/$p5" >/tmp/mkfs.out 2>&1 ||
	vm_fatal "mkfs.xfs on $p5: $(tr '\n' ' ' </tmp/mkfs.out)"
vm_settle

# ---- the oracle --------------------------------------------------------------
s=/sys/block/$d
pg=$(cat "$s/queue/physical_block_size")
mio=$(cat "$s/queue/minimum_io_size")
[ "$mio" -gt "$pg" ] && pg=$mio
oio=$(cat "$s/queue/optimal_io_size")
pstart() { echo $(($(cat "/sys/block/$d/$1/start") * 512)); }
gcd() { local a=$1 b=$2 t; while [ "$b" != 0 ]; do t=$((a % b)); a=$b; b=$t; done; echo "$a"; }
lcm() { echo $(($1 / $(gcd "$1" "$2") * $2)); }
# a size as partalign's reasons write it: MiB or KiB when exact, else bytes
size() {
	if [ $(($1 % 1048576)) = 0 ]; then echo "$(($1 / 1048576)) MiB"
	elif [ $(($1 % 1024)) = 0 ]; then echo "$(($1 / 1024)) KiB"
	else echo "$1 B"; fi
}
# the partition of major:minor
part_of() { local p; for p in $p1 $p2 $p3 $p4 $p5; do
	[ "$(cat "/sys/block/$d/$p/dev")" = "$1" ] && echo "$p"; done; }
# the dm name of major:minor
dm_of() { local x; for x in /sys/block/dm-*; do
	[ "$(cat "$x/dev")" = "$1" ] && cat "$x/dm/name"; done; }

# The byte on the disk of byte BYTE of device MAJ:MIN (a partition of the
# disk, or a dm device followed down its linear or crypt target).
down() { # MAJ:MIN BYTE
	local p n
	p=$(part_of "$1")
	if [ -n "$p" ]; then
		echo $(($(pstart "$p") + $2))
		return
	fi
	n=$(dm_of "$1")
	dmsetup table "$n" | awk -v b="$2" '
		b >= $1 * 512 && b < ($1 + $2) * 512 {
			if ($3 == "linear") print $4, $5 * 512 + b - $1 * 512
			else if ($3 == "crypt") print $7, $8 * 512 + b - $1 * 512
		}' | {
		read -r mm off
		down "$mm" "$off"
	}
}
# "ABS CHUNK" of byte 0 of each segment (each stripe) of dm device NAME
landings() {
	dmsetup table "$1" | while read -r _ _ tgt rest; do
		# shellcheck disable=SC2086 # the table's fields
		set -- $rest
		case $tgt in
		linear) echo "$(down "$1" $(($2 * 512))) 0" ;;
		crypt) echo "$(down "$4" $(($5 * 512))) 0" ;;
		striped)
			n=$1 chunk=$(($2 * 512))
			shift 2
			while [ $# -ge 2 ]; do
				echo "$(down "$1" $(($2 * 512))) $chunk"
				shift 2
			done
			;;
		*) echo "unknown target $tgt" >&2 ;;
		esac
	done
}
# "PHYS OPT POL ABS" of the worst landing of NAME (physical 4, optimal 2,
# policy 1; the first of equals), as 96-stack judges it, but for the policy
# of a striped LV: byte 0 of each stripe is the first PE of that stripe on
# its PV, and lands on the disk where the site's grain applies (96-stack's
# striped map has both stripes on 2 MiB, where the two readings agree)
oracle() {
	landings "$1" | awk -v pg="$pg" -v og="$oio" -v pol=2097152 '
		function verdict(x, g) { return x % g == 0 ? "ok" : "misaligned" }
		{
			a = $1; chunk = $2
			ph = verdict(a, pg); op = verdict(a, og)
			po = verdict(a, pol)
			if (chunk && chunk % pg) ph = "misaligned"
			if (chunk && chunk % og && og % chunk) op = "misaligned"
			sc = (ph == "misaligned") * 4 + (op == "misaligned") * 2 + (po == "misaligned")
			if (!seen || sc > best) { best = sc; seen = 1; w = ph " " op " " po " " a }
		}
		END { print w }'
}
# "VERDICT WIDTH OPT" of the file system of TYPE on DEVNODE, whose queue
# limits are in sysfs directory Q: from xfs_db or dumpe2fs
fs_oracle() { # TYPE DEVNODE Q
	local unit width bs min opt t=$1
	shift
	case $t in
	xfs)
		bs=$(xfs_db -r -c sb -c 'p blocksize' "$1" | awk '{ print $3 }')
		unit=$(($(xfs_db -r -c sb -c 'p unit' "$1" | awk '{ print $3 }') * bs))
		width=$(($(xfs_db -r -c sb -c 'p width' "$1" | awk '{ print $3 }') * bs))
		;;
	ext4)
		/usr/sbin/dumpe2fs -h "$1" 2>/dev/null >/tmp/dumpe2fs.out
		bs=$(awk -F: '$1 == "Block size" { print $2 + 0 }' /tmp/dumpe2fs.out)
		unit=$(($(awk -F: '$1 == "RAID stride" { print $2 + 0 }' /tmp/dumpe2fs.out) * bs))
		width=$(($(awk -F: '$1 == "RAID stripe width" { print $2 + 0 }' /tmp/dumpe2fs.out) * bs))
		;;
	*) echo "none"; return ;;
	esac
	min=$(cat "$2/minimum_io_size") opt=$(cat "$2/optimal_io_size")
	if [ "$opt" = 0 ]; then
		echo "n/a $width"
	elif [ "$unit" = 0 ] || [ "$width" = 0 ] || [ $((unit % min)) != 0 ] ||
		[ $((width % opt)) != 0 ] || [ $((width % unit)) != 0 ]; then
		echo "misaligned $width $opt"
	else
		echo "ok $width $opt"
	fi
}

pe_p=$(num pvs -o pe_start "/dev/$p1") ext_p=$(num vgs -o vg_extent_size pa98p)
pe_a=$(num pvs -o pe_start "/dev/$p2") ext_a=$(num vgs -o vg_extent_size pa98a)
grain=$(lcm "$(lcm "$pg" "$oio")" 2097152)

# ---- check --probe -----------------------------------------------------------
rc_want=0
vm_run_check --probe || vm_fatal "partalign check --probe --json gave no JSON (exit $VM_RC)"
for pv in "$p1 $pe_p $ext_p" "$p2 $pe_a $ext_a" \
	"$p3 $(num pvs -o pe_start "/dev/$p3") $(num vgs -o vg_extent_size pa98s)" \
	"$p4 $(num pvs -o pe_start "/dev/$p4") $(num vgs -o vg_extent_size pa98s)"; do
	set -- $pv
	got="$(vm_json "$1" pe-start) $(vm_json "$1" extent-size)"
	if [ "$got" = "$2 $3" ]; then
		vm_pass "$label/pv-$1" "$1: pe-start $2, extent-size $3 (pvs, vgs)"
	else
		vm_fail "$label/pv-$1" "$1: pvs/vgs say '$2 $3', partalign '$got'"
	fi
done

for name in pa98p-pe pa98a-a1 pa98a-a2 pa98s-str pa98crypt; do
	dm=$(vm_dm_by_name "$name")
	[ -n "$dm" ] || { vm_fail "$label/$name" "no dm device"; continue; }
	want=$(oracle "$name")
	got="$(vm_json "$dm" physical) $(vm_json "$dm" optimal) $(vm_json "$dm" policy) $(vm_json "$dm" abs-start)"
	case $want in *misaligned*) rc_want=4 ;; esac
	if [ "$got" = "$want" ]; then
		vm_pass "$label/$name" "$dm: $got, layers $(vm_json "$dm" layers)"
	else
		vm_fail "$label/$name" "$dm: expected '$want', got '$got': $(vm_json "$dm" reason) ($(dmsetup table "$name" | tr '\n' ' '))"
	fi
done

# the reasons name the responsible layer
reason_has() { # CASE NAME TEXT
	local dm r
	dm=$(vm_dm_by_name "$2")
	r=$(vm_json "$dm" reason)
	case $r in
	*"$3"*) vm_pass "$label/$1" "$2 ($dm): $3" ;;
	*) vm_fail "$label/$1" "$2 ($dm): reason '$r' does not say '$3'" ;;
	esac
}
off_pe=$(($(dmsetup table pa98p-pe | awk '{ print $5 }') * 512))
[ "$off_pe" = "$pe_p" ] || vm_fail "$label/pe-table" "pa98p-pe at $off_pe, pe_start $pe_p"
reason_has pe-start pa98p-pe "pe_start $(size "$pe_p") on partition $p1 at $(size "$(pstart "$p1")"): $(size $(($(pstart "$p1") + pe_p))) is no multiple of the $(size "$oio") optimal I/O of $d"
k=$((($(dmsetup table pa98a-a2 | awk '{ print $5 }') * 512 - pe_a) / ext_a))
reason_has extents pa98a-a2 "extent $k x $(size "$ext_a") of VG pa98a on PE 0 of the PV on $p2 at $(size $(($(pstart "$p2") + pe_a)))"
if [ $((ext_a % grain)) != 0 ]; then
	reason_has extent-size pa98a-a1 "extent size $(size "$ext_a") of VG pa98a is no multiple of the $(size "$grain") grain"
fi
[ -n "$payload" ] || vm_fail "$label/luks" "no data segment offset in luksDump"
reason_has payload pa98crypt "payload offset $(size "$payload") of"

# the file systems: FS and the fs clause
for fsdev in "ext4 pa98p-pe" "ext4 pa98a-a2" "xfs pa98s-str" "xfs $p5"; do
	t=${fsdev% *} fsdev=${fsdev#* }
	case $fsdev in
	pa98*) k=$(vm_dm_by_name "$fsdev") node=/dev/mapper/$fsdev q=/sys/block/$k/queue ;;
	*) k=$fsdev node=/dev/$fsdev q=/sys/block/$d/queue ;;
	esac
	# shellcheck disable=SC2046 # three words
	set -- $(fs_oracle "$t" "$node" "$q")
	got=$(vm_json "$k" fs)
	r=$(vm_json "$k" reason)
	[ "$1" = misaligned ] && rc_want=4
	if [ "$got" != "$1" ]; then
		vm_fail "$label/fs-$fsdev" "$k: FS '$got', expected '$1' (width $2, device optimal I/O $3): $r"
	elif [ "$1" = misaligned ] && case $r in *"fs: "*" $(size "$2"), the device's optimal I/O is $(size "$3")"*) false ;; *) true ;; esac then
		vm_fail "$label/fs-$fsdev" "$k: reason '$r' does not name width $(size "$2") and optimal I/O $(size "$3")"
	elif [ "$1" = ok ] && case $r in *"fs: "*) true ;; *) false ;; esac then
		vm_fail "$label/fs-$fsdev" "$k: FS ok but an fs clause: $r"
	else
		vm_pass "$label/fs-$fsdev" "$k: FS $got (width $2, optimal I/O $3)"
	fi
done

if [ $((VM_RC & 4)) = "$rc_want" ] && [ $((VM_RC & 8)) = 0 ]; then
	vm_pass "$label/exit" "exit $VM_RC"
else
	vm_fail "$label/exit" "exit $VM_RC, want bit 4 = $rc_want"
fi

# ---- plain check: as before, nothing read -------------------------------------
vm_run_check || vm_fatal "partalign check --json gave no JSON (exit $VM_RC)"
dm=$(vm_dm_by_name pa98p-pe)
r=$(vm_json "$dm" reason)
if [ "$(vm_json "$dm" fs) $(vm_json "$p1" pe-start)" = "null null" ] &&
	case $r in *"table offset $(size "$pe_p") of $dm on partition $p1"*) true ;; *) false ;; esac then
	vm_pass "$label/no-probe" "$dm: FS and PE-START null, the reason names the table offset"
else
	vm_fail "$label/no-probe" "$dm: fs $(vm_json "$dm" fs), pe-start of $p1 $(vm_json "$p1" pe-start), reason '$r'"
fi

# ---- plan: the command for the layer to blame, nothing written ---------------
# The grain is the lcm of the disk's physical grain, optimal I/O and 2 MiB
# ($grain).  pa98p-pe: a PV made with --dataalignment on that grain (plus the
# partition's skew from it, if any), pvmove off the PV on p1; its ext4 made
# for the device's stripe (minimum I/O of 4 KiB is a sector: the stripe unit
# is the optimal I/O).  pa98a-a2: extents of the smallest multiple of the
# grain not below the extent size.  pa98crypt: the smallest payload offset
# at or past the current one that puts the payload on the grain.  pa98s-str:
# partition p3 itself is off the optimal I/O: plan the disk.  pa98a-a1:
# aligned, no advice, exit 0.
lvsz() { # as LVM takes sizes: "6m", "192k"
	if [ $(($1 % 1048576)) = 0 ]; then echo "$(($1 / 1048576))m"; else echo "$(($1 / 1024))k"; fi
}
skew=$(((grain - $(pstart "$p1") % grain) % grain))
want_pe="pvcreate --dataalignment $(lvsz "$grain")$([ "$skew" = 0 ] || echo " --dataalignmentoffset $(lvsz "$skew")") NEWPV; vgextend pa98p NEWPV; pvmove /dev/$p1 NEWPV; vgreduce pa98p /dev/$p1"
want_pe="$want_pe; mkfs.ext4 -b 4096 -E stride=$((oio / 4096)),stripe_width=$((oio / 4096))"
e=$(((ext_a + grain - 1) / grain * grain))
want_a2="vgcreate -s $(lvsz "$e") NEWVG NEWPV (extent size $(size "$e") keeps every LV of VG pa98a on the $(size "$grain") grain; copy the data over)"
base=$(($(pstart "$p2") + pe_a))
po=$((payload))
while [ $(((base + po) % grain)) != 0 ]; do po=$((po + 512)); done
want_cr="cryptsetup luksFormat --offset $((po / 512)) NEWDEV (payload at $(size "$po"); copy the data over)"
want_str="partalign plan /dev/$d"
for spec in "pa98p-pe|$want_pe" "pa98a-a2|$want_a2" "pa98crypt|$want_cr" "pa98s-str|$want_str" "pa98a-a1|"; do
	n=${spec%%|*} want=${spec#*|}
	h0=$(sha256sum <"/dev/mapper/$n")
	prc=0
	partalign-apply plan --json "/dev/mapper/$n" >/tmp/plan.json 2>/tmp/plan.err || prc=$?
	adv=$(jq -r '.plan[0].advice // ""' /tmp/plan.json 2>/dev/null)
	h1=$(sha256sum <"/dev/mapper/$n")
	want_rc=4
	[ -n "$want" ] || want_rc=0
	if [ "$adv" = "$want" ] && [ "$prc" = "$want_rc" ] && [ "$h0" = "$h1" ]; then
		vm_pass "$label/plan-$n" "plan /dev/mapper/$n: exit $prc, '$adv'"
	else
		vm_fail "$label/plan-$n" "plan /dev/mapper/$n: exit $prc (want $want_rc), advice '$adv', want '$want'; $(grep -v DM_DISABLE_UDEV /tmp/plan.err | tr '\n' ' ')"
	fi
done

# plan on the disk: the XFS on p5, made for 64 KiB x 2 where the disk's
# stripe is its optimal I/O, gets the mkfs.xfs for that stripe (a minimum
# I/O of 4 KiB is a sector: one unit of the optimal I/O) on its row; the
# partitions without a file system get none; nothing written.  glibc fills
# every new allocation with a pattern here (MALLOC_PERTURB_, its per-thread
# cache off so that no allocation escapes it): the file system's advice once
# left the ASM group of its record unset, which plan then freed and printed
# (exit 139 here; on a fresh heap it was zero and plan passed by luck)
n5=${p5##*[!0-9]}
h0=$(sha256sum <"/dev/$d")
prc=0
GLIBC_TUNABLES=glibc.malloc.tcache_count=0 MALLOC_PERTURB_=165 partalign-apply plan --json "/dev/$d" >/tmp/plan.json 2>/tmp/plan.err || prc=$?
h1=$(sha256sum <"/dev/$d")
adv5=$(jq -r --argjson n "$n5" '.plan[] | select(.num == $n) | .advice // ""' /tmp/plan.json 2>/dev/null)
others=$(jq -r --argjson n "$n5" '[.plan[] | select(.num != $n and .advice != null)] | length' /tmp/plan.json 2>/dev/null)
want5="mkfs.xfs -d su=$(lvsz "$oio"),sw=1"
if [ "$adv5" = "$want5" ] && [ "$others" = 0 ] && [ "$h0" = "$h1" ] && [ $((prc & 24)) = 0 ]; then
	vm_pass "$label/plan-disk-fs" "plan /dev/$d: partition $n5 '$adv5', no other advice (exit $prc)"
else
	vm_fail "$label/plan-disk-fs" "plan /dev/$d: partition $n5 advice '$adv5', want '$want5'; $others other rows with advice; exit $prc; $(grep -v DM_DISABLE_UDEV /tmp/plan.err | tr '\n' ' ')"
fi
# the table's advice lines, under the same pattern
prc=0
GLIBC_TUNABLES=glibc.malloc.tcache_count=0 MALLOC_PERTURB_=165 partalign-apply plan "/dev/$d" >/tmp/plan.out 2>/tmp/plan.err || prc=$?
if grep -qxF "  fix: $want5 (a new file system: copy the data over)" /tmp/plan.out &&
	[ $((prc & 24)) = 0 ] && ! grep -q "fix online" /tmp/plan.out; then
	vm_pass "$label/plan-disk-fs-text" "plan /dev/$d prints '  fix: $want5 ...' (exit $prc)"
else
	vm_fail "$label/plan-disk-fs-text" "plan /dev/$d: exit $prc, no line '  fix: $want5 (a new file system: copy the data over)': $(tr '\n' ' ' </tmp/plan.out) $(grep -v DM_DISABLE_UDEV /tmp/plan.err | tr '\n' ' ')"
fi

# ---- clean up ------------------------------------------------------------------
cleanup
trap - EXIT
