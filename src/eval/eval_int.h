/*
 * src/eval/eval_int.h — private to the evaluator (eval.c, nav.c, ...): the
 * Evaluator state, values, the per-node cache and the dispatch table.
 * This file is private: only the evaluator's own .c files include it.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_EVAL_INT_H
#define CQL_EVAL_INT_H

#include "base/regex.h"
#include "eval/eval.h"
#include "query/filters.h"

/* A filter's value. `type` says which member is meaningful. */
typedef struct Value {
    ValueType type;
    union {
        Bitboard set;             /* VT_SET */
        int64_t num;              /* VT_NUMBER */
        const GameNode *pos;      /* VT_POSITION */
        const char *str;          /* VT_STRING (in the game arena or the query) */
        uint8_t piece;            /* VT_PIECE: a piece identity (GameNode.piece_id) */
        int32_t dict_slot;        /* VT_DICTIONARY: the dictionary's variable slot */
    };
} Value;

/* Facts about a node that cost a move generation, computed on first use. */
enum { NC_LEGAL = 1, NC_LEGAL_MOVES = 2, NC_PSEUDO_MOVES = 4 };
typedef struct NodeCache {
    uint8_t known;                /* NC_* bits of the facts below that are filled */
    bool in_check;
    bool has_legal_move;
    uint16_t nlegal, npseudo;     /* generated moves (moves.c), in the game arena */
    Move *legal, *pseudo;
} NodeCache;

/* One search filter's per-game memo (path.c): for a `find` whose body
 * depends on the position alone, what the body gave at each node. */
typedef struct SearchMemo {
    const Node *filter;
    int8_t *matched;              /* by node id: 0 unknown, 1 matched, -1 did not */
    int32_t *next_match;          /* by node id: 1 + the id of the first node at or after it (by
                                     main continuations) where the body holds; 0 unknown, -1 none */
    uint8_t *banned;              /* line/path nestban: by node id, 1 where the filter may not match */
    int32_t *found;               /* a numeric find's comments: the ids of the positions it counted */
    uint8_t path_search;          /* path: how it skips work (path.c), 0 until worked out */
} SearchMemo;

/* The last `path` that matched in this game, for pathstart, pathcount ... */
typedef struct PathState {
    const GameNode *start, *last;
    int64_t count;
} PathState;

/* The states a path search has been in (path.c): a hash set of keys, one
 * generation per search so that starting a search clears it at once. */
typedef struct PathSeenSlot {
    uint64_t key;
    uint32_t gen;
} PathSeenSlot;
typedef struct PathSeen {
    PathSeenSlot *slots;          /* heap, cap of them (a power of 2) */
    uint32_t cap, count, gen;
} PathSeen;

/* What a path search found from each state it has finished in this game
 * (path.c), for the paths whose constituents depend on the position alone:
 * the best end below (or at) the state's position and its moves from there
 * (end NULL: none). busy is the search that is in the state, or that
 * searched it after the search was cut (its answer is then not kept). One
 * generation per game. */
typedef struct PathEndSlot {
    uint64_t key;
    const GameNode *end;
    int32_t moves;
    uint32_t gen;
    uint32_t busy;
    bool known;
} PathEndSlot;
typedef struct PathEnds {
    PathEndSlot *slots;           /* heap, cap of them (a power of 2) */
    uint32_t cap, count, gen, search;
} PathEnds;

/* A compiled `~~` pattern, reused for the whole run. */
typedef struct CachedRegex {
    char *pattern;
    Regex *compiled;
} CachedRegex;

#define REGEX_CAPTURES 10

/* A dictionary's entries (dict.c). */
typedef struct Dictionary Dictionary;

typedef struct PendingComment {
    int32_t node_id;
    const char *text;
} PendingComment;

