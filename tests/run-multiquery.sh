#!/bin/sh
# tests/run-multiquery.sh — many queries in one pass (issue 32): `cql -i ...
# q1.cql q2.cql ...` and `-queries DIR` read and replay each game once and
# search it with every query. Each query's output file must be byte for
# byte what a run of it alone writes, over every PGN file under
# tests/data/pgn (damaged ones too), on 1 and 2 threads and with the input
# cut in small chunks: ten of the bench's queries (scripts/bench.sh), some
# of tests/conformance, a sorting one, one with comments, one with a
# game-number range. Also with -limit, -part and a query that keeps values
# from game to game; a failed assert stops only its query; two queries
# that would write one file are refused before anything is read; -queries
# DIR in name order, -outdir, -dryrun, the JSON summaries.
# Usage: sh tests/run-multiquery.sh build/MODE
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
BUILD=${1:-build/release}
CQL=$(pwd)/$BUILD/cql
export LC_ALL=C
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/expect.sh

# every PGN file of the tests, as -i options
I_ARGS=$(find "$(pwd)/tests/data/pgn" -name '*.pgn' | sort | sed 's/^/-i /')
ENGINE=$(pwd)/tests/data/pgn/generated/engine-games-2000.pgn
# a summary line without its time: "N matches of M games ... to FILE"
untimed() { sed -n 's/ in [0-9.]* seconds using [0-9]* threads\{0,1\} to / to /p' "$1"; }

Q=$T/queries
mkdir "$Q"
mk() { printf '%s\n' "$2" >"$Q/$1.cql"; }
# ten of the bench's queries
mk 01-true 'cql() true'
mk 02-ka1 'cql() Ka1'
mk 03-check 'cql() check'
mk 04-mate 'cql() mate'
mk 05-q-attacks-k 'cql() Q attacks k'
mk 06-pin 'cql() pin'
mk 07-ray 'cql() flip {ray (R q k)}'
mk 08-shift 'cql() shift flip {Ka1 kc1}'
mk 09-result 'cql() result 1-0'
mk 10-promote 'cql() move promote N'
# some of tests/conformance (cql62-vectors.tsv, cql62-remaining-vectors.tsv)
mk 11-matchcount 'cql(matchcount 2 1000) check'
mk 12-variations 'cql(variations) mate'
mk 13-removecomment 'cql(variations) removecomment variation'
mk 14-player 'cql() player white ~~ "^K"'
mk 15-flipcolor 'cql() flipcolor {Ka1 check}'
# sorted, with comments, a range of games
mk 16-sort 'cql() sort "wp" #P sort min "bp" #p'
mk 17-comment 'cql() check comment("check with " #[Aa] " pieces")'
mk 18-range 'cql(gamenumber 200 900) mate'

