/*
 * src/lib/pipeline_int.h — what the files of a run's engine (pipeline.h)
 * share: the job of one game, the handing over (Emitter), the ring of slots,
 * and the functions each file lends the others.
 *
 *   pipeline_game.c   one game: its job, a worker's searchers, its search
 *   pipeline_read.c   the reading side: the inputs, games read one by one or
 *                     in chunks, the games a sidecar lets the reader jump over
 *   pipeline_emit.c   the emitting side: games handed over in input order,
 *                     limits and stops, sorting, batches the caller holds
 *   pipeline_ring.c   the worker threads, the ring of slots they read into,
 *                     split and search, and the main thread that hands them
 *                     over
 *   pipeline.c        a run, on one thread or on worker threads
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_LIB_PIPELINE_INT_H
#define CQL_LIB_PIPELINE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/indexed.h"
#include "lib/lib_int.h"
#include "lib/pipeline.h"

/* {==== one game (pipeline_game.c) ====================================== */

/* The texts searching one game with one query of the run left: made only
 * for the queries that printed, matched, failed or stopped on the game
 * (job_texts), so that a game's job holds a small QueryJob for each query
 * of the run and texts for those that need them (a job of eight texts by
 * query held 200 bytes by query and game in the ring: 80 KB by query and
 * thread). */
typedef struct QueryTexts {
    CqlText out;         /* PGN of the game when it matched */
    CqlText printed;     /* what `message` filters printed */
    CqlText error;       /* a runtime error that stops the query (cql_search) */
    CqlText stop;        /* the report of a stop, as keep_message keeps messages */
    CqlText positions;   /* its matched positions when asked for (lib_matched_positions) */
    CqlText tags;        /* and its tags (lib_match_tags) */
    CqlText strings;     /* and their texts */
    CqlText sort_key;    /* a matching game's, when the query sorts (CqlGameResult.sort_key) */
} QueryTexts;

/* What searching one game with one query of the run left. The ring holds
 * one for each query in each of its game jobs (2,000 queries over the
 * engine games on two threads: about 940,000, 15 MB), so it is kept to 16
 * bytes: the two enums of lib/indexed.h in a byte each (their values are
 * small), after the pointer (24 bytes with the enums as such). */
typedef struct QueryJob {
    QueryTexts *texts;   /* NULL: none (nothing printed, no match, no error, no stop) */
    uint8_t indexed;     /* IndexedOutcome: what its input's sidecar made of it for this query */
    uint8_t answer;      /* IndexedAnswer: what the sidecar's condition said of it, asked before it
                            was read (ruled_out_for_all): not asked again (ask_sidecar) */
    bool examined;       /* inside the query's gamenumber range */
    bool matched;
    bool stopped;        /* the query stopped at this game (CqlGameResult.stopped) */
} QueryJob;
_Static_assert(sizeof(QueryJob) <= 16, "QueryJob: one per query and game job of the ring");
_Static_assert(INDEXED_IN_PLACE <= UINT8_MAX && INDEXED_EXCLUDED <= UINT8_MAX,
               "QueryJob.indexed and .answer hold an IndexedOutcome and an IndexedAnswer in a byte");

typedef struct GameJob {
    CqlGameText *text;
    int input;           /* which input of the run it is from */
    long index;          /* its number within that input */
    CqlText messages;    /* diagnostics about the game, in order (keep_message) */
    bool pgn_error;
    size_t text_bytes;   /* length of the game's text when it was read */
    QueryJob *queries;   /* one per query of the run */
    int nqueries;
    QueryTexts **texts;  /* the queries' texts: [0, ntexts) handed out since the job was cleared, the
                            rest kept for the next game (job_texts) */
    int ntexts, texts_made, texts_cap;
    bool asked;          /* its input's sidecar was asked about it before it was read (skip_game) */
} GameJob;

typedef struct Worker {
    const CqlRun *run;
    CqlSearcher **searchers;   /* one per query */
    LibSharedArena arena;      /* the search arena they share (lib_int.h) */
    CqlText printed;           /* what a search printed, until it is moved into its job's texts */
    LibGate gate;              /* the game read once for all of them */
    bool *active;              /* for the current game: the queries that search it */
    CqlGame *game;             /* the current game's tree, replaced by the next */
} Worker;

