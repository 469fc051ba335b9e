#!/bin/bash
# A restore killed (SIGKILL, tests/fix/faultinject.so) before each of its
# writes and flushes: restoring the dos table of a disk that fix converted
# to GPT must leave, at every point, either the whole GPT (partitions 1, 5,
# 6) or the whole dos table (1, extended 2, 5, 6) -- never a protective MBR
# with both GPT copies already cleared.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/common.sh"
need_root
need_cmd sfdisk blkid partx
shim="$top_builddir/tests/fix/faultinject.so"
[ -f "$shim" ] || fail "$shim: not built"

done_all=0
for at in $(seq 1 20); do
	rm -rf "$T_TMP/bk" "$T_TMP/bk2"
	dev=$(mkdisk "d$at" 64M 512 'label: dos\nstart=63,size=1000,type=83\nstart=8000,type=5\nstart=8100,size=1000,type=fd\nstart=10000,size=2000,type=82')
	"$PARTALIGN" fix --yes --backup-dir "$T_TMP/bk" "$dev" >/dev/null 2>&1 || true
	[ "$(blkid -p -o value -s PTTYPE "$dev")" = gpt ] || fail "fix did not convert $dev"
	backup=$(ls "$T_TMP"/bk/*.pt)
	rc=0
	FI_AT=$at FI_MODE=kill LD_PRELOAD="$shim" "$PARTALIGN" restore --yes \
		--backup-dir "$T_TMP/bk2" "$backup" "$dev" >/dev/null 2>&1 || rc=$?
	label=$(blkid -p -o value -s PTTYPE "$dev" 2>/dev/null || true)
	parts=$(sfdisk -d "$dev" 2>/dev/null | grep -c 'start=' || true)
	case "$label:$parts" in
	gpt:3 | dos:4) ;;
	*) fail "restore killed at write/flush $at: label '$label' with $parts partitions" ;;
	esac
	partx -d "$dev" >/dev/null 2>&1 || true
	if [ "$rc" != 137 ]; then
		[ "$label" = dos ] || fail "restore finished (exit $rc) but the label is $label"
		done_all=1
		break
	fi
done
[ "$done_all" = 1 ] || fail "restore never finished within 20 injected steps"
echo "PASS: every kill point of a dos-over-gpt restore left one whole label"