# ---- each query alone (2 threads), in its own folder: QUERY-out.pgn there
mkdir "$T/single"
for q in "$Q"/*.cql; do
    (cd "$T/single" && "$CQL" -threads 2 $I_ARGS "$q" >>summary 2>/dev/null)
done
expect_eq "the single runs wrote an output each" "$(ls "$T/single"/*-out.pgn | wc -l | tr -d ' ')" 18
[ "$(grep -c '^\[Event ' "$T/single/03-check-out.pgn")" -gt 100 ] && ok || bad "check matched too few games"
[ "$(grep -c '^\[Event ' "$T/single/16-sort-out.pgn")" -gt 100 ] && ok || bad "sort matched too few games"

# same_outputs NAME DIR: every query's output in DIR is the single run's
same_outputs() {
    for f in "$T/single"/*-out.pgn; do
        expect_same "$1: $(basename "$f")" "$f" "$2/$(basename "$f")"
    done
}

# ---- the query files given one by one, on 1 and 2 threads
for threads in 1 2; do
    mkdir "$T/multi$threads"
    (cd "$T/multi$threads" && "$CQL" -threads $threads $I_ARGS "$Q"/*.cql >out 2>err)
    expect_eq "one pass, $threads thread(s): exit status" "$?" 0
    same_outputs "one pass, $threads thread(s)" "$T/multi$threads"
    untimed "$T/multi$threads/out" >"$T/multi$threads/untimed"
    untimed "$T/single/summary" >"$T/single/untimed"
    expect_same "one pass, $threads thread(s): the summary lines" "$T/single/untimed" "$T/multi$threads/untimed"
done
expect_eq "one pass: one summary line per query" "$(grep -c ' matches of ' "$T/multi2/out")" 18
# every PGN problem said once, not once per query
expect_eq "one pass: each PGN message once" "$(grep -c 'game [0-9]*:' "$T/multi2/err")" \
    "$(grep 'game [0-9]*:' "$T/multi2/err" | sort -u | wc -l | tr -d ' ')"

# ---- queries that each need a piece somewhere (the pass reads a game's
# moves into a tree only when one of them may match)
mkdir "$T/gated"
(cd "$T/gated" && "$CQL" -threads 2 $I_ARGS "$Q/02-ka1.cql" "$Q/05-q-attacks-k.cql" "$Q/15-flipcolor.cql" >out 2>err)
for q in 02-ka1 05-q-attacks-k 15-flipcolor; do
    expect_same "pieces needed: $q-out.pgn" "$T/single/$q-out.pgn" "$T/gated/$q-out.pgn"
done

# ---- -queries DIR and -outdir, with the input cut in small chunks
mkdir "$T/outdir"
CQL_CHUNK_BYTES=3000 "$CQL" -threads 2 $I_ARGS -queries "$Q" -outdir "$T/outdir" >"$T/out" 2>"$T/err"
expect_eq "-queries DIR -outdir: exit status" "$?" 0
same_outputs "-queries DIR -outdir, small chunks" "$T/outdir"
sed -n 's/.* to //p' "$T/out" >"$T/order"
ls "$Q" | sed "s|\\(.*\\)\\.cql|$T/outdir/\\1-out.pgn|" >"$T/order-wanted"
expect_same "-queries DIR: the queries in name order" "$T/order-wanted" "$T/order"
# the files given first, then the directory's
mkdir "$T/extra" "$T/both"
printf 'cql()\nstalemate\n' >"$T/extra/00-stalemate.cql"
"$CQL" -threads 2 -i "$ENGINE" -queries "$Q" -outdir "$T/both" "$T/extra/00-stalemate.cql" >"$T/out" 2>&1
expect_eq "files and -queries DIR: exit status" "$?" 0
expect_eq "files and -queries DIR: 19 queries" "$(grep -c ' matches of ' "$T/out")" 19
expect_grep "files and -queries DIR: the file first" "$T/out" "^[0-9]* matches of 2000 games .* to $T/both/00-stalemate-out.pgn\$"
expect_eq "files and -queries DIR: order" "$(sed -n '2s/.* to //p' "$T/out")" "$T/both/01-true-out.pgn"
"$CQL" -threads 2 -i "$ENGINE" -o "$T/stalemate.pgn" "$T/extra/00-stalemate.cql" >/dev/null 2>&1
expect_same "files and -queries DIR: the file's output" "$T/stalemate.pgn" "$T/both/00-stalemate-out.pgn"

# ---- with a sidecar index (cql -index): each query's condition and codes
# are its own; a game read from its text once for the queries it is not
# settled for
mkdir "$T/ix" "$T/ix/single" "$T/ix/multi"
cp "$ENGINE" "$T/ix/games.pgn"
"$CQL" -index "$T/ix/games.pgn" >/dev/null 2>&1
[ -s "$T/ix/games.pgn.cqlx" ] && ok || bad "sidecar: cql -index made none"
for q in 02-ka1 03-check 04-mate 10-promote; do
    (cd "$T/ix/single" && "$CQL" -threads 2 -summary json -i "$T/ix/games.pgn" "$Q/$q.cql" 2>/dev/null |
        sed -n 's/.*\("ruled_out": [0-9]*\).*/\1/p' >>ruled_out)
done
(cd "$T/ix/multi" && "$CQL" -threads 2 -summary json -i "$T/ix/games.pgn" "$Q/02-ka1.cql" "$Q/03-check.cql" \
    "$Q/04-mate.cql" "$Q/10-promote.cql" 2>/dev/null | sed -n 's/.*\("ruled_out": [0-9]*\).*/\1/p' >ruled_out)
