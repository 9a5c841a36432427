/*
 * src/lib/indexed.c — the sidecar index in the library face and in a run
 * (see indexed.h; the format is index/sidecar.h, docs/index.md).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "lib/indexed.h"

#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "index/condition.h"
#include "index/movecode.h"
#include "index/sidecar.h"
#include "index/summary.h"
#include "lib/lib_int.h"
#include "query/filters.h"

struct CqlIndex {
    Sidecar sidecar;
};

/* What a run's query makes of a sidecar. */
struct IndexedQuery {
    Condition *condition;    /* NULL: none */
    uint16_t pieces;         /* whose squares it asks a summary about (condition_pieces) */
    bool replay;             /* games may be searched from their move codes */
    bool in_place;           /* and without a tree when they have no variations:
                                the query reads only the current position */
    /* what the searches from codes cost and saved so far, all the workers'
     * (nanoseconds): see worth_codes */
    atomic_long tried;       /* searches from codes */
    atomic_long spent;       /* the time of those that matched, searched again from the text */
    atomic_long saved;       /* about what the others saved: half their reading time */
    atomic_long probes;      /* games asked about once the codes stopped paying */
};

/* A game searched from its codes saves the text's parse, which costs
 * about twice the codes' (the SAN, the tokens): about half the time its
 * codes took to read. A game that matches loses all its search from the
 * codes, since it is searched again from its text. So the codes are
 * worth it while what the matches lost stays under what the others
 * saved: `check`, which 98% of engine games match, soon goes to the text
 * alone, and so does a costly query that matches a quarter of them (the
 * second search of a match costs more than the parses saved). Past the
 * first TRIAL_GAMES, one game in PROBE_EVERY still goes through the codes,
 * so that the balance keeps being measured. Which way a game goes changes
 * nothing but the time. */
enum { TRIAL_GAMES = 32, PROBE_EVERY = 64 };

/* Past the trial, one game in TIME_EVERY is timed, and counts for
 * TIME_EVERY (the clock, read twice a game, cost a replay through the
 * sidecar 2% of its CPU); which games, by their index in the file, has
 * nothing to do with whether they match. */
enum { TIME_EVERY = 8 };

/* How much the search from codes of game `index` counts in the balance:
 * 0 when it is not timed. */
static long timing_weight(IndexedQuery *iq, long index)
{
    if (atomic_load_explicit(&iq->tried, memory_order_relaxed) < TRIAL_GAMES) return 1;
    return index % TIME_EVERY == 0 ? TIME_EVERY : 0;
}

static bool worth_codes(IndexedQuery *iq)
{
    long tried = atomic_load_explicit(&iq->tried, memory_order_relaxed);
    long spent = atomic_load_explicit(&iq->spent, memory_order_relaxed);
    long saved = atomic_load_explicit(&iq->saved, memory_order_relaxed);
    if (tried < TRIAL_GAMES || spent < saved) return true;
    return atomic_fetch_add_explicit(&iq->probes, 1, memory_order_relaxed) % PROBE_EVERY == 0;
}

static long nanoseconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000000000L + t.tv_nsec;
}

/* {==== the query ============================================================= */

static bool reads_comments(const Node *n, void *ctx)
{
    if (n->kind == ND_HASCOMMENT || n->kind == ND_ORIGINALCOMMENT || n->kind == ND_HHDB) *(bool *)ctx = true;
    return true;
}

/* The condition of q's body, when a game needs a matching position to
 * match (not with matchcount 0), and of its header's result. */
static Condition *condition_of_query(const CqlQuery *q)
{
    return condition_of_search(q->search.matchcount_min >= 1 ? q->query->body : NULL, q->search.result);
}

static IndexedQuery *indexed_query_new(const CqlQuery *q)
{
    IndexedQuery *iq = xcalloc(1, sizeof *iq);
    atomic_init(&iq->tried, 0);
    atomic_init(&iq->spent, 0);
    atomic_init(&iq->saved, 0);
    atomic_init(&iq->probes, 0);
    iq->condition = condition_of_query(q);
    iq->pieces = condition_pieces(iq->condition);
    /* a game's codes keep its moves and tags, not its comments; a query
     * that carries values from game to game, or uses files, would see a
     * matching game searched twice (from its codes, then its text) */
    bool comments = false;
    ast_walk(q->query->body, reads_comments, &comments);
    iq->replay = !comments && !cql_query_in_order(q) && !filter_tree_uses_files(q->query->body);
    iq->in_place = filter_tree_reads_one_position(q->query->body);
    return iq;
}

