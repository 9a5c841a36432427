/*
 * src/query/legacy/legacy_parser.c — keywords, parameters, designators and ranges
 * of a CQL 1.0 file (see legacy_parser.h).
 *
 * Each keyword is a row of a table: its spelling, where it may appear (match
 * list, position list, relation list), the shape of its parameters, and what
 * it becomes. The parser walks a list's items with a cursor; a keyword takes
 * the items its shape asks for. The first error stops the parse.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "query/legacy/legacy_parser.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* {==== the keyword table ========================================================= */

typedef enum KeywordShape {
    KS_NONE,            /* no parameter */
    KS_ATOM,            /* a file name, a player, a name */
    KS_RESULT,          /* 1-0 0-1 1/2-1/2 1/2 */
    KS_RANGE,
    KS_DESIG,
    KS_DESIG_RANGE,
    KS_DESIG_DESIG_RANGE,
    KS_DESIGS_RANGE,    /* (D1 ... Dk) [range] */
    KS_LISTS,           /* (position lists) */
    KS_RELATION,        /* (relation keywords) */
    KS_NAME_DESIG,      /* name D */
    KS_NAME_RANGE       /* name range */
} KeywordShape;

typedef enum Role {
    /* match list */
    K_PGN, K_OUTPUT, K_YEAR, K_GAMENUMBER, K_MATCH_RESULT, K_PLAYER, K_FORANY,
    /* position list: settings of the list */
    K_NOT, K_VARIATIONS, K_VARIATIONSONLY, K_MARKALL, K_NOANNOTATE, K_XFORM,
    K_MATCHCOUNT, K_PRETRANSFORM, K_ACCUMULATE,
    /* position list: conditions (the LegacyCondKind is in the row) */
    K_COND,
    /* relation list */
    K_R_PATTERN, K_R_DIFFERENT, K_R_SAME, K_R_SHIFT, K_R_FLIP, K_R_SAMESIDE, K_R_CHANGESIDE,
    K_R_IGNORESIDE, K_R_MISSING, K_R_NEW, K_R_VARIATIONS, K_R_VARIATIONSONLY
} Role;

enum { IN_MATCH = 1, IN_POSITION = 2, IN_RELATION = 4 };

typedef struct Keyword {
    const char *name;
    unsigned where;     /* IN_* */
    Role role;
    KeywordShape shape;
    int value;          /* LegacyCondKind, LegacyXform or LegacyRay */
} Keyword;

