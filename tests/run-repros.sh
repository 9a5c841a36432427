#!/bin/sh
# tests/run-repros.sh — the repros of shared/spec/cql62-fidelity-2.md, each a
# small query on a small PGN that CQL 6.2 itself answered
# (tests/conformance/cql62-fidelity-2-repros.tsv). Every row must pass.
#
# Columns: rule, query, pgn, expected ("\n" in query and pgn stands for a
# newline). A row runs as the rules were found:
#     cql -s -matchstring ZZMATCH -i g.pgn -o o.pgn q.cql
# and `expected` is one of
#     G:P G:P ...   the games written, in the order written, with the match
#                   strings in each (G:0 names a game not written);
#     exit:1        the run stops with exit status 1;
# either followed by `has:TEXT` (to the end of the field): the output holds
# TEXT (runs of white space counted as one blank, as the writer may wrap).
# Usage: sh tests/run-repros.sh build/MODE
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
BUILD=${1:-build/release}
TSV=tests/conformance/cql62-fidelity-2-repros.tsv
export LC_ALL=C
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# drops the G:0 entries of a list of G:P (a game not written)
written() {
    printf '%s\n' "$1" | tr ' ' '\n' | grep -v ':0$' | tr '\n' ' ' | sed 's/ *$//'
}

passed=0 failed=0 row=1
while IFS='	' read -r rule query pgn expected; do
    row=$((row + 1))
    printf '%s' "$query" | sed 's/\\n/\n/g' >"$T/q.cql"
    printf '%s' "$pgn" | sed 's/\\n/\n/g' >"$T/g.pgn"
    rm -f "$T/o.pgn"
    "$BUILD/cql" -s -matchstring ZZMATCH -i "$T/g.pgn" -o "$T/o.pgn" "$T/q.cql" >"$T/out" 2>"$T/err"
    rc=$?
    want=${expected%% has:*}
    needle=
    case "$expected" in *" has:"*) needle=${expected#* has:} ;; esac
    ok=1
    if [ "$want" = exit:1 ]; then
        [ $rc -eq 1 ] || ok=0
        got="exit:$rc"
    elif [ $rc -ne 0 ]; then
        ok=0
        got="exit:$rc $(tail -c 300 "$T/err")"
    else
        got=$( [ -f "$T/o.pgn" ] && awk -f tests/count-matches.awk "$T/o.pgn")
        [ "$(written "$got")" = "$(written "$want")" ] || ok=0
        if [ -n "$needle" ] && ! tr -s ' \t\r\n' '    ' <"$T/o.pgn" | grep -qF "$needle"; then
            ok=0
            got="$got (no '$needle' in the output)"
        fi
    fi
    if [ $ok -eq 1 ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "repro $rule (line $row): $(printf '%s' "$query" | sed 's/\\n/ \/ /g')"
        echo "  want: $expected"
        echo "  got:  $got"
    fi
done <<EOF
$(tail -n +2 "$TSV")
EOF
echo "fidelity repros: $passed of $((passed + failed)) pass"
[ $failed -eq 0 ]
