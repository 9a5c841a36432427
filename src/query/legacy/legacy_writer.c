/*
 * src/query/legacy/legacy_writer.c — the CQL 6 text of a CQL 1.0 match list (see
 * legacy_writer.h; the meaning of each keyword is in docs/cql1.md).
 *
 * The shape of the translation:
 *
 *   cql(input F output G [gamenumber ..] [result ..] [variations] [matchcount ..] [quiet])
 *   <match-list conditions: year, player>
 *   <one position list:   its filter, evaluated at every position>
 *   <several lists:       {L1 or L2 ...}  initialposition:{find quiet {L1} find quiet {L2} ...}>
 *
 * so a game matches when every position list matches some position of it,
 * and the positions where a list matched carry the match string. A list's
 * filter is `{c1 c2 ...}` (every condition holds), under the list's
 * transformations: CQL 6's own `flip`, `flipcolor`, `fliphorizontal` and
 * `flipvertical` where they mean the same, otherwise every image written out
 * (`{image1} or {image2} ...`, duplicates removed), because CQL 1.0 shifts
 * keep the squares on the trailing edge and CQL 6 shifts do not.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "query/legacy/legacy_writer.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/legacy/legacy_geometry.h"
#include "query/lexer.h"

/* {==== text with origins ============================================================ */

typedef LegacyTranslation Out;

static void out_free(Out *o)
{
    sb_free(&o->text);
    free(o->origins);
    memset(o, 0, sizeof *o);
}

static void out_begin(Out *o, Span from)
{
    if (o->norigins == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 64;
        o->origins = xrealloc(o->origins, o->cap * sizeof *o->origins);
    }
    uint32_t at = (uint32_t)o->text.len;
    o->origins[o->norigins] = (LegacyOrigin){at, at, from, o->open};
    o->open = (uint32_t)++o->norigins;
}

static void out_end(Out *o)
{
    LegacyOrigin *g = &o->origins[o->open - 1];
    g->end = (uint32_t)o->text.len;
    o->open = g->parent;
}

static void out_s(Out *o, const char *s)
{
    sb_append(&o->text, s);
}

static void out_f(Out *o, const char *fmt, ...) DIAG_PRINTF(2, 3);

static void out_f(Out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&o->text, fmt, ap);
    va_end(ap);
}

/* Appends src's text and origins to dst, inside dst's open piece. */
static void out_append(Out *dst, const Out *src)
{
    uint32_t base = (uint32_t)dst->text.len;
    uint32_t first = (uint32_t)dst->norigins;
    sb_append_n(&dst->text, sb_str(&src->text), src->text.len);
    for (size_t i = 0; i < src->norigins; i++) {
        if (dst->norigins == dst->cap) {
            dst->cap = dst->cap ? 2 * dst->cap : 64;
            dst->origins = xrealloc(dst->origins, dst->cap * sizeof *dst->origins);
        }
        LegacyOrigin g = src->origins[i];
        g.start += base;
        g.end += base;
        g.parent = g.parent ? g.parent + first : dst->open;
        dst->origins[dst->norigins++] = g;
    }
}

/* True when the text is one `{...}` compound (its first brace closes last). */
static bool is_braced(const Out *o)
{
    const char *s = sb_str(&o->text);
    size_t n = o->text.len;
    if (n < 2 || s[0] != '{' || s[n - 1] != '}') return false;
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\') i++;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        else if (c == '{') depth++;
        else if (c == '}' && --depth == 0 && i != n - 1) return false;
    }
    return true;
}

/* True when the text is one designator or keyword (`Ka1`, `mate`, `[Qq]a-h8`)
 * or one parenthesized expression: an operand as it stands. */
static bool is_atomic(const Out *o)
{
    const char *s = sb_str(&o->text);
    size_t n = o->text.len;
    if (n == 0) return false;
    if (s[0] == '(' && s[n - 1] == ')') {
        int depth = 0;
        for (size_t i = 0; i < n; i++) {
            if (s[i] == '(') depth++;
            else if (s[i] == ')' && --depth == 0 && i != n - 1) return false;
        }
        return true;
    }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                  c == '.' || c == '[' || c == ']' || c == ',' || c == '-';
        if (!ok) return false;
    }
    return true;
}

/* Appends src to dst inside braces, unless it is braced already or is one
 * operand. */
static void out_append_braced(Out *dst, const Out *src)
{
    bool braced = is_braced(src) || is_atomic(src);
    if (!braced) out_s(dst, "{");
    out_append(dst, src);
    if (!braced) out_s(dst, "}");
}

void legacy_translation_free(LegacyTranslation *t)
{
    out_free(t);
}

Span legacy_origin_of(const LegacyTranslation *t, Span range, Span fallback)
{
    /* the last piece starting at or before the range, then out to one holding it */
    size_t lo = 0, hi = t->norigins;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->origins[mid].start <= range.start) lo = mid + 1;
        else hi = mid;
    }
    uint32_t i = (uint32_t)lo;   /* index + 1 */
    while (i) {
        const LegacyOrigin *g = &t->origins[i - 1];
        if (g->start <= range.start && range.end <= g->end)
            return g->from;
        i = g->parent;
    }
    return fallback;
}

/* A small set of strings, for removing duplicate images. */
typedef struct TextSet {
    char **items;
    size_t n, cap;
} TextSet;

static uint64_t text_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

/* Adds s; false when it was there already. */
static bool textset_add(TextSet *t, const char *s, size_t len)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        char **items = xcalloc(cap, sizeof *items);
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->items[i]) continue;
            size_t j = text_hash(t->items[i], strlen(t->items[i])) & (cap - 1);
            while (items[j]) j = (j + 1) & (cap - 1);
            items[j] = t->items[i];
        }
        free(t->items);
        t->items = items;
        t->cap = cap;
    }
    size_t j = text_hash(s, len) & (t->cap - 1);
    for (; t->items[j]; j = (j + 1) & (t->cap - 1))
        if (strlen(t->items[j]) == len && memcmp(t->items[j], s, len) == 0) return false;
    char *copy = xmalloc(len + 1);
    memcpy(copy, s, len);
    copy[len] = '\0';
    t->items[j] = copy;
    t->n++;
    return true;
}

static void textset_free(TextSet *t)
{
    for (size_t i = 0; i < t->cap; i++) free(t->items[i]);
    free(t->items);
}

/* }==== */
/* {==== the writer's state ============================================================= */

#define MAX_NESTING 64

typedef struct LegacyWriter {
    const LegacyMatch *m;
    const SourceText *src;
    DiagSink *diag;
    bool variations;                             /* the header says `variations` */
    const LegacyTransform *stack[MAX_NESTING];   /* applied to what is written, innermost last */
    int depth;
    unsigned vars;                               /* generated variables so far */
    char **tag_names;                            /* CQL 6 name of each tag's piece variable */
    bool counting;                               /* writing images to count: no :sumrange */
    bool failed;
} LegacyWriter;

static void fail_too_large(LegacyWriter *w, Span at)
{
    if (w->failed) return;
    diag_at(w->diag, w->src, at, DIAG_ERROR,
            "the transformations of this list make a CQL 6 query of more than %u MB; use fewer transformation "
            "keywords in nested lists",
            LEGACY_MAX_TEXT >> 20);
    w->failed = true;
}

static void check_size(LegacyWriter *w, const Out *o, Span at)
{
    if (o->text.len > LEGACY_MAX_TEXT) fail_too_large(w, at);
}

static bool colour_swapped(const LegacyWriter *w)
{
    bool odd = false;
    for (int i = 0; i < w->depth; i++) odd ^= w->stack[i]->colour;
    return odd;
}

static bool axes_swapped(const LegacyWriter *w)
{
    bool odd = false;
    for (int i = 0; i < w->depth; i++) odd ^= legacy_swaps_axes(w->stack[i]);
    return odd;
}

/* A designator as transformed by the lists around it. */
typedef struct Mapped {
    uint16_t pieces;
    Bitboard squares;
    int32_t tag;
} Mapped;

