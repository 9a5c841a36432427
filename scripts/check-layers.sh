#!/bin/sh
# scripts/check-layers.sh — the dependency rule of docs/architecture.md, read
# from the #include lines: every quoted include names the area it reaches
# into ("chess/position.h"), and an area may include only the areas below it.
#
#   base  <- chess <- pgn <- eval <- lib          (and base <- query <- eval)
#   index (the sidecar index) sits beside eval: over pgn and query, under lib
#   query may use chess/bitboard.h (squares, directions), nothing else of chess
#   include/cql.h, the library face, includes no project header; src/lib/
#   implements it over every area below, and is the only area of the
#   library that includes it
#   cli (the program) and tests/tools (the query and PGN test tools) use
#   include/cql.h alone (the tools also their own tests/tools/support.h)
#   no file is an exception to these rules
#   a private header (NAME_int.h) is included only from its own folder
#   every quoted include names a file that exists
#
# Usage: sh scripts/check-layers.sh (from the top directory; `make check-layers`).
# Prints one line per violation and exits 1 if there is any.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
LC_ALL=C
export LC_ALL

# allowed AREA: the include prefixes (area folders, or single headers) that
# a file of AREA may name.
allowed() {
    case $1 in
    base)   echo "base/" ;;
    chess)  echo "base/ chess/" ;;
    pgn)    echo "base/ chess/ pgn/" ;;
    query)  echo "base/ query/ chess/bitboard.h" ;;
    eval)   echo "base/ chess/ pgn/ query/ eval/" ;;
    index)  echo "base/ chess/ pgn/ query/ index/" ;;
    lib)    echo "base/ chess/ pgn/ query/ eval/ index/ lib/ cql.h" ;;
    cli)    echo "cli/ cql.h" ;;
    tools)  echo "cql.h" ;;
    public) echo "-" ;;
    *)      echo "" ;;
    esac
}

status=0
violation() {
    echo "check-layers: $1" >&2
    status=1
}

for file in $(find src -name '*.[ch]' -o -name '*.def' | sort) include/cql.h $(find tests/tools -name '*.[ch]' | sort); do
    case $file in
    src/*)         area=$(echo "$file" | cut -d/ -f2) ;;
    include/*)     area=public ;;
    tests/tools/*) area=tools ;;
    esac
    rules=$(allowed "$area")
    [ -n "$rules" ] || { violation "$file: '$area' is not an area of src/"; continue; }
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
    sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1 \2/' >"${TMPDIR:-/tmp}/check-layers.$$"
    while read -r line inc; do
        where="$file:$line: #include \"$inc\""
        if [ "$area" = tools ] && [ "$inc" = support.h ]; then continue; fi   # the tools' own shared module
        if [ ! -e "src/$inc" ] && [ ! -e "include/$inc" ]; then
            violation "$where: no such file under src/ or include/"
            continue
        fi
        case $inc in
        */* | cql.h) ;;
        *) violation "$where: name the area (\"area/$inc\")"; continue ;;
        esac
        ok=false
        for rule in $rules; do
            case $rule in
            */) case $inc in "$rule"*) ok=true ;; esac ;;
            *)  [ "$inc" = "$rule" ] && ok=true ;;
            esac
        done
        $ok || violation "$where: $area may not depend on $(dirname "$inc")"
        case $inc in
        *_int.h)
            [ "$(dirname "$inc")" = "$(dirname "${file#src/}")" ] ||
                violation "$where: a private header is included only from its own folder" ;;
        esac
    done <"${TMPDIR:-/tmp}/check-layers.$$"
    rm -f "${TMPDIR:-/tmp}/check-layers.$$"
done

[ $status -eq 0 ] && echo "check-layers: every include follows the dependency rule"
exit $status
