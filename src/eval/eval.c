/*
 * src/eval/eval.c — evaluates a query at the positions of a game.
 *
 * Every node kind has one evaluation function in `eval_table` (a data table
 * indexed by NodeKind, filled from the entries of each family's descriptor:
 * this file's core filters, nav.c, text.c, moves.c, path.c, orbit.c,
 * dict.c); a kind without an entry is not supported yet, and
 * eval_check_supported reports it before any game is read. An evaluation
 * function returns whether the filter matches and, when it does, stores the
 * filter's value in *out (a set, a number, a position, a string, a piece).
 *
 * State: the current game and node, variable values (reset per game except
 * persistent ones), a per-node cache of facts that cost a move generation
 * (check, mate, stalemate), and the comments made while evaluating the body
 * at the current position (kept only if that position matches).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "eval/eval.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess/board_query.h"
#include "chess/movegen.h"
#include "eval/eval_int.h"
#include "query/sema.h"

/* {==== values and helpers ==================================================== */

static EvalFn eval_table[ND_COUNT_];

/* A value-only filter evaluated as a position filter (query/contexts.h),
 * as its row's test column says: lowercase and uppercase do not match;
 * currenttransform, readfile ... stop the run in their own evaluation
 * functions, with their own messages; anything else stops the run, as
 * CQL 6.2 does ("An attempt to match a position against the number ...").
 * The evaluation of the position goes on to its end without a match, and
 * eval_game looks at no further position. */
static bool eval_as_position(Evaluator *ev, const Node *n, Value *out)
{
    FilterTest test = filter_info(n->kind)->test;
    if (test == TEST_OWN_ERROR) return eval_table[n->kind](ev, n, out);
    if (test != TEST_NEVER && !ev->stopped_at) ev->stopped_at = n;
    return false;
}

bool eval_node(Evaluator *ev, const Node *n, Value *out)
{
    out->type = VT_NONE;
    if (ev->runtime_error) return false;
    if (n->flags & NF_AS_POSITION) return eval_as_position(ev, n, out);
    return eval_table[n->kind](ev, n, out);
}

void eval_stop_run(Evaluator *ev, const Node *n, const char *fmt, ...)
{
    if (ev->stopped_at || ev->runtime_error) return;
    StrBuf sb = SB_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    ev->stopped_at = n;
    ev->stop_reason = arena_strdup(ev->arena, sb_str(&sb));
    sb_free(&sb);
}

bool eval_loop_step(Evaluator *ev, const Node *n)
{
    int64_t budget = ev->settings.run.loop_budget ? ev->settings.run.loop_budget : EVAL_DEFAULT_LOOP_BUDGET;
    if (++ev->loop_steps <= budget) return true;
    eval_stop_run(ev, n, "loops repeated more than %lld times for one position (-loopbudget raises the limit): "
                  "the run stops here", (long long)budget);
    return false;
}

size_t eval_text_budget(const Evaluator *ev)
{
    return ev->settings.run.text_budget ? ev->settings.run.text_budget : EVAL_DEFAULT_TEXT_BUDGET;
}

bool eval_count_text(Evaluator *ev, const Node *n, size_t len)
{
    size_t budget = eval_text_budget(ev);
    if (ev->stopped_at) return false;
    ev->text_bytes += len;
    if (ev->text_bytes <= budget) return true;
    char size[32];
    format_size(size, sizeof size, budget);
    eval_stop_run(ev, n, "the query made more than %s of text for this game (strings, comments, messages, "
                  "dictionary entries; -textbudget raises the limit): the run stops here", size);
    return false;
}

char *eval_new_string(Evaluator *ev, const Node *n, const char *s, size_t len)
{
    if (!eval_count_text(ev, n, len + 1)) return NULL;
    return arena_strndup(ev->arena, s, len);
}

void eval_runtime_error(Evaluator *ev, const Node *n, const char *fmt, ...)
{
    if (ev->runtime_error) return;
    StrBuf sb = SB_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    ev->runtime_error = xstrdup(sb_str(&sb));
    ev->error_at = n;
    sb_free(&sb);
}

/* The square of piece `id` at the current node, as a set (empty if captured). */
Bitboard eval_piece_square(const Evaluator *ev, uint8_t id)
{
    game_fill_piece_ids(ev->game);
    const uint8_t *ids = ev->cur->piece_id;
    for (Square s = 0; s < SQ_NB; s++)
        if (ids[s] == id) return sq_bb(s);
    return 0;
}

void eval_piece_to_set(const Evaluator *ev, Value *v)
{
    if (v->type == VT_PIECE) {
        v->set = eval_piece_square(ev, v->piece);
        v->type = VT_SET;
    }
}

bool eval_set_of_node(Evaluator *ev, const Node *n, Bitboard *out)
{
    Value v;
    if (!eval_node(ev, n, &v)) {
        *out = 0;
        return false;
    }
    eval_piece_to_set(ev, &v);
    *out = v.type == VT_SET ? v.set : 0;
    return true;
}

/* A number, or the size of a set (sets stand for their cardinality). */
bool eval_number(Evaluator *ev, const Node *n, int64_t *out)
{
    Value v;
    if (!eval_node(ev, n, &v)) return false;
    eval_piece_to_set(ev, &v);
    if (v.type == VT_SET) *out = bb_popcount(v.set);
    else if (v.type == VT_NUMBER) *out = v.num;
    else return false;
    return true;
}

static bool set_value(Value *out, Bitboard b)
{
    out->type = VT_SET;
    out->set = b;
    return b != 0;
}

static bool number_value(Value *out, int64_t x)
{
    out->type = VT_NUMBER;
    out->num = x;
    return true;
}

bool eval_string_value(Value *out, const char *s)
{
    out->type = VT_STRING;
    out->str = s;
    return s != NULL;
}

bool eval_position_value(Value *out, const GameNode *n)
{
    out->type = VT_POSITION;
    out->pos = n;
    return n != NULL;
}

static const Position *cur_pos(const Evaluator *ev)
{
    return &ev->cur->pos;
}

NodeCache *eval_node_cache(Evaluator *ev, const GameNode *n)
{
    /* made on first use: most queries never need it */
    if (!ev->cache) ev->cache = ARENA_ARRAY(ev->arena, NodeCache, ev->game->node_count);
    return &ev->cache[n->id];
}

static void ensure_legal_facts(Evaluator *ev, const GameNode *n)
{
    NodeCache *c = eval_node_cache(ev, n);
    if (c->known & NC_LEGAL) return;
    /* in check, the node's check state already says whether there is a move */
    NodeCheck state = game_node_check(n);
    c->in_check = state != NODE_NO_CHECK;
    c->has_legal_move = state == NODE_IN_CHECK ||
                        (state == NODE_NO_CHECK && (game_node_plays_a_move(n) || mg_has_legal_move(&n->pos)));
    c->known |= NC_LEGAL;
}

/* Text of a value, for str, comments and messages. */
void eval_value_to_text(const Evaluator *ev, const Value *v, StrBuf *sb)
{
    switch (v->type) {
    case VT_NUMBER:
        sb_printf(sb, "%lld", (long long)v->num);
        break;
    case VT_STRING:
        sb_append(sb, v->str);
        break;
    case VT_PIECE:
    case VT_SET: {
        Bitboard b = v->type == VT_PIECE ? eval_piece_square(ev, v->piece) : v->set;
        if (bb_popcount(b) != 1) sb_putc(sb, '[');
        bool first = true;
        for (; b; first = false) {
            char name[3];
            Square s = bb_pop_lsb(&b);
            if (!first) sb_putc(sb, ',');
            if (v->type == VT_PIECE) sb_putc(sb, piece_char(pos_piece_on(cur_pos(ev), s)));
            sq_name(s, name);
            sb_append(sb, name);
        }
        if (bb_popcount(v->type == VT_PIECE ? eval_piece_square(ev, v->piece) : v->set) != 1)
            sb_putc(sb, ']');
        break;
    }
    case VT_POSITION: {
        const GameNode *p = v->pos;
        sb_printf(sb, "move %u(%s)", p->pos.fullmove, p->pos.side == WHITE ? "wtm" : "btm");
        break;
    }
    case VT_DICTIONARY:
        eval_dict_to_text(ev, v->dict_slot, sb);
        break;
    default:
        break;
    }
}

/* }==== */
/* {==== structure, constants, variables ======================================== */

static bool eval_compound(Evaluator *ev, const Node *n, Value *out)
{
    for (uint32_t i = 0; i < n->nkids; i++)
        if (!eval_node(ev, n->kids[i], out)) return false;
    return true;
}

static bool eval_first_kid(Evaluator *ev, const Node *n, Value *out)
{
    return eval_node(ev, n->kids[0], out);
}

/* An argument that is evaluated where the function is called, not where
 * its parameter stands in the body: a set that is not a variable (CQL 6.2:
 * `function F(T){child:T} F(Q)` is `Q and child`, not `child:Q`). */
static bool argument_is_evaluated_at_call(const Node *arg)
{
    return arg && arg->type == VT_SET && arg->kind != ND_VAR;
}

/* F(args): the set arguments are evaluated here, then the body (kids[0], the
 * function's body with the arguments in place) */
static bool eval_call(Evaluator *ev, const Node *n, Value *out)
{
    for (uint32_t i = 1; i < n->nkids; i++) {
        if (!argument_is_evaluated_at_call(n->kids[i])) continue;
        Value *v = &ev->call_args[n->num + i - 1];
        v->type = VT_SET;
        eval_set(ev, n->kids[i], &v->set);
    }
    return eval_node(ev, n->kids[0], out);
}

/* a parameter in a function's body: the value of its argument at the call,
 * or the argument evaluated here */
static bool eval_param(Evaluator *ev, const Node *n, Value *out)
{
    if (!argument_is_evaluated_at_call(n->kids[0])) return eval_node(ev, n->kids[0], out);
    return set_value(out, ev->call_args[n->num].set);
}

static bool eval_always(Evaluator *ev, const Node *n, Value *out)
{
    (void)ev;
    (void)n;
    (void)out;
    return true;
}

