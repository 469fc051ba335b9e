# Crash-safety driver for fix-crash.sh, fix-crash-ebr.sh and restore-crash.sh;
# source it after tests/fix/lib.sh.
#
# crash_case NAME SECTOR SIZE SFDISK_SCRIPT
#   partalign fix on a disk with that table: "old" is the table before,
#   "new" the one a clean fix writes.
# restore_crash_case NAME SECTOR SIZE SFDISK_SCRIPT
#   the disk is fixed first (no fault); then partalign restore of that fix's
#   backup: "old" is the fixed table, "new" the original one, byte for byte.
#
# Both run crash_sweep: a clean run under tests/fix/faultinject.so
# (injecting nothing) counts the writes and flushes the command makes on the
# disk (S steps) and gives the new table.  Then for every N in 1..S+1 and
# every mode
#   eio         write/flush N fails with EIO (fix must exit 12: error +
#               misalignment left, naming the backup; restore exits 8),
#   kill        SIGKILL before write/flush N,
#   kill-after  SIGKILL right after write/flush N (N = S: all written, the
#               kernel not yet told),
#   lost, torn-even, torn-odd
#               a power cut before write/flush N (N = S+1: after the run
#               ended): writes not yet followed by an fsync of the disk are
#               held in a volatile cache by the shim and, at the cut, are
#               lost, or torn (every other logical sector reaches the disk,
#               starting with the first or the second one),
# the disk is reset to the old image and the command runs with the fault.
# Afterwards `sfdisk -d` must show exactly the old table or exactly the new
# one, and the new one once the run has ended (what it wrote is durable),
# and never a dos sector 0 beside a valid GPT header (two_labels);
# a GPT made from a dos table gets fresh GUIDs on every run, so there the
# new table is compared without label-id and PARTUUIDs.  Whenever
# sfdisk reads a GPT, `sgdisk -p` (gdisk's own reader, which falls back to
# the backup copy as libfdisk does) must list the same partitions as it
# lists for that table: two independent readers, never a mixture.  Whether
# `sgdisk -v` is clean in that state is recorded, not required.  Then the
# command runs again without the shim (fix again, or the same restore): it
# must exit 0 or 1 and leave the new table, clean for sgdisk -v when it is a
# GPT, with the kernel's partitions matching it.  A summary of every step is
# printed at the end of each case.

need_no_sanitizers "the fault shim tests/fix/faultinject.so"
SHIM="$top_builddir/tests/fix/faultinject.so"
[ -f "$SHIM" ] || skip "$SHIM not built (make check builds it)"

CRASH_MODES="eio kill kill-after lost torn-even torn-odd"

# What `sfdisk -d` shows, or nothing when it finds no table.
table_of() {
	sfdisk -d "$1" 2>/dev/null || true
}

# A table without the GUIDs a fresh GPT makes up.
no_guids() {
	sed -E -e '/^label-id:/d' -e 's/, uuid=[0-9A-Fa-f-]+//'
}

# The partitions `sgdisk -p` lists (its table from "Number" on, no GUIDs).
sgdisk_view() {
	sgdisk -p "$1" 2>/dev/null | sed -n '/^Number/,$p' || true
}

# The label sfdisk reads, or "none".
label_of() {
	local l
	l=$(sfdisk --json "$1" 2>/dev/null | jq -r '.partitiontable.label' 2>/dev/null) || true
	echo "${l:-none}"
}