static Mapped map_desig(const LegacyWriter *w, const LegacyDesig *d)
{
    Mapped m = {d->pieces, d->squares, d->tag};
    for (int i = w->depth - 1; i >= 0; i--) {
        m.squares = legacy_map_squares(w->stack[i], m.squares);
        if (m.tag < 0) m.pieces = legacy_map_pieces(w->stack[i], m.pieces);
    }
    return m;
}

/* }==== */
/* {==== designators ==================================================================== */

static void append_pieces(StrBuf *sb, uint16_t pieces)
{
    static const char white[] = "PNBRQK", black[] = "pnbrqk";
    char buf[16];
    int n = 0;
    if ((pieces & LEGACY_WHITE_PIECES) == LEGACY_WHITE_PIECES) buf[n++] = 'A';
    else
        for (int t = 1; t <= 6; t++)
            if (pieces & (1u << t)) buf[n++] = white[t - 1];
    if ((pieces & LEGACY_BLACK_PIECES) == LEGACY_BLACK_PIECES) buf[n++] = 'a';
    else
        for (int t = 1; t <= 6; t++)
            if (pieces & (1u << (t + 8))) buf[n++] = black[t - 1];
    if (pieces & LEGACY_EMPTY_SQUARE) buf[n++] = '_';
    if (n == 1) {
        sb_putc(sb, buf[0]);
    } else {
        sb_putc(sb, '[');
        sb_append_n(sb, buf, (size_t)n);
        sb_putc(sb, ']');
    }
}

static Bitboard rect(int f0, int f1, int r0, int r1)
{
    Bitboard b = 0;
    for (int f = f0; f <= f1; f++)
        for (int r = r0; r <= r1; r++) b |= sq_bb(make_square(f, r));
    return b;
}

/* The squares as file-range x rank-range parts, [a1-8,c4] style. */
static void append_squares(StrBuf *sb, Bitboard b)
{
    StrBuf parts = SB_INIT;
    int n = 0;
    while (b) {
        Square s = bb_lsb(b);
        int f0 = file_of(s), r0 = rank_of(s), f1 = f0, r1 = r0;
        while (f1 < 7 && (b & sq_bb(make_square(f1 + 1, r0)))) f1++;
        while (r1 < 7 && (b & rect(f0, f1, r1 + 1, r1 + 1)) == rect(f0, f1, r1 + 1, r1 + 1)) r1++;
        b &= ~rect(f0, f1, r0, r1);
        if (n++) sb_putc(&parts, ',');
        sb_putc(&parts, (char)('a' + f0));
        if (f1 != f0) sb_printf(&parts, "-%c", 'a' + f1);
        sb_putc(&parts, (char)('1' + r0));
        if (r1 != r0) sb_printf(&parts, "-%c", '1' + r1);
    }
    if (n > 1) sb_printf(sb, "[%s]", sb_str(&parts));
    else sb_append(sb, sb_str(&parts));
    sb_free(&parts);
}

/* A designator without a tag, as a CQL 6 set that can stand as an operand. */
static void append_plain(StrBuf *sb, uint16_t pieces, Bitboard squares)
{
    if (!pieces || !squares) {
        sb_append(sb, "(~.)");   /* no square: never matches, counts 0 */
        return;
    }
    if (pieces == LEGACY_ANY_CONTENT && squares == ALL_SQUARES_BB) {
        sb_append(sb, ".");
        return;
    }
    if (pieces != LEGACY_ANY_CONTENT) append_pieces(sb, pieces);
    if (squares != ALL_SQUARES_BB) append_squares(sb, squares);
}

static void append_mapped(const LegacyWriter *w, StrBuf *sb, const Mapped *m)
{
    if (m->tag < 0) {
        append_plain(sb, m->pieces, m->squares);
        return;
    }
    const char *name = w->tag_names[m->tag];
    if (m->squares == ALL_SQUARES_BB) sb_append(sb, name);
    else if (!m->squares) sb_append(sb, "(~.)");
    else {
        sb_printf(sb, "(%s & ", name);
        append_squares(sb, m->squares);
        sb_putc(sb, ')');
    }
}

/* Writes designator d, transformed, as an operand. */
static void write_desig(LegacyWriter *w, Out *o, const LegacyDesig *d)
{
    Mapped m = map_desig(w, d);
    out_begin(o, d->span);
    append_mapped(w, &o->text, &m);
    out_end(o);
}

/* }==== */
/* {==== ranges and counters ============================================================= */

static void write_bound(Out *o, int64_t v)
{
    out_f(o, "%" PRId64, v);
}

/* `E` in range r, E being the text of `expr`. */
static void write_in_range(Out *o, const Out *expr, const LegacyRange *r)
{
    if (r->lo > r->hi) {
        out_s(o, "false");
    } else if (r->lo == r->hi) {
        out_append(o, expr);
        out_s(o, " == ");
        write_bound(o, r->lo);
    } else if (r->lo == INT64_MIN && r->hi == INT64_MAX) {
        out_append(o, expr);
        out_s(o, " >= -2147483648");   /* has a value */
    } else if (r->lo == INT64_MIN) {
        out_append(o, expr);
        out_s(o, " <= ");
        write_bound(o, r->hi);
    } else if (r->hi == INT64_MAX) {
        out_append(o, expr);
        out_s(o, " >= ");
        write_bound(o, r->lo);
    } else {
        out_s(o, "{");
        out_append(o, expr);
        out_s(o, " >= ");
        write_bound(o, r->lo);
        out_s(o, " ");
        out_append(o, expr);
        out_s(o, " <= ");
        write_bound(o, r->hi);
        out_s(o, "}");
    }
}

/* `E` in r where E is plain text. */
static void write_text_in_range(Out *o, const char *expr, const LegacyRange *r)
{
    Out e;
    memset(&e, 0, sizeof e);
    out_s(&e, expr);
    write_in_range(o, &e, r);
    out_free(&e);
}

/* }==== */
/* {==== conditions ======================================================================= */

static void write_list(LegacyWriter *w, Out *o, const LegacyList *l);

/* A list's filter as one operand: `{...}`. A filter such as `flip {A}` or
 * `echo ...` must not stand bare before `or`: it would take the `or` in. */
static void write_list_braced(LegacyWriter *w, Out *o, const LegacyList *l)
{
    Out f;
    memset(&f, 0, sizeof f);
    write_list(w, &f, l);
    out_append_braced(o, &f);
    out_free(&f);
}

static const char *result_text(LegacyResult r, bool swapped)
{
    if (r == LRES_DRAW) return "1/2-1/2";
    return (r == LRES_WHITE_WINS) != swapped ? "1-0" : "0-1";
}

/* #(X -> Y) summed over the squares of Y, or its shortcut when X or Y is
 * one square (or one king). */
static void write_attackcount(LegacyWriter *w, Out *o, const LegacyCond *c)
{
    Mapped x = map_desig(w, &c->d[0]), y = map_desig(w, &c->d[1]);
    StrBuf xs = SB_INIT, ys = SB_INIT;
    append_mapped(w, &xs, &x);
    append_mapped(w, &ys, &y);
    bool y_one = y.tag >= 0 || bb_popcount(y.squares) <= 1 || y.pieces == (1u << W_KING) || y.pieces == (1u << B_KING);
    bool x_one = x.tag >= 0 || bb_popcount(x.squares) <= 1 || x.pieces == (1u << W_KING) || x.pieces == (1u << B_KING);
    Out e;
    memset(&e, 0, sizeof e);
    if (y_one || x_one) {
        if (y_one) out_f(&e, "#(%s -> %s)", sb_str(&xs), sb_str(&ys));
        else out_f(&e, "#(%s <- %s)", sb_str(&ys), sb_str(&xs));
        write_in_range(o, &e, &c->range);
    } else {
        unsigned k = ++w->vars;
        out_f(o, "{count_%u = 0  square all square_%u in %s {count_%u += #(%s -> square_%u)}  ", k, k, sb_str(&ys), k,
              sb_str(&xs), k);
        out_f(&e, "count_%u", k);
        write_in_range(o, &e, &c->range);
        out_s(o, "}");
    }
    out_free(&e);
    sb_free(&xs);
    sb_free(&ys);
}

