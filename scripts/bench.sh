#!/bin/sh
# scripts/bench.sh — `make bench`: what a ply costs, per query (docs/performance.md).
#
# Corpora, built under build/bench/ at bench time (never in the repository):
#   engine-40k.pgn   tests/data/pgn/generated/engine-games-2000.pgn twenty times
#                    (40,000 games, the corpus of issue 16's targets)
#   mixed-N.pgn      every PGN file of $PGN_DIR (default /work/shared/data/pgn, else
#                    tests/data/pgn) repeated until about N games: 10k, 100k, 1M
#
# For each query, one thread on the 40k corpus, best of $RUNS runs (default 7):
#   ns/ply      CPU time (user + system) per ply of the corpus
#   cpu, wall   CPU and wall time as ratios to the replay measured in the same
#               run (the machine is noisy: ratios from one run hold better than
#               seconds)
#   Ir/ply      instructions per ply counted by callgrind (on the 2,000 games),
#               exact and independent of the machine's load: the figure to
#               compare before and after a change
#   base        with BASE=path/to/another/cql: its CPU time divided by this
#               one's (so 2.00 = twice as fast), both measured in this run
# With pgn-extract installed, its `-r` (read and check every game) is timed
# too, and Ka1, check, mate and Q attacks k are given as fractions of it.
# The first ten queries in one pass (issue 32) against the replay plus each
# query's own work.
# Then the 2-thread speed-up, the main thread's share of the instructions on
# two threads, the main thread's share of the CPU time and the kernel's on
# studies (scripts/bench-share.sh), and the peak RSS at 10k, 100k and 1M games.
# Then the sidecar index (issue 33, docs/index.md) on the 40k corpus: the
# CPU time of `cql -index` against the replay, the sidecar's size against
# the PGN file's, and one thread's CPU time from the text and through the
# sidecar for a replay-only query (cql(matchcount 1000) true: every game
# replayed, none matches), Ka1, check and every query of the table above,
# with the share of the games the sidecar rules out.
#
# Usage: sh scripts/bench.sh build/MODE
# Environment: RUNS=N, INSTR=0 (no callgrind), RSS=0 (no RSS corpora), BIG=0
# (RSS at 10k and 100k only), BASE=cql binary to compare with, INDEX=0 (no
# sidecar figures), ONLY=index (the sidecar figures alone), ONLY=multiquery
# (the replay and the ten queries in one pass alone).
# This is a benchmark, not a test: it never fails on a slow machine.
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
BUILD=${1:-build/release}
CQL=$BUILD/cql
REPLAY=$BUILD/tests/tool_replay
DIR=build/bench
RUNS=${RUNS:-7}
INSTR=${INSTR:-1}
RSS=${RSS:-1}
INDEX=${INDEX:-1}
ONLY=${ONLY:-}
BIG=${BIG:-1}
BASE=${BASE:-}
ENGINE=tests/data/pgn/generated/engine-games-2000.pgn
if [ -z "${PGN_DIR:-}" ]; then
    if [ -d /work/shared/data/pgn ]; then PGN_DIR=/work/shared/data/pgn; else PGN_DIR=tests/data/pgn; fi
fi
mkdir -p "$DIR"

if [ ! -x /usr/bin/time ]; then
    echo "bench: needs GNU time (/usr/bin/time, Debian package 'time')" >&2
    exit 2
fi
if [ "$INSTR" = 1 ] && ! command -v valgrind >/dev/null 2>&1; then
    echo "bench: no valgrind, so no instruction counts (Debian package 'valgrind')"
    INSTR=0
fi

CORPUS=$DIR/engine-40k.pgn
if [ ! -s "$CORPUS" ]; then
    i=0
    while [ $i -lt 20 ]; do cat "$ENGINE"; i=$((i + 1)); done >"$CORPUS.tmp"
    mv "$CORPUS.tmp" "$CORPUS"
fi

# GNU time gives CPU and wall time to 10 ms, too coarse for runs of 0.1-0.3 s:
# bash's `time` gives them to the millisecond (user + system over all
# threads, and wall), GNU time still the peak RSS. (perf stat, also precise,
# slows the two-thread runs: it switches its counter at every task switch.)
BASH_TIME=""
if command -v bash >/dev/null 2>&1; then BASH_TIME=1; fi

