/*
 * src/eval/nav.c — position values and the game tree: `:`, position N,
 * currentposition, initialposition, parent, child, lca, distance,
 * ancestor/descendant, the position order relations, primary/secondary and
 * virtualmainline.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <string.h>

#include "eval/eval_int.h"

static bool is_ancestor_or_self(const GameNode *a, const GameNode *b)
{
    while (b && b->ply > a->ply) b = b->parent;
    return b == a;
}

const GameNode *eval_common_ancestor(const GameNode *a, const GameNode *b)
{
    while (a->ply > b->ply) a = a->parent;
    while (b->ply > a->ply) b = b->parent;
    while (a != b) {
        a = a->parent;
        b = b->parent;
    }
    return a;
}

/* a ≺ b: a is a strict ancestor of b (comes before it in the game); ==, != identity. */
bool eval_compare_positions(TokKind op, const GameNode *a, const GameNode *b)
{
    switch (op) {
    case TK_EQ: return a == b;
    case TK_NE: return a != b;
    case TK_BEFORE: return a != b && is_ancestor_or_self(a, b);
    case TK_BEFORE_EQ: return is_ancestor_or_self(a, b);
    case TK_AFTER: return a != b && is_ancestor_or_self(b, a);
    case TK_AFTER_EQ: return is_ancestor_or_self(b, a);
    case TK_LT: return a->id < b->id;
    case TK_LE: return a->id <= b->id;
    case TK_GT: return a->id > b->id;
    case TK_GE: return a->id >= b->id;
    default: return false;
    }
}

/* s & t between positions: the squares whose contents are the same in both. */
bool eval_position_intersect(Evaluator *ev, const Node *n, Value *out)
{
    Value a, b;
    if (!eval_node(ev, n->kids[0], &a) || !eval_node(ev, n->kids[1], &b)) return false;
    if (a.type != VT_POSITION || b.type != VT_POSITION) return false;
    Bitboard same = 0;
    for (Square s = 0; s < SQ_NB; s++)
        if (a.pos->pos.board[s] == b.pos->pos.board[s]) same |= sq_bb(s);
    out->type = VT_SET;
    out->set = same;
    return same != 0;
}

/* P : F evaluates F at the position P. */
static bool eval_colon(Evaluator *ev, const Node *n, Value *out)
{
    Value p;
    if (!eval_node(ev, n->kids[0], &p) || p.type != VT_POSITION) return false;
    const GameNode *saved = ev->cur;
    ev->cur = p.pos;
    bool matched = eval_node(ev, n->kids[1], out);
    if (out->type == VT_PIECE) {   /* a piece's square is the one at P */
        Bitboard b = eval_piece_square(ev, out->piece);
        out->type = VT_SET;
        out->set = b;
    }
    ev->cur = saved;
    return matched;
}

static void index_nodes(Evaluator *ev)
{
    const Game *g = ev->game;
    ev->nodes_by_id = ARENA_ARRAY(ev->arena, const GameNode *, g->node_count);
    for (const GameNode *n = g->root; n; n = game_walk_next(NULL, n, true)) ev->nodes_by_id[n->id] = n;
}

const GameNode *eval_node_by_id(Evaluator *ev, int32_t id)
{
    if (!ev->nodes_by_id) index_nodes(ev);
    return ev->nodes_by_id[id];
}

static bool eval_position(Evaluator *ev, const Node *n, Value *out)
{
    int64_t id;
    if (!eval_number(ev, n->kids[0], &id) || id < 0 || id >= ev->game->node_count) return false;
    return eval_position_value(out, eval_node_by_id(ev, (int32_t)id));
}

static bool eval_named_position(Evaluator *ev, const Node *n, Value *out)
{
    switch (n->kind) {
    case ND_CURRENTPOSITION: return eval_position_value(out, ev->cur);
    case ND_INITIALPOSITION: return eval_position_value(out, ev->game->root);
    case ND_PARENT: return eval_position_value(out, ev->cur->parent);
    default: return false;
    }
}

