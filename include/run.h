/*
 * include/run.h — one run of cql: load the query, read every game, search it,
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

#include "cli.h"
#include "diag.h"

/* Runs cql with the parsed options; returns the process exit status. */
ExitCode run(const CliOptions *o, DiagSink *d);

#endif