/* :ray and its variants: `ray DIR (G1 ... Gk)` when any ray will do,
 * otherwise the rays counted from each start square (a ray is a start and
 * an end square). */
static void write_ray(LegacyWriter *w, Out *o, const LegacyCond *c)
{
    const char *dir = "";
    bool swap = axes_swapped(w);
    switch (c->ray) {
    case LR_ORTHOGONAL: dir = "orthogonal "; break;
    case LR_DIAGONAL: dir = "diagonal "; break;
    case LR_HORIZONTAL: dir = swap ? "vertical " : "horizontal "; break;
    case LR_VERTICAL: dir = swap ? "horizontal " : "vertical "; break;
    default: break;
    }
    StrBuf rest = SB_INIT, first = SB_INIT;
    Mapped g0 = map_desig(w, &c->desigs[0]);
    append_mapped(w, &first, &g0);
    for (uint32_t i = 1; i < c->ndesigs; i++) {
        Mapped g = map_desig(w, &c->desigs[i]);
        sb_putc(&rest, ' ');
        append_mapped(w, &rest, &g);
    }
    bool any = !c->has_range || (c->range.lo == 1 && c->range.hi == INT64_MAX);
    if (any) {
        if (c->ray == LR_ATTACK)
            out_f(o, "{ray orthogonal ((%s & [RrQq])%s) or ray diagonal ((%s & [BbQq])%s)}", sb_str(&first),
                  sb_str(&rest),
                  sb_str(&first), sb_str(&rest));
        else out_f(o, "ray %s(%s%s)", dir, sb_str(&first), sb_str(&rest));
    } else {
        unsigned k = ++w->vars;
        out_f(o, "{count_%u = 0  square all square_%u in %s {count_%u += ", k, k, sb_str(&first), k);
        if (c->ray == LR_ATTACK)
            out_f(o, "#ray orthogonal ((square_%u & [RrQq])%s) + #ray diagonal ((square_%u & [BbQq])%s)", k,
                  sb_str(&rest), k,
                  sb_str(&rest));
        else out_f(o, "#ray %s(square_%u%s)", dir, k, sb_str(&rest));
        out_s(o, "}  ");
        Out e;
        memset(&e, 0, sizeof e);
        out_f(&e, "count_%u", k);
        write_in_range(o, &e, &c->range);
        out_free(&e);
        out_s(o, "}");
    }
    sb_free(&first);
    sb_free(&rest);
}

/* power of the white pieces of D minus that of the black ones (the other
 * way round under a colour flip, as CQL 6's flipcolor does). */
static void write_powerdifference(LegacyWriter *w, Out *o, const LegacyCond *c)
{
    Mapped d = map_desig(w, &c->d[0]);
    StrBuf white = SB_INIT, black = SB_INIT;
    if (d.tag >= 0) {
        StrBuf t = SB_INIT;
        append_mapped(w, &t, &d);
        sb_printf(&white, "power (%s & A)", sb_str(&t));
        sb_printf(&black, "power (%s & a)", sb_str(&t));
        sb_free(&t);
    } else {
        uint16_t wp = d.pieces & LEGACY_WHITE_PIECES, bp = d.pieces & LEGACY_BLACK_PIECES;
        if (wp && d.squares) {
            sb_append(&white, "power ");
            append_plain(&white, wp, d.squares);
        } else sb_append(&white, "0");
        if (bp && d.squares) {
            sb_append(&black, "power ");
            append_plain(&black, bp, d.squares);
        } else sb_append(&black, "0");
    }
    Out e;
    memset(&e, 0, sizeof e);
    bool swapped = colour_swapped(w);
    out_f(&e, "%s - %s", swapped ? sb_str(&black) : sb_str(&white), swapped ? sb_str(&white) : sb_str(&black));
    write_in_range(o, &e, &c->range);
    out_free(&e);
    sb_free(&white);
    sb_free(&black);
}

static const char *guard_for(const LegacyWriter *w, LegacyWhere where)
{
    if (!w->variations) return NULL;
    if (where == LW_MAINLINE) return "mainline";
    if (where == LW_VARIATIONS_ONLY) return "variation";
    return NULL;
}

/* The squares of the list's designators, transformed (`:pattern`). */
static Bitboard pattern_squares(const LegacyWriter *w, const LegacyList *l)
{
    Bitboard b = 0;
    for (uint32_t i = 0; i < l->nconds; i++)
        if (l->conds[i].kind == LC_DESIG) b |= map_desig(w, &l->conds[i].d[0]).squares;
    return b;
}

/* True when the list's designators say exactly what stands on each of their
 * squares (one piece type, or the empty square, on one square each): then
 * "P2, transformed, agrees with P1 on those squares" is "some image of the
 * designators matches P2". Their pieces and squares go to pieces[] and
 * squares[] (at most 64). */
static bool exact_pattern(const LegacyWriter *w, const LegacyList *l, uint16_t *pieces, Square *squares, int *n)
{
    Bitboard seen = 0;
    *n = 0;
    for (uint32_t i = 0; i < l->nconds; i++) {
        if (l->conds[i].kind != LC_DESIG) continue;
        Mapped m = map_desig(w, &l->conds[i].d[0]);
        if (m.tag >= 0 || bb_popcount(m.squares) != 1 || (m.pieces & (m.pieces - 1)) || !m.pieces) return false;
        if (seen & m.squares) continue;   /* the same designator again */
        seen |= m.squares;
        pieces[*n] = m.pieces;
        squares[(*n)++] = bb_lsb(m.squares);
    }
    return *n > 0;
}

/* `right 2 up 1 SQ`: the squares at offset (dx, dy) from SQ. */
static void append_offset(StrBuf *sb, int dx, int dy, const char *from)
{
    if (dx) sb_printf(sb, "%s %d ", dx > 0 ? "right" : "left", dx > 0 ? dx : -dx);
    if (dy) sb_printf(sb, "%s %d ", dy > 0 ? "up" : "down", dy > 0 ? dy : -dy);
    sb_append(sb, from);
}

/* The exact pattern found anywhere on P2 (shifted, and flipped with
 * :flip): around each square x holding the first designator's piece, the
 * others at their offsets, turned by each flip. Written without a CQL 6
 * transform, so that a list with many images stays small. */
static void write_pattern_anywhere(Out *o, const uint16_t *pieces, const Square *squares, int n, bool flips, unsigned k)
{
    LegacyXform flip = LX_FLIP;
    size_t nflips = 1;
    LegacyTransform *set = flips ? legacy_transform_set(&flip, 1, 8, &nflips) : NULL;
    StrBuf anchor = SB_INIT;
    append_plain(&anchor, pieces[0], ALL_SQUARES_BB);
    char x[32];
    snprintf(x, sizeof x, "square_%u", k);
    TextSet seen = {0};
    StrBuf alternatives = SB_INIT;
    int count = 0;
    for (size_t f = 0; f < nflips; f++) {
        StrBuf one = SB_INIT;
        for (int i = 1; i < n; i++) {
            int dx = file_of(squares[i]) - file_of(squares[0]), dy = rank_of(squares[i]) - rank_of(squares[0]);
            if (set) {
                int fx = set[f].m[0][0] * dx + set[f].m[0][1] * dy, fy = set[f].m[1][0] * dx + set[f].m[1][1] * dy;
                dx = fx;
                dy = fy;
            }
            if (one.len) sb_putc(&one, ' ');
            append_plain(&one, pieces[i], ALL_SQUARES_BB);
            sb_append(&one, " & ");
            append_offset(&one, dx, dy, x);
        }
        if (textset_add(&seen, sb_str(&one), one.len)) {
            sb_printf(&alternatives, "%s{%s}", count++ ? " or " : "", sb_str(&one));
        }
        sb_free(&one);
    }
    if (n == 1) out_f(o, "  %s", sb_str(&anchor));
    else out_f(o, "  square %s in %s {%s}", x, sb_str(&anchor), sb_str(&alternatives));
    textset_free(&seen);
    sb_free(&alternatives);
    sb_free(&anchor);
    free(set);
}

