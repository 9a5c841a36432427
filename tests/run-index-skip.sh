#!/bin/sh
# tests/run-index-skip.sh — with a fresh sidecar, a run does not read the
# text of a game every query rules out (on one thread, also of one settled
# from its codes): the reader jumps over it to the next game's first byte
# (docs/index.md, "How a search uses it"). Each check on one thread and two.
# The output stays the same: the messages of the games after skipped ones
# (junk between games, a damaged game) carry their lines, also after a game
# that starts on the line where the one before it ends; -part, -gamenumber
# and -limit choose the same games; the totals count the games skipped; the
# note on a tag filter that held in no game still comes. The skip is seen:
# an edit inside a skipped game (same size, its time put back: the one
# change the staleness check cannot see) is not read. A sidecar of the
# format before the skip (version 1, without the bit that says a game was
# split off without a message) is refused, said once.
# Usage: sh tests/run-index-skip.sh build/MODE
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
BUILD=${1:-build/release}
CQL=$BUILD/cql
export LC_ALL=C
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/expect.sh

# games.pgn: 300 engine games; junk lines before games 101 and 251 (each a
# message with its line), game 201's first move made illegal, game 150
# starting on the line where game 149 ends.
# edit.py IN OUT GAME: game GAME's first pawn move made illegal (three
# squares: the same size)
cat >"$T/make.py" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
games = ['[Event ' + g for g in text.split('[Event ')[1:301]]
games[100] = 'this line is not PGN\n' + games[100]
games[250] = 'nor is this one\n\n' + games[250]
games[148] = games[148].rstrip('\n') + ' '
open(sys.argv[2], 'w').write(''.join(games))
EOF
cat >"$T/edit.py" <<'EOF'
import re, sys
games = open(sys.argv[1]).read().split('[Event ')
k = int(sys.argv[3])
games[k] = re.sub(r'\n1\. ([a-h])[34] ', r'\n1. \g<1>5 ', games[k], count=1)
open(sys.argv[2], 'w').write('[Event '.join(games))
EOF
P=$T/games.pgn
python3 "$T/make.py" tests/data/pgn/generated/engine-games-2000.pgn "$T/made.pgn"
python3 "$T/edit.py" "$T/made.pgn" "$P" 201
expect_rc "cql -index" 0 "$CQL" -index "$P"

