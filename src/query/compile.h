/*
 * src/query/compile.h — compiling a query: the one entry point of the query
 * front end, from text to the Query the evaluator runs.
 *
 * query_compile lexes, parses and types the text (parser.h, sema.h) with
 * the filters given apart from it (the command line's) before its body,
 * wraps the body in the command line's transforms and runs the transform
 * pass (transform.h). A second
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

/* A value bound to a filter given apart from the query text. */
typedef enum FilterValueKind {
    FV_STRING,   /* a string, whatever its bytes (quotes, backslashes, line ends) */
    FV_WORD      /* one word of CQL: a name, a keyword or a whole number (-5) */
} FilterValueKind;

typedef struct FilterValue {
    FilterValueKind kind;
    const char *text;
} FilterValue;

#define FILTER_MAX_VALUES 9

/* A filter placed before the body, given apart from the query text: a -cql
 * text, or the filter of an option such as -player, whose text writes $1
 * ... $9 where its values stand (`player $1`, `{year >= $1 year <= $2}`).
 * It is a source of its own, parsed once as it is: a message about it
 * names it (`-player`) and shows its text with the values in place; a
 * string value is one string token whatever it holds (lexer.h, LexValue). */
typedef struct QueryFilter {
    const char *name;               /* "-cql", "-player" */
    const char *text;               /* CQL, with $1 ... where the values go */
    const FilterValue *values;
    uint32_t nvalues;               /* at most FILTER_MAX_VALUES */
} QueryFilter;

typedef struct CompileOptions {
    bool body_only;          /* the text is a query body (-cql): no cql(...) header */
    const QueryFilter *filters;   /* placed before the body, after the header, in order */
    size_t nfilters;
    const Settings *transforms;   /* its transform settings (-flip ...) wrap the whole
                                     body, or NULL */
    bool expand;             /* run the transform pass (false: transform filters stay) */
} CompileOptions;

/* Compiles src. On any error, reports it through diag (with caret) and
 * returns NULL. The texts are copied: src and the filters may be freed
 * afterwards. The query keeps its text and then each filter's, a part of
 * Query.src each, and parses the header, the filters, then the body. */
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
