# shellcheck shell=bash
# Helpers of the tests of the Ansible collection; source after
# tests/lib/common.sh.  Ansible's state, configuration and collections stay
# in the test's directory: the collection is the tarball `make` built, as
# ansible-galaxy installs it, never a copy elsewhere on this machine.

need_cmd ansible-galaxy ansible-playbook jq tar sha256sum

VERSION=$(sed -n 's/^VERSION = //p' "$top_builddir/Makefile")
[ -n "$VERSION" ] || fail "no VERSION in $top_builddir/Makefile"
TARBALL=$top_builddir/partalign-fleet-$VERSION.tar.gz
[ -f "$TARBALL" ] || fail "no $TARBALL: make builds it"

# Ansible needs a UTF-8 locale (Debian always has C.UTF-8)
export LC_ALL=C.UTF-8
mkdir -p "$T_TMP/ansible-home" "$T_TMP/collections"
printf '[defaults]\n' >"$T_TMP/ansible.cfg"
export ANSIBLE_CONFIG=$T_TMP/ansible.cfg ANSIBLE_HOME=$T_TMP/ansible-home
export ANSIBLE_COLLECTIONS_PATH=$T_TMP/collections
export ANSIBLE_LOCAL_TEMP=$T_TMP/ansible-local ANSIBLE_REMOTE_TEMP=$T_TMP/ansible-remote
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_FORKS=4
# a Galaxy server that does not exist: an install that wants the network fails
export ANSIBLE_GALAXY_SERVER=http://127.0.0.1:9

# collection_install: the tarball installed with ansible-galaxy into
# $ANSIBLE_COLLECTIONS_PATH; its directory in $COLL
collection_install() {
	ansible-galaxy collection install --offline "$TARBALL" -p "$ANSIBLE_COLLECTIONS_PATH" \
		>"$T_TMP/galaxy-install.log" 2>&1 ||
		fail "ansible-galaxy collection install $TARBALL: $(cat "$T_TMP/galaxy-install.log")"
	COLL=$ANSIBLE_COLLECTIONS_PATH/ansible_collections/partalign/fleet
	[ -f "$COLL/MANIFEST.json" ] || fail "ansible-galaxy installed no partalign.fleet in $COLL"
}
