/*
 * src/query/ast.h — the typed syntax tree of a CQL query, and the Query that owns it.
 *
 * A Query owns one Arena holding every node, name, string, designator and
 * clone, and a copy of the query text that every Span points into. Nodes are
 * plain data: a kind (query/filters.def, which documents each kind's payload), a
 * static ValueType set by sema, the Span of the user's text, positional
 * children, and a few generic payload fields. Unused fields are zero (slot
 * is -1), which lets ast_equal compare every field of every kind.
 *
 * What the later passes rely on:
 *   - variables are resolved to slots in Query.vars (with kind and type);
 *   - function calls are expanded: an ND_CALL holds the body parsed again for
 *     that call with the arguments substituted (ND_PARAM), so each call is
 *     type-checked on its own;
 *   - designators keep both their resolved sets and their written parts;
 *   - transforms are ND_TRANSFORM nodes over one child (orbits come later).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_AST_H
#define CQL_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "chess/bitboard.h"
#include "query/lexer.h"
#include "query/settings.h"

/* {==== node kinds, value types, flags ====================================== */

typedef enum NodeKind {
#define FILTER(kind, ...) kind,
#include "query/filters.def"
    ND_COUNT_
} NodeKind;

/* The static type of a filter's value. VT_NONE: the filter only matches or
 * not. VT_PIECE: a piece variable (a set of one square that follows its
 * piece); everywhere a set is wanted a piece will do. */
typedef enum ValueType {
    VT_NONE,
    VT_SET,
    VT_NUMBER,
    VT_POSITION,
    VT_STRING,
    VT_PIECE,
    VT_DICTIONARY,
    VT_COUNT_
} ValueType;

/* Node flags (Node.flags). Which kinds use which flag is documented in
 * query/filters.def; the names are what print_tree prints. */
#define CQL_NODE_FLAGS(X)                                                     \
    X(NF_IMPLICIT, "implicit")  X(NF_COUNT, "count")        X(NF_ALL, "all")  \
    X(NF_PIECE, "piece")        X(NF_QUIET, "quiet")        X(NF_BACKWARD, "backward") \
    X(NF_LEGAL, "legal")        X(NF_PSEUDOLEGAL, "pseudolegal")              \
    X(NF_PERSISTENT, "persistent") X(NF_ATOMIC, "atomic")   X(NF_LOCAL, "local") \
    X(NF_WHITE, "white")        X(NF_BLACK, "black")        X(NF_MIN, "min")  \
    X(NF_SLICE, "slice")        X(NF_IN_ALL, "in-all")      X(NF_PRIMARY, "primary") \
    X(NF_SECONDARY, "secondary") X(NF_FIRSTMATCH, "firstmatch")               \
    X(NF_LASTPOSITION, "lastposition") X(NF_SINGLECOLOR, "singlecolor")       \
    X(NF_NESTBAN, "nestban")    X(NF_PREVIOUS, "previous")  X(NF_ENPASSANT, "enpassant") \
    X(NF_CASTLE, "castle")      X(NF_OO, "o-o")             X(NF_OOO, "o-o-o") \
    X(NF_NULL, "null")          X(NF_SYMBOL, "symbol")      X(NF_KEEPALLBEST, "keepallbest") \
    X(NF_MAX, "max")            X(NF_PIECEPATH, "piecepath") X(NF_VERBOSE, "verbose") \
    X(NF_FORCED, "forced")      X(NF_CAPTURE, "capture")    X(NF_PLUS, "plus") \
    X(NF_AS_POSITION, "as-position")

enum {
#define X(flag, name) flag##_BIT,
    CQL_NODE_FLAGS(X)
#undef X
    NF_BIT_COUNT_
};

#define X(flag, name) static const uint64_t flag = 1ULL << flag##_BIT;
CQL_NODE_FLAGS(X)
#undef X

/* }==== */

/* {==== nodes ================================================================ */

/* A piece designator: the resolved piece-type mask and square set, and the
 * square designator as written (its file-range x rank-range parts), which
 * transforms map as a unit. `pieces` has bit p for each Piece code p allowed
 * (bit 0 = the empty square). A designator without a square part has one
 * implicit part a-h1-8 and has_square_part false. */
typedef struct Designator {
    uint16_t pieces;
    Bitboard squares;
    bool has_piece_part;
    bool has_square_part;
    bool all_squares_symbol;   /* written `.` / `▦` */
    uint8_t nparts;
    SquarePart *parts;
} Designator;

typedef struct Node Node;
struct Node {
    NodeKind kind;
    ValueType type;
    Span span;          /* byte range in Query.src.text */
    uint32_t nkids;
    uint32_t kids_cap;  /* room in kids when ast_push made it (0: exactly nkids) */
    Node **kids;        /* positional (see query/filters.def); entries may be NULL */
    int64_t num;        /* integer value, range low, repeat minimum, ... */
    int64_t num2;       /* range high, repeat maximum (-1: unbounded) */
    uint64_t flags;     /* NF_* */
    int32_t slot;       /* Variable or Function index, -1 when unused */
    TokKind op;         /* operator, keyword or parameter order, TK_EOF when unused */
    uint8_t dirs;       /* Direction mask (1 << DIR_N ...) for direction, ray */
    const char *text;   /* name, decoded string, documentation, ... */
    Designator *desig;  /* for ND_DESIGNATOR */
};

/* The keyword `count` where a range may stand is the range -AST_COUNT_RANGE
 * to AST_COUNT_RANGE: any number (CQL 6.2). */