# measure OUT COMMAND...: runs the command $RUNS times and leaves
# "cpu-seconds wall-seconds max-rss-kB" in OUT: the least CPU time and the
# least wall time of the runs (the runs least disturbed by the rest of the
# machine), and the largest peak RSS.
measure() {
    out=$1
    shift
    best=""
    r=0
    while [ $r -lt "$RUNS" ]; do
        if [ -n "$BASH_TIME" ]; then
            STDERR_FILE="$DIR/stderr.txt" TIMES_FILE="$DIR/times.txt" \
                bash -c 'TIMEFORMAT="%3U %3S %3R"; { time "$@" >/dev/null 2>"$STDERR_FILE"; } 2>"$TIMES_FILE"' \
                bench /usr/bin/time -f '%M' -o "$DIR/rss-run.txt" "$@" || true
            line=$(awk -v m="$(tail -n 1 "$DIR/rss-run.txt")" 'END { printf "%.3f %.3f %d", $1 + $2, $3, m }' "$DIR/times.txt")
        else
            /usr/bin/time -f '%U %S %e %M' -o "$DIR/time.txt" "$@" >/dev/null 2>"$DIR/stderr.txt" || true
            line=$(tail -n 1 "$DIR/time.txt" | awk '{ printf "%.3f %.3f %d", $1 + $2, $3, $4 }')
        fi
        best=$(printf '%s\n%s\n' "$best" "$line" | awk 'NF {
            if (n++ == 0 || $1 < c) c = $1
            if (n == 1 || $2 < w) w = $2
            if ($3 > m) m = $3
        } END { printf "%.4f %.4f %d", c, w, m }')
        r=$((r + 1))
    done
    echo "$best" >"$out"
}

# instructions COMMAND...: instructions the command executes (all threads)
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' | tail -n 1
}

# the bench queries, one thread each (the table, and the sidecar's)
QUERIES_FILE=$DIR/queries.txt
printf '%s\n' 'true' 'Ka1' 'check' 'mate' 'Q attacks k' 'pin' 'flip {ray (R q k)}' \
    'shift flip {Ka1 kc1}' 'echo (s t) {s & t == . s < t}' 'legal -- == 0' \
    'find mate' 'move promote N' '#[Aa] <= 5' 'result 1-0' 'player white "Stockfish"' \
    'flipcolor {Ka1 check}' 'player black "Carlsen" check' >"$QUERIES_FILE"

# the sidecar index: its build, its size, searches through it (issue 33)
index_figures() {
    SIDECAR=$CORPUS.cqlx
    rm -f "$SIDECAR"
    measure "$DIR/m-index-replay.txt" "$REPLAY" -q "$CORPUS"
    measure "$DIR/m-index-build.txt" "$CQL" -index "$CORPUS"
    pgn_bytes=$(wc -c <"$CORPUS")
    sidecar_bytes=$(wc -c <"$SIDECAR")
    echo
    echo "sidecar index (one thread, $CORPUS; CPU seconds, best of $RUNS)"
    awk -v r="$(awk '{ print $1 }' "$DIR/m-index-replay.txt")" -v b="$(awk '{ print $1 }' "$DIR/m-index-build.txt")" \
        -v p="$pgn_bytes" -v s="$sidecar_bytes" 'BEGIN {
            printf "%-36s %8.3f s, %.2f of the replay (%.3f s; target: at most 1.30)\n", "build (cql -index)", b, (r > 0 ? b / r : 0), r
            printf "%-36s %8.1f MB, %.1f%% of the PGN file (%.1f MB; target: at most 40%%)\n", "sidecar size", s / 1e6, 100 * s / p, p / 1e6
        }'
    printf '%-36s %9s %9s %7s %10s\n' "query" "text s" "sidecar s" "ratio" "ruled out"
    index_row() { # LABEL QUERY-FILE TARGET
        measure "$DIR/m-text.txt" "$CQL" -noindex -threads 1 -i "$CORPUS" -o - "$2"
        measure "$DIR/m-side.txt" "$CQL" -threads 1 -i "$CORPUS" -o - "$2"
        "$CQL" -threads 1 -summary json -i "$CORPUS" -o /dev/null "$2" >"$DIR/summary.txt" 2>&1 || true
        awk -v l="$1" -v t="$(awk '{ print $1 }' "$DIR/m-text.txt")" -v s="$(awk '{ print $1 }' "$DIR/m-side.txt")" \
            -v target="$3" '
            /"games":/ { match($0, /"games": [0-9]+/); g = substr($0, RSTART + 9, RLENGTH - 9)
                         r = 0; if (match($0, /"ruled_out": [0-9]+/)) r = substr($0, RSTART + 13, RLENGTH - 13) }
            END { printf "%-36s %9.3f %9.3f %6.1fx %9.1f%%%s\n", l, t, s, (s > 0 ? t / s : 0), (g > 0 ? 100 * r / g : 0),
                         target != "" ? "  (target: at least " target "x)" : "" }' "$DIR/summary.txt"
    }
    printf 'cql(matchcount 1000)\ntrue\n' >"$DIR/qi-replay.cql"
    index_row "replay only (matchcount 1000 true)" "$DIR/qi-replay.cql" 3
    i=0
    while IFS= read -r q; do
        i=$((i + 1))
        printf 'cql()\n%s\n' "$q" >"$DIR/qi$i.cql"
        target=""
        case $q in Ka1) target=20 ;; check) target=2 ;; esac
        index_row "$q" "$DIR/qi$i.cql" "$target" </dev/null
    done <"$QUERIES_FILE"
    rm -f "$SIDECAR"
}
if [ "$ONLY" = index ]; then
    index_figures
    exit 0
