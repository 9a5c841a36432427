/*
 * tests/unit/test_filters.c — the table of filters (src/query/filters.def)
 * against the code that reads it: every row the table says is evaluated has
 * an evaluation function and every other row has none; every row is named;
 * the keywords of a row begin it and no other; colour partners are mutual;
 * the direction words carry their masks; the scope column tells the query
 * bodies evaluated once per game from the others.
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
#include <string.h>

#include "eval/eval.h"
#include "query/filters.h"
#include "query/lexer.h"
#include "query_test.h"

/* EVAL_YES: a function; EVAL_NOT_YET and EVAL_REPLACED: none, so that
 * "not supported yet" is said before the run and never by a crash. */
static void test_every_row_is_evaluated_or_marked(void **state)
{
    (void)state;
    int failures = 0;
    for (int k = 0; k < ND_COUNT_; k++) {
        const FilterInfo *f = filter_info((NodeKind)k);
        bool has_function = eval_can_evaluate((NodeKind)k);
        if (has_function != (f->evaluated == EVAL_YES)) {
            printf("filter '%s': %s in filters.def, but the evaluator %s a function for it\n", f->name,
                   f->evaluated == EVAL_YES ? "EVAL_YES" : f->evaluated == EVAL_NOT_YET ? "EVAL_NOT_YET" : "EVAL_REPLACED",
                   has_function ? "has" : "has no");
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* Every row has a name (`int` names both the integer and `int F`, as -parse
 * has always printed them). */
static void test_every_row_has_a_name(void **state)
{
    (void)state;
    for (int k = 0; k < ND_COUNT_; k++) {
        const char *name = filter_info((NodeKind)k)->name;
        assert_non_null(name);
        assert_true(name[0] != '\0');
    }
}

/* A row with a keyword shape has spellings, and the others none; every
 * spelling is a keyword that begins exactly its own row. */
static void test_keywords_begin_their_filter(void **state)
{
    (void)state;
    int spellings = 0;
    for (int k = 0; k < ND_COUNT_; k++) {
        const FilterInfo *f = filter_info((NodeKind)k);
        TokKind toks[32];
        size_t n = filter_keywords((NodeKind)k, toks, 32);
        assert_true(n <= 32);
        if ((n > 0) != f->has_keyword) fail_msg("filter '%s': %zu keywords but has_keyword %d", f->name, n, f->has_keyword);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(tok_class(toks[i]), TC_KEYWORD);
            assert_int_equal(filter_of_keyword(toks[i]), k);
            spellings++;
        }
    }
    /* and nothing else begins a filter */
    int begin = 0;
    for (int t = 0; t < TK_COUNT_; t++)
        if (filter_of_keyword((TokKind)t) != ND_COUNT_) begin++;
    assert_int_equal(begin, spellings);
    assert_int_equal(filter_of_keyword(TK_AND), ND_COUNT_);
    assert_int_equal(filter_of_keyword(TK_THROUGH), ND_COUNT_);
    assert_int_equal(filter_of_keyword(TK_IDENT), ND_COUNT_);
    assert_int_equal(filter_of_keyword(TK_PIN), ND_PIN);
    assert_int_equal(filter_of_keyword(TK_CURPOS), ND_CURRENTPOSITION);
}

static void test_colour_partners_are_mutual(void **state)
{
    (void)state;
    for (int k = 0; k < ND_COUNT_; k++) {
        const FilterInfo *f = filter_info((NodeKind)k);
        if (f->transform != XR_COLOUR && f->transform != XR_SQUARE_COLOUR) continue;
        assert_true(f->partner != (NodeKind)k);
        const FilterInfo *p = filter_info(f->partner);
        assert_int_equal(p->transform, f->transform);
        assert_int_equal(p->partner, k);
        assert_int_equal(p->result, f->result);
    }
    assert_int_equal(filter_info(ND_WTM)->partner, ND_BTM);
    assert_int_equal(filter_info(ND_LIGHT)->partner, ND_DARK);
}

/* Direction words carry their masks; no other keyword has an argument. */
static void test_direction_words(void **state)
{
    (void)state;
    assert_int_equal(filter_keyword_arg(TK_UP), 1u << DIR_N);
    assert_int_equal(filter_keyword_arg(TK_ANYDIRECTION), 0xFFu);
    assert_int_equal(filter_keyword_arg(TK_MAINDIAGONAL), 1u << DIR_NE | 1u << DIR_SW);
    assert_int_equal(filter_keyword_arg(TK_PIN), 0);
    for (int t = 0; t < TK_COUNT_; t++) {
        bool direction = filter_of_keyword((TokKind)t) == ND_DIRECTION;
        assert_true(direction == (filter_keyword_arg((TokKind)t) != 0));
    }
}

/* The effect column decides what find may remember and what a guard may
 * skip; a few rows whose class matters most. */
static void test_effects(void **state)
{
    (void)state;
    assert_int_equal(filter_info(ND_DESIGNATOR)->effect, FX_PURE);
    assert_int_equal(filter_info(ND_VAR)->effect, FX_READS);
    assert_int_equal(filter_info(ND_ASSIGN)->effect, FX_WRITES);
    assert_int_equal(filter_info(ND_COMMENT)->effect, FX_OUTPUT);
    assert_int_equal(filter_info(ND_REGEX)->effect, FX_SETS);
    assert_int_equal(filter_info(ND_PLAYER)->effect, FX_READS);   /* settag may change a tag */
}

static bool body_is_pure(const char *text)
{
    Query *q = compile_quietly(text);
    assert_non_null(q);
    bool pure = filter_tree_is_pure(q->body);
    query_free(q);
    return pure;
}

/* find comments what it found ("Found"), unless it is quiet: an enclosing
 * find may remember its body only then. */
static void test_find_comments_unless_quiet(void **state)
{
    (void)state;
    assert_int_equal(filter_info(ND_FIND)->effect, FX_COMMENTS);
    assert_false(body_is_pure("find check"));
    assert_false(body_is_pure("find all check"));
    assert_true(body_is_pure("find quiet check"));
    assert_true(body_is_pure("find quiet 1 2 check"));
    assert_false(body_is_pure("find quiet comment(\"x\")"));   /* its body writes */
}

/* Whether the body of `text` is evaluated once per game (the scope column). */
static bool body_is_per_game(const char *text)
{
    Query *q = compile_quietly(text);
    assert_non_null(q);
    bool per_game = filter_tree_is_per_game(q->body);
    query_free(q);
    return per_game;
}

/* The scope column: tag readers, constants and their connectives give one
 * answer per game; anything reading the position, a variable or a tag
 * settag may change does not. */
static void test_scope(void **state)
{
    (void)state;
    assert_true(body_is_per_game("result 1-0"));
    assert_true(body_is_per_game("player white \"Stockfish\" and not event \"x\""));
    assert_true(body_is_per_game("elo white > 2500 or year < 1990"));
    assert_true(body_is_per_game("{gamenumber == 3 tag \"Opening\"}"));
    assert_true(body_is_per_game("elo > 2500"));   /* the higher rating of the two */
    assert_false(body_is_per_game("result 1-0 check"));
    assert_false(body_is_per_game("result 1-0 or Ka1"));
    assert_false(body_is_per_game("x = 1 x == 1"));
    assert_false(body_is_per_game("settag(\"A\" \"b\") tag \"A\""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_row_is_evaluated_or_marked),
        cmocka_unit_test(test_every_row_has_a_name),
        cmocka_unit_test(test_keywords_begin_their_filter),
        cmocka_unit_test(test_colour_partners_are_mutual),
        cmocka_unit_test(test_direction_words),
        cmocka_unit_test(test_effects),
        cmocka_unit_test(test_find_comments_unless_quiet),
        cmocka_unit_test(test_scope),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
