/*
 * src/query/print.h — the query printed: its syntax tree (`cql -parse`),
 * its text in ASCII or Unicode spelling (`cql -a`, `cql -u`), and its text
 * as written in tokens, for colouring (cql_query_tokens, `cql -html`).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_PRINT_H
#define CQL_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "query/ast.h"

/* `cql -parse`: one node per line, indented two spaces a level:
 *   KIND type=TYPE LINE:COL-LINE:COL payload... flags...
 * then the header and the variable table. */
void print_tree(const Query *q, StrBuf *out);
void print_node(const Query *q, const Node *n, int depth, StrBuf *out);

/* The query as written, in the order it is parsed: its header, each filter
 * given apart from its text (-cql, -player ...) on a line of its own (the
 * first on the line after the header), then its body. range() is called for each range of the text to
 * write (the header: `header`), text() for the line ends between them. */
typedef struct QueryWriter {
    void (*range)(void *ctx, const Query *q, uint32_t start, uint32_t end, bool header);
    void (*text)(void *ctx, const char *text, size_t len);
    void *ctx;
} QueryWriter;
void print_in_order(const Query *q, const QueryWriter *w);

/* `cql -a` (unicode false) / `cql -u` (true): the whole query, header
 * included, with every token in the chosen spelling (print_in_order). Layout,
 * comments and function bodies are kept, so the text re-parses to an equal
 * AST (a value given apart from the text is the CQL string that stands for
 * it, lexer.h). */
void print_source(const Query *q, bool unicode, StrBuf *out);

/* The query as written (print_in_order), piece by piece, for colouring:
 * each token with its kind (comments are TK_COMMENT_TEXT tokens), and what
 * lies between them as TK_EOF; `header`: in the cql(...) header. Put
 * together, the pieces are the query's text as written. */
typedef void (*PrintPieceFn)(void *ctx, TokKind kind, bool header, const char *text, size_t len);
void print_pieces(const Query *q, PrintPieceFn fn, void *ctx);

/* text[0, len) as a CQL string: in quotes, with \" \\ \n \t \r escaped. */
void print_string(StrBuf *out, const char *text, size_t len);

#endif
