/*
 * src/cli/pipeline.h — the game loop of a run: games read, searched and
 * written in input order, on one thread or many.
 *
 * The calling thread reads the input in chunks, pieces that begin between
 * two games, into a ring of slots, and writes finished slots in input order.
 * Worker threads take ready slots, split their chunk into games, number the
 * games in input order, parse and search them, and leave the PGN text of
 * each matching game (and any messages about it) in the slot. A chunk whose
 * end turns out not to be between two games (an unclosed variation before
 * a tag line ...) is read again from its last game on, by the calling
 * thread; so is a game too long for a chunk. With -part the calling thread
 * reads the games one by one (the part's games are found by their lines).
 * With one thread everything runs on the calling thread, game by game. The
 * output is byte-identical for any number of threads.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CLI_PIPELINE_H
#define CQL_CLI_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/output_file.h"
#include "cli/progress.h"
#include "cql.h"

/* What the loop works with. */
typedef struct PipelineSetup {
    const CqlQuery *query;
    CqlReader *reader;
    OutputFile *out;         /* matching games go here; the first failed write stops the loop */
    CqlMessages *messages;   /* where messages about the games go, in input order */
    FILE *notes;             /* where -showmatches and `message` print */
    bool showmatches;        /* print <N> for each matching game */
    long threads;            /* 1: everything on the calling thread */
    long limit;              /* stop after this many matching games (0: no limit) */
    Progress *progress;      /* told after each game, or NULL */
    long first_line;         /* -part: only games starting on this input line or later ... */
    long end_line;           /* ... and before this one (0: to the end) */
    size_t chunk_bytes;      /* input a worker splits at once (0: the default) */
} PipelineSetup;

/* What a run did. */
typedef struct PipelineTotals {
    long games;              /* games read */
    long matches;            /* games written */
    long pgn_errors;         /* games with a problem in their PGN */
    uint64_t bytes;          /* game text read */
    long threads;            /* the threads that ran the loop: those asked for, or
                                fewer when no more could start */
    bool limit_reached;      /* stopped at the -limit */
    bool runtime_error;      /* the query stopped the run (a failed `assert`,
                                a value-only filter as a position filter ...): exit 1 */
} PipelineTotals;

/* Reads every game (up to the query's game-number range), searches it and
 * writes the matches, sorted at the end when the query sorts. Messages about
 * the games go to p->messages in input order, whichever thread read the
 * game. With one thread, the persistent variables are appended to
 * *persistent at the end. */
void pipeline_run(const PipelineSetup *p, PipelineTotals *totals, CqlText *persistent);

#endif
