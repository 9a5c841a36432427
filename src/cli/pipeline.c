/*
 * src/cli/pipeline.c — the game loop: a reading and writing thread, a ring of
 * job slots and worker threads (see pipeline.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/pipeline.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/memory.h"

/* {==== one game ============================================================= */

typedef enum SlotState { SLOT_EMPTY, SLOT_READY, SLOT_BUSY, SLOT_DONE } SlotState;

typedef struct GameJob {
    CqlGameText *text;
    CqlText out;         /* PGN of the game when it matched */
    CqlText messages;    /* diagnostics about the game, in order (collect_message) */
    CqlText printed;     /* what `message` filters printed */
    CqlText error;       /* a runtime error that stops the run (cql_search) */
    bool matched;
    bool stopped;        /* the query stopped the run at this game (CqlGameResult.stopped) */
    bool pgn_error;
    bool examined;       /* inside the gamenumber range */
    int64_t sort_value;
    size_t text_bytes;   /* length of the game's text when it was read */
    SlotState state;
} GameJob;

typedef struct Worker {
    CqlSearcher *searcher;
    CqlGame *game;       /* the current game's tree, replaced by the next */
    const char *input_name;
} Worker;

/* Keeps a message about a job's game for later: its severity as one digit,
 * then its text with the terminating NUL, record after record. */
static void collect_message(void *ctx, CqlSeverity sev, const char *text)
{
    char severity = (char)('0' + sev);
    cql_text_append(ctx, &severity, 1);
    cql_text_append(ctx, text, strlen(text) + 1);
}

/* Passes the messages kept by collect_message on to m, in order. */
static void deliver_messages(CqlText *kept, CqlMessages *m)
{
    for (size_t at = 0; at < kept->len;) {
        const char *text = kept->data + at + 1;
        cql_deliver(m, (CqlSeverity)(kept->data[at] - '0'), text);
        at += strlen(text) + 2;
    }
    cql_text_clear(kept);
}

static void worker_init(Worker *w, const PipelineSetup *p)
{
    w->searcher = cql_searcher_new(p->query);
    w->game = cql_game_new();
    w->input_name = cql_reader_name(p->reader);
}

static void worker_free(Worker *w)
{
    cql_searcher_free(w->searcher);
    cql_game_free(w->game);
}

static void job_init(GameJob *job)
{
    memset(job, 0, sizeof *job);
    job->text = cql_game_text_new();
}

static void job_free(GameJob *job)
{
    cql_game_text_free(job->text);
    cql_text_free(&job->out);
    cql_text_free(&job->messages);
    cql_text_free(&job->printed);
    cql_text_free(&job->error);
}

static void search_game(Worker *w, GameJob *job)
{
    CqlMessages messages = {collect_message, &job->messages, 0, 0};
    CqlGameStatus st = cql_game_parse(w->game, job->text, w->input_name, &messages);
    job->pgn_error = st != CQL_GAME_OK;
    if (st == CQL_GAME_UNUSABLE) return;
    CqlGameResult found;
    job->matched = cql_search(w->searcher, w->game, &found, &job->printed);
    if (found.error) cql_text_printf(&job->error, "%s\n", found.error);
    if (found.stopped) {
        job->stopped = true;
        cql_search_report_stop(w->searcher, w->game, &messages);
    }
    if (job->matched) {
        job->sort_value = found.sort_value;
        cql_write_match(w->searcher, w->game, &job->out);
    }
}

/* }==== */

/* {==== writing results in input order ======================================= */

/* A matched game kept for sorting. */
typedef struct SortedGame {
    int64_t value;
    long number;
    CqlText text;
} SortedGame;

/* Where finished games go, and the totals of a run. */
typedef struct Emitter {
    const PipelineSetup *setup;
    bool sorting;
    SortedGame *sorted;
    size_t nsorted, sorted_cap;
    /* messages about the text after the last game (skipped junk), printed
     * once every game is written: on worker threads the reader gets there
     * before the games before it are written */
    CqlText trailing;
    PipelineTotals totals;
} Emitter;

/* True once a write to the output failed, or a runtime error stopped the
 * run: the run stops reading. */
static bool emit_failed(const Emitter *e)
{
    return e->setup->out->error != 0 || e->totals.runtime_error;
}

static void print_text(CqlText *t, FILE *fp)
{
    if (!t->len) return;
    fputs(t->data, fp);
    cql_text_clear(t);
}

/* True once -limit matching games were written: the run stops reading. */
static bool limit_reached(const Emitter *e)
{
    return e->setup->limit > 0 && e->totals.matches >= e->setup->limit;
}

/* A slot keeps its buffers for the next game, but not after a large game:
 * else every one of the ring's slots would in time hold buffers the size of
 * the largest game read, and memory would grow with the length of the input
 * (`check` on 2 threads over the shared PGN files repeated: 9, 19 and 43 MB
 * peak at 10k, 100k and 1M games; 9, 17 and 20 MB with a 16 KB limit). At
 * 4 KB (most games are 1-3 KB) the 256 slots hold at most 2 MB. */
enum { SLOT_KEEP_BYTES = 4 * 1024 };

