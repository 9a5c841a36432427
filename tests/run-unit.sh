#!/bin/sh
# tests/run-unit.sh — run every cmocka unit-test program given as an argument.
# Stops at the first failing program; prints one summary line.
# SPDX-License-Identifier: GPL-3.0-or-later
n=0
for t in "$@"; do
    "$t" >"$t.log" 2>&1 || { cat "$t.log"; echo "unit test $t FAILED" >&2; exit 1; }
    n=$((n + 1))
done
echo "unit tests: $n programs passed"
