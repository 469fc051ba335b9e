#!/bin/sh
# The layers call downwards only: shared <- core <- scan <- apply <- cli.
# Three checks that each fail on one wrong line:
#  1. includes: a file of a layer includes headers of its own layer and the
#     layers below (the core only the header-only shared/endian.h and
#     shared/hex.h: it links nothing but libc);
#  2. symbols: no undefined symbol of a layer's library is defined by a
#     library of a layer above it (nm);
#  3. names: no .c file name in two layers, and no include circle among the
#     files of src/cli (file A includes the header of B and B that of A,
#     directly or around a longer circle; tsort finds them);
#  4. calls: no call circle among the files of src/core, nor among those of
#     src/cli (A's object calls a function B's defines and B's one of A's,
#     directly or around a longer circle; from nm, as 2.; a header shared
#     by several files, such as provision.h, hides such a circle from 3.).
# PA_LAYER_SRC names another source tree to check (to see it fail on purpose).
# Exit: 0 pass, 1 fail, 77 skip, 99 hard error (automake's conventions).

: "${top_srcdir:=.}"
: "${top_builddir:=.}"
src=${PA_LAYER_SRC:-$top_srcdir/src}
fail=0
LC_ALL=C
export LC_ALL
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

bad() {
	echo "FAIL: $*" >&2
	fail=1
}

# 1. includes, by layer
allowed() {
	case $1 in
	shared) echo 'shared/' ;;
	core) echo 'core/ shared/endian.h shared/hex.h' ;;
	scan) echo 'scan/ core/ shared/' ;;
	apply) echo 'apply/ scan/ core/ shared/' ;;
	cli) echo 'cli/ apply/ scan/ core/ shared/' ;;
	esac
}
for layer in shared core scan apply cli; do
	ok=$(allowed "$layer")
	for f in "$src/$layer"/*.[ch]; do
		[ -f "$f" ] || continue
		for inc in $(sed -n 's/^#include "\([a-z]*\/[^"]*\)".*/\1/p' "$f"); do
			hit=0
			for a in $ok; do
				case $inc in "$a"*) hit=1 ;; esac
			done
			[ $hit = 1 ] || bad "$layer/${f##*/} includes $inc (a layer above $layer)"
		done
	done
done

# 2. symbols, by library (when built)
libs="libpashared.a libpacore.a libpascan.a libpaapply.a"
if command -v nm >/dev/null 2>&1 && [ -z "${PA_LAYER_SRC:-}" ]; then
	for l in $libs; do
		if [ ! -f "$top_builddir/$l" ]; then
			echo "ERROR: $top_builddir/$l not found: build it first" >&2
			exit 99
		fi
	done
	above=$libs
	for l in $libs; do
		above=${above#"$l"}
		above=${above# }
		[ -n "$above" ] || break
		nm -u "$top_builddir/$l" | awk 'NF >= 2 && $(NF - 1) == "U" { print $NF }' |
			sort -u >"$tmp/undef"
		for u in $above; do
			nm --defined-only "$top_builddir/$u" |
				awk 'NF == 3 && $2 ~ /^[TDBR]$/ { print $3 }' | sort -u >"$tmp/defs"
			both=$(comm -12 "$tmp/undef" "$tmp/defs")
			[ -z "$both" ] || bad "$l calls into $u (a layer above it): $(echo $both)"
		done
	done
elif [ -z "${PA_LAYER_SRC:-}" ]; then
	if [ "${PARTALIGN_TEST_STRICT:-0}" = 1 ]; then
		echo "ERROR: nm not found (strict mode)" >&2
		exit 99
	fi
	echo "note: nm not found: the symbol check is skipped"
fi

# 3a. a .c name in two layers
dups=$(for layer in shared core scan apply cli; do
	for f in "$src/$layer"/*.c; do [ -f "$f" ] && echo "${f##*/}"; done
done | sort | uniq -d)
[ -z "$dups" ] || bad "file names in two layers: $(echo $dups)"

# 3b. include circles among src/cli: an edge from each file's stem to the
# stem of each cli header it includes (fix-run.c -> fix-write.h: fix-run
# fix-write); a header's stem is the file it declares
if ! command -v tsort >/dev/null 2>&1; then
	echo "ERROR: tsort not found" >&2
	exit 99
fi
edges=$(for f in "$src/cli"/*.[ch]; do
	[ -f "$f" ] || continue
	from=${f##*/}
	from=${from%.?}
	for inc in $(sed -n 's/^#include "cli\/\([^"]*\)\.h".*/\1/p' "$f"); do
		[ "$inc" = "$from" ] || echo "$from $inc"
	done
done)
if ! printf '%s\n' "$edges" | tsort >/dev/null 2>"$tmp/tsort"; then
	bad "include circle in src/cli: $(tr '\n' ' ' <"$tmp/tsort")"
fi

# 4. call circles among the objects of one layer (when built): an edge from
# each object's stem to the stem of every object of the same layer that
# defines a function it calls; the programs' and the library's objects
# carry the target's prefix (partalign_apply-fix-run.o: fix-run)
# callgraph OBJECT...: "CALLER CALLEE" lines
callgraph() {
	nm -A "$@" 2>/dev/null | awk '
		{
			file = $1
			sub(/:[^:]*$/, "", file)	# "lib.a:member.o" or "dir/x.o"
			sub(/^.*[:\/]/, "", file)
			sub(/\.o$/, "", file)
			sub(/^[a-z_]*-/, "", file)	# the target prefix
			sym = $NF
			kind = $(NF - 1)
		}
		kind == "U" { use[file, sym] = 1; next }
		kind == "T" { def[sym] = file }
		END {
			for (k in use) {
				split(k, p, SUBSEP)
				if ((p[2] in def) && def[p[2]] != p[1])
					print p[1], def[p[2]]
			}
		}' | sort -u
}
if command -v nm >/dev/null 2>&1 && [ -z "${PA_LAYER_SRC:-}" ]; then
	for set in "core:$top_builddir/libpacore.a" \
		"cli:$top_builddir/src/cli/partalign_apply-*.o" \
		"cli:$top_builddir/src/cli/partalign-*.o"; do
		layer=${set%%:*}
		# shellcheck disable=SC2086 # the pattern is meant to expand
		objs=$(ls ${set#*:} 2>/dev/null)
		if [ -z "$objs" ]; then
			echo "ERROR: no objects for ${set#*:}: build first" >&2
			exit 99
		fi
		# shellcheck disable=SC2086
		callgraph $objs >"$tmp/calls"
		[ -s "$tmp/calls" ] || bad "$layer: no calls between its files found (nm)"
		if ! tsort "$tmp/calls" >/dev/null 2>"$tmp/tsort"; then
			bad "call circle in src/$layer: $(grep -v 'input contains a loop' "$tmp/tsort" |
				sed 's/^tsort: //' | tr '\n' ' ')"
		fi
	done
fi

[ $fail = 0 ] || exit 1
echo "ok: the layers include and call downwards only; no name in two layers; no include or call circle in src/cli, no call circle in src/core"
exit 0
