/*
 * src/attacks.c — attack tables for every piece, rays, `between` and `line`.
 *
 * Owns the only mutable globals of the chess core: file-scope tables that
 * att_init() fills once and that are read-only afterwards. Sliders use
 * "fancy" magic bitboards: the relevant blockers of a square are multiplied
 * by a magic number whose top bits index that square's slice of a shared
 * table. The magics are found at init by trial with a fixed-seed PRNG (so
 * every run builds identical tables) and each table entry is filled from a
 * plain ray walk, which also serves as the reference the tests compare with.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "attacks.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

const int dir_file_step[DIR_NB] = {0, -1, -1, -1, 0, +1, +1, +1};
const int dir_rank_step[DIR_NB] = {+1, +1, 0, -1, -1, -1, 0, +1};

typedef struct Magic {
    Bitboard mask;       /* relevant blocker squares (board edges excluded) */
    Bitboard magic;
    Bitboard *attacks;   /* this square's slice of the shared table */
    unsigned shift;      /* 64 - popcount(mask) */
} Magic;

#define ROOK_TABLE_SIZE 102400    /* sum over squares of 2^popcount(mask) */
#define BISHOP_TABLE_SIZE 5248

static bool tables_ready;
static Bitboard pawn_attacks[COLOR_NB][SQ_NB];
static Bitboard knight_attacks[SQ_NB];
static Bitboard king_attacks[SQ_NB];
static Bitboard ray_from[SQ_NB][DIR_NB];
static Bitboard between_squares[SQ_NB][SQ_NB];
static Bitboard line_through[SQ_NB][SQ_NB];
static Magic rook_magics[SQ_NB];
static Magic bishop_magics[SQ_NB];
static Bitboard rook_table[ROOK_TABLE_SIZE];
static Bitboard bishop_table[BISHOP_TABLE_SIZE];

static const Direction ROOK_DIRS[4] = {DIR_N, DIR_W, DIR_S, DIR_E};
static const Direction BISHOP_DIRS[4] = {DIR_NW, DIR_SW, DIR_SE, DIR_NE};

/* The square one step from s toward d, or SQ_NONE off the board. */
static Square step(Square s, int file_step, int rank_step)
{
    int f = file_of(s) + file_step, r = rank_of(s) + rank_step;
    if (f < 0 || f > 7 || r < 0 || r > 7) return SQ_NONE;
    return make_square(f, r);
}

/* Squares a slider on s reaches along dirs[0..3], stopping at (and
 * including) the first square of occ in each direction. */
static Bitboard walk_rays(Square s, const Direction dirs[4], Bitboard occ)
{
    Bitboard attacks = 0;
    for (int i = 0; i < 4; i++) {
        Square t = s;
        while ((t = step(t, dir_file_step[dirs[i]], dir_rank_step[dirs[i]])) != SQ_NONE) {
            attacks |= sq_bb(t);
            if (occ & sq_bb(t)) break;
        }
    }
    return attacks;
}

/* Squares a leaper on s reaches with the given (file, rank) offsets. */
static Bitboard leaper_targets(Square s, const int offsets[][2], int count)
{
    Bitboard targets = 0;
    for (int i = 0; i < count; i++) {
        Square t = step(s, offsets[i][0], offsets[i][1]);
        if (t != SQ_NONE) targets |= sq_bb(t);
    }
    return targets;
}

/* xorshift64*: a small PRNG with a fixed seed, so the magics are the same
 * on every run. */
static uint64_t prng_next(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ULL;
}

/* Magic candidates with few set bits succeed far more often. */
static uint64_t prng_sparse(uint64_t *state)
{
    return prng_next(state) & prng_next(state) & prng_next(state);
}

static unsigned magic_index(const Magic *m, Bitboard occ)
{
    return (unsigned)(((occ & m->mask) * m->magic) >> m->shift);
}

