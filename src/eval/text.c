/*
 * src/eval/text.c — string filters: `S ~~ PATTERN` and the captures
 * \1 ... \9 of the last successful match; str(...), indexing S[i] and
 * slices S[i:j], indexof, int, ascii, lowercase, uppercase, typename.
 * (Joining with + and # of a string are in eval.c with the numbers.)
 *
 * Strings are bytes: an index counts bytes, and lowercase/uppercase change
 * ASCII letters only. New strings are made in the game's arena.
 *
 * Patterns are regular expressions with the ECMAScript grammar of C++'s
 * std::regex, which CQL 6.2 uses (base/regex.h): compiled once and kept for
 * the run. One evaluation of `~~` (a whole `while (S ~~ P)` loop counts as
 * one) may take at most -maxregexsteps steps; past them the run stops with
 * a runtime error naming the `~~`.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "query/contexts.h"
#include "eval/eval_int.h"

/* Patterns kept compiled for the run, and their instructions in all (16
 * bytes each); past them (patterns computed while searching, all
 * different) a pattern is compiled for one use, as is one that is not a
 * regular expression. */
#define REGEX_CACHE_MAX 64
#define REGEX_CACHE_INSTRUCTIONS 1000000

/* The compiled pattern, or NULL when it is not a regular expression (a
 * pattern written in the query is checked when the query is compiled; one
 * computed while searching does not match). When *once is set, the caller
 * frees it after use. */
static Regex *compiled_regex(Evaluator *ev, const char *pattern, bool *once)
{
    *once = false;
    for (int i = 0; i < ev->nregexes; i++)
        if (strcmp(ev->regexes[i].pattern, pattern) == 0) return ev->regexes[i].compiled;
    RegexError err;
    Regex *re = regex_compile(pattern, strlen(pattern), &err);
    if (!re) return NULL;
    size_t cached = regex_size(re);
    for (int i = 0; i < ev->nregexes; i++) cached += regex_size(ev->regexes[i].compiled);
    if (ev->nregexes == REGEX_CACHE_MAX || cached > REGEX_CACHE_INSTRUCTIONS) {
        *once = true;
        return re;
    }
    ev->regexes = xrealloc(ev->regexes, sizeof *ev->regexes * (size_t)(ev->nregexes + 1));
    ev->regexes[ev->nregexes++] = (CachedRegex){xstrdup(pattern), re};
    return re;
}

static void eval_free_regexes(Evaluator *ev)
{
    for (int i = 0; i < ev->nregexes; i++) {
        regex_free(ev->regexes[i].compiled);
        free(ev->regexes[i].pattern);
    }
    free(ev->regexes);
    for (int i = 0; i < REGEX_CAPTURES; i++) free(ev->captures[i]);
}

/* The step budget of one evaluation of `~~`. */
static uint64_t regex_budget(const Evaluator *ev)
{
    return ev->settings.run.max_regex_steps ? (uint64_t)ev->settings.run.max_regex_steps : REGEX_DEFAULT_STEPS;
}

/* The search of `~~` (node n) ran out of steps or of stack: the run stops. */
static void regex_gave_up(Evaluator *ev, const Node *n, RegexResult r, size_t len)
{
    const SourceText *src = &ev->q->src;
    unsigned line, col;
    diag_line_col(src, n->span.start, &line, &col);
    int quoted = contexts_quote_length(n);
    StrBuf why = SB_INIT;
    if (r == REGEX_OVER_BUDGET)
        sb_printf(&why, "took more than %llu steps", (unsigned long long)regex_budget(ev));
    else
        sb_printf(&why, "needed more than %zu MB of backtracking stack", REGEX_STACK_MAX_BYTES >> 20);
    eval_runtime_error(ev, n, "%s:%u:%u: game %ld: the regular expression of '%.*s%s' %s on a text of %zu bytes; "
                       "the run stops%s",
                       src->name, line, col, ev->game->number, quoted, src->text + n->span.start,
                       quoted < (int)(n->span.end - n->span.start) ? "..." : "", sb_str(&why), len,
                       r == REGEX_OVER_BUDGET ? " (-maxregexsteps raises the limit)" : "");
    sb_free(&why);
}

/* Searches re in text from byte `from` on (flags: base/regex.h), charging
 * *steps; on a match keeps the captures (\0 the whole match, \1 ...) and
 * sets *match to the match. Out of steps: a runtime error (n is the `~~`). */
