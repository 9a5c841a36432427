/*
 * src/lib/pipeline_game.c — one game of a run: its job (what searching it
 * with each query left, kept until it is handed over; texts only for the
 * queries that left some), a worker's searchers (one per query, the search
 * arena they share, and the gate that reads the game once for all of
 * them), the sidecar asked about the game before it is parsed, and the
 * search itself. Used on the calling thread and on worker threads alike.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "lib/pipeline_int.h"

#include <stdlib.h>
#include <string.h>

void keep_message(void *ctx, CqlSeverity sev, const char *text)
{
    char severity = (char)('0' + sev);
    cql_text_append(ctx, &severity, 1);
    cql_text_append(ctx, text, strlen(text) + 1);
}

void move_messages(CqlText *to, CqlText *from)
{
    if (from->len) cql_text_append(to, from->data, from->len);
    cql_text_clear(from);
}

/* Is game `number` inside the query's game-number range (or is there none)? */
static bool in_gamenumber_range(CqlRange wanted, long number)
{
    return !wanted.set || (number >= wanted.min && number <= wanted.max);
}

void deliver_messages(CqlText *kept, CqlMessages *m)
{
    for (size_t at = 0; at < kept->len;) {
        const char *text = kept->data + at + 1;
        cql_deliver(m, (CqlSeverity)(kept->data[at] - '0'), text);
        at += strlen(text) + 2;
    }
    cql_text_clear(kept);
}

void worker_init(Worker *w, const CqlRun *r)
{
    memset(w, 0, sizeof *w);
    w->run = r;
    w->searchers = xcalloc((size_t)r->nqueries, sizeof *w->searchers);
    lib_shared_arena_init(&w->arena, r->nqueries);
    for (int i = 0; i < r->nqueries; i++) {
        w->searchers[i] = cql_searcher_new(r->queries[i]->query);
        lib_searcher_share_arena(w->searchers[i], &w->arena);
    }
    lib_gate_init(&w->gate, w->searchers, r->nqueries);
    w->active = xcalloc((size_t)r->nqueries, sizeof *w->active);
    w->game = cql_game_new();
}

void worker_report(const Worker *w, CqlSearcher **tags)
{
    for (int i = 0; i < w->run->nqueries; i++) {
        cql_searcher_merge_tags(tags[i], w->searchers[i]);
        w->run->queries[i]->conditions_asked += w->searchers[i]->conditions_asked;
    }
}

void worker_free(Worker *w)
{
    for (int i = 0; i < w->run->nqueries; i++) cql_searcher_free(w->searchers[i]);
    free(w->searchers);
    lib_shared_arena_free(&w->arena);
    free(w->active);
    cql_text_free(&w->printed);
    cql_game_free(w->game);
}

static void free_texts(QueryTexts *t)
{
    cql_text_free(&t->out);
    cql_text_free(&t->printed);
    cql_text_free(&t->error);
    cql_text_free(&t->stop);
    cql_text_free(&t->positions);
    cql_text_free(&t->tags);
    cql_text_free(&t->strings);
    cql_text_free(&t->sort_key);
    free(t);
}

void job_init(GameJob *job, int nqueries)
{
    memset(job, 0, sizeof *job);
    job->text = cql_game_text_new();
    job->queries = xcalloc((size_t)nqueries, sizeof *job->queries);
    job->nqueries = nqueries;
}

void job_free(GameJob *job)
{
    cql_game_text_free(job->text);
    cql_text_free(&job->messages);
    for (int i = 0; i < job->texts_made; i++) free_texts(job->texts[i]);
    free(job->texts);
    free(job->queries);
}

/* The texts of query job q of `job`, made empty when it has none. */
static QueryTexts *job_texts(GameJob *job, QueryJob *q)
{
    if (q->texts) return q->texts;
    if (job->ntexts == job->texts_made) {
        if (job->texts_made == job->texts_cap) {
            job->texts_cap = job->texts_cap ? 2 * job->texts_cap : 4;
            job->texts = xrealloc(job->texts, (size_t)job->texts_cap * sizeof *job->texts);
        }
        job->texts[job->texts_made++] = xcalloc(1, sizeof(QueryTexts));
    }
    return q->texts = job->texts[job->ntexts++];
}