static const Keyword keywords[] = {
    {":pgn", IN_MATCH, K_PGN, KS_ATOM, 0},
    {":output", IN_MATCH, K_OUTPUT, KS_ATOM, 0},
    {":year", IN_MATCH, K_YEAR, KS_RANGE, 0},
    {":gamenumber", IN_MATCH, K_GAMENUMBER, KS_RANGE, 0},
    {":result", IN_MATCH, K_MATCH_RESULT, KS_RESULT, 0},
    {":player", IN_MATCH, K_PLAYER, KS_ATOM, 0},
    {":forany", IN_MATCH, K_FORANY, KS_NAME_DESIG, 0},

    {":not", IN_POSITION, K_NOT, KS_NONE, 0},
    {":variations", IN_POSITION, K_VARIATIONS, KS_NONE, 0},
    {":variationsonly", IN_POSITION, K_VARIATIONSONLY, KS_NONE, 0},
    {":markall", IN_POSITION, K_MARKALL, KS_NONE, 0},
    {":noannotate", IN_POSITION, K_NOANNOTATE, KS_NONE, 0},
    {":matchcount", IN_POSITION, K_MATCHCOUNT, KS_RANGE, 0},
    {":pretransformmatchcount", IN_POSITION, K_PRETRANSFORM, KS_RANGE, 0},
    {":accumulate", IN_POSITION, K_ACCUMULATE, KS_ATOM, 0},
    {":sumrange", IN_POSITION, K_COND, KS_NAME_RANGE, LC_SUMRANGE},

    {":flip", IN_POSITION, K_XFORM, KS_NONE, LX_FLIP},
    {":flipdihedral", IN_POSITION, K_XFORM, KS_NONE, LX_FLIP},
    {":flipcolor", IN_POSITION, K_XFORM, KS_NONE, LX_FLIPCOLOR},
    {":fliphorizontal", IN_POSITION, K_XFORM, KS_NONE, LX_FLIPHORIZONTAL},
    {":flipvertical", IN_POSITION, K_XFORM, KS_NONE, LX_FLIPVERTICAL},
    {":flipdiagonal", IN_POSITION, K_XFORM, KS_NONE, LX_FLIPDIAGONAL},
    {":shift", IN_POSITION, K_XFORM, KS_NONE, LX_SHIFT},
    {":shifthorizontal", IN_POSITION, K_XFORM, KS_NONE, LX_SHIFTHORIZONTAL},
    {":shiftvertical", IN_POSITION, K_XFORM, KS_NONE, LX_SHIFTVERTICAL},
    {":shiftmaindiagonal", IN_POSITION, K_XFORM, KS_NONE, LX_SHIFTMAINDIAGONAL},
    {":shiftoffdiagonal", IN_POSITION, K_XFORM, KS_NONE, LX_SHIFTOFFDIAGONAL},
    {":shiftdiagonal", IN_POSITION, K_XFORM, KS_NONE, LX_SHIFTDIAGONAL},

    {":and", IN_POSITION, K_COND, KS_LISTS, LC_AND},
    {":or", IN_POSITION, K_COND, KS_LISTS, LC_OR},
    {":sequence", IN_POSITION, K_COND, KS_LISTS, LC_SEQUENCE},
    {":gappedsequence", IN_POSITION, K_COND, KS_LISTS, LC_GAPPEDSEQUENCE},
    {":mate", IN_POSITION, K_COND, KS_NONE, LC_MATE},
    {":stalemate", IN_POSITION, K_COND, KS_NONE, LC_STALEMATE},
    {":check", IN_POSITION, K_COND, KS_NONE, LC_CHECK},
    {":nocheck", IN_POSITION, K_COND, KS_NONE, LC_NOCHECK},
    {":wtm", IN_POSITION, K_COND, KS_NONE, LC_WTM},
    {":btm", IN_POSITION, K_COND, KS_NONE, LC_BTM},
    {":initial", IN_POSITION, K_COND, KS_NONE, LC_INITIAL},
    {":piececount", IN_POSITION, K_COND, KS_DESIG_RANGE, LC_PIECECOUNT},
    {":power", IN_POSITION, K_COND, KS_DESIG_RANGE, LC_POWER},
    {":powerdifference", IN_POSITION, K_COND, KS_DESIG_RANGE, LC_POWERDIFFERENCE},
    {":attackcount", IN_POSITION, K_COND, KS_DESIG_DESIG_RANGE, LC_ATTACKCOUNT},
    {":ray", IN_POSITION, K_COND, KS_DESIGS_RANGE, LR_ANY},
    {":rayattack", IN_POSITION, K_COND, KS_DESIGS_RANGE, LR_ATTACK},
    {":rayorthogonal", IN_POSITION, K_COND, KS_DESIGS_RANGE, LR_ORTHOGONAL},
    {":raydiagonal", IN_POSITION, K_COND, KS_DESIGS_RANGE, LR_DIAGONAL},
    {":rayhorizontal", IN_POSITION, K_COND, KS_DESIGS_RANGE, LR_HORIZONTAL},
    {":rayvertical", IN_POSITION, K_COND, KS_DESIGS_RANGE, LR_VERTICAL},
    {":movefrom", IN_POSITION, K_COND, KS_DESIG, LC_MOVEFROM},
    {":moveto", IN_POSITION, K_COND, KS_DESIG, LC_MOVETO},
    {":promote", IN_POSITION, K_COND, KS_DESIG, LC_PROMOTE},
    {":enpassant", IN_POSITION, K_COND, KS_NONE, LC_ENPASSANT},
    {":noenpassant", IN_POSITION, K_COND, KS_NONE, LC_NOENPASSANT},
    {":movenumber", IN_POSITION, K_COND, KS_RANGE, LC_MOVENUMBER},
    {":elo", IN_POSITION, K_COND, KS_RANGE, LC_ELO},
    {":whiteelo", IN_POSITION, K_COND, KS_RANGE, LC_WHITEELO},
    {":blackelo", IN_POSITION, K_COND, KS_RANGE, LC_BLACKELO},
    {":result", IN_POSITION, K_COND, KS_RESULT, LC_RESULT},
    {":relation", IN_POSITION, K_COND, KS_RELATION, LC_RELATION},
    {":tagmatch", IN_POSITION, K_COND, KS_NAME_DESIG, LC_TAGMATCH},

    {":pattern", IN_RELATION, K_R_PATTERN, KS_NONE, 0},
    {":originaldifferentcount", IN_RELATION, K_R_DIFFERENT, KS_RANGE, 0},
    {":originalsamecount", IN_RELATION, K_R_SAME, KS_RANGE, 0},
    {":shift", IN_RELATION, K_R_SHIFT, KS_NONE, 0},
    {":flip", IN_RELATION, K_R_FLIP, KS_NONE, 0},
    {":samesidetomove", IN_RELATION, K_R_SAMESIDE, KS_NONE, 0},
    {":changesidetomove", IN_RELATION, K_R_CHANGESIDE, KS_NONE, 0},
    {":ignoresidetomove", IN_RELATION, K_R_IGNORESIDE, KS_NONE, 0},
    {":missingpiececount", IN_RELATION, K_R_MISSING, KS_DESIG_RANGE, 0},
    {":newpiececount", IN_RELATION, K_R_NEW, KS_DESIG_RANGE, 0},
    {":variations", IN_RELATION, K_R_VARIATIONS, KS_NONE, 0},
    {":variationsonly", IN_RELATION, K_R_VARIATIONSONLY, KS_NONE, 0},
};

/* Keywords of later dialects (Scidb's CQL-S, Chess Assistant's "CQL 3.GX"),
 * named in the message when a file uses one. */
static const char *const extensions[] = {
    ":annotator", ":birthyear", ":blackcannotwin", ":blackelo", ":blackplayer", ":blackrating",
    ":castling", ":checkcount", ":comment", ":cond", ":contactcheck", ":country", ":cut",
    ":date", ":deathyear", ":doublecheck", ":eco", ":endgame", ":endmost", ":evaluation",
    ":event", ":eventcountry", ":eventdate", ":eventmode", ":eventtype", ":exchangeevaluation",
    ":exclude", ":fen", ":fiftymoverule", ":following", ":gameisover", ":gender",
    ":halfmoveclocklimit", ":hasannotation", ":hascomments", ":hasmarkers", ":hasvariations",
    ":inside", ":iscastling", ":ischess960", ":iscomputer", ":ishuman", ":losing",
    ":matingmaterial", ":maxswapevaluation", ":maxswapvalue", ":moveevaluation", ":nocastling",
    ":nocontactcheck", ":nodoublecheck", ":noendgame", ":nolosing", ":nomate",
    ":nomatingmaterial", ":nostalemate", ":plycount", ":preceding", ":rating", ":repetition",
    ":reset", ":site", ":startposition", ":terminal", ":termination", ":timemode", ":title",
    ":variant", ":whitecannotwin", ":whitecountry", ":whiteplayer", ":whiterating", ":xor",
};

static const Keyword *find_keyword(const char *name, unsigned where)
{
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if ((keywords[i].where & where) && strcmp(keywords[i].name, name) == 0) return &keywords[i];
    return NULL;
}

static const Keyword *find_keyword_anywhere(const char *name)
{
    return find_keyword(name, IN_MATCH | IN_POSITION | IN_RELATION);
}

/* }==== */
/* {==== the parser's state ========================================================= */

/* Position lists nested deeper than this are refused (the parser and the
 * writer recurse over them). */
