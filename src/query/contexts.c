/*
 * src/query/contexts.c — value-only filters in position contexts (see
 * contexts.h). Which filters are value-only, and where their children
 * stand, are columns of their rows (filters.def: test and kids); they follow
 * CQL 6.2 (the chessql conformance vectors, cql62-chessql-vectors.tsv).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "query/contexts.h"

#include <stdbool.h>

#include "query/filters.h"

typedef struct Marker {
    Query *q;
    DiagSink *diag;
} Marker;

/* The filter's text for a message, cut at 40 bytes ("..." then follows). */
int contexts_quote_length(const Node *n)
{
    uint32_t len = n->span.end - n->span.start;
    return len > 40 ? 40 : (int)len;
}

static void warn(Marker *m, const Node *n, FilterTest test)
{
    const SourceText *src = &m->q->src;
    int len = contexts_quote_length(n);
    const char *more = len < (int)(n->span.end - n->span.start) ? "..." : "";
    if (test == TEST_NEVER)
        diag_at(m->diag, src, n->span, DIAG_WARNING,
                "'%.*s%s' has a value but is used as a position filter: there it never matches", len,
                src->text + n->span.start, more);
    else
        diag_at(m->diag, src, n->span, DIAG_WARNING,
                "%s '%.*s%s' has a value but is used as a position filter: the run stops with an error if it "
                "is evaluated (as in CQL 6.2)",
                filter_value_noun(n), len, src->text + n->span.start, more);
}

/* as_test: only whether n matches is used where it stands */
static void mark(Marker *m, Node *n, bool as_test)
{
    FilterTest test = as_test ? filter_test(n) : TEST_MATCH;
    if (test != TEST_MATCH && !(n->flags & NF_AS_POSITION)) {
        n->flags |= NF_AS_POSITION;
        /* a filter with its own error says so when it is evaluated */
        if (test != TEST_OWN_ERROR) warn(m, n, test);
    }
    for (uint32_t i = 0; i < n->nkids; i++)
        if (n->kids[i]) mark(m, n->kids[i], filter_kid_is_test(n, i, as_test));
}

void contexts_mark(Query *q, DiagSink *diag)
{
    Marker m = {q, diag};
    if (q->body) mark(&m, q->body, true);
}
