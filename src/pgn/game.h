/*
 * src/pgn/game.h — a game: its tags and its whole move tree, one Position per node.
 *
 * Games are materialised before they are evaluated, so that navigation
 * (parent, child, find, line, echo, path) is a pointer walk. Every node, tag
 * and comment of a game lives in the game's Arena, which the caller resets
 * between games.
 *
 * Tree shape: node->child is the main continuation, node->sibling the next
 * alternative to the same move (a variation), in the order the PGN gives them.
 * The root holds the start position and no move. Mainline nodes have
 * depth 0; a variation's nodes have depth one more than the node it branches
 * from.
 *
 * Piece identity: node->piece_id[sq] names the piece on sq (0 = empty). The
 * start position numbers its pieces 1, 2, ... in square order a1..h8; an id
 * follows its piece through moves, castling and promotion, and disappears
 * with a capture. They are all set, the root's too, by game_fill_piece_ids
 * on first use: most queries never ask.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_GAME_H
#define CQL_GAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "chess/position.h"
#include "chess/san.h"

/* One comment text (without braces), kept in input order. */
typedef struct Comment {
    struct Comment *next;
    const char *text;
    struct Comment *last;   /* in the first comment of a list: the list's last
                               one, so that the reader appends in O(1) */
} Comment;

typedef struct GameNode GameNode;
struct GameNode {
    Position pos;              /* position at this node */
    /* what the writer and the search read at every move come first, next
     * to the position's side and move number (its last fields), so that a
     * walk over the tree touches fewer cache lines (docs/performance.md,
     * eighth round) */
    char san[SAN_WRITTEN_KEPT]; /* the move's text in the input, without its check
                                   mark, when that is its SAN: */
    uint8_t san_len;           /* the first san_len bytes of san[], or 0 when the
                                  writer works it out (san_parse_written) */
    uint8_t check_state;       /* a NodeCheck, or 0 until game_node_check asks */
    uint8_t nag_count;
    /* 1 when the node has pre_comments, comments, glyphs or a sibling (set
     * where those are), so that the writer tests one byte for a plain move */
    uint8_t annotated;
    int32_t id;                /* position id: preorder index, root = 0 */
    Move move;                 /* move that led here; MOVE_NONE at the root */
    GameNode *child;           /* main continuation, NULL at a leaf */
    GameNode *sibling;         /* next alternative to this node's move */
    Comment *pre_comments;     /* comments written before this node's move */
    Comment *comments;         /* comments after the move (root: before move 1) */
    GameNode *parent;          /* NULL at the root */
    uint8_t *nags;             /* numeric annotation glyphs after the move */
    uint8_t *piece_id;         /* identity of the piece on each square, 0 = none:
                                  NULL until game_fill_piece_ids gives every node
                                  its SQ_NB bytes (few queries ask) */
    uint16_t depth;            /* variation nesting depth, 0 on the mainline */
    int32_t ply;               /* plies from the root */
};

typedef struct Tag {
    const char *name;
    const char *value;
    /* set by the reader for a value read with nothing escaped and no line
     * end (nearly every one): it then holds no '"', backslash, CR or LF,
     * and value_len is its length; false elsewhere (look at the value) */
    bool plain;
    uint32_t value_len;
} Tag;

typedef struct Game {
    long number;               /* 1-based index in the input */
    Tag *tags;                 /* in input order */
    int tag_count;
    GameNode *root;
    int node_count;            /* every node of the tree, root included */
    const char *result;        /* termination marker read ("1-0", "*", ...), NULL if none */
    bool truncated;            /* an error cut the game short; see the reader's message */
    bool has_variations;       /* some node has more than one child */
    bool piece_ids_filled;     /* every node's piece_id is set (game_fill_piece_ids) */
    bool moves_skipped;        /* read through a gate that shut it out: the moves were
                                  checked, but the tree is the root alone
                                  (pgn_parse_game_gated) */
    const char *unread_text;   /* movetext after the error point, kept for output */
    /* the tag pairs' lines as read, when every tag was read from a line of
     * the usual form, [Name "value"], one after another: the tags' names
     * and values point into it, each ended by a NUL written over the blank
     * after the name and over the '"' after the value (tag_lines.h); NULL
     * otherwise */
    const char *tag_lines;
    size_t tag_lines_len;
    /* while the tree is read: the last child so far of the position a
     * variation is about to start from (game_add_move appends after it,
     * so that a move with 100,000 variations is read in linear time) */
    GameNode *variation_tail;
    Arena *arena;              /* owns every node and string */
} Game;

/* Sets piece_id at every node of the tree: the root's in square order,
 * the others from it, following the moves; does nothing the second time.
 * A cache inside the game, like check_state: the game is passed as a
 * const view. */
void game_fill_piece_ids(const Game *g);

