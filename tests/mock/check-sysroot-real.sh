#!/bin/bash
# partalign check --sysroot on sysfs captured from real kernels: each
# tests/data/NAME.tar.gz is a `partalign dump` made in the qemu guest of the
# VM suite (tests/vm/capture-dumps.sh, scenario 95-dump).  The expected rows
# and verdicts are worked out here from the captured sysfs files and dm
# tables themselves, with the VM suite's own oracle (vm_expect in
# tests/vm/guest/vmlib.sh), never from partalign's output; partalign udev
# --sysroot must give the same verdicts.  No root, no VM, no umockdev.
. "$top_srcdir/tests/lib/common.sh"
need_cmd jq tar gzip
# shellcheck source=../vm/guest/vmlib.sh
. "$top_srcdir/tests/vm/guest/vmlib.sh"

# What each capture must show, so that a new capture of another topology
# cannot pass unnoticed: DISK-KIND LOGICAL PHYSICAL OPT-IO ALIGNMENT-OFFSET of
# the disk below the checked rows ("-": not asserted).
declare -A claim=(
	[virtio-512e-opt1m]="512 4096 1048576 0"
	[scsi-offset3584]="512 4096 - 3584"
	[scsi-opt-ffff]="512 512 33553920 0"
	[scsi-512e-opt-ffff]="512 4096 0 0" # 0xffff sectors is no multiple of 4096: dropped
	[nvme-4kn]="4096 4096 4096 0"
	[mpath-kpartx]="512 4096 0 0"
	[lvm-on-p63]="512 4096 8388608 -"
	[stack-on-p6m]="512 4096 196608 0"
)

# stack_expect DUMPDIR DMDIR: a stacked dm device judged where its table puts
# it (issue #15), worked out from the dump's dm table text and the sysfs
# start of the partition (or disk) each target names.  Sets STK_KNOWN (0: a
# device below is not in the dump, the place is unknown), STK_PHYS, STK_OPT,
# STK_POL, STK_ABS (byte 0 of the worst segment on the disk: physical 4,
# optimal 2, policy 1, the first of equals) and STK_LAYERS.  Inside a stripe
# the policy is judged on the striped device (byte 0 of its segment: ok) and
# the chunk against the disk's physical grain and optimal I/O.
stack_expect() {
	local dir=$1 real=$2 type rest dev off chunk n i lower ldir ddir abs
	local lbs pbs mio oio ao g best=-1 sc ph op po
	STK_KNOWN=0
	while read -r _ _ type rest; do
		# shellcheck disable=SC2086 # the target's arguments, word by word
		set -- $rest
		case $type in
		linear) n=1 chunk=0 ;;
		crypt) shift 3; n=1 chunk=0 ;;
		striped) n=$1 chunk=$(($2 * 512)); shift 2 ;;
		*) return 0 ;;
		esac
		for ((i = 0; i < n; i++)); do
			dev=$1 off=$2
			shift 2
			# the device the target names, by its dev file (none: not dumped)
			lower=$(grep -lx "$dev" "$dir"/sys/class/block/*/dev 2>/dev/null | head -n 1)
			[ -n "$lower" ] || return 0
			ldir=$(readlink -f "${lower%/dev}")
			if [ -f "$ldir/partition" ]; then
				ddir=${ldir%/*}
				abs=$((($(cat "$ldir/start") + off) * 512))
				STK_LAYERS="${ddir##*/}>${ldir##*/}>${real##*/}"
			elif [ -d "$ldir/dm" ]; then
				fail "stack_expect: ${real##*/} stands on dm ${ldir##*/}: not handled by this test"
			else
				ddir=$ldir
				abs=$((off * 512))
				STK_LAYERS="${ddir##*/}>${real##*/}"
			fi
			lbs=$(cat "$ddir/queue/logical_block_size")
			pbs=$(cat "$ddir/queue/physical_block_size")
			mio=$(cat "$ddir/queue/minimum_io_size")
			oio=$(cat "$ddir/queue/optimal_io_size")
			ao=$(cat "$ddir/alignment_offset")
			vm_expect "$abs" "$lbs" "$pbs" "$mio" "$oio" "$ao" $(($(cat "$ddir/size") * 512))
			ph=$EXP_PHYS op=$EXP_OPT po=$EXP_POL
			if [ "$chunk" != 0 ]; then
				po=ok
				g=$pbs
				[ "$mio" -gt "$g" ] && g=$mio
				[ $((chunk % g)) = 0 ] || ph=misaligned
				[ "$op" != n/a ] && [ $((chunk % oio)) != 0 ] && [ $((oio % chunk)) != 0 ] &&
					op=misaligned
			fi
			sc=0
			[ "$ph" = misaligned ] && sc=$((sc + 4))
			[ "$op" = misaligned ] && sc=$((sc + 2))
			[ "$po" = misaligned ] && sc=$((sc + 1))
			if [ "$sc" -gt "$best" ]; then
				best=$sc
				STK_PHYS=$ph STK_OPT=$op STK_POL=$po STK_ABS=$abs
				STK_BEST_LAYERS=$STK_LAYERS
			fi
		done
	done <"$dir/dm/$(cat "$real/dev")"
	STK_LAYERS=$STK_BEST_LAYERS
	STK_KNOWN=1
}