static bool is_default_count(const LegacyDesig *d, const LegacyRange *r)
{
    return d->pieces == (LEGACY_WHITE_PIECES | LEGACY_BLACK_PIECES) && d->squares == ALL_SQUARES_BB && r->lo == 0 &&
           r->hi == 0;
}

/* :relation :shift / :flip: P1 compared with a transformed P2. What P1 holds
 * on each compared square is read into variables first, which no transform
 * changes; the comparison with P2's squares then runs under CQL 6's `shift`
 * and `flip` (an image that would move a compared square off the board is
 * not considered). */
static void write_transformed_comparison(LegacyWriter *w, Out *o, const LegacyList *l, const LegacyRelation *r,
                                         unsigned k,
                                         Bitboard allow, const char *missing, const char *added)
{
    const char *kw = r->shift && r->flip ? "shift flip" : r->shift ? "shift" : "flip";
    uint16_t pieces[64];
    Square squares[64];
    int n;
    if (r->pattern && exact_pattern(w, l, pieces, squares, &n) && is_default_count(&r->missing, &r->missing_range) &&
        is_default_count(&r->added, &r->added_range)) {
        if (r->shift) {
            write_pattern_anywhere(o, pieces, squares, n, r->flip, k);
        } else {
            out_f(o, "  %s {", kw);
            for (int i = 0; i < n; i++) {
                if (i) out_s(o, " ");
                append_plain(&o->text, pieces[i], sq_bb(squares[i]));
            }
            out_s(o, "}");
        }
        return;
    }
    StrBuf same = SB_INIT, miss = SB_INIT, add = SB_INIT;
    sb_append(&miss, "(0");
    sb_append(&add, "(0");
    for (Bitboard b = allow; b;) {
        char sq[3];
        sq_name(bb_pop_lsb(&b), sq);
        out_f(o, "  content_%u_%s = source_%u:(if _%s 0 else colortype %s)", k, sq, k, sq, sq);
        out_f(o, "  missing_%u_%s = source_%u:(if (%s & %s) 1 else 0)", k, sq, k, missing, sq);
        sb_printf(&same, " not {content_%u_%s != 0  (if _%s 0 else colortype %s) != 0  content_%u_%s != (if "
                         "_%s 0 else colortype %s)}",
                  k, sq, sq, sq, k, sq, sq, sq);
        sb_printf(&miss, " + (if {missing_%u_%s == 1  _%s} 1 else 0)", k, sq, sq);
        sb_printf(&add, " + (if {content_%u_%s == 0  (notransform %s) & %s} 1 else 0)", k, sq, added, sq);
    }
    sb_append(&miss, ")");
    sb_append(&add, ")");
    out_f(o, "  %s {%s  ", kw, sb_str(&same));
    write_text_in_range(o, sb_str(&miss), &r->missing_range);
    out_s(o, "  ");
    write_text_in_range(o, sb_str(&add), &r->added_range);
    out_s(o, "}");
    sb_free(&same);
    sb_free(&miss);
    sb_free(&add);
}

/* :relation: a later position P2 (echo's target) compared with this one. */
static void write_relation(LegacyWriter *w, Out *o, const LegacyList *l, const LegacyRelation *r)
{
    unsigned k = ++w->vars;
    Bitboard allowed = r->pattern ? pattern_squares(w, l) : ALL_SQUARES_BB;
    StrBuf allow = SB_INIT;
    if (r->pattern) {
        if (allowed == ALL_SQUARES_BB) sb_append(&allow, ". & ");
        else if (!allowed) sb_append(&allow, "(~.) & ");
        else {
            append_squares(&allow, allowed);
            sb_append(&allow, " & ");
        }
    }
    const char *a = sb_str(&allow);
    out_f(o, "echo quiet (source_%u target_%u) {source_%u [<] target_%u", k, k, k, k);
    const char *guard = guard_for(w, r->where);
    if (guard) out_f(o, "  %s", guard);
    if (r->side == LSTM_SAME) out_f(o, "  source_%u:sidetomove == sidetomove", k);
    else if (r->side == LSTM_CHANGE) out_f(o, "  source_%u:sidetomove != sidetomove", k);
    /* the designators of these two counts are not transformed */
    int saved = w->depth;
    w->depth = 0;
    Mapped missing = map_desig(w, &r->missing), added = map_desig(w, &r->added);
    w->depth = saved;
    StrBuf ms = SB_INIT, as = SB_INIT;
    append_mapped(w, &ms, &missing);
    append_mapped(w, &as, &added);
    StrBuf e = SB_INIT;
    if (r->shift || r->flip) {
        write_transformed_comparison(w, o, l, r, k, allowed, sb_str(&ms), sb_str(&as));
    } else {
        /* a square occupied in both positions holds the same piece */
        out_f(o, "  (%ssource_%u:[Aa] & [Aa]) in (source_%u & target_%u)", a, k, k, k);
        sb_printf(&e, "#(%ssource_%u:%s & _)", a, k, sb_str(&ms));
        out_s(o, "  ");
        write_text_in_range(o, sb_str(&e), &r->missing_range);
        sb_clear(&e);
        sb_printf(&e, "#(%ssource_%u:_ & %s)", a, k, sb_str(&as));
        out_s(o, "  ");
        write_text_in_range(o, sb_str(&e), &r->added_range);
    }
    if (r->has_different) {
        sb_clear(&e);
        sb_printf(&e, "#(%s~(source_%u & target_%u))", a, k, k);
        out_s(o, "  ");
        write_text_in_range(o, sb_str(&e), &r->different);
    }
    if (r->has_same) {
        sb_clear(&e);
        sb_printf(&e, "#(%s(source_%u & target_%u) & [Aa])", a, k, k);
        out_s(o, "  ");
        write_text_in_range(o, sb_str(&e), &r->same);
    }
    out_s(o, "}");
    sb_free(&e);
    sb_free(&ms);
    sb_free(&as);
    sb_free(&allow);
}

/* :sequence: consecutive positions along the line played (the first
 * continuation when variations are searched), `line --> L1 --> L2 ...`.
 * :gappedsequence: the lists at increasing positions; on the main line that
 * is `find quiet {L1 child:find quiet {L2 ...}}` (the first position where
 * L1 holds with the rest after it will do; quiet: CQL 1.0 marks no position
 * found), which CQL evaluates in linear time;
 * with variations, `line --> .* --> L1 --> .* --> L2 ...` along the first
 * continuations. */
static void write_sequence(LegacyWriter *w, Out *o, const LegacyCond *c)
{
    if (c->nlists == 0) {
        out_s(o, "true");
        return;
    }
    if (c->kind == LC_GAPPEDSEQUENCE && !w->variations) {
        for (uint32_t i = 0; i < c->nlists; i++) {
            out_s(o, i ? " child:find quiet {" : "find quiet {");
            write_list(w, o, c->lists[i]);
        }
        for (uint32_t i = 0; i < c->nlists; i++) out_s(o, "}");
        return;
    }
    out_s(o, w->variations ? "{line primary" : "{line");
    for (uint32_t i = 0; i < c->nlists; i++) {
        if (c->kind == LC_GAPPEDSEQUENCE) out_s(o, " --> .*");
        out_s(o, " --> ");
        write_list_braced(w, o, c->lists[i]);
    }
    out_s(o, "}");
}

static void write_accumulator(LegacyWriter *w, Out *o, const char *name);

