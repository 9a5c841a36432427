/*
 * tests/unit/test_diag_messages.c — the front end's error messages, with their
 * line, column and caret (diag.h format), one case per distinct message.
 *
 * Each case compiles a query (a -cql body, or a whole file with its header)
 * and compares the complete diagnostic text: FILE:LINE:COL: error: MESSAGE,
 * the source line, and the ^~~~ caret under the offending token.
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

#include "base/strbuf.h"
#include "query/compile.h"
#include "query/sema.h"

typedef struct DiagCase {
    const char *query;
    bool body_only;     /* -cql text (named "-cql") or a file "query.cql" */
    const char *expected;
} DiagCase;

static const DiagCase cases[] = {
    {"true < 1", true,
     "-cql:1:6: error: '<' compares values, but the filter before it has none\n"
     "true < 1\n"
     "     ^\n"},
    {"1 < true", true,
     "-cql:1:3: error: '<' compares values, but its right side has none\n"
     "1 < true\n"
     "  ^\n"},
    {"not", true,
     "-cql:1:4: error: expected a filter after 'not', found the end of the query\n"
     "not\n"
     "   ^\n"},
    {"{\n  check\n  (mate\n}", true,
     "-cql:4:1: error: expected ')' to close '(' at 3:3, found '}'\n"
     "}\n"
     "^\n"},
    {"{check", true,
     "-cql:1:7: error: expected '}' to close '{' at 1:1, found the end of the query\n"
     "{check\n"
     "      ^\n"},
    {"v=\"a\" v[1", true,
     "-cql:1:10: error: expected ']' to close '[' at 1:8, found the end of the query\n"
     "v=\"a\" v[1\n"
     "         ^\n"},
    {"atacks", true,
     "-cql:1:1: error: unknown filter 'atacks' (did you mean 'attacks'?)\n"
     "atacks\n"
     "^~~~~~\n"},
    {"R < r", true,
     "-cql:1:3: error: '<' needs numbers or strings, not two sets\n"
     "R < r\n"
     "  ^\n"},
    {"check \"abc", true,
     "-cql:1:7: error: unterminated string\n"
     "check \"abc\n"
     "      ^\n"},
    {"check /* x", true,
     "-cql:1:7: error: unterminated comment\n"
     "check /* x\n"
     "      ^~\n"},
    {"\\a", true,
     "-cql:1:1: error: unknown escape\n"
     "\\a\n"
     "^~\n"},
    {"check @", true,
     "-cql:1:7: error: unexpected character\n"
     "check @\n"
     "      ^\n"},
    {"", true,
     "-cql:1:1: error: the query is empty: expected a filter\n"
     "\n"
     "^\n"},
    {"v=(k or q)", true,
     "-cql:1:1: error: cannot assign to 'v': the filter after '=' has no value, it only matches or not\n"
     "v=(k or q)\n"
     "^~~~~~~~~~\n"},
    {"y=k\ny=7", true,
     "-cql:2:1: error: 'y' is a set variable and cannot hold a number\n"
     "y=7\n"
     "^~~\n"},
    {"K+Q", true,
     "-cql:1:2: error: '+' needs two numbers or two strings, not a set and a set\n"
     "K+Q\n"
     " ^\n"},
    {"2-K", true,
     "-cql:1:2: error: '-' needs two numbers, not a number and a set\n"
     "2-K\n"
     " ^\n"},
    {"{2}", true,
     "-cql:1:1: error: repetition '{2}' is allowed only in 'line' and 'path'\n"
     "{2}\n"
     "^~~\n"},
    {"line --> check <-- mate", true,
     "-cql:1:16: error: cannot mix '-->' and '<--' in one line\n"
     "line --> check <-- mate\n"
     "               ^~~\n"},
    {"line --> 3", true,
     "-cql:1:10: error: a constituent of 'line' cannot be a number\n"
     "line --> 3\n"
     "         ^\n"},
    {"-- (k)", true,
     "-cql:1:1: error: the target '(...)' of '--' must follow it without a space\n"
     "-- (k)\n"
     "^~~~\n"},
    {"--=check", true,
     "-cql:1:4: error: a promotion is a piece such as 'Q' or a string, not a filter without a value\n"
     "--=check\n"
     "   ^~~~~\n"},
    {"legal [x]", true,
     "-cql:1:7: error: 'legal' works with '--' moves, not with captures\n"
     "legal [x]\n"
     "      ^~~\n"},
    {"move count", true,
     "-cql:1:1: error: 'move count' counts generated moves: add 'legal' or 'pseudolegal'\n"
     "move count\n"
     "^~~~~~~~~~\n"},
    {"pin from Q from R", true,
     "-cql:1:12: error: 'from' given twice in 'pin'\n"
     "pin from Q from R\n"
     "           ^~~~\n"},
    {"ray (Q)", true,
     "-cql:1:5: error: 'ray' takes at least 2 arguments, not 1\n"
     "ray (Q)\n"
     "    ^~~\n"},
    {"ray up vertical (Q r)", true,
     "-cql:1:8: error: direction 'vertical' repeats a direction already given to 'ray'\n"
     "ray up vertical (Q r)\n"
     "       ^~~~~~~~\n"},
    {"function F(x){x} F()", true,
     "-cql:1:19: error: 'F' takes 1 argument, not 0\n"
     "function F(x){x} F()\n"
     "                  ^~\n"},
    {"function F(){F()} F()", true,
     "-cql:1:14: error: function 'F' calls itself\n"
     "function F(){F()} F()\n"
     "             ^~~\n"},
    {"rotate45 a5", true,
     "-cql:1:10: error: 'rotate45' needs square designators that cover the whole board\n"
     "rotate45 a5\n"
     "         ^~\n"},
    {"square x", true,
     "-cql:1:9: error: expected 'in' after the variable name, found the end of the query\n"
     "square x\n"
     "        ^\n"},
    {"k | 1", true,
     "-cql:1:3: error: '|' needs two sets, not a set and a number\n"
     "k | 1\n"
     "  ^\n"},
    {"check", false,
     "query.cql:1:1: error: expected 'cql(' at the start of the query, found 'check'\n"
     "check\n"
     "^~~~~\n"},
    {"cql(foo)\ncheck", false,
     "query.cql:1:5: error: unknown parameter 'foo' in the cql header\n"
     "cql(foo)\n"
     "    ^~~\n"},
    {"move primary secondary", true,
     "-cql:1:1: error: 'primary' and 'secondary' exclude each other\n"
     "move primary secondary\n"
     "^~~~~~~~~~~~~~~~~~~~~~\n"},
    {"y+=1", true,
     "-cql:1:1: error: 'y' must be assigned with '=' before '+='\n"
     "y+=1\n"
     "^~~~\n"},
    {"persistent x=currentposition", true,
     "-cql:1:1: error: a persistent variable cannot hold a position\n"
     "persistent x=currentposition\n"
     "^~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"},
    {"dictionary X[\"a\"]=1 X[1]=2", true,
     "-cql:1:23: error: dictionary 'X' has keys that are strings, not a number\n"
     "dictionary X[\"a\"]=1 X[1]=2\n"
     "                      ^\n"},
    {"fen \"8/8\"", true,
     "-cql:1:5: error: invalid FEN board in 'fen': fewer than 8 ranks\n"
     "fen \"8/8\"\n"
     "    ^~~~~\n"},
    {"max(1)", true,
     "-cql:1:4: error: 'max' takes at least 2 arguments, not 1\n"
     "max(1)\n"
     "   ^~~\n"},
    {"4:check", true,
     "-cql:1:1: error: the left side of ':' must be a position, not a number\n"
     "4:check\n"
     "^\n"},
    {"initialposition != currentposition", true,
     "-cql:1:17: error: positions can be compared with '==', '<', '[<]' ..., but not with '!='\n"
     "initialposition != currentposition\n"
     "                ^~\n"},
    {"result 2-0", true,
     "-cql:1:8: error: unknown result '2-0' (write 1-0, 0-1 or 1/2-1/2)\n"
     "result 2-0\n"
     "       ^~~\n"},
    {"x=1 square x in R btm", true,
     "-cql:1:12: error: 'x' is a number variable and cannot be bound to a set\n"
     "x=1 square x in R btm\n"
     "           ^\n"},
    {"A -> P <- P", true,
     "-cql:1:8: error: cannot chain '->' and '<-' without parentheses\n"
     "A -> P <- P\n"
     "       ^~\n"},
    {"--and--", true,
     "-cql:1:6: error: '--' needs a space before it after 'and'\n"
     "--and--\n"
     "     ^~\n"},
    {"reversecolor count btm", true,
     "-cql:1:14: error: 'reversecolor' does not take 'count'\n"
     "reversecolor count btm\n"
     "             ^~~~~\n"},
    {"dihedral", true,
     "-cql:1:1: error: 'dihedral' is reserved by CQL and is not a filter\n"
     "dihedral\n"
     "^~~~~~~~\n"},
    {"find all 3 check", true,
     "-cql:1:10: error: 'find all' counts every position: it takes no range\n"
     "find all 3 check\n"
     "         ^\n"},
    {"sort 1", true,
     "-cql:1:6: error: 'sort' needs a filter to sort by, not a constant\n"
     "sort 1\n"
     "     ^\n"},
    {"function f(){k}\nf", true,
     "-cql:2:1: error: function 'f' must be called with '(' arguments ')'\n"
     "f\n"
     "^\n"},
    {"path k +", true,
     "-cql:1:8: error: nothing to repeat: in a path, a repetition follows a move\n"
     "path k +\n"
     "       ^\n"},
    {"path singlecolor singlecolor --", true,
     "-cql:1:18: error: multiple 'singlecolor' specifications in 'path'\n"
     "path singlecolor singlecolor --\n"
     "                 ^~~~~~~~~~~\n"},
    {"path focus K singlecolor --", true,
     "-cql:1:14: error: 'singlecolor' and 'focus' exclude each other in 'path'\n"
     "path focus K singlecolor --\n"
     "             ^~~~~~~~~~~\n"},
    {"path --(-- --)", true,
     "-cql:1:9: error: the target of a move in 'path' cannot hold a move: write it as the next constituent\n"
     "path --(-- --)\n"
     "        ^~\n"},
    {"path focus K primary --", true,
     "-cql:1:14: error: 'primary' cannot be used with 'focus' in 'path'\n"
     "path focus K primary --\n"
     "             ^~~~~~~\n"},
    {"line --> check{3}*+", true,
     "-cql:1:19: error: '+' cannot repeat something that can match an empty sequence of positions\n"
     "line --> check{3}*+\n"
     "                  ^\n"},
    {"x\xE2\x88\x8A""1 k", true,
     "-cql:1:3: error: the domain of an iteration must be a set, not a number\n"
     "x\xE2\x88\x8A""1 k\n"
     "  ^\n"},
    {"a[<]1", true,
     "-cql:1:1: error: invalid square list after a piece\n"
     "a[<]1\n"
     "^~~~\n"},
    {"{3+4}", true,
     "-cql:1:1: error: invalid repetition (write {m,n} without spaces, m and n at most 100000)\n"
     "{3+4}\n"
     "^~~~~\n"},
    {"\xE2\x80\x95""", true,
     "-cql:1:1: error: a move dash is two horizontal bars '\xE2\x80\x95""\xE2\x80\x95""'\n"
     "\xE2\x80\x95""\n"
     "^\n"},
    {"\"king\"~~k", true,
     "-cql:1:9: error: the pattern of '~~' must be a string, not a set\n"
     "\"king\"~~k\n"
     "        ^\n"},
    {"through", true,
     "-cql:1:1: error: 'through' is not a filter here\n"
     "through\n"
     "^~~~~~~\n"},
    {"cql(input)\ncheck", false,
     "query.cql:1:10: error: expected a file name after 'input', found ')'\n"
     "cql(input)\n"
     "         ^\n"},
    {"cql(matchcount 5 2)\ncheck", false,
     "query.cql:1:18: error: the range of 'matchcount' is empty\n"
     "cql(matchcount 5 2)\n"
     "                 ^\n"},
    {"check\n\tmate and (", true,
     "-cql:2:19: error: expected a filter, found the end of the query\n"
     "\tmate and (\n"
     "\t          ^\n"},
    {"piece y=3", true,
     "-cql:1:1: error: 'piece y =' needs a set, not a number\n"
     "piece y=3\n"
     "^~~~~~~~~\n"},
    {"y=?3", true,
     "-cql:1:1: error: 'y =?' needs a set, not a number\n"
     "y=?3\n"
     "^~~~\n"},
    {"echo (a) check", true,
     "-cql:1:7: error: expected a name for the source position, found 'a'\n"
     "echo (a) check\n"
     "      ^\n"},
    {"line --> check --> ", true,
     "-cql:1:20: error: expected a filter after '-->', found the end of the query\n"
     "line --> check --> \n"
     "                   ^\n"},
    {"if check", true,
     "-cql:1:9: error: expected a filter after 'if', found the end of the query\n"
     "if check\n"
     "        ^\n"},
    {"x[element]", true,
     "-cql:1:11: error: expected the set to iterate over after '[element]', found the end of the query\n"
     "x[element]\n"
     "          ^\n"},
    {"move promote Re8", true,
     "-cql:1:14: error: the promoted piece takes no square: write a piece such as 'Q'\n"
     "move promote Re8\n"
     "             ^~~\n"},
    /* the position orders where CQL 6.2's parser refuses them too (the
     * others are refused once compiled to run: run_cases) */
    {"\"a\" [<] k", true,
     "-cql:1:5: error: '[<]' compares positions, and its left side is a string\n"
     "\"a\" [<] k\n"
     "    ^~~\n"},
    {"currentposition [>] 1", true,
     "-cql:1:17: error: '[>]' compares positions, and its right side is a number\n"
     "currentposition [>] 1\n"
     "                ^~~\n"},
    {"check [\xE2\x99\x98" "b]", true,
     "-cql:1:7: error: a piece list '[...]' is written in ASCII letters or in Unicode pieces, not both\n"
     "check [\xE2\x99\x98" "b]\n"
     "      ^~~~\n"},
    {"[\xE2\x99\x98\xE2\x99\x97\xE2\x99\x98]a1", true,
     "-cql:1:1: error: the same piece twice in a piece list '[...]'\n"
     "[\xE2\x99\x98\xE2\x99\x97\xE2\x99\x98]a1\n"
     "^~~~~\n"},
};