#define MAX_LIST_DEPTH 64

typedef struct LegacyParser {
    const SourceText *src;
    Arena *a;
    DiagSink *diag;
    LegacyMatch *match;
    int depth;          /* position lists open */
} LegacyParser;

static bool fail(LegacyParser *p, Span at, const char *fmt, ...) DIAG_PRINTF(3, 4);

static bool fail(LegacyParser *p, Span at, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    diag_at(p->diag, p->src, at, DIAG_ERROR, "%s", buf);
    return false;
}

/* A list's items from index `at`: the cursor a keyword takes its parameters from. */
typedef struct Cursor {
    const LegacyItem *list;
    uint32_t at;
} Cursor;

static const LegacyItem *cursor_peek(const Cursor *c)
{
    return c->at < c->list->nkids ? c->list->kids[c->at] : NULL;
}

static bool is_keyword_atom(const LegacyItem *it)
{
    return it && !it->is_list && it->text[0] == ':';
}

/* What follows a keyword, for "found ..." in messages. */
static const char *describe(const LegacyItem *it)
{
    if (!it) return "the end of the list";
    if (it->is_list) return "a list";
    return NULL;
}

/* The span from a keyword to the end of its last parameter. */
static Span span_to(Span from, const Cursor *c)
{
    Span s = from;
    if (c->at > 0) {
        Span last = c->list->kids[c->at - 1]->span;
        if (last.end > s.end) s.end = last.end;
    }
    return s;
}

/* }==== */
/* {==== numbers and ranges ========================================================= */

static bool parse_integer(const char *s, int64_t *out)
{
    const char *q = s;
    if (*q == '-' || *q == '+') q++;
    if (*q < '0' || *q > '9') return false;
    for (const char *r = q; *r; r++)
        if (*r < '0' || *r > '9') return false;
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    if (errno) return false;
    *out = v;
    return true;
}

static bool is_bound(const LegacyItem *it)
{
    int64_t v;
    return it && !it->is_list && (strcmp(it->text, "unlimited") == 0 || parse_integer(it->text, &v));
}

/* A range: one or two numbers (or `unlimited`) after the keyword `kw`. */
static bool parse_range(LegacyParser *p, Cursor *c, const LegacyItem *kw, const char *after, LegacyRange *r)
{
    const LegacyItem *it = cursor_peek(c);
    if (!it || !is_bound(it)) {   /* (is_bound tests it too; said here for the compiler) */
        const char *what = describe(it);
        if (it && !it->is_list) {
            int64_t v;
            const char *digits = it->text + (it->text[0] == '-' || it->text[0] == '+');
            if (*digits >= '0' && *digits <= '9' && !parse_integer(it->text, &v))
                return fail(p, it->span, "'%s' is not a number CQL can use (too large, or not all digits)", it->text);
            return fail(p, it->span, "'%s' needs a range (one or two numbers)%s, not '%s'", kw->text, after, it->text);
        }
        return fail(p, it ? it->span : kw->span, "'%s' needs a range (one or two numbers)%s, found %s", kw->text,
                    after, what);
    }
    r->span = it->span;
    if (strcmp(it->text, "unlimited") == 0) {
        r->lo = INT64_MIN;
        r->hi = INT64_MAX;
    } else {
        parse_integer(it->text, &r->lo);
        r->hi = r->lo;
    }
    c->at++;
    const LegacyItem *second = cursor_peek(c);
    if (is_bound(second)) {
        if (strcmp(second->text, "unlimited") == 0) {
            r->hi = INT64_MAX;
        } else {
            if (r->lo == INT64_MIN) r->lo = INT64_MIN;   /* `unlimited 5`: everything up to 5 */
            parse_integer(second->text, &r->hi);
        }
        r->span.end = second->span.end;
        c->at++;
    } else if (strcmp(it->text, "unlimited") == 0) {
        r->lo = INT64_MIN;   /* `unlimited` alone: every number */
        r->hi = INT64_MAX;
    }
    return true;
}

/* }==== */
/* {==== piece designators ========================================================== */

static uint16_t type_letter(char c)
{
    switch (c) {
    case 'K': return 1u << W_KING;
    case 'Q': return 1u << W_QUEEN;
    case 'R': return 1u << W_ROOK;
    case 'B': return 1u << W_BISHOP;
    case 'N': return 1u << W_KNIGHT;
    case 'P': return 1u << W_PAWN;
    case 'k': return 1u << B_KING;
    case 'q': return 1u << B_QUEEN;
    case 'r': return 1u << B_ROOK;
    case 'b': return 1u << B_BISHOP;
    case 'n': return 1u << B_KNIGHT;
    case 'p': return 1u << B_PAWN;
    case 'A': return LEGACY_WHITE_PIECES;
    case 'a': return LEGACY_BLACK_PIECES;
    case 'M': return (1u << W_QUEEN) | (1u << W_ROOK);
    case 'm': return (1u << B_QUEEN) | (1u << B_ROOK);
    case 'I': return (1u << W_BISHOP) | (1u << W_KNIGHT);
    case 'i': return (1u << B_BISHOP) | (1u << B_KNIGHT);
    case 'U': return LEGACY_WHITE_PIECES | LEGACY_BLACK_PIECES;
    case '.': return LEGACY_EMPTY_SQUARE;
    case '?': return LEGACY_ANY_CONTENT;
    default: return 0;
    }
}

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The span of the character at offset i of atom `it` (for carets). */
static Span char_span(const LegacyItem *it, size_t i)
{
    uint32_t at = it->span.start + (uint32_t)i;
    return (Span){at, at < it->span.end ? at + 1 : at};
}

