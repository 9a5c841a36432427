/*
 * include/movegen.h — pseudo-legal and legal move generation, mate tests, perft.
 *
 * Pseudo-legal moves obey piece movement but may leave the mover's king in
 * check; castling is generated only when the squares are empty and the king
 * does not start in, pass through or land in check. Legal moves are the
 * pseudo-legal moves that do not leave the mover's king in check.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_MOVEGEN_H
#define CQL_MOVEGEN_H

#include <stdint.h>

#include "position.h"

#define MOVELIST_MAX 512

typedef struct MoveList {
    int count;
    Move moves[MOVELIST_MAX];
} MoveList;

void mg_pseudo_legal(const Position *pos, MoveList *list);
void mg_legal(const Position *pos, MoveList *list);

/* True when the pseudo-legal move m does not leave the mover's king in check. */
bool mg_is_legal(const Position *pos, Move m);
/* True when the side to move has at least one legal move (faster than mg_legal). */
bool mg_has_legal_move(const Position *pos);
bool mg_is_mate(const Position *pos);
bool mg_is_stalemate(const Position *pos);

/* The castling move of the side to move on `wing` (CASTLE_SHORT or
 * CASTLE_LONG) when it is legal now, otherwise MOVE_NONE. */
Move mg_castle_move(const Position *pos, int wing);

/* Number of leaf nodes of the legal move tree of the given depth. */
uint64_t mg_perft(const Position *pos, int depth);

#endif
