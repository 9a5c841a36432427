/*
 * src/query/legacy/legacy_geometry.c — flips, colour swaps and edge-rule shifts of
 * CQL 1.0 designators (see legacy_geometry.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "query/legacy/legacy_geometry.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"

LegacyTransform legacy_identity(void)
{
    LegacyTransform t;
    memset(&t, 0, sizeof t);
    t.m[0][0] = t.m[1][1] = 1;
    return t;
}

bool legacy_is_identity(const LegacyTransform *t)
{
    return t->m[0][0] == 1 && t->m[1][1] == 1 && t->m[0][1] == 0 && t->m[1][0] == 0 && !t->colour && t->nshifts == 0;
}

bool legacy_swaps_axes(const LegacyTransform *t)
{
    return t->m[0][0] == 0;
}

/* {==== squares and pieces ======================================================= */

Bitboard legacy_shift_right(Bitboard s)
{
    return ((s & ~FILE_H_BB) << 1) | (s & FILE_A_BB);
}

Bitboard legacy_shift_left(Bitboard s)
{
    return ((s & ~FILE_A_BB) >> 1) | (s & FILE_H_BB);
}

Bitboard legacy_shift_up(Bitboard s)
{
    return (s << 8) | (s & RANK_1_BB);
}

Bitboard legacy_shift_down(Bitboard s)
{
    return (s >> 8) | (s & RANK_8_BB);
}

static Bitboard flip_squares(const int8_t m[2][2], Bitboard squares)
{
    if (squares == ALL_SQUARES_BB || squares == 0) return squares;
    Bitboard out = 0;
    while (squares) {
        Square s = bb_pop_lsb(&squares);
        int x = 2 * file_of(s) - 7, y = 2 * rank_of(s) - 7;
        int x2 = m[0][0] * x + m[0][1] * y, y2 = m[1][0] * x + m[1][1] * y;
        out |= sq_bb(make_square((x2 + 7) / 2, (y2 + 7) / 2));
    }
    return out;
}

Bitboard legacy_map_squares(const LegacyTransform *t, Bitboard squares)
{
    squares = flip_squares(t->m, squares);
    for (unsigned i = 0; i < t->nshifts; i++) {
        int dx = t->shift[i][0], dy = t->shift[i][1];
        for (; dx > 0; dx--) squares = legacy_shift_right(squares);
        for (; dx < 0; dx++) squares = legacy_shift_left(squares);
        for (; dy > 0; dy--) squares = legacy_shift_up(squares);
        for (; dy < 0; dy++) squares = legacy_shift_down(squares);
    }
    return squares;
}

uint16_t legacy_map_pieces(const LegacyTransform *t, uint16_t pieces)
{
    if (!t->colour) return pieces;
    uint16_t white = pieces & LEGACY_WHITE_PIECES, black = pieces & LEGACY_BLACK_PIECES;
    return (uint16_t)((pieces & LEGACY_EMPTY_SQUARE) | (white << 8) | (black >> 8));
}

/* }==== */
/* {==== transformation sets ====================================================== */

typedef struct Flip {
    int8_t m[2][2];
    bool colour;
} Flip;

static const Flip identity_flip = {{{1, 0}, {0, 1}}, false};

/* the flips of one keyword besides the identity */
static int keyword_flips(LegacyXform x, Flip out[8])
{
    static const int8_t d4[8][2][2] = {
        {{1, 0}, {0, 1}},   {{0, -1}, {1, 0}},  {{-1, 0}, {0, -1}}, {{0, 1}, {-1, 0}},
        {{-1, 0}, {0, 1}},  {{1, 0}, {0, -1}},  {{0, 1}, {1, 0}},   {{0, -1}, {-1, 0}},
    };
    switch (x) {
    case LX_FLIP:
        for (int i = 0; i < 8; i++) {
            memcpy(out[i].m, d4[i], sizeof out[i].m);
            out[i].colour = false;
        }
        return 8;
    case LX_FLIPCOLOR: out[0] = (Flip){{{1, 0}, {0, -1}}, true}; return 1;
    case LX_FLIPHORIZONTAL: out[0] = (Flip){{{1, 0}, {0, -1}}, false}; return 1;
    case LX_FLIPVERTICAL: out[0] = (Flip){{{-1, 0}, {0, 1}}, false}; return 1;
    case LX_FLIPDIAGONAL: out[0] = (Flip){{{0, 1}, {1, 0}}, false}; return 1;
    default: return 0;
    }
}

