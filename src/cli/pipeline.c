/*
 * src/cli/pipeline.c — the game loop: a reading and writing thread, a ring of
 * slots of input and worker threads that split, search and write them (see
 * pipeline.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/pipeline.h"

#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/memory.h"
#include "cli/terminal.h"

/* {==== one game ============================================================= */

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
    CqlText sort_key;    /* a matching game's, when the query sorts (CqlGameResult.sort_key) */
    size_t text_bytes;   /* length of the game's text when it was read */
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

/* Moves the messages kept in *from to the end of *to. */
static void move_messages(CqlText *to, CqlText *from)
{
    if (from->len) cql_text_append(to, from->data, from->len);
    cql_text_clear(from);
}

/* Is game `number` inside the query's game-number range (or is there none)? */
static bool in_gamenumber_range(CqlRange wanted, long number)
{
    return !wanted.set || (number >= wanted.min && number <= wanted.max);
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
    cql_text_free(&job->sort_key);
}

static void search_game(Worker *w, GameJob *job)
{
    CqlMessages messages = {collect_message, &job->messages, 0, 0};
    CqlGameStatus st = cql_game_parse_for(w->game, job->text, w->input_name, &messages, w->searcher);
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
        cql_text_clear(&job->sort_key);
        if (found.sort_key_len) cql_text_append(&job->sort_key, found.sort_key, found.sort_key_len);
        cql_write_match(w->searcher, w->game, &job->out);
    }
}

/* }==== */

/* {==== writing results in input order ======================================= */

/* A matched game kept for sorting. */
typedef struct SortedGame {
    CqlText key;
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
    bool past_range;     /* a game after the query's game-number range came: the run stops */
    PipelineTotals totals;
    CqlSearcher *tags;   /* what every worker's searcher saw of the query's tag filters */
} Emitter;

/* True once a write to the output failed, or a runtime error stopped the
 * run: the run stops reading. */
static bool emit_failed(const Emitter *e)
{
    return e->setup->out->error != 0 || e->totals.runtime_error;
}

/* What `message` printed, or a runtime error: safe on a terminal. */
static void print_text(CqlText *t, FILE *fp)
{
    if (!t->len) return;
    terminal_write(fp, t->data, t->len);
    cql_text_clear(t);
}

/* True once -limit matching games were written: the run stops reading. */
static bool limit_reached(const Emitter *e)
{
    return e->setup->limit > 0 && e->totals.matches >= e->setup->limit;
}

/* True once the games still to come are as if never read: after the -limit,
 * a runtime error, or the query's game-number range. */
static bool run_stopped(const Emitter *e)
{
    return limit_reached(e) || e->totals.runtime_error || e->past_range;
}

/* A slot keeps its buffers for the next game, but not after a large game:
 * else every one of the ring's slots would in time hold buffers the size of
 * the largest game read, and memory would grow with the length of the input
 * (`check` on 2 threads over the shared PGN files repeated: 9, 19 and 43 MB
 * peak at 10k, 100k and 1M games; 9, 17 and 20 MB with a 16 KB limit). At
 * 4 KB (most games are 1-3 KB) the few hundred games of the ring hold at
 * most a few MB. */
enum { SLOT_KEEP_BYTES = 4 * 1024 };

static void release_large_buffers(GameJob *job)
{
    if (cql_game_text_size(job->text) > SLOT_KEEP_BYTES) {
        cql_game_text_free(job->text);
        job->text = cql_game_text_new();
    }
    if (job->out.cap > SLOT_KEEP_BYTES) cql_text_free(&job->out);
}

/* Readies a job for the next game: what the last one left is dropped. */
static void job_clear(GameJob *job)
{
    cql_text_clear(&job->messages);
    cql_text_clear(&job->printed);
    cql_text_clear(&job->error);
    cql_text_clear(&job->out);
    job->matched = job->pgn_error = job->stopped = false;
    release_large_buffers(job);
}

