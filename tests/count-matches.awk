# tests/count-matches.awk — what the conformance vectors record, from a cql
# (or CQL 6.2) output file made with -matchstring ZZMATCH: "G:P G:P ...".
# A game's part begins at Game\s+number\s+(\d+) (CQL 6.2 may break the line
# between the words); match strings count per game, in the order the games
# first appear; the text before the first part is not counted.
# Usage: awk -f tests/count-matches.awk OUT.pgn
# SPDX-License-Identifier: GPL-3.0-or-later
BEGIN { RS = "\001" }
{
    text = $0
    cur = ""
    while (match(text, /Game[ \t\r\n]+number[ \t\r\n]+[0-9]+/)) {
        start = RSTART; len = RLENGTH
        count(substr(text, 1, start - 1))
        marker = substr(text, start, len)
        match(marker, /[0-9]+$/)
        cur = substr(marker, RSTART, RLENGTH) + 0
        if (!(cur in n)) { order[++k] = cur; n[cur] = 0 }
        text = substr(text, start + len)
    }
    count(text)
}
function count(part,   j) {
    while ((j = index(part, "ZZMATCH")) > 0) { if (cur != "") n[cur]++; part = substr(part, j + 7) }
}
END { s = ""; for (i = 1; i <= k; i++) s = s (i > 1 ? " " : "") order[i] ":" n[order[i]]; print s }
