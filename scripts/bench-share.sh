#!/bin/sh
# scripts/bench-share.sh — the part of `make bench` that measures where the
# CPU time of a run goes besides the search (docs/performance.md); also run
# alone: sh scripts/bench-share.sh build/release
#
#   main thread   `check` on 2 threads over engine-40k.pgn: the main thread's
#                 share (reading the input, handing the games over, writing
#                 the output) of the run's CPU time, user + system, with the
#                 matches to /dev/null and to a file (issue 32: at most 5%).
#                 cql prints the figures with CQL_CPU_SHARE=1 (getrusage of
#                 the main thread and of the process around the run).
#   studies       the study files with variations (pychess/lichess_study_*.pgn
#                 and scalachess/*.pgn of $PGN_DIR) repeated to about 10,000
#                 games, `cql(variations) path --+ check` on one thread: CPU
#                 time and the kernel's share of it (issue 32: under 5%);
#                 with BASE=, the other binary's CPU time / this one's.
#
# Each figure is the median of $RUNS runs (default 7), with the least and the
# most. Environment: RUNS, BASE, PGN_DIR (as scripts/bench.sh).
# This is a benchmark, not a test: it never fails on a slow machine.
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
BUILD=${1:-build/release}
CQL=$BUILD/cql
DIR=build/bench
RUNS=${RUNS:-7}
BASE=${BASE:-}
ENGINE=tests/data/pgn/generated/engine-games-2000.pgn
if [ -z "${PGN_DIR:-}" ]; then
    if [ -d /work/shared/data/pgn ]; then PGN_DIR=/work/shared/data/pgn; else PGN_DIR=tests/data/pgn; fi
fi
mkdir -p "$DIR"
if [ -n "$BASE" ] && [ ! -x "$BASE" ]; then
    echo "bench-share: BASE=$BASE is not a program" >&2
    exit 2
fi
if ! command -v bash >/dev/null 2>&1; then
    echo "bench-share: needs bash (its time keyword, to the millisecond)" >&2
    exit 2
fi

CORPUS=$DIR/engine-40k.pgn   # as scripts/bench.sh makes it
if [ ! -s "$CORPUS" ]; then
    i=0
    while [ $i -lt 20 ]; do cat "$ENGINE"; i=$((i + 1)); done >"$CORPUS.tmp"
    mv "$CORPUS.tmp" "$CORPUS"
fi

# middle FILE COLUMN: the median of a column of numbers
middle() {
    sort -g -k"$2","$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print (NR ? v[int((NR + 1) / 2)] : 0) }'
}

