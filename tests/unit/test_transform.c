/*
 * tests/unit/test_transform.c — the transform pass (src/query/transform.c): the board
 * symmetries form the group D4 (bijections, inverses, closure, attacks move
 * with the board), the seed's edge rule for shifts, colour inversion of
 * every colour word, images of filters written back as CQL, orbit sizes of
 * the seed's worked examples, and the shape of the orbit the evaluator reads.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <string.h>

#include "chess/attacks.h"
#include "chess_test.h"
#include "eval/search.h"
#include "query/compile.h"
#include "query/sema.h"
#include "query/transform.h"
#include "query_test.h"

static Query *compile(const char *text)
{
    Query *q = compile_quietly(text);
    assert_non_null(q);
    return q;
}

static Bitboard map_set(XfDihedral d, Bitboard b)
{
    XfMap m = {d, false, false, 0, 0};
    return xf_map_squares(&m, b);
}

/* {==== the group D4 ========================================================= */

static void test_each_symmetry_is_a_bijection(void **state)
{
    (void)state;
    for (int d = 0; d < XF_NB; d++) {
        Bitboard seen = 0;
        for (Square s = 0; s < SQ_NB; s++) seen |= sq_bb(xf_square((XfDihedral)d, s));
        assert_bb_equal(seen, ALL_SQUARES_BB);
        unsigned dirs = 0;
        for (int dir = 0; dir < DIR_NB; dir++) dirs |= 1u << xf_direction((XfDihedral)d, (Direction)dir);
        assert_int_equal(dirs, 0xFF);
    }
}

/* The element of D4 that does what f does to every square, or -1. */
static int element_like(const Square *image)
{
    for (int e = 0; e < XF_NB; e++) {
        bool same = true;
        for (Square s = 0; s < SQ_NB && same; s++) same = xf_square((XfDihedral)e, s) == image[s];
        if (same) return e;
    }
    return -1;
}

static void test_inverses_and_closure(void **state)
{
    (void)state;
    for (int a = 0; a < XF_NB; a++) {
        bool has_inverse = false;
        for (int b = 0; b < XF_NB; b++) {
            Square image[SQ_NB];
            for (Square s = 0; s < SQ_NB; s++) image[s] = xf_square((XfDihedral)a, xf_square((XfDihedral)b, s));
            int c = element_like(image);
            assert_true(c >= 0);   /* closed under composition */
            for (int dir = 0; dir < DIR_NB; dir++)
                assert_int_equal(xf_direction((XfDihedral)c, (Direction)dir),
                                 xf_direction((XfDihedral)a, xf_direction((XfDihedral)b, (Direction)dir)));
            if (c == XF_IDENTITY) has_inverse = true;
        }
        assert_true(has_inverse);
    }
}

/* The seed's examples: d3 goes to d6, e3, f4, c4; up, left under reflecth and rotate90. */
static void test_named_symmetries(void **state)
{
    (void)state;
    assert_int_equal(xf_square(XF_FLIP_RANKS, SQ_D3), SQ_D6);
    assert_int_equal(xf_square(XF_FLIP_FILES, SQ_D3), SQ_E3);
    assert_int_equal(xf_square(XF_ROTATE90, SQ_D3), SQ_F4);
    assert_int_equal(xf_square(XF_FLIP_DIAG, SQ_D3), SQ_C4);
    assert_int_equal(xf_square(XF_FLIP_ANTIDIAG, SQ_A1), SQ_H8);
    assert_int_equal(xf_square(XF_ROTATE180, SQ_A1), SQ_H8);
    assert_int_equal(xf_square(XF_ROTATE270, SQ_A1), SQ_A8);
    assert_int_equal(xf_direction(XF_FLIP_RANKS, DIR_N), DIR_S);
    assert_int_equal(xf_direction(XF_FLIP_RANKS, DIR_W), DIR_W);
    assert_int_equal(xf_direction(XF_ROTATE90, DIR_N), DIR_W);
    assert_bb_equal(map_set(XF_ROTATE90, file_bb(1)), rank_bb(1));   /* the b-file becomes rank 2 */
    assert_bb_equal(map_set(XF_FLIP_FILES, file_bb(1)), file_bb(6));
    /* 45°: up becomes northwest; orthogonal becomes diagonal */
    XfMap turn = {XF_IDENTITY, true, false, 0, 0};
    assert_int_equal(xf_map_directions(&turn, 1u << DIR_N), 1u << DIR_NW);
    assert_int_equal(xf_map_directions(&turn, 1u << DIR_N | 1u << DIR_W | 1u << DIR_S | 1u << DIR_E),
                     1u << DIR_NW | 1u << DIR_SW | 1u << DIR_SE | 1u << DIR_NE);
}

