/*
 * src/lib/games.c — games in the library face: the PGN reader (whole
 * texts, or chunks split on any thread), game texts, games read into move
 * trees (pgn/reader.h), their positions and their PGN (pgn/writer.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess/position.h"
#include "chess/san.h"
#include "lib/lib_int.h"
#include "pgn/writer.h"

static CqlReader *new_reader(void)
{
    CqlReader *r = xcalloc(1, sizeof *r);
    diag_sink_init(&r->quiet, NULL, NULL);
    return r;
}

CqlReader *cql_reader_open(const char *path, CqlMessages *m)
{
    lib_init();
    CqlReader *r = new_reader();
    DiagSink d = lib_sink(m);
    int failed = pgn_open(&r->reader, path, &d);
    lib_count(m, &d);
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
    lib_init();
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
    DiagSink d = lib_sink(m);
    r->reader.diag = &d;
    bool got = pgn_next_raw(&r->reader, &t->raw);
    r->reader.diag = &r->quiet;
    lib_count(m, &d);
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
    DiagSink d = lib_sink(m);
    r->reader.diag = &d;
    PgnTake took = pgn_take_chunk(&r->reader, bytes < PGN_MAX_CHUNK / 4 ? bytes : PGN_MAX_CHUNK / 4, &c->chunk);
    r->reader.diag = &r->quiet;
    lib_count(m, &d);
    return took == PGN_TAKE_CHUNK ? CQL_TAKE_CHUNK : took == PGN_TAKE_END ? CQL_TAKE_END : CQL_TAKE_NO_CUT;
}

size_t cql_chunk_size(const CqlChunk *c)
{
    return c->chunk.cut == SIZE_MAX ? c->chunk.len : c->chunk.cut;
}

bool cql_chunk_next(CqlChunk *c, CqlGameText *t, CqlMessages *m)
{
    DiagSink d = lib_sink(m);
    bool got = pgn_chunk_next(&c->chunk, &t->raw, &d);
    lib_count(m, &d);
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
    lib_init();
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

CqlGameStatus lib_parse_game(CqlGame *g, CqlGameText *t, const char *file, CqlMessages *m,
                                const PgnGate *gate)
{
    arena_reset(&g->arena);
    g->by_id = NULL;
    g->alternative = NULL;
    g->branch = NULL;
    g->parses++;
    DiagSink d = lib_sink(m);
    PgnParseStatus st = pgn_parse_game_gated(&t->raw, file, &g->arena, &g->game, &d, gate);
    raw_game_trim(&t->raw);   /* the tree holds copies: a big game's text can go now */
    lib_count(m, &d);
    g->usable = st != PGN_UNUSABLE;
    return st == PGN_OK ? CQL_GAME_OK : st == PGN_DAMAGED ? CQL_GAME_DAMAGED : CQL_GAME_UNUSABLE;
}

CqlGameStatus cql_game_parse(CqlGame *g, CqlGameText *t, const char *file, CqlMessages *m)
{
    return lib_parse_game(g, t, file, m, NULL);
}

long cql_game_number(const CqlGame *g)
{
    return g->game.number;
}

int cql_game_positions(const CqlGame *g)
{
    return g->usable ? g->game.node_count : 0;
}

/* Makes g->by_id, and for a game with variations g->alternative and
 * g->branch, in one walk: a parent comes before its children. */
static void index_game(CqlGame *g)
{
    if (g->by_id) return;
    int count = g->game.node_count;
    const GameNode **by_id = ARENA_ARRAY(&g->arena, const GameNode *, count);
    uint32_t *alternative = g->game.has_variations ? ARENA_ARRAY(&g->arena, uint32_t, count) : NULL;
    int32_t *branch = alternative ? ARENA_ARRAY(&g->arena, int32_t, count) : NULL;
    for (const GameNode *n = g->game.root; n; n = game_walk_next(NULL, n, true)) {
        by_id[n->id] = n;
        if (!alternative) continue;
        uint32_t k = 0;
        for (const GameNode *c = n->child; c; c = c->sibling) alternative[c->id] = k++;
        branch[n->id] = n->parent && alternative[n->id] ? n->id : n->parent ? branch[n->parent->id] : -1;
    }
    g->by_id = by_id;
    g->alternative = alternative;
    g->branch = branch;
}

