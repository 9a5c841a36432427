/*
 * tests/unit/test_index.c — the sidecar index's parts (src/index/): move
 * codes give back every legal move of many positions; a tree with
 * variations written as codes reads back node for node; damaged codes are
 * refused; a summary reads back as written, and is the same made a node
 * at a time during the parse, walked over the tree, and worked out
 * position by position from its definition; the condition of a few queries
 * in words; and the condition's soundness, as a property over random
 * games (random legal moves from several starts, random variations) and
 * random queries made of the filters the condition reads and a few it
 * does not (not, a variable, a message, wtm, a move filter), under
 * compounds, and, or and transforms: a game the condition rules out never
 * matches, prints nothing and stops nothing when it is searched.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess/movegen.h"
#include "index/condition.h"
#include "index/movecode.h"
#include "index/summary.h"
#include "lib/lib_int.h"
#include "pgn/reader.h"
#include "pgn/writer.h"

/* {==== random games ========================================================== */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

static const char *const starts[] = {
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "4k3/8/8/8/8/8/8/4K2Q w - - 0 1",                  /* mates and stalemates */
    "8/2P1k3/8/8/8/8/3p1K2/8 w - - 0 1",               /* promotions */
    "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",   /* Chess960 castling */
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",               /* en passant at once */
    "k7/8/1Q6/8/8/8/8/7K b - - 0 1",                   /* stalemate at the start */
};

/* Plays up to `plies` random legal moves from n, in a; the last node. */
static GameNode *random_line(Game *g, Arena *a, GameNode *n, int plies)
{
    MoveList moves;
    for (int i = 0; i < plies; i++) {
        mg_legal(&n->pos, &moves);
        if (moves.count == 0) break;
        n = game_add_move(g, a, n, moves.moves[rnd((uint32_t)moves.count)]);
    }
    return n;
}

/* A random game in a: a main line, and variations from random positions
 * of it (some with variations of their own). */
static void random_game(Game *g, Arena *a, int k)
{
    memset(g, 0, sizeof *g);
    g->arena = a;
    g->number = k + 1;
    Position pos;
    assert_int_equal(pos_from_fen(&pos, starts[k % (int)(sizeof starts / sizeof starts[0])], NULL), 0);
    GameNode *root = game_new_root(g, a, &pos);
    random_line(g, a, root, 20 + (int)rnd(140));
    int variations = (int)rnd(6);
    for (int v = 0; v < variations; v++) {
        GameNode *from = root;
        for (int steps = (int)rnd(60); steps > 0 && from->child; steps--) from = from->child;
        if (rnd(3) == 0 && from->child && from->child->sibling) from = from->child->sibling;   /* a nested one */
        random_line(g, a, from, 1 + (int)rnd(12));
    }
    game_number_nodes(g);
}

/* The two trees have the same moves, positions and ids, node for node. */
static void assert_same_tree(const Game *a, const Game *b)
{
    assert_int_equal(a->node_count, b->node_count);
    const GameNode *x = a->root, *y = b->root;
    for (; x && y; x = game_walk_next(NULL, x, true), y = game_walk_next(NULL, y, true)) {
        assert_int_equal(x->move, y->move);
        assert_int_equal(x->id, y->id);
        assert_int_equal(x->depth, y->depth);
        assert_int_equal(x->ply, y->ply);
        assert_true(pos_same(&x->pos, &y->pos));
    }
    assert_null(x);
    assert_null(y);
}

/* }==== */
/* {==== move codes ============================================================ */

static void test_every_legal_move_round_trips(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a, 1 << 16);
    long moves = 0;
    for (int k = 0; k < 60; k++) {
        Game g;
        arena_reset(&a);
        random_game(&g, &a, k);
        for (const GameNode *n = g.root; n; n = game_walk_next(NULL, n, true)) {
            MoveList list;
            mg_legal(&n->pos, &list);
            for (int i = 0; i < list.count; i++, moves++) {
                Move back;
                assert_true(movecode_move(movecode_of(list.moves[i]), &back));
                assert_int_equal(back, list.moves[i]);
            }
        }
    }
    Move back;
    assert_true(movecode_move(movecode_of(MOVE_NULL), &back));
    assert_int_equal(back, MOVE_NULL);
    assert_false(movecode_move(MOVECODE_BEGIN << 12, &back));   /* a mark is no move */
    assert_false(movecode_move(7 << 12, &back));                /* nor an unused kind */
    assert_true(moves > 100000);
    arena_free(&a);
}

