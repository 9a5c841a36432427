/*
 * tests/unit/test_movegen.c — legal and pseudo-legal generation, mate, stalemate, perft.
 *
 * The fast pin/check-aware legal generator is compared with the slow
 * definition: pseudo-legal moves kept when, after making them, the mover's
 * king is not attacked.
 *
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
#include "chess/movegen.h"
#include "chess/position.h"
#include "chess/san.h"
#include "chess_test.h"

static bool list_contains(const MoveList *list, Move m)
{
    for (int i = 0; i < list->count; i++)
        if (list->moves[i] == m) return true;
    return false;
}

static Move uci_move(const Position *pos, const char *uci)
{
    Move m;
    assert_int_equal(san_parse(pos, uci, strlen(uci), &m), SAN_OK);
    return m;
}

static bool mover_king_safe_after(const Position *pos, Move m)
{
    Position child = *pos;
    Color us = (Color)pos->side;
    pos_make_move(&child, m);
    return !(pos_attackers_to(&child, pos_king(&child, us), pos_occupied(&child))
             & child.by_color[other_color(us)]);
}

/* The legal list is exactly the pseudo-legal moves that pass the slow
 * test; mg_is_legal agrees on every pseudo-legal move; no duplicates. */
static void check_generators_agree(const Position *pos)
{
    MoveList pseudo, legal;
    mg_pseudo_legal(pos, &pseudo);
    mg_legal(pos, &legal);
    int expected = 0;
    for (int i = 0; i < pseudo.count; i++) {
        Move m = pseudo.moves[i];
        bool safe = mover_king_safe_after(pos, m);
        for (int j = i + 1; j < pseudo.count; j++) assert_true(pseudo.moves[j] != m);
        assert_int_equal(mg_is_legal(pos, m), safe);
        assert_int_equal(list_contains(&legal, m), safe);
        expected += safe;
    }
    assert_int_equal(legal.count, expected);
    assert_int_equal(mg_has_legal_move(pos), legal.count > 0);
    if (pos_in_check(pos)) assert_int_equal(mg_has_legal_move_in_check(pos), legal.count > 0);
    assert_int_equal(mg_is_mate(pos), legal.count == 0 && pos_in_check(pos));
    assert_int_equal(mg_is_stalemate(pos), legal.count == 0 && !pos_in_check(pos));
}

static const char *const STARTS[] = {
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 0 1",
        "2r5/8/8/8/8/8/6PP/k2KR3 w K - 0 1",
};

static void test_generators_agree_on_random_games(void **state)
{
    (void)state;
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    int positions = 0;
    for (size_t s = 0; s < sizeof STARTS / sizeof STARTS[0]; s++) {
        for (int game = 0; game < 30; game++) {
            Position pos = position_from(STARTS[s]);
            for (int ply = 0; ply < 120; ply++) {
                check_generators_agree(&pos);
                positions++;
                MoveList list;
                mg_legal(&pos, &list);
                if (list.count == 0) break;
                pos_make_move(&pos, list.moves[next_random(&seed) % (uint64_t)list.count]);
            }
        }
    }
    assert_true(positions > 5000);
}

/* mg_has_legal_move_in_check (the king's steps, then the other pieces'
 * moves onto the checker or between, pawn pushes of one and two squares
 * and promotions included) against the generator, at every position in
 * check of many random games, captures and checks preferred so that the
 * games reach checks, double checks and mates. */
static void test_has_legal_move_in_check_on_random_games(void **state)
{
    (void)state;
    uint64_t seed = 0x2545F4914F6CDD1DULL;
    int checks = 0, mates = 0, double_checks = 0;
    for (size_t s = 0; s < sizeof STARTS / sizeof STARTS[0]; s++) {
        for (int game = 0; game < 400; game++) {
            Position pos = position_from(STARTS[s]);
            for (int ply = 0; ply < 200; ply++) {
                MoveList list;
                mg_legal(&pos, &list);
                if (pos_in_check(&pos)) {
                    assert_int_equal(mg_has_legal_move_in_check(&pos), list.count > 0);
                    checks++;
                    mates += list.count == 0;
                    double_checks += bb_more_than_one(pos_checkers(&pos));
                }
                if (list.count == 0) break;
                /* a move that captures or checks, when one of 4 random picks is one */
                Move m = list.moves[next_random(&seed) % (uint64_t)list.count];
                for (int pick = 0; pick < 4; pick++) {
                    Move other = list.moves[next_random(&seed) % (uint64_t)list.count];
                    Position after = pos;
                    pos_make_move(&after, other);
                    if (pos_in_check(&after) || pos_piece_on(&pos, move_to(other)) != NO_PIECE) {
                        m = other;
                        break;
                    }
                }
                pos_make_move(&pos, m);
            }
        }
    }
    assert_true(checks > 30000);
    assert_true(mates > 150);
    assert_true(double_checks > 30);
}

