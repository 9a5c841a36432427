/*
 * tests/tool_cql1.c — runs the CQL 1.0 pairs of tests/cql1/pairs.tsv.
 *
 *   tool_cql1 PAIRS.tsv PAIR-DIR PGN-DIR VECTORS.tsv [--only NAME]
 *
 * Each pair is a CQL 1.0 file PAIR-DIR/NAME.cql and its CQL 6 twin
 * PAIR-DIR/NAME.cql6, with the PGN files (under PGN-DIR) to run them on and
 * what to compare. For each PGN file, the CQL 1.0 file, its twin and the
 * CQL 6 text that `cql -translate` prints are searched exactly as
 * `cql -matchstring ZZMATCH -i DATASET QUERY` does (as tool_conformance
 * does: one process, each PGN file read once), and must give the same
 * matches "G:P ..." (game G, P marked positions); with `games` in the
 * compare column only the game numbers must agree. The translation must also
 * compile to the same syntax tree as the CQL 1.0 file. When the twin is
 * `cql(HEADER)` and one line of BODY and a CQL 6.2 vector exists for that
 * header, body and PGN file, the twin must give the vector's answer. Across
 * its PGN files a pair must match some game and miss some game, so that it
 * can fail, unless the compare column ends in `-any`.
 *
 * Prints each failure and "cql1 pairs: ..."; exits 1 on any failure.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cql.h"
#include "support.h"


static char *dup_string(const char *s)
{
    return strcpy(tool_must(malloc(strlen(s) + 1)), s);
}

/* {==== games ================================================================== */

/* The matches of q on d as cql gives them, or "stopped" when the query stops
 * the run (cql exits 1 there). */
static void search_all(const CqlQuery *q, const ToolDataset *d, CqlText *got)
{
    CqlText why = {NULL, 0, 0};
    if (!tool_search_dataset(q, d, got, &why)) cql_text_printf(got, "stopped");
    cql_text_free(&why);
}

/* }==== */
/* {==== pairs =================================================================== */

typedef struct Pair {
    char *name, *datasets, *compare;
    CqlQuery *cql1, *twin, *translation;
    char *twin_header, *twin_body;     /* when the twin is one header line and one body line */
    bool some_match, some_miss, failed;
} Pair;

static CqlQuery *compile_text(const char *name, const char *text, CqlText *why)
{
    CqlMessages messages = {tool_capture, why, 0, 0};
    CqlSettings *settings = tool_settings(name, false);
    cql_settings_set_text(settings, "matchstring", TOOL_MATCHSTRING);
    CqlQuery *q = cql_compile(text, strlen(text), settings, CQL_COMPILE_RUN, &messages);
    cql_settings_free(settings);
    return q;
}

static CqlQuery *compile_file(const char *path, CqlText *why)
{
    char *text = tool_read_all(path);
    if (!text) {
        cql_text_printf(why, "cannot read %s\n", path);
        return NULL;
    }
    CqlQuery *q = compile_text(path, text, why);
    free(text);
    return q;
}

/* The twin's header and body when it is `cql(HEADER)\nBODY\n`. */
static void twin_parts(const char *path, Pair *p)
{
    char *text = tool_read_all(path);
    if (!text) return;
    char *nl = strchr(text, '\n');
    if (nl && strncmp(text, "cql(", 4) == 0 && nl > text + 4 && nl[-1] == ')') {
        char *body = nl + 1, *end = strchr(body, '\n');
        if (end && end[1] == '\0') {
            nl[-1] = '\0';
            p->twin_header = dup_string(text + 4);
            *end = '\0';
            p->twin_body = dup_string(body);
        }
    }
    free(text);
}