struct Evaluator {
    const Query *q;
    EvalSettings settings;
    bool body_is_per_game;        /* the same answer at every position of a game */
    Value *vars;                  /* by variable slot */
    Value *call_args;             /* by argument index (Query.ncall_args): set
                                     arguments as evaluated at their call */
    bool *bound;
    char **persistent_text;       /* by variable slot: the string a persistent variable
                                     held at the end of the last game (heap), or NULL */
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
    char *match_note;             /* the match string as written (heap) */
    /* eval.c: the comments of the nodes that got more than one, by node
     * id, and the set of them that keeps identical comments at a node
     * once; in the game arena, made when first needed */
    struct NoteList **note_lists;
    struct NoteSeen *note_seen;
    uint32_t note_seen_cap, note_seen_count;
    /* eval.c: a search whose positions its caller gives one by one
     * (eval_positions_begin): the body, and whether it is evaluated once
     * per game, was evaluated, and matched */
    const Node *positions_body;
    bool positions_once, positions_evaluated, positions_matched;
    /* what the budgets count (EvalSettings): runs of the bodies of loop
     * and while for the position being searched, text made for this game */
    int64_t loop_steps;
    size_t text_bytes;
    CachedRegex *regexes;
    int nregexes;
    char *captures[REGEX_CAPTURES];   /* \1 ... of the last successful ~~ (heap) */
    /* moves and searches (moves.c, path.c), reset by eval_game */
    const GameNode *origin;       /* the position the body is being evaluated for */
    SearchMemo *memos;            /* in the game arena */
    int nmemos, memos_cap;
    PathState path;
    PathSeen path_seen;           /* for the whole run (heap) */
    PathEnds path_ends;           /* for the whole run (heap), forgotten by each game */
    /* echo's index of the game's positions by board (path.c), in the
     * game arena, by node id: the first node (preorder) whose pieces stand
     * as they do here, and the next such node after this one */
    const GameNode **same_board_first, **same_board_next;
    /* dictionaries (dict.c), by variable slot; local ones are emptied by
     * eval_game, the others live for the whole run */
    Dictionary *dicts;
    /* the message of the runtime error that stopped the search (heap), and
     * the filter that raised it */
    char *runtime_error;
    const Node *error_at;
    /* program.c: the files of `readfile` and `writefile` */
    struct ProgramState *program;
    int8_t hhdb_cooked;           /* hhdb.c: the game contains <cook (-1: not worked out yet) */
    /* the filter that stopped the run (query/contexts.h: a value-only
     * filter evaluated as a position filter; eval_stop_run), or NULL, and
     * why, when it is not a value-only filter (in the game's arena) */
    const Node *stopped_at;
    const char *stop_reason;
};

typedef bool (*EvalFn)(Evaluator *ev, const Node *n, Value *out);

/* One family's filters: {kind, function} pairs ended by {ND_COUNT_, NULL}. */
typedef struct EvalEntry {
    NodeKind kind;
    EvalFn fn;
} EvalEntry;

/* A family of evaluation functions registers itself with this descriptor:
 * its entries, and what it does when an evaluator is made, when a game
 * begins and when the evaluator is freed (NULL: nothing). */
typedef struct EvalFamily {
    const EvalEntry *entries;
    void (*init)(Evaluator *ev);
    void (*new_game)(Evaluator *ev);
    void (*free)(Evaluator *ev);
} EvalFamily;

extern const EvalFamily eval_core_family;        /* eval.c */
extern const EvalFamily eval_nav_family;         /* nav.c */
extern const EvalFamily eval_text_family;        /* text.c */
extern const EvalFamily eval_moves_family;       /* moves.c */
extern const EvalFamily eval_path_family;        /* path.c */
extern const EvalFamily eval_orbit_family;       /* orbit.c */
extern const EvalFamily eval_dict_family;        /* dict.c */
extern const EvalFamily eval_program_family;     /* program.c */
extern const EvalFamily eval_hhdb_family;        /* hhdb.c */

/* Stops the search with a runtime error raised by filter n (CQL 6.2 prints
 * it and exits with status 1): every later evaluation fails at once, and
 * the search of the game ends after the current position. The first error
 * is kept. */