fi

"$REPLAY" -q "$ENGINE" >"$DIR/replay-small.txt"
small_plies=$(sed -n 's/.* \([0-9]*\) plies,.*/\1/p' "$DIR/replay-small.txt")
plies=$((small_plies * 20))
echo "corpus: $CORPUS, 40000 games, $plies plies, $(awk -v b="$(wc -c <"$CORPUS")" 'BEGIN { printf "%.1f", b / 1e6 }') MB; $(nproc) cores; best of $RUNS runs"
echo "instructions: callgrind on $ENGINE (2000 games, $small_plies plies)"
if [ -n "$BASE" ]; then echo "base: $BASE (base = its CPU time / this CPU time, same run)"; fi
printf '%-36s %8s %8s %6s %6s %8s %8s %6s\n' "query (1 thread)" "ns/ply" "Ir/ply" "cpu" "wall" "CPU s" "wall s" "base"

# row LABEL MEASURED-FILE INSTRUCTIONS BASE-MEASURED-FILE
row() {
    awk -v l="$1" -v p="$plies" -v sp="$small_plies" -v ir="$3" -v rc="$REF_CPU" -v rw="$REF_WALL" \
        -v basefile="$4" '
        BEGIN {
            getline line < ARGV[1]; split(line, m, " ")
            base = "-"
            if (basefile != "" && (getline bl < basefile) > 0) { split(bl, b, " "); if (m[1] > 0) base = sprintf("%.2f", b[1] / m[1]) }
            irp = (ir == "" ? "-" : sprintf("%.0f", ir / sp))
            printf "%-36s %8.0f %8s %6.2f %6.2f %8.3f %8.3f %6s\n", l, m[1] * 1e9 / p, irp,
                   (rc > 0 ? m[1] / rc : 0), (rw > 0 ? m[2] / rw : 0), m[1], m[2], base
        }' "$2"
}

# the replay: read and replay every game, no query (tests/tools/tool_replay)
REF_CPU=0
REF_WALL=0
measure "$DIR/m-replay.txt" "$REPLAY" -q "$CORPUS"
REF_CPU=$(awk '{ print $1 }' "$DIR/m-replay.txt")
REF_WALL=$(awk '{ print $2 }' "$DIR/m-replay.txt")
ir=""
if [ "$INSTR" = 1 ]; then ir=$(instructions "$REPLAY" -q "$ENGINE"); fi
REF_IR=$ir
row "replay (read + replay, no query)" "$DIR/m-replay.txt" "$ir" ""

# issue 16's yardstick: pgn-extract reading and checking every game (-r),
# where it is installed (Debian package pgn-extract)
PGNX=$(command -v pgn-extract || ls /usr/games/pgn-extract 2>/dev/null || true)
if [ -n "${ONLY:-}" ]; then PGNX=""; fi
if [ -n "$PGNX" ]; then
    measure "$DIR/m-pgnx.txt" "$PGNX" -r -s "$CORPUS"
    PGNX_CPU=$(awk '{ print $1 }' "$DIR/m-pgnx.txt")
    PGNX_IR=""
    if [ "$INSTR" = 1 ]; then PGNX_IR=$(instructions "$PGNX" -r -s "$ENGINE"); fi
    row "pgn-extract -r (for comparison)" "$DIR/m-pgnx.txt" "$PGNX_IR" ""
