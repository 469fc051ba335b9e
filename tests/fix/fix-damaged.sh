#!/bin/bash
# Damaged and odd partition tables: plan and fix diagnose them, give the way
# out, and never treat a damaged GPT as blank.  Each disk is made with
# sfdisk and bent with tests/fix/gptedit.py (its own GPT parser, CRCs by
# zlib); the damage is confirmed independently (sgdisk -v, fdisk -t dos)
# before partalign looks at it.
#   readable damage (one copy bad, libparted reads the other): plan warns
#     "the primary|backup GPT ... is damaged ..., the ... is intact: fix
#     rewrites both copies" and writes nothing; fix rewrites both copies
#     (sgdisk -v: no problems) with the planned layout;
#       primary header CRC, backup header signature, backup header CRC,
#       primary entry-array CRC, backup entry-array CRC, the same on a disk
#       whose partitions are all aligned (plan exits 1 there, not 4; a
#       second fix has nothing to do), and on a 4Kn disk the backup
#       entry-array CRC;
#   refused (exit 4, one line naming the disk, disk byte-identical, no
#     backup), by fix, plan (REFUSED) and fix --new --discard-data:
#       the primary header's signature gone (libparted sees no table: this
#         was "no partition table (fix --new partitions a blank disk)"), and
#         'sgdisk -e', the advice, makes the disk fixable; refused on 4Kn too;
#       both entry arrays with a wrong CRC; both header signatures gone;
#       a partition past the end of the disk; two overlapping partitions;
#       the entry array at LBA 1024; a hybrid MBR; a dos table with logical
#       partitions under --label keep and --move-data;
#   check --probe warns about the lost primary header;
#   not damage: a grown LUN (the backup GPT where the end was) gets no
#     warning from plan or check --probe.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd python3 fdisk
GPTEDIT=(python3 "$top_srcdir/tests/fix/gptedit.py")
J="$T_TMP/journal"
mkdir -p "$J"
export PARTALIGN_JOURNAL="$J"

two_parts='label: gpt\nfirst-lba: 34\nstart=34,size=20000\nstart=24000,size=40000'

# disk NAME [SCRIPT] -> an image with SCRIPT (default: two misaligned GPT
# partitions), bent by the caller before it is attached
img() {
	truncate -s 64M "$T_TMP/$1.img"
	printf '%b\n' "${2:-$two_parts}" | sfdisk -q "$T_TMP/$1.img" >/dev/null
	echo "$T_TMP/$1.img"
}

attach() {
	local d
	d=$(loop_attach "$1")
	partx -a "$d" 2>/dev/null || true
	echo "$d"
}

# sgdisk_says DEV REGEX: sgdisk -v's report matches REGEX
sgdisk_says() {
	local out
	out=$(sgdisk -v "$1" 2>&1 || true)
	grep -Eq -- "$2" <<<"$out" || fail "$1: sgdisk -v does not say /$2/: $out"
}

# unchanged NAME DEV SUM: the device as it was, and no backup written
unchanged() {
	assert_eq "$3" "$(dev_sum "$2")" "$1: device content"
	[ ! -e "$BK" ] || [ -z "$(ls -A "$BK")" ] || fail "$1: a backup was written: $(ls "$BK")"
}

# refused NAME DEV TEXT [FIX_ARGS...]: plan's REFUSED and fix's stderr carry
# TEXT, both exit 4, nothing written
refused() {
	local name=$1 dev=$2 text=$3 sum
	shift 3
	sum=$(dev_sum "$dev")
	rm -rf "$BK"
	run_pa "$T_TMP/out" "$T_TMP/err" plan --json "$@" "$dev"
	expect_rc 4 "$name: plan"
	[[ $(jq -r '[.plan[].refused] | unique | join(",")' "$T_TMP/out") == *"$text"* ]] ||
		fail "$name: plan's REFUSED lacks '$text': $(jq -c '[.plan[].refused] | unique' "$T_TMP/out")"
	pa_fix "$dev" "$@"
	expect_rc 4 "$name: fix"
	grep -qF -- "$dev: refused: " "$T_TMP/err" || fail "$name: fix: $(cat "$T_TMP/err")"
	grep -qF -- "$text" "$T_TMP/err" || fail "$name: fix: stderr lacks '$text': $(cat "$T_TMP/err")"
	[ "$(grep -vc ': warning: ' "$T_TMP/err")" = 1 ] || fail "$name: fix: $(cat "$T_TMP/err")"
	unchanged "$name" "$dev" "$sum"
	echo "ok: $name -> 4: $(grep -v ': warning: ' "$T_TMP/err")"
}