static void write_cond(LegacyWriter *w, Out *o, const LegacyList *l, const LegacyCond *c)
{
    bool swapped = colour_swapped(w);
    Out e;
    memset(&e, 0, sizeof e);
    StrBuf t = SB_INIT;
    out_begin(o, c->span);
    switch (c->kind) {
    case LC_DESIG: {
        Mapped m = map_desig(w, &c->d[0]);
        append_mapped(w, &o->text, &m);
        break;
    }
    case LC_MATE: out_s(o, "mate"); break;
    case LC_STALEMATE: out_s(o, "stalemate"); break;
    case LC_CHECK: out_s(o, "check"); break;
    case LC_NOCHECK: out_s(o, "not check"); break;
    case LC_WTM: out_s(o, swapped ? "btm" : "wtm"); break;
    case LC_BTM: out_s(o, swapped ? "wtm" : "btm"); break;
    case LC_INITIAL: out_s(o, "initial"); break;
    case LC_PIECECOUNT:
    case LC_POWER:
        out_s(&e, c->kind == LC_PIECECOUNT ? "#" : "power ");
        write_desig(w, &e, &c->d[0]);
        write_in_range(o, &e, &c->range);
        break;
    case LC_POWERDIFFERENCE: write_powerdifference(w, o, c); break;
    case LC_ATTACKCOUNT: write_attackcount(w, o, c); break;
    case LC_RAY: write_ray(w, o, c); break;
    case LC_NOENPASSANT: out_s(o, w->variations ? "not move primary enpassant" : "not move enpassant"); break;
    case LC_MOVENUMBER: write_text_in_range(o, "movenumber", &c->range); break;
    case LC_AND:
    case LC_OR:
        if (c->nlists == 0) {
            out_s(o, c->kind == LC_AND ? "true" : "false");
            break;
        }
        out_s(o, "{");
        for (uint32_t i = 0; i < c->nlists; i++) {
            if (i) out_s(o, c->kind == LC_AND ? " " : " or ");
            write_list_braced(w, o, c->lists[i]);
        }
        out_s(o, "}");
        break;
    case LC_SEQUENCE:
    case LC_GAPPEDSEQUENCE: write_sequence(w, o, c); break;
    case LC_ELO:
        out_s(o, "{");
        write_text_in_range(o, "elo white", &c->range);
        out_s(o, " or ");
        write_text_in_range(o, "elo black", &c->range);
        out_s(o, "}");
        break;
    case LC_WHITEELO:
    case LC_BLACKELO:
        write_text_in_range(o, (c->kind == LC_WHITEELO) != swapped ? "elo white" : "elo black", &c->range);
        break;
    case LC_RESULT: out_f(o, "result %s", result_text(c->result, swapped)); break;
    case LC_RELATION: write_relation(w, o, l, c->relation); break;
    case LC_TAGMATCH: {
        Mapped m = map_desig(w, &c->d[0]);
        append_plain(&t, m.pieces, m.squares);
        out_f(o, "(%s & %s)", w->tag_names[c->tag], sb_str(&t));
        break;
    }
    case LC_SUMRANGE:
        write_accumulator(w, &e, c->name);
        write_in_range(o, &e, &c->range);
        break;
    case LC_MOVEFROM:
    case LC_MOVETO:
    case LC_PROMOTE:
    case LC_ENPASSANT: break;   /* written together, by write_move */
    }
    out_end(o);
    out_free(&e);
    sb_free(&t);
}

static bool is_move_cond(LegacyCondKind k)
{
    return k == LC_MOVEFROM || k == LC_MOVETO || k == LC_PROMOTE || k == LC_ENPASSANT;
}

/* The designators of one role of the next move (from, to), intersected:
 * the plain ones merged into one, the tags kept as terms. */
typedef struct MoveSide {
    bool any;            /* some designator was given */
    bool merged;         /* `plain` holds the plain designators' intersection */
    Mapped plain;
    StrBuf tags;         /* " & tag" terms */
} MoveSide;

static void side_add(const LegacyWriter *w, MoveSide *s, const Mapped *m)
{
    s->any = true;
    if (m->tag >= 0) {
        sb_append(&s->tags, " & ");
        append_mapped(w, &s->tags, m);
        return;
    }
    if (!s->merged) {
        s->plain = *m;
        s->merged = true;
    } else {
        s->plain.pieces &= m->pieces;
        s->plain.squares &= m->squares;
    }
}

/* The text of one side, or false when it can never hold. */
static bool side_text(const LegacyWriter *w, const MoveSide *s, uint16_t pieces_also, StrBuf *out)
{
    Mapped plain = s->plain;
    bool merged = s->merged;
    if (pieces_also) {
        if (merged) plain.pieces &= pieces_also;
        else plain = (Mapped){pieces_also, ALL_SQUARES_BB, -1};
        merged = true;
    }
    if (merged && (!plain.pieces || !plain.squares)) return false;
    StrBuf body = SB_INIT;
    if (merged) append_mapped(w, &body, &plain);
    if (s->tags.len) sb_append(&body, merged ? sb_str(&s->tags) : sb_str(&s->tags) + 3);
    if (merged && !s->tags.len) sb_append(out, sb_str(&body));
    else sb_printf(out, "(%s)", sb_str(&body));
    sb_free(&body);
    return true;
}

/* The promotion types (bit t: PieceType t) of one move filter, and the pawn
 * that must make it (0: either). */
typedef struct PromotionMove {
    unsigned types;
    uint16_t pawn;
} PromotionMove;

/* :movefrom :moveto :promote :enpassant of one list: one move of the game
 * from this position satisfies them all. A promotion's colour is its
 * pawn's (CQL 6's `promote` ignores colour). */
static void write_move(LegacyWriter *w, Out *o, const LegacyList *l)
{
    MoveSide from = {0}, to = {0};
    from.tags = to.tags = (StrBuf)SB_INIT;
    bool promotes = false, enpassant = false;
    Mapped promo = {LEGACY_ANY_CONTENT, ALL_SQUARES_BB, -1};
    const LegacyCond *first = NULL;
    for (uint32_t i = 0; i < l->nconds; i++) {
        const LegacyCond *c = &l->conds[i];
        if (!is_move_cond(c->kind)) continue;
        if (!first) first = c;
        Mapped m = c->kind == LC_ENPASSANT ? (Mapped){0, 0, -1} : map_desig(w, &c->d[0]);
        switch (c->kind) {
        case LC_MOVEFROM: side_add(w, &from, &m); break;
        case LC_MOVETO: side_add(w, &to, &m); break;
        case LC_PROMOTE:
            promotes = true;
            if (m.tag >= 0) {   /* the tagged piece is the promoting pawn */
                Mapped any = {LEGACY_ANY_CONTENT, m.squares, -1};
                Mapped tag = {0, ALL_SQUARES_BB, m.tag};
                side_add(w, &from, &tag);
                side_add(w, &to, &any);
            } else {
                promo.pieces &= m.pieces;
                promo.squares &= m.squares;
            }
            break;
        case LC_ENPASSANT: enpassant = true; break;
        default: break;
        }
    }
    if (!first) return;
    out_begin(o, first->span);
    static const uint16_t promotable_white = (1u << W_QUEEN) | (1u << W_ROOK) | (1u << W_BISHOP) | (1u << W_KNIGHT);
    static const uint16_t promotable_black = promotable_white << 8;
    unsigned white_types = 0, black_types = 0;   /* bit t: PieceType t */
    if (promotes) {
        if (promo.squares != ALL_SQUARES_BB) {
            Mapped sq = {LEGACY_ANY_CONTENT, promo.squares, -1};
            side_add(w, &to, &sq);
        }
        for (int t = KNIGHT; t <= QUEEN; t++) {
            if (promo.pieces & promotable_white & (1u << t)) white_types |= 1u << t;
            if (promo.pieces & promotable_black & (1u << (t + 8))) black_types |= 1u << t;
        }
    }
    /* one move filter per pawn colour when the colours promote to different types */
    PromotionMove moves[2];
    int nmoves = 0;
    if (!promotes) moves[nmoves++] = (PromotionMove){0, 0};
    else if (white_types == black_types) {
        if (white_types) moves[nmoves++] = (PromotionMove){white_types, 0};
    } else {
        if (white_types) moves[nmoves++] = (PromotionMove){white_types, 1u << W_PAWN};
        if (black_types) moves[nmoves++] = (PromotionMove){black_types, 1u << B_PAWN};
    }
    StrBuf text = SB_INIT;
    int written = 0;
    for (int i = 0; i < nmoves; i++) {
        StrBuf f = SB_INIT, t = SB_INIT;
        bool ok = true;
        if (from.any || moves[i].pawn) ok = side_text(w, &from, moves[i].pawn, &f);
        if (ok && to.any) ok = side_text(w, &to, 0, &t);
        if (ok) {
            if (written++) sb_append(&text, "} or {");
            sb_append(&text, "move");
            if (f.len) sb_printf(&text, " from %s", sb_str(&f));
            if (t.len) sb_printf(&text, " to %s", sb_str(&t));
            if (moves[i].types) {
                static const char letters[] = "?NBRQ";
                char buf[8];
                int n = 0;
                for (int ty = KNIGHT; ty <= QUEEN; ty++)
                    if (moves[i].types & (1u << ty)) buf[n++] = letters[ty - PAWN];
                buf[n] = '\0';
                sb_printf(&text, n == 1 ? " promote %s" : " promote [%s]", buf);
            }
            if (enpassant) sb_append(&text, " enpassant");
            if (w->variations) sb_append(&text, " primary");   /* the move played next on this line */
        }
        sb_free(&f);
        sb_free(&t);
    }
    if (!written) out_s(o, "false");
    else if (written == 1) out_s(o, sb_str(&text));
    else out_f(o, "{{%s}}", sb_str(&text));
    out_end(o);
    sb_free(&text);
    sb_free(&from.tags);
    sb_free(&to.tags);
}

