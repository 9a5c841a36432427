#!/bin/sh
# tests/run-cli.sh — command-line tests: run the built cql and tools on files
# and compare output, exit status and messages. Usage: sh tests/run-cli.sh build/MODE
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
BUILD=${1:-build/release}
CQL=$BUILD/cql
REPLAY=$BUILD/tests/tool_replay
export LC_ALL=C
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/expect.sh

DATA=tests/data/pgn
printf 'cql() true\n' >"$T/true.cql"

# ---- every PGN file is read to the end, with the game and error counts a person sees
while IFS='	' read -r file games damaged unusable; do
    case $file in '#'*|'') continue ;; esac
    line=$("$REPLAY" -q "$DATA/$file" 2>"$T/err")
    rc=$?
    got=$(echo "$line" | sed 's/.*: \([0-9]*\) games, \([0-9]*\) damaged, \([0-9]*\) unusable.*/\1 \2 \3/')
    if [ $rc -ne 0 ] || [ -s "$T/err" ]; then bad "reading $file: exit $rc"; cat "$T/err" >&2
    else expect_eq "games in $file (games damaged unusable)" "$got" "$games $damaged $unusable"; fi
done <tests/data/pgn-expected.tsv

# ---- read -> write -> read gives the same tree for every well-formed game
if "$REPLAY" -q --roundtrip $(find "$DATA" -name '*.pgn' | sort) >"$T/rt" 2>"$T/rterr"; then ok
else bad "PGN round trip"; head -40 "$T/rterr" >&2; fi

# ---- cql() true copies every game, {Game number N CQL} first and {CQL} after every move
expect_rc "3fold copy" 0 "$CQL" -i "$DATA/sunfish/3fold.pgn" -o "$T/3fold-out.pgn" "$T/true.cql"
expect_grep "3fold summary" "$T/out" '^713 matches of 713 games in [0-9.]* seconds using [0-9]* threads\{0,1\} to '
expect_eq "3fold game numbers" "$(grep -o '{Game number [0-9]* CQL}' "$T/3fold-out.pgn" | wc -l)" 713
plies=$("$REPLAY" -q "$DATA/sunfish/3fold.pgn" | sed 's/.* \([0-9]*\) plies.*/\1/')
expect_eq "3fold one {CQL} per move" "$(grep -o '{CQL}' "$T/3fold-out.pgn" | wc -l)" "$plies"
n=1
for g in $(grep -o '{Game number [0-9]*' "$T/3fold-out.pgn" | sed 's/.* //'); do
    [ "$g" = "$n" ] || { bad "3fold game numbers out of order at $n"; break; }
    n=$((n + 1))
done

# the output is the same for any number of threads
expect_rc "threads 1" 0 "$CQL" -threads 1 -i "$DATA/sunfish/3fold.pgn" -o "$T/t1.pgn" "$T/true.cql"
expect_rc "threads 3" 0 "$CQL" -threads 3 -i "$DATA/sunfish/3fold.pgn" -o "$T/t3.pgn" "$T/true.cql"
if cmp -s "$T/t1.pgn" "$T/t3.pgn" && cmp -s "$T/t1.pgn" "$T/3fold-out.pgn"; then ok; else bad "output depends on thread count"; fi

# messages come in input order for any number of threads: those about junk
# after the last game too, although the reading thread meets it while the
# workers are still on the games before it
i=0
while [ $i -lt 400 ]; do printf '[Event "e%d"]\n\n1. e4 e5 2. Qh9 *\n\n' $i; i=$((i + 1)); done >"$T/errors.pgn"
printf 'this is not PGN\n<br>\n' >>"$T/errors.pgn"
for threads in 1 2; do
    "$CQL" -threads $threads -i "$T/errors.pgn" -o "$T/errors-out.pgn" "$T/true.cql" 2>&1 >/dev/null |
        grep -v ' matches of ' >"$T/messages$threads"
done
expect_eq "junk after the last game: its message last but the count" \
    "$(tail -n 2 "$T/messages2" | head -n 1)" "$T/errors.pgn:1601: warning: skipped 2 lines of text that is not PGN"
expect_same "messages in input order on 1 and 2 threads" "$T/messages1" "$T/messages2"

# worker threads split the input in chunks, cut at tag lines that most
# likely begin a game; where one does not (an unclosed variation or comment
# before it, a blank line inside a tag section), the text is read again from
# the game that ran over the cut. Whatever the chunk size, 2 threads give
# the output and messages of 1 thread: over every test PGN file, with such
# cuts added, and with -limit, a game-number range and a size limit. (Each
# stream apart: the output is written in blocks whose ends depend on the
# threads, so where the messages fall between them in one file does too.)
i=0
while [ $i -lt 30 ]; do
    printf '[Event "v%d"]\n\n1. e4 (1. d4 d5\n\n[Event "w%d"]\n[Site "?"]\n\n[Round "1"]\n\n1. e4 e5 *\n\n' $i $i
    printf '{ never closed\n\n[Event "x%d"]\n\n1. d4 *\n\n[Event "y%d"]\n\n1. c4 *\n\n' $i $i
    i=$((i + 1))
done >"$T/bad-cuts.pgn"
{
    cat "$T/bad-cuts.pgn"
    find "$DATA" -name '*.pgn' | LC_ALL=C sort | while read -r f; do cat "$f" "$T/bad-cuts.pgn"; echo; done
} >"$T/cuts.pgn"
i=0
while [ $i -lt 12 ]; do printf '[Event "j%d"]\n\n1. e4 e5 2. Qh9 *\n\n<br>\n\n' $i; i=$((i + 1)); done >"$T/junk.pgn"
printf 'cql(gamenumber 100 900)\ncheck\n' >"$T/range.cql"
printf 'cql(gamenumber 3 5)\ntrue\n' >"$T/range-junk.cql"
for run in "cuts.pgn -limit 500 true.cql" "cuts.pgn -maxgamesize 2K true.cql" "cuts.pgn range.cql" \
           "junk.pgn range-junk.cql" "junk.pgn -limit 4 true.cql"; do
    # shellcheck disable=SC2086
    set -- $run
    file=$1
    query=$(eval echo "\$$#")
    options=$(echo "$run" | sed 's/^[^ ]* //; s/[^ ]*$//')
    # shellcheck disable=SC2086
    "$CQL" -threads 1 -i "$T/$file" -o - $options "$T/$query" >"$T/cuts1" 2>"$T/cuts1.err"
    for bytes in 30 45 60 90 200 3000 ''; do
        # shellcheck disable=SC2086
        CQL_CHUNK_BYTES=$bytes "$CQL" -threads 2 -i "$T/$file" -o - $options "$T/$query" >"$T/cuts2" 2>"$T/cuts2.err"
        sed -i 's/ in [0-9.]* seconds using [0-9]* threads*/ X/' "$T/cuts1.err" "$T/cuts2.err"
        expect_same "chunks of ${bytes:-default} bytes: as on one thread ($run)" "$T/cuts1" "$T/cuts2"
        expect_same "chunks of ${bytes:-default} bytes: messages as on one thread ($run)" "$T/cuts1.err" "$T/cuts2.err"
    done
done

# CQL_CPU_SHARE=1: the CPU time of the run's main thread and of all its
# threads, on standard error after the run (scripts/bench-share.sh reads it)
CQL_CPU_SHARE=1 "$CQL" -threads 2 -i "$T/cuts.pgn" -o "$T/x.pgn" "$T/true.cql" >/dev/null 2>"$T/err"
expect_grep "CQL_CPU_SHARE: the line" "$T/err" \
    '^cql: CPU of the run: main thread [0-9.]* s user + [0-9.]* s system, all threads [0-9.]* + [0-9.]* s (main thread [0-9.]*%, system [0-9.]*%), decompressors [0-9.]* s; main thread [0-9]* context switches$'
