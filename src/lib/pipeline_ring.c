/*
 * src/lib/pipeline_ring.c — a run on worker threads: the ring of slots (a
 * slot's states, its numbering in input order, a chunk read again after it
 * overran), the reading role that one thread at a time holds to fill the
 * tail slot (a worker with nothing to search or split; the main thread for
 * a range, a sidecar's games and the opening of the next input), the
 * workers' loop (search, split, read), who is woken when, and the main
 * thread's loop that hands the finished slots over in order (run_threads).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "lib/pipeline_int.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Text the ring may hold in the slots not yet handed over, and in those
 * held until released, before the reader waits (one slot is always let
 * in, however long): the games' input, and once a slot is searched the
 * texts its searches left (matches, messages). With a few huge games, or
 * many queries that each match (2,000 in one pass), memory stays near
 * this, not the slot count times what a slot holds. */
#define RING_TEXT_BUDGET ((size_t)32 << 20)   /* the setting ringbytes, when not set */

static Slot *ring_slot(const Ring *p, long seq)
{
    return &p->slots[seq % p->nslots];
}

GameJob *slot_game(Slot *s, size_t i)
{
    assert(i <= s->made && s->made <= s->cap);   /* handed out in order: the next one is made when first asked */
    if (i < s->dirty) job_clear(&s->games[i]);
    if (i == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->games = xrealloc(s->games, s->cap * sizeof *s->games);
    }
    if (i == s->made) job_init(&s->games[s->made++], s->nqueries);
    return &s->games[i];
}

static void slot_free(Slot *s)
{
    for (size_t i = 0; i < s->made; i++) job_free(&s->games[i]);
    free(s->games);
    cql_chunk_free(s->chunk);
    cql_text_free(&s->leading);
    cql_text_free(&s->trailing);
}

/* Game jobs a slot keeps for its next piece: twice as many as the piece
 * just handed over held, and at least SLOT_KEEP_GAMES, so that a piece of
 * about as many games as the one before reuses its jobs (keeping 64 made
 * and freed some 60 jobs for every chunk of 64 KB of engine games, which
 * hold about 74, freed on another thread than the one that made them); a
 * piece of far fewer games lets the rest go (else every slot would in time
 * keep buffers for the most games a piece ever held). */
enum { SLOT_KEEP_GAMES = 64 };

/* Empties a handed-over or cancelled slot for the next piece; its game
 * jobs are cleared as they are handed out again (slot_game), but those of
 * a held slot, cleared when it was released (slot_clear_games). */
static void slot_reset(Slot *s)
{
    size_t keep = s->ngames > SLOT_KEEP_GAMES / 2 ? 2 * s->ngames : SLOT_KEEP_GAMES;
    if (s->made > keep) {
        for (size_t i = keep; i < s->made; i++) job_free(&s->games[i]);
        s->made = keep;
    }
    if (!s->released && s->dirty < s->ngames) s->dirty = s->ngames;
    if (s->dirty > s->made) s->dirty = s->made;
    cql_text_clear(&s->leading);
    cql_text_clear(&s->trailing);
    s->ngames = 0;
    s->split = s->numbered = s->overran = s->cancelled = s->held = s->released = false;
    s->bytes = 0;
    s->state = SLOT_EMPTY;
}

/* Lets go of what a held slot's games hold (job_clear: the texts their
 * searches left, and the buffers too large to keep), on the thread that
 * releases it, once the caller is done with them: the ring's budget counts
 * a held slot until then, so its memory must go then, not when the reader
 * comes round to the slot again (2,000 queries over the 2,000 engine games
 * on 2 threads: the six slots kept about 14 MB of matches each, 84 MB).
 * Nobody else touches the games of a held slot once it is handed over. */
static void slot_clear_games(Slot *s)
{
    size_t used = s->dirty > s->ngames ? s->dirty : s->ngames;
    for (size_t i = 0; i < used; i++) job_clear(&s->games[i]);
    s->dirty = 0;
}