static bool regex_match_from(Evaluator *ev, const Node *n, const Regex *re, const char *text, size_t len,
                             size_t from, unsigned flags, uint64_t *steps, RegexSpan *match)
{
    RegexSpan g[REGEX_CAPTURES];
    RegexResult r = regex_search(re, text, len, from, flags, steps, g, REGEX_CAPTURES);
    if (r == REGEX_OVER_BUDGET || r == REGEX_OVER_MEMORY) regex_gave_up(ev, n, r, len);
    if (r != REGEX_MATCH) return false;
    for (int i = 0; i < REGEX_CAPTURES; i++) {
        free(ev->captures[i]);
        ev->captures[i] = NULL;
        if (g[i].start == REGEX_UNSET) continue;
        size_t glen = g[i].end - g[i].start;
        ev->captures[i] = memcpy(xmalloc(glen + 1), text + g[i].start, glen);
        ev->captures[i][glen] = '\0';
    }
    *match = g[0];
    return true;
}

/* S ~~ P: matches when P matches somewhere in S; the value is the matched text. */
static bool eval_regex(Evaluator *ev, const Node *n, Value *out)
{
    Value s, p;
    if (!eval_node(ev, n->kids[0], &s) || s.type != VT_STRING) return false;
    if (!eval_node(ev, n->kids[1], &p) || p.type != VT_STRING) return false;
    bool once;
    Regex *re = compiled_regex(ev, p.str, &once);
    uint64_t steps = regex_budget(ev);
    RegexSpan match;
    bool found = re && regex_match_from(ev, n, re, s.str, strlen(s.str), 0, 0, &steps, &match);
    if (once) regex_free(re);
    if (!found) return false;
    return eval_string_value(out, eval_new_string(ev, n, ev->captures[0], strlen(ev->captures[0])));
}

/* while (S ~~ P) F: F after each match of P in S, from the left, as C++'s
 * std::regex_iterator steps: the next match starts where the last one
 * ended; after an empty match, a match that is not empty is tried at the
 * same place first, then the search goes on a byte further. Each run of F
 * counts against the loop budget, as any while's. */
bool eval_regex_while(Evaluator *ev, const Node *loop, const Node *regex, const Node *body)
{
    Value s, p, v;
    if (!eval_node(ev, regex->kids[0], &s) || s.type != VT_STRING) return true;
    if (!eval_node(ev, regex->kids[1], &p) || p.type != VT_STRING) return true;
    bool once;
    Regex *re = compiled_regex(ev, p.str, &once);
    if (!re) return true;
    const char *text = eval_new_string(ev, regex, s.str, strlen(s.str));   /* the body may change S */
    size_t len = text ? strlen(text) : 0, from = 0;
    uint64_t steps = regex_budget(ev);
    bool after_empty = false;
    while (text) {
        RegexSpan m;
        bool found = false;
        if (after_empty) {
            if (from == len) break;
            found = regex_match_from(ev, regex, re, text, len, from, REGEX_CONTINUOUS | REGEX_NOT_EMPTY, &steps, &m);
            if (!found) from++;
        }
        if (!found && (ev->runtime_error || !regex_match_from(ev, regex, re, text, len, from, 0, &steps, &m))) break;
        after_empty = m.start == m.end;
        from = m.end;
        if (!eval_loop_step(ev, loop)) break;
        eval_node(ev, body, &v);   /* its result does not count (R5) */
    }
    if (once) regex_free(re);
    return true;
}

/* \N after a ~~: the N-th group of the last match; \n \t \" \\ are those characters. */
static bool eval_escape(Evaluator *ev, const Node *n, Value *out)
{
    if (n->num == 0 && n->text && n->text[0] == '\\' && n->text[1] != '0') {
        static const char from[] = "nt\"\\", to[] = "\n\t\"\\";
        const char *hit = strchr(from, n->text[1]);
        if (!hit || !n->text[1]) return false;
        return eval_string_value(out, eval_new_string(ev, n, &to[hit - from], 1));
    }
    if (n->num < 0 || n->num >= REGEX_CAPTURES || !ev->captures[n->num]) return false;
    return eval_string_value(out, eval_new_string(ev, n, ev->captures[n->num], strlen(ev->captures[n->num])));
}

/* The string value of filter n, if it matches. */
static bool eval_text(Evaluator *ev, const Node *n, const char **s)
{
    Value v;
    if (!eval_node(ev, n, &v) || v.type != VT_STRING) return false;
    *s = v.str;
    return true;
}

/* str(F ...): the text of each argument, joined: a string as it is, a number
 * in decimal, a set as its square ("e4") or its squares ("[a1,h8]", "[]"
 * when empty), a piece as its letter and square, a position as "move
 * N(wtm)", a dictionary as {key: value, ...}; a filter without a value adds
 * nothing. As in comments. str does not match when an argument other than a
 * set does not match (chosen without a conformance vector). */
