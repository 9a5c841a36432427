/*
 * src/query/parser_filters.c — the filters that begin with a keyword: control
 * (if, while, transforms, iteration, find, echo, sort), geometry (direction
 * filters, ray, xray, pin), functions of numbers and strings, comments and
 * messages, and the game facts. parse_keyword dispatches on the keyword
 * through the rows of filters.def: the filter a keyword begins, and its
 * shape (a keyword alone, a keyword and one operand, a keyword and an
 * argument list, a game text, or a parse function of its own). Moves, line
 * and path are in parser_move.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "chess/bitboard.h"
#include "query/hhdb_keys.h"
#include "query/parser_int.h"

/* {==== the rows of filters.def, as the parser reads them ================== */

typedef enum Shape { SH_NONE, SH_KW0, SH_KW1, SH_ARGS, SH_GAMETEXT, SH_WITH } Shape;

typedef struct ParseRule {
    Shape shape;
    Prec prec;                   /* KW1: the operand's level */
    TypeMask operand;            /* KW1: the operand's types; ARGS: the arguments' */
    uint32_t min, max;           /* ARGS: how many arguments */
    int result;                  /* a ValueType, VT_SAME or VT_VARIES */
    Node *(*parse)(Parser *p);   /* WITH */
} ParseRule;

#define RULE_EXPR .shape = SH_NONE
#define RULE_PASS .shape = SH_NONE
#define RULE_KW0 .shape = SH_KW0
#define RULE_KW1(level, types) .shape = SH_KW1, .prec = level, .operand = types
#define RULE_ARGS(lo, hi, types) .shape = SH_ARGS, .min = lo, .max = hi, .operand = types
#define RULE_GAMETEXT(tag) .shape = SH_GAMETEXT
#define RULE_WITH(fn) .shape = SH_WITH, .parse = fn

static const ParseRule rules[ND_COUNT_] = {
#define FILTER(kind, name, shape, type, ...) [kind] = {RULE_##shape, .result = type},
#include "query/filters.def"
};

/* kw0 := keyword
 * kw1 := keyword F      (not, abs, rank, light, ...) */
static Node *parse_keyword_filter(Parser *p, NodeKind kind, const ParseRule *r)
{
    Token kw = p->tok;
    parse_advance(p);
    if (r->shape == SH_KW0) {
        Node *n = parse_node(p, kind, tok_span(kw), 0);
        n->type = (ValueType)r->result;
        return n;
    }
    Node *operand = parse_prefix_operand(p, r->prec, r->operand, kw);
    Node *n = parse_node1(p, kind, span_join(tok_span(kw), operand->span), operand);
    n->type = r->result == VT_SAME ? operand->type : (ValueType)r->result;
    if (type_is_set(n->type)) n->type = VT_SET;
    return n;
}

/* ascii := 'ascii' F      (a number gives its character, a string its code) */
Node *parse_ascii(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *operand = parse_prefix_operand(p, PREC_SETFN, TM_NUMBER | TM_STRING, kw);
    Node *n = parse_node1(p, ND_ASCII, span_join(tok_span(kw), operand->span), operand);
    n->type = operand->type == VT_NUMBER ? VT_STRING : VT_NUMBER;
    return n;
}

/* }==== */

/* {==== control, transforms, iteration ======================================= */

static ValueType value_type(ValueType t)
{
    return t == VT_PIECE ? VT_SET : t;
}

/* if := 'if' F ['then'] F ['else' F] */
Node *parse_if(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_IF, tok_span(kw), 3);
    n->kids[0] = parse_prefix_operand(p, PREC_LOWEST, TM_ANY, kw);
    parse_accept(p, TK_THEN);
    n->kids[1] = parse_prefix_operand(p, PREC_LOWEST, TM_ANY, kw);
    n->span = span_join(n->span, n->kids[1]->span);
    if (p->tok.kind == TK_ELSE) {
        Token e = p->tok;
        parse_advance(p);
        n->kids[2] = parse_prefix_operand(p, PREC_LOWEST, TM_ANY, e);
        n->span = span_join(n->span, n->kids[2]->span);
    }
    ValueType t = value_type(n->kids[1]->type);
    if (n->kids[2] && value_type(n->kids[2]->type) != t) t = VT_NONE;
    n->type = t == VT_DICTIONARY ? VT_NONE : t;
    return n;
}

/* while := 'while' '(' F ')' F */
Node *parse_while(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Token open = parse_expect(p, TK_LPAREN, "'(' after 'while'");
    Node *n = parse_node(p, ND_WHILE, tok_span(kw), 2);
    n->kids[0] = parse_prefix_operand(p, PREC_LOWEST, TM_ANY, open);
    parse_expect_closing(p, TK_RPAREN, open);
    n->kids[1] = parse_prefix_operand(p, PREC_LOWEST, TM_ANY, kw);
    n->span = span_join(n->span, n->kids[1]->span);
    n->type = VT_NONE;
    return n;
}