# crash_sweep NAME DEV OP RERUN CLEAN_RC EIO_RC EIO_MSG CMP_NEW
# OP runs the command under test with the environment it is given (stdout
# in $T_TMP/out, stderr in $T_TMP/err); RERUN runs it again without the shim
# and sets PA_RC.  The disk DEV holds the old table now; $T_TMP/NAME.orig is
# made here.  CMP_NEW filters a table before it is compared with the new one.
crash_sweep() {
	local name=$1 dev=$2 op=$3 rerun=$4 clean_rc=$5 eio_rc=$6 eio_msg=$7 cmp_new=$8
	local orig old new oldlab newlab oldsg newsg newsys steps n mode now lab state sg what
	local want_rc env summary=""
	orig="$T_TMP/$name.orig"
	dd if="$dev" of="$orig" bs=1M conv=sparse status=none
	old=$(table_of "$dev")
	[ -n "$old" ] || fail "$name: sfdisk sees no table before the run"
	oldlab=$(label_of "$dev")
	oldsg=$(sgdisk_view "$dev")

	rm -f "$T_TMP/clean.log"
	PA_RC=0
	(
		export LD_PRELOAD="$SHIM" FI_LOG="$T_TMP/clean.log"
		$op
	) >"$T_TMP/out" 2>"$T_TMP/err" </dev/null || PA_RC=$?
	expect_rc "$clean_rc" "$name: clean run under the shim"
	steps=$(wc -l <"$T_TMP/clean.log")
	[ "$steps" -gt 0 ] || fail "$name: the shim saw no write to the disk"
	new=$(table_of "$dev" | $cmp_new)
	newlab=$(label_of "$dev")
	newsg=$(sgdisk_view "$dev")
	newsys=$(sysfs_layout "$dev")
	[ "$newlab" != gpt ] || sgdisk_ok "$dev"
	[ "$(table_of "$dev")" != "$old" ] || fail "$name: the clean run changed nothing"
	[ "$newlab" != gpt ] || [ -n "$newsg" ] || fail "$name: sgdisk -p lists nothing after the clean run"

	for mode in $CRASH_MODES; do
		for ((n = 1; n <= steps + 1; n++)); do
			dd if="$orig" of="$dev" bs=1M conv=fsync status=none
			kernel_reload "$dev"
			assert_eq "$old" "$(table_of "$dev")" "$name: reset before $mode $n"
			case $mode in
			eio | kill | kill-after) env=(FI_MODE=$mode) ;;
			*) env=(FI_MODE=powercut FI_LOSS=$mode) ;;
			esac
			# in a subshell, so that the shell's "Killed" notice goes nowhere
			PA_RC=$( (export LD_PRELOAD="$SHIM" FI_AT=$n "${env[@]}"
				$op >"$T_TMP/out" 2>"$T_TMP/err" </dev/null && echo 0 || echo $?) 2>/dev/null)
			what=$(sed -n "${n}p" "$T_TMP/clean.log" | cut -d' ' -f2-)
			[ -n "$what" ] || what="(none: runs to the end)"
			if [ "$n" -gt "$steps" ]; then
				want_rc=$clean_rc
			elif [ "$mode" = eio ]; then
				want_rc=$eio_rc
			else
				want_rc=137
			fi
			expect_rc "$want_rc" "$name: $mode at step $n ($what)"
			if [ "$want_rc" = "$eio_rc" ] && [ "$mode" = eio ]; then
				grep -q -- "$eio_msg" "$T_TMP/err" ||
					fail "$name: $mode at step $n: stderr: $(cat "$T_TMP/err")"
			fi
			now=$(table_of "$dev")
			lab=$(label_of "$dev")
			# never a dos sector 0 beside a valid GPT header (readers differ)
			! two_labels "$dev" ||
				fail "$name: $mode at step $n ($what): a dos table and a valid GPT header on the disk at once"
			if [ "$now" = "$old" ] && [ "$lab" = "$oldlab" ]; then
				state=old
			elif [ "$($cmp_new <<<"$now")" = "$new" ] && [ "$lab" = "$newlab" ]; then
				state=new
			else
				fail "$name: $mode at step $n ($what): the table is neither the old" \
					"nor the new one:"$'\n'"$now"$'\n'"old:"$'\n'"$old"$'\n'"new:"$'\n'"$new"
			fi
			# a run that ended has made its table durable: the cut after
			# its exit must find the new one
			[ "$n" -le "$steps" ] || [ "$state" = new ] ||
				fail "$name: $mode after the run ended (exit $PA_RC): the old table is back"
			if [ "$lab" = gpt ]; then
				if [ "$state" = old ]; then
					assert_eq "$oldsg" "$(sgdisk_view "$dev")" \
						"$name: $mode at step $n ($what): sgdisk -p of the old table"
				else
					assert_eq "$newsg" "$(sgdisk_view "$dev")" \
						"$name: $mode at step $n ($what): sgdisk -p of the new table"
				fi
				if sgdisk -v "$dev" 2>&1 | grep '^No problems found' >/dev/null; then
					sg=clean
				else
					sg="PROBLEMS"
				fi
			else
				sg="n/a ($lab)"
			fi

			$rerun
			[ "$PA_RC" = 0 ] || [ "$PA_RC" = 1 ] ||
				fail "$name: rerun after $mode at step $n: exit $PA_RC: $(cat "$T_TMP/err")"
			assert_eq "$new" "$(table_of "$dev" | $cmp_new)" \
				"$name: table after the rerun ($mode at step $n)"
			[ "$newlab" != gpt ] || sgdisk_ok "$dev"
			assert_eq "$newsys" "$(sysfs_layout "$dev")" \
				"$name: kernel after the rerun ($mode at step $n)"
			summary+=$(printf '\n  %-10s %2d %-28s -> table %-3s sgdisk %-9s rerun %s' \
				"$mode" "$n" "$what" "$state" "$sg" "$PA_RC")
		done
	done
	echo "ok: $name: $steps steps, every fault leaves the old or the new table:$summary"
}

