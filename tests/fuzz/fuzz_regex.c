/*
 * tests/fuzz/fuzz_regex.c — fuzz harness of the regular expressions of
 * `~~` (base/regex).
 *
 * The input is a pattern, a NUL byte and a text (without a NUL, the
 * pattern alone is searched in a fixed text; the text ends at a second
 * NUL). The harness
 *   - compiles the pattern: refused, with a message and an offset inside
 *     the pattern, or compiled;
 *   - searches the text with a budget of steps: the steps left never grow,
 *     and a search over its budget leaves none (libFuzzer's timeout and
 *     memory limit see that it is fast and small);
 *   - checks a match: it lies in the text, from where the search began;
 *     each group lies in the text with its start before its end, and inside
 *     the match unless the pattern has a lookahead (which may capture past
 *     the match's end); it is the leftmost (no match starts at a place
 *     before it), and a search anchored at its start finds the same spans;
 *   - searches again without the memo: the same answer, spans included,
 *     when that search ends within its budget; with a smaller budget: the
 *     same answer or over budget;
 *   - when the pattern is in the part of the grammar that POSIX extended
 *     regular expressions read the same way (no '\', no '(?', simple
 *     brackets; lazy marks dropped, '.' written as [^\n\r]; no ^ or $ when
 *     the text has a newline, where glibc lets them match), compares with
 *     glibc's regexec: a match exactly when glibc finds one, at the same
 *     place (both take the leftmost), ending no later than glibc's (the
 *     longest), and the text matched is one the pattern matches whole.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_support.h"
#include "base/regex.h"

const char *const fuzz_harness_name = "fuzz_regex";

enum {
    STEPS = 200000,        /* the budget of the main search */
    SMALL_STEPS = 500,     /* the smaller budget */
    CHECK_TEXT = 256,      /* the longest text for the start-by-start and glibc checks */
    POSIX_PATTERN = 96,    /* the longest pattern compared with glibc */
    POSIX_PROGRAM = 2000,  /* the largest program compared with glibc */
    POSIX_QUANTIFIERS = 8, /* the most quantifiers compared with glibc (its regcomp is slow on many) */
    SPANS = 10
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

typedef struct Search {
    RegexResult result;
    RegexSpan spans[SPANS];
    uint64_t steps;        /* left */
} Search;

static Search run(const Regex *re, const char *text, size_t len, size_t from, unsigned flags, uint64_t budget)
{
    Search s = {.steps = budget};
    s.result = regex_search(re, text, len, from, flags, &s.steps, s.spans, SPANS);
    if (s.steps > budget) fuzz_fail("the steps left grew", "%llu of %llu", (unsigned long long)s.steps,
                                    (unsigned long long)budget);
    if (s.result == REGEX_OVER_BUDGET && s.steps != 0) fuzz_fail("over budget with steps left", "%llu",
                                                                 (unsigned long long)s.steps);
    return s;
}

static bool same(const Search *a, const Search *b)
{
    if (a->result != b->result) return false;
    if (a->result != REGEX_MATCH) return true;
    for (int i = 0; i < SPANS; i++)
        if (a->spans[i].start != b->spans[i].start || a->spans[i].end != b->spans[i].end) return false;
    return true;
}

static void show(const char *what, const Search *s, StrBuf *out)
{
    sb_printf(out, "%s: result %d", what, (int)s->result);
    if (s->result == REGEX_MATCH)
        for (int i = 0; i < SPANS; i++) {
            if (s->spans[i].start == REGEX_UNSET) sb_printf(out, " -");
            else sb_printf(out, " [%zu,%zu)", s->spans[i].start, s->spans[i].end);
        }
    sb_putc(out, '\n');
}

_Noreturn static void differ(const char *what, const char *pattern, const Search *a, const char *aname,
                             const Search *b, const char *bname)
{
    StrBuf sb = SB_INIT;
    sb_printf(&sb, "pattern /%s/\n", pattern);
    show(aname, a, &sb);
    show(bname, b, &sb);
    fuzz_fail(what, "%s", sb.data);
}