static void test_a_tree_reads_back_node_for_node(void **state)
{
    (void)state;
    Arena a, b;
    arena_init(&a, 1 << 16);
    arena_init(&b, 1 << 16);
    int with_variations = 0;
    for (int k = 0; k < 200; k++) {
        Game g, back;
        arena_reset(&a);
        arena_reset(&b);
        random_game(&g, &a, k);
        with_variations += g.has_variations;
        StrBuf codes = SB_INIT;
        size_t n = movecode_write_tree(&g, &codes);
        assert_int_equal(codes.len, 2 * n);
        memset(&back, 0, sizeof back);
        back.arena = &b;
        game_new_root(&back, &b, &g.root->pos);
        assert_true(movecode_read_tree((const unsigned char *)codes.data, n, &back, &b));
        assert_same_tree(&g, &back);
        assert_true(game_same_moves(&g, &back));
        sb_free(&codes);
    }
    assert_true(with_variations > 50);
    arena_free(&a);
    arena_free(&b);
}

/* Codes whose moves cannot be played, or whose marks do not pair up. */
static void test_damaged_codes_are_refused(void **state)
{
    (void)state;
    static const uint16_t bad[][4] = {
        {SQ_E4 | SQ_E5 << 6},                                   /* from an empty square */
        {SQ_E2 | SQ_E4 << 6, SQ_E4 | SQ_E5 << 6},                 /* White again */
        {SQ_D1 | SQ_D2 << 6},                                   /* onto its own pawn */
        {MOVECODE_BEGIN << 12},                                 /* a variation before any move */
        {SQ_E2 | SQ_E4 << 6, MOVECODE_END << 12},                /* an end without a beginning */
        {SQ_E2 | SQ_E4 << 6, MOVECODE_BEGIN << 12},              /* a beginning without an end */
        {SQ_E2 | SQ_E4 << 6, MOVECODE_BEGIN << 12, MOVECODE_END << 12},   /* an empty variation */
        {SQ_E1 | SQ_G1 << 6 | MOVECODE_CASTLE_SHORT << 12},    /* castling through pieces */
        {SQ_G1 | SQ_F3 << 6 | (MOVECODE_PROMOTION + QUEEN) << 12},   /* a knight promoting */
        {SQ_E2 | SQ_D3 << 6 | MOVECODE_EN_PASSANT << 12},     /* en passant with no pawn passed */
        {SQ_A2 | SQ_A8 << 6},                                   /* a pawn on its last rank, not promoting */
        {SQ_D1 | SQ_E8 << 6},                                   /* taking the king */
        /* a pawn's plain moves that would break the position (pos_is_ok) */
        {SQ_G1 | SQ_F3 << 6, SQ_E7 | SQ_E5 << 6, SQ_G2 | SQ_G1 << 6},   /* back onto its first rank */
        {SQ_E2 | SQ_E4 << 6, SQ_E7 | SQ_E5 << 6, SQ_E4 | SQ_E2 << 6},   /* two squares back */
        {SQ_B1 | SQ_C3 << 6, SQ_E7 | SQ_E5 << 6, SQ_C2 | SQ_C4 << 6},   /* two squares over a piece */
        {SQ_E2 | SQ_E3 << 6, SQ_A7 | SQ_A6 << 6, SQ_E3 | SQ_E5 << 6},   /* two squares from its third rank */
    };
    static const int count[] = {1, 2, 1, 1, 2, 2, 3, 1, 1, 1, 1, 1, 3, 3, 3, 3};
    Arena a;
    arena_init(&a, 1 << 16);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned char bytes[8];
        for (int j = 0; j < count[i]; j++) {
            bytes[2 * j] = (unsigned char)bad[i][j];
            bytes[2 * j + 1] = (unsigned char)(bad[i][j] >> 8);
        }
        Game g;
        memset(&g, 0, sizeof g);
        arena_reset(&a);
        Position start;
        pos_start(&start);
        game_new_root(&g, &a, &start);
        if (movecode_read_tree(bytes, (size_t)count[i], &g, &a)) fail_msg("damaged codes %zu were read", i);
        /* and a walk in place stops at them, its positions whole */
        MovecodeWalk walk;
        MovecodeWalkNodes nodes;
        assert_true(movecode_walk_start(&walk, &nodes, bytes, (size_t)count[i], &start, false));
        for (const GameNode *n; (n = movecode_walk_next(&walk)) != NULL;) assert_true(pos_is_ok(&n->pos));
        if (!walk.bad) fail_msg("damaged codes %zu were walked", i);
    }
    arena_free(&a);
}

