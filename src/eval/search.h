/*
 * src/eval/search.h — what a run looks for, and the search of one game: the
 * query's header merged with the caller's settings, which games are
 * examined and which match, and a matching game written as cql writes it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_SEARCH_H
#define CQL_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/strbuf.h"
#include "eval/eval.h"
#include "pgn/game.h"
#include "pgn/reader.h"
#include "query/ast.h"

/* Tag filters watched by a run (Search.watched): the first of a body. */
enum { SEARCH_WATCHED_TAGS = 8 };

/* An inclusive range of numbers, when set. */
typedef struct SearchRange {
    bool set;
    long min, max;
} SearchRange;

/* What a run looks for: the query and the settings that decide which games
 * match, from the query header overridden by the caller; the ranges and the
 * result of the settings as the search reads them. */
typedef struct Search {
    const Query *query;
    EvalSettings eval;          /* the settings, merged with the header */
    int64_t matchcount_min;     /* matched positions a game needs */
    int64_t matchcount_max;
    SearchRange gamenumber;     /* games to examine (default all) */
    const char *result;         /* only games with this result, or NULL */
    bool sorting;               /* keep matches and sort them at the end */
    bool sort_by_matchcount;    /* `sort matchcount` in the header: the first key */
    /* what a game needs to be able to match, known before its moves are
     * played (pgn_parse_game_gated): its result, and a piece the body asks
     * for before anything else (Ka1 ...) somewhere in it */
    PgnGate gate;
    /* a filter of the body that reads only the tags and the game number
     * (player white "X" ...), first or after members that change nothing:
     * a game where it fails cannot match, which the searcher's gate asks
     * once the tags are read; NULL: none */
    const Node *tags_test;
    /* the body without tags_test, for a game where the gate found it true
     * (its value cannot change during the game: no settag); NULL: none.
     * It may point to past_tags_test, so a Search is not to be copied. */
    const Node *body_past_tags_test;
    Node past_tags_test;        /* the body's compound, from its second member on */
    /* the tag filters of the body with a text to find (player white "X",
     * event "X" ...), each text once (a transform copies its filters):
     * after a run, one that held in no game gets a note (TagWatch) */
    const Node *watched[SEARCH_WATCHED_TAGS];
    int nwatched;
} Search;

/* Whether the watched tag filters held in the games a searcher examined:
 * a run that matches nothing because a name's case or spelling differs
 * from every game's says so. */
typedef struct TagWatch {
    long games;                                /* games examined */
    bool held[SEARCH_WATCHED_TAGS];            /* in one of them */
    long near_game[SEARCH_WATCHED_TAGS];       /* the first game whose tag holds the text in
                                                  another case (0: none) */
    char *near_value[SEARCH_WATCHED_TAGS];     /* that tag's value (owned) */
} TagWatch;

/* What q looks for with the settings `given` (by the caller: the command
 * line), each overriding the query's header (query/settings.def). */
void search_init(Search *s, const Settings *given, const Query *q);

/* Searches game g with ev (a GameSearch tells the matched positions and the
 * notes to write); true when the game matches: its number is in range, its
 * result is the one asked for and its number of matched positions is inside
 * matchcount. What `message` prints is appended to *printed. A game read
 * through s->gate and shut out by it (Game.moves_skipped) does not match,
 * and nothing of the query is evaluated for it: the gate lets through every
 * game where that could make a difference. tags_test_held: s->tags_test
 * was found true for g's tags, and is not evaluated again. */
bool search_matches(const Search *s, Evaluator *ev, const Game *g, bool tags_test_held, Arena *a,
                    GameSearch *found, StrBuf *printed);

/* search_matches over positions the caller gives one by one
 * (eval_positions_begin: for a query that reads only the current
 * position): search_positions_begin, false when the game cannot match
 * (then no position is asked for); search_positions_at for each position,
 * false when the search is to stop there (an error, or the game is sure to
 * match: matchcount with no upper bound, reached); search_positions_end,
 * whether it matches. A game that matches has no notes in *found: it is to
 * be searched again for them. */
bool search_positions_begin(const Search *s, Evaluator *ev, const Game *g, Arena *a, GameSearch *found,
                            StrBuf *printed);
bool search_positions_at(const Search *s, Evaluator *ev, const GameNode *n, const GameSearch *found);
/* After search_positions_at went on from a position: -1, or, when every
 * later position is answered as that one was (eval_positions_settled),
 * how many more search_positions_at would go through (LONG_MAX: to the
 * end). Those the caller then makes, and passes in one count with
 * search_positions_pass (their ids are first_id, first_id + 1, ...): a
 * body that reads only the tags is paid per game, not per position. */
long search_positions_settled(const Search *s, const Evaluator *ev, const GameSearch *found);
void search_positions_pass(Evaluator *ev, int32_t first_id, long count);
bool search_positions_end(const Search *s, Evaluator *ev, const GameSearch *found);

/* The key a matching game is sorted by (when s->sorting), in *key: games
 * are written in the order of their keys compared bytewise (memcmp), ties
 * in input order. The key holds the game's value for each sort key of the
 * query in order (the match count first with `sort matchcount`), so that
 * the games are ordered by the first key (best first: the largest value,
 * the smallest for `sort min`; numbers before strings), then the second,
 * and so on; a game without a value for a key comes after those with one
 * (CQL 6.2, cql62-fidelity-2.md R9). */
void search_sort_key(const Search *s, const GameSearch *found, StrBuf *key);
/* Game g is in the range of games examined. */
bool search_examines(const Search *s, const Game *g);

/* Notes which watched tag filters hold in game g (an examined game). */
void search_watch_tags(const Search *s, const Game *g, TagWatch *w);
/* Adds what `from` saw to `into` (the searchers of several threads). */
void search_merge_watch(TagWatch *into, const TagWatch *from);
/* One note for each watched tag filter that held in none of the games
 * examined (none when no game was): 'cql: note: player white "kasparov"
 * held in none of the 6 games examined: no White tag holds "kasparov" (the
 * case differs: game 1's is "Kasparov, Garry")'. */
void search_report_unmatched_tags(const Search *s, const TagWatch *w, DiagSink *d);
void tag_watch_free(TagWatch *w);

/* The value a matching game is sorted by (when s->sorting). */
int64_t search_sort_value(const Search *s, const GameSearch *found);

/* Appends a matching game to out as cql writes it: "Game number N" joined
 * to the initial position's note (then the sort values), the notes the
 * search made, and the tags the query set. */
void search_write_game(const Search *s, const Game *g, GameSearch *found, Arena *a, StrBuf *out);

#endif