/* child: the main continuation; child(n): the n-th child, 0 being the main
 * one. Without `variations` only the main continuation exists, as for move,
 * find and line: child(n) for n >= 1 never matches (CQL 6.2). */
static bool eval_child(Evaluator *ev, const Node *n, Value *out)
{
    int64_t k = 0;
    if (n->kids[0] && !eval_number(ev, n->kids[0], &k)) return false;
    if (k > 0 && !ev->settings.run.variations) return false;
    const GameNode *c = ev->cur->child;
    for (; c && k > 0; k--) c = c->sibling;
    return k == 0 && eval_position_value(out, c);
}

static bool two_positions(Evaluator *ev, const Node *n, const GameNode **a, const GameNode **b)
{
    Value x, y;
    if (!eval_node(ev, n->kids[0], &x) || x.type != VT_POSITION) return false;
    if (!eval_node(ev, n->kids[1], &y) || y.type != VT_POSITION) return false;
    *a = x.pos;
    *b = y.pos;
    return true;
}

static bool eval_lca(Evaluator *ev, const Node *n, Value *out)
{
    const GameNode *a, *b;
    return two_positions(ev, n, &a, &b) && eval_position_value(out, eval_common_ancestor(a, b));
}

static bool eval_distance(Evaluator *ev, const Node *n, Value *out)
{
    const GameNode *a, *b;
    if (!two_positions(ev, n, &a, &b)) return false;
    const GameNode *l = eval_common_ancestor(a, b);
    out->type = VT_NUMBER;
    out->num = (a->ply - l->ply) + (b->ply - l->ply);
    return true;
}

/* primary: the current position was reached by the main continuation of
 * its parent; secondary: by a variation's move. The start position was
 * reached by no move and is neither (CQL 6.2). */
static bool eval_primary_secondary(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    const GameNode *c = ev->cur;
    if (!c->parent) return false;
    bool primary = c->parent->child == c;
    return n->kind == ND_PRIMARY ? primary : !primary;
}

/* virtualmainline: the current position lies on the virtual main line of the
 * position the query is being evaluated for (the origin): the origin's
 * ancestors and the origin itself, then its main continuations. It tells
 * something only inside a search (find, echo, :): at the origin it holds. */
static bool eval_virtualmainline(Evaluator *ev, const Node *n, Value *out)
{
    (void)n;
    (void)out;
    const GameNode *c = ev->cur, *origin = ev->origin ? ev->origin : c;
    if (is_ancestor_or_self(c, origin)) return true;
    while (c->ply > origin->ply) {
        if (c->parent->child != c) return false;
        c = c->parent;
    }
    return c == origin;
}

/* ancestor(x y): x is an ancestor of y (or y itself); descendant(x y): the reverse. */
static bool eval_ancestry(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    const GameNode *a, *b;
    if (!two_positions(ev, n, &a, &b)) return false;
    return n->kind == ND_ANCESTOR ? is_ancestor_or_self(a, b) : is_ancestor_or_self(b, a);
}

static const EvalEntry nav_entries[] = {
    {ND_COLON, eval_colon},
    {ND_POSITION, eval_position},
    {ND_CURRENTPOSITION, eval_named_position},
    {ND_INITIALPOSITION, eval_named_position},
    {ND_PARENT, eval_named_position},
    {ND_CHILD, eval_child},
    {ND_LCA, eval_lca},
    {ND_DISTANCE, eval_distance},
    {ND_ANCESTOR, eval_ancestry},
    {ND_DESCENDANT, eval_ancestry},
    {ND_PRIMARY, eval_primary_secondary},
    {ND_SECONDARY, eval_primary_secondary},
    {ND_VIRTUALMAINLINE, eval_virtualmainline},
    {ND_COUNT_, NULL},
};

const EvalFamily eval_nav_family = {nav_entries, NULL, NULL, NULL};