static void test_square_colours(void **state)
{
    (void)state;
    for (int d = 0; d < XF_NB; d++) {
        Bitboard light = map_set((XfDihedral)d, LIGHT_SQUARES_BB);
        assert_bb_equal(light, xf_swaps_square_colours((XfDihedral)d) ? DARK_SQUARES_BB : LIGHT_SQUARES_BB);
    }
    assert_false(xf_swaps_square_colours(XF_ROTATE180));
    assert_true(xf_swaps_square_colours(XF_ROTATE90));
    assert_true(xf_swaps_square_colours(XF_FLIP_RANKS));
    assert_false(xf_swaps_square_colours(XF_FLIP_DIAG));
}

/* Pieces on random squares: the attacks of each piece of the moved board
 * are the moved attacks. Pawns attack forward, so they keep their colour
 * under the symmetries that keep `up` and swap it under those that turn
 * `up` into `down` (as flipcolor does). */
static void test_attacks_move_with_the_board(void **state)
{
    (void)state;
    att_init();
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    for (int round = 0; round < 300; round++) {
        Bitboard occ = next_random(&seed) & next_random(&seed);
        for (int d = 0; d < XF_NB; d++) {
            Bitboard moved = map_set((XfDihedral)d, occ);
            Direction up = xf_direction((XfDihedral)d, DIR_N);
            for (Bitboard b = occ; b;) {
                Square s = bb_pop_lsb(&b), t = xf_square((XfDihedral)d, s);
                for (PieceType type = PAWN; type <= KING; type++) {
                    for (int c = WHITE; c <= BLACK; c++) {
                        Piece p = make_piece((Color)c, type), image = p;
                        if (type == PAWN && up == DIR_S) image = make_piece(other_color((Color)c), PAWN);
                        else if (type == PAWN && up != DIR_N) continue;
                        assert_bb_equal(att_piece(image, t, moved), map_set((XfDihedral)d, att_piece(p, s, occ)));
                    }
                }
            }
        }
    }
}

/* }==== */
/* {==== shifts and the edge rule ============================================ */

static Bitboard shifted(int files, int ranks, Bitboard b)
{
    XfMap m = {XF_IDENTITY, false, false, (int8_t)files, (int8_t)ranks};
    return xf_map_squares(&m, b);
}

static void test_shift_edge_rule(void **state)
{
    (void)state;
    assert_bb_equal(shifted(0, 1, sq_bb(SQ_A4)), sq_bb(SQ_A5));                          /* U a4 = a5 */
    assert_bb_equal(shifted(0, 3, sq_bb(SQ_A4)), sq_bb(SQ_A7));                          /* U3 a4 = a7 */
    assert_bb_equal(shifted(0, 3, sq_bb(SQ_A6)), 0);                                     /* U3 a6 = [] */
    assert_bb_equal(shifted(0, 1, sq_bb(SQ_A1) | sq_bb(SQ_A8)), sq_bb(SQ_A2));           /* U [a1,a8] = a2 */
    assert_bb_equal(shifted(0, 1, file_bb(0) | sq_bb(SQ_B3)), file_bb(0) | sq_bb(SQ_B4)); /* U [a1-8,b3] */
    assert_bb_equal(shifted(0, -2, file_bb(0) | sq_bb(SQ_B4)), file_bb(0) | sq_bb(SQ_B2));
    assert_bb_equal(shifted(3, 0, rank_bb(0) | sq_bb(SQ_A3)), rank_bb(0) | sq_bb(SQ_D3)); /* ranks stay */
    assert_bb_equal(shifted(5, 5, ALL_SQUARES_BB), ALL_SQUARES_BB);
    /* U-1 = reflecth U reflecth */
    for (Square s = 0; s < SQ_NB; s++)
        assert_bb_equal(shifted(0, -1, sq_bb(s)), map_set(XF_FLIP_RANKS, shifted(0, 1, map_set(XF_FLIP_RANKS, sq_bb(s)))));
}

