/*
 * src/cli/run.h — one run of cql: compile the query, read every game, search
 * it, write the matching games, print the summary line.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CLI_RUN_H
#define CQL_CLI_RUN_H

#include "cli/options.h"
#include "cql.h"

/* Runs cql with the parsed options; returns the process exit status.
 * Messages go to m. */
ExitCode run(const CliOptions *o, CqlMessages *m);

#endif
