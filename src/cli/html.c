/*
 * src/cli/html.c — the query as a coloured HTML page (see html.h). The
 * library hands over the query as written, piece by piece, each token with
 * its kind as the query's own lexer reads it (cql_query_tokens); this file
 * puts each in a <span> of its kind and the page around them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/html.h"

#include <string.h>

/* text[0, len) with & < > " escaped, a NUL byte shown as '?' */
static void escaped(const char *text, size_t len, FILE *out)
{
    for (size_t i = 0; i < len; i++) {
        switch (text[i]) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\0': fputc('?', out); break;
        default: fputc(text[i], out);
        }
    }
}

/* One piece of the query: in a <span> of its kind's class, if it has one. */
static void write_token(void *ctx, CqlTokenKind kind, const char *text, size_t len)
{
    static const char *const classes[] = {
        [CQL_TOKEN_COMMENT] = "comment", [CQL_TOKEN_KEYWORD] = "keyword",   [CQL_TOKEN_NAME] = "name",
        [CQL_TOKEN_NUMBER] = "number",   [CQL_TOKEN_STRING] = "string",     [CQL_TOKEN_PIECE] = "piece",
        [CQL_TOKEN_OPERATOR] = "operator",
    };
    FILE *out = ctx;
    const char *cls = (size_t)kind < sizeof classes / sizeof *classes ? classes[kind] : NULL;
    if (cls) fprintf(out, "<span class=\"%s\">", cls);
    escaped(text, len, out);
    if (cls) fputs("</span>", out);
}

void html_write_query(const char *title, const CqlQuery *q, FILE *out)
{
    fputs("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>", out);
    escaped(title, strlen(title), out);
    fputs("</title>\n<style>\n"
          "body { background: #fdfdf8; }\n"
          "pre.cql { font-family: monospace; font-size: 110%; }\n"
          ".comment { color: #6a737d; font-style: italic; }\n"
          ".string { color: #22863a; }\n"
          ".number { color: #005cc5; }\n"
          ".keyword { color: #6f42c1; font-weight: bold; }\n"
          ".piece { color: #b35900; }\n"
          ".name { color: #24292e; }\n"
          ".operator { color: #d73a49; }\n"
          "</style>\n</head>\n<body>\n<pre class=\"cql\">",
          out);
    cql_query_tokens(q, write_token, out);
    fputs("</pre>\n</body>\n</html>\n", out);
}
