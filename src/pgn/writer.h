/*
 * src/pgn/writer.h — PGN export format for a Game tree.
 *
 * Seven Tag Roster first (missing ones written as "?", Result taken from the
 * movetext when the tag is absent), then the other tags in input order
 * (a name given twice is written once, with its first value);
 * movetext with comments, NAGs ($N) and variations kept, move numbers
 * re-inserted after comments and variations ("12... Nf6"), lines of at most
 * 79 columns that never split a move number from its move; the result last.
 * The driver adds its own comments (game number, match strings) through
 * PgnAnnotations: after a move as a comment of its own ({book} {CQL}); before
 * the first move inside the game's last opening comment, as CQL 6.2 does
 * ({<original> Game number 3 CQL}).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_PGN_WRITER_H
#define CQL_PGN_WRITER_H

#include "base/strbuf.h"
#include "pgn/game.h"

typedef struct PgnAnnotations {
    /* Extra comment text for each node, indexed by node id (NULL: none). The
     * root's entry is written before the first move. May be NULL. */
    const char *const *node_comments;
    /* Tags that replace the input's of the same name, or are added after the
     * input's tags when it has none (the query's `settag`). */
    const Tag *tags;
    int ntags;
    /* Per node id: leave out the input's comments after the move (at the
     * root: before the first move), as `removecomment` asks. May be NULL. */
    const bool *drop_comments;
} PgnAnnotations;

#define PGN_LINE_WIDTH 79

/* Appends the game, followed by one blank line. */
void pgn_write_game(const Game *g, const PgnAnnotations *notes, StrBuf *out);

#endif