/* Whether a legal move exists (mg_has_legal_move tries a few moves before
 * it generates any): right at every position of the perft files (pins,
 * checks, en passant, castling, Chess960) and every position one and two
 * moves on. */
static void has_legal_move_agrees(const Position *pos, int depth, int *positions)
{
    MoveList legal;
    mg_legal(pos, &legal);
    assert_int_equal(mg_has_legal_move(pos), legal.count > 0);
    if (pos_in_check(pos)) assert_int_equal(mg_has_legal_move_in_check(pos), legal.count > 0);
    (*positions)++;
    if (depth == 0) return;
    for (int i = 0; i < legal.count; i++) {
        Position child = *pos;
        pos_make_move(&child, legal.moves[i]);
        has_legal_move_agrees(&child, depth - 1, positions);
    }
}

static void has_legal_move_agrees_two_moves_on(char *fen, void *positions)
{
    Position pos = position_from(fen);
    has_legal_move_agrees(&pos, 2, positions);
}

static void test_has_legal_move_on_perft_positions(void **state)
{
    (void)state;
    static const char *const FILES[] = {
        "tests/data/perft/perftsuite.epd", "tests/data/perft/python-chess-tricky.perft",
        "tests/data/perft/python-chess-chess960.perft",
    };
    int positions = 0;
    for_each_perft_fen(FILES, sizeof FILES / sizeof FILES[0], has_legal_move_agrees_two_moves_on, &positions);
    assert_true(positions > 100000);
    /* none of the moves tried first is there: the only legal move is
     * black's en-passant capture c4xd3 */
    Position pos = position_from("8/8/8/8/2pP4/2B2N2/5K2/7k b - d3 0 1");
    assert_true(mg_has_legal_move(&pos));
    assert_false(mg_is_stalemate(&pos));
    /* the same without the en-passant right: stalemate */
    pos = position_from("8/8/8/8/2pP4/2B2N2/5K2/7k b - - 0 1");
    assert_false(mg_has_legal_move(&pos));
    assert_true(mg_is_stalemate(&pos));
}

