/*
 * src/query/transform.h — the transform pass: each transform filter becomes the
 * orbit of its argument, exactly as the formal transform semantics define it
 * (../shared/spec/seeds/000_be6cd80976a92d02.txt).
 *
 * A basic transform (XfMap) is a board symmetry of the dihedral group D4
 * (squares and directions move with the board), optionally a further 45°
 * turn (rotate45's odd powers, defined only on filters whose square
 * designators are all 64 squares or empty), optionally colour inversion, and
 * a shift by whole files and ranks with the seed's edge rule (a complete rank
 * or file of a designator is not moved along itself; squares shifted off the
 * board are dropped; a designator left without squares is `[]`, and a filter
 * containing `[]` is invalid). A transform filter `T F` stands for the
 * images of F under the basic transforms of T; `X (Y G)` is the orbit of G
 * under X∘Y. The pass maps AST to AST: it replaces each ND_TRANSFORM by an
 * ND_ORBIT whose members are the distinct valid images (structural equality,
 * ast_equal), each with a guard that lets the evaluator skip it cheaply.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_TRANSFORM_H
#define CQL_TRANSFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "chess/bitboard.h"
#include "query/ast.h"

/* The eight symmetries of the board, each named by what it does. */
typedef enum XfDihedral {
    XF_IDENTITY,
    XF_ROTATE90,        /* anticlockwise: d3 -> f4, the b-file -> rank 2 */
    XF_ROTATE180,
    XF_ROTATE270,       /* clockwise */
    XF_FLIP_RANKS,      /* `reflecth`, about the horizontal bisector: a1 <-> a8, d3 -> d6 */
    XF_FLIP_FILES,      /* `reflectv`, about the vertical bisector: a1 <-> h1, d3 -> e3 */
    XF_FLIP_DIAG,       /* about the a1-h8 diagonal: d3 -> c4 */
    XF_FLIP_ANTIDIAG,   /* about the h1-a8 diagonal: a1 <-> h8 */
    XF_NB
} XfDihedral;

/* One basic transform: first the symmetry (and the 45° turn), then the
 * shift; colour inversion commutes with both. */
typedef struct XfMap {
    XfDihedral dihedral;
    bool eighth;         /* a further 45° anticlockwise turn */
    bool invert;         /* swap white and black */
    int8_t files;        /* shift right (> 0) or left (< 0), -7..7 */
    int8_t ranks;        /* shift up (> 0) or down (< 0), -7..7 */
} XfMap;

/* The most basic transforms a transform keyword stands for (shift: 15 x 15). */
#define XF_FAMILY_MAX 225

/* The most nodes the transform pass makes for a whole query: the images it
 * keeps (every orbit's members, nested orbits included) may hold this many
 * filters in all. Nested transforms multiply (`shift {flip {shift {flip
 * {shift Ka1}}}}` would be 16 million members); the pass stops with an
 * error at the outermost transform instead of allocating them. The largest
 * query of the test suites and the conformance vectors needs about 1,100;
 * at the limit the pass holds about 110 MB. */
#define XF_MAX_FILTERS 250000

/* The most nodes the pass may map while it expands a query, the images it
 * drops (duplicates, invalid ones) included: nested transforms whose
 * images are mostly duplicates keep few filters but may map many, and this
 * bounds the time the pass takes (about 0.1 s at the limit). */
#define XF_MAX_MAPPED (4 * XF_MAX_FILTERS)

/* Fills the tables once (thread-safe); every function below calls it. */
void xf_init(void);

Square xf_square(XfDihedral d, Square s);
Direction xf_direction(XfDihedral d, Direction dir);
/* True when d maps light squares to dark ones. */
bool xf_swaps_square_colours(XfDihedral d);

/* The image of a set of squares (0 is `[]`), and of a direction mask. */
Bitboard xf_map_squares(const XfMap *m, Bitboard squares);
uint8_t xf_map_directions(const XfMap *m, uint8_t dirs);

/* Appends the name of m as `currenttransform` writes it ("counterclockwise90",
 * "reflect_v right^2" ...; nothing for the identity). */
void xf_map_name(const XfMap *m, StrBuf *sb);

/* The basic transforms of a transform keyword (TK_FLIP ... TK_SHIFTVERTICAL)
 * in orbit order, the identity first when it belongs; returns how many
 * (0 for another token). `out` holds XF_FAMILY_MAX. */
int xf_family(TokKind op, XfMap *out);

/* The image of filter f under m, allocated from a, or NULL when it is
 * invalid (contains `[]`) or undefined (a 45° turn of a partial square
 * designator). Transform filters inside f are mapped as filters: the image
 * of `Y G` is `Y (m G)`; `notransform G` is left alone. Spans are kept. */
Node *xf_apply(Arena *a, const XfMap *m, const Node *f);

/* Wraps the whole body of q in transform `op` (the command-line -flip ...);
 * a body that is a single transform filter composes with it. */
void xf_wrap_body(Query *q, TokKind op);

/* The pass: replaces every transform filter of q by its orbit. False after
 * reporting an error (an orbit too large, more than XF_MAX_FILTERS filters
 * in all, or a 45° turn of a partial square
 * designator). */
bool xf_expand_query(Query *q, DiagSink *diag);

/* `--dump-orbit`: for each outermost transform filter of q (before the
 * pass), a line `orbit LINE:COL KEYWORDS: N members`, then each member in
 * CQL syntax, indented by two spaces (its next lines, if any, by four). */
void xf_write_orbits(const Query *q, StrBuf *out);

/* One filter of q in CQL syntax: its source text with every designator,
 * direction and colour word written as the (transformed) node says. */
void xf_write_filter(const Query *q, const Node *f, StrBuf *out);

#endif
