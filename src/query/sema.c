/*
 * src/query/sema.c — the typing rules of CQL 6.2, the variable and function
 * tables (see src/query/sema.h).
 *
 * Every check returns NULL or a message allocated in the query arena; the
 * parser reports it at the right span. Variables are typed by their first
 * assignment (or binding) and keep that type; persistence is fixed by the
 * first assignment too. Dictionaries fix their key and value types with the
 * first store.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "query/sema.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/regex.h"


/* {==== messages ============================================================= */

static const char *msg(Arena *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static const char *msg(Arena *a, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return arena_strdup(a, buf);
}

const char *sema_type_phrase(ValueType t)
{
    switch (t) {
    case VT_NONE: return "a filter without a value";
    case VT_SET: return "a set";
    case VT_NUMBER: return "a number";
    case VT_POSITION: return "a position";
    case VT_STRING: return "a string";
    case VT_PIECE: return "a piece";
    case VT_DICTIONARY: return "a dictionary";
    default: return "a value";
    }
}

/* "a set or a number" for a mask. */
static const char *mask_phrase(Arena *a, TypeMask m)
{
    static const ValueType order[] = {VT_SET, VT_NUMBER, VT_STRING, VT_POSITION, VT_DICTIONARY};
    if ((m & TM_VALUE) == TM_VALUE) return "a filter with a value";
    char buf[128] = "";
    int n = 0;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (!type_in(order[i], m)) continue;
        strcat(buf, n++ ? " or " : "");
        strcat(buf, sema_type_phrase(order[i]));
    }
    return arena_strdup(a, buf);
}

const char *sema_require(Arena *a, const Node *n, TypeMask allowed, const char *role)
{
    if (type_in(n->type, allowed)) return NULL;
    return msg(a, "%s must be %s, not %s", role, mask_phrase(a, allowed), sema_type_phrase(n->type));
}

/* The pattern of `~~` when it is written in the query: a regular
 * expression (base/regex.h), or an error. A pattern computed while
 * searching is checked there (it does not match when it is not one). */
const char *sema_regex_pattern(Arena *a, const Node *pattern)
{
    if (pattern->kind != ND_STRING) return NULL;
    RegexError err;
    Regex *re = regex_compile(pattern->text, strlen(pattern->text), &err);
    if (re) {
        regex_free(re);
        return NULL;
    }
    /* the pattern from where it went wrong, its control bytes as '?' */
    const char *near = pattern->text + err.offset;
    char shown[21];
    size_t n = strnlen(near, sizeof shown - 1);
    for (size_t i = 0; i < n; i++) shown[i] = (unsigned char)near[i] < 0x20 || near[i] == 0x7f ? '?' : near[i];
    shown[n] = '\0';
    return msg(a, "invalid regular expression: %s%s%s%s%s", err.message, n ? " near '" : "", shown,
               near[n] ? "..." : "", n ? "'" : "");
}

/* }==== */

/* {==== operators ============================================================ */

static ValueType plain(ValueType t)
{
    return t == VT_PIECE ? VT_SET : t;
}

static const char *op_spelling(TokKind k)
{
    const char *s = tok_ascii(k);
    return s ? s : "?";
}

bool sema_binary_minus_applies(ValueType t)
{
    return t == VT_NUMBER;
}

bool sema_is_position_order(TokKind op)
{
    return op == TK_BEFORE || op == TK_AFTER || op == TK_BEFORE_EQ || op == TK_AFTER_EQ;
}

/* "'[<]' compares positions, and its left side is a string" */
static const char *position_order_error(Arena *a, const Node *n)
{
    ValueType l = plain(n->kids[0]->type), r = plain(n->kids[1]->type);
    bool left = l != VT_POSITION;
    return msg(a, "'%s' compares positions, and its %s side is %s", op_spelling(n->op), left ? "left" : "right",
               sema_type_phrase(left ? l : r));
}

/* The rules of CQL 6.2's parser: the position orders too take two numbers
 * (a set among them counts its squares) or two strings here. */
static const char *sema_relation_as_parsed(Arena *a, Node *n)
{
    ValueType l = plain(n->kids[0]->type), r = plain(n->kids[1]->type);
    const char *op = op_spelling(n->op);
    bool equality = n->op == TK_EQ || n->op == TK_NE;
    bool countable_l = l == VT_SET || l == VT_NUMBER, countable_r = r == VT_SET || r == VT_NUMBER;
    if (l == VT_NONE || r == VT_NONE)
        return msg(a, "'%s' compares values, but its %s side has none", op, l == VT_NONE ? "left" : "right");
    if (countable_l && countable_r) {
        if (l == VT_SET && r == VT_SET) {
            if (!equality) return msg(a, "'%s' needs numbers or strings, not two sets", op);
            n->type = VT_SET;
        } else {
            n->type = VT_NUMBER;
        }
        return NULL;
    }
    if (l == r && (l == VT_STRING || l == VT_POSITION)) {
        if (l == VT_POSITION && n->op == TK_NE)
            return msg(a, "positions can be compared with '==', '<', '[<]' ..., but not with '!='");
        n->type = l;
        return NULL;
    }
    return msg(a, "'%s' cannot compare %s with %s", op, sema_type_phrase(l), sema_type_phrase(r));
}

