/*
 * src/cli/pipeline.h — the game loop of a run: games read, searched and
 * written in input order, on one thread or many.
 *
 * The calling thread reads game texts into a ring of job slots and writes
 * finished slots in input order; worker threads take ready slots, parse and
 * search them, and leave the PGN text of a matching game (and any messages
 * about the game) in the slot. With one thread everything runs on the
 * calling thread. The output is byte-identical for any number of threads.
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
} PipelineSetup;

/* What a run did. */
typedef struct PipelineTotals {
    long games;              /* games read */
    long matches;            /* games written */
    long pgn_errors;         /* games with a problem in their PGN */
    uint64_t bytes;          /* game text read */
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
