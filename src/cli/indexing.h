/*
 * src/cli/indexing.h — `cql -index games.pgn`: the sidecar index of PGN
 * files (games.pgn.cqlx, or -indexfile), written through a temporary file
 * renamed into place (output_file.h) with the progress line, never over a
 * file that is not a sidecar index (docs/index.md).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CLI_INDEXING_H
#define CQL_CLI_INDEXING_H

#include "cli/options.h"
#include "cql.h"

/* Indexes the PGN files of -i and the last argument (plain files, or the
 * *.pgn of a directory), one sidecar each, with a line per file on
 * standard output. EXIT_RAN, or EXIT_USAGE after reporting. */
ExitCode index_files(const CliOptions *o, CqlMessages *m);

#endif
