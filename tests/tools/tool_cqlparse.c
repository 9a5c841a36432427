/*
 * tests/tools/tool_cqlparse.c — drives the query front end on files and test data.
 *
 *   tool_cqlparse --parse FILE | --parse -cql TEXT     print the AST (exit 1 if rejected)
 *   tool_cqlparse --ascii FILE | --unicode FILE        print the query re-spelled (-cql too)
 *   tool_cqlparse --oracle JSONL [--expect LIST]       compare accept/reject with parse_rc
 *   tool_cqlparse --vectors TSV                        every vector parses iff its rc is 0
 *   tool_cqlparse --roundtrip JSONL                    -a then -u gives an equal AST
 *   tool_cqlparse --supported JSONL --expect LIST      no accepted query is refused as
 *                                                      "not supported yet" but those listed
 *
 * With --expect, the oracle run fails when a row outside LIST disagrees or
 * a row in LIST now agrees (the list only shrinks). Everything runs in one
 * process; the JSON lines are read by a minimal reader written for them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cql.h"
#include "support.h"

/* The text so far ("" before anything is appended). */
static const char *str(const CqlText *t)
{
    return t->data ? t->data : "";
}

static void *must(void *p)
{
    if (!p) {
        fprintf(stderr, "tool_cqlparse: out of memory\n");
        exit(2);
    }
    return p;
}

