/*
 * src/cli/options.h — command-line options of the cql program and its exit codes.
 *
 * Options take one or two leading hyphens and are matched without regard to
 * case, as CQL 6.2 does; the query file comes last. Option values are kept
 * as pointers into argv.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CLI_OPTIONS_H
#define CQL_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cql.h"

/* Exit status of the cql program (ARCHITECTURE.md, shown by -help). */
typedef enum ExitCode {
    EXIT_RAN = 0,        /* the run finished, whether or not anything matched */
    EXIT_QUERY = 1,      /* the query has an error (no game was read), or it stopped the
                            run: a value-only filter evaluated as a position filter */
    EXIT_USAGE = 2,      /* bad options, or a file could not be read or written */
    EXIT_PGN_STRICT = 3  /* the input had PGN errors and --strict was given */
} ExitCode;

/* An inclusive range given as `N` or `N M`. */
typedef struct Range {
    bool set;
    long min, max;
} Range;

#define CLI_MAX_CQL 32

typedef struct CliOptions {
    const char *query_file;     /* last argument; NULL with -cql only */
    const char *cql[CLI_MAX_CQL];  /* -cql texts, in order */
    int cql_count;
    const char *input;          /* -i / -input */
    const char *output;         /* -o / -output */
    const char *matchstring;    /* -matchstring (NULL: not given) */
    const char *fen;            /* -fen: search this one position */
    const char *result;         /* -result */
    Range gamenumber;
    Range matchcount;
    long threads;               /* -threads N; 0 = one per core */
    size_t max_game_size;       /* -maxgamesize BYTES; 0 = the reader's default */
    bool variations, mainline, silent, quiet, showmatches, noheader, strict;
    bool alwayscomment;
    bool parse, to_ascii, to_unicode, dump_orbit;
    bool flip, flipcolor, shift, reversecolor, fliphorizontal, flipvertical;
    bool rotate90, rotate45, shifthorizontal, shiftvertical;
    bool help, version, singlethreaded;
} CliOptions;

/* Fills *o from argv. Returns EXIT_RAN, or EXIT_USAGE after reporting. */
ExitCode cli_parse(int argc, char **argv, CliOptions *o, CqlMessages *m);
void cli_print_help(FILE *out);
void cli_print_version(FILE *out);

#endif
