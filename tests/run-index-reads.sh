#!/bin/sh
# tests/run-index-reads.sh — with a fresh sidecar, a run reads of the PGN
# file little more than the games it does not jump over: after a jump far
# ahead, the reader reads the game it jumped to as far as its end (the
# sidecar knows it), not the 64 KB after it (docs/index.md, "How a search
# uses it"). Seen in `pgn_read` of `-summary json` (bytes read of the
# input), on one thread and two: exactly the bytes of the games read when
# only a few far apart are, a jump to the last game of the file, two games
# next to each other read after a jump (the read for the first stops at
# its end, the second is read on from there); a query that rules out most
# games reads much less than the file. The output stays the same as
# without the sidecar, also when a game read is one the sidecar does not
# vouch for (a line that is not PGN before it: read as before, with its
# message).
# Usage: sh tests/run-index-reads.sh build/MODE
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
BUILD=${1:-build/release}
CQL=$BUILD/cql
export LC_ALL=C
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/expect.sh

# make.py IN OUT GAME... : the 2,000 engine games, those named (from 1)
# played by White "Reads Probe"; a game named negative also gets a line
# that is not PGN before it. offsets.py FILE GAME...: the bytes of the
# games named and of the last game (always read: the reader never jumps
# over it), each from its first byte to the end of its line of the
# termination marker, and to the end of the file for the last; a game
# read right after another one read also has the blank line before it.
cat >"$T/make.py" <<'EOF'
import sys
text = open(sys.argv[1]).read()
games = ['[Event ' + g for g in text.split('[Event ')[1:]]
for a in sys.argv[3:]:
    k = abs(int(a)) - 1
    games[k] = games[k].replace('[White "', '[White "Reads Probe', 1)
    games[k] = games[k].replace('[White "Reads Probe', '[White "Reads Probe"]\n[WhiteOld "', 1)
    if int(a) < 0: games[k] = 'this line is not PGN\n' + games[k]
open(sys.argv[2], 'w').write(''.join(games))
EOF
cat >"$T/offsets.py" <<'EOF'
import sys
data = open(sys.argv[1], 'rb').read()
starts = []
at = data.find(b'[Event ')
while at >= 0:
    starts.append(at)
    at = data.find(b'\n[Event ', at + 1)
    at = at + 1 if at >= 0 else -1
def end(k):   # after game k's result line (games end "...\n\n", the last one "...\n")
    return starts[k + 1] - 1 if k + 1 < len(starts) else len(data)
read = sorted(set(int(a) - 1 for a in sys.argv[2:]) | {len(starts) - 1})
print(sum(end(k) - starts[k] + (k - 1 in read) for k in read))
EOF
Q='player white "Reads Probe"'
# NAME FILE: the same games, messages and summary with and without the
# sidecar, on one thread and two; $T/pgn_read-N: pgn_read on N threads
same() {
    for n in 1 2; do
        "$CQL" -threads $n -noindex -i "$2" -o "$T/plain.pgn" -cql "$Q" >"$T/plain.out" 2>"$T/plain.err"
        "$CQL" -threads $n -summary json -i "$2" -o "$T/index.pgn" -cql "$Q" >"$T/index.json" 2>"$T/index.err"
        expect_same "$1, $n thread(s): the same games" "$T/plain.pgn" "$T/index.pgn"
        grep -v '^{' "$T/index.err" | sed 's/ in [0-9.]* seconds / /' >"$T/index.said"
        sed 's/ in [0-9.]* seconds / /' "$T/plain.err" >"$T/plain.said"
        expect_same "$1, $n thread(s): the same messages" "$T/plain.said" "$T/index.said"
        grep -o '"pgn_read": [0-9]*' "$T/index.json" | grep -o '[0-9]*$' >"$T/pgn_read-$n"
    done
}
# exact|near GAMES...: the probe games. The bytes read on one thread and
# on two: exactly those of the games read, each read alone after a far
# jump (exact); or, when games next to each other are read, at least those
# and less than twice as many (a game read right after another is read
# with as much after it as was read since the last far jump: near)
reads() {
    how=$1
    shift
    P=$T/probe.pgn
    python3 "$T/make.py" tests/data/pgn/generated/engine-games-2000.pgn "$P" "$@"
    "$CQL" -index "$P" >/dev/null 2>&1
    same "games $*" "$P"
    games=$(python3 "$T/offsets.py" "$P" "$@")
    for n in 1 2; do
        got=$(cat "$T/pgn_read-$n")
        if [ "$how" = exact ]; then
            expect_eq "games $*, $n thread(s): the bytes of the games read" "$got" "$games"
        else
            expect_eq "games $*, $n thread(s): $got bytes read, of games of $games" \
                "$([ "$got" -ge "$games" ] && [ "$got" -lt $((2 * games)) ] && echo yes)" yes
        fi
    done
}
reads exact 700 1300           # each read alone after a jump (and the last game)
reads exact 2000               # a jump to the last game of the file
reads near 700 701 702 1999    # the games after one read after a jump read too
reads near 1 2 3 1000          # from the start of the file

# a game the sidecar does not vouch for (a line that is not PGN before it)
# is read as before, its message with its line; the games around it too
python3 "$T/make.py" tests/data/pgn/generated/engine-games-2000.pgn "$T/junk.pgn" 700 -701 702 -1300
"$CQL" -index "$T/junk.pgn" >/dev/null 2>&1
same "a line that is not PGN before a game read" "$T/junk.pgn"
expect_grep "the line that is not PGN, said" "$T/index.said" "junk.pgn:[0-9]*: warning: skipped 1 line of text that is not PGN"

# Ka1 rules out most engine games: far less than the file is read (with
# the 64 KB after each jump, almost all of it was)
P=$T/games.pgn
cp tests/data/pgn/generated/engine-games-2000.pgn "$P"
"$CQL" -index "$P" >/dev/null 2>&1
Q=Ka1
same "Ka1" "$P"
size=$(wc -c <"$P")
for n in 1 2; do
    expect_eq "Ka1, $n thread(s): less than a fifth of the file read ($(cat "$T/pgn_read-$n") of $size bytes)" \
        "$([ "$(cat "$T/pgn_read-$n")" -lt $((size / 5)) ] && echo yes)" yes
done

echo "index read tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
