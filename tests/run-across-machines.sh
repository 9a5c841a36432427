#!/bin/sh
# tests/run-across-machines.sh — the recipes of docs/across-machines.md on
# this machine: -part 0/3 to 2/3 run by GNU parallel through --sshloginfile
# (":" is this machine; parallel is installed with apt-get when missing, and
# that part is skipped, saying so, when it cannot be), the Slurm array
# script examples/cql-parts.sbatch with the variables Slurm sets (arrays from
# 0 and from 1), one job per file; the parts' outputs put together are one
# run's output, and `cql -summary-merge` (and the jq line, where jq is) adds
# their summaries up to one run's counts; -summary-merge's errors.
# Usage: sh tests/run-across-machines.sh build/MODE
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
BUILD=${1:-build/release}
CQL=$(pwd)/$BUILD/cql
REPO=$(pwd)
export LC_ALL=C
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/expect.sh

DATA=tests/data/pgn
BIG=$REPO/$DATA/generated/engine-games-2000.pgn
printf 'cql()\ncheck\n' >"$T/q.cql"
# field NAME FILE: the value of "NAME" in the JSON line of FILE
field() { sed -n "s/^{.*\"$1\": *\\([^,}]*\\).*/\\1/p" "$2"; }
# the counts of a summary line, for comparing a merge with one run
counts() { echo "$(field matches "$1") $(field games "$1") $(field pgn_errors "$1")"; }

"$CQL" -i "$BIG" -summary json -o "$T/whole.pgn" "$T/q.cql" >"$T/whole.summary" 2>&1
expect_grep "one run: its summary" "$T/whole.summary" '^{"matches": [0-9]*, "games": 2000,'

# ---- -part with GNU parallel, through --sshloginfile (":" = this machine)
have_parallel() { command -v parallel >/dev/null 2>&1 && parallel --version 2>/dev/null | grep -q 'GNU parallel'; }
if ! have_parallel && command -v apt-get >/dev/null 2>&1; then
    echo "note: installing GNU parallel (apt-get install parallel)" >&2
    apt-get install -y -qq parallel >"$T/apt.log" 2>&1 ||
        { apt-get update -qq >>"$T/apt.log" 2>&1 && apt-get install -y -qq parallel >>"$T/apt.log" 2>&1; }
fi
if have_parallel; then
    echo ":" >"$T/hosts.txt"
    (cd "$T" && seq 0 2 | parallel --will-cite --sshloginfile hosts.txt \
        "'$CQL' -threads 2 -i '$BIG' -part {}/3 -summary json -o part-{}.pgn q.cql > part-{}.summary 2>&1")
    expect_eq "parallel: every part ran" "$(ls "$T"/part-*.summary | wc -l | tr -d ' ')" 3
    cat "$T/part-0.pgn" "$T/part-1.pgn" "$T/part-2.pgn" >"$T/parts.pgn"
    expect_same "parallel: the parts put together = one run" "$T/parts.pgn" "$T/whole.pgn"
    "$CQL" -summary-merge "$T"/part-*.summary >"$T/merged.json" 2>"$T/err"
    expect_eq "parallel: -summary-merge = one run's counts" "$(counts "$T/merged.json")" "$(counts "$T/whole.summary")"
    expect_eq "parallel: -summary-merge: 3 summaries" "$(field summaries "$T/merged.json")" 3
    expect_eq "parallel: -summary-merge: threads added up" "$(field threads "$T/merged.json")" 6
    expect_grep "parallel: -summary-merge: the outputs" "$T/merged.json" \
        '"output": \["part-0.pgn", "part-1.pgn", "part-2.pgn"\]'
    if command -v jq >/dev/null 2>&1; then   # the jq line of the documentation
        line=$(sed -n 's/^    \(grep -h .* | jq .*\)$/\1/p' docs/across-machines.md)
        expect_eq "the jq line is in the documentation" "$(echo "$line" | grep -c jq)" 1
        (cd "$T" && eval "$line") >"$T/jq.json"
        expect_eq "jq: one run's counts" "$(counts "$T/jq.json")" "$(counts "$T/whole.summary")"
    else
        echo "note: jq not installed; the jq line of docs/across-machines.md is not run" >&2
    fi
