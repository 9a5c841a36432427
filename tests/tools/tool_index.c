/*
 * tests/tools/tool_index.c — the sidecar index changes no output (issue 33):
 * queries run over PGN files with and without their sidecar give the same
 * games, the same text of every match, the same printed lines, messages
 * and totals, on one thread and on two.
 *
 *   tool_index PGN-DIR WORK-DIR PAIRS [-v]
 *
 * PAIRS: lines DATASET<TAB>HEADER<TAB>BODY (the vectors' first columns),
 * grouped by dataset. Each dataset (PGN-DIR/DATASET) is indexed once into
 * WORK-DIR, then each query runs three times: without the sidecar (the
 * setting noindex, one thread), and with it on one thread and on two; the
 * three runs must hand over the same games and text. Queries run with
 * WORK-DIR as the current directory (writefile writes there). It prints
 * "N queries, R runs identical; G games ruled out, C searched from codes"
 * and the first differences; the exit status is 1 on any difference, or
 * when the sidecar settled no game at all (the test would prove nothing).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _XOPEN_SOURCE 700   /* realpath */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cql.h"
#include "support.h"

/* Everything a run hands over, as one text. */
typedef struct Record {
    CqlText text;
} Record;

static void on_game(void *ctx, CqlRun *run, const CqlRunGame *g)
{
    (void)run;
    Record *r = ctx;
    cql_text_printf(&r->text, "game %ld %s %ld examined=%d damaged=%d matched=%d\n", g->number, g->input, g->index,
                    g->examined, g->damaged, g->matched);
    if (g->printed) cql_text_append(&r->text, g->printed, g->printed_len);
    if (g->error) cql_text_printf(&r->text, "error: %s\n", g->error);
}

static void on_match(void *ctx, CqlRun *run, const CqlRunGame *g)
{
    (void)run;
    Record *r = ctx;
    cql_text_printf(&r->text, "match %ld\n", g->number);
    cql_text_append(&r->text, g->pgn, g->pgn_len);
    for (int i = 0; i < g->npositions; i++)
        cql_text_printf(&r->text, "position %d %d %s %s\n", g->positions[i].id, g->positions[i].ply,
                        g->positions[i].san, g->positions[i].fen);
}

/* Runs q over path; appends all it handed over to out. */
static void run_once(const CqlQuery *q, const char *path, const char *sidecar, int threads, CqlText *out,
                     long *ruled_out, long *from_codes, long *in_place)
{
    Record r = {{NULL, 0, 0}};
    CqlMessages messages = {tool_capture, &r.text, 0, 0};
    CqlSettings *s = tool_must(cql_settings_new());
    cql_settings_set_number(s, "threads", threads);
    if (sidecar) cql_settings_set_text(s, "indexfile", sidecar);
    else cql_settings_set_flag(s, "noindex", true);
    CqlRun *run = tool_must(cql_run_new(q, s, &messages));
    cql_run_add_path(run, path);
    cql_run_on_game(run, on_game, &r);
    cql_run_on_match(run, on_match, &r, true);
    CqlRunStatus st = cql_run_start(run);
    const CqlRunTotals *t = cql_run_totals(run);
    cql_text_printf(&r.text, "status %d games %ld matches %ld pgn_errors %ld stopped_at %ld error %s\n", (int)st,
                    t->games, t->matches, t->pgn_errors, t->stopped_at, t->error ? t->error : "-");
    cql_run_print_persistent(run, &r.text);   /* a query that keeps values runs on one thread */
    *ruled_out += t->ruled_out;
    *from_codes += t->from_codes;
    *in_place += t->in_place;
    cql_run_free(run);
    cql_settings_free(s);
    cql_text_append(out, tool_str(&r.text), r.text.len);
    cql_text_free(&r.text);
}

static bool write_file(void *ctx, const void *data, size_t len)
{
    return fwrite(data, 1, len, ctx) == len;
}