# the disk directory (in the dump) of a row's device
realdir() {
	readlink -f "$1"
}

is_mpath_path() { # DISKDIR
	local h
	for h in "$1"/holders/*; do
		[ -e "$h" ] || [ -L "$h" ] || continue
		case $(cat "$2/sys/class/block/${h##*/}/dm/uuid" 2>/dev/null) in
		mpath-*) return 0 ;;
		esac
	done
	return 1
}

ndumps=0
for tgz in "$top_srcdir"/tests/data/*.tar.gz; do
	[ -e "$tgz" ] || fail "no dump in tests/data"
	name=${tgz##*/}
	name=${name%.tar.gz}
	dir=$T_TMP/$name
	mkdir "$dir"
	tar -xzf "$tgz" -C "$dir"
	[ -n "${claim[$name]:-}" ] || fail "$name: no claim for this dump in the test"
	sys=$dir/sys/class/block

	# expected rows: NAME START KERNEL-ALIGNMENT TOPOLOGY-DIR
	: >"$T_TMP/want"
	for e in "$sys"/*; do
		n=${e##*/}
		real=$(realdir "$e")
		uuid=$(cat "$real/dm/uuid" 2>/dev/null || true)
		if [ -f "$real/partition" ]; then
			disk=${real%/*}
			is_mpath_path "$disk" "$dir" && continue # its map is checked
			echo "$n $(($(cat "$real/start") * 512)) $(cat "$real/alignment_offset") $disk"
		elif [[ $uuid == part*-mpath-* ]]; then
			# a kpartx map: its start on the map comes from its dm table
			set -- "$real"/slaves/*
			[ $# = 1 ] || fail "$name: $n: $# devices below a kpartx map"
			read -r s0 _ type _ off <"$dir/dm/$(cat "$real/dev")" ||
				fail "$name: $n: no dm table in the dump"
			[ "$s0 $type" = "0 linear" ] || fail "$name: $n: table is not one linear target"
			echo "$n $((off * 512)) $(cat "$real/alignment_offset") $(realdir "$sys/${1##*/}")"
		elif [[ $uuid == LVM-* || $uuid == CRYPT-* ]] && [ -z "$(ls "$real/holders")" ]; then
			# a volume used as a whole: checked at start 0, its own topology
			echo "$n 0 $(cat "$real/alignment_offset") $real"
		fi
	done >"$T_TMP/want"
	[ -s "$T_TMP/want" ] || fail "$name: no checked device in the dump"

	: >"$T_TMP/stacked"
	PA_RC=0
	"$PARTALIGN" check --json -o KNAME,TYPE,START,ALIGNMENT,LOG-SEC,PHY-SEC,OPT-IO,PHYSICAL,OPTIMAL,POLICY,ABS-START,LAYERS \
		--sysroot "$dir" >"$T_TMP/out" 2>"$T_TMP/err" || PA_RC=$?
	[ -s "$T_TMP/err" ] && fail "$name: stderr: $(cat "$T_TMP/err")"
	jq -r '.devices[] | select(.physical != null and .type != "path") |
		"\(.kname) \(.start) \(.alignment) \(."log-sec") \(."phy-sec") \(."opt-io") \(.physical) \(.optimal) \(.policy)"' \
		"$T_TMP/out" | sort >"$T_TMP/got"
	while read -r n start kal tdir; do
		lbs=$(cat "$tdir/queue/logical_block_size")
		pbs=$(cat "$tdir/queue/physical_block_size")
		mio=$(cat "$tdir/queue/minimum_io_size")
		oio=$(cat "$tdir/queue/optimal_io_size")
		ao=$(cat "$tdir/alignment_offset")
		read -r cl cp co ca <<<"${claim[$name]}"
		got="$lbs $pbs $oio $ao"
		exp="$cl $cp $([ "$co" = - ] && echo "$oio" || echo "$co") $([ "$ca" = - ] && echo "$ao" || echo "$ca")"
		# (a stacked row has its own topology, a striped one its own optimal
		# I/O: the claim is checked on the rows of the disk below)
		STK_KNOWN=0
		if [ -f "$dir/dm/$(cat "$tdir/dev")" ] && [ ! -f "$tdir/partition" ] &&
			[[ $(cat "$tdir/dm/uuid") == LVM-* || $(cat "$tdir/dm/uuid") == CRYPT-* ]]; then
			stack_expect "$dir" "$tdir"
		fi
		[ "$STK_KNOWN" = 1 ] ||
			assert_eq "$exp" "$got" "$name: $n: the captured disk is not the claimed topology"
		vm_expect "$start" "$lbs" "$pbs" "$mio" "$oio" "$ao" $(($(cat "$tdir/size") * 512))
		if [[ $(cat "$tdir/dm/uuid" 2>/dev/null) == LVM-* || $(cat "$tdir/dm/uuid" 2>/dev/null) == CRYPT-* ]]; then
			if [ "$STK_KNOWN" = 1 ]; then
				# judged where the table puts it on the disk below
				EXP_PHYS=$STK_PHYS EXP_OPT=$STK_OPT EXP_POL=$STK_POL
				echo "$n $STK_ABS $STK_LAYERS" >>"$T_TMP/stacked"
			else
				# a device below is not in the dump: the place is not
				# known, no policy
				EXP_POL=n/a
			fi
		fi
		echo "$n $start $kal $lbs $pbs $oio $EXP_PHYS $EXP_OPT $EXP_POL"
		# partalign udev reads the same dump for a partition
		if [ "$start" != 0 ] || [ -f "$sys/$n/partition" ]; then
			u=$("$PARTALIGN" udev --sysroot "$dir" "$n" | grep -v '^PARTALIGN_REASON=')
			assert_eq "PARTALIGN_PHYSICAL=$EXP_PHYS
