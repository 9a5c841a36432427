/*
 * tests/unit/test_attacks.c — attack tables against a naive ray-walking reference.
 *
 * The reference below walks the board one step at a time with explicit
 * file/rank arithmetic and never touches the tables, so every table entry
 * (leapers for all squares, sliders for all squares on random occupancies
 * of several densities, rays, between and line) is checked independently.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "chess/attacks.h"
#include "chess_test.h"

static bool on_board(int file, int rank) { return file >= 0 && file < 8 && rank >= 0 && rank < 8; }

/* The squares reached from s in direction d, stopping at the first member
 * of occ (included), or at the edge. */
static Bitboard naive_ray(Square s, int d, Bitboard occ)
{
    Bitboard b = 0;
    int f = file_of(s) + dir_file_step[d], r = rank_of(s) + dir_rank_step[d];
    for (; on_board(f, r); f += dir_file_step[d], r += dir_rank_step[d]) {
        b |= sq_bb(make_square(f, r));
        if (occ & sq_bb(make_square(f, r))) break;
    }
    return b;
}

static Bitboard naive_slider(Square s, bool diagonal, Bitboard occ)
{
    Bitboard b = 0;
    for (int d = diagonal ? 1 : 0; d < DIR_NB; d += 2) b |= naive_ray(s, d, occ);
    return b;
}

static Bitboard naive_leaper(Square s, const int (*offsets)[2], int count)
{
    Bitboard b = 0;
    for (int i = 0; i < count; i++) {
        int f = file_of(s) + offsets[i][0], r = rank_of(s) + offsets[i][1];
        if (on_board(f, r)) b |= sq_bb(make_square(f, r));
    }
    return b;
}