static void indexed_query_free(IndexedQuery *iq)
{
    if (!iq) return;
    condition_free(iq->condition);
    free(iq);
}

void cql_index_condition(const CqlQuery *q, CqlText *out)
{
    Condition *c = condition_of_query(q);
    StrBuf sb = lib_text_in(out);
    condition_print(c, &sb);
    lib_text_out(out, &sb);
    condition_free(c);
}

/* }==== */
/* {==== opening =============================================================== */

char *cql_index_path(const char *pgn_path)
{
    size_t n = strlen(pgn_path);
    char *path = xmalloc(n + sizeof SIDECAR_SUFFIX);
    memcpy(path, pgn_path, n);
    memcpy(path + n, SIDECAR_SUFFIX, sizeof SIDECAR_SUFFIX);
    return path;
}

bool cql_index_is_sidecar(const char *path)
{
    return sidecar_is_sidecar(path);
}

CqlIndexStatus cql_index_open(const char *pgn_path, const char *index_path, CqlIndex **out, CqlMessages *m)
{
    lib_init();
    *out = NULL;
    char *usual = index_path ? NULL : cql_index_path(pgn_path);
    const char *path = index_path ? index_path : usual;
    CqlIndex *ix = xcalloc(1, sizeof *ix);
    char why[256];
    SidecarStatus st = sidecar_open(&ix->sidecar, pgn_path, path, why, sizeof why);
    if (st == SIDECAR_STALE || st == SIDECAR_DAMAGED)
        cql_report(m, CQL_NOTE, "the sidecar index '%s' is %s (%s): the games of '%s' are read from their text "
                   "(cql -index makes it again)", path, st == SIDECAR_STALE ? "stale" : "damaged", why, pgn_path);
    free(usual);
    if (st != SIDECAR_OK) {
        free(ix);
        return st == SIDECAR_MISSING ? CQL_INDEX_MISSING : st == SIDECAR_STALE ? CQL_INDEX_STALE : CQL_INDEX_DAMAGED;
    }
    *out = ix;
    return CQL_INDEX_OK;
}

void cql_index_close(CqlIndex *ix)
{
    if (!ix) return;
    sidecar_close(&ix->sidecar);
    free(ix);
}

long cql_index_games(const CqlIndex *ix)
{
    return ix->sidecar.games;
}

long cql_index_ruled_out(const CqlIndex *ix, const CqlQuery *q)
{
    Condition *c = condition_of_query(q);
    long out = 0;
    SidecarGame sg;
    for (long k = 1; c && k <= ix->sidecar.games; k++)
        if (sidecar_game_some(&ix->sidecar, k, condition_pieces(c), &sg) && sg.clean &&
            !condition_admits(c, &sg.summary))
            out++;
    condition_free(c);
    return out;
}

bool indexed_open_inputs(CqlRun *r)
{
    if (r->settings.noindex) return true;
    const char *named = r->settings.index_file;
    int paths = 0;
    for (int i = 0; i < r->ninputs; i++) paths += r->inputs[i].path && strcmp(r->inputs[i].path, "-") != 0;
    if (named && (paths != 1 || r->ninputs != 1)) {
        cql_report(r->messages, CQL_ERROR, "-indexfile names the sidecar index of one input file, and this run "
                   "reads %d inputs", r->ninputs);
        return false;
    }
    bool any = false;
    for (int i = 0; i < r->ninputs; i++) {
        RunInput *in = &r->inputs[i];
        if (!in->path || strcmp(in->path, "-") == 0) continue;
        cql_index_open(in->path, named, &in->index, r->messages);
        any |= in->index != NULL;
    }
    for (int i = 0; any && i < r->nqueries; i++) r->queries[i]->indexed = indexed_query_new(r->queries[i]->query);
    return true;
}

void indexed_close_inputs(CqlRun *r)
{
    for (int i = 0; i < r->ninputs; i++) {
        cql_index_close(r->inputs[i].index);
        r->inputs[i].index = NULL;
    }
    for (int i = 0; i < r->nqueries; i++) {
        indexed_query_free(r->queries[i]->indexed);
        r->queries[i]->indexed = NULL;
    }
}

