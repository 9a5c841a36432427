/*
 * src/query/sema.h — the typing rules of CQL 6.2, and the variable and
 * function tables.
 *
 * CQL's grammar depends on types (`K-3` is two filters because K is a set,
 * `2-3` is a subtraction), so the parser asks sema for the type of every
 * node as soon as it is built; the functions below return NULL when the node
 * is well typed (having set node->type) or an error message (allocated in
 * the query arena) that the parser reports at the node.
 *
 * Rules (reference §1.2): a set compared with a number counts its squares;
 * set == set is equality; < <= > >= need numbers or strings (or positions);
 * a compound has the type of its last member; a variable takes the type of
 * its first assignment and keeps it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_SEMA_H
#define CQL_SEMA_H

#include <stdbool.h>

#include "base/diag.h"
#include "query/ast.h"

/* Function calls are expanded where they are written (each call's body is
 * parsed again with its arguments in place), so calls nested in arguments
 * or in bodies multiply: `f(f(f(...)))` with `function f(x) {x or x}`
 * grows threefold with each f. The nodes made for calls are counted as they
 * are made, and compiling stops past this many with an error at the
 * outermost call. */
#define CALL_MAX_FILTERS 250000

/* {==== typing API used by the parser ======================================= */

/* Sets of value types: TM_x == 1 << VT_x. */
typedef unsigned TypeMask;
#define TM_NONE     (1u << VT_NONE)
#define TM_SET      ((1u << VT_SET) | (1u << VT_PIECE))
#define TM_NUMBER   (1u << VT_NUMBER)
#define TM_POSITION (1u << VT_POSITION)
#define TM_STRING   (1u << VT_STRING)
#define TM_DICT     (1u << VT_DICTIONARY)
#define TM_VALUE    (TM_SET | TM_NUMBER | TM_POSITION | TM_STRING)
#define TM_ANY      (TM_VALUE | TM_NONE | TM_DICT)

static inline bool type_in(ValueType t, TypeMask m) { return (m >> t) & 1u; }
static inline bool type_is_set(ValueType t) { return t == VT_SET || t == VT_PIECE; }

/* "a set", "a number", "no value", ... for messages. */
const char *sema_type_phrase(ValueType t);

/* Checks n's type against `allowed`; `role` names the place ("the operand
 * of 'rank'"). */
const char *sema_require(Arena *a, const Node *n, TypeMask allowed, const char *role);

/* The pattern of `~~`: NULL, or why a pattern written as a string is not a
 * regular expression. */
const char *sema_regex_pattern(Arena *a, const Node *pattern);

/* Sets the type of an operator node from its children, or explains why the
 * operand types do not fit. */
const char *sema_relation(Arena *a, Node *n);     /* ND_RELATION */
/* [<] [>] [<=] [>=] (≺ ≻ ≼ ≽), which compare positions. */
bool sema_is_position_order(TokKind op);
const char *sema_arith(Arena *a, Node *n);        /* ND_ARITH */
const char *sema_set_operator(Arena *a, Node *n); /* union, intersect, in, attacks, attackedby */

/* True when `-`/`+`/`*`... after a filter of type t is a binary operator
 * rather than the start of a new filter (CQL: `K -3` is two filters). */
bool sema_binary_minus_applies(ValueType t);

/* The position orders take positions only. CQL 6.2's parser also takes two
 * numbers (or a number and a set) or two strings there, as sema_relation
 * does, and then stops the run; a query compiled to be run (or printed) is
 * refused here instead, with an error at the first such operator. */
bool sema_check_position_orders(Query *q, DiagSink *diag);

/* {---- variables and functions ---- */

Variable *sema_var(Query *q, int32_t slot);
int32_t sema_lookup_var(const Query *q, const char *name);
int32_t sema_lookup_function(const Query *q, const char *name);
int32_t sema_declare_var(Query *q, const char *name, VarKind kind, Span decl);
int32_t sema_declare_function(Query *q, const char *name, const char **params,
                              uint32_t nparams, Span body, Span decl);
ValueType sema_var_type(const Variable *v);
VarKind sema_kind_for_type(ValueType t);
const char *sema_kind_phrase(VarKind k);

/* `name op value` where op is TK_ASSIGN, TK_ASSIGN_IF or a compound
 * assignment; NF_PIECE / NF_PERSISTENT / NF_ATOMIC in flags. Declares the
 * variable when this is its first assignment; returns its slot in *slot. */
const char *sema_assign(Query *q, const char *name, TokKind op, uint64_t flags,
                        const Node *value, Span span, int32_t *slot);

/* Binds an iteration variable (square or piece iteration, echo): declares
 * it with `kind` or checks that an existing variable has that kind. */
const char *sema_bind(Query *q, const char *name, VarKind kind, Span span, int32_t *slot);

/* Dictionary stores (op: '=' or a compound assignment such as '+=', which
 * needs the entry type known) and lookups; key and value types are fixed by
 * the first store. */
const char *sema_dict_key(Query *q, int32_t slot, const Node *key, bool storing);
const char *sema_dict_store(Query *q, int32_t slot, TokKind op, const Node *value);

/* }---- */

/* }==== */

#endif