void cql_game_position(CqlGame *g, int id, int *ply, bool *mainline)
{
    index_game(g);
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

int cql_game_child(CqlGame *g, int id)
{
    index_game(g);
    const GameNode *c = g->by_id[id]->child;
    return c ? c->id : -1;
}

int cql_game_sibling(CqlGame *g, int id)
{
    index_game(g);
    const GameNode *s = g->by_id[id]->sibling;
    return s ? s->id : -1;
}

/* The SAN of the move into n, with + or # as the writer marks it. */
static size_t move_into(const GameNode *n, char out[SAN_MAX])
{
    static const char check_marks[] = {[NODE_NO_CHECK] = '\0', [NODE_IN_CHECK] = '+', [NODE_MATED] = '#'};
    if (!n->parent) {
        out[0] = '\0';
        return 0;
    }
    return san_write_marked(&n->parent->pos, n->move, check_marks[game_node_check(n)], out);
}

/* Appends the path of node id off the main line (CqlPosition.variation)
 * and its NUL: "PLY:K" for each alternative from the root to it. */
static void append_variation(const CqlGame *g, int id, CqlText *out)
{
    /* g->branch gives the alternatives innermost first: they are gathered,
     * then written from the outermost in */
    int32_t few[32], *path = few;
    size_t depth = 0, cap = sizeof few / sizeof few[0];
    for (int32_t at = g->branch ? g->branch[id] : -1; at >= 0; at = g->branch[g->by_id[at]->parent->id]) {
        if (depth == cap) {
            cap *= 2;
            path = path == few ? memcpy(xmalloc(cap * sizeof *path), few, sizeof few)
                               : xrealloc(path, cap * sizeof *path);
        }
        path[depth++] = at;
    }
    for (size_t k = depth; k-- > 0;)
        cql_text_printf(out, "%s%d:%u", k + 1 < depth ? "/" : "", (int)g->by_id[path[k]]->ply,
                        g->alternative[path[k]]);
    cql_text_append(out, "", 1);
    if (path != few) free(path);
}

void lib_describe_position(CqlGame *g, int id, CqlPosition *p, CqlText *strings)
{
    index_game(g);
    const GameNode *n = g->by_id[id];
    const Position *before = n->parent ? &n->parent->pos : &n->pos;
    bool moved = n->parent && move_kind(n->move) != MK_NULL;
    *p = (CqlPosition){.id = id, .ply = n->ply, .move_number = before->fullmove,
                       .white_to_move = n->pos.side == WHITE, .in_variation = !node_is_mainline(n),
                       .from = moved ? (int)move_from(n->move) : -1, .to = moved ? (int)move_to(n->move) : -1};
    char san[SAN_MAX];
    size_t len = move_into(n, san);
    san[len] = '\0';
    p->san = (const char *)(uintptr_t)strings->len;
    cql_text_append(strings, san, len + 1);
    p->fen = (const char *)(uintptr_t)strings->len;
    cql_game_fen(g, id, strings);
    cql_text_append(strings, "", 1);
    p->variation = (const char *)(uintptr_t)strings->len;
    append_variation(g, id, strings);
}

void cql_game_describe(CqlGame *g, int id, CqlPosition *p, CqlText *text)
{
    lib_describe_position(g, id, p, text);
    p->san = lib_text_pointer(p->san, text);
    p->fen = lib_text_pointer(p->fen, text);
    p->variation = lib_text_pointer(p->variation, text);
    p->comments = "";
}

void cql_game_write(const CqlGame *g, CqlText *out)
{
    StrBuf sb = lib_text_in(out);
    pgn_write_game(&g->game, NULL, &sb);
    lib_text_out(out, &sb);
}

bool cql_game_same(const CqlGame *a, const CqlGame *b)
{
    return game_same(&a->game, &b->game);
}

bool cql_fen_check(const char *fen, int *field, int *column, char *message, size_t size)
{
    lib_init();
    Position pos;
    FenError err;
    if (pos_from_fen(&pos, fen, &err) == 0) return true;
    *field = err.field;
    *column = err.column;
    if (size) snprintf(message, size, "%s", err.message);
    return false;
}