/* }==== */
/* {==== summaries ============================================================= */

static void test_a_summary_reads_back(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a, 1 << 16);
    uint32_t seen = 0;
    for (int k = 0; k < 120; k++) {
        Game g;
        arena_reset(&a);
        random_game(&g, &a, k);
        GameSummary s, back;
        summary_of_game(&g, &s);
        seen |= s.flags;
        StrBuf bytes = SB_INIT;
        summary_write(&s, &bytes);
        ByteCursor c = cursor_of(bytes.data, bytes.len);
        summary_read(&c, &back);
        assert_false(c.bad);
        assert_int_equal(cursor_left(&c), 0);
        assert_memory_equal(&s, &back, sizeof s);
        /* read for a few pieces, it ends at the same byte and has their
         * squares, and no other piece's */
        uint16_t pieces = (uint16_t)(1u << W_KING | 1u << B_PAWN | 1u << (k % 15 + 1));
        GameSummary some;
        c = cursor_of(bytes.data, bytes.len);
        summary_read_some(&c, &some, pieces);
        assert_false(c.bad);
        assert_int_equal(cursor_left(&c), 0);
        for (Piece p = 0; p < PIECE_NB; p++)
            assert_true(some.squares[p] == (pieces & (1u << p) ? s.squares[p] : 0));
        assert_memory_equal(s.min_count, some.min_count, sizeof s.min_count);
        assert_memory_equal(s.max_count, some.max_count, sizeof s.max_count);
        assert_int_equal(s.flags, some.flags);
        /* passed over, it ends at the same byte, in one step (the length of
         * its pieces' bytes); a length one short is refused when the pieces
         * are read, and ends the summary a byte early when it is passed over */
        c = cursor_of(bytes.data, bytes.len);
        summary_read_some(&c, NULL, 0);
        assert_false(c.bad);
        assert_int_equal(cursor_left(&c), 0);
        c = cursor_of(bytes.data, bytes.len);
        (void)bytes_get_varint(&c);   /* the flags */
        unsigned char *length = (unsigned char *)bytes.data + (c.at - (const unsigned char *)bytes.data) + 14;
        assert_true(*length > 0);
        (*length)--;
        c = cursor_of(bytes.data, bytes.len);
        summary_read(&c, &back);
        assert_true(c.bad);
        c = cursor_of(bytes.data, bytes.len);
        summary_read_some(&c, NULL, 0);
        assert_false(c.bad);
        assert_int_equal(cursor_left(&c), 1);
        (*length)++;
        /* the summary holds every position's pieces */
        for (const GameNode *n = g.root; n; n = game_walk_next(NULL, n, true))
            for (Piece p = W_PAWN; p <= B_KING; p++) {
                if (type_of(p) == NO_PIECE_TYPE || type_of(p) > KING) continue;
                Bitboard b = pos_pieces(&n->pos, color_of(p), type_of(p));
                assert_true((b & ~s.squares[p]) == 0);
                assert_true(bb_popcount(b) >= s.min_count[p] && bb_popcount(b) <= s.max_count[p]);
            }
        sb_free(&bytes);
    }
    /* the random games have all of these somewhere */
    uint32_t wanted = SUMMARY_CHECK | SUMMARY_MATE | SUMMARY_STALEMATE | SUMMARY_CASTLE_SHORT | SUMMARY_EN_PASSANT |
                      SUMMARY_VARIATIONS | summary_promotion(QUEEN) | summary_capture(PAWN) | summary_capture(QUEEN);
    assert_int_equal(seen & wanted, wanted);
    arena_free(&a);
}