/* Splits the slot's chunk into its games (on a worker). */
static void split_chunk(Slot *s)
{
    for (;;) {
        GameJob *job = slot_game(s, s->ngames);
        CqlMessages messages = {keep_message, &job->messages, 0, 0};
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

static void wake_reader(Ring *p);
static bool main_reads(const Ring *p);
static bool may_read(const Ring *p);

/* Gives the slots split so far their place in the numbering of the inputs'
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
        if (s->numbered) {   /* what its last game's number says */
            p->numbered_input = s->input;
            p->numbered_input_base = s->input_base;
        } else if (s->input != p->numbered_input) {   /* the first slot of an input */
            p->numbered_input = s->input;
            p->numbered_input_base = p->games_numbered;
        }
        s->base = p->games_numbered;
        s->input_base = p->numbered_input_base;
        p->games_numbered += (long)s->ngames;
        p->overrun = s->overran;
        s->state = SLOT_NUMBERED;
        numbered = true;
    }
    if (numbered) {
        pthread_cond_broadcast(&p->work_ready);
        wake_reader(p);   /* games read one by one may follow them now (may_read_alone) */
    }
}

/* Searches the slot's games; returns the bytes of the texts the searches
 * left (the matches' PGN and what `message` printed), which wait in the
 * ring until the slot is handed over. */
static size_t search_slot(Worker *w, const Ring *p, Slot *s)
{
    size_t left = 0;
    for (size_t i = 0; i < s->ngames; i++) {
        if (atomic_load_explicit(&p->run->cancelled, memory_order_relaxed)) break;   /* never handed over */
        GameJob *job = &s->games[i];
        if (job->asked) continue;   /* settled before it was read (skip_game) */
        if (!s->numbered) {
            long number = s->base + (long)i + 1;
            cql_game_text_set_number(job->text, number);
            job->input = s->input;
            job->index = number - s->input_base;
        }
        search_game(w, job);
        for (int t = 0; t < job->ntexts; t++) left += job->texts[t]->out.len + job->texts[t]->printed.len;
    }
    return left;
}

/* May a worker search the next numbered slot (the caller holds the lock)?
 * Not while the ring holds more than its budget of text, unless that slot
 * is the next to be handed over: what a search leaves waits in the ring
 * until then (a run of many queries that each match: 2,000 queries over
 * 600 engine games left about 9 MB a slot of 64 KB of input). */
static bool may_search(const Ring *p)
{
    return p->text_in_ring < p->text_budget || p->next_search == p->next_emit;
}

/* Is it worth waking the main thread (the caller holds the lock and has
 * just finished a slot)? When it waits, it waits for the slot at the head
 * of the ring. It is woken once a batch of slots from the head on is
 * finished, or every slot read is, or the workers are about to run out of
 * slots to work on (handing slots over makes room to read into); not for
 * every slot, since each wake-up is two switches
 * of thread in the kernel (`check` on the 40,000 engine games on two
 * threads: 710 switches of the main thread with a wake-up per slot, 350
 * with a batch of one slot per worker; its share of the run's CPU time
 * about half a point less, within the noise of the machine). A cancelled
 * slot wakes it at once (number_split_slots). */
static bool worth_waking(const Ring *p)
{
    long done = 0;
    while (p->next_emit + done < p->next_read && ring_slot(p, p->next_emit + done)->state == SLOT_DONE) done++;
    if (done == 0) return false;
    if (done >= p->wake_batch) return true;
    /* the workers run out of work unless the main thread reads, or hands
     * slots over to make room for their own reading, or ends the run; not
     * while they can read on themselves (a wake-up then, at nearly every
     * slot: `check` on 2 threads over the 40,000 engine games, 467 waits
     * of the main thread and 710-770 switches, against 345-426 switches
     * and its share of the CPU 3.6% to 2.5%) */
    bool no_work = (p->next_search == p->next_numbered || !may_search(p)) && p->next_take == p->next_read;
    bool all_done = p->next_emit + done == p->next_read;
    return (no_work || all_done) && (main_reads(p) || !may_read(p));
}

/* Wakes the workers that wait for the budget to search (the caller holds
 * the lock and has just made room in it). */
static void wake_searchers(Ring *p)
{
    if (p->idle_workers > 0 && p->next_search < p->next_numbered && may_search(p))
        pthread_cond_broadcast(&p->work_ready);
}

/* On any thread: the slot's games let go of their texts here
 * (slot_clear_games) once the main thread has handed the slot over (else
 * the main thread does, when it has), and its bytes leave the ring's
 * budget; the reader empties the slot when it comes to it. Woken: the
 * reader when it waits for this slot or for the budget (wake_reader), the
 * workers that wait for the budget to search, and the main thread when it
 * waits for the last slot held. */
