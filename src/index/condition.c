/*
 * src/index/condition.c — a query's necessary condition on a game's
 * summary (see condition.h).
 *
 * The condition is a small tree kept in one array: atoms (a piece on some
 * squares, a flag, a piece count in a range) under `and` and `or`. It is
 * read from the body at the position where the body is evaluated, and
 * only through filters evaluated at that same position (compounds, and,
 * or, parentheses, orbits and their members): a filter at another
 * position, or one not understood, is "no condition". Its size is bounded
 * (CONDITION_MAX_NODES): a bigger one (an orbit of huge images) is no
 * condition at all, so testing it costs little per game whatever the query.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "index/condition.h"

#include <limits.h>
#include <stdlib.h>

#include "query/filters.h"

enum { CONDITION_MAX_NODES = 4096, CONDITION_MAX_DEPTH = 200 };

typedef enum CondKind {
    COND_PLACE,    /* a piece of `pieces` stood on one of `squares` */
    COND_FLAGS,    /* the summary has one of `flags` */
    COND_COUNT,    /* at some position the count of `pieces` on `squares` can be in [lo, hi] */
    COND_RESULT,   /* the game's result is `flags` (a SummaryResult) */
    COND_AND,
    COND_OR
} CondKind;

typedef struct CondNode {
    CondKind kind;
    uint16_t pieces;
    Bitboard squares;
    uint32_t flags;
    int lo, hi;
    uint32_t first, nkids;   /* and, or: links[first .. first + nkids) */
} CondNode;

struct Condition {
    CondNode *nodes;
    size_t count, cap;
    uint32_t *links;
    size_t nlinks, links_cap;
    int root;
    bool too_big;
};

#define NO_CONDITION (-1)

/* {==== building ============================================================= */

static int add_node(Condition *c, CondNode node)
{
    if (c->count == CONDITION_MAX_NODES) {
        c->too_big = true;
        return NO_CONDITION;
    }
    if (c->count == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        c->nodes = xrealloc(c->nodes, c->cap * sizeof *c->nodes);
    }
    c->nodes[c->count] = node;
    return (int)c->count++;
}

/* The children of an `and` or `or` being made. */
typedef struct KidList {
    int *items;
    size_t count, cap;
} KidList;

static void kid_push(KidList *l, int k)
{
    if (l->count == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->items = xrealloc(l->items, l->cap * sizeof *l->items);
    }
    l->items[l->count++] = k;
}

/* An `or` of places of the same pieces is one place on the union of their
 * squares (shift {Ka1}: 64 images, one atom), and an `or` of flags one
 * test of them all. */
static bool merged_into(Condition *c, const KidList *l, int k)
{
    const CondNode *x = &c->nodes[k];
    for (size_t i = 0; i < l->count; i++) {
        CondNode *y = &c->nodes[l->items[i]];
        if (x->kind == COND_PLACE && y->kind == COND_PLACE && y->pieces == x->pieces) {
            y->squares |= x->squares;
            return true;
        }
        if (x->kind == COND_FLAGS && y->kind == COND_FLAGS) {
            y->flags |= x->flags;
            return true;
        }
    }
    return false;
}

/* kind over l's children (freed): the one child itself, or NO_CONDITION for none. */
static int junction(Condition *c, CondKind kind, KidList *l)
{
    int result = NO_CONDITION;
    if (l->count == 1) {
        result = l->items[0];
    } else if (l->count > 1 && !c->too_big) {
        CondNode node = {kind, 0, 0, 0, 0, 0, (uint32_t)c->nlinks, (uint32_t)l->count};
        if (c->nlinks + l->count > c->links_cap) {
            c->links_cap = 2 * (c->nlinks + l->count);
            c->links = xrealloc(c->links, c->links_cap * sizeof *c->links);
        }
        for (size_t i = 0; i < l->count; i++) c->links[c->nlinks++] = (uint32_t)l->items[i];
        result = add_node(c, node);
    }
    free(l->items);
    return result;
}

