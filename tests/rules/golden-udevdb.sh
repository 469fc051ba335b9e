#!/bin/bash
# golden.sh once more, with the testbeds' udev properties (ID_SERIAL,
# ID_WWN, ID_PART_ENTRY_*, DM_UUID...) served from a udev database
# (/run/udev/data/b<maj>:<min> in a private mount namespace) instead of the
# uevent files umockdev writes them to: tests/lib/umockdev-udevdb stands in
# for umockdev-run on golden.sh's PATH.  So partalign rules reads its IDs
# through the same database reader a real host uses, and the generated
# rules must still match tests/rules/expected/ byte for byte.
. "$top_srcdir/tests/lib/common.sh"
need_no_sanitizers "umockdev-run"
need_cmd umockdev-run unshare
unshare --mount --propagation private true 2>/dev/null ||
	unshare --map-root-user --mount true 2>/dev/null ||
	skip "cannot make a private mount namespace for the testbeds' udev database"

PARTALIGN_UMOCKDEV_RUN=$(command -v umockdev-run)
export PARTALIGN_UMOCKDEV_RUN
mkdir "$T_TMP/bin"
cat >"$T_TMP/bin/umockdev-run" <<EOF2
#!/bin/sh
echo "\$*" >>"$T_TMP/runs"
exec bash "$top_srcdir/tests/lib/umockdev-udevdb" "\$@"
EOF2
chmod +x "$T_TMP/bin/umockdev-run"

rc=0
PATH="$T_TMP/bin:$PATH" bash "$top_srcdir/tests/rules/golden.sh" || rc=$?
[ "$rc" = 0 ] || fail "golden.sh through the udev database: exit $rc"
n=$(grep -c -- '--device' "$T_TMP/runs" 2>/dev/null || true)
[ "${n:-0}" -gt 0 ] || fail "golden.sh never ran umockdev-run through the udev database"
echo "PASS: golden.sh with the udev database ($n umockdev runs)"
