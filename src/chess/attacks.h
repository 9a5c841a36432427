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
typedef struct AttackTables {
    Bitboard pawn[COLOR_NB][SQ_NB];
    Bitboard knight[SQ_NB];
    Bitboard king[SQ_NB];
    Bitboard bishop_empty[SQ_NB];   /* bishop and rook attacks on an empty board */
    Bitboard rook_empty[SQ_NB];
    Bitboard ray[SQ_NB][DIR_NB];
    Bitboard between[SQ_NB][SQ_NB];
    Bitboard line[SQ_NB][SQ_NB];
    /* Sliders ("kindergarten" bitboards): along one line through the
     * slider, the occupied squares among the line's six inner ones (its
     * ends block nothing further) are gathered into six bits, which index
     * the attacks along that line. Under 5 KB in all: they stay in the
     * cache. The magic tables used before (840 KB) took fewer
     * instructions per lookup but often missed it, which cost 5-7% of a
     * replay's time. */
    uint8_t rank_reach[64][8];      /* [inner files b..g occupied][file]: the rank's attacked files */
    Bitboard file_reach[64][8];     /* [inner ranks 2..7 occupied][rank]: the attacks on the a-file */
    Bitboard diagonal[SQ_NB];       /* the a1-h8 way diagonal through s, s excluded */
    Bitboard antidiagonal[SQ_NB];   /* the a8-h1 way one */
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

/* The six inner squares of the a-file (a2..a7) of occ >> file, brought to
 * bits 0..5 by one multiplication: a2 lands on bit 58, a3 on 59, ... (no
 * two products meet, so nothing carries). */
static inline unsigned att_file_inner(Bitboard occ, unsigned file)
{
    return (unsigned)((((occ >> file) & FILE_A_BB) * 0x0004081020408000ULL) >> 58);
}

/* The occupied squares of a diagonal `line`, files b..g, in bits 0..5: the
 * multiplication by the b-file brings each square to the top rank, one
 * file to the left of its own (a diagonal has one square per file, so
 * nothing carries), and the shift keeps files b..g. */
static inline unsigned att_diagonal_inner(Bitboard occ, Bitboard line)
{
    return (unsigned)(((occ & line) * 0x0202020202020202ULL) >> 58);
}

/* Along a diagonal the attacked squares are those of the files a slider
 * on the first rank attacks: that rank's pattern, copied to every rank,
 * cut to the diagonal. */
static inline Bitboard att_along_diagonal(Bitboard occ, Bitboard line, unsigned file)
{
    Bitboard files = att_tables->rank_reach[att_diagonal_inner(occ, line)][file];
    return files * 0x0101010101010101ULL & line;
}

static inline Bitboard att_bishop(Square s, Bitboard occ)
{
    assert(att_tables->ready && s >= 0 && s < SQ_NB);
    unsigned file = (unsigned)s & 7;
    return att_along_diagonal(occ, att_tables->diagonal[s], file)
         | att_along_diagonal(occ, att_tables->antidiagonal[s], file);
}

static inline Bitboard att_rook(Square s, Bitboard occ)
{
    assert(att_tables->ready && s >= 0 && s < SQ_NB);
    unsigned file = (unsigned)s & 7, rank_shift = (unsigned)s & 56;
    unsigned rank_inner = (unsigned)(occ >> rank_shift) >> 1 & 63;   /* files b..g */
    Bitboard on_rank = (Bitboard)att_tables->rank_reach[rank_inner][file] << rank_shift;
    Bitboard on_file = att_tables->file_reach[att_file_inner(occ, file)][rank_shift >> 3] << file;
    return on_rank | on_file;
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

/* The sliders among `diagonal` (bishops, queens) and `straight` (rooks,
 * queens) that attack s with the board occupied by occ: those on an
 * empty-board line with s (usually none, or one) with nothing between.
 * Cheaper than att_bishop and att_rook when the sliders are few. */
static inline Bitboard att_sliders_reaching(Square s, Bitboard diagonal, Bitboard straight, Bitboard occ)
{
    Bitboard found = 0;
    for (Bitboard lined = (att_bishop_empty(s) & diagonal) | (att_rook_empty(s) & straight); lined;) {
        Square t = bb_pop_lsb(&lined);
        if (!(att_between(s, t) & occ)) found |= sq_bb(t);
    }
    return found;
}

/* Whether any of them does (att_sliders_reaching != 0), done at the first
 * found: pos_in_check asks at every position. */
static inline bool att_any_slider_reaches(Square s, Bitboard diagonal, Bitboard straight, Bitboard occ)
{
    for (Bitboard lined = (att_bishop_empty(s) & diagonal) | (att_rook_empty(s) & straight); lined;)
        if (!(att_between(s, bb_pop_lsb(&lined)) & occ)) return true;
    return false;
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