static void emit(Emitter *e, GameJob *job)
{
    /* a game read ahead of the -limit, after a runtime error or past the range: as if never read */
    if (run_stopped(e)) {
        job_clear(job);
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
            e->sorted[e->nsorted++] = (SortedGame){job->sort_key, cql_game_text_number(job->text), job->out};
            job->out = job->sort_key = (CqlText){NULL, 0, 0};   /* the sorted game owns them now */
        } else {
            output_write(e->setup->out, job->out.data, job->out.len);
        }
    }
    job_clear(job);
    if (limit_reached(e)) e->totals.limit_reached = true;
    if (e->setup->progress) progress_update(e->setup->progress, e->totals.games, e->totals.matches, e->totals.bytes);
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

/* Writes the games kept for sorting, best first. */
static void emit_sorted(Emitter *e)
{
    if (e->nsorted)   /* qsort wants an array, even of nothing */
        qsort(e->sorted, e->nsorted, sizeof *e->sorted, by_key);
    for (size_t i = 0; i < e->nsorted; i++) {
        if (!e->totals.runtime_error)
            output_write(e->setup->out, e->sorted[i].text.data, e->sorted[i].text.len);
        cql_text_free(&e->sorted[i].text);
        cql_text_free(&e->sorted[i].key);
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
            if (!e->setup->end_line) move_messages(&e->trailing, &job->messages);
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
    job->examined = in_gamenumber_range(wanted, cql_game_text_number(job->text));   /* none past max is read */
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
    cql_searcher_merge_tags(e->tags, w.searcher);
    job_free(&job);
    worker_free(&w);
}

/* }==== */

/* {==== worker threads ======================================================= */

/* A slot goes EMPTY -> READY (filled) -> SPLITTING -> SPLIT -> NUMBERED
 * (its games have their numbers: all slots before it are split) ->
 * SEARCHING -> DONE -> written and EMPTY again; a cancelled slot goes from
 * SPLIT to DONE. */
typedef enum SlotState {
    SLOT_EMPTY, SLOT_READY, SLOT_SPLITTING, SLOT_SPLIT, SLOT_NUMBERED, SLOT_SEARCHING, SLOT_DONE
} SlotState;

/* A piece of the input and its games, in input order: a chunk a worker
 * splits, or games the reading thread read one by one (with -part, after a
 * chunk that overran, and where no chunk can be cut). */
typedef struct Slot {
    CqlChunk *chunk;        /* the piece to split (`split`), else games[0..ngames) were read */
    bool split;
    GameJob *games;
    size_t ngames, cap;
    CqlText leading;        /* messages before its games (a read error) */
    CqlText trailing;       /* messages about the text after its last game */
    long base;              /* games of the input before its first */
    bool overran;           /* its last game ran past the chunk: the input is read again from there */
    bool cancelled;         /* after a slot that overran: read again, never written */
    size_t bytes;           /* input it holds, for the ring's budget */
    SlotState state;
} Slot;

typedef struct Ring {
    pthread_mutex_t mu;
    pthread_cond_t work_ready;   /* a slot became READY or NUMBERED, or the run ends (workers wait) */
    pthread_cond_t work_done;    /* a slot became DONE (the reading thread waits) */
    Slot *slots;
    long nslots;
    long next_read;              /* sequence number of the next slot to fill */
    long next_take;              /* next READY slot a worker splits */
    long next_numbered;          /* next slot whose games get their numbers */
    long next_search;            /* next NUMBERED slot a worker searches */
    long games_numbered;         /* games in the slots before it */
    long last_chunk;             /* the last slot read that holds a chunk (-1: none) */
    bool overrun;                /* a numbered slot overran: the ones after it are cancelled */
    bool chunks;                 /* workers split the input (no -part): games are numbered here */
    bool done;
    const PipelineSetup *setup;
    CqlSearcher *tags;           /* Emitter.tags: each worker adds what it saw, at its end */
} Ring;

/* Input a worker splits at once: about 70 games of 900 bytes. Smaller
 * chunks cost more waits, each a wake-up and a switch of thread in the
 * kernel: with 32 KB, two threads with nothing to write ran 1.77-1.79 times
 * as fast as one, with 64 KB 1.84, for 0.8-1.3 MB more peak memory. */
enum { CHUNK_BYTES = 64 * 1024 };

/* Games a slot holds when the reading thread reads them one by one. */
enum { SLOT_GAMES = 32 };

/* Game text the ring may hold before the reader waits for games to be
 * written (one slot is always let in, however long): with a few huge games
 * memory stays near this, not the slot count times the size of a game. */
#define RING_TEXT_BUDGET ((size_t)32 << 20)

static Slot *ring_slot(const Ring *p, long seq)
{
    return &p->slots[seq % p->nslots];
}

/* The slot's i-th game job, made when first needed. */
static GameJob *slot_game(Slot *s, size_t i)
{
    if (i == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->games = cli_realloc(s->games, s->cap * sizeof *s->games);
        for (size_t k = i; k < s->cap; k++) job_init(&s->games[k]);
    }
    return &s->games[i];
}

static void slot_free(Slot *s)
{
    for (size_t i = 0; i < s->cap; i++) job_free(&s->games[i]);
    free(s->games);
    cql_chunk_free(s->chunk);
    cql_text_free(&s->leading);
    cql_text_free(&s->trailing);
}

/* Game jobs a slot keeps for its next piece: a piece of many small games
 * makes more, which then go (else every slot would in time keep buffers for
 * the most games a piece ever held). */
enum { SLOT_KEEP_GAMES = 64 };

/* Empties a written or cancelled slot for the next piece. */
static void slot_reset(Slot *s)
{
    for (size_t i = 0; i < s->ngames; i++) job_clear(&s->games[i]);   /* a cancelled slot's */
    if (s->cap > SLOT_KEEP_GAMES) {
        for (size_t i = SLOT_KEEP_GAMES; i < s->cap; i++) job_free(&s->games[i]);
        s->cap = SLOT_KEEP_GAMES;
    }
    cql_text_clear(&s->leading);
    cql_text_clear(&s->trailing);
    s->ngames = 0;
    s->split = s->overran = s->cancelled = false;
    s->bytes = 0;
    s->state = SLOT_EMPTY;
}

/* Splits the slot's chunk into its games (on a worker). */
static void split_chunk(Slot *s)
{
    for (;;) {
        GameJob *job = slot_game(s, s->ngames);
        CqlMessages messages = {collect_message, &job->messages, 0, 0};
        if (!cql_chunk_next(s->chunk, job->text, &messages)) {
            s->overran = cql_chunk_overran(s->chunk);
            if (!s->overran) move_messages(&s->trailing, &job->messages);
            cql_text_clear(&job->messages);
            return;
        }
        job->text_bytes = cql_game_text_size(job->text);
        s->ngames++;
    }
}

/* Gives the slots split so far their place in the numbering of the input's
 * games, in slot order: up to the first one not split yet. After a slot
 * that overran, the rest are cancelled (done at once). The caller holds the
 * lock. */
static void number_split_slots(Ring *p)
{
    bool numbered = false;
    for (; p->next_numbered < p->next_take; p->next_numbered++) {
        Slot *s = ring_slot(p, p->next_numbered);
        if (s->state != SLOT_SPLIT) break;
        if (p->overrun) {
            s->cancelled = true;
            s->state = SLOT_DONE;
            pthread_cond_signal(&p->work_done);
            continue;
        }
        s->base = p->games_numbered;
        p->games_numbered += (long)s->ngames;
        p->overrun = s->overran;
        s->state = SLOT_NUMBERED;
        numbered = true;
    }
    if (numbered) pthread_cond_broadcast(&p->work_ready);
}

static void search_slot(Worker *w, const Ring *p, Slot *s)
{
    CqlRange wanted = cql_query_gamenumber(p->setup->query);
    for (size_t i = 0; i < s->ngames; i++) {
        GameJob *job = &s->games[i];
        if (p->chunks) cql_game_text_set_number(job->text, s->base + (long)i + 1);
        job->examined = in_gamenumber_range(wanted, cql_game_text_number(job->text));
        if (job->examined) search_game(w, job);
    }
}

/* A worker searches numbered slots first, else splits the next ready one;
 * it never waits for another worker's split. */
static void *worker_main(void *arg)
{
    Ring *p = arg;
    Worker w;
    worker_init(&w, p->setup);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (p->next_search < p->next_numbered) {
            Slot *s = ring_slot(p, p->next_search++);
            if (s->state != SLOT_NUMBERED) continue;   /* cancelled */
            s->state = SLOT_SEARCHING;
            pthread_mutex_unlock(&p->mu);
            search_slot(&w, p, s);
            pthread_mutex_lock(&p->mu);
            s->state = SLOT_DONE;
            pthread_cond_signal(&p->work_done);
        } else if (p->next_take < p->next_read) {
            Slot *s = ring_slot(p, p->next_take++);
            s->state = SLOT_SPLITTING;
            pthread_mutex_unlock(&p->mu);
            if (s->split) split_chunk(s);
            pthread_mutex_lock(&p->mu);
            s->state = SLOT_SPLIT;
            number_split_slots(p);
        } else if (p->done) {
            break;
        } else {
            pthread_cond_wait(&p->work_ready, &p->mu);
        }
    }
    cql_searcher_merge_tags(p->tags, w.searcher);
    pthread_mutex_unlock(&p->mu);
    worker_free(&w);
    return NULL;
}