awk '/CPU of the run/ { if ($8 + $12 <= $17 + $19 + 0.002) ok = 1 } END { exit !ok }' "$T/err" && ok ||
    bad "CQL_CPU_SHARE: the main thread took more than all threads"
"$CQL" -threads 2 -i "$T/cuts.pgn" -o "$T/x.pgn" "$T/true.cql" >/dev/null 2>"$T/err"
expect_no_grep "without CQL_CPU_SHARE: no line" "$T/err" 'CPU of the run'

# ---- options
expect_rc "help" 0 "$CQL" -help
expect_grep "help lists exit status" "$T/out" '3  the input had PGN errors'
expect_rc "version" 0 "$CQL" --version
expect_grep "version" "$T/out" '^cql [0-9]'
expect_rc "unknown option" 2 "$CQL" -frobnicate "$T/true.cql"
expect_grep "unknown option message" "$T/err" "^cql: error: unknown option '-frobnicate'"
expect_rc "missing value" 2 "$CQL" -i
expect_rc "no query: every position" 0 "$CQL" -i "$DATA/python-chess/molinari-bordais-1979.pgn" -o "$T/x.pgn"
expect_grep "no query: every position (summary)" "$T/out" '^1 matches of 1 games'
expect_rc "no option at all: usage" 2 "$CQL"
expect_rc "missing input file" 2 "$CQL" -i "$T/nonexistent.pgn" -o "$T/x.pgn" "$T/true.cql"
expect_grep "missing input message" "$T/err" "cannot open input file '.*nonexistent.pgn'"
expect_rc "missing query file" 2 "$CQL" -i "$DATA/python-chess/molinari-bordais-1979.pgn" "$T/nope.cql"
cp "$DATA/python-chess/molinari-bordais-1979.pgn" "$T/same.pgn"
expect_rc "output over input refused" 2 "$CQL" -i "$T/same.pgn" -o "$T/same.pgn" "$T/true.cql"
expect_grep "output over input message" "$T/err" "refusing to write the output over the input"
expect_eq "input untouched" "$(cmp -s "$T/same.pgn" "$DATA/python-chess/molinari-bordais-1979.pgn" && echo same)" same
# case-insensitive option names, one or two hyphens
expect_rc "option case" 0 "$CQL" --INPUT "$DATA/python-chess/kasparov-deep-blue-1997.pgn" -Output "$T/k.pgn" -GameNumber 2 3 "$T/true.cql"
expect_eq "gamenumber range" "$(grep -c '^\[Event ' "$T/k.pgn")" 2
expect_grep "gamenumber numbers" "$T/k.pgn" '{Game number 2 CQL}'
# standard input and output; the summary then goes to stderr
"$CQL" -i - -o - "$T/true.cql" <"$DATA/python-chess/molinari-bordais-1979.pgn" >"$T/stdout.pgn" 2>"$T/err"
expect_eq "stdin/stdout games" "$(grep -c '{Game number' "$T/stdout.pgn")" 1
expect_grep "summary on stderr with -o -" "$T/err" '^1 matches of 1 games in .* to <stdout>'
if [ -s "$T/err" ] && [ "$(grep -c . "$T/err")" = 1 ]; then ok; else bad "-o -: only the summary on stderr"; fi
# default output name: <query-stem>-out.pgn in the current directory, as CQL 6.2
mkdir "$T/q" "$T/cwd"
cp "$T/true.cql" "$T/q/myquery.cql"
expect_rc "default output" 0 sh -c "cd '$T/cwd' && '$(pwd)/$CQL' -i '$(pwd)/$DATA/python-chess/molinari-bordais-1979.pgn' ../q/myquery.cql"
if [ -f "$T/cwd/myquery-out.pgn" ] && [ ! -f "$T/q/myquery-out.pgn" ]; then ok; else bad "default output name ./myquery-out.pgn"; fi
expect_grep "summary to the default output" "$T/out" '^1 matches of 1 games in [0-9.]* seconds using [0-9]* threads\{0,1\} to myquery-out.pgn$'
# -silent adds no comment; -matchstring changes the match comment
expect_rc "silent" 0 "$CQL" -silent -i "$DATA/python-chess/molinari-bordais-1979.pgn" -o "$T/s.pgn" "$T/true.cql"
if grep -q 'CQL\|Game number' "$T/s.pgn"; then bad "silent output has comments"; else ok; fi
expect_rc "matchstring" 0 "$CQL" -matchstring HIT -i "$DATA/python-chess/molinari-bordais-1979.pgn" -o "$T/m.pgn" "$T/true.cql"
expect_grep "matchstring" "$T/m.pgn" '{HIT}'
expect_rc "showmatches" 0 "$CQL" -showmatches -i "$DATA/python-chess/kasparov-deep-blue-1997.pgn" -o "$T/x.pgn" "$T/true.cql"
expect_grep "showmatches" "$T/out" '^<6>$'

# ---- dictionaries: one that lives for the run is printed at the end, like a
# persistent variable, and makes the run use one thread; a local one neither
printf '1. e4 e5 2. Nf3 *\n\n1. d4 *\n' >"$T/two.pgn"
printf 'cql() dictionary Moved if not initial {tp = type to if not Moved[tp] Moved[tp] = 1 else Moved[tp] += 1} else true\n' >"$T/dict.cql"
expect_rc "dictionary run" 0 "$CQL" -threads 2 -i "$T/two.pgn" -o "$T/d.pgn" "$T/dict.cql"
expect_grep "dictionary forces one thread" "$T/out" ' using 1 thread to '
expect_grep "dictionary printed at the end" "$T/out" '^Moved: {1: 3, 2: 1}$'
sed 's/dictionary Moved/local dictionary Moved/' "$T/dict.cql" >"$T/local.cql"
expect_rc "local dictionary run" 0 "$CQL" -threads 2 -i "$T/two.pgn" -o "$T/d.pgn" "$T/local.cql"
expect_grep "local dictionary: threads" "$T/out" ' using 2 threads to '
if grep -q '^Moved:' "$T/out"; then bad "local dictionary printed"; else ok; fi

# ---- bad PGN: one message per game, FILE:LINE:COL: game N:, the run goes on
expect_rc "damaged input" 0 "$CQL" -i "$DATA/chessalyzer/bad-san-mid-file.pgn" -o "$T/b.pgn" "$T/true.cql"
expect_grep "damaged input message" "$T/err" "bad-san-mid-file.pgn:15:4: game 2: unreadable move 'Nf9' at move 1 (white to play)"
expect_grep "damaged input: all games kept" "$T/out" '^3 matches of 3 games'
expect_rc "strict" 3 "$CQL" -strict -i "$DATA/chessalyzer/bad-san-mid-file.pgn" -o "$T/b.pgn" "$T/true.cql"

# ---- bytes real files contain: CR-only line ends, a byte-order mark mid-file
M=$DATA/made
expect_rc "CR-only line ends" 0 "$CQL" -i "$M/cr-line-ends.pgn" -o "$T/cr.pgn" "$T/true.cql"
expect_eq "CR-only line ends: every game" "$(grep -c '^\[Round ' "$T/cr.pgn")" 3
expect_rc "mid-file byte-order mark" 0 "$CQL" -i "$M/concatenated-with-bom.pgn" -o "$T/bom.pgn" "$T/true.cql"
expect_eq "mid-file byte-order mark: every tag kept" "$(grep -c '^\[Event "Concatenated files"\]' "$T/bom.pgn")" 4
if [ -s "$T/err" ]; then bad "mid-file byte-order mark: messages"; cat "$T/err" >&2; else ok; fi

