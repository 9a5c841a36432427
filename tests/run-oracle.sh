#!/bin/sh
# tests/run-oracle.sh BUILD — the query front end against its reference data:
#   1. the CQL 6.x parse oracle (accept/reject), with the shrink-only list of
#      known disagreements tests/oracle-disagreements.txt;
#   2. the CQL 6.2 conformance vectors: each query parses iff CQL 6.2 ran it;
#   3. -a then -u re-parses every accepted oracle query to an equal AST, and
#      no accepted query is refused as "not supported yet" but those listed
#      in tests/unsupported-pending.txt (shrink-only);
#   4. golden tests: tests/parse/*.cql against *.expected (AST dump or
#      diagnostics) and, where present, *.ascii and *.unicode (-a and -u).
# Called by `make test` (target test-oracle). Exits non-zero on any failure.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
LC_ALL=C
export LC_ALL
build=${1:-build/release}
tool=$build/tests/tool_cqlparse
[ -x "$tool" ] || { echo "run-oracle: $tool is missing (make test-tools)" >&2; exit 1; }
tool=$(cd "$(dirname "$tool")" && pwd)/$(basename "$tool")
status=0

"$tool" --oracle tests/data/cql/chessql-cql62-parse-oracle.jsonl \
        --expect tests/oracle-disagreements.txt || status=1
"$tool" --vectors tests/conformance/cql62-vectors.tsv || status=1
"$tool" --roundtrip tests/data/cql/chessql-cql62-parse-oracle.jsonl || status=1
"$tool" --supported tests/data/cql/chessql-cql62-parse-oracle.jsonl \
        --expect tests/unsupported-pending.txt || status=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0
# golden MODE QUERY EXPECTED: the tool's output (stdout and stderr) for the
# query file, run from its directory so that messages name it plainly
golden() {
    [ -e "$3" ] || return 0
    n=$((n + 1))
    (cd "$(dirname "$2")" && "$tool" "$1" "$(basename "$2")") >"$tmp/out" 2>&1
    if ! cmp -s "$tmp/out" "$3"; then
        echo "golden: $tool $1 $2 differs from $3:" >&2
        diff "$3" "$tmp/out" | head -20 >&2
        failed=$((failed + 1))
    fi
}
for q in tests/parse/*.cql; do
    [ -e "$q" ] || continue
    golden --parse "$q" "${q%.cql}.expected"     # the AST dump, or the diagnostics
    golden --ascii "$q" "${q%.cql}.ascii"        # -a, where given
    golden --unicode "$q" "${q%.cql}.unicode"    # -u, where given
done
echo "golden parse tests: $((n - failed)) of $n as expected"
[ "$failed" -eq 0 ] || status=1
exit $status
