/*
 * tests/unit/test_board_query.c — attacks, between, directions, ray, xray, pin and
 * pawn structure on positions whose answers can be checked on a board.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "chess/attacks.h"
#include "chess/board_query.h"
#include "chess/position.h"
#include "chess_test.h"

/* White R e1, black r e7, black k e8 (the reference's e-file example). */
static const char *const EFILE = "4k3/4r3/8/8/8/8/8/K3R3 w - - 0 1";

static Bitboard piece_set(const Position *pos, Piece p)
{
    return pos_pieces(pos, color_of(p), type_of(p));
}

static void test_attacks_are_colour_blind(void **state)
{
    (void)state;
    Position pos = position_from(EFILE);
    Bitboard R = piece_set(&pos, W_ROOK), r = piece_set(&pos, B_ROOK), k = piece_set(&pos, B_KING);
    assert_bb_equal(bq_attackers(&pos, R, r), squares("e1"));      /* R -> r */
    assert_bb_equal(bq_attacked(&pos, k, r), squares("e8"));       /* k <- r: own king */
    assert_bb_equal(bq_attackers(&pos, R, k), 0);                  /* blocked by r */
    assert_bb_equal(bq_attacks_of(&pos, SQ_E7), squares("e8 e6 e5 e4 e3 e2 e1 a7 b7 c7 d7 f7 g7 h7"));
    assert_bb_equal(bq_attacks_of(&pos, SQ_D4), 0);                /* empty square */
}

static void test_between_and_directions(void **state)
{
    (void)state;
    assert_bb_equal(bq_between(squares("a1"), squares("h8")), squares("b2 c3 d4 e5 f6 g7"));
    assert_bb_equal(bq_between(squares("a1"), squares("b3")), 0);
    assert_bb_equal(bq_between(squares("a1 h1"), squares("d1")), squares("b1 c1 e1 f1 g1"));
    assert_bb_equal(bq_direction(squares("e4"), 1u << DIR_N, 1, 1), squares("e5"));
    assert_bb_equal(bq_direction(squares("e4"), DIRS_DIAGONAL, 1, 1), squares("d3 f3 d5 f5"));
    assert_bb_equal(bq_direction(squares("e4"), 1u << DIR_N, 1, 3), squares("e5 e6 e7"));
    assert_bb_equal(bq_direction(squares("e4"), 1u << DIR_N, 2, 7), squares("e6 e7 e8"));
    assert_bb_equal(bq_direction(squares("h1"), 1u << DIR_E, 1, 7), 0);   /* off the board */
    /* 0 is the square itself, a negative distance goes the other way */
    assert_bb_equal(bq_direction(squares("e4"), 1u << DIR_N, 0, 0), squares("e4"));
    assert_bb_equal(bq_direction(squares("e4"), 1u << DIR_N, -1, 1), squares("e3 e4 e5"));
    assert_bb_equal(bq_direction(squares("e4"), 1u << DIR_S, -2, -1), squares("e5 e6"));
    assert_bb_equal(bq_direction(squares("e1"), DIRS_DIAGONAL, 0, 2), squares("e1 d2 f2 c3 g3"));
    assert_bb_equal(bq_direction(squares("a1"), 1u << DIR_E, -7, 7), squares("a1 b1 c1 d1 e1 f1 g1 h1"));
    assert_bb_equal(bb_shift(squares("a1 h8"), DIR_NE, 1), squares("b2"));
}

static void test_ray_and_xray(void **state)
{
    (void)state;
    Position pos = position_from(EFILE);
    Bitboard R = piece_set(&pos, W_ROOK), r = piece_set(&pos, B_ROOK), k = piece_set(&pos, B_KING);
    Bitboard empty = ~pos_occupied(&pos);
    Bitboard Rr[] = {R, r}, Rk[] = {R, k}, Rrk[] = {R, r, k};
    assert_bb_equal(bq_ray(&pos, DIRS_ALL, Rr, 2), squares("e7"));
    assert_bb_equal(bq_ray(&pos, DIRS_ALL, Rk, 2), 0);              /* r blocks */
    assert_bb_equal(bq_xray(&pos, Rrk, 3), squares("e8"));
    Bitboard a1_empty[] = {squares("a1"), empty};
    /* empty squares may separate consecutive arguments: every empty square to the right */
    assert_bb_equal(bq_ray(&pos, 1u << DIR_E, a1_empty, 2), squares("b1 c1 d1"));
    Bitboard start_after[] = {k, r};                                 /* reversed: starts */
    assert_bb_equal(bq_ray(&pos, DIRS_ORTHOGONAL, start_after, 2), squares("e7"));
    Bitboard Kr[] = {piece_set(&pos, W_KING), r};
    assert_bb_equal(bq_ray(&pos, DIRS_ALL, Kr, 2), 0);
    /* a knight first: xray needs a slider even where ray matches */
    Position kn = position_from("4k3/4r3/8/8/8/8/8/K3N3 w - - 0 1");
    Bitboard Nr[] = {piece_set(&kn, W_KNIGHT), piece_set(&kn, B_ROOK)};
    assert_bb_equal(bq_ray(&kn, DIRS_ALL, Nr, 2), squares("e7"));
    assert_bb_equal(bq_xray(&kn, Nr, 2), 0);
}

