/*
 * tests/test_legacy.c — the CQL 1.0 front end (src/legacy/): telling the
 * dialects apart, lists and comments, piece designators and ranges, the
 * worked examples of the original manual for flips and for shifts with the
 * CQL 1.0 edge rule, transformation sets, spans of the compiled tree, and
 * messages with line, column and caret.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "chess_test.h"
#include "base/strbuf.h"
#include "query/compile.h"
#include "query/print.h"
#include "query/legacy/legacy.h"
#include "query/legacy/legacy_geometry.h"
#include "query/legacy/legacy_parser.h"

static void capture(void *ctx, DiagSeverity sev, const char *text)
{
    (void)sev;
    sb_append((StrBuf *)ctx, text);
}

/* The match list of text; fails the test on an error. */
static LegacyMatch *parse_ok(Arena *a, const char *text)
{
    SourceText src = {"t.cql", text, strlen(text), NULL, 0};
    StrBuf msg = SB_INIT;
    DiagSink sink;
    diag_sink_init(&sink, capture, &msg);
    LegacyItem *top = legacy_read(&src, a, &sink);
    LegacyMatch *m = top ? legacy_parse(top, &src, a, &sink) : NULL;
    if (!m) print_error("%s", sb_str(&msg));
    sb_free(&msg);
    assert_non_null(m);
    return m;
}

/* The first message for text, which must be refused. */
static void assert_error(const char *text, const char *expected)
{
    SourceText src = {"t.cql", text, strlen(text), NULL, 0};
    StrBuf msg = SB_INIT;
    DiagSink sink;
    diag_sink_init(&sink, capture, &msg);
    Query *q = query_compile(&src, NULL, &sink);
    assert_null(q);
    assert_string_equal(sb_str(&msg), expected);
    sb_free(&msg);
}

/* {==== dialects, lists, comments ============================================= */

static void test_dialect(void **state)
{
    (void)state;
    static const char *const cql1[] = {"(match (position))", "  \n(match)", "; comment\n(match)",
                                       "\xEF\xBB\xBF(match)", "// a comment\n(match)", "/* x */ (match)"};
    static const char *const cql6[] = {"cql() check", "", "; only a comment", "// cql(\ncql()", "match"};
    for (size_t i = 0; i < sizeof cql1 / sizeof cql1[0]; i++) assert_true(legacy_is_cql1(cql1[i], strlen(cql1[i])));
    for (size_t i = 0; i < sizeof cql6 / sizeof cql6[0]; i++) assert_false(legacy_is_cql1(cql6[i], strlen(cql6[i])));
}

static void test_lists_and_comments(void **state)
{
    (void)state;
    const char *text = "; A CQL file that copies input to output\n"
                       "(match :pgn heijden.pgn ; the PGN file\n"
                       "   :output out.pgn ; where to write it\n"
                       "   (position) ; a position filter matching anything\n)\n";
    SourceText src = {"t.cql", text, strlen(text), NULL, 0};
    Arena a;
    arena_init(&a, 0);
    DiagSink sink;
    diag_sink_init(&sink, NULL, NULL);
    LegacyItem *top = legacy_read(&src, &a, &sink);
    assert_non_null(top);
    assert_true(top->is_list);
    assert_int_equal(top->nkids, 6);
    assert_string_equal(top->kids[0]->text, "match");
    assert_string_equal(top->kids[2]->text, "heijden.pgn");
    assert_true(top->kids[5]->is_list);
    assert_int_equal(top->kids[5]->nkids, 1);
    LegacyMatch *m = legacy_parse(top, &src, &a, &sink);
    assert_non_null(m);
    assert_string_equal(m->pgn, "heijden.pgn");
    assert_string_equal(m->output, "out.pgn");
    assert_int_equal(m->nlists, 1);
    assert_int_equal(m->lists[0]->nconds, 0);
    arena_free(&a);
}

/* }==== */
/* {==== designators and ranges ================================================= */

