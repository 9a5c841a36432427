/*
 * src/query/compile.h — compiling a query: the one entry point of the query
 * front end, from text to the Query the evaluator runs.
 *
 * query_compile lexes, parses and types the text (parser.h, sema.h), places
 * the command line's filters before the body, wraps the body in the command
 * line's transforms and runs the transform pass (transform.h). A second
 * front end (CQL 1.0) is a second parser that fills the same Query; it goes
 * through the same steps here.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_COMPILE_H
#define CQL_COMPILE_H

#include <stdbool.h>

#include "base/diag.h"
#include "query/ast.h"
#include "query/settings.h"

/* A query text longer than this is refused (a query is text a person
 * writes; the limit keeps a binary file or /dev/zero from filling memory). */
#define QUERY_MAX_BYTES (64u * 1024 * 1024)

typedef struct CompileOptions {
    bool body_only;          /* the text is a query body (-cql): no cql(...) header */
    const char *preamble;    /* filters placed before the body, after the header, or NULL */
    const Settings *transforms;   /* its transform settings (-flip ...) wrap the whole
                                     body, or NULL */
    bool expand;             /* run the transform pass (false: transform filters stay) */
} CompileOptions;

/* Compiles src. On any error, reports it through diag (with caret) and
 * returns NULL. The text is copied: src may be freed afterwards. With a
 * preamble, the text is compiled alone first (its errors are reported as
 * they are), then again with the preamble placed after its header. */
Query *query_compile(const SourceText *src, const CompileOptions *opt, DiagSink *diag);

/* True when the text is a CQL 1.0 query file: its first character outside
 * blanks and comments is '(' (docs/cql1.md). query_compile reads such a
 * file (unless body_only) through the CQL 1.0 front end, query/legacy/. */
bool query_is_cql1(const char *text, size_t len);

/* The CQL 6 query equivalent to the CQL 1.0 file src (malloc'd,
 * NUL-terminated), or NULL after reporting its errors. */
char *query_translate_cql1(const SourceText *src, DiagSink *diag);
void query_free(Query *q);

#endif