static bool eval_never(Evaluator *ev, const Node *n, Value *out)
{
    (void)ev;
    (void)n;
    (void)out;
    return false;
}

static bool eval_int(Evaluator *ev, const Node *n, Value *out)
{
    (void)ev;
    return number_value(out, n->num);
}

static bool eval_string(Evaluator *ev, const Node *n, Value *out)
{
    (void)ev;
    return eval_string_value(out, n->text);
}

static bool eval_designator(Evaluator *ev, const Node *n, Value *out)
{
    return set_value(out, designator_squares(ev, n->desig));
}

static bool eval_var(Evaluator *ev, const Node *n, Value *out)
{
    if (ev->q->vars[n->slot].kind == VK_DICTIONARY) {
        /* a dictionary as a whole (an iteration domain, text): always there */
        out->type = VT_DICTIONARY;
        out->dict_slot = n->slot;
        return true;
    }
    if (!ev->bound[n->slot]) {
        /* reading a variable without a value stops the run, as in CQL 6.2
         * (cql62-fidelity-2.md R12); `isbound x` asks without reading */
        eval_stop_run(ev, n, "the variable '%s' has no value here (it was not assigned yet, or was unbound "
                      "after an iteration or by 'unbind'): the run stops here (as in CQL 6.2)",
                      ev->q->vars[n->slot].name);
        return false;
    }
    *out = ev->vars[n->slot];
    if (out->type == VT_SET || out->type == VT_PIECE) {
        /* a set variable matches when its set is not empty */
        Bitboard b = out->type == VT_PIECE ? eval_piece_square(ev, out->piece) : out->set;
        return b != 0;
    }
    return true;
}

/* x = F, piece x = F, x += F ... */
static bool eval_assign(Evaluator *ev, const Node *n, Value *out)
{
    Value v;
    bool matched = eval_node(ev, n->kids[0], &v);
    int32_t slot = n->slot;
    if (n->flags & NF_PIECE) {
        /* a piece variable holds the piece standing on the one square of F */
        eval_piece_to_set(ev, &v);
        if (!matched || v.type != VT_SET || bb_popcount(v.set & pos_occupied(cur_pos(ev))) != 1)
            return false;
        Square s = bb_lsb(v.set & pos_occupied(cur_pos(ev)));
        v.type = VT_PIECE;
        game_fill_piece_ids(ev->game);
        v.piece = ev->cur->piece_id[s];
    } else if (v.type == VT_PIECE && ev->q->vars[slot].kind != VK_PIECE) {
        eval_piece_to_set(ev, &v);
    }
    if (n->op == TK_ASSIGN_IF) {
        /* x =? S: binds x only to a non-empty set; otherwise fails and leaves x
         * as it was (cql62-remaining.md §7) */
        eval_piece_to_set(ev, &v);
        if (!matched || v.type != VT_SET || !v.set) return false;
        ev->vars[slot] = v;
        ev->bound[slot] = true;
        *out = v;
        return true;
    }
    if (n->op == TK_ASSIGN) {
        /* a set assignment always matches; other values only when F matched.
         * A move filter with a target part that did not match assigns the
         * empty set, though it left no value: `v = e4--e5(to)` where no such
         * move is (CQL 6.2, cql62-fidelity.md [C5]) */
        if (!matched && n->kids[0]->kind == ND_DASH && type_is_set(n->kids[0]->type) && v.type != VT_SET) {
            v.type = VT_SET;
            v.set = 0;
        }
        if (!matched && !(v.type == VT_SET && type_is_set(n->kids[0]->type))) return false;
        ev->vars[slot] = v;
        ev->bound[slot] = true;
        *out = v;
        return true;
    }
    if (!matched) return false;
    Value *var = &ev->vars[slot];
    if (!ev->bound[slot]) {
        /* a persistent variable never assigned starts from 0 or "" (CQL 6.2:
         * `persistent y += 2` matches); any other must have a value */
        if (!ev->q->vars[slot].persistent) return false;
        eval_piece_to_set(ev, &v);
        if (v.type == VT_STRING) *var = (Value){.type = VT_STRING, .str = ""};
        else if (v.type == VT_NUMBER || v.type == VT_SET) *var = (Value){.type = VT_NUMBER, .num = 0};
        else return false;
        ev->bound[slot] = true;
    }
    if (var->type == VT_STRING && n->op == TK_PLUS_ASSIGN && v.type == VT_STRING) {
        StrBuf sb = SB_INIT;
        sb_append(&sb, var->str);
        sb_append(&sb, v.str);
        const char *joined = eval_new_string(ev, n, sb_str(&sb), sb.len);
        sb_free(&sb);
        if (!joined) return false;
        var->str = joined;
        *out = *var;
        return true;
    }
    if (var->type != VT_NUMBER) return false;
    int64_t rhs;
    eval_piece_to_set(ev, &v);
    if (v.type == VT_SET) rhs = bb_popcount(v.set);
    else if (v.type == VT_NUMBER) rhs = v.num;
    else return false;
    if (!eval_arith_op(n->op, var->num, rhs, &var->num)) return false;
    *out = *var;
    return true;
}

static bool eval_isbound(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    bool bound;
    if (n->slot >= 0 && ev->q->vars[n->slot].kind == VK_DICTIONARY)
        /* isbound D: a declared dictionary is bound, even empty (CQL 6.2) */
        bound = true;
    else
        bound = n->slot >= 0 && ev->bound[n->slot];
    return n->kind == ND_ISBOUND ? bound : !bound;
}

static bool eval_unbind(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    const Node *v = n->kids[0];
    if (v->kind == ND_DICT_INDEX || ev->q->vars[v->slot].kind == VK_DICTIONARY) eval_dict_unbind(ev, v);
    else if (v->kind == ND_VAR) ev->bound[v->slot] = false;
    return true;
}

/* }==== */
/* {==== logic ================================================================ */

/* a and b and c ...: one node, its operands left to right (parser.c) */
static bool eval_and(Evaluator *ev, const Node *n, Value *out)
{
    Value v;
    (void)out;
    for (uint32_t i = 0; i < n->nkids; i++)
        if (!eval_node(ev, n->kids[i], &v)) return false;
    return true;
}

static bool eval_or(Evaluator *ev, const Node *n, Value *out)
{
    Value v;
    (void)out;
    for (uint32_t i = 0; i < n->nkids; i++)
        if (eval_node(ev, n->kids[i], &v)) return true;
    return false;
}

static bool eval_not(Evaluator *ev, const Node *n, Value *out)
{
    Value v;
    (void)out;
    /* comments made inside a `not` never reach the output */
    int saved = ev->npending;
    bool matched = eval_node(ev, n->kids[0], &v);
    ev->npending = saved;
    return !matched;
}

static bool eval_if(Evaluator *ev, const Node *n, Value *out)
{
    Value test;
    if (eval_node(ev, n->kids[0], &test)) return eval_node(ev, n->kids[1], out);
    if (n->kids[2]) return eval_node(ev, n->kids[2], out);
    /* without else, `if A B` is the implication A -> B: true when A fails
     * (CQL 6.2: `if check Ka1` matches every position without a check) */
    return true;
}

/* loop F: evaluates F again and again until it does not match. The loop
 * itself always matches and has no value (CQL 6.1). A body that changes no
 * variable is refused before the run (eval_check_supported); one that does
 * and still always matches would never end (in CQL 6.2 it does not): the
 * loop budget stops the run there with an error, never with a wrong
 * answer. */
static bool eval_loop(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    Value v;
    while (eval_loop_step(ev, n) && eval_node(ev, n->kids[0], &v)) {
    }
    return true;
}

/* while (T) F: evaluates F as long as T matches, whether or not F matched;
 * always matches, also when T fails at once, and has no value (CQL 6.2,
 * cql62-fidelity-2.md R5). A while whose test and body change no variable
 * is refused before the run (eval_check_supported); one whose test keeps
 * matching would never end (in CQL 6.2 it does not): the loop budget stops
 * the run there with an error. */
const Node *eval_while_regex(const Node *test)
{
    while (test && (test->kind == ND_PAREN || (test->kind == ND_COMPOUND && test->nkids == 1)))
        test = test->kids[0];
    return test && test->kind == ND_REGEX ? test : NULL;
}

static bool eval_while(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    /* while (S ~~ P): steps through the matches of P in S (CQL 6.2) */
    const Node *regex = eval_while_regex(n->kids[0]);
    if (regex) return eval_regex_while(ev, n, regex, n->kids[1]);
    Value v;
    while (eval_node(ev, n->kids[0], &v) && eval_loop_step(ev, n)) eval_node(ev, n->kids[1], &v);
    return true;
}

/* }==== */
/* {==== numbers and relations ================================================== */

bool eval_arith_op(TokKind op, int64_t x, int64_t y, int64_t *out)
{
    switch (op) {
    case TK_PLUS: case TK_PLUS_ASSIGN:
        if (y > 0 ? x > INT64_MAX - y : x < INT64_MIN - y) return false;
        *out = x + y;
        return true;
    case TK_MINUS: case TK_MINUS_ASSIGN:
        if (y < 0 ? x > INT64_MAX + y : x < INT64_MIN + y) return false;
        *out = x - y;
        return true;
    case TK_STAR: case TK_STAR_ASSIGN:
        if (x != 0 && y != 0) {
            bool positive = (x > 0) == (y > 0);
            /* |x * y| <= the limit of the result's sign, without overflow */
            if (positive ? (x > 0 ? x > INT64_MAX / y : x < INT64_MAX / y)
                         : (x > 0 ? y < INT64_MIN / x : x < INT64_MIN / y))
                return false;
        }
        *out = x * y;
        return true;
    case TK_SLASH: case TK_SLASH_ASSIGN:
        if (y == 0 || (x == INT64_MIN && y == -1)) return false;
        *out = x / y;
        return true;
    case TK_PERCENT: case TK_PERCENT_ASSIGN:
        if (y == 0) return false;
        *out = y == -1 ? 0 : x % y;   /* INT64_MIN % -1 is 0, though C leaves it undefined */
        return true;
    default:
        return false;
    }
}

