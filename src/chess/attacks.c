/*
 * src/chess/attacks.c — attack tables for every piece, rays, `between` and `line`.
 *
 * Owns the only mutable globals of the chess core: file-scope tables that
 * att_init() fills once and that are read-only afterwards (the lookups are
 * inline in attacks.h and read them through the const att_tables). Sliders use
 * "fancy" magic bitboards: the relevant blockers of a square are multiplied
 * by a magic number whose top bits index that square's slice of a shared
 * table. The magic numbers are constants; each table entry is filled from a
 * plain ray walk at init.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "chess/attacks.h"

#include <stdbool.h>
#include <stddef.h>

#define ROOK_TABLE_SIZE 102400    /* sum over squares of 2^popcount(mask) */
#define BISHOP_TABLE_SIZE 5248

static AttackTables tables;
static Bitboard rook_table[ROOK_TABLE_SIZE];
static Bitboard bishop_table[BISHOP_TABLE_SIZE];

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

/* Magic multipliers, a1..h8. They were found by trial (sparse candidates
 * from a fixed-seed xorshift64* generator, kept when no two blocker sets
 * needing different attacks share an index); init_slider re-checks that. */
static const Bitboard ROOK_MAGIC_NUMBERS[SQ_NB] = {
    0x1080004008801020ULL, 0x0840092002C03000ULL, 0x1900200010400900ULL, 0x0880100008000480ULL,
    0x4200100420080200ULL, 0x8100020100080400ULL, 0x0200040110886200ULL, 0x0200008040220411ULL,
    0x0404800084400220ULL, 0x0000401000402000ULL, 0x0086001081220440ULL, 0x0408800800100280ULL,
    0x000A001201040820ULL, 0x8848800200840080ULL, 0x4001000100040200ULL, 0x0442000102105084ULL,
    0x9080010020804100ULL, 0x0040404000201009ULL, 0x0000808010002009ULL, 0x2200090021D00100ULL,
    0x0008008008040080ULL, 0x0004004002010040ULL, 0x0011040008015042ULL, 0x00000A0001768104ULL,
    0x0000800080204009ULL, 0x2010004140002001ULL, 0x9800200280100080ULL, 0x1000100080080080ULL,
    0x0442000A00049020ULL, 0x2100040080020080ULL, 0x0800120400900148ULL, 0x0010040A00128541ULL,
    0x2800804000800030ULL, 0x1010002000400041ULL, 0x4000200011004100ULL, 0x0610008410800800ULL,
    0x0400802402800800ULL, 0xC100020080800400ULL, 0x0002000802000401ULL, 0x0182085882000401ULL,
    0x0220204000808000ULL, 0x2860100040024022ULL, 0x0001002004110040ULL, 0x99101042000A0020ULL,
    0x0004080004008080ULL, 0x0010040002008080ULL, 0x2012004881020004ULL, 0x8300842444820011ULL,
    0x0088403882010200ULL, 0x0820400080210100ULL, 0x0110910040A00300ULL, 0x0801100280080480ULL,
    0x0242009008200600ULL, 0x1002000489500200ULL, 0x0040800200010080ULL, 0x0091800041000080ULL,
    0x0000209300488001ULL, 0x04C1002414824001ULL, 0x020020000B001041ULL, 0x7000100004200901ULL,
    0x8002002004100802ULL, 0x30010002084C0007ULL, 0x0888221800813004ULL, 0x4000002840840112ULL,
};

static const Bitboard BISHOP_MAGIC_NUMBERS[SQ_NB] = {
    0x10102002004A1420ULL, 0x8020040400584008ULL, 0x10510800811201C8ULL, 0x5204042080000088ULL,
    0x2204106880000002ULL, 0x1401042004000000ULL, 0x0400880410042004ULL, 0x0028208200A02020ULL,
    0x1500241990010E00ULL, 0x8001200182020A40ULL, 0x40004101030B0000ULL, 0x8002041042000100ULL,
    0x4010011041020038ULL, 0x0000010421044000ULL, 0x1500210808020A00ULL, 0x8000088400880520ULL,
    0x0405004010040100ULL, 0x1005823210040108ULL, 0x2708008102040011ULL, 0x4048200404009100ULL,
    0x0018104101400024ULL, 0x0003000601190101ULL, 0x8004803108491000ULL, 0x8014241200820800ULL,
    0x0006E080100C3040ULL, 0x0501044A11041800ULL, 0x9020300008004045ULL, 0x0894080000220040ULL,
    0x1001010083104000ULL, 0x5004030040900080ULL, 0x000400422C012400ULL, 0x0002128698404812ULL,
    0x1010108404900440ULL, 0x0928021182084100ULL, 0x2006080409020024ULL, 0x1010202020180080ULL,
    0xA010008200202200ULL, 0x2098015100019004ULL, 0x0002041440810811ULL, 0x802A02020000B098ULL,
    0x0009015090004060ULL, 0x4000821082081001ULL, 0x0100210040420800ULL, 0x0800004010488A00ULL,
    0x2000081104004040ULL, 0x4C8E029015000082ULL, 0x0420340322224842ULL, 0x1298260043400210ULL,
    0x0000822802400008ULL, 0x00008A0101600000ULL, 0x3040003412080021ULL, 0x3040290220884800ULL,
    0x4A1500401041004AULL, 0x8010200282020781ULL, 0x0020203142209091ULL, 0x0070300600902110ULL,
    0x0040808800B62048ULL, 0x0000810400C44420ULL, 0x00080400440C0441ULL, 0x8340080020840411ULL,
    0x0000000104208200ULL, 0x0000800810D00080ULL, 0x0400530411080200ULL, 0x4040702400932244ULL,
};

