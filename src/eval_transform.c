/*
 * src/eval_transform.c — the transform filters of the evaluator (see eval.c for the table).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "eval_int.h"

const EvalEntry eval_transform_entries[] = {
    {ND_COUNT_, NULL},
};
