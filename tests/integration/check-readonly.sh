#!/bin/bash
# The default audit reads sysfs and the udev database only: under strace no
# /dev node is opened at all.  --probe opens the disk, read-only.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/integration/helpers.sh"
need_cmd strace

dev=$(mkdisk ro 32M 512 'label: gpt\nstart=2048,size=2048\nstart=4096,size=4096')
[ -e "/sys/block/${dev#/dev/}/${dev#/dev/}p2" ] || fail "partitions not added"

# trace FILE ARGS...: partalign under strace; -y shows the directory of an
# openat relative to a descriptor, so "/dev" cannot hide behind a dirfd.
trace() {
	local f=$1
	shift
	PA_RC=0
	# LeakSanitizer cannot run under ptrace (--enable-sanitizers builds)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f --seccomp-bpf -qq -y -e trace=execve,open,openat,openat2 -o "$f" \
		"$PARTALIGN" "$@" >"$T_TMP/out" 2>"$T_TMP/err" || PA_RC=$?
}
# dev_opens FILE: the opens of /dev nodes by partalign itself, and of block
# device nodes by any process it started.
dev_opens() {
	local main line path
	main=$(awk 'NR == 1 { print $1 }' "$1")
	awk -v m="$main" '/(open|openat|openat2)\(/ && /"\/dev\/|<\/dev[\/>]/ {
		p = $0; sub(/^[^"]*"/, "", p); sub(/".*/, "", p)
		print ($1 == m ? "self" : "child"), p, $0 }' "$1" |
		while read -r who path line; do
			if [ "$who" = self ] || [ -b "$path" ]; then
				echo "$line"
			fi
		done
}
# started FILE: programs partalign started (libparted, if linked, runs
# "sh -c dmidecode" from a constructor at every start).
started() {
	awk -v m="$(awk 'NR == 1 { print $1 }' "$1")" '$1 != m && /execve\(/' "$1"
}

trace "$T_TMP/plain" check "$dev"
expect_rc 4 "check under strace"
grep -q '/sys/' "$T_TMP/plain" || fail "strace saw no open at all (is tracing working?)"
opens=$(dev_opens "$T_TMP/plain")
[ -z "$opens" ] || fail "check opened device nodes: $opens"
progs=$(started "$T_TMP/plain")
[ -z "$progs" ] || fail "check started programs: $progs"
# the same output as without strace
cp "$T_TMP/out" "$T_TMP/out.traced"
run_pa "$T_TMP/out" "$T_TMP/err" check "$dev"
cmp -s "$T_TMP/out" "$T_TMP/out.traced" || fail "output differs under strace"

# every column, JSON: still no device opened
trace "$T_TMP/json" check --json -o "$("$PARTALIGN" check --list-columns |
	awk '{ print $1 }' | paste -sd,)" "$dev"
expect_rc 4 "check --json -o (all columns) under strace"
opens=$(dev_opens "$T_TMP/json")
[ -z "$opens" ] || fail "check --json -o (all columns) opened device nodes: $opens"

trace "$T_TMP/probe" check --probe "$dev"
expect_rc 4 "check --probe under strace"
opens=$(dev_opens "$T_TMP/probe")
grep -qE "\"$dev\", [^)]*O_RDONLY" <<<"$opens" ||
	fail "check --probe did not open $dev read-only: ${opens:-no open of /dev}"
if grep -E 'O_RDWR|O_WRONLY|O_CREAT|O_TRUNC' <<<"$opens"; then
	fail "check --probe opened a device for writing"
fi
echo ok
