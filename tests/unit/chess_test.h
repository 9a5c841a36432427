/*
 * tests/unit/chess_test.h — helpers shared by the cmocka tests of the chess core and
 * its users: start-up, positions from FEN, square lists, board comparison with
 * diagrams, a small deterministic random generator, the FENs of the perft
 * files. Include after <cmocka.h>.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CHESS_TEST_H
#define CQL_CHESS_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "chess/attacks.h"
#include "chess/bitboard.h"
#include "chess/position.h"

/* cmocka group setup: the attack tables. */
static inline int chess_setup(void **state)
{
    (void)state;
    att_init();
    return 0;
}

/* The position of a FEN the test knows to be valid; fails the test if not. */
static inline Position position_from(const char *fen)
{
    Position pos;
    FenError err;
    if (pos_from_fen(&pos, fen, &err) != 0) {
        print_error("%s: %s\n", fen, err.message);
        fail();
    }
    return pos;
}

/* Fails with both boards drawn as diagrams (cmocka prints integers in decimal). */
#define assert_bb_equal(actual, expected) \
    check_bb_equal((actual), (expected), #actual, __FILE__, __LINE__)

static inline void check_bb_equal(Bitboard actual, Bitboard expected, const char *what,
                                  const char *file, int line)
{
    if (actual == expected) return;
    char a[BB_DIAGRAM_SIZE], e[BB_DIAGRAM_SIZE];
    bb_diagram(actual, a);
    bb_diagram(expected, e);
    print_error("%s:%d: %s differs\nactual:\n%sexpected:\n%s", file, line, what, a, e);
    fail();
}

/* "e1 e7" -> the set of those squares; fails the test on a bad square. */
static inline Bitboard squares(const char *list)
{
    Bitboard b = 0;
    for (const char *s = list; *s; s++) {
        if (*s == ' ') continue;
        Square sq = sq_parse(s);
        assert_int_not_equal(sq, SQ_NONE);
        b |= sq_bb(sq);
        s++;
    }
    return b;
}

/* The FEN of a line of the perft files ("epd FEN ..." or "FEN ;D1 20 ..."),
 * cut where its counts start (the line is changed); NULL for a comment or
 * any other line. */
static inline char *perft_line_fen(char *line)
{
    char *fen = line;
    if (strncmp(line, "epd ", 4) == 0) fen += 4;
    else if (line[0] == '#' || !strchr(line, ';')) return NULL;
    fen[strcspn(fen, ";\r\n")] = '\0';
    return fen;
}

/* Calls visit(fen, ctx) with the FEN of every position line of the perft
 * files `files` (the FEN may be changed); returns how many there were. */
static inline int for_each_perft_fen(const char *const *files, size_t nfiles,
                                     void (*visit)(char *fen, void *ctx), void *ctx)
{
    int count = 0;
    for (size_t i = 0; i < nfiles; i++) {
        FILE *f = fopen(files[i], "r");
        assert_non_null(f);
        char line[512];
        while (fgets(line, sizeof line, f)) {
            char *fen = perft_line_fen(line);
            if (!fen) continue;
            visit(fen, ctx);
            count++;
        }
        fclose(f);
    }
    return count;
}

/* xorshift64: the same sequence on every run. */
static inline uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

#endif
