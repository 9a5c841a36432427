/*
 * src/query/parser_filters.c — the filters that begin with a keyword: control
 * (if, while, transforms, iteration, find, echo, sort), geometry (direction
 * filters, ray, xray, pin), functions of numbers and strings, comments and
 * messages, and the game facts. parse_keyword dispatches on the keyword;
 * keywords without arguments and with one operand come from the KW0/KW1
 * tables of query/nodes.def. Moves, line and path are in parser_move.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "chess/bitboard.h"
#include "query/parser_int.h"

/* {==== keyword tables ======================================================= */

typedef struct KeywordFilter {
    TokKind tok;
    NodeKind kind;
    Prec prec;          /* operand level (KW1) */
    TypeMask operand;   /* 0 for KW0 */
    ValueType result;   /* VT_SAME: the operand's type */
} KeywordFilter;

static const KeywordFilter keyword_filters[] = {
#define KW0(kind, tok, result) {tok, kind, PREC_PRIMARY, 0, result},
#define KW1(kind, tok, prec, operand, result) {tok, kind, prec, operand, result},
#include "query/nodes.def"
};

static const KeywordFilter *keyword_filter(TokKind k)
{
    for (size_t i = 0; i < sizeof keyword_filters / sizeof keyword_filters[0]; i++)
        if (keyword_filters[i].tok == k) return &keyword_filters[i];
    return NULL;
}

/* }==== */

/* kw1 := keyword F      (not, abs, rank, light, ... : query/nodes.def KW1) */
static Node *parse_keyword_filter(Parser *p, const KeywordFilter *kf)
{
    Token kw = p->tok;
    advance(p);
    if (kf->operand == 0) {
        Node *n = new_node(p, kf->kind, tok_span(kw), 0);
        n->type = kf->result;
        return n;
    }
    Node *operand = prefix_operand(p, kf->prec, kf->operand, kw);
    Node *n = node1(p, kf->kind, span_join(tok_span(kw), operand->span), operand);
    n->type = kf->result == VT_SAME ? operand->type : kf->result;
    if (kf->kind == ND_ASCII) n->type = operand->type == VT_NUMBER ? VT_STRING : VT_NUMBER;
    if (type_is_set(n->type)) n->type = VT_SET;
    return n;
}


/* {==== control, transforms, iteration ======================================= */

static ValueType value_type(ValueType t)
{
    return t == VT_PIECE ? VT_SET : t;
}

/* if := 'if' F ['then'] F ['else' F] */
static Node *parse_if(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    Node *n = new_node(p, ND_IF, tok_span(kw), 3);
    n->kids[0] = prefix_operand(p, PREC_LOWEST, TM_ANY, kw);
    accept(p, TK_THEN);
    n->kids[1] = prefix_operand(p, PREC_LOWEST, TM_ANY, kw);
    n->span = span_join(n->span, n->kids[1]->span);
    if (p->tok.kind == TK_ELSE) {
        Token e = p->tok;
        advance(p);
        n->kids[2] = prefix_operand(p, PREC_LOWEST, TM_ANY, e);
        n->span = span_join(n->span, n->kids[2]->span);
    }
    ValueType t = value_type(n->kids[1]->type);
    if (n->kids[2] && value_type(n->kids[2]->type) != t) t = VT_NONE;
    n->type = t == VT_DICTIONARY ? VT_NONE : t;
    return n;
}

