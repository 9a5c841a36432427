/*
 * tests/unit/test_parser.c — unit tests of the parser and the AST (parser.c,
 * parser_move.c, ast.c): tree shapes, whitespace-sensitive moves,
 * associativity, payloads, function expansion, clone/equal/walk, the dump
 * and the -a/-u writer.
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

#include "chess/attacks.h"
#include "query/compile.h"
#include "query/print.h"
#include "query/sema.h"

static void silent(void *ctx, DiagSeverity sev, const char *text)
{
    (void)ctx;
    (void)sev;
    (void)text;
}

static Query *compile_as(const char *text, bool body_only)
{
    DiagSink diag;
    diag_sink_init(&diag, silent, NULL);
    SourceText src = {"q.cql", text, strlen(text), NULL, 0};
    CompileOptions opt = {.body_only = body_only};
    return query_compile(&src, &opt, &diag);
}

static Query *body(const char *text)
{
    Query *q = compile_as(text, true);
    if (!q) fail_msg("'%s' was rejected", text);
    return q;
}

/* The i-th top-level filter of the body. */
static const Node *top(const Query *q, uint32_t i)
{
    assert_true(i < q->body->nkids);
    return q->body->kids[i];
}

static void test_whitespace_decides_moves(void **state)
{
    (void)state;
    Query *q = body("e2--e4");
    assert_int_equal(q->body->nkids, 1);
    const Node *d = top(q, 0);
    assert_int_equal(d->kind, ND_DASH);
    assert_non_null(d->kids[0]);
    assert_non_null(d->kids[1]);
    query_free(q);

    q = body("e2 --e4");   /* a designator, then a move to e4 from anywhere */
    assert_int_equal(q->body->nkids, 2);
    assert_null(top(q, 1)->kids[0]);
    assert_non_null(top(q, 1)->kids[1]);
    query_free(q);

    q = body("e2-- e4");   /* a move from e2 to anywhere, then e4 */
    assert_int_equal(q->body->nkids, 2);
    assert_non_null(top(q, 0)->kids[0]);
    assert_null(top(q, 0)->kids[1]);
    query_free(q);

    q = body("e2 -- e4");
    assert_int_equal(q->body->nkids, 3);
    query_free(q);

    q = body("Ka1 K a1");
    assert_int_equal(q->body->nkids, 3);
    query_free(q);
}

static void test_dash_payload(void **state)
{
    (void)state;
    Query *q = body("P--a-h8=Q(check)");
    const Node *d = top(q, 0);
    assert_int_equal(d->op, TK_DASH);
    assert_int_equal(d->kids[1]->desig->squares, RANK_8_BB);
    assert_int_equal(d->kids[2]->desig->pieces, 1u << W_QUEEN);
    assert_int_equal(d->kids[3]->kids[0]->kind, ND_CHECK);
    assert_int_equal(d->type, VT_NONE);
    query_free(q);

    q = body("N[x]q");
    assert_int_equal(top(q, 0)->op, TK_TAKE);
    query_free(q);

    q = body("legal --");
    assert_true(top(q, 0)->flags & NF_LEGAL);
    assert_int_equal(top(q, 0)->type, VT_SET);
    query_free(q);
}

static void test_type_directed_minus(void **state)
{
    (void)state;
    Query *q = body("K-3");   /* a set cannot be subtracted from: two filters */
    assert_int_equal(q->body->nkids, 2);
    assert_int_equal(top(q, 1)->kind, ND_NEGATE);
    query_free(q);
    q = body("2-3");
    assert_int_equal(q->body->nkids, 1);
    assert_int_equal(top(q, 0)->kind, ND_ARITH);
    assert_int_equal(top(q, 0)->op, TK_MINUS);
    query_free(q);
    q = body("find all check > 10");   /* the relation takes the whole find */
    assert_int_equal(top(q, 0)->kind, ND_RELATION);
    assert_int_equal(top(q, 0)->kids[0]->kind, ND_FIND);
    query_free(q);
}