/* Keeps a message about a job's game for later: its severity as one digit,
 * then its text with the terminating NUL, record after record. */
void keep_message(void *ctx, CqlSeverity sev, const char *text);

/* Moves the messages kept in *from to the end of *to. */
void move_messages(CqlText *to, CqlText *from);

/* Passes the messages kept by keep_message on to m, in order. */
void deliver_messages(CqlText *kept, CqlMessages *m);

/* A worker's searchers, one per query of the run, and its game. */
void worker_init(Worker *w, const CqlRun *r);
void worker_free(Worker *w);
/* Once its games are done: what the worker's searchers saw of their
 * watched tag filters added to tags (one searcher per query), and the
 * records their conditions were asked about to the run's queries. On one
 * thread at a time. */
void worker_report(const Worker *w, CqlSearcher **tags);

/* A job for the games of a run of nqueries queries. */
void job_init(GameJob *job, int nqueries);
void job_free(GameJob *job);

/* Asks the sidecar of the game's input about it, for each query that
 * searches it (t: its text as split off, or NULL before it is read; head:
 * its record's head as indexed_skip_of read it, or NULL): a query it
 * settles does not read the game (w->active). True when it settles every
 * one. */
bool ask_sidecar(Worker *w, GameJob *job, long number, const CqlGameText *t, const SidecarGame *head);

/* Asks the sidecar of the game's input, before the game is read, whether
 * the query's condition rules it out for every query that searches it;
 * nothing else (its search from codes is left to the worker that reads
 * it). When it does, job says so as ask_sidecar would, and the watched tag
 * filters have seen its tags. Else the answers of the queries asked stay
 * in job (QueryJob.answer), for the worker that reads the game: it does
 * not ask again (ask_sidecar). */
bool ruled_out_for_all(Worker *w, GameJob *job, long number, const SidecarGame *head);

/* Drops what the sidecar said of a game before it was read, when the game
 * read is not that one (its input ended early: the file was cut while it
 * was read): the game read is asked about anew. */
void forget_answers(GameJob *job, int input, long index);

/* Reads the game, once, and searches it with every query that examines it,
 * still wants games and that the sidecar did not settle (none: the game is
 * not even parsed). */
void search_game(Worker *w, GameJob *job);

/* Readies a job for the next game: what the last one left is dropped. */
void job_clear(GameJob *job);

/* }==== */

/* {==== handing the games over (pipeline_emit.c) ======================== */

/* A matched game kept for sorting. */
typedef struct SortedGame {
    CqlText key;
    long number;
    int input;
    long index;
    CqlText text;
    CqlText positions, tags, strings;
} SortedGame;

/* What the handing over keeps for one query of the run. */
typedef struct QueryState {
    bool sorting;
    SortedGame *sorted;
    size_t nsorted, sorted_cap;
    bool past_range;     /* a game after its game-number range came: it is done */
    bool runtime_error;  /* it stopped */
} QueryState;

/* Where finished games go, the inputs being read, and the totals of a run. */
typedef struct Emitter {
    CqlRun *run;
    QueryState *queries;
    CqlSearcher **tags;  /* per query: what every worker's searcher saw of its tag filters */
    /* messages about the text after the last game (skipped junk), handed
     * over once every game is: on worker threads the reader gets there
     * before the games before it are handed over */
    CqlText trailing;
    CqlRunProgress progress;   /* games handed over, their matches (of every query), bytes */
    /* the reader's (whichever thread holds the reading role: read_tail):
     * the input being read, the games of those before it */
    int input;
    long input_base;
    CqlText carried;     /* messages about the end of an input, handed over with the next game */
    /* what indexed_skip_of said of game skip_index of input skip_input
     * (skip_index 0: nothing), in skips[skip_index & 1]: its next head is
     * the next game's, in the other one */
    IndexedSkip skips[2];
    int skip_input;
    long skip_index;
} Emitter;

/* The run was cancelled (cql_run_cancel); query i was (cql_run_cancel_query). */
bool cancelled(const Emitter *e);
bool query_cancelled(const Emitter *e, int i);

/* True once `limit` matching games of query i were handed over. */
bool limit_reached(const Emitter *e, int i);

/* True once no query wants more games: the run stops reading. */
bool run_stopped(const Emitter *e);