# new_refused NAME DEV TEXT: fix --new --discard-data never takes it for blank
new_refused() {
	local sum
	sum=$(dev_sum "$2")
	rm -rf "$BK"
	pa_fix "$2" --new --discard-data
	expect_rc 4 "$1: fix --new --discard-data"
	grep -qF -- "refused: $3" "$T_TMP/err" || fail "$1: fix --new: $(cat "$T_TMP/err")"
	unchanged "$1: fix --new" "$2" "$sum"
	echo "ok: $1 fix --new --discard-data -> 4: $(cat "$T_TMP/err")"
}

# repaired NAME DEV WARNING: plan warns and writes nothing, fix rewrites both
# copies with the planned layout (the 2 MiB grain, in logical sectors)
# repaired NAME DEV TEXT [PLAN_RC]: plan warns TEXT and exits PLAN_RC (4:
# partitions to move too; 1: only the damaged copy to rewrite), fix repairs
repaired() {
	local name=$1 dev=$2 text=$3 prc=${4:-4} sum g
	g=$((2097152 / $(lsec_of "$dev")))
	sum=$(dev_sum "$dev")
	sfd_layout "$dev" | cut -d' ' -f1-3 | sort -k2,2n | expected_layout "$dev" "$g" >"$T_TMP/want"
	run_pa "$T_TMP/out" "$T_TMP/err" plan "$dev"
	expect_rc "$prc" "$name: plan"
	grep -qF -- "$dev: $text: fix rewrites both copies" "$T_TMP/err" ||
		fail "$name: plan's warning: $(cat "$T_TMP/err")"
	assert_eq "$sum" "$(dev_sum "$dev")" "$name: plan wrote"
	pa_fix "$dev"
	expect_rc 1 "$name: fix"
	verify_fixed "$dev" "$g" "$T_TMP/want"
	echo "ok: $name: plan warns '$text'; fix rewrote both copies (sgdisk -v clean)"
}

# ---- one copy damaged, the other intact: read from it, both rewritten ----
f=$(img phcrc)
"${GPTEDIT[@]}" "$f" 512 header-crc primary
d=$(attach "$f")
sgdisk_says "$d" 'Main header: ERROR'
sgdisk_says "$d" 'Backup header: OK'
new_refused phcrc "$d" "not blank: it has a gpt partition table with 2 partitions"
repaired phcrc "$d" "the primary GPT header is damaged (header CRC or fields wrong), the backup is intact"

f=$(img bhsig)
"${GPTEDIT[@]}" "$f" 512 smash backup
d=$(attach "$f")
sgdisk_says "$d" 'Main header: OK'
sgdisk_says "$d" 'Backup header: ERROR'
repaired bhsig "$d" "the backup GPT header is damaged (no EFI PART signature), the primary is intact"

f=$(img bhcrc)
"${GPTEDIT[@]}" "$f" 512 header-crc backup
d=$(attach "$f")
sgdisk_says "$d" 'Backup header: ERROR'
repaired bhcrc "$d" "the backup GPT header is damaged (header CRC or fields wrong), the primary is intact"

f=$(img pacrc)
"${GPTEDIT[@]}" "$f" 512 array-crc primary
d=$(attach "$f")
sgdisk_says "$d" 'Main partition table: ERROR'
repaired pacrc "$d" "the primary GPT entry array is damaged (its CRC does not match), the backup is intact"