static void test_right_associative(void **state)
{
    (void)state;
    Query *q = body("1 == 2 == 3");
    const Node *r = top(q, 0);
    assert_int_equal(r->kind, ND_RELATION);
    assert_int_equal(r->kids[0]->kind, ND_INT);
    assert_int_equal(r->kids[1]->kind, ND_RELATION);
    query_free(q);
    q = body("parent:parent:check");
    r = top(q, 0);
    assert_int_equal(r->kind, ND_COLON);
    assert_int_equal(r->kids[1]->kind, ND_COLON);
    query_free(q);
    q = body("1 + 2 * 3 - 4");   /* (1 + (2 * 3)) - 4 */
    r = top(q, 0);
    assert_int_equal(r->op, TK_MINUS);
    assert_int_equal(r->kids[0]->op, TK_PLUS);
    assert_int_equal(r->kids[0]->kids[1]->op, TK_STAR);
    query_free(q);
}

/* A chain of one associative operator is one node with an operand per
 * term, whatever its length; another operator, or brackets, nest. */
static void test_operator_chains(void **state)
{
    (void)state;
    Query *q = body("Ka1 or Kb1 or Kc1 or Kd1");
    const Node *r = top(q, 0);
    assert_int_equal(r->kind, ND_OR);
    assert_int_equal(r->nkids, 4);
    assert_int_equal(r->kids[3]->kind, ND_DESIGNATOR);
    query_free(q);
    q = body("Ka1 or Kb1 and Kc1 and Kd1 or Ke1");   /* Ka1 or (Kb1 and Kc1 and Kd1) or Ke1 */
    r = top(q, 0);
    assert_int_equal(r->nkids, 3);
    assert_int_equal(r->kids[1]->kind, ND_AND);
    assert_int_equal(r->kids[1]->nkids, 3);
    query_free(q);
    q = body("(Ka1 or Kb1) or Kc1");
    assert_int_equal(top(q, 0)->nkids, 2);
    assert_int_equal(top(q, 0)->kids[0]->kind, ND_PAREN);
    query_free(q);
    q = body("a1 | b1 | c1 & d1 & e1");   /* a1 | b1 | (c1 & d1 & e1) */
    r = top(q, 0);
    assert_int_equal(r->kind, ND_UNION);
    assert_int_equal(r->nkids, 3);
    assert_int_equal(r->kids[2]->kind, ND_INTERSECT);
    assert_int_equal(r->kids[2]->nkids, 3);
    query_free(q);
    q = body("1 + 2 + 3 - 4 - 5");   /* ((1 + 2 + 3) - 4 - 5) */
    r = top(q, 0);
    assert_int_equal(r->op, TK_MINUS);
    assert_int_equal(r->nkids, 3);
    assert_int_equal(r->kids[0]->op, TK_PLUS);
    assert_int_equal(r->kids[0]->nkids, 3);
    assert_int_equal(r->type, VT_NUMBER);
    query_free(q);
    q = body("\"a\" + \"b\" + \"c\"");
    assert_int_equal(top(q, 0)->nkids, 3);
    assert_int_equal(top(q, 0)->type, VT_STRING);
    query_free(q);
    assert_null(compile_as("1 + 2 + \"c\"", true));   /* each term is typed as it joins */
}

static void test_pin_records_first_parameter(void **state)
{
    (void)state;
    static const struct {
        const char *q;
        TokKind first;
    } cases[] = {{"pin", TK_EOF}, {"pin from Q", TK_FROM}, {"pin to k through n", TK_TO}, {"pin through n from Q", TK_THROUGH}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Query *q = body(cases[i].q);
        assert_int_equal(top(q, 0)->op, cases[i].first);
        query_free(q);
    }
    Query *q = body("pin to k through n");
    assert_null(top(q, 0)->kids[0]);
    assert_non_null(top(q, 0)->kids[1]);
    assert_non_null(top(q, 0)->kids[2]);
    query_free(q);
}

