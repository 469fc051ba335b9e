#!/bin/bash
# The bash completion (completion/partalign) against the programs just
# built: loaded through bash-completion as an installed file is, called with
# COMP_WORDS/COMP_CWORD/COMP_LINE/COMP_POINT as readline sets them.
# Commands, every command's options (compared with its --help), column
# names from --list-columns, option values, files and directories, and block
# devices (a loop disk of this test; an unbound loop node is not offered).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/common.sh"

need_cmd bash awk
bc=${BASH_COMPLETION:-/usr/share/bash-completion/bash_completion}
[ -r "$bc" ] || skip "needs bash-completion ($bc)"
[ -x "$PARTALIGN" ] || fail "$PARTALIGN: not built"
comp_file=$top_srcdir/completion/partalign
bindir=$(cd "$(dirname "$PARTALIGN")" && pwd)

# run_comp LINE...: the candidates for each LINE, each block ended by "--"
run_comp() {
	PATH=$bindir:$PATH bash -c '
		. "$1" && . "$2" && . "$3" || exit 99
		shift 3
		for l; do
			comp "$l" || exit 99
			echo --
		done' comp "$bc" "$comp_file" "$top_srcdir/tests/pkg/complib.sh" "$@"
}

errors=0
bad() {
	echo "FAIL: $*" >&2
	errors=$((errors + 1))
}

# expect LINE WANT: the candidates, sorted and space-joined, are WANT
expect() {
	local got
	got=$(run_comp "$1" | sed '$d' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$2" ] || bad "'$1': expected '$2', got '$got'"
}

# expect_has LINE WORD...: each WORD is among the candidates
expect_has() {
	local line=$1 got w
	shift
	got=$(run_comp "$line")
	for w; do
		grep -qxF -- "$w" <<<"$got" || bad "'$line': '$w' not offered (got: $(echo $got))"
	done
}

# expect_prefix LINE PREFIX: there are candidates, and all start with PREFIX
expect_prefix() {
	local got
	got=$(run_comp "$1" | sed '$d')
	[ -n "$got" ] || bad "'$1': nothing offered"
	if grep -qv -- "^$2" <<<"$got"; then
		bad "'$1': offered $(echo $got), not all starting with $2"
	fi
}

# --- the commands ---------------------------------------------------------
expect "partalign ch" "check"
expect "partalign pr" "provision"
expect "partalign re" "restore resume"
cmds=$("$PARTALIGN" --help | awk '/^Commands:/ { c = 1; next } c && NF { print $1 } c && !NF { exit }')
for c in check plan fix restore resume rules provision udev; do
	grep -qx "$c" <<<"$cmds" || bad "partalign --help does not list $c"
done
expect "partalign " "$(printf '%s\n' $cmds --help --version | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"

# --- every command's options, against its own --help ----------------------
expect "partalign check --o" "--output"
expect "partalign check --li" "--list-columns"
for c in $cmds; do
	want=$("$PARTALIGN" "$c" --help | sed -n '/^Options:/,$p' | grep -E '^ +-' |
		grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z-]*' | tr -d ' ,' | LC_ALL=C sort -u |
		tr '\n' ' ' | sed 's/ $//')
	[ -n "$want" ] || bad "$c --help lists no options"
	expect "partalign $c -" "$want"
done
# options the commands are known to have (the help texts could lose them)
expect_has "partalign check --" --align --probe --json --pairs --raw --noheadings --bytes \
	--output --list-columns --help
expect_has "partalign fix --" --yes --new --name --label --move-data --journal --verify \
	--discard-data --backup-dir --wait --output
expect_has "partalign restore --" --yes --backup-dir
expect_has "partalign resume --" --journal --backup-dir --verify --quiet --wait
expect_has "partalign rules --" --disk --map --match --owner --group --mode --output --root \
	--dry-run --force --no-reload
expect_has "partalign provision --" --config --json --root --backup-dir --align --dry-run
expect_has "partalign udev --" --align --log

