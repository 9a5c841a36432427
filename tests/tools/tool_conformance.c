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

#define MATCHSTRING "ZZMATCH"

typedef struct Vector {
    char *dataset, *header, *body, *rc, *matches;
    int line;
} Vector;

typedef struct Allowed {
    char **keys;          /* "DATASET\tHEADER\tBODY" */
    bool *used;
    int count;
} Allowed;

static void discard(void *ctx, CqlSeverity sev, const char *text)
{
    (void)ctx;
    (void)sev;
    (void)text;
}

static void capture(void *ctx, CqlSeverity sev, const char *text)
{
    (void)sev;
    cql_text_append(ctx, text, strlen(text));
}

/* The text so far ("" before anything is appended). */
static const char *str(const CqlText *t)
{
    return t->data ? t->data : "";
}

static void *must(void *p)
{
    if (!p) {
        fprintf(stderr, "tool_conformance: out of memory\n");
        exit(2);
    }
    return p;
}

/* Splits a line at tabs into at most n fields (in place). */
static int split_tabs(char *line, char **fields, int n)
{
    int k = 0;
    fields[k++] = line;
    for (char *p = line; *p && k < n; p++)
        if (*p == '\t') {
            *p = '\0';
            fields[k++] = p + 1;
        }
    return k;
}

static char *read_all(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    CqlText t = {NULL, 0, 0};
    char buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, fp)) > 0) cql_text_append(&t, buf, got);
    fclose(fp);
    return t.data ? t.data : must(calloc(1, 1));
}

static void load_allowed(const char *path, Allowed *a)
{
    memset(a, 0, sizeof *a);
    char *text = read_all(path);
    if (!text) return;
    int cap = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || !line[0]) continue;
        char *f[4];
        if (split_tabs(line, f, 4) < 3) continue;
        if (a->count == cap) {
            cap = cap ? 2 * cap : 64;
            a->keys = must(realloc(a->keys, (size_t)cap * sizeof *a->keys));
        }
        CqlText key = {NULL, 0, 0};
        cql_text_printf(&key, "%s\t%s\t%s", f[0], f[1], f[2]);
        a->keys[a->count++] = key.data;
    }
    a->used = must(calloc((size_t)(a->count ? a->count : 1), sizeof *a->used));
    free(text);
}

static int find_allowed(const Allowed *a, const Vector *v)
{
    CqlText key = {NULL, 0, 0};
    cql_text_printf(&key, "%s\t%s\t%s", v->dataset, v->header, v->body);
    int found = -1;
    for (int i = 0; i < a->count && found < 0; i++)
        if (strcmp(a->keys[i], str(&key)) == 0) found = i;
    cql_text_free(&key);
    return found;
}

/* The games of one PGN file, parsed once (an unusable game is NULL). */
typedef struct Dataset {
    CqlGame **games;
    int count;
} Dataset;

static bool load_dataset(const char *path, Dataset *d)
{
    memset(d, 0, sizeof *d);
    CqlMessages quiet = {discard, NULL, 0, 0};
    CqlReader *r = cql_reader_open(path, &quiet);
    if (!r) return false;
    CqlGameText *text = cql_game_text_new();
    int cap = 0;
    while (cql_reader_next(r, text, &quiet)) {
        if (d->count == cap) {
            cap = cap ? 2 * cap : 256;
            d->games = must(realloc(d->games, (size_t)cap * sizeof *d->games));
        }
        CqlGame *g = cql_game_new();
        if (cql_game_parse(g, text, path, &quiet) == CQL_GAME_UNUSABLE) {
            cql_game_free(g);
            g = NULL;
        }
        d->games[d->count++] = g;
    }
    cql_game_text_free(text);
    cql_reader_close(r);
    return true;
}

static void free_dataset(Dataset *d)
{
    for (int i = 0; i < d->count; i++) cql_game_free(d->games[i]);
    free(d->games);
}

/* What the vectors record, from the output text: a game's part begins at
 * "Game number N", where the words may be separated by any run of white space
 * (CQL 6.2 breaks the line inside the game-number comment when it follows a
 * long comment: "Game\nnumber 3"), the splitter Game\s+number\s+(\d+) of the
 * vectors. Match strings count for the game of the part they are in, summed
 * per game in the order the games first appear; the text before the first part
 * is not counted. Appends "G:P G:P ...". */
static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* When p starts "Game<ws>number<ws>DIGITS": the number, and *end past it. */
static bool game_marker(const char *p, long *number, const char **end)
{
    if (strncmp(p, "Game", 4) != 0 || !is_space(p[4])) return false;
    p += 4;
    while (is_space(*p)) p++;
    if (strncmp(p, "number", 6) != 0 || !is_space(p[6])) return false;
    p += 6;
    while (is_space(*p)) p++;
    if (*p < '0' || *p > '9') return false;
    char *after;
    *number = strtol(p, &after, 10);
    *end = after;
    return true;
}

