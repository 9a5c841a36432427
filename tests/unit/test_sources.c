/*
 * tests/unit/test_sources.c — a query's text and the filters given apart
 * from it (issue 30: spans that name their source): a message about a span
 * names the source it falls in and counts lines from the source's start
 * (base/diag.c); a value bound to a filter lexes as one string whatever it
 * holds (query/lexer.c); cql_settings_add_filter, the setting preamble and
 * cql_query_tokens of include/cql.h.
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

#include <cql.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "query/lexer.h"

static void capture(void *ctx, DiagSeverity sev, const char *text)
{
    (void)sev;
    sb_append(ctx, text);
}

static void collect(void *ctx, CqlSeverity severity, const char *text)
{
    (void)severity;
    cql_text_append(ctx, text, strlen(text));
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

/* {==== the face: filters given apart from the text =========================== */

/* The query compiled from text with s, its tree in *tree; messages in *msgs. */
static CqlQuery *compile(const char *text, CqlSettings *s, CqlText *tree, CqlText *msgs)
{
    CqlText dropped = {0};
    CqlMessages m = {collect, msgs ? msgs : &dropped, 0, 0};
    CqlQuery *q = cql_compile(text, strlen(text), s, CQL_COMPILE_EXPAND, &m);
    if (q && tree) cql_query_print(q, CQL_PRINT_TREE, tree);
    cql_text_free(&dropped);
    return q;
}

static void test_values_are_bound(void **state)
{
    (void)state;
    CqlSettings *s = cql_settings_new();
    CqlValue who = {CQL_VALUE_STRING, "O\"Kelly \\ \n//"};
    assert_true(cql_settings_add_filter(s, "option -player", "player $1", &who, 1));
    CqlValue assign[2] = {{CQL_VALUE_WORD, "num"}, {CQL_VALUE_WORD, "-5"}};
    assert_true(cql_settings_add_filter(s, "option -assign", "$1 = $2", assign, 2));
    CqlText tree = {0}, msgs = {0};
    CqlQuery *q = compile("cql()\nnum < 0\n", s, &tree, &msgs);
    if (!q) fail_msg("%s", msgs.data);
    assert_non_null(strstr(tree.data, "string type=string option -player:1:8-1:26 text=\"O\\\"Kelly \\\\ \\n//\"\n"));
    assert_non_null(strstr(tree.data, "negate type=number option -assign:1:7-1:9\n"));
    /* the body keeps its own lines: `num < 0` is line 2 of the file */
    assert_non_null(strstr(tree.data, "relation type=number 2:1-2:8 op=<\n"));
    /* -a writes the value as a CQL string, the filters after the header */
    CqlText ascii = {0};
    cql_query_print(q, CQL_PRINT_ASCII, &ascii);
    assert_string_equal(ascii.data, "cql()\nplayer \"O\\\"Kelly \\\\ \\n//\"\nnum = -5\n\nnum < 0\n");
    cql_text_free(&ascii);
    cql_text_free(&tree);
    cql_text_free(&msgs);
    cql_query_free(q);
    cql_settings_free(s);
}

static void test_refused_filters(void **state)
{
    (void)state;
    CqlSettings *s = cql_settings_new();
    CqlValue one = {CQL_VALUE_STRING, "x"};
    assert_false(cql_settings_add_filter(s, "f", NULL, NULL, 0));
    assert_false(cql_settings_add_filter(s, "f", "player $2", &one, 1));   /* no second value */
    assert_false(cql_settings_add_filter(s, "f", "player $1", NULL, 1));
    CqlValue none = {CQL_VALUE_STRING, NULL};
    assert_false(cql_settings_add_filter(s, "f", "player $1", &none, 1));
    CqlValue ten[10];
    for (int i = 0; i < 10; i++) ten[i] = one;
    assert_false(cql_settings_add_filter(s, "f", "player $1", ten, 10));
    cql_settings_free(s);
}

/* The first message of compiling `text` after the filter `filter` with value
 * `value` of kind `kind`. */
static void assert_filter_error(const char *filter, CqlValueKind kind, const char *value, const char *text,
                                const char *expected)
{
    CqlSettings *s = cql_settings_new();
    CqlValue v = {kind, value};
    assert_true(cql_settings_add_filter(s, "option -x", filter, &v, 1));
    CqlText msgs = {0};
    CqlQuery *q = compile(text, s, NULL, &msgs);
    assert_null(q);
    if (!msgs.data || strncmp(msgs.data, expected, strlen(expected)) != 0)
        fail_msg("got:\n%s\nexpected:\n%s", msgs.data ? msgs.data : "(nothing)", expected);
    cql_text_free(&msgs);
    cql_settings_free(s);
}