/* Appends code point cp in UTF-8 (a \uXXXX escape of the JSON lines). */
static void append_utf8(CqlText *out, unsigned cp)
{
    char buf[4];
    size_t n;
    if (cp < 0x80) {
        buf[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        buf[0] = (char)(0xC0 | cp >> 6);
        buf[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        buf[0] = (char)(0xE0 | cp >> 12);
        buf[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        buf[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        buf[0] = (char)(0xF0 | cp >> 18);
        buf[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        buf[2] = (char)(0x80 | (cp >> 6 & 0x3F));
        buf[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    cql_text_append(out, buf, n);
}

static void putc_text(CqlText *out, char c)
{
    cql_text_append(out, &c, 1);
}

/* {==== input ================================================================ */

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "tool_cqlparse: cannot open '%s'\n", path);
        exit(2);
    }
    CqlText t = {NULL, 0, 0};
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) cql_text_append(&t, buf, n);
    fclose(f);
    *len = t.len;
    putc_text(&t, '\0');
    return t.data;
}

/* Splits text into lines in place; returns the number of lines. */
static size_t split_lines(char *text, char ***lines)
{
    size_t n = 0, cap = 1024;
    *lines = must(malloc(cap * sizeof(char *)));
    for (char *s = text; *s;) {
        char *nl = strchr(s, '\n');
        if (n == cap) *lines = must(realloc(*lines, (cap *= 2) * sizeof(char *)));
        (*lines)[n++] = s;
        if (!nl) break;
        *nl = '\0';
        s = nl + 1;
    }
    return n;
}

/* }==== */

/* {==== a minimal JSON-lines reader ========================================== */

/* Reads a JSON string at *p (after the opening quote) into out. */
static const char *json_string(const char *p, CqlText *out)
{
    while (*p && *p != '"') {
        if (*p != '\\') {
            putc_text(out, *p++);
            continue;
        }
        p++;
        char c = *p++;
        switch (c) {
        case 'n': putc_text(out, '\n'); break;
        case 't': putc_text(out, '\t'); break;
        case 'r': putc_text(out, '\r'); break;
        case 'b': putc_text(out, '\b'); break;
        case 'f': putc_text(out, '\f'); break;
        case 'u': {
            unsigned cp = (unsigned)strtoul((char[5]){p[0], p[1], p[2], p[3], 0}, NULL, 16);
            p += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && p[0] == '\\' && p[1] == 'u') {
                unsigned lo = (unsigned)strtoul((char[5]){p[2], p[3], p[4], p[5], 0}, NULL, 16);
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                p += 6;
            }
            append_utf8(out, cp);
            break;
        }
        default: putc_text(out, c); break;
        }
    }
    return *p == '"' ? p + 1 : p;
}

typedef struct OracleRow {
    CqlText test, query, file;
    int parse_rc;
} OracleRow;

/* Fills row from one line {"key": "string" | int, ...}; false if malformed. */
static bool json_row(const char *p, OracleRow *row)
{
    cql_text_clear(&row->test);
    cql_text_clear(&row->query);
    cql_text_clear(&row->file);
    row->parse_rc = -1;
    CqlText key = {NULL, 0, 0}, ignored = {NULL, 0, 0};
    while ((p = strchr(p, '"')) != NULL) {
        cql_text_clear(&key);
        p = json_string(p + 1, &key);
        while (*p == ' ' || *p == ':') p++;
        const char *k = str(&key);
        if (*p == '"') {
            CqlText *dst = strcmp(k, "test") == 0 ? &row->test : strcmp(k, "query") == 0 ? &row->query
                          : strcmp(k, "file") == 0 ? &row->file : &ignored;
            p = json_string(p + 1, dst);
        } else {
            char *end;
            long v = strtol(p, &end, 10);
            p = end;
            if (strcmp(k, "parse_rc") == 0) row->parse_rc = (int)v;
        }
        while (*p == ' ' || *p == ',') p++;
        if (*p == '}') break;
    }
    cql_text_free(&key);
    cql_text_free(&ignored);
    return row->parse_rc >= 0;
}

/* }==== */

/* {==== compiling ============================================================ */

static void discard(void *ctx, CqlSeverity sev, const char *text)
{
    (void)ctx;
    (void)sev;
    (void)text;
}

/* Parses and types the query (transforms are not expanded: -parse shows
 * them as written); messages to standard error unless quiet. */
static CqlQuery *compile_named(const char *name, const char *text, size_t len, bool body_only, bool quiet)
{
    CqlMessages dropped = {discard, NULL, 0, 0};
    CqlSettings *settings = tool_settings(name, body_only);
    CqlQuery *q = cql_compile(text, len, settings, CQL_COMPILE_PARSE, quiet ? &dropped : NULL);
    cql_settings_free(settings);
    return q;
}

static CqlQuery *compile_text(const char *text, size_t len, bool body_only, bool quiet)
{
    return compile_named(body_only ? "-cql" : "query.cql", text, len, body_only, quiet);
}

/* }==== */

/* {==== modes ================================================================ */

/* --parse / --ascii / --unicode on FILE or -cql TEXT */
static int run_single(const char *mode, int argc, char **argv)
{
    bool body_only = argc >= 2 && strcmp(argv[0], "-cql") == 0;
    if (argc < 1 || (body_only && argc < 2)) {
        fprintf(stderr, "usage: tool_cqlparse %s FILE | -cql TEXT\n", mode);
        return 2;
    }
    size_t len;
    char *text = body_only ? must(strdup(argv[1])) : read_file(argv[0], &len);
    if (body_only) len = strlen(text);
    CqlQuery *q = compile_named(body_only ? "-cql" : argv[0], text, len, body_only, false);
    free(text);
    if (!q) return 1;
    CqlText out = {NULL, 0, 0};
    cql_query_print(q, strcmp(mode, "--parse") == 0 ? CQL_PRINT_TREE
                       : strcmp(mode, "--unicode") == 0 ? CQL_PRINT_UNICODE : CQL_PRINT_ASCII, &out);
    fputs(str(&out), stdout);
    cql_text_free(&out);
    cql_query_free(q);
    return 0;
}

static bool listed(char **list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0) return true;
    return false;
}

/* --oracle JSONL [--expect LIST] */
static int run_oracle(const char *path, const char *expect_path)
{
    size_t len, elen = 0;
    char *text = read_file(path, &len), *expected_text = NULL;
    char **lines, **expected = NULL;
    size_t nlines = split_lines(text, &lines), nexpected = 0;
    if (expect_path) {
        expected_text = read_file(expect_path, &elen);
        char **raw;
        size_t nraw = split_lines(expected_text, &raw);
        expected = must(malloc((nraw + 1) * sizeof(char *)));
        for (size_t i = 0; i < nraw; i++)
            if (raw[i][0] && raw[i][0] != '#') expected[nexpected++] = raw[i];
        free(raw);
    }
    OracleRow row = {{NULL, 0, 0}, {NULL, 0, 0}, {NULL, 0, 0}, 0};
    size_t total = 0, agree = 0, unexpected = 0;
    char *seen = must(calloc(nexpected + 1, 1));
    for (size_t i = 0; i < nlines; i++) {
        if (!lines[i][0]) continue;
        if (!json_row(lines[i], &row)) {
            fprintf(stderr, "%s:%zu: malformed line\n", path, i + 1);
            return 2;
        }
        total++;
        CqlQuery *q = compile_text(str(&row.query), row.query.len, true, true);
        bool accepted = q != NULL;
        cql_query_free(q);
        bool ok = accepted == (row.parse_rc == 0);
        agree += ok;
        bool is_listed = false;
        for (size_t j = 0; j < nexpected; j++)
            if (strcmp(expected[j], str(&row.test)) == 0) {
                seen[j] = ok ? 2 : 1;
                is_listed = true;
            }
        if (!ok && !is_listed) {
            unexpected++;
            printf("DISAGREE %s\t%s\toracle=%s\t%s\n", str(&row.file), str(&row.test),
                   row.parse_rc == 0 ? "accept" : "reject", str(&row.query));
        }
    }
    size_t stale = 0;
    for (size_t j = 0; j < nexpected; j++) {
        if (seen[j] == 2) {
            printf("NOW AGREES (remove from the list): %s\n", expected[j]);
            stale++;
        } else if (seen[j] == 0 && !listed(expected, j, expected[j])) {
            printf("UNKNOWN ROW in the list: %s\n", expected[j]);
            stale++;
        }
    }
    printf("oracle: %zu of %zu rows agree (%.2f%%), %zu unexpected, %zu stale\n", agree, total,
           total ? 100.0 * (double)agree / (double)total : 0.0, unexpected, stale);
    cql_text_free(&row.test);
    cql_text_free(&row.query);
    cql_text_free(&row.file);
    free(seen);
    free(lines);
    free(expected);
    free(text);
    free(expected_text);
    return expect_path && (unexpected || stale) ? 1 : 0;
}

/* --vectors TSV: dataset header body rc games matches family. A query the
 * official program rejected on one file but ran on another was stopped by
 * the file, not by the parser; such rows count as accepted. */
typedef struct Vector {
    const char *header, *body;
    bool rc_zero;
} Vector;

static int run_vectors(const char *path)
{
    size_t len;
    char *text = read_file(path, &len);
    char **lines;
    size_t nlines = split_lines(text, &lines), n = 0;
    Vector *v = must(calloc(nlines ? nlines : 1, sizeof *v));
    for (size_t i = 1; i < nlines; i++) {
        char *cols[4] = {0};
        char *s = lines[i];
        int ncols = 0;
        while (ncols < 4 && s) {
            cols[ncols++] = s;
            char *tab = strchr(s, '\t');
            if (tab) *tab = '\0';
            s = tab ? tab + 1 : NULL;
        }
        if (ncols == 4) v[n++] = (Vector){cols[1], cols[2], strcmp(cols[3], "0") == 0};
    }
    size_t bad = 0, file_failures = 0;
    for (size_t i = 0; i < n; i++) {
        bool runs_somewhere = false;
        for (size_t j = 0; j < n && !runs_somewhere; j++)
            runs_somewhere = v[j].rc_zero && strcmp(v[j].header, v[i].header) == 0 && strcmp(v[j].body, v[i].body) == 0;
        CqlText q = {NULL, 0, 0};
        cql_text_printf(&q, "cql(%s)\n%s\n", v[i].header, v[i].body);
        CqlQuery *query = compile_text(q.data, q.len, false, true);
        bool accepted = query != NULL;
        cql_query_free(query);
        if (!v[i].rc_zero && runs_somewhere && accepted) {
            file_failures++;
        } else if (accepted != v[i].rc_zero) {
            bad++;
            printf("VECTOR %zu: rc=%d but the query was %s: cql(%s) %s\n", i + 2, v[i].rc_zero ? 0 : 1,
                   accepted ? "accepted" : "rejected", v[i].header, v[i].body);
        }
        cql_text_free(&q);
    }
    printf("vectors: %zu of %zu rows as expected (%zu of them rejected by CQL 6.2 for their input file only)\n",
           n - bad, n, file_failures);
    free(v);
    free(lines);
    free(text);
    return bad ? 1 : 0;
}

/* --roundtrip JSONL: for every accepted query, -a then -u re-parses equal. */
static int run_roundtrip(const char *path)
{
    size_t len;
    char *text = read_file(path, &len);
    char **lines;
    size_t nlines = split_lines(text, &lines);
    OracleRow row = {{NULL, 0, 0}, {NULL, 0, 0}, {NULL, 0, 0}, 0};
    size_t checked = 0, bad = 0;
    for (size_t i = 0; i < nlines; i++) {
        if (!lines[i][0] || !json_row(lines[i], &row)) continue;
        CqlQuery *q = compile_text(str(&row.query), row.query.len, true, true);
        if (!q) continue;
        checked++;
        CqlText ascii = {NULL, 0, 0}, uni = {NULL, 0, 0};
        cql_query_print(q, CQL_PRINT_ASCII, &ascii);
        CqlQuery *qa = compile_text(str(&ascii), ascii.len, true, true);
        CqlQuery *qu = NULL;
        if (qa) {
            cql_query_print(qa, CQL_PRINT_UNICODE, &uni);
            qu = compile_text(str(&uni), uni.len, true, true);
        }
        if (!qa || !qu || !cql_query_equal(q, qa) || !cql_query_equal(q, qu)) {
            bad++;
            printf("ROUNDTRIP %s: %s\n  -a: %s\n  -u: %s\n", str(&row.test), str(&row.query), str(&ascii),
                   str(&uni));
        }
        cql_query_free(q);
        cql_query_free(qa);
        cql_query_free(qu);
        cql_text_free(&ascii);
        cql_text_free(&uni);
    }
    printf("roundtrip: %zu of %zu accepted queries re-parse equal after -a and -u\n", checked - bad, checked);
    cql_text_free(&row.test);
    cql_text_free(&row.query);
    cql_text_free(&row.file);
    free(lines);
    free(text);
    return bad ? 1 : 0;
}

/* Collects messages into a CqlText. */
static void collect(void *ctx, CqlSeverity sev, const char *text)
{
    (void)sev;
    cql_text_append(ctx, text, strlen(text));
}

/* --supported JSONL --expect LIST: every query CQL 6.2 accepts compiles to
 * run, without "not supported yet", except the tests named in LIST (one a
 * line, a tab and the reason after the name); a listed one that compiles
 * is reported too (the list only shrinks). */
static int run_supported(const char *path, const char *expect_path)
{
    size_t len, elen = 0;
    char *text = read_file(path, &len);
    char *expected_text = read_file(expect_path, &elen);
    char **lines, **raw;
    size_t nlines = split_lines(text, &lines), nraw = split_lines(expected_text, &raw), nexpected = 0;
    char **expected = must(malloc((nraw + 1) * sizeof(char *)));
    for (size_t i = 0; i < nraw; i++) {
        if (!raw[i][0] || raw[i][0] == '#') continue;
        char *tab = strchr(raw[i], '\t');
        if (tab) *tab = '\0';
        expected[nexpected++] = raw[i];
    }
    free(raw);
    char *seen = must(calloc(nexpected + 1, 1));
    OracleRow row = {{NULL, 0, 0}, {NULL, 0, 0}, {NULL, 0, 0}, 0};
    size_t accepted = 0, refused = 0, bad = 0;
    for (size_t i = 0; i < nlines; i++) {
        if (!lines[i][0]) continue;
        if (!json_row(lines[i], &row)) {
            fprintf(stderr, "%s:%zu: malformed line\n", path, i + 1);
            return 2;
        }
        if (row.parse_rc != 0) continue;
        accepted++;
        CqlText messages = {NULL, 0, 0};
        CqlMessages sink = {collect, &messages, 0, 0};
        CqlSettings *settings = tool_settings("-cql", true);
        cql_settings_set_flag(settings, "variations", true);
        CqlQuery *q = cql_compile(str(&row.query), row.query.len, settings, CQL_COMPILE_RUN, &sink);
        cql_settings_free(settings);
        bool unsupported = !q && strstr(str(&messages), "not supported yet") != NULL;
        cql_query_free(q);
        int at = -1;
        for (size_t j = 0; j < nexpected && at < 0; j++)
            if (strcmp(expected[j], str(&row.test)) == 0) at = (int)j;
        if (at >= 0) seen[at] = unsupported ? 1 : 2;
        if (unsupported) {
            refused++;
            if (at < 0) {
                bad++;
                printf("NOT SUPPORTED %s\t%s\n  %s", str(&row.test), str(&row.query), str(&messages));
            }
        }
        cql_text_free(&messages);
    }
    for (size_t j = 0; j < nexpected; j++) {
        if (seen[j] == 2) {
            printf("NOW SUPPORTED (remove from the list): %s\n", expected[j]);
            bad++;
        } else if (seen[j] == 0) {
            printf("UNKNOWN ROW in the list: %s\n", expected[j]);
            bad++;
        }
    }
    printf("supported: %zu of %zu accepted queries compile to run; %zu refused as not supported yet, all listed "
           "as pending\n", accepted - refused, accepted, refused);
    if (bad) printf("supported: %zu unexpected\n", bad);
    cql_text_free(&row.test);
    cql_text_free(&row.query);
    cql_text_free(&row.file);
    free(seen);
    free(expected);
    free(expected_text);
    free(lines);
    free(text);
    return bad ? 1 : 0;
}

/* }==== */

int main(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--parse") == 0 || strcmp(argv[1], "--ascii") == 0 ||
                      strcmp(argv[1], "--unicode") == 0))
        return run_single(argv[1], argc - 2, argv + 2);
    if (argc >= 3 && strcmp(argv[1], "--oracle") == 0)
        return run_oracle(argv[2], argc >= 5 && strcmp(argv[3], "--expect") == 0 ? argv[4] : NULL);
    if (argc >= 3 && strcmp(argv[1], "--vectors") == 0) return run_vectors(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "--roundtrip") == 0) return run_roundtrip(argv[2]);
    if (argc >= 5 && strcmp(argv[1], "--supported") == 0 && strcmp(argv[3], "--expect") == 0)
        return run_supported(argv[2], argv[4]);
    fprintf(stderr, "usage: tool_cqlparse --parse|--ascii|--unicode FILE|-cql TEXT\n"
                    "       tool_cqlparse --oracle JSONL [--expect LIST]\n"
                    "       tool_cqlparse --vectors TSV\n"
                    "       tool_cqlparse --roundtrip JSONL\n"
                    "       tool_cqlparse --supported JSONL --expect LIST\n");
    return 2;
}
