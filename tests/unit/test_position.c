/*
 * tests/unit/test_position.c — FEN in and out, FEN errors, make move, keys, invariants.
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

static void assert_fen(const Position *pos, const char *expected)
{
    char fen[FEN_MAX];
    size_t n = pos_to_fen(pos, fen);
    assert_int_equal(n, strlen(fen));
    assert_string_equal(fen, expected);
}

/* Plays moves given in SAN, each checked to be legal. */
static void play(Position *pos, const char *moves)
{
    const char *p = moves;
    while (*p) {
        while (*p == ' ') p++;
        const char *end = p;
        while (*end && *end != ' ') end++;
        if (end == p) break;
        Move m;
        SanStatus status = san_parse(pos, p, (size_t)(end - p), &m);
        if (status != SAN_OK) {
            print_error("move '%.*s' refused (%d)\n", (int)(end - p), p, (int)status);
            fail();
        }
        pos_make_move(pos, m);
        assert_true(pos_is_ok(pos));
        p = end;
    }
}

/* The FEN after playing the SAN moves (space-separated) from fen. */
static void assert_after(const char *fen, const char *moves, const char *expected)
{
    Position pos = position_from(fen);
    play(&pos, moves);
    assert_fen(&pos, expected);
}

/* ====================================================================
 * FEN round trip
 * ==================================================================== */

static void test_start_position(void **state)
{
    (void)state;
    Position pos;
    pos_start(&pos);
    assert_fen(&pos, POS_START_FEN);
    assert_int_equal(pos.side, WHITE);
    assert_int_equal(pos.castle_rook[WHITE][CASTLE_SHORT], SQ_H1);
    assert_int_equal(pos.castle_rook[WHITE][CASTLE_LONG], SQ_A1);
    assert_int_equal(pos.castle_rook[BLACK][CASTLE_SHORT], SQ_H8);
    assert_int_equal(pos.castle_rook[BLACK][CASTLE_LONG], SQ_A8);
    assert_int_equal(pos.ep, SQ_NONE);
    assert_false(pos.chess960);
    assert_int_equal(pos_piece_on(&pos, SQ_E1), W_KING);
    assert_int_equal(pos_piece_on(&pos, SQ_D8), B_QUEEN);
    assert_int_equal(pos_king(&pos, BLACK), SQ_E8);
    assert_int_equal(bb_popcount(pos_occupied(&pos)), 32);
    assert_true(pos_pieces(&pos, WHITE, PAWN) == 0xFF00ULL);
    assert_false(pos_in_check(&pos));
}

/* The perft files whose every FEN the tests below go over. */
static const char *const PERFT_FILES[] = {
    "tests/data/perft/perftsuite.epd", "tests/data/perft/cpw-perft-results.epd",
    "tests/data/perft/python-chess-tricky.perft", "tests/data/perft/python-chess-chess960.perft",
};
#define PERFT_FILE_COUNT (sizeof PERFT_FILES / sizeof PERFT_FILES[0])

/* Every FEN of the perft files reads and writes back unchanged (EPD lines
 * gain the default counters "0 1"), except Shredder castling (HFhf), which
 * is written as X-FEN: then reading the output gives the same position. */
static void fen_round_trips(char *fen, void *ctx)
{
    (void)ctx;
    size_t len = strlen(fen);
    while (len && fen[len - 1] == ' ') fen[--len] = '\0';
    int fields = 1;
    for (char *c = fen; *c; c++) fields += *c == ' ';
    char expected[600];
    snprintf(expected, sizeof expected, "%s%s", fen, fields == 4 ? " 0 1" : "");
    Position pos = position_from(fen);
    char written[FEN_MAX];
    pos_to_fen(&pos, written);
    if (strspn(strchr(strchr(fen, ' ') + 1, ' ') + 1, "KQkq-") > 0)
        assert_string_equal(written, expected);
    Position again = position_from(written);
    assert_true(pos_same(&pos, &again));
    assert_true(pos_key(&pos) == pos_key(&again));
}