/* The first of tags[0..count) named `name` (case-sensitive), or NULL. */
Tag *game_tag_find(const Tag *tags, int count, const char *name);

/* The value of tag `name` (case-sensitive), or NULL. */
const char *game_tag(const Game *g, const char *name);

/* The game's result: its Result tag when that is 1-0, 0-1 or 1/2-1/2, else
 * the termination marker of the movetext, else NULL. */
const char *game_result(const Game *g);
/* The Result tag when it is 1-0, 0-1 or 1/2-1/2 (known before the moves), else NULL. */
const char *game_result_tag(const Game *g);

/* True when b has a's moves, glyphs and comments at every node (the same
 * tree), and every tag of a with the same value: what writing a game and
 * reading it back must keep. */
bool game_same(const Game *a, const Game *b);
/* The same moves, glyphs and comments at every node: game_same without the tags. */
bool game_same_moves(const Game *a, const Game *b);

/* Creates the root from pos (piece ids: see game_fill_piece_ids). */
GameNode *game_new_root(Game *g, Arena *a, const Position *pos);

/* Adds a child of parent reached by the legal move m, after any existing
 * children (so the first child is the main line): after g->variation_tail
 * when that is a child of parent (the reader sets it), else after the last
 * child found by a walk. */
GameNode *game_add_move(Game *g, Arena *a, GameNode *parent, Move m);
/* The same for a normal move (MK_NORMAL) from `from` to `to`: the reader's
 * usual move, whose kind and squares then need no reading from a Move. */
GameNode *game_add_normal_move(Game *g, Arena *a, GameNode *parent, Square from, Square to);
/* Keeps san[0..len), 2 to SAN_WRITTEN_KEPT bytes, as n's move's SAN. */
static inline void game_keep_san(GameNode *n, const char *san, size_t len)
{
    /* two 2-byte copies, overlapping for 3 bytes, none past san[len - 1] */
    memcpy(n->san, san, 2);
    memcpy(n->san + len - 2, san + len - 2, 2);
    n->san_len = (uint8_t)len;
}

/* Numbers the nodes in preorder (main line first) and fills node_count. */
void game_number_nodes(Game *g);

/* Whether the side to move at a node is mated, in check, or neither. Worked
 * out on first use and kept in the node, because the evaluator (check, mate)
 * and the writer (the + or # after a move) both ask. */
typedef enum NodeCheck { NODE_NO_CHECK = 1, NODE_IN_CHECK, NODE_MATED } NodeCheck;
NodeCheck game_node_check_first(const GameNode *n);   /* works it out and keeps it */
static inline NodeCheck game_node_check(const GameNode *n)
{
    return n->check_state ? (NodeCheck)n->check_state : game_node_check_first(n);
}

/* The game plays a move of n's position: then the position has a legal
 * move, since the reader plays only legal ones. Not a null move, which is
 * no move of the position's, nor the capture of a king that only a
 * position set up with the side not to move in check offers. */
static inline bool game_node_plays_a_move(const GameNode *n)
{
    const GameNode *c = n->child;
    return c && move_kind(c->move) != MK_NULL && type_of(pos_piece_on(&n->pos, move_to(c->move))) != KING;
}

static inline bool node_is_mainline(const GameNode *n) { return n->depth == 0; }

/* A walk down a game's tree is a chain of loads (n->child), each waiting
 * on the last when the nodes are no longer in the cache. The arena puts
 * the nodes a game's reader makes one after another (comments and
 * variations aside), so the node `ahead` steps after n in creation order
 * is most likely `ahead` node sizes further on: this fetches the bytes at
 * `offset` in it (offsetof(GameNode, ...)) into the cache ahead of the
 * walk. Only a hint: nothing is read, and a wrong guess costs one fetch
 * (a prefetch never faults). */
static inline void game_node_prefetch(const GameNode *n, int ahead, size_t offset)
{
#if defined(__GNUC__)
    uintptr_t guess = (uintptr_t)n + (uintptr_t)ahead * arena_align_up(sizeof *n) + offset;
    __builtin_prefetch((const void *)guess);
#else
    (void)n, (void)ahead, (void)offset;
#endif
}

/* The game-tree walk, the one way every part of cql goes over a tree: the
 * node after n in preorder, the main line first (position ids are numbered
 * in this order), within the subtree of `root` (NULL: the whole tree). With
 * `variations`, every node; without, the main continuation only (n->child).
 * NULL after the last. A loop, not a recursion: a variation can be
 * thousands of moves deep.
 *
 *     for (const GameNode *n = g->root; n; n = game_walk_next(NULL, n, true)) ...
 */
static inline const GameNode *game_walk_next(const GameNode *root, const GameNode *n, bool variations)
{
    if (!variations || n->child) return n->child;
    while (n != root && !n->sibling) n = n->parent;
    return n == root ? NULL : n->sibling;
}

#endif