f=$(img bacrc)
"${GPTEDIT[@]}" "$f" 512 array-crc backup
d=$(attach "$f")
sgdisk_says "$d" 'Main partition table: OK'
sgdisk_says "$d" 'Backup partition table: ERROR'
repaired bacrc "$d" "the backup GPT entry array is damaged (its CRC does not match), the primary is intact"

# an aligned disk: nothing to move, the damaged copy is still rewritten;
# plan exits 1 (a change to make, no misalignment)
f=$(img aligned 'label: gpt\nstart=4096,size=20480')
"${GPTEDIT[@]}" "$f" 512 array-crc backup
d=$(attach "$f")
sgdisk_says "$d" 'Backup partition table: ERROR'
repaired aligned "$d" "the backup GPT entry array is damaged (its CRC does not match), the primary is intact" 1
pa_fix "$d"
expect_rc 0 "aligned: a second fix"
grep -q "$d: nothing to do" "$T_TMP/out" || fail "aligned: second fix: $(cat "$T_TMP/out")"

# 4Kn: the same with 4096-byte sectors (table written through the loop device)
for case in "smash primary" "array-crc backup"; do
	truncate -s 64M "$T_TMP/k4.img"
	d=$(loop_attach "$T_TMP/k4.img" 4096)
	printf '%b\n' 'label: gpt\nfirst-lba: 6\nstart=6,size=2500\nstart=3000,size=5000' |
		sfdisk -q --no-reread --no-tell-kernel "$d" >/dev/null
	# shellcheck disable=SC2086
	"${GPTEDIT[@]}" "$d" 4096 $case
	partx -a "$d" 2>/dev/null || true
	if [ "$case" = "smash primary" ]; then
		sgdisk_says "$d" 'Main header: ERROR'
		refused 4kn-phsig "$d" "the primary GPT header is damaged (no EFI PART signature), the backup is intact (2 partitions)"
	else
		sgdisk_says "$d" 'Backup partition table: ERROR'
		repaired 4kn-bacrc "$d" "the backup GPT entry array is damaged (its CRC does not match), the primary is intact"
	fi
	loop_detach "$d"
done

# ---- the primary header's signature gone: libparted sees no table at all ----
f=$(img phsig)
"${GPTEDIT[@]}" "$f" 512 smash primary
d=$(attach "$f")
sgdisk_says "$d" 'Main header: ERROR'
sgdisk_says "$d" 'Backup header: OK'
# check --probe says it too (and check alone reads no data)
run_pa "$T_TMP/out" "$T_TMP/err" check --probe "$d"
grep -qF "$d: the primary GPT header is damaged (no EFI PART signature), the backup is intact ('partalign plan $d' says what fix would do)" "$T_TMP/err" ||
	fail "phsig: check --probe: $(cat "$T_TMP/err")"
refused phsig "$d" "the primary GPT header is damaged (no EFI PART signature), the backup is intact (2 partitions): rebuild the primary from it with 'sgdisk -e'"
new_refused phsig "$d" "not blank: the primary GPT header is damaged (no EFI PART signature), the backup is intact (2 partitions)"
# the advice works: sgdisk -e rebuilds the primary, then plan has a plan
sgdisk -e "$d" >/dev/null 2>&1 || true
sgdisk_ok "$d"
kernel_reload "$d"
run_pa "$T_TMP/out" "$T_TMP/err" plan --json "$d"
expect_rc 4 "phsig after sgdisk -e: plan"
assert_eq "recreate recreate" "$(jq -r '[.plan[].action] | join(" ")' "$T_TMP/out")" \
	"phsig after sgdisk -e: plan's actions"
assert_eq "" "$(jq -r '[.plan[].refused // empty] | join(",")' "$T_TMP/out")" \
	"phsig after sgdisk -e: a refusal"

