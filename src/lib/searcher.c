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
    arena_init_growing(&s->arena, GAME_ARENA_FIRST, GAME_ARENA_MAX);
    return s;
}

void cql_searcher_free(CqlSearcher *s)
{
    if (!s) return;
    eval_free(s->eval);
    arena_free(&s->arena);
    sb_free(&s->sort_key);
    tag_watch_free(&s->tags);
    free(s);
}

bool cql_search(CqlSearcher *s, const CqlGame *g, CqlGameResult *found, CqlText *printed)
{
    arena_reset(&s->arena);
    if (search_examines(&s->query->search, &g->game)) search_watch_tags(&s->query->search, &g->game, &s->tags);
    StrBuf sb = printed ? lib_text_in(printed) : (StrBuf)SB_INIT;
    bool matched = search_matches(&s->query->search, s->eval, &g->game, g->tags_test_held == s->query,
                                  &s->arena, &s->found, printed ? &sb : NULL);
    if (printed) lib_text_out(printed, &sb);
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
    search_write_game(&s->query->search, &g->game, &s->found, &s->arena, &sb);
    lib_text_out(out, &sb);
}

void cql_searcher_print_persistent(const CqlSearcher *s, CqlText *out)
{
    StrBuf sb = lib_text_in(out);
    eval_print_persistent(s->eval, &sb);
    lib_text_out(out, &sb);
}

/* The gate's question about a game's tags (Search.tags_test), asked of a
 * searcher's evaluator for a CqlGame. */
typedef struct TagsQuestion {
    CqlSearcher *searcher;
    CqlGame *game;
} TagsQuestion;

static bool tags_test_passes(void *ctx, const Game *g)
{
    TagsQuestion *q = ctx;
    const CqlQuery *query = q->searcher->query;
    bool sure;
    bool passes = eval_at_start(q->searcher->eval, g, query->search.tags_test, &sure);
    if (passes && sure) q->game->tags_test_held = query;
    return passes;
}

CqlGameStatus cql_game_parse_for(CqlGame *g, CqlGameText *t, const char *file, CqlMessages *m, CqlSearcher *s)
{
    PgnGate gate = s->query->search.gate;
    TagsQuestion question = {s, g};
    if (s->query->search.tags_test) {
        gate.admits = tags_test_passes;
        gate.ctx = &question;
    }
    return lib_parse_game(g, t, file, m, &gate);
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