/* Every subset of one direction's relevant blocker squares (at most 6, so
 * at most 64 subsets), each with the squares a slider reaches along that
 * direction when those are the blockers. */
typedef struct RaySegments {
    int count;
    Bitboard blockers[64];
    Bitboard reach[64];
} RaySegments;

static void ray_segments(Square s, Direction d, Bitboard relevant, RaySegments *out)
{
    Bitboard subset = 0;
    out->count = 0;
    do {   /* carry-rippler: the next subset of `relevant` */
        assert(out->count < 64);
        out->blockers[out->count] = subset;
        out->reach[out->count++] = ray_reach(s, d, subset);
        subset = (subset - relevant) & relevant;
    } while (subset);
}

/* Fills every square's slice of table: each subset of the square's blocker
 * mask indexes the attacks of a slider blocked by it. A subset of the mask
 * is one subset per direction (the directions' relevant squares are
 * disjoint), and its attacks are the union of what each direction's part
 * lets the slider reach; so the four directions' subsets are enumerated
 * once each and combined, instead of walking four rays for every subset. */
static void init_slider(AttMagic magics[SQ_NB], const Bitboard numbers[SQ_NB], Bitboard *table,
                        size_t table_size, const Direction dirs[4])
{
    Bitboard *slice = table;
    for (Square s = 0; s < SQ_NB; s++) {
        AttMagic *m = &magics[s];
        Bitboard edges = ((RANK_1_BB | RANK_8_BB) & ~rank_bb(rank_of(s)))
                       | ((FILE_A_BB | FILE_H_BB) & ~file_bb(file_of(s)));
        m->mask = walk_rays(s, dirs, 0) & ~edges;
        m->shift = (unsigned)(64 - bb_popcount(m->mask));
        m->magic = numbers[s];
        m->attacks = slice;
        RaySegments seg[4];
        for (int i = 0; i < 4; i++) ray_segments(s, dirs[i], tables.ray[s][dirs[i]] & m->mask, &seg[i]);
        /* The partial unions and the magic live in locals: stores into
         * the table could otherwise alias seg[] and *m and force reloads. */
        const AttMagic magic = *m;
        for (int a = 0; a < seg[0].count; a++) {
            Bitboard blockers_a = seg[0].blockers[a], reach_a = seg[0].reach[a];
            for (int b = 0; b < seg[1].count; b++) {
                Bitboard blockers_b = blockers_a | seg[1].blockers[b];
                Bitboard reach_b = reach_a | seg[1].reach[b];
                for (int c = 0; c < seg[2].count; c++) {
                    Bitboard blockers_c = blockers_b | seg[2].blockers[c];
                    Bitboard reach_c = reach_b | seg[2].reach[c];
                    for (int d = 0; d < seg[3].count; d++) {
                        Bitboard blockers = blockers_c | seg[3].blockers[d];
                        Bitboard attacks = reach_c | seg[3].reach[d];
                        Bitboard *entry = &slice[att_magic_index(&magic, blockers)];
                        assert(*entry == 0 || *entry == attacks);  /* attacks are never empty */
                        *entry = attacks;
                    }
                }
            }
        }
        slice += (size_t)1 << (64 - m->shift);
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
    init_rays_and_lines();   /* before the sliders: walk_rays reads the rays */
    for (Square s = 0; s < SQ_NB; s++) {
        tables.bishop_empty[s] = walk_rays(s, BISHOP_DIRS, 0);
        tables.rook_empty[s] = walk_rays(s, ROOK_DIRS, 0);
    }
    init_slider(tables.rook, ROOK_MAGIC_NUMBERS, rook_table, ROOK_TABLE_SIZE, ROOK_DIRS);
    init_slider(tables.bishop, BISHOP_MAGIC_NUMBERS, bishop_table, BISHOP_TABLE_SIZE, BISHOP_DIRS);
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