/* The spans of a match lie where they should. */
static void check_spans(const Regex *re, const char *pattern, const Search *s, size_t len, size_t from)
{
    const RegexSpan *m = &s->spans[0];
    if (m->start == REGEX_UNSET || m->start < from || m->start > m->end || m->end > len)
        fuzz_fail("a match outside the text", "pattern /%s/: [%zu,%zu) in %zu bytes from %zu", pattern, m->start,
                  m->end, len, from);
    for (int i = 1; i < SPANS; i++) {
        const RegexSpan *g = &s->spans[i];
        if (i > regex_groups(re) && g->start != REGEX_UNSET)
            fuzz_fail("a group past the last is set", "pattern /%s/: group %d", pattern, i);
        if ((g->start == REGEX_UNSET) != (g->end == REGEX_UNSET))
            fuzz_fail("a group half set", "pattern /%s/: group %d", pattern, i);
        if (g->start == REGEX_UNSET) continue;
        bool inside = regex_has_lookahead(re) ? g->start >= from && g->end <= len
                                              : g->start >= m->start && g->end <= m->end;
        if (g->start > g->end || !inside)
            fuzz_fail("a group outside the match", "pattern /%s/: group %d [%zu,%zu), match [%zu,%zu)", pattern, i,
                      g->start, g->end, m->start, m->end);
    }
}

/* ---- the comparison with glibc ---------------------------------------------- */

/* A bracket POSIX reads as ECMAScript does: plain bytes, ranges of plain
 * bytes and [:name:], with a '-' only first, last or in a range, and not
 * starting with ']'. Returns the index past it, or 0. */
static size_t simple_bracket(const char *p, size_t i)
{
    i++;
    if (p[i] == '^') i++;
    if (p[i] == ']') return 0;
    if (p[i] == '-') i++;
    for (;;) {
        char c = p[i];
        if (c == ']') return i + 1;
        if (c == '\0' || c == '\\') return 0;
        if (c == '[') {
            if (p[i + 1] != ':') return 0;
            const char *end = strstr(p + i + 2, ":]");
            if (!end) return 0;
            i = (size_t)(end - p) + 2;
            continue;
        }
        if (c == '-') {
            if (p[i + 1] != ']') return 0;
            i++;
            continue;
        }
        i++;
        if (p[i] == '-' && p[i + 1] != ']') {
            char hi = p[i + 1];
            if (hi == '[' || hi == '\\' || hi == '-' || hi == '\0') return 0;
            i += 2;
        }
    }
}

/* The POSIX spelling of the pattern, when it has one (see the top) and
 * glibc reads it fast: a few quantifiers, none right after another. */
static bool posix_spelling(const char *p, StrBuf *out, bool *anchors)
{
    bool after_quantifier = false;
    int quantifiers = 0;
    *anchors = false;
    for (size_t i = 0; p[i];) {
        char c = p[i];
        if (c == '\\' || (c == '(' && p[i + 1] == '?')) return false;
        if (c == '[') {
            size_t end = simple_bracket(p, i);
            if (!end) return false;
            sb_append_n(out, p + i, end - i);
            i = end;
            after_quantifier = false;
            continue;
        }
        if (c == '?' && after_quantifier) {   /* a lazy mark: the same language */
            after_quantifier = false;
            i++;
            continue;
        }
        bool quantifier = c == '{' || c == '*' || c == '+' || c == '?';
        if (quantifier && (after_quantifier || ++quantifiers > POSIX_QUANTIFIERS)) return false;
        if (c == '{') {
            const char *end = strchr(p + i, '}');
            if (!end) return false;
            sb_append_n(out, p + i, (size_t)(end - p) + 1 - i);
            i = (size_t)(end - p) + 1;
            after_quantifier = true;
            continue;
        }
        if (c == '.') sb_append(out, "[^\n\r]");
        else sb_putc(out, c);
        if (c == '^' || c == '$') *anchors = true;
        after_quantifier = c == '*' || c == '+' || c == '?';
        i++;
    }
    return true;
}

