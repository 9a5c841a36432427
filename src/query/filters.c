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

/* the test column */
#define TS_MATCH .test = TEST_MATCH
#define TS_VALUE(name) .test = TEST_VALUE, .noun = name
#define TS_VALUE_IF(form) .test = TEST_VALUE, .test_case = CASE_##form
#define TS_NEVER .test = TEST_NEVER
#define TS_OWN_ERROR .test = TEST_OWN_ERROR

/* the run column */
#define RN_SAFE .stops = false
#define RN_STOPS .stops = true
#define RN_STOPS_IF(form) .stops = true, .stop_case = CASE_##form

/* the kids column */
#define KD_ALL(c) .kids_form = KIDS_ALL, .kid_one = KID_##c, .kid_rest = KID_##c
#define KD_FIRST(c, rest) .kids_form = KIDS_FIRST, .kid_one = KID_##c, .kid_rest = KID_##rest
#define KD_LAST(c, rest) .kids_form = KIDS_LAST, .kid_one = KID_##c, .kid_rest = KID_##rest

static const FilterInfo filters[ND_COUNT_] = {
#define FILTER(kind, text, shape, type, fx, xf, eval, sc, test, run, kids)                   \
    [kind] = {.name = text, .result = type, .effect = fx, XF_##xf, .evaluated = eval,        \
              .scope = SCOPE_##sc, INFO_##shape, TS_##test, RN_##run, KD_##kids},
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

/* Whether node n has the form c names (filters.h, FilterCase). */
static bool in_form(const Node *n, FilterCase c)
{
    const Node *first = n->nkids ? n->kids[0] : NULL;
    switch (c) {
    case CASE_ALWAYS: return true;
    case CASE_NO_ARGUMENT: return !first;
    case CASE_NO_SIDE: return !first && !(n->flags & (NF_WHITE | NF_BLACK));
    case CASE_NUMBER_OR_STRING: return n->type == VT_NUMBER || n->type == VT_STRING;
    case CASE_STRING: return n->type == VT_STRING;
    case CASE_STRING_OPERAND: return first && first->type == VT_STRING;
    case CASE_POSITIONS: return first && first->type == VT_POSITION;
    }
    return false;
}

FilterTest filter_test(const Node *n)
{
    const FilterInfo *f = &filters[n->kind];
    return in_form(n, f->test_case) ? f->test : TEST_MATCH;
}

const char *filter_value_noun(const Node *n)
{
    const FilterInfo *f = &filters[n->kind];
    if (f->noun) return f->noun;
    if (f->test_case == CASE_NUMBER_OR_STRING)
        return n->type == VT_NUMBER ? "the numeric variable" : "the string variable";
    return "the value-only filter";
}

bool filter_may_stop(const Node *n)
{
    const FilterInfo *f = &filters[n->kind];
    if ((n->flags & NF_AS_POSITION) && f->test != TEST_NEVER) return true;
    return f->stops && in_form(n, f->stop_case);
}

bool filter_kid_is_test(const Node *n, uint32_t i, bool n_is_test)
{
    const FilterInfo *f = &filters[n->kind];
    bool one = f->kids_form == KIDS_FIRST ? i == 0 : f->kids_form == KIDS_LAST && i + 1 == n->nkids;
    KidContext c = one ? f->kid_one : f->kid_rest;
    return c == KID_TEST || (c == KID_INHERIT && n_is_test);
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

bool filter_tree_uses_files(const Node *n)
{
    return !tree_effects_within(n, ~(1u << FX_FILES));
}

/* Every node of n (NULL: true) is of a scope in `allowed` (a mask of
 * 1 << FilterScope). */
static bool tree_scopes_within(const Node *n, unsigned allowed)
{
    if (!n) return true;
    if (!(allowed & (1u << filters[n->kind].scope))) return false;
    for (uint32_t i = 0; i < n->nkids; i++)
        if (!tree_scopes_within(n->kids[i], allowed)) return false;
    return true;
}

bool filter_tree_is_per_game(const Node *n)
{
    return tree_scopes_within(n, 1u << SCOPE_GAME | 1u << SCOPE_TAGS);
}

bool filter_tree_reads_one_position(const Node *n)
{
    return tree_scopes_within(n, 1u << SCOPE_CURRENT | 1u << SCOPE_GAME | 1u << SCOPE_TAGS);
}

bool filter_tree_changes_nothing(const Node *n)
{
    if (!n) return true;
    FilterEffect fx = node_effect(n);
    if ((fx != FX_PURE && fx != FX_READS) || filter_may_stop(n)) return false;
    for (uint32_t i = 0; i < n->nkids; i++)
        if (!filter_tree_changes_nothing(n->kids[i])) return false;
    return true;
}

bool filter_tree_reads_only_tags(const Node *n)
{
    return tree_scopes_within(n, 1u << SCOPE_TAGS) && filter_tree_changes_nothing(n);
}