static void test_designator_structure(void **state)
{
    (void)state;
    Query *q = body("[Qq][a1-8,b3]");
    const Designator *d = top(q, 0)->desig;
    assert_int_equal(d->nparts, 2);
    assert_int_equal(d->squares, FILE_A_BB | sq_bb(SQ_B3));
    assert_true(d->has_piece_part && d->has_square_part);
    query_free(q);
    q = body("K");
    assert_int_equal(top(q, 0)->desig->squares, ALL_SQUARES_BB);
    assert_false(top(q, 0)->desig->has_square_part);
    query_free(q);
    q = body("y=[]");
    assert_int_equal(top(q, 0)->kids[0]->desig->squares, 0);
    query_free(q);
}

static void test_directions(void **state)
{
    (void)state;
    Query *q = body("up 1 3 K");
    const Node *n = top(q, 0);
    assert_int_equal(n->dirs, 1u << DIR_N);
    assert_int_equal(n->kids[1]->num, 1);
    assert_int_equal(n->kids[2]->num, 3);
    query_free(q);
    q = body("up -1 K");   /* a negative bound; one bound is both ends */
    n = top(q, 0);
    assert_int_equal(n->kids[1]->num, -1);
    assert_null(n->kids[2]);
    query_free(q);
    q = body("up count K");   /* any number (the run stops where it is evaluated) */
    n = top(q, 0);
    assert_int_equal(n->kids[1]->num, -AST_COUNT_RANGE);
    assert_int_equal(n->kids[2]->num, AST_COUNT_RANGE);
    query_free(q);
    q = body("ray diagonal (B n k)");
    assert_int_equal(top(q, 0)->dirs, (1u << DIR_NE) | (1u << DIR_NW) | (1u << DIR_SE) | (1u << DIR_SW));
    assert_int_equal(top(q, 0)->nkids, 3);
    query_free(q);
}

static void test_transforms_and_iteration(void **state)
{
    (void)state;
    Query *q = body("flip count {Ka1}");
    assert_int_equal(top(q, 0)->kind, ND_TRANSFORM);
    assert_int_equal(top(q, 0)->op, TK_FLIP);
    assert_true(top(q, 0)->flags & NF_COUNT);
    assert_int_equal(top(q, 0)->type, VT_NUMBER);
    query_free(q);
    q = body("\xE2\x88\x80x\xE2\x88\x8A\xE2\x96\xA1\xE2\x86\x90\xE2\x99\x9A 1==\xE2\x96\xB3\xE2\x86\x92x");
    const Node *it = top(q, 0);
    assert_int_equal(it->kind, ND_SQUARE_ITER);
    assert_true(it->flags & NF_ALL);
    assert_int_equal(it->kids[1]->kind, ND_RELATION);
    assert_int_equal(q->vars[it->slot].kind, VK_SET);
    query_free(q);
    q = body("piece all y in A find y--=R");
    assert_true(top(q, 0)->flags & NF_PIECE);
    assert_int_equal(q->vars[top(q, 0)->slot].kind, VK_PIECE);
    query_free(q);
}

static void test_line_and_path(void **state)
{
    (void)state;
    Query *q = body("line --> check+ --> (mate --> stalemate){2,}");
    const Node *l = top(q, 0);
    assert_int_equal(l->nkids, 2);
    assert_int_equal(l->kids[0]->kind, ND_REPEAT);
    assert_int_equal(l->kids[0]->num, 1);
    assert_int_equal(l->kids[0]->num2, -1);
    assert_int_equal(l->kids[1]->kind, ND_REPEAT);
    assert_int_equal(l->kids[1]->num, 2);
    assert_int_equal(l->kids[1]->kids[0]->kind, ND_GROUP);
    query_free(q);
    q = body("path B[x]h7 check k[x]h7 N--g5 check");
    assert_int_equal(top(q, 0)->nkids, 5);
    query_free(q);
}

