#!/bin/bash
# What an admin sees at fix's [y/N] prompt, on a real 80x24 terminal
# (tests/lib/at-prompt.py answers it):
#   answered n: one line "DEVICE: not confirmed: nothing written", exit 4 (as
#     before: the misalignment is left), the disk byte-identical (sha256), no
#     backup file made
#   a dos disk: the plan above the prompt says the table becomes GPT and
#     what that means ("BIOS boot and dos-only OSes fail"), and the
#     prompt asks to re-create it "as GPT"; n leaves it dos, y makes it GPT
#     (sfdisk); with --label keep neither is said
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd python3
PROMPT="$top_srcdir/tests/lib/at-prompt.py"

# answer ANSWER ARGS...: partalign ARGS on a terminal, answered ANSWER; what
# the terminal showed in $T_TMP/tty, the status in $PA_RC
answer() {
	local a=$1
	shift
	PA_RC=0
	python3 "$PROMPT" "$T_TMP/tty" "$a" true -- "$PARTALIGN" "$@" || PA_RC=$?
	[ "$PA_RC" != 125 ] || fail "at-prompt: no prompt: $(cat "$T_TMP/tty")"
}

# tty_has TEXT WHAT
tty_has() {
	grep -qF -- "$1" "$T_TMP/tty" || fail "$2: the terminal lacks '$1': $(cat "$T_TMP/tty")"
}

# no line of the terminal over 80 columns
tty_fits() {
	local long
	long=$(awk 'length > 80' "$T_TMP/tty")
	[ -z "$long" ] || fail "$1: lines over 80 columns: $long"
}

echo "# answered n: nothing written, and fix says so"
d=$(mkdisk no 64M 512 'label: gpt\nfirst-lba: 34\nstart=63, size=20480, name=a')
sum=$(dev_sum "$d")
answer n fix --backup-dir "$BK" "$d"
expect_rc 4 "fix answered n"
tty_has "$d: not confirmed: nothing written" "fix answered n"
tty_fits "fix answered n"
[ "$(grep -c 'nothing written' "$T_TMP/tty")" = 1 ] ||
	fail "fix answered n: 'nothing written' not once: $(cat "$T_TMP/tty")"
assert_eq "$sum" "$(dev_sum "$d")" "the disk after n"
[ ! -e "$BK" ] || [ -z "$(ls -A "$BK")" ] || fail "a backup after n: $(ls "$BK")"
assert_eq 63 "$(sfdisk --json "$d" | jq '.partitiontable.partitions[0].start')" \
	"partition 1 after n"
# an empty answer (Enter) is no too
answer '' fix --backup-dir "$BK" "$d"
expect_rc 4 "fix answered with Enter"
tty_has "$d: not confirmed: nothing written" "fix answered with Enter"
assert_eq "$sum" "$(dev_sum "$d")" "the disk after Enter"
echo "ok: n and Enter: nothing written, said on one line, exit 4"

echo "# a dos disk: the conversion to GPT, said before the question"
d=$(mkdisk dos 64M 512 'label: dos\nstart=63, size=20480, type=83')
sum=$(dev_sum "$d")
answer n fix --backup-dir "$BK" "$d"
expect_rc 4 "fix of a dos disk answered n"
tty_has "$d: dos -> GPT: BIOS boot and dos-only OSes fail (--label keep)" \
	"the prompt of a dos disk"
tty_has "Re-create the partition table of $d as GPT? [y/N]" "the prompt of a dos disk"
tty_fits "the prompt of a dos disk"
# the line comes between the table and the question
assert_eq "$d: dos -> GPT" "$(grep -B1 -F '[y/N]' "$T_TMP/tty" | head -n1 | cut -d: -f1-2)" \
	"the line above the question"
assert_eq "$sum" "$(dev_sum "$d")" "the dos disk after n"
assert_eq dos "$(sfd_label "$d")" "the label after n"
answer n fix --label keep --backup-dir "$BK" "$d"
expect_rc 4 "fix --label keep answered n"
tty_has "Re-create the partition table of $d? [y/N]" "the prompt with --label keep"
! grep -q GPT "$T_TMP/tty" || fail "--label keep: GPT named: $(cat "$T_TMP/tty")"
answer y fix --backup-dir "$BK" "$d"
expect_rc 1 "fix of a dos disk answered y"
assert_eq gpt "$(sfd_label "$d")" "the label after y"
echo "ok: dos -> GPT said before the question, and done on y"

echo "PASS: fix's prompt"