/* file [- file] or ?, at s[*i]; lo/hi are 0..7. */
static bool parse_coord(LegacyParser *p, const LegacyItem *it, size_t *i, bool file, int *lo, int *hi)
{
    const char *s = it->text;
    char first = file ? 'a' : '1', last = file ? 'h' : '8';
    const char *what = file ? "file (a-h or ?)" : "rank (1-8 or ?)";
    if (s[*i] == '?') {
        *lo = 0;
        *hi = 7;
        (*i)++;
        return true;
    }
    if (s[*i] < first || s[*i] > last) {
        if (s[*i] == '\0' || s[*i] == ']' || s[*i] == ',')
            return fail(p, char_span(it, *i), "bad designator '%s': a %s is missing here", s, what);
        return fail(p, char_span(it, *i), "bad designator '%s': '%c' is not a %s", s, s[*i], what);
    }
    *lo = *hi = s[*i] - first;
    (*i)++;
    if (s[*i] == '-') {
        (*i)++;
        if (s[*i] < first || s[*i] > last)
            return fail(p, char_span(it, *i), "bad designator '%s': a range of %ss needs a second %s after '-'", s,
                        file ? "file" : "rank", what);
        *hi = s[*i] - first;
        (*i)++;
        if (*hi < *lo) {   /* h-a is a-h */
            int t = *lo;
            *lo = *hi;
            *hi = t;
        }
    }
    return true;
}

static Bitboard rectangle(int f0, int f1, int r0, int r1)
{
    Bitboard b = 0;
    for (int f = f0; f <= f1; f++)
        for (int r = r0; r <= r1; r++) b |= sq_bb(make_square(f, r));
    return b;
}

/* The square designator at s[i..]: nothing (every square), two characters,
 * or a bracketed comma list ([] is no square). */
static bool parse_squares(LegacyParser *p, const LegacyItem *it, size_t i, bool must_bracket, LegacyDesig *d)
{
    const char *s = it->text;
    if (s[i] == '\0') {
        d->squares = ALL_SQUARES_BB;
        return true;
    }
    int f0, f1, r0, r1;
    if (s[i] != '[') {
        if (must_bracket)
            return fail(p, char_span(it, i), "bad designator '%s': the squares of a tag go in brackets, as in "
                                             "$%s[a1,h8]", s,
                        "name");
        size_t start = i;
        if (!parse_coord(p, it, &i, true, &f0, &f1)) return false;
        if (i - start != 1 || s[i] == '-')
            return fail(p, (Span){it->span.start + (uint32_t)start, it->span.end},
                        "bad designator '%s': a compound square designator must be in brackets, as in [a-h1-2]", s);
        if (!parse_coord(p, it, &i, false, &r0, &r1)) return false;
        if (s[i] == '-' || s[i] == ',')
            return fail(p, (Span){it->span.start + (uint32_t)start, it->span.end},
                        "bad designator '%s': a compound square designator must be in brackets, as in [a-h1-2]", s);
        if (s[i] != '\0')
            return fail(p, char_span(it, i), "bad designator '%s': unexpected '%c' after the square", s, s[i]);
        d->squares = rectangle(f0, f1, r0, r1);
        return true;
    }
    i++;
    d->squares = 0;
    if (s[i] == ']') {
        i++;
    } else {
        for (;;) {
            if (!parse_coord(p, it, &i, true, &f0, &f1)) return false;
            if (!parse_coord(p, it, &i, false, &r0, &r1)) return false;
            d->squares |= rectangle(f0, f1, r0, r1);
            if (s[i] == ',') {
                i++;
                continue;
            }
            if (s[i] == ']') {
                i++;
                break;
            }
            if (s[i] == '\0') return fail(p, char_span(it, i), "bad designator '%s': ']' is missing", s);
            return fail(p, char_span(it, i), "bad designator '%s': expected ',' or ']', not '%c'", s, s[i]);
        }
    }
    if (s[i] != '\0') return fail(p, char_span(it, i), "bad designator '%s': unexpected '%c' after ']'", s, s[i]);
    return true;
}

static int32_t find_tag(const LegacyParser *p, const char *name, size_t len)
{
    for (uint32_t i = 0; i < p->match->ntags; i++)
        if (strlen(p->match->tags[i].name) == len && strncmp(p->match->tags[i].name, name, len) == 0) return (int32_t)i;
    return -1;
}

/* A piece designator: piece types (mandatory) then squares. With
 * `allow_tag` false, $name is refused (in :forany itself). */
static bool parse_desig(LegacyParser *p, const LegacyItem *it, bool allow_tag, LegacyDesig *d)
{
    memset(d, 0, sizeof *d);
    d->tag = -1;
    d->span = it->span;
    const char *s = it->text;
    size_t i = 0;
    if (s[0] == '$') {
        size_t n = 1;
        while (is_alnum(s[n])) n++;
        if (n == 1) return fail(p, char_span(it, 1), "bad designator '%s': a tag name follows '$'", s);
        if (!allow_tag) return fail(p, it->span, "a tag cannot stand here: '%s'", s);
        d->tag = find_tag(p, s + 1, n - 1);
        if (d->tag < 0)
            return fail(p, (Span){it->span.start, it->span.start + (uint32_t)n},
                        "unknown tag '%.*s' (declare it in the match list with :forany %.*s D)",
                        (int)n, s, (int)(n - 1),
                        s + 1);
        return parse_squares(p, it, n, true, d);
    }
    if (s[0] == '[') {
        i = 1;
        while (s[i] && s[i] != ']') {
            uint16_t t = type_letter(s[i]);
            if (!t) {
                if ((s[i] >= 'a' && s[i] <= 'h') || (s[i] >= '1' && s[i] <= '8') || s[i] == '-' || s[i] == ',')
                    return fail(p, it->span,
                                "bad designator '%s': the first brackets hold piece types; a piece type is "
                                "mandatory, as in ?%s",
                                s, s);
                return fail(p, char_span(it, i), "bad designator '%s': '%c' is not a piece type (KQRBNP kqrbnp "
                                                 "A a M m I i U . ?)",
                            s, s[i]);
            }
            d->pieces |= t;
            i++;
        }
        if (s[i] != ']') return fail(p, char_span(it, i), "bad designator '%s': ']' is missing", s);
        if (i == 1) return fail(p, it->span, "bad designator '%s': no piece type in the brackets", s);
        i++;
    } else {
        uint16_t t = type_letter(s[0]);
        if (!t) {
            if (s[0] >= '0' && s[0] <= '9')
                return fail(p, it->span, "'%s' cannot stand here: a number needs a keyword that takes a range", s);
            return fail(p, char_span(it, 0), "bad designator '%s': '%c' is not a piece type (KQRBNP kqrbnp A a "
                                             "M m I i U . ?)",
                        s, s[0]);
        }
        d->pieces = t;
        i = 1;
    }
    return parse_squares(p, it, i, false, d);
}

