#!/bin/bash
# The default audit reads sysfs, the udev database and /proc only: under
# umockdev, with every testbed at once, 'partalign check' must not open (or
# try to open) any device node.  The one node it may open is
# /dev/mapper/control, for the device-mapper table of kpartx maps (a control
# node: it reads no device data).  --probe, which does read the disks, is
# the control that shows the trace would see such an open.
#
# Only partalign's own process is judged here: libparted, linked into the
# binary, starts 'sh -c dmidecode' from its constructor on Debian (see
# check-no-exec.sh).
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/mock/lib.sh"
need_cmd strace

all_beds=()
for b in "$MOCK_BEDS"/*.umockdev; do
	b=${b##*/}
	all_beds+=("${b%.umockdev}")
done
[ ${#all_beds[@]} -ge 9 ] || fail "testbeds missing: ${all_beds[*]}"
# All testbeds load together (no device number or name twice) and their
# stacking links resolve.
mock_links_resolve "${all_beds[@]}"

# --seccomp-bpf stops the tracee only for the traced calls: much faster.
strace_opts=(-f -qq)
strace --seccomp-bpf -o /dev/null true 2>/dev/null && strace_opts+=(--seccomp-bpf)

# traced_run BED... -- ARGS...: partalign ARGS under strace in a testbed of
# the beds; the trace in $T_TMP/trace, the testbed's root in $T_TMP/root.
traced_run() {
	local beds=()
	while [ "$1" != -- ]; do
		beds+=("$1")
		shift
	done
	shift
	mock_run "${beds[@]}" -- sh -c \
		'echo "$UMOCKDEV_DIR" >"$1"; shift; exec strace "$@"' \
		sh "$T_TMP/root" "${strace_opts[@]}" -o "$T_TMP/trace" \
		-e trace=open,openat,openat2,creat,execve "$PARTALIGN" "$@"
	grep -q 'execve(.*partalign' "$T_TMP/trace" || skip "strace did not trace: $(cat "$T_TMP/err")"
}

# The paths under /dev that partalign's own process opened or tried to open,
# one a line, as the program asked for them (umockdev's redirection of /dev
# into its testbed undone).  Processes that partalign started and that
# exec'd another program are left out.
dev_opens() {
	local root
	root=$(cat "$T_TMP/root")
	[ -n "$root" ] || fail "no UMOCKDEV_DIR in the testbed"
	awk -v root="$root" '
		/ execve\(/ {
			if ($0 !~ /execve\("[^"]*partalign"/) foreign[$1] = 1
			next
		}
		foreign[$1] { next }
		/ (open|openat|openat2|creat)\(/ {
			if (!match($0, /"[^"]*"/)) next
			p = substr($0, RSTART + 1, RLENGTH - 2)
			if (index(p, root "/") == 1) p = substr(p, length(root) + 1)
			if (p ~ /^\/dev(\/|$)/) print p
		}' "$T_TMP/trace"
}

traced_run "${all_beds[@]}" -- check --json
[ "$MOCK_RC" = 4 ] || fail "check in the full testbed: exit $MOCK_RC: $(cat "$T_TMP/err")"
mock_load || fail "check: no JSON"
[ "$(wc -w <<<"$MOCK_ROWS")" -ge 20 ] || fail "too few rows: $MOCK_ROWS"
# the trace did see partalign read sysfs through the testbed: the class
# directory, then attributes relative to each device's directory fd
grep -q 'sys/class/block"' "$T_TMP/trace" ||
	fail "the trace shows no listing of /sys/class/block"
grep -qE 'openat\([0-9]+, "start"' "$T_TMP/trace" ||
	fail "the trace shows no sysfs read of a partition start"
opened=$(dev_opens | sort -u | xargs)
assert_eq /dev/mapper/control "$opened" "device nodes opened by the default audit"

# The control: --probe opens the disk it probes, and the filter sees it.
traced_run scsi-512e -- check --json --probe /dev/sda
opened=$(dev_opens | sort -u | xargs)
[[ " $opened " == *" /dev/sda "* ]] || fail "--probe /dev/sda: open of /dev/sda not seen in: $opened"
true
