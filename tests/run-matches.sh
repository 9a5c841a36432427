#!/bin/sh
# tests/run-matches.sh — cql -matches and -report (docs/matches.md,
# docs/output.md): the records agree with the PGN output of the same run
# (the same games in the same order, as many records per game as matched
# positions, each FEN read by the project's own FEN reader) in the three
# forms, byte for byte the same on 1 and 2 threads; the report parses,
# holds one board per matched position shown, refers to nothing out of the
# page and shows hostile tag values as text; the outputs' safety (the
# input, the query file or another output refused as a name, one output at
# most on standard output, nothing left when the run fails or is
# interrupted); the jq example of docs/matches.md. The browser check of the
# report is tests/run-browser.sh.
#
# With a folder of PGN files, only the records are checked, on its files
# (check, mate and the examples; docs/testing.md: the shared data).
# Usage: sh tests/run-matches.sh build/MODE [PGN-FOLDER]
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
BUILD=${1:-build/release}
PGN_FOLDER=${2:-}
CQL=$(pwd)/$BUILD/cql
FENCHECK=$(pwd)/$BUILD/tests/tool_fencheck
export LC_ALL=C
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/expect.sh

if ! command -v python3 >/dev/null 2>&1; then
    echo "matches tests: skipped: python3 is not installed (the records and the report are checked with it)"
    exit 0
fi

# ---- the records agree with the PGN output -----------------------------------------
# every test PGN file, as the inputs of one run
find "${PGN_FOLDER:-tests/data/pgn}" -name '*.pgn' | sort >"$T/inputs"
set --
while read -r f; do set -- "$@" -i "$f"; done <"$T/inputs"

