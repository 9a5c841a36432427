/*
 * tests/unit/test_regex.c — unit tests of base/regex: the ECMAScript
 * grammar of std::regex (syntax, leftmost-first alternation, greedy and
 * lazy repetition, captures, back-references, anchors, classes,
 * lookahead), the patterns refused and why, and the step budget and its
 * bounds. Each case gives the spans of \0, \1, ... as "[s,e)" (or "-" for
 * a group that took no part), or "none".
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/regex.h"
#include "base/strbuf.h"

typedef struct Case {
    const char *pattern, *text, *expect;
} Case;

/* The spans of a search as the cases write them. */
static void describe(RegexResult r, const RegexSpan *g, int n, StrBuf *out)
{
    if (r == REGEX_NO_MATCH) sb_append(out, "none");
    if (r == REGEX_OVER_BUDGET) sb_append(out, "over budget");
    if (r == REGEX_OVER_MEMORY) sb_append(out, "over memory");
    if (r != REGEX_MATCH) return;
    for (int i = 0; i < n; i++) {
        if (i) sb_putc(out, ' ');
        if (g[i].start == REGEX_UNSET) sb_append(out, "-");
        else sb_printf(out, "[%zu,%zu)", g[i].start, g[i].end);
    }
}

static Regex *compile_or_fail(const char *pattern)
{
    RegexError err = {NULL, 0};
    Regex *re = regex_compile(pattern, strlen(pattern), &err);
    if (!re) fail_msg("/%s/ refused: %s at %zu", pattern, err.message, err.offset);
    return re;
}

/* Searches each case's text from 0, with and without the memo: both give
 * the expected spans. */
static void check_cases(const Case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        Regex *re = compile_or_fail(cases[i].pattern);
        for (unsigned flags = 0; flags <= REGEX_NO_MEMO; flags += REGEX_NO_MEMO) {
            RegexSpan g[10];
            uint64_t steps = 1000000;
            int ngroups = regex_groups(re) + 1 < 10 ? regex_groups(re) + 1 : 10;
            RegexResult r = regex_search(re, cases[i].text, strlen(cases[i].text), 0, flags, &steps, g, ngroups);
            StrBuf got = SB_INIT;
            describe(r, g, ngroups, &got);
            if (strcmp(got.data, cases[i].expect) != 0)
                fail_msg("/%s/ on \"%s\"%s: expected %s, got %s", cases[i].pattern, cases[i].text,
                         flags ? " (no memo)" : "", cases[i].expect, got.data);
            sb_free(&got);
        }
        regex_free(re);
    }
}

#define CHECK(cases) check_cases(cases, sizeof cases / sizeof cases[0])

static void test_syntax(void **state)
{
    (void)state;
    static const Case cases[] = {
        {"", "abc", "[0,0)"},
        {"b", "abc", "[1,2)"},
        {"abc", "xxabcx", "[2,5)"},
        {"a.c", "abc", "[0,3)"},
        {"a.c", "a\nc a\rc", "none"},
        {"(?:ab)+", "ababa", "[0,4)"},
        {"(ab)(?:c)(d)", "abcd", "[0,4) [0,2) [3,4)"},
        {"a{2}", "aaa", "[0,2)"},
        {"a{2,}", "aaaa", "[0,4)"},
        {"a{1,3}", "aaaa", "[0,3)"},
        {"a{0}b", "ab", "[1,2)"},
        {"a**", "aa", "[0,2)"},
        {"x{2}{3}", "xxxxxxx", "[0,6)"},
        {"\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$\\\\", "a.*+?()[]{}|^$\\", "[1,15)"},
        {"]}", "a]}", "[1,3)"},
        {"\\x41\\u0042\\t\\n", "zAB\t\n", "[1,5)"},
        {"\\cJ", "a\nb", "[1,2)"},
        {"\\q\\-", "q-", "[0,2)"},
        {"a|b|c", "xc", "[1,2)"},
        {"a(|b)c", "ac abc", "[0,2) [1,1)"},
    };
    CHECK(cases);
}

