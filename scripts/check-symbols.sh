#!/bin/sh
# scripts/check-symbols.sh — the public library exports the names of
# include/cql.h and nothing else: every global symbol libcql.a defines, and
# every dynamic symbol libcql.so defines, starts with cql_, so that no
# program linking it finds its own names (or libc's: accept, advance, ...)
# taken. libcql.so also has its soname, libcql.so.MAJOR.
#
# Usage: sh scripts/check-symbols.sh BUILD_DIR   (`make check-symbols`, in make test)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
build=${1:?usage: check-symbols.sh BUILD_DIR}
tmp=${TMPDIR:-/tmp}/check-symbols.$$
status=0

# check LIBRARY NM-OPTIONS: its defined global names are all cql_*
check() {
    [ -f "$1" ] || { echo "check-symbols: $1 is missing" >&2; status=1; return; }
    # shellcheck disable=SC2086
    ${NM:-nm} $2 --defined-only "$1" >"$tmp" || { status=1; return; }
    others=$(awk 'NF == 3 && $3 !~ /^cql_/ { print $3 }' "$tmp")
    exported=$(awk 'NF == 3 && $3 ~ /^cql_/' "$tmp" | wc -l)
    if [ -n "$others" ]; then
        echo "check-symbols: $1 defines names outside cql_*:" $others >&2
        status=1
    else
        echo "check-symbols: $1 exports $exported names, all cql_*"
    fi
}

check "$build/libcql.a" -g
shlib=$(ls "$build"/libcql.so.*.*.* 2>/dev/null | head -1)
if [ -z "$shlib" ]; then
    echo "check-symbols: $build/libcql.so.* is missing" >&2
    status=1
else
    check "$shlib" -D
    major=$(sed -n 's/^#define CQL_VERSION_MAJOR \([0-9]*\).*/\1/p' include/cql.h)
    soname=$(${READELF:-readelf} -d "$shlib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
    if [ "$soname" != "libcql.so.$major" ]; then
        echo "check-symbols: $shlib has the soname '$soname', not libcql.so.$major" >&2
        status=1
    fi
fi
rm -f "$tmp"
exit $status
