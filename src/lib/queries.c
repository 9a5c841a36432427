/*
 * src/lib/queries.c — queries in the library face: compiling (the query
 * front end, query/compile.h, and the settings of the search,
 * eval/search.h), what a compiled query says about its run, printing, and
 * its tokens as its own lexer reads them (for colouring, query/print.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lib_int.h"
#include "query/hhdb_keys.h"
#include "query/print.h"
#include "query/transform.h"

_Static_assert(CQL_QUERY_MAX_BYTES == QUERY_MAX_BYTES, "cql.h and compile.h disagree on the longest query");

CqlQuery *cql_compile(const char *text, size_t len, const CqlSettings *settings, CqlCompileStage stage,
                      CqlMessages *m)
{
    lib_init();
    Settings given = settings ? *lib_settings(settings) : (Settings){0};
    /* the setting preamble, then the filters added, each a source of its own */
    size_t nadded = 0;
    const QueryFilter *added = settings ? lib_filters(settings, &nadded) : NULL;
    QueryFilter *filters = xmalloc((nadded + 1) * sizeof *filters);
    size_t nfilters = 0;
    if (given.preamble) filters[nfilters++] = (QueryFilter){"preamble", given.preamble, NULL, 0};
    for (size_t i = 0; i < nadded; i++) filters[nfilters++] = added[i];
    CompileOptions opt = {.body_only = given.body_only, .filters = filters, .nfilters = nfilters,
                          .transforms = &given, .expand = stage != CQL_COMPILE_PARSE};
    SourceText src = {given.name, text, len, NULL, 0};
    DiagSink d = lib_sink(m);
    Query *q = query_compile(&src, &opt, &d);
    free(filters);
    if (q && stage == CQL_COMPILE_RUN && !eval_check_supported(q, &d)) {
        query_free(q);
        q = NULL;
    }
    lib_count(m, &d);
    if (!q) return NULL;
    /* the query keeps the texts of its settings */
    for (size_t i = 0; i < SETTING_COUNT; i++) {
        const char *t = settings_text(&given, &setting_rows[i]);
        if (t) settings_set_text(&given, &setting_rows[i], arena_strdup(&q->arena, t));
    }
    CqlQuery *cq = xcalloc(1, sizeof *cq);
    cq->query = q;
    search_init(&cq->search, &given, q);
    if (stage == CQL_COMPILE_RUN && !eval_check_settings(q, &cq->search.eval, &d)) {
        lib_count(m, &d);
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
    SourceText src = {name, text, len, NULL, 0};
    DiagSink d = lib_sink(m);
    char *cql6 = query_translate_cql1(&src, &d);
    lib_count(m, &d);
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
    DiagSink d = lib_sink(m);
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!fp) {
        diag_plain(&d, DIAG_ERROR, "cannot open query file '%s': %s", path, strerror(errno));
        lib_count(m, &d);
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
        lib_count(m, &d);
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
    DiagSink d = lib_sink(m);
    StrBuf sb = lib_text_in(printed);
    bool ok = submissions_read(&q->submissions, q->query, &sb, &d);
    lib_text_out(printed, &sb);
    lib_count(m, &d);
    q->search.eval.submissions = &q->submissions;
    return ok;
}

/* {==== the query's tokens ================================================== */

static CqlTokenKind token_kind(TokKind kind, bool header)
{
    switch (kind) {
    case TK_EOF: return CQL_TOKEN_SPACE;
    case TK_COMMENT_TEXT: return CQL_TOKEN_COMMENT;
    case TK_INT: return CQL_TOKEN_NUMBER;
    case TK_STRING: case TK_ESCAPE: return CQL_TOKEN_STRING;
    case TK_IDENT: return header ? CQL_TOKEN_KEYWORD : CQL_TOKEN_NAME;
    case TK_DESIGNATOR: case TK_PIECEVAR: return CQL_TOKEN_PIECE;
    case TK_COMMENT_FILTER: return CQL_TOKEN_KEYWORD;
    case TK_QUANT: return CQL_TOKEN_OPERATOR;
    case TK_LPAREN: case TK_RPAREN: case TK_LBRACE: case TK_RBRACE: case TK_LBRACKET: case TK_RBRACKET:
        return CQL_TOKEN_BRACKET;
    case TK_ERROR: return CQL_TOKEN_OTHER;
    default: return tok_class(kind) == TC_KEYWORD ? CQL_TOKEN_KEYWORD : CQL_TOKEN_OPERATOR;
    }
}

typedef struct TokenCall {
    CqlTokenFn fn;
    void *ctx;
} TokenCall;

static void call_with_token(void *ctx, TokKind kind, bool header, const char *text, size_t len)
{
    TokenCall *c = ctx;
    c->fn(c->ctx, token_kind(kind, header), text, len);
}

void cql_query_tokens(const CqlQuery *q, CqlTokenFn fn, void *ctx)
{
    TokenCall c = {fn, ctx};
    print_pieces(q->query, call_with_token, &c);
}

/* }==== */

void cql_query_print(const CqlQuery *q, CqlPrint what, CqlText *out)
{
    StrBuf sb = lib_text_in(out);
    switch (what) {
    case CQL_PRINT_TREE: print_tree(q->query, &sb); break;
    case CQL_PRINT_ASCII: print_source(q->query, false, &sb); break;
    case CQL_PRINT_UNICODE: print_source(q->query, true, &sb); break;
    case CQL_PRINT_ORBITS: xf_write_orbits(q->query, &sb); break;
    }
    lib_text_out(out, &sb);
}

static bool same_string(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_header(const QueryHeader *a, const QueryHeader *b)
{
    return a->present == b->present && same_string(a->input, b->input) && same_string(a->output, b->output) &&
           settings_equal(&a->values, &b->values);
}

bool cql_query_equal(const CqlQuery *a, const CqlQuery *b)
{
    return ast_equal(a->query->body, b->query->body) && same_header(&a->query->header, &b->query->header);
}