typedef struct Rotate45Check {
    const Node *bad;
} Rotate45Check;

static bool find_partial_designator(const Node *n, void *ctx)
{
    Rotate45Check *c = ctx;
    if (!c->bad && n->kind == ND_DESIGNATOR && n->desig->has_square_part && n->desig->squares != ALL_SQUARES_BB &&
        n->desig->squares != 0)
        c->bad = n;
    return true;
}

/* transform := ('flip' | 'flipcolor' | 'fliphorizontal' | 'flipvertical' |
 *               'reversecolor' | 'rotate90' | 'rotate45' | 'shift' |
 *               'shifthorizontal' | 'shiftvertical') ['count'] F */
Node *parse_transform(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    bool count = false;
    if (p->tok.kind == TK_COUNT) {
        if (kw.kind == TK_REVERSECOLOR) parse_fail(p, tok_span(p->tok), "'reversecolor' does not take 'count'");
        count = true;
        parse_advance(p);
    }
    Node *body = parse_prefix_operand(p, PREC_LOWEST, TM_ANY, kw);
    if (kw.kind == TK_ROTATE45) {
        Rotate45Check c = {NULL};
        parse_check_height(p, body);
        ast_walk(body, find_partial_designator, &c);
        if (c.bad)
            parse_fail(p, c.bad->span, "'rotate45' needs square designators that cover the whole board");
    }
    Node *n = parse_node1(p, ND_TRANSFORM, span_join(tok_span(kw), body->span), body);
    n->op = kw.kind;
    if (count) n->flags |= NF_COUNT;
    n->type = count ? VT_NUMBER : value_type(body->type) == VT_DICTIONARY ? VT_NONE : value_type(body->type);
    return n;
}

/* square := 'square' ['all'] name 'in' S F
 * piece  := 'piece' ['all'] name 'in' S F  |  'piece' name ('=' | '=?') S */
Node *parse_square_or_piece(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    bool all = parse_accept(p, TK_ALL);
    Token var = p->tok;
    if (var.kind != TK_IDENT) parse_fail_expected(p, "a variable name");
    char *name = parse_token_text(p, var);
    parse_advance(p);
    if (kw.kind == TK_PIECE && !all && parse_is_assign_op(p->tok.kind))
        return parse_assignment(p, name, NF_PIECE, tok_span(kw));
    Token in = parse_expect(p, TK_IN, "'in' after the variable name");
    return parse_finish_iteration(p, name, var, (all ? NF_ALL : 0) | (kw.kind == TK_PIECE ? NF_PIECE : 0), kw, in);
}

/* universal := '∀' (name | '◭'name) '∊' S F     ([forall] in ASCII) */
Node *parse_forall(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    if ((p->tok.kind != TK_IDENT && p->tok.kind != TK_PIECEVAR) || parse_peek(p, 1)->kind != TK_ELEMENT)
        parse_fail_expected(p, "a variable and '[element]' (or '∊') after '[forall]'");
    return parse_iteration(p, true, kw);
}

/* piece-var := '◭'name '∊' S F  |  '◭'name '=' S      ([Aa]name in ASCII) */
Node *parse_piece_variable(Parser *p)
{
    Token t = p->tok;
    const Token *next = parse_peek(p, 1);
    if (next->kind == TK_ELEMENT) return parse_iteration(p, false, t);
    if (next->kind == TK_ASSIGN || next->kind == TK_ASSIGN_IF) {
        uint32_t name_at = lex_piecevar_name(p->src->text, t);
        char *name = arena_strndup(p->a, p->src->text + name_at, t.start + t.len - name_at);
        parse_advance(p);
        return parse_assignment(p, name, NF_PIECE, tok_span(t));
    }
    parse_advance(p);
    parse_fail_expected(p, "'[element]' (or '∊') after the piece variable");
}

/* A range bound of find, consecutivemoves or a direction: an integer (with
 * `negative`, maybe after a minus sign) or a numeric variable; NULL when
 * none stands here. */
static Node *parse_range_bound(Parser *p, bool negative)
{
    if (p->tok.kind == TK_INT) return parse_int(p);
    if (negative && p->tok.kind == TK_MINUS && parse_peek(p, 1)->kind == TK_INT) {
        Token minus = p->tok;
        parse_advance(p);
        Node *n = parse_int(p);
        n->num = -n->num;
        n->span = span_join(tok_span(minus), n->span);
        return n;
    }
    if (p->tok.kind != TK_IDENT) return NULL;
    /* `find all S += 1`: a variable being assigned is the body, not a bound */
    if (parse_is_assign_op(parse_peek(p, 1)->kind)) return NULL;
    int32_t slot = sema_lookup_var(p->q, parse_token_text(p, p->tok));
    if (slot < 0 || sema_var(p->q, slot)->kind != VK_NUMBER) return NULL;
    Node *n = parse_node(p, ND_VAR, tok_span(p->tok), 0);
    n->slot = slot;
    n->text = sema_var(p->q, slot)->name;
    n->type = VT_NUMBER;
    parse_advance(p);
    return n;
}

