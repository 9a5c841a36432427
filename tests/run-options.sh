#!/bin/sh
# tests/run-options.sh — the command line as CQL 6.2 users have it (issue 15):
# CQL 6.2's options with their meaning, the summary line, several inputs,
# directories and compressed files, bad option values, -limit, -noclobber,
# -dryrun, -part with GNU parallel (or xargs when it is not installed).
# Usage: sh tests/run-options.sh build/MODE
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
BUILD=${1:-build/release}
CQL=$(pwd)/$BUILD/cql
export LC_ALL=C
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/expect.sh
# the number of games in a cql output file
games_in() { grep -c '^\[Event ' "$1"; }
# N of "N matches of M games ..." in FILE
matches_in() { sed -n 's/^\([0-9]*\) matches of .*/\1/p' "$1"; }

DATA=tests/data/pgn
KASPAROV=$DATA/python-chess/kasparov-deep-blue-1997.pgn
MOLINARI=$DATA/python-chess/molinari-bordais-1979.pgn
FOLD=$DATA/sunfish/3fold.pgn
SUMMARY='^[0-9][0-9]* matches of [0-9][0-9]* games in [0-9.][0-9.]* seconds using [0-9][0-9]* threads\{0,1\} to '

# ---- the summary line, exactly as CQL 6.2 writes it: "1 matches of 1 games"
expect_rc "summary" 0 "$CQL" -i "$MOLINARI" -o "$T/m.pgn" -cql true
expect_grep "summary: always plural" "$T/out" "^1 matches of 1 games in [0-9.]* seconds using [0-9]* threads\{0,1\} to $T/m.pgn\$"
expect_eq "summary: the only line on stdout" "$(wc -l <"$T/out" | tr -d ' ')" 1
expect_eq "summary: stderr empty" "$(wc -c <"$T/err" | tr -d ' ')" 0
# with -o -, stdout carries only PGN: the summary and -showmatches go to stderr
"$CQL" -showmatches -i "$KASPAROV" -o - -cql true >"$T/stdout.pgn" 2>"$T/err"
expect_no_grep "-o -: no summary on stdout" "$T/stdout.pgn" ' matches of '
expect_no_grep "-o -: no <N> on stdout" "$T/stdout.pgn" '^<[0-9]*>$'
expect_grep "-o -: <N> on stderr" "$T/err" '^<6>$'
expect_grep "-o -: the summary on stderr" "$T/err" "$SUMMARY<stdout>\$"

