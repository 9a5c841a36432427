/*
 * src/query/parser.c — recursive-descent parser of CQL 6.2 (header, body, filters).
 *
 * One function per construct, its production in a comment above it.
 * Binary operators go through precedence climbing (parse_expr) over the
 * levels of parser_int.h; relations and `:` are right-associative. Types are
 * assigned by sema as nodes are built, because CQL's grammar depends on them
 * (`K -3` is two filters, `2 -3` a subtraction). Function bodies are kept as
 * text and parsed again at each call with the arguments substituted. The
 * filters that begin with a keyword live in parser_filters.c; moves, line and
 * path in parser_move.c.
 *
 * Notation in the productions: [x] optional, {x} repeated, x | y choice,
 * 'k' a keyword or symbol, F a filter, S a filter whose value is a set.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/parser_int.h"

/* {==== tokens and errors ==================================================== */

Span tok_span(Token t)
{
    return (Span){t.start, t.start + t.len};
}

Span span_join(Span a, Span b)
{
    return (Span){a.start < b.start ? a.start : b.start, a.end > b.end ? a.end : b.end};
}

bool parse_glued(const Token *t)
{
    return !(t->flags & TF_SPACE_BEFORE);
}

noreturn void parse_fail(Parser *p, Span span, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_at(p->diag, p->src, span, DIAG_ERROR, "%s", msg);
    longjmp(p->fail, 1);
}

void parse_check(Parser *p, Span span, const char *error)
{
    if (error) parse_fail(p, span, "%s", error);
}

static void check_lex_error(Parser *p, const Token *t)
{
    if (t->kind != TK_ERROR) return;
    parse_fail(p, tok_span(*t), "%s", lex_error_message((LexError)t->error));
}

const Token *parse_peek(Parser *p, int n)
{
    while (p->nahead < n) p->ahead[p->nahead++] = lex_next(&p->lex);
    return &p->ahead[n - 1];
}

void parse_advance(Parser *p)
{
    p->prev = p->tok;
    if (p->nahead > 0) {
        p->tok = p->ahead[0];
        memmove(p->ahead, p->ahead + 1, (size_t)(p->nahead - 1) * sizeof(Token));
        p->nahead--;
    } else {
        p->tok = lex_next(&p->lex);
    }
    check_lex_error(p, &p->tok);
}

/* Restarts lexing at byte `offset` (used after reading a raw file name). */
static void reseek(Parser *p, uint32_t offset)
{
    ast_lexer_init(&p->lex, p->q, offset, p->lex.end);
    p->nahead = 0;
    p->tok = lex_next(&p->lex);
    check_lex_error(p, &p->tok);
}

bool parse_accept(Parser *p, TokKind k)
{
    if (p->tok.kind != k) return false;
    parse_advance(p);
    return true;
}

char *parse_token_text(Parser *p, Token t)
{
    return arena_strndup(p->a, p->src->text + t.start, t.len);
}

/* "'foo'" for the current token, "the end of the query" at the end (of
 * -cql, of -player ... in a filter given apart from the query's text). */
static const char *found_phrase(Parser *p, char *buf, size_t size)
{
    const Token *t = &p->tok;
    uint32_t base;
    if (t->kind == TK_EOF && p->src->nparts && t->start > p->src->parts[0].end) {
        snprintf(buf, size, "the end of %s", diag_source_at(p->src, t->start, &base).name);
        return buf;
    }
    if (t->kind == TK_EOF) return "the end of the query";
    uint32_t n = t->len > 40 ? 40 : t->len;
    snprintf(buf, size, "'%.*s%s'", (int)n, p->src->text + t->start, t->len > n ? "..." : "");
    return buf;
}

