/*
 * tests/unit/test_bitboard.c — unit tests of squares, pieces and bit helpers.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "chess/bitboard.h"

static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static void test_square_names_round_trip(void **state)
{
    (void)state;
    for (Square s = 0; s < SQ_NB; s++) {
        char name[3];
        sq_name(s, name);
        assert_int_equal(strlen(name), 2);
        assert_int_equal(sq_parse(name), s);
    }
    char name[3];
    sq_name(SQ_E4, name);
    assert_string_equal(name, "e4");
    assert_int_equal(sq_parse("a1"), SQ_A1);
    assert_int_equal(sq_parse("h8"), SQ_H8);
    assert_int_equal(sq_parse("i1"), SQ_NONE);
    assert_int_equal(sq_parse("a9"), SQ_NONE);
    assert_int_equal(sq_parse("A1"), SQ_NONE);
    assert_int_equal(sq_parse("a"), SQ_NONE);
    assert_int_equal(sq_parse(""), SQ_NONE);
}

static void test_square_geometry(void **state)
{
    (void)state;
    assert_int_equal(file_of(SQ_E4), 4);
    assert_int_equal(rank_of(SQ_E4), 3);
    assert_int_equal(make_square(7, 7), SQ_H8);
    assert_true(file_bb(0) == FILE_A_BB && file_bb(7) == FILE_H_BB);
    assert_true(rank_bb(0) == RANK_1_BB && rank_bb(7) == RANK_8_BB);
    assert_true(LIGHT_SQUARES_BB & sq_bb(SQ_H1));
    assert_true(DARK_SQUARES_BB & sq_bb(SQ_A1));
    assert_true((LIGHT_SQUARES_BB | DARK_SQUARES_BB) == ALL_SQUARES_BB);
}

static void test_piece_letters(void **state)
{
    (void)state;
    const char *letters = "PNBRQKpnbrqk";
    for (const char *c = letters; *c; c++) {
        Piece p = piece_from_char(*c);
        assert_int_not_equal(p, NO_PIECE);
        assert_int_equal(piece_char(p), *c);
        assert_int_equal(color_of(p), *c >= 'a' ? BLACK : WHITE);
        assert_int_equal(make_piece(color_of(p), type_of(p)), p);
    }
    assert_int_equal(piece_from_char('N'), W_KNIGHT);
    assert_int_equal(piece_from_char('k'), B_KING);
    assert_int_equal(piece_from_char('x'), NO_PIECE);
    assert_int_equal(piece_from_char(' '), NO_PIECE);
    assert_int_equal(piece_from_char('\0'), NO_PIECE);
    assert_int_equal(piece_type_char(PAWN), 'P');
    assert_int_equal(piece_type_char(KNIGHT), 'N');
    assert_int_equal(piece_type_char(KING), 'K');
    assert_int_equal(other_color(WHITE), BLACK);
    assert_int_equal(type_of(B_QUEEN), QUEEN);
}

static void test_bit_helpers_match_naive_loops(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    for (int i = 0; i < 10000; i++) {
        Bitboard b = next_random(&seed) & next_random(&seed);
        if (i % 3 == 0) b &= next_random(&seed);
        if (!b) continue;
        int count = 0, low = -1, high = -1;
        for (Square s = 0; s < SQ_NB; s++)
            if (b & sq_bb(s)) {
                count++;
                if (low < 0) low = s;
                high = s;
            }
        assert_int_equal(bb_popcount(b), count);
        assert_int_equal(bb_lsb(b), low);
        assert_int_equal(bb_msb(b), high);
        assert_int_equal(bb_more_than_one(b), count > 1);
        Bitboard copy = b;
        assert_int_equal(bb_pop_lsb(&copy), low);
        assert_int_equal(bb_popcount(copy), count - 1);
    }
    assert_int_equal(bb_popcount(0), 0);
    assert_int_equal(bb_popcount(ALL_SQUARES_BB), 64);
    assert_int_equal(bb_lsb(sq_bb(SQ_H8)), SQ_H8);
    assert_int_equal(bb_msb(1), SQ_A1);
    assert_false(bb_more_than_one(0));
}

static void test_diagram(void **state)
{
    (void)state;
    char out[BB_DIAGRAM_SIZE];
    bb_diagram(sq_bb(SQ_A1) | sq_bb(SQ_H8) | sq_bb(SQ_E4), out);
    assert_string_equal(out, "8 . . . . . . . x\n"
                             "7 . . . . . . . .\n"
                             "6 . . . . . . . .\n"
                             "5 . . . . . . . .\n"
                             "4 . . . . x . . .\n"
                             "3 . . . . . . . .\n"
                             "2 . . . . . . . .\n"
                             "1 x . . . . . . .\n"
                             "  a b c d e f g h\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_square_names_round_trip),
        cmocka_unit_test(test_square_geometry),
        cmocka_unit_test(test_piece_letters),
        cmocka_unit_test(test_bit_helpers_match_naive_loops),
        cmocka_unit_test(test_diagram),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
