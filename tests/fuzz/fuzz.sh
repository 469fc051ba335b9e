#!/bin/bash
# make fuzz: build every harness of tests/fuzz with clang, libFuzzer, ASan
# and UBSan (the code under test from src/, compiled here with the same
# flags) and run each for FUZZ_SECONDS, FUZZ_JOBS at a time.  Seeds: the
# checked-in tests/fuzz/corpus/NAME and crashes/NAME; what libFuzzer adds
# goes to tests/fuzz/libfuzzer/corpus-NAME in the build tree.  Fails when a
# target reports a crash, a leak, undefined behaviour or a failed
# invariant; the input is then tests/fuzz/libfuzzer/crash-NAME-* (and, up
# to 4 KiB, printed in base64): copy it into tests/fuzz/crashes/NAME/ so
# that make check replays it.
set -euo pipefail
src=${top_srcdir:?} bld=${top_builddir:?}
: "${FUZZ_SECONDS:=60}" "${FUZZ_CC:=clang}" "${FUZZ_LIBCFLAGS:=}" "${FUZZ_LIBS:=}"
: "${FUZZ_TARGETS:=journal backup rules provision label marker udevdb mounts dm plan fsgeom lvmmeta asmhdr}"
jobs=${FUZZ_JOBS:-$(nproc)}
out=$bld/tests/fuzz/libfuzzer

if ! command -v "$FUZZ_CC" >/dev/null; then
	echo "make fuzz: $FUZZ_CC not found (apt-get install clang)" >&2
	exit 1
fi
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
cflags="-g -O1 -fno-omit-frame-pointer $san -std=gnu11 -I$bld -I$src/src $FUZZ_LIBCFLAGS"
mkdir -p "$out/obj"

# the code under test: the pure core (with the label parser), the scanner, the backup
# reader of apply
lib=("$src"/src/core/*.c "$src"/src/shared/*.c "$src"/src/scan/*.c
	"$src"/src/apply/backup.c "$src"/src/apply/disk.c)
obj() { echo "$out/obj/$(basename "$(dirname "$1")")-$(basename "$1" .c).o"; }
objs=()
for s in "${lib[@]}"; do objs+=("$(obj "$s")"); done
# compile: SOURCE OBJECT pairs on stdin, FUZZ_JOBS at a time
{
	for s in "${lib[@]}"; do printf '%s\n%s\n' "$s" "$(obj "$s")"; done
	printf '%s\n%s\n' "$src/tests/fuzz/replay.c" "$out/obj/replay.o"
} | xargs -d '\n' -n 2 -P "$jobs" sh -c '
	# shellcheck disable=SC2086
	exec $0 $1 -fsanitize=fuzzer-no-link -DPA_FUZZ_LIBFUZZER \
		-DPA_SBINDIR="\"/usr/sbin\"" -DPA_PKGLIBEXECDIR="\"/usr/libexec/partalign\"" \
		-c "$2" -o "$3"' "$FUZZ_CC" "$cflags"

for t in $FUZZ_TARGETS; do
	# shellcheck disable=SC2086
	$FUZZ_CC $cflags -fsanitize=fuzzer "$src/tests/fuzz/fuzz-$t.c" "$out/obj/replay.o" \
		"${objs[@]}" $FUZZ_LIBS -o "$out/fuzz-$t"
done

run() { # TARGET
	local t=$1 dirs=() mask=1
	mkdir -p "$out/corpus-$t"
	rm -f "$out/crash-$t-"* # an earlier run's: what fails below is this run's
	dirs=("$out/corpus-$t" "$src/tests/fuzz/corpus/$t")
	[ -d "$src/tests/fuzz/crashes/$t" ] && dirs+=("$src/tests/fuzz/crashes/$t")
	if "$out/fuzz-$t" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
		-close_fd_mask=$mask -print_final_stats=1 -artifact_prefix="$out/crash-$t-" \
		"${dirs[@]}" >"$out/$t.log" 2>&1; then
		echo "fuzz-$t: ok, $(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log") runs in ${FUZZ_SECONDS}s"
	else
		echo "fuzz-$t: FAILED (log: $out/$t.log)"
		grep -E 'ERROR|SUMMARY|invariant|runtime error|Test unit written' "$out/$t.log" | head -20
		# the input itself, so that a CI log alone can reproduce the finding
		local f
		for f in "$out/crash-$t-"*; do
			[ -f "$f" ] || continue
			if [ "$(stat -c %s "$f")" -le 4096 ]; then
				echo "fuzz-$t: input $(basename "$f"), base64: $(base64 -w0 "$f")"
			else
				echo "fuzz-$t: input $(basename "$f"), $(stat -c %s "$f") bytes: too long to print"
			fi
		done
		return 1
	fi
}
export -f run
export out src FUZZ_SECONDS
status=0
printf '%s\n' $FUZZ_TARGETS | xargs -P "$jobs" -I{} bash -c 'run {}' || status=1
[ $status = 0 ] && echo "make fuzz: every target ran ${FUZZ_SECONDS}s without a finding"
exit $status
