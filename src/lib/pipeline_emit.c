/*
 * src/lib/pipeline_emit.c — the emitting side of a run: games handed to
 * the caller's callbacks in input order (emit, emit_slot), each query's
 * totals, limit, runtime error and game-number range, the matches kept for
 * sorting and handed over at the end, and the batch the caller may hold
 * (cql_run_hold_batch). Runs on the calling thread only.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "lib/pipeline_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

bool cancelled(const Emitter *e)
{
    return atomic_load_explicit(&e->run->cancelled, memory_order_relaxed);
}

bool query_cancelled(const Emitter *e, int i)
{
    return atomic_load_explicit(&e->run->queries[i]->cancelled, memory_order_relaxed);
}

bool limit_reached(const Emitter *e, int i)
{
    return e->run->settings.limit > 0 && e->run->queries[i]->totals.matches >= e->run->settings.limit;
}

/* True once the games still to come are as if never read for query i:
 * after its limit, its runtime error, its game-number range or a cancel. */
static bool query_done(const Emitter *e, int i)
{
    return atomic_load_explicit(&e->run->queries[i]->finished, memory_order_relaxed) || query_cancelled(e, i) ||
           cancelled(e);
}

/* Query i wants no more games: the workers stop searching for it. */
static void finish_query(Emitter *e, int i)
{
    atomic_store_explicit(&e->run->queries[i]->finished, true, memory_order_relaxed);
}

bool run_stopped(const Emitter *e)
{
    for (int i = 0; i < e->run->nqueries; i++)
        if (!query_done(e, i)) return false;
    return true;
}

long last_game_wanted(const Emitter *e)
{
    long last = 0;
    for (int i = 0; i < e->run->nqueries; i++) {
        if (query_done(e, i)) continue;
        CqlRange wanted = cql_query_gamenumber(e->run->queries[i]->query);
        if (!wanted.set) return LONG_MAX;
        if (wanted.max > last) last = wanted.max;
    }
    return last;
}

/* The positions and tags kept with a game (lib_matched_positions,
 * lib_match_tags), their texts made pointers into *strings. */
static const CqlPosition *positions_of(CqlText *positions, const CqlText *strings, int *count)
{
    CqlPosition *p = (CqlPosition *)positions->data;
    *count = (int)(positions->len / sizeof *p);
    for (int i = 0; i < *count; i++) {
        p[i].san = lib_text_pointer(p[i].san, strings);
        p[i].fen = lib_text_pointer(p[i].fen, strings);
        p[i].variation = lib_text_pointer(p[i].variation, strings);
        p[i].comments = lib_text_pointer(p[i].comments, strings);
    }
    return p;
}

static const CqlTag *tags_of(CqlText *tags, const CqlText *strings, int *count)
{
    CqlTag *t = (CqlTag *)tags->data;
    *count = (int)(tags->len / sizeof *t);
    for (int i = 0; i < *count; i++) {
        t[i].name = lib_text_pointer(t[i].name, strings);
        t[i].value = lib_text_pointer(t[i].value, strings);
    }
    return t;
}

/* The texts of a matching game: its PGN, and its positions, tags and
 * their texts when asked for. */
typedef struct MatchTexts {
    CqlText *pgn, *positions, *tags, *strings;
} MatchTexts;

static void hand_over_match(Emitter *e, int query, long number, int input, long index, MatchTexts texts)
{
    CqlRun *r = e->run;
    CqlRunGame g = {.number = number, .input = r->inputs[input].name, .index = index, .examined = true,
                    .matched = true, .pgn = texts.pgn->data, .pgn_len = texts.pgn->len, .query = query};
    if (r->match_positions) {
        g.positions = positions_of(texts.positions, texts.strings, &g.npositions);
        g.tags = tags_of(texts.tags, texts.strings, &g.ntags);
    }
    r->on_match(r->match_ctx, r, &g);
}

void end_batch(Emitter *e)
{
    CqlRun *r = e->run;
    if (r->on_batch_end) r->on_batch_end(r->batch_ctx, r);
}

/* A text kept until the end of the run (a match kept for sorting) gives
 * back the room it does not use: the writer doubles a game's buffer as it
 * grows, and a job's buffer comes with the room a longer game left (up to
 * SLOT_KEEP_BYTES), so that the PGN of a match kept held 2.3 times its
 * length (2,000 queries over the 2,000 engine games, 200 of them sorting:
 * 188 MB for 82 MB of matches, the most of the run's peak). */
static void fit_kept(CqlText *t)
{
    if (!t->data || t->cap <= t->len + 1) return;
    char *fit = xmalloc(t->len + 1);   /* with its NUL, as a StrBuf keeps it */
    memcpy(fit, t->data, t->len + 1);
    free(t->data);
    t->data = fit;
    t->cap = t->len + 1;
}

