/*
 * src/eval/cql.c — the library face (include/cql.h) over the modules: the
 * query front end (query/compile.h), the PGN reader and writer, the search
 * of one game (eval/search.h).
 *
 * The public types wrap the internal ones; a CqlMessages sink is passed on
 * as a DiagSink, a CqlText as a StrBuf (the same three fields, copied in and
 * out). The tables of the chess core are filled once, on first use, by any
 * entry point that needs them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cql.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/diag.h"
#include "query/contexts.h"
#include "base/strbuf.h"
#include "chess/attacks.h"
#include "chess/position.h"
#include "eval/eval.h"
#include "eval/search.h"
#include "eval/submission.h"
#include "pgn/game.h"
#include "pgn/reader.h"
#include "pgn/writer.h"
#include "query/compile.h"
#include "query/hhdb_keys.h"
#include "query/print.h"
#include "query/transform.h"

_Static_assert(CQL_QUERY_MAX_BYTES == QUERY_MAX_BYTES, "cql.h and compile.h disagree on the longest query");
_Static_assert((int)CQL_ERROR == (int)DIAG_ERROR && (int)CQL_WARNING == (int)DIAG_WARNING &&
                   (int)CQL_NOTE == (int)DIAG_NOTE,
               "cql.h and diag.h number the severities alike");

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
    const CqlQuery *tags_test_held;   /* the query whose tags_test the gate found
                                         true for this game (cql_game_parse_for) */
};

struct CqlSearcher {
    const CqlQuery *query;
    Evaluator *eval;
    Arena arena;                 /* the last search's caches and notes */
    GameSearch found;
    StrBuf sort_key;             /* the last matching game's (CqlGameResult.sort_key) */
    TagWatch tags;               /* which tag filters held in the games searched */
};

/* {==== setup, messages, text =============================================== */

static pthread_once_t library_once = PTHREAD_ONCE_INIT;

static void fill_library_tables(void)
{
    att_init();
}

static void library_init(void)
{
    pthread_once(&library_once, fill_library_tables);
}

static void forward_message(void *ctx, DiagSeverity sev, const char *text)
{
    CqlMessages *m = ctx;
    m->fn(m->ctx, (CqlSeverity)sev, text);
}

/* The DiagSink that delivers to m (standard error when m or m->fn is NULL). */
static DiagSink sink_for(CqlMessages *m)
{
    DiagSink d;
    diag_sink_init(&d, m && m->fn ? forward_message : NULL, m);
    return d;
}

static void count_messages(CqlMessages *m, const DiagSink *d)
{
    if (!m) return;
    m->errors += d->errors;
    m->warnings += d->warnings;
}

void cql_deliver(CqlMessages *m, CqlSeverity severity, const char *text)
{
    DiagSink d = sink_for(m);
    diag_deliver(&d, (DiagSeverity)severity, text);
    count_messages(m, &d);
}

void cql_report(CqlMessages *m, CqlSeverity severity, const char *fmt, ...)
{
    StrBuf text = SB_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&text, fmt, ap);
    va_end(ap);
    DiagSink d = sink_for(m);
    diag_plain(&d, (DiagSeverity)severity, "%s", sb_str(&text));
    count_messages(m, &d);
    sb_free(&text);
}

static StrBuf text_in(const CqlText *t)
{
    return (StrBuf){t->data, t->len, t->cap};
}

static void text_out(CqlText *t, const StrBuf *sb)
{
    t->data = sb->data;
    t->len = sb->len;
    t->cap = sb->cap;
}

void cql_text_append(CqlText *t, const char *s, size_t n)
{
    StrBuf sb = text_in(t);
    sb_append_n(&sb, s, n);
    text_out(t, &sb);
}

void cql_text_printf(CqlText *t, const char *fmt, ...)
{
    StrBuf sb = text_in(t);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    text_out(t, &sb);
}

void cql_text_clear(CqlText *t)
{
    StrBuf sb = text_in(t);
    sb_clear(&sb);
    text_out(t, &sb);
}

void cql_text_free(CqlText *t)
{
    StrBuf sb = text_in(t);
    sb_free(&sb);
    text_out(t, &sb);
}

/* }==== */

/* {==== queries ============================================================== */

