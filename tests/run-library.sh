#!/bin/sh
# tests/run-library.sh — the library as a program uses it: `make install`
# into a scratch directory (DESTDIR), the example of docs/library.md
# (examples/search.c) built there with `pkg-config --cflags --libs cql`
# against the installed libcql.so, and run beside the cql program on the
# same games: the same matching games, byte for byte, on 1 and 2 threads;
# one position for each {CQL} the program writes; a cancel from the
# callback after N matches is cql -limit N; a query error is FILE:LINE:COL.
# Then `make uninstall` leaves no file behind. Skipped (with a note) where
# pkg-config is not installed.
#
# Usage: sh tests/run-library.sh BUILD_DIR MAKE MODE CC SANITIZER_FLAGS   (`make test-library`)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
build=$1 make=$2 mode=$3 cc=$4 san=$5
if ! command -v pkg-config >/dev/null 2>&1; then
    echo "note: pkg-config is not installed; the library test (a program built with pkg-config after make install) is skipped" >&2
    exit 0
fi
CQL=$build/cql
DATA=tests/data/pgn
GAMES="$DATA/python-chess/kasparov-deep-blue-1997.pgn $DATA/python-chess/molinari-bordais-1979.pgn $DATA/sunfish/3fold.pgn"
T=$(mktemp -d "${TMPDIR:-/tmp}/cql-library.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "library: FAIL: $1" >&2; fail=$((fail + 1)); }

dest=$T/dest prefix=/usr/local
if ! $make --no-print-directory MODE="$mode" CC="$cc" DESTDIR="$dest" PREFIX=$prefix install >"$T/log" 2>&1; then
    cat "$T/log" >&2
    echo "library: make install failed" >&2
    exit 1
fi
for f in bin/cql include/cql.h lib/libcql.a lib/libcql.so lib/pkgconfig/cql.pc; do
    if [ -e "$dest$prefix/$f" ]; then ok; else bad "make install put no $prefix/$f"; fi
done

# the example, built as its page says, against the installed library
export PKG_CONFIG_PATH="$dest$prefix/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest"
flags=$(pkg-config --cflags --libs cql) || { echo "library: pkg-config knows no cql" >&2; exit 1; }
# shellcheck disable=SC2086
if $cc $san -std=c11 -Wall -Wextra -Werror examples/search.c $flags -o "$T/search" 2>"$T/log"; then ok
else cat "$T/log" >&2; bad "examples/search.c does not build with: $cc $flags"; fi
export LD_LIBRARY_PATH="$dest$prefix/lib"
if readelf -d "$T/search" 2>/dev/null | grep -q 'NEEDED.*libcql\.so\.'; then ok; else bad "the example is not linked to libcql.so"; fi

printf 'cql()\ncheck\n' >"$T/check.cql"
# shellcheck disable=SC2046
"$CQL" -threads 1 $(for g in $GAMES; do printf -- '-i %s ' "$g"; done) -o "$T/cql.pgn" "$T/check.cql" >/dev/null 2>&1
for threads in 1 2; do
    # shellcheck disable=SC2086
    "$T/search" -threads $threads -positions "$T/check.cql" $GAMES >"$T/out-$threads.pgn" 2>"$T/err-$threads"
    rc=$?
    if [ $rc -eq 0 ]; then ok; else bad "the example on $threads threads: exit $rc"; cat "$T/err-$threads" >&2; fi
    if cmp -s "$T/out-$threads.pgn" "$T/cql.pgn"; then ok; else bad "the example on $threads threads writes other games than cql"; fi
done
grep '^game ' "$T/err-1" >"$T/pos-1"
grep '^game ' "$T/err-2" >"$T/pos-2"
if cmp -s "$T/pos-1" "$T/pos-2"; then ok; else bad "the positions on 1 and 2 threads differ"; fi
positions=$(grep -c '^game ' "$T/err-2")
marks=$(grep -o 'CQL}' "$T/cql.pgn" | wc -l | tr -d ' ')
if [ "$positions" -gt 0 ] && [ "$positions" -eq "$marks" ]; then ok
else bad "$positions positions handed over, but cql marks $marks"; fi
# the SAN of each position is the move cql marks: `Qxf1+ {CQL}`
sed -n 's/^game [0-9]* ([^)]*) ply [0-9]*: [0-9]*\.*\([^ ]*\) .*/\1/p' "$T/err-2" | head -3 >"$T/sans"
while read -r san; do
    if grep -q -F "$san {CQL}" "$T/cql.pgn"; then ok; else bad "the position after $san is not marked by cql"; fi
done <"$T/sans"

# cancelled from the callback after 3 matches: cql -limit 3
# shellcheck disable=SC2046
"$CQL" -limit 3 $(for g in $GAMES; do printf -- '-i %s ' "$g"; done) -o "$T/limit.pgn" "$T/check.cql" >/dev/null 2>&1
# shellcheck disable=SC2086
"$T/search" -threads 2 -stop 3 "$T/check.cql" $GAMES >"$T/stop.pgn" 2>"$T/err"
if cmp -s "$T/stop.pgn" "$T/limit.pgn"; then ok; else bad "a cancel after 3 matches is not cql -limit 3"; fi

# a query error: FILE:LINE:COL and a caret, exit 1
printf 'cql()\nattacks k\n' >"$T/bad.cql"
"$T/search" "$T/bad.cql" $GAMES >/dev/null 2>"$T/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "^$T/bad.cql:2:1: error: " "$T/err"; then ok
else bad "a query error: exit $rc, $(head -1 "$T/err")"; fi

if $make --no-print-directory MODE="$mode" CC="$cc" DESTDIR="$dest" PREFIX=$prefix uninstall >"$T/log" 2>&1; then ok
else cat "$T/log" >&2; bad "make uninstall failed"; fi
left=$(find "$dest" -type f -o -type l | head -3)
if [ -z "$left" ]; then ok; else bad "make uninstall left $left"; fi

echo "library: $pass passed, $fail failed (make install, an example built with pkg-config, make uninstall)"
[ "$fail" -eq 0 ]
