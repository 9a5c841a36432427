#!/bin/sh
# tests/run-reading.sh — on worker threads the workers read the input (a
# worker with nothing to search or split takes the ring's reading role);
# the main thread reads only a range, a sidecar's games and the opening of
# the next input (issue 32). Whoever reads, 2, 3 and 4 threads give the
# output and the messages of one thread: games larger than a chunk (read
# again after an overrun), many small inputs (some compressed), `-part
# K/N`, a sidecar that rules games out, `-limit`, a game-number range, a
# failed assert that stops the run, standard input and a FIFO, junk
# between games with its messages, a small budget of text for the ring;
# the matches written to a file (their batches held by the output thread).
# Usage: sh tests/run-reading.sh build/MODE
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
BUILD=${1:-build/release}
CQL=$(pwd)/$BUILD/cql
export LC_ALL=C
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/expect.sh
DATA=tests/data/pgn
ENGINE=$DATA/generated/engine-games-2000.pgn

# games that run past the cuts (an unclosed variation or comment before a
# tag line), long games, and junk with messages between games
i=0
while [ $i -lt 20 ]; do
    printf '[Event "v%d"]\n\n1. e4 (1. d4 d5\n\n[Event "w%d"]\n[Site "?"]\n\n[Round "1"]\n\n1. e4 e5 *\n\n' $i $i
    printf '{ never closed\n\n[Event "x%d"]\n\n1. d4 *\n\n<br> junk\n\n[Event "y%d"]\n\n1. c4 *\n\n' $i $i
    printf '[Event "j%d"]\n\n1. e4 e5 2. Qh9 *\n\n' $i
    i=$((i + 1))
done >"$T/bad.pgn"
{ cat "$T/bad.pgn"; head -c 300000 "$ENGINE"; cat "$T/bad.pgn"; } >"$T/mixed.pgn"
printf '\n' >>"$T/mixed.pgn"
cp "$ENGINE" "$T/engine.pgn"
"$CQL" -index "$T/engine.pgn" >/dev/null 2>&1 || bad "cql -index"
cp "$ENGINE" "$T/engine-copy.pgn"
gzip -c "$DATA/sunfish/3fold.pgn" >"$T/3fold.pgn.gz"

printf 'cql() true\n' >"$T/true.cql"
printf 'cql() check\n' >"$T/check.cql"
printf 'cql() Ka1\n' >"$T/ka1.cql"
printf 'cql(gamenumber 30 90)\ntrue\n' >"$T/range.cql"
printf 'cql() mate\n' >"$T/mate.cql"
printf 'cql()\ncheck\nassert gamenumber < 150\n' >"$T/stops.cql"
SMALL=$(find "$DATA" -name '*.pgn' -size -20k | sort | sed 's/^/-i /' | tr '\n' ' ')

# same LABEL ARGS...: the output, the summary and the messages (its
# seconds and thread count left out) on 2, 3 and 4 threads, with chunks of
# 60 and 700 bytes (CQL_CHUNK_BYTES: games larger than a chunk) and of the
# default size, as on one thread
same() {
    label=$1
    shift
    "$CQL" -threads 1 -o "$T/want.pgn" "$@" >"$T/want.out" 2>"$T/want.err"
    echo "exit $?" >>"$T/want.err"
    sed -i 's/ in [0-9.]* seconds using [0-9]* threads*/ X/' "$T/want.out" "$T/want.err"
    for n in 2 3 4; do
        for bytes in 60 700 ''; do
            CQL_CHUNK_BYTES=$bytes "$CQL" -threads $n -o "$T/got.pgn" "$@" >"$T/got.out" 2>"$T/got.err"
            echo "exit $?" >>"$T/got.err"
            sed -i 's/ in [0-9.]* seconds using [0-9]* threads*/ X/; s/got\.pgn/want.pgn/' "$T/got.out" "$T/got.err"
            expect_same "$label, $n threads, chunks ${bytes:-default}: output" "$T/want.pgn" "$T/got.pgn"
            expect_same "$label, $n threads, chunks ${bytes:-default}: summary" "$T/want.out" "$T/got.out"
            expect_same "$label, $n threads, chunks ${bytes:-default}: messages" "$T/want.err" "$T/got.err"
        done
    done
}

