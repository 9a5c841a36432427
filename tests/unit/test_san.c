/*
 * tests/unit/test_san.c — SAN reading (with real-world dirt), resolving, writing.
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

/* Test positions, as macros so that static case tables can use them. */
#define START "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#define KIWIPETE "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
#define ONE_PAWN "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1"
#define EP "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2"
#define CASTLES "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
#define PROMOTE "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"
#define KNIGHTS "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1"
#define PINNED "7k/4r3/8/8/8/8/4N3/1N2K3 w - - 0 1"
#define QUEENS "4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1"


/* ====================================================================
 * Round trips
 * ==================================================================== */

/* san_parse (which has a fast path for the usual shapes) agrees with
 * san_read + san_resolve on text, in status and move. */
static void expect_same_parse(const Position *pos, const char *text)
{
    SanMove sm;
    Move general = MOVE_NONE, fast;
    size_t n = strlen(text);
    SanStatus status = san_read(text, n, &sm);
    if (status == SAN_OK) status = san_resolve(pos, &sm, &general);
    SanStatus fast_status = san_parse(pos, text, n, &fast);
    if (fast_status != status || (status == SAN_OK && fast != general)) {
        char fen[FEN_MAX];
        pos_to_fen(pos, fen);
        print_error("%s: '%s' parsed with status %d, read and resolved with %d\n", fen, text,
                    (int)fast_status, (int)status);
        fail();
    }
}

/* Text forms of m that the fast path reads: with and without the piece
 * letter (a queen's for a pawn move), origin file, origin rank and 'x',
 * right or wrong for m, and with a '+'. */
static void check_parse_forms(const Position *pos, Move m)
{
    Square from = move_from(m), to = move_to(m);
    PieceType type = type_of(pos_piece_on(pos, from));
    char letter = piece_type_char(type == PAWN ? QUEEN : type);
    char origins[3] = {0, (char)('a' + file_of(from)), (char)('1' + rank_of(from))};
    for (int l = 0; l < 2; l++)
        for (int o = 0; o < 3; o++)
            for (int x = 0; x < 2; x++) {
                char text[16], *p = text;
                if (l) *p++ = letter;
                if (o) *p++ = origins[o];
                if (x) *p++ = 'x';
                sq_name(to, p);
                p += 2;
                if (o == 0) *p++ = '+';
                *p = '\0';
                expect_same_parse(pos, text);
            }
}

/* Every legal move m: san_resolve(san_read(san_write(m))) == m, and the
 * UCI text of m parses back to m (castling only where UCI writes the
 * two-square king step). Returns the number of moves checked. */
static int check_round_trips(const Position *pos)
{
    MoveList list;
    mg_legal(pos, &list);
    for (int i = 0; i < list.count; i++) {
        Move m = list.moves[i], back;
        char san[SAN_MAX], uci[8];
        size_t n = san_write(pos, m, san);
        assert_int_equal(n, strlen(san));
        SanMove sm;
        assert_int_equal(san_read(san, n, &sm), SAN_OK);
        SanStatus status = san_resolve(pos, &sm, &back);
        if (status != SAN_OK || back != m) {
            char fen[FEN_MAX];
            pos_to_fen(pos, fen);
            print_error("%s: '%s' resolved with status %d\n", fen, san, (int)status);
            fail();
        }
        expect_same_parse(pos, san);
        check_parse_forms(pos, m);
        n = san_move_uci(m, uci);
        assert_int_equal(n, strlen(uci));
        int king_step = move_to(m) - move_from(m);
        if (move_is_castle(m) && king_step != 2 && king_step != -2) continue;
        assert_int_equal(san_parse(pos, uci, n, &back), SAN_OK);
        assert_int_equal(back, m);
    }
    return list.count;
}

/* SAN round trips at a perft file's position and every position one and
 * two moves on; adds the moves tried to *(long *)moves. */