/* }==== */
/* {==== lists ============================================================================= */

static bool list_has_relation(const LegacyList *l)
{
    for (uint32_t i = 0; i < l->nconds; i++) {
        const LegacyCond *c = &l->conds[i];
        if (c->kind == LC_RELATION) return true;
        for (uint32_t j = 0; j < c->nlists; j++)
            if (list_has_relation(c->lists[j])) return true;
    }
    return false;
}

static bool is_simple_cond(const LegacyCond *c)
{
    switch (c->kind) {
    case LC_DESIG: case LC_MATE: case LC_STALEMATE: case LC_CHECK: case LC_WTM: case LC_BTM: case LC_INITIAL:
        return true;
    default:
        return false;
    }
}

/* The list's conditions, all of which must hold: `{c1 c2 ...}`. */
static void write_core(LegacyWriter *w, Out *o, const LegacyList *l)
{
    uint32_t n = 0, moves = 0;
    const LegacyCond *only = NULL;
    for (uint32_t i = 0; i < l->nconds; i++) {
        if (is_move_cond(l->conds[i].kind)) moves++;
        else if (!(w->counting && l->conds[i].kind == LC_SUMRANGE)) n++, only = &l->conds[i];
    }
    if (n + (moves ? 1 : 0) == 0) {
        out_s(o, "true");
        return;
    }
    if (n + (moves ? 1 : 0) == 1) {
        /* one condition: braces only when it needs them to stand alone */
        Out one;
        memset(&one, 0, sizeof one);
        if (moves) write_move(w, &one, l);
        else write_cond(w, &one, l, only);
        if (is_braced(&one) || is_atomic(&one) || (!moves && is_simple_cond(only))) out_append(o, &one);
        else out_append_braced(o, &one);
        out_free(&one);
        return;
    }
    out_s(o, "{");
    bool sep = false;
    for (uint32_t i = 0; i < l->nconds; i++) {
        if (is_move_cond(l->conds[i].kind)) continue;
        if (w->counting && l->conds[i].kind == LC_SUMRANGE) continue;
        if (sep) out_s(o, " ");
        write_cond(w, o, l, &l->conds[i]);
        sep = true;
    }
    if (moves) {
        if (sep) out_s(o, " ");
        write_move(w, o, l);
    }
    out_s(o, "}");
}


/* True when the image being written can never match: a designator of the
 * list, a piece count that must be positive, or a move designator has lost
 * every square (CQL 1.0 keeps such images; as a member of `or` they add
 * nothing). */
static bool image_is_dead(const LegacyWriter *w, const LegacyList *l)
{
    for (uint32_t i = 0; i < l->nconds; i++) {
        const LegacyCond *c = &l->conds[i];
        bool positive = c->kind == LC_DESIG || c->kind == LC_MOVEFROM || c->kind == LC_MOVETO ||
                        c->kind == LC_PROMOTE ||
                        ((c->kind == LC_PIECECOUNT || c->kind == LC_POWER) && c->range.lo > 0);
        if (!positive) continue;
        Mapped m = map_desig(w, &c->d[0]);
        if (!m.squares || (m.tag < 0 && !m.pieces)) return true;
    }
    return false;
}

/* The distinct images of the list's conditions under its transformations
 * (the identity first); each is a malloc'd Out in *images. With drop_dead,
 * images that can never match are left out. */
static Out *collect_images(LegacyWriter *w, const LegacyList *l, bool drop_dead, size_t *nimages)
{
    size_t ntransforms = 0;
    LegacyTransform *set = legacy_transform_set(l->xforms, l->nxforms, 1000000, &ntransforms);
    *nimages = 0;
    if (!set || w->depth == MAX_NESTING) {
        diag_at(w->diag, w->src, l->nxforms ? l->xform_spans[0] : l->span, DIAG_ERROR,
                set ? "position lists with transformations are nested too deeply"
                    : "these transformation keywords make more than a million transformations");
        w->failed = true;
        free(set);
        return NULL;
    }
    Out *images = NULL;
    size_t n = 0, cap = 0, bytes = 0;
    TextSet seen = {0};
    for (size_t i = 0; i < ntransforms && !w->failed; i++) {
        Out img;
        memset(&img, 0, sizeof img);
        w->stack[w->depth++] = &set[i];
        bool dead = drop_dead && image_is_dead(w, l);
        if (!dead) write_core(w, &img, l);
        w->depth--;
        if (dead) continue;
        if (!textset_add(&seen, sb_str(&img.text), img.text.len)) {
            out_free(&img);
            continue;
        }
        bytes += img.text.len;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            images = xrealloc(images, cap * sizeof *images);
        }
        images[n++] = img;
        if (bytes > LEGACY_MAX_TEXT) fail_too_large(w, l->nxforms ? l->xform_spans[0] : l->span);
    }
    textset_free(&seen);
    free(set);
    *nimages = n;
    return images;
}

static void free_images(Out *images, size_t n)
{
    for (size_t i = 0; i < n; i++) out_free(&images[i]);
    free(images);
}

/* Long chains are written in groups of at most this many, nested, so that
 * the syntax tree of the translation stays shallow. */
#define CHAIN_GROUP 64

/* `{A} or {B} or ...` over parts[0, n), each braced. */
static void write_or_chain(Out *o, const Out *parts, size_t n, bool outer_braces)
{
    if (outer_braces) out_s(o, "{");
    if (n <= CHAIN_GROUP) {
        for (size_t i = 0; i < n; i++) {
            if (i) out_s(o, "\n   or ");
            out_append_braced(o, &parts[i]);
        }
    } else {
        size_t step = CHAIN_GROUP;
        while ((n + step - 1) / step > CHAIN_GROUP) step *= CHAIN_GROUP;
        for (size_t i = 0; i < n; i += step) {
            if (i) out_s(o, "\n   or ");
            write_or_chain(o, parts + i, n - i < step ? n - i : step, true);
        }
    }
    if (outer_braces) out_s(o, "}");
}

/* `(0 + A + B ...)` over parts[0, n). */
static void write_sum(Out *o, const Out *parts, size_t n)
{
    out_s(o, "(0");
    if (n <= CHAIN_GROUP) {
        for (size_t i = 0; i < n; i++) {
            out_s(o, " + ");
            out_append(o, &parts[i]);
        }
    } else {
        size_t step = CHAIN_GROUP;
        while ((n + step - 1) / step > CHAIN_GROUP) step *= CHAIN_GROUP;
        for (size_t i = 0; i < n; i += step) {
            out_s(o, " + ");
            write_sum(o, parts + i, n - i < step ? n - i : step);
        }
    }
    out_s(o, ")");
}