/* A designator that the empty square does not satisfy: its pieces stood
 * on its squares (else no condition). */
static int place(Condition *c, const Designator *d)
{
    if (!d || !d->pieces || (d->pieces & 1u) || !d->squares) return NO_CONDITION;
    return add_node(c, (CondNode){COND_PLACE, d->pieces, d->squares, 0, 0, 0, 0, 0});
}

static int flag(Condition *c, uint32_t flags)
{
    return add_node(c, (CondNode){COND_FLAGS, 0, 0, flags, 0, 0, 0, 0});
}

/* The designator whose number of squares n's value is (A, #A), or NULL. */
static const Designator *counted(const Node *n)
{
    while (n && n->kind == ND_PAREN) n = n->kids[0];
    if (n && n->kind == ND_COUNT) n = n->kids[0];
    while (n && n->kind == ND_PAREN) n = n->kids[0];
    if (!n || n->kind != ND_DESIGNATOR || !n->desig || (n->desig->pieces & 1u)) return NULL;
    return n->desig;
}

/* `count OP k` as the range of counts it holds for (count >= 0). */
static bool count_range(TokKind op, int64_t k, int *lo, int *hi)
{
    int64_t low = 0, high = INT_MAX;
    switch (op) {
    case TK_EQ: low = high = k; break;
    case TK_LT: high = k - 1; break;
    case TK_LE: high = k; break;
    case TK_GT: low = k + 1; break;
    case TK_GE: low = k; break;
    default: return false;   /* !=, and the positions' comparisons */
    }
    if (high < 0 || low > 64) {   /* no count of squares is there: never holds */
        low = 1;
        high = 0;
    }
    *lo = low < 0 ? 0 : (int)low;
    *hi = high > 64 ? 64 : (int)high;
    return true;
}

/* A # of a designator (or the designator) beside a number: the count can
 * reach the range it asks for. */
static int relation(Condition *c, const Node *n)
{
    static const TokKind mirrored[][2] = {{TK_LT, TK_GT}, {TK_LE, TK_GE}, {TK_GT, TK_LT}, {TK_GE, TK_LE},
                                          {TK_EQ, TK_EQ}};
    if (n->nkids != 2 || !n->kids[0] || !n->kids[1]) return NO_CONDITION;
    const Node *number = n->kids[1];
    const Designator *d = counted(n->kids[0]);
    TokKind op = n->op;
    if (!d) {   /* k OP #A: #A OP' k */
        number = n->kids[0];
        d = counted(n->kids[1]);
        TokKind turned = TK_EOF;
        for (size_t i = 0; i < sizeof mirrored / sizeof mirrored[0]; i++)
            if (mirrored[i][0] == op) turned = mirrored[i][1];
        op = turned;
    }
    if (!d || number->kind != ND_INT || op == TK_EOF) return NO_CONDITION;
    int lo, hi;
    if (!count_range(op, number->num, &lo, &hi)) return NO_CONDITION;
    return add_node(c, (CondNode){COND_COUNT, d->pieces, d->squares, 0, lo, hi, 0, 0});
}

static int condition_at(Condition *c, const Node *n, int depth);

/* A filter of designators whose set is empty when one of them is (ray,
 * xray, between): each one's pieces stood on its squares. */
static int every_designator(Condition *c, const Node *n)
{
    KidList l = {NULL, 0, 0};
    for (uint32_t i = 0; i < n->nkids; i++) {
        if (!n->kids[i] || n->kids[i]->kind != ND_DESIGNATOR) {
            free(l.items);
            return NO_CONDITION;
        }
        int x = place(c, n->kids[i]->desig);
        if (x != NO_CONDITION) kid_push(&l, x);
    }
    return junction(c, COND_AND, &l);
}