/* while := 'while' '(' F ')' F */
static Node *parse_while(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    Token open = expect(p, TK_LPAREN, "'(' after 'while'");
    Node *n = new_node(p, ND_WHILE, tok_span(kw), 2);
    n->kids[0] = prefix_operand(p, PREC_LOWEST, TM_ANY, open);
    expect_closing(p, TK_RPAREN, open);
    n->kids[1] = prefix_operand(p, PREC_LOWEST, TM_ANY, kw);
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
static Node *parse_transform(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    bool count = false;
    if (p->tok.kind == TK_COUNT) {
        if (kw.kind == TK_REVERSECOLOR) parse_fail(p, tok_span(p->tok), "'reversecolor' does not take 'count'");
        count = true;
        advance(p);
    }
    Node *body = prefix_operand(p, PREC_LOWEST, TM_ANY, kw);
    if (kw.kind == TK_ROTATE45) {
        Rotate45Check c = {NULL};
        ast_walk(body, find_partial_designator, &c);
        if (c.bad)
            parse_fail(p, c.bad->span, "'rotate45' needs square designators that cover the whole board");
    }
    Node *n = node1(p, ND_TRANSFORM, span_join(tok_span(kw), body->span), body);
    n->op = kw.kind;
    if (count) n->flags |= NF_COUNT;
    n->type = count ? VT_NUMBER : value_type(body->type) == VT_DICTIONARY ? VT_NONE : value_type(body->type);
    return n;
}

/* square := 'square' ['all'] name 'in' S F
 * piece  := 'piece' ['all'] name 'in' S F  |  'piece' name ('=' | '=?') S */
static Node *parse_square_or_piece(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    bool all = accept(p, TK_ALL);
    Token var = p->tok;
    if (var.kind != TK_IDENT) fail_expected(p, "a variable name");
    char *name = tok_text(p, var);
    advance(p);
    if (kw.kind == TK_PIECE && !all && is_assign_op(p->tok.kind))
        return parse_assignment(p, name, NF_PIECE, tok_span(kw));
    Token in = expect(p, TK_IN, "'in' after the variable name");
    return finish_iteration(p, name, var, (all ? NF_ALL : 0) | (kw.kind == TK_PIECE ? NF_PIECE : 0), kw, in);
}

/* universal := '∀' (name | '◭'name) '∊' S F     ([forall] in ASCII) */
Node *parse_forall(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    if ((p->tok.kind != TK_IDENT && p->tok.kind != TK_PIECEVAR) || peek(p, 1)->kind != TK_ELEMENT)
        fail_expected(p, "a variable and '[element]' (or '∊') after '[forall]'");
    return parse_iteration(p, true, kw);
}

/* piece-var := '◭'name '∊' S F  |  '◭'name '=' S      ([Aa]name in ASCII) */
Node *parse_piece_variable(Parser *p)
{
    Token t = p->tok;
    const Token *next = peek(p, 1);
    if (next->kind == TK_ELEMENT) return parse_iteration(p, false, t);
    if (next->kind == TK_ASSIGN || next->kind == TK_ASSIGN_IF) {
        uint32_t name_at = lex_piecevar_name(p->src->text, t);
        char *name = arena_strndup(p->a, p->src->text + name_at, t.start + t.len - name_at);
        advance(p);
        return parse_assignment(p, name, NF_PIECE, tok_span(t));
    }
    advance(p);
    fail_expected(p, "'[element]' (or '∊') after the piece variable");
}

/* A range bound of find / consecutivemoves: an integer or a numeric variable. */
static Node *parse_range_bound(Parser *p)
{
    if (p->tok.kind == TK_INT) return parse_int(p);
    if (p->tok.kind != TK_IDENT) return NULL;
    int32_t slot = sema_lookup_var(p->q, tok_text(p, p->tok));
    if (slot < 0 || sema_var(p->q, slot)->kind != VK_NUMBER) return NULL;
    Node *n = new_node(p, ND_VAR, tok_span(p->tok), 0);
    n->slot = slot;
    n->text = sema_var(p->q, slot)->name;
    n->type = VT_NUMBER;
    advance(p);
    return n;
}

/* find := 'find' {'all' | 'quiet' | '<--' | range} F
 * range := bound [bound] */
static Node *parse_find(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    Node *n = new_node(p, ND_FIND, tok_span(kw), 3);
    for (;;) {
        Token t = p->tok;
        uint64_t flag = t.kind == TK_ALL ? NF_ALL : t.kind == TK_QUIET ? NF_QUIET : t.kind == TK_LINE_BACK ? NF_BACKWARD : 0;
        if (flag) {
            if (n->flags & flag) parse_fail(p, tok_span(t), "%s given twice in 'find'", tok_describe(t.kind));
            n->flags |= flag;
            advance(p);
        } else if (!n->kids[1] && (n->kids[1] = parse_range_bound(p)) != NULL) {
            n->kids[2] = parse_range_bound(p);
        } else {
            break;
        }
        if ((n->flags & NF_ALL) && n->kids[1])
            parse_fail(p, tok_span(t), "'find all' counts every position: it takes no range");
    }
    n->kids[0] = prefix_operand(p, PREC_LOWEST, TM_ANY, kw);
    n->span = span_join(n->span, n->kids[0]->span);
    n->type = n->flags & NF_ALL ? VT_NUMBER : VT_POSITION;
    return n;
}

/* A position variable named in echo / consecutivemoves. */
static Token expect_name(Parser *p, const char *what)
{
    if (p->tok.kind != TK_IDENT) fail_expected(p, "%s", what);
    Token t = p->tok;
    advance(p);
    return t;
}

/* echo := 'echo' ['quiet'] '(' name name ')' ['in' 'all'] F */
static Node *parse_echo(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    Node *n = new_node(p, ND_ECHO, tok_span(kw), 1);
    if (accept(p, TK_QUIET)) n->flags |= NF_QUIET;
    Token open = expect(p, TK_LPAREN, "'(' and two position variables after 'echo'");
    Token source = expect_name(p, "a name for the source position");
    Token target = expect_name(p, "a name for the target position");
    expect_closing(p, TK_RPAREN, open);
    int32_t s, t;
    parse_check(p, tok_span(source), sema_bind(p->q, tok_text(p, source), VK_POSITION, tok_span(source), &s));
    parse_check(p, tok_span(target), sema_bind(p->q, tok_text(p, target), VK_POSITION, tok_span(target), &t));
    n->slot = s;
    n->num = t;
    if (p->tok.kind == TK_IN && peek(p, 1)->kind == TK_ALL) {
        advance(p);
        advance(p);
        n->flags |= NF_IN_ALL;
    }
    n->kids[0] = prefix_operand(p, PREC_LOWEST, TM_ANY, kw);
    n->span = span_join(n->span, n->kids[0]->span);
    n->type = VT_NONE;
    return n;
}

/* consecutivemoves := 'consecutivemoves' {'quiet' | range} '(' name name ')' */
static Node *parse_consecutivemoves(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    Node *n = new_node(p, ND_CONSECUTIVEMOVES, tok_span(kw), 4);
    for (;;) {
        if (p->tok.kind == TK_QUIET && !(n->flags & NF_QUIET)) {
            n->flags |= NF_QUIET;
            advance(p);
        } else if (!n->kids[2] && (n->kids[2] = parse_range_bound(p)) != NULL) {
            n->kids[3] = parse_range_bound(p);
        } else {
            break;
        }
    }
    Token open = expect(p, TK_LPAREN, "'(' and two position variables");
    for (int i = 0; i < 2; i++) {
        Token v = expect_name(p, "a position variable");
        int32_t slot = sema_lookup_var(p->q, tok_text(p, v));
        if (slot < 0 || sema_var(p->q, slot)->kind != VK_POSITION)
            parse_fail(p, tok_span(v), "'consecutivemoves' needs position variables, and '%.*s' is not one",
                       (int)v.len, p->src->text + v.start);
        Node *var = new_node(p, ND_VAR, tok_span(v), 0);
        var->slot = slot;
        var->text = sema_var(p->q, slot)->name;
        var->type = VT_POSITION;
        n->kids[i] = var;
    }
    n->span = span_join(n->span, tok_span(p->tok));
    expect_closing(p, TK_RPAREN, open);
    n->type = VT_NUMBER;
    return n;
}

/* sort := 'sort' ['min'] [string] F      (a string must follow 'min') */
static Node *parse_sort(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    Node *n = new_node(p, ND_SORT, tok_span(kw), 1);
    if (accept(p, TK_MIN)) {
        n->flags |= NF_MIN;
        if (p->tok.kind != TK_STRING) fail_expected(p, "a documentation string after 'sort min'");
    }
    if (p->tok.kind == TK_STRING) {
        n->text = decode_string(p, p->tok);
        advance(p);
    }
    Node *value = prefix_operand(p, PREC_LOWEST, TM_NUMBER | TM_STRING, kw);
    if (value->kind == ND_INT) parse_fail(p, value->span, "'sort' needs a filter to sort by, not a constant");
    n->kids[0] = value;
    n->span = span_join(n->span, value->span);
    n->type = value->type;
    return n;
}

/* }==== */

/* {==== geometry ============================================================= */

/* Direction mask of a direction keyword, 0 for other tokens. */
static uint8_t direction_mask(TokKind k)
{
    enum {
        N = 1 << DIR_N, S = 1 << DIR_S, E = 1 << DIR_E, W = 1 << DIR_W,
        NE = 1 << DIR_NE, NW = 1 << DIR_NW, SE = 1 << DIR_SE, SW = 1 << DIR_SW
    };
    switch (k) {
    case TK_UP: return N;
    case TK_DOWN: return S;
    case TK_LEFT: return W;
    case TK_RIGHT: return E;
    case TK_NORTHEAST: return NE;
    case TK_NORTHWEST: return NW;
    case TK_SOUTHEAST: return SE;
    case TK_SOUTHWEST: return SW;
    case TK_VERTICAL: return N | S;
    case TK_HORIZONTAL: return E | W;
    case TK_ORTHOGONAL: return N | S | E | W;
    case TK_DIAGONAL: return NE | NW | SE | SW;
    case TK_MAINDIAGONAL: return NE | SW;
    case TK_OFFDIAGONAL: return NW | SE;
    case TK_ANYDIRECTION: return 0xFF;
    default: return 0;
    }
}

/* direction := ('up' | 'down' | ... | 'anydirection') [int [int]] S */
static Node *parse_direction(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    Node *n = new_node(p, ND_DIRECTION, tok_span(kw), 1);
    n->op = kw.kind;
    n->dirs = direction_mask(kw.kind);
    n->num = 1;
    n->num2 = 7;
    if (p->tok.kind == TK_INT) {
        n->num = n->num2 = parse_count_literal(p, tok_ascii(kw.kind));
        if (p->tok.kind == TK_INT) n->num2 = parse_count_literal(p, tok_ascii(kw.kind));
        if (n->num2 < n->num) parse_fail(p, n->span, "the range of '%s' is empty", tok_ascii(kw.kind));
    }
    n->kids[0] = prefix_operand(p, PREC_DIR, TM_SET, kw);
    n->span = span_join(n->span, n->kids[0]->span);
    n->type = VT_SET;
    return n;
}

int64_t parse_count_literal(Parser *p, const char *who)
{
    Token t = p->tok;
    if (t.kind != TK_INT) {
        fail_expected(p, "a number after '%s'", who);
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
static Node *parse_ray(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    Node *n = new_node(p, kw.kind == TK_RAY ? ND_RAY : ND_XRAY, tok_span(kw), 0);
    while (kw.kind == TK_RAY && direction_mask(p->tok.kind)) {
        uint8_t m = direction_mask(p->tok.kind);
        if (n->dirs & m)
            parse_fail(p, tok_span(p->tok), "direction %s repeats a direction already given to 'ray'",
                       tok_describe(p->tok.kind));
        n->dirs |= m;
        advance(p);
    }
    if (kw.kind == TK_RAY && n->dirs == 0) n->dirs = 0xFF;
    parse_argument_list(p, n, 2, UINT32_MAX, tok_ascii(kw.kind));
    require_kids(p, n, TM_SET, kw.kind == TK_RAY ? "an argument of 'ray'" : "an argument of 'xray'");
    n->type = VT_SET;
    return n;
}

/* pin := 'pin' {('from' | 'through' | 'to') S}
 * The value depends on the parameter written first (op). */
static Node *parse_pin(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    Node *n = new_node(p, ND_PIN, tok_span(kw), 3);
    for (;;) {
        Token t = p->tok;
        int which = t.kind == TK_FROM ? 0 : t.kind == TK_THROUGH ? 1 : t.kind == TK_TO ? 2 : -1;
        if (which < 0) break;
        if (n->kids[which]) parse_fail(p, tok_span(t), "%s given twice in 'pin'", tok_describe(t.kind));
        advance(p);
        if (n->op == TK_EOF) n->op = t.kind;
        Node *arg = prefix_operand(p, PREC_DIR, TM_SET, t);
        n->kids[which] = arg;
        n->span = span_join(n->span, arg->span);
    }
    n->type = VT_SET;
    return n;
}

/* }==== */

/* {==== functions of numbers and strings ===================================== */

/* makesquare := 'makesquare' ('(' F F ')' | '(' F ')' | F) */
static Node *parse_makesquare(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    Node *n = new_node(p, ND_MAKESQUARE, tok_span(kw), 0);
    if (p->tok.kind == TK_LPAREN) {
        parse_argument_list(p, n, 1, 2, "makesquare");
        require_kids(p, n, n->nkids == 2 ? TM_NUMBER : TM_STRING,
                     n->nkids == 2 ? "a file or rank number of 'makesquare'" : "the square name of 'makesquare'");
    } else {
        ast_push(p->a, n, prefix_operand(p, PREC_RHS, TM_STRING, kw));
        n->span = span_join(n->span, n->kids[0]->span);
    }
    n->type = VT_SET;
    return n;
}

/* fixed := ('between' | 'lca' | 'distance' | 'ancestor' | 'descendant' |
 *           'indexof' | 'writefile' | 'settag' | 'max' | 'min') '(' F ... ')' */
static Node *parse_fixed_function(Parser *p)
{
    static const struct {
        TokKind tok;
        NodeKind kind;
        uint32_t min, max;
        TypeMask args;
        ValueType result;
    } table[] = {
        {TK_BETWEEN, ND_BETWEEN, 2, 2, TM_SET, VT_SET},
        {TK_LCA, ND_LCA, 2, 2, TM_POSITION, VT_POSITION},
        {TK_DISTANCE, ND_DISTANCE, 2, 2, TM_POSITION, VT_NUMBER},
        {TK_ANCESTOR, ND_ANCESTOR, 2, 2, TM_POSITION, VT_NONE},
        {TK_DESCENDANT, ND_DESCENDANT, 2, 2, TM_POSITION, VT_NONE},
        {TK_INDEXOF, ND_INDEXOF, 2, 2, TM_STRING, VT_NUMBER},
        {TK_WRITEFILE, ND_WRITEFILE, 2, 2, TM_STRING, VT_NONE},
        {TK_SETTAG, ND_SETTAG, 2, 2, TM_STRING, VT_NONE},
        {TK_MAX, ND_MINMAX, 2, UINT32_MAX, TM_NUMBER, VT_NUMBER},
        {TK_MIN, ND_MINMAX, 2, UINT32_MAX, TM_NUMBER, VT_NUMBER},
    };
    Token kw = p->tok;
    size_t i = 0;
    while (table[i].tok != kw.kind) i++;
    advance(p);
    Node *n = new_node(p, table[i].kind, tok_span(kw), 0);
    if (table[i].kind == ND_MINMAX) n->op = kw.kind;
    parse_argument_list(p, n, table[i].min, table[i].max, tok_ascii(kw.kind));
    char role[64];
    snprintf(role, sizeof role, "an argument of '%s'", tok_ascii(kw.kind));
    require_kids(p, n, table[i].args, role);
    n->type = table[i].result;
    return n;
}

/* message-args := '(' F {F} ')' | F — shared by comment, message, str, move comment */
Node *parse_message_args(Parser *p, Node *n)
{
    if (p->tok.kind == TK_LPAREN) return parse_argument_list(p, n, 1, UINT32_MAX, ast_kind_name(n->kind));
    Token kw = p->prev;
    Node *arg = prefix_operand(p, PREC_NOT, TM_ANY, kw);
    ast_push(p->a, n, arg);
    n->span = span_join(n->span, arg->span);
    return n;
}

/* comment := 'comment' message-args
 * message := 'message' ['quiet'] message-args
 * str     := 'str' message-args */
static Node *parse_comment_like(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    NodeKind kind = kw.kind == TK_COMMENT ? ND_COMMENT : kw.kind == TK_MESSAGE ? ND_MESSAGE : ND_STR;
    Node *n = new_node(p, kind, tok_span(kw), 0);
    if (kind == ND_MESSAGE && accept(p, TK_QUIET)) n->flags |= NF_QUIET;
    parse_message_args(p, n);
    n->type = kind == ND_STR ? VT_STRING : VT_NONE;
    return n;
}

/* comment-symbol := '///' F {F}     (the arguments end with the line) */
Node *parse_comment_symbol(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    Node *n = new_node(p, ND_COMMENT, tok_span(kw), 0);
    n->flags |= NF_SYMBOL;
    for (;;) {
        bool same_line = memchr(p->src->text + kw.start, '\n', p->tok.start - kw.start) == NULL;
        if (!same_line || !starts_filter(&p->tok)) break;
        Node *arg = parse_expr(p, PREC_NOT);
        ast_push(p->a, n, arg);
        n->span = span_join(n->span, arg->span);
    }
    if (n->nkids == 0) fail_expected(p, "something to comment after '///' on the same line");
    n->type = VT_NONE;
    return n;
}

/* }==== */

/* {==== game facts =========================================================== */

/* Checks the board part of `fen "..."` (CQL 6.2 rejects malformed boards when
 * compiling; the other fields are not checked). Returns an error or NULL. */
static const char *check_fen_board(const char *fen)
{
    int ranks = 0, squares = 0;
    for (const char *c = fen;; c++) {
        if (*c == '/' || *c == ' ' || *c == '\0') {
            if (squares != 8) return squares == 0 ? "an empty rank" : "a rank without exactly 8 squares";
            ranks++;
            squares = 0;
            if (*c != '/') break;
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

/* tag-string := ('player' ['white' | 'black'] | 'event' | 'site' | 'date' |
 *                'eventdate' | 'eco' | 'fen' | 'hascomment' | 'originalcomment')
 *               [string]
 * With the string, a substring search (no value); without, the tag's text. */
static Node *parse_game_string(Parser *p, NodeKind kind)
{
    Token kw = p->tok;
    advance(p);
    Node *n = new_node(p, kind, tok_span(kw), 1);
    if (kind == ND_PLAYER) {
        if (accept(p, TK_WHITE)) n->flags |= NF_WHITE;
        else if (accept(p, TK_BLACK)) n->flags |= NF_BLACK;
    }
    n->type = VT_STRING;
    if (p->tok.kind == TK_STRING) {
        n->kids[0] = parse_string(p);
        n->span = span_join(n->span, n->kids[0]->span);
        n->type = VT_NONE;
        if (kind == ND_FEN) {
            const char *err = check_fen_board(n->kids[0]->text);
            if (err) parse_fail(p, n->kids[0]->span, "invalid FEN board in 'fen': %s", err);
        }
    }
    return n;
}

/* elo := 'elo' ['white' | 'black'] */
static Node *parse_elo(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    Node *n = new_node(p, ND_ELO, tok_span(kw), 0);
    if (accept(p, TK_WHITE)) n->flags |= NF_WHITE;
    else if (accept(p, TK_BLACK)) n->flags |= NF_BLACK;
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
        text = decode_string(p, p->tok);
        advance(p);
    } else {
        if (p->tok.kind != TK_INT && p->tok.kind != TK_STAR) {
            fail_expected(p, "a result (1-0, 0-1 or 1/2-1/2) after %s", tok_describe(kw.kind));
        }
        advance(p);
        while ((p->tok.kind == TK_INT || p->tok.kind == TK_MINUS || p->tok.kind == TK_SLASH) && glued(&p->tok)) {
            span.end = p->tok.start + p->tok.len;
            advance(p);
        }
        text = arena_strndup(p->a, p->src->text + span.start, span.end - span.start);
    }
    for (size_t i = 0; i < sizeof results / sizeof results[0]; i++)
        if (strcmp(text, results[i]) == 0) return results[i];
    parse_fail(p, span, "unknown result '%s' (write 1-0, 0-1 or 1/2-1/2)", text);
}

/* result := 'result' result-text */
static Node *parse_result(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    Span start = tok_span(kw);
    const char *text = parse_result_text(p, kw);
    Node *n = new_node(p, ND_RESULT, span_join(start, tok_span(p->prev)), 0);
    n->text = text;
    n->type = VT_NONE;
    return n;
}

/* position := 'position' F        child := 'child' ['(' F ')'] */
static Node *parse_position_or_child(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    if (kw.kind == TK_POSITION) {
        Node *id = prefix_operand(p, PREC_PRIMARY, TM_NUMBER, kw);
        Node *n = node1(p, ND_POSITION, span_join(tok_span(kw), id->span), id);
        n->type = VT_POSITION;
        return n;
    }
    Node *n = new_node(p, ND_CHILD, tok_span(kw), 1);
    if (p->tok.kind == TK_LPAREN && glued(&p->tok)) {
        Token open = p->tok;
        advance(p);
        n->kids[0] = prefix_operand(p, PREC_LOWEST, TM_NUMBER, open);
        n->span = span_join(n->span, tok_span(p->tok));
        expect_closing(p, TK_RPAREN, open);
    }
    n->type = VT_POSITION;
    return n;
}

/* try := 'try' [F] */
static Node *parse_try(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    Node *n = new_node(p, ND_TRY, tok_span(kw), 1);
    if (starts_filter(&p->tok)) {
        n->kids[0] = parse_filter(p);
        n->span = span_join(n->span, n->kids[0]->span);
    }
    n->type = n->kids[0] ? value_type(n->kids[0]->type) : VT_NONE;
    return n;
}

/* hhdb := 'hhdb' name [string]      (Heijden database interface) */
static Node *parse_hhdb(Parser *p)
{
    Token kw = p->tok;
    advance(p);
    Node *n = new_node(p, ND_HHDB, tok_span(kw), 0);
    if (p->tok.kind != TK_IDENT && tok_class(p->tok.kind) != TC_KEYWORD) fail_expected(p, "a field after 'hhdb'");
    Node *field = new_node(p, ND_STRING, tok_span(p->tok), 0);
    field->text = tok_text(p, p->tok);
    field->type = VT_STRING;
    ast_push(p->a, n, field);
    advance(p);
    if (p->tok.kind == TK_STRING) ast_push(p->a, n, parse_string(p));
    n->span = span_join(n->span, tok_span(p->prev));
    n->type = VT_NONE;
    return n;
}

/* }==== */

/* {==== keyword dispatch ===================================================== */

/* keyword-filter := any filter that begins with a keyword */
Node *parse_keyword(Parser *p)
{
    Token t = p->tok;
    switch (t.kind) {
    case TK_IF: return parse_if(p);
    case TK_WHILE: return parse_while(p);
    case TK_TRY: return parse_try(p);
    case TK_FLIP: case TK_FLIPCOLOR: case TK_FLIPHORIZONTAL: case TK_FLIPVERTICAL: case TK_REVERSECOLOR:
    case TK_ROTATE90: case TK_ROTATE45: case TK_SHIFT: case TK_SHIFTHORIZONTAL: case TK_SHIFTVERTICAL:
        return parse_transform(p);
    case TK_SQUARE: case TK_PIECE: return parse_square_or_piece(p);
    case TK_FIND: return parse_find(p);
    case TK_ECHO: return parse_echo(p);
    case TK_CONSECUTIVEMOVES: return parse_consecutivemoves(p);
    case TK_SORT: return parse_sort(p);
    case TK_COMMENT: case TK_MESSAGE: case TK_STR: return parse_comment_like(p);
    case TK_MAKESQUARE: return parse_makesquare(p);
    case TK_BETWEEN: case TK_LCA: case TK_DISTANCE: case TK_ANCESTOR: case TK_DESCENDANT: case TK_INDEXOF:
    case TK_WRITEFILE: case TK_SETTAG: case TK_MAX: case TK_MIN:
        return parse_fixed_function(p);
    case TK_RAY: case TK_XRAY: return parse_ray(p);
    case TK_PIN: return parse_pin(p);
    case TK_POSITION: case TK_CHILD: return parse_position_or_child(p);
    case TK_LINE: return parse_line(p);
    case TK_PATH: return parse_path(p);
    case TK_MOVE: return parse_move(p);
    case TK_PLAYER: return parse_game_string(p, ND_PLAYER);
    case TK_EVENT: return parse_game_string(p, ND_EVENT);
    case TK_SITE: return parse_game_string(p, ND_SITE);
    case TK_DATE: return parse_game_string(p, ND_DATE);
    case TK_EVENTDATE: return parse_game_string(p, ND_EVENTDATE);
    case TK_ECO: return parse_game_string(p, ND_ECO);
    case TK_FEN: return parse_game_string(p, ND_FEN);
    case TK_HASCOMMENT: return parse_game_string(p, ND_HASCOMMENT);
    case TK_ORIGINALCOMMENT: return parse_game_string(p, ND_ORIGINALCOMMENT);
    case TK_ELO: return parse_elo(p);
    case TK_RESULT: return parse_result(p);
    case TK_HHDB: return parse_hhdb(p);
    case TK_CURPOS: {   /* an old spelling of currentposition */
        advance(p);
        Node *n = new_node(p, ND_CURRENTPOSITION, tok_span(t), 0);
        n->type = VT_POSITION;
        return n;
    }
    case TK_DIHEDRAL: case TK_FLIPDIHEDRAL: case TK_TRANSFORM:
        parse_fail(p, tok_span(t), "%s is reserved by CQL and is not a filter", tok_describe(t.kind));
    default:
        break;
    }
    if (direction_mask(t.kind)) return parse_direction(p);
    const KeywordFilter *kf = keyword_filter(t.kind);
    if (kf) return parse_keyword_filter(p, kf);
    parse_fail(p, tok_span(t), "%s is not a filter here", tok_describe(t.kind));
}


/* }==== */
