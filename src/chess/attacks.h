/*
 * src/chess/attacks.h — attack tables for every piece, rays, `between` and `line`.
 *
 * att_init() fills the tables once; main() and every test call it before use
 * (it is idempotent but not thread-safe: call it before starting threads).
 * Sliders take the board occupancy and return the squares they attack,
 * the first blocker in each direction included.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_ATTACKS_H
#define CQL_ATTACKS_H

#include "chess/bitboard.h"

void att_init(void);

/*
 * The lookups below are static inline because they sit on the hottest paths
 * (SAN resolution, legality tests, move generation), where a call per lookup
 * cost more than the lookup itself. They read the tables through att_tables,
 * a const view of the one AttackTables that att_init() fills; nothing writes
 * to it afterwards, so any number of threads may read it.
 */
typedef struct AttMagic {
    Bitboard mask;        /* relevant blocker squares (board edges excluded) */
    Bitboard magic;
    const Bitboard *attacks;   /* this square's slice of the shared table */
    unsigned shift;       /* 64 - popcount(mask) */
} AttMagic;

typedef struct AttackTables {
    Bitboard pawn[COLOR_NB][SQ_NB];
    Bitboard knight[SQ_NB];
    Bitboard king[SQ_NB];
    Bitboard bishop_empty[SQ_NB];   /* bishop and rook attacks on an empty board */
    Bitboard rook_empty[SQ_NB];
    Bitboard ray[SQ_NB][DIR_NB];
    Bitboard between[SQ_NB][SQ_NB];
    Bitboard line[SQ_NB][SQ_NB];
    AttMagic rook[SQ_NB];
    AttMagic bishop[SQ_NB];
    bool ready;
} AttackTables;

extern const AttackTables *const att_tables;

/* The two diagonal capture squares of a pawn of colour c on s. */
static inline Bitboard att_pawn(Color c, Square s)
{
    assert(att_tables->ready && s >= 0 && s < SQ_NB && (c == WHITE || c == BLACK));
    return att_tables->pawn[c][s];
}

static inline Bitboard att_knight(Square s)
{
    assert(att_tables->ready && s >= 0 && s < SQ_NB);
    return att_tables->knight[s];
}

static inline Bitboard att_king(Square s)
{
    assert(att_tables->ready && s >= 0 && s < SQ_NB);
    return att_tables->king[s];
}

/* Fancy magic indexing: the relevant blockers times the magic number give,
 * in their top bits, the index of the attack set in the square's slice. */
static inline unsigned att_magic_index(const AttMagic *m, Bitboard occ)
{
    return (unsigned)(((occ & m->mask) * m->magic) >> m->shift);
}

static inline Bitboard att_bishop(Square s, Bitboard occ)
{
    assert(att_tables->ready && s >= 0 && s < SQ_NB);
    const AttMagic *m = &att_tables->bishop[s];
    return m->attacks[att_magic_index(m, occ)];
}

static inline Bitboard att_rook(Square s, Bitboard occ)
{
    assert(att_tables->ready && s >= 0 && s < SQ_NB);
    const AttMagic *m = &att_tables->rook[s];
    return m->attacks[att_magic_index(m, occ)];
}

/* The attacks of a bishop or rook on s on an empty board: the squares from
 * which a slider of that kind could attack s at all. */
static inline Bitboard att_bishop_empty(Square s)
{
    assert(att_tables->ready && s >= 0 && s < SQ_NB);
    return att_tables->bishop_empty[s];
}

static inline Bitboard att_rook_empty(Square s)
{
    assert(att_tables->ready && s >= 0 && s < SQ_NB);
    return att_tables->rook_empty[s];
}

static inline Bitboard att_queen(Square s, Bitboard occ)
{
    return att_bishop(s, occ) | att_rook(s, occ);
}

/* Attacks of piece p standing on s (colour matters for pawns only). */
Bitboard att_piece(Piece p, Square s, Bitboard occ);

/* Squares strictly between a and b when they share a rank, file or diagonal;
 * otherwise empty. */
static inline Bitboard att_between(Square a, Square b)
{
    assert(att_tables->ready && a >= 0 && a < SQ_NB && b >= 0 && b < SQ_NB);
    return att_tables->between[a][b];
}

/* The whole rank, file or diagonal through a and b (both included) when they
 * are aligned and distinct; otherwise empty. */
static inline Bitboard att_line(Square a, Square b)
{
    assert(att_tables->ready && a >= 0 && a < SQ_NB && b >= 0 && b < SQ_NB);
    return att_tables->line[a][b];
}

/* Every square from s (excluded) to the board edge in direction d. */
static inline Bitboard att_ray(Square s, Direction d)
{
    assert(att_tables->ready && s >= 0 && s < SQ_NB && d >= 0 && d < DIR_NB);
    return att_tables->ray[s][d];
}

#endif