const char *sema_relation(Arena *a, Node *n)
{
    const char *error = sema_relation_as_parsed(a, n);
    if (error && sema_is_position_order(n->op)) return position_order_error(a, n);
    return error;
}

const char *sema_arith(Arena *a, Node *n)
{
    ValueType l = plain(n->kids[0]->type), r = plain(n->kids[1]->type);
    if (l == VT_NUMBER && r == VT_NUMBER) {
        n->type = VT_NUMBER;
        return NULL;
    }
    if (n->op == TK_PLUS && l == VT_STRING && r == VT_STRING) {
        n->type = VT_STRING;
        return NULL;
    }
    if (n->op == TK_PLUS)
        return msg(a, "'+' needs two numbers or two strings, not %s and %s", sema_type_phrase(l), sema_type_phrase(r));
    return msg(a, "'%s' needs two numbers, not %s and %s", op_spelling(n->op), sema_type_phrase(l),
               sema_type_phrase(r));
}

const char *sema_set_operator(Arena *a, Node *n)
{
    ValueType l = plain(n->kids[0]->type), r = plain(n->kids[1]->type);
    const char *name = n->kind == ND_UNION ? "|" : n->kind == ND_INTERSECT ? "&" : n->kind == ND_IN ? "in"
                       : n->kind == ND_ATTACKS ? "attacks" : "attackedby";
    if (l == VT_SET && r == VT_SET) {
        n->type = n->kind == ND_IN ? VT_NONE : VT_SET;
        return NULL;
    }
    if (n->kind == ND_INTERSECT && l == VT_POSITION && r == VT_POSITION) {
        n->type = VT_SET;
        return NULL;
    }
    if (n->kind == ND_IN && l == VT_STRING && r == VT_STRING) {
        n->type = VT_NONE;
        return NULL;
    }
    if (n->kind == ND_IN)
        return msg(a, "'in' needs two sets or two strings, not %s and %s", sema_type_phrase(l), sema_type_phrase(r));
    return msg(a, "'%s' needs two sets, not %s and %s", name, sema_type_phrase(l), sema_type_phrase(r));
}

/* {---- the position orders, once the query is parsed ---- */

typedef struct OrderCheck {
    const Node *bad;   /* the first position order of two values that are not positions */
} OrderCheck;

static bool find_order_of_values(const Node *n, void *ctx)
{
    OrderCheck *c = ctx;
    if (c->bad) return false;
    if (n->kind == ND_RELATION && sema_is_position_order(n->op) &&
        !(n->kids[0]->type == VT_POSITION && n->kids[1]->type == VT_POSITION))
        c->bad = n;
    return !c->bad;
}

/* The operator of relation n: its token between the two operands (the whole
 * relation when it is not found there, as in a function's expanded body). */
static Span operator_span(const Query *q, const Node *n)
{
    uint32_t from = n->kids[0]->span.end, to = n->kids[1]->span.start;
    if (from <= to && to <= q->src.len) {
        Lexer lx;
        ast_lexer_init(&lx, q, from, to);
        for (Token t = lex_next(&lx); t.kind != TK_EOF; t = lex_next(&lx))
            if (t.kind == n->op) return (Span){t.start, t.start + t.len};
    }
    return n->span;
}

bool sema_check_position_orders(Query *q, DiagSink *diag)
{
    OrderCheck c = {NULL};
    if (q->body) ast_walk(q->body, find_order_of_values, &c);
    if (!c.bad) return true;
    diag_at(diag, &q->src, operator_span(q, c.bad), DIAG_ERROR, "%s", position_order_error(&q->arena, c.bad));
    return false;
}

/* }---- */

/* }==== */

/* {==== variables and functions ============================================== */

Variable *sema_var(Query *q, int32_t slot)
{
    return &q->vars[slot];
}

int32_t sema_lookup_var(const Query *q, const char *name)
{
    for (uint32_t i = 0; i < q->nvars; i++)
        if (strcmp(q->vars[i].name, name) == 0) return (int32_t)i;
    return -1;
}

