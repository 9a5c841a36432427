/*
 * src/cli/summary_merge.h — `cql -summary-merge FILE...`: the -summary json
 * lines of the parts of a run (-part K/N, one job per file, on one machine
 * or many) added up into one line of the same form (docs/across-machines.md).
 *
 * Each FILE ("-": standard input) is what cql printed with -summary json,
 * other lines and all: a line whose first character that is not a blank is
 * '{' is a summary, the other lines are passed over. Counts (matches,
 * games, pgn_errors) and threads are added up; seconds too, the longest
 * kept as seconds_longest; limit_reached is true when it is in any; output
 * is the one output all name, else the list of those named. The summaries
 * of a run of several queries name their query ("query"): they are added
 * up query by query, a line per query (in the order first read). Summaries of
 * parts must hold every part of each N as often as the others (a missing
 * part is a job that failed). A summary that is not what -summary json
 * writes is an error naming FILE:LINE:COL; so is a file without one.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CLI_SUMMARY_MERGE_H
#define CQL_CLI_SUMMARY_MERGE_H

#include <stdio.h>

#include "cli/options.h"
#include "cql.h"

/* Merges the summaries of files[0..count) and prints the total on out.
 * EXIT_RAN, or EXIT_USAGE after reporting through m. */
ExitCode summary_merge(const char *const *files, int count, FILE *out, CqlMessages *m);

#endif
