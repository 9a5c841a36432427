/*
 * src/eval/orbit.c — evaluating orbits, what the transform pass
 * (transform.h) makes of transform filters (see eval.c for the table).
 *
 * An orbit matches when some member matches. Its value: with `count`, the
 * number of members that match (it always matches); for a set filter, the
 * union of the members' sets; for a numeric one, the largest value of the
 * members that match; otherwise the value of the first member that matches
 * (the search stops there). A member whose key or guard fails (a designator
 * it needs is empty in this position) is skipped without walking it, and a
 * group of members whose keys all fail at once is skipped with one test:
 * that is what keeps an orbit of 192 members close to the cost of one.
 * Members without a key (those that assign, comment ...) come first, in
 * orbit order; members with one are visited group by group, which changes
 * nothing for a union, a maximum or a count.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "eval/eval_int.h"

static bool designator_nonempty(const Position *pos, const Designator *d)
{
    return (pos_squares_with(pos, d->pieces) & d->squares) != 0;
}

/* A member: its filter, unless its guard already says it cannot match (the
 * key, desig, first; then the other designators of kids[1]). */
static bool eval_member(Evaluator *ev, const Node *n, Value *out)
{
    const Position *pos = &ev->cur->pos;
    if (n->desig && !designator_nonempty(pos, n->desig)) return false;
    const Node *rest = n->kids[1];
    for (uint32_t i = 0; rest && i < rest->nkids; i++)
        if (!designator_nonempty(pos, rest->kids[i]->desig)) return false;
    return eval_node(ev, n->kids[0], out);
}

/* What the members of an orbit that matched add up to. */
typedef struct Tally {
    bool count;           /* count the members that match */
    ValueType type;       /* the orbit's type */
    int64_t matched;
    int64_t best;         /* numbers: the largest value */
    Bitboard set;         /* sets: the union */
    Value first;          /* other types: the first value; the search stops */
} Tally;

static void add_value(Evaluator *ev, Tally *t, Value *v)
{
    t->matched++;
    if (t->count) return;
    if (t->type == VT_SET) {
        t->set |= v->type == VT_PIECE ? eval_piece_square(ev, v->piece) : v->type == VT_SET ? v->set : 0;
    } else if (t->type == VT_NUMBER) {
        int64_t x = v->type == VT_NUMBER ? v->num : bb_popcount(v->type == VT_SET ? v->set : 0);
        if (t->matched == 1 || x > t->best) t->best = x;
    } else if (t->matched == 1) {
        t->first = *v;
    }
}

/* Evaluates the members under n (an orbit or an orbit-group), skipping the
 * groups whose key is empty here. */
static void tally_members(Evaluator *ev, const Node *n, Tally *t)
{
    const Position *pos = &ev->cur->pos;
    for (uint32_t i = 0; i < n->nkids; i++) {
        const Node *k = n->kids[i];
        Value v;
        if (k->kind == ND_ORBIT_GROUP) {
            if (designator_nonempty(pos, k->desig)) tally_members(ev, k, t);
        } else if (eval_member(ev, k, &v)) {
            add_value(ev, t, &v);
        }
        bool stop = !t->count && t->type != VT_SET && t->type != VT_NUMBER && t->matched > 0;
        if (stop) return;
    }
}

static bool eval_orbit(Evaluator *ev, const Node *n, Value *out)
{
    Tally t = {(n->flags & NF_COUNT) != 0, n->type, 0, 0, 0, {VT_NONE, {0}}};
    tally_members(ev, n, &t);
    if (t.count) {
        out->type = VT_NUMBER;
        out->num = t.matched;
        return true;
    }
    if (t.type == VT_SET) {
        out->type = VT_SET;
        out->set = t.set;
    } else if (t.type == VT_NUMBER) {
        out->type = VT_NUMBER;
        out->num = t.best;
    } else {
        *out = t.first;
    }
    return t.matched > 0;
}

/* A group on its own (never reached from an orbit, which tests its key
 * first): whether a member under it matches. */
static bool eval_group(Evaluator *ev, const Node *n, Value *out)
{
    Tally t = {false, VT_NONE, 0, 0, 0, {VT_NONE, {0}}};
    if (designator_nonempty(&ev->cur->pos, n->desig)) tally_members(ev, n, &t);
    *out = t.first;
    return t.matched > 0;
}

/* notransform F: F, which the transform pass left as it was written. */
static bool eval_notransform(Evaluator *ev, const Node *n, Value *out)
{
    return eval_node(ev, n->kids[0], out);
}

static const EvalEntry orbit_entries[] = {
    {ND_ORBIT, eval_orbit},
    {ND_ORBIT_MEMBER, eval_member},
    {ND_ORBIT_GROUP, eval_group},
    {ND_NOTRANSFORM, eval_notransform},
    {ND_COUNT_, NULL},
};

const EvalFamily eval_orbit_family = {orbit_entries, NULL, NULL, NULL};
