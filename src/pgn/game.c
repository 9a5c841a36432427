/*
 * src/pgn/game.c — the game tree: roots, moves with piece identities, numbering.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pgn/game.h"

#include <string.h>

#include "chess/movegen.h"

/* Tag filters ask at every position of a game, so the first two letters
 * are compared before the whole names. */
Tag *game_tag_find(const Tag *tags, int count, const char *name)
{
    /* a name of one byte has its NUL second; Round and Result, both asked
     * for, share the first */
    for (int i = 0; i < count; i++)
        if (tags[i].name[0] == name[0] && (!name[0] || tags[i].name[1] == name[1]) && strcmp(tags[i].name, name) == 0)
            return (Tag *)(uintptr_t)&tags[i];
    return NULL;
}

const char *game_tag(const Game *g, const char *name)
{
    const Tag *t = game_tag_find(g->tags, g->tag_count, name);
    return t ? t->value : NULL;
}

const char *game_result_tag(const Game *g)
{
    const char *r = game_tag(g, "Result");
    if (!r) return NULL;
    /* byte by byte, each test stopping at the NUL: the writer asks for
     * every game it writes, and three strcmp calls cost more than the
     * look-up of the tag */
    bool decisive = (r[0] == '1' && r[1] == '-' && r[2] == '0' && !r[3]) ||
                    (r[0] == '0' && r[1] == '-' && r[2] == '1' && !r[3]);
    return decisive || (r[0] == '1' && r[1] == '/' && strcmp(r, "1/2-1/2") == 0) ? r : NULL;
}

const char *game_result(const Game *g)
{
    const char *r = game_result_tag(g);
    return r ? r : g->result;
}

static bool same_comments(const Comment *a, const Comment *b)
{
    for (; a && b; a = a->next, b = b->next)
        if (strcmp(a->text, b->text) != 0) return false;
    return !a && !b;
}

/* Same moves, glyphs and comments everywhere in the two trees. */
static bool same_tree(const GameNode *a, const GameNode *b)
{
    for (; a && b; a = a->sibling, b = b->sibling) {
        if (a->move != b->move || a->nag_count != b->nag_count ||
            (a->nag_count && memcmp(a->nags, b->nags, a->nag_count) != 0) ||
            !same_comments(a->comments, b->comments) ||
            !same_comments(a->pre_comments, b->pre_comments) || !same_tree(a->child, b->child))
            return false;
    }
    return !a && !b;
}

bool game_same_moves(const Game *a, const Game *b)
{
    return same_tree(a->root, b->root) && same_comments(a->root->comments, b->root->comments);
}

bool game_same(const Game *a, const Game *b)
{
    for (int i = 0; i < a->tag_count; i++) {
        const char *v = game_tag(b, a->tags[i].name);
        if (!v || strcmp(v, a->tags[i].value) != 0) return false;
    }
    return game_same_moves(a, b);
}

GameNode *game_new_root(Game *g, Arena *a, const Position *pos)
{
    GameNode *n = arena_alloc(a, sizeof *n);
    memset(n, 0, sizeof *n);
    n->pos = *pos;   /* piece_id: numbered by game_fill_piece_ids */
    g->root = n;
    g->node_count = 1;
    return n;
}

/* Moves the identities of the pieces that m moves; the Position is updated separately. */
static void move_piece_ids(uint8_t ids[SQ_NB], const Position *before, Move m)
{
    Square from = move_from(m), to = move_to(m);
    switch (move_kind(m)) {
    case MK_NULL:
        return;
    case MK_CASTLE_SHORT:
    case MK_CASTLE_LONG: {
        int side = move_kind(m) == MK_CASTLE_SHORT ? CASTLE_SHORT : CASTLE_LONG;
        Square rook_from = before->castle_rook[before->side][side];
        int rank = rank_of(from);
        Square rook_to = make_square(side == CASTLE_SHORT ? 5 : 3, rank);
        uint8_t king = ids[from], rook = ids[rook_from];
        ids[from] = 0;
        ids[rook_from] = 0;
        ids[to] = king;
        ids[rook_to] = rook;
        return;
    }
    case MK_EN_PASSANT:
        ids[make_square(file_of(to), rank_of(from))] = 0;
        break;
    default:
        break;
    }
    ids[to] = ids[from];
    ids[from] = 0;
}