/* Messages given once the query is compiled to be run (or printed), after
 * parsing: the position orders between values, which CQL 6.2's parser takes
 * (the parse oracle) and its run refuses. */
static const DiagCase run_cases[] = {
    {"check\n\"a\" [<=] \"b\"", true,
     "-cql:2:5: error: '[<=]' compares positions, and its left side is a string\n"
     "\"a\" [<=] \"b\"\n"
     "    ^~~~\n"},
    {"1 + 1 \xE2\x89\xBD K", true,
     "-cql:1:7: error: '[>=]' compares positions, and its left side is a number\n"
     "1 + 1 \xE2\x89\xBD K\n"
     "      ^\n"},
};

static void capture(void *ctx, DiagSeverity sev, const char *text)
{
    (void)sev;
    sb_append((StrBuf *)ctx, text);
}

/* Compiles text; returns the diagnostics (empty when it compiled). */
static char *diagnose(const char *text, size_t len, bool body_only, bool to_run)
{
    StrBuf out = SB_INIT;
    DiagSink diag;
    diag_sink_init(&diag, capture, &out);
    SourceText src = {body_only ? "-cql" : "query.cql", text, len, NULL, 0};
    CompileOptions opt = {.body_only = body_only, .expand = to_run};
    Query *q = query_compile(&src, &opt, &diag);
    if (q) {
        query_free(q);
        assert_int_equal(diag.errors, 0);
    } else {
        assert_int_equal(diag.errors, 1);   /* exactly one message per failure */
    }
    sb_putc(&out, '\0');
    return sb_take(&out);
}