/* range := bound [bound] | 'count'. Fills *lo and *hi (NULL after one
 * bound: exactly lo); false when no range stands here. `count` is any
 * number: two integers, -AST_COUNT_RANGE and AST_COUNT_RANGE. */
static bool parse_number_range(Parser *p, bool negative, Node **lo, Node **hi)
{
    if (p->tok.kind == TK_COUNT) {
        Token t = p->tok;
        parse_advance(p);
        *lo = parse_node(p, ND_INT, tok_span(t), 0);
        *hi = parse_node(p, ND_INT, tok_span(t), 0);
        (*lo)->num = -AST_COUNT_RANGE;
        (*hi)->num = AST_COUNT_RANGE;
        (*lo)->type = (*hi)->type = VT_NUMBER;
        return true;
    }
    if ((*lo = parse_range_bound(p, negative)) == NULL) return false;
    *hi = parse_range_bound(p, negative);
    return true;
}

/* find := 'find' {'all' | 'quiet' | '<--' | range} F
 * With `all` or a range the value is the number of positions found (a
 * numeric find), without either the first position found. */
Node *parse_find(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_FIND, tok_span(kw), 3);
    for (;;) {
        Token t = p->tok;
        uint64_t flag = t.kind == TK_ALL ? NF_ALL : t.kind == TK_QUIET ? NF_QUIET : t.kind == TK_LINE_BACK ? NF_BACKWARD : 0;
        if (flag) {
            if (n->flags & flag) parse_fail(p, tok_span(t), "%s given twice in 'find'", tok_describe(t.kind));
            n->flags |= flag;
            parse_advance(p);
        } else if (n->kids[1] || !parse_number_range(p, false, &n->kids[1], &n->kids[2])) {
            break;
        }
        if ((n->flags & NF_ALL) && n->kids[1])
            parse_fail(p, tok_span(t), "'find all' counts every position: it takes no range");
    }
    n->kids[0] = parse_prefix_operand(p, PREC_LOWEST, TM_ANY, kw);
    n->span = span_join(n->span, n->kids[0]->span);
    n->type = (n->flags & NF_ALL) || n->kids[1] ? VT_NUMBER : VT_POSITION;
    return n;
}

/* A position variable named in echo / consecutivemoves. */
static Token expect_name(Parser *p, const char *what)
{
    if (p->tok.kind != TK_IDENT) parse_fail_expected(p, "%s", what);
    Token t = p->tok;
    parse_advance(p);
    return t;
}

/* echo := 'echo' ['quiet'] '(' name name ')' ['in' 'all'] F */
Node *parse_echo(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_ECHO, tok_span(kw), 1);
    if (parse_accept(p, TK_QUIET)) n->flags |= NF_QUIET;
    Token open = parse_expect(p, TK_LPAREN, "'(' and two position variables after 'echo'");
    Token source = expect_name(p, "a name for the source position");
    Token target = expect_name(p, "a name for the target position");
    parse_expect_closing(p, TK_RPAREN, open);
    int32_t s, t;
    parse_check(p, tok_span(source), sema_bind(p->q, parse_token_text(p, source), VK_POSITION, tok_span(source), &s));
    parse_check(p, tok_span(target), sema_bind(p->q, parse_token_text(p, target), VK_POSITION, tok_span(target), &t));
    n->slot = s;
    n->num = t;
    if (p->tok.kind == TK_IN && parse_peek(p, 1)->kind == TK_ALL) {
        parse_advance(p);
        parse_advance(p);
        n->flags |= NF_IN_ALL;
    }
    n->kids[0] = parse_prefix_operand(p, PREC_LOWEST, TM_ANY, kw);
    n->span = span_join(n->span, n->kids[0]->span);
    /* its value is its body's at the first target where the body matches
     * (CQL 6.2: `sort "n" echo (s t) {... ply >= 80}`) */
    n->type = n->kids[0]->type == VT_DICTIONARY ? VT_NONE : n->kids[0]->type;
    return n;
}

/* consecutivemoves := 'consecutivemoves' {'quiet' | range} '(' name name ')' */
Node *parse_consecutivemoves(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_CONSECUTIVEMOVES, tok_span(kw), 4);
    for (;;) {
        if (p->tok.kind == TK_QUIET && !(n->flags & NF_QUIET)) {
            n->flags |= NF_QUIET;
            parse_advance(p);
        } else if (n->kids[2] || !parse_number_range(p, false, &n->kids[2], &n->kids[3])) {
            break;
        }
    }
    Token open = parse_expect(p, TK_LPAREN, "'(' and two position variables");
    for (int i = 0; i < 2; i++) {
        Token v = expect_name(p, "a position variable");
        int32_t slot = sema_lookup_var(p->q, parse_token_text(p, v));
        if (slot < 0 || sema_var(p->q, slot)->kind != VK_POSITION)
            parse_fail(p, tok_span(v), "'consecutivemoves' needs position variables, and '%.*s' is not one",
                       (int)v.len, p->src->text + v.start);
        Node *var = parse_node(p, ND_VAR, tok_span(v), 0);
        var->slot = slot;
        var->text = sema_var(p->q, slot)->name;
        var->type = VT_POSITION;
        n->kids[i] = var;
    }
    n->span = span_join(n->span, tok_span(p->tok));
    parse_expect_closing(p, TK_RPAREN, open);
    n->type = VT_NUMBER;
    return n;
}