/* }==== */
/* {==== keyword parameters ========================================================= */

static bool take_atom(LegacyParser *p, Cursor *c, const LegacyItem *kw, const char *what, const LegacyItem **out)
{
    const LegacyItem *it = cursor_peek(c);
    if (!it || it->is_list || is_keyword_atom(it))
        return fail(p, it ? it->span : kw->span, "'%s' needs %s, found %s", kw->text, what,
                    it ? (it->is_list ? "a list" : it->text) : "the end of the list");
    c->at++;
    *out = it;
    return true;
}

static bool take_desig(LegacyParser *p, Cursor *c, const LegacyItem *kw, const char *what, LegacyDesig *d)
{
    const LegacyItem *it;
    if (!take_atom(p, c, kw, what, &it)) return false;
    return parse_desig(p, it, true, d);
}

static bool take_list(LegacyParser *p, Cursor *c, const LegacyItem *kw, const char *what, const LegacyItem **out)
{
    const LegacyItem *it = cursor_peek(c);
    if (!it || !it->is_list)
        return fail(p, it ? it->span : kw->span, "'%s' needs %s, found %s", kw->text, what,
                    it ? it->text : "the end of the list");
    c->at++;
    *out = it;
    return true;
}

static bool parse_result_atom(LegacyParser *p, Cursor *c, const LegacyItem *kw, LegacyResult *r)
{
    const LegacyItem *it;
    if (!take_atom(p, c, kw, "a result (1-0, 0-1, 1/2-1/2 or 1/2)", &it)) return false;
    if (strcmp(it->text, "1-0") == 0) *r = LRES_WHITE_WINS;
    else if (strcmp(it->text, "0-1") == 0) *r = LRES_BLACK_WINS;
    else if (strcmp(it->text, "1/2-1/2") == 0 || strcmp(it->text, "1/2") == 0) *r = LRES_DRAW;
    else return fail(p, it->span, "'%s' needs a result (1-0, 0-1, 1/2-1/2 or 1/2), not '%s'", kw->text, it->text);
    return true;
}

/* A name: letters and digits (tags, accumulators). */
static bool take_name(LegacyParser *p, Cursor *c, const LegacyItem *kw, const char *what, const char **out)
{
    const LegacyItem *it;
    if (!take_atom(p, c, kw, what, &it)) return false;
    for (const char *s = it->text; *s; s++)
        if (!is_alnum(*s)) return fail(p, it->span, "'%s' is not a name: use letters and digits only", it->text);
    *out = it->text;
    return true;
}

/* }==== */
/* {==== lists ====================================================================== */

static bool is_head(const LegacyItem *list, const char *word)
{
    return list->nkids > 0 && !list->kids[0]->is_list && strcmp(list->kids[0]->text, word) == 0;
}

static LegacyList *parse_position(LegacyParser *p, const LegacyItem *list, bool top);
static LegacyList *parse_position_items(LegacyParser *p, const LegacyItem *list, bool top);

/* (L1 ... Ln): position lists. */
static bool parse_lists(LegacyParser *p, const LegacyItem *kw, const LegacyItem *list, LegacyCond *cond)
{
    cond->nlists = list->nkids;
    cond->lists = ARENA_ARRAY(p->a, LegacyList *, list->nkids ? list->nkids : 1);
    for (uint32_t i = 0; i < list->nkids; i++) {
        const LegacyItem *it = list->kids[i];
        if (!it->is_list || !is_head(it, "position"))
            return fail(p, it->span, "'%s' takes a list of position lists, (position ...); this is not one", kw->text);
        cond->lists[i] = parse_position(p, it, false);
        if (!cond->lists[i]) return false;
    }
    return true;
}

static void desig_any(LegacyDesig *d, Span span)
{
    d->pieces = LEGACY_WHITE_PIECES | LEGACY_BLACK_PIECES;
    d->squares = ALL_SQUARES_BB;
    d->tag = -1;
    d->span = span;
}

static bool parse_relation(LegacyParser *p, const LegacyItem *kw, const LegacyItem *list, LegacyRelation *rel)
{
    memset(rel, 0, sizeof *rel);
    rel->span = (Span){kw->span.start, list->span.end};
    desig_any(&rel->missing, kw->span);
    desig_any(&rel->added, kw->span);
    rel->missing_range = rel->added_range = (LegacyRange){0, 0, kw->span};
    bool have_missing = false, have_added = false;
    Cursor c = {list, 0};
    while (c.at < list->nkids) {
        const LegacyItem *it = list->kids[c.at++];
        if (it->is_list || it->text[0] != ':')
            return fail(p, it->span, "a relation list holds relation keywords (:pattern, :missingpiececount "
                                     "...), not %s",
                        it->is_list ? "a list" : it->text);
        const Keyword *k = find_keyword(it->text, IN_RELATION);
        if (!k) {
            if (find_keyword_anywhere(it->text))
                return fail(p, it->span, "'%s' cannot be used in a relation list", it->text);
            return fail(p, it->span, "unknown relation keyword '%s'", it->text);
        }
        switch (k->role) {
        case K_R_PATTERN: rel->pattern = true; break;
        case K_R_DIFFERENT:
            rel->has_different = true;
            if (!parse_range(p, &c, it, "", &rel->different)) return false;
            break;
        case K_R_SAME:
            rel->has_same = true;
            if (!parse_range(p, &c, it, "", &rel->same)) return false;
            break;
        case K_R_SHIFT: rel->shift = true; break;
        case K_R_FLIP: rel->flip = true; break;
        case K_R_SAMESIDE: rel->side = LSTM_SAME; break;
        case K_R_CHANGESIDE: rel->side = LSTM_CHANGE; break;
        case K_R_IGNORESIDE: rel->side = LSTM_IGNORE; break;
        case K_R_MISSING:
        case K_R_NEW: {
            bool *have = k->role == K_R_MISSING ? &have_missing : &have_added;
            if (*have) return fail(p, it->span, "'%s' may appear only once in a relation list", it->text);
            *have = true;
            LegacyDesig *d = k->role == K_R_MISSING ? &rel->missing : &rel->added;
            LegacyRange *r = k->role == K_R_MISSING ? &rel->missing_range : &rel->added_range;
            if (!take_desig(p, &c, it, "a piece designator and a range", d)) return false;
            if (d->tag >= 0) return fail(p, d->span, "tags cannot be used with :relation");
            if (!parse_range(p, &c, it, " after its designator", r)) return false;
            break;
        }
        case K_R_VARIATIONS: rel->where = LW_EVERYWHERE; break;
        case K_R_VARIATIONSONLY: rel->where = LW_VARIATIONS_ONLY; break;
        default: break;
        }
    }
    return true;
}