/* The fields of n, a new child of parent reached by m, but its position. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void link_child(Game *g, GameNode *parent, GameNode *n, Move m)
{
    /* every other field, in struct order, so that the compiler can merge
     * neighbouring stores */
    n->san_len = 0;       /* the reader's game_keep_san */
    n->check_state = 0;
    n->nag_count = 0;
    n->annotated = 0;
    n->id = g->node_count++;    /* creation order; game_number_nodes fixes variations */
    n->move = m;
    n->child = NULL;
    n->sibling = NULL;
    n->pre_comments = NULL;
    n->comments = NULL;
    n->parent = parent;
    n->nags = NULL;
    n->piece_id = NULL;   /* game_fill_piece_ids */
    n->depth = parent->depth;
    n->ply = parent->ply + 1;
    if (!parent->child) {
        parent->child = n;
    } else {   /* a variation, after the last child so far */
        GameNode *last = g->variation_tail;
        if (!last || last->parent != parent)
            for (last = parent->child; last->sibling;) last = last->sibling;
        last->sibling = n;
        last->annotated = 1;
        n->depth++;
        g->has_variations = true;
    }
}

/* Inline where they are called (the reader's usual run, and on_move): see
 * pos_make_move. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline GameNode *game_add_move(Game *g, Arena *a, GameNode *parent, Move m)
{
    GameNode *n = arena_alloc(a, sizeof *n);
    pos_play_move(&n->pos, &parent->pos, m);
    link_child(g, parent, n, m);
    return n;
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline GameNode *game_add_normal_move(Game *g, Arena *a, GameNode *parent, Square from, Square to)
{
    GameNode *n = arena_alloc(a, sizeof *n);
    pos_play_normal_move(&n->pos, &parent->pos, from, to);
    link_child(g, parent, n, move_make(from, to, NO_PIECE_TYPE, MK_NORMAL));
    return n;
}

void game_fill_piece_ids(const Game *g)
{
    if (g->piece_ids_filled || !g->root) return;
    /* one block for every node's identities, in the game's arena */
    uint8_t *ids = arena_alloc(g->arena, (size_t)g->node_count * SQ_NB);
    /* the start position's pieces, 1, 2, ... in square order */
    GameNode *root = (GameNode *)(uintptr_t)g->root;
    root->piece_id = ids;
    uint8_t next_id = 1;
    for (Square s = 0; s < SQ_NB; s++) root->piece_id[s] = root->pos.board[s] != NO_PIECE ? next_id++ : 0;
    /* preorder: a parent's identities are set before its children's. Nodes
     * and games are never const objects, only const views, so writing
     * through the casts is well defined */
    for (const GameNode *c = game_walk_next(NULL, root, true); c; c = game_walk_next(NULL, c, true)) {
        GameNode *n = (GameNode *)(uintptr_t)c;
        n->piece_id = ids + (size_t)n->id * SQ_NB;
        memcpy(n->piece_id, n->parent->piece_id, SQ_NB);
        move_piece_ids(n->piece_id, &n->parent->pos, n->move);
    }
    ((Game *)(uintptr_t)g)->piece_ids_filled = true;
}

/* Preorder numbering without recursion: a variation can be thousands deep. */
void game_number_nodes(Game *g)
{
    if (!g->has_variations) return;   /* creation order is already preorder */
    int32_t next = 0;
    /* nodes are never const objects, only const views: writing the id
     * through the walk's pointer is well defined */
    for (const GameNode *n = g->root; n; n = game_walk_next(NULL, n, true)) ((GameNode *)(uintptr_t)n)->id = next++;
    g->node_count = next;
}

NodeCheck game_node_check_first(const GameNode *n)
{
    /* a position the game goes on from has a legal move: a move in the
     * tree is legal (a null move is refused in check) */
    NodeCheck state = !pos_in_check(&n->pos)                  ? NODE_NO_CHECK
                      : n->child || mg_has_legal_move_in_check(&n->pos) ? NODE_IN_CHECK
                                                              : NODE_MATED;
    /* a cache inside the node: nodes are never const objects, only const
     * views, so writing through the cast is well defined */
    ((GameNode *)(uintptr_t)n)->check_state = (uint8_t)state;
    return state;
}
