#!/bin/bash
# The collection tarball `make` built (ansible/build-collection), checked
# with tar, sha256sum and jq, and against ansible-galaxy itself:
# - its members are exactly the collection's files (ansible/Makemodule.am),
#   MANIFEST.json and FILES.json; the collector in it is collect/'s and the
#   unpacker ansible/'s, byte for byte, both executable;
# - FILES.json names every file with its sha256 and every directory, and
#   MANIFEST.json the checksum of FILES.json, the name and the version
#   configure gave;
# - `ansible-galaxy collection build` of the same files (with a galaxy.yml
#   made from our MANIFEST.json) gives the same collection_info and FILES.json
#   entries;
# - `ansible-galaxy collection install --offline FILE` installs it with no
#   Galaxy server, `ansible-galaxy collection verify --offline` finds it
#   intact, and the playbook and the role's tasks pass --syntax-check;
# - nothing in it asks for an ansible-core newer than meta/runtime.yml says.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/ansible/lib.sh"

# 1. The members
mkdir "$T_TMP/x"
tar -xzf "$TARBALL" -C "$T_TMP/x" || fail "tar cannot read $TARBALL"
tar -tzf "$TARBALL" >"$T_TMP/members"
assert_eq "MANIFEST.json FILES.json" "$(head -n 2 "$T_TMP/members" | tr '\n' ' ' | sed 's/ $//')" \
	"the first members (ansible-galaxy reads them first)"
want=$(sed -n '/^fleet_files = /,/^[^\t]/p' "$top_srcdir/ansible/Makemodule.am" |
	grep -o 'ansible/[^ \\]*' | sed 's|^ansible/||')