static void test_small_perft(void **state)
{
    (void)state;
    Position pos;
    pos_start(&pos);
    assert_int_equal(mg_perft(&pos, 0), 1);
    assert_int_equal(mg_perft(&pos, 1), 20);
    assert_int_equal(mg_perft(&pos, 2), 400);
    assert_int_equal(mg_perft(&pos, 3), 8902);
    pos = position_from("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    assert_int_equal(mg_perft(&pos, 1), 48);
    assert_int_equal(mg_perft(&pos, 2), 2039);
}

static void test_mate_and_stalemate(void **state)
{
    (void)state;
    /* Fool's mate. */
    Position pos = position_from("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    assert_true(mg_is_mate(&pos));
    assert_false(mg_is_stalemate(&pos));
    assert_false(mg_has_legal_move(&pos));
    /* Stalemate. */
    pos = position_from("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert_true(mg_is_stalemate(&pos));
    assert_false(mg_is_mate(&pos));
    /* In check with a way out. */
    pos = position_from("4k3/8/8/8/8/8/3q4/4K3 w - - 0 1");
    assert_true(pos_in_check(&pos));
    assert_false(mg_is_mate(&pos));
    assert_true(mg_has_legal_move(&pos));
    /* Chess960: the king on g1 cannot step to the attacked f1, but
     * castling short (king stays, rook h1 to f1) is legal. */
    pos = position_from("5rk1/8/8/8/8/8/6PP/6KR w H - 0 1");
    MoveList list;
    mg_legal(&pos, &list);
    assert_true(list_contains(&list, move_make(SQ_G1, SQ_G1, NO_PIECE_TYPE, MK_CASTLE_SHORT)));
    assert_false(list_contains(&list, move_make(SQ_G1, SQ_F1, NO_PIECE_TYPE, MK_NORMAL)));
}

static void test_castling_rules(void **state)
{
    (void)state;
    MoveList list;
    /* Free to castle both ways. */
    Position pos = position_from("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_int_not_equal(mg_castle_move(&pos, CASTLE_SHORT), MOVE_NONE);
    assert_int_not_equal(mg_castle_move(&pos, CASTLE_LONG), MOVE_NONE);
    assert_int_equal(mg_castle_move(&pos, CASTLE_SHORT),
                     move_make(SQ_E1, SQ_G1, NO_PIECE_TYPE, MK_CASTLE_SHORT));
    /* Not out of check, through check or into check; b1 may be attacked. */
    pos = position_from("4k3/4r3/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert_int_equal(mg_castle_move(&pos, CASTLE_SHORT), MOVE_NONE);
    assert_int_equal(mg_castle_move(&pos, CASTLE_LONG), MOVE_NONE);
    pos = position_from("4k3/5r2/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert_int_equal(mg_castle_move(&pos, CASTLE_SHORT), MOVE_NONE);
    assert_int_not_equal(mg_castle_move(&pos, CASTLE_LONG), MOVE_NONE);
    pos = position_from("4k3/2r5/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert_int_equal(mg_castle_move(&pos, CASTLE_LONG), MOVE_NONE);
    pos = position_from("4k3/1r6/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert_int_not_equal(mg_castle_move(&pos, CASTLE_LONG), MOVE_NONE);
    /* Blocked. */
    pos = position_from("4k3/8/8/8/8/8/8/RN2K1NR w KQ - 0 1");
    assert_int_equal(mg_castle_move(&pos, CASTLE_SHORT), MOVE_NONE);
    assert_int_equal(mg_castle_move(&pos, CASTLE_LONG), MOVE_NONE);
    assert_int_equal(mg_castle_move_made(&pos, CASTLE_SHORT), MOVE_NONE);
    assert_int_equal(mg_castle_move_made(&pos, CASTLE_LONG), MOVE_NONE);
    /* Through check: not legal, but it can be made (a sidecar's codes). */
    pos = position_from("4k3/5r2/8/8/8/8/8/R3K2R w K - 0 1");
    assert_int_equal(mg_castle_move(&pos, CASTLE_SHORT), MOVE_NONE);
    assert_int_equal(mg_castle_move_made(&pos, CASTLE_SHORT),
                     move_make(SQ_E1, SQ_G1, NO_PIECE_TYPE, MK_CASTLE_SHORT));
    assert_int_equal(mg_castle_move_made(&pos, CASTLE_LONG), MOVE_NONE);   /* no right */
    /* Castling is pseudo-legal only when fully allowed. */
    pos = position_from("4k3/4r3/8/8/8/8/8/R3K2R w KQ - 0 1");
    mg_pseudo_legal(&pos, &list);
    for (int i = 0; i < list.count; i++) assert_false(move_is_castle(list.moves[i]));
    /* Chess960: the castling rook shields c1 from the a1 rook. */
    pos = position_from("4k3/8/8/8/8/8/8/rR1K4 w B - 0 1");
    assert_int_equal(mg_castle_move(&pos, CASTLE_LONG), MOVE_NONE);
    /* Chess960: a piece between the rook and its destination blocks. */
    pos = position_from("4k3/8/8/8/8/8/8/1K3NR1 w G - 0 1");
    assert_int_equal(mg_castle_move(&pos, CASTLE_SHORT), MOVE_NONE);
}

static void test_pins_checks_and_en_passant(void **state)
{
    (void)state;
    MoveList list;
    /* En passant would expose the king along the fifth rank. */
    Position pos = position_from("1b1k4/8/8/1rPpK3/8/8/8/8 w - d6 0 1");
    mg_legal(&pos, &list);
    assert_false(list_contains(&list, move_make(SQ_C5, SQ_D6, NO_PIECE_TYPE, MK_EN_PASSANT)));
    assert_int_equal(list.count, 5);
    /* En passant that captures the checking pawn. */
    pos = position_from("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1");
    assert_true(pos_in_check(&pos));
    mg_legal(&pos, &list);
    assert_true(list_contains(&list, move_make(SQ_E4, SQ_D3, NO_PIECE_TYPE, MK_EN_PASSANT)));
    /* Double check: only king moves. */
    pos = position_from("4k3/8/8/8/1b6/5n2/8/4K2R w K - 0 1");
    assert_int_equal(bb_popcount(pos_checkers(&pos)), 2);
    mg_legal(&pos, &list);
    for (int i = 0; i < list.count; i++) assert_int_equal(move_from(list.moves[i]), SQ_E1);
    /* A pinned rook moves only along the pin. */
    pos = position_from("4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1");
    mg_legal(&pos, &list);
    for (int i = 0; i < list.count; i++)
        if (move_from(list.moves[i]) == SQ_E2) assert_int_equal(file_of(move_to(list.moves[i])), 4);
    assert_true(mg_is_legal(&pos, uci_move(&pos, "e2e7")));
    /* Promotions come in fours. */
    pos = position_from("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    mg_legal(&pos, &list);
    int promotions = 0;
    for (int i = 0; i < list.count; i++) promotions += move_kind(list.moves[i]) == MK_PROMOTION;
    assert_int_equal(promotions, 4);
    /* The null move is legal unless in check. */
    pos_start(&pos);
    assert_true(mg_is_legal(&pos, MOVE_NULL));
    pos = position_from("4k3/8/8/8/8/8/3q4/4K3 w - - 0 1");
    assert_false(mg_is_legal(&pos, MOVE_NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generators_agree_on_random_games),
        cmocka_unit_test(test_has_legal_move_in_check_on_random_games),
        cmocka_unit_test(test_has_legal_move_on_perft_positions),
        cmocka_unit_test(test_small_perft),
        cmocka_unit_test(test_mate_and_stalemate),
        cmocka_unit_test(test_castling_rules),
        cmocka_unit_test(test_pins_checks_and_en_passant),
    };
    return cmocka_run_group_tests(tests, chess_setup, NULL);
}
