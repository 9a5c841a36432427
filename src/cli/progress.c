/*
 * src/cli/progress.c — the live progress line and the -lineincrement lines
 * (see progress.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/progress.h"

/* The live line appears once the run has lasted this long, and is redrawn
 * this often. */
#define PROGRESS_FIRST 1.0
#define PROGRESS_EVERY 0.25

static double elapsed(const Progress *p)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - p->start.tv_sec) + (double)(now.tv_nsec - p->start.tv_nsec) / 1e9;
}

void progress_start(Progress *p, FILE *out, bool live, bool forced, long lineincrement, uint64_t total_bytes)
{
    p->out = out;
    p->live = live || forced;
    p->lineincrement = lineincrement;
    p->total_bytes = total_bytes;
    p->next_refresh = forced ? 0 : PROGRESS_FIRST;
    p->shown = false;
    clock_gettime(CLOCK_MONOTONIC, &p->start);
}

static void draw(Progress *p, double secs, long games, long matches, uint64_t bytes)
{
    fprintf(p->out, "\r%ld games, %ld matches, %.0f games/s", games, matches, secs > 0 ? (double)games / secs : 0.0);
    if (p->total_bytes && bytes <= p->total_bytes) {
        double done = (double)bytes / (double)p->total_bytes;
        fprintf(p->out, ", %.0f%%", done * 100);
        if (done > 0.001) {
            long left = (long)(secs / done - secs + 0.5);
            fprintf(p->out, ", %ld:%02ld left", left / 60, left % 60);
        }
    }
    fputs("\033[K", p->out);   /* clear what a longer line left */
    fflush(p->out);
    p->shown = true;
}

void progress_update(Progress *p, long games, long matches, uint64_t bytes)
{
    if (p->lineincrement && games % p->lineincrement == 0) {
        if (p->shown) fputs("\r\033[K", p->out);
        p->shown = false;
        fprintf(p->out, "%ld games examined, %ld matches\n", games, matches);
        fflush(p->out);
    }
    if (!p->live || (games & 63) != 0) return;   /* the clock a few times per 64 games */
    double secs = elapsed(p);
    if (secs < p->next_refresh) return;
    p->next_refresh = secs + PROGRESS_EVERY;
    draw(p, secs, games, matches, bytes);
}

void progress_end(Progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", p->out);
        fflush(p->out);
    }
    p->shown = false;
}