/* `move` over the moves the game plays (not the legal moves of a
 * position, not a count): the kinds of move it asks for happen in the
 * game. Its arguments are evaluated before any move is looked at, so the
 * whole filter must change nothing. */
static int played_move(Condition *c, const Node *n)
{
    if ((n->flags & (NF_LEGAL | NF_PSEUDOLEGAL | NF_COUNT)) || !filter_tree_changes_nothing(n)) return NO_CONDITION;
    KidList l = {NULL, 0, 0};
    uint32_t kinds = 0;
    if (n->flags & (NF_CASTLE | NF_OO)) kinds |= SUMMARY_CASTLE_SHORT;
    if (n->flags & (NF_CASTLE | NF_OOO)) kinds |= SUMMARY_CASTLE_LONG;
    if ((n->flags & NF_ENPASSANT) || (n->nkids > 4 && n->kids[4])) kinds |= SUMMARY_EN_PASSANT;
    if (n->flags & NF_NULL) kinds |= SUMMARY_NULL_MOVE;
    if (kinds) kid_push(&l, flag(c, kinds));
    if (n->nkids > 2 && n->kids[2]) {   /* a capture */
        uint32_t taken = 0;
        for (PieceType t = PAWN; t <= QUEEN; t++) taken |= summary_capture(t);
        kid_push(&l, flag(c, taken));
    }
    if (n->nkids > 3 && n->kids[3]) {   /* a promotion, to the types of a designator */
        const Node *promo = n->kids[3];
        uint32_t to = 0;
        for (int p = W_PAWN; p <= B_KING; p++)
            if (promo->kind != ND_DESIGNATOR || (promo->desig->pieces & (1u << p)))
                if (type_of((Piece)p) != NO_PIECE_TYPE && type_of((Piece)p) <= KING) to |= summary_promotion(type_of((Piece)p));
        kid_push(&l, flag(c, to));
    }
    for (size_t i = 0; i < l.count; i++)
        if (l.items[i] == NO_CONDITION) l.items[i--] = l.items[--l.count];
    return junction(c, COND_AND, &l);
}

/* The members of an orbit or an orbit group: the orbit matches when one
 * matches, so each must have a condition. */
static int any_member(Condition *c, const Node *n, int depth)
{
    KidList l = {NULL, 0, 0};
    for (uint32_t i = 0; i < n->nkids; i++) {
        const Node *k = n->kids[i];
        int x = k->kind == ND_ORBIT_GROUP ? any_member(c, k, depth + 1)
                : k->kind == ND_ORBIT_MEMBER ? condition_at(c, k->kids[0], depth + 1) : NO_CONDITION;
        if (x == NO_CONDITION) {
            free(l.items);
            return NO_CONDITION;
        }
        if (!merged_into(c, &l, x)) kid_push(&l, x);
    }
    return junction(c, COND_OR, &l);
}

/* The condition for n to match at a position, with n failing quietly
 * there when the game fails it (nothing it evaluates changes anything). */