/* The summary of g worked out position by position, as its definition
 * has it (summary.h): each position's pieces and their counts, whether it
 * is in check, mated or stalemated, what each move does. */
static void summary_by_definition(const Game *g, GameSummary *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < 12; i++) s->min_count[summary_pieces[i]] = SUMMARY_MANY;
    for (const GameNode *n = g->root; n; n = game_walk_next(NULL, n, true)) {
        for (int i = 0; i < 12; i++) {
            Piece p = summary_pieces[i];
            Bitboard b = pos_pieces(&n->pos, color_of(p), type_of(p));
            int count = bb_popcount(b) > SUMMARY_MANY ? SUMMARY_MANY : bb_popcount(b);
            s->squares[p] |= b;
            if (count < s->min_count[p]) s->min_count[p] = (uint8_t)count;
            if (count > s->max_count[p]) s->max_count[p] = (uint8_t)count;
        }
        MoveList legal;
        mg_legal(&n->pos, &legal);
        bool check = pos_in_check(&n->pos);
        if (check) s->flags |= SUMMARY_CHECK;
        if (check && !n->child && legal.count == 0) s->flags |= SUMMARY_MATE;
        if (!check && !game_node_plays_a_move(n) && legal.count == 0) s->flags |= SUMMARY_STALEMATE;
        if (n->sibling) s->flags |= SUMMARY_VARIATIONS;
        if (!n->parent) continue;
        Move m = n->move;
        Piece taken = pos_piece_on(&n->parent->pos, move_to(m));
        switch (move_kind(m)) {
        case MK_NULL: s->flags |= SUMMARY_NULL_MOVE; break;
        case MK_CASTLE_SHORT: s->flags |= SUMMARY_CASTLE_SHORT; break;
        case MK_CASTLE_LONG: s->flags |= SUMMARY_CASTLE_LONG; break;
        case MK_EN_PASSANT: s->flags |= SUMMARY_EN_PASSANT | summary_capture(PAWN); break;
        case MK_PROMOTION:
        case MK_NORMAL:
            if (move_kind(m) == MK_PROMOTION) s->flags |= summary_promotion(move_promo(m));
            if (taken != NO_PIECE) s->flags |= summary_capture(type_of(taken));
            break;
        }
    }
    s->flags |= (uint32_t)summary_result_of(game_result(g)) << SUMMARY_RESULT_SHIFT;
}

static void add_to_summary(void *ctx, const GameNode *n)
{
    summary_add_node(ctx, n);
}

static void no_message(void *ctx, DiagSeverity severity, const char *text)
{
    (void)severity;
    (void)text;
    (*(int *)ctx)++;
}

/* The summary made during the parse, a node at a time as the reader makes
 * them (the sidecar's build), and the one walked over the tree are the
 * summary of the definition, on random games with variations. */
static void test_a_summary_made_during_the_parse_is_the_walks(void **state)
{
    (void)state;
    Arena a, b;
    arena_init(&a, 1 << 16);
    arena_init(&b, 1 << 16);
    SummaryBuilder builder = {0};   /* one for all the games, as the build's: a root's summary is kept */
    for (int k = 0; k < 160; k++) {
        Game g, back;
        arena_reset(&a);
        arena_reset(&b);
        random_game(&g, &a, k);
        GameSummary defined, walked, parsed;
        summary_by_definition(&g, &defined);
        summary_of_game(&g, &walked);
        assert_memory_equal(&defined, &walked, sizeof defined);
        /* the game as text, its start in a FEN tag, parsed back */
        Tag tags[2] = {{"SetUp", "1", true, 1}, {"FEN", starts[k % (int)(sizeof starts / sizeof starts[0])], false, 0}};
        PgnAnnotations notes = {0};
        notes.tags = tags;
        notes.ntags = 2;
        RawGame raw;
        raw_game_init(&raw);
        pgn_write_game(&g, &notes, &raw.text);
        raw.first_line = 1;
        raw.number = 1;
        int messages = 0;
        DiagSink sink;
        diag_sink_init(&sink, no_message, &messages);
        /* twice: the second time, the root's summary is the one kept */
        for (int pass = 0; pass < 2; pass++) {
            arena_reset(&b);
            summary_start(&builder);
            PgnMoveHook hook = {add_to_summary, &builder};
            assert_int_equal(pgn_parse_game_hooked(&raw, "random", &b, &back, &sink, &hook), PGN_OK);
            assert_int_equal(messages, 0);
            assert_int_equal(back.node_count, g.node_count);
            summary_finish(&builder, &back, &parsed);
            summary_by_definition(&back, &defined);
            assert_memory_equal(&defined, &parsed, sizeof defined);
        }
        raw_game_free(&raw);
    }
    arena_free(&a);
    arena_free(&b);
}