else
    echo "note: GNU parallel not installed and apt-get could not install it: the parallel recipe is skipped" >&2
fi

# ---- the Slurm array script, as Slurm runs it (arrays from 0 and from 1)
for first in 0 1; do
    mkdir "$T/slurm$first"
    id=$first
    while [ $id -lt $((first + 4)) ]; do
        (cd "$T/slurm$first" && SLURM_ARRAY_TASK_ID=$id SLURM_ARRAY_TASK_MIN=$first SLURM_ARRAY_TASK_COUNT=4 \
            SLURM_CPUS_PER_TASK=2 INPUT=$BIG QUERY=../q.cql CQL=$CQL sh "$REPO/examples/cql-parts.sbatch" \
            >"part-$id.summary" 2>&1)
        id=$((id + 1))
    done
    cat "$T/slurm$first/part-0.pgn" "$T/slurm$first/part-1.pgn" "$T/slurm$first/part-2.pgn" \
        "$T/slurm$first/part-3.pgn" >"$T/slurm$first.pgn" 2>/dev/null
    expect_same "Slurm array from $first: the parts put together = one run" "$T/slurm$first.pgn" "$T/whole.pgn"
    "$CQL" -summary-merge "$T/slurm$first"/part-*.summary >"$T/slurm$first.json" 2>"$T/err"
    expect_eq "Slurm array from $first: -summary-merge = one run's counts" "$(counts "$T/slurm$first.json")" \
        "$(counts "$T/whole.summary")"
done

# ---- one job per file, merged; a merge merged again
for f in python-chess/kasparov-deep-blue-1997.pgn pgn-extract/eco.pgn sunfish/pgns.pgn; do
    "$CQL" -i "$DATA/$f" -summary json -o "$T/file.pgn" "$T/q.cql" >"$T/$(basename "$f").summary" 2>&1
done
"$CQL" -i "$DATA/python-chess/kasparov-deep-blue-1997.pgn" -i "$DATA/pgn-extract/eco.pgn" -i "$DATA/sunfish/pgns.pgn" \
    -summary json -o "$T/files.pgn" "$T/q.cql" >"$T/files.summary" 2>&1
