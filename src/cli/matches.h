/*
 * src/cli/matches.h — cql -matches FILE: one record per matched position,
 * in the order the games are written, as JSON Lines, TSV with a header
 * line, or EPD (docs/matches.md has the schema). Each matching game's
 * records are written as the run hands it over, through an OutputFile
 * (the same safety as the PGN output).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CLI_MATCHES_H
#define CQL_CLI_MATCHES_H

#include <stdbool.h>

#include "cli/output_file.h"
#include "cql.h"

typedef enum MatchFormat { MATCH_JSONL, MATCH_TSV, MATCH_EPD } MatchFormat;

/* The form of the records: `named` (-matchformat) when given, else by the
 * file's extension (.jsonl or .json, .tsv, .epd); JSON Lines for standard
 * output. False after reporting an unknown one. */
bool matches_format(const char *named, const char *file, MatchFormat *format, CqlMessages *m);

typedef struct MatchesFile {
    OutputFile out;
    MatchFormat format;
    CqlText text;        /* one game's records, before they are written */
    CqlText game;        /* the fields of its game, the same in each of them */
} MatchesFile;

/* Opens the file as output_open does. Returns 0, or -1 after reporting. */
int matches_open(MatchesFile *f, const char *name, MatchFormat format, const OutputInputs *inputs,
                 bool noclobber, CqlMessages *m);
/* Writes the records of a matching game (its positions and tags, which
 * the run gives when asked: cql_run_on_match). False once a write failed. */
bool matches_write_game(MatchesFile *f, const CqlRunGame *g);
/* Closes it as output_close does (ok: the run succeeded). 0 when complete. */
int matches_close(MatchesFile *f, bool ok, CqlMessages *m);

/* The value of a game's tag `name` (the first of that name), or NULL. */
const char *match_tag(const CqlRunGame *g, const char *name);

#endif