static void test_function_expansion(void **state)
{
    (void)state;
    Query *q = body("function Att(x){x attacks k} Att(Q) Att([RB])");
    assert_int_equal(q->nfuncs, 1);
    const Node *call = top(q, 1);
    assert_int_equal(call->kind, ND_CALL);
    assert_int_equal(call->nkids, 2);
    const Node *att = call->kids[0]->kids[0];   /* the expanded body's attacks */
    assert_int_equal(att->kind, ND_ATTACKS);
    assert_int_equal(att->kids[0]->kind, ND_PARAM);
    assert_true(ast_equal(att->kids[0]->kids[0], call->kids[1]));
    const Node *call2 = top(q, 2);
    assert_false(ast_equal(call, call2));   /* each call has its own expansion */
    query_free(q);
    /* a variable argument is used as that variable */
    q = body("cnt=1 function Inc(v){v+=1} Inc(cnt)");
    const Node *assign = top(q, 2)->kids[0]->kids[0];
    assert_int_equal(assign->kind, ND_ASSIGN);
    assert_int_equal(assign->slot, top(q, 0)->slot);
    query_free(q);
}

static bool count_nodes(const Node *n, void *ctx)
{
    (*(int *)ctx)++;
    return n->kind != ND_TRANSFORM;   /* do not descend into transforms */
}

static void test_clone_equal_walk(void **state)
{
    (void)state;
    Query *q = body("flipcolor {Kg1 Rf1} x=#A x > 10");
    Arena a;
    arena_init(&a, 0);
    Node *c = ast_clone(&a, q->body);
    assert_true(ast_equal(c, q->body));
    c->kids[0]->kids[0]->kids[0]->desig->squares ^= 1;
    assert_false(ast_equal(c, q->body));
    int n = 0;
    ast_walk(q->body, count_nodes, &n);
    assert_int_equal(n, 1 + 1 + (1 + 1 + 1) + (1 + 1 + 1));   /* compound, transform, assign #A, relation x 10 */
    arena_free(&a);
    query_free(q);
}

/* A compound of many filters grows its children in O(n) memory (the room
 * doubles), and a clone shares the (immutable) strings of the original. */
static void test_push_and_clone_cost(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a, 0);
    Node *parent = ast_new(&a, ND_COMPOUND, (Span){0, 0}, 0);
    enum { N = 5000 };
    for (int i = 0; i < N; i++) ast_push(&a, parent, ast_new(&a, ND_TRUE, (Span){0, 0}, 0));
    assert_int_equal(parent->nkids, N);
    for (int i = 0; i < N; i++) assert_int_equal(parent->kids[i]->kind, ND_TRUE);
    /* each node and about 3 pointers of arrays for it (growing by one each
     * time instead, the copies alone would take N * N * 4 bytes, 100 MB) */
    assert_true(arena_bytes_used(&a) < (size_t)N * (arena_align_up(sizeof(Node)) + 4 * sizeof(Node *)));
    arena_free(&a);

    Query *q = body("x = \"a long string\" x");
    arena_init(&a, 0);
    Node *c = ast_clone(&a, q->body);
    assert_true(ast_equal(c, q->body));
    const Node *s = q->body->kids[0]->kids[0];
    assert_int_equal(s->kind, ND_STRING);
    assert_ptr_equal(c->kids[0]->kids[0]->text, s->text);
    ast_push(&a, c, ast_new(&a, ND_TRUE, (Span){0, 0}, 0));   /* a clone's kids grow too */
    assert_int_equal(c->nkids, q->body->nkids + 1);
    assert_true(ast_equal(c->kids[0], q->body->kids[0]));
    arena_free(&a);
    query_free(q);
}

