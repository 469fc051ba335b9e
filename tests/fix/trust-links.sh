#!/bin/bash
# A state directory reached through a symbolic link that another user owns
# (issue 33 item 8): the link's owner can point it elsewhere between the
# check and the write, so --backup-dir of fix, restore, resume and
# provision, and --journal of fix --move-data and resume, are refused when
# any link on the way is not root's: exit 8, one line naming the link and
# its owner, before any disk is looked at (the device named does not even
# exist: no other message), nothing written (the real disk's sha256, no
# file in the target).  The same directory through a link root owns is
# used.  Links are made with ln -s and handed to nobody with chown -h.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fix/lib.sh"
need_cmd getent realpath
getent passwd nobody >/dev/null || skip "needs the user nobody"

T=$(realpath "$T_TMP")
RULE="journals and backups must be in a directory only root can change"
NOBODY="uid $(id -u nobody) (nobody)"

d=$(mkdisk links 64M 512 'label: gpt\nfirst-lba: 34\nstart=63, size=20480, name=a')
sum=$(dev_sum "$d")
# the target: a directory only root can change; the links in a sticky one
mkdir -m 0700 "$T/good"
mkdir -m 1777 "$T/sticky"
ln -s "$T/good" "$T/sticky/theirs"
chown -h nobody "$T/sticky/theirs"
ln -s "$T/good" "$T/sticky/mine"
# a link to a directory holding a link of nobody's: the second is named
ln -s "$T/sticky/theirs" "$T/chain"
missing="$T/no-such-disk"

# refused NAME LINE ARGS...: partalign ARGS exits 8 with exactly LINE on
# stderr and nothing on stdout; the disk and the target as they were
refused() {
	local name=$1 line=$2
	shift 2
	run_pa "$T_TMP/out" "$T_TMP/err" "$@"
	expect_rc 8 "$name"
	assert_eq "$line" "$(cat "$T_TMP/err")" "$name: message"
	[ ! -s "$T_TMP/out" ] || fail "$name: output: $(cat "$T_TMP/out")"
	assert_eq "$sum" "$(dev_sum "$d")" "$name: disk content"
	[ -z "$(ls -A "$T/good")" ] || fail "$name: something was written: $(ls -A "$T/good")"
	echo "ok: $name -> 8: $(cat "$T_TMP/err")"
}

link_line="$T/sticky/theirs is a symbolic link owned by $NOBODY, not root; $RULE"
refused fix-backup "partalign: refused: $link_line" \
	fix --yes --backup-dir "$T/sticky/theirs" "$d"
refused fix-backup-missing-disk "partalign: refused: $link_line" \
	fix --yes --backup-dir "$T/sticky/theirs" "$missing"
refused fix-backup-below "partalign: refused: $T/sticky/theirs/sub: $link_line" \
	fix --yes --backup-dir "$T/sticky/theirs/sub" "$missing"
refused fix-backup-chain "partalign: refused: $T/chain: $link_line" \
	fix --yes --backup-dir "$T/chain" "$missing"
refused fix-journal "partalign: refused: $link_line" \
	fix --yes --move-data --backup-dir "$T/good" --journal "$T/sticky/theirs" "$missing"
refused resume-journal "partalign: refused: $link_line" \
	resume --journal "$T/sticky/theirs" "$missing"
refused resume-backup "partalign: refused: $link_line" \
	resume --backup-dir "$T/sticky/theirs" "$missing"
printf 'x\n' >"$T/backup.pt"
refused restore-backup "partalign: refused: $link_line" \
	restore --yes --backup-dir "$T/sticky/theirs" "$T/backup.pt" "$missing"
rm "$T/backup.pt"
mkdir -p "$T/root/etc/udev/rules.d"
printf 'root:x:0:0::/root:/bin/sh\ngrid:x:54331:54321::/home/grid:/bin/false\n' >"$T/root/etc/passwd"
printf 'root:x:0:\nasmadmin:x:54329:grid\n' >"$T/root/etc/group"
printf 'owner grid\ngroup asmadmin\nmode 0660\nalign 2MiB\nrules /etc/udev/rules.d/99-asm.rules\n\nDATA1 %s\n' \
	"$missing" >"$T/asm.conf"
refused provision-backup "partalign: refused: $link_line" \
	provision --config "$T/asm.conf" --root "$T/root" --backup-dir "$T/sticky/theirs"
[ ! -e "$T/root/etc/udev/rules.d/99-asm.rules" ] || fail "provision wrote its rules"

echo "# the same directory through a link root owns"
pa_fix "$d" --backup-dir "$T/sticky/mine"
expect_rc 1 "fix --backup-dir through root's link"
[ "$(find "$T/good" -name '*.pt' | wc -l)" = 1 ] ||
	fail "no backup in $T/good: $(cat "$T_TMP/out" "$T_TMP/err")"
sgdisk_ok "$d"
echo "ok: a link root owns is followed"
echo PASS
