/*
 * src/query/filters.h — the facts of every filter, from the rows of
 * filters.def: its name, the keywords that begin it, the type of its value,
 * what evaluating it does besides matching, what a transform does to it,
 * whether it can be evaluated yet, what its answer depends on, what it does
 * where only whether it matches is used, whether it may stop the run, and
 * where its children stand.
 *
 * The parser, the transform pass and the evaluator ask here instead of
 * keeping lists of node kinds of their own. The effect class is required in
 * every row, so a new filter cannot be taken for pure by omission:
 *   - `find` remembers a body's answer per position only when every node of
 *     it is pure (filter_tree_is_pure);
 *   - a transform's guard skips an orbit member only when every node of it
 *     is pure or only reads (filter_tree_only_reads);
 *   - `loop` and `while` must contain a filter that writes a variable;
 *   - the gate looks past a filter that changes nothing: pure or only
 *     reading, and unable to stop the run (filter_tree_changes_nothing).
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
    FX_OUTPUT,   /* comments, messages, the sort value, tags */
    FX_FILES,    /* reads or writes files: output, and the games are searched in order */
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
    SCOPE_CURRENT,      /* the same, but reads nothing of the tree beyond the current position */
    SCOPE_GAME,         /* the same at every position of a game (the result) */
    SCOPE_TAGS          /* the same, and known from the tags before the moves are read */
} FilterScope;

/* What a filter does where only whether it matches is used (filters.def,
 * the test column; query/contexts.h). */
typedef enum FilterTest {
    TEST_MATCH,         /* it matches or not */
    TEST_VALUE,         /* value-only: there it stops the run */
    TEST_NEVER,         /* value-only: there it never matches */
    TEST_OWN_ERROR      /* its evaluation function stops the run there, with its own message */
} FilterTest;

/* The forms of a filter in which its test or run column holds (VALUE_IF,
 * STOPS_IF): the only facts about filters decided outside their rows. */
typedef enum FilterCase {
    CASE_ALWAYS,        /* every form */
    CASE_NO_ARGUMENT,   /* no kids[0] (fen without a pattern: its value is the position's FEN) */
    CASE_NO_SIDE,       /* neither a colour nor kids[0] (player: both names in one string) */
    CASE_NUMBER_OR_STRING,  /* its own type is a number or a string (a variable) */
    CASE_STRING,        /* its own type is a string (+ joining strings) */
    CASE_STRING_OPERAND,    /* kids[0] is a string (# of a string: its length) */
    CASE_POSITIONS      /* kids[0] is a position (position & position) */
} FilterCase;

/* Where a child of a filter stands (filters.def, the kids column). */
typedef enum KidContext {
    KID_VALUE,          /* its value is used */
    KID_TEST,           /* only whether it matches is used */
    KID_INHERIT         /* where the filter itself stands */
} KidContext;

typedef enum KidsForm {
    KIDS_ALL,           /* every child kid_rest */
    KIDS_FIRST,         /* kids[0] kid_one, the others kid_rest */
    KIDS_LAST           /* the last child kid_one, the others kid_rest */
} KidsForm;

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
    FilterTest test;            /* where only whether it matches is used ... */
    FilterCase test_case;       /* ... in these forms (TEST_MATCH in the others) */
    const char *noun;           /* TEST_VALUE: the warning's name for it, or NULL */
    bool stops;                 /* it may stop the run wherever it stands ... */
    FilterCase stop_case;       /* ... in these forms */
    KidsForm kids_form;         /* where its children stand */
    KidContext kid_one, kid_rest;
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

/* What n does where only whether it matches is used: its test column, in
 * n's form (TEST_MATCH in a form VALUE_IF leaves out). */
FilterTest filter_test(const Node *n);

/* How the compiler's warning names n, a value-only filter ("the number",
 * "the numeric variable", "the value-only filter" ...). */
const char *filter_value_noun(const Node *n);

/* Evaluating n may stop the run: its run column says so in n's form, or n
 * stands where only whether it matches is used (flagged NF_AS_POSITION by
 * query/contexts.c) and there it stops the run. */
bool filter_may_stop(const Node *n);

/* Whether child i of n stands where only whether it matches is used, when
 * n itself does (n_is_test) or not: the kids column. */
bool filter_kid_is_test(const Node *n, uint32_t i, bool n_is_test);

/* Every node of the tree n (NULL: true) is pure: its answer at a position
 * depends on that position and the game alone. */
bool filter_tree_is_pure(const Node *n);

/* Every node of n is pure or only reads: skipping its evaluation cannot be
 * noticed. */
bool filter_tree_only_reads(const Node *n);

/* Some node of n writes a variable or a dictionary entry. */
bool filter_tree_writes(const Node *n);

/* Some node of n reads or writes files. */
bool filter_tree_uses_files(const Node *n);

/* Every node of n (NULL: true) has the same answer at every position of a
 * game (the scope column of filters.def): the tree can be evaluated once
 * per game. */
bool filter_tree_is_per_game(const Node *n);

/* Every node of n (NULL: true) reads nothing of a game's tree but the
 * current position (the CURRENT, GAME and TAGS scopes): a game without
 * variations can be searched with its positions made one after another in
 * one place, no tree built (lib/indexed.c). */
bool filter_tree_reads_one_position(const Node *n);

/* Evaluating n cannot be noticed: every node of it (NULL: true) is pure or
 * only reads (the effect column) and cannot stop the run
 * (filter_may_stop). */
bool filter_tree_changes_nothing(const Node *n);

/* n changes nothing and every node of it is of the TAGS scope: its answer is
 * known from a game's tags and number before its moves are read. */
bool filter_tree_reads_only_tags(const Node *n);

#endif