noreturn void parse_fail_expected(Parser *p, const char *fmt, ...)
{
    char what[256], buf[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    parse_fail(p, tok_span(p->tok), "expected %s, found %s", what, found_phrase(p, buf, sizeof buf));
}

void parse_expect_filter(Parser *p, TokKind after)
{
    if (!parse_starts_filter(&p->tok)) parse_fail_expected(p, "a filter after %s", tok_describe(after));
}

Token parse_expect(Parser *p, TokKind k, const char *what)
{
    if (p->tok.kind != k) parse_fail_expected(p, "%s", what ? what : tok_describe(k));
    Token t = p->tok;
    parse_advance(p);
    return t;
}

/* Lua's check_match: names the opening token when the closing one is missing. */
void parse_expect_closing(Parser *p, TokKind close, Token open)
{
    if (p->tok.kind == close) {
        parse_advance(p);
        return;
    }
    unsigned line, col;
    diag_line_col(p->src, open.start, &line, &col);
    char buf[64];
    parse_fail(p, tok_span(p->tok), "expected %s to close %s at %u:%u, found %s", tok_describe(close),
               tok_describe(open.kind), line, col, found_phrase(p, buf, sizeof buf));
}

void parse_enter_level(Parser *p, Span at)
{
    if (++p->depth > PARSE_DEPTH_LIMIT)
        parse_fail(p, at, "query nested too deeply (limit is %d)", PARSE_DEPTH_LIMIT);
}

void parse_leave_level(Parser *p)
{
    p->depth--;
}

void parse_check_height(Parser *p, const Node *n)
{
    const Node *deep = ast_too_deep(n, AST_HEIGHT_LIMIT);
    if (deep)
        parse_fail(p, deep->span, "query nested too deeply: more than %d filters inside one another (a chain of "
                   "one operator, such as 'a or b or c', counts once)", AST_HEIGHT_LIMIT);
}

Nesting parse_open_brackets(Parser *p)
{
    Nesting saved = {p->regex, p->in_index, p->in_arguments};
    p->regex = REGEX_OFF;
    p->in_index = false;
    p->in_arguments = false;
    return saved;
}

void parse_close_brackets(Parser *p, Nesting saved)
{
    p->regex = saved.regex;
    p->in_index = saved.in_index;
    p->in_arguments = saved.in_arguments;
}

/* }==== */

/* {==== nodes, and which tokens begin a filter ============================== */

/* Counts n nodes made for function calls against their budget. */
static void count_expanded(Parser *p, uint64_t n)
{
    p->expanded += n;
    if (p->expanded > CALL_MAX_FILTERS)
        parse_fail(p, p->outer_call, "function calls expand to more than %d filters", CALL_MAX_FILTERS);
}

Node *parse_node(Parser *p, NodeKind k, Span span, uint32_t nkids)
{
    if (p->frame) count_expanded(p, 1);
    return ast_new(p->a, k, span, nkids);
}

Node *parse_node1(Parser *p, NodeKind k, Span span, Node *kid)
{
    Node *n = parse_node(p, k, span, 1);
    n->kids[0] = kid;
    return n;
}

Node *parse_node2(Parser *p, NodeKind k, Node *a, Node *b)
{
    Node *n = parse_node(p, k, span_join(a->span, b->span), 2);
    n->kids[0] = a;
    n->kids[1] = b;
    return n;
}

/* Can t begin a filter? (Decides whether `--` has a right-hand side.) */
bool parse_starts_filter(const Token *t)
{
    switch (t->kind) {
    case TK_INT: case TK_STRING: case TK_ESCAPE: case TK_DESIGNATOR: case TK_PIECEVAR:
    case TK_IDENT: case TK_LPAREN: case TK_LBRACE: case TK_MINUS: case TK_TILDE: case TK_HASH:
    case TK_FORALL: case TK_DASH: case TK_TAKE: case TK_COMMENT_FILTER:
        return true;
    default:
        /* a keyword begins a filter when it is one of the filter's spellings */
        return tok_class(t->kind) == TC_KEYWORD && filter_of_keyword(t->kind) != ND_COUNT_;
    }
}

/* }==== */

/* {==== expressions ========================================================== */

typedef struct BinOp {
    NodeKind kind;
    Prec prec;
    bool right;   /* right-associative */
} BinOp;

static bool is_relation(TokKind k)
{
    return k == TK_EQ || k == TK_NE || k == TK_LT || k == TK_LE || k == TK_GT || k == TK_GE || k == TK_BEFORE ||
           k == TK_AFTER || k == TK_BEFORE_EQ || k == TK_AFTER_EQ;
}

/* Is the current token a binary operator continuing `lhs`? */
static bool binary_operator(Parser *p, const Node *lhs, BinOp *op)
{
    const Token *t = &p->tok;
    if (is_relation(t->kind)) {
        /* a filter without a value cannot be compared: the relation then
         * belongs to an enclosing filter (`find all check > 10`) */
        *op = (BinOp){ND_RELATION, PREC_REL, true};
        return lhs->type != VT_NONE;
    }
    switch (t->kind) {
    case TK_OR:  *op = (BinOp){ND_OR, PREC_OR, false}; return true;
    case TK_AND: *op = (BinOp){ND_AND, PREC_AND, false}; return true;
    case TK_IN:  *op = (BinOp){ND_IN, PREC_IN, false}; return true;
    case TK_DASH: case TK_TAKE:   /* F--G: the dash is written right after F */
        *op = (BinOp){ND_DASH, PREC_DASH, false};
        return parse_glued(t);
    case TK_PLUS:
        *op = (BinOp){ND_ARITH, PREC_ADD, false};
        return lhs->kind != ND_PAREN && !parse_is_repetition(p, lhs);
    case TK_MINUS:
        *op = (BinOp){ND_ARITH, PREC_ADD, false};
        return sema_binary_minus_applies(lhs->type);
    case TK_STAR:   /* (F)+ and (F)* repeat a group, as in line: never arithmetic */
        *op = (BinOp){ND_ARITH, PREC_MUL, false};
        return lhs->kind != ND_PAREN && !parse_is_repetition(p, lhs);
    case TK_SLASH: case TK_PERCENT:
        *op = (BinOp){ND_ARITH, PREC_MUL, false};
        return true;
    case TK_PIPE: *op = (BinOp){ND_UNION, PREC_UNION, false}; return true;
    case TK_AMP:  *op = (BinOp){ND_INTERSECT, PREC_INTER, false}; return true;
    case TK_ARROW: case TK_ATTACKS:
        *op = (BinOp){ND_ATTACKS, PREC_ATTACK, false};
        return true;
    case TK_BACKARROW: case TK_ATTACKEDBY:
        *op = (BinOp){ND_ATTACKEDBY, PREC_ATTACK, false};
        return true;
    case TK_REGEX: *op = (BinOp){ND_REGEX, PREC_POSTFIX, false}; return true;
    case TK_LBRACKET:
        *op = (BinOp){ND_INDEX, PREC_POSTFIX, false};
        return parse_glued(t);
    case TK_COLON:
        *op = (BinOp){ND_COLON, PREC_COLON, true};
        return !p->in_index;
    default:
        return false;
    }
}

static Node *parse_unary(Parser *p);
static Node *parse_primary(Parser *p);
static Node *parse_index(Parser *p, Node *lhs);

/* Types a binary node once both operands are known. */
static void type_binary(Parser *p, Node *n, Token op_tok)
{
    Node *l = n->kids[0], *r = n->kids[1];
    switch (n->kind) {
    case ND_AND: case ND_OR:
        n->type = VT_NONE;
        break;
    case ND_RELATION:
        parse_check(p, tok_span(op_tok), sema_relation(p->a, n));
        break;
    case ND_ARITH:
        parse_check(p, tok_span(op_tok), sema_arith(p->a, n));
        break;
    case ND_REGEX:
        parse_check(p, l->span, sema_require(p->a, l, TM_STRING, "the left side of '~~'"));
        parse_check(p, r->span, sema_require(p->a, r, TM_STRING, "the pattern of '~~'"));
        parse_check(p, r->span, sema_regex_pattern(p->a, r));
        n->type = VT_STRING;
        break;
    case ND_COLON:
        parse_check(p, l->span, sema_require(p->a, l, TM_POSITION, "the left side of ':'"));
        n->type = r->type;
        break;
    case ND_ATTACKS: case ND_ATTACKEDBY:
        if ((l->kind == ND_ATTACKS || l->kind == ND_ATTACKEDBY) && l->kind != n->kind)
            parse_fail(p, tok_span(op_tok), "cannot chain '->' and '<-' without parentheses");
        parse_check(p, tok_span(op_tok), sema_set_operator(p->a, n));
        break;
    default:
        parse_check(p, tok_span(op_tok), sema_set_operator(p->a, n));
        break;
    }
}

/* Does an operand written after `chain` (the node the loop of parse_expr
 * made last, its operands as kids) with an operator of `kind` (its token
 * `op` for arithmetic) join it? A chain of one operator is one node,
 * evaluated left to right:
 * `or`, `and`, `|`, `&` of sets, and one arithmetic operator (`a + b + c`;
 * `a - b - c` is folded from the left as written). A list of thousands of
 * players or squares is then a wide node, not a deep one that every pass
 * would recurse through. */
static bool joins_chain(const Node *chain, NodeKind kind, TokKind op)
{
    if (!chain || chain->kind != kind) return false;
    switch (kind) {
    case ND_OR: case ND_AND: case ND_UNION:
        return true;
    case ND_INTERSECT:   /* of two positions it is binary: their equal squares */
        return chain->kids[0]->type != VT_POSITION;
    case ND_ARITH:
        return chain->op == op;
    default:
        return false;
    }
}

/* expr(min) := unary { binop expr } — precedence climbing: an operator of
 * level L is taken when L >= min; its right side is parsed at L + 1, or at L
 * for the right-associative relations and ':'. */
Node *parse_expr(Parser *p, Prec min)
{
    parse_enter_level(p, tok_span(p->tok));
    Node *lhs = parse_unary(p);
    Node *chain = NULL;   /* lhs when this loop made it: an operator chain that may grow */
    BinOp op;
    while (binary_operator(p, lhs, &op) && op.prec >= min) {
        if (op.kind == ND_DASH) {
            lhs = parse_dash(p, lhs);
            chain = NULL;
            continue;
        }
        if (op.kind == ND_INDEX) {
            lhs = parse_index(p, lhs);
            chain = NULL;
            continue;
        }
        Token op_tok = p->tok;
        parse_advance(p);
        Node *rhs = parse_expr(p, op.right ? op.prec : (Prec)(op.prec + 1));
        Node *pair[2] = {lhs, rhs};
        Node n = {.kind = op.kind, .span = span_join(lhs->span, rhs->span), .nkids = 2, .kids = pair,
                  .slot = -1, .op = op.kind == ND_RELATION || op.kind == ND_ARITH ? op_tok.kind : TK_EOF};
        type_binary(p, &n, op_tok);
        if (joins_chain(chain, op.kind, n.op)) {
            ast_push(p->a, chain, rhs);
            chain->type = n.type;
            chain->span = n.span;
            continue;
        }
        lhs = chain = parse_node(p, op.kind, n.span, 2);
        lhs->kids[0] = pair[0];
        lhs->kids[1] = pair[1];
        lhs->type = n.type;
        lhs->op = n.op;
    }
    parse_leave_level(p);
    return lhs;
}

Node *parse_filter(Parser *p)
{
    return parse_expr(p, PREC_LOWEST);
}

/* index := S '[' F [':' F] ']'   (string indexing and slices) */
static Node *parse_index(Parser *p, Node *lhs)
{
    Token open = p->tok;
    parse_advance(p);
    Nesting saved = parse_open_brackets(p);
    Node *n = parse_node(p, ND_INDEX, lhs->span, 3);
    n->kids[0] = lhs;
    p->in_index = true;
    n->kids[1] = parse_filter(p);
    p->in_index = false;
    if (parse_accept(p, TK_COLON)) {
        n->flags |= NF_SLICE;
        n->kids[2] = parse_filter(p);
    }
    n->span = span_join(n->span, tok_span(p->tok));
    parse_expect_closing(p, TK_RBRACKET, open);
    parse_close_brackets(p, saved);
    parse_check(p, lhs->span, sema_require(p->a, lhs, TM_STRING, "an indexed filter"));
    for (uint32_t i = 1; i < 3; i++)
        if (n->kids[i])
            parse_check(p, n->kids[i]->span, sema_require(p->a, n->kids[i], TM_NUMBER, "a string index"));
    n->type = VT_STRING;
    return n;
}

/* }==== */

/* {==== prefix operators ===================================================== */

/* Parses the operand of a prefix operator at `prec` and checks its type. */
Node *parse_prefix_operand(Parser *p, Prec prec, TypeMask allowed, Token kw)
{
    parse_expect_filter(p, kw.kind);
    Node *operand = parse_expr(p, prec);
    char role[64];
    snprintf(role, sizeof role, "the operand of %s", tok_describe(kw.kind));
    parse_check(p, operand->span, sema_require(p->a, operand, allowed, role));
    return operand;
}

static Node *parse_unary_operand(Parser *p);

/* unary := ('-' | '~' | '#') F | dash | primary
 * The span of the result covers every token it consumed. */
static Node *parse_unary(Parser *p)
{
    Token first = p->tok;
    Node *n = parse_unary_operand(p);
    n->span = span_join(n->span, (Span){first.start, p->prev.start + p->prev.len});
    return n;
}

static Node *parse_unary_operand(Parser *p)
{
    static const struct {
        TokKind tok;
        NodeKind kind;
        Prec prec;
        TypeMask operand;
        ValueType result;
    } prefix_ops[] = {
        {TK_MINUS, ND_NEGATE, PREC_UNARY, TM_NUMBER, VT_NUMBER},
        {TK_TILDE, ND_COMPLEMENT, PREC_COMPL, TM_SET, VT_SET},
        {TK_HASH, ND_COUNT, PREC_SETFN, TM_SET | TM_STRING, VT_NUMBER},
    };
    Token t = p->tok;
    for (size_t i = 0; i < sizeof prefix_ops / sizeof prefix_ops[0]; i++) {
        if (prefix_ops[i].tok != t.kind) continue;
        parse_advance(p);
        Node *operand = parse_prefix_operand(p, prefix_ops[i].prec, prefix_ops[i].operand, t);
        Node *n = parse_node1(p, prefix_ops[i].kind, span_join(tok_span(t), operand->span), operand);
        n->type = prefix_ops[i].result;
        return n;
    }
    switch (t.kind) {
    case TK_DASH: case TK_TAKE:
        /* `and--`: a dash glued to an operator word would take it as its left side */
        if (parse_glued(&t) && (p->prev.kind == TK_AND || p->prev.kind == TK_OR || p->prev.kind == TK_IN ||
                          p->prev.kind == TK_ATTACKS || p->prev.kind == TK_ATTACKEDBY))
            parse_fail(p, tok_span(t), "%s needs a space before it after %s", tok_describe(t.kind),
                       tok_describe(p->prev.kind));
        return parse_dash(p, NULL);
    default:
        return parse_primary(p);
    }
}

/* }==== */

/* {==== constants and designators ============================================ */

Node *parse_int(Parser *p)
{
    Token t = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_INT, tok_span(t), 0);
    int64_t v = 0;
    for (uint32_t i = 0; i < t.len; i++) {
        int d = p->src->text[t.start + i] - '0';
        if (v > (INT64_MAX - d) / 10) parse_fail(p, tok_span(t), "integer too large");
        v = v * 10 + d;
    }
    n->num = v;
    n->type = VT_NUMBER;
    return n;
}

