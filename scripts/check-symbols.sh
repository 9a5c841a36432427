#!/bin/sh
# scripts/check-symbols.sh — the public library exports the names of
# include/cql.h and nothing else: every global symbol libcql.a defines starts
# with cql_, so that no program linking it finds its own names (or libc's:
# accept, advance, ...) taken.
#
# Usage: sh scripts/check-symbols.sh BUILD_DIR   (`make check-symbols`, in make test)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
lib=${1:?usage: check-symbols.sh BUILD_DIR}/libcql.a
[ -f "$lib" ] || { echo "check-symbols: $lib is missing" >&2; exit 1; }
${NM:-nm} -g --defined-only "$lib" >"${TMPDIR:-/tmp}/check-symbols.$$" || exit 1
others=$(awk 'NF == 3 && $3 !~ /^cql_/ { print $3 }' "${TMPDIR:-/tmp}/check-symbols.$$")
exported=$(awk 'NF == 3 && $3 ~ /^cql_/' "${TMPDIR:-/tmp}/check-symbols.$$" | wc -l)
rm -f "${TMPDIR:-/tmp}/check-symbols.$$"
if [ -n "$others" ]; then
    echo "check-symbols: $lib defines names outside cql_*:" $others >&2
    exit 1
fi
echo "check-symbols: $lib exports $exported names, all cql_*"