# the same games, messages and summary with and without the sidecar, on one thread
printf 'cql(matchcount 1000)\ntrue\n' >"$T/replay.cql"
printf 'cql(matchcount 1000)\nsort "plies" ply\n' >"$T/sort-replay.cql"
same() { # NAME QUERY|FILE.cql [OPTIONS...]: on one thread and on two
    name=$1 query=$2
    shift 2
    case $query in *.cql) ;; *) printf 'cql()\n%s\n' "$query" >"$T/query.cql" && query=$T/query.cql ;; esac
    for n in 1 2; do
        "$CQL" "$@" -threads $n -noindex -i "$P" -o "$T/plain.pgn" "$query" >"$T/plain.out" 2>"$T/plain.err"
        "$CQL" "$@" -threads $n -i "$P" -o "$T/index.pgn" "$query" >"$T/index.out" 2>"$T/index.err"
        expect_same "$name, $n thread(s): the same games" "$T/plain.pgn" "$T/index.pgn"
        sed 's/ in [0-9.]* seconds / /' "$T/plain.err" >"$T/plain.said"
        sed 's/ in [0-9.]* seconds / /' "$T/index.err" >"$T/index.said"
        expect_same "$name, $n thread(s): the same messages and summary" "$T/plain.said" "$T/index.said"
    done
}
same "Ka1" 'Ka1'
expect_grep "Ka1: the junk's line" "$T/index.err" "games.pgn:[0-9]*: warning: skipped 1 line of text that is not PGN"
expect_grep "Ka1: the illegal move's line" "$T/index.err" "games.pgn:[0-9]*:[0-9]*: game 201: illegal move"
same "mate" 'mate'
same "move promote N" 'move promote N'
same "Ka1, gamenumber" 'Ka1' -gamenumber 120 260
same "Ka1, limit" 'Ka1' -limit 3
same "a tag filter that holds in no game" 'Ka1' -player "stockfish"
# settled from the codes (not ruled out, searched from them, not matched):
# not read either
same "replay only" "$T/replay.cql"
same "sort, replay only" "$T/sort-replay.cql"
# two queries in one pass: a game is read when one of them needs its text
printf 'cql()\nKa1\n' >"$T/q1.cql"
printf 'cql()\nmate\n' >"$T/q2.cql"
for n in 1 2; do
    rm -rf "$T/plain.d" "$T/index.d"
    mkdir "$T/plain.d" "$T/index.d"
    "$CQL" -threads $n -noindex -i "$P" -outdir "$T/plain.d" "$T/q1.cql" "$T/q2.cql" >/dev/null 2>"$T/plain.err"
    "$CQL" -threads $n -i "$P" -outdir "$T/index.d" "$T/q1.cql" "$T/q2.cql" >/dev/null 2>"$T/index.err"
    sed 's/ in [0-9.]* seconds / /' "$T/plain.err" >"$T/plain.said"
    sed 's/ in [0-9.]* seconds / /' "$T/index.err" >"$T/index.said"
    expect_same "two queries, $n thread(s): the same messages and summary" "$T/plain.said" "$T/index.said"
    expect_eq "two queries, $n thread(s): two outputs" "$(ls "$T/plain.d" | wc -l)" 2
    for f in "$T"/plain.d/*; do
        expect_same "two queries, $n thread(s): $(basename "$f")" "$f" "$T/index.d/$(basename "$f")"
    done
done
for k in 0 1 2 3; do same "Ka1, -part $k/4" 'Ka1' -part $k/4; done
# on two threads a part's reader jumps over the earlier parts' games too
for k in 0 1 2 3; do
    "$CQL" -threads 2 -noindex -part $k/4 -i "$P" -o "$T/plain.pgn" -cql 'mate' >/dev/null 2>"$T/plain.err"
    "$CQL" -threads 2 -part $k/4 -i "$P" -o "$T/index.pgn" -cql 'mate' >/dev/null 2>"$T/index.err"
    expect_same "mate, -part $k/4, two threads: the same games" "$T/plain.pgn" "$T/index.pgn"
    sed 's/ in [0-9.]* seconds / /' "$T/plain.err" >"$T/plain.said"
    sed 's/ in [0-9.]* seconds / /' "$T/index.err" >"$T/index.said"
    expect_same "mate, -part $k/4, two threads: the same messages" "$T/plain.said" "$T/index.said"
done
# on two threads the reading thread goes back to chunks once it has read
# 1,024 games one by one and jumped over fewer than half (Kg1 rules out a
# third of them, check almost none; Kh1 three quarters): the same output
# when junk, a damaged game and a game that starts on the line where the
# one before it ends come after that
cat >"$T/make2.py" <<'EOF2'
import sys
text = open(sys.argv[1]).read()
games = ['[Event ' + g for g in text.split('[Event ')[1:]]
games[1200] = 'this line is not PGN\n' + games[1200]
games[1600] = 'nor is this one\n\n' + games[1600]
games[1398] = games[1398].rstrip('\n') + ' '
open(sys.argv[2], 'w').write(''.join(games))
EOF2
python3 "$T/make2.py" tests/data/pgn/generated/engine-games-2000.pgn "$T/made2.pgn"
P300=$P
P=$T/games2.pgn
python3 "$T/edit.py" "$T/made2.pgn" "$P" 1501
expect_rc "cql -index, 2,000 games" 0 "$CQL" -index "$P"
same "2,000 games: Kg1" 'Kg1'
expect_grep "Kg1: the illegal move's line" "$T/index.err" "games2.pgn:[0-9]*:[0-9]*: game 1501: illegal move"
same "2,000 games: check" 'check'
same "2,000 games: Kh1" 'Kh1'
same "2,000 games: Kg1, gamenumber" 'Kg1' -gamenumber 900 1700
same "2,000 games: Kg1, limit" 'Kg1' -limit 1100
# two inputs (the 300 games, then the 2,000): a piece of the reading holds
# games of both; the games of the second keep their place in it (the
# workers look each up in its sidecar by it: every game ruled out on one
# thread is on two)
for n in 1 2; do
    "$CQL" -threads $n -noindex -i "$P300" -i "$P" -o "$T/plain-$n.pgn" -cql 'Kg1' >/dev/null 2>"$T/plain.err"
    "$CQL" -threads $n -summary json -i "$P300" -i "$P" -o "$T/index-$n.pgn" -cql 'Kg1' >"$T/index-$n.json" 2>"$T/index.err"
    expect_same "two inputs, Kg1, $n thread(s): the same games" "$T/plain-$n.pgn" "$T/index-$n.pgn"
    grep -v '^{' "$T/index.err" | sed 's/ in [0-9.]* seconds / /' >"$T/index.said"
    sed 's/ in [0-9.]* seconds / /' "$T/plain.err" >"$T/plain.said"
    expect_same "two inputs, Kg1, $n thread(s): the same messages" "$T/plain.said" "$T/index.said"
done
expect_eq "two inputs, Kg1: as many ruled out on two threads as on one" \
    "$(grep -o '"ruled_out": [0-9]*' "$T/index-2.json")" "$(grep -o '"ruled_out": [0-9]*' "$T/index-1.json")"
P=$P300

# the totals: games (the skipped ones counted), damaged games, ruled out
for n in 1 2; do
    "$CQL" -threads $n -noindex -summary json -i "$P" -o "$T/plain.pgn" -cql 'Ka1' >"$T/plain.json" 2>/dev/null
    "$CQL" -threads $n -summary json -i "$P" -o "$T/index.pgn" -cql 'Ka1' >"$T/index.json" 2>/dev/null
    expect_eq "Ka1, $n thread(s): games counted" "$(grep -o '"games": [0-9]*' "$T/index.json")" \
        "$(grep -o '"games": [0-9]*' "$T/plain.json")"
    expect_eq "Ka1, $n thread(s): damaged games counted" "$(grep -o '"pgn_errors": [0-9]*' "$T/index.json")" \
        "$(grep -o '"pgn_errors": [0-9]*' "$T/plain.json")"
    expect_grep "Ka1, $n thread(s): games ruled out" "$T/index.json" '"ruled_out": [1-9]'
done

# the skip is seen: game 120 (which Ka1 rules out, and the replay settles
# from its codes) edited, same size, its
# time put back, more than 64 KB from either end of the file: its first
# move made a result ("1. e4" becomes "1-0 4"), which ends it there and
# makes the rest another game. Read, every later game's number would change.
cat >"$T/result.py" <<'EOF'
import re, sys
games = open(sys.argv[1]).read().split('[Event ')
games[120] = re.sub(r'\n1\. [a-h]', '\n1-0 ', games[120], count=1)
open(sys.argv[2], 'w').write('[Event '.join(games))
EOF
seen() { # FILE.cql K THREADS: the run through the sidecar gives what it gave before the edit
    rm -f "$T/index.pgn"
    "$CQL" -threads $3 -i "$P" -o "$T/index.pgn" "$1" >/dev/null 2>"$T/index.err"
    sed 's/ in [0-9.]* seconds / /' "$T/index.err" >"$T/index.said"
    expect_same "$1, $3 thread(s): a skipped game is not read: the same messages" "$T/before-$2.said" "$T/index.said"
    expect_same "$1, $3 thread(s): a skipped game is not read: the same games" "$T/before-$2.pgn" "$T/index.pgn"
}
# on two threads the reading thread jumps over the games ruled out (not
# over those settled from their codes, which the workers search): Ka1
for k in 1 2 3; do
    query=$(if [ $k = 2 ]; then echo "$T/replay.cql"; else echo "$T/q1.cql"; fi)
    threads=$(if [ $k = 3 ]; then echo 2; else echo 1; fi)
    "$CQL" -threads $threads -i "$P" -o "$T/before-$k.pgn" "$query" >/dev/null 2>"$T/before.err"
    sed 's/ in [0-9.]* seconds / /' "$T/before.err" >"$T/before-$k.said"
done
cp -p "$P" "$T/saved.pgn"
python3 "$T/result.py" "$T/saved.pgn" "$P"
touch -r "$T/saved.pgn" "$P"
expect_eq "an edit keeps the size" "$(wc -c <"$P")" "$(wc -c <"$T/saved.pgn")"
seen "$T/q1.cql" 1 1
seen "$T/replay.cql" 2 1
seen "$T/q1.cql" 3 2
"$CQL" -threads 1 -noindex -i "$P" -o "$T/plain.pgn" -cql 'Ka1' >/dev/null 2>"$T/plain.err"
expect_grep "without the sidecar it is read" "$T/plain.err" "game 202: illegal move"
cp -p "$T/saved.pgn" "$P"

# a sidecar of version 1 is refused, said once; the run reads the text
"$CQL" -index "$P" >/dev/null
cat >"$T/version.py" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[8:12] = (1).to_bytes(4, 'little')
open(sys.argv[1], 'wb').write(b)
EOF
python3 "$T/version.py" "$P.cqlx"
"$CQL" -threads 1 -i "$P" -o "$T/index.pgn" -cql 'Ka1' >/dev/null 2>"$T/index.err"
"$CQL" -threads 1 -noindex -i "$P" -o "$T/plain.pgn" -cql 'Ka1' >/dev/null 2>/dev/null
expect_same "a sidecar of version 1: the same games" "$T/plain.pgn" "$T/index.pgn"
expect_eq "version 1: said once" \
    "$(grep -c "sidecar index '$P.cqlx' is stale (it is of format version 1, and this cql reads version 3)" "$T/index.err")" 1

echo "index skip tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
