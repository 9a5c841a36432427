/*
 * src/lib/searcher.c — searching in the library face: a searcher per
 * thread (eval/eval.h), a game read through the search's gate, one game
 * searched (eval/search.h), a matching game written, the notes of a run.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lib_int.h"
#include "query/contexts.h"

CqlSearcher *cql_searcher_new(const CqlQuery *q)
{
    lib_init();
    CqlSearcher *s = xcalloc(1, sizeof *s);
    s->query = q;
    s->eval = eval_new(q->query, &q->search.eval);
    arena_init_growing(&s->own_arena, GAME_ARENA_FIRST, GAME_ARENA_MAX);
    return s;
}

void lib_shared_arena_init(LibSharedArena *sh, int sharers)
{
    arena_init_growing(&sh->arena, GAME_ARENA_FIRST, GAME_ARENA_MAX);
    sh->sharers = sharers;
    sh->searches = 0;
}

void lib_shared_arena_free(LibSharedArena *sh)
{
    arena_free(&sh->arena);
}

void lib_searcher_share_arena(CqlSearcher *s, LibSharedArena *sh)
{
    arena_free(&s->own_arena);
    s->shared = sh;
}

Arena *lib_search_begins(CqlSearcher *s)
{
    LibSharedArena *sh = s->shared;
    if (!sh) {
        arena_reset(&s->own_arena);
        return &s->own_arena;
    }
    if (++sh->searches >= sh->sharers) {
        sh->searches = 0;
        arena_reset(&sh->arena);
    } else {
        arena_rewind(&sh->arena);
    }
    return &sh->arena;
}

void cql_searcher_free(CqlSearcher *s)
{
    if (!s) return;
    eval_free(s->eval);
    arena_free(&s->own_arena);
    sb_free(&s->sort_key);
    tag_watch_free(&s->tags);
    free(s);
}

bool cql_search(CqlSearcher *s, const CqlGame *g, CqlGameResult *found, CqlText *printed)
{
    Arena *arena = lib_search_begins(s);
    if (search_examines(&s->query->search, &g->game)) search_watch_tags(&s->query->search, &g->game, &s->tags);
    bool verdict = s->verdict_game == g && s->verdict_parse == g->parses;   /* lib_parse_for's, for g */
    bool matched = false;
    if (verdict && s->shut_out) {
        /* as for a game the query's own gate shut out (search_matches):
         * nothing of the query is evaluated */
        memset(&s->found, 0, sizeof s->found);
    } else {
        StrBuf sb = printed ? lib_text_in(printed) : (StrBuf)SB_INIT;
        matched = search_matches(&s->query->search, s->eval, &g->game, verdict && s->tags_held, arena,
                                 &s->found, printed ? &sb : NULL);
        if (printed) lib_text_out(printed, &sb);
    }
    found->matched = matched;
    found->stopped = s->found.stopped_at != NULL;
    found->matched_positions = s->found.matched_positions;
    found->sort_key = NULL;
    found->sort_key_len = 0;
    if (matched && s->query->search.sorting) {
        search_sort_key(&s->query->search, &s->found, &s->sort_key);
        found->sort_key = s->sort_key.data;
        found->sort_key_len = s->sort_key.len;
    }
    found->error = s->found.runtime_error;
    return matched;
}

void cql_searcher_merge_tags(CqlSearcher *into, const CqlSearcher *from)
{
    search_merge_watch(&into->tags, &from->tags);
}

void cql_searcher_report_unmatched_tags(const CqlSearcher *s, CqlMessages *m)
{
    DiagSink d = lib_sink(m);
    search_report_unmatched_tags(&s->query->search, &s->tags, &d);
    lib_count(m, &d);
}

void cql_search_report_stop(const CqlSearcher *s, const CqlGame *g, CqlMessages *m)
{
    const Node *n = s->found.stopped_at;
    if (!n) return;
    const SourceText *src = &s->query->query->src;
    DiagSink d = lib_sink(m);
    if (s->found.stop_reason) {
        diag_at(&d, src, n->span, DIAG_ERROR, "game %ld: %s", g->game.number, s->found.stop_reason);
        lib_count(m, &d);
        return;
    }
    int len = contexts_quote_length(n);
    diag_at(&d, src, n->span, DIAG_ERROR,
            "game %ld: '%.*s%s' has a value, not a match, and was evaluated as a position filter: the run stops "
            "here (as in CQL 6.2)",
            g->game.number, len, src->text + n->span.start, len < (int)(n->span.end - n->span.start) ? "..." : "");
    lib_count(m, &d);
}

bool cql_position_matched(const CqlSearcher *s, int id)
{
    return s->found.matched && s->found.matched[id];
}

void cql_write_match(CqlSearcher *s, const CqlGame *g, CqlText *out)
{
    StrBuf sb = lib_text_in(out);
    search_write_game(&s->query->search, &g->game, &s->found, lib_search_arena(s), &sb);
    lib_text_out(out, &sb);
}

void cql_searcher_print_persistent(const CqlSearcher *s, CqlText *out)
{
    StrBuf sb = lib_text_in(out);
    eval_print_persistent(s->eval, &sb);
    lib_text_out(out, &sb);
}

/* The searchers a gate serves for the game being read. */
static bool serves(const LibGate *gate, int i)
{
    return !gate->active || gate->active[i];
}

/* A Result tag of another result than the query wants shuts a game out
 * (pgn_parse_game_gated reads the tag, not the result after the moves). */
static bool result_tag_differs(const Search *search, const Game *g)
{
    const char *r = search->gate.result ? game_result_tag(g) : NULL;
    return r && strcmp(r, search->gate.result) != 0;
}