#if defined(__GNUC__)
static void fail(Pair *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif

static void fail(Pair *p, const char *fmt, ...)
{
    p->failed = true;
    printf("cql1: %s: ", p->name);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* Game numbers only: "3:2 5:1" -> "3 5". */
static void games_of(const char *matches, CqlText *out)
{
    for (const char *s = matches; *s;) {
        const char *colon = strchr(s, ':');
        if (!colon) break;
        if (out->len) cql_text_append(out, " ", 1);
        cql_text_append(out, s, (size_t)(colon - s));
        const char *space = strchr(colon, ' ');
        s = space ? space + 1 : colon + strlen(colon);
    }
}

static int count_words(const char *s)
{
    int n = 0;
    bool in = false;
    for (; *s; s++) {
        if (*s != ' ' && !in) n++;
        in = *s != ' ';
    }
    return n;
}

/* }==== */

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: tool_cql1 PAIRS.tsv PAIR-DIR PGN-DIR VECTORS.tsv [--only NAME]\n");
        return 2;
    }
    const char *only = argc > 6 && strcmp(argv[5], "--only") == 0 ? argv[6] : NULL;
    char *tsv = tool_read_all(argv[1]), *vectors = tool_read_all(argv[4]);
    if (!tsv || !vectors) {
        fprintf(stderr, "cannot read %s or %s\n", argv[1], argv[4]);
        return 2;
    }

    /* the pairs, compiled */
    Pair *pairs = NULL;
    int npairs = 0, cap = 0;
    char *save = NULL;
    for (char *line = strtok_r(tsv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || !line[0]) continue;
        char *f[3];
        if (tool_split_tabs(line, f, 3) < 3) continue;
        if (only && strcmp(only, f[0]) != 0) continue;
        if (npairs == cap) {
            cap = cap ? 2 * cap : 64;
            pairs = tool_must(realloc(pairs, (size_t)cap * sizeof *pairs));
        }
        Pair *p = &pairs[npairs++];
        memset(p, 0, sizeof *p);
        p->name = f[0];
        p->datasets = f[1];
        p->compare = f[2];
        CqlText path = {NULL, 0, 0}, why = {NULL, 0, 0};
        cql_text_printf(&path, "%s/%s.cql", argv[2], p->name);
        p->cql1 = compile_file(tool_str(&path), &why);
        char *text = tool_read_all(tool_str(&path));
        CqlMessages messages = {tool_capture, &why, 0, 0};
        char *translated = text ? cql_translate_cql1(text, strlen(text), tool_str(&path), &messages) : NULL;
        if (translated) p->translation = compile_text("translation", translated, &why);
        free(translated);
        free(text);
        cql_text_clear(&path);
        cql_text_printf(&path, "%s/%s.cql6", argv[2], p->name);
        p->twin = compile_file(tool_str(&path), &why);
        twin_parts(tool_str(&path), p);
        if (!p->cql1 || !p->twin || !p->translation) {
            p->failed = true;
            printf("cql1: %s: does not compile:\n%s", p->name, tool_str(&why));
        } else if (!cql_query_equal(p->cql1, p->translation)) {
            fail(p, "the translation does not compile to the syntax tree of the CQL 1.0 file");
        }
        cql_text_free(&path);
        cql_text_free(&why);
    }

    /* each PGN file once, with every pair that uses it */
    int vector_checks = 0;
    char **seen = NULL;
    int nseen = 0;
    for (int i = 0; i < npairs; i++) {
        char *list = dup_string(pairs[i].datasets);
        for (char *ds = strtok(list, " "); ds; ds = strtok(NULL, " ")) {
            bool done = false;
            for (int k = 0; k < nseen && !done; k++) done = strcmp(seen[k], ds) == 0;
            if (done) continue;
            seen = tool_must(realloc(seen, (size_t)(nseen + 1) * sizeof *seen));
            seen[nseen++] = dup_string(ds);
            CqlText path = {NULL, 0, 0};
            cql_text_printf(&path, "%s/%s", argv[3], ds);
            ToolDataset d;
            if (!tool_load_dataset(tool_str(&path), &d)) {
                fprintf(stderr, "cannot read %s\n", tool_str(&path));
                return 2;
            }
            cql_text_free(&path);
            for (int j = i; j < npairs; j++) {
                Pair *p = &pairs[j];
                if (!p->cql1 || !p->twin || !p->translation) continue;
                /* does pair j use ds? */
                bool uses = false;
                char *mine = dup_string(p->datasets), *sv = NULL;
                for (char *x = strtok_r(mine, " ", &sv); x && !uses; x = strtok_r(NULL, " ", &sv)) uses = strcmp(x,
                     ds) == 0;
                free(mine);
                if (!uses) continue;
                CqlText a = {NULL, 0, 0}, b = {NULL, 0, 0}, c = {NULL, 0, 0}, ga = {NULL, 0, 0}, gb = {NULL, 0, 0};
                search_all(p->cql1, &d, &a);
                search_all(p->twin, &d, &b);
                search_all(p->translation, &d, &c);
                bool games_only = strncmp(p->compare, "games", 5) == 0;
                games_of(tool_str(&a), &ga);
                games_of(tool_str(&b), &gb);
                CqlText where = {NULL, 0, 0};
                cql_text_printf(&where, "on %s", ds);
                if (games_only ? strcmp(tool_str(&ga), tool_str(&gb)) != 0 : strcmp(tool_str(&a), tool_str(&b)) != 0) {
                    fail(p, "%s: the CQL 1.0 file and its twin differ\n  cql1: %.200s", tool_str(&where), tool_str(&a));
                    printf("  twin: %.200s\n", tool_str(&b));
                }
                if (strcmp(tool_str(&a), tool_str(&c)) != 0) {
                    fail(p, "%s: the translation differs\n  cql1:        %.200s", tool_str(&where), tool_str(&a));
                    printf("  translation: %.200s\n", tool_str(&c));
                }
                if (p->twin_body) {
                    CqlText key = {NULL, 0, 0};
                    cql_text_printf(&key, "\n%s\t%s\t%s\t0\t", ds, p->twin_header, p->twin_body);
                    const char *at = strstr(vectors, tool_str(&key));
                    if (at) {
                        vector_checks++;
                        const char *games = at + key.len;            /* games column, then matches */
                        const char *tab = strchr(games, '\t');
                        const char *end = tab ? strpbrk(tab + 1, "\t\n") : NULL;
                        if (tab && end) {
                            CqlText want = {NULL, 0, 0};
                            cql_text_append(&want, tab + 1, (size_t)(end - tab - 1));
                            if (strcmp(tool_str(&want), tool_str(&b)) != 0) {
                                fail(p, "%s: the twin differs from the CQL 6.2 vector\n  twin:   %.200s",
                                     tool_str(&where),
                                     tool_str(&b));
                                printf("  vector: %.200s\n", tool_str(&want));
                            }
                            cql_text_free(&want);
                        }
                    }
                    cql_text_free(&key);
                }
                if (a.len) p->some_match = true;
                if (count_words(tool_str(&a)) < d.count) p->some_miss = true;
                cql_text_free(&a);
                cql_text_free(&b);
                cql_text_free(&c);
                cql_text_free(&ga);
                cql_text_free(&gb);
                cql_text_free(&where);
            }
            tool_free_dataset(&d);
        }
        free(list);
    }

    int failed = 0;
    for (int i = 0; i < npairs; i++) {
        Pair *p = &pairs[i];
        size_t n = strlen(p->compare);
        bool any = n >= 4 && strcmp(p->compare + n - 4, "-any") == 0;
        if (!p->failed && !any && (!p->some_match || !p->some_miss))
            fail(p, "matches every game of its PGN files or none: it cannot fail");
        if (p->failed) failed++;
        cql_query_free(p->cql1);
        cql_query_free(p->twin);
        cql_query_free(p->translation);
        free(p->twin_header);
        free(p->twin_body);
    }
    printf("cql1 pairs: %d pairs, %d of their twins' answers checked against CQL 6.2 vectors; %d failed\n", npairs,
           vector_checks, failed);
    for (int k = 0; k < nseen; k++) free(seen[k]);
    free(seen);
    free(pairs);
    free(tsv);
    free(vectors);
    return failed ? 1 : 0;
}
