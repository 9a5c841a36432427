/*
 * tests/unit/gated_both_ways.h — a game parsed through a gate
 * (pgn_parse_game_gated) and without one: the messages, the status, the
 * tags, the result and where the game was cut must be the same, and a game
 * the gate did not shut out must have the same tree. Used by
 * tests/unit/test_pgn.c and the fuzz harness tests/fuzz/fuzz_pgn.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_TESTS_GATED_BOTH_WAYS_H
#define CQL_TESTS_GATED_BOTH_WAYS_H

#include <stdbool.h>
#include <string.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "pgn/game.h"
#include "pgn/reader.h"

static void gated_capture(void *ctx, DiagSeverity sev, const char *text)
{
    sb_printf((StrBuf *)ctx, "[%d] %s", (int)sev, text);
}

static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* The same tags in the same order (and known as plain alike). */
static bool same_tags(const Game *a, const Game *b)
{
    if (a->tag_count != b->tag_count) return false;
    for (int i = 0; i < a->tag_count; i++) {
        const Tag *x = &a->tags[i], *y = &b->tags[i];
        if (strcmp(x->name, y->name) != 0 || strcmp(x->value, y->value) != 0 || x->plain != y->plain ||
            (x->plain && x->value_len != y->value_len))
            return false;
    }
    return true;
}

/* Parses raw both ways; false when they differ, with what differs in *why.
 * *skipped tells whether the gate shut the game out. */
static bool gated_same_as_ungated(const RawGame *raw, const PgnGate *gate, bool *skipped, StrBuf *why)
{
    Arena a, b;
    arena_init(&a, 64 * 1024);
    arena_init(&b, 64 * 1024);
    StrBuf plain_messages = SB_INIT, gated_messages = SB_INIT;
    DiagSink plain_sink, gated_sink;
    diag_sink_init(&plain_sink, gated_capture, &plain_messages);
    diag_sink_init(&gated_sink, gated_capture, &gated_messages);
    Game plain, gated;
    PgnParseStatus plain_status = pgn_parse_game(raw, "t.pgn", &a, &plain, &plain_sink);
    PgnParseStatus gated_status = pgn_parse_game_gated(raw, "t.pgn", &b, &gated, &gated_sink, gate);
    *skipped = gated.moves_skipped;
    bool same = true;
    if (plain_status != gated_status || plain_messages.len != gated_messages.len ||
        memcmp(sb_str(&plain_messages), sb_str(&gated_messages), plain_messages.len) != 0) {
        sb_printf(why, "status %d, messages:\n%s---- through the gate: status %d, messages:\n%s", (int)plain_status,
                  sb_str(&plain_messages), (int)gated_status, sb_str(&gated_messages));
        same = false;
    } else if (!same_text(plain.result, gated.result) || plain.truncated != gated.truncated ||
               !same_text(plain.unread_text, gated.unread_text) || !same_tags(&plain, &gated)) {
        sb_printf(why, "result %s, truncated %d; through the gate: result %s, truncated %d (or other tags)",
                  plain.result ? plain.result : "none", plain.truncated, gated.result ? gated.result : "none",
                  gated.truncated);
        same = false;
    } else if (gated.moves_skipped ? gated.node_count != 1 || gated.root->child != NULL
                                   : !game_same_moves(&plain, &gated) || plain.node_count != gated.node_count) {
        sb_printf(why, "%s", gated.moves_skipped ? "a game shut out has a tree" : "another tree through the gate");
        same = false;
    }
    sb_free(&plain_messages);
    sb_free(&gated_messages);
    arena_free(&a);
    arena_free(&b);
    return same;
}

#endif