static void test_each_message(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = diagnose(cases[i].query, strlen(cases[i].query), cases[i].body_only, false);
        if (strcmp(got, cases[i].expected) != 0)
            fail_msg("query %zu '%s'\nexpected:\n%sgot:\n%s", i, cases[i].query, cases[i].expected, got);
        free(got);
    }
}

static void test_each_message_when_run(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof run_cases / sizeof run_cases[0]; i++) {
        const DiagCase *c = &run_cases[i];
        char *parsed = diagnose(c->query, strlen(c->query), c->body_only, false);
        assert_string_equal(parsed, "");   /* the parser takes it, as CQL 6.2's does */
        char *got = diagnose(c->query, strlen(c->query), c->body_only, true);
        if (strcmp(got, c->expected) != 0)
            fail_msg("query %zu '%s'\nexpected:\n%sgot:\n%s", i, c->query, c->expected, got);
        free(parsed);
        free(got);
    }
}

/* The messages differ from one another (not just in their positions). */
static void test_messages_are_distinct(void **state)
{
    (void)state;
    size_t n = sizeof cases / sizeof cases[0], distinct = 0;
    for (size_t i = 0; i < n; i++) {
        const char *mi = strstr(cases[i].expected, "error: ");
        const char *ei = strchr(mi, '\n');
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++) {
            const char *mj = strstr(cases[j].expected, "error: ");
            seen = strchr(mj, '\n') - mj == ei - mi && memcmp(mi, mj, (size_t)(ei - mi)) == 0;
        }
        distinct += !seen;
    }
    assert_true(distinct >= 30);
    assert_int_equal(distinct, n);
}

