/*
 * src/pgn/tag_lines.h — tag pairs of the usual form, [Name "value"] with
 * nothing escaped, and the byte layout that the reader and the writer share
 * for them, known in tag_lines.c alone:
 *   - the splitter finds such pairs on lines of their own (tag_line_usual)
 *     and marks where their parts are in the game's text (tag_line_mark);
 *   - the parser keeps a pair's name and value where they are
 *     (tag_pair_keep), each ended by a NUL written over the blank after
 *     the name and over the value's closing '"', and a run of such lines,
 *     when they hold all the game's tags, as Game.tag_lines (tag_lines_set);
 *   - the writer copies that run with those bytes put back (tag_lines_copy).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_PGN_TAG_LINES_H
#define CQL_PGN_TAG_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pgn/game.h"
#include "pgn/reader.h"

/* Where the parts of a tag pair of the usual form are, as offsets from its
 * '[', and the hash of its name (the splitter tells names apart by it). */
typedef struct TagLine {
    size_t name_end;         /* the blank after the name */
    size_t quote;            /* the value's closing '"' */
    uint32_t hash;           /* name_hash of the name, found on the way */
} TagLine;

/* The tag pair of the usual form at s[0] == '[', [Name "value"] with no
 * blank but the one before the value and no backslash, CR or line end in
 * the value: its length up to its ']' and its parts in *t; 0 when there is
 * none whole in s[0..n). */
size_t tag_pair_usual(const char *s, size_t n, TagLine *t);
/* Length of the line at s[0..n) (with its '\n') when it is exactly such a
 * pair, and its parts in *t; 0 otherwise (and for a line not whole in s). */
size_t tag_line_usual(const char *s, size_t n, TagLine *t);

/* Sets *m to the tag line t found at offset `at` of a game's text. False
 * (and *m unset) when an offset does not fit in a mark. */
bool tag_line_mark(RawTagMark *m, size_t at, const TagLine *t);
/* The offset just past the line end of the marked line m. */
size_t tag_line_end(const RawTagMark *m);
/* Does the marked line `next` begin on the line after the pair that ends
 * (just past its ']') at s[pair_end]? */
bool tag_line_follows(const char *s, size_t pair_end, const RawTagMark *next);

/* A tag pair of the usual form kept in place (tag_pair_keep). */
typedef struct KeptTag {
    const char *name, *value;   /* NUL-terminated, in the text */
    size_t value_len;
    size_t end;                 /* offset just past the pair's ']' */
} KeptTag;

/* Keeps the tag pair of the usual form at text[open], whose name ends at
 * name_end and value at quote (offsets in text, as a RawTagMark holds
 * them): writes a NUL over the blank after the name and over the value's
 * closing '"', and gives the name and value there. */
KeptTag tag_pair_keep(char *text, size_t open, size_t name_end, size_t quote);

/* Sets Game.tag_lines to the run of tag lines that holds all of g's tags,
 * kept in place and in order; the last pair ends (just past its ']') at
 * last_pair_end. */
void tag_lines_set(Game *g, const char *last_pair_end);
/* The length of the name of a tag of Game.tag_lines (it holds the name and
 * the value of each tag). */
size_t tag_lines_name_len(const Tag *t);
/* Copies Game.tag_lines (tag_lines_len bytes) to out, as the input had
 * them: with the blank after each name and the '"' after each value back
 * in place of the NULs that end them in the Game. */
void tag_lines_copy(char *out, const Game *g);

#endif