static void round_trips_two_moves_on(char *fen, void *moves)
{
    long *count = moves;
    Position root = position_from(fen);
    MoveList first;
    mg_legal(&root, &first);
    *count += check_round_trips(&root);
    for (int i = 0; i < first.count; i++) {
        Position child = root;
        pos_make_move(&child, first.moves[i]);
        *count += check_round_trips(&child);
        MoveList second;
        mg_legal(&child, &second);
        for (int j = 0; j < second.count; j++) {
            Position grandchild = child;
            pos_make_move(&grandchild, second.moves[j]);
            *count += check_round_trips(&grandchild);
        }
    }
}

static void test_round_trip_on_perft_positions(void **state)
{
    (void)state;
    static const char *const FILES[] = {
        "tests/data/perft/perftsuite.epd", "tests/data/perft/python-chess-tricky.perft",
    };
    long moves = 0;
    for_each_perft_fen(FILES, sizeof FILES / sizeof FILES[0], round_trips_two_moves_on, &moves);
    print_message("SAN round trip: %ld moves\n", moves);
    assert_true(moves > 800000);
}

static void test_round_trip_chess960(void **state)
{
    (void)state;
    FILE *file = fopen("tests/data/perft/python-chess-chess960.perft", "r");
    assert_non_null(file);
    char line[512];
    int positions = 0;
    while (fgets(line, sizeof line, file)) {
        if (strncmp(line, "epd ", 4) != 0) continue;
        line[strcspn(line, "\r\n")] = '\0';
        Position root = position_from(line + 4);
        MoveList list;
        mg_legal(&root, &list);
        check_round_trips(&root);
        for (int i = 0; i < list.count; i++) {
            Position child = root;
            pos_make_move(&child, list.moves[i]);
            check_round_trips(&child);
        }
        positions++;
    }
    fclose(file);
    assert_int_equal(positions, 960);
}

/* ====================================================================
 * Reading and resolving
 * ==================================================================== */

typedef struct SanCase {
    const char *fen;
    const char *text;
    const char *uci;      /* the move expected, as san_move_uci writes it */
} SanCase;