static void compare_with_posix(const Regex *re, const char *pattern, const char *text, size_t len, const Search *s)
{
    if (strlen(pattern) > POSIX_PATTERN || len > CHECK_TEXT || regex_size(re) > POSIX_PROGRAM) return;
    if (s->result != REGEX_MATCH && s->result != REGEX_NO_MATCH) return;
    StrBuf ere = SB_INIT;
    bool anchors;
    regex_t posix;
    /* glibc lets ^ and $ match beside a newline in the middle of the text
     * (`\n^` matches "a\nb" without REG_NEWLINE): not compared */
    if (!posix_spelling(pattern, &ere, &anchors) || (anchors && memchr(text, '\n', len)) ||
        regcomp(&posix, ere.data ? ere.data : "", REG_EXTENDED) != 0) {
        sb_free(&ere);
        return;
    }
    regmatch_t m;
    bool found = regexec(&posix, text, 1, &m, 0) == 0;
    regfree(&posix);
    if (found != (s->result == REGEX_MATCH))
        fuzz_fail("glibc does not agree on whether there is a match", "pattern /%s/ (POSIX /%s/): ours %s, glibc %s",
                  pattern, ere.data ? ere.data : "", s->result == REGEX_MATCH ? "matches" : "does not",
                  found ? "matches" : "does not");
    if (found && ((size_t)m.rm_so != s->spans[0].start || (size_t)m.rm_eo < s->spans[0].end))
        fuzz_fail("glibc does not agree on the match", "pattern /%s/: ours [%zu,%zu), glibc [%d,%d)", pattern,
                  s->spans[0].start, s->spans[0].end, (int)m.rm_so, (int)m.rm_eo);
    if (found && !anchors) {
        /* the text matched is one the pattern matches whole */
        StrBuf whole = SB_INIT;
        sb_printf(&whole, "^(%s)$", ere.data ? ere.data : "");
        if (regcomp(&posix, whole.data, REG_EXTENDED) == 0) {
            size_t n = s->spans[0].end - s->spans[0].start;
            char *matched = fuzz_strndup((const uint8_t *)text + s->spans[0].start, n);
            if (regexec(&posix, matched, 0, NULL, 0) != 0)
                fuzz_fail("the text matched is not one the pattern matches whole", "pattern /%s/: \"%s\"", pattern,
                          matched);
            free(matched);
            regfree(&posix);
        }
        sb_free(&whole);
    }
    sb_free(&ere);
}

/* ---- the harness -------------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t plen = nul ? (size_t)(nul - data) : size;
    char *pattern = fuzz_strndup(data, plen);
    char *text;
    if (nul) {
        const uint8_t *t = nul + 1, *end = memchr(t, 0, size - plen - 1);
        text = fuzz_strndup(t, end ? (size_t)(end - t) : size - plen - 1);
    } else {
        static const char fixed[] = "Kasparov, Garry - Deep Blue\n1. e4 c6 2. d4 d5 {aab ab_1 -x-}";
        text = fuzz_strndup((const uint8_t *)fixed, sizeof fixed - 1);
    }
    size_t len = strlen(text);

    RegexError err = {NULL, SIZE_MAX};
    Regex *re = regex_compile(pattern, plen, &err);
    if (!re) {
        if (!err.message || !*err.message || err.offset > plen)
            fuzz_fail("a pattern refused without a reason or a place", "pattern /%s/: offset %zu", pattern,
                      err.offset);
        free(pattern);
        free(text);
        return 0;
    }
    for (size_t from = 0; from <= len; from += len / 2 + 1) {
        Search s = run(re, text, len, from, 0, STEPS);
        if (s.result == REGEX_MATCH) check_spans(re, pattern, &s, len, from);
        if (s.result == REGEX_OVER_MEMORY) fuzz_fail("over memory on a small text", "pattern /%s/", pattern);

        Search plain = run(re, text, len, from, REGEX_NO_MEMO, STEPS);
        if (plain.result != REGEX_OVER_BUDGET && s.result != REGEX_OVER_BUDGET && !same(&s, &plain))
            differ("the memo changed the answer", pattern, &s, "memo", &plain, "no memo");
        Search small = run(re, text, len, from, 0, SMALL_STEPS);
        if (small.result != REGEX_OVER_BUDGET && s.result != REGEX_OVER_BUDGET && !same(&s, &small))
            differ("a smaller budget changed the answer", pattern, &s, "budget", &small, "smaller budget");

        if (s.result == REGEX_MATCH && len <= CHECK_TEXT) {
            size_t start = s.spans[0].start;
            for (size_t at = from; at < start; at++) {
                Search earlier = run(re, text, len, at, REGEX_CONTINUOUS, STEPS);
                if (earlier.result == REGEX_MATCH)
                    differ("a match starts before the leftmost", pattern, &s, "search", &earlier, "anchored earlier");
            }
            Search anchored = run(re, text, len, start, REGEX_CONTINUOUS, STEPS);
            if (anchored.result != REGEX_OVER_BUDGET && !same(&s, &anchored))
                differ("anchored at the match, another answer", pattern, &s, "search", &anchored, "anchored");
        }
        if (from == 0) compare_with_posix(re, pattern, text, len, &s);
    }
    regex_free(re);
    free(pattern);
    free(text);
    return 0;
}