static void test_header(void **state)
{
    (void)state;
    Query *q = compile_as("cql(input in.pgn output \"o u.pgn\" sort matchcount 2 9 gamenumber 3 result 0-1 variations)\n"
                          "check\n", false);
    assert_non_null(q);
    const QueryHeader *h = &q->header;
    assert_string_equal(h->input, "in.pgn");
    assert_string_equal(h->output, "o u.pgn");
    assert_true(h->present & QH_SORT_MATCHCOUNT);
    assert_int_equal(h->values.matchcount.first, 2);
    assert_int_equal(h->values.matchcount.second, 9);
    assert_int_equal(h->values.gamenumber.first, 3);
    assert_int_equal(h->values.gamenumber.second, 3);
    assert_string_equal(h->values.result, "0-1");
    assert_true(h->values.variations && settings_given(&h->values, SET_variations));
    assert_false(settings_given(&h->values, SET_silent));
    query_free(q);
    /* a query without a filter is refused, after a header too (CQL 6.2) */
    assert_null(compile_as("cql()", false));
    assert_null(compile_as("cql() // nothing", false));
    assert_null(compile_as("check", false));   /* a file needs its header */
}

static void test_dump(void **state)
{
    (void)state;
    Query *q = body("x = {check 5}\nx == 5");
    StrBuf out = SB_INIT;
    print_tree(q, &out);
    assert_string_equal(sb_str(&out),
                        "compound type=number 1:1-2:7 implicit\n"
                        "  assign type=none 1:1-1:14 op== var=x\n"
                        "    compound type=number 1:5-1:14\n"
                        "      check type=none 1:6-1:11\n"
                        "      int type=number 1:12-1:13 value=5\n"
                        "  relation type=number 2:1-2:7 op===\n"
                        "    var type=number 2:1-2:2 var=x\n"
                        "    int type=number 2:6-2:7 value=5\n"
                        "variable x number\n");
    sb_free(&out);
    query_free(q);
}

static void test_write_source(void **state)
{
    (void)state;
    Query *q = compile_as("cql(input a.pgn)\n// keep\nflip {Ka1 [Aa]x[element]_ --> 1}\nx[element]. [Qq]--e4\n", false);
    assert_null(q);   /* `-->` outside line */
    q = compile_as("cql(input a.pgn)\n// keep\nflipcolor {Ka1 r[x]a8 A->k} [forall]x[element]_ x<-a\n", false);
    assert_non_null(q);
    StrBuf u = SB_INIT, a = SB_INIT;
    print_source(q, true, &u);
    assert_string_equal(sb_str(&u), "cql(input a.pgn)\n// keep\n\xE2\xAC\x93 {\xE2\x99\x94""a1 \xE2\x99\x9C\xC3\x97""a8 "
                                     "\xE2\x96\xB3\xE2\x86\x92\xE2\x99\x9A} \xE2\x88\x80x\xE2\x88\x8A\xE2\x96\xA1 "
                                     "x\xE2\x86\x90\xE2\x96\xB2\n");
    Query *qu = compile_as(sb_str(&u), false);
    assert_non_null(qu);
    print_source(qu, false, &a);
    assert_string_equal(sb_str(&a), "cql(input a.pgn)\n// keep\nflipcolor {Ka1 r[x]a8 A->k} [forall]x[element]_ x<-a\n");
    assert_true(ast_equal(q->body, qu->body));
    sb_free(&u);
    sb_free(&a);
    query_free(q);
    query_free(qu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whitespace_decides_moves),
        cmocka_unit_test(test_dash_payload),
        cmocka_unit_test(test_type_directed_minus),
        cmocka_unit_test(test_right_associative),
        cmocka_unit_test(test_operator_chains),
        cmocka_unit_test(test_pin_records_first_parameter),
        cmocka_unit_test(test_designator_structure),
        cmocka_unit_test(test_directions),
        cmocka_unit_test(test_transforms_and_iteration),
        cmocka_unit_test(test_line_and_path),
        cmocka_unit_test(test_function_expansion),
        cmocka_unit_test(test_clone_equal_walk),
        cmocka_unit_test(test_push_and_clone_cost),
        cmocka_unit_test(test_header),
        cmocka_unit_test(test_dump),
        cmocka_unit_test(test_write_source),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