static const struct {
    unsigned cql, compile;
} transform_flags[] = {
    {CQL_FLIP, QX_FLIP},
    {CQL_FLIPCOLOR, QX_FLIPCOLOR},
    {CQL_SHIFT, QX_SHIFT},
    {CQL_REVERSECOLOR, QX_REVERSECOLOR},
    {CQL_FLIPHORIZONTAL, QX_FLIPHORIZONTAL},
    {CQL_FLIPVERTICAL, QX_FLIPVERTICAL},
    {CQL_ROTATE90, QX_ROTATE90},
    {CQL_ROTATE45, QX_ROTATE45},
    {CQL_SHIFTHORIZONTAL, QX_SHIFTHORIZONTAL},
    {CQL_SHIFTVERTICAL, QX_SHIFTVERTICAL},
};

static SearchRange range_of(CqlRange r)
{
    return (SearchRange){r.set, r.min, r.max};
}

/* The strings of the settings, copied into the query's arena. */
static const char *kept(Query *q, const char *s)
{
    return s ? arena_strdup(&q->arena, s) : NULL;
}

CqlQuery *cql_compile(const char *text, size_t len, const CqlSettings *settings, CqlCompileStage stage,
                      CqlMessages *m)
{
    static const CqlSettings defaults = {.name = NULL};
    library_init();
    const CqlSettings *cs = settings ? settings : &defaults;
    CompileOptions opt = {.body_only = cs->body_only, .preamble = cs->preamble, .expand = stage != CQL_COMPILE_PARSE};
    for (size_t i = 0; i < sizeof transform_flags / sizeof transform_flags[0]; i++)
        if (cs->transforms & transform_flags[i].cql) opt.transforms |= transform_flags[i].compile;
    SourceText src = {cs->name, text, len};
    DiagSink d = sink_for(m);
    Query *q = query_compile(&src, &opt, &d);
    if (q && stage == CQL_COMPILE_RUN && !eval_check_supported(q, &d)) {
        query_free(q);
        q = NULL;
    }
    count_messages(m, &d);
    if (!q) return NULL;
    SearchSettings ss = {
        .matchstring = kept(q, cs->matchstring),
        .variations = cs->variations,
        .mainline = cs->mainline,
        .silent = cs->silent,
        .quiet = cs->quiet,
        .alwayscomment = cs->alwayscomment,
        .noheader = cs->noheader,
        .nosettag = cs->nosettag,
        .noremovecomment = cs->noremovecomment,
        .nouniquecomments = cs->nouniquecomments,
        .matchcount = range_of(cs->matchcount),
        .gamenumber = range_of(cs->gamenumber),
        .result = kept(q, cs->result),
        .query_file = kept(q, cs->query_file),
        .loop_budget = cs->loop_budget,
        .text_budget = cs->text_budget,
        .max_regex_steps = cs->max_regex_steps,
    };
    CqlQuery *cq = xcalloc(1, sizeof *cq);
    cq->query = q;
    search_init(&cq->search, &ss, q);
    if (stage == CQL_COMPILE_RUN && !eval_check_settings(q, &cq->search.eval, &d)) {
        count_messages(m, &d);
        cql_query_free(cq);
        return NULL;
    }
    return cq;
}

bool cql_is_cql1(const char *text, size_t len)
{
    return query_is_cql1(text, len);
}

char *cql_translate_cql1(const char *text, size_t len, const char *name, CqlMessages *m)
{
    SourceText src = {name, text, len};
    DiagSink d = sink_for(m);
    char *cql6 = query_translate_cql1(&src, &d);
    count_messages(m, &d);
    return cql6;
}

void cql_query_free(CqlQuery *q)
{
    if (!q) return;
    submissions_free(&q->submissions);
    query_free(q->query);
    free(q);
}

char *cql_read_query_file(const char *path, size_t *len, CqlMessages *m)
{
    DiagSink d = sink_for(m);
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!fp) {
        diag_plain(&d, DIAG_ERROR, "cannot open query file '%s': %s", path, strerror(errno));
        count_messages(m, &d);
        return NULL;
    }
    StrBuf sb = SB_INIT;
    char chunk[65536];
    size_t got;
    /* no further than just past the limit (the query may be /dev/zero) */
    while (sb.len <= QUERY_MAX_BYTES && (got = fread(chunk, 1, sizeof chunk, fp)) > 0) sb_append_n(&sb, chunk, got);
    bool failed = ferror(fp);
    if (fp != stdin) fclose(fp);
    if (failed) {
        diag_plain(&d, DIAG_ERROR, "error reading query file '%s'", path);
        count_messages(m, &d);
        sb_free(&sb);
        return NULL;
    }
    *len = sb.len;
    return sb_take(&sb);
}

