#!/bin/sh
# tests/run-index.sh — the sidecar index (issue 33, docs/index.md): it never
# changes a run's output, and a stale or damaged one is never used.
#
# 1. Identity (tests/tools/tool_index): every query of the conformance
#    vectors (cql62-vectors.tsv and cql62-remaining-vectors.tsv) on every
#    PGN file of the vectors, and on files with damaged games, CR and CRLF
#    line ends, a byte-order mark, a NUL byte; the chessql queries (1,747)
#    on the Kasparov-Deep Blue games and two more files; each file indexed
#    once, each query run without the sidecar and with it on 1 and 2
#    threads: the same games, match texts, printed lines, messages and
#    totals. The two large files are cut to their first games (the engine
#    games to 300, 3fold.pgn to 120) to keep the layer near a minute (the
#    sanitizer build runs every tenth query).
# 2. The program: cql -index writes FILE.cqlx (temporary file and rename),
#    never over a file that is not a sidecar; a search uses it (-summary
#    json says how many games it ruled out) with the same output, also
#    with -part and -gamenumber; -noindex reads the text; a touched, edited,
#    appended-to or truncated PGN file makes it stale and a truncated or
#    altered sidecar is damaged: the run reads the text, says so once, and
#    writes the same games.
# Usage: sh tests/run-index.sh build/MODE
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
BUILD=${1:-build/release}
CQL=$BUILD/cql
export LC_ALL=C
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/expect.sh

DATA=tests/data/pgn
VECTORS=tests/conformance

# ---- 1. identity over the vectors' queries and files
mkdir -p "$T/pgn" "$T/work"
tail -n +2 "$VECTORS/cql62-vectors.tsv" "$VECTORS/cql62-remaining-vectors.tsv" | grep -v '^==>' |
    cut -f1 | grep . | sort -u >"$T/datasets"
for f in chessalyzer/corrupt.pgn chessalyzer/crlf-endings.pgn made/cr-line-ends.pgn made/concatenated-with-bom.pgn \
         made/nul-in-first-game.pgn made/tag-pairs-in-comments.pgn; do echo "$f"; done >>"$T/datasets"
while read -r d; do
    mkdir -p "$T/pgn/$(dirname "$d")"
    case $d in
    generated/engine-games-2000.pgn) keep=300 ;;
    sunfish/3fold.pgn) keep=120 ;;
    *) keep=0 ;;
    esac
    if [ $keep -eq 0 ]; then cp "$DATA/$d" "$T/pgn/$d"
    else awk -v keep=$keep '/^\[Event / { n++ } n <= keep' "$DATA/$d" >"$T/pgn/$d"; fi
done <"$T/datasets"
# every query of the two vector files (header and body, once each) on every file
tail -n +2 "$VECTORS/cql62-vectors.tsv" "$VECTORS/cql62-remaining-vectors.tsv" | grep -v '^==>' |
    awk -F'\t' 'NF >= 3 { print $2 "\t" $3 }' | sort -u >"$T/queries"
while read -r d; do sed "s|^|$d	|" "$T/queries"; done <"$T/datasets" >"$T/pairs"
# the chessql queries on their file and two more (comments, variations, NAGs)
tail -n +2 "$VECTORS/cql62-chessql-vectors.tsv" | awk -F'\t' 'NF >= 3 { print $2 "\t" $3 }' | sort -u >"$T/chessql"
for d in python-chess/kasparov-deep-blue-1997.pgn scalachess/wcc2023-annotated.pgn pychess/mate_in_2.pgn; do
    sed "s|^|$d	|" "$T/chessql"
done >>"$T/pairs"
# the sanitizer build, many times slower, runs every tenth pair
case $BUILD in *asan*) awk 'NR % 10 == 0' "$T/pairs" >"$T/some" && mv "$T/some" "$T/pairs" ;; esac
if "$BUILD/tests/tool_index" "$T/pgn" "$T/work" "$T/pairs" >"$T/identity"; then ok; else bad "sidecar identity"; fi
cat "$T/identity"