# ---- nothing intact, or entries that contradict the disk: refused ----
f=$(img both)
"${GPTEDIT[@]}" "$f" 512 array-crc primary
"${GPTEDIT[@]}" "$f" 512 array-crc backup
d=$(attach "$f")
sgdisk_says "$d" 'Main partition table: ERROR'
sgdisk_says "$d" 'Backup partition table: ERROR'
refused both-arrays "$d" "both GPT copies are damaged (primary: entry array is damaged (its CRC does not match); backup: entry array is damaged (its CRC does not match)): nothing intact"
new_refused both-arrays "$d" "both GPT copies are damaged"

f=$(img nohdr)
"${GPTEDIT[@]}" "$f" 512 smash primary
"${GPTEDIT[@]}" "$f" 512 smash backup
d=$(attach "$f")
fdisk -t dos -l "$d" | grep -Eq "^${d}p?1 .* ee " || fail "nohdr: no protective entry: $(fdisk -t dos -l "$d")"
refused no-headers "$d" "a protective MBR, but both GPT copies are damaged (primary: header is damaged (no EFI PART signature); backup: header is damaged (no EFI PART signature))"

f=$(img pastend)
"${GPTEDIT[@]}" "$f" 512 entry 2 24000 140000
d=$(attach "$f")
sgdisk_says "$d" 'partition 2 is too big for the disk'
refused past-end "$d" "the partition table is inconsistent: partition 2 ends at sector 140000, past the end of the disk (last sector 131071)"
new_refused past-end "$d" "the partition table is inconsistent"

f=$(img overlap)
"${GPTEDIT[@]}" "$f" 512 entry 2 10000 50000
d=$(attach "$f")
sgdisk_says "$d" 'partitions 2 and 1 overlap'
refused overlap "$d" "the partition table is inconsistent: partitions 1 (sectors 34-20033) and 2 (sectors 10000-50000) overlap"

f=$(img lba1024 'label: gpt\nfirst-lba: 2048\nstart=2049,size=20000\nstart=24000,size=40000')
"${GPTEDIT[@]}" "$f" 512 move-entries 1024
d=$(attach "$f")
sgdisk_says "$d" 'partition table \(sector 1024\)'
refused lba1024 "$d" "the GPT entry array starts at LBA 1024, not LBA 2"

f=$(img hybrid)
"${GPTEDIT[@]}" "$f" 512 hybrid 1 83
d=$(attach "$f")
fdisk -t dos -l "$d" | grep -Eq "^${d}p?2 +34 +20033 .* 83 " ||
	fail "hybrid: no dos entry 2: $(fdisk -t dos -l "$d")"
refused hybrid "$d" "sector 0 is a hybrid MBR (dos entry 2, type 0x83, beside the protective 0xEE one)"

f=$(img logical 'label: dos\nstart=63,size=20000,type=83\nstart=30000,size=80000,type=5\nstart=30063,size=20000,type=83\nstart=60000,size=20000,type=83')
d=$(attach "$f")
assert_eq "1 2 5 6" "$(sfd_layout "$d" | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ $//')" "logical: sfdisk's partitions"
refused logical-keep "$d" "partition 5 is a dos logical partition: logical partitions cannot be kept in a dos table (drop --label keep" --label keep
refused logical-move "$d" "partition 5 is a dos logical partition: --move-data moves primary and GPT partitions only" --move-data

# ---- a grown LUN is no damage: the backup is where the primary says ----
f=$(img grown)
truncate -s 80M "$f"
d=$(attach "$f")
run_pa "$T_TMP/out" "$T_TMP/err" plan "$d"
expect_rc 4 "grown: plan"
! grep -q 'damaged' "$T_TMP/err" || fail "grown: a grown LUN called damaged: $(cat "$T_TMP/err")"
run_pa "$T_TMP/out" "$T_TMP/err" check --probe "$d"
! grep -q 'damaged' "$T_TMP/err" || fail "grown: check --probe: $(cat "$T_TMP/err")"
echo "ok: grown LUN: no damage reported"