/* sort := 'sort' ['min'] [string] F      (a string must follow 'min') */
Node *parse_sort(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_SORT, tok_span(kw), 1);
    if (parse_accept(p, TK_MIN)) {
        n->flags |= NF_MIN;
        if (p->tok.kind != TK_STRING) parse_fail_expected(p, "a documentation string after 'sort min'");
    }
    if (p->tok.kind == TK_STRING) {
        n->text = parse_decode_string(p, p->tok);
        parse_advance(p);
    }
    /* a set sorts by its size (CQL 6.2: `sort "n" A`), a position by its
     * place in the game; `sort "n" find 2 100 check` sorts by the count */
    Node *value = parse_prefix_operand(p, PREC_LOWEST, TM_NUMBER | TM_STRING | TM_SET | TM_POSITION, kw);
    if (value->kind == ND_INT) parse_fail(p, value->span, "'sort' needs a filter to sort by, not a constant");
    n->kids[0] = value;
    n->span = span_join(n->span, value->span);
    n->type = value->type;
    return n;
}

/* }==== */

/* {==== geometry ============================================================= */

/* Direction mask of a direction keyword (its SPELLING's arg in filters.def),
 * 0 for other tokens. */
static uint8_t direction_mask(TokKind k)
{
    return filter_of_keyword(k) == ND_DIRECTION ? (uint8_t)filter_keyword_arg(k) : 0;
}

/* direction := ('up' | 'down' | ... | 'anydirection') [range] S
 * A bound may be negative (CQL 6.2: `up -1 1 d4`) or a numeric variable
 * (`X = 2 up X K`). Whether the range lies within -7..7, the smaller bound
 * first, is checked where the filter is evaluated, as CQL 6.2 does. */
Node *parse_direction(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_DIRECTION, tok_span(kw), 3);
    n->op = kw.kind;
    n->dirs = direction_mask(kw.kind);
    parse_number_range(p, true, &n->kids[1], &n->kids[2]);
    n->kids[0] = parse_prefix_operand(p, PREC_DIR, TM_SET, kw);
    n->span = span_join(n->span, n->kids[0]->span);
    n->type = VT_SET;
    return n;
}

int64_t parse_count_literal(Parser *p, const char *who)
{
    Token t = p->tok;
    if (t.kind != TK_INT) {
        parse_fail_expected(p, "a number after '%s'", who);
    }
    return parse_int(p)->num;
}

static void require_kids(Parser *p, Node *n, TypeMask allowed, const char *role)
{
    for (uint32_t i = 0; i < n->nkids; i++)
        if (n->kids[i]) parse_check(p, n->kids[i]->span, sema_require(p->a, n->kids[i], allowed, role));
}

/* ray := 'ray' {direction} '(' S S {S} ')'
 * xray := 'xray' '(' S S {S} ')' */
Node *parse_ray(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, kw.kind == TK_RAY ? ND_RAY : ND_XRAY, tok_span(kw), 0);
    while (kw.kind == TK_RAY && direction_mask(p->tok.kind)) {
        uint8_t m = direction_mask(p->tok.kind);
        if (n->dirs & m)
            parse_fail(p, tok_span(p->tok), "direction %s repeats a direction already given to 'ray'",
                       tok_describe(p->tok.kind));
        n->dirs |= m;
        parse_advance(p);
    }
    if (kw.kind == TK_RAY && n->dirs == 0) n->dirs = 0xFF;
    parse_argument_list(p, n, 2, UINT32_MAX, tok_ascii(kw.kind));
    require_kids(p, n, TM_SET, kw.kind == TK_RAY ? "an argument of 'ray'" : "an argument of 'xray'");
    n->type = VT_SET;
    return n;
}

/* pin := 'pin' {('from' | 'through' | 'to') S}
 * The value depends on the parameter written first (op). */
Node *parse_pin(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_PIN, tok_span(kw), 3);
    for (;;) {
        Token t = p->tok;
        int which = t.kind == TK_FROM ? 0 : t.kind == TK_THROUGH ? 1 : t.kind == TK_TO ? 2 : -1;
        if (which < 0) break;
        if (n->kids[which]) parse_fail(p, tok_span(t), "%s given twice in 'pin'", tok_describe(t.kind));
        parse_advance(p);
        if (n->op == TK_EOF) n->op = t.kind;
        Node *arg = parse_prefix_operand(p, PREC_DIR, TM_SET, t);
        n->kids[which] = arg;
        n->span = span_join(n->span, arg->span);
    }
    n->type = VT_SET;
    return n;
}