/* 300 nested parentheses, one a line: the limit is reported where it is hit. */
static void test_nesting_limit(void **state)
{
    (void)state;
    StrBuf q = SB_INIT;
    for (int i = 0; i < 300; i++) sb_append(&q, "(\n");
    sb_append(&q, "check");
    for (int i = 0; i < 300; i++) sb_putc(&q, ')');
    char *got = diagnose(q.data, q.len, true, false);
    assert_string_equal(got, "-cql:257:1: error: query nested too deeply (limit is 256)\n"
                             "(\n"
                             "^\n");
    free(got);
    sb_free(&q);
}

/* A chain of mixed operators nests without brackets: past AST_HEIGHT_LIMIT
 * levels it is refused at the first node too deep (the start of the chain,
 * one a line here), before any pass recurses through it. A chain of one
 * operator is one node, however long. */
static void test_height_limit(void **state)
{
    (void)state;
    StrBuf q = SB_INIT;
    sb_append(&q, "1");
    for (int i = 1; i < 1200; i++) sb_printf(&q, "\n%c 1", i % 2 ? '+' : '-');
    sb_append(&q, " > 0");
    char *got = diagnose(q.data, q.len, true, false);
    assert_string_equal(got, "-cql:1:1: error: query nested too deeply: more than 1000 filters inside one another "
                             "(a chain of one operator, such as 'a or b or c', counts once)\n"
                             "1\n"
                             "^\n");
    free(got);
    sb_clear(&q);
    sb_append(&q, "Ka1");
    for (int i = 1; i < 5000; i++) sb_append(&q, "\nor Ka1");
    got = diagnose(q.data, q.len, true, false);
    assert_string_equal(got, "");
    free(got);
    sb_free(&q);
}

