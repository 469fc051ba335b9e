# Crash-safety driver for fix-crash.sh and fix-crash-ebr.sh; source it after
# tests/fix/lib.sh.
#
# crash_case NAME SECTOR SIZE SFDISK_SCRIPT
# A clean run under tests/fix/faultinject.so (injecting nothing) counts the
# writes and flushes that fix makes on the disk (S steps) and gives the new
# table.  Then for every N in 1..S+1 and every mode
#   eio         write/flush N fails with EIO (partalign must exit 12: error +
#               misalignment left, naming the backup),
#   kill        SIGKILL before write/flush N,
#   kill-after  SIGKILL right after write/flush N (N = S: all written, the
#               kernel not yet told),
# the disk is reset to the old image and fix runs with the fault; afterwards
# `sfdisk -d` must show exactly the old table or exactly the new one (a GPT
# made from a dos table gets fresh GUIDs on every run, so there the new
# table is compared without label-id and PARTUUIDs).  Whether `sgdisk -v`
# is clean in that state is recorded, not required.  Then fix runs again
# without the shim: it must exit 0 or 1 and leave the new table, clean for
# sgdisk -v, with the kernel's partitions matching it.  A summary of every
# step is printed at the end of each case.

SHIM="$top_builddir/tests/fix/faultinject.so"
[ -f "$SHIM" ] || skip "$SHIM not built (make check builds it)"

# What `sfdisk -d` shows, or nothing when it finds no table.
table_of() {
	sfdisk -d "$1" 2>/dev/null || true
}

# A table without the GUIDs a fresh GPT makes up.
no_guids() {
	sed -E -e '/^label-id:/d' -e 's/, uuid=[0-9A-Fa-f-]+//'
}

crash_case() {
	local name=$1 bs=$2 size=$3 script=$4 dev orig old new newsys steps n mode now
	local state sg what want_rc cmp_new summary=""
	dev=$(mkdisk "$name" "$size" "$bs" "$script")
	orig="$T_TMP/$name.orig"
	dd if="$dev" of="$orig" bs=1M conv=sparse status=none
	old=$(table_of "$dev")
	[ -n "$old" ] || fail "$name: sfdisk sees no table before the fix"
	if [ "$(sfd_label "$dev")" = gpt ]; then cmp_new=cat; else cmp_new=no_guids; fi

	rm -f "$T_TMP/clean.log"
	PA_RC=0
	LD_PRELOAD="$SHIM" FI_LOG="$T_TMP/clean.log" "$PARTALIGN" fix --yes --backup-dir "$BK" \
		"$dev" >"$T_TMP/out" 2>"$T_TMP/err" </dev/null || PA_RC=$?
	expect_rc 1 "$name: clean run under the shim"
	steps=$(wc -l <"$T_TMP/clean.log")
	[ "$steps" -gt 0 ] || fail "$name: the shim saw no write to the disk"
	new=$(table_of "$dev" | $cmp_new)
	newsys=$(sysfs_layout "$dev")
	sgdisk_ok "$dev"
	[ "$(table_of "$dev")" != "$old" ] || fail "$name: the clean run changed nothing"

	for mode in eio kill kill-after; do
		for ((n = 1; n <= steps + 1; n++)); do
			dd if="$orig" of="$dev" bs=1M conv=fsync status=none
			kernel_reload "$dev"
			assert_eq "$old" "$(table_of "$dev")" "$name: reset before $mode $n"
			# in a subshell, so that the shell's "Killed" notice goes nowhere
			PA_RC=$( (LD_PRELOAD="$SHIM" FI_AT=$n FI_MODE=$mode "$PARTALIGN" fix --yes \
				--backup-dir "$BK" "$dev" >"$T_TMP/out" 2>"$T_TMP/err" </dev/null &&
				echo 0 || echo $?) 2>/dev/null)
			what=$(sed -n "${n}p" "$T_TMP/clean.log" | cut -d' ' -f2-)
			[ -n "$what" ] || what="(none: runs to the end)"
			if [ "$n" -gt "$steps" ]; then
				want_rc=1
			elif [ "$mode" = eio ]; then
				want_rc=12
			else
				want_rc=137
			fi
			expect_rc "$want_rc" "$name: $mode at step $n ($what)"
			if [ "$want_rc" = 12 ]; then
				grep -q "writing the new table failed; the backup is $BK/" "$T_TMP/err" ||
					fail "$name: $mode at step $n: stderr: $(cat "$T_TMP/err")"
			fi
			now=$(table_of "$dev")
			if [ "$now" = "$old" ]; then
				state=old
			elif [ "$($cmp_new <<<"$now")" = "$new" ]; then
				state=new
			else
				fail "$name: $mode at step $n ($what): the table is neither the old" \
					"nor the new one:"$'\n'"$now"$'\n'"old:"$'\n'"$old"
			fi
			if [ "$(sfd_label "$dev")" != gpt ]; then
				sg="n/a (dos)"
			elif sgdisk -v "$dev" 2>&1 | grep -q '^No problems found'; then
				sg=clean
			else
				sg="PROBLEMS"
			fi

			pa_fix "$dev"
			[ "$PA_RC" = 0 ] || [ "$PA_RC" = 1 ] ||
				fail "$name: rerun after $mode at step $n: exit $PA_RC: $(cat "$T_TMP/err")"
			assert_eq "$new" "$(table_of "$dev" | $cmp_new)" \
				"$name: table after the rerun ($mode at step $n)"
			sgdisk_ok "$dev"
			assert_eq "$newsys" "$(sysfs_layout "$dev")" \
				"$name: kernel after the rerun ($mode at step $n)"
			summary+=$(printf '\n  %-10s %2d %-28s -> table %-3s sgdisk %-9s rerun %s' \
				"$mode" "$n" "$what" "$state" "$sg" "$PA_RC")
		done
	done
	echo "ok: $name: $steps steps, every fault leaves the old or the new table:$summary"
}