/* Hands game `number` over for query i, which still wants games. */
static void emit_query(Emitter *e, int i, GameJob *job, long number)
{
    CqlRun *r = e->run;
    RunQuery *rq = r->queries[i];
    QueryState *qs = &e->queries[i];
    QueryJob *q = &job->queries[i];
    QueryTexts *t = q->texts;   /* NULL: none (a match has them) */
    rq->totals.games++;
    rq->totals.bytes += job->text_bytes;
    if (q->stopped) qs->runtime_error = true;
    if (t) deliver_messages(&t->stop, r->messages);
    if (t && t->error.len) {
        /* CQL 6.2 prints a runtime error where `message` prints, and stops */
        qs->runtime_error = true;
        q->matched = false;
        cql_text_append(&rq->stop_error, t->error.data, t->error.len);
    }
    if (qs->runtime_error) {
        rq->totals.stopped_at = number;
        finish_query(e, i);
    }
    bool damaged = q->examined && q->indexed == INDEXED_TEXT && job->pgn_error;   /* read for this query */
    if (damaged) rq->totals.pgn_errors++;
    rq->totals.ruled_out += q->indexed == INDEXED_RULED_OUT;
    rq->totals.from_codes += q->indexed == INDEXED_FROM_CODES || q->indexed == INDEXED_IN_PLACE;
    rq->totals.in_place += q->indexed == INDEXED_IN_PLACE;
    if (q->matched) {
        rq->totals.matches++;
        e->progress.matches++;
    }
    if (r->on_game) {
        CqlRunGame g = {.number = number, .input = r->inputs[job->input].name, .index = job->index,
                        .examined = q->examined, .damaged = damaged, .matched = q->matched,
                        .printed = t && t->printed.len ? t->printed.data : NULL,
                        .printed_len = t ? t->printed.len : 0, .error = t && t->error.len ? t->error.data : NULL,
                        .query = i};
        r->on_game(r->game_ctx, r, &g);
    }
    if (q->matched && !cancelled(e) && !query_cancelled(e, i)) {
        if (qs->sorting) {
            if (qs->nsorted == qs->sorted_cap) {
                qs->sorted_cap = qs->sorted_cap ? 2 * qs->sorted_cap : 64;
                qs->sorted = xrealloc(qs->sorted, qs->sorted_cap * sizeof *qs->sorted);
            }
            SortedGame *g = &qs->sorted[qs->nsorted++];
            *g = (SortedGame){t->sort_key, number, job->input, job->index, t->out, t->positions, t->tags, t->strings};
            /* the sorted game owns them now */
            t->out = t->sort_key = t->positions = t->tags = t->strings = (CqlText){NULL, 0, 0};
            fit_kept(&g->text);
            fit_kept(&g->positions);
            fit_kept(&g->strings);
        } else if (r->on_match) {
            hand_over_match(e, i, number, job->input, job->index,
                            (MatchTexts){&t->out, &t->positions, &t->tags, &t->strings});
        }
    }
    if (limit_reached(e, i)) {
        rq->totals.limit_reached = true;
        finish_query(e, i);
    }
}

void emit(Emitter *e, GameJob *job)
{
    CqlRun *r = e->run;
    long number = cql_game_text_number(job->text);
    for (int i = 0; i < r->nqueries; i++) {
        CqlRange wanted = cql_query_gamenumber(r->queries[i]->query);
        if (wanted.set && number > wanted.max && !e->queries[i].past_range) {
            e->queries[i].past_range = true;
            finish_query(e, i);
        }
    }
    /* a game read ahead of the limit, after a runtime error or past the range: as if never read */
    if (run_stopped(e)) return;
    e->progress.games++;
    e->progress.bytes += job->text_bytes;
    deliver_messages(&job->messages, r->messages);
    for (int i = 0; i < r->nqueries; i++)
        if (!query_done(e, i)) emit_query(e, i, job, number);
    if (r->on_progress) r->on_progress(r->progress_ctx, &e->progress);
}

/* The order of CqlGameResult.sort_key, then input order. */
static int by_key(const void *a, const void *b)
{
    const SortedGame *x = a, *y = b;
    size_t common = x->key.len < y->key.len ? x->key.len : y->key.len;
    int order = common ? memcmp(x->key.data, y->key.data, common) : 0;
    if (order) return order;
    if (x->key.len != y->key.len) return x->key.len < y->key.len ? -1 : 1;
    return x->number < y->number ? -1 : x->number > y->number;   /* stable: input order */
}

void emit_sorted(Emitter *e, int i)
{
    QueryState *qs = &e->queries[i];
    if (qs->nsorted)   /* qsort wants an array, even of nothing */
        qsort(qs->sorted, qs->nsorted, sizeof *qs->sorted, by_key);
    for (size_t k = 0; k < qs->nsorted; k++) {
        SortedGame *g = &qs->sorted[k];
        if (!qs->runtime_error && !cancelled(e) && !query_cancelled(e, i) && e->run->on_match)
            hand_over_match(e, i, g->number, g->input, g->index,
                            (MatchTexts){&g->text, &g->positions, &g->tags, &g->strings});
    }
    end_batch(e);
    for (size_t k = 0; k < qs->nsorted; k++) {
        SortedGame *g = &qs->sorted[k];
        cql_text_free(&g->text);
        cql_text_free(&g->key);
        cql_text_free(&g->positions);
        cql_text_free(&g->tags);
        cql_text_free(&g->strings);
    }
    free(qs->sorted);
    qs->sorted = NULL;
    qs->nsorted = 0;
}

void emit_slot(Emitter *e, Slot *s)
{
    deliver_messages(&s->leading, e->run->messages);
    if (s->cancelled) return;
    e->run->batch = s;
    for (size_t i = 0; i < s->ngames; i++) emit(e, &s->games[i]);
    end_batch(e);
    e->run->batch = NULL;
    /* the text after the last game: reported when the run read on */
    bool read_on = !run_stopped(e) && s->base + (long)s->ngames < last_game_wanted(e);
    if (read_on) deliver_messages(&s->trailing, e->run->messages);
}

/* The slot being handed over is held (on the main thread, in a
 * callback of its batch): it is made HELD once handed over. */
CqlRunHold *pipeline_hold_batch(CqlRun *r)
{
    Slot *s = r->batch;
    if (!s || s->held) return NULL;
    s->held = true;
    return (CqlRunHold *)s;
}
