/*
 * tests/unit/test_settings.c — the table of settings (src/query/settings.def)
 * against the code that reads it: names and aliases are unique and found in
 * any case; each kind's setter takes the values of its range and refuses
 * the others; every row that is a header parameter is read by the header
 * and printed by -parse; the caller's value overrides the header's in the
 * merge, and a row without a header parameter is the caller's alone; the
 * transform rows wrap the body in their filter, in row order.
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

#include "eval/search.h"
#include "query/print.h"
#include "query/settings.h"
#include "query_test.h"

static void test_names_are_unique(void **state)
{
    (void)state;
    for (size_t i = 0; i < SETTING_COUNT; i++) {
        const SettingInfo *row = &setting_rows[i];
        assert_non_null(row->name);
        assert_non_null(row->help);
        assert_ptr_equal(settings_find(row->name), row);
        if (row->alias) assert_ptr_equal(settings_find(row->alias), row);
        char upper[64];
        size_t n = strlen(row->name);
        assert_true(n < sizeof upper);
        for (size_t k = 0; k <= n; k++)
            upper[k] = row->name[k] >= 'a' && row->name[k] <= 'z' ? (char)(row->name[k] - 32) : row->name[k];
        assert_ptr_equal(settings_find(upper), row);
    }
    assert_null(settings_find("nosuchsetting"));
}

static void test_setters_keep_to_the_kinds(void **state)
{
    (void)state;
    Settings s;
    memset(&s, 0, sizeof s);
    const SettingInfo *threads = settings_find("threads"), *range = settings_find("gamenumber"),
                      *part = settings_find("part"), *result = settings_find("result"),
                      *flag = settings_find("variations"), *size = settings_find("maxgamesize");
    assert_false(settings_set_number(&s, threads, 0));   /* below its min */
    assert_false(settings_given(&s, SET_threads));
    assert_true(settings_set_number(&s, threads, 4));
    assert_true(settings_given(&s, SET_threads));
    assert_int_equal(s.threads, 4);
    assert_false(settings_set_flag(&s, threads, true));  /* another kind */
    assert_false(settings_set_pair(&s, range, 0, 3));    /* game numbers start at 1 */
    assert_false(settings_set_pair(&s, range, 5, 2));    /* empty */
    assert_true(settings_set_pair(&s, range, 2, 5));
    assert_false(settings_set_pair(&s, part, 4, 4));
    assert_true(settings_set_pair(&s, part, 0, 4));
    assert_false(settings_set_text(&s, result, "1-1"));
    assert_true(settings_set_text(&s, result, "1/2-1/2"));
    assert_true(settings_set_number(&s, size, 1 << 20));
    assert_int_equal(s.max_game_size, 1 << 20);
    assert_true(settings_set_flag(&s, flag, true));
    assert_true(settings_given(&s, SET_variations));
    assert_true(settings_set_flag(&s, flag, false));      /* off: not given, the header decides */
    assert_false(settings_given(&s, SET_variations));
}

/* Every header parameter of the rows, written in a header, is read into
 * its row and printed by -parse. */
static void test_header_rows(void **state)
{
    (void)state;
    DiagSink quiet;
    diag_sink_init(&quiet, drop_message, NULL);
    for (size_t i = 0; i < SETTING_COUNT; i++) {
        const SettingInfo *row = &setting_rows[i];
        if (row->header == HP_NONE) continue;
        char text[128];
        const char *value = row->kind == SK_RANGE ? " 3" : row->kind == SK_RESULT ? " 1-0"
                            : row->kind == SK_TEXT ? " \"x\"" : "";
        snprintf(text, sizeof text, "cql(%s%s) check", row->name, value);
        SourceText src = {"q.cql", text, strlen(text), NULL, 0};
        CompileOptions opt = {.body_only = false};
        Query *q = query_compile(&src, &opt, &quiet);
        if (!q) fail_msg("%s: not read", text);
        assert_true(settings_given(&q->header.values, (SettingId)i));
        if (row->kind == SK_RANGE) {
            SettingPair p = settings_pair(&q->header.values, row);
            assert_int_equal(p.first, 3);
            assert_true(p.second == (row->header == HP_AT_LEAST ? INT64_MAX : 3));
        }
        StrBuf tree = SB_INIT;
        print_tree(q, &tree);
        if (!strstr(sb_str(&tree), row->name)) fail_msg("%s: -parse prints\n%s", text, sb_str(&tree));
        sb_free(&tree);
        query_free(q);
    }
}

