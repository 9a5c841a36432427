#!/bin/sh
# scripts/pgo-train.sh CQL GAMES — the training run of the profile-guided
# build (Makefile, PGO=1): the instrumented cql searches GAMES (the bundled
# engine games) with queries of the kinds users run most, one thread, so
# that gcc learns which branches and calls the usual work takes. Only its
# counts matter: the games it writes are thrown away.
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
CQL=$1
GAMES=$2
QUERY=$(mktemp "${TMPDIR:-/tmp}/cql-pgo.XXXXXX")
SIDECAR_DIR=$(mktemp -d "${TMPDIR:-/tmp}/cql-pgo-index.XXXXXX")
trap 'rm -f "$QUERY"; rm -rf "$SIDECAR_DIR"' EXIT
for body in 'check' 'mate' 'Ka1' 'Q attacks k' 'true' 'pin' 'stalemate' \
            'flip {ray (R q k)}' 'player white "Stockfish"' 'legal -- == 0'; do
    printf 'cql()\n%s\n' "$body" >"$QUERY"
    status=0
    "$CQL" -threads 1 -i "$GAMES" -o - "$QUERY" >/dev/null 2>&1 || status=$?
    if [ "$status" -gt 1 ]; then   # 0: games found, 1: none
        echo "pgo-train: $CQL failed (status $status) on: $body" >&2
        exit 1
    fi
done
# The sidecar index (docs/index.md): its build, and searches through it that
# rule games out (Ka1, move promote N), search them from their codes with
# their positions made in place (ply > 1000, which no position matches;
# true counted at every position, a body evaluated once per game, with a
# matchcount no game reaches: the replay-only search of make bench), build
# their trees from the codes (parent:check) or go their text's way
# (true and check, which nearly every game matches); without these, gcc
# compiled that code as never run (cql -index: 10% more instructions on
# these games).
SIDECAR="$SIDECAR_DIR/games.cqlx"
"$CQL" -index -indexfile "$SIDECAR" "$GAMES" >/dev/null 2>&1 || {
    echo "pgo-train: $CQL -index failed on $GAMES" >&2
    exit 1
}
for query in 'cql() Ka1' 'cql() move promote N' 'cql() ply > 1000' 'cql(matchcount 1000) true' \
             'cql() parent:check' 'cql() true' 'cql() check'; do
    printf '%s\n' "$query" >"$QUERY"
    status=0
    "$CQL" -threads 1 -indexfile "$SIDECAR" -i "$GAMES" -o - "$QUERY" >/dev/null 2>&1 || status=$?
    if [ "$status" -gt 1 ]; then
        echo "pgo-train: $CQL failed (status $status) through the sidecar on: $query" >&2
        exit 1
    fi
done
