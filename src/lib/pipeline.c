/*
 * src/lib/pipeline.c — the engine of a run (see pipeline.h): on one
 * thread, game by game, or on worker threads (pipeline_ring.c); the notes
 * said once every game is read, sorted matches, and the totals. The files
 * it is made of are listed in pipeline_int.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "lib/pipeline_int.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void run_single(Emitter *e)
{
    CqlRun *r = e->run;
    Worker w;
    worker_init(&w, r);
    GameJob job;
    job_init(&job, r->nqueries);
    while (!run_stopped(e)) {
        if (!skip_game(e, &w, &job, true)) {
            int input = job.input;
            long index = job.index;
            if (!read_job(e, &job)) break;
            forget_answers(&job, input, index);
            search_game(&w, &job);
        }
        emit(e, &job);
        end_batch(e);
        job_clear(&job);
    }
    for (int i = 0; i < r->nqueries; i++) cql_searcher_print_persistent(w.searchers[i], &r->queries[i]->persistent);
    worker_report(&w, e->tags);
    job_free(&job);
    worker_free(&w);
}

/* The threads a run asks for: the setting, else one per core; one for a
 * query that must see the games in order (then for all of the run's). */
static long threads_of(const CqlRun *r)
{
    long n = r->settings.singlethreaded ? 1 : (long)r->settings.threads;
    if (n == 0) {
        n = sysconf(_SC_NPROCESSORS_ONLN);
        if (n < 1) n = 1;
    }
    for (int i = 0; i < r->nqueries; i++)
        if (cql_query_in_order(r->queries[i]->query)) n = 1;
    return n;
}

/* Each distinct message kept by keep_message once, in order: the notes
 * that several queries would give alike (a tag filter of the command
 * line's, placed before each of them). */
static void deliver_distinct(CqlText *kept, CqlMessages *m)
{
    CqlText seen = {NULL, 0, 0};
    for (size_t at = 0; at < kept->len;) {
        const char *record = kept->data + at;
        size_t len = strlen(record + 1) + 2;
        bool again = false;
        for (size_t k = 0; k < seen.len && !again; k += strlen(seen.data + k + 1) + 2)
            again = strcmp(seen.data + k, record) == 0;
        if (!again) {
            cql_text_append(&seen, record, len);
            cql_deliver(m, (CqlSeverity)(record[0] - '0'), record + 1);
        }
        at += len;
    }
    cql_text_free(&seen);
    cql_text_clear(kept);
}

void pipeline_run(CqlRun *r)
{
    Emitter e;
    memset(&e, 0, sizeof e);
    e.run = r;
    e.queries = xcalloc((size_t)r->nqueries, sizeof *e.queries);
    e.tags = xcalloc((size_t)r->nqueries, sizeof *e.tags);
    for (int i = 0; i < r->nqueries; i++) {
        e.queries[i].sorting = cql_query_sorts(r->queries[i]->query);
        e.tags[i] = cql_searcher_new(r->queries[i]->query);
    }
    long threads = threads_of(r);
    long ran = threads <= 1 ? 0 : run_threads(&e, threads);
    if (ran == 0) {
        run_single(&e);
        ran = 1;
    }
    move_messages(&e.trailing, &e.carried);
    deliver_messages(&e.trailing, r->messages);
    /* a tag filter that held in no game (its case differs ...): said when
     * every game was read */
    for (int i = 0; i < r->nqueries; i++) {
        if (limit_reached(&e, i) || e.queries[i].runtime_error || cancelled(&e) || query_cancelled(&e, i)) continue;
        CqlMessages notes = {keep_message, &e.trailing, 0, 0};
        cql_searcher_report_unmatched_tags(e.tags[i], &notes);
    }
    deliver_distinct(&e.trailing, r->messages);
    for (int i = 0; i < r->nqueries; i++) {
        cql_searcher_free(e.tags[i]);
        if (e.queries[i].sorting) emit_sorted(&e, i);
    }
    pipeline_close_inputs(r);
    for (int i = 0; i < r->nqueries; i++) {
        RunQuery *rq = r->queries[i];
        rq->totals.threads = ran;
        rq->totals.pgn_read = r->pgn_read;
        rq->totals.cancelled = cancelled(&e) || query_cancelled(&e, i);
        rq->stopped = e.queries[i].runtime_error;
        rq->totals.error = rq->stop_error.len ? rq->stop_error.data : NULL;
        r->stopped |= rq->stopped;
    }
    cql_text_free(&e.trailing);
    cql_text_free(&e.carried);
    free(e.tags);
    free(e.queries);
}