static void test_errors_name_the_filter(void **state)
{
    (void)state;
    /* a word value must be one word */
    assert_filter_error("$1 = 3", CQL_VALUE_WORD, "x check", "cql() x > 2",
                        "option -x: error: expected one word here (a name or a whole number), found 'x check'\n"
                        "x check = 3\n^~~~~~~\n");
    /* an error in the filter: its name and its text, not a place in the file */
    assert_filter_error("hhdb $1", CQL_VALUE_WORD, "nokey", "cql()\ncheck",
                        "option -x: error: Expecting a valid hhdb keyword");
    /* an error of the file's body that the filter causes: the file's place */
    assert_filter_error("x = $1", CQL_VALUE_STRING, "a", "cql()\n\nx > 2",
                        "query.cql:3:3: error: '>' cannot compare a string with a number\n");
    /* the end of a filter is the end of it, not of the query */
    assert_filter_error("player $1 or", CQL_VALUE_STRING, "a", "cql() check",
                        "option -x: error: expected a filter, found the end of option -x\n");
}

static void test_preamble_is_parsed_once(void **state)
{
    (void)state;
    CqlSettings *s = cql_settings_new();
    cql_settings_set_text(s, "preamble", "x = 3");
    cql_settings_set_text(s, "name", "q.cql");
    CqlText msgs = {0};
    /* the body uses the preamble's variable; its error stays on its line */
    CqlQuery *q = compile("cql()\n\nx = \"a\"\n", s, NULL, &msgs);
    assert_null(q);
    assert_non_null(msgs.data);
    assert_string_equal(msgs.data, "q.cql:3:1: error: 'x' is a number variable and cannot hold a string\n"
                                   "x = \"a\"\n^~~~~~~\n");
    cql_text_clear(&msgs);
    cql_settings_set_text(s, "preamble", "y = (");
    q = compile("cql()\ncheck\n", s, NULL, &msgs);
    assert_null(q);
    assert_string_equal(msgs.data, "preamble:1:6: error: expected a filter, found the end of preamble\n"
                                   "y = (\n     ^\n");
    cql_text_free(&msgs);
    cql_settings_free(s);
}

/* }==== */

/* {==== cql_query_tokens ====================================================== */

typedef struct Pieces {
    CqlText text;      /* the pieces put together */
    CqlText kinds;     /* "KIND:piece " for each piece that is not space */
} Pieces;

static void add_piece(void *ctx, CqlTokenKind kind, const char *text, size_t len)
{
    static const char *const names[] = {"space", "comment", "keyword", "name", "number",
                                        "string", "piece", "operator", "bracket", "other"};
    Pieces *p = ctx;
    cql_text_append(&p->text, text, len);
    if (kind == CQL_TOKEN_SPACE) return;
    cql_text_printf(&p->kinds, "%s:%.*s ", names[kind], (int)len, text);
}

static void test_tokens(void **state)
{
    (void)state;
    const char *text = "cql(quiet) // x is a name\nx = 3 /* c */ x > 2 flipcolor {Ka1 check \"s\"}\n";
    CqlSettings *s = cql_settings_new();
    CqlValue who = {CQL_VALUE_STRING, "a\"b"};
    CqlQuery *q = compile(text, NULL, NULL, NULL);
    assert_non_null(q);
    Pieces p = {{0}, {0}};
    cql_query_tokens(q, add_piece, &p);
    assert_string_equal(p.text.data, text);   /* the text as written */
    assert_string_equal(p.kinds.data,
                        "keyword:cql bracket:( keyword:quiet bracket:) comment:// x is a name name:x operator:= "
                        "number:3 comment:/* c */ name:x operator:> number:2 keyword:flipcolor bracket:{ "
                        "piece:Ka1 keyword:check string:\"s\" bracket:} ");
    cql_query_free(q);
    cql_text_free(&p.text);
    cql_text_free(&p.kinds);

    /* an option's filter after the header, its value a string */
    assert_true(cql_settings_add_filter(s, "option -player", "player $1", &who, 1));
    q = compile("cql()\ncheck\n", s, NULL, NULL);
    assert_non_null(q);
    p = (Pieces){{0}, {0}};
    cql_query_tokens(q, add_piece, &p);
    assert_string_equal(p.text.data, "cql()\nplayer \"a\\\"b\"\n\ncheck\n");
    assert_string_equal(p.kinds.data, "keyword:cql bracket:( bracket:) keyword:player string:\"a\\\"b\" "
                                      "keyword:check ");
    cql_query_free(q);
    cql_text_free(&p.text);
    cql_text_free(&p.kinds);
    cql_settings_free(s);
}

/* }==== */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_message_names_its_source),
        cmocka_unit_test(test_a_value_is_one_string),
        cmocka_unit_test(test_values_are_bound),
        cmocka_unit_test(test_refused_filters),
        cmocka_unit_test(test_errors_name_the_filter),
        cmocka_unit_test(test_preamble_is_parsed_once),
        cmocka_unit_test(test_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