static void test_fen_round_trip_on_data_files(void **state)
{
    (void)state;
    assert_true(for_each_perft_fen(PERFT_FILES, PERFT_FILE_COUNT, fen_round_trips, NULL) > 1000);
}

static void test_fen_round_trip_assorted(void **state)
{
    (void)state;
    static const char *const FENS[] = {
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",
        "4k3/8/8/8/8/8/8/4K3 w - - 99 200",
        "4k3/8/8/8/8/8/8/4K3 b - - 65535 65535",
        "r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1",
        "rr2k1rr/8/8/8/8/8/8/RR2K1RR w GBgb - 0 1",          /* inner rooks: files */
        "rk5r/8/8/8/8/8/8/RK5R w KQkq - 0 1",                /* Chess960 X-FEN */
        "1rk1r1r1/8/8/8/8/8/8/1RK1R1R1 w Eq - 0 1",         /* X-FEN mixes both */
        "8/8/8/8/8/8/8/k1K5 w - - 0 1",
    };
    for (size_t i = 0; i < sizeof FENS / sizeof FENS[0]; i++) {
        Position pos = position_from(FENS[i]);
        assert_fen(&pos, FENS[i]);
    }
}

static void test_fen_lenient_forms(void **state)
{
    (void)state;
    /* EPD: four fields. */
    Position pos = position_from("4k3/8/8/8/8/8/8/4K3 w - -");
    assert_fen(&pos, "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    /* Five fields, extra spaces, fullmove 0 (common dirt) read as 1. */
    pos = position_from("  4k3/8/8/8/8/8/8/4K3   b  -  -  7 ");
    assert_fen(&pos, "4k3/8/8/8/8/8/8/4K3 b - - 7 1");
    pos = position_from("4k3/8/8/8/8/8/8/4K3 w - - 0 0");
    assert_int_equal(pos.fullmove, 1);
    /* "44" is read as eight empty squares. */
    pos = position_from("3k4/44/8/8/8/8/8/4K3 w - - 0 1");
    assert_fen(&pos, "3k4/8/8/8/8/8/8/4K3 w - - 0 1");
}

/* ====================================================================
 * Castling field: standard, X-FEN, Shredder
 * ==================================================================== */

static void test_castling_notations(void **state)
{
    (void)state;
    /* Shredder files on the standard squares: written back as X-FEN. */
    Position pos = position_from("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1");
    assert_true(pos.chess960);
    assert_fen(&pos, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    /* X-FEN: K and Q mean the outermost rook on that side of the king. */
    pos = position_from("rr2k1rr/8/8/8/8/8/8/RR2K1RR w KQkq - 0 1");
    assert_false(pos.chess960);
    assert_int_equal(pos.castle_rook[WHITE][CASTLE_SHORT], SQ_H1);
    assert_int_equal(pos.castle_rook[WHITE][CASTLE_LONG], SQ_A1);
    assert_int_equal(pos.castle_rook[BLACK][CASTLE_SHORT], SQ_H8);
    assert_int_equal(pos.castle_rook[BLACK][CASTLE_LONG], SQ_A8);
    /* An inner rook needs its file letter. */
    pos = position_from("rr2k1rr/8/8/8/8/8/8/RR2K1RR w GBgb - 0 1");
    assert_true(pos.chess960);
    assert_int_equal(pos.castle_rook[WHITE][CASTLE_SHORT], SQ_G1);
    assert_int_equal(pos.castle_rook[BLACK][CASTLE_LONG], SQ_B8);
    /* A Chess960 start: king on b1. */
    pos = position_from("rk4r1/8/8/8/8/8/8/RK4R1 w KQkq - 0 1");
    assert_true(pos.chess960);
    assert_int_equal(pos.castle_rook[WHITE][CASTLE_SHORT], SQ_G1);
    assert_int_equal(pos.castle_rook[WHITE][CASTLE_LONG], SQ_A1);
    assert_fen(&pos, "rk4r1/8/8/8/8/8/8/RK4R1 w KQkq - 0 1");
    /* Only some rights. */
    pos = position_from("r3k2r/8/8/8/8/8/8/R3K2R b Qk - 0 1");
    assert_int_equal(pos.castle_rook[WHITE][CASTLE_SHORT], SQ_NONE);
    assert_int_equal(pos.castle_rook[WHITE][CASTLE_LONG], SQ_A1);
    assert_int_equal(pos.castle_rook[BLACK][CASTLE_SHORT], SQ_H8);
    assert_int_equal(pos.castle_rook[BLACK][CASTLE_LONG], SQ_NONE);
}

/* ====================================================================
 * FEN errors: each kind names its field and column
 * ==================================================================== */

typedef struct FenErrorCase {
    const char *fen;
    int field, column;
    const char *message;
} FenErrorCase;

static void test_fen_errors(void **state)
{
    (void)state;
    static const FenErrorCase CASES[] = {
        /* field count */
        {"", 1, 1, "expected 4 to 6 fields, found 0"},
        {"4k3/8/8/8/8/8/8/4K3 w -", 4, 24, "expected 4 to 6 fields, found 3"},
        {"4k3/8/8/8/8/8/8/4K3 w - - 0 1 x", 6, 31, "expected 4 to 6 fields, found 7"},
        /* board */
        {"4k3/8/8/8/8/8/8/4K2 w - - 0 1", 1, 20, "rank 1 has 7 squares, not 8"},
        {"4k3/8/8/8/8/8/8/4K4 w - - 0 1", 1, 19, "rank 1 has more than 8 squares"},
        {"4k3/8/8/8/7/8/8/4K3 w - - 0 1", 1, 12, "rank 4 has 7 squares, not 8"},
        {"4k3/8/8/8/8/8/8/4K3p w - - 0 1", 1, 20, "rank 1 has more than 8 squares"},
        {"4k3/8/8/8/8/8/4K3 w - - 0 1", 1, 18, "only 7 ranks, not 8"},
        {"4k3/8/8/8/8/8/8/8/4K3 w - - 0 1", 1, 18, "more than 8 ranks"},
        {"4k3/8/8/8/8/8/8/4K2x w - - 0 1", 1, 20, "bad piece letter 'x'"},
        {"4k3/8/8/8/8/8/8/4K2\x01 w - - 0 1", 1, 20, "bad piece letter \\x01"},
        {"4k3/8/8/8/8/8/8/4K2O w - - 0 1", 1, 20, "bad piece letter 'O'"},
        {"4k3/8/8/8/8/8/8/0K7 w - - 0 1", 1, 17, "bad piece letter '0'"},
        {"4k3/8/8/8/8/8/8/8 w - - 0 1", 1, 1, "white has no king"},
        {"8/8/8/8/8/8/8/4K3 w - - 0 1", 1, 1, "black has no king"},
        {"4k3/8/8/8/8/8/8/2K1K3 w - - 0 1", 1, 20, "white has more than one king"},
        {"4k2k/8/8/8/8/8/8/4K3 w - - 0 1", 1, 4, "black has more than one king"},
        {"4k3/8/8/8/8/8/8/4K2P w - - 0 1", 1, 20, "white pawn on rank 1"},
        {"p3k3/8/8/8/8/8/8/4K3 w - - 0 1", 1, 1, "black pawn on rank 8"},
        /* side to move, and the side not to move in check */
        {"4k3/8/8/8/8/8/8/4K3 x - - 0 1", 2, 21, "side to move must be 'w' or 'b', not 'x'"},
        {"4k3/8/8/8/8/8/8/4K3 white - - 0 1", 2, 21, "side to move must be 'w' or 'b', not 'white'"},
        {"4k3/8/8/8/8/8/8/4K3 W - - 0 1", 2, 21, "side to move must be 'w' or 'b', not 'W'"},
        {"4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", 2, 23, "white is to move but black is in check"},
        /* castling */
        {"4k3/8/8/8/8/8/8/4K3 w x - 0 1", 3, 23, "bad castling letter 'x'"},
        {"4k3/8/8/8/8/8/8/4K3 w K - 0 1", 3, 23, "castling right 'K' but no white rook on the h-side of the king"},
        {"4k3/8/8/8/8/8/8/R3K3 w Q- - 0 1", 3, 25, "bad castling letter '-'"},
        {"4k2r/8/8/8/8/8/8/4K3 w q - 0 1", 3, 24, "castling right 'q' but no black rook on the a-side of the king"},
        {"4k3/8/8/8/8/8/4K3/R6R w K - 0 1", 3, 25, "castling right 'K' but the white king is not on rank 1"},
        {"4k3/8/8/8/8/8/8/R3K2R w KK - 0 1", 3, 26, "castling right 'K' repeats the white h-side right"},
        {"4k3/8/8/8/8/8/8/R3K2R w KH - 0 1", 3, 26, "castling right 'H' repeats the white h-side right"},
        {"4k3/8/8/8/8/8/8/R3K2R w G - 0 1", 3, 25, "castling right 'G' but no white rook on g1"},
        {"4k3/8/8/8/8/8/8/R3K2R w E - 0 1", 3, 25, "castling right 'E' but no white rook on e1"},
        {"r3k3/8/8/8/8/8/8/4K3 w KQkq - 0 1", 3, 24, "castling right 'K' but no white rook on the h-side of the king"},
        /* en passant */
        {"4k3/8/8/8/8/8/8/4K3 w - e4 0 1", 4, 25, "en-passant square e4 is not on rank 6"},
        {"4k3/8/8/8/4P3/8/8/4K3 b - e4 0 1", 4, 27, "en-passant square e4 is not on rank 3"},
        {"4k3/8/8/8/8/8/8/4K3 w - e6 0 1", 4, 25, "en-passant square e6 but no black pawn on e5"},
        {"4k3/4p3/8/4p3/8/8/8/4K3 w - e6 0 1", 4, 29, "en-passant square e6 but e7 is not empty"},
        {"4k3/8/4n3/4p3/8/8/8/4K3 w - e6 0 1", 4, 29, "en-passant square e6 but e6 is not empty"},
        {"4k3/8/8/8/8/8/8/4K3 w - e 0 1", 4, 25, "bad en-passant square 'e'"},
        {"4k3/8/8/8/8/8/8/4K3 w - i6 0 1", 4, 25, "bad en-passant square 'i6'"},
        /* counters */
        {"4k3/8/8/8/8/8/8/4K3 w - - x 1", 5, 27, "halfmove clock 'x' is not a number"},
        {"4k3/8/8/8/8/8/8/4K3 w - - -1 1", 5, 27, "halfmove clock '-1' is not a number"},
        {"4k3/8/8/8/8/8/8/4K3 w - - 0 1a", 6, 30, "fullmove number '1a' is not a number"},
        {"4k3/8/8/8/8/8/8/4K3 w - - 0 99999", 6, 29, "fullmove number '99999' is larger than 65535"},
        {"4k3/8/8/8/8/8/8/4K3 w - - 70000 1", 5, 27, "halfmove clock '70000' is larger than 65535"},
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        Position pos;
        pos_start(&pos);
        Position before = pos;
        FenError err = {0, 0, ""};
        int status = pos_from_fen(&pos, CASES[i].fen, &err);
        if (status != -1 || err.field != CASES[i].field || err.column != CASES[i].column
            || strcmp(err.message, CASES[i].message) != 0) {
            print_error("FEN \"%s\"\n  expected: field %d column %d: %s\n  got (%d): field %d column %d: %s\n",
                        CASES[i].fen, CASES[i].field, CASES[i].column, CASES[i].message, status,
                        err.field, err.column, err.message);
            failures++;
        }
        assert_memory_equal(&pos, &before, sizeof pos);   /* untouched on failure */
        assert_int_equal(pos_from_fen(&pos, CASES[i].fen, NULL), -1);
    }
    assert_int_equal(failures, 0);
}

/* ====================================================================
 * Making moves
 * ==================================================================== */

static void test_castling_both_sides_both_colours(void **state)
{
    (void)state;
    const char *fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 5 10";
    assert_after(fen, "O-O", "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b kq - 6 10");
    assert_after(fen, "O-O-O", "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/2KR3R b kq - 6 10");
    assert_after(fen, "O-O O-O", "r4rk1/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 w - - 7 11");
    assert_after(fen, "O-O-O O-O-O", "2kr3r/pppppppp/8/8/8/8/PPPPPPPP/2KR3R w - - 7 11");
    /* A king move loses both rights, a rook move its own. */
    assert_after(fen, "Kf1", "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4K1R b kq - 6 10");
    assert_after(fen, "Rb1 Rg8", "r3k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K2R w Kq - 7 11");
    /* Moving the rook back does not restore the right. */
    assert_after(fen, "Rb1 Rb8 Ra1 Ra8", "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w Kk - 9 12");
}

static void test_rook_captures_remove_rights(void **state)
{
    (void)state;
    /* Bishops take the rooks in the corners. */
    assert_after("r3k2r/8/8/8/3B4/8/8/R3K2R w KQkq - 0 1", "Bxh8",
                 "r3k2B/8/8/8/8/8/8/R3K2R b KQq - 0 1");
    assert_after("r3k2r/8/8/4b3/8/8/8/R3K2R b KQkq - 0 1", "Bxa1",
                 "r3k2r/8/8/8/8/8/8/b3K2R w Kkq - 0 2");
    /* Rook takes rook: both sides lose the right on that wing. */
    assert_after("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 3 1", "Rxa8+",
                 "R3k2r/8/8/8/8/8/8/4K2R b Kk - 0 1");
    /* A promotion capturing a rook removes that right too. */
    assert_after("r3k2r/1P6/8/8/8/8/8/4K3 w kq - 0 1", "bxa8=Q+",
                 "Q3k2r/8/8/8/8/8/8/4K3 b k - 0 1");
}

static void test_en_passant(void **state)
{
    (void)state;
    /* The ep square is recorded after every double push. */
    assert_after(POS_START_FEN, "e4", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    assert_after(POS_START_FEN, "e4 Nf6", "rnbqkb1r/pppppppp/5n2/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2");
    /* White and black captures remove the pawn behind the target. */
    assert_after("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "exd6",
                 "4k3/8/3P4/8/8/8/8/4K3 b - - 0 2");
    assert_after("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 2", "dxe3",
                 "4k3/8/8/8/8/4p3/8/4K3 w - - 0 3");
    Position pos = position_from("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
    Move m;
    assert_int_equal(san_parse(&pos, "exd6", 4, &m), SAN_OK);
    assert_int_equal(move_kind(m), MK_EN_PASSANT);
    /* The right lapses after one move. */
    assert_after("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "Kd1", "4k3/8/8/3pP3/8/8/8/3K4 b - - 1 2");
}

static void test_promotions(void **state)
{
    (void)state;
    const char *fen = "1n2k3/P7/8/8/8/8/7p/4K3 w - - 12 40";
    assert_after(fen, "a8=Q+", "Qn2k3/8/8/8/8/8/7p/4K3 b - - 0 40");
    assert_after(fen, "a8=R+", "Rn2k3/8/8/8/8/8/7p/4K3 b - - 0 40");
    assert_after(fen, "a8=B", "Bn2k3/8/8/8/8/8/7p/4K3 b - - 0 40");
    assert_after(fen, "a8=N", "Nn2k3/8/8/8/8/8/7p/4K3 b - - 0 40");
    assert_after(fen, "axb8=Q+", "1Q2k3/8/8/8/8/8/7p/4K3 b - - 0 40");
    assert_after(fen, "Kd2 h1=N", "1n2k3/P7/8/8/8/8/3K4/7n w - - 0 41");
}

static void test_counters(void **state)
{
    (void)state;
    /* Quiet moves count up, pawn moves and captures reset, and the full
     * move number grows after Black moves. */
    assert_after("4k3/8/8/8/8/8/4P3/R3K3 w - - 40 30", "Ra2",
                 "4k3/8/8/8/8/8/R3P3/4K3 b - - 41 30");
    assert_after("4k3/8/8/8/8/8/4P3/R3K3 w - - 40 30", "Ra2 Kd7",
                 "8/3k4/8/8/8/8/R3P3/4K3 w - - 42 31");
    assert_after("4k3/8/8/8/8/8/4P3/R3K3 w - - 40 30", "e3", "4k3/8/8/8/8/4P3/8/R3K3 b - - 0 30");
    assert_after("4k3/8/8/8/8/8/r3P3/4K3 w - - 40 30", "Kd1 Rxe2 Kc1",
                 "4k3/8/8/8/8/8/4r3/2K5 b - - 1 31");
}

static void test_chess960_castling(void **state)
{
    (void)state;
    /* King b1 and rook a1: long castling swaps them onto c1 and d1;
     * king f1, rook g1: short castling puts the king on the rook's square. */
    assert_after("rk3rr1/pppppppp/8/8/8/8/PPPPPPPP/RK3RR1 w GAga - 0 1", "O-O-O",
                 "rk3rr1/pppppppp/8/8/8/8/PPPPPPPP/2KR1RR1 b kq - 1 1");
    assert_after("1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w GBgb - 0 1", "O-O",
                 "1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3RK1 b kq - 1 1");
    /* King already on g1: short castling only moves the rook. */
    assert_after("6kr/pppppppp/8/8/8/8/PPPPPPPP/6KR w Hh - 0 1", "O-O",
                 "6kr/pppppppp/8/8/8/8/PPPPPPPP/5RK1 b k - 1 1");
    /* King already on c1: long castling only moves the rook, b1 to d1. */
    assert_after("1rk4r/pppppppp/8/8/8/8/PPPPPPPP/1RK4R w HBhb - 0 1", "O-O-O",
                 "1rk4r/pppppppp/8/8/8/8/PPPPPPPP/2KR3R b kq - 1 1");
    /* The rook shields the king's destination: after castling the rook on
     * a1 would attack c1, so O-O-O is illegal. */
    Position pos = position_from("4k3/8/8/8/8/8/8/rR1K4 w B - 0 1");
    assert_int_equal(mg_castle_move(&pos, CASTLE_LONG), MOVE_NONE);
}

static void test_null_move(void **state)
{
    (void)state;
    Position pos = position_from("4k3/8/8/3pP3/8/8/8/4K3 w - d6 7 20");
    Position before = pos;
    pos_make_move(&pos, MOVE_NULL);
    assert_fen(&pos, "4k3/8/8/3pP3/8/8/8/4K3 b - - 8 20");
    assert_true(pos_is_ok(&pos));
    pos_make_move(&pos, MOVE_NULL);
    assert_fen(&pos, "4k3/8/8/3pP3/8/8/8/4K3 w - - 9 21");
    assert_false(pos_key(&pos) == pos_key(&before));   /* the ep square is gone */
}

/* ====================================================================
 * Keys, comparison, checks, invariants
 * ==================================================================== */

static void test_keys_and_transpositions(void **state)
{
    (void)state;
    Position start, a, b;
    pos_start(&start);
    a = start;
    play(&a, "Nf3 Nf6 Ng1 Ng8");
    assert_true(pos_same(&a, &start));
    assert_true(pos_key(&a) == pos_key(&start));
    a = start;
    b = start;
    play(&a, "e4 e5 Nf3 Nc6");
    play(&b, "Nf3 Nc6 e4 e5");
    assert_true(pos_same(&a, &b) == (a.ep == b.ep));
    assert_false(a.ep == b.ep);                         /* e6 was just pushed in a only */
    assert_false(pos_key(&a) == pos_key(&b));
    play(&a, "Bc4 Bc5");
    play(&b, "Bc4 Bc5");
    assert_true(pos_same(&a, &b));
    assert_true(pos_key(&a) == pos_key(&b));
    /* Side to move and castling rights are part of the key. */
    a = position_from("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
    b = position_from("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    assert_false(pos_key(&a) == pos_key(&b));
    assert_false(pos_same(&a, &b));
    b = position_from("4k3/8/8/8/8/8/8/R3K3 b Q - 0 1");
    assert_false(pos_key(&a) == pos_key(&b));
}

/* The keys are made at start-up from a fixed seed (splitmix64): the same in
 * every run, on every machine. Two keys pinned, made by the table the keys
 * were once written out as. */
static void test_keys_are_fixed(void **state)
{
    (void)state;
    Position pos = position_from(POS_START_FEN);
    assert_true(pos_key(&pos) == 0xB74B2194169BEE30ULL);
    pos = position_from("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");   /* en passant and kings */
    assert_true(pos_key(&pos) == 0x7E136CBD021F5A0BULL);
}

static void test_checkers_and_attackers(void **state)
{
    (void)state;
    Position pos = position_from("4k3/8/8/8/1b6/8/3N4/r3K3 w - - 0 1");
    assert_true(pos_in_check(&pos));
    assert_true(pos_checkers(&pos) == sq_bb(SQ_A1));
    Bitboard attackers = pos_attackers_to(&pos, SQ_D2, pos_occupied(&pos));
    assert_true(attackers == (sq_bb(SQ_B4) | sq_bb(SQ_E1)));
    /* With d2 empty the bishop also reaches e1. */
    attackers = pos_attackers_to(&pos, SQ_E1, pos_occupied(&pos) ^ sq_bb(SQ_D2));
    assert_true(attackers == (sq_bb(SQ_A1) | sq_bb(SQ_B4)));
    pos = position_from("4k3/8/8/8/8/5n2/8/4K3 w - - 0 1");
    assert_true(pos_checkers(&pos) == sq_bb(SQ_F3));
    pos = position_from("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    assert_false(pos_in_check(&pos));
}

static void test_is_ok_catches_broken_invariants(void **state)
{
    (void)state;
    Position good;
    pos_start(&good);
    assert_true(pos_is_ok(&good));

    Position bad = good;
    bad.board[SQ_E4] = W_QUEEN;                   /* board and bitboards disagree */
    assert_false(pos_is_ok(&bad));
    bad = good;
    bad.by_color[BLACK] |= sq_bb(SQ_E1);          /* a square of both colours */
    assert_false(pos_is_ok(&bad));
    bad = good;
    bad.castle_rook[WHITE][CASTLE_SHORT] = SQ_G1; /* no rook there */
    assert_false(pos_is_ok(&bad));
    bad = good;
    bad.ep = SQ_E3;                               /* no pawn just moved */
    assert_false(pos_is_ok(&bad));
    bad = good;
    bad.fullmove = 0;
    assert_false(pos_is_ok(&bad));
    bad = good;
    bad.king[BLACK] = SQ_D8;                      /* the kept king square is not the king's */
    assert_false(pos_is_ok(&bad));
}

/* Random games: the key of the position a move leads to equals the key of
 * the same position read from its FEN, and pos_is_ok holds after every move. */
static void test_key_after_moves_on_random_games(void **state)
{
    (void)state;
    uint64_t seed = 88172645463325252ULL;
    for (int game = 0; game < 200; game++) {
        Position pos;
        pos_start(&pos);
        if (game % 2) pos = position_from("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        for (int ply = 0; ply < 200; ply++) {
            MoveList list;
            mg_legal(&pos, &list);
            if (list.count == 0) break;
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            pos_make_move(&pos, list.moves[seed % (uint64_t)list.count]);
            assert_true(pos_is_ok(&pos));
            char fen[FEN_MAX];
            pos_to_fen(&pos, fen);
            Position reread = position_from(fen);
            assert_true(pos_key(&reread) == pos_key(&pos));
            assert_true(pos_same(&reread, &pos));
        }
    }
}

/* Every field of the two positions is the same (the padding aside). */
static void assert_same_fields(const Position *a, const Position *b)
{
    assert_memory_equal(a->by_type, b->by_type, sizeof a->by_type);
    assert_memory_equal(a->by_color, b->by_color, sizeof a->by_color);
    assert_memory_equal(a->board, b->board, sizeof a->board);
    assert_memory_equal(a->castle_rook, b->castle_rook, sizeof a->castle_rook);
    assert_int_equal(a->ep, b->ep);
    assert_int_equal(a->side, b->side);
    assert_int_equal(a->chess960, b->chess960);
    assert_int_equal(a->halfmove, b->halfmove);
    assert_int_equal(a->fullmove, b->fullmove);
    assert_memory_equal(a->king, b->king, sizeof a->king);
}

/* Every legal move of a perft position (and of each position it leads
 * to), made by pos_make_move_undoable, gives pos_make_move's position and
 * is taken back by pos_unmake_move to the first position, field by field:
 * castling (Chess960 too), promotions, captures, en passant, rights.
 * pos_play_move gives the same position too, and the king squares the
 * position keeps are the bitboards' after each (pos_is_ok). */
static void undo_all_moves(const Position *pos, int depth)
{
    MoveList list;
    mg_legal(pos, &list);
    for (int i = 0; i < list.count; i++) {
        Position made = *pos, plain = *pos;
        PosUndo undo;
        pos_make_move_undoable(&made, list.moves[i], &undo);
        pos_make_move(&plain, list.moves[i]);
        assert_true(pos_is_ok(&plain));
        assert_same_fields(&made, &plain);
        Position played;
        pos_play_move(&played, pos, list.moves[i]);
        assert_same_fields(&played, &plain);
        if (depth > 1) undo_all_moves(&made, depth - 1);
        pos_unmake_move(&made, &undo);
        assert_same_fields(&made, pos);
    }
}

static void undo_moves_of_fen(char *fen, void *ctx)
{
    (void)ctx;
    Position pos = position_from(fen);
    undo_all_moves(&pos, 2);
}

static void test_unmake_on_data_files(void **state)
{
    (void)state;
    assert_true(for_each_perft_fen(PERFT_FILES, PERFT_FILE_COUNT, undo_moves_of_fen, NULL) > 1000);
}

/* A null move, and a line of random moves taken back one by one. */
static void test_unmake_null_and_lines(void **state)
{
    (void)state;
    Position pos = position_from("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 5 9");
    Position before = pos;
    PosUndo undo[120];
    pos_make_move_undoable(&pos, MOVE_NULL, &undo[0]);
    pos_unmake_move(&pos, &undo[0]);
    assert_same_fields(&pos, &before);
    uint64_t seed = 88172645463325252ULL;
    for (int game = 0; game < 50; game++) {
        Position line[121];
        line[0] = game % 2 ? before : position_from(POS_START_FEN);
        pos = line[0];
        int n = 0;
        for (; n < 120; n++) {
            MoveList list;
            mg_legal(&pos, &list);
            if (list.count == 0) break;
            pos_make_move_undoable(&pos, list.moves[next_random(&seed) % (uint64_t)list.count], &undo[n]);
            line[n + 1] = pos;
        }
        while (n > 0) {
            pos_unmake_move(&pos, &undo[--n]);
            assert_same_fields(&pos, &line[n]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_position),
        cmocka_unit_test(test_fen_round_trip_on_data_files),
        cmocka_unit_test(test_fen_round_trip_assorted),
        cmocka_unit_test(test_fen_lenient_forms),
        cmocka_unit_test(test_castling_notations),
        cmocka_unit_test(test_fen_errors),
        cmocka_unit_test(test_castling_both_sides_both_colours),
        cmocka_unit_test(test_rook_captures_remove_rights),
        cmocka_unit_test(test_en_passant),
        cmocka_unit_test(test_promotions),
        cmocka_unit_test(test_counters),
        cmocka_unit_test(test_chess960_castling),
        cmocka_unit_test(test_null_move),
        cmocka_unit_test(test_keys_and_transpositions),
        cmocka_unit_test(test_keys_are_fixed),
        cmocka_unit_test(test_checkers_and_attackers),
        cmocka_unit_test(test_is_ok_catches_broken_invariants),
        cmocka_unit_test(test_key_after_moves_on_random_games),
        cmocka_unit_test(test_unmake_on_data_files),
        cmocka_unit_test(test_unmake_null_and_lines),
    };
    return cmocka_run_group_tests(tests, chess_setup, NULL);
}