/* The contents of a string token with \n \t \r \" \\ decoded (any other
 * escape is kept as written). */
char *parse_decode_string(Parser *p, Token t)
{
    if (t.flags & TF_VALUE) return arena_strdup(p->a, ast_value_at(p->q, t.start));
    const char *s = p->src->text + t.start + 1;
    uint32_t n = t.len - 2;
    char *out = arena_alloc(p->a, n + 1);
    uint32_t o = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n) {
            char c = s[i + 1];
            char d = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == '"' ? '"' : c == '\\' ? '\\' : 0;
            if (d) {
                out[o++] = d;
                i++;
                continue;
            }
        }
        out[o++] = s[i];
    }
    out[o] = '\0';
    return out;
}

Node *parse_string(Parser *p)
{
    Token t = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_STRING, tok_span(t), 0);
    n->text = parse_decode_string(p, t);
    n->type = VT_STRING;
    return n;
}

/* escape := '\n' | '\t' | '\r' | '\"' | '\\' | '\' digits | '\-' digits */
static Node *parse_escape(Parser *p)
{
    Token t = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_ESCAPE, tok_span(t), 0);
    n->text = parse_token_text(p, t);
    const char *s = n->text + 1;
    bool negative = *s == '-';
    if (negative) s++;
    if (*s >= '0' && *s <= '9') n->num = negative ? -atoll(s) : atoll(s);
    n->type = VT_STRING;
    return n;
}

