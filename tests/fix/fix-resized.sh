#!/bin/bash
# A disk resized while fix waits at its prompt (a LUN shrunk or grown on the
# array, a vmdk made larger): fix says so, naming both sizes, before it
# reads anything of the old table for its backup -- not "cannot save the
# table backup: Input/output error", which a shrunk disk gave (the backup
# read past its new end).  Exit 12, nothing written (sha256 of the disk as
# the resize left it), no backup file.  512 and 4096-byte sectors.
. "${top_srcdir:-.}/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd python3 truncate
PROMPT="$top_srcdir/tests/lib/at-prompt.py"

for bs in 512 4096; do
	for change in shrink grow; do
		echo "# $change, $bs-byte sectors"
		if [ "$bs" = 512 ]; then
			table='label: gpt\nfirst-lba: 34\nstart=63, size=20480, name=a'
		else
			table='label: gpt\nfirst-lba: 6\nstart=9, size=2560, name=a'
		fi
		dev=$(mkdisk "resize-$change-$bs" 64M "$bs" "$table")
		img=$(cat "/sys/block/${dev#/dev/}/loop/backing_file")
		case $change in
		shrink) new=48M want=$((48 << 20)) ;;
		grow) new=80M want=$((80 << 20)) ;;
		esac
		rm -rf "$BK"
		# the disk as the resize leaves it: the image cut, or grown with zeros
		cp "$img" "$T_TMP/before.img"
		truncate -s "$new" "$T_TMP/before.img"
		PA_RC=0
		python3 "$PROMPT" "$T_TMP/tty" y "truncate -s $new $img && losetup -c $dev" \
			-- "$PARTALIGN" fix --backup-dir "$BK" "$dev" || PA_RC=$?
		[ "$PA_RC" != 125 ] || fail "at-prompt: no prompt, or the resize failed: $(cat "$T_TMP/tty")"
		expect_rc 12 "fix of a disk that was resized at its prompt ($change, $bs)"
		grep -qF "its size changed from $((64 << 20)) to $want bytes" "$T_TMP/tty" ||
			fail "$change, $bs: $(cat "$T_TMP/tty")"
		! grep -q "Input/output error" "$T_TMP/tty" || fail "$change, $bs: $(cat "$T_TMP/tty")"
		[ "$(blockdev --getsize64 "$dev")" = "$want" ] || fail "$change, $bs: the resize did not take"
		[ -z "$(ls "$BK" 2>/dev/null)" ] || fail "$change, $bs: a backup was saved: $(ls "$BK")"
		[ "$(dev_sum "$dev")" = "$(dev_sum "$T_TMP/before.img")" ] ||
			fail "$change, $bs: the disk is not as the resize left it"
	done
done
echo PASS