static bool eval_negate(Evaluator *ev, const Node *n, Value *out)
{
    int64_t x;
    return eval_number(ev, n->kids[0], &x) && x != INT64_MIN && number_value(out, -x);
}

/* Strings joined by +: the operands' texts in one new string. */
static bool join_strings(Evaluator *ev, const Node *n, Value *out)
{
    StrBuf sb = SB_INIT;
    bool ok = true;
    for (uint32_t i = 0; i < n->nkids && ok; i++) {
        Value v;
        ok = eval_node(ev, n->kids[i], &v) && v.type == VT_STRING;
        if (ok) sb_append(&sb, v.str);
    }
    if (ok) ok = eval_string_value(out, eval_new_string(ev, n, sb_str(&sb), sb.len));
    sb_free(&sb);
    return ok;
}

/* a + b + c ... with one operator: folded from the left, as written (a
 * set stands for its number of squares); fails on an overflow. */
static bool eval_arith(Evaluator *ev, const Node *n, Value *out)
{
    if (n->type == VT_STRING) return join_strings(ev, n, out);
    int64_t result = 0;
    for (uint32_t i = 0; i < n->nkids; i++) {
        int64_t x;
        if (!eval_number(ev, n->kids[i], &x)) return false;
        if (i == 0) result = x;
        else if (!eval_arith_op(n->op, result, x, &result)) return false;
    }
    return number_value(out, result);
}

static bool compare_numbers(TokKind op, int64_t x, int64_t y)
{
    switch (op) {
    case TK_EQ: return x == y;
    case TK_NE: return x != y;
    case TK_LT: return x < y;
    case TK_LE: return x <= y;
    case TK_GT: return x > y;
    case TK_GE: return x >= y;
    default: return false;
    }
}

/* a OP b: numbers, strings, sets (== and != compare the sets themselves;
 * beside a number a set stands for its size), positions. Chains group to
 * the right, so the value of a matching relation is its left operand's. */
static bool eval_relation(Evaluator *ev, const Node *n, Value *out)
{
    Value a, b;
    /* `legal -- == 0`: whether there is a legal move at all, its value 0 */
    bool no_move;
    if (n->op == TK_EQ && n->kids[1]->kind == ND_INT && n->kids[1]->num == 0
        && eval_dash_finds_no_move(ev, n->kids[0], &no_move))
        return no_move && number_value(out, 0);
    if (!eval_node(ev, n->kids[0], &a)) {
        /* an empty set still has a size (0) and a set to compare */
        if (!(a.type == VT_SET || a.type == VT_PIECE)) return false;
    }
    if (!eval_node(ev, n->kids[1], &b)) {
        if (!(b.type == VT_SET || b.type == VT_PIECE)) return false;
    }
    eval_piece_to_set(ev, &a);
    eval_piece_to_set(ev, &b);
    bool holds;
    if (a.type == VT_SET && b.type == VT_SET) {
        if (n->op == TK_EQ) holds = a.set == b.set;
        else if (n->op == TK_NE) holds = a.set != b.set;
        else holds = compare_numbers(n->op, bb_popcount(a.set), bb_popcount(b.set));
    } else if (a.type == VT_STRING && b.type == VT_STRING) {
        holds = compare_numbers(n->op, strcmp(a.str, b.str), 0);
    } else if (a.type == VT_POSITION && b.type == VT_POSITION) {
        holds = eval_compare_positions(n->op, a.pos, b.pos);
    } else if ((a.type == VT_SET || a.type == VT_NUMBER) && (b.type == VT_SET || b.type == VT_NUMBER)) {
        int64_t x = a.type == VT_SET ? bb_popcount(a.set) : a.num;
        int64_t y = b.type == VT_SET ? bb_popcount(b.set) : b.num;
        holds = compare_numbers(n->op, x, y);
        if (holds && a.type == VT_SET && b.type == VT_NUMBER) {
            /* `Q >= 2` is `#Q >= 2`: its value is the number */
            a.type = VT_NUMBER;
            a.num = x;
        }
    } else {
        return false;
    }
    if (!holds) return false;
    *out = a;
    return true;
}

static bool eval_count(Evaluator *ev, const Node *n, Value *out)
{
    Value v;
    if (!eval_node(ev, n->kids[0], &v) && v.type != VT_SET && v.type != VT_PIECE) return false;
    eval_piece_to_set(ev, &v);
    if (v.type == VT_SET) return number_value(out, bb_popcount(v.set));
    if (v.type == VT_STRING) return number_value(out, (int64_t)strlen(v.str));
    return false;
}

static bool eval_minmax(Evaluator *ev, const Node *n, Value *out)
{
    int64_t best = 0;
    for (uint32_t i = 0; i < n->nkids; i++) {
        int64_t x;
        if (!eval_number(ev, n->kids[i], &x)) return false;
        if (i == 0 || (n->op == TK_MAX ? x > best : x < best)) best = x;
    }
    return number_value(out, best);
}

static bool eval_abs(Evaluator *ev, const Node *n, Value *out)
{
    int64_t x;
    return eval_number(ev, n->kids[0], &x) && x != INT64_MIN && number_value(out, x < 0 ? -x : x);
}

static bool eval_sqrt(Evaluator *ev, const Node *n, Value *out)
{
    int64_t x;
    if (!eval_number(ev, n->kids[0], &x) || x < 0) return false;
    int64_t r = (int64_t)sqrt((double)x);
    while (r > 0 && r > x / r) r--;            /* r * r > x, without overflow */
    while (r + 1 <= x / (r + 1)) r++;         /* (r + 1)^2 <= x */
    return number_value(out, r);
}

/* }==== */
/* {==== sets and geometry ======================================================= */

static bool eval_union(Evaluator *ev, const Node *n, Value *out)
{
    Bitboard all = 0;
    for (uint32_t i = 0; i < n->nkids; i++) {
        Bitboard b;
        eval_set(ev, n->kids[i], &b);
        all |= b;
    }
    return set_value(out, all);
}

/* a & b & c ...: the operands left to right, none after an empty result */
static bool eval_intersect(Evaluator *ev, const Node *n, Value *out)
{
    if (n->kids[0]->type == VT_POSITION) return eval_position_intersect(ev, n, out);
    Bitboard common;
    eval_set(ev, n->kids[0], &common);
    for (uint32_t i = 1; i < n->nkids && common; i++) {
        Bitboard b;
        eval_set(ev, n->kids[i], &b);
        common &= b;
    }
    return set_value(out, common);
}

static bool eval_complement(Evaluator *ev, const Node *n, Value *out)
{
    Bitboard a;
    eval_set(ev, n->kids[0], &a);
    return set_value(out, ~a);
}

/* X in Y: X is a subset of Y; for strings, a substring. */
static bool eval_in(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    if (type_is_set(n->kids[0]->type)) {
        Bitboard a, b;
        eval_set(ev, n->kids[0], &a);
        eval_set(ev, n->kids[1], &b);
        return (a & ~b) == 0;
    }
    Value a, b;
    if (!eval_node(ev, n->kids[0], &a) || !eval_node(ev, n->kids[1], &b)) return false;
    return a.type == VT_STRING && b.type == VT_STRING && strstr(b.str, a.str) != NULL;
}

/* A → B → C ... written without parentheses (three sets or more) is a line
 * from a slider on A meeting B, C ... in order, where a middle set may be
 * an empty square the line passes (bq_arrow_chain; CQL 6.2: `Q -> a4 ->
 * a8` with the queen on a1 and a4 empty). `A ← B ← C` starts from C. The
 * value is the squares of the leftmost set written: for → the squares of A
 * a hit was found from, for ← the hit squares, in A. */
static bool eval_arrow_chain(Evaluator *ev, const Node *n, Value *out)
{
    int nsets = 1;
    for (const Node *at = n; at->kind == n->kind; at = at->kids[0]) nsets++;
    if (nsets > BQ_ARROW_CHAIN_MAX) return set_value(out, 0);
    const Node *operands[BQ_ARROW_CHAIN_MAX];   /* as written, left to right */
    const Node *at = n;
    for (int i = nsets - 1; i > 0; i--, at = at->kids[0]) operands[i] = at->kids[1];
    operands[0] = at;
    bool forward = n->kind == ND_ATTACKS;
    Bitboard sets[BQ_ARROW_CHAIN_MAX];   /* from the start of the line */
    for (int i = 0; i < nsets; i++) eval_set(ev, operands[i], &sets[forward ? i : nsets - 1 - i]);
    Bitboard hits, starts = bq_arrow_chain(cur_pos(ev), sets, nsets, &hits);
    return set_value(out, forward ? starts : hits);
}

static bool eval_attacks(Evaluator *ev, const Node *n, Value *out)
{
    if (n->kids[0]->kind == ND_ATTACKS) return eval_arrow_chain(ev, n, out);
    Bitboard x, y;
    eval_set(ev, n->kids[0], &x);
    if (!x) return set_value(out, 0);
    eval_set(ev, n->kids[1], &y);
    return set_value(out, bq_attackers(cur_pos(ev), x, y));
}

static bool eval_attackedby(Evaluator *ev, const Node *n, Value *out)
{
    if (n->kids[0]->kind == ND_ATTACKEDBY) return eval_arrow_chain(ev, n, out);
    Bitboard y, x;
    eval_set(ev, n->kids[0], &y);
    if (!y) return set_value(out, 0);
    eval_set(ev, n->kids[1], &x);
    return set_value(out, bq_attacked(cur_pos(ev), y, x));
}

static bool eval_between(Evaluator *ev, const Node *n, Value *out)
{
    Bitboard x, y;
    eval_set(ev, n->kids[0], &x);
    eval_set(ev, n->kids[1], &y);
    return set_value(out, bq_between(x, y));
}

/* up [m [n]] S ...: the squares m..n steps from S (1..7 without a range;
 * one bound m: m..m). A range outside -7..7, or with m > n, stops the run
 * (CQL 6.2: "Invalid range"); an unbound variable gives no square. */
