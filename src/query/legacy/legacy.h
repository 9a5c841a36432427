/*
 * src/query/legacy/legacy.h — the CQL 1.0 front end: original CQL query files,
 * `(match :pgn a.pgn (position ...))`, run by the CQL 6 engine.
 *
 * A CQL 1.0 file is read (legacy_lexer), understood (legacy_parser) and
 * written as the equivalent CQL 6 query (legacy_writer), which the CQL 6
 * front end compiles into the usual syntax tree (query/compile.c hands a
 * CQL 1.0 file here first): there is one evaluator.
 * The tree's spans are then pointed back into the CQL 1.0 file, so that
 * `cql -parse` and every later message name the CQL 1.0 text. docs/cql1.md
 * says what each keyword means.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_LEGACY_H
#define CQL_LEGACY_H

#include <stdbool.h>
#include <stddef.h>

#include "query/ast.h"
#include "base/diag.h"
#include "query/legacy/legacy_lexer.h"   /* legacy_is_cql1: is this text a CQL 1.0 query? */

/* A CQL 1.0 file read and translated: the CQL 6 text and where each piece
 * of it comes from. */
typedef struct LegacyFile LegacyFile;

/* Reads, parses and translates the CQL 1.0 file src; NULL after reporting
 * the file's errors, each with FILE:LINE:COL and a caret. */
LegacyFile *legacy_read_file(const SourceText *src, DiagSink *diag);
void legacy_file_free(LegacyFile *f);

/* The CQL 6 query equivalent to the file (NUL-terminated, owned by f). */
const char *legacy_cql6_text(const LegacyFile *f, size_t *len);

/* Points every span of q, compiled from legacy_cql6_text(f), back into the
 * CQL 1.0 file src, whose text q then holds as its source: `cql -parse` and
 * every later message name the CQL 1.0 text. */
void legacy_point_back(const LegacyFile *f, const SourceText *src, Query *q);

/* Reports that the translation did not compile (cql's fault, not the
 * user's), with the CQL 6 compiler's messages. */
void legacy_report_bad_translation(const LegacyFile *f, const SourceText *src, const char *messages,
                                   DiagSink *diag);

/* The CQL 6 query equivalent to the CQL 1.0 file src (malloc'd,
 * NUL-terminated), or NULL after reporting (cql -translate). */
char *legacy_translate(const SourceText *src, DiagSink *diag);

#endif
