#!/bin/sh
# tests/run-browser.sh — the page of cql -report in a real browser: the
# README's example run (the knight forks of the 1997 Kasparov-Deep Blue
# match), its report rendered by headless Chromium to a PNG screenshot and
# checked (tests/check-screenshot.py: the first board's squares in the two
# colours of a board, the move into the position tinted, the pieces of its
# FEN drawn where they stand), and the DOM Chromium builds (--dump-dom)
# holding one board per record of -matches. Chromium is installed with
# apt-get (Debian's `chromium`) when it is missing and the test runs as
# root; where no browser can be had the test says so and is skipped.
#
# It also leaves the picture of docs/matches.md and README.md in
# BUILD/report.png (with --docs: copied to docs/report.png).
#
# Usage: sh tests/run-browser.sh build/MODE [--docs]     (make test-browser; .ci/run)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
BUILD=${1:-build/release}
DOCS=${2:-}
ROOT=$(pwd)
CQL=$ROOT/$BUILD/cql
export LC_ALL=C
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/expect.sh

find_browser() {
    for b in chromium chromium-browser google-chrome-stable google-chrome; do
        if command -v $b >/dev/null 2>&1; then echo $b; return; fi
    done
}
BROWSER=$(find_browser)
if [ -z "$BROWSER" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "browser test: installing Debian's chromium with apt-get ..."
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -q chromium >"$T/apt.log" 2>&1; then
        apt-get update -q >>"$T/apt.log" 2>&1 && apt-get install -y -q chromium >>"$T/apt.log" 2>&1
    fi
    BROWSER=$(find_browser)
    [ -n "$BROWSER" ] || tail -5 "$T/apt.log"
fi
if [ -z "$BROWSER" ]; then
    echo "browser test: SKIPPED: no Chromium here (not installed, and apt-get cannot install it:" \
         "$( [ "$(id -u)" = 0 ] && echo 'the install failed' || echo 'not root')); the report was not seen in a browser"
    exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "browser test: SKIPPED: python3 is not installed (it reads the screenshot)"
    exit 0
fi
# a home of its own: Chromium writes its profile there
export HOME=$T/home
mkdir -p "$HOME"
browse() {   # chromium's options, then the page
    timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --disable-extensions --user-data-dir="$T/profile" "$@" 2>>"$T/browser.log"
}

# the README's run, in a folder of its own so that the page names the files as the README does
mkdir "$T/run"
ln -s "$ROOT/examples" "$T/run/examples"
(cd "$T/run" && "$CQL" -i examples/kasparov-deep-blue-1997.pgn -matches m.jsonl -report r.html \
    examples/knight-fork.cql >"$T/out" 2>&1)
expect_eq "the README's run: exit" $? 0
records=$(wc -l <"$T/run/m.jsonl")
if [ "$records" -gt 0 ]; then ok; else bad "the README's run matched nothing"; fi
first=$(head -1 "$T/run/m.jsonl")
fen=$(echo "$first" | sed 's/.*"fen": "\([^"]*\)".*/\1/')

# the screenshot: a window tall enough for the first board, then the board checked
browse --screenshot="$T/shot.png" --window-size=1000,2400 "file://$T/run/r.html"
if [ -s "$T/shot.png" ]; then ok; else bad "$BROWSER made no screenshot:"; tail -5 "$T/browser.log" >&2; fi
# the move into the position: its squares from the records' FEN before it are not there; take them from
# the page, which marks them (the x and y of the marked rects: col = x / 45, row = y / 45)
marked=$(sed -n 's/.*<svg class="board"[^>]*>\(.*\)/\1/p' "$T/run/r.html" | head -1 |
    grep -o '<rect class="marked" x="[0-9]*" y="[0-9]*"' | sed 's/.*x="\([0-9]*\)" y="\([0-9]*\)"/\1 \2/' |
    awk '{printf "%s%d ", substr("abcdefgh", $1 / 45 + 1, 1), 8 - $2 / 45}')
set -- $marked
if [ $# -eq 2 ]; then ok; else bad "the first board has not two marked squares: '$marked'"; set -- - -; fi
if [ -s "$T/shot.png" ] && python3 tests/check-screenshot.py "$T/shot.png" "$fen" "$1" "$2" >"$T/check" 2>&1; then ok
else bad "the screenshot:"; cat "$T/check" >&2; fi
cat "$T/check"

# the DOM Chromium builds: one board per record
browse --dump-dom "file://$T/run/r.html" >"$T/dom.html"
boards=$(grep -o '<svg class="board"' "$T/dom.html" | wc -l)
expect_eq "the DOM Chromium reports: boards" "$boards" "$records"
expect_eq "the DOM Chromium reports: no script" "$(grep -c '<script' "$T/dom.html")" 0
# and with many boards: the checks of the match, with variations
(cd "$T/run" && "$CQL" -i examples/kasparov-deep-blue-1997.pgn -o c.pgn -matches c.jsonl -report c.html \
    -cql check >"$T/out" 2>&1)
browse --dump-dom "file://$T/run/c.html" >"$T/dom.html"
expect_eq "the DOM Chromium reports for check: boards" "$(grep -o '<svg class="board"' "$T/dom.html" | wc -l)" \
    "$(wc -l <"$T/run/c.jsonl")"

# the picture of the documents: the top of the page, with the first board
browse --screenshot="$T/top.png" --window-size=900,1300 "file://$T/run/r.html"
if python3 tests/check-screenshot.py "$T/top.png" "$fen" "$1" "$2" >/dev/null 2>&1; then ok
else bad "the picture for the documents does not show the whole first board"; fi
python3 tests/check-screenshot.py --palette "$T/top.png" "$BUILD/report.png" && ok || bad "writing $BUILD/report.png"
if [ "$DOCS" = --docs ]; then cp "$BUILD/report.png" docs/report.png && echo "browser test: docs/report.png written"; fi

echo "browser tests ($BROWSER): $pass passed, $fail failed"
[ "$fail" -eq 0 ]
