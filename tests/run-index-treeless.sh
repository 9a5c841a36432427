#!/bin/sh
# tests/run-index-treeless.sh — through a sidecar, a query that reads only
# the current position (the CURRENT, GAME and TAGS scopes of
# src/query/filters.def) searches a game from its move codes with its
# positions made in place, no tree built (docs/index.md, "How a search uses
# it"); any other query, or one that searches variations in a game that has
# them, builds the game's tree from its codes. Both give what a run without
# the sidecar gives: the same games, messages and totals, on one thread and
# two, for local queries of every kind (pieces, check, mate and stalemate at
# the end of a line, ply, id, move number, side to move, orbits, rays, pins,
# counts, tags and the result), the match counts exact (matchcount ranges:
# no early stop), on engine games, annotated games with variations, games
# set up from a FEN, en passant, promotions. The way each game went shows in
# the summary's in_place (of from_codes): every game searched from its codes
# went in place for a local query, none did for the others.
# Usage: sh tests/run-index-treeless.sh build/MODE
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
BUILD=${1:-build/release}
CQL=$BUILD/cql
export LC_ALL=C
T=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
. tests/expect.sh

D=tests/data/pgn
# games.pgn: 300 engine games, then games with variations, comments, FEN
# set-ups, en passant and promotions; lines.pgn: only games with variations
python3 - "$D/generated/engine-games-2000.pgn" "$T/engine.pgn" <<'EOF'
import sys
games = open(sys.argv[1]).read().split('[Event ')[1:301]
open(sys.argv[2], 'w').write(''.join('[Event ' + g for g in games))
EOF
LINES="$D/scalachess/wcc2023-annotated.pgn $D/pgn-read/calgames_09.pgn $D/pgn-read/calgames_05.pgn
       $D/pgn-read/calgames_03.pgn $D/pgn-read/calgames_11.pgn $D/pgn-read/calgames_02.pgn"
OTHERS="$D/scalachess/pgn-render-pgns.pgn $D/pychess/lichess_study_lichess-practice-the-fork_by_arex_2017.01.29.pgn
        $D/chessalyzer/en-passant.pgn $D/chessalyzer/multiple-promotions.pgn"
for f in $LINES; do cat "$f"; echo; done >"$T/lines.pgn"
for f in "$T/engine.pgn" "$T/lines.pgn" $OTHERS; do cat "$f"; echo; done >"$T/games.pgn"
for p in games lines; do expect_rc "cql -index $p.pgn" 0 "$CQL" -index "$T/$p.pgn"; done

# the summary's count NAME in $T/index.out (json), or -1
count() {
    n=$(sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" "$T/index.out")
    echo "${n:--1}"
}

# same WAY PGN "HEADER|BODY" or "BODY": the same with and without the
# sidecar on one thread and two; WAY: in_place (every game searched from
# its codes went in place, and some did), tree (some did from their
# codes, none in place), any (no claim)
same() {
    way=$1 pgn=$T/$2.pgn query=$3
    case $query in
        *"|"*) printf '%s\n%s\n' "${query%%|*}" "${query#*|}" >"$T/query.cql" ;;
        *) printf 'cql()\n%s\n' "$query" >"$T/query.cql" ;;
    esac
    for n in 1 2; do
        "$CQL" -threads $n -summary json -noindex -i "$pgn" -o "$T/out.pgn" "$T/query.cql" >"$T/plain.out" 2>"$T/plain.err"
        mv "$T/out.pgn" "$T/plain.pgn"
        "$CQL" -threads $n -summary json -i "$pgn" -o "$T/out.pgn" "$T/query.cql" >"$T/index.out" 2>"$T/index.err"
        mv "$T/out.pgn" "$T/index.pgn"
        expect_same "$query on $2, $n thread(s): the same games" "$T/plain.pgn" "$T/index.pgn"
        # the printed lines (the summary in json last), messages and
        # totals, but for the time and what the sidecar did
        for f in plain index; do
            cat "$T/$f.out" "$T/$f.err" |
                sed 's/ in [0-9.]* seconds / /; s/"seconds": [0-9.]*, //; s/, "ruled_out": .*}$/}/' >"$T/$f.said"
        done
        expect_same "$query on $2, $n thread(s): the same lines, messages and totals" "$T/plain.said" "$T/index.said"
        [ $n = 1 ] || continue
        codes=$(count from_codes) in_place=$(count in_place)
        case $way in
            all) expect_eq "$query on $2: every game searched in place" "$in_place" "$(count games)" ;;
            in_place) expect_eq "$query on $2: searched in place, all $codes from codes" "$codes" "$in_place"
                      expect_eq "$query on $2: some games searched in place ($in_place)" "$([ "$in_place" -gt 0 ] && echo yes)" yes ;;
            tree) expect_eq "$query on $2: some games searched from codes ($codes)" "$([ "$codes" -gt 0 ] && echo yes)" yes
                  expect_eq "$query on $2: none in place" "$in_place" 0 ;;
        esac
    done
}