PARTALIGN_OPTIMAL=$EXP_OPT
PARTALIGN_POLICY=$EXP_POL" "$u" "$name: partalign udev --sysroot $n"
		fi
	done <"$T_TMP/want" | sort >"$T_TMP/exp"
	diff -u "$T_TMP/exp" "$T_TMP/got" >&2 || fail "$name: rows differ from the captured sysfs"
	# stacked rows: ABS-START and LAYERS; every other row has neither
	sort "$T_TMP/stacked" >"$T_TMP/stk-exp"
	jq -r '.devices[] | select(."abs-start" != null or .layers != null) |
		"\(.kname) \(."abs-start") \(.layers)"' "$T_TMP/out" | sort >"$T_TMP/stk-got"
	diff -u "$T_TMP/stk-exp" "$T_TMP/stk-got" >&2 || fail "$name: ABS-START and LAYERS differ"
	want_rc=0
	grep -q misaligned "$T_TMP/exp" && want_rc=4
	assert_eq "$want_rc" "$PA_RC" "$name: exit status"
	echo "ok: $name: $(wc -l <"$T_TMP/exp") rows as the captured sysfs says ($(head -n 2 "$dir/partalign-dump" | tail -n 1))"
	ndumps=$((ndumps + 1))
done
[ "$ndumps" -ge 8 ] || fail "only $ndumps dumps in tests/data"

