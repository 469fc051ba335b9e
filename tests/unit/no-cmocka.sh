#!/bin/sh
# Stands in for the cmocka unit tests when configure found no cmocka: one
# SKIP that says why, so a build without it never looks fully tested.
# tests/run-all configures --with-cmocka=yes: in CI its absence is an error.
echo "tests/unit/no-cmocka.sh: cmocka (libcmocka-dev) was not found at configure time:" \
	"the unit tests were not built; install it and re-run ./configure" >&2
exit 77