fi

# query LABEL THREADS QUERY-BODY [HEADER]: one row
n=0
query() {
    n=$((n + 1))
    printf 'cql(%s)\n%s\n' "${4:-}" "$3" >"$DIR/q$n.cql"
    measure "$DIR/m$n.txt" "$CQL" -threads "$2" -i "$CORPUS" -o - "$DIR/q$n.cql"
    basef=""
    if [ -n "$BASE" ]; then
        measure "$DIR/b$n.txt" "$BASE" -threads "$2" -i "$CORPUS" -o - "$DIR/q$n.cql"
        basef=$DIR/b$n.txt
    fi
    ir=""
    if [ "$INSTR" = 1 ] && [ "$2" = 1 ]; then ir=$(instructions "$CQL" -threads 1 -i "$ENGINE" -o - "$DIR/q$n.cql"); fi
    echo "$ir" >"$DIR/i$n.txt"
    row "$1" "$DIR/m$n.txt" "$ir" "$basef"
}

# issue 32: the first ten queries of the list in one pass (one
# thread), against CPU(one pass) <= 1.1 x (R + sum of (Qi - R)): R the
# replay row above, Qi each query alone; the pass and the single runs
# write their matches to files alike, and their outputs must be the same
multiquery() {
    mq=$DIR/multiquery
    rm -rf "$mq"
    mkdir -p "$mq/queries" "$mq/single" "$mq/pass"
    i=0
    head -n 10 "$QUERIES_FILE" | while IFS= read -r body; do
        i=$((i + 1))
        printf 'cql()\n%s\n' "$body" >"$mq/queries/$(printf 'q%02d' $i).cql"
    done
    for f in "$mq"/queries/*.cql; do
        name=$(basename "$f" .cql)
        measure "$mq/m-$name.txt" "$CQL" -threads 1 -i "$CORPUS" -o "$mq/single/$name-out.pgn" "$f"
    done
    measure "$mq/m-pass.txt" "$CQL" -threads 1 -i "$CORPUS" -outdir "$mq/pass" "$mq"/queries/*.cql
    same=identical
    for f in "$mq"/single/*.pgn; do
        cmp -s "$f" "$mq/pass/$(basename "$f")" || same="DIFFERENT from the single runs'"
    done
    cat "$mq"/m-q*.txt | awk -v r="$REF_CPU" -v pass="$(awk '{ print $1 }' "$mq/m-pass.txt")" -v same="$same" '
        { q += $1; n++ }
        END {
            own = r + q - n * r
            printf "%-36s %8.3f CPU s, outputs %s\n", "ten queries in one pass (1 thread)", pass, same
            printf "%-36s %8.3f CPU s (the ten alone: %.3f; R %.3f)\n", "R + sum(Qi - R)", own, q, r
            printf "%-36s %8.2f (target: at most 1.10)\n", "one pass / (R + sum(Qi - R))", (own > 0 ? pass / own : 0)
        }'
    # the same with instructions (callgrind, on the 2,000 games): exact
    if [ "$INSTR" = 1 ]; then
        for f in "$mq"/queries/*.cql; do
            instructions "$CQL" -threads 1 -i "$ENGINE" -o "$mq/single/i.pgn" "$f"
        done >"$mq/i-single.txt"
        pass_ir=$(instructions "$CQL" -threads 1 -i "$ENGINE" -outdir "$mq/pass" "$mq"/queries/*.cql)
        awk -v r="$REF_IR" -v pass="$pass_ir" -v sp="$small_plies" '
            { q += $1; n++ }
            END {
                own = r + q - n * r
                printf "%-36s %8.0f Ir/ply in one pass, %.0f for R + sum(Qi - R) (the ten alone: %.0f): %.2f\n",
                       "instructions, ten queries", pass / sp, own / sp, q / sp, (own > 0 ? pass / own : 0)
            }' "$mq/i-single.txt"
    fi
}
if [ "${ONLY:-}" = multiquery ]; then
    multiquery
    exit 0
fi

while IFS= read -r q; do
    query "$q" 1 "$q" </dev/null
done <"$QUERIES_FILE"

multiquery

# issue 16's target: Ka1, check, mate and Q attacks k each at most 0.10 of
# pgn-extract -r's CPU time on the same corpus
if [ -n "$PGNX" ]; then
    for i in 2 3 4 5; do
        awk -v l="$(sed -n 2p "$DIR/q$i.cql")" -v x="$PGNX_CPU" -v ir="$(cat "$DIR/i$i.txt")" -v xir="$PGNX_IR" \
            '{ printf "%-36s %8.3f of pgn-extract -r CPU time, %s of its instructions (target: at most 0.10)\n", l,
                      (x > 0 ? $1 / x : 0), (ir != "" && xir > 0 ? sprintf("%.2f", ir / xir) : "-") }' "$DIR/m$i.txt"
    done
fi

# two threads against one, wall time (on an idle 2-core machine the target
# is 1.8): `check` writing its 98% of the games, and with nothing written
query "check (1 thread)" 1 "check"
one=$n
query "check (2 threads)" 2 "check"
query "check, nothing written (1 thread)" 1 "check" "matchcount 1000"
query "check, nothing written (2 threads)" 2 "check" "matchcount 1000"
speedup() { # LABEL ONE-THREAD-FILE TWO-THREADS-FILE
    awk -v l="$1" -v a="$(awk '{ print $2 }' "$2")" -v b="$(awk '{ print $2 }' "$3")" \
        'BEGIN { printf "%-36s %8.2f (wall time, 1 thread / 2 threads)\n", l, (b > 0 ? a / b : 0) }'
}
speedup "2-thread speed-up, check" "$DIR/m$one.txt" "$DIR/m$((one + 1)).txt"
speedup "2-thread speed-up, nothing written" "$DIR/m$((one + 2)).txt" "$DIR/m$((one + 3)).txt"

# the reading thread's share of all instructions on two threads (issue 16,
# item 1: at most 5%): callgrind counts each thread apart, the main thread
# (reading the input, writing the output) in the file ending in -01
if [ "$INSTR" = 1 ]; then
    for q in check Ka1; do
        printf 'cql()\n%s\n' "$q" >"$DIR/q-share.cql"
        rm -f "$DIR"/share.*
        valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$DIR/share.%p" \
            "$CQL" -threads 2 -i "$ENGINE" -o - "$DIR/q-share.cql" >/dev/null 2>&1 || true
        awk -v l="main thread's share, $q" '
            /^summary:/ { t += $2; if (FILENAME ~ /-01$/) m += $2 }
            END { if (t > 0) printf "%-36s %8.1f%% of all instructions (2 threads)\n", l, 100 * m / t }' \
            "$DIR"/share.*-0*
        rm -f "$DIR"/share.*
    done
fi

# the main thread's share of the CPU time, and the kernel's on studies
# (scripts/bench-share.sh, also run alone)
RUNS=$RUNS BASE=$BASE PGN_DIR=$PGN_DIR sh scripts/bench-share.sh "$BUILD"

# peak RSS while `check` (2 threads) reads 10k, 100k and 1M games of every PGN
# file of $PGN_DIR, writing the matches to standard output (discarded)
if [ "$RSS" = 1 ]; then
    files=$(find "$PGN_DIR" -name '*.pgn' | LC_ALL=C sort)
    one=$DIR/mixed-1.pgn
    if [ ! -s "$one" ]; then
        for f in $files; do cat "$f"; echo; done >"$one.tmp"
        mv "$one.tmp" "$one"
    fi
    per_copy=$(grep -c '^\[Event ' "$one" || true)
    printf 'cql()\ncheck\n' >"$DIR/q-rss.cql"
    for copies in 1 10 100; do
        if [ "$copies" = 100 ] && [ "$BIG" != 1 ]; then break; fi
        big=$DIR/mixed-$copies.pgn
        if [ ! -s "$big" ]; then
            i=0
            while [ $i -lt "$copies" ]; do cat "$one"; i=$((i + 1)); done >"$big.tmp"
            mv "$big.tmp" "$big"
        fi
        RUNS=1 measure "$DIR/rss.txt" "$CQL" -threads 2 -i "$big" -o - "$DIR/q-rss.cql"
        awk -v g=$((per_copy * copies)) -v mb="$(awk -v b="$(wc -c <"$big")" 'BEGIN { print b / 1e6 }')" \
            '{ printf "RSS %9d games %7.0f MB input: %7.1f MB peak, %7.1f s wall\n", g, mb, $3 / 1024, $2 }' "$DIR/rss.txt"
    done
fi
if [ "$INDEX" = 1 ]; then index_figures; fi
rm -f "$DIR/out.pgn"