/* }==== */
/* {==== building ============================================================== */

typedef struct BuildProgress {
    CqlRunProgressFn fn;
    void *ctx;
} BuildProgress;

static void build_progress(void *ctx, long games, uint64_t bytes)
{
    BuildProgress *p = ctx;
    CqlRunProgress progress = {games, 0, bytes};
    p->fn(p->ctx, &progress);
}

bool cql_index_build(const char *pgn_path, CqlIndexWriteFn write, void *ctx, CqlRunProgressFn progress,
                     void *progress_ctx, CqlIndexTotals *totals, CqlMessages *m)
{
    lib_init();
    BuildProgress p = {progress, progress_ctx};
    SidecarTotals t;
    DiagSink d = lib_sink(m);
    bool ok = sidecar_build(pgn_path, write, ctx, progress ? build_progress : NULL, &p, &d, &t);
    lib_count(m, &d);
    if (totals) *totals = (CqlIndexTotals){t.games, t.text_only, t.pgn_bytes, t.sidecar_bytes};
    return ok;
}

/* }==== */
/* {==== searching a game ====================================================== */

/* Readies g, the scratch tree of a search, for another game. */
static void fresh_scratch(CqlGame *g)
{
    arena_reset(&g->arena);
    memset(&g->game, 0, sizeof g->game);
    g->by_id = NULL;
    g->parses++;   /* another game: what a gate told a searcher about the last holds no more */
    g->usable = false;
}

/* A game's head read from its record into a scratch tree (tags, result,
 * start: SIDECAR_START), and where its move codes are. */
typedef struct GameCodes {
    bool read;
    const unsigned char *codes;
    size_t ncodes;
} GameCodes;

/* Record `index` of sc, from its head (read here unless head, as
 * indexed_skip_of read it), its summary read with the squares of the
 * pieces of `pieces`, or without `summary` passed over
 * (sidecar_game_some). */
static bool record_at(const Sidecar *sc, long index, const SidecarGame *head, bool summary, uint16_t pieces,
                      SidecarGame *sg)
{
    if (head) memcpy(sg, head, offsetof(SidecarGame, summary));
    else if (!sidecar_game_head(sc, index, sg)) return false;
    if (sg->clean) summary_read_some(&sg->rest, summary ? &sg->summary : NULL, pieces);
    return !sg->rest.bad;
}

/* Record `index` of sc (head: as for record_at), its summary read as far
 * as iq's condition asks: the squares of the pieces it asks about
 * (condition_pieces), and without a condition none of it, passed over. */
static bool record_for(const IndexedQuery *iq, const Sidecar *sc, long index, const SidecarGame *head,
                       SidecarGame *sg)
{
    return record_at(sc, index, head, iq->condition != NULL, iq->pieces, sg);
}

/* Readies g, the scratch tree of a search, for game `number` of sidecar
 * record sg (*head: whether that read its head), and asks whether the
 * query's condition, or the gate's question about the tags (asked of the
 * sidecar's tags: a game where it fails cannot match, and asking changes
 * nothing), rules it out. False when the record cannot be read. */
static bool rule_out(IndexedQuery *iq, const Sidecar *sc, const SidecarGame *sg, long number, CqlSearcher *s,
                     CqlGame *g, GameCodes *head, bool *ruled_out)
{
    const Search *search = &s->query->search;
    fresh_scratch(g);
    s->conditions_asked++;
    head->read = false;
    *ruled_out = !condition_admits(iq->condition, &sg->summary);
    if (!*ruled_out && search->tags_test) {
        head->read = sidecar_game_codes(sc, sg, number, &g->game, &g->arena, &head->codes, &head->ncodes);
        if (!head->read) return false;
        bool sure;
        *ruled_out = !eval_at_start(s->eval, &g->game, search->tags_test, &sure);
    }
    return true;
}

/* What shows of the search of a game ruled out: whether the watched tag
 * filters held in it (the note after the run). False when the record
 * cannot be read. */
static bool watch_ruled_out(const Sidecar *sc, const SidecarGame *sg, long number, CqlSearcher *s, CqlGame *g)
{
    const Search *search = &s->query->search;
    if (!search->nwatched) return true;
    if (!g->game.tags && !sidecar_game_read(sc, sg, number, SIDECAR_TAGS, &g->game, &g->arena)) return false;
    search_watch_tags(search, &g->game, &s->tags);
    return true;
}

