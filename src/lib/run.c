/*
 * src/lib/run.c — runs in the library face: a run made from compiled
 * queries (one, or several searched in one pass) and the run's settings,
 * its inputs and callbacks, started and cancelled; the engine is pipeline.c
 * (and the files beside it, pipeline_int.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "lib/indexed.h"
#include "lib/lib_int.h"
#include "lib/pipeline.h"

CqlRun *cql_run_new(const CqlQuery *q, const CqlSettings *settings, CqlMessages *m)
{
    lib_init();
    CqlRun *r = xcalloc(1, sizeof *r);
    r->messages = m;
    atomic_init(&r->cancelled, false);
    r->settings = settings ? *lib_settings(settings) : q->search.eval.run;
    cql_run_add_query(r, q);
    return r;
}

void cql_run_free(CqlRun *r)
{
    if (!r) return;
    pipeline_close_inputs(r);
    indexed_close_inputs(r);
    for (int i = 0; i < r->ninputs; i++) {
        free(r->inputs[i].name);
        free(r->inputs[i].path);
    }
    free(r->inputs);
    for (int i = 0; i < r->nqueries; i++) {
        cql_text_free(&r->queries[i]->stop_error);
        cql_text_free(&r->queries[i]->persistent);
        free(r->queries[i]);
    }
    free(r->queries);
    free(r);
}

int cql_run_add_query(CqlRun *r, const CqlQuery *q)
{
    if (r->started) return -1;
    if (r->nqueries == r->queries_cap) {
        r->queries_cap = r->queries_cap ? 2 * r->queries_cap : 4;
        r->queries = xrealloc(r->queries, (size_t)r->queries_cap * sizeof *r->queries);
    }
    RunQuery *rq = xcalloc(1, sizeof *rq);
    rq->query = q;
    atomic_init(&rq->finished, false);
    atomic_init(&rq->cancelled, false);
    r->queries[r->nqueries] = rq;
    return r->nqueries++;
}

int cql_run_query_count(const CqlRun *r)
{
    return r->nqueries;
}

static RunInput *add_input(CqlRun *r, const char *name)
{
    if (r->ninputs == r->inputs_cap) {
        r->inputs_cap = r->inputs_cap ? 2 * r->inputs_cap : 4;
        r->inputs = xrealloc(r->inputs, (size_t)r->inputs_cap * sizeof *r->inputs);
    }
    RunInput *in = &r->inputs[r->ninputs++];
    memset(in, 0, sizeof *in);
    in->name = xstrdup(name);
    return in;
}

void cql_run_add_path(CqlRun *r, const char *path)
{
    add_input(r, strcmp(path, "-") == 0 ? "<stdin>" : path)->path = xstrdup(path);
}

void cql_run_add_stream(CqlRun *r, FILE *fp, const char *name)
{
    add_input(r, name)->stream = fp;
}

void cql_run_add_source(CqlRun *r, const char *name, CqlOpenFn open, CqlCloseFn close, void *ctx)
{
    RunInput *in = add_input(r, name);
    in->open = open;
    in->close = close;
    in->ctx = ctx;
}

void cql_run_add_range(CqlRun *r, const char *path, uint64_t from, uint64_t to)
{
    RunInput *in = add_input(r, path);
    in->path = xstrdup(path);
    in->ranged = true;
    in->from = from;
    in->to = to;
}

void cql_run_on_game(CqlRun *r, CqlRunGameFn fn, void *ctx)
{
    r->on_game = fn;
    r->game_ctx = ctx;
}

void cql_run_on_match(CqlRun *r, CqlRunGameFn fn, void *ctx, bool positions)
{
    r->on_match = fn;
    r->match_ctx = ctx;
    r->match_positions = fn && positions;
}

void cql_run_on_progress(CqlRun *r, CqlRunProgressFn fn, void *ctx)
{
    r->on_progress = fn;
    r->progress_ctx = ctx;
}

void cql_run_on_batch_end(CqlRun *r, CqlRunBatchFn fn, void *ctx)
{
    r->on_batch_end = fn;
    r->batch_ctx = ctx;
}

CqlRunHold *cql_run_hold_batch(CqlRun *r)
{
    return pipeline_hold_batch(r);
}

void cql_run_release(CqlRun *r, CqlRunHold *hold)
{
    pipeline_release(r, hold);
}

/* The inputs' sidecars, then the inputs, once. */
static bool open_run(CqlRun *r)
{
    if (!r->opened && !indexed_open_inputs(r)) {
        r->opened = r->open_failed = true;
        return false;
    }
    return pipeline_open(r);
}

bool cql_run_open(CqlRun *r)
{
    return open_run(r);
}

CqlRunStatus cql_run_start(CqlRun *r)
{
    if (r->started || !open_run(r)) return CQL_RUN_FAILED;   /* a run is started once */
    r->started = true;
    pipeline_run(r);
    return r->stopped ? CQL_RUN_STOPPED : r->read_failed ? CQL_RUN_FAILED : CQL_RUN_DONE;
}

CqlRunStatus cql_run_query_status(const CqlRun *r, int query)
{
    if (query >= 0 && query < r->nqueries && r->queries[query]->stopped) return CQL_RUN_STOPPED;
    return r->read_failed || r->open_failed || !r->started ? CQL_RUN_FAILED : CQL_RUN_DONE;
}

void cql_run_cancel(CqlRun *r)
{
    atomic_store(&r->cancelled, true);
}

void cql_run_cancel_query(CqlRun *r, int query)
{
    if (query >= 0 && query < r->nqueries) atomic_store(&r->queries[query]->cancelled, true);
}

const CqlRunTotals *cql_run_totals(const CqlRun *r)
{
    return &r->queries[0]->totals;
}

const CqlRunTotals *cql_run_query_totals(const CqlRun *r, int query)
{
    return query >= 0 && query < r->nqueries ? &r->queries[query]->totals : NULL;
}

void cql_run_print_persistent(const CqlRun *r, CqlText *out)
{
    cql_run_query_print_persistent(r, 0, out);
}

void cql_run_query_print_persistent(const CqlRun *r, int query, CqlText *out)
{
    const CqlText *p = query >= 0 && query < r->nqueries ? &r->queries[query]->persistent : NULL;
    if (p && p->len) cql_text_append(out, p->data, p->len);
}