/* Moves what a search printed into *printed (the worker's) to query job
 * q's texts. */
static void keep_printed(GameJob *job, QueryJob *q, CqlText *printed)
{
    if (!printed->len) return;
    QueryTexts *t = job_texts(job, q);
    if (t->printed.len) {
        cql_text_append(&t->printed, printed->data, printed->len);
        cql_text_clear(printed);
        return;
    }
    CqlText empty = t->printed;
    t->printed = *printed;
    *printed = empty;
}

/* Searches the game with query i, whose searcher is set for it. */
static void search_with(Worker *w, GameJob *job, int i)
{
    CqlSearcher *s = w->searchers[i];
    QueryJob *q = &job->queries[i];
    CqlGameResult found;
    q->matched = cql_search(s, w->game, &found, &w->printed);
    keep_printed(job, q, &w->printed);
    if (found.error) cql_text_printf(&job_texts(job, q)->error, "%s\n", found.error);
    if (found.stopped) {
        q->stopped = true;
        CqlMessages messages = {keep_message, &job_texts(job, q)->stop, 0, 0};
        cql_search_report_stop(s, w->game, &messages);
    }
    if (q->matched) {
        QueryTexts *t = job_texts(job, q);
        cql_text_clear(&t->sort_key);
        if (found.sort_key_len) cql_text_append(&t->sort_key, found.sort_key, found.sort_key_len);
        if (w->run->match_positions) {   /* before the start's comment is joined to the game number's */
            lib_matched_positions(s, w->game, &t->positions, &t->strings);
            lib_match_tags(s, w->game, &t->tags, &t->strings);
        }
        cql_write_match(s, w->game, &t->out);
    }
}

/* Does query i search game `number` (its game-number range, and it still
 * wants games)? */
static bool searches_game(const CqlRun *r, int i, long number)
{
    const RunQuery *rq = r->queries[i];
    return in_gamenumber_range(cql_query_gamenumber(rq->query), number) &&
           !atomic_load_explicit(&rq->finished, memory_order_relaxed) &&
           !atomic_load_explicit(&rq->cancelled, memory_order_relaxed);
}

bool ask_sidecar(Worker *w, GameJob *job, long number, const CqlGameText *t, const SidecarGame *head)
{
    const CqlRun *r = w->run;
    const RunInput *in = &r->inputs[job->input];
    bool all = true;
    for (int i = 0; i < r->nqueries; i++) {
        const RunQuery *rq = r->queries[i];
        QueryJob *q = &job->queries[i];
        q->examined = in_gamenumber_range(cql_query_gamenumber(rq->query), number);
        w->active[i] = searches_game(r, i, number);
        q->indexed = w->active[i] && in->index ? indexed_search(rq->indexed, in, job->index, number, t, head,
                                                                q->answer, w->searchers[i], w->game, &w->printed)
                                               : INDEXED_TEXT;
        keep_printed(job, q, &w->printed);
        w->active[i] &= q->indexed == INDEXED_TEXT;
        all &= !w->active[i];
    }
    job->asked = true;
    return all;
}

bool ruled_out_for_all(Worker *w, GameJob *job, long number, const SidecarGame *head)
{
    const CqlRun *r = w->run;
    const RunInput *in = &r->inputs[job->input];
    for (int i = 0; i < r->nqueries; i++) job->queries[i].answer = INDEXED_UNASKED;
    for (int i = 0; i < r->nqueries; i++) {
        if (!searches_game(r, i, number)) continue;
        QueryJob *q = &job->queries[i];
        q->answer = indexed_ask(r->queries[i]->indexed, in, job->index, number, head, w->searchers[i], w->game);
        if (q->answer != INDEXED_EXCLUDED) return false;
    }
    for (int i = 0; i < r->nqueries; i++) {
        QueryJob *q = &job->queries[i];
        q->examined = in_gamenumber_range(cql_query_gamenumber(r->queries[i]->query), number);
        bool searched = searches_game(r, i, number);
        q->indexed = searched ? INDEXED_RULED_OUT : INDEXED_TEXT;
        if (searched) indexed_watch_ruled_out(in, job->index, number, head, w->searchers[i], w->game);
    }
    job->asked = true;
    return true;
}

