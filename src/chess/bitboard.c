/*
 * src/chess/bitboard.c — square names and piece letters (see src/chess/bitboard.h).
 *
 * The bit tricks themselves are static inline in the header; this file holds
 * the text conversions ("e4" <-> 28 and 'N' <-> W_KNIGHT), the direction
 * steps and bb_shift.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "chess/bitboard.h"

#include <string.h>

const int dir_file_step[DIR_NB] = {0, -1, -1, -1, 0, +1, +1, +1};
const int dir_rank_step[DIR_NB] = {+1, +1, 0, -1, -1, -1, 0, +1};

Bitboard bb_shift(Bitboard b, Direction d, int steps)
{
    for (int i = 0; i < steps && b; i++) b = bb_step(b, d);
    return b;
}

/* Indexed by Piece: " PNBRQK  pnbrqk " (unused codes are spaces). */
static const char PIECE_LETTERS[PIECE_NB + 1] = " PNBRQK  pnbrqk ";

void sq_name(Square s, char out[3])
{
    assert(s >= 0 && s < SQ_NB);
    out[0] = (char)('a' + file_of(s));
    out[1] = (char)('1' + rank_of(s));
    out[2] = '\0';
}

Square sq_parse(const char *s)
{
    if (s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8') return SQ_NONE;
    return make_square(s[0] - 'a', s[1] - '1');
}

void bb_diagram(Bitboard b, char out[BB_DIAGRAM_SIZE])
{
    char *p = out;
    for (int rank = 7; rank >= 0; rank--) {
        *p++ = (char)('1' + rank);
        for (int file = 0; file < 8; file++) {
            *p++ = ' ';
            *p++ = (b & sq_bb(make_square(file, rank))) ? 'x' : '.';
        }
        *p++ = '\n';
    }
    memcpy(p, "  a b c d e f g h\n", 19);
    assert(p + 19 - out == BB_DIAGRAM_SIZE);
}

char piece_char(Piece p)
{
    assert(p >= 0 && p < PIECE_NB);
    return PIECE_LETTERS[p];
}

Piece piece_from_char(char c)
{
    if (c == ' ') return NO_PIECE;
    for (int p = 0; p < PIECE_NB; p++)
        if (PIECE_LETTERS[p] == c) return (Piece)p;
    return NO_PIECE;
}

char piece_type_char(PieceType t)
{
    assert(t > NO_PIECE_TYPE && t < PIECE_TYPE_NB);
    return PIECE_LETTERS[t];
}
