/*
 * src/pgn/tag_lines.c — tag pairs of the usual form, [Name "value"] on a
 * line of their own: finding them (for the splitter), keeping their names
 * and values in place (for the parser), and copying them back as read (for
 * the writer). Every offset of the layout below is computed here alone:
 *
 *     [Name "value"]\n
 *     ^    ^      ^
 *     |    |      quote: the value's closing '"', then ']' and the line end
 *     |    name_end: the blank after the name, then the value's opening '"'
 *     open: the '['
 *
 * A kept pair has a NUL at name_end and at quote: its name is
 * text[open + 1, name_end), its value text[name_end + 2, quote).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pgn/tag_lines.h"

#include <string.h>

#include "pgn/reader_int.h"

/* tag_pair_usual, inlined into tag_line_usual (the splitter's, for nearly
 * every tag line) */
static inline size_t usual_pair(const char *s, size_t n, TagLine *t)
{
    size_t i = 1;
    uint32_t h = NAME_HASH_START;   /* name_hash, found on the way */
    for (; i < n && is_class(s[i], PC_NAME); i++) h = name_hash_step(h, s[i]);
    if (i == 1 || i + 2 >= n || s[i] != ' ' || s[i + 1] != '"') return 0;
    size_t quote = find_value_stop(s, i + 2, n);   /* the value's end: '"' then ']' */
    if (quote + 1 >= n || s[quote] != '"' || s[quote + 1] != ']') return 0;
    *t = (TagLine){i, quote, h};
    return quote + 2;
}

size_t tag_pair_usual(const char *s, size_t n, TagLine *t)
{
    return usual_pair(s, n, t);
}

size_t tag_line_usual(const char *s, size_t n, TagLine *t)
{
    if (n < 7 || s[0] != '[') return 0;
    size_t len = usual_pair(s, n, t);
    return len && len < n && s[len] == '\n' ? len + 1 : 0;
}

bool tag_line_mark(RawTagMark *m, size_t at, const TagLine *t)
{
    if (at + t->quote > UINT32_MAX) return false;
    *m = (RawTagMark){(uint32_t)at, (uint32_t)(at + t->name_end), (uint32_t)(at + t->quote)};
    return true;
}

size_t tag_line_end(const RawTagMark *m)
{
    return (size_t)m->quote + 3;   /* "]\n" */
}

bool tag_line_follows(const char *s, size_t pair_end, const RawTagMark *next)
{
    return next->open == pair_end + 1 && s[pair_end] == '\n';
}

KeptTag tag_pair_keep(char *text, size_t open, size_t name_end, size_t quote)
{
    text[name_end] = '\0';
    text[quote] = '\0';
    return (KeptTag){text + open + 1, text + name_end + 2, quote - name_end - 2, quote + 2};
}

void tag_lines_set(Game *g, const char *last_pair_end)
{
    g->tag_lines = g->tags[0].name - 1;   /* its '[' */
    g->tag_lines_len = (size_t)(last_pair_end + 1 - g->tag_lines);   /* with the '\n' */
}

size_t tag_lines_name_len(const Tag *t)
{
    return (size_t)(t->value - 2 - t->name);   /* a name ends 2 bytes before its value */
}

void tag_lines_copy(char *out, const Game *g)
{
    memcpy(out, g->tag_lines, g->tag_lines_len);
    for (int i = 0; i < g->tag_count; i++) {
        const Tag *t = &g->tags[i];
        out[t->value - 2 - g->tag_lines] = ' ';
        out[t->value + t->value_len - g->tag_lines] = '"';
    }
}
