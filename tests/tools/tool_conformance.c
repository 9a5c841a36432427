/*
 * tests/tools/tool_conformance.c — runs the CQL 6.2 conformance vectors.
 *
 *   tool_conformance VECTORS.tsv PGN-DIR ALLOWED [--only SUBSTRING] [--every N] [-v]
 *
 * --every N runs every N-th vector only (the sanitizer build uses it: it is
 * many times slower, and the release build runs them all).
 *
 * Each vector is a query (header, body) run on a PGN file, with what CQL 6.2
 * answered: its exit status class and, per matching game, how many positions
 * carry the match string. The tool compiles each query and searches the games
 * exactly as `cql -matchstring ZZMATCH -i DATASET QUERY` does (through the
 * same library calls, include/cql.h), but in one process:
 * each PGN file is read once and all its vectors run on it. It prints
 * "P passed, F failed" and the failing vectors; the exit status is non-zero
 * when a vector fails that ALLOWED does not list, or when a listed one passes
 * (so the list can only shrink).
 *
 * ALLOWED lines: DATASET<TAB>HEADER<TAB>BODY<TAB>why; '#' starts a comment line.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cql.h"
#include "support.h"


typedef struct Vector {
    char *dataset, *header, *body, *rc, *matches;
    int line;
} Vector;

typedef struct Allowed {
    char **keys;          /* "DATASET\tHEADER\tBODY" */
    bool *used;
    int count;
} Allowed;

static void load_allowed(const char *path, Allowed *a)
{
    memset(a, 0, sizeof *a);
    char *text = tool_read_all(path);
    if (!text) return;
    int cap = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || !line[0]) continue;
        char *f[4];
        if (tool_split_tabs(line, f, 4) < 3) continue;
        if (a->count == cap) {
            cap = cap ? 2 * cap : 64;
            a->keys = tool_must(realloc(a->keys, (size_t)cap * sizeof *a->keys));
        }
        CqlText key = {NULL, 0, 0};
        cql_text_printf(&key, "%s\t%s\t%s", f[0], f[1], f[2]);
        a->keys[a->count++] = key.data;
    }
    a->used = tool_must(calloc((size_t)(a->count ? a->count : 1), sizeof *a->used));
    free(text);
}

static int find_allowed(const Allowed *a, const Vector *v)
{
    CqlText key = {NULL, 0, 0};
    cql_text_printf(&key, "%s\t%s\t%s", v->dataset, v->header, v->body);
    int found = -1;
    for (int i = 0; i < a->count && found < 0; i++)
        if (strcmp(a->keys[i], tool_str(&key)) == 0) found = i;
    cql_text_free(&key);
    return found;
}

/* Runs one vector; fills *got with the rc class and matches, as CQL's columns.
 * A runtime error (a failed assert ...) stops the run with status 1, as in cql. */
static void run_vector(const Vector *v, const ToolDataset *d, const char *path, CqlText *got, CqlText *why)
{
    CqlText text = {NULL, 0, 0};
    cql_text_printf(&text, "cql(%s)\n%s\n", v->header, v->body);
    CqlMessages messages = {tool_capture, why, 0, 0};
    CqlSettings *settings = tool_settings("vector.cql", false);
    cql_settings_set_text(settings, "matchstring", TOOL_MATCHSTRING);
    CqlQuery *q = cql_compile(text.data, text.len, settings, CQL_COMPILE_RUN, &messages);
    cql_settings_free(settings);
    cql_text_free(&text);
    if (!q) {
        cql_text_printf(got, "rc=1");
        return;
    }
    if (cql_query_needs_game_count(q)) {
        long games = tool_count_white_tags(path);
        if (games == 0) {
            cql_text_printf(got, "rc=1");
            cql_query_free(q);
            return;
        }
        cql_query_set_game_count(q, games);
    }
    /* a query that stops the run makes cql exit 1 */
    CqlText matches = {NULL, 0, 0};
    if (tool_search_dataset(q, d, &matches, why)) cql_text_printf(got, "rc=0 %s", tool_str(&matches));
    else cql_text_printf(got, "rc=1");
    cql_text_free(&matches);
    cql_query_free(q);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: tool_conformance VECTORS.tsv PGN-DIR ALLOWED [--only TEXT] [--every N] [-v]\n");
        return 2;
    }
    const char *only = NULL;
    bool verbose = false;
    long every = 1;
    for (int i = 4; i < argc; i++) {
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
        else if (strcmp(argv[i], "--every") == 0 && i + 1 < argc) every = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-v") == 0) verbose = true;
    }
    char *tsv = tool_read_all(argv[1]);
    if (!tsv) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    Allowed allowed;
    load_allowed(argv[3], &allowed);

    int passed = 0, failed = 0, unexpected = 0, allowed_failures = 0;
    ToolDataset d = {0};
    char *loaded = NULL;
    CqlText path = {NULL, 0, 0};
    int lineno = 0;
    char *save = NULL;
    for (char *line = strtok_r(tsv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        if (lineno == 1) continue;   /* column names */
        char *f[7];
        if (tool_split_tabs(line, f, 7) < 6) continue;
        Vector v = {f[0], f[1], f[2], f[3], f[5], lineno};
        if (only && !strstr(v.body, only) && !strstr(v.dataset, only)) continue;
        if (every > 1 && lineno % every != 0) continue;
        if (!loaded || strcmp(loaded, v.dataset) != 0) {
            if (loaded) tool_free_dataset(&d);
            cql_text_clear(&path);
            cql_text_printf(&path, "%s/%s", argv[2], v.dataset);
            if (!tool_load_dataset(tool_str(&path), &d)) {
                fprintf(stderr, "cannot read %s\n", tool_str(&path));
                return 2;
            }
            loaded = v.dataset;
        }
        CqlText want = {NULL, 0, 0}, got = {NULL, 0, 0}, why = {NULL, 0, 0};
        if (strcmp(v.rc, "0") == 0) cql_text_printf(&want, "rc=0 %s", v.matches);
        else cql_text_printf(&want, "rc=1");
        run_vector(&v, &d, tool_str(&path), &got, &why);
        int allow = find_allowed(&allowed, &v);
        if (strcmp(tool_str(&want), tool_str(&got)) == 0) {
            passed++;
            if (allow >= 0) {
                allowed.used[allow] = true;
                unexpected++;
                printf("NOW PASSING (remove from the allowed list): %s\t%s\t%s\n", v.dataset,
                       v.header, v.body);
            }
        } else {
            failed++;
            if (allow >= 0) {
                allowed.used[allow] = true;
                allowed_failures++;
            } else {
                unexpected++;
            }
            if (allow < 0 || verbose) {
                printf("FAIL line %d: %s\t%s\t%s\n  want: %s\n  got:  %s\n", v.line, v.dataset,
                       v.header, v.body, tool_str(&want), tool_str(&got));
                if (why.len) printf("  %s", tool_str(&why));
            }
        }
        cql_text_free(&want);
        cql_text_free(&got);
        cql_text_free(&why);
    }
    if (loaded) tool_free_dataset(&d);
    cql_text_free(&path);
    printf("conformance: %d passed, %d failed (%d of them on the allowed list)\n", passed, failed,
           allowed_failures);
    for (int i = 0; i < allowed.count; i++) free(allowed.keys[i]);
    free(allowed.keys);
    free(allowed.used);
    free(tsv);
    return unexpected ? 1 : 0;
}
