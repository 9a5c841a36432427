/*
 * src/lib/indexed.h — the sidecar index in a run (include/cql.h, CqlIndex;
 * docs/index.md): each path input's sidecar opened when the run opens, the
 * query's condition on a game's summary, and the search of one game
 * through the sidecar where that gives the same answer as its text.
 *
 * The sidecar is asked about a game before it is read; a game it settles
 * for every query (on worker threads: rules out, indexed_ask), and
 * that the reader may jump over (indexed_skip_of: the sidecar says that it
 * and the next game were split off without a message, each from its line's
 * first column), is not read at all (pipeline_read.c, skip_game). Every other
 * game is read and split as without a sidecar, so numbers, lines, messages
 * and ranges are the same.
 * indexed_search looks a game up (by its number in its input, checked
 * against the line it starts on and its size when it was split off): a
 * game the query's condition rules out is done (not matched, nothing
 * printed); another, when the query reads nothing a game's codes do not
 * keep (comments) and keeps nothing from game to game, is searched from its
 * move codes, and done when it does not match. Every other game, and every
 * match, is parsed and searched from its text as without a sidecar, so a
 * matching game is written from its text.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_LIB_INDEXED_H
#define CQL_LIB_INDEXED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cql.h"
#include "index/sidecar.h"
#include "lib/pipeline.h"

/* Opens the sidecar of each path input of r (unless the setting noindex),
 * saying once through the run's messages when one is stale or damaged,
 * and makes each query's condition when one was opened. False after
 * reporting that the setting indexfile names no single input file. */
bool indexed_open_inputs(CqlRun *r);
/* Closes them and frees what indexed_open_inputs made. */
void indexed_close_inputs(CqlRun *r);

/* What the sidecar made of a game. */
typedef enum IndexedOutcome {
    INDEXED_TEXT,            /* nothing: it is parsed and searched from its text */
    INDEXED_RULED_OUT,       /* the query's condition ruled it out */
    INDEXED_FROM_CODES,      /* searched from its move codes, and it does not match */
    INDEXED_IN_PLACE         /* so, its positions made in place, no tree built */
} IndexedOutcome;

/* What the query's condition, or the gate's question about the tags, said
 * of a game's record when asked before the game was read (indexed_ask, on
 * the main thread): carried with the game to the worker that reads it,
 * which does not ask again (indexed_search). */
typedef enum IndexedAnswer {
    INDEXED_UNASKED,         /* not asked, nothing to ask, or its record could not be read */
    INDEXED_ADMITTED,        /* it may match */
    INDEXED_EXCLUDED         /* ruled out */
} IndexedAnswer;

/* Searches game `index` of input `in` (number `number` in the run) through
 * its sidecar, for the query of iq (RunQuery.indexed: each query of a run
 * has its own) with its searcher s, in g. t is its text as the reader split
 * it off, checked against its record, or NULL when it is not read (see
 * indexed_skip_of). known_head: its record's head as indexed_skip_of read
 * it, or NULL (it is read here). asked: what indexed_ask said of the game,
 * if it was asked (the condition is then not asked again). Unless
 * INDEXED_TEXT, that settled it for that query: it does not match, and
 * what its search printed is appended to printed. */
IndexedOutcome indexed_search(IndexedQuery *iq, const RunInput *in, long index, long number, const CqlGameText *t,
                              const SidecarGame *known_head, IndexedAnswer asked, CqlSearcher *s, CqlGame *g,
                              CqlText *printed);

/* A game a reader may count as read without reading it (the reader jumps
 * to the next one): its record and the next one's say that the reader
 * split them off without a message, each from the first column of its
 * line. */
typedef struct IndexedSkip {
    unsigned line;           /* the line the game starts on */
    uint64_t text_size;      /* the size of its text (CqlGameText) */
    uint64_t next_offset;    /* where the next game starts: the first byte of its line */
    unsigned next_line;
    /* the heads of the game's record and the next one's, each read once:
     * the game's is passed on to its searches (indexed_search, indexed_ask,
     * indexed_watch_ruled_out), the next one's to the next indexed_skip_of */
    const SidecarGame *head; /* own, or the `next` of the skip before */
    SidecarGame own, next;
} IndexedSkip;

/* Game `index` of input in (which has a sidecar), when it may be skipped
 * for a run whose games' text may reach max_game_size (a larger game
 * would have had a message). before: what this said of game index - 1 of
 * the same input (its next head is this game's head, not read again, and
 * out->head points into it: before stays while out is used), or NULL. */
bool indexed_skip_of(const RunInput *in, long index, size_t max_game_size, const IndexedSkip *before,
                     IndexedSkip *out);

/* Where game `index` of input in (which has a sidecar) ends, when the
 * sidecar says that the reader splits it off without a message: the input
 * offset after its last line's end (pgn_expect_game). */
bool indexed_end_of(const RunInput *in, long index, uint64_t *end);

/* Can the query of iq (NULL: no input has a sidecar) rule games out before
 * they are read: has it a condition, or a question about the tags? */
bool indexed_may_rule_out(const IndexedQuery *iq, const CqlQuery *q);

/* Does the query's condition, or the gate's question about the tags, rule
 * game `index` of input in (number `number` in the run) out, asked of its
 * record alone, with searcher s, in g? Nothing of it is noted: a game
 * ruled out for every query that searches it is then told to each of them
 * (indexed_watch_ruled_out), and is done for them as after indexed_search's
 * INDEXED_RULED_OUT; a game read after all is searched with the answers
 * (indexed_search). INDEXED_UNASKED when the query has nothing to ask or
 * the record cannot be read. */
IndexedAnswer indexed_ask(IndexedQuery *iq, const RunInput *in, long index, long number, const SidecarGame *known_head,
                          CqlSearcher *s, CqlGame *g);
/* What shows of the search of a game ruled out: the watched tag filters of
 * s see its tags (for the note after the run). False when its record
 * cannot be read. known_head: as for indexed_search. */
bool indexed_watch_ruled_out(const RunInput *in, long index, long number, const SidecarGame *known_head, CqlSearcher *s,
                             CqlGame *g);

#endif
