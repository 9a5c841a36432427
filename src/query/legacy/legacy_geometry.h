/*
 * src/query/legacy/legacy_geometry.h — the transformations of CQL 1.0 position
 * lists, applied to piece designators.
 *
 * A transformation is a flip part (one of the 8 symmetries of the board, with
 * or without a colour swap) followed by shifts. Shifts follow the CQL 1.0
 * edge rule, which is not CQL 6's: a unit right shift moves every square one
 * file right, drops the squares of the h-file and keeps those of the a-file
 * as well (the unit right shift of Q[a2,c2,h2] is Q[a2,b2,d2]); the other
 * directions are its mirror images.
 *
 * The transformation set of a list is the compositions of one element of
 * each transformation keyword's set, the flips applied first in the order
 * written, then the shifts in the order written (docs/cql1.md).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_LEGACY_GEOMETRY_H
#define CQL_LEGACY_GEOMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chess/bitboard.h"
#include "query/legacy/legacy_parser.h"

#define LEGACY_MAX_SHIFTS 8

typedef struct LegacyTransform {
    /* the flip: (x, y) -> matrix * (x, y) in coordinates centred on the
     * board (x = 2 * file - 7, y = 2 * rank - 7); rows {m00 m01} {m10 m11} */
    int8_t m[2][2];
    bool colour;                         /* swap the colours of every piece type */
    uint8_t nshifts;
    int8_t shift[LEGACY_MAX_SHIFTS][2];  /* files right (< 0: left), ranks up (< 0: down), in order */
} LegacyTransform;

/* The identity. */
LegacyTransform legacy_identity(void);
bool legacy_is_identity(const LegacyTransform *t);
/* True when the flip exchanges files and ranks (a rotation by 90 degrees or
 * a diagonal reflection): horizontal rays become vertical ones. */
bool legacy_swaps_axes(const LegacyTransform *t);

/* The image of a square set, and of a piece mask. */
Bitboard legacy_map_squares(const LegacyTransform *t, Bitboard squares);
uint16_t legacy_map_pieces(const LegacyTransform *t, uint16_t pieces);

/* Unit shifts with the CQL 1.0 edge rule. */
Bitboard legacy_shift_right(Bitboard s);
Bitboard legacy_shift_left(Bitboard s);
Bitboard legacy_shift_up(Bitboard s);
Bitboard legacy_shift_down(Bitboard s);

/* The transformation set of the keywords xf[0..n): a malloc'd array of
 * *count transformations (the identity first), or NULL when it would hold
 * more than `limit` of them. */
LegacyTransform *legacy_transform_set(const LegacyXform *xf, uint32_t n, size_t limit, size_t *count);

/* True for the keywords that CQL 6 transform filters express exactly:
 * :flip :flipcolor :fliphorizontal :flipvertical. */
bool legacy_xform_is_plain_flip(LegacyXform x);

#endif
