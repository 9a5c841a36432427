/*
 * src/eval_string.c — string matching: `S ~~ PATTERN` and the captures
 * \1 ... \9 of the last successful match.
 *
 * Patterns are POSIX extended regular expressions (regex.h, in libc), with
 * the common ECMAScript shorthands CQL users write (\d \w \s \D \W \S)
 * translated first. A pattern is compiled once and kept for the run.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "eval_int.h"

/* The ERE spelling of a pattern written with ECMAScript shorthands. */
static char *to_ere(const char *pat)
{
    static const struct { char c; const char *ere; } shorthands[] = {
        {'d', "[0-9]"}, {'D', "[^0-9]"}, {'w', "[A-Za-z0-9_]"}, {'W', "[^A-Za-z0-9_]"},
        {'s', "[[:space:]]"}, {'S', "[^[:space:]]"},
    };
    StrBuf sb = SB_INIT;
    for (const char *p = pat; *p; p++) {
        if (*p == '\\' && p[1]) {
            const char *ere = NULL;
            for (size_t i = 0; i < sizeof shorthands / sizeof shorthands[0]; i++)
                if (shorthands[i].c == p[1]) ere = shorthands[i].ere;
            if (ere) {
                sb_append(&sb, ere);
                p++;
                continue;
            }
            sb_putc(&sb, *p++);
        }
        sb_putc(&sb, *p);
    }
    return sb_take(&sb);
}

static regex_t *compiled_regex(Evaluator *ev, const char *pattern)
{
    for (int i = 0; i < ev->nregexes; i++)
        if (strcmp(ev->regexes[i].pattern, pattern) == 0) return ev->regexes[i].compiled;
    ev->regexes = xrealloc(ev->regexes, sizeof *ev->regexes * (size_t)(ev->nregexes + 1));
    CachedRegex *c = &ev->regexes[ev->nregexes++];
    c->pattern = xstrdup(pattern);
    char *ere = to_ere(pattern);
    regex_t *re = xmalloc(sizeof *re);
    if (regcomp(re, ere, REG_EXTENDED) != 0) {
        free(re);
        re = NULL;
    }
    free(ere);
    c->compiled = re;
    return re;
}

void eval_free_regexes(Evaluator *ev)
{
    for (int i = 0; i < ev->nregexes; i++) {
        if (ev->regexes[i].compiled) regfree(ev->regexes[i].compiled);
        free(ev->regexes[i].compiled);
        free(ev->regexes[i].pattern);
    }
    free(ev->regexes);
    for (int i = 0; i < REGEX_CAPTURES; i++) free(ev->captures[i]);
}

/* S ~~ P: matches when P matches somewhere in S; the value is the matched text. */
static bool eval_regex(Evaluator *ev, const Node *n, Value *out)
{
    Value s, p;
    if (!eval_node(ev, n->kids[0], &s) || s.type != VT_STRING) return false;
    if (!eval_node(ev, n->kids[1], &p) || p.type != VT_STRING) return false;
    regex_t *re = compiled_regex(ev, p.str);
    regmatch_t m[REGEX_CAPTURES];
    if (!re || regexec(re, s.str, REGEX_CAPTURES, m, 0) != 0) return false;
    for (int i = 0; i < REGEX_CAPTURES; i++) {
        free(ev->captures[i]);
        ev->captures[i] = NULL;
        if (m[i].rm_so >= 0)
            ev->captures[i] = strndup(s.str + m[i].rm_so, (size_t)(m[i].rm_eo - m[i].rm_so));
    }
    out->type = VT_STRING;
    out->str = arena_strdup(eval_strings(ev), ev->captures[0]);
    return true;
}

/* \N after a ~~: the N-th group of the last match; \n \t \" \\ are those characters. */
static bool eval_escape(Evaluator *ev, const Node *n, Value *out)
{
    if (n->num == 0 && n->text && n->text[0] == '\\') {
        static const char from[] = "nt\"\\", to[] = "\n\t\"\\";
        const char *hit = strchr(from, n->text[1]);
        if (!hit || !n->text[1]) return false;
        char *c = arena_alloc(eval_strings(ev), 2);
        c[0] = to[hit - from];
        c[1] = '\0';
        out->type = VT_STRING;
        out->str = c;
        return true;
    }
    if (n->num <= 0 || n->num >= REGEX_CAPTURES || !ev->captures[n->num]) return false;
    out->type = VT_STRING;
    out->str = arena_strdup(eval_strings(ev), ev->captures[n->num]);
    return true;
}

const EvalEntry eval_string_entries[] = {
    {ND_REGEX, eval_regex},
    {ND_ESCAPE, eval_escape},
    {ND_COUNT_, NULL},
};