int32_t sema_lookup_function(const Query *q, const char *name)
{
    for (uint32_t i = 0; i < q->nfuncs; i++)
        if (strcmp(q->funcs[i].name, name) == 0) return (int32_t)i;
    return -1;
}

int32_t sema_declare_var(Query *q, const char *name, VarKind kind, Span decl)
{
    if (q->nvars == q->vars_cap) {
        uint32_t cap = q->vars_cap ? 2 * q->vars_cap : 8;
        q->vars = arena_realloc(&q->arena, q->vars, q->vars_cap * sizeof *q->vars, cap * sizeof *q->vars);
        q->vars_cap = cap;
    }
    Variable *v = &q->vars[q->nvars];
    memset(v, 0, sizeof *v);
    v->name = arena_strdup(&q->arena, name);
    v->kind = kind;
    v->decl = decl;
    return (int32_t)q->nvars++;
}

int32_t sema_declare_function(Query *q, const char *name, const char **params, uint32_t nparams, Span body,
                              Span decl)
{
    if (q->nfuncs == q->funcs_cap) {
        uint32_t cap = q->funcs_cap ? 2 * q->funcs_cap : 4;
        q->funcs = arena_realloc(&q->arena, q->funcs, q->funcs_cap * sizeof *q->funcs, cap * sizeof *q->funcs);
        q->funcs_cap = cap;
    }
    q->funcs[q->nfuncs] = (Function){arena_strdup(&q->arena, name), params, nparams, body, decl};
    return (int32_t)q->nfuncs++;
}

ValueType sema_var_type(const Variable *v)
{
    static const ValueType types[] = {
        [VK_SET] = VT_SET, [VK_NUMBER] = VT_NUMBER, [VK_STRING] = VT_STRING,
        [VK_POSITION] = VT_POSITION, [VK_PIECE] = VT_PIECE, [VK_DICTIONARY] = VT_DICTIONARY,
    };
    return types[v->kind];
}

VarKind sema_kind_for_type(ValueType t)
{
    switch (t) {
    case VT_NUMBER: return VK_NUMBER;
    case VT_STRING: return VK_STRING;
    case VT_POSITION: return VK_POSITION;
    case VT_DICTIONARY: return VK_DICTIONARY;
    default: return VK_SET;
    }
}

const char *sema_kind_phrase(VarKind k)
{
    static const char *const names[] = {
        [VK_SET] = "set", [VK_NUMBER] = "number", [VK_STRING] = "string",
        [VK_POSITION] = "position", [VK_PIECE] = "piece", [VK_DICTIONARY] = "dictionary",
    };
    return names[k];
}

static const char *kind_mismatch(Arena *a, const Variable *v, ValueType value)
{
    if (v->kind == VK_PIECE)
        return msg(a, "'%s' is a piece variable: assign it with 'piece %s = ...'", v->name, v->name);
    return msg(a, "'%s' is a %s variable and cannot hold %s", v->name, sema_kind_phrase(v->kind),
               sema_type_phrase(value));
}

/* x = F, x =? F, piece x = F, persistent x = F, atomic x = F */
static const char *assign_plain(Query *q, const char *name, TokKind op, uint64_t flags, ValueType vt, Span span,
                                int32_t *slot)
{
    Arena *a = &q->arena;
    bool piece = flags & NF_PIECE, persistent = flags & NF_PERSISTENT;
    int32_t s = sema_lookup_var(q, name);
    if (vt == VT_NONE)
        return msg(a, "cannot assign to '%s': the filter after '%s' has no value, it only matches or not", name,
                   op_spelling(op));
    if (vt == VT_DICTIONARY) return msg(a, "cannot assign a whole dictionary to '%s'", name);
    VarKind kind = piece ? VK_PIECE : sema_kind_for_type(vt);
    if ((piece || op == TK_ASSIGN_IF) && !type_is_set(vt))
        return msg(a, "'%s%s %s' needs a set, not %s", piece ? "piece " : "", name, op_spelling(op),
                   sema_type_phrase(vt));
    if (op == TK_ASSIGN_IF && piece) return msg(a, "'=?' cannot assign a piece variable");
    if (persistent && vt == VT_POSITION) return msg(a, "a persistent variable cannot hold a position");
    if (s < 0) {
        s = sema_declare_var(q, name, kind, span);
    } else {
        Variable *v = sema_var(q, s);
        if (v->kind != kind) return kind_mismatch(a, v, piece ? VT_PIECE : vt);
        if (persistent && !v->persistent)
            return msg(a, "'%s' was first assigned without 'persistent'", name);
    }
    *slot = s;
    return NULL;
}

