/*
 * src/index/summary.h — what the sidecar index keeps of a game to rule it
 * out without replaying it (docs/index.md): for each piece (colour and
 * type) the squares it ever stood on and how many of it there were at
 * least and at most, and whether the game ever has a check, a mate, a
 * stalemate, castling, en passant, a null move, a promotion to each type,
 * a capture of each type. Every position of the tree counts, variations
 * too, so a summary holds for a search with or without variations.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_INDEX_SUMMARY_H
#define CQL_INDEX_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "chess/bitboard.h"
#include "index/bytes.h"
#include "pgn/game.h"

/* The flags of a summary: something happens somewhere in the game. */
#define SUMMARY_CHECK         (UINT32_C(1) << 0)    /* a position's side to move is in check */
#define SUMMARY_MATE          (UINT32_C(1) << 1)    /* ... is mated (`mate`) */
#define SUMMARY_STALEMATE     (UINT32_C(1) << 2)    /* ... is stalemated (`stalemate`) */
#define SUMMARY_CASTLE_SHORT  (UINT32_C(1) << 3)    /* a move castles, on the king's side */
#define SUMMARY_CASTLE_LONG   (UINT32_C(1) << 4)    /* ... on the queen's side */
#define SUMMARY_EN_PASSANT    (UINT32_C(1) << 5)    /* a move takes en passant */
#define SUMMARY_NULL_MOVE     (UINT32_C(1) << 6)    /* a null move */
#define SUMMARY_VARIATIONS    (UINT32_C(1) << 7)    /* a position has more than one move */
/* a move promotes to piece type t (KNIGHT ... QUEEN; KING in odd setups) */
static inline uint32_t summary_promotion(PieceType t) { return UINT32_C(1) << (8 + t); }
/* a move takes a piece of type t (PAWN ... QUEEN), en passant too */
static inline uint32_t summary_capture(PieceType t) { return UINT32_C(1) << (16 + t); }

/* The game's result (game_result: the Result tag, else the movetext's
 * end) in bits 24-26 of the flags. */
typedef enum SummaryResult {
    RESULT_NONE, RESULT_WHITE_WINS, RESULT_BLACK_WINS, RESULT_DRAW, RESULT_UNKNOWN, RESULT_OTHER
} SummaryResult;
#define SUMMARY_RESULT_SHIFT 24
#define SUMMARY_RESULT_MASK (UINT32_C(7) << SUMMARY_RESULT_SHIFT)
/* The code of a result's text ("1-0" ..., NULL: none). */
SummaryResult summary_result_of(const char *result);

/* Counts of one piece are kept up to this; SUMMARY_MANY in max_count means
 * "this many or more". */
#define SUMMARY_MANY 15

typedef struct GameSummary {
    Bitboard squares[PIECE_NB];    /* by Piece code: every square a piece of it stood on */
    uint8_t min_count[PIECE_NB];   /* the fewest of it in a position (at most SUMMARY_MANY) */
    uint8_t max_count[PIECE_NB];   /* the most (SUMMARY_MANY: that many or more) */
    uint32_t flags;                /* SUMMARY_... */
} GameSummary;

/* The summary of g's whole tree, by a walk over it. */
void summary_of_game(const Game *g, GameSummary *s);

/* The same summary made while the tree is made, a node at a time, when
 * its position is still in the cache (the sidecar's build: a hook of the
 * parse, pgn_parse_game_hooked): summary_start, summary_add_node for each
 * node the tree gains after its root (any order in which a node comes
 * after its parent: the parse's), then summary_finish once the tree is
 * whole. What only the finished tree says (which positions have no move
 * after them, for mate and stalemate) is asked then, of the last node
 * made, or of the leaves of a tree with variations. */
typedef struct SummaryBuilder {
    GameSummary s;
    int counts[PIECE_NB];      /* each piece's count at `last` */
    const GameNode *last;      /* the node added last; NULL: none yet */
    /* the summary and counts of the last root worked out, kept for the
     * next game's (most games of a file start from the same position) */
    bool root_known;
    uint8_t root_side;
    uint8_t root_board[SQ_NB];
    GameSummary root_summary;
    int root_counts[PIECE_NB];
} SummaryBuilder;

/* A SummaryBuilder starts zeroed ({0}), then summary_start before each game. */
void summary_start(SummaryBuilder *b);
void summary_finish(SummaryBuilder *b, const Game *g, GameSummary *s);
/* summary_add_node for any node (summary_add_node's unusual cases). */
void summary_add_any_node(SummaryBuilder *b, const GameNode *n);
/* The check flag when the side to move at n is in check. (These two are
 * out of line, and the last act of the inline part: a caller of
 * summary_add_node need save no registers for them.) */
void summary_note_check(SummaryBuilder *b, const GameNode *n);

/* The usual move, a plain one (no promotion, castling, en passant or null
 * move) taking no king (`taken`: the piece on its destination), played
 * from the node added last: what summary_add_usual_node takes. */
static inline bool summary_move_is_usual(const SummaryBuilder *b, const GameNode *parent, Move m, Piece taken)
{
    return parent == b->last && move_kind(m) == MK_NORMAL && type_of(taken) != KING;
}

/* Inline for the usual move into n, to square `to`, taking `taken`
 * (summary_move_is_usual): its piece's square, what it takes (a capture's
 * flag, one piece fewer), and a check until the game's first. */
static inline void summary_add_usual_node(SummaryBuilder *b, const GameNode *n, Square to, Piece taken)
{
    b->last = n;
    b->s.squares[pos_piece_on(&n->pos, to)] |= sq_bb(to);
    if (taken != NO_PIECE) {   /* the count falls (it rises only by a promotion) */
        b->s.flags |= summary_capture(type_of(taken));
        int count = --b->counts[taken];
        if (count < b->s.min_count[taken]) b->s.min_count[taken] = (uint8_t)count;
    }
    if (!(b->s.flags & SUMMARY_CHECK)) summary_note_check(b, n);
}

/* Any node: the usual move inline, what any other node does in
 * summary_add_any_node. */
static inline void summary_add_node(SummaryBuilder *b, const GameNode *n)
{
    Move m = n->move;
    Piece taken = pos_piece_on(&n->parent->pos, move_to(m));
    if (summary_move_is_usual(b, n->parent, m, taken)) summary_add_usual_node(b, n, move_to(m), taken);
    else summary_add_any_node(b, n);
}

/* The summary's bytes (docs/index.md), and reading them back (c->bad when
 * they are not a summary). */
void summary_write(const GameSummary *s, StrBuf *out);
void summary_read(ByteCursor *c, GameSummary *s);
/* The same, but the squares of only the pieces of `pieces` (a bit per
 * Piece code): the others' are left empty, their bytes skipped (a
 * condition asks about the squares of a few pieces: condition_pieces).
 * With s NULL, the summary is passed over in one step, by the length of
 * its pieces' bytes: c->bad when its bytes run out or its mask names a
 * piece that is none (the pieces' bytes themselves are checked when they
 * are read). */
#define SUMMARY_ALL_PIECES UINT16_C(0xFFFF)
void summary_read_some(ByteCursor *c, GameSummary *s, uint16_t pieces);

/* The twelve pieces, in the order the summary writes them. */
extern const Piece summary_pieces[12];

#endif
