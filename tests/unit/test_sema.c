/*
 * tests/unit/test_sema.c — the typing rules of CQL 6.2 (src/query/sema.c): static types
 * of filters, comparisons of sets and numbers, variables typed by their first
 * assignment, piece variables, persistence, dictionaries, and function bodies
 * checked at each call.
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

#include "query_test.h"


static bool accepted(const char *text)
{
    Query *q = compile_quietly(text);
    query_free(q);
    return q != NULL;
}

/* The type of the last filter of the body. */
static void test_types_of_filters(void **state)
{
    (void)state;
    static const struct {
        const char *query;
        ValueType type;
    } cases[] = {
        {"K", VT_SET},                  {"#K", VT_NUMBER},             {"K == k", VT_SET},
        {"Q >= 2", VT_NUMBER},          {"\"a\" + \"b\"", VT_STRING},  {"{check 5}", VT_NUMBER},
        {"x = 3 x", VT_NUMBER},         {"piece pv = K pv", VT_PIECE},   {"currentposition", VT_POSITION},
        {"find check", VT_POSITION},    {"find all check", VT_NUMBER}, {"flip count K", VT_NUMBER},
        {"flip K", VT_SET},             {"move from K", VT_SET},       {"move legal count", VT_NUMBER},
        {"move castle", VT_NONE},       {"legal --", VT_SET},          {"countmoves --", VT_NUMBER},
        {"--(to)", VT_SET},             {"--", VT_NONE},               {"check", VT_NONE},
        {"if check 1 else 2", VT_NUMBER}, {"if check 1 else \"a\"", VT_NONE}, {"ascii 65", VT_STRING},
        {"ascii \"A\"", VT_NUMBER},     {"x\xE2\x88\x8A" "A check", VT_SET}, {"\xE2\x88\x80x\xE2\x88\x8A" "A check", VT_NONE},
        {"line --> check", VT_NUMBER},  {"str(1 K)", VT_STRING},       {"typename K", VT_STRING},
        {"power A", VT_NUMBER},         {"A -> k", VT_SET},            {"initialposition & currentposition", VT_SET},
        {"player", VT_STRING},          {"player \"Kasparov\"", VT_NONE}, {"\"mate\"[1:2]", VT_STRING},
        {"dictionary D D[\"a\"]=1 D[\"b\"]", VT_NUMBER}, {"notransform K", VT_SET}, {"position 0", VT_POSITION},
        {"echo (s t) s < t", VT_POSITION},  {"sort \"doc\" power A", VT_NUMBER}, {"max(1 2 3)", VT_NUMBER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Query *q = compile_quietly(cases[i].query);
        if (!q) fail_msg("'%s' was rejected", cases[i].query);
        const Node *last = q->body->kids[q->body->nkids - 1];
        if (last->type != cases[i].type)
            fail_msg("'%s': type %s, expected %s", cases[i].query, ast_type_name(last->type),
                     ast_type_name(cases[i].type));
        assert_int_equal(q->body->type, last->type);   /* a compound has its last member's type */
        query_free(q);
    }
}

static void test_sets_numbers_comparisons(void **state)
{
    (void)state;
    assert_true(accepted("Q >= 2"));            /* a set counts its squares */
    assert_true(accepted("#Q >= 2"));
    assert_true(accepted("Q == q"));            /* set equality */
    assert_true(accepted("Q != q"));
    assert_false(accepted("R < r"));            /* < needs numbers or strings */
    assert_true(accepted("\"a\" < \"b\""));
    assert_true(accepted("initialposition < currentposition"));
    assert_false(accepted("initialposition != currentposition"));
    assert_false(accepted("1 < \"a\""));
    assert_false(accepted("true < 1"));         /* no value to compare */
    assert_true(accepted("\xE2\x99\x95==\xE2\x99\x9B==2"));   /* ♕==♛==2 */
    assert_false(accepted("K + Q"));
    assert_false(accepted("k | 1"));
    assert_true(accepted("#\"string\" == 6"));
    assert_false(accepted("#3"));
    assert_false(accepted("~3"));
    assert_false(accepted("-K"));
}

static void test_variables_keep_their_type(void **state)
{
    (void)state;
    Query *q = compile_quietly("x=1 y=\"s\" z=K piece pv=Q persistent quiet cnt=0 dictionary D local dictionary L");
    assert_non_null(q);
    static const VarKind kinds[] = {VK_NUMBER, VK_STRING, VK_SET, VK_PIECE, VK_NUMBER, VK_DICTIONARY, VK_DICTIONARY};
    assert_int_equal(q->nvars, 7);
    for (uint32_t i = 0; i < q->nvars; i++) assert_int_equal(q->vars[i].kind, kinds[i]);
    assert_true(q->vars[4].persistent && q->vars[4].quiet);
    assert_true(q->vars[6].local && !q->vars[5].local);
    query_free(q);

    assert_true(accepted("x=1 x=2"));
    assert_false(accepted("x=1 x=K"));
    assert_false(accepted("x=K x=\"a\""));
    assert_false(accepted("y=x"));              /* never assigned */
    assert_false(accepted("y=true"));           /* no value */
    assert_true(accepted("y=k piece x=y"));     /* a piece from a set */
    assert_false(accepted("piece x=q piece y=k y=x"));
    assert_true(accepted("piece x=q piece y=k piece y=x"));
    assert_false(accepted("y=k piece y=q"));
    assert_true(accepted("y=?k"));
    assert_false(accepted("y=?3"));
    assert_false(accepted("y+=1"));             /* += needs a value first ... */
    assert_true(accepted("persistent y+=1"));   /* ... unless persistent */
    assert_true(accepted("y=\"a\" y+=\"b\""));
    assert_false(accepted("y=\"a\" y-=\"b\""));
    assert_false(accepted("X=1 persistent X=2"));
    assert_true(accepted("persistent X=1 X=2"));
    assert_false(accepted("persistent x=currentposition"));
    assert_false(accepted("atomic X+=1"));
    assert_false(accepted("x=1 square x in R btm"));
    assert_true(accepted("x=q square x in R btm"));
}

static void test_dictionaries(void **state)
{
    (void)state;
    assert_true(accepted("dictionary X[\"a\"]=\"bc\" X[\"b\"]=\"de\""));
    assert_false(accepted("dictionary X[\"a\"]=\"bc\" X[1]=\"de\""));   /* key type fixed */
    assert_false(accepted("dictionary X[\"a\"]=\"bc\" X[\"a\"]=1"));  /* value type fixed */
    assert_false(accepted("dictionary X[\"a\"]=currentposition"));
    assert_true(accepted("local dictionary X[\"a\"]=currentposition"));
    assert_false(accepted("dictionary X[true]=1"));
    assert_true(accepted("dictionary X[ a5 ]=3"));
    assert_false(accepted("dictionary X[a5]=3"));   /* X followed by the designator [a5] */
    assert_false(accepted("local X=1"));
}

/* A function body is parsed and typed at each call, with its arguments. */
static void test_functions_checked_per_call(void **state)
{
    (void)state;
    assert_true(accepted("function F(){I=q I+I}"));        /* never called: not checked */
    assert_false(accepted("function F(){I=q I+I} F()"));
    assert_true(accepted("function F(x){x+1} F(1)"));
    assert_false(accepted("function F(x){x+1} F(K)"));
    assert_true(accepted("function F(x){x+1} F(1) F(2)"));
    assert_false(accepted("function F(x){xray(x k)} F(y)"));   /* y unknown */
    assert_true(accepted("function F(T){--=T} F(\"Q\")"));
    assert_false(accepted("function F(T){--=T} F(Q)"));     /* a set argument is not a piece letter */
    assert_false(accepted("function F(){F()} F()"));
    assert_false(accepted("function fn(){1} fn()"));        /* {1} is a repetition */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types_of_filters),
        cmocka_unit_test(test_sets_numbers_comparisons),
        cmocka_unit_test(test_variables_keep_their_type),
        cmocka_unit_test(test_dictionaries),
        cmocka_unit_test(test_functions_checked_per_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
