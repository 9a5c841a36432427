/*
 * src/cli/html.h — a query as an HTML page with its syntax coloured
 * (cql -html): the query as written, its tokens as the query's lexer reads
 * them (cql_query_tokens), comments, strings, numbers, keywords, piece and
 * square designators, names and operators each in a colour of their own.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CLI_HTML_H
#define CQL_CLI_HTML_H

#include <stdio.h>

#include "cql.h"

/* Writes the page of query q (titled `title`) to out. */
void html_write_query(const char *title, const CqlQuery *q, FILE *out);

#endif
