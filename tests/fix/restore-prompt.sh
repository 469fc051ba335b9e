#!/bin/bash
# restore shows, before its question, the table it would write beside the
# one on the disk (each as libparted reads it), and an answer but y writes
# nothing and says so.  The seed's disk: dos, a partition at sector 63 and
# one at 4096, fixed to GPT at 2 MiB; then its backup restored on an 80x24
# terminal (tests/lib/at-prompt.py): answered n -- the two labels named, row
# 1 moved back to 63s, row 2 the same, "not confirmed: nothing written",
# exit 8, the disk's sha256 unchanged; answered y -- sfdisk reads the dos
# table again.  Piped with --yes the table is there too, starts in bytes.
. "${top_srcdir:-.}/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd python3
PROMPT="$top_srcdir/tests/lib/at-prompt.py"

dev=$(mkdisk seed 64M 512 'label: dos\nstart=63, size=20000, type=83\nstart=40960, size=8192, type=83')
pa_fix "$dev"
expect_rc 1 "fix"
[ "$(sfd_label "$dev")" = gpt ] || fail "fix did not make it GPT"
bk=$(ls -t "$BK"/*.pt | head -1)
sum=$(dev_sum "$dev")

echo "# answered n"
PA_RC=0
python3 "$PROMPT" "$T_TMP/tty" n true -- "$PARTALIGN" restore --backup-dir "$T_TMP/bk2" "$bk" "$dev" ||
	PA_RC=$?
[ "$PA_RC" != 125 ] || fail "at-prompt: no prompt: $(cat "$T_TMP/tty")"
expect_rc 8 "restore answered n"
tr -d '\r' <"$T_TMP/tty" >"$T_TMP/screen"
grep -qF "$dev: the table now is gpt, the backup's is dos: restore writes dos" "$T_TMP/screen" ||
	fail "no line naming the labels: $(cat "$T_TMP/screen")"
grep -qE '^NUM +NAME +NOW-START +NOW-SIZE +RESTORED-START +RESTORED-SIZE +CHANGE *$' "$T_TMP/screen" ||
	fail "no table heading: $(cat "$T_TMP/screen")"
grep -qE '^ +1 +4096s +9.7M +63s +9.7M +moved *$' "$T_TMP/screen" ||
	fail "row 1 is not 'moved' from 4096s back to 63s: $(cat "$T_TMP/screen")"
grep -qE '^ +2 +40960s +4M +40960s +4M +same *$' "$T_TMP/screen" ||
	fail "row 2 is not the same: $(cat "$T_TMP/screen")"
grep -qF "$dev: not confirmed: nothing written" "$T_TMP/screen" || fail "n: $(cat "$T_TMP/screen")"
awk 'length > 80 { exit 1 }' "$T_TMP/screen" || fail "a line over 80 columns"
[ "$(dev_sum "$dev")" = "$sum" ] || fail "restore answered n wrote to the disk"

echo "# piped, --yes: the table in bytes, then the restore"
run_pa "$T_TMP/out" "$T_TMP/err" restore --yes --backup-dir "$T_TMP/bk2" "$bk" "$dev"
expect_rc 1 "restore --yes"
grep -qE '^ +1 +2097152 +9.7M +32256 +9.7M +moved *$' "$T_TMP/out" ||
	fail "piped: row 1 in bytes: $(cat "$T_TMP/out")"
[ "$(sfd_label "$dev")" = dos ] || fail "restore did not bring the dos table back"
[ "$(sfd_layout "$dev" | awk '{print $2}' | tr '\n' ' ')" = "63 40960 " ] ||
	fail "the starts are $(sfd_layout "$dev" | awk '{print $2}' | tr '\n' ' ')"
echo PASS