void pipeline_release(CqlRun *r, CqlRunHold *hold)
{
    Slot *s = (Slot *)hold;
    Ring *p = r->ring;
    pthread_mutex_lock(&p->mu);
    assert(s->held && !s->released);
    if (s->state == SLOT_HELD) {   /* nobody else touches it until it is released */
        pthread_mutex_unlock(&p->mu);
        slot_clear_games(s);
        pthread_mutex_lock(&p->mu);
    }
    s->released = true;
    p->held--;
    p->text_in_ring -= s->bytes;
    if (p->draining) {
        if (p->held == 0) pthread_cond_signal(&p->work_done);
    } else {
        wake_reader(p);
        wake_searchers(p);
    }
    pthread_mutex_unlock(&p->mu);
}

/* Games read one by one, and a new input, must follow chunks known to end
 * between two games. */
static bool may_read_alone(const Ring *p)
{
    return p->next_numbered > p->last_chunk && !p->overrun;
}

/* Is the main thread the one to read next? For a range and a sidecar's
 * games (read one by one with its own searchers: skip_game), and to open
 * the next input, whose source's callbacks (CqlOpenFn, CqlCloseFn) run on
 * the thread that started the run. The workers read the chunks, and the
 * games read one by one after a chunk that overran or could not be cut. */
static bool main_reads(const Ring *p)
{
    return !p->workers_read || p->read_next == NEXT_INPUT;
}

/* May the reading role be taken now (the caller holds the lock)? Nobody
 * holds it, the main thread is not giving an overran chunk back, input is
 * left and what comes next may be read now, and the tail slot is empty (or
 * held and released) with the ring under its slot count and its text
 * budget (one slot is always let in, however long). */
static bool may_read(const Ring *p)
{
    if (!p->input_left || p->reader_busy || p->rereading) return false;
    if (p->read_next != NEXT_CHUNK && !may_read_alone(p)) return false;
    const Slot *tail = ring_slot(p, p->next_read);
    bool empty = tail->state == SLOT_EMPTY || (tail->state == SLOT_HELD && tail->released);
    return empty && p->next_read - p->next_emit < p->nslots &&
           (p->text_in_ring < p->text_budget || p->next_read == p->next_emit);
}

/* Something that may let the next read start changed (the caller holds the
 * lock): the thread whose turn it is to read is woken if it waits (a worker
 * only when one is idle: the others come to it in their loop). */
static void wake_reader(Ring *p)
{
    if (!may_read(p)) return;
    if (main_reads(p)) pthread_cond_signal(&p->work_done);
    else if (p->idle_workers > 0) pthread_cond_signal(&p->work_ready);
}

/* The reading role (the caller holds the lock; on_main: the main thread,
 * with its sidecar searchers `reading`, else a worker): when it may be
 * taken (may_read), the next piece of the inputs is read into the tail
 * slot with the lock let go, exactly as on one reading thread, and
 * published READY for the workers; the role is then given back. False
 * when it could not be taken. Those who wait for the role's end are woken:
 * the main thread when it is its turn to read, when it waits to give an
 * overran chunk back (read_again), or when the inputs ended; the workers
 * when they read from now on. */
static bool read_tail(Ring *p, Worker *reading, bool on_main)
{
    if (!may_read(p)) return false;
    Slot *tail = ring_slot(p, p->next_read);
    if (tail->state == SLOT_HELD) slot_reset(tail);   /* released */
    p->reader_busy = true;
    ReadNext next = p->read_next;
    Emitter *e = p->emitter;
    pthread_mutex_unlock(&p->mu);
    ReadOutcome got = run_stopped(e) ? READ_END : read_slot(e, p, tail, &next, reading);
    pthread_mutex_lock(&p->mu);
    p->reader_busy = false;
    p->read_next = next;
    if (on_main) p->workers_read = p->chunks;   /* read_slot may have turned to chunks */
    if (got == READ_FILLED) {
        if (tail->split) p->last_chunk = p->next_read;
        p->text_in_ring += tail->bytes;
        tail->state = SLOT_READY;
        p->next_read++;
        pthread_cond_signal(&p->work_ready);
    } else if (got == READ_END) {
        p->input_left = false;
    }
    if (on_main) {
        if (!main_reads(p)) wake_reader(p);
    } else if (main_reads(p) || p->rereading || got == READ_END) {
        pthread_cond_signal(&p->work_done);
    }
    return true;
}