static Bitboard part_squares(SquarePart part)
{
    Bitboard b = 0;
    for (int r = part.rank_lo; r <= part.rank_hi; r++)
        for (int f = part.file_lo; f <= part.file_hi; f++) b |= sq_bb(make_square(f, r));
    return b;
}

/* designator := piece-part [square-part] | square-part    (one token) */
static Node *parse_designator(Parser *p)
{
    Token t = p->tok;
    parse_advance(p);
    DesigScan scan;
    lex_scan_designator(p->src->text, t.start, t.start + t.len, &scan);
    Designator *d = ARENA_NEW(p->a, Designator);
    d->pieces = scan.pieces;
    d->has_piece_part = scan.has_piece_part;
    d->has_square_part = scan.has_square_part;
    d->all_squares_symbol = scan.all_squares_symbol;
    d->nparts = scan.nparts;
    d->parts = ARENA_ARRAY(p->a, SquarePart, scan.nparts ? scan.nparts : 1);
    memcpy(d->parts, scan.parts, scan.nparts * sizeof(SquarePart));
    d->squares = scan.has_square_part ? 0 : ALL_SQUARES_BB;
    for (uint8_t i = 0; i < scan.nparts; i++) d->squares |= part_squares(scan.parts[i]);
    Node *n = parse_node(p, ND_DESIGNATOR, tok_span(t), 0);
    n->desig = d;
    n->type = VT_SET;
    return n;
}

/* }==== */

/* {==== grouping ============================================================= */

/* members := F {F} up to `close` (compound, move target, argument lists) */
/* The next filter of a sequence (compound members, the body). A relation
 * left over after a filter without a value gets a message of its own. */
static Node *parse_sequence_member(Parser *p, const Node *previous)
{
    TokKind k = p->tok.kind;
    if (previous && previous->type == VT_NONE && is_relation(k))
        parse_fail(p, tok_span(p->tok), "%s compares values, but the filter before it has none", tok_describe(k));
    return parse_filter(p);
}

Node *parse_braced_members(Parser *p, NodeKind kind, TokKind close, Token open)
{
    Nesting saved = parse_open_brackets(p);
    Node *n = parse_node(p, kind, tok_span(open), 0);
    while (p->tok.kind != close && p->tok.kind != TK_EOF)
        ast_push(p->a, n, parse_sequence_member(p, n->nkids ? n->kids[n->nkids - 1] : NULL));
    if (n->nkids == 0 && p->tok.kind == close)
        parse_fail(p, span_join(tok_span(open), tok_span(p->tok)), "empty %s%s: expected a filter inside",
                   tok_describe(open.kind), tok_describe(close));
    n->span = span_join(n->span, tok_span(p->tok));
    parse_expect_closing(p, close, open);
    parse_close_brackets(p, saved);
    n->type = n->kids[n->nkids - 1]->type;
    return n;
}

/* compound := '{' F {F} '}' */
static Node *parse_compound(Parser *p)
{
    Token open = p->tok;
    parse_advance(p);
    return parse_braced_members(p, ND_COMPOUND, TK_RBRACE, open);
}

/* paren := '(' F ')' */
static Node *parse_paren(Parser *p)
{
    Token open = p->tok;
    parse_advance(p);
    Nesting saved = parse_open_brackets(p);
    Node *inner = parse_filter(p);
    Node *n = parse_node1(p, ND_PAREN, span_join(tok_span(open), tok_span(p->tok)), inner);
    parse_expect_closing(p, TK_RPAREN, open);
    parse_close_brackets(p, saved);
    n->type = inner->type;
    return n;
}

/* args := '(' F {F} ')' with min..max filters, appended to parent's kids.
 * In the list, a filter with an optional string (`player white`, `event`)
 * does not take the string after it: that is the next argument (CQL 6.2). */
Node *parse_argument_list(Parser *p, Node *parent, uint32_t min, uint32_t max, const char *who)
{
    Token open = p->tok;
    if (open.kind != TK_LPAREN) {
        parse_fail_expected(p, "'(' after '%s'", who);
    }
    parse_advance(p);
    Nesting saved = parse_open_brackets(p);
    p->in_arguments = true;
    uint32_t before = parent->nkids;
    while (p->tok.kind != TK_RPAREN && p->tok.kind != TK_EOF) ast_push(p->a, parent, parse_filter(p));
    Span whole = span_join(tok_span(open), tok_span(p->tok));
    parse_expect_closing(p, TK_RPAREN, open);
    parse_close_brackets(p, saved);
    uint32_t got = parent->nkids - before;
    if (got < min || got > max) {
        if (min == max)
            parse_fail(p, whole, "'%s' takes %u argument%s, not %u", who, min, min == 1 ? "" : "s", got);
        if (max == UINT32_MAX) parse_fail(p, whole, "'%s' takes at least %u arguments, not %u", who, min, got);
        parse_fail(p, whole, "'%s' takes %u to %u arguments, not %u", who, min, max, got);
    }
    parent->span = span_join(parent->span, whole);
    return parent;
}

/* }==== */

/* {==== names: variables, assignments, dictionaries, functions =============== */

