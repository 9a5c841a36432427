/*
 * src/cli/html.h — a query with its syntax coloured in HTML: the query as
 * written, its tokens as the query's lexer reads them (cql_query_tokens),
 * comments, strings, numbers, keywords, piece and square designators, names
 * and operators each in a class of their own; the page of `cql -html`, and
 * the spans alone for the header of the `-report` page.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CLI_HTML_H
#define CQL_CLI_HTML_H

#include <stdio.h>

#include "cql.h"

/* The CSS rules of the classes the spans use. */
extern const char html_query_style[];

/* Appends the query's text to out, each token in a <span> of its kind. */
void html_query_spans(const CqlQuery *q, CqlText *out);

/* cql -html: a whole page holding the coloured query. */
void html_write_query(const char *title, const CqlQuery *q, FILE *out);

#endif