static void test_designators(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a, 0);
    LegacyMatch *m;
    m = parse_ok(&a, "(match :forany t N (position Ra2 bc1 [Rb]d1 [Qr][d1,h3] ?[a-c1] ?[b3-5] U[f-h6-8] ?[a1,c4] "
                     "I[a-h1-2,a8,h8] B[] Ua? [Qq][?8] ?[b?,d?] ?[?1,?8] . M m i $t[a1,d4] R[h-a1]))");
    const LegacyList *l = m->lists[0];
    assert_int_equal(l->nconds, 20);
    const LegacyDesig *d = &l->conds[0].d[0];
    assert_int_equal(d->pieces, 1u << W_ROOK);
    assert_bb_equal(d->squares, squares("a2"));
    assert_int_equal(l->conds[1].d[0].pieces, 1u << B_BISHOP);
    assert_int_equal(l->conds[2].d[0].pieces, (1u << W_ROOK) | (1u << B_BISHOP));
    assert_bb_equal(l->conds[3].d[0].squares, squares("d1 h3"));
    assert_int_equal(l->conds[3].d[0].pieces, (1u << W_QUEEN) | (1u << B_ROOK));
    assert_bb_equal(l->conds[4].d[0].squares, squares("a1 b1 c1"));
    assert_int_equal(l->conds[4].d[0].pieces, LEGACY_ANY_CONTENT);
    assert_bb_equal(l->conds[5].d[0].squares, squares("b3 b4 b5"));
    assert_bb_equal(l->conds[6].d[0].squares, squares("f6 f7 f8 g6 g7 g8 h6 h7 h8"));
    assert_bb_equal(l->conds[7].d[0].squares, squares("a1 c4"));
    assert_bb_equal(l->conds[8].d[0].squares, RANK_1_BB | rank_bb(1) | squares("a8 h8"));
    assert_int_equal(l->conds[8].d[0].pieces, (1u << W_BISHOP) | (1u << W_KNIGHT));
    assert_bb_equal(l->conds[9].d[0].squares, 0);
    assert_bb_equal(l->conds[10].d[0].squares, FILE_A_BB);
    assert_int_equal(l->conds[10].d[0].pieces, LEGACY_WHITE_PIECES | LEGACY_BLACK_PIECES);
    assert_bb_equal(l->conds[11].d[0].squares, RANK_8_BB);
    assert_bb_equal(l->conds[12].d[0].squares, file_bb(1) | file_bb(3));
    assert_bb_equal(l->conds[13].d[0].squares, RANK_1_BB | RANK_8_BB);
    assert_int_equal(l->conds[14].d[0].pieces, LEGACY_EMPTY_SQUARE);
    assert_bb_equal(l->conds[14].d[0].squares, ALL_SQUARES_BB);
    assert_int_equal(l->conds[15].d[0].pieces, (1u << W_QUEEN) | (1u << W_ROOK));
    assert_int_equal(l->conds[16].d[0].pieces, (1u << B_QUEEN) | (1u << B_ROOK));
    assert_int_equal(l->conds[17].d[0].pieces, (1u << B_BISHOP) | (1u << B_KNIGHT));
    assert_int_equal(l->conds[18].d[0].tag, 0);
    assert_bb_equal(l->conds[18].d[0].squares, squares("a1 d4"));
    assert_bb_equal(l->conds[19].d[0].squares, RANK_1_BB);   /* h-a is a-h */
    arena_free(&a);
}

static void test_ranges(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a, 0);
    LegacyMatch *m = parse_ok(&a, "(match :year 1934 2000 :gamenumber 7 (position :piececount P 4 :power A 3 unlimited "
                                  ":powerdifference U -5 10 :movenumber unlimited 20 :elo unlimited))");
    assert_int_equal(m->year.lo, 1934);
    assert_int_equal(m->year.hi, 2000);
    assert_int_equal(m->gamenumber.lo, 7);
    assert_int_equal(m->gamenumber.hi, 7);
    const LegacyCond *c = m->lists[0]->conds;
    assert_int_equal(c[0].range.lo, 4);
    assert_int_equal(c[0].range.hi, 4);
    assert_int_equal(c[1].range.lo, 3);
    assert_true(c[1].range.hi == INT64_MAX);
    assert_int_equal(c[2].range.lo, -5);
    assert_int_equal(c[2].range.hi, 10);
    assert_true(c[3].range.lo == INT64_MIN);
    assert_int_equal(c[3].range.hi, 20);
    assert_true(c[4].range.lo == INT64_MIN && c[4].range.hi == INT64_MAX);
    arena_free(&a);
}

/* }==== */
/* {==== transformations: the original manual's examples ========================= */

static LegacyTransform shift_of(int dx, int dy)
{
    LegacyTransform t = legacy_identity();
    t.nshifts = 1;
    t.shift[0][0] = (int8_t)dx;
    t.shift[0][1] = (int8_t)dy;
    return t;
}

static LegacyTransform flip_of(int m00, int m01, int m10, int m11, bool colour)
{
    LegacyTransform t = legacy_identity();
    t.m[0][0] = (int8_t)m00;
    t.m[0][1] = (int8_t)m01;
    t.m[1][0] = (int8_t)m10;
    t.m[1][1] = (int8_t)m11;
    t.colour = colour;
    return t;
}

