/*
 * tests/tools/tool_replay.c — reads a PGN file and replays every game: the
 * "read + replay" benchmark of `make bench`, and a PGN health check.
 *
 *   tool_replay FILE...     prints, per file: games, games with errors, plies,
 *                           seconds, games/s and MB/s (one thread)
 *   tool_replay -q FILE...  also suppresses the per-game messages
 *   tool_replay --roundtrip FILE...
 *                           also writes every well-formed game, reads it back and
 *                           checks that the tree, comments, NAGs and tags are the
 *                           same; exits 1 on any difference
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cql.h"

static void discard(void *ctx, CqlSeverity sev, const char *text)
{
    (void)ctx;
    (void)sev;
    (void)text;
}

/* Writes g, reads it back into `back`, compares. */
static bool round_trip(const CqlGame *g, CqlGame *back, CqlGameText *text, CqlMessages *messages)
{
    CqlText written = {NULL, 0, 0};
    cql_game_write(g, &written);
    cql_game_text_set(text, written.data, written.len, cql_game_number(g));
    CqlGameStatus st = cql_game_parse(back, text, "<round trip>", messages);
    bool ok = st == CQL_GAME_OK && cql_game_same(g, back);
    if (!ok) fprintf(stderr, "round trip differs for game %ld:\n%s", cql_game_number(g), written.data);
    cql_text_free(&written);
    return ok;
}

int main(int argc, char **argv)
{
    bool quiet = false, roundtrip = false;
    int status = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-q") == 0) {
            quiet = true;
            continue;
        }
        if (strcmp(argv[i], "--roundtrip") == 0) {
            roundtrip = true;
            continue;
        }
        CqlMessages messages = {quiet ? discard : NULL, NULL, 0, 0};
        CqlReader *r = cql_reader_open(argv[i], &messages);
        if (!r) {
            status = 2;
            continue;
        }
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CqlGameText *text = cql_game_text_new(), *written = cql_game_text_new();
        CqlGame *g = cql_game_new(), *back = cql_game_new();
        long games = 0, damaged = 0, unusable = 0, plies = 0, trips = 0;
        while (cql_reader_next(r, text, &messages)) {
            CqlGameStatus st = cql_game_parse(g, text, cql_reader_name(r), &messages);
            games++;
            if (st == CQL_GAME_DAMAGED) damaged++;
            if (st == CQL_GAME_UNUSABLE) unusable++;
            int positions = cql_game_positions(g);
            if (positions > 0) plies += positions - 1;   /* every move, variations too */
            if (roundtrip && st == CQL_GAME_OK) {
                trips++;
                if (!round_trip(g, back, written, &messages)) status = 1;
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        struct stat st;
        double mb = stat(argv[i], &st) == 0 ? (double)st.st_size / 1e6 : 0;
        printf("%s: %ld games, %ld damaged, %ld unusable, %ld plies, %.3f s, %.0f games/s, "
               "%.1f MB/s, %.1f M plies/s\n",
               argv[i], games, damaged, unusable, plies, secs, secs > 0 ? games / secs : 0,
               secs > 0 ? mb / secs : 0, secs > 0 ? plies / secs / 1e6 : 0);
        if (roundtrip) printf("%s: %ld games written and read back\n", argv[i], trips);
        cql_game_free(g);
        cql_game_free(back);
        cql_game_text_free(text);
        cql_game_text_free(written);
        cql_reader_close(r);
    }
    return status;
}