/* }==== */

/* {==== functions of numbers and strings ===================================== */

/* makesquare := 'makesquare' ('(' F F ')' | '(' F ')' | F) */
Node *parse_makesquare(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_MAKESQUARE, tok_span(kw), 0);
    if (p->tok.kind == TK_LPAREN) {
        parse_argument_list(p, n, 1, 2, "makesquare");
        require_kids(p, n, n->nkids == 2 ? TM_NUMBER : TM_STRING,
                     n->nkids == 2 ? "a file or rank number of 'makesquare'" : "the square name of 'makesquare'");
    } else {
        ast_push(p->a, n, parse_prefix_operand(p, PREC_RHS, TM_STRING, kw));
        n->span = span_join(n->span, n->kids[0]->span);
    }
    n->type = VT_SET;
    return n;
}

/* args := keyword '(' F ... ')'      (between, lca, distance, ancestor,
 *                                     descendant, indexof, writefile, settag) */
static Node *parse_fixed_arguments(Parser *p, NodeKind kind, const ParseRule *r)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, kind, tok_span(kw), 0);
    const char *name = tok_ascii(kw.kind);   /* a keyword: never NULL */
    parse_argument_list(p, n, r->min, r->max, name);
    char role[64];
    snprintf(role, sizeof role, "an argument of '%s'", name ? name : "?");
    require_kids(p, n, r->operand, role);
    n->type = (ValueType)r->result;
    return n;
}

/* minmax := ('max' | 'min') '(' F F {F} ')' */
Node *parse_minmax(Parser *p)
{
    static const ParseRule minmax = {
        .shape = SH_ARGS, .min = 2, .max = UINT32_MAX, .operand = TM_NUMBER, .result = VT_NUMBER,
    };
    TokKind op = p->tok.kind;
    Node *n = parse_fixed_arguments(p, ND_MINMAX, &minmax);
    n->op = op;
    return n;
}

/* message-args := '(' F {F} ')' | F — shared by comment, message, str, move comment.
 * Without parentheses the argument takes `and` and `or` with it, as in CQL
 * 6.2: `comment "y" and comment "z"` is `comment ("y" and comment "z")`. */
Node *parse_message_args(Parser *p, Node *n)
{
    if (p->tok.kind == TK_LPAREN) return parse_argument_list(p, n, 1, UINT32_MAX, ast_kind_name(n->kind));
    Token kw = p->prev;
    Node *arg = parse_prefix_operand(p, PREC_OR, TM_ANY, kw);
    ast_push(p->a, n, arg);
    n->span = span_join(n->span, arg->span);
    return n;
}

/* comment := 'comment' message-args
 * message := 'message' ['quiet'] message-args
 * str     := 'str' message-args */
Node *parse_comment_like(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    NodeKind kind = kw.kind == TK_COMMENT ? ND_COMMENT : kw.kind == TK_MESSAGE ? ND_MESSAGE : ND_STR;
    Node *n = parse_node(p, kind, tok_span(kw), 0);
    if (kind == ND_MESSAGE && parse_accept(p, TK_QUIET)) n->flags |= NF_QUIET;
    parse_message_args(p, n);
    n->type = kind == ND_STR ? VT_STRING : VT_NONE;
    return n;
}

/* comment-symbol := '///' F {F}     (the arguments end with the line; an
 * argument list, as in `comment (...)`) */
Node *parse_comment_symbol(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_COMMENT, tok_span(kw), 0);
    n->flags |= NF_SYMBOL;
    bool in_arguments = p->in_arguments;
    p->in_arguments = true;
    for (;;) {
        bool same_line = memchr(p->src->text + kw.start, '\n', p->tok.start - kw.start) == NULL;
        if (!same_line || !parse_starts_filter(&p->tok)) break;
        Node *arg = parse_expr(p, PREC_NOT);
        ast_push(p->a, n, arg);
        n->span = span_join(n->span, arg->span);
    }
    p->in_arguments = in_arguments;
    if (n->nkids == 0) parse_fail_expected(p, "something to comment after '///' on the same line");
    n->type = VT_NONE;
    return n;
}

/* }==== */

/* {==== game facts =========================================================== */

/* Checks the board part of `fen "..."` (CQL 6.2 rejects malformed boards when
 * compiling; the other fields are not checked). Every rank has 8 squares,
 * but the last may have more: CQL 6.2 ignores the squares after its eighth
 * (its own filter table writes `fen "8/8/8/8/8/8/8/6K.k"`). Returns an error
 * or NULL. */
