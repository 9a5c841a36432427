/*
 * src/lib/pipeline.h — the engine of a run (include/cql.h, CqlRun): its
 * inputs read in order, its games searched on one thread or many, each
 * game handed to the caller in input order.
 *
 * The calling thread reads the inputs in chunks, pieces that begin between
 * two games, into a ring of slots, and hands finished slots over in input
 * order. Worker threads take ready slots, split their chunk into games,
 * number the games in input order, parse and search them, and leave the
 * PGN text of each matching game (and any messages about it) in the slot.
 * A chunk whose end turns out not to be between two games (an unclosed
 * variation before a tag line ...) is read again from its last game on, by
 * the calling thread; so is a game too long for a chunk. An input is begun
 * once every chunk of the one before it is split (none of them can then be
 * read again). With a range of lines (a part of a file) the calling thread
 * reads the games one by one (the range's games are found by their lines);
 * so it does with a sidecar index that may rule games out, asking it about
 * each game first and jumping over those ruled out, until it finds that
 * fewer than half are (then it takes chunks again).
 * With one thread everything runs on the calling thread, game by game. What
 * the caller is handed is the same for any number of threads. A slot handed
 * over may be held by the caller (its matches' texts written by a thread of
 * its own): it is read into again once released.
 *
 * A run of several queries reads, splits, parses and replays each game once
 * (through a gate that lets through a game any of them may match) and
 * searches it with each query that still wants games; each query's games,
 * totals, limit, sort and stop are its own, as in a run of it alone. The
 * run reads on until every query is done.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_LIB_PIPELINE_H
#define CQL_LIB_PIPELINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cql.h"
#include "query/settings.h"

/* One input of a run: a path it opens, a stream of the caller's, or a
 * source the caller opens when the run comes to it. */
typedef struct RunInput {
    char *name;                 /* in messages */
    char *path;                 /* a path the run opens, or NULL */
    FILE *stream;               /* a stream of the caller's, or NULL */
    CqlOpenFn open;             /* a source, or NULL */
    CqlCloseFn close;
    void *ctx;
    bool ranged;                /* only the games from byte `from` to `to` (cql_run_add_range) */
    uint64_t from, to;
    long first_line, end_line;  /* that range as lines: games from first_line and before
                                   end_line (0: to the end), worked out by pipeline_open */
    FILE *source_fp;            /* a source's stream while it is read */
    CqlReader *reader;          /* while it is read */
    bool ended;                 /* its reader met the end of its text */
    bool done;                  /* read, and closed */
    CqlIndex *index;            /* its fresh sidecar index, or NULL (lib/indexed.h) */
} RunInput;

typedef struct IndexedQuery IndexedQuery;

/* One query of a run, and what the run did for it. */
typedef struct RunQuery {
    const CqlQuery *query;
    atomic_bool finished;       /* its games no longer matter (its limit, its runtime error, its
                                   game-number range, a cancel): searched no more */
    atomic_bool cancelled;      /* cql_run_cancel_query */
    bool stopped;               /* it stopped (a runtime error ...) */
    CqlRunTotals totals;
    CqlText stop_error;         /* totals.error's text */
    CqlText persistent;         /* after a run on one thread */
    IndexedQuery *indexed;      /* its use of the inputs' sidecars, when one is open */
    long conditions_asked;      /* game records its sidecar condition was asked about, by every
                                   thread: at most once each (the main thread's answers go
                                   with the game to the worker that reads it) */
} RunQuery;

struct CqlRun {
    RunQuery **queries;         /* [0]: cql_run_new's, then cql_run_add_query's */
    int nqueries, queries_cap;
    CqlMessages *messages;      /* NULL: standard error */
    Settings settings;          /* threads, limit, part ... (query/settings.def) */
    RunInput *inputs;
    int ninputs, inputs_cap;
    /* the callbacks */
    CqlRunGameFn on_game, on_match;
    void *game_ctx, *match_ctx;
    bool match_positions;
    CqlRunProgressFn on_progress;
    void *progress_ctx;
    CqlRunBatchFn on_batch_end;
    void *batch_ctx;
    /* the run's state */
    bool opened, open_failed, started;
    atomic_bool cancelled;
    bool read_failed;           /* an input could not be opened or read to its end */
    uint64_t pgn_read;          /* bytes read of the inputs closed so far (CqlRunTotals) */
    bool stopped;               /* a query stopped */
    struct Ring *ring;          /* its worker threads' ring, while they run */
    struct Slot *batch;         /* the slot whose games are being handed over, which the
                                   caller may hold (cql_run_hold_batch); NULL: none, or a
                                   batch that cannot be held (one thread, sorted matches) */
};

/* Works out the line ranges of the inputs (the setting `part` makes the one
 * input's) and opens the first input. False after reporting. */
bool pipeline_open(CqlRun *r);

/* Reads every game (up to the query's game-number range, the limit or a
 * cancel), searches it and hands it over; the matches sorted at the end when
 * the query sorts. */
void pipeline_run(CqlRun *r);

/* Closes the inputs still open (a run stopped early, or never started). */
void pipeline_close_inputs(CqlRun *r);

/* cql_run_hold_batch and cql_run_release (include/cql.h). */
CqlRunHold *pipeline_hold_batch(CqlRun *r);
void pipeline_release(CqlRun *r, CqlRunHold *hold);

#endif
