/*
 * src/cli/escape.h — text from a PGN file or a query written into JSON,
 * TSV, EPD and HTML: each form's special characters escaped, and the text
 * made valid UTF-8 (a byte that does not belong to a UTF-8 sequence is
 * written as U+FFFD, the replacement character), so that jq, DuckDB and a
 * browser read what any input holds.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CLI_ESCAPE_H
#define CQL_CLI_ESCAPE_H

#include <stddef.h>

#include "cql.h"

/* A JSON string, quotes included: '"', '\' and control characters escaped. */
void escape_json(CqlText *out, const char *s);
/* A TSV field: a tab, CR or LF written as a blank, other control
 * characters dropped (a field holds no line end and no tab). */
void escape_tsv(CqlText *out, const char *s);
/* The text of an EPD string operand (inside its quotes): '"' written as
 * '\'' and control characters as blanks (EPD has no escape). */
void escape_epd(CqlText *out, const char *s);
/* HTML text or an attribute's value: & < > " ' as references, control
 * characters but tab and LF as U+FFFD. n bytes of s. */
void escape_html(CqlText *out, const char *s, size_t n);

#endif