[ "$(wc -l <<<"$want")" -ge 8 ] || fail "fleet_files in ansible/Makemodule.am: only $want"
want_files=$( (
	echo "$want"
	echo roles/audit/files/partalign-collect
	echo MANIFEST.json
	echo FILES.json
) | LC_ALL=C sort)
got_files=$(cd "$T_TMP/x" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
assert_eq "$want_files" "$got_files" "the files in the tarball"
if grep -E '^(/|\./|.*\.\.)' "$T_TMP/members"; then
	fail "a member name that ansible-galaxy does not expect"
fi
cmp "$top_srcdir/collect/partalign-collect" "$T_TMP/x/roles/audit/files/partalign-collect" ||
	fail "the collection's partalign-collect is not collect/partalign-collect"
cmp "$top_srcdir/ansible/roles/audit/files/partalign-unpack" "$T_TMP/x/roles/audit/files/partalign-unpack" ||
	fail "the collection's partalign-unpack is not ansible/'s"
for f in partalign-collect partalign-unpack; do
	[ -x "$T_TMP/x/roles/audit/files/$f" ] || fail "roles/audit/files/$f is not executable in the tarball"
done
tar -tvzf "$TARBALL" | awk '$2 != "0/0" { bad = 1; print } END { exit bad }' ||
	fail "members not owned by 0/0"
echo "ok: $(wc -l <"$T_TMP/members") members: the collection's files, collect/'s collector, the manifests"

# 2. FILES.json and MANIFEST.json, checked with sha256sum
m=$T_TMP/x/MANIFEST.json
jf=$T_TMP/x/FILES.json
jq -e . "$m" >/dev/null || fail "MANIFEST.json is no JSON"
jq -e . "$jf" >/dev/null || fail "FILES.json is no JSON"
assert_eq "partalign fleet $VERSION README.md" \
	"$(jq -r '.collection_info | "\(.namespace) \(.name) \(.version) \(.readme)"' "$m")" \
	"MANIFEST.json: namespace, name, version (configure's), readme"
assert_eq "$(sha256sum "$jf" | cut -d' ' -f1)" "$(jq -r .file_manifest_file.chksum_sha256 "$m")" \
	"MANIFEST.json: the checksum of FILES.json"
jq -r '.files[] | select(.ftype == "file") | "\(.chksum_sha256)  \(.name)"' "$jf" >"$T_TMP/sums"
(cd "$T_TMP/x" && sha256sum -c --quiet "$T_TMP/sums") || fail "FILES.json: a checksum is wrong"
assert_eq "$(grep -vx 'MANIFEST.json\|FILES.json' <<<"$want_files")" \
	"$(jq -r '.files[] | select(.ftype == "file") | .name' "$jf" | LC_ALL=C sort)" "FILES.json: the files"
assert_eq "$(cd "$T_TMP/x" && find . -type d | sed 's|^\./||' | LC_ALL=C sort)" \
	"$(jq -r '.files[] | select(.ftype == "dir") | .name' "$jf" | LC_ALL=C sort)" "FILES.json: the directories"
echo "ok: FILES.json: $(jq '.files | length' "$jf") entries, every checksum right; MANIFEST.json: partalign.fleet $VERSION"

# 3. ansible-galaxy collection build of the same files gives the same manifests
mkdir "$T_TMP/gsrc" "$T_TMP/gout"
(cd "$T_TMP/x" && find . -type f ! -name MANIFEST.json ! -name FILES.json -print0 |
	cpio -0 -pdm --quiet "$T_TMP/gsrc") || fail "cannot copy the files"
jq -r '.collection_info | to_entries[] | select(.value != null and .value != [] and .value != {})
	| "\(.key): \(.value | tojson)"' "$m" >"$T_TMP/gsrc/galaxy.yml"
ansible-galaxy collection build "$T_TMP/gsrc" --output-path "$T_TMP/gout" >"$T_TMP/gbuild.log" 2>&1 ||
	fail "ansible-galaxy collection build: $(cat "$T_TMP/gbuild.log")"
mkdir "$T_TMP/gx"
tar -xzf "$T_TMP/gout/partalign-fleet-$VERSION.tar.gz" -C "$T_TMP/gx" MANIFEST.json FILES.json ||
	fail "ansible-galaxy built no partalign-fleet-$VERSION.tar.gz: $(ls "$T_TMP/gout")"
assert_eq "$(jq -S '.files | sort_by(.name)' "$T_TMP/gx/FILES.json")" "$(jq -S '.files | sort_by(.name)' "$jf")" \
	"FILES.json: ours and ansible-galaxy's"
assert_eq "$(jq -S '.collection_info' "$T_TMP/gx/MANIFEST.json")" "$(jq -S '.collection_info' "$m")" \
	"MANIFEST.json collection_info: ours and ansible-galaxy's"
assert_eq "$(jq -S 'del(.collection_info, .file_manifest_file.chksum_sha256)' "$T_TMP/gx/MANIFEST.json")" \
	"$(jq -S 'del(.collection_info, .file_manifest_file.chksum_sha256)' "$m")" "MANIFEST.json: the rest"
echo "ok: ansible-galaxy collection build ($(ansible-galaxy --version | head -1)) writes the same manifests"

# 4. Installed offline, verified, the playbook and the role readable
collection_install
ansible-galaxy collection list -p "$ANSIBLE_COLLECTIONS_PATH" partalign.fleet >"$T_TMP/list" 2>&1 ||
	fail "ansible-galaxy collection list: $(cat "$T_TMP/list")"
grep -Eq "^partalign\.fleet +$VERSION *\$" "$T_TMP/list" || fail "collection list: $(cat "$T_TMP/list")"
ansible-galaxy collection verify --offline partalign.fleet >"$T_TMP/verify" 2>&1 ||
	fail "ansible-galaxy collection verify --offline: $(cat "$T_TMP/verify")"
cmp "$top_srcdir/collect/partalign-collect" "$COLL/roles/audit/files/partalign-collect" ||
	fail "the installed collector is not collect/partalign-collect"
[ -x "$COLL/roles/audit/files/partalign-unpack" ] || fail "the installed partalign-unpack is not executable"
printf 'localhost ansible_connection=local\n' >"$T_TMP/hosts"
ansible-playbook -i "$T_TMP/hosts" --syntax-check partalign.fleet.audit >"$T_TMP/syntax" 2>&1 ||
	fail "ansible-playbook --syntax-check partalign.fleet.audit: $(cat "$T_TMP/syntax")"
# a changed file is what verify is for: it must notice one
echo '# changed' >>"$COLL/roles/audit/tasks/report.yml"
if ansible-galaxy collection verify --offline partalign.fleet >"$T_TMP/verify2" 2>&1; then
	fail "ansible-galaxy collection verify --offline did not notice a changed file"
fi
echo "ok: ansible-galaxy collection install --offline, list, verify --offline; the playbook's syntax"

# 5. Nothing newer than the ansible-core meta/runtime.yml names: each module
# is ansible.builtin's, and none of its options or the keywords used came
# after 2.14 (the list of modules and keywords the role and playbook may use;
# a new one is added here once checked against ansible-core 2.14's docs)
grep -qx 'requires_ansible: ">=2.14.0"' "$T_TMP/x/meta/runtime.yml" ||
	fail "meta/runtime.yml: $(cat "$T_TMP/x/meta/runtime.yml")"
modules=$(cat "$T_TMP/x/playbooks/audit.yml" "$T_TMP/x/roles/audit/tasks/"*.yml |
	grep -oE '^ *(- )?ansible\.builtin\.[a-z_]+:' | sed 's/^ *\(- \)\{0,1\}//; s/:$//' | LC_ALL=C sort -u | tr '\n' ' ')
allowed=' ansible.builtin.command ansible.builtin.debug ansible.builtin.fail ansible.builtin.file ansible.builtin.import_role ansible.builtin.script ansible.builtin.set_fact ansible.builtin.tempfile ansible.builtin.template '
for mod in $modules; do
	case $allowed in *" $mod "*) ;; *) fail "$mod: a module not checked against ansible-core 2.14" ;; esac
done
[ -n "$modules" ] || fail "no ansible.builtin module found in the tasks"
if grep -nE '^ *(- )?[a-z_]+\.[a-z_]+\.[a-z_]+:' "$T_TMP/x/playbooks/audit.yml" "$T_TMP/x/roles/audit/tasks/"*.yml |
	grep -v 'ansible\.builtin\.'; then
	fail "a module from outside ansible.builtin"
fi
echo "ok: meta/runtime.yml requires ansible-core >= 2.14; modules: $modules"
echo "PASS: partalign-fleet-$VERSION.tar.gz is the collection ansible-galaxy builds and installs"
