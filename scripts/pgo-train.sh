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
trap 'rm -f "$QUERY"' EXIT
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