static void test_families(void **state)
{
    (void)state;
    static const struct {
        TokKind op;
        int size;
        bool identity_first;
    } cases[] = {
        {TK_FLIP, 8, true},           {TK_FLIPCOLOR, 2, true},    {TK_FLIPHORIZONTAL, 2, true},
        {TK_FLIPVERTICAL, 2, true},   {TK_REVERSECOLOR, 1, false}, {TK_ROTATE90, 4, true},
        {TK_ROTATE45, 8, true},       {TK_SHIFT, 225, true},      {TK_SHIFTHORIZONTAL, 15, true},
        {TK_SHIFTVERTICAL, 15, true}, {TK_CHECK, 0, false},
    };
    XfMap maps[XF_FAMILY_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(xf_family(cases[i].op, maps), cases[i].size);
        bool identity = maps[0].dihedral == XF_IDENTITY && !maps[0].eighth && !maps[0].invert && !maps[0].files &&
                        !maps[0].ranks;
        if (cases[i].size) assert_int_equal(identity, cases[i].identity_first);
    }
    xf_family(TK_REVERSECOLOR, maps);   /* invertcolor ∘ reflecth */
    assert_true(maps[0].invert);
    assert_int_equal(maps[0].dihedral, XF_FLIP_RANKS);
}

/* }==== */
/* {==== images of filters ==================================================== */

/* The image of the body's first filter under m, written as CQL ("invalid"). */
static void assert_image(const char *filter, XfMap m, const char *want)
{
    Query *q = compile(filter);
    Node *image = xf_apply(&q->arena, &m, q->body->kids[0]);
    StrBuf sb = SB_INIT;
    if (image) xf_write_filter(q, image, &sb);
    else sb_append(&sb, "invalid");
    if (strcmp(sb_str(&sb), want) != 0) {
        print_error("image of '%s': expected '%s', got '%s'\n", filter, want, sb_str(&sb));
        fail();
    }
    sb_free(&sb);
    query_free(q);
}

static const XfMap INVERTCOLOR = {XF_IDENTITY, false, true, 0, 0};
static const XfMap U = {XF_IDENTITY, false, false, 0, 1};

static void test_seed_images(void **state)
{
    (void)state;
    const XfMap reflecth = {XF_FLIP_RANKS, false, false, 0, 0}, reflectv = {XF_FLIP_FILES, false, false, 0, 0};
    const XfMap rotate90 = {XF_ROTATE90, false, false, 0, 0}, down2 = {XF_IDENTITY, false, false, 0, -2};
    assert_image("[a1-8,b3]", reflecth, "[a1-8,b6]");
    assert_image("[a1-8,b3]", rotate90, "[a-h1,f2]");
    assert_image("[a1-8,b3]", reflectv, "[h1-8,g3]");
    assert_image("a4", U, "a5");
    assert_image("[a1,a8]", U, "a2");
    assert_image("(a1 | a8)", U, "invalid");
    assert_image("{check Ra3 n[a1-8,b4]}", down2, "{check Ra1 n[a1-8,b2]}");
    assert_image("{check Ra3}", reflecth, "{check Ra6}");
    assert_image("{check Ra3}", rotate90, "{check Rf1}");
    assert_image("{square x in [a1-8,b3] Q attacks x}", reflectv, "{square x in [h1-8,g3] Q attacks x}");
    assert_image("{stalemate right 3 light Qa1&Rb3}", reflectv, "{stalemate left 3 dark Qh1&Rg3}");
    assert_image("{up 1 K left 1 k}", reflecth, "{down 1 K left 1 k}");
    assert_image("up 1 K", rotate90, "left 1 K");
    assert_image("{light Ka1 dark Kb2}", U, "{dark Ka2 light Kb3}");
}

