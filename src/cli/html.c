/*
 * src/cli/html.c — the query as a coloured HTML page (see html.h). The text
 * is split into runs by a small scanner of its own: the page shows the
 * query exactly as written, comments and spacing included, so the page is
 * made from the text, not from the syntax tree (which the query was
 * compiled into first, so that only a valid query is shown).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/html.h"

#include <stdbool.h>
#include <string.h>

static void escaped(const char *s, size_t n, FILE *out)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\0': fputs("?", out); break;
        default: fputc(s[i], out);
        }
    }
}

static void run_of(const char *cls, const char *s, size_t n, FILE *out)
{
    if (cls) fprintf(out, "<span class=\"%s\">", cls);
    escaped(s, n, out);
    if (cls) fputs("</span>", out);
}

static bool is_word_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}

static bool is_word_char(char c)
{
    return is_word_start(c) || (c >= '0' && c <= '9');
}

/* A piece designator or square: K, Ka1, [Qq]d4, a1, _e4, A ... */
static bool looks_like_designator(const char *w, size_t n)
{
    size_t i = 0;
    while (i < n && i < 2 && strchr("KQRBNPAkqrbnpa_", w[i])) i++;
    if (i == n) return n <= 2 && !(n == 2 && w[0] >= 'a' && w[1] >= 'a');
    if (w[i] >= 'a' && w[i] <= 'h') i++;
    else if (i > 0 && w[i - 1] >= 'a' && w[i - 1] <= 'h') {} /* the file was taken as a piece */
    else return false;
    return i + 1 == n && w[i] >= '1' && w[i] <= '8';
}

static bool all_lower(const char *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(w[i] >= 'a' && w[i] <= 'z')) return false;
    return true;
}

const char html_query_style[] =
    ".comment { color: #6a737d; font-style: italic; }\n"
    ".string { color: #22863a; }\n"
    ".number { color: #005cc5; }\n"
    ".keyword { color: #6f42c1; font-weight: bold; }\n"
    ".piece { color: #b35900; }\n"
    ".name { color: #24292e; }\n"
    ".operator { color: #d73a49; }\n";

void html_write_query(const char *name, const char *text, size_t len, FILE *out)
{
    fputs("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>", out);
    escaped(name, strlen(name), out);
    fputs("</title>\n<style>\n"
          "body { background: #fdfdf8; }\n"
          "pre.cql { font-family: monospace; font-size: 110%; }\n", out);
    fputs(html_query_style, out);
    fputs("</style>\n</head>\n<body>\n<pre class=\"cql\">", out);
    html_write_query_runs(text, len, out);
    fputs("</pre>\n</body>\n</html>\n", out);
}

void html_write_query_runs(const char *text, size_t len, FILE *out)
{
    size_t i = 0;
    while (i < len) {
        const char *s = text + i;
        size_t n = 1;
        const char *cls = NULL;
        char c = *s;
        if (c == '/' && i + 1 < len && s[1] == '/') {
            while (i + n < len && s[n] != '\n') n++;
            cls = "comment";
        } else if (c == '/' && i + 1 < len && s[1] == '*') {
            n = 2;
            while (i + n < len && !(s[n] == '*' && i + n + 1 < len && s[n + 1] == '/')) n++;
            n = i + n < len ? n + 2 : n;
            cls = "comment";
        } else if (c == '"') {
            while (i + n < len && s[n] != '"') n++;
            if (i + n < len) n++;
            cls = "string";
        } else if (c >= '0' && c <= '9') {
            while (i + n < len && s[n] >= '0' && s[n] <= '9') n++;
            cls = "number";
        } else if (is_word_start(c)) {
            while (i + n < len && is_word_char(s[n])) n++;
            cls = looks_like_designator(s, n) ? "piece" : all_lower(s, n) ? "keyword" : "name";
        } else if ((unsigned char)c >= 0x80) {   /* a Unicode symbol: its whole UTF-8 sequence */
            while (i + n < len && ((unsigned char)s[n] & 0xc0) == 0x80) n++;
            cls = "piece";
        } else if (strchr("[]{}()", c) || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            cls = NULL;
        } else {
            while (i + n < len && strchr("-<>=!&|+*%:~#", s[n]) && strchr("-<>=!&|+*%:~#", c)) n++;
            cls = "operator";
        }
        run_of(cls, s, n, out);
        i += n;
    }
}
