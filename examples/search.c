/*
 * examples/search.c — a search with the cql library (docs/library.md):
 * compile a query file, run it over PGN files on worker threads, write each
 * matching game to standard output in input order, and (-positions) say on
 * standard error where it matched.
 *
 *     cc search.c $(pkg-config --cflags --libs cql) -o search
 *     ./search [-threads N] [-stop N] [-positions] query.cql games.pgn ...
 *
 * -stop N cancels the run from the callback after N matching games. The
 * exit status is cql's: 0 the run finished, 1 the query has an error or
 * stopped the run, 2 a file could not be read.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <cql.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the match callback keeps. */
typedef struct Found {
    long matches;
    long stop;          /* cancel the run after this many (0: never) */
    bool positions;     /* say where each game matched */
} Found;

/* Each matching game, in input order whatever the number of threads. */
static void on_match(void *ctx, CqlRun *run, const CqlRunGame *game)
{
    Found *found = ctx;
    fwrite(game->pgn, 1, game->pgn_len, stdout);
    for (int i = 0; found->positions && i < game->npositions; i++) {
        const CqlPosition *p = &game->positions[i];
        fprintf(stderr, "game %ld (%s #%ld) ply %d: %d%s%s %s%s\n", game->number, game->input, game->index,
                p->ply, p->move_number, p->white_to_move ? "..." : ".", p->san, p->fen,
                p->in_variation ? " (in a variation)" : "");
    }
    if (++found->matches == found->stop) cql_run_cancel(run);   /* enough: the run stops */
}

/* Out of memory: the library calls this instead of going on. */
static void out_of_memory(void *ctx, size_t size)
{
    (void)ctx;
    fprintf(stderr, "search: out of memory (asked for %zu bytes)\n", size);
    exit(2);
}

int main(int argc, char **argv)
{
    cql_set_nomem_handler(out_of_memory, NULL);
    long threads = 0;
    Found found = {0, 0, false};
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "-threads") == 0 && i + 1 < argc) threads = atol(argv[++i]);
        else if (strcmp(argv[i], "-stop") == 0 && i + 1 < argc) found.stop = atol(argv[++i]);
        else if (strcmp(argv[i], "-positions") == 0) found.positions = true;
        else break;
    }
    if (argc - i < 2) {
        fprintf(stderr, "usage: search [-threads N] [-stop N] [-positions] query.cql games.pgn ...\n");
        return 2;
    }
    const char *query_file = argv[i++];

    /* the query: its text, compiled with its settings (an error is
     * reported on standard error as FILE:LINE:COL with a caret) */
    size_t len;
    char *text = cql_read_query_file(query_file, &len, NULL);
    if (!text) return 2;
    CqlSettings *settings = cql_settings_new();
    cql_settings_set_text(settings, "name", query_file);
    cql_settings_set_text(settings, "queryfile", query_file);
    if (threads > 0) cql_settings_set_number(settings, "threads", threads);
    CqlQuery *q = cql_compile(text, len, settings, CQL_COMPILE_RUN, NULL);
    free(text);
    if (!q) {
        cql_settings_free(settings);
        return 1;
    }

    /* the run: its inputs, its callback, then the games */
    CqlRun *run = cql_run_new(q, settings, NULL);
    for (; i < argc; i++) cql_run_add_path(run, argv[i]);
    cql_run_on_match(run, on_match, &found, found.positions);
    CqlRunStatus status = cql_run_start(run);
    const CqlRunTotals *totals = cql_run_totals(run);
    fprintf(stderr, "%ld matches of %ld games using %ld threads\n", totals->matches, totals->games,
            totals->threads);

    cql_run_free(run);
    cql_query_free(q);
    cql_settings_free(settings);
    return status == CQL_RUN_DONE ? 0 : status == CQL_RUN_STOPPED ? 1 : 2;
}