/* The caller's settings over the header's; the header where the caller
 * gives none; the caller's alone for a row that is no header parameter. */
static void test_merge(void **state)
{
    (void)state;
    DiagSink quiet;
    diag_sink_init(&quiet, drop_message, NULL);
    const char *text = "cql(matchstring \"H\" gamenumber 2 5 silent) check";
    SourceText src = {"q.cql", text, strlen(text), NULL, 0};
    CompileOptions opt = {.body_only = false};
    Query *q = query_compile(&src, &opt, &quiet);
    assert_non_null(q);
    Settings given;
    memset(&given, 0, sizeof given);
    Search s;
    search_init(&s, &given, q);
    assert_string_equal(s.eval.run.matchstring, "H");
    assert_true(s.gamenumber.set && s.gamenumber.min == 2 && s.gamenumber.max == 5);
    assert_true(s.eval.run.silent);
    assert_false(s.eval.run.alwayscomment);
    settings_set_text(&given, settings_find("matchstring"), "C");
    settings_set_pair(&given, settings_find("gamenumber"), 7, 7);
    settings_set_flag(&given, settings_find("alwayscomment"), true);
    search_init(&s, &given, q);
    assert_string_equal(s.eval.run.matchstring, "C");
    assert_true(s.gamenumber.min == 7 && s.gamenumber.max == 7);
    assert_true(s.eval.run.silent);                       /* still the header's */
    assert_true(s.eval.run.alwayscomment);
    query_free(q);
}

/* Each transform row wraps the body in its filter; two of them, from the
 * inside out in row order. */
static void test_transform_rows(void **state)
{
    (void)state;
    DiagSink quiet;
    diag_sink_init(&quiet, drop_message, NULL);
    int transforms = 0;
    for (size_t i = 0; i < SETTING_COUNT; i++) {
        const SettingInfo *row = &setting_rows[i];
        if (row->transform < 0) continue;
        transforms++;
        Settings s;
        memset(&s, 0, sizeof s);
        settings_set_flag(&s, row, true);
        SourceText src = {"-cql", "Ka1", 3, NULL, 0};
        CompileOptions opt = {.body_only = true, .transforms = &s};
        Query *q = query_compile(&src, &opt, &quiet);
        assert_non_null(q);
        StrBuf text = SB_INIT;
        print_tree(q, &text);
        char op[64];
        snprintf(op, sizeof op, "\n  transform type=set 1:1-1:4 op=%s\n", row->name);
        if (!strstr(sb_str(&text), op)) fail_msg("-%s: the tree is\n%s", row->name, sb_str(&text));
        sb_free(&text);
        query_free(q);
    }
    assert_int_equal(transforms, 10);
    Settings s;
    memset(&s, 0, sizeof s);
    settings_set_flag(&s, settings_find("flipcolor"), true);
    settings_set_flag(&s, settings_find("flip"), true);
    SourceText src = {"-cql", "Ka1", 3, NULL, 0};
    CompileOptions opt = {.body_only = true, .transforms = &s};
    Query *q = query_compile(&src, &opt, &quiet);
    StrBuf text = SB_INIT;
    print_tree(q, &text);
    const char *outer = strstr(sb_str(&text), "op=flipcolor"), *inner = strstr(sb_str(&text), "op=flip\n");
    assert_true(outer && inner && outer < inner);   /* flip is applied first, inside */
    sb_free(&text);
    query_free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_are_unique),
        cmocka_unit_test(test_setters_keep_to_the_kinds),
        cmocka_unit_test(test_header_rows),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_transform_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
