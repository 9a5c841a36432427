/*
 * src/query/legacy/legacy_writer.h — writes the CQL 6 query that means what a
 * CQL 1.0 match list means.
 *
 * The translation is an ordinary CQL 6.2 query (cql -translate prints it, and
 * CQL 6.2 runs it), compiled by the CQL 6 front end into the same syntax tree
 * as any query. Every piece of its text remembers the CQL 1.0 text it came
 * from (a keyword, a designator, a list), so that the tree's spans can point
 * into the CQL 1.0 file. What each keyword becomes is in docs/cql1.md.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_LEGACY_WRITER_H
#define CQL_LEGACY_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "query/legacy/legacy_parser.h"
#include "base/strbuf.h"

/* A piece of the CQL 6 text and the CQL 1.0 text it stands for. Pieces nest;
 * they are kept in the order they start. */
typedef struct LegacyOrigin {
    uint32_t start, end;    /* in the CQL 6 text */
    Span from;              /* in the CQL 1.0 file */
    uint32_t parent;        /* index + 1 of the enclosing piece; 0: none */
} LegacyOrigin;

typedef struct LegacyTranslation {
    StrBuf text;            /* the CQL 6 query */
    LegacyOrigin *origins;  /* owned */
    size_t norigins, cap;
    uint32_t open;          /* index + 1 of the piece being written; 0: none */
} LegacyTranslation;

/* The CQL 6 text of this translation grows past this many bytes only for
 * transformations of transformations; it is an error then. */
#define LEGACY_MAX_TEXT (16u * 1024 * 1024)

/* Writes the translation of m (parsed from src) into *out (zeroed first).
 * False after reporting an error through diag (a translation too large). */
bool legacy_write(const LegacyMatch *m, const SourceText *src, DiagSink *diag, LegacyTranslation *out);

/* The CQL 1.0 span that the CQL 6 text `range` stands for: that of the
 * innermost piece holding all of it, or `fallback`. */
Span legacy_origin_of(const LegacyTranslation *t, Span range, Span fallback);

void legacy_translation_free(LegacyTranslation *t);

#endif