/* Indexes path into sidecar; false after saying why. */
static bool make_sidecar(const char *path, const char *sidecar)
{
    FILE *fp = fopen(sidecar, "wb");
    if (!fp) return false;
    bool ok = cql_index_build(path, write_file, fp, NULL, NULL, NULL, NULL);
    return fclose(fp) == 0 && ok;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: tool_index PGN-DIR WORK-DIR PAIRS [-v]\n");
        return 2;
    }
    bool verbose = argc > 4 && strcmp(argv[4], "-v") == 0;
    char dir[PATH_MAX];
    if (!realpath(argv[1], dir)) {
        fprintf(stderr, "tool_index: no directory %s\n", argv[1]);
        return 2;
    }
    char *pairs = tool_read_all(argv[3]);
    if (!pairs || chdir(argv[2]) != 0) {
        fprintf(stderr, "tool_index: cannot read %s or enter %s\n", argv[3], argv[2]);
        return 2;
    }
    long queries = 0, runs = 0, differ = 0, ruled_out = 0, from_codes = 0, in_place = 0;
    char *loaded = NULL, path[PATH_MAX + 256];
    const char *sidecar = "identity.cqlx";
    char *save = NULL;
    for (char *line = strtok_r(pairs, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f[3];
        if (tool_split_tabs(line, f, 3) < 3) continue;
        if (!loaded || strcmp(loaded, f[0]) != 0) {
            snprintf(path, sizeof path, "%s/%s", dir, f[0]);
            if (!make_sidecar(path, sidecar)) {
                fprintf(stderr, "tool_index: cannot index %s\n", path);
                return 2;
            }
            loaded = f[0];
        }
        CqlText text = {NULL, 0, 0};
        cql_text_printf(&text, "cql(%s)\n%s\n", f[1], f[2]);
        CqlSettings *settings = tool_settings("identity.cql", false);
        cql_settings_set_text(settings, "matchstring", TOOL_MATCHSTRING);
        CqlMessages quiet = {tool_discard, NULL, 0, 0};
        CqlQuery *q = cql_compile(text.data, text.len, settings, CQL_COMPILE_RUN, &quiet);
        cql_settings_free(settings);
        cql_text_free(&text);
        if (!q) continue;
        if (cql_query_needs_game_count(q)) cql_query_set_game_count(q, tool_count_white_tags(path));
        if (cql_query_reads_files(q)) {
            CqlText printed = {NULL, 0, 0};
            bool read = cql_query_read_files(q, &printed, &quiet);
            cql_text_free(&printed);
            if (!read) {
                cql_query_free(q);
                continue;
            }
        }
        queries++;
        CqlText without = {NULL, 0, 0};
        run_once(q, path, NULL, 1, &without, &ruled_out, &from_codes, &in_place);
        for (int threads = 1; threads <= 2; threads++) {
            CqlText with = {NULL, 0, 0};
            run_once(q, path, sidecar, threads, &with, &ruled_out, &from_codes, &in_place);
            runs++;
            bool same = with.len == without.len && memcmp(tool_str(&with), tool_str(&without), with.len) == 0;
            if (!same && differ++ < 10) {
                printf("DIFFERS with the sidecar (%d thread%s): %s\t%s\t%s\n", threads, threads == 1 ? "" : "s",
                       f[0], f[1], f[2]);
                if (verbose) printf("--- without:\n%s--- with:\n%s", tool_str(&without), tool_str(&with));
            }
            cql_text_free(&with);
        }
        cql_text_free(&without);
        cql_query_free(q);
    }
    unlink(sidecar);
    free(pairs);
    printf("index identity: %ld queries, %ld runs with the sidecar, %ld differ; %ld games ruled out, "
           "%ld searched from codes (%ld of them in place, no tree)\n", queries, runs, differ, ruled_out, from_codes,
           in_place);
    if (differ == 0 && ruled_out + from_codes == 0) {
        printf("index identity: the sidecar settled no game: nothing was tested\n");
        return 1;
    }
    return differ ? 1 : 0;
}