# lvm-on-p63: the volume's reason names the partition below it and its
# start, from the dump's sysfs (the table says which partition)
dir=$T_TMP/lvm-on-p63
lv=$(cd "$dir/sys/class/block" && for d in dm-*; do echo "$d"; done | head -n 1)
read -r _ _ _ pdev _ <"$dir/dm/$(cat "$dir/sys/class/block/$lv/dev")"
plink=$(grep -lx "$pdev" "$dir"/sys/class/block/*/dev | head -n 1)
pdir=${plink%/dev}
[ -f "$pdir/partition" ] || fail "lvm-on-p63: $pdev is not a partition in the dump"
"$PARTALIGN" check --json --sysroot "$dir" "$lv" >"$T_TMP/out" 2>/dev/null || true
r=$(jq -r --arg n "$lv" '.devices[] | select(.kname == $n) | .reason' "$T_TMP/out")
grep -qF "partition ${pdir##*/} at $(($(cat "$pdir/start") * 512)) B" <<<"$r" ||
	fail "lvm-on-p63: $lv: reason '$r'"
echo "ok: lvm-on-p63: the reason names partition ${pdir##*/}"

# multipath: the two paths are rows of type path, not checked
dir=$T_TMP/mpath-kpartx
"$PARTALIGN" check --json --sysroot "$dir" >"$T_TMP/out" 2>/dev/null || true
assert_eq 2 "$(jq '[.devices[] | select(.type == "path")] | length' "$T_TMP/out")" \
	"mpath-kpartx: path rows"
echo "ok: mpath-kpartx: two path rows"

# --- scsi-offset3584 (replaces the umockdev testbed scsi-debug-align63) ------
# The first aligned byte is 3584 (sector 7): the partition at 2048 is 512 B
# short of the next aligned byte, and the reason says so with the offset.
dir=$T_TMP/scsi-offset3584
disk=$(cd "$dir/sys/class/block" && for d in sd*; do if [ ! -f "$d/partition" ]; then echo "$d"; fi; done)
[ -n "$disk" ] || fail "scsi-offset3584: no disk"
p=$(cd "$dir/sys/class/block" && for q in "$disk"*; do
	if [ "$(cat "$q/start" 2>/dev/null)" = 2048 ]; then echo "$q"; fi
done)
"$PARTALIGN" check --json --sysroot "$dir" >"$T_TMP/out" 2>/dev/null || true
json_get "$p" reason <"$T_TMP/out" |
	grep -qF "physical: 512 B past a 4 KiB boundary (alignment offset 3584 B)" ||
	fail "scsi-offset3584: $p: reason '$(json_get "$p" reason <"$T_TMP/out")'"
# the partitions that are aligned for everything, named: exit 0, only they
aligned=$(jq -r '.devices[] | select(.physical == "ok" and .optimal == "ok" and .policy == "ok") |
	.path' "$T_TMP/out")
[ "$(echo "$aligned" | wc -l)" -ge 2 ] || fail "scsi-offset3584: fewer than two aligned partitions"
# shellcheck disable=SC2086
"$PARTALIGN" check --json --sysroot "$dir" $aligned >"$T_TMP/named" || fail "scsi-offset3584: named aligned partitions: exit $?"
assert_eq "$(echo "$aligned" | sort)" "$(jq -r '.devices[].path' "$T_TMP/named" | sort)" \
	"scsi-offset3584: rows of the named partitions"
# without a udev database: model and WWN from the SCSI device in sysfs, trimmed
rm -r "$dir/run/udev/data"
"$PARTALIGN" check --json -o NAME,MODEL,WWN,SERIAL --sysroot "$dir" >"$T_TMP/out" 2>/dev/null || true
real=$(readlink -f "$dir/sys/class/block/$disk")
assert_eq scsi_debug "$(json_get "$p" model <"$T_TMP/out")" "scsi-offset3584: model from sysfs"
assert_eq "$(sed 's/[[:space:]]*$//' "$real/device/wwid")" "$(json_get "$p" wwn <"$T_TMP/out")" \
	"scsi-offset3584: WWN from sysfs"
assert_eq null "$(json_get "$p" serial <"$T_TMP/out")" "scsi-offset3584: no serial without udev"
echo "ok: scsi-offset3584: reason, named partitions, identities from sysfs"
