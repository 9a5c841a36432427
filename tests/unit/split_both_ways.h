/*
 * tests/unit/split_both_ways.h — a PGN text split into games one after
 * another (pgn_next_raw), and in chunks as the worker threads split it
 * (pgn_take_chunk, pgn_chunk_next, pgn_give_back), each written out as the
 * games' numbers, lines, columns and texts and the messages, in order: the
 * two must be the same. Used by tests/unit/test_pgn.c and the fuzz harness
 * tests/fuzz/fuzz_pgn.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_TESTS_SPLIT_BOTH_WAYS_H
#define CQL_TESTS_SPLIT_BOTH_WAYS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "pgn/reader.h"

static void split_capture(void *ctx, DiagSeverity sev, const char *text)
{
    (void)sev;
    sb_append((StrBuf *)ctx, text);
}

static void describe_game(StrBuf *out, const RawGame *g, long number)
{
    sb_printf(out, "game %ld at %u:%u to %u%s%s: |", number, g->first_line, g->first_column, g->last_line,
              g->oversized ? " oversized" : "", g->ends_input ? " ends input" : "");
    sb_append_n(out, g->text.data ? g->text.data : "", g->text.len);
    sb_append(out, "|\n");
}

/* Opens r on text[0..len) (len > 0), with its messages to sink and a size
 * limit (0: the default); the stream is the caller's to close. */
static FILE *open_text(PgnReader *r, const char *text, size_t len, size_t max_game_size, DiagSink *sink)
{
    FILE *fp = fmemopen((char *)(uintptr_t)text, len, "rb");
    if (!fp) abort();
    pgn_open_stream(r, fp, "t.pgn", sink);
    if (max_game_size) r->max_game_size = max_game_size;
    return fp;
}

static void split_one_by_one(const char *text, size_t len, size_t max_game_size, StrBuf *out)
{
    if (!len) return;   /* no games (and fmemopen of nothing fails on older C libraries) */
    DiagSink sink;
    diag_sink_init(&sink, split_capture, out);
    PgnReader r;
    FILE *fp = open_text(&r, text, len, max_game_size, &sink);
    RawGame g;
    raw_game_init(&g);
    while (pgn_next_raw(&r, &g)) describe_game(out, &g, g.number);
    raw_game_free(&g);
    pgn_close(&r);
    fclose(fp);
}

/* The same through chunks of about `bytes` bytes, as the pipeline does it:
 * up to four chunks taken ahead and split (as workers would, before knowing
 * whether the chunks before them end between games), then looked at in
 * order; after one overran, it and those after it go back and the game is
 * read alone. */
static void split_by_chunks(const char *text, size_t len, size_t bytes, size_t max_game_size, StrBuf *out)
{
    if (!len) return;
    DiagSink sink;
    diag_sink_init(&sink, split_capture, out);
    PgnReader r;
    FILE *fp = open_text(&r, text, len, max_game_size, &sink);
    enum { AHEAD = 4 };
    PgnChunk chunks[AHEAD];
    StrBuf split[AHEAD];   /* each chunk's games and messages */
    memset(chunks, 0, sizeof chunks);
    memset(split, 0, sizeof split);
    RawGame g;
    raw_game_init(&g);
    long games = 0;
    bool one_game = false, input_left = true;
    while (input_left) {
        if (one_game) {
            one_game = false;
            if (pgn_next_raw(&r, &g)) describe_game(out, &g, ++games);
            continue;
        }
        int taken = 0;
        PgnTake took = PGN_TAKE_END;
        while (taken < AHEAD && (took = pgn_take_chunk(&r, bytes, &chunks[taken])) == PGN_TAKE_CHUNK) taken++;
        if (took == PGN_TAKE_NO_CUT) one_game = true;
        if (took == PGN_TAKE_END) input_left = false;
        /* every chunk taken is split, those after one that overran too,
         * numbered as if none had: then only the chunks up to the first
         * that overran count */
        int overran = -1;
        long base = games;
        for (int i = 0; i < taken; i++) {
            sb_clear(&split[i]);
            for (bool got = true; got;) {
                /* what the call that meets an overrunning game reports is
                 * dropped: it is reported again when that game is read */
                StrBuf said = SB_INIT;
                DiagSink call_sink;
                diag_sink_init(&call_sink, split_capture, &said);
                got = pgn_chunk_next(&chunks[i], &g, &call_sink);
                if (!chunks[i].overran) sb_append_n(&split[i], sb_str(&said), said.len);
                if (got) describe_game(&split[i], &g, base + g.number);
                sb_free(&said);
            }
            base += chunks[i].reader.games - chunks[i].overran;
            if (chunks[i].overran && overran < 0) overran = i;
            if (overran < 0) games = base;
        }
        for (int i = 0; i < taken && (overran < 0 || i <= overran); i++)
            sb_append_n(out, sb_str(&split[i]), split[i].len);
        if (overran >= 0) {
            for (int k = taken - 1; k > overran; k--) pgn_give_back(&r, &chunks[k], true);
            pgn_give_back(&r, &chunks[overran], false);
            games += chunks[overran].reader.games - 1;
            one_game = input_left = true;
        }
    }
    for (int i = 0; i < AHEAD; i++) {
        pgn_chunk_free(&chunks[i]);
        sb_free(&split[i]);
    }
    raw_game_free(&g);
    pgn_close(&r);
    fclose(fp);
}

#endif