/* the shifts of one keyword, identity included */
static int keyword_shifts(LegacyXform x, int8_t out[225][2])
{
    int n = 0;
    switch (x) {
    case LX_SHIFT:
        for (int dx = -7; dx <= 7; dx++)
            for (int dy = -7; dy <= 7; dy++) out[n][0] = (int8_t)dx, out[n][1] = (int8_t)dy, n++;
        break;
    case LX_SHIFTHORIZONTAL:
        for (int dx = -7; dx <= 7; dx++) out[n][0] = (int8_t)dx, out[n][1] = 0, n++;
        break;
    case LX_SHIFTVERTICAL:
        for (int dy = -7; dy <= 7; dy++) out[n][0] = 0, out[n][1] = (int8_t)dy, n++;
        break;
    case LX_SHIFTMAINDIAGONAL:
        for (int k = -7; k <= 7; k++) out[n][0] = (int8_t)k, out[n][1] = (int8_t)k, n++;
        break;
    case LX_SHIFTOFFDIAGONAL:
        for (int k = -7; k <= 7; k++) out[n][0] = (int8_t)k, out[n][1] = (int8_t)-k, n++;
        break;
    case LX_SHIFTDIAGONAL:
        for (int k = -7; k <= 7; k++) out[n][0] = (int8_t)k, out[n][1] = (int8_t)k, n++;
        for (int k = -7; k <= 7; k++)
            if (k != 0) out[n][0] = (int8_t)k, out[n][1] = (int8_t)-k, n++;
        break;
    default: break;
    }
    return n;
}

static void compose(const Flip *first, const Flip *then, Flip *out)
{
    Flip r;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            r.m[i][j] = (int8_t)(then->m[i][0] * first->m[0][j] + then->m[i][1] * first->m[1][j]);
    r.colour = first->colour != then->colour;
    *out = r;
}

static bool same_flip(const Flip *a, const Flip *b)
{
    return memcmp(a->m, b->m, sizeof a->m) == 0 && a->colour == b->colour;
}

bool legacy_xform_is_plain_flip(LegacyXform x)
{
    return x == LX_FLIP || x == LX_FLIPCOLOR || x == LX_FLIPHORIZONTAL || x == LX_FLIPVERTICAL;
}

LegacyTransform *legacy_transform_set(const LegacyXform *xf, uint32_t n, size_t limit, size_t *count)
{
    /* the flips: at most 16 (8 symmetries, with or without the colour swap) */
    Flip flips[16];
    int nflips = 1;
    flips[0] = identity_flip;
    uint32_t nshift_keywords = 0;
    for (uint32_t k = 0; k < n; k++) {
        Flip elems[8];
        int ne = keyword_flips(xf[k], elems);
        if (ne == 0) {
            nshift_keywords++;
            continue;
        }
        int before = nflips;
        for (int i = 0; i < before; i++)
            for (int e = 0; e < ne; e++) {
                Flip c;
                compose(&flips[i], &elems[e], &c);
                bool seen = false;
                for (int j = 0; j < nflips && !seen; j++) seen = same_flip(&flips[j], &c);
                if (!seen && nflips < 16) flips[nflips++] = c;
            }
    }
    if (nshift_keywords > LEGACY_MAX_SHIFTS) return NULL;
    /* the shifts: the product of each shift keyword's list */
    size_t total = (size_t)nflips;
    int8_t elems[225][2];
    for (uint32_t k = 0; k < n; k++) {
        int ne = keyword_shifts(xf[k], elems);
        if (ne == 0) continue;
        if (total > limit / (size_t)ne) return NULL;
        total *= (size_t)ne;
    }
    LegacyTransform *set = xmalloc(total * sizeof *set);
    for (int i = 0; i < nflips; i++) {
        set[i] = legacy_identity();
        memcpy(set[i].m, flips[i].m, sizeof set[i].m);
        set[i].colour = flips[i].colour;
    }
    size_t have = (size_t)nflips;
    for (uint32_t k = 0; k < n; k++) {
        int ne = keyword_shifts(xf[k], elems);
        if (ne == 0) continue;
        /* every element so far, followed by each shift of this keyword (the
         * identity first, so the identity transformation stays first) */
        size_t grown = have * (size_t)ne;
        LegacyTransform *next = xmalloc(grown * sizeof *next);
        size_t w = 0;
        for (int e = 0; e < ne; e++) {
            if (elems[e][0] != 0 || elems[e][1] != 0) continue;
            for (size_t i = 0; i < have; i++) next[w++] = set[i];
        }
        for (size_t i = 0; i < have; i++)
            for (int e = 0; e < ne; e++) {
                if (elems[e][0] == 0 && elems[e][1] == 0) continue;
                LegacyTransform t = set[i];
                t.shift[t.nshifts][0] = elems[e][0];
                t.shift[t.nshifts][1] = elems[e][1];
                t.nshifts++;
                next[w++] = t;
            }
        free(set);
        set = next;
        have = w;
    }
    *count = have;
    return set;
}

/* }==== */
