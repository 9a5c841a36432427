/*
 * src/eval_move.c — the move filters of the evaluator (see eval.c for the table).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "eval_int.h"

const EvalEntry eval_move_entries[] = {
    {ND_COUNT_, NULL},
};
