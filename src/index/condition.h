/*
 * src/index/condition.h — what a game must have for a query to match it,
 * read from the query and tested on the game's summary (summary.h) before
 * the game is replayed: the sidecar index rules out the games that fail it
 * (docs/index.md).
 *
 * A condition is necessary, never sufficient: a game that matches meets it
 * (soundness before pruning). And a game that fails it is one whose search
 * would do nothing that shows: at every position the query fails without
 * printing, stopping the run or changing a variable, so leaving it out
 * changes no output. What the reading understands:
 *
 *   Ka1, [RQ]h7        a piece of the designator stood on one of its squares
 *   check, mate, stalemate   the game has one somewhere
 *   #R >= 2, Q == 0    the count of a piece designator can reach the range
 *   A attacks B        both designators' pieces stood on their squares (the
 *                      same for ray, xray and between of designators)
 *   result 1-0         the game's result (and the header's result)
 *   move promote N     a move of the game promotes to a knight (captures,
 *                      castles, takes en passant, is a null move: not for
 *                      the legal or pseudolegal moves of a position)
 *   find X             X's condition (find looks at the game's positions)
 *   {A B C}, A and B   each member's condition, up to the first member that
 *                      could change something (a member after it may never
 *                      be reached)
 *   A or B             either side's condition, when both have one
 *   transforms         (the transform pass made them orbits of images:
 *                      flipcolor {Ka1} is Ka1 or ka8) any image's condition
 *   ( A )              A's
 *
 * and nothing else: `not`, a filter at another position (`:`, `line`,
 * `echo`), a variable, `pin` ... give no condition ("maybe"), so a
 * compound or an `and` takes the others', and an `or` none.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_INDEX_CONDITION_H
#define CQL_INDEX_CONDITION_H

#include <stdbool.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "index/summary.h"
#include "query/ast.h"

typedef struct Condition Condition;

/* The condition a game must meet for `body` to match at one of its
 * positions (NULL: a game may match without a position matched,
 * matchcount 0) and to have the result `result` (the header's or the
 * command line's, when not NULL); NULL when none is known. */
Condition *condition_of_search(const Node *body, const char *result);
void condition_free(Condition *c);

/* The pieces (a bit per Piece code) whose squares c asks a summary about:
 * condition_admits reads no other piece's squares (c NULL: none). */
uint16_t condition_pieces(const Condition *c);
/* Whether a game with summary s may meet c (c NULL: yes). */
bool condition_admits(const Condition *c, const GameSummary *s);

/* The condition in words, for tests and -parse-like views ("Ka1 or check"). */
void condition_print(const Condition *c, StrBuf *out);

#endif