/* Arrow chains: lines from a slider meeting the sets in order, through empty
 * squares of middle sets; the starts, and the squares hit. */
static void test_arrow_chain(void **state)
{
    (void)state;
    Position pos = position_from("k7/8/8/8/8/P7/8/Q3K3 w - - 0 1");
    Bitboard hits;
    Bitboard sets[3] = {squares("a1"), squares("a3"), squares("a5 a6 a7 a8")};
    assert_bb_equal(bq_arrow_chain(&pos, sets, 3, &hits), squares("a1"));
    assert_bb_equal(hits, squares("a5 a6 a7 a8"));   /* empty hits go on; the king ends the line */
    Bitboard through_empty[3] = {squares("a1"), squares("c3"), squares("h8")};
    assert_bb_equal(bq_arrow_chain(&pos, through_empty, 3, &hits), squares("a1"));
    assert_bb_equal(hits, squares("h8"));
    Bitboard blocked[3] = {squares("a1"), squares("a4"), squares("a8")};
    assert_bb_equal(bq_arrow_chain(&pos, blocked, 3, &hits), 0);
    assert_bb_equal(hits, 0);
    Bitboard both_ways[4] = {squares("a1"), squares("a2 a3"), squares("a4"), squares("a8")};
    assert_bb_equal(bq_arrow_chain(&pos, both_ways, 4, &hits), squares("a1"));
    Bitboard king_starts[3] = {squares("e1"), squares("e2"), squares("e3")};
    assert_bb_equal(bq_arrow_chain(&pos, king_starts, 3, &hits), 0);
}

static void test_pin_values(void **state)
{
    (void)state;
    Position pos = position_from(EFILE);
    Bitboard all = pos_occupied(&pos), kings = pos.by_type[KING];
    assert_bb_equal(bq_pin(&pos, all, all, kings, PIN_PINNED), squares("e7"));
    assert_bb_equal(bq_pin(&pos, all, all, kings, PIN_PINNING), squares("e1"));
    assert_bb_equal(bq_pin(&pos, all, all, kings, PIN_PINNED_TO), squares("e8"));

    /* The seed's diagram: rb3 pins Pb5 to b6-b8; qd8 pins Pd7 to d6 and d5 (not
     * d4); Bb1 pins pe4 to f5 and kg6 (not h7); rb3 does not pin Bb1. */
    pos = position_from("3q4/3P4/6k1/1P1P4/4p3/1r6/7K/1B6 w - - 0 1");
    all = pos_occupied(&pos);
    kings = pos.by_type[KING];
    Bitboard every = ALL_SQUARES_BB;
    assert_bb_equal(bq_pin(&pos, all, all, every, PIN_PINNED), squares("b5 d7 e4"));
    assert_bb_equal(bq_pin(&pos, all, all, every, PIN_PINNED_TO), squares("b6 b7 b8 d6 d5 f5 g6"));
    assert_bb_equal(bq_pin(&pos, all, all, every, PIN_PINNING), squares("b3 d8 b1"));
    assert_bb_equal(bq_pin(&pos, all, all, kings, PIN_PINNED), squares("e4"));
    assert_bb_equal(bq_pin(&pos, all, all, kings, PIN_PINNING), squares("b1"));
    /* `pin to _`: the to-squares may be empty squares */
    assert_bb_equal(bq_pin(&pos, all, all, ~all, PIN_PINNED), squares("b5 d7 e4"));
}