/* A worker searches numbered slots first, else splits the next ready one,
 * else takes the reading role when it is the workers' and free (read_tail);
 * it never waits for another worker's split. */
static void *worker_main(void *arg)
{
    Ring *p = arg;
    Worker w;
    worker_init(&w, p->run);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (p->next_search < p->next_numbered && may_search(p)) {
            Slot *s = ring_slot(p, p->next_search++);
            if (s->state != SLOT_NUMBERED) continue;   /* cancelled */
            s->state = SLOT_SEARCHING;
            pthread_mutex_unlock(&p->mu);
            size_t left = search_slot(&w, p, s);
            pthread_mutex_lock(&p->mu);
            /* in the ring's budget with its input, until handed over: a
             * run of many queries can leave far more output than input */
            s->bytes += left;
            p->text_in_ring += left;
            s->state = SLOT_DONE;
            if (worth_waking(p)) pthread_cond_signal(&p->work_done);
        } else if (p->next_take < p->next_read) {
            Slot *s = ring_slot(p, p->next_take++);
            s->state = SLOT_SPLITTING;
            pthread_mutex_unlock(&p->mu);
            if (s->split) split_chunk(s);
            pthread_mutex_lock(&p->mu);
            s->state = SLOT_SPLIT;
            number_split_slots(p);
        } else if (!main_reads(p) && read_tail(p, NULL, false)) {
            continue;
        } else if (p->done) {
            break;
        } else {
            /* the budget holds the searches back until the head is handed over */
            if (p->next_search < p->next_numbered && !may_search(p) && p->next_emit < p->next_read &&
                ring_slot(p, p->next_emit)->state == SLOT_DONE)
                pthread_cond_signal(&p->work_done);
            p->idle_workers++;
            pthread_cond_wait(&p->work_ready, &p->mu);
            p->idle_workers--;
        }
    }
    worker_report(&w, p->tags);
    pthread_mutex_unlock(&p->mu);
    worker_free(&w);
    return NULL;
}

/* After slot `seq` overran, once it is handed over: the slots after it were
 * cancelled; their text and the overran part of slot `seq` go back to the
 * reader of its input, newest first, and reading starts again where the
 * game that ran past the chunk begins. A read error met while taking them
 * ended the input there: its message is moved to *at_end. Called with the
 * lock held; returns the bytes the cancelled slots held. */
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

/* On the main thread, once the slot at the head, which overran, is handed
 * over (the caller holds the lock): the reading role is kept from the
 * workers while whoever holds it ends its read, then the chunk is given
 * back to its reader (read_again_after) and the games after it are read
 * one by one. */
static void read_again(Ring *p, const Slot *head)
{
    p->rereading = true;
    while (p->reader_busy) pthread_cond_wait(&p->work_done, &p->mu);
    Emitter *e = p->emitter;
    CqlReader *r = e->run->inputs[head->input].reader;
    p->text_in_ring -= read_again_after(p, p->next_emit, r, &e->trailing);
    p->input_left = true;
    p->read_next = NEXT_GAMES;
    p->rereading = false;
    wake_reader(p);
}

/* Frees the main thread's searchers (NULL: none), once reported
 * (worker_report). */
static void reading_free(Worker *reading, Emitter *e)
{
    if (!reading) return;
    worker_report(reading, e->tags);
    worker_free(reading);
    free(reading);
}