/* The last game a query that still wants games examines (its game-number
 * range): the run reads no further. LONG_MAX: a query wants every game. */
long last_game_wanted(const Emitter *e);

/* The end of a batch of games handed over: the texts of its matches may
 * go once the caller is told (cql_run_on_batch_end). */
void end_batch(Emitter *e);

/* Hands a game over; its job is cleared (job_clear) only after the batch
 * it is in has ended: on one thread at once, on worker threads when the
 * slot's jobs are handed out again (slot_game). */
void emit(Emitter *e, GameJob *job);

/* Hands over the games kept for sorting by query i, best first, as one
 * batch. */
void emit_sorted(Emitter *e, int i);

/* Hands over a slot's games and messages, in input order, the games as
 * one batch, which the caller may hold (its games are then cleared when it
 * is released). */
void emit_slot(Emitter *e, struct Slot *s);

/* }==== */

/* {==== the ring of slots (pipeline_ring.c) ============================= */

/* What read_slot did: filled the slot, left what comes next for later, or
 * met the end of the inputs. */
typedef enum ReadOutcome { READ_FILLED, READ_LATER, READ_END } ReadOutcome;

/* How the reading goes on once every chunk read so far is numbered
 * and none overran (READ_LATER): the next games one by one (where no chunk
 * can be cut; also after an overrun), or the next input. */
typedef enum ReadNext { NEXT_CHUNK, NEXT_GAMES, NEXT_INPUT } ReadNext;

/* A slot goes EMPTY -> READY (filled) -> SPLITTING -> SPLIT -> NUMBERED
 * (its games have their numbers: all slots before it are split) ->
 * SEARCHING -> DONE -> handed over and EMPTY again, or HELD by the caller
 * (cql_run_hold_batch), its games' texts let go once released
 * (cql_run_release, on any thread) and emptied when the reader comes to
 * it. A cancelled slot goes from SPLIT to DONE. */
typedef enum SlotState {
    SLOT_EMPTY, SLOT_READY, SLOT_SPLITTING, SLOT_SPLIT, SLOT_NUMBERED, SLOT_SEARCHING, SLOT_DONE, SLOT_HELD
} SlotState;

/* A piece of an input and its games, in input order: a chunk a worker
 * splits, or games the reader read one by one (in a range of lines, after
 * a chunk that overran, and where no chunk can be cut). */
typedef struct Slot {
    CqlChunk *chunk;        /* the piece to split (`split`), else games[0..ngames) were read */
    bool split;
    GameJob *games;
    size_t ngames, cap;
    size_t made;            /* games[0..made) are made (job_init), each when first handed out: a job
                               holds a record per query (2,000 queries: 32 KB), so none is made
                               ahead (a chunk of 74 engine games made 128) */
    size_t dirty;           /* games[0..dirty) may hold what an earlier piece left: each is cleared
                               (job_clear) when handed out again (slot_game), on the thread that fills
                               it: for a chunk, the worker that splits it, not the reader */
    int input;              /* the input it is a piece of */
    CqlText leading;        /* messages before its games (a read error) */
    CqlText trailing;       /* messages about the text after its last game */
    long base;              /* games of the inputs before its first */
    long input_base;        /* games of the inputs before its input */
    bool numbered;          /* its games were numbered as they were read (read_job, skip_game): input and
                               input_base are its last game's */
    bool overran;           /* its last game ran past the chunk: the input is read again from there */
    bool cancelled;         /* after a slot that overran: read again, never handed over */
    bool held;              /* held by the caller (cql_run_hold_batch), on the main thread */
    bool released;          /* and released (under the ring's lock: the release may come
                               before the main thread has made it HELD) */
    size_t bytes;           /* input it holds, and once searched the texts its searches left: for
                               the ring's budget (Ring.text_budget), until handed over, or when held
                               until released */
    SlotState state;
    int nqueries;           /* of the run: each game job's */
} Slot;