static void count_like_cql_vectors(const char *text, CqlText *got)
{
    const size_t match_len = strlen(MATCHSTRING);
    long *numbers = NULL;
    int *counts = NULL;
    int games = 0, cap = 0, current = -1;
    for (const char *p = text; *p;) {
        long number;
        const char *end;
        if (*p == 'G' && game_marker(p, &number, &end)) {
            current = -1;
            for (int i = 0; i < games && current < 0; i++)
                if (numbers[i] == number) current = i;
            if (current < 0) {
                if (games == cap) {
                    cap = cap ? 2 * cap : 16;
                    numbers = must(realloc(numbers, (size_t)cap * sizeof *numbers));
                    counts = must(realloc(counts, (size_t)cap * sizeof *counts));
                }
                numbers[games] = number;
                counts[games] = 0;
                current = games++;
            }
            p = end;
        } else if (*p == MATCHSTRING[0] && current >= 0 && strncmp(p, MATCHSTRING, match_len) == 0) {
            counts[current]++;
            p += match_len;
        } else {
            p++;
        }
    }
    for (int i = 0; i < games; i++) cql_text_printf(got, "%s%ld:%d", i ? " " : "", numbers[i], counts[i]);
    free(numbers);
    free(counts);
}

/* The occurrences of "[White " in file `path`: how cql counts the games
 * for `lastgamenumber` (cql62-remaining.md §12). */
static long count_white_tags(const char *path)
{
    char *text = read_all(path);
    long n = 0;
    for (const char *p = text; p && (p = strstr(p, "[White ")); p++) n++;
    free(text);
    return n;
}

/* Runs one vector; fills *got with the rc class and matches, as CQL's columns.
 * A runtime error (a failed assert ...) stops the run with status 1, as in cql. */
static void run_vector(const Vector *v, const Dataset *d, const char *path, CqlText *got, CqlText *why)
{
    CqlText text = {NULL, 0, 0};
    cql_text_printf(&text, "cql(%s)\n%s\n", v->header, v->body);
    CqlMessages messages = {capture, why, 0, 0};
    CqlSettings settings = {.name = "vector.cql", .matchstring = MATCHSTRING};
    CqlQuery *q = cql_compile(text.data, text.len, &settings, CQL_COMPILE_RUN, &messages);
    cql_text_free(&text);
    if (!q) {
        cql_text_printf(got, "rc=1");
        return;
    }
    if (cql_query_needs_game_count(q)) {
        long games = count_white_tags(path);
        if (games == 0) {
            cql_text_printf(got, "rc=1");
            cql_query_free(q);
            return;
        }
        cql_query_set_game_count(q, games);
    }
    CqlSearcher *searcher = cql_searcher_new(q);
    CqlRange wanted = cql_query_gamenumber(q);
    bool stopped = false;
    CqlText printed = {NULL, 0, 0}, pgn = {NULL, 0, 0};
    for (int i = 0; i < d->count; i++) {
        const CqlGame *g = d->games[i];
        if (!g) continue;
        if (wanted.set && cql_game_number(g) > wanted.max) break;
        CqlGameResult found;
        if (cql_search(searcher, g, &found, &printed)) cql_write_match(searcher, g, &pgn);
        cql_text_clear(&printed);
        if (found.error || found.stopped) {
            /* the query stopped the run, as cql exits 1 */
            if (found.error) cql_text_printf(why, "%s\n", found.error);
            else cql_search_report_stop(searcher, g, &messages);
            stopped = true;
            break;
        }
    }
    if (stopped) {
        cql_text_printf(got, "rc=1");
    } else {
        cql_text_printf(got, "rc=0 ");
        count_like_cql_vectors(str(&pgn), got);
    }
    cql_text_free(&printed);
    cql_text_free(&pgn);
    cql_searcher_free(searcher);
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
    char *tsv = read_all(argv[1]);
    if (!tsv) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    Allowed allowed;
    load_allowed(argv[3], &allowed);

    int passed = 0, failed = 0, unexpected = 0, allowed_failures = 0;
    Dataset d = {0};
    char *loaded = NULL;
    CqlText path = {NULL, 0, 0};
    int lineno = 0;
    char *save = NULL;
    for (char *line = strtok_r(tsv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        if (lineno == 1) continue;   /* column names */
        char *f[7];
        if (split_tabs(line, f, 7) < 6) continue;
        Vector v = {f[0], f[1], f[2], f[3], f[5], lineno};
        if (only && !strstr(v.body, only) && !strstr(v.dataset, only)) continue;
        if (every > 1 && lineno % every != 0) continue;
        if (!loaded || strcmp(loaded, v.dataset) != 0) {
            if (loaded) free_dataset(&d);
            cql_text_clear(&path);
            cql_text_printf(&path, "%s/%s", argv[2], v.dataset);
            if (!load_dataset(str(&path), &d)) {
                fprintf(stderr, "cannot read %s\n", str(&path));
                return 2;
            }
            loaded = v.dataset;
        }
        CqlText want = {NULL, 0, 0}, got = {NULL, 0, 0}, why = {NULL, 0, 0};
        if (strcmp(v.rc, "0") == 0) cql_text_printf(&want, "rc=0 %s", v.matches);
        else cql_text_printf(&want, "rc=1");
        run_vector(&v, &d, str(&path), &got, &why);
        int allow = find_allowed(&allowed, &v);
        if (strcmp(str(&want), str(&got)) == 0) {
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
                       v.header, v.body, str(&want), str(&got));
                if (why.len) printf("  %s", str(&why));
            }
        }
        cql_text_free(&want);
        cql_text_free(&got);
        cql_text_free(&why);
    }
    if (loaded) free_dataset(&d);
    cql_text_free(&path);
    printf("conformance: %d passed, %d failed (%d of them on the allowed list)\n", passed, failed,
           allowed_failures);
    for (int i = 0; i < allowed.count; i++) free(allowed.keys[i]);
    free(allowed.keys);
    free(allowed.used);
    free(tsv);
    return unexpected ? 1 : 0;
}