static bool eval_direction(Evaluator *ev, const Node *n, Value *out)
{
    int64_t lo = 1, hi = 7;
    if (n->kids[1]) {
        if (!eval_number(ev, n->kids[1], &lo)) return set_value(out, 0);
        hi = lo;
        if (n->kids[2] && !eval_number(ev, n->kids[2], &hi)) return set_value(out, 0);
        if (lo < -7 || hi > 7 || lo > hi) {
            eval_stop_run(ev, n, "Invalid range %lld to %lld: a direction's distances lie within -7 to 7, the "
                          "smaller first: the run stops here (as in CQL 6.2)", (long long)lo, (long long)hi);
            return set_value(out, 0);
        }
    }
    Bitboard x;
    eval_set(ev, n->kids[0], &x);
    return set_value(out, bq_direction(x, n->dirs, (int)lo, (int)hi));
}

#define RAY_MAX_ARGS 32

static bool eval_ray(Evaluator *ev, const Node *n, Value *out)
{
    Bitboard sets[RAY_MAX_ARGS];
    uint32_t k = n->nkids < RAY_MAX_ARGS ? n->nkids : RAY_MAX_ARGS;
    for (uint32_t i = 0; i < k; i++) {
        eval_set(ev, n->kids[i], &sets[i]);
        if (!sets[i]) return set_value(out, 0);
    }
    if (n->kind == ND_XRAY) return set_value(out, bq_xray(cur_pos(ev), sets, (int)k));
    return set_value(out, bq_ray(cur_pos(ev), n->dirs ? n->dirs : DIRS_ALL, sets, (int)k));
}

static bool eval_pin(Evaluator *ev, const Node *n, Value *out)
{
    const Position *pos = cur_pos(ev);
    Bitboard from = pos_occupied(pos), through = from, to = pos->by_type[KING];
    if (n->kids[0]) eval_set(ev, n->kids[0], &from);
    if (n->kids[1]) eval_set(ev, n->kids[1], &through);
    if (n->kids[2]) eval_set(ev, n->kids[2], &to);
    PinValue which = n->op == TK_FROM ? PIN_PINNING : n->op == TK_TO ? PIN_PINNED_TO : PIN_PINNED;
    return set_value(out, bq_pin(pos, from, through, to, which));
}

static bool eval_light_dark(Evaluator *ev, const Node *n, Value *out)
{
    Bitboard x;
    eval_set(ev, n->kids[0], &x);
    return set_value(out, x & (n->kind == ND_LIGHT ? LIGHT_SQUARES_BB : DARK_SQUARES_BB));
}

static bool eval_makesquare(Evaluator *ev, const Node *n, Value *out)
{
    if (n->nkids == 1 || !n->kids[1]) {
        Value v;
        if (!eval_node(ev, n->kids[0], &v) || v.type != VT_STRING) return false;
        Square s = sq_parse(v.str);
        return s != SQ_NONE && v.str[2] == '\0' && set_value(out, sq_bb(s));
    }
    int64_t f, r;
    if (!eval_number(ev, n->kids[0], &f) || !eval_number(ev, n->kids[1], &r)) return false;
    if (f < 1 || f > 8 || r < 1 || r > 8) return false;
    return set_value(out, sq_bb(make_square((int)f - 1, (int)r - 1)));
}

/* The one square of a set filter, for rank, file, type ... */
static bool single_square(Evaluator *ev, const Node *n, Square *s)
{
    Bitboard x;
    eval_set(ev, n, &x);
    if (!x || bb_more_than_one(x)) return false;
    *s = bb_lsb(x);
    return true;
}

static bool eval_rank_file(Evaluator *ev, const Node *n, Value *out)
{
    Square s;
    if (!single_square(ev, n->kids[0], &s)) return false;
    return number_value(out, 1 + (n->kind == ND_RANK ? rank_of(s) : file_of(s)));
}

static bool eval_type(Evaluator *ev, const Node *n, Value *out)
{
    Square s;
    if (!single_square(ev, n->kids[0], &s)) return false;
    Piece p = pos_piece_on(cur_pos(ev), s);
    /* colortype of an empty square is 0 (CQL 6.2); type has no value there */
    if (p == NO_PIECE) return n->kind == ND_COLORTYPE ? number_value(out, 0) : false;
    int t = (int)type_of(p);
    return number_value(out, n->kind == ND_COLORTYPE && color_of(p) == BLACK ? -t : t);
}

/* piecename X: the letter of the piece on the one square of X, by colour
 * ("Q", "q"); typename X: its type ("K" for a king of either colour). An
 * empty square is "_"; no value unless X is one square (CQL 6.2). */
static bool eval_piece_letter(Evaluator *ev, const Node *n, Value *out)
{
    Square s;
    if (!single_square(ev, n->kids[0], &s)) return false;
    Piece p = pos_piece_on(cur_pos(ev), s);
    static const char *const letters[] = {"_", "P", "N", "B", "R", "Q", "K", "p", "n", "b", "r", "q", "k"};
    if (p == NO_PIECE) return eval_string_value(out, letters[0]);
    char c = piece_char(n->kind == ND_TYPENAME ? make_piece(WHITE, type_of(p)) : p);
    for (size_t i = 1; i < sizeof letters / sizeof letters[0]; i++)
        if (letters[i][0] == c) return eval_string_value(out, letters[i]);
    return false;
}

static bool eval_power(Evaluator *ev, const Node *n, Value *out)
{
    Bitboard x;
    eval_set(ev, n->kids[0], &x);
    return number_value(out, bq_power(cur_pos(ev), x));
}

static bool eval_enpassantsquare(Evaluator *ev, const Node *n, Value *out)
{
    (void)n;
    Square ep = cur_pos(ev)->ep;
    return set_value(out, ep == SQ_NONE ? 0 : sq_bb(ep));
}

static bool eval_pawns(Evaluator *ev, const Node *n, Value *out)
{
    const Position *pos = cur_pos(ev);
    switch (n->kind) {
    case ND_DOUBLEDPAWNS: return set_value(out, bq_doubled_pawns(pos));
    case ND_ISOLATEDPAWNS: return set_value(out, bq_isolated_pawns(pos));
    case ND_PASSEDPAWNS: return set_value(out, bq_passed_pawns(pos));
    default: return set_value(out, bq_connected_pawns(pos));
    }
}

/* square [all] x in Z F, piece [all] x in Z F, x∊Z F, ∀x∊Z F, ◭x∊Z F. The
 * variable is bound for the body and unbound after it. When the body is
 * about to run and the variable already has a value (assigned before, or
 * the variable of an enclosing iteration), the run stops, as in CQL 6.2
 * (cql62-fidelity-2.md R12). */
static bool eval_square_iter(Evaluator *ev, const Node *n, Value *out)
{
    if (n->kids[0]->type == VT_DICTIONARY) return eval_dict_iterate(ev, n, out);
    Bitboard domain;
    eval_set(ev, n->kids[0], &domain);
    bool pieces = (n->flags & NF_PIECE) != 0;
    if (pieces) domain &= pos_occupied(cur_pos(ev));
    bool all = (n->flags & NF_ALL) != 0;
    int32_t slot = n->slot;
    if (domain && ev->bound[slot]) {
        eval_stop_run(ev, n, "the variable '%s' of this %s iteration already has a value (an iteration "
                      "variable must be unbound when its body runs): the run stops here (as in CQL 6.2)",
                      ev->q->vars[slot].name, pieces ? "piece" : "square");
        return false;
    }
    Bitboard hits = 0;
    bool every = true;
    for (Bitboard b = domain; b;) {
        Square s = bb_pop_lsb(&b);
        Value *var = &ev->vars[slot];
        if (pieces) {
            var->type = VT_PIECE;
            game_fill_piece_ids(ev->game);
            var->piece = ev->cur->piece_id[s];
        } else {
            var->type = VT_SET;
            var->set = sq_bb(s);
        }
        ev->bound[slot] = true;
        Value body;
        if (eval_node(ev, n->kids[1], &body)) {
            hits |= sq_bb(s);
        } else {
            every = false;
            if (all) break;
        }
    }
    ev->bound[slot] = false;
    if (all) return every;
    return set_value(out, hits);
}

/* }==== */
/* {==== position state ========================================================= */

static bool eval_check(Evaluator *ev, const Node *n, Value *out)
{
    (void)n;
    (void)out;
    return game_node_check(ev->cur) != NODE_NO_CHECK;
}

static bool eval_mate_stalemate(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    if (n->kind == ND_MATE) return !ev->cur->child && game_node_check(ev->cur) == NODE_MATED;
    /* the cheap halves first: stalemate needs no move and no check */
    if (game_node_plays_a_move(ev->cur) || game_node_check(ev->cur) != NODE_NO_CHECK) return false;
    ensure_legal_facts(ev, ev->cur);
    return !eval_node_cache(ev, ev->cur)->has_legal_move;
}

static bool eval_side(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    return cur_pos(ev)->side == (n->kind == ND_WTM ? WHITE : BLACK);
}

static bool eval_tree_place(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    const GameNode *c = ev->cur;
    switch (n->kind) {
    case ND_INITIAL: return c->parent == NULL;
    case ND_TERMINAL: return c->child == NULL;
    case ND_MAINLINE: return c->depth == 0;
    case ND_VARIATION: return c->depth > 0;
    default: return false;
    }
}

/* Whether the piece on a square fits one letter of a fen pattern: a piece
 * letter that piece, `A` / `a` any white / black piece, `.` anything. */
static bool fen_square_fits(char want, Piece have)
{
    switch (want) {
    case '.': return true;
    case 'A': return have != NO_PIECE && color_of(have) == WHITE;
    case 'a': return have != NO_PIECE && color_of(have) == BLACK;
    default: return have == piece_from_char(want) && have != NO_PIECE;
    }
}

/* fen "board": the pattern's board (the parser's canonical form: ranks of
 * 8 squares from the eighth, a digit for a run of empty squares) against the
 * position's, square by square; a pattern of more than 8 ranks never fits. */
