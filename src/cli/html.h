/*
 * src/cli/html.h — a query as an HTML page with its syntax coloured
 * (cql -html): comments, strings, numbers, filter keywords, piece and
 * square designators, variables and operators each in a colour of their own.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CLI_HTML_H
#define CQL_CLI_HTML_H

#include <stddef.h>
#include <stdio.h>

/* Writes the page for the query text (named `name` in its title) to out. */
void html_write_query(const char *name, const char *text, size_t len, FILE *out);

/* The query text alone, its runs as <span class="CLASS">, escaped, for a
 * <pre> of another page (cql -report), with the rules of those classes. */
void html_write_query_runs(const char *text, size_t len, FILE *out);
extern const char html_query_style[];

#endif