"$CQL" -summary-merge "$T"/*.pgn.summary >"$T/files.json" 2>"$T/err"
expect_eq "files: -summary-merge = one run over the files" "$(counts "$T/files.json")" "$(counts "$T/files.summary")"
expect_grep "files: the one output named" "$T/files.json" '"output": "'"$T"'/file.pgn"'
"$CQL" -summary-merge "$T/files.json" - <"$T/files.json" >"$T/twice.json" 2>"$T/err"
expect_eq "a merge merged again (and standard input)" "$(field summaries "$T/twice.json") $(field games "$T/twice.json")" \
    "6 $(($(field games "$T/files.summary") * 2))"

# ---- -summary-merge: bad input, named
printf '{"matches": 1, "games": 2, "pgn_errors": 0, "seconds": 0.1, "threads": 1, "output": "a", "limit_reached": false, "part": %d, "parts": 3}\n' 0 >"$T/k0"
printf '{"matches": 1, "games": 2, "pgn_errors": 0, "seconds": 0.1, "threads": 1, "output": "a", "limit_reached": true, "part": %d, "parts": 3}\n' 2 >"$T/k2"
expect_rc "a part missing" 2 "$CQL" -summary-merge "$T/k0" "$T/k2"
expect_grep "a part missing: named" "$T/err" '^cql: error: no summary of part 1/3 (a job that did not finish?)$'
expect_eq "a part missing: nothing printed" "$(wc -c <"$T/out" | tr -d ' ')" 0
sed 's/"part": 2/"part": 1/' "$T/k2" >"$T/k1"
expect_rc "every part" 0 "$CQL" -summary-merge "$T/k0" "$T/k1" "$T/k2"
expect_grep "every part: limit_reached when any" "$T/out" '"limit_reached": true'
expect_rc "a part twice" 2 "$CQL" -summary-merge "$T/k0" "$T/k1" "$T/k2" "$T/k1"
expect_grep "a part twice: named" "$T/err" "^cql: error: 2 summaries of part 1/3 (the first at $T/k1:1) but 1 of part 0/3"
expect_rc "two files cut the same way" 0 "$CQL" -summary-merge "$T/k0" "$T/k1" "$T/k2" "$T/k0" "$T/k2" "$T/k1"
printf 'some text\n{"matches": 3, "games": x}\n' >"$T/bad"
expect_rc "not a count" 2 "$CQL" -summary-merge "$T/bad"
expect_grep "not a count: FILE:LINE:COL" "$T/err" "^$T/bad:2:25: error: expected a count (a whole number of at least 0)\$"
expect_grep "not a count: the line" "$T/err" '^{"matches": 3, "games": x}$'
expect_grep "not a count: the caret" "$T/err" '^                        \^$'
printf '{"matches": 3, "games": 4, "pgn_errors": 0, "threads": 1}\n' >"$T/short"
expect_rc "a key missing" 2 "$CQL" -summary-merge "$T/short"
expect_grep "a key missing: named" "$T/err" "^$T/short:1:57: error: the summary has no \"seconds\""
printf '{"matches": 3, "matches": 3}\n' >"$T/twicekey"
expect_rc "a key twice" 2 "$CQL" -summary-merge "$T/twicekey"
expect_grep "a key twice: named" "$T/err" "^$T/twicekey:1:16: error: a key given twice"
printf '{"matches": 1, "games": 2, "pgn_errors": 0, "seconds": 0.1, "threads": 1} x\n' >"$T/after"
expect_rc "text after the summary" 2 "$CQL" -summary-merge "$T/after"
expect_grep "text after the summary: named" "$T/err" "^$T/after:1:75: error: text after the summary's '}'"
printf '{"matches": 1, "games": 2, "pgn_errors": 0, "seconds": 0.1, "threads": 1, "new": [1, "x", null]}\n' >"$T/newer"
expect_rc "a key of a later cql is passed over" 0 "$CQL" -summary-merge "$T/newer"
printf 'no summary here\n' >"$T/none"
expect_rc "a file without a summary" 2 "$CQL" -summary-merge "$T/k0" "$T/none"
expect_grep "a file without a summary: named" "$T/err" "^cql: error: '$T/none' has no -summary json line"
expect_rc "a file that is not there" 2 "$CQL" -summary-merge "$T/nothere"
expect_grep "a file that is not there: named" "$T/err" "^cql: error: cannot open summary file '$T/nothere'"
expect_rc "no file" 2 "$CQL" -summary-merge
expect_rc "with another option" 2 "$CQL" -threads 2 -summary-merge "$T/k0"
expect_grep "with another option: said" "$T/err" "takes files and nothing else"

# many queries (a run of many query files, cut in parts): each query's
# summaries add up alone, in the order first read, one line without a query
# beside them; three rounds over 100 names, in an order of their own each
awk 'BEGIN { for (r = 0; r < 3; r++) for (i = 0; i < 100; i++) {
        q = (i * (7 + 2 * r)) % 100
        printf "{\"matches\": %d, \"games\": 10, \"pgn_errors\": 0, \"seconds\": 0.1, \"threads\": 1, \"query\": \"q%d.cql\"}\n", q, q
        if (r == 1 && i == 50) print "{\"matches\": 5, \"games\": 10, \"pgn_errors\": 0, \"seconds\": 0.1, \"threads\": 1}"
    } }' >"$T/many"
expect_rc "many queries" 0 "$CQL" -summary-merge "$T/many"
expect_eq "many queries: one line each, and one without" "$(wc -l <"$T/out" | tr -d ' ')" 101
expect_eq "many queries: in the order first read" \
    "$(sed -n 's/.*"query": "q\([0-9]*\)\.cql".*/\1/p' "$T/out" | head -4 | tr '\n' ' ')" "0 7 14 21 "
expect_eq "many queries: each added up alone" \
    "$(grep -c '"games": 30, .*"summaries": 3}' "$T/out")" 100
expect_grep "many queries: q42's matches" "$T/out" '^{"matches": 126, "games": 30, .*"query": "q42.cql"'
expect_grep "many queries: the line without a query" "$T/out" '^{"matches": 5, "games": 10, [^q]*"summaries": 1}$'

echo "across-machines tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