/* Can CQL 6's own transform keywords say this list's transformations? */
static bool plain_flips(const LegacyWriter *w, const LegacyList *l)
{
    if (w->depth > 0 || l->has_pretransform || l->naccumulate || list_has_relation(l)) return false;
    for (uint32_t i = 0; i < l->nxforms; i++)
        if (!legacy_xform_is_plain_flip(l->xforms[i])) return false;
    return true;
}

static bool has_sumrange(const LegacyList *l)
{
    for (uint32_t i = 0; i < l->nconds; i++)
        if (l->conds[i].kind == LC_SUMRANGE) return true;
    return false;
}

/* The filter of a position list: some image of its conditions holds
 * (negated with :not). */
static void write_list(LegacyWriter *w, Out *o, const LegacyList *l)
{
    if (w->failed) return;
    out_begin(o, l->span);
    if (l->negated) out_s(o, "not ");
    if (l->naccumulate && has_sumrange(l)) {
        /* the list's images are counted into the accumulator, and the
         * :sumrange tests decide */
        out_s(o, "{");
        bool sep = false;
        for (uint32_t i = 0; i < l->nconds; i++) {
            if (l->conds[i].kind != LC_SUMRANGE) continue;
            if (sep) out_s(o, " ");
            write_cond(w, o, l, &l->conds[i]);
            sep = true;
        }
        out_s(o, "}");
    } else if (l->nxforms == 0) {
        write_core(w, o, l);
    } else if (plain_flips(w, l)) {
        static const char *const names[] = {"flip", "flipcolor", "fliphorizontal", "flipvertical"};
        for (uint32_t i = 0; i < l->nxforms; i++) {
            out_begin(o, l->xform_spans[i]);
            out_s(o, names[l->xforms[i]]);
            out_end(o);
            out_s(o, " ");
        }
        Out core;
        memset(&core, 0, sizeof core);
        write_core(w, &core, l);
        out_append_braced(o, &core);
        out_free(&core);
    } else {
        size_t n;
        Out *images = collect_images(w, l, true, &n);
        if (n == 0) out_s(o, "false");
        else if (n == 1) out_append(o, &images[0]);
        else if (n > 1) write_or_chain(o, images, n, true);
        free_images(images, n);
        check_size(w, o, l->span);
    }
    out_end(o);
}

/* The number of distinct images of list l that hold here:
 * `0 + (if I1 1 else 0) + ...`. */
static void write_image_count(LegacyWriter *w, Out *o, const LegacyList *l)
{
    size_t n;
    Out *images = collect_images(w, l, !l->negated, &n);
    Out *terms = xcalloc(n ? n : 1, sizeof *terms);
    for (size_t i = 0; i < n; i++) {
        out_s(&terms[i], "(if ");
        if (l->negated) out_s(&terms[i], "not ");
        out_append_braced(&terms[i], &images[i]);
        out_s(&terms[i], " 1 else 0)");
    }
    write_sum(o, terms, n);
    free_images(terms, n);
    free_images(images, n);
}

/* An accumulator's value here: the images of every list accumulating into
 * it that hold at this position. */
static void write_accumulator(LegacyWriter *w, Out *o, const char *name)
{
    out_s(o, "(0");
    for (uint32_t i = 0; i < w->m->nlists; i++) {
        const LegacyList *l = w->m->lists[i];
        for (uint32_t j = 0; j < l->naccumulate; j++)
            if (strcmp(l->accumulate[j], name) == 0) {
                out_s(o, " + ");
                int saved = w->depth;
                bool was_counting = w->counting;
                w->depth = 0;
                w->counting = true;
                write_image_count(w, o, l);
                w->depth = saved;
                w->counting = was_counting;
                break;
            }
    }
    out_s(o, ")");
}

/* }==== */
/* {==== the match list =================================================================== */

static void write_quoted(Out *o, const char *s)
{
    out_s(o, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') out_f(o, "\\%c", *s);
        else sb_putc(&o->text, *s);
    }
    out_s(o, "\"");
}

static bool is_identifier(const char *s)
{
    Lexer lx;
    lex_init(&lx, s, 0, (uint32_t)strlen(s));
    Token t = lex_next(&lx);
    return t.kind == TK_IDENT && t.len == strlen(s);
}

/* A list's filter with its guard (mainline / variation): `{mainline F}`;
 * braced as one operand when `braced`. */
static void write_guarded(LegacyWriter *w, Out *o, const LegacyList *l, bool braced)
{
    const char *guard = guard_for(w, l->where);
    if (guard) {
        out_f(o, "{%s ", guard);
        write_list(w, o, l);
        out_s(o, "}");
    } else if (braced) {
        write_list_braced(w, o, l);
    } else {
        write_list(w, o, l);
    }
}

static bool range_has_zero(const LegacyRange *r)
{
    return r->lo <= 0 && r->hi >= 0;
}

/* `the number of positions from here where X holds lies in r`, with X the text of x. */
static void write_find_count(Out *o, const Out *x, const LegacyRange *r)
{
    int64_t lo = r->lo < 0 ? 0 : r->lo, hi = r->hi;
    if (hi < lo) {
        out_s(o, "false");
    } else if (lo >= 1) {
        out_f(o, "find quiet %" PRId64 " %" PRId64 " ", lo, hi == INT64_MAX ? (int64_t)INT32_MAX : hi);
        out_append_braced(o, x);
    } else if (hi == INT64_MAX) {
        out_s(o, "true");
    } else {
        out_f(o, "not find quiet %" PRId64 " %" PRId64 " ", hi + 1, (int64_t)INT32_MAX);
        out_append_braced(o, x);
    }
}

/* The condition a list puts on the whole game, evaluated at its initial
 * position: it matches some position (or as many as :matchcount says). */
static void write_game_condition(LegacyWriter *w, Out *o, const LegacyList *l)
{
    if (l->has_pretransform) {
        /* some single transformation matches as many positions as it says */
        size_t n;
        Out *images = collect_images(w, l, false, &n);
        const char *guard = guard_for(w, l->where);
        Out *parts = xcalloc(n ? n : 1, sizeof *parts);
        for (size_t i = 0; i < n; i++) {
            Out x;
            memset(&x, 0, sizeof x);
            out_s(&x, "{");
            if (guard) out_f(&x, "%s ", guard);
            if (l->negated) out_s(&x, "not ");
            out_append_braced(&x, &images[i]);
            out_s(&x, "}");
            write_find_count(&parts[i], &x, &l->pretransform);
            out_free(&x);
        }
        out_begin(o, l->span);
        if (n == 0) out_s(o, "false");
        else write_or_chain(o, parts, n, true);
        out_end(o);
        free_images(parts, n);
        free_images(images, n);
        return;
    }
    Out x;
    memset(&x, 0, sizeof x);
    write_guarded(w, &x, l, true);
    if (l->has_matchcount) write_find_count(o, &x, &l->matchcount);
    else {
        out_s(o, "find quiet ");
        out_append_braced(o, &x);
    }
    out_free(&x);
}

static bool simple_game(const LegacyMatch *m)
{
    if (m->nlists != 1 || m->ntags) return false;
    const LegacyList *l = m->lists[0];
    if (l->has_pretransform) return false;
    if (l->has_matchcount && (l->matchcount.lo < 0 || l->matchcount.hi < l->matchcount.lo)) return false;
    return true;
}

static bool any_variations(const LegacyList *l)
{
    if (l->top && l->where != LW_MAINLINE) return true;
    for (uint32_t i = 0; i < l->nconds; i++) {
        const LegacyCond *c = &l->conds[i];
        if (c->kind == LC_RELATION && c->relation->where != LW_MAINLINE) return true;
        for (uint32_t j = 0; j < c->nlists; j++)
            if (any_variations(c->lists[j])) return true;
    }
    return false;
}

