/*
 * src/cli/report.h — cql -report FILE.html: one self-contained page (inline
 * CSS and SVG, no script, nothing from the network) with the query
 * coloured, the inputs, the counts and the time, a bar chart of the
 * matched positions by move number, and for each matching game (up to
 * -reportlimit; every game is counted) its tags, its moves with the
 * matched ones highlighted and linked, and a board for every matched
 * position: the move into it marked, the side to move, the comments the
 * query wrote there.
 *
 * The page is written as the run goes, in bounded memory (one game at a
 * time and a count per move number): its header (the query, the inputs)
 * when it is opened, each game's section as the run hands the game over,
 * and at the end the totals and the chart, which the page's CSS shows
 * under the header, before the games.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CLI_REPORT_H
#define CQL_CLI_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/output_file.h"
#include "cql.h"

/* Games shown without -reportlimit. */
enum { REPORT_DEFAULT_LIMIT = 200 };

typedef struct Report {
    OutputFile out;
    long limit;               /* games shown */
    long games;               /* matching games handed over */
    long shown;
    long positions;           /* matched positions in all of them */
    long *by_move;            /* matched positions by move number (the last: that one and later) */
    int max_move;             /* the largest move number counted */
    CqlGame *game;            /* a match read back for its moves */
    CqlGameText *game_text;
    CqlText text;             /* one game's section */
    CqlText scratch;
} Report;

/* What the page's header says about the run. */
typedef struct ReportHead {
    const char *query_name;   /* the query file, or NULL (-cql) */
    const CqlQuery *query;    /* its text, and the options' filters (-cql, -player ...) */
    const char *const *inputs;
    int ninputs;
    const char *pgn_output;   /* where the games go */
} ReportHead;

/* Opens the page as output_open opens a file and writes its header; limit:
 * the games shown (negative: REPORT_DEFAULT_LIMIT). Returns 0, or -1 after
 * reporting. */
int report_open(Report *r, const char *name, long limit, const ReportHead *head, const OutputInputs *inputs,
                bool noclobber, CqlMessages *m);
/* Counts a matching game, and writes its section while fewer than the
 * limit are shown. Needs its positions and tags (cql_run_on_match). False
 * once a write failed. */
bool report_game(Report *r, const CqlRunGame *g);
/* Ends the page with the totals of the run and the chart (when ok: the run
 * succeeded) and closes it as output_close does. 0 when complete. */
int report_close(Report *r, bool ok, const CqlRunTotals *totals, double seconds, CqlMessages *m);

#endif