/* One keyword of a position list, with its parameters. */
static bool parse_position_keyword(LegacyParser *p, LegacyList *l, Cursor *c, const LegacyItem *it, LegacyCond **conds,
                                   uint32_t *cap)
{
    const Keyword *k = find_keyword(it->text, IN_POSITION);
    if (!k) {
        if (find_keyword(it->text, IN_MATCH))
            return fail(p, it->span, "'%s' belongs in the match list, not in a position list", it->text);
        if (find_keyword(it->text, IN_RELATION))
            return fail(p, it->span, "'%s' belongs in a :relation list", it->text);
        for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++)
            if (strcmp(extensions[i], it->text) == 0)
                return fail(p, it->span, "unknown keyword '%s' (an extension of later programs, not CQL 1.0)",
                            it->text);
        for (const char *s = it->text; *s; s++)
            if (*s >= 'A' && *s <= 'Z') {
                char lower[64];
                size_t n = strlen(it->text);
                if (n < sizeof lower) {
                    for (size_t j = 0; j <= n; j++)
                        lower[j] = (char)(it->text[j] >= 'A' && it->text[j] <= 'Z' ? it->text[j] + 32 : it->text[j]);
                    if (find_keyword_anywhere(lower))
                        return fail(p, it->span, "unknown keyword '%s' (keywords are written in lower case: %s)",
                                    it->text,
                                    lower);
                }
                break;
            }
        return fail(p, it->span, "unknown keyword '%s'", it->text);
    }
    switch (k->role) {
    case K_NOT: l->negated = true; return true;
    case K_VARIATIONS: l->where = LW_EVERYWHERE; return true;
    case K_VARIATIONSONLY: l->where = LW_VARIATIONS_ONLY; return true;
    case K_MARKALL: l->markall = true; return true;
    case K_NOANNOTATE: l->noannotate = true; return true;
    case K_XFORM:
        l->xforms = arena_realloc(p->a, l->xforms, l->nxforms * sizeof *l->xforms,
                                  (l->nxforms + 1) * sizeof *l->xforms);
        l->xforms[l->nxforms] = (LegacyXform)k->value;
        l->xform_spans = arena_realloc(p->a, l->xform_spans, l->nxforms * sizeof *l->xform_spans,
                                       (l->nxforms + 1) * sizeof *l->xform_spans);
        l->xform_spans[l->nxforms++] = it->span;
        return true;
    case K_MATCHCOUNT:
    case K_PRETRANSFORM: {
        if (!l->top)
            return fail(p, it->span, "'%s' is allowed only in a position list directly inside the match list",
                        it->text);
        bool pre = k->role == K_PRETRANSFORM;
        if (pre) l->has_pretransform = true;
        else l->has_matchcount = true;
        return parse_range(p, c, it, "", pre ? &l->pretransform : &l->matchcount);
    }
    case K_ACCUMULATE: {
        if (!l->top)
            return fail(p, it->span, "'%s' is allowed only in a position list directly inside the match list",
                        it->text);
        const char *name;
        if (!take_name(p, c, it, "an accumulator name", &name)) return false;
        l->accumulate = arena_realloc(p->a, l->accumulate, l->naccumulate * sizeof *l->accumulate,
                                      (l->naccumulate + 1) * sizeof *l->accumulate);
        l->accumulate[l->naccumulate++] = name;
        return true;
    }
    default: break;
    }

    /* a condition */
    if (l->nconds == *cap) {
        uint32_t bigger = *cap ? 2 * *cap : 8;
        *conds = arena_realloc(p->a, *conds, *cap * sizeof **conds, bigger * sizeof **conds);
        *cap = bigger;
    }
    LegacyCond *cond = &(*conds)[l->nconds++];
    memset(cond, 0, sizeof *cond);
    cond->span = it->span;
    cond->tag = -1;
    cond->d[0].tag = cond->d[1].tag = -1;
    cond->kind = (LegacyCondKind)k->value;
    switch (k->shape) {
    case KS_NONE: break;
    case KS_RANGE:
        cond->has_range = true;
        if (!parse_range(p, c, it, "", &cond->range)) return false;
        break;
    case KS_RESULT:
        if (!parse_result_atom(p, c, it, &cond->result)) return false;
        break;
    case KS_DESIG:
        if (!take_desig(p, c, it, "a piece designator", &cond->d[0])) return false;
        break;
    case KS_DESIG_RANGE:
        if (!take_desig(p, c, it, "a piece designator and a range", &cond->d[0])) return false;
        cond->has_range = true;
        if (!parse_range(p, c, it, " after its designator", &cond->range)) return false;
        break;
    case KS_DESIG_DESIG_RANGE:
        if (!take_desig(p, c, it, "two piece designators and a range", &cond->d[0])) return false;
        if (!take_desig(p, c, it, "two piece designators and a range", &cond->d[1])) return false;
        cond->has_range = true;
        if (!parse_range(p, c, it, " after its two designators", &cond->range)) return false;
        break;
    case KS_DESIGS_RANGE: {
        const LegacyItem *list;
        if (!take_list(p, c, it, "a list of piece designators, as in (Q n k)", &list)) return false;
        cond->kind = LC_RAY;
        cond->ray = (LegacyRay)k->value;
        if (list->nkids < 2)
            return fail(p, list->span, "'%s' needs at least two piece designators in its list", it->text);
        cond->ndesigs = list->nkids;
        cond->desigs = ARENA_ARRAY(p->a, LegacyDesig, list->nkids);
        for (uint32_t i = 0; i < list->nkids; i++) {
            const LegacyItem *d = list->kids[i];
            if (d->is_list) return fail(p, d->span, "'%s' takes piece designators, not a list", it->text);
            if (!parse_desig(p, d, true, &cond->desigs[i])) return false;
        }
        if (is_bound(cursor_peek(c))) {
            cond->has_range = true;
            if (!parse_range(p, c, it, "", &cond->range)) return false;
        }
        break;
    }
    case KS_LISTS: {
        const LegacyItem *list;
        if (!take_list(p, c, it, "a list of position lists, as in ((position ...) (position ...))", &list))
            return false;
        if (!parse_lists(p, it, list, cond)) return false;
        break;
    }
    case KS_RELATION: {
        const LegacyItem *list;
        if (!take_list(p, c, it, "a list of relation keywords, as in (:missingpiececount A 1 10)", &list)) return false;
        if (p->match->ntags) return fail(p, it->span, "tags (:forany) cannot be used with :relation");
        cond->relation = ARENA_NEW(p->a, LegacyRelation);
        if (!parse_relation(p, it, list, cond->relation)) return false;
        break;
    }
    case KS_NAME_DESIG: {   /* :tagmatch name D */
        const char *name;
        const LegacyItem *name_item = cursor_peek(c);
        if (!take_name(p, c, it, "a tag name and a piece designator", &name)) return false;
        cond->tag = find_tag(p, name, strlen(name));
        if (cond->tag < 0)
            return fail(p, name_item->span, "unknown tag '%s' (declare it in the match list with :forany %s D)", name,
                        name);
        if (!take_desig(p, c, it, "a tag name and a piece designator", &cond->d[0])) return false;
        break;
    }
    case KS_NAME_RANGE: {   /* :sumrange name range */
        if (!take_name(p, c, it, "an accumulator name and a range", &cond->name)) return false;
        cond->has_range = true;
        if (!parse_range(p, c, it, " after its accumulator name", &cond->range)) return false;
        break;
    }
    case KS_ATOM: break;
    }
    cond->span = span_to(it->span, c);
    return true;
}