static void test_leftmost_first(void **state)
{
    (void)state;
    static const Case cases[] = {
        /* the first alternative that leads to a match wins, not the longest */
        {"a|ab", "ab", "[0,1)"},
        {"ab|a", "ab", "[0,2)"},
        {"(a|ab)(c|bcd)(d*)", "abcd", "[0,4) [0,1) [1,4) [4,4)"},
        /* the leftmost start wins over any later, longer match */
        {"b+|a", "xab", "[1,2)"},
        {"(Kasparov|Karpov)", "Karpov, Anatoly - Kasparov", "[0,6) [0,6)"},
    };
    CHECK(cases);
}

static void test_greedy_and_lazy(void **state)
{
    (void)state;
    static const Case cases[] = {
        {"a+", "aaa", "[0,3)"},
        {"a+?", "aaa", "[0,1)"},
        {"a*?", "aaa", "[0,0)"},
        {"a*?b", "aab", "[0,3)"},
        {"a??b", "ab", "[0,2)"},
        {"a??", "a", "[0,0)"},
        {"<.+>", "<a><b>", "[0,6)"},
        {"<.+?>", "<a><b>", "[0,3)"},
        {"a{2,3}?", "aaaa", "[0,2)"},
        {"a{2,}?", "aaaa", "[0,2)"},
        {"(a+?)(a*)", "aaa", "[0,3) [0,1) [1,3)"},
        {"(a*?)(a*)$", "aaa", "[0,3) [0,0) [0,3)"},
    };
    CHECK(cases);
}

static void test_captures(void **state)
{
    (void)state;
    static const Case cases[] = {
        {"((a)(b))", "ab", "[0,2) [0,2) [0,1) [1,2)"},
        {"(a)|b", "b", "[0,1) -"},
        {"(a)?b", "b", "[0,1) -"},
        /* a group inside a repetition keeps what its last iteration took */
        {"(?:(a)|(b))+", "ab", "[0,2) [0,1) [1,2)"},
        {"(\\w)+", "abc", "[0,3) [2,3)"},
        /* an iteration that matches nothing ends the repetition */
        {"(a|)*", "aa", "[0,2) [1,2)"},
        {"(a*)*b", "b", "[0,1) -"},
        {"(a*)+b", "b", "[0,1) [0,0)"},
        {"(?:a|())*", "aa", "[0,2) -"},
    };
    CHECK(cases);
}

static void test_backrefs(void **state)
{
    (void)state;
    static const Case cases[] = {
        {"(a*)\\1", "aaaa", "[0,4) [0,2)"},
        {"(\\w+) \\1", "foo bar bar", "[4,11) [4,7)"},
        {"(a)|b\\1", "b", "[0,1) -"},   /* a group that took no part matches the empty text */
        {"(a*)\\1b", "aaab", "[1,4) [1,2)"},
        {"(.)\\1", "abccd", "[2,4) [2,3)"},
        {"(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10", "abcdefghijj", "[0,11) [0,1) [1,2) [2,3) [3,4) [4,5) [5,6) [6,7) [7,8) [8,9)"},
    };
    CHECK(cases);
}

static void test_anchors_and_boundaries(void **state)
{
    (void)state;
    static const Case cases[] = {
        {"^K", "Kasparov", "[0,1)"},
        {"^K", "aK", "none"},
        {"^b", "a\nb", "none"},   /* no multi-line mode */
        {"a$", "a\nb", "none"},
        {"b$", "a\nb", "[2,3)"},
        {"^$", "", "[0,0)"},
        {"(^a|b)+", "aab", "[0,1) [0,1)"},
        {"\\bfoo\\b", "afoo foo", "[5,8)"},
        {"\\Boo\\B", "foo fooa", "[5,7)"},
        {"\\b", "  ", "none"},
        {"\\B", "ab", "[1,1)"},
    };
    CHECK(cases);
}