static int condition_at(Condition *c, const Node *n, int depth)
{
    while (n && n->kind == ND_PAREN) n = n->kids[0];
    if (!n || (n->flags & NF_AS_POSITION) || depth > CONDITION_MAX_DEPTH || c->too_big) return NO_CONDITION;
    switch (n->kind) {
    case ND_DESIGNATOR:
        return place(c, n->desig);
    case ND_CHECK:
        return flag(c, SUMMARY_CHECK);
    case ND_MATE:
        return flag(c, SUMMARY_MATE);
    case ND_STALEMATE:
        return flag(c, SUMMARY_STALEMATE);
    case ND_RELATION:
        return relation(c, n);
    case ND_ATTACKS:
    case ND_ATTACKEDBY: {   /* a square of kids[0] attacking, or attacked from, one of kids[1] */
        if (n->kids[0]->kind != ND_DESIGNATOR || n->kids[1]->kind != ND_DESIGNATOR) return NO_CONDITION;
        KidList l = {NULL, 0, 0};
        for (int i = 0; i < 2; i++) {
            int x = place(c, n->kids[i]->desig);
            if (x != NO_CONDITION) kid_push(&l, x);
        }
        return junction(c, COND_AND, &l);
    }
    case ND_RAY:
    case ND_XRAY:
    case ND_BETWEEN:
        return every_designator(c, n);
    case ND_RESULT:
        return add_node(c, (CondNode){COND_RESULT, 0, 0, summary_result_of(n->text), 0, 0, 0, 0});
    case ND_MOVE:
        return played_move(c, n);
    case ND_FIND:   /* forward or back, the positions it looks at are the game's */
        return n->kids[1] ? NO_CONDITION : condition_at(c, n->kids[0], depth + 1);
    case ND_NOTRANSFORM:
        return condition_at(c, n->kids[0], depth + 1);
    case ND_COMPOUND:
    case ND_AND: {
        /* every member must match, in order, and the first that fails ends
         * the evaluation: a member's condition holds for the whole when
         * nothing before it can change anything */
        KidList l = {NULL, 0, 0};
        for (uint32_t i = 0; i < n->nkids; i++) {
            int x = condition_at(c, n->kids[i], depth + 1);
            if (x != NO_CONDITION) kid_push(&l, x);
            if (!filter_tree_changes_nothing(n->kids[i])) break;
        }
        return junction(c, COND_AND, &l);
    }
    case ND_OR: {
        KidList l = {NULL, 0, 0};
        for (uint32_t i = 0; i < n->nkids; i++) {
            int x = condition_at(c, n->kids[i], depth + 1);
            if (x == NO_CONDITION) {
                free(l.items);
                return NO_CONDITION;
            }
            if (!merged_into(c, &l, x)) kid_push(&l, x);
        }
        return junction(c, COND_OR, &l);
    }
    case ND_ORBIT:   /* with count it always matches */
        return n->flags & NF_COUNT ? NO_CONDITION : any_member(c, n, depth);
    default:
        return NO_CONDITION;
    }
}

Condition *condition_of_search(const Node *body, const char *result)
{
    Condition *c = xcalloc(1, sizeof *c);
    KidList l = {NULL, 0, 0};
    int x = body ? condition_at(c, body, 0) : NO_CONDITION;
    if (x != NO_CONDITION) kid_push(&l, x);
    if (result) kid_push(&l, add_node(c, (CondNode){COND_RESULT, 0, 0, summary_result_of(result), 0, 0, 0, 0}));
    c->root = junction(c, COND_AND, &l);
    if (c->root == NO_CONDITION || c->too_big) {
        condition_free(c);
        return NULL;
    }
    return c;
}

void condition_free(Condition *c)
{
    if (!c) return;
    free(c->nodes);
    free(c->links);
    free(c);
}

/* }==== */
/* {==== testing a summary ===================================================== */

/* The fewest and the most pieces of d's at a position of the game. */
static void count_bounds(const CondNode *x, const GameSummary *s, int *lo, int *hi)
{
    *lo = 0;
    *hi = 0;
    bool whole_board = x->squares == ALL_SQUARES_BB;
    for (unsigned pieces = x->pieces & ~1u; pieces; pieces &= pieces - 1) {
        Piece p = (Piece)__builtin_ctz(pieces);
        int most = bb_popcount(s->squares[p] & x->squares);
        if (s->max_count[p] < SUMMARY_MANY && s->max_count[p] < most) most = s->max_count[p];
        *hi += most;
        if (whole_board) *lo += s->min_count[p];
    }
}