static void test_invertcolor(void **state)
{
    (void)state;
    assert_image("white", INVERTCOLOR, "black");
    assert_image("black", INVERTCOLOR, "white");
    assert_image("result 0-1", INVERTCOLOR, "result 1-0");
    assert_image("result 1-0", INVERTCOLOR, "result 0-1");
    assert_image("result 1/2-1/2", INVERTCOLOR, "result 1/2-1/2");
    assert_image("elo white", INVERTCOLOR, "elo black");
    assert_image("elo black", INVERTCOLOR, "elo white");
    assert_image("wtm", INVERTCOLOR, "btm");
    assert_image("btm", INVERTCOLOR, "wtm");
    assert_image("K", INVERTCOLOR, "k");
    assert_image("[Krn_]", INVERTCOLOR, "[RNk_]");
    assert_image("Nd2-4", INVERTCOLOR, "nd2-4");
    assert_image("player white \"x\"", INVERTCOLOR, "player black \"x\"");
    assert_image("{square all z in _ z attackedby k A attacks z}", INVERTCOLOR,
                 "{square all z in _ z attackedby K a attacks z}");
    assert_image("{light Ka1 notransform Kb2}", INVERTCOLOR, "{light ka1 notransform Kb2}");
    /* invertcolor invertcolor F = F */
    Query *q = compile("{K [Qr_]d2-4 wtm result 1-0 elo black player white A attacks k}");
    Node *once = xf_apply(&q->arena, &INVERTCOLOR, q->body->kids[0]);
    Node *twice = xf_apply(&q->arena, &INVERTCOLOR, once);
    assert_false(ast_equal(once, q->body->kids[0]));
    assert_true(ast_equal(twice, q->body->kids[0]));
    query_free(q);
}

/* }==== */
/* {==== orbits =============================================================== */

/* Checks the orbit the evaluator reads and returns its number of members:
 * every member once, and every group's key covering its members' keys. */
static uint32_t count_members(const Node *n, const Designator *within)
{
    uint32_t members = 0;
    for (uint32_t i = 0; i < n->nkids; i++) {
        const Node *k = n->kids[i];
        if (within && k->desig) {
            assert_int_equal(k->desig->pieces & ~within->pieces, 0);
            assert_bb_equal(k->desig->squares & ~within->squares, 0);
        }
        if (k->kind == ND_ORBIT_GROUP) {
            members += count_members(k, k->desig);
        } else {
            assert_int_equal(k->kind, ND_ORBIT_MEMBER);
            assert_true(!within || k->desig);
            members++;
        }
    }
    return members;
}

static uint32_t orbit_size(const char *text)
{
    Query *q = compile(text);
    DiagSink diag;
    diag_sink_init(&diag, drop_message, NULL);
    assert_true(xf_expand_query(q, &diag));
    const Node *orbit = q->body->kids[0];
    assert_int_equal(orbit->kind, ND_ORBIT);
    uint32_t n = (uint32_t)orbit->num;
    assert_int_equal(count_members(orbit, NULL), n);
    query_free(q);
    return n;
}

static void test_seed_orbit_sizes(void **state)
{
    (void)state;
    assert_int_equal(orbit_size("shiftvertical a1"), 8);
    assert_int_equal(orbit_size("shiftvertical [a1,a8]"), 9);
    assert_int_equal(orbit_size("shiftvertical a1-8"), 1);
    assert_int_equal(orbit_size("shiftvertical {a1 | a8}"), 1);
    assert_int_equal(orbit_size("flip a1"), 4);
    assert_int_equal(orbit_size("shift {Ka1 ka3}"), 48);
    assert_int_equal(orbit_size("shift flip {Ka1 ka3}"), 192);
    assert_int_equal(orbit_size("shift flip {Ka1 kc1}"), 192);
    assert_int_equal(orbit_size("flipcolor count {Ka1 ka8}"), 2);
    assert_int_equal(orbit_size("shift flip count K"), 1);
    assert_int_equal(orbit_size("flip Ra1"), 4);
    assert_int_equal(orbit_size("flipcolor {Kg1 Rf1}"), 2);
    assert_int_equal(orbit_size("flip {ray (R q k)}"), 1);
    assert_int_equal(orbit_size("rotate45 {up 2 K & k}"), 8);
    assert_int_equal(orbit_size("reversecolor K"), 1);
    assert_int_equal(orbit_size("flipcolor {x = 1 Ka1}"), 2);
}

