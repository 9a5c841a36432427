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
#include "query/print.h"
#include "query/sema.h"
#include "query/transform.h"

static Query *parse_text(const SourceText *src, const QueryFilter *filters, size_t nfilters, bool body_only,
                         DiagSink *diag);

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
    Query *q = parse_text(&cql6, NULL, 0, false, &capture);
    if (q) legacy_point_back(f, src, q);
    else legacy_report_bad_translation(f, src, sb_str(&messages), diag);
    sb_free(&name);
    sb_free(&messages);
    legacy_file_free(f);
    return q;
}

/* {==== the query's text and its filters' =================================== */

/* Appends filter f's text to text, each $N replaced by the N-th value: a
 * string value as the CQL string that stands for it, bound to its place in
 * q->values; a word value as it is, its place in words[*nwords]. */
static void append_filter(Query *q, StrBuf *text, const QueryFilter *f, LexValue *words, uint32_t *nwords)
{
    for (const char *c = f->text; *c; c++) {
        unsigned k = c[0] == '$' && c[1] >= '1' && c[1] <= '9' ? (unsigned)(c[1] - '1') : FILTER_MAX_VALUES;
        if (k >= f->nvalues) {
            sb_putc(text, *c);
            continue;
        }
        const FilterValue *v = &f->values[k];
        uint32_t start = (uint32_t)text->len;
        if (v->kind == FV_STRING) {
            print_string(text, v->text, strlen(v->text));
            q->values[q->nvalues++] = (LexValue){start, (uint32_t)text->len, arena_strdup(&q->arena, v->text)};
        } else {
            sb_append(text, v->text);
            words[(*nwords)++] = (LexValue){start, (uint32_t)text->len, NULL};
        }
        c++;
    }
}

/* True when text[place] lexes as one word in its part: a name, a keyword, a
 * whole number or a minus and one, its first token beginning and its last
 * ending where the place does. */
static bool is_one_word(const Query *q, const SourcePart *part, LexValue place)
{
    Lexer lx;
    ast_lexer_init(&lx, q, part->start, part->end);
    TokKind kinds[2];
    int n = 0;
    for (Token t = lex_next(&lx); t.kind != TK_EOF && t.start < place.end; t = lex_next(&lx)) {
        if (t.start + t.len <= place.start) continue;
        if (n == 2 || (n == 0 && t.start != place.start) || t.start + t.len > place.end) return false;
        kinds[n++] = t.kind;
    }
    if (n == 1) return kinds[0] == TK_INT || kinds[0] == TK_IDENT || tok_class(kinds[0]) == TC_KEYWORD;
    return n == 2 && kinds[0] == TK_MINUS && kinds[1] == TK_INT;
}

/* A new query holding src's text and then, each after a line end (so that
 * no token runs from one into the next), each filter's text with its
 * values in place: a part of q->src each, named by the filter (a filter
 * with values, which no one wrote as it stands, without lines and
 * columns). Checks that each word value is one word where it stands. */
static Query *new_query(const SourceText *src, const QueryFilter *filters, size_t nfilters, DiagSink *diag)
{
    Query *q = xcalloc(1, sizeof *q);
    /* small for a small query: a run of 2,000 one-line queries held 64 KB
     * chunks of 2-3 KB used each, 130 MB in all */
    arena_init_growing(&q->arena, (size_t)4 << 10, (size_t)64 << 10);
    const char *name = arena_strdup(&q->arena, src->name ? src->name : "query.cql");
    size_t len = src->text ? src->len : 0;
    if (!nfilters) {
        q->src = (SourceText){name, arena_strndup(&q->arena, src->text ? src->text : "", len), len, NULL, 0};
        return q;
    }
    StrBuf text = SB_INIT;
    sb_reserve(&text, len);
    if (len) sb_append_n(&text, src->text, len);
    uint32_t nvalues = 0;
    for (size_t i = 0; i < nfilters; i++) nvalues += filters[i].nvalues;
    SourcePart *parts = arena_alloc(&q->arena, (nfilters + 1) * sizeof *parts);
    q->values = arena_alloc(&q->arena, (nvalues ? nvalues : 1) * sizeof *q->values);
    LexValue *words = xmalloc((nvalues ? nvalues : 1) * sizeof *words);
    uint32_t *word_part = xmalloc((nvalues ? nvalues : 1) * sizeof *word_part);
    uint32_t nwords = 0;
    parts[0] = (SourcePart){name, 0, (uint32_t)text.len, false};
    for (size_t i = 0; i < nfilters; i++) {
        sb_putc(&text, '\n');
        uint32_t start = (uint32_t)text.len, first_word = nwords;
        append_filter(q, &text, &filters[i], words, &nwords);
        for (uint32_t w = first_word; w < nwords; w++) word_part[w] = (uint32_t)i + 1;
        parts[i + 1] = (SourcePart){arena_strdup(&q->arena, filters[i].name), start, (uint32_t)text.len,
                                    filters[i].nvalues > 0};
    }
    q->src = (SourceText){name, arena_strndup(&q->arena, text.data, text.len), text.len, parts,
                          (uint32_t)nfilters + 1};
    sb_free(&text);
    bool ok = true;
    for (uint32_t w = 0; ok && w < nwords; w++) {
        if (is_one_word(q, &parts[word_part[w]], words[w])) continue;
        diag_at(diag, &q->src, (Span){words[w].start, words[w].end}, DIAG_ERROR,
                "expected one word here (a name or a whole number), found '%.*s'",
                (int)(words[w].end - words[w].start), q->src.text + words[w].start);
        ok = false;
    }
    free(words);
    free(word_part);
    if (ok) return q;
    query_free(q);
    return NULL;
}

/* Lexes, parses and types the text alone, or with filters before its body;
 * a file whose first character outside comments is '(' is CQL 1.0. */
static Query *parse_text(const SourceText *src, const QueryFilter *filters, size_t nfilters, bool body_only,
                         DiagSink *diag)
{
    size_t len = src->text ? src->len : 0;
    for (size_t i = 0; i < nfilters; i++) {
        len += 1 + strlen(filters[i].text);
        for (uint32_t k = 0; k < filters[i].nvalues; k++) len += 2 + 2 * strlen(filters[i].values[k].text);
    }
    if (len > QUERY_MAX_BYTES) {
        diag_plain(diag, DIAG_ERROR, "the query '%s' is longer than %u MB", src->name ? src->name : "query.cql",
                   QUERY_MAX_BYTES >> 20);
        return NULL;
    }
    if (!body_only && !nfilters && src->text && legacy_is_cql1(src->text, src->len)) return parse_cql1(src, diag);
    Query *q = new_query(src, filters, nfilters, diag);
    if (q && !parse_query(q, body_only, diag)) {
        query_free(q);
        return NULL;
    }
    return q;
}

/* }==== */

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
    char *translated = NULL;   /* a CQL 1.0 file given filters: its CQL 6 text */
    SourceText cql6;
    if (opt->nfilters && !opt->body_only && src->text && legacy_is_cql1(src->text, src->len)) {
        translated = legacy_translate(src, diag);
        if (!translated) return NULL;
        cql6 = (SourceText){src->name, translated, strlen(translated), NULL, 0};
        src = &cql6;
    }
    Query *q = parse_text(src, opt->filters, opt->nfilters, opt->body_only, diag);
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