static bool fen_pattern_fits(const char *want, const Position *pos)
{
    int rank = 7, file = 0;
    for (const char *c = want; *c; c++) {
        if (*c == '/') {
            if (--rank < 0) return false;
            file = 0;
            continue;
        }
        bool empty_run = *c >= '1' && *c <= '8';
        int run = empty_run ? *c - '0' : 1;
        for (int i = 0; i < run; i++, file++) {
            if (file >= 8) return false;
            Piece have = pos_piece_on(pos, make_square(file, rank));
            if (empty_run ? have != NO_PIECE : !fen_square_fits(*c, have)) return false;
        }
    }
    return rank == 0;
}

static bool eval_fen(Evaluator *ev, const Node *n, Value *out)
{
    if (n->kids[0]) return fen_pattern_fits(n->kids[0]->text, cur_pos(ev));
    char fen[FEN_MAX];
    pos_to_fen(cur_pos(ev), fen);
    return eval_string_value(out, eval_new_string(ev, n, fen, strlen(fen)));
}

static bool eval_state_number(Evaluator *ev, const Node *n, Value *out)
{
    const GameNode *c = ev->cur;
    switch (n->kind) {
    case ND_PLY: return number_value(out, c->ply);
    case ND_MOVENUMBER: return number_value(out, c->pos.fullmove);
    case ND_DEPTH: return number_value(out, c->depth);
    case ND_POSITIONID: return number_value(out, c->id);
    case ND_GAMENUMBER: return number_value(out, ev->game->number);
    case ND_WHITE: return number_value(out, 1);
    case ND_BLACK: return number_value(out, -1);
    case ND_SIDETOMOVE: return number_value(out, c->pos.side == WHITE ? 1 : -1);
    default: return false;
    }
}

/* }==== */
/* {==== game facts ============================================================= */

/* What a tag the game does not have reads as (CQL 6.2): "?" for Event,
 * Site, White and Black, "????.??.??" for Date; NULL (no value) otherwise. */
static const char *missing_tag_value(const char *name)
{
    static const char *const question_mark[] = {"Event", "Site", "White", "Black"};
    for (size_t i = 0; i < sizeof question_mark / sizeof question_mark[0]; i++)
        if (strcmp(name, question_mark[i]) == 0) return "?";
    return strcmp(name, "Date") == 0 ? "????.??.??" : NULL;
}

/* A tag of the game as the query sees it, NULL when it has no value: a
 * value given by `settag` earlier in this game wins over the input's
 * (chosen without a conformance vector); a missing tag reads as
 * missing_tag_value says; an empty value, and an ECO of "?", are no value
 * (CQL 6.2, cql62-fidelity-2.md R19). */
static const char *current_tag(const Evaluator *ev, const char *name)
{
    const Tag *set = game_tag_find(ev->search->set_tags, ev->search->nset_tags, name);
    const char *value = set ? set->value : game_tag(ev->game, name);
    if (!value) return missing_tag_value(name);
    if (!value[0] || (strcmp(value, "?") == 0 && strcmp(name, "ECO") == 0)) return NULL;
    return value;
}

/* The tag's value; with a search string, a case-sensitive substring test. */
static bool tag_filter(Evaluator *ev, const Node *n, const char *value, Value *out)
{
    if (!value) return false;
    if (n->nkids > 0 && n->kids[0]) {
        Value s;
        if (!eval_node(ev, n->kids[0], &s) || s.type != VT_STRING) return false;
        if (!strstr(value, s.str)) return false;
    }
    return eval_string_value(out, value);
}

/* A tag PGN can hold: a name of letters, digits and '_' (what a reader
 * takes for one), a value on one line. */
static bool pgn_can_hold_tag(const char *name, const char *value)
{
    if (!name[0]) return false;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
              *c == '_'))
            return false;
    return !strpbrk(value, "\r\n");
}

/* settag(NAME VALUE): the tag is written with this value when the game is
 * output (added after the others when the input has no such tag). A tag
 * that PGN cannot hold (an empty or odd name, a value with a line break)
 * is not set, and the filter does not match: written, it would not read
 * back as itself. */
static bool eval_settag(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    Value name, value;
    if (!eval_node(ev, n->kids[0], &name) || name.type != VT_STRING) return false;
    if (!eval_node(ev, n->kids[1], &value) || value.type != VT_STRING) return false;
    if (!pgn_can_hold_tag(name.str, value.str)) return false;
    if (ev->settings.run.nosettag) return true;   /* -nosettag: matches, sets nothing */
    GameSearch *s = ev->search;
    Tag *tag = game_tag_find(s->set_tags, s->nset_tags, name.str);
    if (!tag) {     /* a new name: the array grows by one, in the game's arena */
        Tag *grown = ARENA_ARRAY(ev->arena, Tag, (size_t)s->nset_tags + 1);
        if (s->nset_tags) memcpy(grown, s->set_tags, sizeof *grown * (size_t)s->nset_tags);
        s->set_tags = grown;
        tag = &grown[s->nset_tags++];
        tag->name = arena_strdup(ev->arena, name.str);
    }
    tag->value = arena_strdup(ev->arena, value.str);
    return true;
}

const char *eval_comments_at(Evaluator *ev, const GameNode *n)
{
    const Comment *c = n->comments;
    if (!c) return NULL;
    if (!c->next) return c->text;
    StrBuf sb = SB_INIT;
    for (; c; c = c->next) {
        if (sb.len) sb_putc(&sb, ' ');
        sb_append(&sb, c->text);
    }
    const char *text = arena_strdup(ev->arena, sb_str(&sb));
    sb_free(&sb);
    return text;
}

/* originalcomment ["text"], hascomment ["text"]: the comment as a string;
 * with a search string, a case-sensitive substring test, like `event`. */
static bool eval_original_comment(Evaluator *ev, const Node *n, Value *out)
{
    return tag_filter(ev, n, eval_comments_at(ev, ev->cur), out);
}

static bool eval_player(Evaluator *ev, const Node *n, Value *out)
{
    const char *w = current_tag(ev, "White"), *b = current_tag(ev, "Black");
    if (n->flags & NF_WHITE) return tag_filter(ev, n, w, out);
    if (n->flags & NF_BLACK) return tag_filter(ev, n, b, out);
    if (n->nkids > 0 && n->kids[0]) {
        if (tag_filter(ev, n, w, out)) return true;
        return tag_filter(ev, n, b, out);
    }
    /* without a colour, both names on two lines: "White\nBlack" (CQL 6.2,
     * so that `player ~~ "aro"` finds either player) */
    if (!w && !b) return false;
    StrBuf sb = SB_INIT;
    sb_printf(&sb, "%s\n%s", w ? w : "", b ? b : "");
    const char *both = eval_new_string(ev, n, sb_str(&sb), sb.len);
    sb_free(&sb);
    return eval_string_value(out, both);
}

/* event, site, date, eventdate, eco: the PGN tag of their row in filters.def */
static bool eval_tag_kind(Evaluator *ev, const Node *n, Value *out)
{
    return tag_filter(ev, n, current_tag(ev, filter_info(n->kind)->tag), out);
}

static bool eval_tag(Evaluator *ev, const Node *n, Value *out)
{
    Value name;
    if (!eval_node(ev, n->kids[0], &name) || name.type != VT_STRING) return false;
    return eval_string_value(out, current_tag(ev, name.str));
}

/* Leading digits of a tag as a number ("1997.??.??" -> 1997). */
static bool tag_number(const char *v, int64_t *out)
{
    if (!v || v[0] < '0' || v[0] > '9') return false;
    int64_t x = 0;
    for (; *v >= '0' && *v <= '9' && x < 100000000; v++) x = x * 10 + (*v - '0');
    *out = x;
    return true;
}

static bool eval_year(Evaluator *ev, const Node *n, Value *out)
{
    (void)n;
    int64_t y;
    return tag_number(current_tag(ev, "Date"), &y) && number_value(out, y);
}

static bool eval_elo(Evaluator *ev, const Node *n, Value *out)
{
    int64_t w = 0, b = 0;
    bool has_w = tag_number(current_tag(ev, "WhiteElo"), &w);
    bool has_b = tag_number(current_tag(ev, "BlackElo"), &b);
    if (n->flags & NF_WHITE) return has_w && number_value(out, w);
    if (n->flags & NF_BLACK) return has_b && number_value(out, b);
    /* elo alone: the higher of the two ratings, the same at every position
     * (CQL 6.2: "the maximum Elo of the two players") */
    if (!has_w && !has_b) return false;
    return number_value(out, !has_b || (has_w && w > b) ? w : b);
}

static bool eval_result(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    const char *r = game_result(ev->game);
    return r && strcmp(r, n->text) == 0;
}

/* }==== */
/* {==== comments and messages =================================================== */

static void args_to_text(Evaluator *ev, const Node *n, StrBuf *sb)
{
    for (uint32_t i = 0; i < n->nkids; i++) {
        Value v;
        if (!n->kids[i]) continue;
        if (eval_node(ev, n->kids[i], &v) || v.type == VT_SET) eval_value_to_text(ev, &v, sb);
    }
}

/* comment (...) / ///: a comment at the current position, kept if the
 * position the body is evaluated for matches. */
static bool eval_comment(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    StrBuf sb = SB_INIT;
    args_to_text(ev, n, &sb);
    if (eval_count_text(ev, n, sb.len + 1)) eval_add_comment(ev, ev->cur, sb_str(&sb));
    sb_free(&sb);
    return true;
}

static bool eval_message(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    if (!ev->messages) return true;
    StrBuf sb = SB_INIT;
    const GameNode *c = ev->cur;
    if (!(n->flags & NF_QUIET))
        sb_printf(&sb, "Game: %ld move %u(%s): ", ev->game->number, c->pos.fullmove,
                  c->pos.side == WHITE ? "wtm" : "btm");
    args_to_text(ev, n, &sb);
    sb_putc(&sb, '\n');
    if (eval_count_text(ev, n, sb.len)) sb_append_n(ev->messages, sb_str(&sb), sb.len);
    sb_free(&sb);
    return true;
}

