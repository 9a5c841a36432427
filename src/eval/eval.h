/*
 * src/eval/eval.h — evaluating a compiled query at the positions of a game.
 *
 * An Evaluator holds the per-thread state of one query: variable values,
 * per-node caches and the comments a game collects. eval_game visits the
 * positions of a game (the main line, or every node with `variations`),
 * evaluates the query body at each, and reports which positions matched
 * and which comments to write. Comments made while evaluating the body at a
 * position that does not match in the end are dropped (CQL's "smart
 * comments"), unless the settings keep them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_EVAL_H
#define CQL_EVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "pgn/game.h"
#include "query/ast.h"
#include "query/settings.h"

/* The budgets of a query where the settings give none (options
 * -loopbudget and -textbudget): far beyond what a real query needs. */
#define EVAL_DEFAULT_LOOP_BUDGET 10000000
#define EVAL_DEFAULT_TEXT_BUDGET ((size_t)256 << 20)

/* What an evaluator is told: the run's settings (query/settings.def), as
 * merged with the query's header (search_init), and what the caller learns
 * before the run. The budgets of the settings are 0 for their defaults. */
typedef struct EvalSettings {
    Settings run;
    int64_t last_game_number; /* the value of `lastgamenumber` (set by the caller before a run) */
    /* the files of `similarposition`, read before the run (eval/submission.h), or NULL */
    const struct Submissions *submissions;
} EvalSettings;

/* A game's value for one sort key (Query.sort_keys): the best its filters
 * gave, a number or a string; VT_NONE when they gave none. Values are
 * ordered numbers first, numbers by value, strings bytewise. */
typedef struct SortValue {
    ValueType type;
    int64_t num;              /* VT_NUMBER */
    const char *str;          /* VT_STRING, in the game's arena or the query */
} SortValue;

/* What the search of one game found. Strings live in the game's arena. */
typedef struct GameSearch {
    long matched_positions;
    bool *matched;            /* per node id: the body matched there */
    const char **notes;       /* per node id: comment text to add, or NULL */
    SortValue *sort_values;   /* by sort key (Query.sort_keys), or NULL when none */
    Tag *set_tags;            /* tags given by `settag`, in the order first set */
    int nset_tags;
    bool *remove_comment;     /* per node id: `removecomment` was evaluated there, or NULL */
    const char *runtime_error;/* set when a filter stopped the run (a failed `assert`, a
                                 file that cannot be read ...): the message, and the
                                 search of the game ended there */
    const Node *error_at;     /* the filter that raised runtime_error */
    /* the filter that stopped the run at this game (CQL 6.2 exits 1 there),
     * or NULL: a value-only filter evaluated as a position filter
     * (query/contexts.h), or one that gives stop_reason */
    const Node *stopped_at;
    const char *stop_reason;  /* why, or NULL for a value-only filter */
} GameSearch;

typedef struct Evaluator Evaluator;

/* True when the evaluator has a function for filters of kind k (filters.def
 * says which should). */
bool eval_can_evaluate(NodeKind k);

/* True when every filter in q can be evaluated; otherwise reports
 * "filter 'X' is not supported yet" at the first that cannot. */
bool eval_check_supported(const Query *q, DiagSink *diag);

/* True when evaluating q must see the games in input order on one thread
 * (persistent variables and dictionaries that are not local, which carry
 * values from game to game; `readfile` and `writefile`, whose files are
 * read and written in input order). */
bool eval_needs_order(const Query *q);

/* True when the filters of q can run with settings s; otherwise reports
 * the first that cannot (`hhdb <main>` without `variations` ...). */
bool eval_check_settings(const Query *q, const EvalSettings *s, DiagSink *diag);

/* True when q uses `lastgamenumber` (the caller counts the games first). */
bool eval_needs_game_count(const Query *q);

Evaluator *eval_new(const Query *q, const EvalSettings *s);
void eval_free(Evaluator *ev);

/* Searches game g with `body` (NULL: the query's). `arena` is the game's
 * arena (for caches and notes). Text printed by `message` is appended to
 * *messages. */
void eval_game(Evaluator *ev, const Game *g, const Node *body, Arena *arena, GameSearch *out,
               StrBuf *messages);

/* A search of game g with the query's body whose positions the caller
 * gives one by one, in the order of eval_game's walk: eval_positions_begin,
 * eval_positions_at for each (false: the search stops there, at an error
 * or a stop of the run), eval_positions_end. The positions may be one node
 * changed in place from one to the next: for a query that reads nothing of
 * the tree but the current position (filter_tree_reads_one_position). g
 * gives the tags, the result, the number, and in node_count more than the
 * largest position id. *out says which positions matched, but holds no
 * notes (out->notes is NULL). */
void eval_positions_begin(Evaluator *ev, const Game *g, Arena *arena, GameSearch *out, StrBuf *messages);
bool eval_positions_at(Evaluator *ev, const GameNode *n);
/* Whether every later position is answered as the last was, nothing else
 * done there: a body evaluated once per game, evaluated (*matched: its
 * answer). Then eval_positions_pass stands for eval_positions_at at the
 * `count` positions whose ids are first_id, first_id + 1, ... */
bool eval_positions_settled(const Evaluator *ev, bool *matched);
void eval_positions_pass(Evaluator *ev, int32_t first_id, long count);
void eval_positions_end(Evaluator *ev);
/* Whether n matches at g's start, evaluated as the first filter of the body
 * at the first position would be: for a filter of the tags and the game
 * number alone (search.h, Search.tags_test), asked before g's moves are
 * read. Its strings go in g's arena. When the evaluation stops the run or
 * raises an error (for the search to meet and report), true with *sure
 * false. */
bool eval_at_start(Evaluator *ev, const Game *g, const Node *n, bool *sure);

/* Writes '{' and '}' in text as '_': the text of a comment cql adds, which
 * must neither end nor open a PGN comment (CQL 6.2). */
void eval_unbrace(char *text);

/* Writes `name: value` for every persistent variable and every dictionary
 * that is not local (`D: {"a": 1, "b": 2}`), at the end of a run. */
void eval_print_persistent(const Evaluator *ev, StrBuf *out);

#endif
