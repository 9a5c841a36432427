#!/bin/sh
# tests/run-oracle.sh BUILD — the query front end against its reference data:
#   1. the CQL 6.x parse oracle (accept/reject), with the shrink-only list of
#      known disagreements tests/oracle-disagreements.txt;
#   2. the CQL 6.2 conformance vectors: each query parses iff CQL 6.2 ran it;
#   3. -a then -u re-parses every accepted oracle query to an equal AST;
#   4. golden AST dumps and diagnostics: tests/parse/*.cql against *.expected.
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

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0
for q in tests/parse/*.cql; do
    [ -e "$q" ] || continue
    exp=${q%.cql}.expected
    n=$((n + 1))
    # query files are run as a whole file; the expected text is the AST dump
    # (accepted queries) or the diagnostics (rejected ones)
    (cd "$(dirname "$q")" && "$tool" --parse "$(basename "$q")") >"$tmp/out" 2>&1
    if ! cmp -s "$tmp/out" "$exp"; then
        echo "golden $q differs from $exp:" >&2
        diff "$exp" "$tmp/out" | head -20 >&2
        failed=$((failed + 1))
    fi
done
echo "golden parse tests: $((n - failed)) of $n as expected"
[ "$failed" -eq 0 ] || status=1
exit $status
