/*
 * src/query/filters.c — the table of filters.def as data (see filters.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "query/filters.h"

#include "chess/bitboard.h"

/* the shape column: whether a keyword begins the filter (the parser reads
 * the rest); GAMETEXT carries the tag the evaluator reads */
#define INFO_EXPR .has_keyword = false
#define INFO_PASS .has_keyword = false
#define INFO_KW0 .has_keyword = true
#define INFO_KW1(prec, operand) .has_keyword = true
#define INFO_ARGS(min, max, args) .has_keyword = true
#define INFO_GAMETEXT(pgn_tag) .has_keyword = true, .tag = pgn_tag
#define INFO_WITH(fn) .has_keyword = true

#define XF_SAME .transform = XR_SAME
#define XF_ALL_KIDS .transform = XR_SAME, .all_kids = true
#define XF_SQUARES .transform = XR_SQUARES
#define XF_DIRECTIONS .transform = XR_DIRECTIONS, .all_kids = true
#define XF_COLOUR(k) .transform = XR_COLOUR, .partner = k
#define XF_SQUARE_COLOUR(k) .transform = XR_SQUARE_COLOUR, .partner = k, .all_kids = true
#define XF_SIDES .transform = XR_SIDES
#define XF_RESULT .transform = XR_RESULT
#define XF_OPAQUE .transform = XR_OPAQUE
#define XF_ORBIT .transform = XR_ORBIT

static const FilterInfo filters[ND_COUNT_] = {
#define FILTER(kind, text, shape, type, fx, xf, eval, sc)                                    \
    [kind] = {.name = text, .result = type, .effect = fx, XF_##xf, .evaluated = eval,        \
              .scope = SCOPE_##sc, INFO_##shape},
#include "query/filters.def"
};

/* keyword -> 1 + the kind it begins (0: none), and its argument */
static const uint16_t keyword_filters[TK_COUNT_] = {
#define SPELLING(token, ascii, unicode, kind, arg) [token] = 1 + kind,
#include "query/filters.def"
};

static const unsigned char keyword_args[TK_COUNT_] = {
#define SPELLING(token, ascii, unicode, kind, arg) [token] = arg,
#include "query/filters.def"
};

static const struct {
    TokKind tok;
    NodeKind kind;
} keyword_spellings[] = {
#define SPELLING(token, ascii, unicode, kind, arg) {token, kind},
#include "query/filters.def"
};

const FilterInfo *filter_info(NodeKind k)
{
    return &filters[k];
}

NodeKind filter_of_keyword(TokKind t)
{
    return keyword_filters[t] ? (NodeKind)(keyword_filters[t] - 1) : ND_COUNT_;
}

unsigned filter_keyword_arg(TokKind t)
{
    return keyword_args[t];
}

size_t filter_keywords(NodeKind k, TokKind *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof keyword_spellings / sizeof keyword_spellings[0]; i++) {
        if (keyword_spellings[i].kind != k) continue;
        if (n < max) out[n] = keyword_spellings[i].tok;
        n++;
    }
    return n;
}

/* The effect of node n: its row's, but FX_COMMENTS is output unless n is quiet. */
static FilterEffect node_effect(const Node *n)
{
    FilterEffect fx = filters[n->kind].effect;
    if (fx != FX_COMMENTS) return fx;
    return (n->flags & NF_QUIET) ? FX_PURE : FX_OUTPUT;
}

/* Every node of n has an effect in `allowed` (a mask of 1 << FilterEffect). */
static bool tree_effects_within(const Node *n, unsigned allowed)
{
    if (!n) return true;
    if (!(allowed & (1u << node_effect(n)))) return false;
    for (uint32_t i = 0; i < n->nkids; i++)
        if (!tree_effects_within(n->kids[i], allowed)) return false;
    return true;
}

bool filter_tree_is_pure(const Node *n)
{
    return tree_effects_within(n, 1u << FX_PURE);
}

bool filter_tree_only_reads(const Node *n)
{
    return tree_effects_within(n, 1u << FX_PURE | 1u << FX_READS);
}

bool filter_tree_writes(const Node *n)
{
    return !tree_effects_within(n, ~(1u << FX_WRITES));
}

bool filter_tree_is_per_game(const Node *n)
{
    if (!n) return true;
    if (filters[n->kind].scope == SCOPE_POSITION) return false;
    for (uint32_t i = 0; i < n->nkids; i++)
        if (!filter_tree_is_per_game(n->kids[i])) return false;
    return true;
}