# The command lines crash_sweep runs (CRASH_DEV, CRASH_BACKUP set by the cases).
crash_op_fix() {
	"$PARTALIGN" fix --yes --backup-dir "$BK" "$CRASH_DEV"
}
crash_rerun_fix() {
	pa_fix "$CRASH_DEV"
}
crash_op_restore() {
	"$PARTALIGN" restore --yes --backup-dir "$T_TMP/bk-restore" "$CRASH_BACKUP" "$CRASH_DEV"
}
crash_rerun_restore() {
	run_pa "$T_TMP/out" "$T_TMP/err" restore --yes --backup-dir "$T_TMP/bk-restore" \
		"$CRASH_BACKUP" "$CRASH_DEV"
}

crash_case() {
	local name=$1 bs=$2 size=$3 script=$4 cmp_new=cat
	CRASH_DEV=$(mkdisk "$name" "$size" "$bs" "$script")
	[ "$(sfd_label "$CRASH_DEV")" = gpt ] || cmp_new=no_guids
	crash_sweep "$name" "$CRASH_DEV" crash_op_fix crash_rerun_fix 1 12 \
		"writing the new table failed; the backup is $BK/" "$cmp_new"
}

restore_crash_case() {
	local name=$1 bs=$2 size=$3 script=$4 orig_table
	CRASH_DEV=$(mkdisk "$name" "$size" "$bs" "$script")
	orig_table=$(table_of "$CRASH_DEV")
	rm -rf "$BK"
	pa_fix "$CRASH_DEV"
	expect_rc 1 "$name: the fix before the restore"
	CRASH_BACKUP=$(find "$BK" -name '*.pt')
	[ -n "$CRASH_BACKUP" ] && [ "$(wc -l <<<"$CRASH_BACKUP")" = 1 ] ||
		fail "$name: the fix saved no single backup: $CRASH_BACKUP"
	crash_sweep "$name" "$CRASH_DEV" crash_op_restore crash_rerun_restore 1 8 \
		"$CRASH_DEV: restore failed: Input/output error" cat
	# the restored table is the original one, as sfdisk reads it
	assert_eq "$orig_table" "$(table_of "$CRASH_DEV")" "$name: restored table vs the original"
}
