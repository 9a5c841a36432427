/*
 * src/query/ast.c — AST names, constructors, deep copy, structural equality
 * and the walker (see src/query/ast.h); the printers are in print.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "query/ast.h"

#include <stdlib.h>
#include <string.h>

/* {==== names ================================================================ */

static const char *const kind_names[ND_COUNT_] = {
#define FILTER(kind, name, ...) name,
#include "query/filters.def"
};

const char *ast_kind_name(NodeKind k)
{
    return kind_names[k];
}

const char *ast_type_name(ValueType t)
{
    static const char *const names[VT_COUNT_] = {"none", "set", "number", "position", "string", "piece", "dictionary"};
    return t < VT_COUNT_ ? names[t] : "?";
}

static const char *const flag_names[NF_BIT_COUNT_] = {
#define X(flag, name) name,
    CQL_NODE_FLAGS(X)
#undef X
};

const char *ast_flag_name(unsigned bit)
{
    return bit < NF_BIT_COUNT_ ? flag_names[bit] : "?";
}

/* }==== */

/* {==== construction, copy, equality, walk =================================== */

Node *ast_new(Arena *a, NodeKind k, Span span, uint32_t nkids)
{
    Node *n = ARENA_NEW(a, Node);
    n->kind = k;
    n->span = span;
    n->slot = -1;
    n->op = TK_EOF;
    n->nkids = nkids;
    n->kids = nkids ? ARENA_ARRAY(a, Node *, nkids) : NULL;
    return n;
}

void ast_push(Arena *a, Node *parent, Node *child)
{
    /* the room doubles: a compound of n filters costs O(n), not O(n^2) */
    uint32_t cap = parent->kids_cap > parent->nkids ? parent->kids_cap : parent->nkids;
    if (parent->nkids == cap) {
        uint32_t bigger = cap ? 2 * cap : 4;
        parent->kids = arena_realloc(a, parent->kids, cap * sizeof(Node *), bigger * sizeof(Node *));
        parent->kids_cap = bigger;
    }
    parent->kids[parent->nkids++] = child;
}

Node *ast_clone(Arena *a, const Node *n)
{
    if (!n) return NULL;
    Node *c = ARENA_NEW(a, Node);
    *c = *n;   /* the text is shared: nothing writes to it */
    c->kids_cap = 0;
    if (n->desig) {
        Designator *d = ARENA_NEW(a, Designator);
        *d = *n->desig;
        d->parts = ARENA_ARRAY(a, SquarePart, d->nparts ? d->nparts : 1);
        memcpy(d->parts, n->desig->parts, d->nparts * sizeof(SquarePart));
        c->desig = d;
    }
    if (n->nkids) {
        c->kids = ARENA_ARRAY(a, Node *, n->nkids);
        for (uint32_t i = 0; i < n->nkids; i++) c->kids[i] = ast_clone(a, n->kids[i]);
    }
    return c;
}

uint64_t ast_count(const Node *n, uint64_t limit)
{
    if (!n) return 0;
    uint64_t c = 1;
    for (uint32_t i = 0; i < n->nkids && c <= limit; i++) c += ast_count(n->kids[i], limit - c);
    return c;
}

static bool designators_equal(const Designator *a, const Designator *b)
{
    if (!a || !b) return a == b;
    return a->pieces == b->pieces && a->squares == b->squares && a->has_piece_part == b->has_piece_part &&
           a->has_square_part == b->has_square_part && a->all_squares_symbol == b->all_squares_symbol &&
           a->nparts == b->nparts && memcmp(a->parts, b->parts, a->nparts * sizeof(SquarePart)) == 0;
}

bool ast_equal(const Node *a, const Node *b)
{
    if (!a || !b) return a == b;
    /* the name `currenttransform` gets in an image does not make images
     * differ (CQL 6.2 merges them first: cql62-remaining.md §13) */
    bool named = a->kind == ND_CURRENTTRANSFORM;
    if (a->kind != b->kind || a->type != b->type || a->nkids != b->nkids || (!named && a->num != b->num) ||
        a->num2 != b->num2 || a->flags != b->flags || a->slot != b->slot || a->op != b->op || a->dirs != b->dirs)
        return false;
    if (!named && a->text != b->text && (!a->text || !b->text || strcmp(a->text, b->text) != 0)) return false;
    if (!designators_equal(a->desig, b->desig)) return false;
    for (uint32_t i = 0; i < a->nkids; i++)
        if (!ast_equal(a->kids[i], b->kids[i])) return false;
    return true;
}

const Node *ast_too_deep(const Node *n, uint32_t limit)
{
    typedef struct Pending {
        const Node *node;
        uint32_t level;
    } Pending;
    Pending *stack = NULL;
    size_t count = 0, cap = 0;
    const Node *found = NULL;
    if (n) {
        stack = xmalloc(16 * sizeof *stack);
        cap = 16;
        stack[count++] = (Pending){n, 1};
    }
    while (count > 0 && !found) {
        Pending at = stack[--count];
        if (at.level > limit) {
            found = at.node;
            break;
        }
        /* the kids in reverse, so that the first is looked at first */
        for (uint32_t i = at.node->nkids; i-- > 0;) {
            if (!at.node->kids[i]) continue;
            if (count == cap) {
                cap *= 2;
                stack = xrealloc(stack, cap * sizeof *stack);
            }
            stack[count++] = (Pending){at.node->kids[i], at.level + 1};
        }
    }
    free(stack);
    return found;
}

void ast_lexer_init(Lexer *lx, const Query *q, uint32_t start, uint32_t end)
{
    lex_init(lx, q->src.text, start, end);
    lex_set_values(lx, q->values, q->nvalues);
}

const char *ast_value_at(const Query *q, uint32_t start)
{
    uint32_t lo = 0, hi = q->nvalues;   /* values are in the order of the text */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (q->values[mid].start < start) lo = mid + 1;
        else hi = mid;
    }
    return lo < q->nvalues && q->values[lo].start == start ? q->values[lo].text : "";
}

void ast_walk(const Node *n, AstVisitor visit, void *ctx)
{
    if (!n || !visit(n, ctx)) return;
    for (uint32_t i = 0; i < n->nkids; i++) ast_walk(n->kids[i], visit, ctx);
}

/* }==== */