static LegacyList *parse_position(LegacyParser *p, const LegacyItem *list, bool top)
{
    if (p->depth == MAX_LIST_DEPTH) {
        fail(p, list->span, "position lists nested too deeply (the limit is %d)", MAX_LIST_DEPTH);
        return NULL;
    }
    p->depth++;
    LegacyList *l = parse_position_items(p, list, top);
    p->depth--;
    return l;
}

static LegacyList *parse_position_items(LegacyParser *p, const LegacyItem *list, bool top)
{
    LegacyList *l = ARENA_NEW(p->a, LegacyList);
    l->span = list->span;
    l->top = top;
    uint32_t cap = 0;
    LegacyCond *conds = NULL;
    Cursor c = {list, 1};
    while (c.at < list->nkids) {
        const LegacyItem *it = list->kids[c.at++];
        if (it->is_list) {
            fail(p, it->span,
                 is_head(it, "position")
                     ? "a position list cannot stand inside another one; combine lists with :and, :or or :sequence"
                     : "a list cannot stand here: lists are parameters of keywords such as :ray or :and");
            return NULL;
        }
        if (it->text[0] == ':') {
            if (!parse_position_keyword(p, l, &c, it, &conds, &cap)) return NULL;
            continue;
        }
        LegacyDesig d;
        if (!parse_desig(p, it, true, &d)) return NULL;
        if (l->nconds == cap) {
            uint32_t bigger = cap ? 2 * cap : 8;
            conds = arena_realloc(p->a, conds, cap * sizeof *conds, bigger * sizeof *conds);
            cap = bigger;
        }
        LegacyCond *cond = &conds[l->nconds++];
        memset(cond, 0, sizeof *cond);
        cond->kind = LC_DESIG;
        cond->span = it->span;
        cond->tag = -1;
        cond->d[0] = d;
        cond->d[1].tag = -1;
    }
    l->conds = conds;
    return l;
}

/* }==== */
/* {==== the match list ============================================================== */

static bool push_tag(LegacyParser *p, Cursor *c, const LegacyItem *kw)
{
    const char *name;
    const LegacyItem *name_item = cursor_peek(c);
    if (!take_name(p, c, kw, "a tag name and a piece designator", &name)) return false;
    LegacyMatch *m = p->match;
    if (find_tag(p, name, strlen(name)) >= 0) return fail(p, name_item->span, "the tag '%s' is declared twice", name);
    LegacyDesig d;
    const LegacyItem *it;
    if (!take_atom(p, c, kw, "a tag name and a piece designator", &it)) return false;
    if (!parse_desig(p, it, false, &d)) return false;
    if (!(d.pieces & (LEGACY_WHITE_PIECES | LEGACY_BLACK_PIECES)))
        return fail(p, it->span, "the piece designator of a tag must allow some piece");
    m->tags = arena_realloc(p->a, m->tags, m->ntags * sizeof *m->tags, (m->ntags + 1) * sizeof *m->tags);
    m->tags[m->ntags++] = (LegacyTag){name, d.pieces, span_to(kw->span, c)};
    return true;
}

