/*
 * src/chess/board_query.c — attacks, rays, pins, directions and pawn structure as
 * square sets (see src/chess/board_query.h).
 *
 * `ray` is computed for all start squares at once: for one direction, the
 * squares reachable from a set P with only empty squares in between are a
 * sliding fill of P through the empty squares, so the ends of the matching
 * rays are fill(...fill(fill(S1) & S2)...) & Sn.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "chess/board_query.h"

Bitboard bq_direction(Bitboard x, DirMask dirs, int min, int max)
{
    Bitboard result = (min <= 0 && max >= 0) ? x : 0;   /* distance 0: the squares themselves */
    for (int d = 0; d < DIR_NB; d++) {
        if (!(dirs & (1u << d))) continue;
        Direction back = (Direction)((d + DIR_NB / 2) % DIR_NB);
        /* distances 1..max in d, and -1..min the other way */
        Bitboard ahead = x, behind = x;
        for (int k = 1; k <= max && ahead; k++) {
            ahead = bb_step(ahead, (Direction)d);
            if (k >= min) result |= ahead;
        }
        for (int k = 1; -k >= min && behind; k++) {
            behind = bb_step(behind, back);
            if (-k <= max) result |= behind;
        }
    }
    return result;
}

Bitboard bq_attacks_of(const Position *pos, Square s)
{
    Piece p = pos_piece_on(pos, s);
    return p == NO_PIECE ? 0 : att_piece(p, s, pos_occupied(pos));
}

Bitboard bq_attacks_from(const Position *pos, Bitboard x)
{
    Bitboard result = 0;
    for (Bitboard b = x & pos_occupied(pos); b;) result |= bq_attacks_of(pos, bb_pop_lsb(&b));
    return result;
}

/* The pieces of `from` that attack square t: the attack tables read
 * backwards from t, only for the kinds of piece `from` holds. */
static Bitboard attackers_of_square(const Position *pos, Square t, Bitboard from)
{
    Bitboard occ = pos_occupied(pos), found = 0;
    Bitboard pawns = from & pos->by_type[PAWN];
    if (pawns)
        found |= (att_pawn(BLACK, t) & pawns & pos->by_color[WHITE])
               | (att_pawn(WHITE, t) & pawns & pos->by_color[BLACK]);
    found |= att_knight(t) & from & pos->by_type[KNIGHT];
    found |= att_king(t) & from & pos->by_type[KING];
    Bitboard queens = pos->by_type[QUEEN];
    return found | att_sliders_reaching(t, from & (pos->by_type[BISHOP] | queens),
                                        from & (pos->by_type[ROOK] | queens), occ);
}

Bitboard bq_attackers(const Position *pos, Bitboard x, Bitboard y)
{
    Bitboard result = 0;
    x &= pos_occupied(pos);
    if (!x || !y) return 0;
    /* one target square (Q attacks k): look from it back to the pieces */
    if (!bb_more_than_one(y)) return attackers_of_square(pos, bb_pop_lsb(&y), x);
    for (Bitboard b = x; b;) {
        Square s = bb_pop_lsb(&b);
        if (bq_attacks_of(pos, s) & y) result |= sq_bb(s);
    }
    return result;
}

Bitboard bq_attacked(const Position *pos, Bitboard y, Bitboard x)
{
    return y ? bq_attacks_from(pos, x) & y : 0;
}

/* One line of an arrow chain: from sa in direction d, seeking sets[1] ...
 * sets[n-1] in order (bq_arrow_chain). Bit k of `seeking` is a walk that
 * seeks sets[k]; an empty square in a middle set splits a walk in two.
 * Returns the squares of sets[n-1] hit. */
static Bitboard arrow_line(Bitboard occ, Square sa, Direction d, const Bitboard *sets, int n)
{
    Bitboard hits = 0;
    uint32_t seeking = 1u << 1, last = 1u << (n - 1);
    for (Bitboard sq = bb_step(sq_bb(sa), d); sq && seeking; sq = bb_step(sq, d)) {
        uint32_t next = 0;
        for (int k = 1; k < n; k++) {
            uint32_t walk = 1u << k;
            if (!(seeking & walk)) continue;
            bool in = (sets[k] & sq) != 0;
            if (occ & sq) {             /* a piece: taken, or the line ends */
                if (in && walk == last) hits |= sq;
                else if (in) next |= walk << 1;
            } else if (in) {            /* an empty square of the set sought */
                if (walk == last) hits |= sq;
                else next |= walk << 1;   /* taken ... */
                next |= walk;             /* ... or passed over */
            } else {
                next |= walk;
            }
        }
        seeking = next;
    }
    return hits;
}

