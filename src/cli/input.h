/*
 * src/cli/input.h — the games a run reads, as people have them: several
 * files read in order (games numbered on across them), directories (their
 * *.pgn files in name order), and compressed files (gzip, bzip2, xz, zstd,
 * known by their first bytes) read through the system's decompressor.
 *
 * One plain file, or standard input, is read directly. Anything else is
 * fed into one stream by a feeding thread (a decompressor writes into it
 * as a child process), and the messages about the stream are turned back
 * into FILE:LINE of the file they are about. Standard input is known as
 * compressed by its first bytes too.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CLI_INPUT_H
#define CQL_CLI_INPUT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cql.h"

typedef struct InputFile {
    char *path;                 /* "-" = standard input */
    const char *decompressor;   /* "gzip", "bzip2", "xz", "zstd", or NULL */
    uint64_t size;              /* bytes on disk (0: unknown, standard input) */
    long pump;                  /* standard input: the pid of the process that gives
                                   back its first bytes, which were looked at, then
                                   the rest, through file descriptor 0; or 0 */
    int warned_status;          /* the decompressor's exit status for "read, with a
                                   warning" (gzip: 2), or 0 */
} InputFile;

/* Where a file begins in the fed stream: for the messages. */
typedef struct InputBoundary {
    long first_line;            /* the stream's line number of the file's line 1 */
    const char *path;
} InputBoundary;

typedef struct InputSet {
    InputFile *files;
    int count;
    uint64_t total_size;        /* of the plain files, 0 when one is unknown or compressed */
    bool total_known;
    /* the fed stream */
    CqlReader *reader;
    FILE *stream;               /* read end */
    int feed_fd;                /* write end (the feeding thread's) */
    pthread_t feeder;
    bool feeding;
    pthread_mutex_t mu;         /* guards what follows */
    InputBoundary *bounds;
    int nbounds, bounds_cap;
    long child;                 /* the running decompressor's pid, or 0 */
    bool stopping;              /* the reader stopped early: the feeder gives up */
    char *failure;              /* the first problem the feeder met */
    /* messages about the stream, rewritten to the file they are about */
    CqlMessages *target;
    CqlMessages rewrite;
} InputSet;

/* Expands the names given (-i, in order; directories to their PGN files)
 * and checks each: it exists, it is no binary file, its decompressor is
 * installed. Returns 0, or -1 after reporting. */
int input_expand(InputSet *in, const char *const *given, int count, CqlMessages *m);

/* Opens the reader over all the files. Messages about the games are to go
 * to *messages_out, which passes them on to m (rewritten as FILE:LINE). */
CqlReader *input_open(InputSet *in, CqlMessages *m, CqlMessages **messages_out);

/* Stops the feeding (the reader may have stopped early), closes the reader
 * and reports what went wrong in the feeding. False when the input could
 * not be read to the end (and the reader was not stopped early on purpose). */
bool input_close(InputSet *in, bool stopped_early, CqlMessages *m);

void input_free(InputSet *in);

#endif
