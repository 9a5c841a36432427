/*
 * src/cli/input.h — the games a run reads, as people have them: several
 * files read in order (games numbered on across them), directories (their
 * *.pgn files in name order), and compressed files (gzip, bzip2, xz, zstd,
 * known by their first bytes) read through the system's decompressor.
 *
 * Each file is an input of the run (include/cql.h): a plain file by its
 * path, a compressed one as a source, the output of its decompressor (a
 * child process) started when the run comes to it. Standard input is known
 * as compressed by its first bytes too.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CLI_INPUT_H
#define CQL_CLI_INPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cql.h"

typedef struct InputSet InputSet;

typedef struct InputFile {
    char *path;                 /* "-" = standard input */
    const char *decompressor;   /* "gzip", "bzip2", "xz", "zstd", or NULL */
    uint64_t size;              /* bytes on disk (0: unknown, standard input) */
    long pump;                  /* standard input: the pid of the process that gives
                                   back its first bytes, which were looked at, then
                                   the rest, through file descriptor 0; or 0 */
    int warned_status;          /* the decompressor's exit status for "read, with a
                                   warning" (gzip: 2), or 0 */
    FILE *stream;               /* standard input read afresh (after a pump), or NULL */
    long child;                 /* the running decompressor's pid, or 0 */
    InputSet *set;
} InputFile;

struct InputSet {
    InputFile *files;
    int count;
    uint64_t total_size;        /* of the plain files, 0 when one is unknown or compressed */
    bool total_known;
    char *failure;              /* the first problem of a decompressor */
};

/* Expands the names given (-i, in order; directories to their PGN files)
 * and checks each: it exists, it is no binary file, its decompressor is
 * installed. Returns 0, or -1 after reporting. */
int input_expand(InputSet *in, const char *const *given, int count, CqlMessages *m);

/* The files of directory `dir` whose names end in one of the suffixes (in
 * any case), hidden ones left out, as paths DIR/NAME in name order: an
 * array of *count malloc'd paths (free each, and it). NULL after reporting
 * that the directory cannot be read (`what`: "input", "query" ...). */
char **input_list_directory(const char *dir, const char *const *suffixes, size_t nsuffixes, const char *what,
                            int *count, CqlMessages *m);

/* Adds the files to the run as its inputs. False after reporting. */
bool input_add_to_run(InputSet *in, CqlRun *run, CqlMessages *m);

/* After the run: reports what went wrong with a decompressor. False when an
 * input could not be read to its end. */
bool input_finish(InputSet *in, CqlMessages *m);

void input_free(InputSet *in);

#endif