/* x += F and the other compound assignments */
static const char *assign_compound(Query *q, const char *name, TokKind op, uint64_t flags, ValueType vt, Span span,
                                   int32_t *slot)
{
    Arena *a = &q->arena;
    bool persistent = flags & NF_PERSISTENT;
    bool is_plus = op == TK_PLUS_ASSIGN;
    int32_t s = sema_lookup_var(q, name);
    if (vt != VT_NUMBER && !(is_plus && vt == VT_STRING))
        return msg(a, "'%s' needs %s, not %s", op_spelling(op), is_plus ? "a number or a string" : "a number",
                   sema_type_phrase(vt));
    if (s < 0) {
        if (!persistent) return msg(a, "'%s' must be assigned with '=' before '%s'", name, op_spelling(op));
        s = sema_declare_var(q, name, sema_kind_for_type(vt), span);
    } else {
        Variable *v = sema_var(q, s);
        if (v->kind != sema_kind_for_type(vt)) return kind_mismatch(a, v, vt);
        if (persistent && !v->persistent) return msg(a, "'%s' was first assigned without 'persistent'", name);
    }
    *slot = s;
    return NULL;
}

const char *sema_assign(Query *q, const char *name, TokKind op, uint64_t flags, const Node *value, Span span,
                        int32_t *slot)
{
    int32_t s = sema_lookup_var(q, name);
    if (s >= 0 && q->vars[s].kind == VK_DICTIONARY)
        return msg(&q->arena, "'%s' is a dictionary: assign its entries with %s[key] = value", name, name);
    bool fresh = s < 0;
    const char *err = op == TK_ASSIGN || op == TK_ASSIGN_IF
                          ? assign_plain(q, name, op, flags, value->type, span, slot)
                          : assign_compound(q, name, op, flags, value->type, span, slot);
    if (!err && (flags & NF_PERSISTENT)) {
        Variable *v = sema_var(q, *slot);
        if (fresh) {
            v->persistent = true;
            v->quiet = (flags & NF_QUIET) != 0;
        }
    }
    return err;
}

const char *sema_bind(Query *q, const char *name, VarKind kind, Span span, int32_t *slot)
{
    int32_t s = sema_lookup_var(q, name);
    if (s < 0) {
        *slot = sema_declare_var(q, name, kind, span);
        return NULL;
    }
    const Variable *v = sema_var(q, s);
    if (v->kind != kind)
        return msg(&q->arena, "'%s' is a %s variable and cannot be bound to a %s", name, sema_kind_phrase(v->kind),
                   sema_kind_phrase(kind));
    *slot = s;
    return NULL;
}

/* Key and value types a dictionary may use (positions only when local). */
static bool dict_type_ok(const Variable *v, ValueType t)
{
    return t == VT_STRING || t == VT_NUMBER || t == VT_SET || (v->local && t == VT_POSITION);
}

const char *sema_dict_key(Query *q, int32_t slot, const Node *key, bool storing)
{
    Variable *v = sema_var(q, slot);
    ValueType t = plain(key->type);
    if (!dict_type_ok(v, t))
        return msg(&q->arena, "a key of dictionary '%s' must be a string, a number or a set%s, not %s", v->name,
                   v->local ? " or a position" : "", sema_type_phrase(t));
    if (v->key_type != VT_NONE && v->key_type != t)
        return msg(&q->arena, "dictionary '%s' has keys that are %ss, not %s", v->name,
                   ast_type_name(v->key_type), sema_type_phrase(t));
    if (storing) v->key_type = t;
    return NULL;
}

const char *sema_dict_store(Query *q, int32_t slot, TokKind op, const Node *value)
{
    Variable *v = sema_var(q, slot);
    ValueType t = plain(value->type);
    if (op != TK_ASSIGN) {
        if (v->value_type == VT_NONE)
            return msg(&q->arena, "'%s' needs an entry of dictionary '%s' stored with '=' first", op_spelling(op),
                       v->name);
        if (t != v->value_type || (t != VT_NUMBER && !(op == TK_PLUS_ASSIGN && t == VT_STRING)))
            return msg(&q->arena, "'%s' on an entry of dictionary '%s' needs %s, not %s", op_spelling(op), v->name,
                       v->value_type == VT_STRING ? "a string" : "a number", sema_type_phrase(t));
        return NULL;
    }
    if (!dict_type_ok(v, t))
        return msg(&q->arena, "dictionary '%s' can hold strings, numbers or sets%s, not %s", v->name,
                   v->local ? " or positions" : "", sema_type_phrase(t));
    if (v->value_type != VT_NONE && v->value_type != t)
        return msg(&q->arena, "dictionary '%s' holds %ss, not %s", v->name, ast_type_name(v->value_type),
                   sema_type_phrase(t));
    v->value_type = t;
    return NULL;
}

/* }==== */