static void release_large_buffers(GameJob *job)
{
    if (cql_game_text_size(job->text) > SLOT_KEEP_BYTES) {
        cql_game_text_free(job->text);
        job->text = cql_game_text_new();
    }
    if (job->out.cap > SLOT_KEEP_BYTES) cql_text_free(&job->out);
}

static void emit(Emitter *e, GameJob *job)
{
    /* a game read ahead of the -limit, or after a runtime error: as if never read */
    if (limit_reached(e) || e->totals.runtime_error) {
        cql_text_clear(&job->messages);
        cql_text_clear(&job->printed);
        cql_text_clear(&job->error);
        cql_text_clear(&job->out);
        job->matched = job->pgn_error = job->stopped = false;
        job->state = SLOT_EMPTY;
        release_large_buffers(job);
        return;
    }
    e->totals.games++;
    e->totals.bytes += job->text_bytes;
    if (job->stopped) e->totals.runtime_error = true;
    deliver_messages(&job->messages, e->setup->messages);
    print_text(&job->printed, e->setup->notes);
    if (job->error.len) {
        /* CQL 6.2 prints a runtime error on standard output and stops */
        print_text(&job->error, e->setup->notes);
        e->totals.runtime_error = true;
        job->matched = false;
    }
    if (job->pgn_error) e->totals.pgn_errors++;
    if (job->matched && !emit_failed(e)) {
        e->totals.matches++;
        if (e->setup->showmatches) fprintf(e->setup->notes, "<%ld>\n", cql_game_text_number(job->text));
        if (e->sorting) {
            if (e->nsorted == e->sorted_cap) {
                e->sorted_cap = e->sorted_cap ? 2 * e->sorted_cap : 64;
                e->sorted = cli_realloc(e->sorted, e->sorted_cap * sizeof *e->sorted);
            }
            e->sorted[e->nsorted++] = (SortedGame){job->sort_value, cql_game_text_number(job->text), job->out};
            job->out = (CqlText){NULL, 0, 0};   /* the sorted game owns it now */
        } else {
            output_write(e->setup->out, job->out.data, job->out.len);
        }
    }
    release_large_buffers(job);
    cql_text_clear(&job->out);
    job->matched = job->pgn_error = job->stopped = false;
    job->state = SLOT_EMPTY;
    if (limit_reached(e)) e->totals.limit_reached = true;
    if (e->setup->progress) progress_update(e->setup->progress, e->totals.games, e->totals.matches, e->totals.bytes);
}

static int by_value_desc(const void *a, const void *b)
{
    const SortedGame *x = a, *y = b;
    if (x->value != y->value) return x->value > y->value ? -1 : 1;
    return x->number < y->number ? -1 : x->number > y->number;   /* stable: input order */
}

/* Writes the games kept for sorting, best first. */
static void emit_sorted(Emitter *e)
{
    if (e->nsorted)   /* qsort wants an array, even of nothing */
        qsort(e->sorted, e->nsorted, sizeof *e->sorted, by_value_desc);
    for (size_t i = 0; i < e->nsorted; i++) {
        if (!e->totals.runtime_error)
            output_write(e->setup->out, e->sorted[i].text.data, e->sorted[i].text.len);
        cql_text_free(&e->sorted[i].text);
    }
    free(e->sorted);
    e->sorted = NULL;
    e->nsorted = 0;
}

/* Reads the next game into job; false at the end of the input or range.
 * Messages about the text before the game (skipped junk) go with the job, so
 * that they come out in input order; those at the end are kept in
 * e->trailing, printed after the last game. */
static bool read_job(Emitter *e, GameJob *job)
{
    CqlRange wanted = cql_query_gamenumber(e->setup->query);
    CqlReader *r = e->setup->reader;
    if (wanted.set && cql_reader_games(r) >= wanted.max) return false;
    if (limit_reached(e)) return false;
    CqlMessages messages = {collect_message, &job->messages, 0, 0};
    for (;;) {
        if (!cql_reader_next(r, job->text, &messages)) {
            /* what is left after the last game belongs to the last part */
            if (!e->setup->end_line && job->messages.len)
                cql_text_append(&e->trailing, job->messages.data, job->messages.len);
            cql_text_clear(&job->messages);
            return false;
        }
        long line = cql_game_text_line(job->text);
        if (e->setup->end_line && line >= e->setup->end_line) {   /* the next part's */
            cql_text_clear(&job->messages);
            return false;
        }
        if (line >= e->setup->first_line) break;
        cql_text_clear(&job->messages);   /* an earlier part's game and its messages */
        if (wanted.set && cql_reader_games(r) >= wanted.max) return false;
    }
    job->text_bytes = cql_game_text_size(job->text);
    job->examined = !wanted.set || cql_game_text_number(job->text) >= wanted.min;
    return true;
}

/* }==== */

/* {==== one thread =========================================================== */

static void run_single(Emitter *e, CqlText *persistent)
{
    Worker w;
    worker_init(&w, e->setup);
    GameJob job;
    job_init(&job);
    while (!emit_failed(e) && read_job(e, &job)) {
        if (job.examined) search_game(&w, &job);
        emit(e, &job);
    }
    cql_searcher_print_persistent(w.searcher, persistent);
    job_free(&job);
    worker_free(&w);
}