void eval_unbrace(char *text)
{
    for (char *c = strpbrk(text, "{}"); c; c = strpbrk(c + 1, "{}")) *c = '_';
}

/* A copy of an added comment's text as it is written (eval_unbrace). */
static char *note_text(Arena *a, const char *text)
{
    char *copy = arena_strdup(a, text);
    eval_unbrace(copy);
    return copy;
}

void eval_add_fixed_comment(Evaluator *ev, const GameNode *at, const char *text)
{
    if (ev->npending == ev->pending_cap) {
        ev->pending_cap = ev->pending_cap ? ev->pending_cap * 2 : 16;
        ev->pending = xrealloc(ev->pending, sizeof *ev->pending * (size_t)ev->pending_cap);
    }
    ev->pending[ev->npending].node_id = at->id;
    ev->pending[ev->npending].text = text;
    ev->npending++;
}

void eval_add_comment(Evaluator *ev, const GameNode *at, const char *text)
{
    eval_add_fixed_comment(ev, at, note_text(ev->arena, text));
}

/* The order of sort values, as strcmp: numbers before strings, numbers by
 * value, strings bytewise (search.c writes a game's keys in this order). */
static int sort_value_order(const SortValue *a, const SortValue *b)
{
    if (a->type != b->type) return a->type == VT_NUMBER ? -1 : 1;
    if (a->type == VT_STRING) return strcmp(a->str, b->str);
    return (a->num > b->num) - (a->num < b->num);
}

void eval_sort_offer(Evaluator *ev, uint32_t key, const SortValue *v)
{
    SortValue *best = &ev->search->sort_values[key];
    int order = best->type == VT_NONE ? 0 : sort_value_order(v, best);
    if (best->type == VT_NONE || (ev->q->sort_keys[key].min ? order < 0 : order > 0)) *best = *v;
}

/* sort ["title"] [min] F: F's value (a set: its size; a position: its id)
 * offered as the game's value for the title's key (Query.sort_keys), when
 * F matches. */
static bool eval_sort(Evaluator *ev, const Node *n, Value *out)
{
    Value v;
    if (!eval_node(ev, n->kids[0], &v)) return false;
    eval_piece_to_set(ev, &v);
    SortValue offered = {VT_NUMBER, 0, NULL};
    if (v.type == VT_STRING) offered = (SortValue){VT_STRING, 0, v.str};
    else if (v.type == VT_SET) offered.num = bb_popcount(v.set);
    else if (v.type == VT_NUMBER) offered.num = v.num;
    else if (v.type == VT_POSITION) offered.num = v.pos->id;
    else return false;
    eval_sort_offer(ev, (uint32_t)n->num, &offered);
    if (v.type == VT_STRING) {
        *out = v;
        return true;
    }
    return number_value(out, offered.num);
}

/* }==== */
/* {==== the table ============================================================== */

/* The filters of this file; the other families list theirs in their files. */
static const EvalEntry core_entries[] = {
    {ND_COMPOUND, eval_compound},
    {ND_PAREN, eval_first_kid},
    {ND_CALL, eval_call},
    {ND_PARAM, eval_param},
    {ND_FUNCTION_DEF, eval_always},
    {ND_INT, eval_int},
    {ND_STRING, eval_string},
    {ND_DESIGNATOR, eval_designator},
    {ND_VAR, eval_var},
    {ND_ASSIGN, eval_assign},
    {ND_ISBOUND, eval_isbound},
    {ND_ISUNBOUND, eval_isbound},
    {ND_UNBIND, eval_unbind},
    {ND_AND, eval_and},
    {ND_OR, eval_or},
    {ND_NOT, eval_not},
    {ND_IF, eval_if},
    {ND_LOOP, eval_loop},
    {ND_WHILE, eval_while},
    {ND_TRUE, eval_always},
    {ND_DICT_DECL, eval_always},   /* the declaration itself always matches */
    {ND_FALSE, eval_never},
    {ND_NEGATE, eval_negate},
    {ND_ARITH, eval_arith},
    {ND_RELATION, eval_relation},
    {ND_COUNT, eval_count},
    {ND_MINMAX, eval_minmax},
    {ND_ABS, eval_abs},
    {ND_SQRT, eval_sqrt},
    {ND_UNION, eval_union},
    {ND_INTERSECT, eval_intersect},
    {ND_COMPLEMENT, eval_complement},
    {ND_IN, eval_in},
    {ND_ATTACKS, eval_attacks},
    {ND_ATTACKEDBY, eval_attackedby},
    {ND_BETWEEN, eval_between},
    {ND_DIRECTION, eval_direction},
    {ND_RAY, eval_ray},
    {ND_XRAY, eval_ray},
    {ND_PIN, eval_pin},
    {ND_LIGHT, eval_light_dark},
    {ND_DARK, eval_light_dark},
    {ND_MAKESQUARE, eval_makesquare},
    {ND_RANK, eval_rank_file},
    {ND_FILE, eval_rank_file},
    {ND_TYPE, eval_type},
    {ND_COLORTYPE, eval_type},
    {ND_PIECENAME, eval_piece_letter},
    {ND_TYPENAME, eval_piece_letter},
    {ND_POWER, eval_power},
    {ND_ENPASSANTSQUARE, eval_enpassantsquare},
    {ND_DOUBLEDPAWNS, eval_pawns},
    {ND_ISOLATEDPAWNS, eval_pawns},
    {ND_PASSEDPAWNS, eval_pawns},
    {ND_CONNECTEDPAWNS, eval_pawns},
    {ND_SQUARE_ITER, eval_square_iter},
    {ND_CHECK, eval_check},
    {ND_MATE, eval_mate_stalemate},
    {ND_STALEMATE, eval_mate_stalemate},
    {ND_WTM, eval_side},
    {ND_BTM, eval_side},
    {ND_INITIAL, eval_tree_place},
    {ND_TERMINAL, eval_tree_place},
    {ND_MAINLINE, eval_tree_place},
    {ND_VARIATION, eval_tree_place},
    {ND_FEN, eval_fen},
    {ND_PLY, eval_state_number},
    {ND_MOVENUMBER, eval_state_number},
    {ND_DEPTH, eval_state_number},
    {ND_POSITIONID, eval_state_number},
    {ND_GAMENUMBER, eval_state_number},
    {ND_WHITE, eval_state_number},
    {ND_BLACK, eval_state_number},
    {ND_SIDETOMOVE, eval_state_number},
    {ND_PLAYER, eval_player},
    {ND_EVENT, eval_tag_kind},
    {ND_SITE, eval_tag_kind},
    {ND_DATE, eval_tag_kind},
    {ND_EVENTDATE, eval_tag_kind},
    {ND_ECO, eval_tag_kind},
    {ND_TAG, eval_tag},
    {ND_SETTAG, eval_settag},
    {ND_ORIGINALCOMMENT, eval_original_comment},
    {ND_HASCOMMENT, eval_original_comment},
    {ND_YEAR, eval_year},
    {ND_ELO, eval_elo},
    {ND_RESULT, eval_result},
    {ND_COMMENT, eval_comment},
    {ND_MESSAGE, eval_message},
    {ND_SORT, eval_sort},
    {ND_COUNT_, NULL},
};

const EvalFamily eval_core_family = {core_entries, NULL, NULL, NULL};

/* The families of evaluation functions: each registers its descriptor here. */
static const EvalFamily *const eval_families[] = {
    &eval_core_family, &eval_nav_family, &eval_text_family, &eval_moves_family,
    &eval_path_family, &eval_orbit_family, &eval_dict_family, &eval_program_family,
    &eval_hhdb_family,
};

#define FAMILIES (sizeof eval_families / sizeof eval_families[0])

/* The dispatch table (declared above): every family's entries, filled once. */
static pthread_once_t eval_table_once = PTHREAD_ONCE_INIT;

static void fill_eval_table(void)
{
    for (size_t f = 0; f < FAMILIES; f++)
        for (const EvalEntry *e = eval_families[f]->entries; e->fn; e++) eval_table[e->kind] = e->fn;
}

static void init_eval_table(void)
{
    pthread_once(&eval_table_once, fill_eval_table);
}

/* }==== */
/* {==== the search ============================================================= */

typedef struct SupportCheck {
    const Query *q;
    DiagSink *diag;
    bool ok;
} SupportCheck;

static bool check_node(const Node *n, void *ctx)
{
    SupportCheck *c = ctx;
    if (!c->ok) return false;
    /* evaluation is deterministic: a loop that changes nothing and matches
     * once matches again, for ever */
    if ((n->kind == ND_LOOP && !filter_tree_writes(n->kids[0]))
        || (n->kind == ND_WHILE && !eval_while_regex(n->kids[0]) && !filter_tree_writes(n->kids[0])
            && !filter_tree_writes(n->kids[1]))) {
        diag_at(c->diag, &c->q->src, n->span, DIAG_ERROR,
                "'%s' would repeat for ever once its %s matches: nothing in it changes a variable",
                ast_kind_name(n->kind), n->kind == ND_LOOP ? "body" : "test");
        c->ok = false;
        return false;
    }
    if (!eval_table[n->kind]) {
        const char *name = ast_kind_name(n->kind);
        diag_at(c->diag, &c->q->src, n->span, DIAG_ERROR, "filter '%s' is not supported yet", name);
        c->ok = false;
        return false;
    }
    /* a call's arguments are evaluated inside its expanded body, and its set
     * arguments at the call too */
    if (n->kind == ND_CALL) {
        ast_walk(n->kids[0], check_node, ctx);
        for (uint32_t i = 1; i < n->nkids; i++)
            if (n->kids[i] && n->kids[i]->type == VT_SET && n->kids[i]->kind != ND_VAR) ast_walk(n->kids[i], check_node, ctx);
        return false;
    }
    return true;
}

bool eval_can_evaluate(NodeKind k)
{
    init_eval_table();
    return eval_table[k] != NULL;
}

