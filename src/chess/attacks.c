/*
 * src/chess/attacks.c — attack tables for every piece, rays, `between` and `line`.
 *
 * Owns the only mutable globals of the chess core: file-scope tables that
 * att_init() fills once and that are read-only afterwards (the lookups are
 * inline in attacks.h and read them through the const att_tables). Sliders use
 * "kindergarten" bitboards (attacks.h): a multiplication gathers the
 * occupied squares of one line through the slider into six bits that index
 * a small table of its attacks along that line; each entry is filled from a
 * plain ray walk at init.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "chess/attacks.h"

#include <stdbool.h>
#include <stddef.h>

static AttackTables tables;

const AttackTables *const att_tables = &tables;

static const Direction ROOK_DIRS[4] = {DIR_N, DIR_W, DIR_S, DIR_E};
static const Direction BISHOP_DIRS[4] = {DIR_NW, DIR_SW, DIR_SE, DIR_NE};

/* The square file_step files and rank_step ranks from s, or SQ_NONE off the board. */
static Square square_after_step(Square s, int file_step, int rank_step)
{
    int f = file_of(s) + file_step, r = rank_of(s) + rank_step;
    if (f < 0 || f > 7 || r < 0 || r > 7) return SQ_NONE;
    return make_square(f, r);
}

/* Squares a slider on s reaches in direction d, up to and including the
 * first square of occ: the ray from s minus the ray from that blocker
 * (init_rays_and_lines runs first). The blocker nearest to s is the lowest
 * one in the directions that increase the square number, the highest in
 * the others. Adding h8 (resp. a1) as a blocker needs no branch: the rays
 * from h8 in the increasing directions, and from a1 in the decreasing
 * ones, are empty. */
static Bitboard ray_reach(Square s, Direction d, Bitboard occ)
{
    Bitboard ray = tables.ray[s][d];
    bool increasing = d == DIR_N || d == DIR_NW || d == DIR_E || d == DIR_NE;
    Square blocker = increasing ? bb_lsb((ray & occ) | sq_bb(SQ_H8))
                                : bb_msb((ray & occ) | sq_bb(SQ_A1));
    return ray ^ tables.ray[blocker][d];
}

/* Squares a slider on s reaches along dirs[0..3] given the occupancy occ. */
static Bitboard walk_rays(Square s, const Direction dirs[4], Bitboard occ)
{
    Bitboard attacks = 0;
    for (int i = 0; i < 4; i++) attacks |= ray_reach(s, dirs[i], occ);
    return attacks;
}

/* Squares a leaper on s reaches with the given (file, rank) offsets. */
static Bitboard leaper_targets(Square s, const int offsets[][2], int count)
{
    Bitboard targets = 0;
    for (int i = 0; i < count; i++) {
        Square t = square_after_step(s, offsets[i][0], offsets[i][1]);
        if (t != SQ_NONE) targets |= sq_bb(t);
    }
    return targets;
}

static void init_rays_and_lines(void)
{
    for (Square s = 0; s < SQ_NB; s++) {
        for (int d = 0; d < DIR_NB; d++) {
            Bitboard ray = 0;
            Square t = s;
            while ((t = square_after_step(t, dir_file_step[d], dir_rank_step[d])) != SQ_NONE) {
                tables.between[s][t] = ray;         /* squares passed so far */
                ray |= sq_bb(t);
            }
            tables.ray[s][d] = ray;
        }
    }
    for (Square s = 0; s < SQ_NB; s++)
        for (int d = 0; d < DIR_NB; d++) {
            Bitboard line = tables.ray[s][d] | tables.ray[s][(d + 4) % DIR_NB] | sq_bb(s);
            for (Bitboard b = tables.ray[s][d]; b; ) tables.line[s][bb_pop_lsb(&b)] = line;
        }
}

/* The sliders' tables: for a slider on each file of the first rank, and on
 * each rank of the a-file, its attacks for every occupancy of the line's
 * six inner squares; and each square's two diagonals. */
static void init_slider_reach(void)
{
    for (unsigned inner = 0; inner < 64; inner++) {
        Bitboard on_rank_1 = (Bitboard)inner << 1, on_file_a = 0;
        for (int i = 0; i < 6; i++)
            if (inner & (1u << i)) on_file_a |= sq_bb(make_square(0, i + 1));
        assert(att_file_inner(on_file_a, 0) == inner);
        for (int k = 0; k < 8; k++) {
            Square on_rank = make_square(k, 0), on_file = make_square(0, k);
            tables.rank_reach[inner][k] =
                (uint8_t)(ray_reach(on_rank, DIR_W, on_rank_1) | ray_reach(on_rank, DIR_E, on_rank_1));
            tables.file_reach[inner][k] =
                ray_reach(on_file, DIR_N, on_file_a) | ray_reach(on_file, DIR_S, on_file_a);
        }
    }
    for (Square s = 0; s < SQ_NB; s++) {
        tables.diagonal[s] = tables.ray[s][DIR_NE] | tables.ray[s][DIR_SW];
        tables.antidiagonal[s] = tables.ray[s][DIR_NW] | tables.ray[s][DIR_SE];
    }
}

void att_init(void)
{
    static const int KNIGHT_OFFSETS[8][2] = {
        {1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
    static const int KING_OFFSETS[8][2] = {
        {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}, {1, 0}, {1, 1}};
    static const int WHITE_PAWN_OFFSETS[2][2] = {{-1, 1}, {1, 1}};
    static const int BLACK_PAWN_OFFSETS[2][2] = {{-1, -1}, {1, -1}};

    if (tables.ready) return;
    for (Square s = 0; s < SQ_NB; s++) {
        tables.knight[s] = leaper_targets(s, KNIGHT_OFFSETS, 8);
        tables.king[s] = leaper_targets(s, KING_OFFSETS, 8);
        tables.pawn[WHITE][s] = leaper_targets(s, WHITE_PAWN_OFFSETS, 2);
        tables.pawn[BLACK][s] = leaper_targets(s, BLACK_PAWN_OFFSETS, 2);
    }
    init_rays_and_lines();   /* first: walk_rays and ray_reach read the rays */
    for (Square s = 0; s < SQ_NB; s++) {
        tables.bishop_empty[s] = walk_rays(s, BISHOP_DIRS, 0);
        tables.rook_empty[s] = walk_rays(s, ROOK_DIRS, 0);
    }
    init_slider_reach();   /* after the rays */
    tables.ready = true;
}

Bitboard att_piece(Piece p, Square s, Bitboard occ)
{
    switch (type_of(p)) {
    case PAWN:   return att_pawn(color_of(p), s);
    case KNIGHT: return att_knight(s);
    case BISHOP: return att_bishop(s, occ);
    case ROOK:   return att_rook(s, occ);
    case QUEEN:  return att_queen(s, occ);
    case KING:   return att_king(s);
    default:     assert(!"att_piece: no piece"); return 0;
    }
}