static const char *check_fen_board(const char *fen)
{
    int ranks = 0, squares = 0;
    for (const char *c = fen;; c++) {
        if (*c == '/' || *c == ' ' || *c == '\0') {
            bool last = *c != '/';
            if (squares == 0) return "an empty rank";
            if (squares < 8 || (squares > 8 && !last)) return "a rank without exactly 8 squares";
            ranks++;
            squares = 0;
            if (last) break;
        } else if (*c >= '1' && *c <= '8') {
            squares += *c - '0';
        } else if (strchr("KQRBNPkqrbnpAa._", *c)) {
            squares++;
        } else {
            return "a character that is not a piece, a digit 1-8 or '/'";
        }
    }
    return ranks < 8 ? "fewer than 8 ranks" : NULL;
}

bool parse_takes_optional_string(const Parser *p)
{
    return p->tok.kind == TK_STRING && !p->in_arguments;
}

/* game-text := keyword [string]      (event, site, date, eventdate, eco,
 *                                    hascomment, originalcomment)
 * With the string, a substring search (no value); without, the text. In an
 * argument list the string is the next argument: `comment("e=" event "x")`. */
static Node *parse_game_text(Parser *p, NodeKind kind, bool sides)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, kind, tok_span(kw), 1);
    if (sides) {
        if (parse_accept(p, TK_WHITE)) n->flags |= NF_WHITE;
        else if (parse_accept(p, TK_BLACK)) n->flags |= NF_BLACK;
    }
    n->type = VT_STRING;
    if (parse_takes_optional_string(p)) {
        n->kids[0] = parse_string(p);
        n->span = span_join(n->span, n->kids[0]->span);
        n->type = VT_NONE;
    }
    return n;
}

/* player := 'player' ['white' | 'black'] [string] */
Node *parse_player(Parser *p)
{
    return parse_game_text(p, ND_PLAYER, true);
}

/* fen := 'fen' [string]      (the board of the string is checked here) */
/* The board of a FEN pattern (checked) as the evaluator compares it: each
 * run of empty squares (digits, and `_` as in a designator) written as one
 * digit ("71" is 8, as CQL 6.2 reads it), the squares after the eighth of
 * the last rank left out; the board only (the rest is not compared). */
static char *canonical_fen_board(Arena *a, const char *fen)
{
    size_t len = strcspn(fen, " ");
    char *out = arena_alloc(a, len + 1), *o = out;
    int empty = 0, squares = 0;
    for (size_t i = 0; i < len; i++) {
        if (fen[i] == '/') {
            squares = 0;
        } else if (squares >= 8) {
            continue;   /* past the eighth square of the last rank */
        } else if ((fen[i] >= '1' && fen[i] <= '8') || fen[i] == '_') {
            int n = fen[i] == '_' ? 1 : fen[i] - '0';
            if (n > 8 - squares) n = 8 - squares;
            empty += n;
            squares += n;
            continue;
        } else {
            squares++;
        }
        if (empty) *o++ = (char)('0' + empty);
        empty = 0;
        *o++ = fen[i];
    }
    if (empty) *o++ = (char)('0' + empty);
    *o = '\0';
    return out;
}

Node *parse_fen(Parser *p)
{
    Node *n = parse_game_text(p, ND_FEN, false);
    if (n->kids[0]) {
        const char *err = check_fen_board(n->kids[0]->text);
        if (err) parse_fail(p, n->kids[0]->span, "invalid FEN board in 'fen': %s", err);
        n->kids[0]->text = canonical_fen_board(p->a, n->kids[0]->text);
    }
    return n;
}

/* elo := 'elo' ['white' | 'black'] */
Node *parse_elo(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_ELO, tok_span(kw), 0);
    if (parse_accept(p, TK_WHITE)) n->flags |= NF_WHITE;
    else if (parse_accept(p, TK_BLACK)) n->flags |= NF_BLACK;
    n->type = VT_NUMBER;
    return n;
}

/* result-text := string | '1-0' | '0-1' | '1/2-1/2'   (written without spaces) */
const char *parse_result_text(Parser *p, Token kw)
{
    static const char *const results[] = {"1-0", "0-1", "1/2-1/2", "*"};
    Span span = tok_span(p->tok);
    const char *text;
    if (p->tok.kind == TK_STRING) {
        text = parse_decode_string(p, p->tok);
        parse_advance(p);
    } else {
        if (p->tok.kind != TK_INT && p->tok.kind != TK_STAR) {
            parse_fail_expected(p, "a result (1-0, 0-1 or 1/2-1/2) after %s", tok_describe(kw.kind));
        }
        parse_advance(p);
        while ((p->tok.kind == TK_INT || p->tok.kind == TK_MINUS || p->tok.kind == TK_SLASH) && parse_glued(&p->tok)) {
            span.end = p->tok.start + p->tok.len;
            parse_advance(p);
        }
        text = arena_strndup(p->a, p->src->text + span.start, span.end - span.start);
    }
    for (size_t i = 0; i < sizeof results / sizeof results[0]; i++)
        if (strcmp(text, results[i]) == 0) return results[i];
    parse_fail(p, span, "unknown result '%s' (write 1-0, 0-1 or 1/2-1/2)", text);
}