same "overruns and junk" -i "$T/mixed.pgn" "$T/true.cql"
same "overruns, check" -i "$T/mixed.pgn" "$T/check.cql"
same "overruns, -limit" -limit 40 -i "$T/mixed.pgn" "$T/true.cql"
same "overruns, a range" -i "$T/mixed.pgn" "$T/range.cql"
same "overruns, a failed assert stops the run" -i "$T/mixed.pgn" "$T/stops.cql"
# shellcheck disable=SC2086
same "many small inputs" $SMALL -i "$T/bad.pgn" -i "$T/3fold.pgn.gz" $SMALL "$T/true.cql"
# shellcheck disable=SC2086
same "many small inputs, -limit" -limit 700 $SMALL -i "$T/3fold.pgn.gz" -i "$T/bad.pgn" "$T/mate.cql"
for k in 1 2 3; do
    same "-part $k/3" -part "$k/3" -i "$T/mixed.pgn" "$T/true.cql"
done
same "a sidecar rules games out" -i "$T/engine.pgn" "$T/ka1.cql"
same "a sidecar, then chunks" -i "$T/engine.pgn" "$T/check.cql"
same "a sidecar, then another input" -i "$T/engine.pgn" -i "$T/mixed.pgn" -i "$T/engine.pgn" "$T/ka1.cql"
same "a sidecar, -limit" -limit 5 -i "$T/engine.pgn" "$T/ka1.cql"
same "no sidecar" -i "$T/engine-copy.pgn" -limit 300 "$T/check.cql"

# the ring's budget of text made small (CQL_RING_BYTES, the setting
# ringbytes): reading ahead, and searching past the slot to be handed over
# next, wait on what the ring holds (the input, then the matches, and the
# slots held for the output thread until it releases them: the output is
# a file)
for ring in 1 20000; do
    export CQL_RING_BYTES=$ring
    same "ring budget $ring, overruns and junk" -i "$T/mixed.pgn" "$T/true.cql"
    same "ring budget $ring, check" -i "$T/mixed.pgn" "$T/check.cql"
    same "ring budget $ring, -limit" -limit 40 -i "$T/mixed.pgn" "$T/true.cql"
    same "ring budget $ring, a failed assert stops the run" -i "$T/mixed.pgn" "$T/stops.cql"
    same "ring budget $ring, a sidecar, then chunks" -i "$T/engine.pgn" "$T/check.cql"
    unset CQL_RING_BYTES
done

# standard input and a FIFO, against one thread reading the same
mkfifo "$T/fifo"
# piped N BYTES NAME: the run on N threads reading $T/mixed.pgn through
# standard input and the FIFO, its output and messages in $T/NAME-*
piped() {
    CQL_CHUNK_BYTES=$2 "$CQL" -threads "$1" -i - -o "$T/$3-stdin.pgn" "$T/true.cql" <"$T/mixed.pgn" \
        >/dev/null 2>"$T/$3-stdin.err"
    cat "$T/mixed.pgn" >"$T/fifo" &
    CQL_CHUNK_BYTES=$2 "$CQL" -threads "$1" -i "$T/fifo" -o "$T/$3-fifo.pgn" "$T/true.cql" >/dev/null 2>"$T/$3-fifo.err"
    wait
    sed -i 's/ in [0-9.]* seconds using [0-9]* threads*/ X/; s/got-/want-/' "$T/$3-stdin.err" "$T/$3-fifo.err"
}
piped 1 '' want
for n in 2 3 4; do
    for bytes in 60 ''; do
        piped $n "$bytes" got
        for how in stdin fifo; do
            expect_same "$how, $n threads, chunks ${bytes:-default}: output" "$T/want-$how.pgn" "$T/got-$how.pgn"
            expect_same "$how, $n threads, chunks ${bytes:-default}: messages" "$T/want-$how.err" "$T/got-$how.err"
        done
    done
done
expect_grep "standard input: its messages" "$T/want-stdin.err" "^<stdin>:18: warning: skipped 1 line"

echo "reading: $pass passed, $fail failed"
[ "$fail" = 0 ]
