/*
 * src/cli/html.c — the query coloured as HTML (see html.h). The library
 * hands over the query as written, piece by piece, each token with its kind
 * as the query's own lexer reads it (cql_query_tokens); this file puts each
 * in a <span> of its kind, for the `-html` page and the `-report` header.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/html.h"

#include <string.h>

const char html_query_style[] = ".comment { color: #6a737d; font-style: italic; }\n"
                                ".string { color: #22863a; }\n"
                                ".number { color: #005cc5; }\n"
                                ".keyword { color: #6f42c1; font-weight: bold; }\n"
                                ".piece { color: #b35900; }\n"
                                ".name { color: #24292e; }\n"
                                ".operator { color: #d73a49; }\n";

/* text[0, len) with & < > " escaped, a NUL byte shown as '?' */
static void escaped(const char *text, size_t len, CqlText *out)
{
    size_t start = 0;
    for (size_t i = 0; i < len; i++) {
        const char *with = NULL;
        switch (text[i]) {
        case '&': with = "&amp;"; break;
        case '<': with = "&lt;"; break;
        case '>': with = "&gt;"; break;
        case '"': with = "&quot;"; break;
        case '\0': with = "?"; break;
        default: continue;
        }
        cql_text_append(out, text + start, i - start);
        cql_text_append(out, with, strlen(with));
        start = i + 1;
    }
    cql_text_append(out, text + start, len - start);
}

/* One piece of the query: in a <span> of its kind's class, if it has one. */
static void write_token(void *ctx, CqlTokenKind kind, const char *text, size_t len)
{
    static const char *const classes[] = {
        [CQL_TOKEN_COMMENT] = "comment", [CQL_TOKEN_KEYWORD] = "keyword",   [CQL_TOKEN_NAME] = "name",
        [CQL_TOKEN_NUMBER] = "number",   [CQL_TOKEN_STRING] = "string",     [CQL_TOKEN_PIECE] = "piece",
        [CQL_TOKEN_OPERATOR] = "operator",
    };
    CqlText *out = ctx;
    const char *cls = (size_t)kind < sizeof classes / sizeof *classes ? classes[kind] : NULL;
    if (cls) cql_text_printf(out, "<span class=\"%s\">", cls);
    escaped(text, len, out);
    if (cls) cql_text_append(out, "</span>", 7);
}

void html_query_spans(const CqlQuery *q, CqlText *out)
{
    cql_query_tokens(q, write_token, out);
}

void html_write_query(const char *title, const CqlQuery *q, FILE *out)
{
    CqlText page = {NULL, 0, 0};
    const char *head = "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>";
    cql_text_append(&page, head, strlen(head));
    escaped(title, strlen(title), &page);
    cql_text_printf(&page, "</title>\n<style>\nbody { background: #fdfdf8; }\n"
                           "pre.cql { font-family: monospace; font-size: 110%%; }\n%s"
                           "</style>\n</head>\n<body>\n<pre class=\"cql\">",
                    html_query_style);
    html_query_spans(q, &page);
    cql_text_printf(&page, "</pre>\n</body>\n</html>\n");
    fwrite(page.data, 1, page.len, out);
    cql_text_free(&page);
}
