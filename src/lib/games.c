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