/* Finds a magic for every square and fills its slice of table. */
static void init_slider(Magic magics[SQ_NB], Bitboard *table, size_t table_size,
                        const Direction dirs[4])
{
    Bitboard occupancy[4096], reference[4096];
    unsigned attempt_of[4096];   /* which attempt last wrote each entry */
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    Bitboard *slice = table;

    for (Square s = 0; s < SQ_NB; s++) {
        Magic *m = &magics[s];
        Bitboard edges = ((RANK_1_BB | RANK_8_BB) & ~rank_bb(rank_of(s)))
                       | ((FILE_A_BB | FILE_H_BB) & ~file_bb(file_of(s)));
        m->mask = walk_rays(s, dirs, 0) & ~edges;
        m->shift = (unsigned)(64 - bb_popcount(m->mask));
        m->attacks = slice;

        /* Enumerate every subset of the mask (carry-rippler). */
        int size = 0;
        Bitboard subset = 0;
        do {
            occupancy[size] = subset;
            reference[size] = walk_rays(s, dirs, subset);
            size++;
            subset = (subset - m->mask) & m->mask;
        } while (subset);

        memset(attempt_of, 0, sizeof attempt_of);
        for (unsigned attempt = 1;; attempt++) {
            do m->magic = prng_sparse(&seed);
            while (bb_popcount((m->mask * m->magic) >> 56) < 6);
            int i = 0;
            for (; i < size; i++) {
                unsigned idx = magic_index(m, occupancy[i]);
                if (attempt_of[idx] != attempt) {
                    attempt_of[idx] = attempt;
                    slice[idx] = reference[i];
                } else if (slice[idx] != reference[i]) {
                    break;      /* a harmful collision: try another magic */
                }
            }
            if (i == size) break;
        }
        slice += size;
    }
    assert((size_t)(slice - table) == table_size);
    (void)table_size;
}

static void init_rays_and_lines(void)
{
    for (Square s = 0; s < SQ_NB; s++) {
        for (int d = 0; d < DIR_NB; d++) {
            Bitboard ray = 0;
            Square t = s;
            while ((t = step(t, dir_file_step[d], dir_rank_step[d])) != SQ_NONE) {
                between_squares[s][t] = ray;        /* squares passed so far */
                ray |= sq_bb(t);
            }
            ray_from[s][d] = ray;
        }
    }
    for (Square s = 0; s < SQ_NB; s++)
        for (int d = 0; d < DIR_NB; d++) {
            Bitboard line = ray_from[s][d] | ray_from[s][(d + 4) % DIR_NB] | sq_bb(s);
            for (Bitboard b = ray_from[s][d]; b; ) line_through[s][bb_pop_lsb(&b)] = line;
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

    if (tables_ready) return;
    for (Square s = 0; s < SQ_NB; s++) {
        knight_attacks[s] = leaper_targets(s, KNIGHT_OFFSETS, 8);
        king_attacks[s] = leaper_targets(s, KING_OFFSETS, 8);
        pawn_attacks[WHITE][s] = leaper_targets(s, WHITE_PAWN_OFFSETS, 2);
        pawn_attacks[BLACK][s] = leaper_targets(s, BLACK_PAWN_OFFSETS, 2);
    }
    init_rays_and_lines();
    init_slider(rook_magics, rook_table, ROOK_TABLE_SIZE, ROOK_DIRS);
    init_slider(bishop_magics, bishop_table, BISHOP_TABLE_SIZE, BISHOP_DIRS);
    tables_ready = true;
}

Bitboard att_pawn(Color c, Square s)
{
    assert(tables_ready && s >= 0 && s < SQ_NB && (c == WHITE || c == BLACK));
    return pawn_attacks[c][s];
}

Bitboard att_knight(Square s)
{
    assert(tables_ready && s >= 0 && s < SQ_NB);
    return knight_attacks[s];
}

Bitboard att_king(Square s)
{
    assert(tables_ready && s >= 0 && s < SQ_NB);
    return king_attacks[s];
}

Bitboard att_bishop(Square s, Bitboard occ)
{
    assert(tables_ready && s >= 0 && s < SQ_NB);
    const Magic *m = &bishop_magics[s];
    return m->attacks[magic_index(m, occ)];
}

Bitboard att_rook(Square s, Bitboard occ)
{
    assert(tables_ready && s >= 0 && s < SQ_NB);
    const Magic *m = &rook_magics[s];
    return m->attacks[magic_index(m, occ)];
}

Bitboard att_queen(Square s, Bitboard occ)
{
    return att_bishop(s, occ) | att_rook(s, occ);
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

Bitboard att_between(Square a, Square b)
{
    assert(tables_ready && a >= 0 && a < SQ_NB && b >= 0 && b < SQ_NB);
    return between_squares[a][b];
}

Bitboard att_line(Square a, Square b)
{
    assert(tables_ready && a >= 0 && a < SQ_NB && b >= 0 && b < SQ_NB);
    return line_through[a][b];
}

Bitboard att_ray(Square s, Direction d)
{
    assert(tables_ready && s >= 0 && s < SQ_NB && d >= 0 && d < DIR_NB);
    return ray_from[s][d];
}
