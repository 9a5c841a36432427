/*
 * tests/fuzz/fuzz_movecode.c — fuzz harness of the sidecar's move codes
 * (src/index/movecode.c) as a damaged or hostile sidecar would hand them
 * over: codes that passed the sidecar's checksum but were never written
 * by its build.
 *
 * The input's first byte picks a start position (starts[], taken modulo
 * their count); the bytes after it are the codes, two bytes each, low byte
 * first (a last odd byte is left out). Checked:
 *
 *   - movecode_read_tree either refuses the codes or reads a tree whose
 *     every position is whole (pos_is_ok); written back
 *     (movecode_write_tree) and read again, it is the same tree, and the
 *     codes written then are written again the same;
 *   - a walk in place (MovecodeWalk) gives only whole positions, numbered
 *     one after another, and stops at the first code that is no move of
 *     its position; where the tree was read, the walk goes down its main
 *     line position for position, to its end, without stopping;
 *   - a walk that is to go into variations refuses codes that hold a
 *     variation mark.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/strbuf.h"
#include "chess/position.h"
#include "fuzz_support.h"
#include "index/movecode.h"
#include "pgn/game.h"

const char *const fuzz_harness_name = "fuzz_movecode";

/* Start positions where the rarer codes can be played: castling on both
 * wings and both sides, en passant, promotions with and without a capture,
 * a Chess960 castling with the rook beside the king. */
static const char *const starts[] = {
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 2",
    "1n2k3/P1P3P1/8/8/8/7K/1p3p1p/6N1 w - - 0 1",
    "1n2k3/P1P3P1/8/8/8/7K/1p3p1p/6N1 b - - 0 1",
    "brkrqnnb/pppppppp/8/8/8/8/PPPPPPPP/BRKRQNNB w KQkq - 0 1",
    "8/8/8/3k4/8/8/8/3K4 w - - 0 1",
};
enum { NSTARTS = sizeof starts / sizeof starts[0] };

static Position start_positions[NSTARTS];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init_library();
    for (int i = 0; i < NSTARTS; i++) {
        FenError err;
        if (pos_from_fen(&start_positions[i], starts[i], &err) != 0 || !pos_is_ok(&start_positions[i]))
            fuzz_fail("start position", "%s does not read", starts[i]);
    }
    return 0;
}

/* The tree of codes[0..ncodes) from start into *g (in arena a); false
 * when movecode_read_tree refuses them. */
static bool read_tree(const unsigned char *codes, size_t ncodes, const Position *start, Game *g, Arena *a)
{
    memset(g, 0, sizeof *g);
    g->arena = a;
    game_new_root(g, a, start);
    return movecode_read_tree(codes, ncodes, g, a);
}

/* The tree read back from its own codes is the same tree, and writes the same codes again. */
static void check_round_trip(const Game *g, const Position *start)
{
    StrBuf first = SB_INIT, second = SB_INIT;
    size_t n = movecode_write_tree(g, &first);
    Arena a;
    arena_init(&a, 16 * 1024);
    Game back;
    if (!read_tree((const unsigned char *)first.data, n, start, &back, &a))
        fuzz_fail("round trip", "the codes written for a tree read are refused");
    if (!game_same_moves(g, &back)) fuzz_fail("round trip", "the tree read back has other moves");
    size_t again = movecode_write_tree(&back, &second);
    if (again != n || (n > 0 && memcmp(first.data, second.data, 2 * n) != 0))
        fuzz_fail("round trip", "the tree read back writes other codes");
    sb_free(&first);
    sb_free(&second);
    arena_free(&a);
}

/* The walk in place over the codes; tree: the game read from them, or NULL. */
static void check_walk(const unsigned char *codes, size_t ncodes, const Position *start, const Game *tree)
{
    MovecodeWalk walk;
    MovecodeWalkNodes nodes;
    if (!movecode_walk_start(&walk, &nodes, codes, ncodes, start, false))
        fuzz_fail("walk", "a walk over the main line refused to start");
    const GameNode *line = tree ? tree->root : NULL;
    int ply = 0;
    for (const GameNode *n; (n = movecode_walk_next(&walk)) != NULL; ply++) {
        if (!pos_is_ok(&n->pos)) fuzz_fail("walk", "position %d of the walk is broken", ply);
        if (n->ply != ply || n->id != ply) fuzz_fail("walk", "position %d is numbered ply %d, id %d", ply, n->ply, n->id);
        if ((n->parent != NULL) != (ply > 0)) fuzz_fail("walk", "position %d says wrongly whether it has a parent", ply);
        if (line) {
            if (!pos_same(&n->pos, &line->pos)) fuzz_fail("walk", "position %d differs from the tree's main line", ply);
            if ((n->child != NULL) != (line->child != NULL))
                fuzz_fail("walk", "position %d says wrongly whether the game goes on", ply);
            if (n->child && n->child->move != line->child->move)
                fuzz_fail("walk", "the move after position %d differs from the tree's", ply);
            line = line->child;
        }
    }
    if (tree && (walk.bad || line)) fuzz_fail("walk", "the walk stopped at position %d of a tree read whole", ply);
}

/* Whether the codes hold a variation mark. */
static bool has_marks(const unsigned char *codes, size_t ncodes)
{
    for (size_t i = 0; i < ncodes; i++) {
        unsigned kind = codes[2 * i + 1] >> 4;
        if (kind == MOVECODE_BEGIN || kind == MOVECODE_END) return true;
    }
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const Position *start = &start_positions[data[0] % NSTARTS];
    size_t ncodes = (size - 1) / 2;
    /* a copy of its own, so that a read past the codes is caught */
    unsigned char *codes = malloc(2 * ncodes + 1);
    if (!codes) return 0;
    memcpy(codes, data + 1, 2 * ncodes);

    Arena a;
    arena_init(&a, 16 * 1024);
    Game g;
    bool read = read_tree(codes, ncodes, start, &g, &a);
    if (read) {
        fuzz_check_tree_whole(g.root, "tree");
        check_round_trip(&g, start);
    }
    check_walk(codes, ncodes, start, read ? &g : NULL);

    MovecodeWalk walk;
    MovecodeWalkNodes nodes;
    if (movecode_walk_start(&walk, &nodes, codes, ncodes, start, true) == has_marks(codes, ncodes))
        fuzz_fail("walk", "a walk into variations %s codes %s marks", has_marks(codes, ncodes) ? "took" : "refused",
                  has_marks(codes, ncodes) ? "with" : "without");

    arena_free(&a);
    free(codes);
    return 0;
}