bool eval_check_supported(const Query *q, DiagSink *diag)
{
    init_eval_table();
    SupportCheck c = {q, diag, true};
    ast_walk(q->body, check_node, &c);
    return c.ok;
}

static bool uses_game_count(const Node *n, void *ctx)
{
    if (n->kind == ND_LASTGAMENUMBER) *(bool *)ctx = true;
    return true;
}

bool eval_needs_game_count(const Query *q)
{
    bool found = false;
    ast_walk(q->body, uses_game_count, &found);
    return found;
}

bool eval_needs_order(const Query *q)
{
    if (filter_tree_uses_files(q->body)) return true;
    for (uint32_t i = 0; i < q->nvars; i++) {
        if (q->vars[i].persistent) return true;
        /* a dictionary keeps its entries from game to game unless local */
        if (q->vars[i].kind == VK_DICTIONARY && !q->vars[i].local) return true;
    }
    return false;
}

Evaluator *eval_new(const Query *q, const EvalSettings *s)
{
    init_eval_table();
    Evaluator *ev = xcalloc(1, sizeof *ev);
    ev->q = q;
    ev->settings = *s;
    ev->body_is_per_game = filter_tree_is_per_game(q->body);
    ev->vars = xcalloc(q->nvars ? q->nvars : 1, sizeof *ev->vars);
    ev->bound = xcalloc(q->nvars ? q->nvars : 1, sizeof *ev->bound);
    ev->call_args = xcalloc(q->ncall_args ? q->ncall_args : 1, sizeof *ev->call_args);
    ev->persistent_text = xcalloc(q->nvars ? q->nvars : 1, sizeof *ev->persistent_text);
    /* the comment at a matched position: none when quiet, else CQL's
     * unless the settings or the header give one */
    ev->match_note = xstrdup(s->run.quiet ? "" : s->run.matchstring ? s->run.matchstring : "CQL");
    eval_unbrace(ev->match_note);
    for (size_t f = 0; f < FAMILIES; f++)
        if (eval_families[f]->init) eval_families[f]->init(ev);
    return ev;
}

void eval_free(Evaluator *ev)
{
    if (!ev) return;
    free(ev->vars);
    free(ev->bound);
    free(ev->call_args);
    free(ev->pending);
    free(ev->match_note);
    free(ev->runtime_error);
    for (size_t f = 0; f < FAMILIES; f++)
        if (eval_families[f]->free) eval_families[f]->free(ev);
    for (uint32_t i = 0; i < ev->q->nvars; i++) free(ev->persistent_text[i]);
    free(ev->persistent_text);
    free(ev);
}

/* {==== the notes of a game ====================================================== */

/* The comments added at a node with more than one, in order, joined into
 * its note when the game's search ends (join_notes). */
typedef struct NotePart {
    const char *text;
    struct NotePart *next;
} NotePart;
struct NoteList {
    NotePart *first, *last;
    uint32_t count;           /* parts; past NOTE_SCAN_MAX they are also in note_seen */
};
/* Identical comments at a node are found by comparing with each part while
 * it has at most this many (nearly every node), then through a hash set. */
#define NOTE_SCAN_MAX 8
/* A comment added at a node, in the set that keeps identical ones once. */
struct NoteSeen {
    const char *text;         /* NULL: an empty slot */
    int32_t node_id;
};

static uint64_t note_hash(int32_t id, const char *text)
{
    uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)(uint32_t)id;   /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) h = (h ^ *p) * 0x100000001b3ULL;
    return h ^ (h >> 29);
}

/* Adds text at node id to the set of comments added at nodes with more
 * than one; false when the same text is there already. */
static bool note_seen_add(Evaluator *ev, int32_t id, const char *text)
{
    if (2 * (ev->note_seen_count + 1) > ev->note_seen_cap) {   /* at most half full */
        uint32_t cap = ev->note_seen_cap ? 2 * ev->note_seen_cap : 64;
        struct NoteSeen *grown = ARENA_ARRAY(ev->arena, struct NoteSeen, cap);
        for (uint32_t i = 0; i < ev->note_seen_cap; i++) {
            const struct NoteSeen *e = &ev->note_seen[i];
            if (!e->text) continue;
            uint32_t j = (uint32_t)note_hash(e->node_id, e->text) & (cap - 1);
            while (grown[j].text) j = (j + 1) & (cap - 1);
            grown[j] = *e;
        }
        ev->note_seen = grown;
        ev->note_seen_cap = cap;
    }
    uint32_t j = (uint32_t)note_hash(id, text) & (ev->note_seen_cap - 1);
    for (; ev->note_seen[j].text; j = (j + 1) & (ev->note_seen_cap - 1))
        if (ev->note_seen[j].node_id == id && strcmp(ev->note_seen[j].text, text) == 0) return false;
    ev->note_seen[j] = (struct NoteSeen){text, id};
    ev->note_seen_count++;
    return true;
}

static NotePart *new_note_part(Evaluator *ev, const char *text)
{
    NotePart *part = arena_alloc(ev->arena, sizeof *part);
    *part = (NotePart){text, NULL};
    return part;
}

/* add_note's case of a node that has a comment already. */
static void add_later_note(Evaluator *ev, int32_t id, const char *text)
{
    const char **notes = ev->search->notes;
    bool unique = !ev->settings.run.nouniquecomments;
    if (unique && notes[id] == text) return;   /* the same fixed text again ("Found") */
    if (!ev->note_lists) ev->note_lists = ARENA_ARRAY(ev->arena, struct NoteList *, ev->game->node_count);
    struct NoteList *list = ev->note_lists[id];
    if (!list) list = ev->note_lists[id] = ARENA_NEW(ev->arena, struct NoteList);
    if (unique && list->last && list->last->text == text) return;
    if (!list->first) {
        list->first = list->last = new_note_part(ev, notes[id]);
        list->count = 1;
    }
    if (unique) {
        if (list->count <= NOTE_SCAN_MAX) {
            for (const NotePart *p = list->first; p; p = p->next)
                if (strcmp(p->text, text) == 0) return;
            if (list->count == NOTE_SCAN_MAX)   /* from now on through the hash set */
                for (const NotePart *p = list->first; p; p = p->next) note_seen_add(ev, id, p->text);
        }
        if (list->count >= NOTE_SCAN_MAX && !note_seen_add(ev, id, text)) return;
    }
    list->last = list->last->next = new_note_part(ev, text);
    list->count++;
}

/* Adds a comment at node id. A text added there before is not added again
 * (CQL 6.2 keeps identical comments once), unless `nouniquecomments`.
 * Inline where it is called: its usual case, the node's first comment,
 * is a store (check: one position in nine). */
static inline void add_note(Evaluator *ev, int32_t id, const char *text)
{
    const char **notes = ev->search->notes;
    if (!text[0]) return;
    if (!notes[id]) {   /* nearly always: the first comment at the node */
        notes[id] = text;
        return;
    }
    add_later_note(ev, id, text);
}

/* The note of each node with several comments: them all, in order,
 * separated by a blank. */
static void join_notes(Evaluator *ev)
{
    if (!ev->note_lists) return;
    for (int32_t id = 0; id < ev->game->node_count; id++) {
        const NotePart *first = ev->note_lists[id] ? ev->note_lists[id]->first : NULL;
        if (!first) continue;
        size_t len = 0;
        for (const NotePart *p = first; p; p = p->next) len += strlen(p->text) + 1;
        char *joined = arena_alloc(ev->arena, len), *at = joined;
        for (const NotePart *p = first; p; p = p->next) {
            size_t n = strlen(p->text);
            memcpy(at, p->text, n);
            at[n] = p->next ? ' ' : '\0';
            at += n + 1;
        }
        ev->search->notes[id] = joined;
    }
}

/* }==== */

/* X attacks Y (or Y attackedby X) with two piece designators (Q attacks k). */
static bool is_designator_attack(const Node *body)
{
    return (body->kind == ND_ATTACKS || body->kind == ND_ATTACKEDBY) && body->kids[0]->kind == ND_DESIGNATOR
           && body->kids[1]->kind == ND_DESIGNATOR;
}

/* The commonest bodies of one filter: a piece designator (Ka1), check,
 * mate, and one designator attacking another. None of them leaves a
 * pending note, raises an error or stops the search, so search_direct_body
 * tests them over the positions with no dispatch: a designator is a
 * bitboard test, check and mate read the node's check state, an attack
 * is eval_attacks's test without the Values in between. */
static bool is_direct_body(const Node *body)
{
    return body->kind == ND_DESIGNATOR || body->kind == ND_CHECK || body->kind == ND_MATE
           || is_designator_attack(body);
}

static inline void count_match(Evaluator *ev, GameSearch *out, const GameNode *n, bool annotate)
{
    out->matched_positions++;
    out->matched[n->id] = true;
    if (annotate) add_note(ev, n->id, ev->match_note);
}

/* The node fields the walk reads (check_state and child), some nodes
 * ahead (game_node_prefetch): the walk's loads then seldom wait. */
enum { WALK_AHEAD = 4 };
#define WALK_PREFETCH(n) game_node_prefetch((n), WALK_AHEAD, offsetof(GameNode, check_state))

