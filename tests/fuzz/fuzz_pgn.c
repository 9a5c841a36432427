/*
 * tests/fuzz/fuzz_pgn.c — fuzz harness of the PGN reader and writer.
 *
 * The input is a PGN file. It is read through a stream (pgn_open_stream on
 * fmemopen), split into games and every game parsed. Each game that can be
 * searched (not PGN_UNUSABLE) is written, read back and compared
 * (fuzz_check_pgn_round_trip); then all the games written, one after the
 * other, are read again as one file, which must give the same games.
 *
 * The input is also split in chunks, as the worker threads split it
 * (tests/unit/split_both_ways.h), which must give the same games, numbers,
 * lines and messages as splitting it game by game. And every game is read
 * through gates (tests/unit/gated_both_ways.h): one with a placement taken
 * from the input's first bytes and a result, the same asking about the
 * tags too, and one that shuts out nearly every game: the same messages,
 * status and result as without a gate, the same tree when the gate lets
 * the game through.
 *
 * An input whose first byte is '%' (a PGN escape line) is read after a
 * blank line of nearly a whole read chunk, so that the middle of the
 * input falls on the reader's buffer boundary (READ_CHUNK, 64 KiB, in
 * src/pgn/reader_split.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_support.h"
#include "pgn/reader.h"
#include "../unit/gated_both_ways.h"
#include "../unit/split_both_ways.h"

const char *const fuzz_harness_name = "fuzz_pgn";

enum { READER_CHUNK = 64 * 1024 };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init_library();
    return 0;
}

/* A question about the tags that lets through every other game. */
static bool admits_even_games(void *ctx, const Game *g)
{
    (void)ctx;
    return g->number % 2 == 0;
}

/* The gates every game is read through: a placement and a result taken
 * from the input's first bytes, the same asking about the tags too, and a
 * white pawn on the first rank (a position only a FEN can give). */
static void gates_from(const char *text, size_t len, PgnGate gates[3])
{
    static const char *const results[] = {NULL, "1-0", "0-1", "1/2-1/2"};
    unsigned char b[3] = {0, 0, 0};
    for (size_t i = 0; i < 3 && i < len; i++) b[i] = (unsigned char)text[i];
    uint16_t pieces = (uint16_t)((b[0] | b[1] << 8) & 0x7E7E);   /* Piece codes 1-6 and 9-14 */
    gates[0] = (PgnGate){.result = results[b[2] % 4], .nplacements = pieces ? 1 : 0,
                         .placements = {{pieces, (Bitboard)0x0101010101010101ULL << (b[2] % 8)}}};
    gates[1] = (PgnGate){.nplacements = 1, .placements = {{1u << 1, 0xFFULL}}};
    gates[2] = gates[0];
    gates[2].admits = admits_even_games;
}

/* Reads every game of text[0, len); writes each game that can be searched,
 * checking that it reads back the same, and appends the text to *written
 * when that is not NULL. Returns the number of games written. */
static long read_games(const char *text, size_t len, StrBuf *written)
{
    PgnGate gates[3];
    gates_from(text, len, gates);
    FILE *fp = fmemopen((void *)(uintptr_t)text, len, "rb");
    if (!fp) return 0;   /* fmemopen of zero bytes fails on older C libraries */
    DiagSink diag;
    fuzz_quiet_sink(&diag);
    PgnReader r;
    pgn_open_stream(&r, fp, "fuzz.pgn", &diag);
    RawGame raw;
    raw_game_init(&raw);
    Arena arena;
    arena_init(&arena, 64 * 1024);
    long kept = 0;
    while (pgn_next_raw(&r, &raw)) {
        for (int i = 0; i < 3; i++) {
            StrBuf why = SB_INIT;
            bool skipped;
            if (!gated_same_as_ungated(&raw, &gates[i], &skipped, &why))
                fuzz_fail("read through a gate, a game gives other messages or another game", "game %ld, gate %d: %s",
                          raw.number, i, sb_str(&why));
            sb_free(&why);
        }
        Game g;
        PgnParseStatus st = pgn_parse_game(&raw, r.name, &arena, &g, &diag);
        if (st != PGN_UNUSABLE) {
            fuzz_check_pgn_round_trip(&g, NULL, written);
            kept++;
        }
        arena_reset(&arena);
    }
    if (r.io_error) fuzz_fail("read error on a memory stream", "%s", "");
    raw_game_free(&raw);
    arena_free(&arena);
    pgn_close(&r);
    fclose(fp);
    return kept;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_init_library();
    size_t pad = size > 0 && data[0] == '%' ? READER_CHUNK - size / 2 % READER_CHUNK : 0;
    size_t len = pad + size;
    char *input = xmalloc(len ? len : 1);
    if (pad) {
        memset(input, ' ', pad - 1);   /* one blank line: cheaper than many */
        input[pad - 1] = '\n';
    }
    if (size) memcpy(input + pad, data, size);

    /* split in chunks, as the worker threads split it, it gives the same
     * games, numbers, lines and messages as split game by game; with
     * chunks of a size taken from the input, and of a third of it */
    StrBuf one_by_one = SB_INIT;
    split_one_by_one(input, len, 0, &one_by_one);
    size_t sizes[2] = {1 + (size ? data[size - 1] : 0) % 64, 1 + len / 3};
    for (int i = 0; i < 2; i++) {
        StrBuf chunked = SB_INIT;
        split_by_chunks(input, len, sizes[i], 0, &chunked);
        if (chunked.len != one_by_one.len || memcmp(sb_str(&chunked), sb_str(&one_by_one), chunked.len) != 0)
            fuzz_fail("split in chunks, the input gives other games than split game by game",
                      "chunks of %zu bytes:\n%s\n---- game by game:\n%s", sizes[i], sb_str(&chunked),
                      sb_str(&one_by_one));
        sb_free(&chunked);
    }
    sb_free(&one_by_one);

    StrBuf written = SB_INIT;
    long kept = read_games(input, len, &written);

    /* the games written, read again as one file, are the same games */
    if (kept > 0) {
        StrBuf again = SB_INIT;
        long reread = read_games(written.data, written.len, &again);
        if (reread != kept)
            fuzz_fail("the games written do not read back as the same number of games",
                      "%ld games written, %ld read back from:\n%s", kept, reread, sb_str(&written));
        if (strcmp(sb_str(&again), sb_str(&written)) != 0)
            fuzz_fail("the games written, read back as one file, are written differently",
                      "first:\n%s\n---- then:\n%s", sb_str(&written), sb_str(&again));
        sb_free(&again);
    }
    sb_free(&written);
    free(input);
    return 0;
}