const char *cql_query_input(const CqlQuery *q)
{
    const QueryHeader *h = &q->query->header;
    return (h->present & QH_INPUT) ? h->input : NULL;
}

const char *cql_query_output(const CqlQuery *q)
{
    const QueryHeader *h = &q->query->header;
    return (h->present & QH_OUTPUT) ? h->output : NULL;
}

CqlRange cql_query_gamenumber(const CqlQuery *q)
{
    const SearchRange *r = &q->search.gamenumber;
    return (CqlRange){r->set, r->min, r->max};
}

bool cql_query_in_order(const CqlQuery *q)
{
    return eval_needs_order(q->query);
}

bool cql_query_sorts(const CqlQuery *q)
{
    return q->search.sorting;
}

const char *cql_hhdb_key(size_t i)
{
    const HhdbKey *k = hhdb_key_at(i);
    if (!k) return NULL;
    if (k->what == HH_GBR && k->arg) {   /* a part of gbr */
        static const char *const parts[] = {"gbr material", "gbr pieces", "gbr pawns", "gbr kings"};
        for (size_t p = 0; p < 4; p++)
            if (strcmp(parts[p] + 4, k->name) == 0) return parts[p];
    }
    return k->name;
}

bool cql_query_needs_game_count(const CqlQuery *q)
{
    return eval_needs_game_count(q->query);
}

void cql_query_set_game_count(CqlQuery *q, long count)
{
    const SearchRange *r = &q->search.gamenumber;
    q->search.eval.last_game_number = r->set && count > r->max ? r->max : count;
}

bool cql_query_reads_files(const CqlQuery *q)
{
    return submissions_needed(q->query);
}

bool cql_query_read_files(CqlQuery *q, CqlText *printed, CqlMessages *m)
{
    DiagSink d = sink_for(m);
    StrBuf sb = text_in(printed);
    bool ok = submissions_read(&q->submissions, q->query, &sb, &d);
    text_out(printed, &sb);
    count_messages(m, &d);
    q->search.eval.submissions = &q->submissions;
    return ok;
}

void cql_query_print(const CqlQuery *q, CqlPrint what, CqlText *out)
{
    StrBuf sb = text_in(out);
    switch (what) {
    case CQL_PRINT_TREE: print_tree(q->query, &sb); break;
    case CQL_PRINT_ASCII: print_source(q->query, false, &sb); break;
    case CQL_PRINT_UNICODE: print_source(q->query, true, &sb); break;
    case CQL_PRINT_ORBITS: xf_write_orbits(q->query, &sb); break;
    }
    text_out(out, &sb);
}

