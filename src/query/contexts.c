/*
 * src/query/contexts.c — value-only filters in position contexts (see
 * contexts.h). Which filters are value-only follows CQL 6.2 (the chessql
 * conformance vectors, cql62-chessql-vectors.tsv): `2`, `"a"`, `-2`, `\1`,
 * `x` (a number or a string), `"a" + "b"`, `#"str"`, `str(...)`,
 * `max(...)`, `min(...)`, `abs`, `sqrt`, `distance`, `lca`,
 * `position & position`, `fen` (without a pattern), `piecename`, `typename`, `type`,
 * `positionid`, `currenttransform`, `readfile` and `player` without a colour
 * stop CQL 6.2; `ply`, `movenumber`, `power`, `#Q`, `2 + 3`, `colortype`,
 * `ascii`, `int`, `indexof`, tags and `player white` match there.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "query/contexts.h"

#include <stdbool.h>

#include "query/filters.h"

bool contexts_never_matches(const Node *n)
{
    return n->kind == ND_LOWERCASE || n->kind == ND_UPPERCASE;
}

static bool value_only(const Node *n)
{
    switch (n->kind) {
    case ND_INT:
    case ND_STRING:
    case ND_ESCAPE:
    case ND_MINMAX:
    case ND_ABS:
    case ND_SQRT:
    case ND_DISTANCE:
    case ND_LCA:
    case ND_PIECENAME:
    case ND_TYPENAME:
    case ND_TYPE:
    case ND_STR:
    case ND_POSITIONID:
    /* currenttransform, readfile, lastgamenumber and the string keys of hhdb
     * stop the run with CQL 6.2's own messages for them (eval/program.c,
     * eval_value_discarded) */
    case ND_NEGATE:   /* -2, and -x like abs x */
    case ND_LOWERCASE:
    case ND_UPPERCASE:
        return true;
    case ND_FEN:
        return !n->kids[0];   /* `fen "..."` is a test of the position */
    case ND_VAR:
        return n->type == VT_NUMBER || n->type == VT_STRING;
    case ND_ARITH:
        return n->type == VT_STRING;
    case ND_COUNT:
        return n->kids[0] && n->kids[0]->type == VT_STRING;
    case ND_INTERSECT:
        return n->kids[0] && n->kids[0]->type == VT_POSITION;
    case ND_PLAYER:
        return !(n->flags & (NF_WHITE | NF_BLACK)) && !n->kids[0];
    default:
        return false;
    }
}

typedef struct Marker {
    Query *q;
    DiagSink *diag;
} Marker;

static const char *what(const Node *n)
{
    switch (n->kind) {
    case ND_INT:
    case ND_NEGATE: return "the number";
    case ND_STRING:
    case ND_ESCAPE: return "the string";
    case ND_VAR: return n->type == VT_NUMBER ? "the numeric variable" : "the string variable";
    default: return "the value-only filter";
    }
}

/* The filter's text for a message, cut at 40 bytes ("..." then follows). */
int contexts_quote_length(const Node *n)
{
    uint32_t len = n->span.end - n->span.start;
    return len > 40 ? 40 : (int)len;
}

static void mark(Marker *m, Node *n, bool as_position);

static void mark_kids(Marker *m, Node *n, uint32_t from, bool as_position)
{
    for (uint32_t i = from; i < n->nkids; i++)
        if (n->kids[i]) mark(m, n->kids[i], as_position);
}

/* as_position: only whether n matches is used where it stands */
static void mark(Marker *m, Node *n, bool as_position)
{
    if (as_position && value_only(n) && !(n->flags & NF_AS_POSITION)) {
        n->flags |= NF_AS_POSITION;
        const SourceText *src = &m->q->src;
        int len = contexts_quote_length(n);
        const char *more = len < (int)(n->span.end - n->span.start) ? "..." : "";
        if (contexts_never_matches(n))
            diag_at(m->diag, src, n->span, DIAG_WARNING,
                    "'%.*s%s' has a value but is used as a position filter: there it never matches", len,
                    src->text + n->span.start, more);
        else
            diag_at(m->diag, src, n->span, DIAG_WARNING,
                    "%s '%.*s%s' has a value but is used as a position filter: the run stops with an error if it "
                    "is evaluated (as in CQL 6.2)",
                    what(n), len, src->text + n->span.start, more);
    }
    switch (n->kind) {
    case ND_COMPOUND:
        for (uint32_t i = 0; i < n->nkids; i++)
            if (n->kids[i]) mark(m, n->kids[i], i + 1 < n->nkids || as_position);
        return;
    case ND_PAREN:
    case ND_NOTRANSFORM:
    case ND_TRANSFORM:
    case ND_PARAM:
    case ND_ECHO:
        mark_kids(m, n, 0, as_position);
        return;
    case ND_CALL:
        if (n->kids[0]) mark(m, n->kids[0], as_position);
        mark_kids(m, n, 1, false);
        return;
    case ND_AND:
    case ND_OR:
    case ND_NOT:
    case ND_WHILE:
    case ND_LOOP:
    case ND_LINE:
    case ND_PATH:
    case ND_GROUP:
    case ND_REPEAT:
    case ND_ASSERT:   /* assert asks whether its filter matches */
        mark_kids(m, n, 0, true);
        return;
    case ND_IF:
        mark(m, n->kids[0], true);
        mark_kids(m, n, 1, as_position);
        return;
    case ND_FIND:
        if (n->kids[0]) mark(m, n->kids[0], true);
        mark_kids(m, n, 1, false);
        return;
    case ND_SQUARE_ITER:
        if (n->kids[0]) mark(m, n->kids[0], false);
        mark_kids(m, n, 1, true);
        return;
    case ND_DASH:
        for (uint32_t i = 0; i < n->nkids; i++)
            if (n->kids[i]) mark(m, n->kids[i], i == 3);
        return;
    case ND_COLON:
        if (n->kids[0]) mark(m, n->kids[0], false);
        mark_kids(m, n, 1, as_position);
        return;
    default:
        mark_kids(m, n, 0, false);
        return;
    }
}

void contexts_mark(Query *q, DiagSink *diag)
{
    Marker m = {q, diag};
    if (q->body) mark(&m, q->body, true);
}
