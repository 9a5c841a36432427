/*
 * src/query/legacy/legacy_lexer.h — reads the text of a CQL 1.0 query file into
 * lists and atoms (the original CQL syntax, 2003-2017: `(match :pgn a.pgn
 * (position Ra1 :flip))`).
 *
 * A list is items separated by white space inside parentheses; an item is an
 * atom (a run of characters other than white space, parentheses and `;`;
 * a `"` opens a string that may hold white space, up to its `"` on the same
 * line) or another list. `;` starts a comment that runs to the end of the line. Every
 * item keeps the byte span of its text, so that errors found later point
 * into the file. Unbalanced parentheses are reported here, through diag.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_LEGACY_LEXER_H
#define CQL_LEGACY_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/diag.h"

typedef struct LegacyItem LegacyItem;
struct LegacyItem {
    bool is_list;
    Span span;            /* the atom's text, or a list from '(' to ')' inclusive */
    const char *text;     /* atom: its text, NUL-terminated (in the arena) */
    LegacyItem **kids;    /* list: its items */
    uint32_t nkids;
};

/* True when the first character of text that is not white space (or a UTF-8
 * byte-order mark) and not inside a comment (`; ...`, `// ...`, `/ * ... * /`)
 * is '(': the file is a CQL 1.0 query. A CQL 6 file starts with `cql(`. */
bool legacy_is_cql1(const char *text, size_t len);

/* Reads the whole text: exactly one list, with nothing but white space and
 * comments around it. Returns it (allocated in `a`), or NULL after reporting
 * every error through `diag` with src's name, line and column. */
LegacyItem *legacy_read(const SourceText *src, Arena *a, DiagSink *diag);

#endif