static void test_leapers(void **state)
{
    (void)state;
    static const int KNIGHT_STEPS[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2},
                                     {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
    static const int KING_STEPS[8][2] = {{0, 1}, {1, 1}, {1, 0}, {1, -1},
                                   {0, -1}, {-1, -1}, {-1, 0}, {-1, 1}};
    static const int WHITE_PAWN[2][2] = {{-1, 1}, {1, 1}};
    static const int BLACK_PAWN[2][2] = {{-1, -1}, {1, -1}};
    for (Square s = 0; s < SQ_NB; s++) {
        assert_bb_equal(att_knight(s), naive_leaper(s, KNIGHT_STEPS, 8));
        assert_bb_equal(att_king(s), naive_leaper(s, KING_STEPS, 8));
        assert_bb_equal(att_pawn(WHITE, s), naive_leaper(s, WHITE_PAWN, 2));
        assert_bb_equal(att_pawn(BLACK, s), naive_leaper(s, BLACK_PAWN, 2));
        assert_bb_equal(att_piece(W_KNIGHT, s, 0), att_knight(s));
        assert_bb_equal(att_piece(B_PAWN, s, 0), att_pawn(BLACK, s));
        assert_bb_equal(att_piece(W_KING, s, ALL_SQUARES_BB), att_king(s));
    }
    assert_bb_equal(att_knight(SQ_A1), sq_bb(SQ_B3) | sq_bb(SQ_C2));
    assert_bb_equal(att_pawn(WHITE, SQ_E4), sq_bb(SQ_D5) | sq_bb(SQ_F5));
    assert_bb_equal(att_pawn(BLACK, SQ_A5), sq_bb(SQ_B4));
}

static void test_sliders_on_random_occupancies(void **state)
{
    (void)state;
    uint64_t seed = 0xC0FFEE;
    for (int trial = 0; trial < 300; trial++) {
        Bitboard occ = next_random(&seed);
        for (int k = 0; k < trial % 4; k++)   /* about 1/2, 1/4, 1/8 or 1/16 of the board */
            occ &= next_random(&seed);
        for (Square s = 0; s < SQ_NB; s++) {
            Bitboard rook = naive_slider(s, false, occ), bishop = naive_slider(s, true, occ);
            assert_bb_equal(att_rook(s, occ), rook);
            assert_bb_equal(att_bishop(s, occ), bishop);
            assert_bb_equal(att_queen(s, occ), rook | bishop);
            assert_bb_equal(att_piece(B_ROOK, s, occ), rook);
            assert_bb_equal(att_piece(W_BISHOP, s, occ), bishop);
            assert_bb_equal(att_piece(W_QUEEN, s, occ), rook | bishop);
        }
    }
    /* The edges and the slider's own square do not matter. */
    for (Square s = 0; s < SQ_NB; s++) {
        assert_bb_equal(att_rook(s, 0), naive_slider(s, false, 0));
        assert_bb_equal(att_rook_empty(s), naive_slider(s, false, 0));
        assert_bb_equal(att_bishop_empty(s), naive_slider(s, true, 0));
        assert_bb_equal(att_rook(s, ALL_SQUARES_BB), naive_slider(s, false, ALL_SQUARES_BB));
        assert_bb_equal(att_bishop(s, sq_bb(s)), att_bishop(s, 0));
    }
    assert_bb_equal(att_rook(SQ_A1, sq_bb(SQ_A3) | sq_bb(SQ_C1)),
                    sq_bb(SQ_A2) | sq_bb(SQ_A3) | sq_bb(SQ_B1) | sq_bb(SQ_C1));
}

static void test_rays(void **state)
{
    (void)state;
    for (Square s = 0; s < SQ_NB; s++)
        for (int d = 0; d < DIR_NB; d++)
            assert_bb_equal(att_ray(s, (Direction)d), naive_ray(s, d, 0));
    assert_bb_equal(att_ray(SQ_E4, DIR_N), sq_bb(SQ_E5) | sq_bb(SQ_E6) | sq_bb(SQ_E7) | sq_bb(SQ_E8));
    assert_bb_equal(att_ray(SQ_C3, DIR_SW), sq_bb(SQ_B2) | sq_bb(SQ_A1));
    assert_bb_equal(att_ray(SQ_H4, DIR_E), 0);
    assert_int_equal(dir_file_step[DIR_N], 0);
    assert_int_equal(dir_rank_step[DIR_N], 1);
    assert_int_equal(dir_file_step[DIR_NW], -1);
}

static void test_between_and_line(void **state)
{
    (void)state;
    for (Square a = 0; a < SQ_NB; a++) {
        Bitboard expected_between[SQ_NB] = {0}, expected_line[SQ_NB] = {0};
        for (int d = 0; d < DIR_NB; d++) {
            Bitboard line = naive_ray(a, d, 0) | naive_ray(a, (d + 4) % DIR_NB, 0) | sq_bb(a);
            for (Bitboard ray = naive_ray(a, d, 0); ray; ) {
                Square b = bb_pop_lsb(&ray);
                expected_between[b] = naive_ray(a, d, sq_bb(b)) & ~sq_bb(b);
                expected_line[b] = line;
            }
        }
        for (Square b = 0; b < SQ_NB; b++) {
            assert_bb_equal(att_between(a, b), expected_between[b]);
            assert_bb_equal(att_line(a, b), expected_line[b]);
            assert_bb_equal(att_between(a, b), att_between(b, a));
            assert_bb_equal(att_line(a, b), att_line(b, a));
        }
    }
    assert_bb_equal(att_between(SQ_A1, SQ_D4), sq_bb(SQ_B2) | sq_bb(SQ_C3));
    assert_bb_equal(att_between(SQ_A1, SQ_B3), 0);
    assert_bb_equal(att_between(SQ_E4, SQ_E4), 0);
    assert_bb_equal(att_line(SQ_B2, SQ_C3), 0x8040201008040201ULL);
    assert_bb_equal(att_line(SQ_A1, SQ_B3), 0);
    assert_bb_equal(att_line(SQ_E4, SQ_E4), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leapers),
        cmocka_unit_test(test_sliders_on_random_occupancies),
        cmocka_unit_test(test_rays),
        cmocka_unit_test(test_between_and_line),
    };
    return cmocka_run_group_tests(tests, chess_setup, NULL);
}
