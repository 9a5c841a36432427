/*
 * tests/unit/test_sources.c — a query's text and the filters given apart
 * from it (issue 30: spans that name their source): a message about a span
 * names the source it falls in and counts lines from the source's start
 * (base/diag.c); a value bound to a filter lexes as one string whatever it
 * holds (query/lexer.c).
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

#include "base/diag.h"
#include "base/strbuf.h"
#include "query/lexer.h"

static void capture(void *ctx, DiagSeverity sev, const char *text)
{
    (void)sev;
    sb_append(ctx, text);
}

/* {==== diag: parts of a text ================================================= */

/* "cql()\nx\n" then "check\n  bad" (-cql) then "player O"K" (an option's
 * filter, bare) */
static const char joined[] = "cql()\nx\n\ncheck\n  bad\nplayer O\"K";
static const SourcePart parts[] = {
    {"q.cql", 0, 8, false},
    {"-cql", 9, 20, false},
    {"option -player", 21, 31, true},
};

static void test_a_message_names_its_source(void **state)
{
    (void)state;
    SourceText src = {"q.cql", joined, sizeof joined - 1, parts, 3};
    StrBuf out = SB_INIT;
    DiagSink d;
    diag_sink_init(&d, capture, &out);
    diag_at(&d, &src, (Span){6, 7}, DIAG_ERROR, "in the file");
    assert_string_equal(sb_str(&out), "q.cql:2:1: error: in the file\nx\n^\n");
    sb_clear(&out);
    /* line 2 of the -cql text, not line 5 of the whole */
    diag_at(&d, &src, (Span){17, 20}, DIAG_ERROR, "in -cql");
    assert_string_equal(sb_str(&out), "-cql:2:3: error: in -cql\n  bad\n  ^~~\n");
    sb_clear(&out);
    /* a filter made of an option's values: its name alone, and its line */
    diag_at(&d, &src, (Span){28, 31}, DIAG_ERROR, "in the value");
    assert_string_equal(sb_str(&out), "option -player: error: in the value\nplayer O\"K\n       ^~~\n");
    sb_free(&out);

    unsigned line, col;
    diag_line_col(&src, 19, &line, &col);
    assert_int_equal(line, 2);
    assert_int_equal(col, 5);
    DiagLineIndex ix;
    diag_index_init(&ix, &src);
    for (uint32_t off = 0; off < sizeof joined - 1; off++) {
        unsigned l1, c1, l2, c2;
        diag_line_col(&src, off, &l1, &c1);
        diag_index_line_col(&ix, off, &l2, &c2);
        if (l1 != l2 || c1 != c2) fail_msg("offset %u: %u:%u and %u:%u", off, l1, c1, l2, c2);
    }
    diag_index_free(&ix);
}

/* }==== */

/* {==== the lexer: values ===================================================== */

static void test_a_value_is_one_string(void **state)
{
    (void)state;
    /* `player ` then the value `Jo" or true //` bound at [7, 21), then ` check` */
    const char text[] = "player Jo\" or true // check";
    LexValue value = {7, 21, "Jo"};
    Lexer lx;
    lex_init(&lx, text, 0, sizeof text - 1);
    lex_set_values(&lx, &value, 1);
    Token t = lex_next(&lx);
    assert_int_equal(t.kind, TK_PLAYER);
    t = lex_next(&lx);
    assert_int_equal(t.kind, TK_STRING);
    assert_true(t.flags & TF_VALUE);
    assert_true(t.flags & TF_SPACE_BEFORE);
    assert_int_equal(t.start, 7);
    assert_int_equal(t.len, 14);
    t = lex_next(&lx);
    assert_int_equal(t.kind, TK_CHECK);
    assert_int_equal(lex_next(&lx).kind, TK_EOF);

    /* without the value the same text is a query and a comment */
    lex_init(&lx, text, 0, sizeof text - 1);
    lex_next(&lx);
    assert_int_equal(lex_next(&lx).kind, TK_IDENT);

    /* comments as tokens, when asked */
    lex_init(&lx, text, 19, sizeof text - 1);
    lx.comments = true;
    t = lex_next(&lx);
    assert_int_equal(t.kind, TK_COMMENT_TEXT);
    assert_int_equal(t.len, 8);
}

/* }==== */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_message_names_its_source),
        cmocka_unit_test(test_a_value_is_one_string),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