static void test_shift_edge_rule(void **state)
{
    (void)state;
    /* the unit right shift of Qd4 is Qe4, of Q[c2,h2] Qd2, of Q[a2,c2,h2] Q[a2,b2,d2] */
    assert_bb_equal(legacy_shift_right(squares("d4")), squares("e4"));
    assert_bb_equal(legacy_shift_right(squares("c2 h2")), squares("d2"));
    assert_bb_equal(legacy_shift_right(squares("a2 c2 h2")), squares("a2 b2 d2"));
    /* three unit right shifts: Qa4 -> Q[a4,b4,c4,d4], Qd4 -> Qg4 */
    LegacyTransform r3 = shift_of(3, 0);
    assert_bb_equal(legacy_map_squares(&r3, squares("a4")), squares("a4 b4 c4 d4"));
    assert_bb_equal(legacy_map_squares(&r3, squares("d4")), squares("g4"));
    /* the unit up shift of R[a1,a8,h1,h8] is R[a1,a2,h1,h2]; left and down mirror them */
    assert_bb_equal(legacy_shift_up(squares("a1 a8 h1 h8")), squares("a1 a2 h1 h2"));
    assert_bb_equal(legacy_shift_left(squares("h2 f2 a2")), squares("h2 g2 e2"));
    assert_bb_equal(legacy_shift_down(squares("a8 a1 h8 h1")), squares("a8 a7 h8 h7"));
    /* the whole board is its own shift */
    LegacyTransform far = shift_of(-7, 5);
    assert_bb_equal(legacy_map_squares(&far, ALL_SQUARES_BB), ALL_SQUARES_BB);
    /* more than seven steps change nothing further */
    LegacyTransform r7 = shift_of(7, 0), r9 = shift_of(7, 0);
    r9.nshifts = 2;
    r9.shift[1][0] = 2;
    assert_bb_equal(legacy_map_squares(&r9, squares("a3 e5")), legacy_map_squares(&r7, squares("a3 e5")));
}

static void test_flips(void **state)
{
    (void)state;
    LegacyTransform diagonal = flip_of(0, 1, 1, 0, false), off = flip_of(0, -1, -1, 0, false);
    LegacyTransform vertical = flip_of(-1, 0, 0, 1, false), horizontal = flip_of(1, 0, 0, -1, false);
    LegacyTransform colour = flip_of(1, 0, 0, -1, true);
    /* the manual says Ra8 becomes Ra1, but a8 goes to h1 in the a1-h8
     * diagonal, as its other example, h7 -> g8, says (like its Uf6 -> Uc3 for
     * the vertical flip, a typo) */
    assert_bb_equal(legacy_map_squares(&diagonal, squares("a8")), squares("h1"));
    assert_bb_equal(legacy_map_squares(&diagonal, RANK_1_BB | rank_bb(1) | squares("f6 h7")),
                    FILE_A_BB | file_bb(1) | squares("f6 g8"));
    assert_bb_equal(legacy_map_squares(&off, squares("a8")), squares("a8"));
    assert_bb_equal(legacy_map_squares(&off, FILE_A_BB), RANK_8_BB);
    assert_bb_equal(legacy_map_squares(&vertical, squares("f6")), squares("c6"));
    assert_bb_equal(legacy_map_squares(&horizontal, squares("f6")), squares("f3"));
    /* the colour flip of [Rbp][a2,c2] is [rBP][a7,c7] */
    assert_bb_equal(legacy_map_squares(&colour, squares("a2 c2")), squares("a7 c7"));
    uint16_t rbp = (1u << W_ROOK) | (1u << B_BISHOP) | (1u << B_PAWN) | LEGACY_EMPTY_SQUARE;
    assert_int_equal(legacy_map_pieces(&colour, rbp),
                     (1u << B_ROOK) | (1u << W_BISHOP) | (1u << W_PAWN) | LEGACY_EMPTY_SQUARE);
    /* the 8 dihedral images of Qc2 */
    LegacyXform flip = LX_FLIP;
    size_t n;
    LegacyTransform *set = legacy_transform_set(&flip, 1, 1000, &n);
    assert_int_equal(n, 8);
    Bitboard images = 0;
    for (size_t i = 0; i < n; i++) images |= legacy_map_squares(&set[i], squares("c2"));
    assert_bb_equal(images, squares("c2 b3 f2 g3 f7 g6 b6 c7"));
    assert_true(legacy_is_identity(&set[0]));
    free(set);
}