# run_forms NAME QUERY-ARGS...: the run on 1 and 2 threads in each form, the
# records checked against the PGN output and compared between the forms
run_forms() {
    name=$1
    shift
    for form in jsonl tsv epd; do
        for threads in 1 2; do
            "$CQL" -threads $threads -matchstring ZZMATCH -o "$T/out-$threads.pgn" \
                -matches "$T/m-$threads.$form" "$@" >"$T/out" 2>"$T/err"
            expect_eq "$name, $form, $threads threads: exit" $? 0
            if python3 tests/check-matches.py $form "$T/m-$threads.$form" "$T/out-$threads.pgn" "$T/fens" \
                "$T/norm-$form" >"$T/check" 2>&1; then ok
            else bad "$name, $form, $threads threads: the records and the PGN output differ:"; cat "$T/check" >&2; fi
            if "$FENCHECK" <"$T/fens" >"$T/fencheck"; then ok
            else bad "$name, $form: a FEN the FEN reader refuses:"; head -5 "$T/fencheck" >&2; fi
            positions=$(wc -l <"$T/fens")
            expect_grep "$name, $form: the summary counts the records" "$T/out" "^$positions positions of "
        done
        expect_same "$name, $form: the same records on 1 and 2 threads" "$T/m-1.$form" "$T/m-2.$form"
    done
    expect_same "$name: JSON Lines and TSV give the same positions" "$T/norm-jsonl" "$T/norm-tsv"
    expect_same "$name: JSON Lines and EPD give the same positions" "$T/norm-jsonl" "$T/norm-epd"
    if [ "$positions" -gt 0 ]; then ok; else bad "$name: nothing matched, so nothing was compared"; fi
    if [ -n "$PGN_FOLDER" ]; then awk -v name="$name" '{print name ", " $0 " (2 threads)"}' "$T/check"; fi
}
run_forms check "$@" -cql check
run_forms mate "$@" -cql mate
if [ -n "$PGN_FOLDER" ]; then
    for q in examples/*.cql; do run_forms "$q" "$@" "$q"; done
    echo "matches tests on $PGN_FOLDER ($(wc -l <"$T/inputs") files): $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
fi
run_forms "check in variations" "$@" -variations -cql check
run_forms "a sorting query" "$@" -cql 'sort "pieces" #A check'
# (examples/promotes-to-rook.cql takes 40 s on these files: the run on a folder checks it)
run_forms knight-fork "$@" examples/knight-fork.cql
run_forms pinned-queen "$@" examples/pinned-queen.cql
# the input cut in small pieces: the same records
CQL_CHUNK_BYTES=300 "$CQL" "$@" -threads 2 -matchstring ZZMATCH -o "$T/small.pgn" -matches "$T/small.jsonl" \
    -cql mate >/dev/null 2>&1
"$CQL" "$@" -threads 1 -matchstring ZZMATCH -o "$T/whole.pgn" -matches "$T/whole.jsonl" -cql mate >/dev/null 2>&1
expect_same "records with the input cut in 300-byte pieces" "$T/small.jsonl" "$T/whole.jsonl"
# -limit: the records of the games written, no more
"$CQL" "$@" -threads 2 -limit 5 -matchstring ZZMATCH -o "$T/out.pgn" -matches "$T/m.jsonl" -cql check >/dev/null 2>&1
python3 tests/check-matches.py jsonl "$T/m.jsonl" "$T/out.pgn" "$T/fens" "$T/norm" >"$T/check" 2>&1
expect_grep "-limit 5: five games of records" "$T/check" "records of 5 games"

# ---- what a record holds ---------------------------------------------------------------
# tags with quotes, a backslash, a tab and bytes that are not UTF-8; variations
printf '[Event "E <script>alert(1)</script>"]\n[Site "S\\\\x"]\n[Date "2001.02.03"]\n[Round "1"]\n' >"$T/odd.pgn"
printf '[White "W \\"Q\\" \351t\351"]\n[Black "B\tT"]\n[Result "1-0"]\n[ECO "C20"]\n[WhiteElo "2700"]\n' >>"$T/odd.pgn"
ODD_QUERY='{check comment("check here")} or positionid == 1 or positionid == 3 or positionid == 8 or positionid == 10'
printf '[BlackElo "?"]\n\n1. e4 e5 (1... c5 2. Nf3 (2. c3 d5) 2... d6) 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n' >>"$T/odd.pgn"
"$CQL" -i "$T/odd.pgn" -variations -o "$T/odd-out.pgn" -matches "$T/odd.jsonl" \
    -cql "$ODD_QUERY" >/dev/null 2>"$T/err"
expect_eq "odd tags: records" "$(wc -l <"$T/odd.jsonl")" 5
python3 - "$T/odd.jsonl" >"$T/fields" 2>&1 <<'EOF'
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    r = json.loads(line)
    print(r["position_id"], r["ply"], r["move_number"], r["to_move"], r["san"], r["in_variation"],
          ascii(r["variation"]), ascii(r["comments"]), r["white_elo"], r["black_elo"], ascii(r["white"]),
          ascii(r["black"]), ascii(r["site"]))
EOF
cat >"$T/want" <<'EOF'
1 1 1 black e4 False '' 'CQL' 2700 None 'W "Q" \ufffdt\ufffd' 'B\tT' 'S\\x'
3 3 2 black Qh5 False '' 'CQL' 2700 None 'W "Q" \ufffdt\ufffd' 'B\tT' 'S\\x'
7 7 4 black Qxf7# False '' 'check here CQL' 2700 None 'W "Q" \ufffdt\ufffd' 'B\tT' 'S\\x'
8 2 1 white c5 True '2:1' 'CQL' 2700 None 'W "Q" \ufffdt\ufffd' 'B\tT' 'S\\x'
10 4 2 white d6 True '2:1' 'CQL' 2700 None 'W "Q" \ufffdt\ufffd' 'B\tT' 'S\\x'
EOF
if cmp -s "$T/fields" "$T/want"; then ok; else bad "odd tags: the fields of the records:"; diff "$T/want" "$T/fields" >&2; fi
"$CQL" -i "$T/odd.pgn" -variations -o "$T/odd-out.pgn" -matches "$T/odd.tsv" -cql "$ODD_QUERY" \
    >/dev/null 2>&1
expect_eq "TSV: a tab in a tag is a blank" "$(sed -n 2p "$T/odd.tsv" | cut -f5)" "B T"
expect_eq "TSV: a header and five records, of 21 fields each" \
    "$(awk -F'\t' '{print NF}' "$T/odd.tsv" | sort -u | tr '\n' ' ')$(wc -l <"$T/odd.tsv")" "21 6"
"$CQL" -i "$T/odd.pgn" -o "$T/odd-out.pgn" -matches "$T/odd.epd" -cql 'mate' >/dev/null 2>&1
expect_grep "EPD: the mate" "$T/odd.epd" \
    '^r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - hmvc 0; fmvn 4; id "game 1 position 7"; c0 "W .Q. .*t.* - B T, E <script>alert(1)</script>, S.x, 2001.02.03, 1-0"; c1 ".*odd.pgn game 1"; c2 "4.Qxf7#"; c3 "CQL";$'
# the start position matched: no move into it
"$CQL" -i "$T/odd.pgn" -o "$T/odd-out.pgn" -matches "$T/start.jsonl" -cql 'btm or ply == 0' >/dev/null 2>&1
expect_grep "the start: no SAN" "$T/start.jsonl" '"position_id": 0, "ply": 0, "move_number": 1, "to_move": "white", "san": null,'
# -matchformat overrides the extension; standard output is JSON Lines
"$CQL" -i "$T/odd.pgn" -o "$T/odd-out.pgn" -matches "$T/odd.txt" -matchformat tsv -cql mate >/dev/null 2>&1
expect_grep "-matchformat tsv" "$T/odd.txt" '^game	input	index	white'
"$CQL" -i "$T/odd.pgn" -o "$T/odd-out.pgn" -matches - -cql mate >"$T/stdout.jsonl" 2>"$T/err"
expect_grep "-matches -: JSON Lines on standard output" "$T/stdout.jsonl" '^{"game": 1,'
expect_grep "-matches -: the summary on standard error" "$T/err" '^1 matches of 1 games'
expect_eq "-matches -: nothing else on standard output" "$(wc -l <"$T/stdout.jsonl")" 1
# what similarposition prints before the run, while no output is open yet
"$CQL" -i "$T/odd.pgn" -o "$T/odd-out.pgn" -matches - -similarposition "$T/odd.pgn" >"$T/stdout.jsonl" 2>"$T/err"
expect_grep "-matches - with -similarposition: its note on standard error" "$T/err" '^Db: read 1 games'
expect_no_grep "-matches - with -similarposition: only records on standard output" "$T/stdout.jsonl" '^[^{]'
"$CQL" -i "$T/odd.pgn" -variations -o "$T/odd-out.pgn" -matches "$T/odd.jsonl" -summary json \
    -cql "$ODD_QUERY" >"$T/out" 2>&1
expect_grep "-summary json counts the positions" "$T/out" '"positions": 5, "matches_file": '

# ---- options that do not go together, and the outputs' safety -----------------------
GAMES=examples/kasparov-deep-blue-1997.pgn
expect_rc "-matches - with -o -" 2 "$CQL" -i $GAMES -o - -matches - -cql check
expect_grep "-matches - with -o -: message" "$T/err" "would both write to standard output"
expect_rc "-report - with -matches -" 2 "$CQL" -i $GAMES -o "$T/x.pgn" -matches - -report - -cql check
expect_rc "-matches names the PGN output" 2 "$CQL" -i $GAMES -o "$T/x.jsonl" -matches "$T/x.jsonl" -cql check
expect_grep "-matches names the PGN output: message" "$T/err" "name the same file"
expect_rc "-matches and -report name one new file by two names" 2 "$CQL" -i $GAMES -o "$T/x.pgn" \
    -matches "$T/r.jsonl" -report "$T/../$(basename "$T")/r.jsonl" -cql check
cp "$T/odd.pgn" "$T/odd-copy.pgn"
expect_rc "-matches names the input" 2 "$CQL" -i "$T/odd.pgn" -matchformat jsonl -matches "$T/odd.pgn" -cql check
expect_grep "-matches names the input: message" "$T/err" "refusing to write the output over the input"
expect_same "-matches names the input: the input kept" "$T/odd.pgn" "$T/odd-copy.pgn"
printf 'cql() check\n' >"$T/q.cql"
expect_rc "-report names the query file" 2 "$CQL" -i $GAMES -o "$T/x.pgn" -report "$T/q.cql" "$T/q.cql"
expect_grep "-report names the query file: message" "$T/err" "over the query file"
expect_rc "an unknown extension" 2 "$CQL" -i $GAMES -o "$T/x.pgn" -matches "$T/m.csv" -cql check
expect_grep "an unknown extension: message" "$T/err" "name a .jsonl, .tsv or .epd file"
expect_rc "-matchformat xml" 2 "$CQL" -i $GAMES -o "$T/x.pgn" -matches "$T/m.csv" -matchformat xml -cql check
expect_rc "-matchformat without -matches" 2 "$CQL" -i $GAMES -o "$T/x.pgn" -matchformat tsv -cql check
expect_rc "-reportlimit without -report" 2 "$CQL" -i $GAMES -o "$T/x.pgn" -reportlimit 3 -cql check
if [ -e "$T/m.csv" ] || ls -a "$T" | grep -q '^\.'"[mrx]"'\.'; then bad "a refused run left a file"; else ok; fi
# a run the query stops writes none of its outputs, and keeps the old ones
printf 'old\n' >"$T/kept.jsonl"
printf 'old\n' >"$T/kept.html"
expect_rc "a run the query stops" 1 "$CQL" -i $GAMES -o "$T/x.pgn" -matches "$T/kept.jsonl" -report "$T/kept.html" \
    -cql 'check assert false'
expect_eq "a run the query stops: the old records stay" "$(cat "$T/kept.jsonl")" old
expect_eq "a run the query stops: the old report stays" "$(cat "$T/kept.html")" old
# interrupted: no temporary file of any of the three outputs is left, the old files stay
mkfifo "$T/in.fifo"
( cat $GAMES; exec sleep 60 ) >"$T/in.fifo" &
writer=$!
"$CQL" -threads 1 -i "$T/in.fifo" -o "$T/kept.pgn" -matches "$T/kept.jsonl" -report "$T/kept.html" \
    -cql check >/dev/null 2>&1 &
cql=$!
tries=0
until [ "$(ls -a "$T" | grep -c '^\.kept\.')" -ge 3 ] || [ $tries -ge 100 ]; do sleep 0.05; tries=$((tries + 1)); done
expect_eq "interrupted: three temporary files while the run goes" "$(ls -a "$T" | grep -c '^\.kept\.')" 3
kill -TERM $cql
wait $cql 2>/dev/null
expect_eq "interrupted: exit status" $? 143
kill $writer 2>/dev/null
wait $writer 2>/dev/null
expect_eq "interrupted: no temporary file left" "$(ls -a "$T" | grep -c '^\.kept\.')" 0
expect_eq "interrupted: the old records stay" "$(cat "$T/kept.jsonl")" old

# ---- the report ---------------------------------------------------------------------------
report() {   # NAME BOARDS [TEXT]: the page checked
    if python3 tests/check-report.py "$T/r.html" "$2" ${3:+"$3"} >"$T/check" 2>&1; then ok
    else bad "$1: the report:"; cat "$T/check" >&2; fi
}
"$CQL" -i "$T/odd.pgn" -variations -o "$T/odd-out.pgn" -matches "$T/odd.jsonl" -report "$T/r.html" \
    -cql "$(echo "$ODD_QUERY" | sed 's/check here/<b>here<\/b>/')" >/dev/null 2>&1
report "odd tags" 5 "E <script>alert(1)</script>"
report "the query's comment shown as text" 5 "<b>here</b> CQL"
expect_grep "odd tags: a board's move marked" "$T/r.html" 'class="marked"'
# every test PGN file, check: one board per record, the first 200 games
"$CQL" -threads 2 -o "$T/out.pgn" -matches "$T/all.jsonl" -report "$T/r.html" "$@" -cql check >"$T/out" 2>&1
boards=$(awk -F'"game": ' '{split($2, a, ","); if (a[1] != last) games++; last = a[1]; if (games <= 200) n++}
                            END {print n}' "$T/all.jsonl")
report "check on every test file" "$boards"
expect_grep "check on every test file: the totals" "$T/r.html" "<th>matching games</th><td>$(grep -o '^[0-9]* matches' "$T/out" | head -1 | cut -d' ' -f1) of"
expect_grep "check on every test file: games shown" "$T/r.html" "<th>games shown</th><td>the first 200 (-reportlimit 200)"
"$CQL" -threads 2 -o "$T/out.pgn" -report "$T/r.html" -reportlimit 0 "$@" -cql check >/dev/null 2>&1
report "-reportlimit 0" 0
"$CQL" -i $GAMES -o "$T/out.pgn" -report "$T/r.html" -cql 'mate and check' >/dev/null 2>&1
report "no match" 0
expect_grep "no match: said" "$T/r.html" "No position matched"

# ---- bash completion of the options (scripts/completion/cql.bash) ------------------------
if command -v bash >/dev/null 2>&1; then
    mkdir "$T/complete" "$T/complete/sub"
    touch "$T/complete/a.jsonl" "$T/complete/b.tsv" "$T/complete/c.epd" "$T/complete/d.pgn" "$T/complete/r.html"
    expect_eq "completion: the options" "$(complete_words cql -match)" "-matchcount -matches -matchformat -matchstring "
    expect_eq "completion: -report's options" "$(complete_words cql -rep)" "-report -reportlimit "
    expect_eq "completion: -matches, the files of its forms" "$(complete_words -matches '')" "a.jsonl b.tsv c.epd sub "
    expect_eq "completion: -matchformat" "$(complete_words -matchformat '')" "epd jsonl tsv "
    expect_eq "completion: -report, pages" "$(complete_words -report '')" "r.html sub "
    expect_eq "completion: -reportlimit, the user's number" "$(complete_words -reportlimit '')" ""
fi

# ---- the jq example of docs/matches.md -------------------------------------------------
if command -v jq >/dev/null 2>&1 || { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q jq >/dev/null 2>&1; }; then
    # the indented block after each marker
    block() { awk -v m="<!-- test: $1 -->" '$0 == m {on = 1; next} on && /^    / {print substr($0, 5); seen = 1; next}
                                            on && seen {exit}' docs/matches.md; }
    block "jq commands" >"$T/example.sh"
    block "jq output" >"$T/example.want"
    expect_eq "docs/matches.md: the jq example has a cql line and two jq lines" \
        "$(cut -c1-3 "$T/example.sh" | tr '\n' ' ')" "cql jq  jq  "
    mkdir "$T/jq" && ln -s "$(pwd)/examples" "$T/jq/examples"
    # cql's summary lines go to the test's own file: the document shows what jq prints
    (cd "$T/jq" && PATH=$(dirname "$CQL"):$PATH && sed -n 1p ../example.sh | sh -e >cql.out 2>&1 &&
        sed 1d ../example.sh | sh -e >jq.out 2>jq.err)
    expect_eq "the jq example: exit" $? 0
    expect_same "the jq example prints what docs/matches.md shows" "$T/jq/jq.out" "$T/example.want"
else
    echo "matches tests: the jq example skipped: jq is not installed and cannot be installed here"
fi

echo "matches tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