void eval_runtime_error(Evaluator *ev, const Node *n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Stops the run at filter n with an error at n's place in the query, the
 * message `fmt` (the search of the game ends after the current position,
 * and the run with status 1): `up x K` with x out of -7..7, as CQL 6.2
 * does; a budget passed. The first stop is kept. */
void eval_stop_run(Evaluator *ev, const Node *n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* True when the value of n is thrown away where it stands (it is evaluated
 * only for whether it matches): query/contexts.c flags such a filter when
 * its row's test column is not MATCH. A filter of test OWN_ERROR
 * (currenttransform ...) then stops the run with CQL 6.2's message. */
static inline bool eval_value_discarded(const Node *n)
{
    return (n->flags & NF_AS_POSITION) != 0;
}

bool eval_node(Evaluator *ev, const Node *n, Value *out);
/* The input's comments after the move into n (at the root: before the first
 * move), joined by a space (in the game's arena); NULL when none. */
const char *eval_comments_at(Evaluator *ev, const GameNode *n);
/* The squares of a piece designator (Ka1, [QR], _) in the current position. */
static inline Bitboard designator_squares(const Evaluator *ev, const Designator *d)
{
    return pos_squares_with(&ev->cur->pos, d->pieces) & d->squares;
}

/* The squares of n's value (a piece becomes its square), in *out; false
 * when n does not match. eval_set is inline for the usual operand (Q, k,
 * [RQ]d1): its squares, with no call and no Value between. */
bool eval_set_of_node(Evaluator *ev, const Node *n, Bitboard *out);
static inline bool eval_set(Evaluator *ev, const Node *n, Bitboard *out)
{
    if (n->kind == ND_DESIGNATOR && !ev->runtime_error) {
        *out = designator_squares(ev, n->desig);
        return *out != 0;
    }
    return eval_set_of_node(ev, n, out);
}
bool eval_number(Evaluator *ev, const Node *n, int64_t *out);
bool eval_position_value(Value *out, const GameNode *n);
/* A string value; false (no match) when s is NULL. */
bool eval_string_value(Value *out, const char *s);
/* x OP y for + - * / % (and += -= *= /= %=) in 64-bit integers: false
 * when there is no such number (a division by zero, a result out of
 * range), and the filter then does not match. */
bool eval_arith_op(TokKind op, int64_t x, int64_t y, int64_t *out);
Bitboard eval_piece_square(const Evaluator *ev, uint8_t id);
/* Turns a piece value into the set of its square; other values are left alone. */
void eval_piece_to_set(const Evaluator *ev, Value *v);
NodeCache *eval_node_cache(Evaluator *ev, const GameNode *n);
/* The node with position id `id` (0 <= id < node_count); nav.c. */
const GameNode *eval_node_by_id(Evaluator *ev, int32_t id);
void eval_value_to_text(const Evaluator *ev, const Value *v, StrBuf *sb);
/* Adds a comment at `at`, pending until the position's evaluation matches;
 * the text is copied, braces written as _ (eval_unbrace). */
void eval_add_comment(Evaluator *ev, const GameNode *at, const char *text);
/* The same for a text that outlives the game and has no brace (a string
 * literal such as "Found"): kept as it is, not copied. */
void eval_add_fixed_comment(Evaluator *ev, const GameNode *at, const char *text);
/* A copy of s[0..len) and a NUL in the game's arena: a string that filter
 * n makes. It counts towards the game's text budget (eval_count_text). */
char *eval_new_string(Evaluator *ev, const Node *n, const char *s, size_t len);
/* Counts len bytes of text that filter n made for this game (a string, a
 * comment, a message, a dictionary entry). Past the budget
 * (the setting textbudget) the run stops at n;
 * false then. */
bool eval_count_text(Evaluator *ev, const Node *n, size_t len);
/* The text budget of one game, in bytes. */
size_t eval_text_budget(const Evaluator *ev);
/* One more iteration of loop or while n (a run of its body) for the
 * position being searched, whatever loop it is in. Past the budget
 * (the setting loopbudget) the run stops at n;
 * false then, and the loop ends. */
bool eval_loop_step(Evaluator *ev, const Node *n);

/* dict.c: the dictionaries' storage for a run, and the places where the
 * core filters (variables, isbound, unbind, iteration, text) meet dictionaries */
void eval_dict_unbind(Evaluator *ev, const Node *target);
bool eval_dict_iterate(Evaluator *ev, const Node *iteration, Value *out);
void eval_dict_to_text(const Evaluator *ev, int32_t slot, StrBuf *sb);

/* moves.c, path.c: the game moves a filter looks at from node n
 * (the main continuation, or every child with `variations`) */
const GameNode *eval_first_move(const Evaluator *ev, const GameNode *n);
const GameNode *eval_next_move(const Evaluator *ev, const GameNode *child);
/* moves.c: the move that led to `after` fits the squares, capture and
 * promotion of the dash pattern (its sets evaluated where the move was
 * played from). A castling move is the king's move, the rook's or either's,
 * as castling_movers says. */
enum { CASTLING_KING = 1, CASTLING_ROOK = 2 };
bool eval_move_fits_pattern(Evaluator *ev, const Node *dash, const GameNode *after, unsigned castling_movers);
/* moves.c: the dash's target (if any) holds after the move into `after` */
bool eval_dash_target_holds(Evaluator *ev, const Node *dash, const GameNode *after);
/* moves.c: the squares the rook of castling move m leaves and reaches
 * (false when m is no castling or the rook is unknown) */
bool eval_castling_rook(const Position *before, Move m, Square *from, Square *to);
/* moves.c: for a bare `legal --` (or `countmoves legal --`), whether the
 * current position has no legal move at all, found without generating them
 * all (`legal -- == 0` stops at the first move); false when `dash` is of
 * another form, and then *none is untouched */
bool eval_dash_finds_no_move(Evaluator *ev, const Node *dash, bool *none);

/* text.c: while (S ~~ P) F (the while `loop`): F once for each match of P
 * in S, from the left, each match after the one before (its captures set),
 * each run counted against the loop budget; always matches */
bool eval_regex_while(Evaluator *ev, const Node *loop, const Node *regex, const Node *body);
/* The regular-expression match a while test is, through parentheses, or NULL. */
const Node *eval_while_regex(const Node *test);

/* eval.c: offers v as the game's value for sort key `key`: kept when it is
 * better than the value so far (larger; smaller for a `sort min` key) */
void eval_sort_offer(Evaluator *ev, uint32_t key, const SortValue *v);

/* nav.c: the lowest common ancestor of two nodes */
const GameNode *eval_common_ancestor(const GameNode *a, const GameNode *b);

/* nav.c, used by relations and & in eval.c */
bool eval_compare_positions(TokKind op, const GameNode *a, const GameNode *b);
bool eval_position_intersect(Evaluator *ev, const Node *n, Value *out);

#endif