/* result := 'result' result-text */
Node *parse_result(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Span start = tok_span(kw);
    const char *text = parse_result_text(p, kw);
    Node *n = parse_node(p, ND_RESULT, span_join(start, tok_span(p->prev)), 0);
    n->text = text;
    n->type = VT_NONE;
    return n;
}

/* position := 'position' F        child := 'child' ['(' F ')'] */
Node *parse_position_or_child(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    if (kw.kind == TK_POSITION) {
        /* the id may be a sum: `position positionid + 1` (CQL 6.2); a ':'
         * after it still applies to the position */
        Node *id = parse_prefix_operand(p, PREC_PRIMARY, TM_NUMBER, kw);
        while ((p->tok.kind == TK_PLUS || p->tok.kind == TK_MINUS) && parse_starts_filter(parse_peek(p, 1))) {
            Token op = p->tok;
            parse_advance(p);
            Node *rhs = parse_prefix_operand(p, PREC_PRIMARY, TM_NUMBER, op);
            Node *sum = parse_node2(p, ND_ARITH, id, rhs);
            sum->op = op.kind;
            sum->type = VT_NUMBER;
            id = sum;
        }
        Node *n = parse_node1(p, ND_POSITION, span_join(tok_span(kw), id->span), id);
        n->type = VT_POSITION;
        return n;
    }
    Node *n = parse_node(p, ND_CHILD, tok_span(kw), 1);
    if (p->tok.kind == TK_LPAREN && parse_glued(&p->tok)) {
        Token open = p->tok;
        parse_advance(p);
        n->kids[0] = parse_prefix_operand(p, PREC_LOWEST, TM_NUMBER, open);
        n->span = span_join(n->span, tok_span(p->tok));
        parse_expect_closing(p, TK_RPAREN, open);
    }
    n->type = VT_POSITION;
    return n;
}

/* hhdb := 'hhdb' key [string]            a key; a string after a string-valued key
 *                                         is a substring test
 *        | 'hhdb' 'gbr' part [string]     material pieces pawns kings
 *        | 'hhdb' award-word {award-word} award prize hm commendation special max sort
 * A key of letters, digits and `_` is written bare, any other quoted
 * (`hhdb "(c)"`). Node: num = the key's index (hhdb_keys.h), -1 for an
 * award; num2 = the award words; text = the key as written; kids[0] = the
 * substring or NULL. (cql62-remaining.md §14) */
static const char hhdb_expecting[] =
    "Expecting a valid hhdb keyword following 'hhdb'. Use 'cql -hhdb info' to see all the valid keywords";

/* The text of the current token when it is a word (a name or a keyword), else NULL. */
static char *hhdb_word(Parser *p)
{
    if (p->tok.kind != TK_IDENT && tok_class(p->tok.kind) != TC_KEYWORD) return NULL;
    return parse_token_text(p, p->tok);
}

static void parse_hhdb_awards(Parser *p, Node *n)
{
    unsigned words = 0;
    Span last = tok_span(p->tok);
    for (;;) {
        char *w = hhdb_word(p);
        unsigned bit = w ? hhdb_award_word(w) : 0;
        if (!bit) break;
        const unsigned types = HHA_AWARD | HHA_PRIZE | HHA_HM | HHA_COMMENDATION;
        if ((bit & types) && (words & types))
            parse_fail(p, tok_span(p->tok), "multiple type (hm, prize, commendation or award) specifications following 'hhdb'");
        if (bit == HHA_MAX && (words & HHA_MAX)) parse_fail(p, tok_span(p->tok), "multiple max keywords following 'hhdb'");
        if (bit == HHA_SPECIAL && (words & HHA_SPECIAL))
            parse_fail(p, tok_span(p->tok), "multiple special keywords following 'hhdb'");
        if (bit == HHA_SORT && (words & HHA_SORT)) parse_fail(p, tok_span(p->tok), "multiple sort keywords following 'hhdb'");
        if ((bit | words) & HHA_SORT && (bit | words) & HHA_MAX)
            parse_fail(p, tok_span(p->tok), "'hhdb' cannot be followed by both the 'sort' and the 'max' keywords");
        words |= bit;
        last = tok_span(p->tok);
        parse_advance(p);
    }
    if (words & HHA_SORT) {
        bool typed = (words & (HHA_AWARD | HHA_PRIZE | HHA_HM | HHA_COMMENDATION | HHA_SPECIAL)) != 0;
        if (!typed)
            parse_fail(p, last, "'sort' apparently appears as the last parameter to 'hhdb': it must be followed by "
                                "award, prize, hm, commendation or special");
    }
    n->num = -1;
    n->num2 = words;
    n->span = span_join(n->span, last);
    n->type = VT_NUMBER;
}

