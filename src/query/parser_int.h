/*
 * src/query/parser_int.h — private to the parser (parser.c, parser_filters.c,
 * parser_move.c). This file is not part of any interface.
 *
 * The Parser reads tokens on demand from a Lexer with a few tokens of
 * lookahead, builds nodes in the query arena, asks sema for their types,
 * and on the first error reports it and longjmps out to parse_query.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_PARSER_INT_H
#define CQL_PARSER_INT_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdnoreturn.h>

#include "query/ast.h"
#include "query/filters.h"
#include "query/lexer.h"
#include "query/parser.h"
#include "query/sema.h"

#define PARSE_DEPTH_LIMIT 256
#define PARSE_LOOKAHEAD 4

/* Binding strength, lowest first (after the precedence table of the
 * reference, §1.14, with `#` beside rank/file as CQL 6.2 behaves). A prefix
 * keyword parses its operand at its own level; the bodies of if, transforms,
 * iteration, find, echo, sort ... at PREC_LOWEST. */
typedef enum Prec {
    PREC_LOWEST,
    PREC_OR,
    PREC_AND,
    PREC_NOT,       /* not; arguments of comment, message, assert, str */
    PREC_IN,
    PREC_REL,       /* == != < <= > >= ≺ ≻ ≼ ≽ (right-associative) */
    PREC_RHS,       /* right sides of assignments; abs sqrt makesquare position */
    PREC_DASH,      /* F--G with F written right before the dash */
    PREC_ADD,       /* binary + - */
    PREC_CASE,      /* lowercase uppercase */
    PREC_MUL,       /* * / % */
    PREC_UNARY,     /* unary - */
    PREC_SETFN,     /* # int ascii rank file power type ... operands (tighter than +) */
    PREC_ATTACK,    /* -> <- attacks attackedby (looser than |: `P -> k | K` is
                       `P -> (k | K)`, CQL 6.2) */
    PREC_UNION,     /* | */
    PREC_INTER,     /* & */
    PREC_COMPL,     /* ~ */
    PREC_DIR,       /* direction filters, light, dark; pin and move arguments */
    PREC_POSTFIX,   /* x[i], ~~ */
    PREC_COLON,     /* : (right-associative) */
    PREC_PRIMARY
} Prec;

/* A function call being expanded: parameter names map to the arguments. */
typedef struct FuncFrame {
    int32_t index;              /* Function in Query.funcs */
    Node **args;
    uint32_t nargs;
    struct FuncFrame *up;
    uint32_t first_arg;         /* the call's num: its first argument's index (Query.ncall_args) */
} FuncFrame;

typedef struct Parser {
    Query *q;
    Arena *a;
    const SourceText *src;
    DiagSink *diag;
    Lexer lex;
    Token tok;                       /* the current token */
    Token ahead[PARSE_LOOKAHEAD];    /* tokens after it, already lexed */
    int nahead;
    Token prev;                      /* the token consumed last */
    int depth;
    uint8_t regex;     /* inside a line or path constituent (REGEX_LINE, REGEX_PATH):
                          + * ? {m,n} may repeat; 0 elsewhere */
    bool in_index;     /* in x[i:j] before the ':', which is not the ':' filter */
    bool in_arguments; /* in an argument list: a filter with an optional string
                          (`event`, `player white`) does not take one */
    FuncFrame *frame;  /* innermost function call being expanded */
    int calls_open;    /* calls being parsed (their arguments or their bodies) */
    Span outer_call;   /* the outermost of them */
    uint64_t expanded; /* nodes made for calls: bodies parsed again, arguments copied */
    jmp_buf fail;
} Parser;

/* {==== shared by parser.c and parser_move.c ================================ */

