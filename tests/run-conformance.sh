#!/bin/sh
# tests/run-conformance.sh — the CQL 6.2 conformance vectors (tests/conformance/):
# cql62-vectors.tsv, cql62-chessql-vectors.tsv (queries CQL users wrote) and
# cql62-remaining-vectors.tsv, each with its list of allowed failures.
#
# 1. tool_conformance runs every vector of each set in one process (each PGN file read
#    once) through the same code as cql; it fails on any vector that fails
#    and is not in allowed-failures.txt, and on a listed vector that passes.
# 2. A sample of vectors is also run through the cql binary itself, exactly as
#    the vectors were made (cql -matchstring ZZMATCH -i DATASET -o OUT QUERY;
#    OUT split at Game\s+number\s+(\d+), ZZMATCH counted per game), to check that the
#    binary and the in-process runner agree.
# Usage: sh tests/run-conformance.sh build/MODE
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
BUILD=${1:-build/release}
DIR=tests/conformance
DATA=tests/data/pgn
export LC_ALL=C
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# the vectors of CQL 6.2's own kind of queries, those of queries CQL users
# wrote (the chessql corpus, issue 12), and those of the features of
# shared/spec/cql62-remaining.md (assert, files, hhdb, path parameters ...),
# each with its allowed failures
for set in cql62-vectors.tsv:allowed-failures.txt cql62-chessql-vectors.tsv:allowed-failures-chessql.txt \
           cql62-remaining-vectors.tsv:remaining-allowed-failures.txt; do
    "$BUILD/tests/tool_conformance" "$DIR/${set%%:*}" "$DATA" "$DIR/${set##*:}" >"$T/report"
    rc=$?
    grep -v '^conformance:' "$T/report" | head -60
    printf '%s: ' "${set%%:*}"
    grep '^conformance:' "$T/report"
    [ $rc -eq 0 ] || { echo "conformance: unexpected failures in ${set%%:*} (see above)" >&2; exit 1; }
done

# matches string of a cql output file, as the vectors record it
count_parts() {
    awk -f tests/count-matches.awk "$1"
}

checked=0 bad=0
# every 97th vector whose family is core (a spread over datasets and filters)
awk -F'\t' 'NR > 1 && $7 == "core" && NR % 97 == 0' "$DIR/cql62-vectors.tsv" >"$T/sample"
while IFS='	' read -r dataset header body want_rc games matches family; do
    printf 'cql(%s)\n%s\n' "$header" "$body" >"$T/q.cql"
    "$BUILD/cql" -matchstring ZZMATCH -i "$DATA/$dataset" -o "$T/out.pgn" "$T/q.cql" >/dev/null 2>"$T/err"
    got_rc=$?
    checked=$((checked + 1))
    if [ "$want_rc" != 0 ]; then
        [ $got_rc -ne 0 ] || { bad=$((bad + 1)); echo "binary: expected rejection: $dataset: $body"; }
        continue
    fi
    got=$(count_parts "$T/out.pgn")
    if [ $got_rc -ne 0 ] || [ "$got" != "$matches" ]; then
        bad=$((bad + 1))
        echo "binary: $dataset: $header: $body"
        echo "  want: $matches"
        echo "  got:  $got (exit $got_rc)"
    fi
done <"$T/sample"
echo "conformance through the cql binary: $((checked - bad)) of $checked sampled vectors agree"
[ $bad -eq 0 ]
