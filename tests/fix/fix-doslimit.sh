#!/bin/bash
# Two small bugs of issue #27 (item 7):
#  - a dos table ends at 2^32 sectors (2 TiB with 512-byte sectors), not at
#    the end of a bigger disk: plan/fix --label keep, and --move-data (which
#    keeps the dos table), name that limit when a partition does not fit
#    below it -- not the room at the end of the disk, which a bigger LUN
#    would not change.  Sparse 3 TiB images on loop devices; "unchanged" is
#    the hash of every data extent of the image (SEEK_DATA), so that a write
#    anywhere, into a hole too, would show.
#  - plan -o +REFUSED (REFUSED is a default column) and check -o +NAME print
#    the column once; a column named twice in a list is printed once.
# without it nothing below is safe: every path would start at /
. "$top_srcdir/tests/lib/common.sh" || exit 99
. "$top_srcdir/tests/fix/lib.sh"
need_cmd python3 truncate

# image_sum IMAGE: sha256 over the offsets and bytes of the data extents
image_sum() {
	python3 - "$1" <<'EOF'
import hashlib, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
end = os.fstat(fd).st_size
h, off = hashlib.sha256(), 0
while off < end:
    try:
        off = os.lseek(fd, off, os.SEEK_DATA)
    except OSError:
        break
    hole = os.lseek(fd, off, os.SEEK_HOLE)
    h.update(b"%d:" % off)
    while off < hole:
        b = os.pread(fd, min(1 << 20, hole - off), off)
        h.update(b)
        off += len(b)
print(h.hexdigest())
EOF
}

# partition 2 ends at the limit; re-created after partition 1, on the 2 MiB
# grain, it would start at the limit itself
k=$(mkdisk keep 3T 512 "label: dos\nstart=63, size=4294959900, type=83\nstart=4294960000, size=7296, type=83" 2>/dev/null)
[ "$(sfd_layout "$k" | cut -d' ' -f1-3)" = "1 63 4294959900
2 4294960000 7296" ] || fail "sfdisk did not write the dos table: $(sfdisk -d "$k")"
sync
sum=$(image_sum "$T_TMP/keep.img")
want="refused: partition 2 does not fit below the 2 TiB limit of a dos table (2^32 sectors): drop --label keep to convert to gpt"
run_pa "$T_TMP/out" "$T_TMP/err" plan --label keep -J -o NUM,REFUSED "$k"
expect_rc 4 "plan --label keep"
assert_eq "${want#refused: }" "$(jq -r '.plan[0].refused' "$T_TMP/out")" "plan --label keep"
pa_fix "$k" --label keep
expect_rc 4 "fix --label keep"
assert_eq "partalign: $k: $want" "$(cat "$T_TMP/err")" "fix --label keep: message"
sync
assert_eq "$sum" "$(image_sum "$T_TMP/keep.img")" "fix --label keep: image content"
[ -z "$(ls -A "$BK" 2>/dev/null)" ] || fail "fix --label keep: a backup was written"
echo "ok: --label keep -> 4: $want"
# converted to GPT the same disk is no problem (plan only: nothing written)
run_pa "$T_TMP/out" "$T_TMP/err" plan -J -o NUM,ACTION,REFUSED "$k"
expect_rc 4 "plan (gpt)"
assert_eq "1 recreate null,2 recreate null" \
	"$(jq -r '[.plan[] | "\(.num) \(.action) \(.refused)"] | join(",")' "$T_TMP/out")" \
	"plan (gpt): nothing refused"

echo "# --move-data keeps the dos table: the same limit"
m=$(mkdisk move 3T 512 "label: dos\nstart=4096, size=4294955904, type=83\nstart=4294960000, size=7296, type=83" 2>/dev/null)
sync
sum=$(image_sum "$T_TMP/move.img")
want="refused: no room to move partition 2 to an aligned start: it would end 1.6 MiB (1638400 bytes) past the 2 TiB limit of a dos table (2^32 sectors)"
run_pa "$T_TMP/out" "$T_TMP/err" fix --yes --move-data --quiet --journal "$T_TMP/j" \
	--backup-dir "$BK" "$m"
expect_rc 4 "fix --move-data"
assert_eq "partalign: $m: $want" "$(cat "$T_TMP/err")" "fix --move-data: message"
sync
assert_eq "$sum" "$(image_sum "$T_TMP/move.img")" "fix --move-data: image content"
[ -z "$(ls -A "$BK" 2>/dev/null)" ] && [ ! -e "$T_TMP/j" ] ||
	fail "fix --move-data: a backup or journal was written"
echo "ok: --move-data -> 4: $want"

echo "# -o +COLUMN already among the defaults: printed once"
run_pa "$T_TMP/out" "$T_TMP/err" plan -o +REFUSED "$k"
assert_eq 1 "$(head -n1 "$T_TMP/out" | tr -s ' ' '\n' | grep -cx REFUSED)" \
	"plan -o +REFUSED: REFUSED columns in the heading"
run_pa "$T_TMP/out" "$T_TMP/err" plan -J -o NUM,REFUSED,NUM,REFUSED "$k"
assert_eq "num,refused" "$(jq -r '.plan[0] | keys_unsorted | join(",")' "$T_TMP/out")" \
	"plan -J -o NUM,REFUSED,NUM,REFUSED: keys"
run_pa "$T_TMP/out" "$T_TMP/err" check -o +NAME "$k"
assert_eq 1 "$(head -n1 "$T_TMP/out" | tr -s ' ' '\n' | grep -cx NAME)" \
	"check -o +NAME: NAME columns in the heading"
echo "ok: each column once"