/* Several lists (or tags): the positions marked, then the game conditions. */
static void write_general_body(LegacyWriter *w, Out *o)
{
    const LegacyMatch *m = w->m;
    /* the marked positions: where an annotating list matches */
    Out mark;
    memset(&mark, 0, sizeof mark);
    bool all_may_be_absent = true;
    int annotating = 0;
    for (uint32_t i = 0; i < m->nlists; i++) {
        const LegacyList *l = m->lists[i];
        if (l->noannotate) continue;
        if (annotating++) out_s(&mark, " or ");
        write_guarded(w, &mark, l, true);
        bool may_be_absent = l->has_pretransform ? range_has_zero(&l->pretransform)
                             : l->has_matchcount ? range_has_zero(&l->matchcount) : false;
        if (!may_be_absent) all_may_be_absent = false;
    }
    if (!annotating) out_s(&mark, "initial");
    else if (all_may_be_absent) {
        Out with_initial;
        memset(&with_initial, 0, sizeof with_initial);
        out_s(&with_initial, "initial or ");
        out_append(&with_initial, &mark);
        out_free(&mark);
        mark = with_initial;
    }

    Out conds;
    memset(&conds, 0, sizeof conds);
    for (uint32_t i = 0; i < m->nlists; i++) {
        out_s(&conds, "\n  ");
        write_game_condition(w, &conds, m->lists[i]);
    }

    if (!m->ntags) {
        /* worked out once, at the initial position (visited first; variables
         * keep their values from position to position within a game) */
        out_s(o, "// every position list matches some position of the game\n"
                 "{not initial or all_lists_match = (if {");
        out_append(o, &conds);
        out_s(o, "} 1 else 0)}\n");
        out_append_braced(o, &mark);
        out_s(o, "\nall_lists_match == 1\n");
    } else {
        /* tags: pieces of the initial position, bound once for the whole game */
        out_s(o, "position_here = currentposition\n// each tag is a piece of the initial position, of its type "
                 "now or later\ninitialposition:{");
        char **types = xcalloc(m->ntags, sizeof *types);
        for (uint32_t t = 0; t < m->ntags; t++) {
            const LegacyTag *tag = &m->tags[t];
            uint16_t domain = tag->pieces & (LEGACY_WHITE_PIECES | LEGACY_BLACK_PIECES);
            uint16_t promoted = (1u << W_QUEEN) | (1u << W_ROOK) | (1u << W_BISHOP) | (1u << W_KNIGHT);
            if (domain & promoted) domain |= 1u << W_PAWN;
            if (domain & (promoted << 8)) domain |= 1u << B_PAWN;
            StrBuf d = SB_INIT, ty = SB_INIT;
            append_plain(&d, domain, ALL_SQUARES_BB);
            append_plain(&ty, tag->pieces & (LEGACY_WHITE_PIECES | LEGACY_BLACK_PIECES), ALL_SQUARES_BB);
            out_f(o, "\n%*spiece %s in %s {", (int)(2 * t), "", w->tag_names[t], sb_str(&d));
            for (uint32_t u = 0; u < t; u++) out_f(o, "pieceid %s != pieceid %s  ", w->tag_names[t], w->tag_names[u]);
            types[t] = sb_take(&ty);
            sb_free(&d);
        }
        /* the cheap test first: does a list match here, with these pieces? */
        out_s(o, "\n  position_here:");
        out_append_braced(o, &mark);
        for (uint32_t t = 0; t < m->ntags; t++) {
            out_f(o, "\n  find quiet {%s & %s}", w->tag_names[t], types[t]);
            free(types[t]);
        }
        free(types);
        out_append(o, &conds);
        for (uint32_t t = 0; t < m->ntags; t++) out_s(o, "}");
        out_s(o, "}\n");
    }
    out_free(&mark);
    out_free(&conds);
}

static void write_header(LegacyWriter *w, Out *o, bool simple)
{
    const LegacyMatch *m = w->m;
    out_begin(o, m->keyword);
    out_s(o, "cql(");
    const char *sep = "";
    if (m->pgn) {
        out_s(o, "input ");
        write_quoted(o, m->pgn);
        sep = " ";
    }
    if (m->output) {
        out_f(o, "%soutput ", sep);
        write_quoted(o, m->output);
        sep = " ";
    }
    if (m->has_gamenumber && m->gamenumber.lo <= m->gamenumber.hi) {
        int64_t lo = m->gamenumber.lo < 1 ? 1 : m->gamenumber.lo;
        int64_t hi = m->gamenumber.hi == INT64_MAX ? (int64_t)INT32_MAX : m->gamenumber.hi;
        out_f(o, "%sgamenumber %" PRId64 " %" PRId64, sep, lo, hi);
        sep = " ";
    }
    if (m->result != LRES_NONE) {
        out_f(o, "%sresult %s", sep, result_text(m->result, false));
        sep = " ";
    }
    if (w->variations) {
        out_f(o, "%svariations", sep);
        sep = " ";
    }
    if (simple) {
        const LegacyList *l = m->lists[0];
        if (l->has_matchcount) {
            int64_t hi = l->matchcount.hi == INT64_MAX ? (int64_t)INT32_MAX : l->matchcount.hi;
            out_f(o, "%smatchcount %" PRId64 " %" PRId64, sep, l->matchcount.lo < 0 ? 0 : l->matchcount.lo, hi);
            sep = " ";
        }
    }
    bool annotating = m->nlists == 0;   /* no list: every position, as (position) */
    for (uint32_t i = 0; i < m->nlists; i++) annotating |= !m->lists[i]->noannotate;
    if (!annotating) out_f(o, "%squiet", sep);
    out_s(o, ")\n");
    out_end(o);
}

/* Comment text: the file name with control characters shown as '?'. */
static void write_comment_name(Out *o, const char *name)
{
    for (const char *s = name; *s; s++) sb_putc(&o->text, (unsigned char)*s < 0x20 ? '?' : *s);
}

bool legacy_write(const LegacyMatch *m, const SourceText *src, DiagSink *diag, LegacyTranslation *out)
{
    memset(out, 0, sizeof *out);
    LegacyWriter w;
    memset(&w, 0, sizeof w);
    w.m = m;
    w.src = src;
    w.diag = diag;
    for (uint32_t i = 0; i < m->nlists; i++) w.variations |= any_variations(m->lists[i]);
    w.tag_names = xcalloc(m->ntags ? m->ntags : 1, sizeof *w.tag_names);
    for (uint32_t i = 0; i < m->ntags; i++) {
        StrBuf n = SB_INIT;
        if (!is_identifier(m->tags[i].name)) sb_append(&n, "tag_");
        sb_append(&n, m->tags[i].name);
        w.tag_names[i] = sb_take(&n);
    }
    Out *o = out;
    out_begin(o, m->span);
    out_s(o, "// CQL 6 translation of the CQL 1.0 query ");
    write_comment_name(o, src->name ? src->name : "query.cql");
    out_s(o, "\n");
    bool simple = simple_game(m);
    write_header(&w, o, simple);
    for (uint32_t i = 0; i < m->nplayers; i++) {
        out_begin(o, m->player_spans[i]);
        StrBuf lower = SB_INIT;
        for (const char *s = m->players[i]; *s; s++) sb_putc(&lower, (char)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s));
        out_s(o, "{");
        write_quoted(o, sb_str(&lower));
        out_s(o, " in lowercase player white or ");
        write_quoted(o, sb_str(&lower));
        out_s(o, " in lowercase player black}\n");
        sb_free(&lower);
        out_end(o);
    }
    if (m->has_year) {
        out_begin(o, m->year.span);
        write_text_in_range(o, "year", &m->year);
        out_s(o, "\n");
        out_end(o);
    }
    if (m->has_gamenumber && m->gamenumber.lo > m->gamenumber.hi) out_s(o, "false  // the game number range is "
                                                                           "empty\n");
    if (m->nlists == 0) {
        out_s(o, "true\n");   /* like (position): every position */
    } else if (simple) {
        write_guarded(&w, o, m->lists[0], false);
        out_s(o, "\n");
    } else {
        write_general_body(&w, o);
    }
    out_end(o);
    for (uint32_t i = 0; i < m->ntags; i++) free(w.tag_names[i]);
    free(w.tag_names);
    if (w.failed) {
        out_free(out);
        return false;
    }
    return true;
}

/* }==== */