# local queries, the match counts exact or never reached; the first list
# leaves many games unmatched (searched in place), the second few
same in_place games 'cql(matchcount 1000)|true'
for q in 'cql(matchcount 3 7)|check' \
         'cql(matchcount 2 1000)|Ka1' 'cql(matchcount 4 9)|flipcolor {Ka1 check}' \
         'cql(matchcount 5 12)|Q attacks k' 'cql(matchcount 20 40)|pin' 'cql(matchcount 1 3)|ply > 150 check' \
         'cql(matchcount 1 1)|positionid == 40 check' 'cql(matchcount 1 1)|positionid == 41 wtm' \
         'cql(matchcount 1 1)|terminal btm' 'cql(matchcount 2 5)|movenumber > 30 check' \
         'cql(matchcount 30 1000)|#P <= 10 btm' 'cql(matchcount 6 20)|flip {ray (R q k)}' \
         'cql(matchcount 2 9)|result 1-0 check' 'cql(matchcount 1 4)|between(a1 h8) & [Bb]' \
         'cql(matchcount 1000)|fen "8/8/8/8/8/8/8/8"'; do
    same in_place games "$q"
done
for q in 'cql(matchcount 1 1)|mate' 'cql(matchcount 1 1)|stalemate' 'cql(matchcount 0 0)|stalemate' 'cql(matchcount 1 1)|initial wtm' \
         'cql(matchcount 1 1)|depth == 0 ply == 33 mainline' 'cql(matchcount 10 1000)|not check sidetomove == black' \
         'cql(matchcount 2 50)|terminal or enpassantsquare'; do
    same any games "$q"
done
# a body of the tags alone, evaluated once per game: the later positions
# made and counted in one step (search_positions_settled), the count exact
# for a matchcount range, stopped where one with no upper bound is reached
for q in 'cql(matchcount 30 60)|true' 'cql(matchcount 1 1)|true' 'cql(matchcount 90)|result 1-0' \
         'cql(matchcount 100 1000)|false' 'cql(matchcount 50 80)|player white "Stockfish"' \
         'cql(matchcount 0 40)|result 0-1'; do
    same any games "$q"
    same any lines "$q"
done
# the first match settles a game for a matchcount with no upper bound
for q in 'check' 'mate' 'Ka1' 'cql(matchcount 3)|wtm R attacks q'; do
    same any games "$q"
done
# queries that read other positions, a variable, a move: the tree
for q in 'cql(matchcount 1000)|parent:check' 'cql(matchcount 1000)|x = ply x > 1000' \
         'cql(matchcount 3 5)|move from K' 'cql(matchcount 1000)|line --> check --> check'; do
    same tree games "$q"
done
# games with variations: passed over in place unless the search goes into them
same all lines 'cql(matchcount 1000)|ply > 1000'
same in_place lines 'cql(matchcount 1 2)|check mainline'
same tree lines 'cql(variations matchcount 1000)|ply > 1000'
same tree lines 'cql(variations matchcount 1 2)|check'

echo "index treeless tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
