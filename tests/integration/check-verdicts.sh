#!/bin/bash
# partalign check --json on real loop devices: 512- and 4096-byte sectors,
# GPT and msdos, partitions at aligned and misaligned starts, under several
# --align grains.  Every row is compared with sysfs and sfdisk; the policy
# verdicts also with a pattern worked out by hand from the starts below.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/integration/helpers.sh"

# Sparse 1100 MiB images, so that one partition can start at 1 GiB.
# 512: starts 34, 63, 2048, 4095, 4096, 2097152 (GPT) and 63, 2048, 4096,
# 2097152 (msdos).  4Kn: 6, 7, 256, 511, 512, 262144 (GPT) and 8, 256, 511,
# 262144 (msdos), i.e. 24K, 28K, 1M, 2M-4K, 2M, 1G and 32K, 1M, 2M-4K, 1G.
g512=$(mkdisk g512 1100M 512 'label: gpt\nfirst-lba: 34
start=34,size=29\nstart=63,size=1985\nstart=2048,size=2047
start=4095,size=1\nstart=4096,size=4096\nstart=2097152,size=2048')
d512=$(mkdisk d512 1100M 512 'label: dos
start=63,size=1985\nstart=2048,size=2047\nstart=4096,size=4096
start=2097152,size=2048')
g4k=$(mkdisk g4k 1100M 4096 'label: gpt\nfirst-lba: 6
start=6,size=1\nstart=7,size=249\nstart=256,size=255
start=511,size=1\nstart=512,size=512\nstart=262144,size=256')
d4k=$(mkdisk d4k 1100M 4096 'label: dos
start=8,size=248\nstart=256,size=255\nstart=511,size=1
start=262144,size=256')

for d in "$g512" "$d512" "$g4k" "$d4k"; do
	n=$(sysfs_parts "$d" | wc -l)
	[ "$n" -ge 4 ] || fail "$d: only $n partitions reached the kernel"
done

# grain_case ALIGN DEV GRAIN_BYTES PATTERN [DEV GRAIN_BYTES PATTERN...]
# One run of check --json [--align ALIGN] over all the DEVs (partalign scans
# the whole machine each time, so runs are few); each DEV's rows are then
# verified.  PATTERN: the policy verdicts worked out by hand, one letter per
# partition in partition order, o ok, M misaligned, - n/a.  The exit status
# must be 4 exactly when an M is present, else 0: a policy that cannot be
# judged (n/a) is no misalignment, and on loop devices the physical verdict
# is always ok (physical sector = logical; verify_disk asserts it).
grain_case() {
	local align=$1 devs=() all="" i got
	local -a args=()
	shift
	[ -z "$align" ] || args=(--align "$align")
	for ((i = 1; i <= $#; i += 3)); do
		devs+=("${!i}")
	done
	run_pa "$T_TMP/out" "$T_TMP/err" check --json "${args[@]}" "${devs[@]}"
	[ -s "$T_TMP/err" ] && fail "check ${args[*]}: stderr: $(cat "$T_TMP/err")"
	jq -e . "$T_TMP/out" >/dev/null || fail "check ${args[*]}: not JSON"
	while [ $# -gt 0 ]; do
		got=$(verify_disk "$T_TMP/out" "$1" "$2")
		assert_eq "$3" "$got" "check ${args[*]} $1: policy verdicts"
		echo "ok: ${1#/dev/} ${align:-default} $got"
		all+=$3
		shift 3
	done
	if [[ $all == *M* ]]; then
		expect_rc 4 "check ${args[*]} ${devs[*]}"
	else
		expect_rc 0 "check ${args[*]} ${devs[*]}"
	fi
}

grain_case "" "$g512" 2097152 MMMMoo "$d512" 2097152 MMoo \
	"$g4k" 2097152 MMMMoo "$d4k" 2097152 MMMo
grain_case 2MiB "$g512" 2097152 MMMMoo "$g4k" 2097152 MMMMoo
grain_case 1MiB "$g512" 1048576 MMoMoo "$d512" 1048576 Mooo \
	"$g4k" 1048576 MMoMoo "$d4k" 1048576 MoMo
# 4096 sectors: 2 MiB on 512, 16 MiB on 4Kn
grain_case 4096s "$g512" 2097152 MMMMoo "$d512" 2097152 MMoo \
	"$g4k" 16777216 MMMMMo "$d4k" 16777216 MMMo
grain_case 1GiB "$g512" 1073741824 MMMMMo "$d512" 1073741824 MMMo \
	"$g4k" 1073741824 MMMMMo "$d4k" 1073741824 MMMo
# 8 sectors: 4 KiB on 512, 32 KiB on 4Kn
grain_case 8s "$g512" 4096 MMoMoo "$g4k" 32768 MMoMoo "$d4k" 32768 ooMo
grain_case 1s "$g512" 512 oooooo "$d512" 512 oooo
# a grain that is no multiple of the logical sector cannot be judged on 4Kn
grain_case 1KiB "$g4k" 0 ------ "$d4k" 0 ----

# The grain used is reported: POLICY-GRAIN in bytes.
run_pa "$T_TMP/out" "$T_TMP/err" check --json -o NAME,POLICY-GRAIN --align 8s "$g4k"
expect_rc 4 "policy-grain of 8s on 4Kn (MMoMoo)"
assert_eq 32768 "$(jq -r '[.devices[]."policy-grain"] | unique | .[]' "$T_TMP/out")" \
	"policy-grain of 8s on 4Kn"
run_pa "$T_TMP/out" "$T_TMP/err" check --json -o NAME,POLICY-GRAIN --align 8s "$g512"
expect_rc 4 "policy-grain of 8s on 512 (MMoMoo)"
assert_eq 4096 "$(jq -r '[.devices[]."policy-grain"] | unique | .[]' "$T_TMP/out")" \
	"policy-grain of 8s on 512"

# Exit status 0 when all is aligned, 4 as soon as one start misses the grain.
good=$(mkdisk good 64M 512 'label: gpt\nstart=4096,size=4096\nstart=8192,size=8192')
mib=$(mkdisk mib 64M 512 'label: gpt\nstart=2048,size=2048\nstart=4096,size=4096')
good4k=$(mkdisk good4k 64M 4096 'label: dos\nstart=512,size=512\nstart=1024,size=1024')
grain_case "" "$good" 2097152 oo "$good4k" 2097152 oo
grain_case "" "$mib" 2097152 Mo
grain_case 1MiB "$mib" 1048576 oo "$good" 1048576 oo
run_pa "$T_TMP/out" "$T_TMP/err" check "$good" "$mib"
expect_rc 4 "an aligned and a misaligned disk"
# a single partition may be named too
run_pa "$T_TMP/out" "$T_TMP/err" check --json "${mib}p2"
expect_rc 0 "the aligned partition alone"
assert_eq "${mib#/dev/}p2" "$(jq -r '.devices[].name' "$T_TMP/out")" "one partition named"
run_pa "$T_TMP/out" "$T_TMP/err" check --json "${mib}p1"
expect_rc 4 "the misaligned partition alone"

# A whole loop device without a partition table: one row, aligned by
# construction.
for bs in 512 4096; do
	raw=$(mkdisk "raw$bs" 32M "$bs")
	run_pa "$T_TMP/out" "$T_TMP/err" check --json "$raw"
	expect_rc 0 "whole $bs device"
	[ -s "$T_TMP/err" ] && fail "whole $bs device: stderr: $(cat "$T_TMP/err")"
	n=${raw#/dev/}
	assert_eq 1 "$(jq '.devices | length' "$T_TMP/out")" "whole $bs device: rows"
	assert_eq "$n" "$(jq -r '.devices[0].name' "$T_TMP/out")" "whole $bs device: name"
	assert_eq 0 "$(json_get "$n" start <"$T_TMP/out")" "whole $bs device: start"
	assert_eq "$bs" "$(json_get "$n" log-sec <"$T_TMP/out")" "whole $bs device: log-sec"
	assert_eq "$(cat "/sys/block/$n/alignment_offset")" \
		"$(json_get "$n" alignment <"$T_TMP/out")" "whole $bs device: alignment"
	assert_eq "$(($(cat "/sys/block/$n/size") * 512))" \
		"$(json_get "$n" size <"$T_TMP/out")" "whole $bs device: size"
	assert_eq ok "$(json_get "$n" physical <"$T_TMP/out")" "whole $bs device: physical"
	assert_eq ok "$(json_get "$n" policy <"$T_TMP/out")" "whole $bs device: policy"
	assert_eq n/a "$(json_get "$n" optimal <"$T_TMP/out")" "whole $bs device: optimal"
	json_get "$n" reason <"$T_TMP/out" | grep 'aligned by construction' >/dev/null ||
		fail "whole $bs device: reason '$(json_get "$n" reason <"$T_TMP/out")'"
	echo "ok: whole $bs device $n"
done