static void test_dirty_san(void **state)
{
    (void)state;
    static const SanCase CASES[] = {
        {START, "Nf3", "g1f3"},     {START, "Ng1-f3", "g1f3"},
        {START, "Ng1xf3", "g1f3"},  {START, "Ng1f3", "g1f3"},
        {START, "g1f3", "g1f3"},    {START, "g1-f3", "g1f3"},
        {START, "Nf3+", "g1f3"},    {START, "Nf3#", "g1f3"},
        {START, "Nf3++", "g1f3"},   {START, "Nf3!?", "g1f3"},
        {START, "e4", "e2e4"},      {START, "e2e4", "e2e4"},
        {START, "e2-e4", "e2e4"},   {START, "Pe4", "e2e4"},
        {START, "Pe2e4", "e2e4"},   {START, "e4!", "e2e4"},
        {START, "e4!!", "e2e4"},    {START, "e4??", "e2e4"},
        {START, "e4?!", "e2e4"},    {START, "e3", "e2e3"},
        {ONE_PAWN, "exd5", "e4d5"},     {ONE_PAWN, "ed5", "e4d5"},
        {ONE_PAWN, "e:d5", "e4d5"},     {ONE_PAWN, "e4xd5", "e4d5"},
        {ONE_PAWN, "e4d5", "e4d5"},     {ONE_PAWN, "xd5", "e4d5"},
        {ONE_PAWN, "exd5!", "e4d5"},    {ONE_PAWN, "Pxd5", "e4d5"},
        {EP, "exd6", "e5d6"},           {EP, "exd6e.p.", "e5d6"},
        {EP, "exd6 e.p.", "e5d6"},      {EP, "exd6ep", "e5d6"},
        {EP, "ed6", "e5d6"},            {EP, "e5d6", "e5d6"},
        {EP, "exd6e.p.+", "e5d6"},
        {CASTLES, "O-O", "e1g1"},       {CASTLES, "0-0", "e1g1"},
        {CASTLES, "o-o", "e1g1"},       {CASTLES, "O-O+", "e1g1"},
        {CASTLES, "OO", "e1g1"},        {CASTLES, "O-O-O", "e1c1"},
        {CASTLES, "0-0-0", "e1c1"},     {CASTLES, "O-O-O#", "e1c1"},
        {CASTLES, "e1g1", "e1g1"},      {CASTLES, "e1h1", "e1g1"},
        {CASTLES, "Ke1h1", "e1g1"},     {CASTLES, "e1c1", "e1c1"},
        {CASTLES, "e1a1", "e1c1"},      {CASTLES, "Kg1", "e1g1"},
        {CASTLES, "Kf1", "e1f1"},       {CASTLES, "Rxa8+", "a1a8"},
        {PROMOTE, "a8=Q+", "a7a8q"},    {PROMOTE, "a8Q", "a7a8q"},
        {PROMOTE, "a8q", "a7a8q"},      {PROMOTE, "a8=q", "a7a8q"},
        {PROMOTE, "a7a8q", "a7a8q"},    {PROMOTE, "a7a8=Q", "a7a8q"},
        {PROMOTE, "a7-a8=Q", "a7a8q"},  {PROMOTE, "a8=N", "a7a8n"},
        {PROMOTE, "Pa8=R", "a7a8r"},    {PROMOTE, "a8b", "a7a8b"},
        {KNIGHTS, "Nbd2", "b1d2"},      {KNIGHTS, "Nfd2", "f3d2"},
        {KNIGHTS, "N1d2", "b1d2"},      {KNIGHTS, "N3d2", "f3d2"},
        {KNIGHTS, "Nb1d2", "b1d2"},     {KNIGHTS, "Nb1-d2", "b1d2"},
        {START, "--", "0000"},      {START, "Z0", "0000"},
        {START, "0000", "0000"},
        /* Chess960: castling by SAN and by king-to-rook coordinates. */
        {"1rk4r/pppppppp/8/8/8/8/PPPPPPPP/1RK4R w HBhb - 0 1", "O-O-O", "c1c1"},
        {"1rk4r/pppppppp/8/8/8/8/PPPPPPPP/1RK4R w HBhb - 0 1", "c1b1", "c1c1"},
        {"1rk4r/pppppppp/8/8/8/8/PPPPPPPP/1RK4R w HBhb - 0 1", "O-O", "c1g1"},
        {"1rk4r/pppppppp/8/8/8/8/PPPPPPPP/1RK4R w HBhb - 0 1", "c1h1", "c1g1"},
        {"1rk4r/pppppppp/8/8/8/8/PPPPPPPP/1RK4R w HBhb - 0 1", "Kd1", "c1d1"},
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        Position pos = position_from(CASES[i].fen);
        Move m;
        char uci[8] = "";
        SanStatus status = san_parse(&pos, CASES[i].text, strlen(CASES[i].text), &m);
        if (status == SAN_OK) san_move_uci(m, uci);
        if (status != SAN_OK || strcmp(uci, CASES[i].uci) != 0) {
            print_error("'%s' in %s: expected %s, got status %d move %s\n", CASES[i].text,
                        CASES[i].fen, CASES[i].uci, (int)status, uci);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

static void test_san_read_fields(void **state)
{
    (void)state;
    SanMove sm;
    assert_int_equal(san_read("Nb1xd2+", 7, &sm), SAN_OK);
    assert_int_equal(sm.piece, KNIGHT);
    assert_int_equal(sm.from_file, 1);
    assert_int_equal(sm.from_rank, 0);
    assert_int_equal(sm.to, SQ_D2);
    assert_true(sm.capture);
    assert_int_equal(sm.castle, 0);
    assert_false(sm.null_move);
    assert_int_equal(san_read("exd8=Q#", 7, &sm), SAN_OK);
    assert_int_equal(sm.piece, PAWN);
    assert_int_equal(sm.from_file, 4);
    assert_int_equal(sm.from_rank, -1);
    assert_int_equal(sm.promo, QUEEN);
    assert_int_equal(san_read("O-O-O", 5, &sm), SAN_OK);
    assert_int_equal(sm.castle, 2);
    assert_int_equal(sm.piece, NO_PIECE_TYPE);
    assert_int_equal(sm.to, SQ_NONE);
    assert_int_equal(san_read("--", 2, &sm), SAN_OK);
    assert_true(sm.null_move);
    /* Only the first len bytes count. */
    assert_int_equal(san_read("e4 e5", 2, &sm), SAN_OK);
    assert_int_equal(sm.to, SQ_E4);
}

static void test_syntax_errors(void **state)
{
    (void)state;
    static const char *const BAD[] = {
        "", "+", "!?", "Xe4", "e9", "i4", "Nf", "N", "e4e", "O-O-O-O", "O", "O--O", "-O-O",
        "Ke8=Q", "Nf3=Q", "Qxx5", "e2e4e6", "nf3", "a8=K", "a8=P", "e", "4", "N@f3", "e4/",
        "1-0", "0-1", "1/2-1/2", "*", "e4+-",
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        SanMove sm;
        if (san_read(BAD[i], strlen(BAD[i]), &sm) != SAN_SYNTAX) {
            print_error("'%s' was read\n", BAD[i]);
            fail();
        }
        Position pos;
        pos_start(&pos);
        Move m = 1;
        assert_int_equal(san_parse(&pos, BAD[i], strlen(BAD[i]), &m), SAN_SYNTAX);
        assert_int_equal(m, MOVE_NONE);
    }
}

static void test_illegal_and_ambiguous(void **state)
{
    (void)state;
    typedef struct { const char *fen, *text; SanStatus status; } Case;
    static const Case CASES[] = {
        {START, "e5", SAN_ILLEGAL},
        {START, "Nd4", SAN_ILLEGAL},
        {START, "O-O", SAN_ILLEGAL},
        {START, "O-O-O", SAN_ILLEGAL},
        {START, "Qh5", SAN_ILLEGAL},            /* blocked */
        {START, "Kxe2", SAN_ILLEGAL},           /* own piece */
        {START, "exd3", SAN_ILLEGAL},           /* nothing to capture */
        {START, "Bb5", SAN_ILLEGAL},
        {START, "e1g1", SAN_ILLEGAL},           /* castling not possible yet */
        {START, "Ng1e2", SAN_ILLEGAL},
        {START, "Nb1f3", SAN_ILLEGAL},          /* disambiguation names the wrong knight */
        {START, "e2e5", SAN_ILLEGAL},
        {"4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a8", SAN_ILLEGAL},       /* promotion missing */
        {"4k3/8/P7/8/8/8/8/4K3 w - - 0 1", "a7=Q", SAN_ILLEGAL},     /* not the last rank */
        {"4k3/8/8/3pP3/8/8/8/4K3 w - - 0 2", "exd6", SAN_ILLEGAL},   /* no ep right */
        {"4k3/8/8/8/8/8/3q4/4K3 w - - 0 1", "--", SAN_ILLEGAL},      /* null move in check */
        {"4k3/8/8/8/8/8/3q4/4K3 w - - 0 1", "Kd1", SAN_ILLEGAL},     /* still in check */
        {"4k3/8/8/8/8/8/3q4/4K3 w - - 0 1", "Kf1", SAN_OK},
        {PINNED, "Nec3", SAN_ILLEGAL},              /* pinned */
        {PINNED, "Nc3", SAN_OK},                    /* so Nc3 is the b1 knight */
        {"1b1k4/8/8/1rPpK3/8/8/8/8 w - d6 0 1", "cxd6", SAN_ILLEGAL}, /* ep exposes the king */
        {"4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "Nd2", SAN_AMBIGUOUS},
        {"4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1", "Qb2", SAN_AMBIGUOUS},
        {"4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1", "Qab2", SAN_AMBIGUOUS},
        {"4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1", "Q1b2", SAN_AMBIGUOUS},
        {"4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1", "Qa1b2", SAN_OK},
        {"4k3/8/8/8/8/8/8/R2RK3 w - - 0 1", "Rc1", SAN_AMBIGUOUS},
        {"4k3/8/8/8/8/8/8/R2RK3 w - - 0 1", "Rdc1", SAN_OK},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        Position pos = position_from(CASES[i].fen);
        Move m;
        SanStatus status = san_parse(&pos, CASES[i].text, strlen(CASES[i].text), &m);
        if (status != CASES[i].status) {
            print_error("'%s' in %s: expected status %d, got %d\n", CASES[i].text, CASES[i].fen,
                        (int)CASES[i].status, (int)status);
            fail();
        }
    }
}

/* san_parse_special, the usual run's castling and promotions: the bytes
 * of the shape it reads, and san_parse's move for them; 0 where it is no
 * such move of those shapes or not legal (the general path then has the
 * token). */
static void test_parse_special(void **state)
{
    (void)state;
    typedef struct { const char *fen, *text; size_t len; } Case;
    static const Case CASES[] = {
        {CASTLES, "O-O ", 3},
        {CASTLES, "O-O-O ", 5},
        {CASTLES, "O-O+ ", 4},             /* a wrong mark is read, as san_parse reads it */
        {CASTLES, "O-O-O#+\n", 7},
        {CASTLES, "O-O!", 3},              /* the glyph is no delimiter: the caller gives up */
        {CASTLES, "O-O-X", 3},
        {"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "O-O-O)", 5},
        {"1r2k2r/8/8/8/8/8/8/1R2K1R1 w Kk - 0 1", "O-O ", 3},   /* Chess960: the rook on g1 */
        {START, "O-O ", 0},                /* blocked */
        {"r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1", "O-O ", 0},    /* no right */
        {"r3k2r/8/8/8/8/8/5q2/R3K2R w KQkq - 0 1", "O-O-O ", 0}, /* in check */
        {"r3k2r/8/8/8/8/8/6q1/R3K2R w KQkq - 0 1", "O-O ", 0},   /* through check (f1) */
        {CASTLES, "0-0 ", 0},              /* zeros and letters without hyphens: the general path's */
        {CASTLES, "OO ", 0},
        {CASTLES, "o-o ", 0},
        {PROMOTE, "a8=Q ", 4},
        {PROMOTE, "a8=N+ ", 5},
        {"1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "axb8=R#", 7},
        {"1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a8=B ", 4},
        {"4k3/8/8/8/8/8/7p/4K1N1 b - - 0 1", "hxg1=Q+ ", 7},
        {"4k3/8/8/8/8/8/7p/4K1N1 b - - 0 1", "h1=Q ", 4},
        {PROMOTE, "a8Q ", 0},              /* without '=', lower case, or a king: the general path's */
        {PROMOTE, "a8=q ", 0},
        {PROMOTE, "a8=K ", 0},
        {PROMOTE, "b8=Q ", 0},             /* no pawn behind */
        {PROMOTE, "axb8=Q ", 0},           /* nothing to take */
        {"1B2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "axb8=Q ", 0},   /* an own piece */
        {"Rr2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a8=Q ", 0},     /* blocked */
        {"4k3/P7/8/8/8/8/8/r3K3 w - - 0 1", "a8=Q ", 0},      /* in check */
        {"4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "axh8=Q ", 0},     /* not a file beside */
        {"4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "ax@8=Q ", 0},
        {"4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7=Q ", 0},       /* not the last rank */
        {START, "e4 ", 0},                 /* the usual reader's moves are not read here */
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        Position pos = position_from(CASES[i].fen);
        Move m = MOVE_NONE, expected;
        size_t len = san_parse_special(&pos, CASES[i].text, &m);
        bool same = len == CASES[i].len &&
                    (len == 0 || (san_parse(&pos, CASES[i].text, len, &expected) == SAN_OK && m == expected));
        if (!same) {
            print_error("'%s' in %s: read %zu bytes, expected %zu (or not san_parse's move)\n",
                        CASES[i].text, CASES[i].fen, len, CASES[i].len);
            fail();
        }
    }
}

/* ====================================================================
 * Writing
 * ==================================================================== */

static void test_san_write(void **state)
{
    (void)state;
    static const SanCase CASES[] = {   /* here .text is the SAN expected for .uci */
        {START, "Nf3", "g1f3"},
        {START, "e4", "e2e4"},
        {KIWIPETE, "Bxa6", "e2a6"},
        {KIWIPETE, "O-O", "e1g1"},
        {KIWIPETE, "O-O-O", "e1c1"},
        {KIWIPETE, "Nxf7", "e5f7"},
        {KIWIPETE, "dxe6", "d5e6"},
        {KIWIPETE, "Qxf6", "f3f6"},
        {KIWIPETE, "gxh3", "g2h3"},
        {KIWIPETE, "Rb1", "a1b1"},
        {KIWIPETE, "Kf1", "e1f1"},
        {QUEENS, "Qa1b2", "a1b2"},
        {QUEENS, "Qcb2", "c1b2"},
        {QUEENS, "Q3b2", "a3b2"},
        {"4k3/8/8/8/8/8/8/R2RK3 w - - 0 1", "Rdc1", "d1c1"},
        {"4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", "R1a3", "a1a3"},
        {"4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", "R5a3", "a5a3"},
        {"7k/4r3/8/8/8/8/4N3/1N2K3 w - - 0 1", "Nc3", "b1c3"},  /* rival pinned */
        {"4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a8=Q+", "a7a8q"},
        {"4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a8=N", "a7a8n"},
        {"4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "exd6", "e5d6"},
        {"rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2", "Qh4#", "d8h4"},
        {"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "O-O-O", "e1c1"},
        {"r3k3/8/8/8/8/8/8/4K3 b q - 0 1", "O-O-O", "e8c8"},
        {"4k3/8/8/8/8/8/8/3RK3 w - - 0 1", "Rd8+", "d1d8"},
        {START, "--", "0000"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        Position pos = position_from(CASES[i].fen);
        Move m;
        const char *uci = CASES[i].uci;
        assert_int_equal(san_parse(&pos, uci, strlen(uci), &m), SAN_OK);
        char san[SAN_MAX];
        san_write(&pos, m, san);
        if (strcmp(san, CASES[i].text) != 0) {
            print_error("%s in %s: expected '%s', got '%s'\n", uci, CASES[i].fen, CASES[i].text, san);
            fail();
        }
    }
}

static void test_move_to_uci(void **state)
{
    (void)state;
    char uci[8];
    assert_int_equal(san_move_uci(move_make(SQ_E7, SQ_E8, QUEEN, MK_PROMOTION), uci), 5);
    assert_string_equal(uci, "e7e8q");
    assert_int_equal(san_move_uci(move_make(SQ_B2, SQ_A1, KNIGHT, MK_PROMOTION), uci), 5);
    assert_string_equal(uci, "b2a1n");
    assert_int_equal(san_move_uci(MOVE_NULL, uci), 4);
    assert_string_equal(uci, "0000");
    assert_int_equal(san_move_uci(move_make(SQ_E1, SQ_G1, NO_PIECE_TYPE, MK_CASTLE_SHORT), uci), 4);
    assert_string_equal(uci, "e1g1");
    san_move_uci(move_make(SQ_G1, SQ_F3, NO_PIECE_TYPE, MK_NORMAL), uci);
    assert_string_equal(uci, "g1f3");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_on_perft_positions),
        cmocka_unit_test(test_round_trip_chess960),
        cmocka_unit_test(test_dirty_san),
        cmocka_unit_test(test_san_read_fields),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_illegal_and_ambiguous),
        cmocka_unit_test(test_parse_special),
        cmocka_unit_test(test_san_write),
        cmocka_unit_test(test_move_to_uci),
    };
    return cmocka_run_group_tests(tests, chess_setup, NULL);
}
