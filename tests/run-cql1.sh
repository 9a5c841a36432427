#!/bin/sh
# tests/run-cql1.sh — CQL 1.0 query files (docs/cql1.md).
#
# 1. Pairs (tests/cql1/pairs.tsv, run by tool_cql1 in one process): a CQL 1.0
#    file NAME.cql and its CQL 6 twin NAME.cql6 must find the same games on
#    the pair's PGN files and mark the same positions (or only the same games,
#    by the `compare` column), and so must the CQL 6 translation of NAME.cql;
#    a twin that is a CQL 6.2 vector must give the vector's answer (see
#    tests/tools/tool_cql1.c).
# 2. Through the cql binary: `cql -translate NAME.cql` of every pair, and for
#    every fourth pair, run as a CQL 6 file on the pair's first PGN file,
#    finds what NAME.cql finds (run
#    as the conformance vectors were made: cql -matchstring ZZMATCH -i
#    DATASET -o OUT FILE, OUT split at "Game number N");
#    tests/cql1/translate/NAME.expected (-translate) and NAME.parse (-parse)
#    are exact; tests/cql1/run/*.cql run. `cql FILE.cql` reads the file's
#    :pgn and writes its :output; -i and -o override them.
# 3. Errors (tests/cql1/errors/NAME.cql): exit status 1 and the messages of
#    NAME.err exactly (FILE:LINE:COL, the source line, the caret).
# Usage: sh tests/run-cql1.sh build/MODE
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
BUILD=${1:-build/release}
CQL=$BUILD/cql
DIR=tests/cql1
DATA=tests/data/pgn
VECTORS=tests/conformance/cql62-vectors.tsv
export LC_ALL=C
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# matches string of a cql output file, as the vectors record it
count_parts() {
    awk -f tests/count-matches.awk "$1"
}

# a matches string cut to 200 characters
short() {
    printf '%s\n' "$1" | cut -c1-200
}

# run QUERY on DATASET; prints the matches string, or "exit N" when cql failed
run() {
    rm -f "$T/out.pgn"
    "$CQL" -matchstring ZZMATCH -i "$DATA/$2" -o "$T/out.pgn" "$1" >/dev/null 2>"$T/err"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "exit $rc: $(head -1 "$T/err")"
        return
    fi
    count_parts "$T/out.pgn"
}

bad=0
"$BUILD/tests/tool_cql1" "$DIR/pairs.tsv" "$DIR" "$DATA" "$VECTORS" || bad=$((bad + 1))

translations=0 runs=0
while IFS='	' read -r name datasets compare; do
    case "$name" in ''|'#'*) continue ;; esac
    translations=$((translations + 1))
    if ! "$CQL" -translate "$DIR/$name.cql" >"$T/translated.cql" 2>"$T/terr"; then
        echo "cql1: $name: -translate failed: $(head -1 "$T/terr")"; bad=$((bad + 1)); continue
    fi
    [ $((translations % 4)) -eq 1 ] || continue
    runs=$((runs + 1))
    ds=${datasets%% *}
    a=$(run "$DIR/$name.cql" "$ds")
    c=$(run "$T/translated.cql" "$ds")
    if [ "$a" != "$c" ]; then
        echo "cql1: $name on $ds: the cql binary finds different things in the file and its translation"
        echo "  cql1:        $(short "$a")"; echo "  translation: $(short "$c")"; bad=$((bad + 1))
    fi
done <"$DIR/pairs.tsv"

# exact translations and syntax trees
for src in "$DIR"/translate/*.cql; do
    for kind in translate parse; do
        exp=${src%.cql}.$kind
        [ $kind = translate ] && exp=${src%.cql}.expected
        [ -f "$exp" ] || continue
        translations=$((translations + 1))
        if ! "$CQL" -$kind "$src" >"$T/got" 2>&1 || ! cmp -s "$T/got" "$exp"; then
            echo "cql1: -$kind $src differs from $exp:"; diff "$exp" "$T/got" | head -20; bad=$((bad + 1))
        fi
    done
done

# larger examples run (tests/cql1/run: the FAQ's Dobrescu example, the rook on four corners)
for src in "$DIR"/run/*.cql; do
    [ -f "$src" ] || continue
    translations=$((translations + 1))
    if ! "$CQL" -i "$DATA/python-chess/kasparov-deep-blue-1997.pgn" -o "$T/run.pgn" "$src" >"$T/out" 2>&1; then
        echo "cql1: $src does not run:"; head -5 "$T/out"; bad=$((bad + 1))
    fi
done

# cql FILE.cql: the input and output files named in the file, or by -i and -o
CQLABS=$(cd "$(dirname "$CQL")" && pwd)/$(basename "$CQL")
mkdir "$T/run"
cp "$DATA/python-chess/kasparov-deep-blue-1997.pgn" "$T/run/games.pgn"
printf '; the files are named in the query\n(match :pgn games.pgn :output found.pgn (position :initial))\n' >"$T/run/q.cql"
(cd "$T/run" && "$CQLABS" q.cql) >"$T/run/stdout" 2>&1
if ! grep -q '^6 matches of 6 games in .* to found.pgn$' "$T/run/stdout" || [ "$(grep -c 'Game number' "$T/run/found.pgn")" != 6 ]; then
    echo "cql1: cql q.cql did not read :pgn games.pgn and write :output found.pgn:"; cat "$T/run/stdout"; bad=$((bad + 1))
fi
(cd "$T/run" && "$CQLABS" -i games.pgn -o other.pgn -gamenumber 2 3 q.cql) >"$T/run/stdout" 2>&1
if ! grep -q '^2 matches of 3 games in .* to other.pgn$' "$T/run/stdout" || [ "$(grep -c 'Game number' "$T/run/other.pgn")" != 2 ]; then
    echo "cql1: -o and -gamenumber did not override the query's :output:"; cat "$T/run/stdout"; bad=$((bad + 1))
fi

# errors
errors=0
for src in "$DIR"/errors/*.cql; do
    [ -f "$src" ] || continue
    errors=$((errors + 1))
    "$CQL" -i "$DATA/python-chess/kasparov-deep-blue-1997.pgn" -o - "$src" >/dev/null 2>"$T/err"
    rc=$?
    if [ $rc -ne 1 ] || ! cmp -s "$T/err" "${src%.cql}.err"; then
        echo "cql1: $src: expected exit 1 and the messages of ${src%.cql}.err, got exit $rc:"
        diff "${src%.cql}.err" "$T/err" | head -10
        bad=$((bad + 1))
    fi
done

echo "cql1: $translations translations printed by the binary ($runs of them run), $errors error files; $bad failed"
[ $bad -eq 0 ]