typedef struct Ring {
    pthread_mutex_t mu;
    pthread_cond_t work_ready;   /* a slot became READY or NUMBERED, the tail may be read into
                                    (wake_reader), or the run ends (workers wait) */
    pthread_cond_t work_done;    /* slots became DONE (worth_waking), the reading role was given
                                    back, or it is the main thread's turn to read (the main
                                    thread waits) */
    Slot *slots;
    long nslots;
    long next_emit;              /* the next slot the main thread hands over */
    long wake_batch;             /* finished slots that make it worth waking the main thread */
    long next_read;              /* sequence number of the next slot to fill */
    long next_take;              /* next READY slot a worker splits */
    long next_numbered;          /* next slot whose games get their numbers */
    long next_search;            /* next NUMBERED slot a worker searches */
    long games_numbered;         /* games in the slots before it */
    int numbered_input;          /* the input of the last slot numbered */
    long numbered_input_base;    /* the games of the inputs before it */
    long last_chunk;             /* the last slot read that holds a chunk (-1: none) */
    bool overrun;                /* a numbered slot overran: the ones after it are cancelled */
    /* the reader's: it takes chunks that the workers split, or else the
     * main thread reads the games one by one (a range, or with a sidecar
     * that may rule games out: skip_game), and how many of those it jumped
     * over; written by read_slot without the lock */
    bool chunks;
    bool ranged;                 /* an input is a range: games are read one by one to the end */
    long alone_games, alone_skipped;
    /* the reading role (read_tail), under the lock: */
    Emitter *emitter;            /* the run's: the inputs, where read_slot reads */
    bool workers_read;           /* `chunks` as the last read left it: the workers read (main_reads) */
    bool reader_busy;            /* a thread holds the role: reads with the lock let go */
    bool rereading;              /* the main thread gives an overran chunk back to its reader
                                    (read_again): nobody takes the role meanwhile */
    bool input_left;             /* the inputs did not end (nor the run stop) */
    ReadNext read_next;          /* what the next read takes (read_slot's *next) */
    size_t text_in_ring;         /* input read and not yet handed over (or held and not yet released),
                                    and what its searches left */
    size_t text_budget;          /* the most it may hold (RING_TEXT_BUDGET, the setting ringbytes) */
    long idle_workers;           /* workers waiting on work_ready */
    bool done;
    long held;                   /* slots HELD less those released (for a while -1: a
                                    release before its slot was made HELD) */
    bool draining;               /* the main thread waits for the last of them */
    const CqlRun *run;
    CqlSearcher **tags;          /* Emitter.tags: each worker adds what it saw, at its end */
} Ring;

/* The slot's i-th game job, made when first needed, cleared of what an
 * earlier piece left. */
GameJob *slot_game(Slot *s, size_t i);

/* Runs the game loop on worker threads: as many as the run asks for, or as
 * many as could start (a process limit, -threads 40000), said once through
 * the messages. Returns the number that ran; 0 when none could start
 * (nothing was read: the caller runs the loop on its own thread). */
long run_threads(Emitter *e, long threads);

/* }==== */

/* {==== reading (pipeline_read.c) ======================================= */

/* Reads the next game into job; false at the end of the inputs or range.
 * Messages about the text before the game (skipped junk) go with the job, so
 * that they come out in input order; those at the end of an input go with
 * the next input's first game, and those at the end of the last are kept
 * in e->trailing, handed over after the last game. */
bool read_job(Emitter *e, GameJob *job);

/* With a fresh sidecar of the input being read, asked about its next game
 * before the game is read (ask_sidecar; on worker threads ruled_out_for_all,
 * which does not search it from its codes: from_codes false): when that
 * settles the game for every query that searches it (ruled out, or
 * searched from its codes and not matched), and the reader may jump over
 * it (indexed_skip_of), the game is counted as read without its text being
 * read, and job holds what its searches left. Else the game is read
 * (read_job) and searched for the queries not settled. The messages of the
 * games after a skipped one keep their lines: the reader goes on at the
 * next game's line. */
bool skip_game(Emitter *e, Worker *w, GameJob *job, bool from_codes);

/* Fills slot s with the next piece of the inputs, on the thread that holds
 * the reading role (read_tail: a worker for chunks and the games read one
 * by one after them; the main thread, with `reading`, for a range, a
 * sidecar's games, and to open the next input). READ_LATER: what comes
 * next (*next) waits until every chunk before it is numbered and none
 * overran. */
ReadOutcome read_slot(Emitter *e, Ring *p, Slot *s, ReadNext *next, Worker *reading);

/* Can the sidecar of some input rule games out for some query of the run? */
bool sidecar_rules_out(const CqlRun *r);

/* }==== */

#endif