/* Calls nested in arguments multiply (3^16 nodes here): the budget stops
 * them with one message at the outermost call; a query text longer than
 * QUERY_MAX_BYTES is refused before it is copied. */
static void test_expansion_limits(void **state)
{
    (void)state;
    const char *q = "function F(x){x or x} F(F(F(F(F(F(F(F(F(F(F(F(F(F(F(F(Ka1))))))))))))))))";
    char *got = diagnose(q, strlen(q), true, false);
    StrBuf want = SB_INIT;
    sb_printf(&want, "-cql:1:23: error: function calls expand to more than %d filters\n%s\n", CALL_MAX_FILTERS, q);
    sb_append(&want, "                      ^\n");
    assert_string_equal(got, sb_str(&want));
    free(got);
    got = diagnose(q, (size_t)QUERY_MAX_BYTES + 1, true, false);   /* only the length is looked at */
    sb_clear(&want);
    sb_printf(&want, "cql: error: the query '-cql' is longer than %u MB\n", QUERY_MAX_BYTES >> 20);
    assert_string_equal(got, sb_str(&want));
    free(got);
    sb_free(&want);
}

/* A query that compiles prints nothing. */
static void test_no_message_when_valid(void **state)
{
    (void)state;
    const char *q = "cql(quiet)\n\xE2\x88\x80x\xE2\x88\x8A\xE2\x96\xA1 1==\xE2\x96\xB3\xE2\x86\x92x\n";
    char *got = diagnose(q, strlen(q), false, false);
    assert_string_equal(got, "");
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_message),
        cmocka_unit_test(test_each_message_when_run),
        cmocka_unit_test(test_messages_are_distinct),
        cmocka_unit_test(test_nesting_limit),
        cmocka_unit_test(test_height_limit),
        cmocka_unit_test(test_expansion_limits),
        cmocka_unit_test(test_no_message_when_valid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