# ---- 2. the program
P=$T/games.pgn
cp "$DATA/python-chess/kasparov-deep-blue-1997.pgn" "$P"
# searched without and with a sidecar: the same file, and the sidecar's share
search() { # NAME QUERY [OPTIONS...]: out.pgn, summary
    name=$1 query=$2
    shift 2
    "$CQL" "$@" -noindex -i "$P" -o "$T/plain.pgn" -cql "$query" >/dev/null 2>&1
    "$CQL" "$@" -summary json -i "$P" -o "$T/out.pgn" -cql "$query" >"$T/summary" 2>"$T/err"
    expect_same "$name: the same output with the sidecar" "$T/plain.pgn" "$T/out.pgn"
}

expect_rc "cql -index" 0 "$CQL" -index "$P"
expect_grep "cql -index says what it wrote" "$T/out" "^$P.cqlx: 6 games of $P "
P1=$T/one.pgn
cp "$DATA/python-chess/molinari-bordais-1979.pgn" "$P1"
expect_rc "cql -index, one game" 0 "$CQL" -index "$P1"
expect_grep "cql -index counts one game in the singular" "$T/out" "^$P1.cqlx: 1 game of $P1 "
[ -s "$P.cqlx" ] && ok || bad "no sidecar written"
expect_eq "no temporary file left" "$(ls -A "$T" | grep -c '^\.games')" 0
search "Ka1" 'Ka1'
expect_grep "Ka1: games ruled out" "$T/summary" '"ruled_out": 5,'
expect_eq "Ka1: no message" "$(cat "$T/err")" ""
search "check, two threads" 'check' -threads 2
search "Q attacks k: searched from codes" 'Q attacks k'
expect_grep "Q attacks k: from codes" "$T/summary" '"from_codes": 6'
search "mate, gamenumber" 'mate' -gamenumber 2 5
search "a sorting query" 'sort "plies" ply Ka1'
for k in 0 1 2; do
    "$CQL" -part $k/3 -i "$P" -o "$T/part$k.pgn" -cql 'Ka1 or kh8' >/dev/null 2>&1
    "$CQL" -noindex -part $k/3 -i "$P" -o "$T/plainpart$k.pgn" -cql 'Ka1 or kh8' >/dev/null 2>&1
    expect_same "-part $k/3 with the sidecar" "$T/plainpart$k.pgn" "$T/part$k.pgn"
done
"$CQL" -noindex -summary json -i "$P" -o "$T/out.pgn" -cql 'Ka1' >"$T/summary" 2>&1
expect_no_grep "-noindex: the text alone" "$T/summary" 'ruled_out'
# -indexfile names it (for one input), for -index and for a search
expect_rc "-index -indexfile" 0 "$CQL" -index -indexfile "$T/other.cqlx" "$P"
"$CQL" -indexfile "$T/other.cqlx" -summary json -i "$P" -o "$T/out.pgn" -cql 'Ka1' >"$T/summary" 2>&1
expect_grep "-indexfile: used" "$T/summary" '"ruled_out": 5,'
expect_rc "-indexfile with two inputs" 2 "$CQL" -indexfile "$T/other.cqlx" -i "$P" -i "$P" -o "$T/out.pgn" -cql 'Ka1'
expect_grep "-indexfile with two inputs: why" "$T/err" 'names the sidecar index of one input file'

