/*
 * src/eval_int.h — private to the evaluator (eval.c, eval_nav.c, ...): the
 * Evaluator state, values, the per-node cache and the dispatch table.
 * This file is private: only the evaluator's own .c files include it.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_EVAL_INT_H
#define CQL_EVAL_INT_H

#include "eval.h"

/* A filter's value. `type` says which member is meaningful. */
typedef struct Value {
    ValueType type;
    union {
        Bitboard set;             /* VT_SET */
        int64_t num;              /* VT_NUMBER */
        const GameNode *pos;      /* VT_POSITION */
        const char *str;          /* VT_STRING (in the game arena or the query) */
        uint8_t piece;            /* VT_PIECE: a piece identity (GameNode.piece_id) */
    };
} Value;

/* Facts about a node that cost a move generation, computed on first use. */
enum { NC_LEGAL = 1 };
typedef struct NodeCache {
    uint8_t known;                /* NC_* bits of the facts below that are filled */
    bool in_check;
    bool has_legal_move;
} NodeCache;

/* A compiled `~~` pattern, reused for the whole run. */
typedef struct CachedRegex {
    char *pattern;
    void *compiled;               /* regex_t, or NULL when the pattern is bad */
} CachedRegex;

#define REGEX_CAPTURES 10

typedef struct PendingComment {
    int32_t node_id;
    const char *text;
} PendingComment;

struct Evaluator {
    const Query *q;
    EvalSettings settings;
    Value *vars;                  /* by variable slot */
    bool *bound;
    Arena persistent_strings;     /* strings held by persistent variables */
    /* the game being searched */
    const Game *game;
    Arena *arena;                 /* the game's arena: caches, notes, strings */
    GameSearch *search;
    StrBuf *messages;
    NodeCache *cache;             /* by node id */
    const GameNode **nodes_by_id; /* built on first `position N` */
    const GameNode *cur;          /* where filters are evaluated */
    PendingComment *pending;      /* comments made at the current position */
    int npending, pending_cap;
    CachedRegex *regexes;
    int nregexes;
    char *captures[REGEX_CAPTURES];   /* \1 ... of the last successful ~~ (heap) */
};

typedef bool (*EvalFn)(Evaluator *ev, const Node *n, Value *out);

/* One family's filters: {kind, function} pairs ended by {ND_COUNT_, NULL}. */
typedef struct EvalEntry {
    NodeKind kind;
    EvalFn fn;
} EvalEntry;

extern const EvalEntry eval_nav_entries[];        /* eval_nav.c */
extern const EvalEntry eval_string_entries[];     /* eval_string.c */
extern const EvalEntry eval_move_entries[];       /* eval_move.c */
extern const EvalEntry eval_path_entries[];       /* eval_path.c */
extern const EvalEntry eval_transform_entries[];  /* eval_transform.c */

bool eval_node(Evaluator *ev, const Node *n, Value *out);
bool eval_set(Evaluator *ev, const Node *n, Bitboard *out);
bool eval_number(Evaluator *ev, const Node *n, int64_t *out);
bool position_value(Value *out, const GameNode *n);
Bitboard piece_square(const Evaluator *ev, uint8_t id);
NodeCache *node_cache(Evaluator *ev, const GameNode *n);
void value_to_text(Evaluator *ev, const Value *v, StrBuf *sb);
void eval_add_comment(Evaluator *ev, const GameNode *at, const char *text);
Arena *eval_strings(Evaluator *ev);

/* eval_string.c */
void eval_free_regexes(Evaluator *ev);

/* eval_nav.c, used by relations and & in eval.c */
bool eval_compare_positions(TokKind op, const GameNode *a, const GameNode *b);
bool eval_position_intersect(Evaluator *ev, const Node *n, Value *out);

#endif
