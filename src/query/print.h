/*
 * src/query/print.h — the query printed: its syntax tree (`cql -parse`) and
 * its text in ASCII or Unicode spelling (`cql -a`, `cql -u`).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_PRINT_H
#define CQL_PRINT_H

#include <stdbool.h>

#include "base/strbuf.h"
#include "query/ast.h"

/* `cql -parse`: one node per line, indented two spaces a level:
 *   KIND type=TYPE LINE:COL-LINE:COL payload... flags...
 * then the header and the variable table. */
void print_tree(const Query *q, StrBuf *out);
void print_node(const Query *q, const Node *n, int depth, StrBuf *out);

/* `cql -a` (unicode false) / `cql -u` (true): the whole query, header
 * included, with every token in the chosen spelling. Layout, comments and
 * function bodies are kept, so the text re-parses to an equal AST. */
void print_source(const Query *q, bool unicode, StrBuf *out);

#endif
