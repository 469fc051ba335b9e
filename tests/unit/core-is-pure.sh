#!/bin/sh
# The pure core must not reference libudev, libblkid, libparted or
# libsmartcols: assert that no undefined symbol of libpacore.a carries one of
# their prefixes.  PA_CORE_LIB names another archive to check (to see this
# test fail on purpose).
# Exit: 0 pass, 1 fail, 77 skip, 99 hard error (automake's conventions).

: "${top_builddir:=.}"
lib=${PA_CORE_LIB:-$top_builddir/libpacore.a}

if ! command -v nm >/dev/null 2>&1; then
	if [ "${PARTALIGN_TEST_STRICT:-0}" = 1 ]; then
		echo "ERROR: nm not found (strict mode)" >&2
		exit 99
	fi
	echo "SKIP: nm not found"
	exit 77
fi
if [ ! -f "$lib" ]; then
	echo "ERROR: $lib not found: build it first" >&2
	exit 99
fi

# "nm -u" prints "member.o:" headers and "U symbol" lines; keep the symbols.
if ! syms=$(LC_ALL=C nm -u "$lib"); then
	echo "ERROR: nm -u $lib failed" >&2
	exit 99
fi
undef=$(printf '%s\n' "$syms" | awk 'NF >= 2 && $(NF - 1) == "U" { print $NF }')
if [ -z "$undef" ]; then
	echo "ERROR: nm -u $lib lists no undefined symbols at all; cannot judge" >&2
	exit 99
fi

bad=$(printf '%s\n' "$undef" | grep -E '^_?(udev|blkid|ped|scols)_' | sort -u)
if [ -n "$bad" ]; then
	echo "FAIL: $lib references symbols of the device libraries:" >&2
	printf '  %s\n' $bad >&2
	exit 1
fi
echo "ok: $(printf '%s\n' "$undef" | sort -u | wc -l) undefined symbols in $lib, none from libudev, libblkid, libparted or libsmartcols"
exit 0