# --- column names, from --list-columns ------------------------------------
expect_prefix "partalign check -o NA" "NA"
expect_has "partalign check -o NA" NAME
expect_has "partalign check --output PHY" PHY-SEC PHYSICAL PHYS-GRAIN
expect "partalign check -o NAME,STA" "NAME,START NAME,START-SEC"
expect "partalign check -o +TAB" "+TABLE"
expect "partalign check -o name,pol" "name,policy name,policy-grain"
expect "partalign plan -o NEW-S" "NEW-SIZE NEW-START"
expect_has "partalign fix --output " RESULT BACKUP REFUSED
ncols=$("$PARTALIGN" check --list-columns | wc -l)
got=$(run_comp "partalign check -o " | sed '$d' | wc -l)
[ "$got" = "$ncols" ] || bad "check -o: $got columns offered, --list-columns has $ncols"
# rules --output is a file, not columns
expect "partalign rules --output /etc/host" "/etc/host.conf /etc/hostname /etc/hosts"

# --- option values --------------------------------------------------------
expect "partalign plan --label " "gpt keep"
expect "partalign rules --match " "auto dm-uuid partuuid serial wwn"
expect "partalign check --align=2" "2MiB"
expect_has "partalign fix -a " 1MiB 2MiB 4MiB
expect_has "partalign rules --owner ro" root
expect_has "partalign rules --group ro" root

# --- files and directories ------------------------------------------------
mkdir "$T_TMP/jdir"
: >"$T_TMP/jfile"
expect "partalign fix --journal $T_TMP/j" "$T_TMP/jdir"
expect "partalign resume --backup-dir $T_TMP/j" "$T_TMP/jdir"
expect "partalign restore $T_TMP/jf" "$T_TMP/jfile"
expect "partalign rules --map $T_TMP/jf" "$T_TMP/jfile"
expect "partalign provision --config $T_TMP/jf" "$T_TMP/jfile"
expect "partalign provision -c $T_TMP/jf" "$T_TMP/jfile"

# --- block devices --------------------------------------------------------
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null && command -v sfdisk >/dev/null; then
	dev=$(mkdisk comp 64M 512 'label: dos\nstart=2048, size=40960, type=83')
	n=${dev#/dev/}
	[ -b "${dev}p1" ] || fail "${dev}p1 did not appear"
	expect_has "partalign check /dev/lo" "$dev" "${dev}p1"
	expect_prefix "partalign check /dev/lo" "/dev/loop"
	expect_has "partalign plan " "$dev"
	expect_has "partalign fix --yes " "$dev"
	expect_has "partalign resume /dev/" "$dev"
	# restore FILE DEVICE: the second argument is a device
	expect_has "partalign restore $T_TMP/jfile /dev/lo" "$dev"
	expect "partalign restore $T_TMP/jfile $dev " ""
	# udev takes a kernel name of a partition
	expect_has "partalign udev lo" "${n}p1"
	# and only partitions: every name offered for "loopN" is one (another
	# test's loop1NN and its partitions may be offered for loop1)
	expect_has "partalign udev $n" "${n}p1"
	while read -r w; do
		[ -e "/sys/class/block/$w/partition" ] || [ ! -e "/sys/class/block/$w" ] ||
			bad "'partalign udev $n': offered $w, a whole device"
	done < <(run_comp "partalign udev $n" | sed '$d')
	# NAME=DEVICE: the device after the "=" (a word of its own for bash)
	expect_has "partalign rules --disk DATA1=/dev/lo" "${dev}p1"
	# every device offered exists as a block device (other tests' loop
	# devices may come and go meanwhile: only ours are judged of those)
	while read -r d; do
		case $d in
		"$dev" | "$dev"p*) ;;
		/dev/loop*) continue ;;
		esac
		[ -b "$d" ] || bad "'$d' offered but is not a block device"
	done < <(run_comp "partalign check " | sed '$d')
	# a loop node without a backing file (detached) is not offered (unless
	# another test attached it meanwhile: it must still be unbound after)
	free=$(losetup -f 2>/dev/null || true)
	if [ -n "$free" ] && [ -b "$free" ]; then
		if run_comp "partalign check /dev/lo" | grep -xF "$free" >/dev/null &&
			! losetup "$free" >/dev/null 2>&1; then
			bad "unbound $free offered"
		fi
	fi
else
	echo "note: not root: the block device cases are left out"
	[ "${PARTALIGN_TEST_STRICT:-0}" = 1 ] && skip "block device cases need root, losetup and sfdisk"
fi

[ "$errors" = 0 ] || fail "$errors completion case(s) wrong"
echo "PASS: completion of commands, options, columns, values, files and devices"