void forget_answers(GameJob *job, int input, long index)
{
    if (job->input == input && job->index == index) return;
    for (int i = 0; i < job->nqueries; i++) {
        QueryJob *q = &job->queries[i];
        if (q->texts) cql_text_clear(&q->texts->printed);
        q->indexed = INDEXED_TEXT;
        q->answer = INDEXED_UNASKED;
    }
    job->asked = false;
}

void search_game(Worker *w, GameJob *job)
{
    const CqlRun *r = w->run;
    const RunInput *in = &r->inputs[job->input];
    if (!job->asked) ask_sidecar(w, job, cql_game_text_number(job->text), job->text, NULL);
    bool any = false;
    for (int i = 0; i < r->nqueries; i++) any |= w->active[i];
    if (!any) return;
    CqlMessages messages = {keep_message, &job->messages, 0, 0};
    CqlGameStatus st = lib_parse_for(w->game, job->text, in->name, &messages, &w->gate, w->active);
    job->pgn_error = st != CQL_GAME_OK;
    if (st == CQL_GAME_UNUSABLE) return;
    for (int i = 0; i < r->nqueries; i++)
        if (w->active[i]) search_with(w, job, i);
}

/* A slot keeps its buffers for the next game, but not after a large game:
 * else every one of the ring's slots would in time hold buffers the size of
 * the largest game read, and memory would grow with the length of the input
 * (`check` on 2 threads over the shared PGN files repeated: 9, 19 and 43 MB
 * peak at 10k, 100k and 1M games; 9, 17 and 20 MB with a 16 KB limit). At
 * 4 KB (most games are 1-3 KB) the few hundred games of the ring hold at
 * most a few MB. */
enum { SLOT_KEEP_BYTES = 4 * 1024 };

/* And it keeps the texts of at most this many queries: a run of many
 * queries that each match often would else keep, in each of the ring's
 * few hundred jobs, texts for every query that ever matched one of its
 * games (2,000 queries over the 2,000 engine games, about 100 matching
 * each game: some 170 MB on 2 threads). */
enum { JOB_KEEP_TEXTS = 8 };

static void release_large_buffers(GameJob *job)
{
    if (cql_game_text_size(job->text) > SLOT_KEEP_BYTES) {
        cql_game_text_free(job->text);
        job->text = cql_game_text_new();
    }
    for (int i = 0; i < job->texts_made; i++) {
        QueryTexts *t = job->texts[i];
        if (t->out.cap > SLOT_KEEP_BYTES) cql_text_free(&t->out);
        if (t->strings.cap > SLOT_KEEP_BYTES) cql_text_free(&t->strings);
        if (t->positions.cap > SLOT_KEEP_BYTES) cql_text_free(&t->positions);
        if (t->tags.cap > SLOT_KEEP_BYTES) cql_text_free(&t->tags);
    }
    for (; job->texts_made > JOB_KEEP_TEXTS && job->texts_made > job->ntexts; job->texts_made--)
        free_texts(job->texts[job->texts_made - 1]);
}

void job_clear(GameJob *job)
{
    cql_text_clear(&job->messages);
    job->pgn_error = job->asked = false;
    for (int i = 0; i < job->ntexts; i++) {
        QueryTexts *t = job->texts[i];
        cql_text_clear(&t->printed);
        cql_text_clear(&t->error);
        cql_text_clear(&t->stop);
        cql_text_clear(&t->out);
        cql_text_clear(&t->positions);
        cql_text_clear(&t->tags);
        cql_text_clear(&t->strings);
    }
    job->ntexts = 0;
    for (int i = 0; i < job->nqueries; i++) {
        QueryJob *q = &job->queries[i];
        q->texts = NULL;
        q->examined = q->matched = q->stopped = false;
        q->indexed = INDEXED_TEXT;
        q->answer = INDEXED_UNASKED;
    }
    release_large_buffers(job);
}
