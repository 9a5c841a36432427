/*
 * src/query/filters.h — the facts of every filter, from the rows of
 * filters.def: its name, the keywords that begin it, the type of its value,
 * what evaluating it does besides matching, what a transform does to it, and
 * whether it can be evaluated yet.
 *
 * The parser, the transform pass and the evaluator ask here instead of
 * keeping lists of node kinds of their own. The effect class is required in
 * every row, so a new filter cannot be taken for pure by omission:
 *   - `find` remembers a body's answer per position only when every node of
 *     it is pure (filter_tree_is_pure);
 *   - a transform's guard skips an orbit member only when every node of it
 *     is pure or only reads (filter_tree_only_reads);
 *   - `loop` and `while` must contain a filter that writes a variable.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_FILTERS_H
#define CQL_FILTERS_H

#include <stdbool.h>
#include <stddef.h>

#include "query/ast.h"
#include "query/lexer.h"

/* Result markers of filters.def besides the ValueTypes. */
#define VT_SAME VT_COUNT_              /* the operand's type (KW1) */
#define VT_VARIES (VT_COUNT_ + 1)      /* worked out by the parse function */

/* What evaluating a filter does besides matching (filters.def). */
typedef enum FilterEffect {
    FX_PURE,     /* a function of the position and the game */
    FX_READS,    /* reads the search's state: variables, captures, the last path, settag's tags */
    FX_SETS,     /* sets such state, but no variable (regex captures, the last path) */
    FX_WRITES,   /* assigns or unbinds variables and dictionary entries */
    FX_OUTPUT,   /* comments, messages, the sort value, tags, files */
    FX_COMMENTS  /* its own automatic comments (`find`): FX_OUTPUT, or FX_PURE when quiet (NF_QUIET) */
} FilterEffect;

/* What a transform does to the node itself (filters.def). */
typedef enum FilterTransform {
    XR_SAME,            /* nothing: its children are mapped */
    XR_SQUARES,         /* a designator: squares and piece colours */
    XR_DIRECTIONS,      /* its direction mask */
    XR_COLOUR,          /* becomes `partner` when colours swap */
    XR_SQUARE_COLOUR,   /* becomes `partner` when square colours swap */
    XR_SIDES,           /* NF_WHITE / NF_BLACK swap with colours */
    XR_RESULT,          /* 1-0 and 0-1 swap with colours */
    XR_OPAQUE,          /* notransform: neither it nor its children change */
    XR_ORBIT            /* a transform filter: the pass makes it an orbit */
} FilterTransform;

/* Whether the evaluator has a function for a filter (filters.def). */
typedef enum FilterEvaluated {
    EVAL_YES,           /* one evaluation function, in a family of src/eval/ */
    EVAL_NOT_YET,       /* refused before the run: "filter 'X' is not supported yet" */
    EVAL_REPLACED       /* the transform pass replaces it before evaluation */
} FilterEvaluated;

typedef enum FilterScope {
    SCOPE_POSITION,     /* may change from one position of a game to the next */
    SCOPE_GAME          /* the same at every position of a game */
} FilterScope;

typedef struct FilterInfo {
    const char *name;           /* as `-parse` prints it */
    bool has_keyword;           /* a keyword begins it (its shape is not EXPR or PASS) */
    int result;                 /* a ValueType, VT_SAME or VT_VARIES */
    FilterEffect effect;
    FilterTransform transform;
    bool all_kids;              /* matches only when every child matches (a set: is not empty) */
    NodeKind partner;           /* XR_COLOUR, XR_SQUARE_COLOUR: the kind it becomes */
    FilterEvaluated evaluated;
    FilterScope scope;
    const char *tag;            /* GAMETEXT filters: the PGN tag read, or NULL */
} FilterInfo;

const FilterInfo *filter_info(NodeKind k);

/* The filter keyword t begins (a SPELLING of filters.def), or ND_COUNT_
 * when t begins none (a parameter word, an operator, not a keyword). */
NodeKind filter_of_keyword(TokKind t);

/* The `arg` of keyword t's SPELLING: the direction mask of a direction word. */
unsigned filter_keyword_arg(TokKind t);

/* The keywords that begin filter k, in the order of filters.def; returns
 * how many (at most max are stored). */
size_t filter_keywords(NodeKind k, TokKind *out, size_t max);

/* Every node of the tree n (NULL: true) is pure: its answer at a position
 * depends on that position and the game alone. */
bool filter_tree_is_pure(const Node *n);

/* Every node of n is pure or only reads: skipping its evaluation cannot be
 * noticed. */
bool filter_tree_only_reads(const Node *n);

/* Some node of n writes a variable or a dictionary entry. */
bool filter_tree_writes(const Node *n);

/* Every node of n (NULL: true) has the same answer at every position of a
 * game (the scope column of filters.def): the tree can be evaluated once
 * per game. */
bool filter_tree_is_per_game(const Node *n);

#endif
