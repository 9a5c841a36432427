/*
 * src/query/legacy/legacy_parser.h — the meaning of a CQL 1.0 query file: its match
 * list, position lists, keywords, piece designators and ranges.
 *
 * legacy_parse turns the lists read by legacy_lexer into the structures
 * below, checking every keyword's parameters; errors name FILE:LINE:COL with
 * a caret. The structures say what the file asks for, in CQL 1.0's terms;
 * legacy_writer.h turns them into the equivalent CQL 6 query. The keywords
 * and their meanings are those of docs/cql1.md.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_LEGACY_PARSER_H
#define CQL_LEGACY_PARSER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "chess/bitboard.h"
#include "base/diag.h"
#include "query/legacy/legacy_lexer.h"

/* One integer n (n..n), or two (lo..hi); `unlimited` as a bound. */
typedef struct LegacyRange {
    int64_t lo, hi;            /* INT64_MIN / INT64_MAX: unlimited */
    Span span;
} LegacyRange;

/* A piece designator: piece types on squares. `pieces` has bit p for each
 * Piece code p (bitboard.h) and bit 0 for the empty square. */
typedef struct LegacyDesig {
    uint16_t pieces;
    Bitboard squares;
    int32_t tag;               /* $name: index in LegacyMatch.tags (pieces unused); else -1 */
    Span span;
} LegacyDesig;

#define LEGACY_WHITE_PIECES 0x007Eu
#define LEGACY_BLACK_PIECES 0x7E00u
#define LEGACY_EMPTY_SQUARE 0x0001u
#define LEGACY_ANY_CONTENT (LEGACY_WHITE_PIECES | LEGACY_BLACK_PIECES | LEGACY_EMPTY_SQUARE)

/* The transformation keywords of a position list, in CQL 1.0's order of
 * listing. */
typedef enum LegacyXform {
    LX_FLIP,                   /* also :flipdihedral */
    LX_FLIPCOLOR,
    LX_FLIPHORIZONTAL,
    LX_FLIPVERTICAL,
    LX_FLIPDIAGONAL,
    LX_SHIFT,
    LX_SHIFTHORIZONTAL,
    LX_SHIFTVERTICAL,
    LX_SHIFTMAINDIAGONAL,
    LX_SHIFTOFFDIAGONAL,
    LX_SHIFTDIAGONAL
} LegacyXform;

/* Where a position list (or the later position of a relation) is looked for. */
typedef enum LegacyWhere {
    LW_MAINLINE,               /* the default */
    LW_EVERYWHERE,             /* :variations */
    LW_VARIATIONS_ONLY         /* :variationsonly */
} LegacyWhere;

typedef enum LegacyRay {
    LR_ANY,                    /* :ray */
    LR_ORTHOGONAL,             /* :rayorthogonal */
    LR_DIAGONAL,               /* :raydiagonal */
    LR_HORIZONTAL,             /* :rayhorizontal */
    LR_VERTICAL,               /* :rayvertical */
    LR_ATTACK                  /* :rayattack: rook and queen orthogonally, bishop and queen diagonally */
} LegacyRay;

typedef enum LegacyResult { LRES_NONE = -1, LRES_WHITE_WINS, LRES_BLACK_WINS, LRES_DRAW } LegacyResult;

typedef enum LegacySideToMove { LSTM_SAME, LSTM_CHANGE, LSTM_IGNORE } LegacySideToMove;

/* :relation (...): the list matches a position P1 when a later position P2
 * stands in this relation to it. */
typedef struct LegacyRelation {
    Span span;                 /* the keyword and its list */
    bool pattern;              /* compare only the squares of the list's designators */
    bool has_different, has_same;
    LegacyRange different;     /* :originaldifferentcount */
    LegacyRange same;          /* :originalsamecount */
    bool shift, flip;          /* P2 may be shifted / flipped before comparing */
    LegacySideToMove side;
    LegacyDesig missing;       /* :missingpiececount (default U 0) */
    LegacyRange missing_range;
    LegacyDesig added;         /* :newpiececount (default U 0) */
    LegacyRange added_range;
    LegacyWhere where;         /* of P2 */
} LegacyRelation;

typedef enum LegacyCondKind {
    LC_DESIG,                  /* d[0] matches */
    LC_MATE, LC_STALEMATE, LC_CHECK, LC_NOCHECK, LC_WTM, LC_BTM, LC_INITIAL,
    LC_PIECECOUNT,             /* d[0], range */
    LC_POWER,                  /* d[0], range */
    LC_POWERDIFFERENCE,        /* d[0], range */
    LC_ATTACKCOUNT,            /* d[0] attackers, d[1] attacked, range */
    LC_RAY,                    /* ray, desigs, range when has_range */
    LC_MOVEFROM, LC_MOVETO, LC_PROMOTE,   /* d[0] */
    LC_ENPASSANT, LC_NOENPASSANT,
    LC_MOVENUMBER,             /* range */
    LC_AND, LC_OR, LC_SEQUENCE, LC_GAPPEDSEQUENCE,   /* lists */
    LC_ELO, LC_WHITEELO, LC_BLACKELO,                /* range */
    LC_RESULT,                 /* result */
    LC_RELATION,               /* relation */
    LC_TAGMATCH,               /* tag, d[0] */
    LC_SUMRANGE                /* name, range */
} LegacyCondKind;

typedef struct LegacyList LegacyList;

/* One condition of a position list: a piece designator, or a keyword with
 * its parameters. */
typedef struct LegacyCond {
    LegacyCondKind kind;
    Span span;                 /* the designator, or the keyword and its parameters */
    LegacyDesig d[2];
    bool has_range;
    LegacyRange range;
    LegacyRay ray;
    LegacyDesig *desigs;       /* :ray's list */
    uint32_t ndesigs;
    LegacyList **lists;        /* :and :or :sequence :gappedsequence */
    uint32_t nlists;
    LegacyResult result;
    LegacyRelation *relation;
    int32_t tag;               /* :tagmatch */
    const char *name;          /* :sumrange's accumulator */
} LegacyCond;

struct LegacyList {
    Span span;                 /* ( position ... ) */
    LegacyCond *conds;
    uint32_t nconds;
    bool negated;              /* :not */
    LegacyXform *xforms;       /* in the order written */
    Span *xform_spans;
    uint32_t nxforms;
    bool has_matchcount, has_pretransform;
    LegacyRange matchcount, pretransform;
    const char **accumulate;   /* :accumulate names */
    uint32_t naccumulate;
    LegacyWhere where;
    bool markall, noannotate;
    bool top;                  /* directly in the match list */
};

/* :forany name D */
typedef struct LegacyTag {
    const char *name;
    uint16_t pieces;           /* D's piece types */
    Span span;
} LegacyTag;

typedef struct LegacyMatch {
    Span span;                 /* ( match ... ) */
    Span keyword;              /* the atom `match` */
    const char *pgn, *output;  /* :pgn, :output, or NULL */
    bool has_year, has_gamenumber;
    LegacyRange year, gamenumber;
    LegacyResult result;
    Span result_span;
    const char **players;      /* :player, each must match */
    Span *player_spans;
    uint32_t nplayers;
    LegacyTag *tags;
    uint32_t ntags;
    LegacyList **lists;
    uint32_t nlists;
} LegacyMatch;

/* The match list of `top` (from legacy_read), allocated in `a`; NULL after
 * reporting the first error through diag. */
LegacyMatch *legacy_parse(const LegacyItem *top, const SourceText *src, Arena *a, DiagSink *diag);

#endif
