/*
 * tests/fuzz/fuzz_sidecar.c — fuzz harness of the sidecar index's reader
 * (src/index/sidecar.c, summary.c, movecode.c): a sidecar file whose bytes
 * anything may have changed.
 *
 * The input is a sidecar's bytes (the seeds are sidecars `cql -index`
 * wrote for small bundled PGN files). Before they are read, the harness
 * puts the trailer's magic and its checksum of every byte before the
 * trailer right (docs/index.md, "Format"), so that what the fuzzer
 * changes reaches the sections and the records: a damaged or hostile
 * sidecar whose checksum holds, which only its structure can refuse.
 * Checked, with the sanitizers: the sections are refused or read; every
 * game's record (the first MAX_GAMES) is refused or read whole, its
 * summary for all pieces and for none, its tags and result (each a string
 * of the table), its start position and its tree, whose every position is
 * whole (pos_is_ok); its codes walked in place give whole positions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "chess/position.h"
#include "fuzz_support.h"
#include "index/bytes.h"
#include "index/movecode.h"
#include "index/sidecar.h"
#include "index/summary.h"
#include "pgn/game.h"

const char *const fuzz_harness_name = "fuzz_sidecar";

/* The trailer's layout (docs/index.md): its last 48 bytes, the checksum of
 * the bytes before it at 32, its magic at 40. */
enum { TRAILER_BYTES = 48, TRAILER_CHECKSUM_AT = 32, TRAILER_MAGIC_AT = 40, MAX_GAMES = 64 };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init_library();
    return 0;
}

/* Every tag of g and its result are strings of the sidecar's table. */
static void check_tags(const Sidecar *s, const Game *g, long k)
{
    for (int i = 0; i < g->tag_count; i++)
        if (!g->tags[i].name || !g->tags[i].value) fuzz_fail("tags", "game %ld: tag %d has no name or value", k, i);
    if (!g->result) return;
    for (size_t i = 0; i < s->nstrings; i++)
        if (s->strings[i] == g->result) return;
    fuzz_fail("tags", "game %ld: its result is no string of the table", k);
}

/* Game k of s read every way a search reads it. */
static void read_game(const Sidecar *s, long k, Arena *a)
{
    SidecarGame sg;
    if (!sidecar_game(s, k, &sg)) return;
    SidecarGame some;
    if (!sidecar_game_some(s, k, 0, &some)) fuzz_fail("record", "game %ld: read with its summary, not without", k);
    Game g;
    if (sidecar_game_read(s, &sg, k, SIDECAR_TAGS, &g, a)) check_tags(s, &g, k);
    arena_reset(a);
    if (sidecar_game_read(s, &sg, k, SIDECAR_START, &g, a) && !pos_is_ok(&g.root->pos))
        fuzz_fail("record", "game %ld: its start position is broken", k);
    arena_reset(a);
    if (sidecar_game_read(s, &sg, k, SIDECAR_TREE, &g, a)) fuzz_check_tree_whole(g.root, "record");
    arena_reset(a);
    const unsigned char *codes;
    size_t ncodes;
    if (sidecar_game_codes(s, &sg, k, &g, a, &codes, &ncodes)) {
        MovecodeWalk walk;
        MovecodeWalkNodes nodes;
        if (movecode_walk_start(&walk, &nodes, codes, ncodes, &g.root->pos, false))
            for (const GameNode *n; (n = movecode_walk_next(&walk)) != NULL;)
                if (!pos_is_ok(&n->pos)) fuzz_fail("walk", "game %ld: a position of its walk is broken", k);
    }
    arena_reset(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *bytes = malloc(size ? size : 1);
    if (!bytes) return 0;
    memcpy(bytes, data, size);
    if (size >= TRAILER_BYTES) {
        unsigned char *t = bytes + size - TRAILER_BYTES;
        memcpy(t + TRAILER_MAGIC_AT, "CQLXEND\n", 8);
        uint64_t sum = bytes_checksum(bytes, size - TRAILER_BYTES);
        for (int i = 0; i < 8; i++) t[TRAILER_CHECKSUM_AT + i] = (unsigned char)(sum >> (8 * i));
    }
    Sidecar s;
    char why[200];
    if (sidecar_from_bytes(&s, bytes, size, why, sizeof why) != SIDECAR_OK) {
        if (!why[0]) fuzz_fail("sections", "refused without a reason");
        return 0;   /* (bytes freed) */
    }
    Arena a;
    arena_init(&a, 16 * 1024);
    for (long k = 1; k <= s.games && k <= MAX_GAMES; k++) read_game(&s, k, &a);
    SidecarGame none;
    if (sidecar_game(&s, 0, &none) || sidecar_game(&s, s.games + 1, &none))
        fuzz_fail("record", "a game outside 1 .. %ld was read", s.games);
    arena_free(&a);
    sidecar_close(&s);
    return 0;
}
