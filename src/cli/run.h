/*
 * src/cli/run.h — one run of cql: load the query, read every game, search it,
 * write the matching games, print the summary line.
 *
 * Threads: the calling thread splits the input into game texts and writes
 * results in input order; worker threads parse, replay and search games. The
 * output is byte-identical for any number of threads.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_RUN_H
#define CQL_RUN_H

#include "base/diag.h"
#include "cli/options.h"
#include "eval/eval.h"
#include "pgn/game.h"
#include "query/ast.h"

/* What a run looks for: the query and the settings that decide which games
 * match, from the query header overridden by the command line. */
typedef struct Search {
    const Query *query;
    EvalSettings eval;          /* variations, matchstring, silent ... */
    bool noheader;              /* no {Game number N} */
    int64_t matchcount_min;     /* matched positions a game needs */
    int64_t matchcount_max;
    Range gamenumber;           /* games to examine (default all) */
    const char *result;         /* only games with this result, or NULL */
    bool sorting;               /* keep matches and sort them at the end */
    bool sort_by_matchcount;
    const char *input_name;     /* as shown in messages */
} Search;

/* Settings from the query header, overridden by the command line. */
void search_init(Search *s, const CliOptions *o, const Query *q);

/* Searches game g with ev (a GameSearch tells the matched positions and the
 * notes to write); true when the game matches: its result is the one asked
 * for and its number of matched positions is inside matchcount. */
bool search_matches(const Search *s, Evaluator *ev, const Game *g, Arena *a, GameSearch *found,
                    StrBuf *printed);

/* Runs cql with the parsed options; returns the process exit status. */
ExitCode run(const CliOptions *o, DiagSink *d);

/* Appends a matching game to out as cql writes it: "Game number N" (and the
 * sort value) joined to the initial position's note, the notes the search
 * made, and the tags the query set. */
void search_write_game(const Search *s, const Game *g, GameSearch *found, Arena *a, StrBuf *out);

#endif