static void test_orbit_nodes(void **state)
{
    (void)state;
    DiagSink diag;
    diag_sink_init(&diag, drop_message, NULL);
    /* the inner transform of a compound becomes an orbit inside each member */
    Query *q = compile("flipcolor count {Ka1 shift kb2}");
    assert_true(xf_expand_query(q, &diag));
    const Node *orbit = q->body->kids[0];
    assert_int_equal(orbit->type, VT_NUMBER);
    assert_true(orbit->flags & NF_COUNT);
    assert_int_equal(orbit->op, TK_FLIPCOLOR);
    const Node *member = orbit->kids[0];
    assert_int_equal(member->kind, ND_ORBIT_MEMBER);
    assert_int_equal(member->kids[0]->kids[1]->kind, ND_ORBIT);
    assert_non_null(member->desig);   /* its key: Ka1 (or ka8) */
    assert_int_equal(bb_popcount(member->desig->squares), 1);
    query_free(q);
    /* a member that assigns is never skipped: it has no key */
    q = compile("flip {x = 1 Ka1}");
    assert_true(xf_expand_query(q, &diag));
    assert_null(q->body->kids[0]->kids[0]->desig);
    query_free(q);
    /* -flipcolor around a body that is a transform composes with it */
    q = compile("flip Ka1");
    xf_wrap_body(q, TK_FLIPCOLOR);
    assert_true(xf_expand_query(q, &diag));
    assert_int_equal(q->body->kids[0]->num, 8);
    query_free(q);
    /* 45° turns of a partial square designator are refused */
    q = compile("Ka1");
    xf_wrap_body(q, TK_ROTATE45);
    assert_false(xf_expand_query(q, &diag));
    query_free(q);
}

static void capture_message(void *ctx, DiagSeverity sev, const char *text)
{
    (void)sev;
    sb_append((StrBuf *)ctx, text);
}

/* Nested transforms multiply: the pass stops at its budget, with one
 * message at the outermost transform, having made about a budget's worth
 * of nodes (not the 16 million members of the whole expansion). */
/* The gate a search reads games through (search_init, pgn_parse_game_gated):
 * the placements come from a piece designator the body needs, after
 * members that change nothing, from both sides of `or`, from the attacking
 * side of `attacks` and from the keys of an orbit's members; none when a
 * filter with an effect may be evaluated before it, when the designator
 * allows the empty square, or when a game may match with no position
 * matched. And the first filter that reads only tags, asked once the tags
 * are read. */
