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
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/arena.h"
#include "base/diag.h"
#include "chess/attacks.h"
#include "pgn/game.h"
#include "pgn/reader.h"
#include "pgn/writer.h"

static void discard(void *ctx, DiagSeverity sev, const char *text)
{
    (void)ctx;
    (void)sev;
    (void)text;
}

static long count_plies(const GameNode *n)
{
    long plies = 0;
    while (n) {               /* the main line, plus every variation recursively */
        for (const GameNode *v = n->sibling; v && n->parent && n == n->parent->child; v = v->sibling)
            plies += 1 + count_plies(v->child);
        if (n->parent) plies++;
        n = n->child;
    }
    return plies;
}

static bool same_comments(const Comment *a, const Comment *b)
{
    for (; a && b; a = a->next, b = b->next)
        if (strcmp(a->text, b->text) != 0) return false;
    return !a && !b;
}

/* Same moves, glyphs and comments everywhere in the two trees. */
static bool same_tree(const GameNode *a, const GameNode *b)
{
    for (; a && b; a = a->sibling, b = b->sibling) {
        if (a->move != b->move || a->nag_count != b->nag_count ||
            (a->nag_count && memcmp(a->nags, b->nags, a->nag_count) != 0) ||
            !same_comments(a->comments, b->comments) ||
            !same_comments(a->pre_comments, b->pre_comments) || !same_tree(a->child, b->child))
            return false;
    }
    return !a && !b;
}

static bool same_tags(const Game *a, const Game *b)
{
    for (int i = 0; i < a->tag_count; i++) {
        const char *v = game_tag(b, a->tags[i].name);
        if (!v || strcmp(v, a->tags[i].value) != 0) return false;
    }
    return true;
}

/* Writes g, reads it back, compares. */
static bool round_trip(const Game *g, Arena *arena, DiagSink *diag)
{
    StrBuf text = SB_INIT;
    pgn_write_game(g, NULL, &text);
    RawGame raw;
    raw_game_init(&raw);
    sb_append(&raw.text, sb_str(&text));
    raw.first_line = 1;
    raw.number = g->number;
    Game back;
    PgnParseStatus st = pgn_parse_game(&raw, "<round trip>", arena, &back, diag);
    bool ok = st == PGN_OK && same_tree(g->root, back.root) && same_tags(g, &back) &&
              same_comments(g->root->comments, back.root->comments);
    if (!ok) fprintf(stderr, "round trip differs for game %ld:\n%s", g->number, sb_str(&text));
    raw_game_free(&raw);
    sb_free(&text);
    return ok;
}

int main(int argc, char **argv)
{
    att_init();
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
        DiagSink diag;
        diag_sink_init(&diag, quiet ? discard : NULL, NULL);
        PgnReader r;
        if (pgn_open(&r, argv[i], &diag) != 0) {
            status = 2;
            continue;
        }
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        Arena arena;
        arena_init(&arena, 256 * 1024);
        RawGame raw;
        raw_game_init(&raw);
        long games = 0, damaged = 0, unusable = 0, plies = 0, trips = 0;
        while (pgn_next_raw(&r, &raw)) {
            Game g;
            PgnParseStatus st = pgn_parse_game(&raw, r.name, &arena, &g, &diag);
            games++;
            if (st == PGN_DAMAGED) damaged++;
            if (st == PGN_UNUSABLE) unusable++;
            plies += count_plies(g.root);
            if (roundtrip && st == PGN_OK) {
                trips++;
                if (!round_trip(&g, &arena, &diag)) status = 1;
            }
            arena_reset(&arena);
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
        raw_game_free(&raw);
        arena_free(&arena);
        pgn_close(&r);
    }
    return status;
}