static void test_pawn_structure(void **state)
{
    (void)state;
    /* white: a2 a3 (doubled, isolated), c4 d4 (connected), h5 (passed, isolated);
     * black: c6 (blocks c4 and d4), e5 */
    Position pos = position_from("4k3/8/2p5/4p2P/2PP4/P7/P7/4K3 w - - 0 1");
    assert_bb_equal(bq_doubled_pawns(&pos), squares("a2 a3"));
    assert_bb_equal(bq_isolated_pawns(&pos), squares("a2 a3 h5 c6 e5"));
    assert_bb_equal(bq_connected_pawns(&pos), squares("c4 d4"));
    assert_bb_equal(bq_passed_pawns(&pos), squares("a2 a3 h5"));
    Position start;
    pos_start(&start);
    assert_int_equal(bq_power(&start, start.by_color[WHITE]), 39);
    assert_int_equal(bq_power(&start, ALL_SQUARES_BB), 78);
}

/* The definition, pawn by pawn: no enemy pawn ahead on its file or the next. */
static Bitboard passed_by_definition(Bitboard own, Bitboard enemy, Color c)
{
    Bitboard passed = 0;
    for (Square s = 0; s < SQ_NB; s++) {
        if (!(own & sq_bb(s))) continue;
        bool blocked = false;
        for (Square t = 0; t < SQ_NB; t++) {
            bool ahead = c == WHITE ? rank_of(t) > rank_of(s) : rank_of(t) < rank_of(s);
            int df = file_of(t) - file_of(s);
            if ((enemy & sq_bb(t)) && ahead && df >= -1 && df <= 1) blocked = true;
        }
        if (!blocked) passed |= sq_bb(s);
    }
    return passed;
}

static void test_passed_pawns_match_the_definition(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    Bitboard middle = ~(RANK_1_BB | RANK_8_BB);
    for (int i = 0; i < 2000; i++) {
        Bitboard white = next_random(&seed) & next_random(&seed) & middle;
        Bitboard black = next_random(&seed) & next_random(&seed) & middle & ~white;
        Position pos;
        memset(&pos, 0, sizeof pos);
        pos.by_type[PAWN] = white | black;
        pos.by_color[WHITE] = white;
        pos.by_color[BLACK] = black;
        assert_bb_equal(bq_passed_pawns(&pos),
                        passed_by_definition(white, black, WHITE) | passed_by_definition(black, white, BLACK));
    }
}

/* bq_attackers with one target square (looked at from the square back to
 * the pieces) and with several (from each piece), against each piece's own
 * attacks, on random positions: pieces of every kind and colour scattered
 * over the board, random sets of attackers. */
static void test_attackers_match_each_piece_attacks(void **state)
{
    (void)state;
    uint64_t seed = 0x2545f4914f6cdd1dULL;
    for (int i = 0; i < 3000; i++) {
        Position pos;
        memset(&pos, 0, sizeof pos);
        for (Square s = 0; s < SQ_NB; s++) pos.board[s] = NO_PIECE;
        Bitboard occupied = next_random(&seed) & next_random(&seed);
        for (Bitboard b = occupied; b;) {
            Square s = bb_pop_lsb(&b);
            Color c = (Color)(next_random(&seed) & 1);
            PieceType t = (PieceType)(PAWN + next_random(&seed) % 6);
            pos.board[s] = (uint8_t)make_piece(c, t);
            pos.by_type[0] |= sq_bb(s);
            pos.by_type[t] |= sq_bb(s);
            pos.by_color[c] |= sq_bb(s);
        }
        Bitboard x = occupied & next_random(&seed);
        Bitboard y = next_random(&seed) & next_random(&seed) & next_random(&seed);
        Square t = (Square)(next_random(&seed) % SQ_NB);
        Bitboard expected_one = 0, expected = 0;
        for (Bitboard b = x; b;) {
            Square s = bb_pop_lsb(&b);
            Bitboard attacks = att_piece((Piece)pos.board[s], s, occupied);
            if (attacks & sq_bb(t)) expected_one |= sq_bb(s);
            if (attacks & y) expected |= sq_bb(s);
        }
        assert_bb_equal(bq_attackers(&pos, x, sq_bb(t)), expected_one);
        assert_bb_equal(bq_attackers(&pos, x, y), expected);
    }
}

int main(void)
{
    att_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attacks_are_colour_blind),
        cmocka_unit_test(test_between_and_directions),
        cmocka_unit_test(test_ray_and_xray),
        cmocka_unit_test(test_arrow_chain),
        cmocka_unit_test(test_pin_values),
        cmocka_unit_test(test_pawn_structure),
        cmocka_unit_test(test_passed_pawns_match_the_definition),
        cmocka_unit_test(test_attackers_match_each_piece_attacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
