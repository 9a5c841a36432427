/*
 * src/lib/lib_int.h — what the files of the library face share: the public
 * types of include/cql.h as wrappers of the internal ones, and the bridges
 * between them (a CqlMessages sink passed on as a DiagSink, a CqlText as a
 * StrBuf: the same three fields, copied in and out).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_LIB_INT_H
#define CQL_LIB_INT_H

#include "cql.h"

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "eval/eval.h"
#include "eval/search.h"
#include "eval/submission.h"
#include "pgn/game.h"
#include "pgn/reader.h"
#include "query/ast.h"
#include "query/compile.h"
#include "query/settings.h"

/* A game's memory, and a searcher's: small for a small game, no allocation
 * per game once reused (arena_init_growing). */
#define GAME_ARENA_FIRST ((size_t)16 << 10)
#define GAME_ARENA_MAX ((size_t)256 << 10)

struct CqlQuery {
    Query *query;
    Search search;
    Submissions submissions;     /* similarposition's files (cql_query_read_files) */
};

struct CqlReader {
    PgnReader reader;
    DiagSink quiet;     /* the reader's sink between calls (nothing is reported then) */
};

struct CqlGameText {
    RawGame raw;
};

struct CqlChunk {
    PgnChunk chunk;
};

struct CqlGame {
    Arena arena;                 /* the tree, reset by the next parse */
    Game game;
    bool usable;
    const GameNode **by_id;      /* made on first cql_game_position */
    /* made with by_id for a game with variations (the variation paths of
     * cql_game_describe): each node's place among the alternatives to its
     * move (0: the main one), and the id of the nearest node from it up to
     * the root that is an alternative (-1: none, it is on the main line) */
    const uint32_t *alternative;
    const int32_t *branch;
    unsigned long parses;        /* games read into it so far: which game a searcher's
                                    verdict is about (CqlSearcher.verdict_parse) */
};

/* The search arena that a worker's searchers share, one for all the
 * queries of a run (lib_searcher_share_arena): what a search leaves there
 * (its caches, notes, strings) is read only until the next search of
 * another query, by the worker, which copies out what it keeps. Each
 * search rewinds it; one in every `sharers`, about one a game, resets it,
 * so that it keeps the chunks of recent games, not of recent searches
 * (arena_rewind). Its memory is a game's, not the queries' count times a
 * game's. */
typedef struct LibSharedArena {
    Arena arena;
    int sharers;                 /* searchers that share it */
    int searches;                /* since its last reset */
} LibSharedArena;

struct CqlSearcher {
    const CqlQuery *query;
    Evaluator *eval;
    /* the last search's caches and notes: its own arena (a searcher made
     * by cql_searcher_new), or the one it shares with its worker's other
     * searchers (lib_searcher_share_arena); lib_search_arena says which */
    Arena own_arena;
    LibSharedArena *shared;
    GameSearch found;
    StrBuf sort_key;             /* the last matching game's (CqlGameResult.sort_key) */
    TagWatch tags;               /* which tag filters held in the games searched */
    /* what reading the game through the gate found out for this searcher's
     * query (lib_parse_for): valid for verdict_game while its `parses` is
     * verdict_parse */
    const CqlGame *verdict_game;
    unsigned long verdict_parse;
    bool tags_held;              /* Search.tags_test held: not evaluated again */
    bool shut_out;               /* the query's own gate shuts the game out: it cannot match */
    long conditions_asked;       /* game records its query's sidecar condition was asked about
                                    with it (lib/indexed.c) */
};

/* The gate through which a game is read for the searchers of one query or
 * several (a run of several queries reads each game once): it lets through
 * every game one of them may match, and tells each searcher what it found
 * out about its own query (CqlSearcher.tags_held, shut_out). Made once for
 * a set of searchers; holds pointers to them. */
typedef struct LibGate {
    PgnGate gate;                /* what the queries need, together */
    CqlSearcher *const *searchers;
    int count;
    bool own_placements;         /* gate.placements are the one query's own (or none) */
    const bool *active;          /* during lib_parse_for: the searchers that search the game
                                    (NULL: all) */
} LibGate;

/* The values of settings, and the filters added to them (settings.c). */
const Settings *lib_settings(const CqlSettings *s);
const QueryFilter *lib_filters(const CqlSettings *s, size_t *count);

/* Fills the tables of the chess core, once; every entry point that needs
 * them calls it. */
void lib_init(void);

/* The DiagSink that delivers to m (standard error when m or m->fn is NULL);
 * after using it, lib_count adds its counts to m. */
DiagSink lib_sink(CqlMessages *m);
void lib_count(CqlMessages *m, const DiagSink *d);

/* A CqlText seen as a StrBuf, and the StrBuf's fields given back. */
static inline StrBuf lib_text_in(const CqlText *t)
{
    return (StrBuf){t->data, t->len, t->cap};
}

static inline void lib_text_out(CqlText *t, const StrBuf *sb)
{
    t->data = sb->data;
    t->len = sb->len;
    t->cap = sb->cap;
}

/* cql_game_parse through a gate (games.c). */
CqlGameStatus lib_parse_game(CqlGame *g, CqlGameText *t, const char *file, CqlMessages *m, const PgnGate *gate);

/* The search arena of s: its own, or the one it shares. */
static inline Arena *lib_search_arena(CqlSearcher *s)
{
    return s->shared ? &s->shared->arena : &s->own_arena;
}

/* Empties the search arena of s for a new search, and returns it
 * (searcher.c). */
Arena *lib_search_begins(CqlSearcher *s);

/* A shared search arena for `sharers` searchers, and the searcher s made
 * to search in it from now on (it must not have searched yet). */
void lib_shared_arena_init(LibSharedArena *sh, int sharers);
void lib_shared_arena_free(LibSharedArena *sh);
void lib_searcher_share_arena(CqlSearcher *s, LibSharedArena *sh);

/* The gate of `count` searchers (searcher.c). */
void lib_gate_init(LibGate *gate, CqlSearcher *const *searchers, int count);
/* Reads t into g through the gate, for the searchers marked in active
 * (NULL: all): each of them is told what the gate found out about its query
 * (used by its next cql_search of g). */
CqlGameStatus lib_parse_for(CqlGame *g, CqlGameText *t, const char *file, CqlMessages *m, LibGate *gate,
                            const bool *active);

/* Describes position id of g in *p (comments NULL): its texts (SAN, FEN,
 * the variation's path) go into *strings, each NUL-terminated, and p holds
 * their offsets there in place of the pointers (lib_text_pointer makes
 * them pointers). */
void lib_describe_position(CqlGame *g, int id, CqlPosition *p, CqlText *strings);

/* Appends a CqlPosition to *records for each position of g where the last
 * search of s matched, in id order, with the comments the search wrote
 * there; their texts go into *strings, as lib_describe_position puts them.
 * To be called before cql_write_match, which joins the game-number comment
 * to the start's. */
void lib_matched_positions(const CqlSearcher *s, CqlGame *g, CqlText *records, CqlText *strings);

/* Appends a CqlTag to *records for each tag of g as the match written by
 * the last search of s has it (the values `settag` gave, the tags it
 * added); the names and values go into *strings, as offsets. */
void lib_match_tags(const CqlSearcher *s, const CqlGame *g, CqlText *records, CqlText *strings);

/* A text kept as an offset into strings (lib_describe_position), made a
 * pointer there. */
static inline const char *lib_text_pointer(const char *offset, const CqlText *strings)
{
    return strings->data + (uintptr_t)offset;
}

#endif
