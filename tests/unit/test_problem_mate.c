/*
 * tests/unit/test_problem_mate.c — pure, model and ideal mates and stalemates
 * (chess/problem_mate.h) on hand-made positions: the constructed positions of
 * shared/spec/cql62-remaining.md §11.4 with CQL 6.2's answers (value sets
 * included): flights blocked by the king's own men, a self-block guarded
 * with and without a pin, a flight guarded twice, double checks with and
 * without a needed parry, a pinned parrying piece, pieces that take part
 * only through a line.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "chess/movegen.h"
#include "chess/position.h"
#include "chess/problem_mate.h"
#include "chess_test.h"

/* One position and what each of the three classes says: 1 holds, 0 not;
 * `value` the participants when the pure class holds ("" when it does not). */
typedef struct Case {
    const char *fen;
    int pure, model, ideal;
    const char *value;
} Case;

static void check_case(const Case *c, ProblemMate pure, ProblemMate model, ProblemMate ideal)
{
    Position pos = position_from(c->fen);
    Bitboard value;
    const ProblemMate kinds[3] = {pure, model, ideal};
    const int want[3] = {c->pure, c->model, c->ideal};
    for (int k = 0; k < 3; k++) {
        bool holds = pm_classify(&pos, kinds[k], &value);
        if (holds != (want[k] == 1)) {
            print_error("%s: class %d: got %d, expected %d\n", c->fen, k, holds, want[k]);
            fail();
        }
        if (holds) assert_bb_equal(value, squares(c->value));
        else assert_bb_equal(value, 0);
    }
}

static void test_mates(void **state)
{
    (void)state;
    static const Case cases[] = {
        /* the queen guards g8 and h7, the king g7: each flight once */
        {"7k/6Q1/5K2/8/8/8/8/8 b - - 0 1", 1, 1, 1, "f6 g7 h8"},
        /* the back-rank mate: flights blocked by the king's own pawns, the white king idle */
        {"4R1k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", 1, 1, 0, "f7 g7 h7 e8 g8"},
        /* the self-block f7 is guarded by the bishop and not pinned */
        {"4R1k1/5ppp/8/8/8/1B6/8/6K1 b - - 0 1", 0, 0, 0, ""},
        /* h7 guarded twice (queen and king) */
        {"7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", 0, 0, 0, ""},
        /* White mated */
        {"8/8/8/8/8/5k2/6q1/7K w - - 0 1", 1, 1, 1, "h1 g2 f3"},
        /* double check, each needed: the rook d2 could parry either alone */
        {"7k/4N3/8/8/8/8/3r4/B3K2R b - - 0 1", 1, 1, 0, "a1 h1 e7 h8"},
        /* double check that Black could not parry anyway */
        {"7k/4N3/8/8/8/8/8/B3K2R b - - 0 1", 0, 0, 0, ""},
        /* the knight c4 covers b2 only: the rook's check is not needed */
        {"7k/4N3/8/8/2n5/8/8/B3K2R b - - 0 1", 0, 0, 0, ""},
        /* the parrying queen is pinned */
        {"Rq5k/4N3/8/8/8/8/8/B3K2R b - - 0 1", 0, 0, 0, ""},
        /* the same queen free */
        {"1q5k/4N3/8/8/8/8/8/B3K2R b - - 0 1", 1, 1, 0, "a1 h1 e7 h8"},
        /* a pinned self-block that could interpose on g8 but for its pin */
        {"4R2k/K2N2rp/8/8/3B4/8/8/8 b - - 0 1", 1, 1, 0, "d4 d7 g7 h7 e8 h8"},
        /* the knight b5 takes part only by standing on the queen's line b8-b2 */
        {"Rq5k/4N3/6P1/1N6/8/8/K7/Q7 b - - 0 1", 1, 1, 0, "a1 b5 g6 e7 a8 h8"},
        /* a black pawn b4 cuts that line: the knight is idle */
        {"Rq5k/4N3/6P1/1N6/1p6/8/K7/Q7 b - - 0 1", 1, 0, 0, "a1 g6 e7 a8 h8"},
        /* the black knight d4 stands between the bishop a7 and the white king */
        {"4R1k1/b4ppp/8/8/3n4/8/8/6K1 b - - 0 1", 1, 1, 0, "d4 f7 g7 h7 e8 g8"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(&cases[i], PM_PURE_MATE, PM_MODEL_MATE, PM_IDEAL_MATE);
}

static void test_stalemates(void **state)
{
    (void)state;
    static const Case cases[] = {
        {"k7/8/1K6/4B3/8/8/8/8 b - - 0 1", 1, 1, 1, "e5 b6 a8"},
        /* the white king is idle */
        {"k7/2Q5/8/8/8/8/8/K7 b - - 0 1", 1, 1, 0, "c7 a8"},
        /* b7 attacked twice (queen and king) */
        {"k7/2Q5/1K6/8/8/8/8/8 b - - 0 1", 0, 0, 0, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(&cases[i], PM_PURE_STALEMATE, PM_MODEL_STALEMATE, PM_IDEAL_STALEMATE);
}

/* A position that is neither mate nor stalemate is none of them, and a
 * mate is not a stalemate. */
static void test_other_positions(void **state)
{
    (void)state;
    Bitboard value = 1;
    Position start = position_from("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    for (int k = PM_PURE_MATE; k <= PM_IDEAL_STALEMATE; k++) {
        assert_false(pm_classify(&start, (ProblemMate)k, &value));
        assert_bb_equal(value, 0);
    }
    Position mate = position_from("7k/6Q1/5K2/8/8/8/8/8 b - - 0 1");
    assert_false(pm_classify(&mate, PM_PURE_STALEMATE, &value));
    Position stalemate = position_from("k7/8/1K6/4B3/8/8/8/8 b - - 0 1");
    assert_false(pm_classify(&stalemate, PM_PURE_MATE, &value));
}

int main(void)
{
    att_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mates),
        cmocka_unit_test(test_stalemates),
        cmocka_unit_test(test_other_positions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
