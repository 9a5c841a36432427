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
    Bitboard result = 0;
    for (int d = 0; d < DIR_NB; d++) {
        if (!(dirs & (1u << d))) continue;
        Bitboard cur = x;
        for (int k = 1; k <= max && cur; k++) {
            cur = bb_step(cur, (Direction)d);
            if (k >= min) result |= cur;
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

/* The sliders on `from` that attack a piece on `through` and would attack a
 * square of `target` beyond it if that piece were gone, and those squares. */
typedef struct XrayHits {
    Bitboard sliders;   /* sliders that x-ray onto a target square */
    Bitboard targets;   /* the target squares they x-ray onto */
} XrayHits;

static XrayHits xray_through(const Position *pos, Bitboard from, Bitboard through, Bitboard target)
{
    XrayHits hits = {0, 0};
    Bitboard occ = pos_occupied(pos);
    Bitboard sliders = pos->by_type[BISHOP] | pos->by_type[ROOK] | pos->by_type[QUEEN];
    for (Bitboard a = from & sliders; a;) {
        Square sa = bb_pop_lsb(&a);
        Piece p = pos_piece_on(pos, sa);
        Bitboard attacks = att_piece(p, sa, occ);
        for (Bitboard b = attacks & through & occ; b;) {
            Square sb = bb_pop_lsb(&b);
            Bitboard beyond = att_piece(p, sa, occ & ~sq_bb(sb)) & ~attacks & target;
            if (beyond) {
                hits.sliders |= sq_bb(sa);
                hits.targets |= beyond;
            }
        }
    }
    return hits;
}

/* From a slider p on sa, with the pieces `occ` in place and the squares it
 * already sees `seen`: through a piece on through[0], then the rest of the
 * chain, to a square of target; the target squares reached. */
static Bitboard xray_steps(Piece p, Square sa, Bitboard occ, Bitboard seen, const Bitboard *through, int k,
                           Bitboard target)
{
    Bitboard reached = 0;
    for (Bitboard b = seen & through[0] & occ; b;) {
        Square sb = bb_pop_lsb(&b);
        Bitboard without = occ & ~sq_bb(sb);
        Bitboard beyond = att_piece(p, sa, without) & ~seen;   /* the ray beyond sb */
        if (k == 1) reached |= beyond & target;
        else reached |= xray_steps(p, sa, without, beyond, through + 1, k - 1, target);
    }
    return reached;
}

Bitboard bq_xray_chain(const Position *pos, const Bitboard *sets, int n, Bitboard *targets)
{
    Bitboard occ = pos_occupied(pos), found = 0;
    *targets = 0;
    Bitboard sliders = pos->by_type[BISHOP] | pos->by_type[ROOK] | pos->by_type[QUEEN];
    for (Bitboard a = sets[0] & sliders; a;) {
        Square sa = bb_pop_lsb(&a);
        Piece p = pos_piece_on(pos, sa);
        Bitboard reached = xray_steps(p, sa, occ, att_piece(p, sa, occ), sets + 1, n - 2, sets[n - 1]);
        if (reached) {
            found |= sq_bb(sa);
            *targets |= reached;
        }
    }
    return found;
}

Bitboard bq_xray_attackers(const Position *pos, Bitboard a, Bitboard b, Bitboard c)
{
    return xray_through(pos, a, b, c).sliders;
}

Bitboard bq_xray_attacked(const Position *pos, Bitboard c, Bitboard b, Bitboard a)
{
    return xray_through(pos, a, b, c).targets;
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