/* }==== */

/* {==== worker threads ======================================================= */

typedef struct Ring {
    pthread_mutex_t mu;
    pthread_cond_t work_ready;   /* a slot became READY, or the input ended */
    pthread_cond_t work_done;    /* a slot became DONE */
    GameJob *slots;
    long nslots;
    long next_read;              /* sequence number of the next slot to fill */
    long next_take;              /* next READY slot a worker takes */
    bool input_done;
    const PipelineSetup *setup;
} Ring;

enum { WORKER_BATCH = 32 };   /* games a worker takes from the ring at once */

/* Game text the ring may hold before the reader waits for games to be
 * written (one game is always let in, however long): with a few huge games
 * memory stays near this, not the slot count times the size of a game. */
#define RING_TEXT_BUDGET ((size_t)32 << 20)

static void *worker_main(void *arg)
{
    Ring *p = arg;
    Worker w;
    worker_init(&w, p->setup);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->next_take == p->next_read && !p->input_done)
            pthread_cond_wait(&p->work_ready, &p->mu);
        if (p->next_take == p->next_read) break;
        /* a run of games at once: one wake-up of the writing thread per
         * batch, not per game (a game takes only microseconds) */
        long first = p->next_take;
        long count = p->next_read - first < WORKER_BATCH ? p->next_read - first : WORKER_BATCH;
        p->next_take += count;
        for (long i = 0; i < count; i++) p->slots[(first + i) % p->nslots].state = SLOT_BUSY;
        pthread_mutex_unlock(&p->mu);
        for (long i = 0; i < count; i++) {
            GameJob *job = &p->slots[(first + i) % p->nslots];
            if (job->examined) search_game(&w, job);
        }
        pthread_mutex_lock(&p->mu);
        for (long i = 0; i < count; i++) p->slots[(first + i) % p->nslots].state = SLOT_DONE;
        pthread_cond_broadcast(&p->work_done);
    }
    pthread_mutex_unlock(&p->mu);
    worker_free(&w);
    return NULL;
}

static void run_threads(Emitter *e)
{
    long threads = e->setup->threads;
    Ring p;
    memset(&p, 0, sizeof p);
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.work_ready, NULL);
    pthread_cond_init(&p.work_done, NULL);
    p.nslots = threads * WORKER_BATCH * 4;
    p.slots = cli_calloc((size_t)p.nslots, sizeof *p.slots);
    for (long i = 0; i < p.nslots; i++) job_init(&p.slots[i]);
    p.setup = e->setup;
    pthread_t *tids = cli_calloc((size_t)threads, sizeof *tids);
    for (long i = 0; i < threads; i++) pthread_create(&tids[i], NULL, worker_main, &p);

    long next_emit = 0;
    bool input_left = true;
    size_t text_in_ring = 0;     /* game text read and not yet written */
    pthread_mutex_lock(&p.mu);
    for (;;) {
        GameJob *head = &p.slots[next_emit % p.nslots];
        if (next_emit < p.next_read && head->state == SLOT_DONE) {
            pthread_mutex_unlock(&p.mu);
            text_in_ring -= head->text_bytes;
            emit(e, head);
            pthread_mutex_lock(&p.mu);
            next_emit++;
            continue;
        }
        GameJob *tail = &p.slots[p.next_read % p.nslots];
        if (input_left && tail->state == SLOT_EMPTY && p.next_read - next_emit < p.nslots &&
            (text_in_ring < RING_TEXT_BUDGET || p.next_read == next_emit)) {
            pthread_mutex_unlock(&p.mu);
            input_left = !emit_failed(e) && read_job(e, tail);
            pthread_mutex_lock(&p.mu);
            if (input_left) {
                text_in_ring += tail->text_bytes;
                tail->state = SLOT_READY;
                p.next_read++;
                pthread_cond_signal(&p.work_ready);
            } else {
                p.input_done = true;
                pthread_cond_broadcast(&p.work_ready);
            }
            continue;
        }
        if (!input_left && next_emit == p.next_read) break;
        pthread_cond_wait(&p.work_done, &p.mu);
    }
    pthread_mutex_unlock(&p.mu);
    for (long i = 0; i < threads; i++) pthread_join(tids[i], NULL);
    for (long i = 0; i < p.nslots; i++) job_free(&p.slots[i]);
    free(p.slots);
    free(tids);
    pthread_cond_destroy(&p.work_ready);
    pthread_cond_destroy(&p.work_done);
    pthread_mutex_destroy(&p.mu);
}

/* }==== */

void pipeline_run(const PipelineSetup *p, PipelineTotals *totals, CqlText *persistent)
{
    Emitter e;
    memset(&e, 0, sizeof e);
    e.setup = p;
    e.sorting = cql_query_sorts(p->query);
    if (p->threads <= 1) run_single(&e, persistent);
    else run_threads(&e);
    deliver_messages(&e.trailing, p->messages);
    cql_text_free(&e.trailing);
    if (e.sorting) emit_sorted(&e);
    *totals = e.totals;
}