/* The positions of a walk searched one by one, until one is the last or
 * the search is to stop. Out of line: in its own function the loop keeps
 * the walk's and the move's values in registers (inlined into its caller,
 * among the reading of the record, it spilled them at every position:
 * about a fifth of its instructions). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void search_walk(const Search *search, Evaluator *ev, MovecodeWalk *walk, GameSearch *found)
{
    MovecodeWalk w = *walk;   /* a local, whose address goes nowhere: in registers */
    const GameNode *n = movecode_walk_next(&w);
    if (n && search_positions_at(search, ev, n, found)) {
        long left = search_positions_settled(search, ev, found);
        if (left >= 0) {
            /* the later positions are answered as the start was: made
             * (their codes checked) and counted */
            int32_t first_id = n->id + 1;
            search_positions_pass(ev, first_id, movecode_walk_pass(&w, left));
        } else {
            while ((n = movecode_walk_next(&w)) && search_positions_at(search, ev, n, found))
                ;
        }
    }
    *walk = w;
}

/* Searches the game of record sg from its codes (its head in g, when
 * head->read) into s->found and *sb:
 * *matched, whether it matches, and *read (unless NULL: the game is not
 * timed), when its tree was read (a search in place reads its moves as it
 * goes: then when it ended). A game
 * without variations, for a query that reads only the current position,
 * has its positions made in place one after another (MovecodeWalk), no
 * tree built; any other, its tree read (g->game). False when the record
 * cannot be read. */
static bool search_codes(const IndexedQuery *iq, const Sidecar *sc, const SidecarGame *sg, long number, CqlSearcher *s,
                         CqlGame *g, GameCodes *head, StrBuf *sb, bool *matched, long *read, bool *in_place)
{
    const Search *search = &s->query->search;
    MovecodeWalk walk;
    MovecodeWalkNodes nodes;
    if (iq->in_place && !head->read) {
        arena_reset(&g->arena);
        head->read = sidecar_game_codes(sc, sg, number, &g->game, &g->arena, &head->codes, &head->ncodes);
    }
    if (iq->in_place && head->read && head->ncodes < INT_MAX &&
        movecode_walk_start(&walk, &nodes, head->codes, head->ncodes, &g->game.root->pos,
                            search->eval.run.variations)) {
        *in_place = true;
        g->game.node_count = (int)head->ncodes + 1;
        Arena *arena = lib_search_begins(s);
        *matched = false;
        if (search_positions_begin(search, s->eval, &g->game, arena, &s->found, sb)) {
            search_walk(search, s->eval, &walk, &s->found);
            *matched = search_positions_end(search, s->eval, &s->found);
        }
        if (read) *read = nanoseconds();
        /* the game has no tree to write or search again: only its tags */
        g->game.root = NULL;
        g->game.node_count = 0;
        return !walk.bad;
    }
    *in_place = false;
    arena_reset(&g->arena);
    if (!sidecar_game_read(sc, sg, number, SIDECAR_TREE, &g->game, &g->arena)) return false;
    if (read) *read = nanoseconds();
    g->usable = true;
    *matched = search_matches(search, s->eval, &g->game, false, lib_search_begins(s), &s->found, sb);
    return true;
}

bool indexed_may_rule_out(const IndexedQuery *iq, const CqlQuery *q)
{
    return iq && (iq->condition || q->search.tags_test);
}

IndexedAnswer indexed_ask(IndexedQuery *iq, const RunInput *in, long index, long number, const SidecarGame *known_head,
                          CqlSearcher *s, CqlGame *g)
{
    if (!iq->condition && !s->query->search.tags_test) return INDEXED_UNASKED;
    const Sidecar *sc = &in->index->sidecar;
    SidecarGame sg;
    GameCodes head;
    bool ruled_out;
    if (!record_for(iq, sc, index, known_head, &sg) || !sg.clean ||
        !rule_out(iq, sc, &sg, number, s, g, &head, &ruled_out))
        return INDEXED_UNASKED;
    return ruled_out ? INDEXED_EXCLUDED : INDEXED_ADMITTED;
}

