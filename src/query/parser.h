/*
 * src/query/parser.h — recursive-descent parser of CQL queries.
 *
 * parse_query fills q->header, q->body, q->vars and q->funcs from q->src,
 * calling sema for the type of each node as it is built. It reports the
 * first error through diag and returns false; the query arena then holds a
 * partial tree that the caller frees with query_free. Most callers want
 * query_compile (compile.h) instead.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_PARSER_H
#define CQL_PARSER_H

#include <stdbool.h>

#include "base/diag.h"
#include "query/ast.h"

bool parse_query(Query *q, bool body_only, DiagSink *diag);

#endif