# ---- a game longer than -maxgamesize is skipped and reported, and the run goes on
{
    printf '[Event "a"]\n\n1. e4 e5 *\n\n[Event "big"]\n\n1. e4 {'
    i=0
    while [ $i -lt 400 ]; do printf 'word '; i=$((i + 1)); done
    printf '\n} e5 *\n\n[Event "c"]\n\n1. d4 d5 *\n'
} >"$T/big.pgn"
expect_rc "maxgamesize" 0 "$CQL" -maxgamesize 1K -i "$T/big.pgn" -o "$T/big-out.pgn" "$T/true.cql"
expect_grep "maxgamesize message" "$T/err" "big.pgn:5:1: game 2: game text is longer than the limit (-maxgamesize 1K); skipped it, up to line 8$"
expect_grep "maxgamesize counts an error" "$T/err" "1 of 3 games had PGN errors"
expect_grep "maxgamesize: the other games" "$T/out" '^2 matches of 3 games'
expect_rc "maxgamesize strict" 3 "$CQL" -strict -maxgamesize 1K -i "$T/big.pgn" -o "$T/big-out.pgn" "$T/true.cql"
expect_rc "maxgamesize default" 0 "$CQL" -i "$T/big.pgn" -o "$T/big-out.pgn" "$T/true.cql"
expect_grep "maxgamesize default: all games" "$T/out" '^3 matches of 3 games'
expect_rc "maxgamesize 0" 2 "$CQL" -maxgamesize 0 -i "$T/big.pgn" -o "$T/big-out.pgn" "$T/true.cql"
expect_rc "maxgamesize bad suffix" 2 "$CQL" -maxgamesize 10X -i "$T/big.pgn" -o "$T/big-out.pgn" "$T/true.cql"
expect_grep "maxgamesize bad suffix message" "$T/err" "option '-maxgamesize' needs a size in bytes such as 1000, 512K, 64M or 2G, not '10X'"

# ---- 300 MB of NUL bytes: scanned in bounded memory (not buffered), one warning.
# Under `ulimit -v` (150 MB of address space) a reader that kept the text
# would fail; the sanitizer build reserves terabytes of address space, so
# there the maximum resident size is measured instead, when GNU time is there.
nul_run() {
    head -c 300000000 /dev/zero | "$CQL" -threads 2 -i - -o - "$T/true.cql" >"$T/out" 2>"$T/err"
}
case $BUILD in
*asan*)
    if [ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1; then
        /usr/bin/time -f %M -o "$T/rss" sh -c "head -c 300000000 /dev/zero | '$CQL' -threads 2 -i - -o - '$T/true.cql' >'$T/out' 2>'$T/err'"
        rc=$?
        rss=$(tail -1 "$T/rss")
        if [ "$rss" -lt 200000 ]; then ok; else bad "300 MB of NULs: $rss KB resident"; fi
    else
        nul_run
        rc=$?
    fi ;;
*)
    (ulimit -v 150000 && nul_run)
    rc=$? ;;
esac
expect_eq "300 MB of NULs: exit status" "$rc" 0
expect_grep "300 MB of NULs: one warning" "$T/err" '^<stdin>:1: warning: skipped 1 line of text that is not PGN (it holds NUL bytes)$'
expect_grep "300 MB of NULs: summary" "$T/err" '^0 matches of 0 games'

# ---- a NUL byte in a named file's first 4 KB: the file is read as standard
# input is, every good game kept (the whole file was refused, and a
# directory run stopped there)
NULFILE=$DATA/made/nul-in-first-game.pgn
expect_rc "NUL in the first 4 KB: exit" 0 "$CQL" -i "$NULFILE" -o "$T/nul-out.pgn" "$T/true.cql"
expect_grep "NUL in the first 4 KB: every game" "$T/out" '^3 matches of 3 games'
expect_grep "NUL in the first 4 KB: the message" "$T/err" "^$NULFILE:4:16: game 1: NUL byte in the game's text"
mkdir "$T/nul-dir"
cp "$NULFILE" "$T/nul-dir/a.pgn"
cp "$DATA/python-chess/molinari-bordais-1979.pgn" "$T/nul-dir/b.pgn"
expect_rc "NUL in the first 4 KB, in a directory: exit" 0 "$CQL" -i "$T/nul-dir" -o "$T/nul-out.pgn" "$T/true.cql"
expect_grep "NUL in the first 4 KB, in a directory: every game" "$T/out" '^4 matches of 4 games'

# ---- 100,000 tags, comments or variations in one game are read and written
# in linear time (8 to 43 s when each was compared with every earlier one or
# appended after a walk to the list's tail): under `ulimit -t` (CPU seconds),
# with room to spare for a loaded machine and the sanitizers
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "[T%d \"v\"]\n", i; print ""; print "1. e4 e5 *" }' >"$T/tags.pgn"
awk 'BEGIN { printf "[Event \"c\"]\n\n1. e4"; for (i = 0; i < 100000; i++) printf " {c%d}", i; print " e5 *" }' >"$T/comments.pgn"
awk 'BEGIN { printf "[Event \"v\"]\n\n1. e4"; for (i = 0; i < 100000; i++) printf " (1. d4)"; print " e5 *" }' >"$T/variations.pgn"
cpu_limited() { ( ulimit -t 5; exec "$@" ) }
expect_rc "100,000 tags in a game" 0 cpu_limited "$CQL" -threads 1 -i "$T/tags.pgn" -o "$T/many-out.pgn" "$T/true.cql"
expect_eq "100,000 tags written" "$(grep -c '^\[T[0-9]* "v"\]$' "$T/many-out.pgn")" 100000
expect_rc "100,000 comments on a move" 0 cpu_limited "$CQL" -threads 1 -i "$T/comments.pgn" -o "$T/many-out.pgn" "$T/true.cql"
expect_eq "100,000 comments written" "$(grep -o '{c[0-9]*' "$T/many-out.pgn" | wc -l)" 100000
expect_rc "100,000 variations of a move" 0 cpu_limited "$CQL" -threads 1 -i "$T/variations.pgn" -o "$T/many-out.pgn" "$T/true.cql"
expect_eq "100,000 variations written" "$(grep -o 'd4' "$T/many-out.pgn" | wc -l)" 100000
# 60,000 tag pairs inside one comment closed after them (within the 1 MB
# looked through for the brace): comment text, and the comment is looked
# through once, not once for each of its lines
awk 'BEGIN { printf "[Event \"t\"]\n\n1. e4 {x\n"; for (i = 0; i < 60000; i++) printf "[T%d \"v\"]\n", i; print "} e5 *" }' >"$T/tag-comment.pgn"
for threads in 1 2; do
    expect_rc "60,000 tag pairs in a comment ($threads threads)" 0 cpu_limited "$CQL" -threads $threads -i "$T/tag-comment.pgn" -o "$T/many-out.pgn" "$T/true.cql"
    expect_grep "60,000 tag pairs in a comment ($threads threads): one game" "$T/out" '^1 matches of 1 games'
done

# ---- worker threads that cannot start (-threads 40000, a process limit):
# the run goes on with those that could, said once (pthread_join on a thread
# never started crashed, leaving the temporary file). The limit is the
# number of processes a user may have (prlimit --nproc), which root has not:
# root runs cql as nobody.
"$CQL" -threads 1 -i "$DATA/sunfish/3fold.pgn" -o "$T/threads-want.pgn" -cql true >/dev/null 2>&1
if [ "$(id -u)" = 0 ] && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
    OTHER_USER="setpriv --reuid=65534 --regid=65534 --clear-groups"
    processes=0
