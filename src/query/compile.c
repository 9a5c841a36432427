/*
 * src/query/compile.c — from query text to a compiled Query (see compile.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "query/compile.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/strbuf.h"
#include "query/contexts.h"
#include "query/hhdb_keys.h"
#include "query/legacy/legacy.h"
#include "query/parser.h"
#include "query/sema.h"
#include "query/transform.h"

static Query *parse_text(const SourceText *src, bool body_only, DiagSink *diag);

static void collect_message(void *ctx, DiagSeverity sev, const char *text)
{
    (void)sev;
    sb_append((StrBuf *)ctx, text);
}

/* A CQL 1.0 file: its CQL 6 translation, compiled, with its spans pointed
 * back into the file. */
static Query *parse_cql1(const SourceText *src, DiagSink *diag)
{
    LegacyFile *f = legacy_read_file(src, diag);
    if (!f) return NULL;
    StrBuf name = SB_INIT, messages = SB_INIT;
    sb_printf(&name, "%s (its CQL 6 translation)", src->name ? src->name : "query.cql");
    size_t len;
    const char *text = legacy_cql6_text(f, &len);
    SourceText cql6 = {sb_str(&name), text, len, NULL, 0};
    DiagSink capture;
    diag_sink_init(&capture, collect_message, &messages);
    Query *q = parse_text(&cql6, false, &capture);
    if (q) legacy_point_back(f, src, q);
    else legacy_report_bad_translation(f, src, sb_str(&messages), diag);
    sb_free(&name);
    sb_free(&messages);
    legacy_file_free(f);
    return q;
}

/* Lexes, parses and types the text alone; a file whose first character
 * outside comments is '(' is CQL 1.0. */
static Query *parse_text(const SourceText *src, bool body_only, DiagSink *diag)
{
    if (src->len > QUERY_MAX_BYTES) {
        diag_plain(diag, DIAG_ERROR, "the query '%s' is longer than %u MB", src->name ? src->name : "query.cql",
                   QUERY_MAX_BYTES >> 20);
        return NULL;
    }
    if (!body_only && src->text && legacy_is_cql1(src->text, src->len)) return parse_cql1(src, diag);
    Query *q = xcalloc(1, sizeof *q);
    arena_init(&q->arena, 0);
    q->src.name = arena_strdup(&q->arena, src->name ? src->name : "query.cql");
    q->src.text = arena_strndup(&q->arena, src->text ? src->text : "", src->text ? src->len : 0);
    q->src.len = src->text ? src->len : 0;
    if (!parse_query(q, body_only, diag)) {
        query_free(q);
        return NULL;
    }
    return q;
}

/* The index in q->sort_keys of the key titled `title` (or of hhdb's),
 * added at the end when it is new. */
static uint32_t sort_key_index(Query *q, const char *title, bool min, bool hhdb)
{
    for (uint32_t i = 0; i < q->nsort_keys; i++) {
        const SortKey *k = &q->sort_keys[i];
        if (k->hhdb == hhdb && (hhdb || (k->title && title ? strcmp(k->title, title) == 0 : k->title == title)))
            return i;
    }
    if (q->nsort_keys == q->sort_keys_cap) {
        uint32_t cap = q->sort_keys_cap ? 2 * q->sort_keys_cap : 4;
        q->sort_keys = arena_realloc(&q->arena, q->sort_keys, q->sort_keys_cap * sizeof *q->sort_keys,
                                     cap * sizeof *q->sort_keys);
        q->sort_keys_cap = cap;
    }
    q->sort_keys[q->nsort_keys] = (SortKey){title, min, hhdb};
    return q->nsort_keys++;
}

/* Gives every `sort` filter under n the index of its key: the sort filters
 * with one title share a key (its direction is the first one's), and keys
 * are numbered in the order they first appear (CQL 6.2, cql62-fidelity-2.md
 * R9). Before the transform pass, so that images keep their key. */
static void number_sort_keys(Query *q, Node *n)
{
    if (!n) return;
    if (n->kind == ND_SORT) n->num = sort_key_index(q, n->text, (n->flags & NF_MIN) != 0, false);
    if (n->kind == ND_HHDB && n->num < 0 && (n->num2 & HHA_SORT)) sort_key_index(q, NULL, false, true);
    for (uint32_t i = 0; i < n->nkids; i++) number_sort_keys(q, n->kids[i]);
}

Query *query_compile(const SourceText *src, const CompileOptions *opt, DiagSink *diag)
{
    static const CompileOptions plain = {.body_only = false};
    if (!opt) opt = &plain;
    char *translated = NULL;   /* a CQL 1.0 file given a preamble: its CQL 6 text */
    SourceText cql6;
    if (opt->preamble && !opt->body_only && src->text && legacy_is_cql1(src->text, src->len)) {
        translated = legacy_translate(src, diag);
        if (!translated) return NULL;
        cql6 = (SourceText){src->name, translated, strlen(translated), NULL, 0};
        src = &cql6;
    }
    Query *q = parse_text(src, opt->body_only, diag);
    if (q && opt->preamble) {
        /* the preamble's filters go right after the header, before the body */
        size_t cut = q->header.span.end;
        StrBuf sb = SB_INIT;
        sb_append_n(&sb, src->text, cut);
        sb_printf(&sb, "\n%s\n", opt->preamble);
        sb_append_n(&sb, src->text + cut, src->len - cut);
        query_free(q);
        SourceText joined = {src->name, sb.data, sb.len, NULL, 0};
        q = parse_text(&joined, opt->body_only, diag);
        sb_free(&sb);
    }
    free(translated);
    if (!q) return NULL;
    /* a position order between values passes CQL 6.2's parser (the parse
     * oracle) but never runs: refused before anything is run or printed */
    if (opt->expand && !sema_check_position_orders(q, diag)) {
        query_free(q);
        return NULL;
    }
    number_sort_keys(q, q->body);
    /* value-only filters where only a match counts: flagged for the
     * evaluator, with a warning (contexts.h); for a run, not for -parse */
    if (opt->expand) contexts_mark(q, diag);
    /* the settings' transforms (-flip ...), each wrapping the whole body,
     * from the inside out in the order of their rows */
    for (size_t i = 0; opt->transforms && i < SETTING_COUNT; i++)
        if (setting_rows[i].transform >= 0 && settings_flag(opt->transforms, &setting_rows[i]))
            xf_wrap_body(q, (TokKind)setting_rows[i].transform);
    if (opt->expand && !xf_expand_query(q, diag)) {
        query_free(q);
        return NULL;
    }
    return q;
}

bool query_is_cql1(const char *text, size_t len)
{
    return text && legacy_is_cql1(text, len);
}

char *query_translate_cql1(const SourceText *src, DiagSink *diag)
{
    return legacy_translate(src, diag);
}

void query_free(Query *q)
{
    if (!q) return;
    arena_free(&q->arena);
    free(q);
}