Node *parse_hhdb(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_HHDB, tok_span(kw), 1);
    const HhdbKey *key = NULL;
    if (p->tok.kind == TK_STRING) {
        char *name = parse_decode_string(p, p->tok);
        key = hhdb_key(name, true);
        if (!key) parse_fail(p, tok_span(p->tok), "%s", hhdb_expecting);
    } else {
        char *name = hhdb_word(p);
        if (!name) parse_fail(p, tok_span(p->tok), "%s", hhdb_expecting);
        if (hhdb_award_word(name)) {
            parse_hhdb_awards(p, n);
            return n;
        }
        if (hhdb_is_gbr_part_name(name)) parse_fail(p, tok_span(p->tok), "Internal: no cql mapping for key: %s", name);
        key = hhdb_key(name, false);
        if (!key) parse_fail(p, tok_span(p->tok), "%s", hhdb_expecting);
        if (key->what == HH_UNMAPPED) parse_fail(p, tok_span(p->tok), "Internal: no cql mapping for key: %s", name);
    }
    n->text = key->name;
    n->span = span_join(n->span, tok_span(p->tok));
    parse_advance(p);
    if (key->what == HH_GBR) {
        char *part = hhdb_word(p);
        const HhdbKey *k = part ? hhdb_gbr_part(part) : NULL;
        if (k) {
            key = k;
            n->span = span_join(n->span, tok_span(p->tok));
            parse_advance(p);
        }
    }
    n->num = hhdb_key_index(key);
    n->type = key->type;
    if (key->type == VT_STRING && parse_takes_optional_string(p)) {
        /* a substring test; CQL 6.2 reads the string as an "implicit search"
         * pattern, so pattern characters are refused */
        char *text = parse_decode_string(p, p->tok);
        if (!text[0]) parse_fail(p, tok_span(p->tok), "the string after 'hhdb %s' may not be empty", key->name);
        if (strpbrk(text + 1, "+*?") || strpbrk(text, "[]"))
            parse_fail(p, tok_span(p->tok), "the string after 'hhdb %s' is an implicit search: it may not contain "
                                            "'[', ']' or, after its first character, '+', '*' or '?'", key->name);
        n->kids[0] = parse_string(p);
        n->span = span_join(n->span, n->kids[0]->span);
    }
    return n;
}

/* similarposition := 'similarposition' ['nosort'] ['notransform'] string
 * (the two words in either order). The file is read before the search
 * (eval/submission.h), so it is a string written out. Unless `nosort`,
 * the games are sorted as by `sort min "submission game" X`: the node
 * comes back wrapped in that sort, so that it sorts as any sort does. */
Node *parse_similarposition(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_SIMILARPOSITION, tok_span(kw), 0);
    bool nosort = false;
    for (;;) {
        if (!nosort && parse_accept(p, TK_NOSORT)) nosort = true;
        else if (!n->num && parse_accept(p, TK_NOTRANSFORM)) n->num = 1;
        else break;
    }
    if (p->tok.kind != TK_STRING) parse_fail_expected(p, "the name of a PGN file (a string) after 'similarposition'");
    n->text = parse_decode_string(p, p->tok);
    if (!n->text[0]) parse_fail(p, tok_span(p->tok), "the file name after 'similarposition' may not be empty");
    n->span = span_join(n->span, tok_span(p->tok));
    parse_advance(p);
    n->type = VT_NUMBER;
    if (nosort) return n;
    Node *sort = parse_node1(p, ND_SORT, n->span, n);
    sort->flags |= NF_MIN;
    sort->text = "submission game";
    sort->type = VT_NUMBER;
    return sort;
}

/* }==== */

/* {==== keyword dispatch ===================================================== */

/* keyword-filter := any filter that begins with a keyword (a SPELLING of its
 * row in filters.def), parsed as its row's shape says */
Node *parse_keyword(Parser *p)
{
    Token t = p->tok;
    if (t.kind == TK_DIHEDRAL || t.kind == TK_FLIPDIHEDRAL || t.kind == TK_TRANSFORM)
        parse_fail(p, tok_span(t), "%s is reserved by CQL and is not a filter", tok_describe(t.kind));
    NodeKind kind = filter_of_keyword(t.kind);
    if (kind == ND_COUNT_) parse_fail(p, tok_span(t), "%s is not a filter here", tok_describe(t.kind));
    const ParseRule *r = &rules[kind];
    Node *n;
    switch (r->shape) {
    case SH_KW0: case SH_KW1: n = parse_keyword_filter(p, kind, r); break;
    case SH_ARGS: n = parse_fixed_arguments(p, kind, r); break;
    case SH_GAMETEXT: n = parse_game_text(p, kind, false); break;
    case SH_WITH: n = r->parse(p); break;
    default: parse_fail(p, tok_span(t), "%s has no parse rule", tok_describe(t.kind));   /* a bad row */
    }
    /* the row's result type is the type of the node it describes */
    assert(n->kind != kind || r->result == VT_VARIES || r->result == VT_SAME || n->type == (ValueType)r->result);
    return n;
}

/* }==== */