else
    OTHER_USER=
    processes=$(ps -L -u "$(id -u)" | wc -l)
fi
few_processes() {   # N COMMAND...: COMMAND with N processes (threads) more allowed
    limit=$((processes + $1))
    shift
    # the leak check at exit needs a thread of its own, which cannot start either
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
        timeout 60 prlimit --nproc="$limit" $OTHER_USER "$@"   # a run without workers hung
}
if ! command -v prlimit >/dev/null 2>&1; then
    echo "note: prlimit is not installed; the tests of threads that cannot start are skipped" >&2
else
few_processes 8 "$CQL" -threads 40000 -i "$DATA/sunfish/3fold.pgn" -o - -cql true >"$T/threads-got.pgn" 2>"$T/err"
expect_eq "-threads 40000 under ulimit -u: exit" $? 0
expect_grep "-threads 40000 under ulimit -u: warning" "$T/err" \
    '^cql: warning: only [0-9]* of the 40000 worker threads asked for could start (.*); the run goes on with [0-9]*$'
expect_eq "-threads 40000 under ulimit -u: said once" "$(grep -c 'worker threads' "$T/err")" 1
expect_eq "-threads 40000 under ulimit -u: the summary says how many ran" \
    "$(sed -n 's/.* using \([0-9]*\) threads to .*/\1/p' "$T/err")" \
    "$(sed -n 's/.* the run goes on with \([0-9]*\)$/\1/p' "$T/err")"
expect_same "-threads 40000 under ulimit -u: the output" "$T/threads-got.pgn" "$T/threads-want.pgn"
few_processes 0 "$CQL" -threads 4 -i "$DATA/sunfish/3fold.pgn" -o - -cql true >"$T/threads-got.pgn" 2>"$T/err"
expect_eq "no worker thread can start: exit" $? 0
expect_grep "no worker thread can start: warning" "$T/err" \
    '^cql: warning: none of the 4 worker threads asked for could start (.*); the run goes on on one thread$'
expect_grep "no worker thread can start: summary" "$T/err" ' using 1 thread to '
expect_same "no worker thread can start: the output" "$T/threads-got.pgn" "$T/threads-want.pgn"
fi