bool parse_is_assign_op(TokKind k)
{
    return k == TK_ASSIGN || k == TK_ASSIGN_IF || k == TK_PLUS_ASSIGN || k == TK_MINUS_ASSIGN ||
           k == TK_STAR_ASSIGN || k == TK_SLASH_ASSIGN || k == TK_PERCENT_ASSIGN;
}

/* Levenshtein distance, capped (for "did you mean"). */
static int edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
    int row[64];
    if (la >= 63 || lb >= 63) return 99;
    for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static noreturn void fail_unknown(Parser *p, Token t)
{
    const char *name = p->src->text + t.start;
    const char *best = NULL;
    int best_d = 3;
    for (int k = 0; k < TK_COUNT_; k++) {
        if (tok_class((TokKind)k) != TC_KEYWORD) continue;
        const char *kw = tok_ascii((TokKind)k);
        int d = edit_distance(name, t.len, kw, strlen(kw));
        /* on a tie the first in alphabetical order, whatever the token order */
        if (d < best_d || (best && d == best_d && strcmp(kw, best) < 0)) {
            best_d = d;
            best = kw;
        }
    }
    if (best && t.len > 3)
        parse_fail(p, tok_span(t), "unknown filter '%.*s' (did you mean '%s'?)", (int)t.len, name, best);
    parse_fail(p, tok_span(t), "unknown filter '%.*s'", (int)t.len, name);
}

/* The argument bound to parameter `name` by the innermost call, or NULL. */
static Node *param_argument(Parser *p, const char *name, uint32_t *index)
{
    if (!p->frame) return NULL;
    const Function *fn = &p->q->funcs[p->frame->index];
    for (uint32_t i = 0; i < fn->nparams; i++)
        if (strcmp(fn->params[i], name) == 0) {
            *index = p->frame->first_arg + i;
            return p->frame->args[i];
        }
    return NULL;
}

/* assignment := name ('=' | '=?' | '+=' | '-=' | '*=' | '/=' | '%=') F
 * The current token is the operator; flags carry piece/persistent/atomic. */
Node *parse_assignment(Parser *p, const char *name, uint64_t flags, Span start)
{
    Token op = p->tok;
    parse_advance(p);
    parse_expect_filter(p, op.kind);
    Node *value = parse_expr(p, PREC_RHS);
    Span whole = span_join(start, value->span);
    int32_t slot = -1;
    parse_check(p, whole, sema_assign(p->q, name, op.kind, flags, value, whole, &slot));
    Node *n = parse_node1(p, ND_ASSIGN, whole, value);
    n->slot = slot;
    n->op = op.kind;
    n->flags = flags;
    n->text = name;
    n->type = VT_NONE;
    return n;
}

/* dict-entry := name '[' F ']' ['=' F] */
static Node *parse_dict_entry(Parser *p, int32_t slot, Span start)
{
    Token open = p->tok;
    parse_advance(p);
    Nesting saved = parse_open_brackets(p);
    Node *key = parse_filter(p);
    Span whole = span_join(start, tok_span(p->tok));
    parse_expect_closing(p, TK_RBRACKET, open);
    parse_close_brackets(p, saved);
    TokKind op = p->tok.kind;
    bool storing = parse_is_assign_op(op) && op != TK_ASSIGN_IF;
    parse_check(p, key->span, sema_dict_key(p->q, slot, key, op == TK_ASSIGN));
    if (!storing) {
        Node *n = parse_node1(p, ND_DICT_INDEX, whole, key);
        n->slot = slot;
        n->type = sema_var(p->q, slot)->value_type;
        return n;
    }
    Token op_tok = p->tok;
    parse_advance(p);
    parse_expect_filter(p, op);
    Node *value = parse_expr(p, PREC_RHS);
    parse_check(p, span_join(tok_span(op_tok), value->span), sema_dict_store(p->q, slot, op, value));
    Node *n = parse_node2(p, ND_DICT_ASSIGN, key, value);
    n->span = span_join(start, value->span);
    n->slot = slot;
    n->op = op;
    n->type = VT_NONE;
    return n;
}

/* call := name '(' {F} ')'
 * The body text of the function is parsed again here, with each parameter
 * bound to its argument, so that every call is typed on its own. */
static Node *parse_call(Parser *p, int32_t index, Token name_tok)
{
    const Function *fn = &p->q->funcs[index];
    if (p->calls_open++ == 0) p->outer_call = tok_span(name_tok);
    Node *n = parse_node(p, ND_CALL, tok_span(name_tok), 1);
    n->slot = index;
    n->text = fn->name;
    parse_advance(p);
    parse_argument_list(p, n, fn->nparams, fn->nparams, fn->name);
    for (uint32_t i = 1; i < n->nkids; i++) parse_check_height(p, n->kids[i]);   /* before they are copied */
    for (FuncFrame *f = p->frame; f; f = f->up)
        if (f->index == index) parse_fail(p, n->span, "function '%s' calls itself", fn->name);
    parse_enter_level(p, n->span);

    n->num = p->q->ncall_args;
    p->q->ncall_args += fn->nparams;
    FuncFrame frame = {index, n->kids + 1, fn->nparams, p->frame, (uint32_t)n->num};
    Lexer saved_lex = p->lex;
    Token saved_tok = p->tok, saved_prev = p->prev, saved_ahead[PARSE_LOOKAHEAD];
    int saved_nahead = p->nahead;
    Nesting saved_nesting = parse_open_brackets(p);
    memcpy(saved_ahead, p->ahead, sizeof saved_ahead);

    p->frame = &frame;
    ast_lexer_init(&p->lex, p->q, fn->body.start, fn->body.end);
    p->nahead = 0;
    parse_advance(p);
    Node *body = parse_compound(p);
    if (p->tok.kind != TK_EOF) parse_fail_expected(p, "the end of the function body");

    p->frame = frame.up;
    p->lex = saved_lex;
    p->tok = saved_tok;
    p->prev = saved_prev;
    p->nahead = saved_nahead;
    parse_close_brackets(p, saved_nesting);
    memcpy(p->ahead, saved_ahead, sizeof saved_ahead);
    parse_leave_level(p);

    n->kids[0] = body;
    n->type = body->type;
    p->calls_open--;
    return n;
}

/* function := 'function' name '(' {name} ')' '{' ... '}'
 * The body is kept as text: CQL checks it only where it is called. */