static bool parse_match_keyword(LegacyParser *p, Cursor *c, const LegacyItem *it)
{
    LegacyMatch *m = p->match;
    const Keyword *k = find_keyword(it->text, IN_MATCH);
    if (!k) {
        if (find_keyword(it->text, IN_POSITION))
            return fail(p, it->span, "'%s' belongs in a position list, (position ... %s), not in the match list",
                        it->text,
                        it->text);
        for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++)
            if (strcmp(extensions[i], it->text) == 0)
                return fail(p, it->span, "unknown keyword '%s' (an extension of later programs, not CQL 1.0)",
                            it->text);
        return fail(p, it->span, "unknown keyword '%s'", it->text);
    }
    const LegacyItem *arg;
    switch (k->role) {
    case K_PGN:
    case K_OUTPUT:
        if (!take_atom(p, c, it, "a file name", &arg)) return false;
        if (k->role == K_PGN) m->pgn = arg->text;
        else m->output = arg->text;
        return true;
    case K_PLAYER: {
        if (!take_atom(p, c, it, "a name", &arg)) return false;
        const char *s = arg->text;
        size_t n = strlen(s);
        if (n >= 2 && s[0] == '"' && s[n - 1] == '"') s = arena_strndup(p->a, s + 1, n - 2);
        m->players = arena_realloc(p->a, m->players, m->nplayers * sizeof *m->players,
                                   (m->nplayers + 1) * sizeof *m->players);
        m->player_spans = arena_realloc(p->a, m->player_spans, m->nplayers * sizeof *m->player_spans,
                                        (m->nplayers + 1) * sizeof *m->player_spans);
        m->player_spans[m->nplayers] = span_to(it->span, c);
        m->players[m->nplayers++] = s;
        return true;
    }
    case K_YEAR:
        m->has_year = true;
        return parse_range(p, c, it, "", &m->year);
    case K_GAMENUMBER:
        m->has_gamenumber = true;
        if (!parse_range(p, c, it, "", &m->gamenumber)) return false;
        if (m->gamenumber.lo < 1 && m->gamenumber.lo != INT64_MIN)
            return fail(p, m->gamenumber.span, "game numbers start at 1");
        return true;
    case K_MATCH_RESULT:
        m->result_span = it->span;
        if (!parse_result_atom(p, c, it, &m->result)) return false;
        m->result_span = span_to(it->span, c);
        return true;
    case K_FORANY:
        c->at += 2;   /* declared in the first pass */
        return true;
    default:
        return true;
    }
}

/* Every :sumrange reads an accumulator that some top-level list fills. */
static bool check_accumulators(LegacyParser *p, const LegacyList *l)
{
    for (uint32_t i = 0; i < l->nconds; i++) {
        const LegacyCond *c = &l->conds[i];
        if (c->kind == LC_SUMRANGE) {
            bool known = false;
            for (uint32_t j = 0; j < p->match->nlists && !known; j++)
                for (uint32_t k = 0; k < p->match->lists[j]->naccumulate && !known; k++)
                    known = strcmp(p->match->lists[j]->accumulate[k], c->name) == 0;
            if (!known)
                return fail(p, c->span, "no position list accumulates into '%s' (:accumulate %s)", c->name, c->name);
        }
        for (uint32_t j = 0; j < c->nlists; j++)
            if (!check_accumulators(p, c->lists[j])) return false;
    }
    return true;
}

LegacyMatch *legacy_parse(const LegacyItem *top, const SourceText *src, Arena *a, DiagSink *diag)
{
    LegacyParser p = {src, a, diag, NULL, 0};
    if (!top->is_list || !is_head(top, "match")) {
        const LegacyItem *head = top->nkids ? top->kids[0] : NULL;
        fail(&p, head ? head->span : top->span,
             "a CQL 1.0 file is one match list, (match :pgn FILE ... (position ...)); this list starts with %s",
             head ? (head->is_list ? "a list" : head->text) : "nothing");
        return NULL;
    }
    LegacyMatch *m = ARENA_NEW(a, LegacyMatch);
    p.match = m;
    m->span = top->span;
    m->keyword = top->kids[0]->span;
    m->result = LRES_NONE;

    /* first the tags: position lists may use them before :forany is written */
    for (uint32_t i = 1; i < top->nkids; i++) {
        const LegacyItem *it = top->kids[i];
        if (!it->is_list && strcmp(it->text, ":forany") == 0) {
            Cursor c = {top, i + 1};
            if (!push_tag(&p, &c, it)) return NULL;
        }
    }
    Cursor c = {top, 1};
    uint32_t cap = 0;
    while (c.at < top->nkids) {
        const LegacyItem *it = top->kids[c.at++];
        if (it->is_list) {
            if (!is_head(it, "position")) {
                const LegacyItem *head = it->nkids ? it->kids[0] : NULL;
                fail(&p, head ? head->span : it->span,
                     "the match list holds keywords and position lists, (position ...); this list starts with %s",
                     head ? (head->is_list ? "a list" : head->text) : "nothing");
                return NULL;
            }
            LegacyList *l = parse_position(&p, it, true);
            if (!l) return NULL;
            if (m->nlists == cap) {
                uint32_t bigger = cap ? 2 * cap : 4;
                m->lists = arena_realloc(a, m->lists, cap * sizeof *m->lists, bigger * sizeof *m->lists);
                cap = bigger;
            }
            m->lists[m->nlists++] = l;
            continue;
        }
        if (it->text[0] != ':') {
            fail(&p, it->span, "'%s' cannot stand in the match list: piece designators go in a position list, "
                               "(position %s)",
                 it->text, it->text);
            return NULL;
        }
        if (!parse_match_keyword(&p, &c, it)) return NULL;
    }
    for (uint32_t i = 0; i < m->nlists; i++)
        if (!check_accumulators(&p, m->lists[i])) return NULL;
    return m;
}

/* }==== */