noreturn void parse_fail(Parser *p, Span span, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void parse_check(Parser *p, Span span, const char *error);   /* fails when error != NULL */

Span tok_span(Token t);
Span span_join(Span a, Span b);
const Token *parse_peek(Parser *p, int n);        /* n = 1: the token after the current one */
void parse_advance(Parser *p);
bool parse_accept(Parser *p, TokKind k);
Token parse_expect(Parser *p, TokKind k, const char *what);
void parse_expect_closing(Parser *p, TokKind close, Token open);
noreturn void parse_fail_expected(Parser *p, const char *fmt, ...)   /* "expected <fmt>, found ..." */
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void parse_expect_filter(Parser *p, TokKind after);   /* fails unless a filter can begin here */
char *parse_token_text(Parser *p, Token t);         /* a copy of the token's text */
bool parse_glued(const Token *t);                 /* no white space before t */

void parse_enter_level(Parser *p, Span at);
/* Refuses a tree deeper than AST_HEIGHT_LIMIT (ast.h), pointing at its
 * first node too deep: the parsed body before any pass recurses through
 * it, a call's arguments before they are copied, a transform's body
 * before it is walked. Bracket nesting is bounded as it is parsed
 * (parse_enter_level); this bounds what grows without recursion of the
 * parser: chains of mixed operators (`a - b + c - ...`), indexes, dashes. */
void parse_check_height(Parser *p, const Node *n);
void parse_leave_level(Parser *p);

/* Inside ( ) { } [ ] and function bodies the context flags (regex,
 * in_index, in_arguments) do not apply; close_brackets restores them. */
enum { REGEX_OFF, REGEX_LINE, REGEX_PATH };
typedef struct Nesting {
    uint8_t regex;
    bool in_index;
    bool in_arguments;
} Nesting;
Nesting parse_open_brackets(Parser *p);
void parse_close_brackets(Parser *p, Nesting saved);

Node *parse_node(Parser *p, NodeKind k, Span span, uint32_t nkids);
Node *parse_node1(Parser *p, NodeKind k, Span span, Node *kid);
Node *parse_node2(Parser *p, NodeKind k, Node *a, Node *b);
/* Parses the operand of a prefix keyword kw at prec and checks its type. */
Node *parse_prefix_operand(Parser *p, Prec prec, TypeMask allowed, Token kw);
Node *parse_int(Parser *p);
Node *parse_string(Parser *p);
char *parse_decode_string(Parser *p, Token t);
bool parse_is_assign_op(TokKind k);
/* name op F; the current token is the operator */
Node *parse_assignment(Parser *p, const char *name, uint64_t flags, Span start);
/* name ∊ S F; the current token is the name, `start` the first token */
Node *parse_iteration(Parser *p, bool universal, Token start);
/* the domain and body of an iteration (NF_ALL, NF_PIECE in flags) */
Node *parse_finish_iteration(Parser *p, const char *name, Token var, uint64_t flags, Token start, Token before_domain);
Node *parse_expr(Parser *p, Prec min);
Node *parse_filter(Parser *p);              /* parse_expr(PREC_LOWEST) */
bool parse_starts_filter(const Token *t);
Node *parse_braced_members(Parser *p, NodeKind kind, TokKind close, Token open);
Node *parse_argument_list(Parser *p, Node *parent, uint32_t min, uint32_t max, const char *who);
Node *parse_message_args(Parser *p, Node *n);
/* Whether the current token is the string operand of a filter that takes
 * an optional one (event "x", player white "x", hhdb composer "x"): a
 * string, not in an argument list. */
bool parse_takes_optional_string(const Parser *p);
int64_t parse_count_literal(Parser *p, const char *who);

/* parser_filters.c */
Node *parse_keyword(Parser *p);             /* any filter that begins with a keyword */
Node *parse_forall(Parser *p);
Node *parse_piece_variable(Parser *p);
Node *parse_comment_symbol(Parser *p);
const char *parse_result_text(Parser *p, Token kw);

/* parser_move.c */
Node *parse_dash(Parser *p, Node *from);
bool parse_is_repetition(Parser *p, const Node *lhs);

/* The parse functions of the filters whose shape is WITH(fn) in
 * filters.def: each begins at the filter's keyword (the current token). */
#define PARSE_WITH_EXPR
#define PARSE_WITH_PASS
#define PARSE_WITH_KW0
#define PARSE_WITH_KW1(prec, operand)
#define PARSE_WITH_ARGS(min, max, args)
#define PARSE_WITH_GAMETEXT(tag)
#define PARSE_WITH_WITH(fn) Node *fn(Parser *p);
#define FILTER(kind, name, shape, ...) PARSE_WITH_##shape
#include "query/filters.def"

/* }==== */

#endif