/* Writes a slot's games and messages, in input order. */
static void emit_slot(Emitter *e, Slot *s)
{
    deliver_messages(&s->leading, e->setup->messages);
    if (s->cancelled) return;
    CqlRange wanted = cql_query_gamenumber(e->setup->query);
    for (size_t i = 0; i < s->ngames; i++) {
        if (wanted.set && cql_game_text_number(s->games[i].text) > wanted.max) e->past_range = true;
        emit(e, &s->games[i]);
    }
    /* the text after the last game: reported when the run read on */
    bool read_on = !run_stopped(e) && !(wanted.set && s->base + (long)s->ngames >= wanted.max);
    if (read_on) deliver_messages(&s->trailing, e->setup->messages);
}

typedef enum ReadOutcome { READ_FILLED, READ_LATER, READ_END } ReadOutcome;

/* Fills slot s with the next piece of the input. READ_LATER: the next games
 * are to be read one by one (where no chunk can be cut), which waits until
 * every chunk before them is numbered and none overran (*one_game says so;
 * it is also set after an overrun). */
static ReadOutcome read_slot(Emitter *e, Ring *p, Slot *s, bool *one_game)
{
    CqlReader *r = e->setup->reader;
    if (!p->chunks) {   /* -part: games read one by one, SLOT_GAMES at a time */
        while (s->ngames < SLOT_GAMES && !emit_failed(e) && read_job(e, slot_game(s, s->ngames))) {
            s->bytes += s->games[s->ngames].text_bytes;
            s->ngames++;
        }
        return s->ngames > 0 ? READ_FILLED : READ_END;
    }
    bool messages_only;
    if (!*one_game) {
        if (!s->chunk) s->chunk = cql_chunk_new();
        CqlMessages messages = {collect_message, &s->leading, 0, 0};
        CqlTake took = cql_reader_take_chunk(r, e->setup->chunk_bytes ? e->setup->chunk_bytes : CHUNK_BYTES, s->chunk, &messages);
        if (took == CQL_TAKE_CHUNK) {
            s->split = true;
            s->bytes = cql_chunk_size(s->chunk);
            return READ_FILLED;
        }
        *one_game = took == CQL_TAKE_NO_CUT;
        messages_only = s->leading.len > 0;   /* a read error */
        if (!messages_only) return *one_game ? READ_LATER : READ_END;
    } else {   /* games read one by one, SLOT_GAMES at most */
        *one_game = false;
        while (s->ngames < SLOT_GAMES) {
            GameJob *job = slot_game(s, s->ngames);
            CqlMessages messages = {collect_message, &job->messages, 0, 0};
            if (!cql_reader_next(r, job->text, &messages)) {
                move_messages(&s->trailing, &job->messages);   /* the text after the last game */
                break;
            }
            s->bytes += job->text_bytes = cql_game_text_size(job->text);
            s->ngames++;
        }
        messages_only = s->ngames == 0 && s->trailing.len > 0;
        if (s->ngames) return READ_FILLED;
    }
    return messages_only ? READ_FILLED : READ_END;
}