long run_threads(Emitter *e, long threads)
{
    Ring p;
    memset(&p, 0, sizeof p);
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.work_ready, NULL);
    pthread_cond_init(&p.work_done, NULL);
    p.run = e->run;
    p.emitter = e;
    p.text_budget = e->run->settings.ring_bytes ? (size_t)e->run->settings.ring_bytes : RING_TEXT_BUDGET;
    e->run->ring = &p;
    p.tags = e->tags;
    for (int i = 0; i < e->run->ninputs; i++) p.ranged |= e->run->inputs[i].ranged;
    p.chunks = !p.ranged;
    /* the main thread asks the inputs' sidecars about the games before it
     * reads them, and jumps over those ruled out (skip_game) */
    Worker *reading = sidecar_rules_out(e->run) ? xcalloc(1, sizeof *reading) : NULL;
    if (reading) {
        worker_init(reading, e->run);
        p.chunks = false;
    }
    p.last_chunk = -1;
    p.numbered_input = -1;
    p.workers_read = p.chunks;
    p.input_left = true;
    p.read_next = NEXT_CHUNK;
    pthread_t *tids = xcalloc((size_t)threads, sizeof *tids);
    long started = 0;
    int err = 0;
    pthread_mutex_lock(&p.mu);   /* the workers see the slots once they are made */
    while (started < threads && (err = pthread_create(&tids[started], NULL, worker_main, &p)) == 0) started++;
    if (started == 0)
        cql_report(e->run->messages, CQL_WARNING, "none of the %ld worker threads asked for could start (%s); "
                   "the run goes on on one thread", threads, strerror(err));
    else if (started < threads)
        cql_report(e->run->messages, CQL_WARNING, "only %ld of the %ld worker threads asked for could start "
                   "(%s); the run goes on with %ld", started, threads, strerror(err), started);
    /* per worker one being searched and one ready, and one handed over that
     * the caller may hold while its thread writes the matches, the reader
     * reading on meanwhile (`check` on 2 threads over the 40,000
     * engine games, to a file: with two per worker, the main thread
     * waited for a held slot 240-300 times, and switched 530 times instead
     * of 350) */
    p.nslots = started * 3;
    p.wake_batch = started;
    p.slots = xcalloc((size_t)(p.nslots ? p.nslots : 1), sizeof *p.slots);
    for (long i = 0; i < p.nslots; i++) p.slots[i].nqueries = e->run->nqueries;
    pthread_mutex_unlock(&p.mu);
    if (started == 0) {
        e->run->ring = NULL;
        reading_free(reading, e);
        free(p.slots);
        free(tids);
        pthread_cond_destroy(&p.work_ready);
        pthread_cond_destroy(&p.work_done);
        pthread_mutex_destroy(&p.mu);
        return 0;
    }

    /* the main thread hands the finished slots over in order, and reads
     * when it is its turn (main_reads) */
    pthread_mutex_lock(&p.mu);
    for (;;) {
        Slot *head = ring_slot(&p, p.next_emit);
        if (p.next_emit < p.next_read && head->state == SLOT_DONE) {
            pthread_mutex_unlock(&p.mu);
            emit_slot(e, head);
            pthread_mutex_lock(&p.mu);
            if (head->overran && !run_stopped(e)) read_again(&p, head);
            if (head->held) {   /* in the budget, and its texts kept, until released (pipeline_release) */
                if (head->released) {   /* before it was handed over: its games are cleared here */
                    pthread_mutex_unlock(&p.mu);
                    slot_clear_games(head);
                    pthread_mutex_lock(&p.mu);
                }
                head->state = SLOT_HELD;
                p.held++;
            } else {
                p.text_in_ring -= head->bytes;
                slot_reset(head);
            }
            p.next_emit++;
            wake_reader(&p);   /* room in the ring, and in its text budget */
            wake_searchers(&p);   /* searches the budget held back */
            continue;
        }
        if (main_reads(&p) && read_tail(&p, reading, true)) continue;
        if (!p.input_left && p.next_emit == p.next_read && !p.reader_busy) break;
        pthread_cond_wait(&p.work_done, &p.mu);
    }
    p.draining = true;   /* the texts of the slots still held are the caller's until released */
    while (p.held > 0) pthread_cond_wait(&p.work_done, &p.mu);
    e->run->ring = NULL;
    p.done = true;
    pthread_cond_broadcast(&p.work_ready);
    pthread_mutex_unlock(&p.mu);
    for (long i = 0; i < started; i++) pthread_join(tids[i], NULL);
    reading_free(reading, e);
    for (long i = 0; i < p.nslots; i++) slot_free(&p.slots[i]);
    free(p.slots);
    free(tids);
    pthread_cond_destroy(&p.work_ready);
    pthread_cond_destroy(&p.work_done);
    pthread_mutex_destroy(&p.mu);
    return started;
}