Bitboard bq_arrow_chain(const Position *pos, const Bitboard *sets, int n, Bitboard *hits)
{
    Bitboard occ = pos_occupied(pos), found = 0;
    Bitboard queens = pos->by_type[QUEEN];
    Bitboard rook_like = pos->by_type[ROOK] | queens, bishop_like = pos->by_type[BISHOP] | queens;
    *hits = 0;
    if (n < 2 || n > BQ_ARROW_CHAIN_MAX) return 0;
    for (Bitboard a = sets[0] & (rook_like | bishop_like); a;) {
        Square sa = bb_pop_lsb(&a);
        for (int d = 0; d < DIR_NB; d++) {
            bool orthogonal = (DIRS_ORTHOGONAL & (1u << d)) != 0;
            if (!((orthogonal ? rook_like : bishop_like) & sq_bb(sa))) continue;
            Bitboard h = arrow_line(occ, sa, (Direction)d, sets, n);
            if (h) {
                found |= sq_bb(sa);
                *hits |= h;
            }
        }
    }
    return found;
}

Bitboard bq_between(Bitboard x, Bitboard y)
{
    Bitboard result = 0;
    for (Bitboard a = x; a;) {
        Square s = bb_pop_lsb(&a);
        for (Bitboard b = y; b;) result |= att_between(s, bb_pop_lsb(&b));
    }
    return result;
}

/* Squares reachable from P in direction d over empty squares only: for each
 * square of P, the squares after it up to and including the first piece. */
static Bitboard slide(Bitboard p, Direction d, Bitboard empty)
{
    Bitboard reach = 0;
    for (Bitboard cur = bb_step(p, d); cur; cur = bb_step(cur & empty, d)) reach |= cur;
    return reach;
}

static Bitboard ray_in(const Position *pos, Direction d, Bitboard first, const Bitboard *sets, int n)
{
    Bitboard empty = ~pos_occupied(pos);
    Bitboard p = first;
    for (int i = 1; i < n && p; i++) p = slide(p, d, empty) & sets[i];
    return p;
}

Bitboard bq_ray(const Position *pos, DirMask dirs, const Bitboard *sets, int n)
{
    Bitboard result = 0;
    for (int d = 0; d < DIR_NB; d++)
        if (dirs & (1u << d)) result |= ray_in(pos, (Direction)d, sets[0], sets, n);
    return result;
}

Bitboard bq_xray(const Position *pos, const Bitboard *sets, int n)
{
    Bitboard queens = pos->by_type[QUEEN];
    Bitboard rook_like = sets[0] & (pos->by_type[ROOK] | queens);
    Bitboard bishop_like = sets[0] & (pos->by_type[BISHOP] | queens);
    Bitboard result = 0;
    for (int d = 0; d < DIR_NB; d++) {
        Bitboard first = (DIRS_ORTHOGONAL & (1u << d)) ? rook_like : bishop_like;
        if (first) result |= ray_in(pos, (Direction)d, first, sets, n);
    }
    return result;
}