static bool same_string(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_header(const QueryHeader *a, const QueryHeader *b)
{
    return a->present == b->present && same_string(a->input, b->input) && same_string(a->output, b->output) &&
           a->matchcount_min == b->matchcount_min && a->matchcount_max == b->matchcount_max &&
           a->gamenumber_min == b->gamenumber_min && a->gamenumber_max == b->gamenumber_max &&
           same_string(a->result, b->result) && same_string(a->matchstring, b->matchstring);
}

bool cql_query_equal(const CqlQuery *a, const CqlQuery *b)
{
    return ast_equal(a->query->body, b->query->body) && same_header(&a->query->header, &b->query->header);
}

/* }==== */

/* {==== games ================================================================ */

static CqlReader *new_reader(void)
{
    CqlReader *r = xcalloc(1, sizeof *r);
    diag_sink_init(&r->quiet, NULL, NULL);
    return r;
}

CqlReader *cql_reader_open(const char *path, CqlMessages *m)
{
    library_init();
    CqlReader *r = new_reader();
    DiagSink d = sink_for(m);
    int failed = pgn_open(&r->reader, path, &d);
    count_messages(m, &d);
    if (failed) {
        free(r);
        return NULL;
    }
    r->reader.diag = &r->quiet;
    return r;
}

CqlReader *cql_reader_open_stream(FILE *fp, const char *name, CqlMessages *m)
{
    (void)m;
    library_init();
    CqlReader *r = new_reader();
    pgn_open_stream(&r->reader, fp, name, &r->quiet);
    return r;
}

void cql_reader_set_max_game_size(CqlReader *r, size_t bytes)
{
    r->reader.max_game_size = bytes;
}

bool cql_reader_next(CqlReader *r, CqlGameText *t, CqlMessages *m)
{
    DiagSink d = sink_for(m);
    r->reader.diag = &d;
    bool got = pgn_next_raw(&r->reader, &t->raw);
    r->reader.diag = &r->quiet;
    count_messages(m, &d);
    return got;
}

CqlChunk *cql_chunk_new(void)
{
    return xcalloc(1, sizeof(CqlChunk));
}

void cql_chunk_free(CqlChunk *c)
{
    if (!c) return;
    pgn_chunk_free(&c->chunk);
    free(c);
}

CqlTake cql_reader_take_chunk(CqlReader *r, size_t bytes, CqlChunk *c, CqlMessages *m)
{
    DiagSink d = sink_for(m);
    r->reader.diag = &d;
    PgnTake took = pgn_take_chunk(&r->reader, bytes < PGN_MAX_CHUNK / 4 ? bytes : PGN_MAX_CHUNK / 4, &c->chunk);
    r->reader.diag = &r->quiet;
    count_messages(m, &d);
    return took == PGN_TAKE_CHUNK ? CQL_TAKE_CHUNK : took == PGN_TAKE_END ? CQL_TAKE_END : CQL_TAKE_NO_CUT;
}

size_t cql_chunk_size(const CqlChunk *c)
{
    return c->chunk.cut == SIZE_MAX ? c->chunk.len : c->chunk.cut;
}

bool cql_chunk_next(CqlChunk *c, CqlGameText *t, CqlMessages *m)
{
    DiagSink d = sink_for(m);
    bool got = pgn_chunk_next(&c->chunk, &t->raw, &d);
    count_messages(m, &d);
    return got;
}

bool cql_chunk_overran(const CqlChunk *c)
{
    return c->chunk.overran;
}

void cql_reader_give_back(CqlReader *r, const CqlChunk *c, bool whole)
{
    pgn_give_back(&r->reader, &c->chunk, whole);
}

const char *cql_reader_name(const CqlReader *r)
{
    return r->reader.name;
}

long cql_reader_games(const CqlReader *r)
{
    return r->reader.games;
}

bool cql_reader_failed(const CqlReader *r)
{
    return r->reader.io_error;
}

void cql_reader_close(CqlReader *r)
{
    if (!r) return;
    pgn_close(&r->reader);
    free(r);
}

CqlGameText *cql_game_text_new(void)
{
    CqlGameText *t = xcalloc(1, sizeof *t);
    raw_game_init(&t->raw);
    return t;
}

void cql_game_text_free(CqlGameText *t)
{
    if (!t) return;
    raw_game_free(&t->raw);
    free(t);
}

void cql_game_text_set(CqlGameText *t, const char *text, size_t len, long number)
{
    raw_game_free(&t->raw);
    raw_game_init(&t->raw);
    sb_append_n(&t->raw.text, text, len);
    t->raw.first_line = 1;
    t->raw.number = number;
}

long cql_game_text_number(const CqlGameText *t)
{
    return t->raw.number;
}

void cql_game_text_set_number(CqlGameText *t, long number)
{
    t->raw.number = number;
}

long cql_game_text_line(const CqlGameText *t)
{
    return (long)t->raw.first_line;
}

size_t cql_game_text_size(const CqlGameText *t)
{
    return t->raw.text.len;
}

CqlGame *cql_game_new(void)
{
    library_init();
    CqlGame *g = xcalloc(1, sizeof *g);
    arena_init_growing(&g->arena, GAME_ARENA_FIRST, GAME_ARENA_MAX);
    return g;
}

void cql_game_free(CqlGame *g)
{
    if (!g) return;
    arena_free(&g->arena);
    free(g);
}

static CqlGameStatus parse_game(CqlGame *g, CqlGameText *t, const char *file, CqlMessages *m,
                                const PgnGate *gate)
{
    arena_reset(&g->arena);
    g->by_id = NULL;
    g->tags_test_held = NULL;
    DiagSink d = sink_for(m);
    PgnParseStatus st = pgn_parse_game_gated(&t->raw, file, &g->arena, &g->game, &d, gate);
    raw_game_trim(&t->raw);   /* the tree holds copies: a big game's text can go now */
    count_messages(m, &d);
    g->usable = st != PGN_UNUSABLE;
    return st == PGN_OK ? CQL_GAME_OK : st == PGN_DAMAGED ? CQL_GAME_DAMAGED : CQL_GAME_UNUSABLE;
}

CqlGameStatus cql_game_parse(CqlGame *g, CqlGameText *t, const char *file, CqlMessages *m)
{
    return parse_game(g, t, file, m, NULL);
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
    return parse_game(g, t, file, m, &gate);
}

long cql_game_number(const CqlGame *g)
{
    return g->game.number;
}

int cql_game_positions(const CqlGame *g)
{
    return g->usable ? g->game.node_count : 0;
}

void cql_game_position(CqlGame *g, int id, int *ply, bool *mainline)
{
    if (!g->by_id) {
        const GameNode **by_id = ARENA_ARRAY(&g->arena, const GameNode *, g->game.node_count);
        for (const GameNode *n = g->game.root; n; n = game_walk_next(NULL, n, true)) by_id[n->id] = n;
        g->by_id = by_id;
    }
    const GameNode *n = g->by_id[id];
    *ply = n->ply;
    *mainline = node_is_mainline(n);
}

void cql_game_fen(CqlGame *g, int id, CqlText *out)
{
    int ply;
    bool mainline;
    cql_game_position(g, id, &ply, &mainline);   /* makes g->by_id */
    char fen[FEN_MAX];
    size_t len = pos_to_fen(&g->by_id[id]->pos, fen);
    cql_text_append(out, fen, len);
}

void cql_game_write(const CqlGame *g, CqlText *out)
{
    StrBuf sb = text_in(out);
    pgn_write_game(&g->game, NULL, &sb);
    text_out(out, &sb);
}

bool cql_game_same(const CqlGame *a, const CqlGame *b)
{
    return game_same(&a->game, &b->game);
}

bool cql_fen_check(const char *fen, int *field, int *column, char *message, size_t size)
{
    library_init();
    Position pos;
    FenError err;
    if (pos_from_fen(&pos, fen, &err) == 0) return true;
    *field = err.field;
    *column = err.column;
    if (size) snprintf(message, size, "%s", err.message);
    return false;
}

/* }==== */

/* {==== searching ============================================================ */

CqlSearcher *cql_searcher_new(const CqlQuery *q)
{
    library_init();
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
    StrBuf sb = printed ? text_in(printed) : (StrBuf)SB_INIT;
    bool matched = search_matches(&s->query->search, s->eval, &g->game, g->tags_test_held == s->query,
                                  &s->arena, &s->found, printed ? &sb : NULL);
    if (printed) text_out(printed, &sb);
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
    DiagSink d = sink_for(m);
    search_report_unmatched_tags(&s->query->search, &s->tags, &d);
    count_messages(m, &d);
}

void cql_search_report_stop(const CqlSearcher *s, const CqlGame *g, CqlMessages *m)
{
    const Node *n = s->found.stopped_at;
    if (!n) return;
    const SourceText *src = &s->query->query->src;
    DiagSink d = sink_for(m);
    if (s->found.stop_reason) {
        diag_at(&d, src, n->span, DIAG_ERROR, "game %ld: %s", g->game.number, s->found.stop_reason);
        count_messages(m, &d);
        return;
    }
    int len = contexts_quote_length(n);
    diag_at(&d, src, n->span, DIAG_ERROR,
            "game %ld: '%.*s%s' has a value, not a match, and was evaluated as a position filter: the run stops "
            "here (as in CQL 6.2)",
            g->game.number, len, src->text + n->span.start, len < (int)(n->span.end - n->span.start) ? "..." : "");
    count_messages(m, &d);
}

bool cql_position_matched(const CqlSearcher *s, int id)
{
    return s->found.matched && s->found.matched[id];
}

void cql_write_match(CqlSearcher *s, const CqlGame *g, CqlText *out)
{
    StrBuf sb = text_in(out);
    search_write_game(&s->query->search, &g->game, &s->found, &s->arena, &sb);
    text_out(out, &sb);
}

void cql_searcher_print_persistent(const CqlSearcher *s, CqlText *out)
{
    StrBuf sb = text_in(out);
    eval_print_persistent(s->eval, &sb);
    text_out(out, &sb);
}

/* }==== */