/* }==== */
/* {==== where a game's text is ================================================ */

static void silent(void *ctx, DiagSeverity severity, const char *text)
{
    (void)ctx;
    (void)severity;
    (void)text;
}

/* The offsets the reader gives each game of text (RawGame.first_offset,
 * end_offset) against the line starts counted from its bytes: LF, CRLF
 * and a lone CR end a line; a line past the last starts at the end. */
static void expect_offsets(const char *text, size_t len, int games)
{
    uint64_t line_starts[64];
    unsigned lines = 1;
    line_starts[1] = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '\n' && text[i] != '\r') continue;
        if (text[i] == '\r' && i + 1 < len && text[i + 1] == '\n') i++;
        line_starts[++lines] = i + 1;
        assert_true(lines < 63);
    }
    FILE *fp = fmemopen((void *)(uintptr_t)text, len, "rb");
    assert_non_null(fp);
    DiagSink sink;
    diag_sink_init(&sink, silent, NULL);
    PgnReader r;
    pgn_open_stream(&r, fp, "offsets", &sink);
    RawGame raw;
    raw_game_init(&raw);
    int n = 0;
    for (; pgn_next_raw(&r, &raw); n++) {
        assert_int_equal(raw.first_offset, line_starts[raw.first_line] + raw.first_column - 1);
        if (raw.end_offset_known)
            assert_int_equal(raw.end_offset, raw.last_line + 1 <= lines ? line_starts[raw.last_line + 1] : len);
    }
    assert_int_equal(n, games);
    raw_game_free(&raw);
    pgn_close(&r);
    fclose(fp);
}