static void search_direct_body(Evaluator *ev, const Node *body, GameSearch *out, bool annotate)
{
    bool variations = ev->settings.run.variations;
    const GameNode *n = ev->game->root;
    if (body->kind == ND_DESIGNATOR) {
        for (; n; n = game_walk_next(NULL, n, variations)) {
            WALK_PREFETCH(n);
            game_node_prefetch(n, WALK_AHEAD, offsetof(GameNode, pos));
            ev->cur = ev->origin = n;
            if (designator_squares(ev, body->desig)) count_match(ev, out, n, annotate);
        }
        return;
    }
    if (is_designator_attack(body)) {
        /* the attackers' designator first, as eval_attacks takes them */
        bool by = body->kind == ND_ATTACKEDBY;
        const Designator *attackers = body->kids[by]->desig, *targets = body->kids[!by]->desig;
        /* the designators' fields in locals: the stores of a match could
         * otherwise make them be read again at every position */
        unsigned x_pieces = attackers->pieces, y_pieces = targets->pieces;
        Bitboard x_squares = attackers->squares, y_squares = targets->squares;
        for (; n; n = game_walk_next(NULL, n, variations)) {
            WALK_PREFETCH(n);
            game_node_prefetch(n, WALK_AHEAD, offsetof(GameNode, pos));
            Bitboard x = pos_squares_with(&n->pos, x_pieces) & x_squares;
            if (!x) continue;
            Bitboard y = pos_squares_with(&n->pos, y_pieces) & y_squares;
            if (by ? bq_attacked(&n->pos, y, x) : bq_attackers(&n->pos, x, y)) count_match(ev, out, n, annotate);
        }
        return;
    }
    if (body->kind == ND_CHECK) {
        for (; n; n = game_walk_next(NULL, n, variations)) {
            WALK_PREFETCH(n);
            if (game_node_check(n) != NODE_NO_CHECK) count_match(ev, out, n, annotate);
        }
        return;
    }
    /* mate: a position the game goes on from is none (game_node_check),
     * so only the leaves need the check test */
    for (; n; n = game_walk_next(NULL, n, variations)) {
        WALK_PREFETCH(n);
        if (!n->child && game_node_check(n) == NODE_MATED) count_match(ev, out, n, annotate);
    }
}

/* The strings of persistent variables outlive the game's arena: each is
 * copied to the heap when it changed in the game, and the copy it held
 * before freed, so that what persistent variables hold is their values
 * alone however many games there are. The new copies are all made before
 * an old one is freed (a variable may hold another's old copy). */
static void keep_persistent_strings(Evaluator *ev)
{
    const Query *q = ev->q;
    char **replaced = NULL;
    uint32_t nreplaced = 0;
    for (uint32_t i = 0; i < q->nvars; i++) {
        if (!q->vars[i].persistent || !ev->bound[i] || ev->vars[i].type != VT_STRING ||
            ev->vars[i].str == ev->persistent_text[i])
            continue;
        if (!replaced) replaced = xcalloc(q->nvars, sizeof *replaced);
        replaced[nreplaced++] = ev->persistent_text[i];
        ev->vars[i].str = ev->persistent_text[i] = xstrdup(ev->vars[i].str);
    }
    for (uint32_t i = 0; i < nreplaced; i++) free(replaced[i]);
    free(replaced);
}

/* Readies ev and *out for the search of game g, with room for notes when
 * `notes` (a search whose positions are given makes none: eval_positions_at;
 * zeroed, the room cost such a search through a sidecar about 1% of its
 * CPU); returns the body to evaluate: `body` (NULL: the query's), a
 * compound of one member that member (a compound's value is its last
 * member's). */
static const Node *begin_game(Evaluator *ev, const Game *g, const Node *body, bool notes, Arena *arena,
                              GameSearch *out, StrBuf *messages)
{
    memset(out, 0, sizeof *out);
    ev->game = g;
    ev->arena = arena;
    ev->search = out;
    ev->messages = messages;
    ev->cache = NULL;
    ev->nodes_by_id = NULL;
    ev->text_bytes = 0;
    ev->stopped_at = NULL;
    ev->stop_reason = NULL;
    ev->note_lists = NULL;
    ev->note_seen = NULL;
    ev->note_seen_cap = ev->note_seen_count = 0;
    for (size_t f = 0; f < FAMILIES; f++)
        if (eval_families[f]->new_game) eval_families[f]->new_game(ev);
    for (uint32_t i = 0; i < ev->q->nvars; i++) {
        if (ev->q->vars[i].persistent) continue;
        ev->bound[i] = false;
    }
    if (notes) out->notes = ARENA_ARRAY(arena, const char *, g->node_count);
    if (ev->q->nsort_keys) out->sort_values = ARENA_ARRAY(arena, SortValue, ev->q->nsort_keys);
    out->matched = ARENA_ARRAY(arena, bool, g->node_count);
    if (!body) body = ev->q->body;
    if (body->kind == ND_COMPOUND && body->nkids == 1) body = body->kids[0];
    return body;
}

/* Evaluates body at position n of the game begin_game readied, the notes
 * of a match added when `annotate`; false when the search is to stop there
 * (a runtime error, or the run stopped). A body that reads only tags
 * (*once) is evaluated at the first position alone: `result 1-0` costs a
 * lookup per game, not per position (*evaluated, *matched_once). */
#if defined(__GNUC__)
__attribute__((always_inline))   /* in both loops: a call per position costs 5% of a replay */
#endif
static inline bool search_position(Evaluator *ev, const Node *body, const GameNode *n, GameSearch *out, bool once,
                                   bool *evaluated, bool *matched_once, bool annotate)
{
    ev->cur = ev->origin = n;
    ev->npending = 0;
    ev->loop_steps = 0;
    Value v;
    bool matched;
    if (!once) {
        matched = eval_node(ev, body, &v);
    } else {
        if (!*evaluated) *matched_once = eval_node(ev, body, &v);
        *evaluated = true;
        matched = *matched_once;
    }
    if (annotate && (matched || ev->settings.run.alwayscomment))
        for (int i = 0; i < ev->npending; i++)
            add_note(ev, ev->pending[i].node_id, ev->pending[i].text);
    if (matched) count_match(ev, out, n, annotate);
    if (ev->runtime_error) {
        out->runtime_error = arena_strdup(ev->arena, ev->runtime_error);
        out->error_at = ev->error_at;
        free(ev->runtime_error);
        ev->runtime_error = NULL;
        return false;
    }
    return !ev->stopped_at;
}

static void end_game(Evaluator *ev, GameSearch *out)
{
    join_notes(ev);
    ev->cur = ev->origin = NULL;
    out->stopped_at = ev->stopped_at;
    out->stop_reason = ev->stop_reason;
    keep_persistent_strings(ev);
}

void eval_game(Evaluator *ev, const Game *g, const Node *body, Arena *arena, GameSearch *out,
               StrBuf *messages)
{
    body = begin_game(ev, g, body, true, arena, out, messages);
    if (is_direct_body(body)) {
        search_direct_body(ev, body, out, !ev->settings.run.silent);
    } else {
        bool variations = ev->settings.run.variations, annotate = !ev->settings.run.silent;
        bool once = ev->body_is_per_game, evaluated = false, matched_once = false;
        for (const GameNode *n = g->root;
             n && search_position(ev, body, n, out, once, &evaluated, &matched_once, annotate);
             n = game_walk_next(NULL, n, variations))
            ;
    }
    end_game(ev, out);
}

void eval_positions_begin(Evaluator *ev, const Game *g, Arena *arena, GameSearch *out, StrBuf *messages)
{
    ev->positions_body = begin_game(ev, g, NULL, false, arena, out, messages);
    ev->positions_once = ev->body_is_per_game;
    ev->positions_evaluated = ev->positions_matched = false;
}

bool eval_positions_at(Evaluator *ev, const GameNode *n)
{
    /* a body evaluated once per game: its answer stands at every later
     * position, where nothing else is done (no evaluation: no note, no
     * error) */
    if (ev->positions_evaluated) {
        if (ev->positions_matched) count_match(ev, ev->search, n, false);
        return !ev->stopped_at;
    }
    /* the nodes given may be one changed in place: notes at them would be
     * lost, and are not made */
    return search_position(ev, ev->positions_body, n, ev->search, ev->positions_once, &ev->positions_evaluated,
                           &ev->positions_matched, false);
}

bool eval_positions_settled(const Evaluator *ev, bool *matched)
{
    *matched = ev->positions_matched;
    return ev->positions_evaluated;
}

void eval_positions_pass(Evaluator *ev, int32_t first_id, long count)
{
    if (!ev->positions_matched || count <= 0) return;
    ev->search->matched_positions += count;
    memset(ev->search->matched + first_id, true, (size_t)count);
}

void eval_positions_end(Evaluator *ev)
{
    end_game(ev, ev->search);
}

bool eval_at_start(Evaluator *ev, const Game *g, const Node *n, bool *sure)
{
    GameSearch nothing_yet;   /* no tag set by settag, no note */
    memset(&nothing_yet, 0, sizeof nothing_yet);
    ev->game = g;
    ev->arena = g->arena;
    ev->search = &nothing_yet;
    ev->messages = NULL;
    ev->cache = NULL;
    ev->nodes_by_id = NULL;
    ev->stopped_at = NULL;
    ev->stop_reason = NULL;
    ev->cur = ev->origin = g->root;
    ev->npending = 0;
    ev->loop_steps = 0;
    ev->text_bytes = 0;
    Value v;
    bool matched = eval_node(ev, n, &v);
    *sure = !ev->stopped_at && !ev->runtime_error;
    if (!*sure) {   /* the search itself is to meet it, and report it */
        free(ev->runtime_error);
        ev->runtime_error = NULL;
        ev->stopped_at = NULL;
        ev->stop_reason = NULL;
        matched = true;
    }
    ev->cur = ev->origin = NULL;
    ev->search = NULL;
    return matched;
}

void eval_print_persistent(const Evaluator *ev, StrBuf *out)
{
    for (uint32_t i = 0; i < ev->q->nvars; i++) {
        const Variable *v = &ev->q->vars[i];
        if (v->kind == VK_DICTIONARY && !v->local) {
            /* dictionaries that live for the run are printed like persistent variables */
            sb_printf(out, "%s: ", v->name);
            eval_dict_to_text(ev, (int32_t)i, out);
            sb_putc(out, '\n');
            continue;
        }
        if (!v->persistent || v->quiet) continue;
        sb_printf(out, "%s: ", v->name);
        if (!ev->bound[i]) sb_append(out, "<unbound>");
        else if (ev->vars[i].type == VT_NUMBER) sb_printf(out, "%lld", (long long)ev->vars[i].num);
        else if (ev->vars[i].type == VT_STRING) sb_append(out, ev->vars[i].str);
        else if (ev->vars[i].type == VT_SET) sb_printf(out, "%d squares", bb_popcount(ev->vars[i].set));
        sb_putc(out, '\n');
    }
}

/* }==== */