bool indexed_watch_ruled_out(const RunInput *in, long index, long number, const SidecarGame *known_head, CqlSearcher *s,
                             CqlGame *g)
{
    if (!s->query->search.nwatched) return true;
    const Sidecar *sc = &in->index->sidecar;
    SidecarGame sg;
    if (!record_at(sc, index, known_head, false, 0, &sg)) return false;
    fresh_scratch(g);
    return watch_ruled_out(sc, &sg, number, s, g);
}

bool indexed_skip_of(const RunInput *in, long index, size_t max_game_size, const IndexedSkip *before,
                     IndexedSkip *out)
{
    const Sidecar *sc = &in->index->sidecar;
    out->head = before ? &before->next : &out->own;
    if (!before && !sidecar_game_head(sc, index, &out->own)) return false;
    if (!out->head->quiet || !sidecar_game_head(sc, index + 1, &out->next) || !out->next.quiet ||
        out->head->text_size >= max_game_size)
        return false;
    out->line = out->head->first_line;
    out->text_size = out->head->text_size;
    out->next_offset = out->next.offset;
    out->next_line = out->next.first_line;
    return true;
}

bool indexed_end_of(const RunInput *in, long index, uint64_t *end)
{
    SidecarGame sg;
    if (!sidecar_game_head(&in->index->sidecar, index, &sg) || !sg.quiet) return false;
    *end = sg.offset + sg.length;
    return true;
}

IndexedOutcome indexed_search(IndexedQuery *iq, const RunInput *in, long index, long number, const CqlGameText *t,
                              const SidecarGame *known_head, IndexedAnswer asked, CqlSearcher *s, CqlGame *g,
                              CqlText *printed)
{
    const Search *search = &s->query->search;
    /* nothing to rule a game out with, and its codes not worth searching:
     * the record is not even looked at */
    bool codes = iq->replay && worth_codes(iq);
    if (!iq->condition && !search->tags_test && !codes) return INDEXED_TEXT;
    if (asked == INDEXED_ADMITTED && !codes) return INDEXED_TEXT;   /* let through when asked before */
    const Sidecar *sc = &in->index->sidecar;
    SidecarGame sg;
    /* the game the reader split off, if it did, is the one indexed: same
     * line, same size */
    if (!record_for(iq, sc, index, known_head, &sg) || !sg.clean ||
        (t && (sg.first_line != t->raw.first_line || sg.text_size != t->raw.text.len)))
        return INDEXED_TEXT;
    GameCodes head = {.read = false};
    bool ruled_out = asked == INDEXED_EXCLUDED;
    if (asked != INDEXED_UNASKED) fresh_scratch(g);   /* the answer stands: the same record */
    else if (!rule_out(iq, sc, &sg, number, s, g, &head, &ruled_out)) return INDEXED_TEXT;
    if (ruled_out) return watch_ruled_out(sc, &sg, number, s, g) ? INDEXED_RULED_OUT : INDEXED_TEXT;
    if (!codes) {
        arena_reset(&g->arena);
        return INDEXED_TEXT;
    }
    long weight = timing_weight(iq, index), start = weight ? nanoseconds() : 0, read = 0;
    size_t printed_before = printed->len;
    StrBuf sb = lib_text_in(printed);
    bool matched, in_place;
    if (!search_codes(iq, sc, &sg, number, s, g, &head, &sb, &matched, weight ? &read : NULL, &in_place)) {
        lib_text_out(printed, &sb);
        printed->len = printed_before;
        if (printed->data) printed->data[printed_before] = '\0';
        return INDEXED_TEXT;
    }
    lib_text_out(printed, &sb);
    atomic_fetch_add_explicit(&iq->tried, 1, memory_order_relaxed);
    if (weight && matched)
        atomic_fetch_add_explicit(&iq->spent, weight * (nanoseconds() - start), memory_order_relaxed);
    else if (weight)
        atomic_fetch_add_explicit(&iq->saved, weight * (read - start) / 2, memory_order_relaxed);
    if (matched || s->found.runtime_error || s->found.stopped_at) {
        /* searched again from its text, which says and prints it all */
        printed->len = printed_before;
        if (printed->data) printed->data[printed_before] = '\0';
        return INDEXED_TEXT;
    }
    search_watch_tags(search, &g->game, &s->tags);
    return in_place ? INDEXED_IN_PLACE : INDEXED_FROM_CODES;
}

/* }==== */
