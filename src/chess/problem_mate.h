/*
 * src/chess/problem_mate.h — the problem-chess mates and stalemates: pure,
 * model and ideal, and the pieces that take part in them, as CQL 6.2
 * defines them (shared/spec/cql62-remaining.md §11).
 *
 * D is the side to move (mated or stalemated), X the other side. Attacks are
 * CQL's: geometric and colour-blind. A mate is pure when every flight square
 * of D's king is guarded exactly once (a guard through the king counts) and
 * no self-block is guarded unless only its pin keeps it from parrying the
 * check (and, in a double check, each check is needed); it is a model mate
 * when every X officer takes part as well, and ideal when every piece on the
 * board takes part. Stalemates likewise, with plain attacks. Pure functions
 * of the position.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_PROBLEM_MATE_H
#define CQL_PROBLEM_MATE_H

#include <stdbool.h>

#include "chess/position.h"

typedef enum ProblemMate {
    PM_PURE_MATE,
    PM_MODEL_MATE,
    PM_IDEAL_MATE,
    PM_PURE_STALEMATE,
    PM_MODEL_STALEMATE,
    PM_IDEAL_STALEMATE
} ProblemMate;

/* True when pos is a mate (or stalemate) of the kind asked; then
 * *participants is the set of the squares of the pieces taking part. */
bool pm_classify(const Position *pos, ProblemMate kind, Bitboard *participants);

#endif