#define AST_COUNT_RANGE 100000

/* line and path: their range is num..num2, or none (-1..-1); a range's
 * upper end is never negative. */
static inline bool ast_has_range(const Node *n)
{
    return n->num2 >= 0;
}

/* }==== */

/* {==== the query ============================================================ */

/* Which header parameters that are not settings were written
 * (QueryHeader.present). */
enum {
    QH_INPUT = 1 << 0,
    QH_OUTPUT = 1 << 1,
    QH_SORT_MATCHCOUNT = 1 << 2   /* `sort matchcount`: the matchcount setting, and sorting */
};

/* The parameters of `cql( ... )`: input and output, and the settings that
 * are header parameters (query/settings.def: matchcount, gamenumber,
 * result ...), given in `values` as the header gives them. A range with
 * one number has max == min, or no upper bound (INT64_MAX) for a row
 * HP_AT_LEAST. */
typedef struct QueryHeader {
    unsigned present;          /* QH_* */
    const char *input;
    const char *output;
    Settings values;
    Span span;                 /* the whole header, empty with -cql */
} QueryHeader;

typedef enum VarKind {
    VK_SET,          /* square variable (x = S, square iteration) */
    VK_NUMBER,
    VK_STRING,
    VK_POSITION,
    VK_PIECE,        /* piece variable (piece x = S, piece iteration) */
    VK_DICTIONARY
} VarKind;

typedef struct Variable {
    const char *name;
    VarKind kind;
    bool persistent;         /* survives across games, printed at the end */
    bool quiet;              /* persistent quiet: not printed */
    bool local;              /* local dictionary */
    ValueType key_type;      /* dictionary: VT_NONE until the first store */
    ValueType value_type;    /* dictionary: VT_NONE until the first store */
    Span decl;               /* where it was first assigned or declared */
} Variable;

typedef struct Function {
    const char *name;
    const char **params;
    uint32_t nparams;
    Span body;               /* the text of { ... }, parsed again at each call */
    Span decl;
} Function;

/* A key the matching games are sorted by: the `sort` filters of one title
 * (their num is the key's index in Query.sort_keys), or every `hhdb sort`. */
typedef struct SortKey {
    const char *title;       /* the documentation string; NULL: none given */
    bool min;                /* `sort min`: the smallest value is the best */
    bool hhdb;               /* the key of `hhdb sort` (not written in the game) */
} SortKey;

typedef struct Query Query;
struct Query {
    Arena arena;             /* owns everything below */
    SourceText src;          /* a private copy of the query text; with filters
                                given apart from it (-cql, -player ...), that
                                text and then theirs, a part each (src.parts) */
    LexValue *values;        /* the values bound into the filters' texts */
    uint32_t nvalues;
    QueryHeader header;
    Node *body;              /* ND_COMPOUND (NF_IMPLICIT) of the body's filters */
    Variable *vars;
    uint32_t nvars, vars_cap;
    Function *funcs;
    uint32_t nfuncs, funcs_cap;
    uint32_t ncall_args;     /* the arguments of all calls: a call's num is the
                                index of its first, a parameter's num its own */
    SortKey *sort_keys;      /* in the order they first appear in the body */
    uint32_t nsort_keys, sort_keys_cap;
};

/* }==== */

/* {==== operations =========================================================== */

const char *ast_kind_name(NodeKind k);
const char *ast_type_name(ValueType t);
const char *ast_flag_name(unsigned bit);

/* A zeroed node of kind k (slot -1, op TK_EOF) with nkids child slots. */
Node *ast_new(Arena *a, NodeKind k, Span span, uint32_t nkids);
/* Appends a child, growing kids (for variadic kinds). */
void ast_push(Arena *a, Node *parent, Node *child);

/* A deep copy of n in a: nodes, kids and designators are new; the text
 * (immutable once parsed) is shared with n, so it must live as long as the
 * copy (it is in the query's arena, or a string constant). */
Node *ast_clone(Arena *a, const Node *n);
/* The number of nodes of n (0 for NULL), counting no further than just
 * past `limit`: the cost of a clone, known before it is made. */
uint64_t ast_count(const Node *n, uint64_t limit);
/* Structural equality: kinds, types, payloads and children; spans ignored
 * (and the name a transform gives `currenttransform`). */
bool ast_equal(const Node *a, const Node *b);

/* How deep a tree may be: every pass over a tree (sema, transforms,
 * printing, the evaluator, freeing) recurses once per level, on the stack
 * of a thread that may have no more than 1 MB. The parser refuses a deeper
 * query (parser.c); a chain of one operator (`a or b or c ...`) is one
 * level, however long. */
#define AST_HEIGHT_LIMIT 1000

/* A node more than `limit` levels below n (n is level 1), the first found
 * in pre-order, or NULL when there is none. Iterative: a tree of any depth
 * is measured without recursion. */
const Node *ast_too_deep(const Node *n, uint32_t limit);

/* Lexes q's text[start, end), its values each one token (lexer.h). */
void ast_lexer_init(Lexer *lx, const Query *q, uint32_t start, uint32_t end);
/* The value whose token begins at byte `start` of q's text (TF_VALUE). */
const char *ast_value_at(const Query *q, uint32_t start);

/* Pre-order walk. The visitor returns false to skip the node's children. */
typedef bool (*AstVisitor)(const Node *n, void *ctx);
void ast_walk(const Node *n, AstVisitor visit, void *ctx);

/* }==== */

#endif