static void test_classes(void **state)
{
    (void)state;
    static const Case cases[] = {
        {"[a-c]+", "xabcd", "[1,4)"},
        {"[^a-c]+", "abxyc", "[2,4)"},
        {"[\\d-]+", "a1-2b", "[1,4)"},
        {"[a-]+", "-a-", "[0,3)"},
        {"[-a]+", "-a-", "[0,3)"},
        {"[a-c-e]+", "-e", "[0,2)"},   /* a '-' after a range is itself */
        {"[--0]+", "-./0", "[0,4)"},
        {"[]a]", "a]", "none"},        /* [] matches nothing */
        {"[^]", "\n", "[0,1)"},        /* [^] any byte */
        {"[[:space:]]+", "a \t\nb", "[1,4)"},
        {"[[:alpha:][:digit:]]+", "-a1-", "[1,3)"},
        {"[[:upper:]][[:lower:]]+", "ab Cd", "[3,5)"},
        {"[[:punct:]]", "ab,", "[2,3)"},
        {"[[.a.][=b=]]+", "cab", "[1,3)"},
        {"[\\b]", "a\bb", "[1,2)"},
        {"[\\]]", "a]", "[1,2)"},
        {"\\d+", "ab123c", "[2,5)"},
        {"\\D+", "12ab3", "[2,4)"},
        {"\\w+", "-ab_1-", "[1,5)"},
        {"\\W+", "ab-+c", "[2,4)"},
        {"\\s+", "a \t\r\n\v\fb", "[1,7)"},
        {"\\S+", "  ab ", "[2,4)"},
        {"[\\s\\d]+", "a1 2b", "[1,4)"},
        {"[^\\d]+", "12ab3", "[2,4)"},
        {"\\w", "\xc3\xa9", "none"},   /* bytes past ASCII are no letters */
    };
    CHECK(cases);
}

static void test_lookahead(void **state)
{
    (void)state;
    static const Case cases[] = {
        {"(?=(a+))a", "aaa", "[0,1) [0,3)"},
        {"(?=(a+))", "baaabac", "[1,1) [1,4)"},
        /* no backtracking into a lookahead (ECMAScript's example) */
        {"(?=(a+))a*b\\1", "baaabac", "[3,6) [3,4)"},
        {"(?!aa)a", "aab", "[1,2)"},
        {"(?!(b))a", "a", "[0,1) -"},
        {"a(?=b)", "acab", "[2,3)"},
        {"(?=a)(?=ab)(?!abc)..", "abcabd", "[3,5)"},
    };
    CHECK(cases);
}