static void test_search_gate_from_body(void **state)
{
    (void)state;
    DiagSink quiet;
    diag_sink_init(&quiet, drop_message, NULL);
    CompileOptions run = {.body_only = true, .expand = true};   /* as for a run: orbits made */
    /* the placements; whether the first filter reads only tags (asked once
     * the tags are read); whether, where it held, the rest of the body is
     * evaluated alone (not when settag can change a tag it reads, nor
     * inside a compound) */
    static const struct {
        const char *body;
        int placements;
        bool tags_test, rest;
    } cases[] = {
        {"Ka1", 1, false, false}, {"Ka1 check", 1, false, false}, {"{[RQ]h7 mate}", 1, false, false},
        {"(Ka1) check", 1, false, false}, {"flipcolor {Ka1 check}", 2, false, false},
        {"(Ka1 or kh8) check", 2, false, false}, {"check Ka1", 1, false, false},
        {"btm {check Ka1}", 1, false, false}, {"check message \"m\" Ka1", 0, false, false},
        {"Q attacks k", 1, false, false}, {"k attackedby Q", 1, false, false},
        {"x = 1 Ka1", 0, false, false}, {"_a1", 0, false, false}, {"[K_]a1", 0, false, false},
        {"flipcolor {x = 1 Ka1}", 0, false, false}, {"not Ka1", 0, false, false},
        {"Ka1 or check", 0, false, false}, {"true", 0, true, false},
        {"player white \"X\" Ka1 check", 1, true, true}, {"player white \"X\" x = 1 Ka1", 0, true, true},
        {"{elo white > 2500 year < 1950} mate", 0, true, false}, {"gamenumber > 10 and event \"Ch\"", 0, true, false},
        {"not player \"X\"", 0, true, false}, {"Ka1 player white \"X\"", 1, true, false},
        {"check message \"m\" player \"X\"", 0, false, false},
        {"elo > 2500", 0, true, false}, {"result 1-0 check", 0, false, false},
        {"x = 1 player \"X\"", 0, false, false}, {"player white \"X\" or Ka1", 0, false, false},
        {"{2 4}", 0, false, false}, {"player white \"X\" check", 0, true, true},
        {"player white \"X\" settag(\"White\" \"Y\") check", 0, true, false},
        {"{player \"X\" Ka1} check", 1, true, false}, {"player \"X\"", 0, true, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        SourceText src = {"-cql", cases[i].body, strlen(cases[i].body), NULL, 0};
        Query *q = query_compile(&src, &run, &quiet);
        assert_non_null(q);
        Settings settings;
        memset(&settings, 0, sizeof settings);
        Search s;
        search_init(&s, &settings, q);
        if (s.gate.nplacements != cases[i].placements)
            fail_msg("%s: %d placements, not %d", cases[i].body, s.gate.nplacements, cases[i].placements);
        if ((s.tags_test != NULL) != cases[i].tags_test) fail_msg("%s: tags_test", cases[i].body);
        if ((s.body_past_tags_test != NULL) != cases[i].rest) fail_msg("%s: the rest", cases[i].body);
        assert_null(s.gate.result);
        query_free(q);
    }
    Query *q = compile("Ka1");
    Settings settings;
    memset(&settings, 0, sizeof settings);
    settings_set_text(&settings, &setting_rows[SET_result], "1-0");
    Search s;
    search_init(&s, &settings, q);
    assert_int_equal(s.gate.nplacements, 1);
    assert_int_equal(s.gate.placements[0].pieces, 1u << W_KING);
    assert_true(s.gate.placements[0].squares == sq_bb(SQ_A1));
    assert_string_equal(s.gate.result, "1-0");
    settings_set_pair(&settings, &setting_rows[SET_matchcount], 0, 1);   /* a game without a king on a1 matches */
    search_init(&s, &settings, q);
    assert_int_equal(s.gate.nplacements, 0);
    query_free(q);
}

static void test_expansion_budget(void **state)
{
    (void)state;
    StrBuf messages = SB_INIT, want = SB_INIT;
    DiagSink diag;
    diag_sink_init(&diag, capture_message, &messages);
    Query *q = compile("check or\n  flip {shift {flip {shift {flip Ka1}}}}");
    size_t before = arena_bytes_used(&q->arena);
    assert_false(xf_expand_query(q, &diag));
    assert_int_equal(diag.errors, 1);
    sb_printf(&want, "-cql:2:3: error: transforms expand to more than %d filters\n", XF_MAX_FILTERS);
    sb_append(&want, "  flip {shift {flip {shift {flip Ka1}}}}\n  ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
    assert_string_equal(sb_str(&messages), sb_str(&want));
    /* what the kept images took: a few hundred bytes a node at most */
    assert_true(arena_bytes_used(&q->arena) - before < (size_t)XF_MAX_FILTERS * 400);
    query_free(q);
    /* -shift around a query with a large argument: its nodes count too */
    sb_clear(&messages);
    StrBuf text = SB_INIT;
    for (int i = 0; i < XF_MAX_FILTERS / 64 + 1; i++) sb_append(&text, "Ka1 ");
    q = compile(sb_str(&text));
    xf_wrap_body(q, TK_SHIFT);
    assert_false(xf_expand_query(q, &diag));
    assert_non_null(strstr(sb_str(&messages), "-cql:1:1: error: transforms expand to more than"));
    query_free(q);
    /* the largest orbit of the test suites is far below the budget */
    q = compile("shift flip {Ka1 ka3}");
    assert_true(xf_expand_query(q, &diag));
    query_free(q);
    sb_free(&text);
    sb_free(&want);
    sb_free(&messages);
}

static void test_dump_orbit(void **state)
{
    (void)state;
    Query *q = compile("shiftvertical [a1,a8]\nflipcolor {wtm\n Ka1}");
    StrBuf sb = SB_INIT;
    xf_write_orbits(q, &sb);
    assert_string_equal(sb_str(&sb), "orbit 1:1 shiftvertical: 9 members\n"
                                     "  [a1,a8]\n  a2\n  a3\n  a4\n  a5\n  a6\n  a7\n  a8\n  a1\n"
                                     "orbit 2:1 flipcolor: 2 members\n"
                                     "  {wtm\n     Ka1}\n  {btm\n     ka8}\n");
    sb_free(&sb);
    query_free(q);
}

/* }==== */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_symmetry_is_a_bijection),
        cmocka_unit_test(test_inverses_and_closure),
        cmocka_unit_test(test_named_symmetries),
        cmocka_unit_test(test_square_colours),
        cmocka_unit_test(test_attacks_move_with_the_board),
        cmocka_unit_test(test_shift_edge_rule),
        cmocka_unit_test(test_families),
        cmocka_unit_test(test_seed_images),
        cmocka_unit_test(test_invertcolor),
        cmocka_unit_test(test_seed_orbit_sizes),
        cmocka_unit_test(test_orbit_nodes),
        cmocka_unit_test(test_dump_orbit),
        cmocka_unit_test(test_expansion_budget),
        cmocka_unit_test(test_search_gate_from_body),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