# never over a file that is not a sidecar: the PGN file itself, a text
echo "my notes" >"$T/notes.txt"
expect_rc "-index over a text file" 2 "$CQL" -index -indexfile "$T/notes.txt" "$P"
expect_grep "-index over a text file: why" "$T/err" 'is not a sidecar index: cql does not write over it'
expect_eq "the text file is kept" "$(cat "$T/notes.txt")" "my notes"
cp "$P" "$T/copy.pgn"
expect_rc "-index over the PGN file" 2 "$CQL" -index -indexfile "$P" "$P"
expect_same "the PGN file is kept" "$P" "$T/copy.pgn"
expect_rc "-index of standard input" 2 "$CQL" -index -i - </dev/null
# nor a FIFO, which is not waited on (opened to look for a sidecar's magic,
# it waited for a writer for ever; a name for the run's own output, too)
if mkfifo "$T/fifo" 2>/dev/null; then
    expect_rc "-index over a FIFO" 2 timeout 60 "$CQL" -index -indexfile "$T/fifo" "$P"
    expect_grep "-index over a FIFO: why" "$T/err" 'is not a sidecar index: cql does not write over it'
    expect_rc "-indexfile a FIFO" 0 timeout 60 "$CQL" -indexfile "$T/fifo" -i "$P" -o "$T/out.pgn" -cql Ka1
    expect_grep "-indexfile a FIFO: why" "$T/err" "the sidecar index '$T/fifo' is damaged (it is not a regular file)"
    timeout 60 "$CQL" -index -indexfile /dev/stdout "$P" 2>"$T/err" | cat >/dev/null
    expect_grep "-index to its own standard output, a pipe" "$T/err" 'is not a sidecar index'
fi
expect_rc "-index again over its sidecar" 0 "$CQL" -index "$P"

# stale: the PGN file touched, edited, appended to, truncated; said once
stale() { # NAME WHY: the run reads the text, says so once, writes the same games
    search "$1" 'Ka1 or check'
    expect_eq "$1: said once" "$(grep -c "sidecar index '$P.cqlx' is stale" "$T/err")" 1
    expect_grep "$1: why" "$T/err" "$2"
    expect_no_grep "$1: not used" "$T/summary" 'ruled_out'
    "$CQL" -index "$P" >/dev/null
}
touch -d '2001-01-01 00:00:00' "$P"
stale "touched" "the PGN file was modified after it"
sed 's/Kasparov/Kasparow/' "$P" >"$T/edited" && cat "$T/edited" >"$P"
stale "edited" "the PGN file was modified after it"
cat "$DATA/python-chess/kasparov-deep-blue-1997.pgn" >>"$P"
stale "appended to" "the PGN file's size differs"
head -c 3000 "$P" >"$T/cut" && cat "$T/cut" >"$P"
stale "truncated" "the PGN file's size differs"
# the same size and time, other first bytes (an edit whose time was put back)
cp -p "$P" "$T/saved.pgn"
sed '1s/Event/Evant/' "$T/saved.pgn" >"$P"
touch -r "$T/saved.pgn" "$P"
stale "first bytes edited, time kept" "the PGN file's first bytes differ"

# damaged: the sidecar cut short, a byte flipped, not a sidecar of this version
damaged() { # NAME
    search "$1" 'Ka1 or check'
    expect_eq "$1: said once" "$(grep -c "sidecar index '$P.cqlx' is damaged" "$T/err")" 1
    expect_no_grep "$1: not used" "$T/summary" 'ruled_out'
    "$CQL" -index "$P" >/dev/null
}
size=$(wc -c <"$P.cqlx")
head -c $((size - 7)) "$P.cqlx" >"$T/cut.cqlx" && cat "$T/cut.cqlx" >"$P.cqlx"
damaged "a truncated sidecar"
# a byte in the middle of the records, then one in the trailer
for at in $((size / 2)) $((size - 20)); do
    python3 - "$P.cqlx" "$at" <<'EOF' 2>/dev/null || dd if=/dev/zero of="$P.cqlx" bs=1 seek="$at" count=1 conv=notrunc 2>/dev/null
import sys
path, at = sys.argv[1], int(sys.argv[2])
b = bytearray(open(path, 'rb').read())
b[at] ^= 0x40
open(path, 'wb').write(b)
EOF
    damaged "a byte flipped at $at"
done
printf 'CQLX\r\n\032\n' >"$P.cqlx"
damaged "eight bytes of a sidecar"

echo "index tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
