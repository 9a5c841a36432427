#!/bin/sh
# tests/run-perft.sh — check move generation against published perft counts.
#
#   sh tests/run-perft.sh BUILD_DIR fast   counts of at most 100,000 nodes (make test)
#   sh tests/run-perft.sh BUILD_DIR slow   every count, all depths, on every core
#
# The data files and their origins are listed in tests/data/SOURCES.md.
# tool_perft prints each mismatch and each skipped position (with the FEN
# error), a summary line and the total node count, the signature of the run.
# Exits non-zero on any mismatch.
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
build=${1:?usage: run-perft.sh BUILD_DIR fast|slow}
mode=${2:-fast}
data=tests/data/perft
files="$data/perftsuite.epd $data/cpw-perft-results.epd $data/python-chess-tricky.perft $data/python-chess-chess960.perft"

case $mode in
fast) exec "$build/tests/tool_perft" --max-nodes 100000 $files ;;
slow) jobs=$(nproc 2>/dev/null || echo 1)
      exec "$build/tests/tool_perft" --jobs "$jobs" $files ;;
*)    echo "run-perft.sh: mode must be fast or slow, not '$mode'" >&2; exit 2 ;;
esac
