/*
 * src/index/movecode.h — moves as two-byte codes, and a game's move tree as
 * a stream of them: what the sidecar index keeps of a game's moves, read
 * back without SAN (docs/index.md).
 *
 * A code is a Move in 16 bits: bits 0-5 the from square, 6-11 the to square
 * (for castling the king's destination, as in a Move), 12-15 the kind:
 *
 *   0 normal   1 en passant   2 castling short   3 castling long
 *   4 the null move           5 a variation begins   6 it ends
 *   8 + T a promotion to piece type T (N = 2 ... Q = 5)
 *
 * The tree is written in PGN's order: a move, then each alternative to it
 * as "variation begins", its moves (and their own variations), "variation
 * ends", then the line goes on. Reading it back, "begins" goes back to the
 * position before the last move and "ends" returns to where the line was,
 * so the tree comes back node for node, children in the same order. A
 * search that needs no tree walks the main line instead, its positions
 * made one after another in one node (MovecodeWalk).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_INDEX_MOVECODE_H
#define CQL_INDEX_MOVECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/strbuf.h"
#include "chess/position.h"
#include "pgn/game.h"

enum {
    MOVECODE_NORMAL = 0,
    MOVECODE_EN_PASSANT = 1,
    MOVECODE_CASTLE_SHORT = 2,
    MOVECODE_CASTLE_LONG = 3,
    MOVECODE_NULL = 4,
    MOVECODE_BEGIN = 5,          /* a variation begins */
    MOVECODE_END = 6,            /* it ends */
    MOVECODE_PROMOTION = 8       /* + the piece type */
};

/* The code of move m (inline: the build makes one for each move it reads). */
static inline uint16_t movecode_of(Move m)
{
    /* a Move's bits 0-11 are the code's; the code's kind for each MoveKind
     * but promotion */
    static const uint8_t kinds[8] = {[MK_NORMAL] = MOVECODE_NORMAL, [MK_EN_PASSANT] = MOVECODE_EN_PASSANT,
                                     [MK_CASTLE_SHORT] = MOVECODE_CASTLE_SHORT,
                                     [MK_CASTLE_LONG] = MOVECODE_CASTLE_LONG};
    MoveKind kind = move_kind(m);
    if (kind == MK_NORMAL) return (uint16_t)(m & 0xfff);   /* most moves: MOVECODE_NORMAL is 0 */
    if (kind == MK_NULL) return (uint16_t)(MOVECODE_NULL << 12);
    unsigned code = kind == MK_PROMOTION ? MOVECODE_PROMOTION + (unsigned)move_promo(m) : kinds[kind];
    return (uint16_t)((m & 0xfff) | code << 12);
}
/* The move of code c; false when c is no move (a variation mark, an unused kind). */
bool movecode_move(uint16_t c, Move *m);

/* Appends code c to out (two bytes, little-endian). */
static inline void movecode_append(StrBuf *out, uint16_t c)
{
    if (out->len + 3 > out->cap) sb_reserve(out, 2);
    char *p = out->data + out->len;
    p[0] = (char)(unsigned char)c;
    p[1] = (char)(unsigned char)(c >> 8);
    p[2] = '\0';
    out->len += 2;
}

/* Appends the codes of g's tree (two bytes each, little-endian) to out;
 * returns how many. */
size_t movecode_write_tree(const Game *g, StrBuf *out);

/* Adds the tree of ncodes codes (as movecode_write_tree wrote them) under
 * g->root, in arena a, numbering the nodes. False when they are not a tree
 * of moves that can be played from the root: a move whose piece is not
 * there, that takes its own piece or a king, an impossible promotion,
 * castling or en passant, unbalanced variation marks (the game is then
 * to be read from its text). */
bool movecode_read_tree(const unsigned char *codes, size_t ncodes, Game *g, Arena *a);

/* A game's main line made position after position in one node, no tree
 * built: each movecode_walk_next makes the next move in place in `here`.
 * `here` is the current position as a tree's node would be, with its
 * move, ply and id (on the main line the id is the ply: a tree numbers its
 * main line first); its links are stand-ins that say only whether a
 * position comes before it (parent) and whether, by which move, the game
 * goes on (child, whose move alone is set): what a query that reads only
 * the current position asks (filter_tree_reads_one_position). The
 * variations are passed over, their moves not made (the sidecar's checksum
 * vouches for them). */
typedef struct MovecodeWalkNodes {
    GameNode here;
    GameNode before, after;    /* the stand-ins */
} MovecodeWalkNodes;

/* Where a walk is: apart from its nodes, so that a loop over the walk may
 * keep it in a local, in registers, while the nodes' addresses go to the
 * search. */
typedef struct MovecodeWalk {
    const unsigned char *codes;
    size_t ncodes, next;       /* the codes, and the index of the next to make */
    MovecodeWalkNodes *nodes;
    Move move;                 /* the move of the next code, readied */
    int32_t ply;               /* of `here` */
    bool started;              /* `here` was given once */
    bool bad;                  /* a code was no move of its position, or the
                                  variation marks were unbalanced: the walk
                                  stopped, the game is to be read otherwise */
} MovecodeWalk;

/* Readies w, with its nodes in *nodes, for the ncodes codes played from
 * start; with `variations` (the search goes into them), false when they
 * hold variations: the tree is then to be built. */
bool movecode_walk_start(MovecodeWalk *w, MovecodeWalkNodes *nodes, const unsigned char *codes, size_t ncodes,
                         const Position *start, bool variations);
/* The next position of the walk: the start first, NULL past the last, or
 * at a code that is no move of its position (w->bad). A move's code is
 * checked when the move is made, at the call after the one that gave the
 * position it is played from, whose child's move it was (a game whose
 * walk ends so is read otherwise, and one whose search stopped at a match
 * is searched again from its text: an unchecked child's move decides
 * nothing). */
const GameNode *movecode_walk_next(MovecodeWalk *w);
/* Makes up to `count` moves of a started walk, as as many calls of
 * movecode_walk_next would, for a search that does not look at the
 * positions between: the node's move, id and ply are set once, after the
 * last. Returns how many were made (fewer at the end of the walk, or when
 * it went bad: w->bad). */
long movecode_walk_pass(MovecodeWalk *w, long count);

#endif