static void test_the_readers_offsets_are_its_lines(void **state)
{
    (void)state;
    static const struct { const char *text; int games; } cases[] = {
        {"[Event \"a\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n\n1. d4 0-1\n", 2},
        {"[Event \"a\"]\r\n\r\n1. e4 e5 1-0\r\n\r\n[Event \"b\"]\r\n\r\n1. d4 0-1\r\n", 2},
        {"[Event \"a\"]\r\r1. e4 e5 1-0\r\r[Event \"b\"]\r\r1. d4 0-1\r", 2},
        {"[Event \"a\"]\n\r\n1. e4\re5 1-0\r[Event \"b\"]\r\n1. d4 0-1", 2},
        {"1. e4 e5 1-0 1. d4 d5 0-1 1. c4 *", 3},
        {"\xEF\xBB\xBF[Event \"a\"]\r\n1. e4 *\r\n\xEF\xBB\xBF[Event \"b\"]\n1. d4 *  ", 2},
        {"[Event \"a\"]\n1. e4 1-0 * \xEF\xBB\xBF[Event \"x\"]\n1. e4 *\n", 2},
        {"[Event \"a\"]\n1. e4 {a comment\non two lines} e5\n(1... d5) 1/2-1/2\n[Event \"b\"]\n1. e4 *", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_offsets(cases[i].text, strlen(cases[i].text), cases[i].games);
}

/* }==== */
/* {==== conditions ============================================================ */

static void ignore(void *ctx, CqlSeverity severity, const char *text)
{
    (void)ctx;
    (void)severity;
    (void)text;
}

/* The query (a body, or a whole query when it begins with cql(...))
 * compiled, NULL when it is refused; searching variations or not. */
static CqlQuery *compile_body(const char *body, bool variations)
{
    CqlSettings *s = cql_settings_new();
    cql_settings_set_flag(s, "bodyonly", strncmp(body, "cql(", 4) != 0);
    if (variations) cql_settings_set_flag(s, "variations", true);
    CqlMessages quiet = {ignore, NULL, 0, 0};
    CqlQuery *q = cql_compile(body, strlen(body), s, CQL_COMPILE_RUN, &quiet);
    cql_settings_free(s);
    return q;
}

static void expect_words(const char *body, const char *words)
{
    CqlQuery *q = compile_body(body, false);
    assert_non_null(q);
    CqlText got = {NULL, 0, 0};
    cql_index_condition(q, &got);
    if (strcmp(got.data, words) != 0) fail_msg("condition of '%s': '%s', expected '%s'", body, got.data, words);
    cql_text_free(&got);
    cql_query_free(q);
}

static void test_conditions_in_words(void **state)
{
    (void)state;
    expect_words("Ka1", "[K][a1]");
    expect_words("check Ka1", "(check and [K][a1])");
    expect_words("Ka1 or mate", "([K][a1] or mate)");
    expect_words("check or mate or stalemate", "check or mate or stalemate");
    expect_words("not Ka1", "none");
    expect_words("Ka1 or not mate", "none");
    expect_words("wtm Ka1", "[K][a1]");                    /* what changes nothing is looked past */
    expect_words("message(\"x\") Ka1", "none");            /* what prints is not */
    expect_words("Ka1 message(\"x\") check", "[K][a1]");   /* nor what comes after it */
    expect_words("flipcolor {Ka1}", "([K][a1] or [k][a8])");
    expect_words("shift {Ka1}", "[K]");
    expect_words("#R >= 2", "#[R] in 2..64");
    expect_words("3 > #q", "#[q] in 0..2");
    expect_words("Q attacks k", "([Q] and [k])");
    expect_words("cql(matchcount 0) Ka1", "none");
    expect_words("cql(result 1-0) Ka1", "([K][a1] and result 1-0)");
    expect_words("result 0-1", "result 0-1");
    expect_words("move promote N", "promote N");
    expect_words("move capture Q o-o", "(o-o and capture P or capture N or capture B or capture R or capture Q)");
    expect_words("move legal promote N", "none");
    expect_words("find mate", "mate");
    expect_words("find 0 1000 mate", "none");
    expect_words("ray (R q k)", "([R] and [q] and [k])");
}

/* A random query made of what the condition reads and what it does not. */
static void random_designator(StrBuf *q)
{
    static const char *const pieces[] = {"K", "k", "Q", "q", "R", "r", "B", "b", "N", "n", "P", "p",
                                         "A", "a", "[Qq]", "[RQ]", "[Pp]", "_", "[Kk]"};
    sb_append(q, pieces[rnd(sizeof pieces / sizeof pieces[0])]);
    switch (rnd(4)) {
    case 0: break;
    case 1: sb_printf(q, "%c%c", 'a' + rnd(8), '1' + rnd(8)); break;
    case 2: sb_printf(q, "%c%c-%c%c", 'a' + rnd(4), '1' + rnd(4), 'e' + rnd(4), '5' + rnd(4)); break;
    default: sb_printf(q, "[%c%c,%c%c]", 'a' + rnd(8), '1' + rnd(8), 'a' + rnd(8), '1' + rnd(8)); break;
    }
}

static void random_filter(StrBuf *q, int depth)
{
    static const char *const ops[] = {"<", "<=", "==", ">", ">=", "!="};
    static const char *const transforms[] = {"flipcolor", "flip", "shift", "flipvertical", "rotate90",
                                             "reversecolor"};
    static const char *const others[] = {"wtm", "btm", "ply > 30", "move from K", "x = 1", "message(\"m\")",
                                         "initial", "terminal", "move capture Q", "true", "false",
                                         "move promote N", "move promote [QR] capture a", "move o-o", "move castle",
                                         "move enpassant", "move previous capture A", "move legal promote Q",
                                         "find mate", "find 2 10 check", "find all stalemate", "result 1-0",
                                         "result 1/2-1/2", "ray (Q k)", "between (R k)", "xray (R q k)",
                                         "notransform Ka1", "find quiet {check Ka1}", "move null",
                                         "move from k comment(\"c\")"};
    unsigned pick = depth > 2 ? rnd(6) : rnd(11);
    switch (pick) {
    case 0: random_designator(q); break;
    case 1: sb_append(q, rnd(3) == 0 ? "mate" : rnd(2) ? "check" : "stalemate"); break;
    case 2:
        if (rnd(2)) sb_putc(q, '#');
        random_designator(q);
        sb_printf(q, " %s %u", ops[rnd(6)], rnd(10));
        break;
    case 3:
        random_designator(q);
        sb_append(q, rnd(2) ? " attacks " : " attackedby ");
        random_designator(q);
        break;
    case 4: sb_append(q, others[rnd(sizeof others / sizeof others[0])]); break;
    case 5: sb_printf(q, "%u %s #", rnd(6), ops[rnd(6)]); random_designator(q); break;
    case 6:
    case 7: {
        sb_putc(q, '{');
        for (int i = 0, n = 1 + (int)rnd(3); i < n; i++) {
            sb_putc(q, ' ');
            random_filter(q, depth + 1);
        }
        sb_append(q, " }");
        break;
    }
    case 8:
        sb_putc(q, '(');
        random_filter(q, depth + 1);
        sb_append(q, rnd(2) ? " or " : " and ");
        random_filter(q, depth + 1);
        sb_putc(q, ')');
        break;
    case 9:
        sb_printf(q, "%s {", transforms[rnd(sizeof transforms / sizeof transforms[0])]);
        random_filter(q, depth + 1);
        sb_append(q, " }");
        break;
    default:
        sb_append(q, "not ");
        random_filter(q, depth + 1);
        break;
    }
}

static void test_a_game_ruled_out_never_matches(void **state)
{
    (void)state;
    enum { GAMES = 48, QUERIES = 240 };
    CqlGame *games[GAMES];
    GameSummary summaries[GAMES];
    for (int k = 0; k < GAMES; k++) {
        games[k] = cql_game_new();
        random_game(&games[k]->game, &games[k]->arena, k);
        games[k]->usable = true;
        summary_of_game(&games[k]->game, &summaries[k]);
    }
    long searched = 0, ruled_out = 0, matched = 0, conditions = 0;
    for (int i = 0; i < QUERIES; i++) {
        StrBuf body = SB_INIT;
        random_filter(&body, 0);
        CqlQuery *q = compile_body(body.data, i % 2 == 1);
        if (!q) {
            sb_free(&body);
            continue;
        }
        Condition *c = condition_of_search(q->search.matchcount_min >= 1 ? q->query->body : NULL, q->search.result);
        conditions += c != NULL;
        CqlSearcher *s = cql_searcher_new(q);
        for (int k = 0; k < GAMES; k++) {
            CqlGameResult found;
            CqlText printed = {NULL, 0, 0};
            bool match = cql_search(s, games[k], &found, &printed);
            searched++;
            matched += match;
            bool admitted = condition_admits(c, &summaries[k]);
            size_t printed_len = printed.len;
            cql_text_free(&printed);
            if (admitted) continue;
            ruled_out++;
            if (match || printed_len || found.error || found.stopped) {
                StrBuf words = SB_INIT;
                condition_print(c, &words);
                fail_msg("game %d ruled out by '%s' (condition %s), but its search %s", k, body.data, words.data,
                         match ? "matched" : printed_len ? "printed" : "stopped");
            }
        }
        cql_searcher_free(s);
        condition_free(c);
        cql_query_free(q);
        sb_free(&body);
    }
    for (int k = 0; k < GAMES; k++) cql_game_free(games[k]);
    /* the property was put to the test: conditions ruled games out, and games matched */
    printf("index soundness: %ld searches, %ld matched, %ld ruled out, %ld queries with a condition\n", searched,
           matched, ruled_out, conditions);
    assert_true(ruled_out > searched / 10);
    assert_true(matched > searched / 20);
}

/* }==== */

int main(void)
{
    lib_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_legal_move_round_trips),
        cmocka_unit_test(test_a_tree_reads_back_node_for_node),
        cmocka_unit_test(test_damaged_codes_are_refused),
        cmocka_unit_test(test_a_summary_reads_back),
        cmocka_unit_test(test_a_summary_made_during_the_parse_is_the_walks),
        cmocka_unit_test(test_the_readers_offsets_are_its_lines),
        cmocka_unit_test(test_conditions_in_words),
        cmocka_unit_test(test_a_game_ruled_out_never_matches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