# median FILE COLUMN DIGITS: "median (least-most)" of a column of numbers
median() {
    sort -g -k"$2","$2" "$1" | awk -v c="$2" -v d="$3" '{ v[NR] = $c } END {
        if (NR == 0) { print "-"; exit }
        f = "%." d "f"
        printf f " (" f "-" f ")", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

# ---- the main thread's share --------------------------------------------------
printf 'cql()\ncheck\n' >"$DIR/q-share.cql"
# share LABEL BINARY OUTPUT: one row; OUTPUT "-" is /dev/null through standard
# output, else a file (removed before each run, so that no run pays for
# freeing the one before)
share() {
    : >"$DIR/share.txt"
    r=0
    while [ $r -lt "$RUNS" ]; do
        if [ "$3" != - ]; then rm -f "$3"; fi
        CQL_CPU_SHARE=1 "$2" -threads 2 -i "$CORPUS" -o "$3" "$DIR/q-share.cql" 2>&1 >/dev/null |
            sed -n 's/^cql: CPU of the run: main thread \([0-9.]*\) s user + \([0-9.]*\) s system, all threads \([0-9.]*\) + \([0-9.]*\) s .*; main thread \([0-9]*\) context switches$/\1 \2 \3 \4 \5/p' |
            awk '{ m = $1 + $2; a = $3 + $4; if (a > 0) printf "%.3f %.3f %.2f %d\n", 1000 * m, 1000 * a, 100 * m / a, $5 }' >>"$DIR/share.txt"
        r=$((r + 1))
    done
    if [ -s "$DIR/share.txt" ]; then
        printf '%-44s %18s %22s %18s\n' "$1" "$(median "$DIR/share.txt" 3 1)" "$(median "$DIR/share.txt" 1 0)" \
            "$(median "$DIR/share.txt" 4 0)"
    else
        printf '%-44s %18s\n' "$1" "- (no CQL_CPU_SHARE)"
    fi
}
echo "main thread: check on 2 threads over $CORPUS; median (least-most) of $RUNS runs; $(nproc) cores"
printf '%-44s %18s %22s %18s\n' "" "share of CPU, %" "main thread, ms CPU" "context switches"
share "to /dev/null" "$CQL" -
share "to a file" "$CQL" "$DIR/share-out.pgn"
if [ -n "$BASE" ]; then
    share "BASE, to /dev/null" "$BASE" -
    share "BASE, to a file" "$BASE" "$DIR/share-out.pgn"
fi
rm -f "$DIR/share-out.pgn" "$DIR/share.txt"

# ---- studies --------------------------------------------------------------------
STUDY=$DIR/study-10k.pgn
if [ ! -s "$STUDY" ]; then
    cat "$PGN_DIR"/pychess/lichess_study_*.pgn "$PGN_DIR"/scalachess/*.pgn >"$DIR/study-1.pgn"
    per_copy=$("$CQL" -i "$DIR/study-1.pgn" -o /dev/null -cql false 2>&1 | sed -n 's/^0 matches of \([0-9]*\) games.*/\1/p')
    copies=$(( (10000 + per_copy - 1) / per_copy ))
    i=0
    while [ $i -lt $copies ]; do cat "$DIR/study-1.pgn"; i=$((i + 1)); done >"$STUDY.tmp"
    mv "$STUDY.tmp" "$STUDY"
    rm -f "$DIR/study-1.pgn"
fi
printf 'cql(variations)\npath --+ check\n' >"$DIR/q-study.cql"
# study BINARY OUT: "user system" CPU seconds of each run, one line each
study() {
    : >"$2"
    r=0
    while [ $r -lt "$RUNS" ]; do
        TIMES_FILE="$DIR/study-times.txt" bash -c 'TIMEFORMAT="%3U %3S"; { time "$@" >/dev/null 2>&1; } 2>"$TIMES_FILE"' \
            bench "$1" -threads 1 -i "$STUDY" -o - "$DIR/q-study.cql" || true
        awk '{ printf "%.3f %.3f %.3f %.2f\n", $1, $2, $1 + $2, ($1 + $2 > 0 ? 100 * $2 / ($1 + $2) : 0) }' \
            "$DIR/study-times.txt" >>"$2"
        r=$((r + 1))
    done
    rm -f "$DIR/study-times.txt"
}
games=$("$CQL" -i "$STUDY" -o /dev/null -cql false 2>&1 | sed -n 's/^0 matches of \([0-9]*\) games.*/\1/p')
echo "studies: $STUDY, $games games, $(awk -v b="$(wc -c <"$STUDY")" 'BEGIN { printf "%.1f", b / 1e6 }') MB; cql(variations) path --+ check, 1 thread"
printf '%-44s %18s %22s\n' "" "CPU s" "kernel share, %"
study "$CQL" "$DIR/study-this.txt"
printf '%-44s %18s %22s\n' "this binary" "$(median "$DIR/study-this.txt" 3 3)" "$(median "$DIR/study-this.txt" 4 1)"
if [ -n "$BASE" ]; then
    study "$BASE" "$DIR/study-base.txt"
    printf '%-44s %18s %22s\n' "BASE" "$(median "$DIR/study-base.txt" 3 3)" "$(median "$DIR/study-base.txt" 4 1)"
    awk -v b="$(middle "$DIR/study-base.txt" 3)" -v t="$(middle "$DIR/study-this.txt" 3)" \
        'BEGIN { printf "%-44s %18.2f\n", "BASE CPU / this CPU (medians)", (t > 0 ? b / t : 0) }'
    rm -f "$DIR/study-base.txt"
fi
rm -f "$DIR/study-this.txt"