Node *parse_function_def(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Token name = parse_expect(p, TK_IDENT, "a function name after 'function'");
    char *fname = parse_token_text(p, name);
    if (sema_lookup_function(p->q, fname) >= 0 || sema_lookup_var(p->q, fname) >= 0)
        parse_fail(p, tok_span(name), "'%s' is already defined", fname);
    Token open = parse_expect(p, TK_LPAREN, "'(' after the function name");
    const char **params = NULL;
    uint32_t nparams = 0;
    while (p->tok.kind == TK_IDENT) {
        params = arena_realloc(p->a, params, nparams * sizeof *params, (nparams + 1) * sizeof *params);
        params[nparams++] = parse_token_text(p, p->tok);
        parse_advance(p);
    }
    parse_expect_closing(p, TK_RPAREN, open);
    Token body_open = parse_expect(p, TK_LBRACE, "'{' to begin the function body");
    int nesting = 1;
    Token last = body_open;
    while (nesting > 0) {
        if (p->tok.kind == TK_EOF) {
            unsigned line, col;
            diag_line_col(p->src, body_open.start, &line, &col);
            parse_fail(p, tok_span(p->tok), "expected '}' to close '{' at %u:%u, found the end of the query",
                       line, col);
        }
        if (p->tok.kind == TK_LBRACE) nesting++;
        if (p->tok.kind == TK_RBRACE) nesting--;
        last = p->tok;
        parse_advance(p);
    }
    Span body = {body_open.start, last.start + last.len};
    Node *n = parse_node(p, ND_FUNCTION_DEF, span_join(tok_span(kw), body), 0);
    n->text = fname;
    n->slot = sema_declare_function(p->q, fname, params, nparams, body, tok_span(name));
    n->type = VT_NONE;
    return n;
}

/* The domain and body of an iteration, after its variable `name` (written
 * at `var`) and the word before the domain ('∊', '[element]' or 'in'). The
 * domain is a set, or a dictionary whose keys are iterated. */
Node *parse_finish_iteration(Parser *p, const char *name, Token var, uint64_t flags, Token start, Token before_domain)
{
    if (!parse_starts_filter(&p->tok)) parse_fail_expected(p, "the set to iterate over after %s", tok_describe(before_domain.kind));
    Node *domain = parse_expr(p, PREC_ATTACK);
    bool piece = flags & NF_PIECE;
    VarKind kind = piece ? VK_PIECE : VK_SET;
    if (domain->type == VT_DICTIONARY && !piece) {
        const Variable *d = sema_var(p->q, domain->slot);
        kind = sema_kind_for_type(d->key_type == VT_NONE ? VT_STRING : d->key_type);
    } else {
        parse_check(p, domain->span, sema_require(p->a, domain, TM_SET, "the domain of an iteration"));
    }
    int32_t slot;
    parse_check(p, tok_span(var), sema_bind(p->q, name, kind, tok_span(var), &slot));
    Node *body = parse_prefix_operand(p, PREC_LOWEST, TM_ANY, before_domain);
    Node *n = parse_node2(p, ND_SQUARE_ITER, domain, body);
    n->span = span_join(tok_span(start), body->span);
    n->slot = slot;
    n->text = name;
    n->flags = flags;
    /* over a dictionary's keys there is no set of squares to give */
    n->type = (flags & NF_ALL) || domain->type == VT_DICTIONARY ? VT_NONE : VT_SET;
    return n;
}

/* iteration := ['∀'] (name | '◭'name) '∊' S F
 * (also written [forall], [Aa]name, [element]). `start` is the first token. */
Node *parse_iteration(Parser *p, bool universal, Token start)
{
    Token v = p->tok;
    bool piece = v.kind == TK_PIECEVAR;
    uint32_t name_at = piece ? lex_piecevar_name(p->src->text, v) : v.start;
    char *name = arena_strndup(p->a, p->src->text + name_at, v.start + v.len - name_at);
    parse_advance(p);
    Token element = parse_expect(p, TK_ELEMENT, "'[element]' (or '∊') after the iteration variable");
    return parse_finish_iteration(p, name, v, (universal ? NF_ALL : 0) | (piece ? NF_PIECE : 0), start, element);
}

/* name-filter := iteration | call | assignment | dict-entry | variable */
static Node *parse_identifier(Parser *p)
{
    Token t = p->tok;
    const char *name = parse_token_text(p, t);
    const Token *next = parse_peek(p, 1);
    if (next->kind == TK_ELEMENT) return parse_iteration(p, false, t);

    uint32_t arg_index = 0;
    Node *arg = param_argument(p, name, &arg_index);
    if (arg && arg->kind == ND_VAR) {
        name = arg->text;   /* the parameter stands for the caller's variable */
    } else if (arg) {
        if (parse_is_assign_op(next->kind))
            parse_fail(p, tok_span(t), "cannot assign to parameter '%s': its argument is not a variable", name);
        parse_advance(p);
        count_expanded(p, ast_count(arg, CALL_MAX_FILTERS));   /* before the copy is made */
        Node *n = parse_node1(p, ND_PARAM, tok_span(t), ast_clone(p->a, arg));
        n->text = name;
        n->type = arg->type;
        n->num = arg_index;
        return n;
    }

    int32_t fidx = sema_lookup_function(p->q, name);
    if (fidx >= 0 && next->kind == TK_LPAREN) return parse_call(p, fidx, t);
    if (parse_is_assign_op(next->kind)) {
        parse_advance(p);
        return parse_assignment(p, name, 0, tok_span(t));
    }
    int32_t slot = sema_lookup_var(p->q, name);
    if (slot < 0) {
        if (fidx >= 0) parse_fail(p, tok_span(t), "function '%s' must be called with '(' arguments ')'", name);
        fail_unknown(p, t);
    }
    parse_advance(p);
    const Variable *v = sema_var(p->q, slot);
    if (v->kind == VK_DICTIONARY && p->tok.kind == TK_LBRACKET && parse_glued(&p->tok))
        return parse_dict_entry(p, slot, tok_span(t));
    Node *n = parse_node(p, ND_VAR, tok_span(t), 0);
    n->slot = slot;
    n->text = v->name;
    n->type = sema_var_type(v);
    return n;
}

/* dictionary := ['local'] 'dictionary' name [dict-entry-rest] */
static Node *parse_dictionary(Parser *p, bool local, Token start)
{
    Token kw = parse_expect(p, TK_DICTIONARY, "'dictionary' after 'local'");
    (void)kw;
    Token name = p->tok;
    if (name.kind != TK_IDENT) parse_fail_expected(p, "a dictionary name");
    char *dname = parse_token_text(p, name);
    int32_t slot = sema_lookup_var(p->q, dname);
    if (slot >= 0 && sema_var(p->q, slot)->kind != VK_DICTIONARY)
        parse_fail(p, tok_span(name), "'%s' is already a %s variable", dname,
                   sema_kind_phrase(sema_var(p->q, slot)->kind));
    if (slot < 0) slot = sema_declare_var(p->q, dname, VK_DICTIONARY, tok_span(name));
    sema_var(p->q, slot)->local = local;
    parse_advance(p);
    if (p->tok.kind == TK_LBRACKET && parse_glued(&p->tok)) return parse_dict_entry(p, slot, tok_span(start));
    Node *n = parse_node(p, ND_DICT_DECL, span_join(tok_span(start), tok_span(name)), 0);
    n->slot = slot;
    n->text = dname;
    n->flags = local ? NF_LOCAL : 0;
    n->type = VT_NONE;
    return n;
}