static bool eval_str(Evaluator *ev, const Node *n, Value *out)
{
    StrBuf sb = SB_INIT;
    for (uint32_t i = 0; i < n->nkids; i++) {
        Value v;
        if (!eval_node(ev, n->kids[i], &v) && v.type != VT_SET && v.type != VT_PIECE) {
            sb_free(&sb);
            return false;
        }
        eval_value_to_text(ev, &v, &sb);
    }
    const char *s = eval_new_string(ev, n, sb_str(&sb), sb.len);
    sb_free(&sb);
    return eval_string_value(out, s);
}

/* S[i]: the character at i (0 first; negative counts from the end, -1 the
 * last), no match outside the string. S[i:j]: the characters from i up to
 * but not including j, negative indices counting from the end and both
 * clipped to the string, as in Python (the clipping was chosen without a
 * conformance vector); empty when j <= i. */
static bool eval_index(Evaluator *ev, const Node *n, Value *out)
{
    const char *s;
    int64_t i, j = 0;
    if (!eval_text(ev, n->kids[0], &s) || !eval_number(ev, n->kids[1], &i)) return false;
    if ((n->flags & NF_SLICE) && !eval_number(ev, n->kids[2], &j)) return false;
    int64_t len = (int64_t)strlen(s);
    if (i < 0) i += len;
    if (!(n->flags & NF_SLICE)) {
        if (i < 0 || i >= len) return false;
        return eval_string_value(out, eval_new_string(ev, n, s + i, 1));
    }
    if (j < 0) j += len;
    i = i < 0 ? 0 : i > len ? len : i;
    j = j < 0 ? 0 : j > len ? len : j;
    return eval_string_value(out, eval_new_string(ev, n, s + i, j > i ? (size_t)(j - i) : 0));
}

/* indexof(N H): where N first occurs in H (0 first), -1 when it does not
 * (the -1 was chosen without a conformance vector). */
static bool eval_indexof(Evaluator *ev, const Node *n, Value *out)
{
    const char *needle, *haystack;
    if (!eval_text(ev, n->kids[0], &needle) || !eval_text(ev, n->kids[1], &haystack)) return false;
    const char *hit = strstr(haystack, needle);
    out->type = VT_NUMBER;
    out->num = hit ? (int64_t)(hit - haystack) : -1;
    return true;
}

/* int S: the number written in S (decimal digits, optionally after a '-');
 * no match when S is anything else or too large. */
static bool eval_int_of(Evaluator *ev, const Node *n, Value *out)
{
    const char *s;
    if (!eval_text(ev, n->kids[0], &s)) return false;
    bool negative = *s == '-';
    const char *p = s + negative;
    if (!*p) return false;
    uint64_t x = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9') return false;
        uint64_t digit = (uint64_t)(*p - '0');
        if (x > ((uint64_t)INT64_MAX - digit) / 10) return false;   /* checked before it could wrap */
        x = x * 10 + digit;
    }
    out->type = VT_NUMBER;
    out->num = negative ? -(int64_t)x : (int64_t)x;
    return true;
}

/* ascii S: the code of the one character of S; ascii N: the one-character
 * string of code N, 1 to 127 (the range was chosen without a conformance
 * vector). No match otherwise. */
static bool eval_ascii(Evaluator *ev, const Node *n, Value *out)
{
    Value v;
    if (!eval_node(ev, n->kids[0], &v)) return false;
    if (v.type == VT_STRING) {
        if (v.str[0] == '\0' || v.str[1] != '\0') return false;
        out->type = VT_NUMBER;
        out->num = (unsigned char)v.str[0];
        return true;
    }
    if (v.type != VT_NUMBER || v.num < 1 || v.num > 127) return false;
    char c = (char)v.num;
    return eval_string_value(out, eval_new_string(ev, n, &c, 1));
}

static bool eval_letter_case(Evaluator *ev, const Node *n, Value *out)
{
    const char *s;
    if (!eval_text(ev, n->kids[0], &s)) return false;
    char *t = eval_new_string(ev, n, s, strlen(s));
    if (!t) return false;
    bool lower = n->kind == ND_LOWERCASE;
    for (char *p = t; *p; p++) {
        if (lower && *p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
        if (!lower && *p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
    }
    return eval_string_value(out, t);
}

static const EvalEntry text_entries[] = {
    {ND_REGEX, eval_regex},
    {ND_ESCAPE, eval_escape},
    {ND_STR, eval_str},
    {ND_INDEX, eval_index},
    {ND_INDEXOF, eval_indexof},
    {ND_INT_OF, eval_int_of},
    {ND_ASCII, eval_ascii},
    {ND_LOWERCASE, eval_letter_case},
    {ND_UPPERCASE, eval_letter_case},
    {ND_COUNT_, NULL},
};

const EvalFamily eval_text_family = {text_entries, NULL, NULL, eval_free_regexes};