/* After slot `seq` overran, once it is written: the slots after it were
 * cancelled; their text and the overran part of slot `seq` go back to the
 * reader, newest first, and reading starts again where the game that ran
 * past the chunk begins. A read error met while taking them ended the input
 * there: its message is moved to *at_end. Called with the lock held;
 * returns the bytes the cancelled slots held. */
static size_t read_again_after(Ring *p, long seq, CqlReader *r, CqlText *at_end)
{
    for (;;) {   /* the workers' last use of the cancelled slots */
        bool busy = p->next_take != p->next_read;
        for (long q = seq + 1; q < p->next_take; q++)
            if (ring_slot(p, q)->state != SLOT_DONE) busy = true;
        if (!busy) break;
        pthread_cond_wait(&p->work_done, &p->mu);
    }
    size_t bytes = 0;
    for (long q = p->next_read - 1; q > seq; q--) {
        Slot *s = ring_slot(p, q);
        assert(s->split);   /* a game read alone waits until no slot overran */
        cql_reader_give_back(r, s->chunk, true);
        move_messages(at_end, &s->leading);
        bytes += s->bytes;
        slot_reset(s);
    }
    cql_reader_give_back(r, ring_slot(p, seq)->chunk, false);
    p->next_read = p->next_take = p->next_numbered = p->next_search = seq + 1;
    p->last_chunk = seq;
    p->overrun = false;
    return bytes;
}