# ---- the examples: the command line in each one's comment runs from the
# repository's root as written (its files exist), matches some game, and
# writes the output file the comment names
REPO=$(pwd)
mkdir "$T/try"
ln -s "$REPO/examples" "$REPO/tests" "$T/try/"
for example in examples/*.cql; do
    line=$(sed -n 's|^//   \./cql ||p' "$example")
    if [ -z "$line" ]; then bad "$example: no command line in its comment"; continue; fi
    # shellcheck disable=SC2086
    (cd "$T/try" && "$REPO/$CQL" $line >"$T/out" 2>"$T/err")
    expect_eq "$example: its command line runs" $? 0
    expect_no_grep "$example: its command line matches a game" "$T/out" '^0 matches'
    for named in $(grep -o '[a-z/-]*-out\.pgn' "$example"); do
        if [ -s "$T/try/$named" ]; then ok; else bad "$example: no output file $named, which its comment names"; fi
    done
done

# ---- binary bytes quoted in a message show as '?' (never raw on a terminal)
printf '[Event "x"]\n\n1. e4 \001\377\376 e5 *\n' > "$T/binary-token.pgn"
"$CQL" -i "$T/binary-token.pgn" -o - -cql true > /dev/null 2> "$T/err"
expect_grep "binary bytes in a message" "$T/err" "^$T/binary-token.pgn:3:7: game 1: unexpected text '???' in the movetext (skipped)\$"
if LC_ALL=C grep -q "$(printf '[\001\377\376]')" "$T/err"; then bad "binary bytes in a message: raw bytes written"; else ok; fi

# ---- sort with no game matching: nothing written, nothing to sort
expect_rc "sort, no match" 0 "$CQL" -i "$DATA/python-chess/molinari-bordais-1979.pgn" -o "$T/s.pgn" -cql 'sort ply false'
expect_grep "sort, no match summary" "$T/out" '^0 matches of 1 game'

# ---- several sort filters: the games in the order of the keys, lexicographically;
# their values at the end of the first comment (CQL 6.2, cql62-fidelity-2.md
# R9; one blank before them, as every run of blanks in a comment is written),
# on one thread and on three
for fen in 4k3/ppp5/8/8/8/8/PP6/4K3 4k3/p7/8/8/8/8/PP6/4K3 4k3/ppppp3/8/8/8/8/PPP5/4K3 4k3/8/8/8/8/8/P7/4K3; do
    printf '[Event "?"]\n[SetUp "1"]\n[FEN "%s w - - 0 1"]\n\n1. Kf2 *\n\n' "$fen"
done >"$T/pawns.pgn"
printf 'cql()\ninitial\nsort "wp" #P\nsort min "bp" #p\n' >"$T/two-keys.cql"
for threads in 1 3; do
    expect_rc "two sort keys, $threads threads" 0 "$CQL" -threads $threads -i "$T/pawns.pgn" -o "$T/keys$threads.pgn" "$T/two-keys.cql"
done
expect_same "two sort keys: the same output on 1 and 3 threads" "$T/keys1.pgn" "$T/keys3.pgn"
expect_eq "two sort keys: order and values" "$(grep '^{Game number' "$T/keys1.pgn" | tr '\n' '|')" \
    "{Game number 3 CQL wp: 3 bp: 5} 1. Kf2 *|{Game number 2 CQL wp: 2 bp: 1} 1. Kf2 *|{Game number 1 CQL wp: 2 bp: 3} 1. Kf2 *|{Game number 4 CQL wp: 1 bp: 0} 1. Kf2 *|"
expect_rc "a sort key without a value" 0 "$CQL" -i "$T/pawns.pgn" -o "$T/none.pgn" -cql 'initial {sort "bp" {#p > 0 #p}} or true'
expect_eq "a sort key without a value: last, written none" "$(grep '^{Game number' "$T/none.pgn" | tr '\n' '|')" \
    "{Game number 3 CQL bp: 5} 1. Kf2 *|{Game number 1 CQL bp: 3} 1. Kf2 *|{Game number 2 CQL bp: 1} 1. Kf2 *|{Game number 4 CQL bp: none} 1. Kf2 *|"
printf '[Event "?"]\n\n{before} 1. e4 *\n' >"$T/commented.pgn"
expect_rc "sort values after an input comment" 0 "$CQL" -i "$T/commented.pgn" -o "$T/c.pgn" -cql 'initial sort "n" 2 + 1'
expect_grep "sort values after an input comment: written" "$T/c.pgn" '^{before Game number 1 CQL n: 3} 1. e4 \*$'
# many games in chunks of 2 KB on 1 and 3 threads: the same order
SORTQ='sort min "pieces" #A sort "plies" ply'
CQL_CHUNK_BYTES=2048 "$CQL" -threads 1 -i "$DATA/generated/engine-games-2000.pgn" -o "$T/sorted1.pgn" -cql "$SORTQ" >/dev/null 2>&1
CQL_CHUNK_BYTES=2048 "$CQL" -threads 3 -i "$DATA/generated/engine-games-2000.pgn" -o "$T/sorted3.pgn" -cql "$SORTQ" >/dev/null 2>&1
if [ -s "$T/sorted1.pgn" ]; then ok; else bad "two sort keys on many games: nothing written"; fi
expect_same "two sort keys on many games: the same output on 1 and 3 threads" "$T/sorted1.pgn" "$T/sorted3.pgn"

# ---- an interrupted or failed run leaves no half-written file under the real name
expect_rc "unwritable output" 2 "$CQL" -i "$DATA/python-chess/molinari-bordais-1979.pgn" -o "$T/no/such/dir/out.pgn" "$T/true.cql"
expect_grep "unwritable output message" "$T/err" "cannot write output file"
if ls -a "$T" | grep -q '^\.out\.pgn\.'; then bad "temporary output left behind"; else ok; fi

# ---- hostile queries: memory stays bounded (under ulimit -v, except with
# ASan, whose shadow memory needs terabytes of address space); one thread,
# so that the limit does not depend on the number of cores
case $BUILD in *asan*) VLIMIT= ;; *) VLIMIT=400000 ;; esac
limited() { ( if [ -n "$VLIMIT" ]; then ulimit -v "$VLIMIT"; fi; exec "$@" ) }
MOLINARI=$DATA/python-chess/molinari-bordais-1979.pgn
# nested transforms multiply (16 million members): refused at the outermost
expect_rc "nested transforms refused" 1 limited "$CQL" -s -i "$MOLINARI" -o - -cql 'shift {flip {shift {flip {shift Ka1}}}}'
expect_grep "nested transforms message" "$T/err" '^-cql:1:1: error: transforms expand to more than [0-9]* filters$'
printf 'cql()\nflip {shift {flip {shift {flip Ka1}}}}\n' >"$T/nested.cql"
expect_rc "nested transforms with -shift refused" 1 limited "$CQL" -s -shift -i "$MOLINARI" -o - "$T/nested.cql"
expect_grep "nested transforms with -shift message" "$T/err" 'nested.cql:2:1: error: transforms expand to more than'
# nested function calls multiply too (3^16 nodes): refused at the outermost call
# (in the second -cql text, a source of its own: its line 1)
expect_rc "nested calls refused" 1 limited "$CQL" -s -i "$MOLINARI" -o - -cql 'function F(x) {x or x}' -cql 'F(F(F(F(F(F(F(F(F(F(F(F(F(F(F(F(Ka1))))))))))))))))'
expect_grep "nested calls message" "$T/err" '^-cql:1:1: error: function calls expand to more than [0-9]* filters$'
# a query file that never ends is read no further than the limit
expect_rc "endless query file" 1 limited "$CQL" -s -i "$MOLINARI" -o - /dev/zero
expect_grep "endless query file message" "$T/err" "^cql: error: the query '/dev/zero' is longer than [0-9]* MB$"
# a number evaluated as a position filter stops the run with exit 1 (CQL 6.2),
# pointing at the filter; the compile-time warning comes first
expect_rc "value-only filter stops the run" 1 "$CQL" -s -i "$MOLINARI" -o - -cql '{2 4}'
expect_grep "value-only filter warning" "$T/err" "^-cql:1:2: warning: the number '2' has a value but is used as a position filter"
expect_grep "value-only filter stop message" "$T/err" "^-cql:1:2: error: game 1: '2' has a value, not a match"
# a 10 MB string: no copy of it for each image of a transform (assigned: a
# string alone in the body would stop the run, as in CQL 6.2)
{ printf 'cql() shift {s = "'; head -c 10000000 /dev/zero | tr '\0' a; printf '" Ka1}\n'; } >"$T/long.cql"
expect_rc "10 MB string under -flip" 0 limited "$CQL" -s -flip -i "$MOLINARI" -o "$T/long-out.pgn" "$T/long.cql"
expect_grep "10 MB string summary" "$T/out" '^[01] match.* of 1 game'
expect_rc "10 MB string -a" 0 limited "$CQL" -a "$T/long.cql"
if cmp -s "$T/out" "$T/long.cql"; then ok; else bad "10 MB string: -a changed the query"; fi
{ printf 'cql() x = "'; head -c 10000000 /dev/zero | tr '\0' a; printf '" x\n'; } >"$T/long-var.cql"
expect_rc "10 MB string -parse" 0 limited "$CQL" -parse "$T/long-var.cql"
# 100,000 filters in one compound: memory and time linear in the query
awk 'BEGIN { printf "cql()"; for (i = 0; i < 100000; i++) printf " Ka1"; print "" }' >"$T/many.cql"
expect_rc "100,000 filters run" 0 limited "$CQL" -s -i "$MOLINARI" -o - "$T/many.cql"
expect_rc "100,000 filters -parse" 0 limited "$CQL" -parse "$T/many.cql"
expect_eq "100,000 filters -parse lines" "$(grep -c '^  designator ' "$T/out")" 100000
# a message about a long line shows the part around the caret
{ printf 'cql() "'; head -c 10000000 /dev/zero | tr '\0' a; printf '" atacks x\n'; } >"$T/long-error.cql"
expect_rc "long line error" 1 limited "$CQL" "$T/long-error.cql"
expect_grep "long line error message" "$T/err" "long-error.cql:1:10000010: error: unknown filter 'atacks'"
expect_grep "long line cut" "$T/err" '^\.\.\.a*" atacks x$'
expect_eq "long line error: short lines" "$(awk 'length > 300' "$T/err" | wc -l)" 0
# a NUL byte in a string is refused where it stands; in a comment it is kept
printf 'cql() "ab\000cd" check\n' >"$T/nul.cql"
expect_rc "NUL in a string" 1 "$CQL" -a "$T/nul.cql"
expect_grep "NUL in a string message" "$T/err" 'nul.cql:1:10: error: a NUL byte'
expect_grep "NUL in a string shown as ?" "$T/err" '^cql() "ab?cd" check$'
printf 'cql() check // a\000b\n' >"$T/nul-comment.cql"
expect_rc "NUL in a comment" 0 "$CQL" -a "$T/nul-comment.cql"
if cmp -s "$T/out" "$T/nul-comment.cql"; then ok; else bad "-a lost what follows a NUL in a comment"; fi

# ---- a regular expression that could backtrack for ever (issue 29, N4):
# a back-reference on a 30,000-byte tag stops the run at its step budget,
# naming the `~~`; nested repetition is memoized and answers. Bounded by
# ulimit (CPU seconds; memory as above), not timed.
{ printf '[Event "e"]\n[White "'; head -c 30000 /dev/zero | tr '\0' a; printf '"]\n[Black "b"]\n[Result "*"]\n\n1. e4 e5 *\n'; } >"$T/long-tag.pgn"
regex_limited() { ( ulimit -t 20; if [ -n "$VLIMIT" ]; then ulimit -v 100000; fi; exec "$@" ) }
expect_rc "back-reference on 30,000 bytes stops" 1 regex_limited "$CQL" -s -i "$T/long-tag.pgn" -o "$T/re.pgn" -cql 'player white ~~ "(a*)\1b"'
expect_grep "back-reference on 30,000 bytes message" "$T/out" \
    '^-cql:1:1: game 1: the regular expression of .player white ~~ "(a\*)\\1b". took more than 100000000 steps on a text of 30000 bytes; the run stops (-maxregexsteps raises the limit)$'
if [ -e "$T/re.pgn" ]; then bad "back-reference stop: the output file was written"; else ok; fi
expect_rc "nested repetition on 30,000 bytes" 0 regex_limited "$CQL" -s -i "$T/long-tag.pgn" -o "$T/re.pgn" -cql 'player white ~~ "(a+)+b"'
expect_grep "nested repetition on 30,000 bytes summary" "$T/out" '^0 matches of 1 game'
expect_rc "nested repetition with a small budget" 1 "$CQL" -s -maxregexsteps 1000 -i "$T/long-tag.pgn" -o "$T/re.pgn" -cql 'player white ~~ "(a+)+b"'
expect_grep "nested repetition with a small budget message" "$T/out" 'took more than 1000 steps on a text of 30000 bytes'
expect_rc "-maxregexsteps 0 refused" 2 "$CQL" -maxregexsteps 0 -i "$T/long-tag.pgn" -o "$T/re.pgn" -cql 'player white ~~ "a"'
expect_grep "-maxregexsteps 0 message" "$T/err" "option '-maxregexsteps' needs a number of at least 1, not '0'"

# ---- the filters that reach outside the query: files, runtime errors, hhdb
# Everything that reads or writes a file runs inside the temporary directory.
CQLABS=$(cd "$(dirname "$CQL")" && pwd)/$(basename "$CQL")
P1="$T/p1.pgn"
printf '[Event "p1"]\n[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n' >"$P1"
printf '[Event "p2"]\n[White "c"]\n[Black "d"]\n[Result "*"]\n\n1. d4 *\n' >>"$P1"
mkdir "$T/files"
# writefile: created on first use, appended to and flushed, no newline added
printf 'cql() gamenumber == 1 ply < 3 writefile("w1.cqo" str(ply) + \\n)\n' >"$T/files/w1.cql"
(cd "$T/files" && "$CQLABS" -i "$P1" -o out.pgn w1.cql >stdout 2>stderr); rc=$?
expect_eq "writefile exit" "$rc" 0
expect_eq "writefile content" "$(od -An -c "$T/files/w1.cqo" | tr -s ' ' | tr -d '\n')" " 0 \n 1 \n 2 \n"
expect_grep "writefile says it opens the file" "$T/files/stdout" '^writefile: opening file: w1.cqo$'
expect_eq "writefile forces one thread" "$(grep -c 'using 1 thread to' "$T/files/stdout")" 1
printf 'cql() writefile("w2.cql" "a") writefile("w2.cql" "b") ply == 0\n' >"$T/files/w2q.cql"
(cd "$T/files" && "$CQLABS" -i "$P1" -o out.pgn w2q.cql >stdout 2>stderr)
expect_eq "writefile appends at every evaluation" "$(cat "$T/files/w2.cql")" "abababababababababab"
# a bad extension stops the run (status 1, no output file); unevaluated, nothing happens
printf 'cql() writefile("w.txt" "a")\n' >"$T/files/bad.cql"
(cd "$T/files" && "$CQLABS" -i "$P1" -o bad-out.pgn bad.cql >stdout 2>stderr); rc=$?
expect_eq "writefile extension exit" "$rc" 1
expect_grep "writefile extension message" "$T/files/stdout" "^writefile: filename must have extension '.cqo' or '.cql' but got filename: w.txt$"
expect_eq "writefile extension: no file" "$(ls "$T/files" | grep -c -e '^w.txt$' -e '^bad-out.pgn$')" 0
printf 'cql() false writefile("w.txt" "a")\n' >"$T/files/bad2.cql"
(cd "$T/files" && "$CQLABS" -i "$P1" -o out.pgn bad2.cql >stdout 2>stderr); rc=$?
expect_eq "writefile unevaluated" "$rc" 0
# readfile: the whole file, read at every evaluation, with two lines printed
printf 'cql() initial x = readfile "w1.cqo" #x == 6 message(x)\n' >"$T/files/r1.cql"
(cd "$T/files" && "$CQLABS" -i "$P1" -o out.pgn r1.cql >stdout 2>stderr); rc=$?
expect_eq "readfile exit" "$rc" 0
expect_grep "readfile summary" "$T/files/stdout" '^2 matches of 2 games'
expect_eq "readfile reads each time" "$(grep -c '^Read file: w1.cqo got 6 bytes$' "$T/files/stdout")" 2
expect_grep "readfile reading" "$T/files/stdout" '^Reading file: w1.cqo$'
printf 'cql() x = readfile "nothere.pgn" #x > 0\n' >"$T/files/r2.cql"
(cd "$T/files" && "$CQLABS" -i "$P1" -o out.pgn r2.cql >stdout 2>stderr); rc=$?
expect_eq "readfile missing exit" "$rc" 1
expect_grep "readfile missing message" "$T/files/stdout" '^Unable to open file: nothere.pgn$'
printf 'cql() x = readfile "w1.txt" #x > 0\n' >"$T/files/r3.cql"
(cd "$T/files" && "$CQLABS" -i "$P1" -o out.pgn r3.cql >stdout 2>stderr); rc=$?
expect_eq "readfile extension exit" "$rc" 1
expect_grep "readfile extension message" "$T/files/stdout" "Filename must have extension '.cqo', '.pgn', or '.cql' but got filename: w1.txt"
# assert: the message, status 1, no summary and no output, whatever the threads
printf 'cql()\ncheck assert wtm\n' >"$T/assert.cql"
for threads in 1 2; do
    "$CQL" -threads $threads -i "$P1" -o "$T/assert-out.pgn" "$T/assert.cql" >"$T/out" 2>"$T/err"; rc=$?
    expect_eq "assert exit ($threads threads)" "$rc" 1
    expect_grep "assert message ($threads threads)" "$T/out" '^assert filter in .cql file failed at gamenumber 1 and positionid: 7: {Line 2, Column 7}$'
    expect_eq "assert: no summary ($threads threads)" "$(grep -c 'match' "$T/out")" 0
    if [ -e "$T/assert-out.pgn" ]; then bad "assert: the output file was written"; else ok; fi
done
# lastgamenumber counts "[White " in the input first
expect_rc "lastgamenumber" 0 "$CQL" -i "$P1" -o "$T/lgn.pgn" -cql 'gamenumber == lastgamenumber'
expect_grep "lastgamenumber count line" "$T/out" '^Detected estimated 2 games in the file: '
expect_eq "lastgamenumber matches the last game" "$(grep -c 'Game number 2' "$T/lgn.pgn")" 1
expect_rc "lastgamenumber with gamenumber" 0 "$CQL" -i "$P1" -o "$T/lgn.pgn" -gamenumber 1 1 -cql 'gamenumber == lastgamenumber'
expect_grep "lastgamenumber clipped" "$T/out" '^Due to CQL header gamenumber, using lastgamenumber value of: 1$'
# hhdb sort orders the games by award; -hhdb adds the filter
HH=tests/data/hhdb/hh.pgn
expect_rc "hhdb sort award" 0 "$CQL" -i "$HH" -o "$T/hh.pgn" -cql 'hhdb sort award'
expect_eq "hhdb sort award order" "$(grep -o 'Game number [0-9]*' "$T/hh.pgn" | cut -d' ' -f3 | tr '\n' ' ')" "1 6 5 7 2 3 "
expect_rc "hhdb sort special" 0 "$CQL" -i "$HH" -o "$T/hh.pgn" -cql 'hhdb sort special'
expect_eq "hhdb sort special order" "$(grep -o 'Game number [0-9]*' "$T/hh.pgn" | cut -d' ' -f3 | tr '\n' ' ')" "7 2 "
expect_rc "-hhdb composer" 0 "$CQL" -i "$HH" -o "$T/hh.pgn" -hhdb composer Jones
expect_eq "-hhdb composer games" "$(grep -o 'Game number [0-9]*' "$T/hh.pgn" | cut -d' ' -f3 | tr '\n' ' ')" "2 "
expect_rc "-hhdb (c)" 0 "$CQL" -i "$HH" -o "$T/hh.pgn" -hhdb '(c)'
expect_eq "-hhdb (c) games" "$(grep -o 'Game number [0-9]*' "$T/hh.pgn" | cut -d' ' -f3 | tr '\n' ' ')" "3 "
expect_rc "-hhdb composer needs a text" 2 "$CQL" -i "$HH" -o "$T/hh.pgn" -hhdb composer
expect_rc "-hhdb info" 0 "$CQL" -hhdb info
expect_grep "-hhdb info lists the keys" "$T/out" '^  theme_tourney$'
cp "$HH" "$T/files/hhdbvi.pgn"; (cd "$T/files" && "$CQLABS" -vi -o vi-out.pgn -cql 'hhdb TW' >stdout 2>stderr); rc=$?
expect_eq "-vi exit" "$rc" 0
expect_grep "-vi reads hhdbvi.pgn" "$T/files/stdout" '^1 matches of 7 games'
# removecomment, and -noremovecomment
expect_rc "removecomment" 0 "$CQL" -i "$HH" -o "$T/rc.pgn" -gamenumber 5 -cql 'removecomment'
expect_eq "removecomment drops the comment" "$(grep -c '<cook>' "$T/rc.pgn")" 0
expect_rc "noremovecomment" 0 "$CQL" -noremovecomment -i "$HH" -o "$T/rc.pgn" -gamenumber 5 -cql 'removecomment'
expect_eq "noremovecomment keeps it" "$(grep -c '<cook>' "$T/rc.pgn")" 1

# ---- query hardening (issue 29): long operator chains, budgets, the files
# a query reads and writes. Each run is bounded by ulimit (CPU seconds,
# stack), never by a timed assertion.
bounded() { ( ulimit -t 120; ulimit -s "$STACK"; if [ -n "$VLIMIT" ]; then ulimit -v "$VLIMIT"; fi; exec "$@" ) }
STACK=1024   # 1 MB of stack, for the main thread and (its default) each worker
# a chain of 200,000 terms of one operator (a generated list of players or
# squares) is one node: it runs, prints and re-reads on 1 MB of stack
chain() {   # chain OPERATOR TERM TAIL: the query file $T/chain.cql
    awk -v op="$1" -v term="$2" -v tail="$3" \
        'BEGIN { printf "cql() "; for (i = 0; i < 200000; i++) printf "%s%s", (i ? " " op " " : ""), term; print " " tail }' \
        >"$T/chain.cql"
}
for spec in 'or;Ka1;' 'and;Ka1;' '+;#K;> 0' '|;a1;' '&;.;' '*;1;== 1' '-;0;== 0'; do
    op=${spec%%;*}; rest=${spec#*;}; term=${rest%%;*}; tail=${rest#*;}
    chain "$op" "$term" "$tail"
    expect_rc "200,000 terms of '$op'" 0 bounded "$CQL" -threads 2 -i "$MOLINARI" -o "$T/chain-out.pgn" "$T/chain.cql"
    expect_grep "200,000 terms of '$op': summary" "$T/out" '^[01] match.* of 1 game'
done
chain or 'player "p"' ''
expect_rc "200,000 terms of 'or' -a" 0 bounded "$CQL" -a "$T/chain.cql"
expect_same "200,000 terms of 'or' -a: the same text" "$T/out" "$T/chain.cql"
expect_rc "200,000 terms of 'or' -parse" 0 bounded "$CQL" -parse "$T/chain.cql"
expect_eq "200,000 terms of 'or' -parse: one node" "$(grep -c '^  or ' "$T/out")" 1
# mixed operators nest: past 1000 levels the query is refused where it
# nests, not with a crash
awk 'BEGIN { printf "cql() "; for (i = 0; i < 200000; i++) printf "%s1", (i ? (i % 2 ? " + " : " - ") : ""); print " > 0" }' >"$T/mixed.cql"
expect_rc "200,000 mixed + and -" 1 bounded "$CQL" -s -i "$MOLINARI" -o - "$T/mixed.cql"
expect_grep "200,000 mixed + and -: message" "$T/err" '^.*mixed.cql:1:7: error: query nested too deeply: more than 1000 filters inside one another'
awk 'BEGIN { printf "cql() function F(x) {x > 0} F("; for (i = 0; i < 200000; i++) printf "%s1", (i ? (i % 2 ? " + " : " - ") : ""); print ")" }' >"$T/mixed.cql"
expect_rc "200,000 mixed + and - as an argument" 1 bounded "$CQL" -s -i "$MOLINARI" -o - "$T/mixed.cql"
expect_grep "200,000 mixed + and - as an argument: message" "$T/err" 'error: query nested too deeply'
awk 'BEGIN { printf "cql() rotate45 {x = \"a\" y = x"; for (i = 0; i < 200000; i++) printf "[0]"; print " y == \"a\"}" }' >"$T/mixed.cql"
expect_rc "200,000 string indexes under rotate45" 1 bounded "$CQL" -s -i "$MOLINARI" -o - "$T/mixed.cql"
expect_grep "200,000 string indexes: message" "$T/err" 'error: query nested too deeply'
# 1000 levels, the most there may be, run on 1 MB of stack (in the
# sanitizer build, whose frames are larger, on 8 MB)
case $BUILD in *asan*) STACK=8192 ;; esac
awk 'BEGIN { printf "cql() flip {"; for (i = 0; i < 995; i++) printf "%s#[Aa]", (i ? (i % 2 ? " + " : " - ") : ""); print " > -1000 Ka1}" }' >"$T/deep.cql"
for how in "-parse" "-s -variations -i $MOLINARI -o $T/deep-out.pgn" "-threads 2 -i $MOLINARI -o $T/deep-out.pgn"; do
    expect_rc "1000 levels: cql $how" 0 bounded "$CQL" $how "$T/deep.cql"
done
STACK=1024
# a loop that never ends (CQL 6.2 runs for minutes) stops at the loop
# budget, naming the loop; -loopbudget raises it
expect_rc "endless while" 1 bounded "$CQL" -s -i "$MOLINARI" -o "$T/loop-out.pgn" -cql 'x=0 while (x<1000000000) {x+=1}'
expect_grep "endless while: message" "$T/err" '^-cql:1:5: error: game 1: loops repeated more than 10000000 times for one position (-loopbudget raises the limit): the run stops here$'
if [ -e "$T/loop-out.pgn" ]; then bad "endless while: the output was written"; else ok; fi
expect_rc "-loopbudget" 0 bounded "$CQL" -s -loopbudget 2000 -i "$MOLINARI" -o "$T/loop-out.pgn" -cql 'x=0 while (x<2000) {x+=1}'
expect_rc "-loopbudget too small" 1 bounded "$CQL" -s -loopbudget 1999 -i "$MOLINARI" -o "$T/loop-out.pgn" -cql 'x=0 while (x<2000) {x+=1}'
expect_rc "-loopbudget 0" 2 "$CQL" -loopbudget 0 -i "$MOLINARI" -cql 'check'
# 100,000 comments at one position: joined into one note in linear time
printf 'cql() initial x=0 while (x<100000) {x+=1 comment("note" x)}\n' >"$T/comments.cql"
expect_rc "100,000 comments at one position" 0 bounded "$CQL" -s -i "$MOLINARI" -o "$T/comments-out.pgn" "$T/comments.cql"
expect_eq "100,000 comments at one position: all written" "$(tr ' ' '\n' <"$T/comments-out.pgn" | grep -c '^{*note[0-9]*}*$')" 100000
# a 10 MB comment at every position: linear memory, and past the text
# budget (here 64M) the run stops, naming the filter
{ printf 'cql() s = "'; head -c 10000000 /dev/zero | tr '\0' a; printf '" comment(s)\n'; } >"$T/comment10.cql"
expect_rc "10 MB comments" 0 bounded "$CQL" -s -i "$MOLINARI" -o "$T/comments-out.pgn" "$T/comment10.cql"
expect_eq "10 MB comments: all written" "$(tr ' ' '\n' <"$T/comments-out.pgn" | awk 'length >= 10000000' | wc -l)" 11
expect_rc "10 MB comments past -textbudget" 1 bounded "$CQL" -s -textbudget 64M -i "$MOLINARI" -o "$T/comments-out.pgn" "$T/comment10.cql"
expect_grep "10 MB comments past -textbudget: message" "$T/err" 'comment10.cql:1:10000014: error: game 1: the query made more than 64M of text for this game'
# a persistent string of 1.3 MB set in each of 713 games: what is kept is
# its value, not a copy for each game (once 900 MB)
expect_rc "persistent string in 713 games" 0 bounded "$CQL" -s -i "$DATA/sunfish/3fold.pgn" -o /dev/null \
    -cql 'initial persistent quiet s = "0123456789" while (#s < 1000000) {s = s + s} #s == 1310720'
expect_grep "persistent string in 713 games: summary" "$T/out" '^713 matches of 713 games'
# the query file is never written over: not as the output (by any name),
# nor by writefile
CQLTOP=$(pwd)
mkdir "$T/qfile"
printf 'cql() check\n' >"$T/qfile/q.cql"
printf 'cql(output q2.cql) check\n' >"$T/qfile/q2.cql"
ln -s q.cql "$T/qfile/link.cql"
cp "$T/qfile/q.cql" "$T/qfile/q.orig"
expect_rc "-o the query file" 2 "$CQL" -i "$MOLINARI" -o "$T/qfile/q.cql" "$T/qfile/q.cql"
expect_grep "-o the query file: message" "$T/err" "^cql: error: refusing to write the output over the query file '$T/qfile/q.cql'$"
expect_rc "-o a link to the query file" 2 "$CQL" -i "$MOLINARI" -o "$T/qfile/link.cql" "$T/qfile/q.cql"
"$CQL" -i "$MOLINARI" -o - "$T/qfile/q.cql" >>"$T/qfile/q.cql" 2>"$T/err"
expect_eq "-o - appended to the query file: exit" "$?" 2
expect_grep "-o - appended to the query file: message" "$T/err" "^cql: error: refusing to write the output over the query (standard output is the query file)$"
(cd "$T/qfile" && "$CQLABS" -i "$CQLTOP/$MOLINARI" q2.cql >stdout 2>stderr); rc=$?
expect_eq "header output is the query file: exit" "$rc" 2
expect_grep "header output is the query file: message" "$T/qfile/stderr" "^cql: error: refusing to write the output over the query file 'q2.cql'$"
expect_eq "header output is the query file: kept" "$(cat "$T/qfile/q2.cql")" 'cql(output q2.cql) check'
printf 'cql() writefile("./q3.cql" "x") check\n' >"$T/qfile/q3.cql"
(cd "$T/qfile" && "$CQLABS" -i "$CQLTOP/$MOLINARI" -o out.pgn q3.cql >stdout 2>stderr); rc=$?
expect_eq "writefile over the query file: exit" "$rc" 1
expect_grep "writefile over the query file: message" "$T/qfile/stderr" "^q3.cql:1:7: error: game 1: writefile: refusing to write over the query file './q3.cql': the run stops here$"
expect_eq "writefile over the query file: kept" "$(cat "$T/qfile/q3.cql")" 'cql() writefile("./q3.cql" "x") check'
expect_same "the query file is kept" "$T/qfile/q.cql" "$T/qfile/q.orig"
# readfile reads a file once for the run: 13 MB read at 66 positions in 150
# MB of address space (once a copy each time, 1.58 GB); again after
# writefile wrote to it; never a device or a FIFO, never more than the text
# budget
tight() { ( ulimit -t 120; if [ -n "$VLIMIT" ]; then ulimit -v 150000; fi; exec "$@" ) }
cat "$MOLINARI" "$MOLINARI" "$MOLINARI" "$MOLINARI" "$MOLINARI" "$MOLINARI" >"$T/qfile/six.pgn"
head -c 13000000 /dev/zero | tr '\0' b >"$T/qfile/big.cql"
(cd "$T/qfile" && tight "$CQLABS" -i six.pgn -o out.pgn -cql 'x = readfile "big.cql" #x == 13000000' >stdout 2>stderr); rc=$?
expect_eq "13 MB readfile in six games: exit" "$rc" 0
expect_grep "13 MB readfile in six games: summary" "$T/qfile/stdout" '^6 matches of 6 games'
expect_eq "13 MB readfile: its lines at every evaluation" "$(grep -c '^Read file: big.cql got 13000000 bytes$' "$T/qfile/stdout")" 66
(cd "$T/qfile" && bounded "$CQLABS" -textbudget 1M -i six.pgn -o out.pgn -cql 'x = readfile "big.cql" #x > 0' >stdout 2>stderr); rc=$?
expect_eq "readfile past -textbudget: exit" "$rc" 1
expect_grep "readfile past -textbudget: message" "$T/qfile/stderr" "^-cql:1:5: error: game 1: readfile: 'big.cql' is larger than 1M (-textbudget raises the limit): the run stops here$"
ln -s /dev/zero "$T/qfile/zero.cql"
(cd "$T/qfile" && bounded "$CQLABS" -i six.pgn -o out.pgn -cql 'x = readfile "zero.cql" #x > 0' >stdout 2>stderr); rc=$?
expect_eq "readfile of /dev/zero: exit" "$rc" 1
expect_grep "readfile of /dev/zero: message" "$T/qfile/stderr" "^-cql:1:5: error: game 1: readfile: 'zero.cql' is not a regular file: the run stops here$"
(cd "$T/qfile" && "$CQLABS" -i six.pgn -o out.pgn -cql 'initial writefile("w.cqo" "a") x = readfile "w.cqo" message(x)' >stdout 2>stderr)
expect_eq "readfile after writefile: the text written" "$(grep '^Game: ' "$T/qfile/stdout" | cut -d' ' -f5 | tr '\n' ' ')" "a aa aaa aaaa aaaaa aaaaaa "
# what message prints is safe on a terminal: a tag's escape sequences show
# as \xHH there (a pseudo-terminal, made by Python's pty), and go through
# unchanged to a file or a pipe
on_tty() {
    python3 -c 'import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
os.waitpid(pid, 0)
sys.stdout.buffer.write(out)' "$@"
}
printf '[Event "x\033[31mred\033[0m \302\233 caf\303\251"]\n[Result "*"]\n\n1. e4 *\n' >"$T/escape.pgn"
if command -v python3 >/dev/null 2>&1; then
    on_tty "$CQL" -s -i "$T/escape.pgn" -o "$T/escape-out.pgn" -cql 'initial message(event)' >"$T/tty"
    expect_grep "message on a terminal: escapes shown" "$T/tty" '^Game: 1 move 1(wtm): x\\x1b\[31mred\\x1b\[0m \\xc2\\x9b caf.. *.$'
    if LC_ALL=C grep -q "$(printf '\033')" "$T/tty"; then bad "message on a terminal: an ESC byte written"; else ok; fi
fi
"$CQL" -s -i "$T/escape.pgn" -o "$T/escape-out.pgn" -cql 'initial message(event)' >"$T/piped"
expect_eq "message to a pipe: as made" "$(head -n 1 "$T/piped")" "$(printf 'Game: 1 move 1(wtm): x\033[31mred\033[0m \302\233 caf\303\251')"

echo "cli tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