for f in "$T/ix/single"/*.pgn; do
    expect_same "sidecar: $(basename "$f")" "$f" "$T/ix/multi/$(basename "$f")"
done
expect_same "sidecar: each query's games ruled out" "$T/ix/single/ruled_out" "$T/ix/multi/ruled_out"
expect_eq "sidecar: a count per query" "$(wc -l <"$T/ix/multi/ruled_out" | tr -d ' ')" 4

# ---- -matches and -report: each query's own, STEM-NAME beside the name
# given, each what its single run writes (the report but for its time)
mkdir "$T/mr-single" "$T/mr-multi" "$T/mr-multi/sub"
for q in 03-check 16-sort; do
    (cd "$T/mr-single" && "$CQL" -threads 2 -i "$ENGINE" -matches "$q-hits.tsv" -report "$q-page.html" "$Q/$q.cql" \
        >/dev/null 2>&1)
done
(cd "$T/mr-multi" && "$CQL" -threads 2 -i "$ENGINE" -matches sub/hits.tsv -report page.html "$Q/03-check.cql" \
    "$Q/16-sort.cql" >out 2>err)
expect_eq "-matches -report: exit status" "$?" 0
for q in 03-check 16-sort; do
    expect_same "-matches: $q" "$T/mr-single/$q-hits.tsv" "$T/mr-multi/sub/$q-hits.tsv"
    sed '/<th>time<\/th>/d' "$T/mr-single/$q-page.html" >"$T/mr-single/$q-page.untimed"
    sed '/<th>time<\/th>/d' "$T/mr-multi/$q-page.html" >"$T/mr-multi/$q-page.untimed"
    expect_same "-report: $q, but for its time" "$T/mr-single/$q-page.untimed" "$T/mr-multi/$q-page.untimed"
    expect_same "-matches -report: $q's PGN output" "$T/mr-single/$q-out.pgn" "$T/mr-multi/$q-out.pgn"
done
expect_grep "-matches: a positions line per query" "$T/mr-multi/out" "^[0-9]* positions of 1970 matches to sub/03-check-hits.tsv\$"
expect_rc "-matches - for two queries" 2 "$CQL" -i "$ENGINE" -outdir "$T/mr-multi" -matches - "$Q/03-check.cql" \
    "$Q/04-mate.cql"
expect_grep "-matches - for two queries: the message" "$T/err" "would both write '<stdout>'"
printf 'cql(output %s)\ncheck\n' "$T/mr-multi/00-stalemate-x.html" >"$T/mr-multi/clash.cql"
expect_rc "-report of one query, the output of another" 2 "$CQL" -i "$ENGINE" -report "$T/mr-multi/x.html" \
    "$T/extra/00-stalemate.cql" "$T/mr-multi/clash.cql"
expect_grep "-report of one query, the output of another: the message" "$T/err" \
    "would both write '$T/mr-multi/00-stalemate-x.html'"

# many queries: the first two files that would be one are named (the
# later as early as can be), by one name or two, made already or not
mkdir "$T/many" "$T/many/out"
i=1
while [ $i -le 60 ]; do
    printf 'cql()\ncheck\n' >"$T/many/q$i.cql"
    i=$((i + 1))
done
printf 'cql(output %s)\ncheck\n' "$T/many/out/a.pgn" >"$T/many/q40.cql"
printf 'cql(output %s)\ncheck\n' "$T/many/out/../out/a.pgn" >"$T/many/q50.cql"
printf 'cql(output %s)\ncheck\n' "$T/many/out/b.pgn" >"$T/many/q20.cql"
printf 'cql(output %s)\ncheck\n' "$T/many/out/./b.pgn" >"$T/many/q45.cql"
queries=$(i=1; while [ $i -le 60 ]; do printf '%s ' "$T/many/q$i.cql"; i=$((i + 1)); done)
here=$(pwd)
cd "$T/many" || exit 1   # (the outputs not named in a header would be made here)
# shellcheck disable=SC2086
expect_rc "60 queries, two pairs of one file not made yet" 2 "$CQL" -i "$ENGINE" $queries
expect_grep "60 queries: the earliest pair named" "$T/err" \
    "the queries $T/many/q20.cql and $T/many/q45.cql would both write the same file, '$T/many/out/./b.pgn'"
: >"$T/many/out/a.pgn"
: >"$T/many/out/b.pgn"
# shellcheck disable=SC2086
expect_rc "60 queries, two pairs of one file made" 2 "$CQL" -i "$ENGINE" $queries
expect_grep "60 queries, made: the earliest pair named" "$T/err" \
    "the queries $T/many/q20.cql and $T/many/q45.cql would both write the same file, '$T/many/out/./b.pgn'"
printf 'cql(output %s)\ncheck\n' "$T/many/out/c.pgn" >"$T/many/q45.cql"
# shellcheck disable=SC2086
expect_rc "60 queries, one pair" 2 "$CQL" -i "$ENGINE" $queries
expect_grep "60 queries, one pair: named" "$T/err" \
    "the queries $T/many/q40.cql and $T/many/q50.cql would both write the same file, '$T/many/out/../out/a.pgn'"
expect_eq "60 queries: nothing written" "$(ls "$T/many/out" | tr '\n' ' ')" "a.pgn b.pgn "
cd "$here" || exit 1

# ---- -limit: each query stops after its own N matches
mkdir "$T/limit-single" "$T/limit-multi"
for q in 03-check 04-mate 02-ka1 16-sort; do
    (cd "$T/limit-single" && "$CQL" -threads 2 -limit 7 $I_ARGS "$Q/$q.cql" >/dev/null 2>&1)
done
(cd "$T/limit-multi" && "$CQL" -threads 2 -limit 7 $I_ARGS "$Q/03-check.cql" "$Q/04-mate.cql" "$Q/02-ka1.cql" \
    "$Q/16-sort.cql" >out 2>err)
for f in "$T/limit-single"/*.pgn; do
    expect_same "-limit 7: $(basename "$f")" "$f" "$T/limit-multi/$(basename "$f")"
done
expect_eq "-limit 7: a note per query" "$(grep -c 'stopped after 7 matching games' "$T/limit-multi/err")" 4

# ---- the options' filters (-cql, -player ...) hold for every query
mkdir "$T/opt-single" "$T/opt-multi"
for q in 03-check 04-mate; do
    (cd "$T/opt-single" && "$CQL" -threads 2 -white 'Stockfish A' -cql btm -i "$ENGINE" "$Q/$q.cql" >/dev/null 2>&1)
done
(cd "$T/opt-multi" && "$CQL" -threads 2 -white 'Stockfish A' -cql btm -i "$ENGINE" "$Q/03-check.cql" \
    "$Q/04-mate.cql" >/dev/null 2>&1)
for f in "$T/opt-single"/*.pgn; do
    expect_same "-white -cql: $(basename "$f")" "$f" "$T/opt-multi/$(basename "$f")"
done
n=$(grep -c '^\[Event ' "$T/opt-multi/04-mate-out.pgn")
[ "$n" -gt 0 ] && [ "$n" -lt 1687 ] && ok || bad "-white -cql: $n games, not a part of mate's 1687"

# ---- -part K/N: the queries' parts are their single runs' parts
mkdir "$T/part-single" "$T/part-multi"
for q in 03-check 08-shift 12-variations; do
    (cd "$T/part-single" && "$CQL" -threads 2 -part 1/3 -i "$ENGINE" "$Q/$q.cql" >/dev/null 2>&1)
done
(cd "$T/part-multi" && "$CQL" -threads 2 -part 1/3 -i "$ENGINE" "$Q/03-check.cql" "$Q/08-shift.cql" \
    "$Q/12-variations.cql" >out 2>&1)
expect_eq "-part 1/3: three outputs" "$(ls "$T/part-multi"/*.pgn | wc -l | tr -d ' ')" 3
for f in "$T/part-single"/*.pgn; do
    expect_same "-part 1/3: $(basename "$f")" "$f" "$T/part-multi/$(basename "$f")"
done
# the parts' JSON summaries added up query by query (cql -summary-merge)
for k in 0 1 2; do
    (cd "$T/part-multi" && "$CQL" -threads 2 -part $k/3 -summary json -i "$ENGINE" "$Q/03-check.cql" \
        "$Q/04-mate.cql" 2>/dev/null | grep '^{' >"part$k.json")
done
"$CQL" -summary-merge "$T/part-multi"/part?.json >"$T/merged.json" 2>&1
expect_eq "-summary-merge: a line per query" "$(grep -c '^{' "$T/merged.json")" 2
expect_grep "-summary-merge: check's total" "$T/merged.json" '^{"matches": 1970, "games": 2000, .*"query": "[^"]*03-check.cql"'
expect_grep "-summary-merge: mate's total" "$T/merged.json" '^{"matches": 1687, "games": 2000, .*"query": "[^"]*04-mate.cql"'
expect_rc "-part refuses a sorting query among others" 2 "$CQL" -part 0/2 -i "$ENGINE" -outdir "$T/part-multi" \
    "$Q/03-check.cql" "$Q/16-sort.cql"
expect_grep "-part refuses a sorting query: names it" "$T/err" "cannot split $Q/16-sort.cql: it sorts the games"

# ---- a query that keeps values from game to game: the pass goes on one thread
mkdir "$T/order-single" "$T/order-multi"
printf 'cql()\nmate\npersistent mates += 1\nmates == 5 or mates == 50\n' >"$Q/../count.cql"
for q in "$Q/../count.cql" "$Q/03-check.cql"; do
    (cd "$T/order-single" && "$CQL" -threads 2 -i "$ENGINE" "$q" >>out 2>/dev/null)
done
(cd "$T/order-multi" && "$CQL" -threads 2 -i "$ENGINE" "$Q/../count.cql" "$Q/03-check.cql" >out 2>/dev/null)
expect_same "in order: count-out.pgn" "$T/order-single/count-out.pgn" "$T/order-multi/count-out.pgn"
expect_same "in order: 03-check-out.pgn" "$T/order-single/03-check-out.pgn" "$T/order-multi/03-check-out.pgn"
expect_grep "in order: its persistent variable after its summary" "$T/order-multi/out" '^mates: '
expect_eq "in order: one thread for all" "$(grep -c 'using 1 thread to' "$T/order-multi/out")" 2

# ---- a failed assert stops only its query
mkdir "$T/assert"
printf 'cql()\ncheck\nassert gamenumber < 10\n' >"$T/assert/stops.cql"
(cd "$T/assert" && "$CQL" -threads 2 -i "$ENGINE" "$Q/03-check.cql" stops.cql "$Q/04-mate.cql" >out 2>err)
expect_eq "assert: exit status 1" "$?" 1
[ ! -e "$T/assert/stops-out.pgn" ] && ok || bad "assert: the stopped query's output was written"
expect_grep "assert: the runtime error" "$T/assert/out" 'assert'
expect_grep "assert: which query stopped" "$T/assert/err" "^cql: error: stops.cql stopped at game 10; its output file was not written\$"
expect_eq "assert: the others' summaries" "$(grep -c ' matches of 2000 games' "$T/assert/out")" 2
for q in 03-check 04-mate; do
    "$CQL" -threads 2 -i "$ENGINE" -o "$T/assert/alone.pgn" "$Q/$q.cql" >/dev/null 2>&1
    expect_same "assert: $q goes on" "$T/assert/alone.pgn" "$T/assert/$q-out.pgn"
done
(cd "$T/assert" && "$CQL" -threads 1 -i "$ENGINE" stops.cql >out1 2>err1)
expect_eq "assert alone: exit status 1" "$?" 1
expect_no_grep "assert alone: no summary" "$T/assert/out1" ' matches of '

# ---- two queries that would write one file: refused before anything is read
mkdir "$T/clash" "$T/clash/sub"
cd "$T/clash"
printf 'cql()\ncheck\n' >a.cql
printf 'cql()\nmate\n' >sub/a.cql
expect_rc "clash: one default name" 2 "$CQL" -i "$ENGINE" a.cql sub/a.cql
expect_grep "clash: one default name, the message" "$T/err" \
    "^cql: error: the queries a.cql and sub/a.cql would both write 'a-out.pgn': give them outputs of their own"
[ ! -e a-out.pgn ] && ok || bad "clash: an output was written"
expect_rc "clash: -o for two queries" 2 "$CQL" -i "$ENGINE" -o x.pgn a.cql "$Q/04-mate.cql"
expect_grep "clash: -o, the message" "$T/err" "^cql: error: -o names one output for all the queries"
printf 'cql(output same.pgn)\ncheck\n' >h1.cql
printf 'cql(output ./same.pgn)\nmate\n' >h2.cql
expect_rc "clash: header outputs, by two names" 2 "$CQL" -i "$ENGINE" h1.cql h2.cql
expect_grep "clash: header outputs, the message" "$T/err" "would both write the same file, './same.pgn'"
expect_rc "clash: -outdir, one name" 2 "$CQL" -i "$ENGINE" -outdir sub a.cql sub/a.cql
expect_rc "clash: -guipgnstdout for two queries" 2 "$CQL" -i "$ENGINE" -guipgnstdout a.cql h1.cql
: >existing.pgn
ln existing.pgn linked.pgn
printf 'cql(output existing.pgn)\ncheck\n' >e1.cql
printf 'cql(output linked.pgn)\nmate\n' >e2.cql
expect_rc "clash: one file by two links" 2 "$CQL" -i "$ENGINE" e1.cql e2.cql
printf 'cql(output a.cql)\nmate\n' >over.cql
expect_rc "a query's output over another query file" 2 "$CQL" -i "$ENGINE" a.cql over.cql
expect_grep "over another query file: the message" "$T/err" "refusing to write the output over the query file 'a.cql'"
expect_eq "over another query file: it stays" "$(cat a.cql)" "$(printf 'cql()\ncheck')"
expect_rc "header outputs of their own" 0 "$CQL" -i "$ENGINE" h1.cql a.cql
[ -s same.pgn ] && [ -s a-out.pgn ] && ok || bad "header outputs of their own: not written"

# ---- what is refused or said about the options
expect_rc "-outdir: not a directory" 2 "$CQL" -i "$ENGINE" -outdir a.cql a.cql
expect_grep "-outdir: not a directory, the message" "$T/err" "^cql: error: -outdir 'a.cql' is not a directory\$"
expect_rc "-outdir and -o" 2 "$CQL" -i "$ENGINE" -outdir sub -o x.pgn a.cql
expect_rc "-queries: no such directory" 2 "$CQL" -i "$ENGINE" -queries nowhere
expect_grep "-queries: no such directory, the message" "$T/err" "^cql: error: cannot open query directory 'nowhere'"
mkdir empty
expect_rc "-queries: no query file" 2 "$CQL" -i "$ENGINE" -queries empty
expect_grep "-queries: no query file, the message" "$T/err" "has no query file (\\*.cql)"
expect_rc "-parse of two queries" 2 "$CQL" -parse a.cql h1.cql
expect_rc "an option after the query files" 2 "$CQL" -i "$ENGINE" a.cql h1.cql -threads 2
expect_grep "an option after the query files, the message" "$T/err" "option '-threads' after the query file"
printf 'cql()\nmate(\n' >bad2.cql
expect_rc "a query with an error: nothing run" 1 "$CQL" -i "$ENGINE" -outdir sub a.cql bad2.cql
expect_grep "a query with an error: its message" "$T/err" "^bad2.cql:"
printf 'cql(input %s)\ncheck\n' "$ENGINE" >in1.cql
printf 'cql(input %s)\nmate\n' "$ENGINE" >in2.cql
printf 'cql(input other.pgn)\nmate\n' >in3.cql
expect_rc "the headers' input, the same in each" 0 "$CQL" -outdir sub in1.cql in2.cql a.cql
expect_eq "the headers' input: read" "$(grep -c ' matches of 2000 games' "$T/out")" 3
expect_rc "the headers' inputs differ" 2 "$CQL" -outdir sub in1.cql in3.cql
expect_grep "the headers' inputs differ: the message" "$T/err" "the queries name different inputs in their headers"
expect_rc "a note about a tag filter of the options" 0 "$CQL" -i "$ENGINE" -outdir sub -player stockfish a.cql h1.cql
expect_eq "a note about a tag filter of the options: once" "$(grep -c 'note: player "stockfish" held in none' "$T/err")" 1
expect_rc "-dryrun of two queries" 0 "$CQL" -dryrun -i "$ENGINE" -outdir sub a.cql h1.cql
expect_grep "-dryrun: each query's output" "$T/err" "^  h1.cql -> sub/same.pgn\$"
expect_rc "-summary json of two queries" 0 "$CQL" -summary json -i "$ENGINE" -outdir sub a.cql h1.cql
expect_eq "-summary json: a line per query, naming it" "$(grep -c '"query": "' "$T/out")" 2
cd - >/dev/null

# ---- bash completion: -queries and -outdir take a directory, and a query
# file may follow another
if command -v bash >/dev/null 2>&1; then
    mkdir "$T/complete" "$T/complete/sub"
    touch "$T/complete/a.pgn" "$T/complete/q.cql" "$T/complete/r.cql"
    expect_eq "completion: -queries, a directory" "$(complete_words -queries '')" "sub "
    expect_eq "completion: -outdir, a directory" "$(complete_words -OUTDIR '')" "sub "
    expect_eq "completion: a second query file" "$(complete_words q.cql '')" "q.cql r.cql sub "
    expect_eq "completion: the options" "$(complete_words cql -outd)" "-outdir "
fi

echo "multiquery: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