Bitboard bq_pin(const Position *pos, Bitboard from, Bitboard through, Bitboard to, PinValue v)
{
    Bitboard occ = pos_occupied(pos);
    Bitboard sliders = pos->by_type[BISHOP] | pos->by_type[ROOK] | pos->by_type[QUEEN];
    Bitboard result = 0;
    if (bb_popcount(to) <= 4) {
        /* few `to` squares (the kings, usually): only the sliders on an
         * empty-board line with one of them, of a kind that moves along
         * it, can pin; the test below would skip every other one */
        Bitboard diagonal = pos->by_type[BISHOP] | pos->by_type[QUEEN];
        Bitboard straight = pos->by_type[ROOK] | pos->by_type[QUEEN];
        Bitboard aligned = 0;
        for (Bitboard tz = to; tz;) {
            Square s = bb_pop_lsb(&tz);
            aligned |= (att_bishop_empty(s) & diagonal) | (att_rook_empty(s) & straight);
        }
        sliders &= aligned;
    }
    for (Bitboard px = from & sliders; px;) {
        Square sx = bb_pop_lsb(&px);
        Piece pinner = pos_piece_on(pos, sx);
        /* the cheap test first: a `to` square on one of the slider's lines */
        PieceType type = type_of(pinner);
        Bitboard lines = (type != ROOK ? att_bishop_empty(sx) : 0) | (type != BISHOP ? att_rook_empty(sx) : 0);
        if (!(lines & to)) continue;
        /* a pinned piece stands between the slider and a `to` square */
        Bitboard corridor = 0;
        for (Bitboard tz = lines & to; tz;) corridor |= att_between(sx, bb_pop_lsb(&tz));
        Bitboard candidates = corridor & through & pos->by_color[other_color(color_of(pinner))];
        if (!candidates) continue;
        Bitboard attacks = att_piece(pinner, sx, occ);
        for (Bitboard py = attacks & candidates; py;) {
            Square sy = bb_pop_lsb(&py);
            Color pinned_color = color_of(pos_piece_on(pos, sy));
            Bitboard beyond = att_piece(pinner, sx, occ & ~sq_bb(sy)) & ~attacks;
            Bitboard z = beyond & to & (~occ | pos->by_color[pinned_color]);
            if (!z) continue;
            result |= v == PIN_PINNED ? sq_bb(sy) : v == PIN_PINNING ? sq_bb(sx) : z;
        }
    }
    return result;
}

/* Files (as bitboards) next to the files of b. */
static Bitboard adjacent_files(Bitboard b)
{
    /* the files of b: b smeared up and down the board */
    Bitboard files = b | b << 8 | b >> 8;
    files |= files << 16 | files >> 16;
    files |= files << 32 | files >> 32;
    return ((files & ~FILE_H_BB) << 1) | ((files & ~FILE_A_BB) >> 1);
}

Bitboard bq_doubled_pawns(const Position *pos)
{
    Bitboard result = 0;
    for (Color c = WHITE; c < COLOR_NB; c++) {
        Bitboard pawns = pos_pieces(pos, c, PAWN);
        for (int f = 0; f < 8; f++)
            if (bb_more_than_one(pawns & file_bb(f))) result |= pawns & file_bb(f);
    }
    return result;
}

/* The pawns that have (or, with `with_neighbour` false, lack) a friendly
 * pawn on an adjacent file. */
static Bitboard pawns_by_neighbours(const Position *pos, bool with_neighbour)
{
    Bitboard result = 0;
    for (Color c = WHITE; c < COLOR_NB; c++) {
        Bitboard pawns = pos_pieces(pos, c, PAWN);
        for (Bitboard b = pawns; b;) {
            Square s = bb_pop_lsb(&b);
            if (((adjacent_files(sq_bb(s)) & pawns) != 0) == with_neighbour) result |= sq_bb(s);
        }
    }
    return result;
}

Bitboard bq_isolated_pawns(const Position *pos)
{
    return pawns_by_neighbours(pos, false);
}

Bitboard bq_connected_pawns(const Position *pos)
{
    return pawns_by_neighbours(pos, true);
}

/* Every square of b and all squares below them (south) or above them (north). */
static Bitboard fill_south(Bitboard b)
{
    b |= b >> 8;
    b |= b >> 16;
    return b | b >> 32;
}

static Bitboard fill_north(Bitboard b)
{
    b |= b << 8;
    b |= b << 16;
    return b | b << 32;
}

/* A pawn is passed when no enemy pawn stands ahead of it on its file or the
 * files next to it: it is not on or below (above, for Black) the squares
 * in front of such a pawn's file and its neighbours. */
Bitboard bq_passed_pawns(const Position *pos)
{
    Bitboard white = pos_pieces(pos, WHITE, PAWN), black = pos_pieces(pos, BLACK, PAWN);
    Bitboard black_span = black | ((black & ~FILE_A_BB) >> 1) | ((black & ~FILE_H_BB) << 1);
    Bitboard white_span = white | ((white & ~FILE_A_BB) >> 1) | ((white & ~FILE_H_BB) << 1);
    return (white & ~fill_south(black_span >> 8)) | (black & ~fill_north(white_span << 8));
}

int bq_power(const Position *pos, Bitboard x)
{
    static const int value[PIECE_TYPE_NB] = {0, 1, 3, 3, 5, 9, 0};
    int total = 0;
    for (PieceType t = PAWN; t <= QUEEN; t++) total += value[t] * bb_popcount(pos->by_type[t] & x);
    return total;
}
