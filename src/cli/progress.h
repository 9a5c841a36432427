/*
 * src/cli/progress.h — what a long run shows while it works: a live line on
 * a terminal (games read, matches, games per second, how far through the
 * input and the time left when its size is known), refreshed a few times a
 * second and erased at the end; and CQL 6.2's -lineincrement lines.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CLI_PROGRESS_H
#define CQL_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

typedef struct Progress {
    FILE *out;                 /* standard error */
    bool live;                 /* the live line */
    long lineincrement;        /* a line every N games, 0: none */
    uint64_t total_bytes;      /* of the input, 0 when unknown */
    struct timespec start;
    double next_refresh;       /* seconds since start */
    bool shown;                /* the live line is on the screen */
} Progress;

/* live: show the live line (a terminal), after the first second; forced
 * (-progress): from the first games on. */
void progress_start(Progress *p, FILE *out, bool live, bool forced, long lineincrement, uint64_t total_bytes);
/* After each game: the totals so far and the bytes of game text read. */
void progress_update(Progress *p, long games, long matches, uint64_t bytes);
/* Erases the live line. */
void progress_end(Progress *p);

#endif