Node *parse_dictionary_decl(Parser *p)
{
    Token t = p->tok;
    if (t.kind != TK_LOCAL) return parse_dictionary(p, false, t);
    parse_advance(p);
    return parse_dictionary(p, true, t);
}

/* bound := ('isbound' | 'isunbound') name */
Node *parse_isbound(Parser *p)
{
    Token kw = p->tok;
    NodeKind kind = filter_of_keyword(kw.kind);
    parse_advance(p);
    Token name = p->tok;
    if (name.kind != TK_IDENT) parse_fail_expected(p, "a variable name");
    parse_advance(p);
    if (p->tok.kind == TK_LBRACKET && parse_glued(&p->tok))
        parse_fail(p, tok_span(p->tok), "%s takes a variable name, not a dictionary entry", tok_describe(kw.kind));
    Node *n = parse_node(p, kind, span_join(tok_span(kw), tok_span(name)), 0);
    n->text = parse_token_text(p, name);
    n->slot = sema_lookup_var(p->q, n->text);
    n->type = VT_NONE;
    return n;
}

/* unbind := 'unbind' (name | name '[' F ']') */
Node *parse_unbind(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    if (p->tok.kind != TK_IDENT) parse_fail_expected(p, "a variable after 'unbind'");
    Token name = p->tok;
    int32_t slot = sema_lookup_var(p->q, parse_token_text(p, name));
    if (slot < 0) fail_unknown(p, name);
    Node *target = parse_identifier(p);
    if (target->kind != ND_VAR && target->kind != ND_DICT_INDEX)
        parse_fail(p, target->span, "'unbind' takes a variable or a dictionary entry");
    if (target->kind == ND_DICT_INDEX && sema_var(p->q, slot)->key_type == VT_NONE)
        parse_fail(p, target->span, "dictionary '%s' has no entries to unbind", sema_var(p->q, slot)->name);
    Node *n = parse_node1(p, ND_UNBIND, span_join(tok_span(kw), target->span), target);
    n->type = VT_NONE;
    return n;
}

/* persistent := 'persistent' ['quiet'] name op F
 * atomic     := 'atomic' name '=' F */
Node *parse_qualified_assignment(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    uint64_t flags = kw.kind == TK_PERSISTENT ? NF_PERSISTENT : NF_ATOMIC;
    if (kw.kind == TK_PERSISTENT && parse_accept(p, TK_QUIET)) flags |= NF_QUIET;
    Token name = p->tok;
    if (name.kind != TK_IDENT) parse_fail_expected(p, "a variable name");
    parse_advance(p);
    if (!parse_is_assign_op(p->tok.kind)) parse_fail_expected(p, "'=' after the variable name");
    if (kw.kind == TK_ATOMIC && p->tok.kind != TK_ASSIGN)
        parse_fail(p, tok_span(p->tok), "'atomic' works with '=' only");
    return parse_assignment(p, parse_token_text(p, name), flags, tok_span(kw));
}

/* }==== */

/* {==== primary ============================================================== */

/* primary := int | string | escape | designator | name-filter | piece-var |
 *            universal | '(' F ')' | '{' F {F} '}' | '///' ... | keyword filter */
static Node *parse_primary(Parser *p)
{
    Token t = p->tok;
    switch (t.kind) {
    case TK_INT: return parse_int(p);
    case TK_STRING: return parse_string(p);
    case TK_ESCAPE: return parse_escape(p);
    case TK_DESIGNATOR: return parse_designator(p);
    case TK_IDENT: return parse_identifier(p);
    case TK_PIECEVAR: return parse_piece_variable(p);
    case TK_FORALL: return parse_forall(p);
    case TK_LPAREN: return parse_paren(p);
    case TK_LBRACE: return parse_compound(p);
    case TK_COMMENT_FILTER: return parse_comment_symbol(p);
    case TK_QUANT: case TK_QUESTION: case TK_PLUS: case TK_STAR:
        if ((t.kind == TK_PLUS || t.kind == TK_STAR) && p->prev.kind != TK_RPAREN) parse_fail_expected(p, "a filter");
        parse_fail(p, tok_span(t), "repetition '%.*s' is allowed only in 'line' and 'path'", (int)t.len,
                   p->src->text + t.start);
    default:
        if (tok_class(t.kind) == TC_KEYWORD) return parse_keyword(p);
        parse_fail_expected(p, "a filter");
    }
}

/* }==== */

/* {==== header and body ====================================================== */

/* A file name in the header: a string, or the raw text up to white space or ')'. */
static const char *parse_file_name(Parser *p, const char *param)
{
    if (p->tok.kind == TK_STRING) {
        const char *name = parse_decode_string(p, p->tok);
        parse_advance(p);
        return name;
    }
    uint32_t start = p->tok.start, end = start;
    const char *s = p->src->text;
    while (end < p->lex.end && s[end] != ')' && s[end] != ' ' && s[end] != '\t' && s[end] != '\n' && s[end] != '\r')
        end++;
    if (end == start || p->tok.kind == TK_EOF) {
        parse_fail_expected(p, "a file name after '%s'", param);
    }
    const char *name = arena_strndup(p->a, s + start, end - start);
    reseek(p, end);
    return name;
}

static bool header_word(Parser *p, const char *word)
{
    return p->tok.kind == TK_IDENT && p->tok.len == strlen(word) &&
           memcmp(p->src->text + p->tok.start, word, p->tok.len) == 0;
}

/* The setting the header parameter at the current token names (its
 * keyword, or an identifier), or NULL. */
static const SettingInfo *header_setting(Parser *p)
{
    if (p->tok.kind == TK_STRING) return NULL;
    for (size_t i = 0; i < SETTING_COUNT; i++) {
        const SettingInfo *row = &setting_rows[i];
        if (row->header != HP_NONE && p->tok.len == strlen(row->name) &&
            memcmp(p->src->text + p->tok.start, row->name, p->tok.len) == 0)
            return row;
    }
    return NULL;
}