static void test_transform_sets(void **state)
{
    (void)state;
    static const struct {
        LegacyXform xf[3];
        uint32_t n;
        size_t count;
    } cases[] = {
        {{LX_FLIP}, 1, 8},
        {{LX_FLIPCOLOR}, 1, 2},
        {{LX_FLIP, LX_FLIPCOLOR}, 2, 16},
        {{LX_FLIP, LX_FLIP}, 2, 8},
        {{LX_FLIPHORIZONTAL, LX_FLIPVERTICAL}, 2, 4},
        {{LX_SHIFT}, 1, 225},
        {{LX_SHIFTHORIZONTAL}, 1, 15},
        {{LX_SHIFTMAINDIAGONAL}, 1, 15},
        {{LX_SHIFTDIAGONAL}, 1, 29},
        {{LX_SHIFTHORIZONTAL, LX_FLIPCOLOR}, 2, 30},
        {{LX_SHIFT, LX_FLIP}, 2, 1800},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n;
        LegacyTransform *set = legacy_transform_set(cases[i].xf, cases[i].n, 100000, &n);
        assert_non_null(set);
        assert_int_equal(n, cases[i].count);
        assert_true(legacy_is_identity(&set[0]));
        free(set);
    }
    LegacyXform many[3] = {LX_SHIFT, LX_SHIFT, LX_SHIFT};
    size_t n;
    assert_null(legacy_transform_set(many, 3, 1000000, &n));   /* 225^3 */
}

/* }==== */
/* {==== compiling: spans and messages ============================================ */

static void test_spans_point_into_the_file(void **state)
{
    (void)state;
    const char *text = "; comment\n(match\n  (position Ka1 :mate))\n";
    SourceText src = {"t.cql", text, strlen(text), NULL, 0};
    Query *q = query_compile(&src, NULL, NULL);
    assert_non_null(q);
    assert_string_equal(q->src.name, "t.cql");
    assert_int_equal(q->src.len, strlen(text));
    StrBuf sb = SB_INIT;
    print_tree(q, &sb);
    /* Ka1 is at 3:13-3:16 and :mate at 3:17-3:22 of the CQL 1.0 file */
    assert_non_null(strstr(sb_str(&sb), "designator type=set 3:13-3:16 pieces=K squares=[a1]"));
    assert_non_null(strstr(sb_str(&sb), "mate type=none 3:17-3:22"));
    sb_free(&sb);
    query_free(q);
}

static void test_translation(void **state)
{
    (void)state;
    const char *text = "(match :pgn a.pgn :year 1990 (position Pa4 Nd4 :shifthorizontal))";
    SourceText src = {"t.cql", text, strlen(text), NULL, 0};
    char *cql6 = legacy_translate(&src, NULL);
    assert_non_null(cql6);
    assert_string_equal(cql6, "// CQL 6 translation of the CQL 1.0 query t.cql\n"
                              "cql(input \"a.pgn\")\n"
                              "year == 1990\n"
                              "{{Pa4 Nd4}\n   or {Pa-b4 Ne4}\n   or {Pa-c4 Nf4}\n   or {Pa-d4 Ng4}\n   or "
                              "{Pa-e4 Nh4}}\n");
    free(cql6);
}

static void test_messages(void **state)
{
    (void)state;
    assert_error("(match\n  (position :mates))\n",
                 "t.cql:2:13: error: unknown keyword ':mates'\n  (position :mates))\n            ^~~~~~\n");
    assert_error("(match (position Ra-h1))",
                 "t.cql:1:19: error: bad designator 'Ra-h1': a compound square designator must be in brackets, as in "
                 "[a-h1-2]\n(match (position Ra-h1))\n                  ^~~~\n");
    assert_error("(match (position :piececount R two))",
                 "t.cql:1:32: error: ':piececount' needs a range (one or two numbers) after its designator, not 'two'\n"
                 "(match (position :piececount R two))\n                               ^~~\n");
    assert_error("(match (position :mate)",
                 "t.cql:1:1: error: unbalanced parentheses: this '(' is never closed (1 ')' missing at the end of the "
                 "file)\n(match (position :mate)\n^\n");
    assert_error("(match :pgn)", "t.cql:1:8: error: ':pgn' needs a file name, found the end of the list\n(match :pgn)\n"
                                 "       ^~~~\n");
}

/* }==== */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dialect),
        cmocka_unit_test(test_lists_and_comments),
        cmocka_unit_test(test_designators),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_shift_edge_rule),
        cmocka_unit_test(test_flips),
        cmocka_unit_test(test_transform_sets),
        cmocka_unit_test(test_spans_point_into_the_file),
        cmocka_unit_test(test_translation),
        cmocka_unit_test(test_messages),
    };
    return cmocka_run_group_tests(tests, chess_setup, NULL);
}