# ---- the tag filters, against counts made from the tags by awk
# (case-sensitive substrings of the tag, as CQL 6.2)
TAGS="$DATA/pychess/mate_in_3.pgn $DATA/lichess-openings/chess-openings.pgn $KASPAROV"
# tag_count FIELD SUBSTRING [YEAR-MIN YEAR-MAX]: games whose tag holds the substring
tag_count() {
    cat $TAGS | tr -d '\r' | awk -v field="$1" -v s="$2" -v lo="${3:-}" -v hi="${4:-}" '
        function done() { if (n && hit) count++; hit = 0 }
        /^\[Event / { done(); n = 1 }
        /^\[[A-Za-z]+ "/ {
            tag = substr($1, 2); v = $0; sub(/^[^"]*"/, "", v); sub(/"\][ \t]*$/, "", v)
            if (field == "Year" && tag == "Date" && v ~ /^[0-9][0-9][0-9][0-9]/) {
                y = substr(v, 1, 4) + 0; if (y >= lo && y <= hi) hit = 1
            } else if ((field == tag || (field == "Player" && (tag == "White" || tag == "Black"))) && index(v, s)) hit = 1
        }
        END { done(); print count + 0 }'
}
tag_query="-cql true"   # what tag_run adds to the options (nothing: the options alone)
tag_run() {   # tag_run NAME EXPECTED OPTIONS...
    name=$1 want=$2
    shift 2
    i_args=""
    for f in $TAGS; do i_args="$i_args -i $f"; done
    "$CQL" $i_args -o "$T/tag.pgn" "$@" $tag_query >"$T/out" 2>"$T/err"
    expect_eq "$name (matching games)" "$(matches_in "$T/out")" "$want"
    expect_eq "$name (games written)" "$(games_in "$T/tag.pgn")" "$want"
}
for s in Blackburne Morphy Anderssen Kasparov; do
    tag_run "-player $s" "$(tag_count Player "$s")" -player "$s"
    tag_run "-white $s" "$(tag_count White "$s")" -white "$s"
    tag_run "-black $s" "$(tag_count Black "$s")" -black "$s"
done
expect_eq "tag test data has games of each colour" "$(tag_count White Blackburne)$(tag_count Black Blackburne)" \
    "$(tag_count White Blackburne)$(tag_count Black Blackburne)"
[ "$(tag_count Player Blackburne)" -gt 0 ] && ok || bad "no Blackburne game in the tag test data"
tag_run "-player kasparov (case)" "$(tag_count Player kasparov)" -player kasparov
# a tag filter that held in no game is said, once, with a name in another case
expect_eq "-player kasparov (case): one note" "$(grep -c 'note: player' "$T/err")" 1
expect_grep "-player kasparov (case): the note" "$T/err" \
    '^cql: note: player "kasparov" held in none of the [0-9]* games examined: no White or Black tag holds "kasparov" (the case differs: game [0-9]*'"'"'s is ".*Kasparov.*")$'
for threads in 1 3; do
    "$CQL" -threads $threads -i "$KASPAROV" -o "$T/x.pgn" -white kasparov -cql true >/dev/null 2>"$T/err$threads"
done
expect_grep "-white kasparov: the note" "$T/err1" \
    '^cql: note: player white "kasparov" held in none of the 6 games examined: no White tag holds "kasparov" (the case differs: game 1'"'"'s is "Garry Kasparov")$'
expect_same "-white kasparov: the same note on 3 threads" "$T/err1" "$T/err3"
"$CQL" -i "$KASPAROV" -o - -player Kasparv -cql 'event "ibm" or site "Nowhere"' >/dev/null 2>"$T/err"
expect_grep "a misspelt name: the note" "$T/err" '^cql: note: player "Kasparv" held in none of the 6 games examined: no White or Black tag holds "Kasparv"$'
expect_grep "a tag filter of the query: the note" "$T/err" '^cql: note: event "ibm" held in none of the 6 games examined: no Event tag holds "ibm" (the case differs'
expect_grep "a second tag filter of the query: the note" "$T/err" '^cql: note: site "Nowhere" held in none'
expect_eq "a tag filter that holds: no note" "$(grep -c note "$T/err")" 3
"$CQL" -i "$KASPAROV" -o - -limit 1 -cql 'player "zzz" or true' >/dev/null 2>"$T/err"
expect_no_grep "-limit: not every game read, no note" "$T/err" 'held in none'
tag_run "-event openings 99" "$(tag_count Event 'openings 99')" -event "openings 99"
tag_run "-event IBM" "$(tag_count Event IBM)" -event IBM
tag_run "-site London" "$(tag_count Site London)" -site London
tag_run "-site New York" "$(tag_count Site 'New York')" -site "New York"
tag_run "-year 1997" "$(tag_count Year '' 1997 1997)" -year 1997
tag_run "-year 1850 1859" "$(tag_count Year '' 1850 1859)" -year 1850 1859
[ "$(tag_count Year '' 1850 1859)" -gt 1 ] && ok || bad "no game of the 1850s in the tag test data"
# the tag options together: each must hold
ALL_TAGS=$TAGS
TAGS=$KASPAROV   # the games of one year
tag_run "-white Kasparov -year 1997" "$(tag_count White Kasparov)" -white Kasparov -year 1997
tag_run "-white Kasparov -year 1990 1996" 0 -white Kasparov -year 1990 1996
TAGS=$ALL_TAGS

# ---- -fen BOARD restricts the input games' positions to that board
AFTER_E4='rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR'
expect_rc "-fen" 0 "$CQL" -i "$FOLD" -o "$T/fen.pgn" -fen "$AFTER_E4" -cql true
expect_rc "-cql fen" 0 "$CQL" -i "$FOLD" -o "$T/fen-cql.pgn" -cql "fen \"$AFTER_E4\""
expect_same "-fen is the filter fen" "$T/fen.pgn" "$T/fen-cql.pgn"
e4_games=$(tr -d '\r' <"$FOLD" | grep -c '^1\. *e4 ')
expect_eq "-fen: the games that begin 1. e4" "$(games_in "$T/fen.pgn")" "$e4_games"
[ "$e4_games" -gt 0 ] && ok || bad "no 1. e4 game in $FOLD"
expect_rc "-fen with a whole FEN" 0 "$CQL" -i "$FOLD" -o "$T/fen2.pgn" -fen "$AFTER_E4 b KQkq e3 0 1" -cql true
expect_same "-fen: a whole FEN is its board" "$T/fen.pgn" "$T/fen2.pgn"
expect_rc "-fen bad board" 2 "$CQL" -i "$FOLD" -o "$T/x.pgn" -fen 'rnbqkbnr/ppp' -cql true
expect_grep "-fen bad board message" "$T/err" "option '-fen' needs a FEN board"
# the one-position search of earlier versions of cql is -searchposition
expect_rc "-searchposition" 0 "$CQL" -searchposition '7k/6Q1/6K1/8/8/8/8/8 b - - 0 1' -o - -cql mate
expect_grep "-searchposition finds the mate" "$T/err" '^1 matches of 1 games'
expect_rc "-searchposition not mate" 0 "$CQL" -searchposition '7k/8/6K1/8/8/8/8/6Q1 b - - 0 1' -o - -cql mate
expect_grep "-searchposition no mate" "$T/err" '^0 matches of 1 games'

# ---- options with no query file and no -cql (CQL 6.2): the options' filters
# alone are the query, every position when there are none
tag_query=""
for s in Kasparov Morphy; do
    tag_run "no query: -player $s" "$(tag_count Player "$s")" -player "$s"
    tag_run "no query: -white $s" "$(tag_count White "$s")" -white "$s"
    tag_run "no query: -black $s" "$(tag_count Black "$s")" -black "$s"
done
tag_run "no query: -event IBM" "$(tag_count Event IBM)" -event IBM
tag_run "no query: -site London" "$(tag_count Site London)" -site London
tag_run "no query: -year 1850 1859" "$(tag_count Year '' 1850 1859)" -year 1850 1859
tag_run "no query: -result 1-0" "$(tag_count Result 1-0)" -result 1-0
tag_run "no query: -result 1/2-1/2" "$(tag_count Result 1/2-1/2)" -result 1/2-1/2
[ "$(tag_count Result 1-0)" -gt 0 ] && [ "$(tag_count Result 1-0)" -lt "$(tag_count Event '')" ] && ok ||
    bad "the tag test data has no game or only games won by White"
TAGS=$KASPAROV
tag_run "no query: -white Kasparov -year 1997" "$(tag_count White Kasparov)" -white Kasparov -year 1997
TAGS=$ALL_TAGS
tag_run "no query: no option filter at all" "$(tag_count Event '')" -noheader
tag_query="-cql true"
expect_rc "no query: -fen" 0 "$CQL" -i "$FOLD" -o "$T/fen-alone.pgn" -fen "$AFTER_E4"
expect_same "no query: -fen alone is -fen -cql true" "$T/fen-alone.pgn" "$T/fen.pgn"
expect_rc "no query: -btm" 0 "$CQL" -i "$KASPAROV" -o - -btm
expect_grep "no query: -btm in every game" "$T/err" '^6 matches of 6 games'
expect_rc "no query: -wtm -fen" 0 "$CQL" -i "$FOLD" -o - -wtm -fen "$AFTER_E4"
expect_grep "no query: -wtm -fen (Black to move there)" "$T/err" '^0 matches of '
# the output without -o: cqldefault-out.pgn in the current directory, as CQL 6.2 names it
mkdir "$T/default"
KASPAROV_PATH=$(pwd)/$KASPAROV
expect_rc "no query: default output" 0 sh -c 'cd "$1" && "$2" -i "$3" -player Kasparov' sh "$T/default" "$CQL" "$KASPAROV_PATH"
expect_grep "no query: the summary names cqldefault-out.pgn" "$T/out" "$SUMMARY"'cqldefault-out.pgn$'
expect_eq "no query: cqldefault-out.pgn holds the games" "$(games_in "$T/default/cqldefault-out.pgn")" 6
# ... never written over the input
cp "$KASPAROV" "$T/default/cqldefault-out.pgn"
expect_rc "no query: the input is not the output" 2 sh -c 'cd "$1" && "$2" -i cqldefault-out.pgn -player Kasparov' \
    sh "$T/default" "$CQL"
expect_grep "no query: the input is not the output (message)" "$T/err" "refusing to write the output over the input"
expect_same "no query: the input untouched" "$T/default/cqldefault-out.pgn" "$KASPAROV"
# a bare cql says how to use it
expect_rc "bare cql" 2 "$CQL"
expect_grep "bare cql: usage on stderr" "$T/err" '^usage: cql \[options\] \[query.cql\]'
expect_eq "bare cql: nothing on stdout" "$(wc -c <"$T/out" | tr -d ' ')" 0

# ---- an option's value is bound to its filter, never made query text
# (issue 30): quotes and backslashes are the tag's own characters
printf '[Event "Cup \\"A\\" 1950"]\n[Site "C:\\\\chess"]\n[White "O\\"Kelly, A"]\n[Black "Back\\\\slash"]\n[Result "*"]\n\n1. e4 e5 *\n\n' >"$T/quotes.pgn"
printf '[Event "other"]\n[Site "?"]\n[White "Smith"]\n[Black "Jones"]\n[Result "*"]\n\n1. d4 d5 *\n' >>"$T/quotes.pgn"
quoted_value() {   # quoted_value NAME EXPECTED-MATCHES OPTIONS...
    qv_name=$1 qv_matches=$2
    shift 2
    expect_rc "$qv_name" 0 "$CQL" -i "$T/quotes.pgn" -o "$T/quoted.pgn" "$@"
    expect_grep "$qv_name: matches" "$T/out" "^$qv_matches matches of 2 games"
}
quoted_value "-player with a quote" 1 -player 'O"Kelly'
quoted_value "-white with a quote" 1 -white 'O"Kelly, A'
quoted_value "-black with a quote: White's" 0 -black 'O"Kelly'
quoted_value "-black with a backslash" 1 -black 'Back\slash'
quoted_value "-event with quotes" 1 -event 'Cup "A"'
quoted_value "-site with a backslash" 1 -site 'C:\chess'
quoted_value "-player: a backslash alone" 1 -player '\'
quoted_value "-player: a backslash and a quote, as a CQL string writes one" 0 -player '\"'
quoted_value "-player: a value that looks like a query" 0 -player '" or true or "'
quoted_value "-assign: a string value with a quote" 1 -assign Who 'O"Kelly' -cql 'player white ~~ Who'
expect_rc "-player with a quote is the filter player" 0 "$CQL" -i "$T/quotes.pgn" -o "$T/quoted-cql.pgn" -cql 'player "O\"Kelly"'
expect_rc "-player with a quote (again)" 0 "$CQL" -i "$T/quotes.pgn" -o "$T/quoted.pgn" -player 'O"Kelly'
expect_same "-player with a quote is the filter player: the same games" "$T/quoted.pgn" "$T/quoted-cql.pgn"
expect_rc "-a writes a value as a CQL string" 0 "$CQL" -a -player 'O"Kelly\' -cql check
expect_eq "-a writes a value as a CQL string: the text" "$(cat "$T/out")" "$(printf 'check\nplayer "O\\"Kelly\\\\"')"
# an error in an option's filter names the option, not a place in a text
expect_rc "-hhdb: an unknown key" 1 "$CQL" -i "$MOLINARI" -o - -hhdb nokey
expect_grep "-hhdb: an unknown key names the option" "$T/err" '^option -hhdb: error: Expecting a valid hhdb keyword'
expect_grep "-hhdb: an unknown key: the filter and a caret" "$T/err" '^     ^~~~~$'
expect_rc "-assign: a keyword as the name" 1 "$CQL" -i "$MOLINARI" -o - -assign check 3
expect_grep "-assign: a keyword as the name names the option" "$T/err" "^option -assign: error: expected a filter, found '='$"
expect_rc "-cql: its own lines and columns" 1 "$CQL" -i "$MOLINARI" -o - -cql check -cql 'check (' -player x
expect_grep "-cql: its own lines and columns: the second -cql" "$T/err" '^-cql:1:8: error: expected a filter, found the end of -cql$'

# ---- -similarposition [nosort] [notransform] FILE: the filter similarposition
# (shared/spec/cql62-fidelity-2.md R24; the queries are in tests/cql/similarposition.test)
SIMILAR=tests/data/similar
expect_rc "-similarposition" 0 "$CQL" -i "$KASPAROV" -o "$T/sim.pgn" -similarposition "$SIMILAR/e4-c6-d4.pgn"
expect_grep "-similarposition: CQL 6.2's line on stdout" "$T/out" "^Db: read 1 games from submission file: $SIMILAR/e4-c6-d4.pgn\$"
expect_grep "-similarposition: every game starts as FILE's (CQL 6.2: 6 of 6)" "$T/out" '^6 matches of 6 games'
if tr '\n' ' ' <"$T/sim.pgn" | grep -q "{Game number 1 see $SIMILAR/e4-c6-d4.pgn game: 1 at move: 1 wtm CQL submission game: 1} 1\\. Nf3"
then ok; else bad "-similarposition: game 1's first comment"; cat "$T/sim.pgn" >&2; fi
expect_rc "the filter similarposition" 0 "$CQL" -i "$KASPAROV" -o "$T/sim-filter.pgn" -cql "similarposition \"$SIMILAR/e4-c6-d4.pgn\""
expect_same "-similarposition is the filter" "$T/sim.pgn" "$T/sim-filter.pgn"
expect_rc "-similarposition: a mirrored position" 0 "$CQL" -i "$KASPAROV" -o "$T/sim2.pgn" \
    -similarposition "$SIMILAR/deep-blue-game1-mirrored.pgn"
expect_grep "-similarposition: a mirrored position (CQL 6.2: game 1)" "$T/out" '^1 matches of 6 games'
expect_grep "-similarposition: a mirrored position is game 1" "$T/sim2.pgn" '^{Game number 1 submission game: 1}'
if tr '\n' ' ' <"$T/sim2.pgn" | grep -q "10\\. e3 h6 {see $SIMILAR/deep-blue-game1-mirrored.pgn game: 1 at move: 1 wtm reflect_v CQL}"; then ok
else bad "-similarposition: the mirrored position's comment"; cat "$T/sim2.pgn" >&2; fi
expect_rc "-similarposition notransform" 0 "$CQL" -i "$KASPAROV" -o "$T/sim3.pgn" \
    -similarposition notransform "$SIMILAR/deep-blue-game1-mirrored.pgn"
expect_grep "-similarposition notransform: no game (CQL 6.2)" "$T/out" '^0 matches of 6 games'
expect_rc "-similarposition nosort" 0 "$CQL" -i "$KASPAROV" -o "$T/sim4.pgn" -similarposition nosort "$SIMILAR/e4-c6-d4.pgn"
expect_no_grep "-similarposition nosort: no sort value" "$T/sim4.pgn" 'submission game'
expect_rc "-similarposition notransform nosort" 0 "$CQL" -i "$KASPAROV" -o "$T/sim5.pgn" \
    -similarposition notransform nosort "$SIMILAR/e4-c6-d4.pgn"
expect_same "-similarposition notransform nosort: the same games" "$T/sim5.pgn" "$T/sim4.pgn"
expect_rc "-similarposition with a query" 0 "$CQL" -i "$KASPAROV" -o - -similarposition "$SIMILAR/e4-c6-d4.pgn" -cql 'ply == 4'
expect_grep "-similarposition with a query: ply 4 is no position of FILE" "$T/err" '^0 matches of 6 games'
expect_grep "-similarposition -o -: CQL 6.2's line on stderr" "$T/err" '^Db: read 1 games'
expect_rc "-similarposition: a word but no file" 2 "$CQL" -i "$KASPAROV" -o - -similarposition nosort
expect_grep "-similarposition: a word but no file (message)" "$T/err" "option '-similarposition' needs a PGN file after 'nosort'"
# FILE cannot be read: exit 2, the file named, nothing written
similar_fails() {   # similar_fails NAME FILE MESSAGE
    rm -f "$T/simx.pgn"
    expect_rc "-similarposition: $1" 2 "$CQL" -i "$KASPAROV" -o "$T/simx.pgn" -similarposition "$2"
    expect_grep "-similarposition: $1 (message)" "$T/err" "$3"
    [ -e "$T/simx.pgn" ] && bad "-similarposition: $1: an output was written" || ok
}
similar_fails "a missing file" "$T/none.pgn" "^cql: error: similarposition: cannot open the file '$T/none.pgn': "
: >"$T/empty.pgn"
similar_fails "an empty file" "$T/empty.pgn" "^cql: error: similarposition: the file '$T/empty.pgn' has no game"
echo 'not a game, only words' >"$T/words.pgn"
similar_fails "a file that is not PGN" "$T/words.pgn" "^cql: error: similarposition: the file '$T/words.pgn' has no game"
printf '[Event "a"]\n\n1. e4 \000\001 *\n' >"$T/binary.pgn"
similar_fails "a binary file" "$T/binary.pgn" "cannot read the file '$T/binary.pgn': it is not a PGN file (it holds binary data)"
similar_fails "a directory" "$T" "cannot read the file '$T': it is not a regular file"
printf '[Event "a"]\n\n1. e4 e5 *\n\n[Event "b"]\n\n1. e4 Ke7 2. Ke2 *\n' >"$T/damaged.pgn"
similar_fails "a damaged game" "$T/damaged.pgn" "game 2 of the file '$T/damaged.pgn' has an error"
expect_grep "-similarposition: a damaged game: where" "$T/err" "^$T/damaged.pgn:7:7: game 2: illegal move 'Ke7'"

# ---- -wtm, -btm
expect_rc "-wtm" 0 "$CQL" -i "$KASPAROV" -o - -wtm -cql 'ply == 1'
expect_grep "-wtm: ply 1 is Black's" "$T/err" '^0 matches of 6 games'
expect_rc "-btm" 0 "$CQL" -i "$KASPAROV" -o - -btm -cql 'ply == 1'
expect_grep "-btm: ply 1" "$T/err" '^6 matches of 6 games'
expect_rc "-wtm -btm" 2 "$CQL" -i "$KASPAROV" -o - -wtm -btm -cql true

# ---- -assign NAME VALUE: a number or a string, before the body
expect_rc "-assign" 0 "$CQL" -i "$KASPAROV" -o - -assign Plies 80 -assign Who Kasparov -cql 'player white ~~ Who ply > Plies'
expect_rc "the same query written out" 0 "$CQL" -i "$KASPAROV" -o - -cql 'player white ~~ "Kasparov" ply > 80'
cp "$T/err" "$T/written-out.err"
expect_rc "-assign again" 0 "$CQL" -i "$KASPAROV" -o - -assign Plies 80 -assign Who Kasparov -cql 'player white ~~ Who ply > Plies'
expect_eq "-assign gives the written-out query's answer" "$(matches_in "$T/err")" "$(matches_in "$T/written-out.err")"
expect_eq "-assign: some games and not all" "$(matches_in "$T/err")" 3
expect_rc "-assign: bad name" 2 "$CQL" -assign 1x 3 -cql true
expect_grep "-assign: bad name message" "$T/err" "^cql: error: option '-assign' needs a variable name"
expect_rc "-assign: no value" 2 "$CQL" -cql true -assign Who

# ---- -nosettag, -noremovecomment
expect_rc "settag" 0 "$CQL" -i "$MOLINARI" -o "$T/tag1.pgn" -cql 'settag("Hit" "yes")'
expect_grep "settag writes the tag" "$T/tag1.pgn" '^\[Hit "yes"\]$'
expect_rc "-nosettag" 0 "$CQL" -nosettag -i "$MOLINARI" -o "$T/tag2.pgn" -cql 'settag("Hit" "yes")'
expect_no_grep "-nosettag: no tag" "$T/tag2.pgn" '^\[Hit '
expect_eq "-nosettag: settag still matches" "$(games_in "$T/tag2.pgn")" 1
expect_rc "-noremovecomment" 0 "$CQL" -noremovecomment -i "$MOLINARI" -o "$T/nrc.pgn" -cql true
expect_same "-noremovecomment without removecomment" "$T/nrc.pgn" "$T/tag2.pgn"

# ---- identical comments added at a position are written once (CQL 6.2's
# default, -uniquecomments); -nouniquecomments keeps them all
printf '[Event "?"]\n\n1. e4 e5 *\n' >"$T/short.pgn"
SAME='ply == 1 comment("same") comment("other") comment("same")'
expect_rc "identical comments" 0 "$CQL" -i "$T/short.pgn" -o "$T/uc.pgn" -cql "$SAME"
expect_grep "identical comments: once" "$T/uc.pgn" '^{Game number 1} 1. e4 {same other CQL} 1... e5 \*$'
expect_rc "-uniquecomments" 0 "$CQL" -uniquecomments -i "$T/short.pgn" -o "$T/uc2.pgn" -cql "$SAME"
expect_same "-uniquecomments is the default" "$T/uc.pgn" "$T/uc2.pgn"
expect_rc "-nouniquecomments" 0 "$CQL" -nouniquecomments -i "$T/short.pgn" -o "$T/nuc.pgn" -cql "$SAME"
expect_grep "-nouniquecomments: all kept" "$T/nuc.pgn" '^{Game number 1} 1. e4 {same other same CQL} 1... e5 \*$'

# ---- -html: the query as a page, its syntax coloured
printf 'cql(quiet)\n// a fork\nflipcolor {Ka1 attacks k "x<y" 3}\n' >"$T/page.cql"
expect_rc "-html" 0 "$CQL" -html "$T/page.cql"
expect_grep "-html: a page" "$T/out" '^<!DOCTYPE html>$'
expect_grep "-html: keyword" "$T/out" '<span class="keyword">flipcolor</span>'
expect_grep "-html: piece" "$T/out" '<span class="piece">Ka1</span>'
expect_grep "-html: comment" "$T/out" '<span class="comment">// a fork</span>'
expect_grep "-html: string escaped" "$T/out" '<span class="string">&quot;x&lt;y&quot;</span>'
expect_grep "-html: number" "$T/out" '<span class="number">3</span>'
sed 's/<[^>]*>//g; s/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&amp;/\&/g' "$T/out" | sed -n '/^cql(quiet)$/,/^flipcolor/p' >"$T/text.cql"
expect_same "-html: the text as written" "$T/text.cql" "$T/page.cql"
# a name is a name, whatever letters it has; the lexer's answer, not a guess
printf 'cql()\nfunction f(y) {y}\nx = 3 dictionary d\nx > 2 f(x) check\n' >"$T/names.cql"
expect_rc "-html: names" 0 "$CQL" -html "$T/names.cql"
expect_grep "-html: a variable x" "$T/out" '<span class="name">x</span> <span class="operator">=</span>'
expect_no_grep "-html: a variable x is no keyword" "$T/out" '<span class="keyword">[xyfd]</span>'
expect_grep "-html: a function f" "$T/out" '<span class="name">f</span>(<span class="name">x</span>)'
expect_grep "-html: a keyword" "$T/out" '<span class="keyword">dictionary</span> <span class="name">d</span>'
expect_rc "-html: an option's filter" 0 "$CQL" -html -player 'O"Kelly' "$T/page.cql"
expect_grep "-html: an option's filter, after the header" "$T/out" \
    '^<span class="keyword">player</span> <span class="string">&quot;O\\&quot;Kelly&quot;</span>$'
printf 'cql() atacks k\n' >"$T/bad.cql"
expect_rc "-html of a bad query" 1 "$CQL" -html "$T/bad.cql"

# ---- -lineincrement N and the progress line (stderr only, never stdout)
expect_rc "-lineincrement" 0 "$CQL" -lineincrement 100 -i "$FOLD" -o "$T/li.pgn" -cql true
expect_eq "-lineincrement: a line per 100 games" "$(grep -c '^[0-9]* games examined, [0-9]* matches$' "$T/err")" \
    $(($(games_in "$T/li.pgn") / 100))
expect_grep "-lineincrement: the 700th game" "$T/err" '^700 games examined, 700 matches$'
expect_no_grep "-lineincrement: not on stdout" "$T/out" 'examined'
expect_rc "no progress when stderr is no terminal" 0 "$CQL" -i "$FOLD" -o "$T/p.pgn" -cql true
expect_eq "no progress: stderr empty" "$(wc -c <"$T/err" | tr -d ' ')" 0
expect_rc "-progress" 0 "$CQL" -progress -i "$FOLD" -o "$T/p.pgn" -cql true
expect_grep "-progress: the live line" "$T/err" 'games, [0-9]* matches, [0-9]* games/s, [0-9]*%'
if tr '\r' '\n' <"$T/err" | tail -1 | grep -q '^.\[K$'; then ok; else bad "-progress: the line is erased at the end"; fi
expect_rc "-nooutputstatus" 0 "$CQL" -nooutputstatus -progress -lineincrement 100 -i "$FOLD" -o "$T/p.pgn" -cql true
expect_eq "-nooutputstatus: stderr empty" "$(wc -c <"$T/err" | tr -d ' ')" 0

# ---- several -i: read in order, games numbered on across the files
expect_rc "two inputs" 0 "$CQL" -i "$KASPAROV" -i "$MOLINARI" -o "$T/two.pgn" -cql true
expect_grep "two inputs: summary" "$T/out" '^7 matches of 7 games'
expect_grep "two inputs: game 7 is the second file's" "$T/two.pgn" '{Game number 7 CQL}'
cat "$KASPAROV" "$MOLINARI" >"$T/cat.pgn"
expect_rc "concatenated" 0 "$CQL" -i "$T/cat.pgn" -o "$T/cat-out.pgn" -cql true
expect_same "two inputs are their concatenation" "$T/two.pgn" "$T/cat-out.pgn"
# a file without a final line end: the next file's first game is not glued to it
printf '[Event "a"]\n\n1. e4 *' >"$T/noeol.pgn"
expect_rc "no final line end" 0 "$CQL" -i "$T/noeol.pgn" -i "$MOLINARI" -o "$T/x.pgn" -cql true
expect_grep "no final line end: both games" "$T/out" '^2 matches of 2 games'
# messages about the second file name it and its own line numbers
printf '[Event "a"]\n\n1. e4 e5 *\n\n[Event "b"]\n\n1. e4 Nf9 *\n' >"$T/badmove.pgn"
expect_rc "second file's message" 0 "$CQL" -i "$MOLINARI" -i "$T/badmove.pgn" -o "$T/x.pgn" -cql true
expect_grep "second file's message: FILE:LINE" "$T/err" "^$T/badmove.pgn:7:7: game 3: "
# a FIFO among the inputs is opened once, by the reader: nothing it sends is lost
mkfifo "$T/fifo"
cat "$KASPAROV" >"$T/fifo" &
expect_rc "FIFO input" 0 "$CQL" -i "$T/fifo" -i "$MOLINARI" -o "$T/fifo-out.pgn" -cql true
wait
expect_same "FIFO input: every game" "$T/fifo-out.pgn" "$T/cat-out.pgn"
# the output may be none of the inputs
cp "$MOLINARI" "$T/in2.pgn"
expect_rc "output over the second input" 2 "$CQL" -i "$KASPAROV" -i "$T/in2.pgn" -o "$T/in2.pgn" -cql true
expect_same "the second input untouched" "$T/in2.pgn" "$MOLINARI"

# ---- a directory: its PGN files in name order (compressed ones too), no hidden file
mkdir "$T/dir"
cp "$MOLINARI" "$T/dir/b.pgn"
gzip -c "$KASPAROV" >"$T/dir/a.pgn.gz"
cp "$MOLINARI" "$T/dir/.hidden.pgn"
echo 'not a game' >"$T/dir/notes.txt"
expect_rc "directory" 0 "$CQL" -i "$T/dir" -o "$T/dir-out.pgn" -cql true
expect_same "directory: a.pgn.gz then b.pgn" "$T/dir-out.pgn" "$T/cat-out.pgn"
mkdir "$T/empty"
expect_rc "empty directory" 2 "$CQL" -i "$T/empty" -o "$T/x.pgn" -cql true
expect_grep "empty directory message" "$T/err" "has no PGN file"

# ---- compressed inputs through the system's decompressor, known by their first bytes
"$CQL" -i "$KASPAROV" -o "$T/plain.pgn" -cql true >/dev/null 2>&1
for z in gzip bzip2 xz zstd; do
    if ! command -v $z >/dev/null 2>&1; then echo "note: $z not installed; its test skipped" >&2; continue; fi
    $z -c <"$KASPAROV" >"$T/k.pgn.$z"
    expect_rc "$z input" 0 "$CQL" -i "$T/k.pgn.$z" -o "$T/z.pgn" -cql true
    expect_same "$z input: the same games" "$T/z.pgn" "$T/plain.pgn"
done
gzip -c "$T/badmove.pgn" >"$T/badmove.pgn.gz"
expect_rc "gzip input: messages" 0 "$CQL" -i "$T/badmove.pgn.gz" -o "$T/x.pgn" -cql true
expect_grep "gzip input: FILE:LINE" "$T/err" "^$T/badmove.pgn.gz:7:7: game 2: "
expect_rc "after a compressed file: messages" 0 "$CQL" -i "$T/dir/a.pgn.gz" -i "$T/badmove.pgn" -o "$T/x.pgn" -cql true
expect_grep "after a compressed file: FILE:LINE" "$T/err" "^$T/badmove.pgn:7:7: game 8: "
# a damaged compressed file is an error of the run (exit 2), not a short success
gzip -c <"$FOLD" | head -c 20000 >"$T/cut.pgn.gz"
expect_rc "truncated gzip" 2 "$CQL" -i "$T/cut.pgn.gz" -o "$T/cut.pgn" -cql true
expect_grep "truncated gzip message" "$T/err" "'gzip -dc' could not read '$T/cut.pgn.gz'"
expect_no_grep "truncated gzip: no summary" "$T/out" ' matches of '
if [ -e "$T/cut.pgn" ]; then bad "truncated gzip: an output was written"; else ok; fi
# a valid .gz followed by junk: gzip warns and gives every game; so does cql
{ gzip -c <"$KASPAROV"; printf 'junk after the gzip data'; } >"$T/junk.pgn.gz"
expect_rc "gzip with junk after it" 0 "$CQL" -i "$T/junk.pgn.gz" -o "$T/z.pgn" -cql true
expect_grep "gzip with junk after it: gzip's warning" "$T/err" 'trailing garbage ignored'
expect_same "gzip with junk after it: every game" "$T/z.pgn" "$T/plain.pgn"
# compressed standard input is known by its first bytes too: from a pipe
# (whose first bytes go back in front of the rest) and from a file
for z in gzip bzip2 xz zstd; do
    if ! command -v $z >/dev/null 2>&1; then continue; fi
    $z -c <"$KASPAROV" | "$CQL" -i - -o "$T/z.pgn" -cql true >"$T/out" 2>"$T/err"
    expect_eq "$z piped to -i -: exit" $? 0
    expect_same "$z piped to -i -: the same games" "$T/z.pgn" "$T/plain.pgn"
    expect_rc "$z redirected to -i -" 0 "$CQL" -i - -o "$T/z.pgn" -cql true <"$T/k.pgn.$z"
    expect_same "$z redirected to -i -: the same games" "$T/z.pgn" "$T/plain.pgn"
done
# text piped in that starts as a compressed file may ('B' of bzip2's "BZh"):
# read as text, nothing lost
{ printf 'BZ no game here\n\n'; cat "$KASPAROV"; } | "$CQL" -i - -o "$T/z.pgn" -cql true >"$T/out" 2>"$T/err"
expect_eq "text starting with B piped to -i -: exit" $? 0
expect_same "text starting with B piped to -i -: the same games" "$T/z.pgn" "$T/plain.pgn"
expect_grep "text starting with B piped to -i -: the text skipped" "$T/err" '^<stdin>:1: warning: skipped 1 line of text that is not PGN'
# a damaged compressed standard input fails the run, as a file does
gzip -c <"$FOLD" | head -c 20000 | "$CQL" -i - -o "$T/cut.pgn" -cql true >"$T/out" 2>"$T/err"
expect_eq "truncated gzip piped to -i -: exit" $? 2
expect_grep "truncated gzip piped to -i -: message" "$T/err" "'gzip -dc' could not read '<stdin>'"
# the decompressor missing: a clear error
expect_rc "no decompressor" 2 env PATH="$T/nowhere" "$CQL" -i "$T/dir/a.pgn.gz" -o "$T/x.pgn" -cql true
expect_grep "no decompressor message" "$T/err" "is gzip-compressed, and the program 'gzip' to read it is not installed"

# ---- a file that is not PGN at all: read as standard input is, its text
# skipped with a warning (a file is never refused for its bytes: a NUL in a
# good file's first 4 KB lost every game of it). The bytes are fixed, like
# an executable's first ones: the program's own, taken before, changed with
# every build, and a line end followed by a digit in them (a segment's size
# can hold one) began a game.
{ printf '\177ELF\002\001\001'; head -c 1500 /dev/zero; printf '\r\001/lib64/ld-linux-x86-64.so.2\n\004GNU'
  head -c 1400 /dev/zero; } >"$T/binary.pgn"
expect_rc "binary input" 0 "$CQL" -i "$T/binary.pgn" -o "$T/x.pgn" -cql true
expect_grep "binary input message" "$T/err" "^$T/binary.pgn:1: warning: skipped [0-9]* lines* of text that is not PGN (it holds NUL bytes)"
expect_grep "binary input: no game" "$T/out" '^0 matches of 0 games'

# ---- bad option values: exit 2 with a message
bad_option() {   # bad_option NAME MESSAGE-PATTERN OPTIONS...
    name=$1 pattern=$2
    shift 2
    expect_rc "$name" 2 "$CQL" "$@"
    expect_grep "$name: message" "$T/err" "$pattern"
}
# command-line habits: -option=value and --option=value are -option value;
# -- ends the options (a query file whose name starts with '-')
expect_rc "--option=value" 0 "$CQL" --input="$KASPAROV" --output="$T/eq.pgn" -cql=true
expect_same "--option=value: the same games" "$T/eq.pgn" "$T/plain.pgn"
expect_rc "-option=value, then a range's second number" 0 "$CQL" -i="$KASPAROV" -o=- -gamenumber=2 3 -cql=true
expect_grep "-option=value, then a range's second number: summary" "$T/err" '^2 matches of 3 games'
expect_rc "-cql=TEXT with a '=' in it" 0 "$CQL" -i "$KASPAROV" -o - -cql='x = 2 x == 2'
expect_grep "-cql=TEXT with a '=' in it: summary" "$T/err" '^6 matches of 6 games'
bad_option "-flag=value" "option '-s' takes no value (given '-s=yes')" -i "$MOLINARI" -s=yes -cql true
bad_option "-o=X twice" "option '-o' given twice (first as '-o'); it takes one value" -i "$MOLINARI" -o=a.pgn -o=b.pgn -cql true
printf 'cql()\ntrue\n' >"$T/-dash.cql"
KASPAROV_ABS=$(pwd)/$KASPAROV
(cd "$T" && "$CQL" -i "$KASPAROV_ABS" -o - -- -dash.cql >out 2>err)
expect_eq "-- then a query file named -dash.cql: exit" $? 0
expect_grep "-- then a query file named -dash.cql: summary" "$T/err" '^6 matches of 6 games'
# bash completion (scripts/completion/cql.bash, installed by make install):
# option names from the program's -help, the values some options take, files
if command -v bash >/dev/null 2>&1; then
    mkdir "$T/complete" "$T/complete/sub"
    touch "$T/complete/a.pgn" "$T/complete/b.pgn.gz" "$T/complete/notes.txt" "$T/complete/q.cql"
    expect_eq "completion: an option" "$(complete_words cql -thr)" "-threads "
    expect_eq "completion: options with a prefix" "$(complete_words cql -noh)" "-noheader -noheaders "
    expect_eq "completion: -result, any case" "$(complete_words -RESULT '')" "0-1 1-0 1/2-1/2 "
    expect_eq "completion: -i, PGN files and directories" "$(complete_words --input '')" "a.pgn b.pgn.gz sub "
    expect_eq "completion: the query file" "$(complete_words cql '')" "q.cql sub "
    expect_eq "completion: a value of the user's" "$(complete_words -player '')" ""
fi
bad_option "-result 1-1" "option '-result' needs 1-0, 0-1 or 1/2-1/2, not '1-1'" -i "$MOLINARI" -result 1-1 -cql true
bad_option "-g 0" "option '-g' needs a number of at least 1, not '0'" -i "$MOLINARI" -g 0 -cql true
bad_option "-gamenumber 5 2" "the range 5 2 is empty" -i "$MOLINARI" -gamenumber 5 2 -cql true
bad_option "-year 2000 1990" "the range 2000 1990 is empty" -i "$MOLINARI" -year 2000 1990 -cql true
bad_option "-o twice" "option '-o' given twice (first as '-output')" -i "$MOLINARI" -output a.pgn -o b.pgn -cql true
bad_option "-player twice" "option '-player' given twice" -i "$MOLINARI" -player a -player b -cql true
bad_option "-threads 0" "option '-threads' needs a number of at least 1, not '0'" -i "$MOLINARI" -threads 0 -cql true
bad_option "-lineincrement x" "option '-lineincrement' needs a number" -i "$MOLINARI" -lineincrement x -cql true
bad_option "-limit 0" "option '-limit' needs a number of at least 1" -i "$MOLINARI" -limit 0 -cql true
bad_option "-part 4/4" "option '-part' needs K/N with 0 <= K < N" -i "$MOLINARI" -part 4/4 -cql true
bad_option "-summary xml" "option '-summary' needs 'text' or 'json'" -i "$MOLINARI" -summary xml -cql true
bad_option "did you mean" "unknown option '-plyer'; did you mean '-player'?" -i "$MOLINARI" -plyer x -cql true
bad_option "did you mean (case, two hyphens)" "unknown option '--VARIATOINS'; did you mean '-variations'?" --VARIATOINS -cql true
bad_option "no hint when far" "^cql: error: unknown option '-xyzzyq' (try 'cql -help')$" -xyzzyq -cql true
bad_option "argument after the query" "options come first, the query file last" "$T/page.cql" -i "$MOLINARI"
bad_option "-singlethreaded -threads 4" "exclude each other" -s -threads 4 -i "$MOLINARI" -cql true

# ---- -limit N: stop after N matching games; the same output for any thread count
expect_rc "-limit" 0 "$CQL" -limit 5 -threads 3 -i "$FOLD" -o "$T/l3.pgn" -cql true
expect_grep "-limit: summary" "$T/out" '^5 matches of 5 games'
expect_grep "-limit: says so" "$T/err" 'stopped after 5 matching games (-limit 5)'
expect_eq "-limit: games written" "$(games_in "$T/l3.pgn")" 5
expect_rc "-limit one thread" 0 "$CQL" -limit 5 -threads 1 -i "$FOLD" -o "$T/l1.pgn" -cql true
expect_same "-limit: any thread count" "$T/l1.pgn" "$T/l3.pgn"
expect_rc "-limit not reached" 0 "$CQL" -limit 5000 -i "$KASPAROV" -o "$T/x.pgn" -cql true
expect_no_grep "-limit not reached: no note" "$T/err" 'stopped after'
expect_rc "-limit with gzip" 0 "$CQL" -limit 2 -i "$T/dir/a.pgn.gz" -o "$T/x.pgn" -cql true
expect_grep "-limit with gzip: summary" "$T/out" '^2 matches of 2 games'
# stopped while the decompressor still writes: it is ended, the run is not a failure
gzip -c "$DATA/generated/engine-games-2000.pgn" >"$T/big.pgn.gz"
expect_rc "-limit, decompressor still writing" 0 "$CQL" -limit 1 -i "$T/big.pgn.gz" -i "$KASPAROV" -o "$T/x.pgn" -cql true
expect_grep "-limit, decompressor still writing: summary" "$T/out" '^1 matches of 1 games'
expect_no_grep "-limit, decompressor still writing: no error" "$T/err" 'error'

# ---- -noclobber refuses to replace a file; -dryrun reads and writes nothing
echo keep >"$T/kept.pgn"
expect_rc "-noclobber" 2 "$CQL" -noclobber -i "$MOLINARI" -o "$T/kept.pgn" -cql true
expect_grep "-noclobber message" "$T/err" "the output file '$T/kept.pgn' exists, and -noclobber keeps it"
expect_eq "-noclobber: file kept" "$(cat "$T/kept.pgn")" keep
expect_rc "-noclobber new file" 0 "$CQL" -noclobber -i "$MOLINARI" -o "$T/new.pgn" -cql true
expect_rc "-dryrun" 0 "$CQL" -dryrun -i "$T/dir" -o "$T/dry.pgn" -cql true
if [ -e "$T/dry.pgn" ]; then bad "-dryrun wrote the output"; else ok; fi
expect_grep "-dryrun: reports" "$T/err" 'the query compiled; 2 input files'
expect_rc "-dryrun bad query" 1 "$CQL" -dryrun -i "$MOLINARI" "$T/bad.cql"
expect_rc "-dryrun missing input" 2 "$CQL" -dryrun -i "$T/none.pgn" -cql true

# ---- options CQL 6.2 accepts without listing them: the same output
"$CQL" -i "$KASPAROV" -o "$T/plain.pgn" -cql check >/dev/null 2>&1
for opt in -gui -virtualmainline -m -multithreaded -uniquecomments -nosortcomments \
    -nolinearize -outputbuffer -utf8 -echo -colorize -lex -d -debug -noheaders; do
    expect_rc "accepted $opt" 0 "$CQL" $opt -i "$KASPAROV" -o "$T/acc.pgn" -cql check
    [ "$opt" = -noheaders ] || expect_same "accepted $opt: the same output" "$T/acc.pgn" "$T/plain.pgn"
done
"$CQL" -guipgnstdin -guipgnstdout -cql check <"$KASPAROV" >"$T/gui.pgn" 2>"$T/err"
expect_same "-guipgnstdin -guipgnstdout" "$T/gui.pgn" "$T/plain.pgn"

# ---- -part K/N: the parts' outputs concatenated are one run's output, byte for byte
BIG=$DATA/generated/engine-games-2000.pgn
"$CQL" -i "$BIG" -o "$T/whole.pgn" -cql check >"$T/whole.out" 2>&1
N=4
parts=$(seq 0 $((N - 1)))
if command -v parallel >/dev/null 2>&1 && parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
    # the recipe of the documentation (also across machines with --sshloginfile on shared storage)
    parallel "$CQL" -i "$BIG" -part {}/$N -summary json -o "$T/part{}.pgn" -cql check ::: $parts >"$T/parts.out" 2>&1
else
    echo "note: GNU parallel not installed; the -part recipe runs with xargs -P" >&2
    echo $parts | tr ' ' '\n' | xargs -P 2 -I{} "$CQL" -i "$BIG" -part {}/$N -summary json -o "$T/part{}.pgn" -cql check >"$T/parts.out" 2>&1
fi
cat $(for k in $parts; do echo "$T/part$k.pgn"; done) >"$T/joined.pgn"
expect_same "-part: concatenated parts = one run" "$T/joined.pgn" "$T/whole.pgn"
sum_field() { sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" "$T/parts.out" | awk '{ s += $1 } END { print s + 0 }'; }
expect_eq "-part: the parts' matches add up" "$(sum_field matches)" "$(matches_in "$T/whole.out")"
expect_eq "-part: the parts' games add up" "$(sum_field games)" "$(games_in "$BIG")"
expect_eq "-part: each summary says its share" "$(grep -c "$SUMMARY.* (part [0-9]/$N)\$" "$T/parts.out")" $N
expect_grep "-part: game numbers of the whole file" "$T/part3.pgn" "{Game number $(games_in "$BIG")[ }]"
# one thread or several, the same parts
"$CQL" -threads 1 -i "$BIG" -part 2/$N -o "$T/p2t1.pgn" -cql check >/dev/null 2>&1
expect_same "-part: any thread count" "$T/p2t1.pgn" "$T/part2.pgn"
# more parts than games: empty parts, still the whole
for k in $(seq 0 8); do "$CQL" -i "$KASPAROV" -part $k/9 -o "$T/small$k.pgn" -cql true >/dev/null 2>&1; done
cat $(for k in $(seq 0 8); do echo "$T/small$k.pgn"; done) >"$T/small.pgn"
"$CQL" -i "$KASPAROV" -o "$T/plain-true.pgn" -cql true >/dev/null 2>&1
expect_same "-part: 9 parts of 6 games" "$T/small.pgn" "$T/plain-true.pgn"
# lone CR line ends (an old Mac file), and CRLF: each part gets its share
# (lines were counted by LF alone: a CR file was all in its last part)
tr '\n' '\r' <"$FOLD" >"$T/cr.pgn"
sed 's/$/\r/' "$FOLD" >"$T/crlf.pgn"
for ends in cr crlf; do
    "$CQL" -i "$T/$ends.pgn" -o "$T/$ends-whole.pgn" -cql true >/dev/null 2>&1
    for k in 0 1 2; do "$CQL" -i "$T/$ends.pgn" -part $k/3 -o "$T/$ends-part$k.pgn" -cql true >/dev/null 2>&1; done
    cat "$T/$ends-part0.pgn" "$T/$ends-part1.pgn" "$T/$ends-part2.pgn" >"$T/$ends-joined.pgn"
    expect_same "-part of a $ends file: concatenated parts = one run" "$T/$ends-joined.pgn" "$T/$ends-whole.pgn"
    for k in 0 1 2; do
        n=$(games_in "$T/$ends-part$k.pgn")
        if [ "$n" -gt 100 ] && [ "$n" -lt 400 ]; then ok; else bad "-part $k/3 of a $ends file: $n of 713 games"; fi
    done
done
expect_rc "-part of a sorting query" 2 "$CQL" -i "$KASPAROV" -part 0/2 -o "$T/x.pgn" -cql 'sort ply'
expect_grep "-part of a sorting query: message" "$T/err" "cannot split this query: it sorts the games"
expect_rc "-part of a persistent query" 2 "$CQL" -i "$KASPAROV" -part 0/2 -o "$T/x.pgn" -cql 'persistent Seen = 1'
expect_grep "-part of a persistent query: message" "$T/err" "keeps values from game to game"
expect_rc "-part of standard input" 2 "$CQL" -i - -part 0/2 -o "$T/x.pgn" -cql true
expect_rc "-part of a compressed file" 2 "$CQL" -i "$T/dir/a.pgn.gz" -part 0/2 -o "$T/x.pgn" -cql true

# ---- -summary json
expect_rc "-summary json" 0 "$CQL" -summary json -i "$KASPAROV" -o "$T/x.pgn" -cql check
expect_grep "-summary json line" "$T/out" '^{"matches": [0-9]*, "games": 6, "pgn_errors": 0, "seconds": [0-9.]*, "threads": [0-9]*, "output": ".*x.pgn", "limit_reached": false}$'
expect_grep "-summary json: the text line first" "$T/out" "$SUMMARY"

echo "option tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
