/*
 * src/query/contexts.h — where a filter is evaluated as a position filter.
 *
 * A filter stands in a position context when only whether it matches is
 * used: a filter of the query body, every member of a compound but the last
 * (and the last when the compound itself is in such a context), the operands
 * of `and`, `or`, `not`, the test of `if` and `while`, the body of `loop`,
 * `find` and square iteration, the target of a move filter, the
 * constituents of `line` and `path` (the kids column of filters.def). A
 * value-only filter there (a number or string literal, a numeric or string
 * variable, `str`, `max`, `abs`, `fen`, `piecename`, `position & position`,
 * `lca` ...: the test column) has a value but no match: CQL 6.2 stops the
 * run with exit status 1 when one is evaluated ("An attempt to match a
 * position against the number: 2 was made"), and so does cql.
 * contexts_mark flags each such filter NF_AS_POSITION (the evaluator stops
 * at it) and warns about it, since the query reaches it whenever the
 * positions let it. `lowercase` and `uppercase` there never match (CQL
 * 6.2); they are flagged too. So are `currenttransform`, `lastgamenumber`,
 * `readfile` and `hhdb composer`, without a warning: evaluated there, they stop the
 * run with CQL 6.2's own message for them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CONTEXTS_H
#define CQL_CONTEXTS_H

#include "base/diag.h"
#include "query/ast.h"

/* How many bytes of n's text a message quotes (at most 40). */
int contexts_quote_length(const Node *n);

/* Flags the value-only filters in position contexts of q (NF_AS_POSITION)
 * and warns about each through diag. */
void contexts_mark(Query *q, DiagSink *diag);

#endif
