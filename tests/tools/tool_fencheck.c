/*
 * tests/tools/tool_fencheck.c — reads positions in FEN, one a line, and
 * checks each with the project's own FEN reader (cql_fen_check): the test
 * of cql -matches (tests/run-matches.sh) gives it the FEN of every record.
 *
 *   tool_fencheck < fens.txt     prints "N positions, M bad", and for each
 *                                bad one "line L: field F, column C: WHY";
 *                                exits 1 when one is bad or none was read
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "cql.h"

int main(void)
{
    char line[4096];
    long count = 0, bad = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        count++;
        int field, column;
        char why[160];
        if (cql_fen_check(line, &field, &column, why, sizeof why)) continue;
        bad++;
        printf("line %ld: field %d, column %d: %s: %s\n", count, field, column, why, line);
    }
    printf("%ld positions, %ld bad\n", count, bad);
    return bad || count == 0 ? 1 : 0;
}
