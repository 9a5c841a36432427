/*
 * src/query/legacy/legacy_lexer.c — lists and atoms of a CQL 1.0 file (see
 * legacy_lexer.h).
 *
 * The reader keeps a stack of open lists, so that nesting depth costs no C
 * stack. A ')' without its '(' and a '(' never closed are errors; so are a
 * second top-level item and a NUL byte outside a comment.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "query/legacy/legacy_lexer.h"

#include <stdlib.h>
#include <string.h>

static bool is_white_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool ends_atom(unsigned char c)
{
    return is_white_space(c) || c == '(' || c == ')' || c == ';' || c == '\0';
}

/* Skips white space and comments from i; returns the next offset. With
 * `c_style`, `//` and block comments are skipped as well (for telling the
 * dialects apart only: in a CQL 1.0 file `/` is an ordinary character). */
static size_t skip_blank(const char *s, size_t len, size_t i, bool c_style)
{
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        if (is_white_space(c)) {
            i++;
        } else if (c == ';' || (c_style && c == '/' && i + 1 < len && s[i + 1] == '/')) {
            while (i < len && s[i] != '\n') i++;
        } else if (c_style && c == '/' && i + 1 < len && s[i + 1] == '*') {
            const char *end = NULL;
            for (size_t j = i + 2; j + 1 < len; j++)
                if (s[j] == '*' && s[j + 1] == '/') {
                    end = s + j + 2;
                    break;
                }
            i = end ? (size_t)(end - s) : len;
        } else {
            break;
        }
    }
    return i;
}

static size_t skip_bom(const char *s, size_t len)
{
    return len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

bool legacy_is_cql1(const char *text, size_t len)
{
    if (!text) return false;
    size_t i = skip_blank(text, len, skip_bom(text, len), true);
    return i < len && text[i] == '(';
}

/* {==== the reader ============================================================ */

typedef struct Open {
    LegacyItem *list;
    uint32_t cap;
} Open;

typedef struct Reader {
    const SourceText *src;
    Arena *arena;
    DiagSink *diag;
    Open *stack;          /* open lists, innermost last (malloc'd) */
    size_t depth, cap;
    LegacyItem *top;      /* the finished top-level item */
    bool failed;
} Reader;

static void add_item(Reader *r, LegacyItem *item)
{
    if (r->depth == 0) {
        if (r->top) {
            diag_at(r->diag, r->src, item->span, DIAG_ERROR,
                    "a CQL 1.0 file holds one list, (match ...); this comes after its ')'");
            r->failed = true;
            return;
        }
        r->top = item;
        return;
    }
    Open *o = &r->stack[r->depth - 1];
    if (o->list->nkids == o->cap) {
        uint32_t bigger = o->cap ? 2 * o->cap : 8;
        o->list->kids = arena_realloc(r->arena, o->list->kids, o->cap * sizeof(LegacyItem *),
                                      bigger * sizeof(LegacyItem *));
        o->cap = bigger;
    }
    o->list->kids[o->list->nkids++] = item;
}

static void open_list(Reader *r, uint32_t at)
{
    if (r->depth == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->stack = xrealloc(r->stack, r->cap * sizeof *r->stack);
    }
    LegacyItem *list = ARENA_NEW(r->arena, LegacyItem);
    list->is_list = true;
    list->span = (Span){at, at + 1};
    r->stack[r->depth++] = (Open){list, 0};
}

static void close_list(Reader *r, uint32_t at)
{
    if (r->depth == 0) {
        diag_at(r->diag, r->src, (Span){at, at + 1}, DIAG_ERROR, "unbalanced parentheses: this ')' closes no '('");
        r->failed = true;
        return;
    }
    LegacyItem *list = r->stack[--r->depth].list;
    list->span.end = at + 1;
    add_item(r, list);
}

LegacyItem *legacy_read(const SourceText *src, Arena *a, DiagSink *diag)
{
    Reader r = {src, a, diag, NULL, 0, 0, NULL, false};
    const char *s = src->text;
    size_t len = src->len;
    size_t i = skip_bom(s, len);
    for (;;) {
        i = skip_blank(s, len, i, false);
        if (i >= len) break;
        unsigned char c = (unsigned char)s[i];
        if (c == '(') {
            open_list(&r, (uint32_t)i++);
        } else if (c == ')') {
            close_list(&r, (uint32_t)i++);
        } else if (c == '\0') {
            diag_at(diag, src, (Span){(uint32_t)i, (uint32_t)i + 1}, DIAG_ERROR, "a NUL byte in the query");
            r.failed = true;
            i++;
        } else {
            size_t start = i;
            if (c == '"') {
                /* a quoted name (Scidb's `:player "van Wely"`): white space allowed */
                const char *close = memchr(s + i + 1, '"', len - i - 1);
                const char *nl = memchr(s + i + 1, '\n', len - i - 1);
                if (close && (!nl || close < nl)) i = (size_t)(close - s) + 1;
            }
            while (i < len && !ends_atom((unsigned char)s[i])) i++;
            LegacyItem *atom = ARENA_NEW(a, LegacyItem);
            atom->span = (Span){(uint32_t)start, (uint32_t)i};
            atom->text = arena_strndup(a, s + start, i - start);
            add_item(&r, atom);
        }
    }
    if (r.depth > 0) {
        /* the outermost list left open is the one to close */
        diag_at(diag, src, r.stack[0].list->span, DIAG_ERROR,
                "unbalanced parentheses: this '(' is never closed (%zu ')' missing at the end of the file)",
                r.depth);
        r.failed = true;
    } else if (!r.top && !r.failed) {
        diag_at(diag, src, (Span){(uint32_t)len, (uint32_t)len}, DIAG_ERROR,
                "the file holds no (match ...) list");
        r.failed = true;
    }
    free(r.stack);
    return r.failed ? NULL : r.top;
}

/* }==== */