static void test_refused(void **state)
{
    (void)state;
    static const struct {
        const char *pattern, *message;
        size_t offset;
    } cases[] = {
        {"(ab", "missing ')'", 0},
        {"ab)", "')' without '('", 2},
        {"a(?<b)", "'(?' must be followed by ':', '=' or '!'", 1},
        {"[ab", "missing ']'", 0},
        {"*a", "nothing to repeat", 0},
        {"a|+", "nothing to repeat", 2},
        {"^*", "nothing to repeat", 1},
        {"(?=a)*", "nothing to repeat", 5},
        {"a{", "'{' needs a count: {m}, {m,} or {m,n}", 1},
        {"a{,2}", "'{' needs a count: {m}, {m,} or {m,n}", 1},
        {"a{2,1}", "{m,n} with n smaller than m", 1},
        {"a{100001}", "repetition count too large", 1},
        {"(a{1000}){1000}", "pattern too large once its counts are expanded", 0},
        {"a\\", "'\\' at the end of the pattern", 1},
        {"\\1(a)", "a back-reference to a group that is not closed before it", 0},
        {"(a\\1)", "a back-reference to a group that is not closed before it", 2},
        {"(a)\\2", "a back-reference to a group that is not closed before it", 3},
        {"[z-a]", "a range in '[...]' goes backwards", 1},
        {"[\\d-z]", "a range in '[...]' must start with a byte, not a class", 1},
        {"[a-\\d]", "a range in '[...]' must end with a byte, not a class", 1},
        {"[[:foo:]]", "unknown class name", 1},
        {"[[.ab.]]", "'[.' and '[=' take one byte", 1},
        {"[\\B]", "'\\B' inside '[...]'", 1},
        {"[\\1]", "a back-reference inside '[...]'", 1},
        {"\\x4", "'\\x' needs two hex digits", 0},
        {"\\u0100", "'\\u' beyond 00FF (a pattern matches bytes)", 0},
        {"\\c1", "'\\c' needs a letter after it", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        RegexError err = {NULL, 0};
        Regex *re = regex_compile(cases[i].pattern, strlen(cases[i].pattern), &err);
        if (re) fail_msg("/%s/ accepted", cases[i].pattern);
        if (strcmp(err.message, cases[i].message) != 0 || err.offset != cases[i].offset)
            fail_msg("/%s/: expected \"%s\" at %zu, got \"%s\" at %zu", cases[i].pattern, cases[i].message,
                     cases[i].offset, err.message, err.offset);
    }
    /* a pattern too long to be one a person wrote */
    StrBuf longest = SB_INIT;
    for (int i = 0; i <= REGEX_MAX_PATTERN; i++) sb_putc(&longest, 'a');
    RegexError too_long;
    assert_null(regex_compile(longest.data, longest.len, &too_long));
    assert_string_equal(too_long.message, "pattern longer than 100000 bytes");
    sb_free(&longest);
    /* nesting: 256 groups deep is allowed, 257 is not */
    StrBuf deep = SB_INIT;
    for (int i = 0; i < 257; i++) sb_putc(&deep, '(');
    for (int i = 0; i < 257; i++) sb_putc(&deep, ')');
    RegexError err;
    assert_null(regex_compile(deep.data, deep.len, &err));
    assert_string_equal(err.message, "groups nested too deeply");
    Regex *re = regex_compile(deep.data + 1, deep.len - 2, &err);
    assert_non_null(re);
    regex_free(re);
    sb_free(&deep);
}

/* The text of n copies of c followed by tail. */
static char *repeated(char c, size_t n, const char *tail)
{
    char *s = malloc(n + strlen(tail) + 1);
    memset(s, c, n);
    strcpy(s + n, tail);
    return s;
}

static RegexResult search(const char *pattern, const char *text, unsigned flags, uint64_t *steps)
{
    Regex *re = compile_or_fail(pattern);
    RegexSpan g[1];
    RegexResult r = regex_search(re, text, strlen(text), 0, flags, steps, g, 1);
    regex_free(re);
    return r;
}

static void test_budget(void **state)
{
    (void)state;
    char *a4000 = repeated('a', 4000, ""), *a30000 = repeated('a', 30000, "");
    /* nested repetition: memoized, a few steps per (branch, position) */
    uint64_t steps = REGEX_DEFAULT_STEPS;
    assert_int_equal(search("(a+)+b", a4000, 0, &steps), REGEX_NO_MATCH);
    assert_true(REGEX_DEFAULT_STEPS - steps < 200000);
    steps = REGEX_DEFAULT_STEPS;
    assert_int_equal(search("(x+x+)+y", a30000, 0, &steps), REGEX_NO_MATCH);
    steps = REGEX_DEFAULT_STEPS;
    assert_int_equal(search("(?:a|a)*(?:a|a)*(?:a|a)*c", a4000, 0, &steps), REGEX_NO_MATCH);
    assert_true(REGEX_DEFAULT_STEPS - steps < 1000000);
    /* without the memo the same search runs out of steps */
    steps = 1000000;
    assert_int_equal(search("(a+)+b", a4000, REGEX_NO_MEMO, &steps), REGEX_OVER_BUDGET);
    assert_int_equal(steps, 0);
    /* a back-reference is not memoized: the budget stops it */
    steps = REGEX_DEFAULT_STEPS;
    assert_int_equal(search("(a*)\\1b", a30000, 0, &steps), REGEX_OVER_BUDGET);
    assert_int_equal(steps, 0);
    /* nor a repetition of what can match nothing: where an iteration began
     * is state the memo does not see (it once cut "(\\B)*" ... short) */
    static const char *const not_memoized[] = {"(a*)\\1", "(a*)*b", "(\\B)*x", "(?:a?)+b", "(a|)*b"};
    static const char *const memoized[] = {"(a+)+b", "(?:ab)*", "a*b*", "(a|b)+c", "a(?=b)"};
    for (size_t i = 0; i < sizeof not_memoized / sizeof not_memoized[0]; i++) {
        Regex *re = compile_or_fail(not_memoized[i]);
        if (regex_memoized(re)) fail_msg("/%s/ is memoized", not_memoized[i]);
        regex_free(re);
    }
    for (size_t i = 0; i < sizeof memoized / sizeof memoized[0]; i++) {
        Regex *re = compile_or_fail(memoized[i]);
        if (!regex_memoized(re)) fail_msg("/%s/ is not memoized", memoized[i]);
        regex_free(re);
    }
    /* a budget given is shared by the searches made with it */
    steps = 10;
    assert_int_equal(search("abc", "xxabc", 0, &steps), REGEX_MATCH);
    assert_true(steps < 10);
    uint64_t left = steps;
    assert_int_equal(search("abc", "xxabc", 0, &steps), REGEX_MATCH);
    assert_true(steps < left);
    steps = 2;
    assert_int_equal(search("abc", "xxabc", 0, &steps), REGEX_OVER_BUDGET);
    free(a4000);
    free(a30000);
}

static void test_stack_cap(void **state)
{
    (void)state;
    /* every byte `.*` takes is a place to come back to: 4 M bytes fit in
     * the stack, 5 M do not */
    size_t fits = REGEX_STACK_MAX_BYTES / 16 - 16, too_many = REGEX_STACK_MAX_BYTES / 8;
    char *text = repeated('a', too_many, "");
    Regex *re = compile_or_fail(".*b");
    uint64_t steps = UINT64_MAX;
    RegexSpan g[1];
    assert_int_equal(regex_search(re, text, fits, 0, REGEX_CONTINUOUS, &steps, g, 1), REGEX_NO_MATCH);
    assert_int_equal(regex_search(re, text, too_many, 0, REGEX_CONTINUOUS, &steps, g, 1), REGEX_OVER_MEMORY);
    regex_free(re);
    free(text);
}

static void test_flags_and_from(void **state)
{
    (void)state;
    Regex *re = compile_or_fail("a*");
    RegexSpan g[1];
    uint64_t steps = 1000;
    /* from: the search starts there */
    assert_int_equal(regex_search(re, "baa", 3, 1, 0, &steps, g, 1), REGEX_MATCH);
    assert_int_equal(g[0].start, 1);
    assert_int_equal(g[0].end, 3);
    /* continuous and not empty: what std::regex_iterator tries after an empty match */
    assert_int_equal(regex_search(re, "baa", 3, 0, REGEX_CONTINUOUS | REGEX_NOT_EMPTY, &steps, g, 1), REGEX_NO_MATCH);
    assert_int_equal(regex_search(re, "baa", 3, 0, REGEX_NOT_EMPTY, &steps, g, 1), REGEX_MATCH);
    assert_int_equal(g[0].start, 1);
    regex_free(re);
    /* \b sees the byte before `from`; ^ never matches after 0 */
    re = compile_or_fail("\\bb");
    assert_int_equal(regex_search(re, "ab", 2, 1, 0, &steps, g, 1), REGEX_NO_MATCH);
    assert_int_equal(regex_search(re, "-b", 2, 1, 0, &steps, g, 1), REGEX_MATCH);
    regex_free(re);
    re = compile_or_fail("^b");
    assert_int_equal(regex_search(re, "ab", 2, 1, 0, &steps, g, 1), REGEX_NO_MATCH);
    regex_free(re);
    /* the spans past the groups are unset; the text may hold NUL bytes */
    re = compile_or_fail("a.b");
    RegexSpan many[4];
    assert_int_equal(regex_search(re, "xa\0b", 4, 0, 0, &steps, many, 4), REGEX_MATCH);
    assert_int_equal(many[0].start, 1);
    assert_int_equal(many[1].start, REGEX_UNSET);
    assert_int_equal(many[3].end, REGEX_UNSET);
    regex_free(re);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_syntax),
        cmocka_unit_test(test_leftmost_first),
        cmocka_unit_test(test_greedy_and_lazy),
        cmocka_unit_test(test_captures),
        cmocka_unit_test(test_backrefs),
        cmocka_unit_test(test_anchors_and_boundaries),
        cmocka_unit_test(test_classes),
        cmocka_unit_test(test_lookahead),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_stack_cap),
        cmocka_unit_test(test_flags_and_from),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