static bool admits(const Condition *c, const CondNode *x, const GameSummary *s)
{
    switch (x->kind) {
    case COND_PLACE:
        for (unsigned pieces = x->pieces; pieces; pieces &= pieces - 1)
            if (s->squares[__builtin_ctz(pieces)] & x->squares) return true;
        return false;
    case COND_FLAGS:
        return (s->flags & x->flags) != 0;
    case COND_RESULT:
        return (s->flags & SUMMARY_RESULT_MASK) >> SUMMARY_RESULT_SHIFT == x->flags;
    case COND_COUNT: {
        int lo, hi;
        count_bounds(x, s, &lo, &hi);
        return lo <= x->hi && x->lo <= hi;
    }
    case COND_AND:
        for (uint32_t i = 0; i < x->nkids; i++)
            if (!admits(c, &c->nodes[c->links[x->first + i]], s)) return false;
        return true;
    case COND_OR:
        for (uint32_t i = 0; i < x->nkids; i++)
            if (admits(c, &c->nodes[c->links[x->first + i]], s)) return true;
        return false;
    }
    return true;
}

uint16_t condition_pieces(const Condition *c)
{
    unsigned pieces = 0;
    for (size_t i = 0; c && i < c->count; i++)
        if (c->nodes[i].kind == COND_PLACE || c->nodes[i].kind == COND_COUNT) pieces |= c->nodes[i].pieces;
    return (uint16_t)pieces;
}

bool condition_admits(const Condition *c, const GameSummary *s)
{
    return !c || admits(c, &c->nodes[c->root], s);
}

/* }==== */
/* {==== in words ============================================================== */

static void print_condition_squares(uint16_t pieces, Bitboard squares, StrBuf *out)
{
    static const char letters[] = ".PNBRQK..pnbrqk.";
    sb_putc(out, '[');
    for (int p = 1; p < PIECE_NB; p++)
        if (pieces & (1u << p)) sb_putc(out, letters[p]);
    sb_putc(out, ']');
    if (squares == ALL_SQUARES_BB) return;
    sb_putc(out, '[');
    bool first = true;
    for (Bitboard b = squares; b;) {
        Square s = bb_pop_lsb(&b);
        if (!first) sb_putc(out, ',');
        first = false;
        sb_putc(out, (char)('a' + file_of(s)));
        sb_putc(out, (char)('1' + rank_of(s)));
    }
    sb_putc(out, ']');
}

static void print_condition(const Condition *c, const CondNode *x, StrBuf *out)
{
    static const char *const flag_names[] = {"check", "mate", "stalemate", "o-o", "o-o-o", "enpassant",
                                             "nullmove", "variations"};
    switch (x->kind) {
    case COND_PLACE:
        print_condition_squares(x->pieces, x->squares, out);
        return;
    case COND_FLAGS: {
        bool first = true;
        for (int i = 0; i < 32; i++) {
            if (!(x->flags & (UINT32_C(1) << i))) continue;
            if (!first) sb_append(out, " or ");
            first = false;
            if (i < 8) sb_append(out, flag_names[i]);
            else sb_printf(out, "%s %c", i < 16 ? "promote" : "capture", ".PNBRQK."[i & 7]);
        }
        return;
    }
    case COND_RESULT: {
        static const char *const results[] = {"none", "1-0", "0-1", "1/2-1/2", "*", "other"};
        sb_printf(out, "result %s", results[x->flags < 6 ? x->flags : 5]);
        return;
    }
    case COND_COUNT:
        sb_putc(out, '#');
        print_condition_squares(x->pieces, x->squares, out);
        sb_printf(out, " in %d..%d", x->lo, x->hi);
        return;
    case COND_AND:
    case COND_OR:
        sb_putc(out, '(');
        for (uint32_t i = 0; i < x->nkids; i++) {
            if (i) sb_append(out, x->kind == COND_AND ? " and " : " or ");
            print_condition(c, &c->nodes[c->links[x->first + i]], out);
        }
        sb_putc(out, ')');
        return;
    }
}

void condition_print(const Condition *c, StrBuf *out)
{
    if (!c) sb_append(out, "none");
    else print_condition(c, &c->nodes[c->root], out);
}

/* }==== */