/* The value of setting `row` after its name, as the header writes it:
 * nothing for a flag, `N [M]` for a range, a string, a result. t is the
 * parameter's first token (`sort` for `sort matchcount`). */
static void parse_header_setting(Parser *p, const SettingInfo *row, Token t)
{
    Settings *values = &p->q->header.values;
    SettingId id = (SettingId)(row - setting_rows);
    switch (row->kind) {
    case SK_RANGE: {
        if (settings_given(values, id)) parse_fail(p, tok_span(t), "'%s' given twice in the header", row->name);
        int64_t lo = parse_count_literal(p, row->name);
        int64_t hi = p->tok.kind == TK_INT ? parse_count_literal(p, row->name)
                     : row->header == HP_AT_LEAST ? INT64_MAX : lo;
        if (hi < lo) parse_fail(p, tok_span(p->prev), "the range of '%s' is empty", row->name);
        settings_set_pair(values, row, lo, hi);
        break;
    }
    case SK_RESULT:
        settings_set_text(values, row, parse_result_text(p, t));
        break;
    case SK_TEXT:
        if (p->tok.kind != TK_STRING) parse_fail_expected(p, "a string after '%s'", row->name);
        settings_set_text(values, row, parse_decode_string(p, p->tok));
        parse_advance(p);
        break;
    default:
        settings_set_flag(values, row, true);
        break;
    }
}

/* header := 'cql' '(' {param} ')'
 * param  := 'input' file | 'output' file | 'sort' 'matchcount' int [int] |
 *           a setting that is a header parameter (settings.def): its name,
 *           then `int [int]` for a range, a string, a result text */
static void parse_header(Parser *p)
{
    QueryHeader *h = &p->q->header;
    if (!header_word(p, "cql")) parse_fail_expected(p, "'cql(' at the start of the query");
    Token start = p->tok;
    parse_advance(p);
    Token open = parse_expect(p, TK_LPAREN, "'(' after 'cql'");
    while (p->tok.kind != TK_RPAREN) {
        Token t = p->tok;
        const SettingInfo *row;
        if (header_word(p, "input") || header_word(p, "output")) {
            bool input = header_word(p, "input");
            unsigned flag = input ? QH_INPUT : QH_OUTPUT;
            if (h->present & flag) parse_fail(p, tok_span(t), "'%s' given twice in the header", input ? "input" : "output");
            parse_advance(p);
            *(input ? &h->input : &h->output) = parse_file_name(p, input ? "input" : "output");
            h->present |= flag;
        } else if (t.kind == TK_SORT && parse_peek(p, 1)->kind == TK_IDENT) {
            if (settings_given(&h->values, SET_matchcount))
                parse_fail(p, tok_span(t), "'matchcount' given twice in the header");
            parse_advance(p);
            row = header_setting(p);
            if (!row || row != &setting_rows[SET_matchcount]) parse_fail_expected(p, "'matchcount' after 'sort'");
            parse_advance(p);
            parse_header_setting(p, row, t);
            h->present |= QH_SORT_MATCHCOUNT;
        } else if ((row = header_setting(p))) {
            parse_advance(p);
            parse_header_setting(p, row, t);
        } else if (t.kind == TK_EOF) {
            parse_expect_closing(p, TK_RPAREN, open);
            return;
        } else {
            parse_fail(p, tok_span(t), "unknown parameter '%.*s' in the cql header", (int)t.len, p->src->text + t.start);
        }
    }
    h->span = span_join(tok_span(start), tok_span(p->tok));
    parse_advance(p);
}

/* The filters of text[start, end) (a source) added to the body. */
static void parse_members(Parser *p, Node *body, uint32_t start, uint32_t end)
{
    ast_lexer_init(&p->lex, p->q, start, end);
    p->nahead = 0;
    parse_advance(p);
    while (p->tok.kind != TK_EOF)
        ast_push(p->a, body, parse_sequence_member(p, body->nkids ? body->kids[body->nkids - 1] : NULL));
}

/* body := {F} — the filters of the query, all of which must match: those
 * given apart from its text, each source on its own (Query.src's parts
 * after the first), then those of the text after its header */
static Node *parse_body(Parser *p, bool body_only)
{
    Node *body = parse_node(p, ND_COMPOUND, tok_span(p->tok), 0);
    body->flags |= NF_IMPLICIT;
    const SourceText *src = &p->q->src;
    for (uint32_t i = 1; i < src->nparts; i++) parse_members(p, body, src->parts[i].start, src->parts[i].end);
    uint32_t apart = body->nkids;   /* the filters given apart from the text */
    parse_members(p, body, p->q->header.span.end, src->nparts ? src->parts[0].end : (uint32_t)src->len);
    if (body->nkids == 0) {
        /* CQL 6.2 refuses a query without a filter, after a header too
         * (`cql()` and a comment: chessql vector "//") */
        (void)body_only;
        parse_fail(p, tok_span(p->tok), "the query is empty: expected a filter");
        body->type = VT_NONE;
        return body;
    }
    /* the span of the text's filters (of the first filter when the text has
     * none): a span lies in one source */
    uint32_t first = apart < body->nkids ? apart : 0, last = apart < body->nkids ? body->nkids - 1 : 0;
    body->span = span_join(body->kids[first]->span, body->kids[last]->span);
    body->type = body->kids[body->nkids - 1]->type;
    return body;
}

/* isbound / isunbound may name a variable first assigned further down. */
static void resolve_late_names(Query *q, Node *n)
{
    if (!n) return;
    if ((n->kind == ND_ISBOUND || n->kind == ND_ISUNBOUND) && n->slot < 0) n->slot = sema_lookup_var(q, n->text);
    for (uint32_t i = 0; i < n->nkids; i++) resolve_late_names(q, n->kids[i]);
}

bool parse_query(Query *q, bool body_only, DiagSink *diag)
{
    Parser *p = xcalloc(1, sizeof *p);
    p->q = q;
    p->a = &q->arena;
    p->src = &q->src;
    p->diag = diag;
    volatile bool ok = false;
    if (setjmp(p->fail) == 0) {
        ast_lexer_init(&p->lex, q, 0, q->src.nparts ? q->src.parts[0].end : (uint32_t)q->src.len);
        parse_advance(p);
        if (!body_only) parse_header(p);
        q->body = parse_body(p, body_only);
        parse_check_height(p, q->body);   /* before any pass recurses through it */
        resolve_late_names(q, q->body);
        ok = true;
    }
    free(p);
    return ok;
}

/* }==== */