/* The gate's question about a game's tags, once they are read: each
 * query's own (its result, its tags_test, asked of its searcher's
 * evaluator), the game let through when one of them lets it through. */
static bool tags_admit(void *ctx, const Game *g)
{
    LibGate *gate = ctx;
    bool any = false;
    for (int i = 0; i < gate->count; i++) {
        if (!serves(gate, i)) continue;
        CqlSearcher *s = gate->searchers[i];
        const Search *search = &s->query->search;
        bool sure = false;
        bool passes = !result_tag_differs(search, g) &&
                      (!search->tags_test || eval_at_start(s->eval, g, search->tags_test, &sure));
        s->tags_held = passes && search->tags_test && sure;
        s->shut_out = !passes;
        any |= passes;
    }
    return any;
}

/* Adds placement p to the gate unless it is there; false when there is no room. */
static bool add_shared_placement(PgnGate *gate, PgnPlacement p)
{
    for (int i = 0; i < gate->nplacements; i++)
        if (gate->placements[i].pieces == p.pieces && gate->placements[i].squares == p.squares) return true;
    if (gate->nplacements == PGN_GATE_PLACEMENTS) return false;
    gate->placements[gate->nplacements++] = p;
    return true;
}

void lib_gate_init(LibGate *gate, CqlSearcher *const *searchers, int count)
{
    memset(gate, 0, sizeof *gate);
    gate->searchers = searchers;
    gate->count = count;
    gate->own_placements = count == 1;
    /* a result when every query wants the same one; placements when every
     * query needs some, and they fit */
    bool placements = count > 0, asks_tags = false;
    for (int i = 0; i < count; i++) {
        const Search *search = &searchers[i]->query->search;
        const char *result = search->gate.result;
        if (i == 0) gate->gate.result = result;
        else if (!result || !gate->gate.result || strcmp(result, gate->gate.result) != 0) gate->gate.result = NULL;
        placements = placements && search->gate.nplacements > 0;
        for (int k = 0; placements && k < search->gate.nplacements; k++)
            placements = add_shared_placement(&gate->gate, search->gate.placements[k]);
        asks_tags |= search->tags_test != NULL;
    }
    if (!placements) gate->gate.nplacements = 0;
    for (int i = 0; i < count; i++)
        if (searchers[i]->query->search.gate.result && !gate->gate.result) asks_tags = true;
    if (asks_tags) {
        gate->gate.admits = tags_admit;
        gate->gate.ctx = gate;
    }
}

CqlGameStatus lib_parse_for(CqlGame *g, CqlGameText *t, const char *file, CqlMessages *m, LibGate *gate,
                            const bool *active)
{
    gate->active = active;
    for (int i = 0; i < gate->count; i++) {
        gate->searchers[i]->tags_held = gate->searchers[i]->shut_out = false;
        gate->searchers[i]->verdict_game = NULL;
    }
    CqlGameStatus st = lib_parse_game(g, t, file, m, &gate->gate);
    /* a tree read for the placements of the others: this query's own */
    bool tree = st != CQL_GAME_UNUSABLE && !g->game.moves_skipped;
    for (int i = 0; i < gate->count; i++) {
        if (!serves(gate, i)) continue;
        CqlSearcher *s = gate->searchers[i];
        const PgnGate *own = &s->query->search.gate;
        if (tree && !gate->own_placements && own->nplacements && !s->shut_out)
            s->shut_out = !pgn_game_has_placement(&g->game, own);
        s->verdict_game = g;
        s->verdict_parse = g->parses;
    }
    gate->active = NULL;
    return st;
}

CqlGameStatus cql_game_parse_for(CqlGame *g, CqlGameText *t, const char *file, CqlMessages *m, CqlSearcher *s)
{
    LibGate gate;
    lib_gate_init(&gate, &s, 1);
    return lib_parse_for(g, t, file, m, &gate, NULL);
}

void lib_matched_positions(const CqlSearcher *s, CqlGame *g, CqlText *records, CqlText *strings)
{
    for (int id = 0; id < cql_game_positions(g); id++) {
        if (!cql_position_matched(s, id)) continue;
        CqlPosition p;
        lib_describe_position(g, id, &p, strings);
        const char *note = s->found.notes ? s->found.notes[id] : NULL;
        p.comments = (const char *)(uintptr_t)strings->len;
        if (note) cql_text_append(strings, note, strlen(note));
        cql_text_append(strings, "", 1);
        cql_text_append(records, (const char *)&p, sizeof p);
    }
}

/* Appends a tag's record and its texts (lib_match_tags). */
static void append_tag(const char *name, const char *value, CqlText *records, CqlText *strings)
{
    CqlTag t = {(const char *)(uintptr_t)strings->len, NULL};
    cql_text_append(strings, name, strlen(name) + 1);
    t.value = (const char *)(uintptr_t)strings->len;
    cql_text_append(strings, value, strlen(value) + 1);
    cql_text_append(records, (const char *)&t, sizeof t);
}

void lib_match_tags(const CqlSearcher *s, const CqlGame *g, CqlText *records, CqlText *strings)
{
    /* as the writer has them (pgn/writer.h, PgnAnnotations.tags) */
    const Tag *set = s->found.set_tags;
    int nset = s->found.nset_tags;
    for (int i = 0; i < g->game.tag_count; i++) {
        const Tag *t = &g->game.tags[i];
        const Tag *given = game_tag_find(set, nset, t->name);
        append_tag(t->name, given ? given->value : t->value, records, strings);
    }
    for (int i = 0; i < nset; i++)
        if (!game_tag_find(g->game.tags, g->game.tag_count, set[i].name))
            append_tag(set[i].name, set[i].value, records, strings);
}