/* Games read one by one must follow chunks known to end between two games. */
static bool may_read_alone(const Ring *p)
{
    return p->next_numbered > p->last_chunk && !p->overrun;
}

/* Runs the game loop on worker threads: as many as the setup asks for, or
 * as many as could start (a process limit, -threads 40000), said once on
 * standard error. Returns the number that ran; 0 when none could start
 * (nothing was read: the caller runs the loop on its own thread). */
static long run_threads(Emitter *e)
{
    long threads = e->setup->threads;
    Ring p;
    memset(&p, 0, sizeof p);
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.work_ready, NULL);
    pthread_cond_init(&p.work_done, NULL);
    p.setup = e->setup;
    p.tags = e->tags;
    p.chunks = !e->setup->first_line && !e->setup->end_line;
    p.last_chunk = -1;
    pthread_t *tids = cli_calloc((size_t)threads, sizeof *tids);
    long started = 0;
    int err = 0;
    pthread_mutex_lock(&p.mu);   /* the workers see the slots once they are made */
    while (started < threads && (err = pthread_create(&tids[started], NULL, worker_main, &p)) == 0) started++;
    if (started == 0)
        cql_report(e->setup->messages, CQL_WARNING, "none of the %ld worker threads asked for could start (%s); "
                   "the run goes on on one thread", threads, strerror(err));
    else if (started < threads)
        cql_report(e->setup->messages, CQL_WARNING, "only %ld of the %ld worker threads asked for could start "
                   "(%s); the run goes on with %ld", started, threads, strerror(err), started);
    p.nslots = started * 2;   /* one being searched and one ready, per worker */
    p.slots = cli_calloc((size_t)(p.nslots ? p.nslots : 1), sizeof *p.slots);
    pthread_mutex_unlock(&p.mu);
    if (started == 0) {
        free(p.slots);
        free(tids);
        pthread_cond_destroy(&p.work_ready);
        pthread_cond_destroy(&p.work_done);
        pthread_mutex_destroy(&p.mu);
        return 0;
    }

    long next_emit = 0;
    bool input_left = true, one_game = false;
    size_t text_in_ring = 0;     /* input read and not yet written */
    pthread_mutex_lock(&p.mu);
    for (;;) {
        Slot *head = ring_slot(&p, next_emit);
        if (next_emit < p.next_read && head->state == SLOT_DONE) {
            pthread_mutex_unlock(&p.mu);
            text_in_ring -= head->bytes;
            emit_slot(e, head);
            pthread_mutex_lock(&p.mu);
            if (head->overran && !run_stopped(e) && !emit_failed(e)) {
                text_in_ring -= read_again_after(&p, next_emit, e->setup->reader, &e->trailing);
                input_left = one_game = true;
            }
            slot_reset(head);
            next_emit++;
            continue;
        }
        Slot *tail = ring_slot(&p, p.next_read);
        bool may_read = !one_game || may_read_alone(&p);
        if (input_left && may_read && tail->state == SLOT_EMPTY && p.next_read - next_emit < p.nslots &&
            (text_in_ring < RING_TEXT_BUDGET || p.next_read == next_emit)) {
            pthread_mutex_unlock(&p.mu);
            ReadOutcome got = emit_failed(e) || run_stopped(e) ? READ_END : read_slot(e, &p, tail, &one_game);
            pthread_mutex_lock(&p.mu);
            if (got == READ_FILLED) {
                if (tail->split) p.last_chunk = p.next_read;
                text_in_ring += tail->bytes;
                tail->state = SLOT_READY;
                p.next_read++;
                pthread_cond_signal(&p.work_ready);
                continue;
            }
            if (got == READ_END) input_left = false;
            if (got == READ_END || may_read_alone(&p)) continue;
        }
        if (!input_left && next_emit == p.next_read) break;
        pthread_cond_wait(&p.work_done, &p.mu);
    }
    p.done = true;
    pthread_cond_broadcast(&p.work_ready);
    pthread_mutex_unlock(&p.mu);
    for (long i = 0; i < started; i++) pthread_join(tids[i], NULL);
    for (long i = 0; i < p.nslots; i++) slot_free(&p.slots[i]);
    free(p.slots);
    free(tids);
    pthread_cond_destroy(&p.work_ready);
    pthread_cond_destroy(&p.work_done);
    pthread_mutex_destroy(&p.mu);
    return started;
}

/* }==== */

void pipeline_run(const PipelineSetup *p, PipelineTotals *totals, CqlText *persistent)
{
    Emitter e;
    memset(&e, 0, sizeof e);
    e.setup = p;
    e.sorting = cql_query_sorts(p->query);
    e.tags = cql_searcher_new(p->query);
    e.totals.threads = p->threads <= 1 ? 0 : run_threads(&e);
    if (e.totals.threads == 0) {
        run_single(&e, persistent);
        e.totals.threads = 1;
    }
    deliver_messages(&e.trailing, p->messages);
    cql_text_free(&e.trailing);
    /* a tag filter that held in no game (its case differs ...): said when
     * every game was read */
    if (!limit_reached(&e) && !emit_failed(&e)) cql_searcher_report_unmatched_tags(e.tags, p->messages);
    cql_searcher_free(e.tags);
    if (e.sorting) emit_sorted(&e);
    *totals = e.totals;
}
