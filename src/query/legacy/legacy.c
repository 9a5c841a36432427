/*
 * src/query/legacy/legacy.c — the CQL 1.0 front end's entry points (see legacy.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "query/legacy/legacy.h"

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "query/legacy/legacy_lexer.h"
#include "query/legacy/legacy_parser.h"
#include "query/legacy/legacy_writer.h"

struct LegacyFile {
    LegacyTranslation t;
    Span whole;    /* the (match ...) list: the span of what has no piece of its own */
};

LegacyFile *legacy_read_file(const SourceText *src, DiagSink *diag)
{
    Arena a;
    arena_init(&a, 0);
    LegacyFile *f = NULL;
    LegacyItem *top = legacy_read(src, &a, diag);
    LegacyMatch *m = top ? legacy_parse(top, src, &a, diag) : NULL;
    if (m) {
        f = xcalloc(1, sizeof *f);
        f->whole = m->keyword;
        if (!legacy_write(m, src, diag, &f->t)) {
            free(f);
            f = NULL;
        }
    }
    arena_free(&a);
    return f;
}

void legacy_file_free(LegacyFile *f)
{
    if (!f) return;
    legacy_translation_free(&f->t);
    free(f);
}

const char *legacy_cql6_text(const LegacyFile *f, size_t *len)
{
    *len = f->t.text.len;
    return sb_str(&f->t.text);
}

char *legacy_translate(const SourceText *src, DiagSink *diag)
{
    LegacyFile *f = legacy_read_file(src, diag);
    if (!f) return NULL;
    char *text = sb_take(&f->t.text);
    legacy_file_free(f);
    return text;
}

/* {==== spans back into the CQL 1.0 file ========================================== */

static void point_back_node(const LegacyFile *f, Node *n)
{
    /* iterative over the first child, recursive over the others: a long
     * chain of `or` nests along kids[0] */
    while (n) {
        n->span = legacy_origin_of(&f->t, n->span, f->whole);
        Node *next = NULL;
        for (uint32_t i = 0; i < n->nkids; i++) {
            if (!n->kids[i]) continue;
            if (!next) next = n->kids[i];
            else point_back_node(f, n->kids[i]);
        }
        n = next;
    }
}

void legacy_point_back(const LegacyFile *f, const SourceText *src, Query *q)
{
    point_back_node(f, q->body);
    for (uint32_t i = 0; i < q->nvars; i++) q->vars[i].decl = legacy_origin_of(&f->t, q->vars[i].decl, f->whole);
    q->header.span = f->whole;
    q->src.name = arena_strdup(&q->arena, src->name ? src->name : "query.cql");
    q->src.text = arena_strndup(&q->arena, src->text ? src->text : "", src->text ? src->len : 0);
    q->src.len = src->text ? src->len : 0;
}

/* }==== */

void legacy_report_bad_translation(const LegacyFile *f, const SourceText *src, const char *messages,
                                   DiagSink *diag)
{
    diag_at(diag, src, f->whole, DIAG_ERROR,
            "cql could not compile its CQL 6 translation of this CQL 1.0 query (a bug; 'cql -translate' "
            "prints it):");
    diag_plain(diag, DIAG_NOTE, "%s", messages);
}
