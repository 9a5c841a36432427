/*
 * src/eval/path.c — the filters that search the game tree: find, line,
 * path (⊢) with its status filters (pathstart, pathlastposition, pathcount),
 * echo, consecutivemoves, and the piece identities pieceid and piecename.
 *
 * Searches follow the search mode: the main continuation of each position,
 * or every child with `variations` (`echo ... in all` looks at every
 * position). line is a regular expression over sequences of positions,
 * matched on sets of nodes (a Thompson-style simulation), so a repetition
 * never backtracks. path is CQL 6.2's depth-first backtracking search,
 * kept exactly because its order decides ties (docs/path.md). What this
 * file owns per game — the memos of `find`, the banned positions of
 * nestban, the last path — lives in the game's arena and is forgotten by
 * eval_path_new_game; the states a path search has seen, and the best ends
 * found from them (path_ends, forgotten by each game), are heap tables
 * kept for the run.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess/movegen.h"
#include "eval/eval_int.h"

/* {==== per-game state =========================================================== */

static void path_ends_forget(Evaluator *ev);

static void eval_path_new_game(Evaluator *ev)
{
    ev->memos = NULL;
    ev->nmemos = ev->memos_cap = 0;
    memset(&ev->path, 0, sizeof ev->path);   /* path_seen lives for the run */
    path_ends_forget(ev);
    ev->same_board_first = ev->same_board_next = NULL;
}


/* The per-game record of a search filter, made on first use (no arrays). */
static SearchMemo *filter_memo(Evaluator *ev, const Node *filter)
{
    for (int i = 0; i < ev->nmemos; i++)
        if (ev->memos[i].filter == filter) return &ev->memos[i];
    if (ev->nmemos == ev->memos_cap) {
        int cap = ev->memos_cap ? ev->memos_cap * 2 : 4;
        SearchMemo *grown = ARENA_ARRAY(ev->arena, SearchMemo, cap);
        if (ev->nmemos) memcpy(grown, ev->memos, sizeof *grown * (size_t)ev->nmemos);
        ev->memos = grown;
        ev->memos_cap = cap;
    }
    SearchMemo *m = &ev->memos[ev->nmemos++];
    memset(m, 0, sizeof *m);
    m->filter = filter;
    return m;
}

/* The memo of a search filter in this game; its arrays exist only when the
 * filter's body depends on the position alone. */
static SearchMemo *search_memo(Evaluator *ev, const Node *filter, const Node *body)
{
    SearchMemo *m = filter_memo(ev, filter);
    if (!m->matched && filter_tree_is_pure(body)) {
        m->matched = ARENA_ARRAY(ev->arena, int8_t, ev->game->node_count);
        m->next_match = ARENA_ARRAY(ev->arena, int32_t, ev->game->node_count);
    }
    return m;
}

/* Evaluates body at node p (leaving ev->cur there), through the memo. */
static bool body_holds_at(Evaluator *ev, SearchMemo *memo, const Node *body, const GameNode *p)
{
    if (memo->matched && memo->matched[p->id]) return memo->matched[p->id] > 0;
    ev->cur = p;
    Value v;
    bool matched = eval_node(ev, body, &v);
    if (memo->matched) memo->matched[p->id] = matched ? 1 : -1;
    return matched;
}

/* }==== */
/* {==== walking the tree ========================================================= */

/* Is `after` a move a line or path may take, given primary/secondary? */
static bool move_allowed(uint64_t flags, const GameNode *after)
{
    bool primary = after->parent->child == after;
    if (flags & NF_PRIMARY) return primary;
    if (flags & NF_SECONDARY) return !primary;
    return true;
}

/* }==== */
/* {==== find ===================================================================== */

/* Forward search along main continuations for a position-only body, with
 * the answer remembered for every position walked over. */
static const GameNode *find_forward_memo(Evaluator *ev, SearchMemo *memo, const Node *body, const GameNode *from)
{
    const GameNode *p = from, *found = NULL;
    for (; p; p = p->child) {
        int32_t known = memo->next_match[p->id];
        if (known < 0) break;
        if (known > 0) {
            found = eval_node_by_id(ev, known - 1);
            break;
        }
        if (body_holds_at(ev, memo, body, p)) {
            found = p;
            break;
        }
    }
    for (p = from; p && p != found && memo->next_match[p->id] == 0; p = p->child)
        memo->next_match[p->id] = found ? found->id + 1 : -1;
    if (found) memo->next_match[found->id] = found->id + 1;
    return found;
}

static bool in_range(Evaluator *ev, const Node *lo_node, const Node *hi_node, int64_t x)
{
    int64_t lo, hi;
    if (!eval_number(ev, lo_node, &lo)) return false;
    if (!hi_node) hi = lo;
    else if (!eval_number(ev, hi_node, &hi)) return false;
    return x >= lo && x <= hi;
}

/* find [quiet] [<--] F: the first position at or after the current one (at
 * or before it with <--) where F holds, the find's value. `find F` includes
 * the current position: `mate find mate` matches wherever `mate` does
 * (settled by running CQL 6.2). With `all` or a range the find is numeric
 * (CQL 6.2): its value is the number of positions where F holds from here to
 * the end of the game (every line, with variations; back to the start with
 * <--), and it matches when that number lies in the range (one bound:
 * exactly that many; `all`: one or more; `count`: any). A find that matches
 * comments the positions it found, "Found" or "Found 1 of 2" ..., unless it
 * is quiet (then nothing its body wrote is kept either), the query is or
 * comments are off. */
static bool eval_find(Evaluator *ev, const Node *n, Value *out)
{
    const Node *body = n->kids[0];
    bool backward = (n->flags & NF_BACKWARD) != 0;
    bool numeric = (n->flags & NF_ALL) || n->kids[1];
    bool comments = !(n->flags & NF_QUIET) && !ev->settings.run.quiet && !ev->settings.run.silent;
    SearchMemo *memo = search_memo(ev, n, body);
    int32_t *found = NULL;
    if (numeric && comments) {
        if (!memo->found) memo->found = ARENA_ARRAY(ev->arena, int32_t, ev->game->node_count);
        found = memo->found;   /* memo may move while the body is evaluated; the array does not */
    }
    const GameNode *here = ev->cur, *first = NULL;
    int saved_pending = ev->npending;
    int64_t count = 0;
    if (!numeric && !backward && memo->next_match && !ev->settings.run.variations) {
        first = find_forward_memo(ev, memo, body, here);
    } else {
        for (const GameNode *p = here; p; p = backward ? p->parent : game_walk_next(here, p, ev->settings.run.variations)) {
            if (!body_holds_at(ev, memo, body, p)) continue;
            if (!first) first = p;
            if (found) found[count] = p->id;
            count++;
            if (!numeric) break;
        }
    }
    ev->cur = here;
    if (n->flags & NF_QUIET) ev->npending = saved_pending;
    bool matched = !numeric ? first != NULL
                   : n->kids[1] ? in_range(ev, n->kids[1], n->kids[2], count) : count > 0;
    if (!matched) return false;
    if (!numeric) {
        if (comments) eval_add_fixed_comment(ev, first, "Found");
        return eval_position_value(out, first);
    }
    char text[64];
    for (int64_t i = 0; found && i < count; i++) {
        snprintf(text, sizeof text, "Found %lld of %lld", (long long)(i + 1), (long long)count);
        eval_add_comment(ev, eval_node_by_id(ev, found[i]), text);
    }
    out->type = VT_NUMBER;
    out->num = count;
    return true;
}

/* nestban: the positions where filter may not match again in this game
 * (by node id, 1 = banned). */
static uint8_t *banned_positions(Evaluator *ev, const Node *filter)
{
    SearchMemo *m = filter_memo(ev, filter);
    if (!m->banned) m->banned = ARENA_ARRAY(ev->arena, uint8_t, ev->game->node_count);
    return m->banned;
}

/* }==== */
/* {==== sets of nodes ============================================================ */

/* A set of nodes (line and path states). NULL stands for "nothing matched
 * yet" in a line. Small: a main-line search holds one node at a time. */
typedef struct NodeSet {
    const GameNode **v;
    int n, cap;
} NodeSet;

static bool set_has(const NodeSet *s, const GameNode *x)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i] == x) return true;
    return false;
}

/* Adds x; true when it was not there yet. */
static bool set_add(Evaluator *ev, NodeSet *s, const GameNode *x)
{
    if (set_has(s, x)) return false;
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 4;
        const GameNode **grown = ARENA_ARRAY(ev->arena, const GameNode *, cap);
        if (s->n) memcpy(grown, s->v, sizeof *grown * (size_t)s->n);
        s->v = grown;
        s->cap = cap;
    }
    s->v[s->n++] = x;
    return true;
}

static bool set_add_all(Evaluator *ev, NodeSet *s, const NodeSet *from)
{
    bool added = false;
    for (int i = 0; i < from->n; i++) added |= set_add(ev, s, from->v[i]);
    return added;
}

/* }==== */
/* {==== line and path ============================================================ */

/* One line or path being matched from the position `start`. */
typedef struct Sequence {
    Evaluator *ev;
    const Node *filter;         /* the ND_LINE or ND_PATH */
    const GameNode *start;
} Sequence;

static void match_element(Sequence *sq, const Node *e, const NodeSet *in, NodeSet *out);

static bool holds_at(Sequence *sq, const Node *f, const GameNode *at)
{
    Evaluator *ev = sq->ev;
    const GameNode *saved = ev->cur;
    ev->cur = at;
    Value v;
    bool matched = eval_node(ev, f, &v);
    ev->cur = saved;
    return matched;
}

/* The positions a line goes to from `from`: the next position (two plies
 * on with singlecolor), the previous one with <--; from NULL, the start. */
static void line_steps(Sequence *sq, const GameNode *from, NodeSet *out)
{
    Evaluator *ev = sq->ev;
    uint64_t flags = sq->filter->flags;
    if (!from) {
        set_add(ev, out, sq->start);
        return;
    }
    if (flags & NF_BACKWARD) {
        const GameNode *p = from->parent;
        if (p && (flags & NF_SINGLECOLOR)) p = p->parent;
        if (p) set_add(ev, out, p);
        return;
    }
    for (const GameNode *c = eval_first_move(ev, from); c; c = eval_next_move(ev, c)) {
        if (!move_allowed(flags, c)) continue;
        if (!(flags & NF_SINGLECOLOR)) {
            set_add(ev, out, c);
            continue;
        }
        for (const GameNode *g = eval_first_move(ev, c); g; g = eval_next_move(ev, g))
            if (move_allowed(flags, g)) set_add(ev, out, g);
    }
}

static void match_repeat(Sequence *sq, const Node *e, const NodeSet *in, NodeSet *out)
{
    Evaluator *ev = sq->ev;
    int64_t lo = e->num, hi = e->num2;
    int64_t limit = hi >= 0 ? hi : lo + ev->game->node_count + 1;
    NodeSet cur = {0};
    set_add_all(ev, &cur, in);
    if (lo == 0) set_add_all(ev, out, in);
    for (int64_t i = 1; i <= limit && cur.n; i++) {
        NodeSet next = {0};
        match_element(sq, e->kids[0], &cur, &next);
        bool added = i >= lo && set_add_all(ev, out, &next);
        if (hi < 0 && i >= lo && !added) break;
        cur = next;
    }
}

static void match_sequence(Sequence *sq, Node *const *kids, uint32_t nkids, const NodeSet *in, NodeSet *out)
{
    Evaluator *ev = sq->ev;
    NodeSet cur = {0};
    set_add_all(ev, &cur, in);
    for (uint32_t i = 0; i < nkids && cur.n; i++) {
        NodeSet next = {0};
        match_element(sq, kids[i], &cur, &next);
        cur = next;
    }
    set_add_all(ev, out, &cur);
}

static void match_element(Sequence *sq, const Node *e, const NodeSet *in, NodeSet *out)
{
    Evaluator *ev = sq->ev;
    if (e->kind == ND_GROUP) {
        match_sequence(sq, e->kids, e->nkids, in, out);
    } else if (e->kind == ND_REPEAT) {
        match_repeat(sq, e, in, out);
    } else {
        /* a constituent of a line holds at the line's next position */
        for (int i = 0; i < in->n; i++) {
            NodeSet steps = {0};
            line_steps(sq, in->v[i], &steps);
            for (int j = 0; j < steps.n; j++)
                if (holds_at(sq, e, steps.v[j])) set_add(ev, out, steps.v[j]);
        }
    }
}

static int64_t plies_between(const GameNode *a, const GameNode *b)
{
    return a->ply > b->ply ? a->ply - b->ply : b->ply - a->ply;
}

/* line [params] --> F --> G ...: consecutive positions from the current one
 * (back from it with <--) where F, G ... hold in turn. The value is the
 * number of positions of the longest such line (the shortest with
 * firstmatch), or with lastposition its last position; a range bounds the
 * number. singlecolor steps two plies at a time; primary and secondary
 * restrict the moves taken. nestban: after a match every position of the
 * line, both ends included (with singlecolor those with the start's side
 * to move), is banned: the line fails there at once for the rest of the
 * game (CQL 6.2, cql62-remaining.md §3). */
static bool eval_line(Evaluator *ev, const Node *n, Value *out)
{
    Sequence sq = {.ev = ev, .filter = n, .start = ev->cur};
    uint8_t *banned = (n->flags & NF_NESTBAN) ? banned_positions(ev, n) : NULL;
    if (banned && banned[sq.start->id]) return false;
    NodeSet in = {0}, end = {0};
    set_add(ev, &in, NULL);
    int saved_pending = ev->npending;
    match_sequence(&sq, n->kids, n->nkids, &in, &end);
    if (n->flags & NF_QUIET) ev->npending = saved_pending;
    int64_t best = -1;
    const GameNode *last = NULL;
    for (int i = 0; i < end.n; i++) {
        if (!end.v[i]) continue;
        int64_t len = plies_between(end.v[i], sq.start) + 1;
        if (best < 0 || ((n->flags & NF_FIRSTMATCH) ? len < best : len > best)) best = len, last = end.v[i];
    }
    if (best < 0) return false;
    if (ast_has_range(n) && (best < n->num || best > n->num2)) return false;
    if (banned) {
        bool singlecolor = (n->flags & NF_SINGLECOLOR) != 0;
        for (const GameNode *p = last; p; p = p == sq.start ? NULL : p->parent)
            if (!singlecolor || p->pos.side == sq.start->pos.side) banned[p->id] = 1;
    }
    if (n->flags & NF_LASTPOSITION) return eval_position_value(out, last);
    out->type = VT_NUMBER;
    out->num = best;
    return true;
}

/* }==== */
/* {==== path ===================================================================== */

/* path (⊢) is a depth-first backtracking search, as CQL 6.2 does it
 * (cql62-remaining.md §1): from the start S the constituents are matched in
 * order; a move constituent tries the moves of the position in order (the
 * main continuation first; with a focus, below the start, the first
 * focused move on each line: path_moves), a filter must hold where the
 * path has got to,
 * X* first goes on without another X and then tries one more (lazily), X+
 * is X then X*, X? first skips X, X{m,n} goes on first once m are done.
 * Each time the constituents are used up at a position E other than S
 * there is a candidate (E, count of moves taken); the best is the one with
 * the most moves (with `max F`, the largest F at E), the earlier one on a
 * tie; with firstmatch the first. The order of the search decides ties, so
 * it is kept exactly.
 *
 * What is left to do after the constituent being matched is a chain of
 * frames on the C stack (a continuation). When the constituents only read
 * the game and the variables, the same frame chain at the same position
 * finds the same candidates again, so each such pair is searched once
 * (this also makes the search polynomial). The count at a position does
 * not depend on the way the search got there (every move, or every
 * focused move, between S and it was taken), so pathcount inside the path
 * does not stop this.
 *
 * When moreover the constituents depend on the position alone (no
 * variable, no comment, no nestban) and the path has no focus, no `max`,
 * no firstmatch and no keepallbest, what is found from a state does not
 * depend on the start either: the count of a candidate is its ply less the
 * start's, so the best end below a state (the first with the most moves)
 * is the same from every start. Such a path keeps that answer per state
 * for the whole game (path_ends), and a search from a later start takes it
 * instead of searching below the state again: offering the best end of a
 * state is the same as offering all its ends in order, the others cannot
 * beat it, and those found before by another way cannot be beaten by it
 * again. A path searched from every position of a game so costs about the
 * size of the game, not the sum of the sizes of its subtrees. An end at
 * the start is offered too (a state does not know whether it is the
 * start's): any end below beats it, and it is dropped at the end. */

/* The search recurses once or twice per step; a path deeper than this much
 * C stack (thousands of moves in release builds) is cut there rather than
 * overflowing the stack of a worker thread. */
#define PATH_STACK_BUDGET ((size_t)3 << 20)
/* A search whose constituents write variables cannot skip the states it
 * has seen and may take exponential time (so does CQL 6.2's); a search
 * stops after this many steps (the moves a focused path passes over
 * count). */
#define PATH_MAX_STEPS 20000000L
#define PATH_NO_VALUE (-100000000)     /* CQL 6.2's initial best `max` value: never chosen */

typedef enum FrameKind { FR_END, FR_SEQ, FR_REP } FrameKind;

typedef struct Frame {
    FrameKind kind;
    const Node *node;           /* FR_SEQ: the path or group; FR_REP: the repeat */
    uint32_t index;             /* FR_SEQ: the next constituent; FR_REP: repetitions
                                   done (when unbounded, at most the minimum or 1) */
    const struct Frame *next;
    uint64_t key;               /* identifies the chain from here to FR_END */
} Frame;

/* The comments the filters inside a path made on the way to where the
 * search is: a list from the latest back, in the game arena, shared by the
 * branches of the search (a candidate keeps its head). */
typedef struct CommentTrail {
    int32_t node_id;
    const char *text;
    const struct CommentTrail *before;
} CommentTrail;

/* A candidate end of the path, with the comments made on the way to it. */
typedef struct PathEnd {
    const GameNode *end;
    int64_t count, value;
    const CommentTrail *notes;
} PathEnd;

typedef struct PathSearch {
    Evaluator *ev;
    const Node *path;
    const Node *max;            /* F of `max F`, or NULL */
    const GameNode *start;
    bool focus, capture;        /* a focus is given; `focus capture` */
    bool focused[256];          /* by piece id: the pieces on the focus at S */
    bool memo;                  /* the constituents only read: search each state once */
    bool reuse;                 /* ... and depend on the position alone: path_ends */
    uint32_t serial;            /* reuse: this search's number in path_ends */
    bool cut;                   /* the stack budget or a zero-move loop cut the search:
                                   what it finds from here on is not kept */
    const CommentTrail *trail;  /* the comments made on the way to here */
    uintptr_t stack_base;       /* an address in the frame of eval_path */
    long steps;
    bool stop;                  /* firstmatch found its path */
    bool have_best;
    PathEnd best;
    PathEnd *alts;              /* keepallbest: the other ends tying with the best */
    int nalts, alts_cap;
} PathSearch;

static uint64_t path_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static Frame frame_make(FrameKind kind, const Node *node, uint32_t index, const Frame *next)
{
    Frame f = {kind, node, index, next, 0};
    f.key = path_mix(((uint64_t)(uintptr_t)node * 31 + index) * 4 + (uint64_t)kind + (next ? next->key * 0x9e3779b97f4a7c15ULL : 0));
    return f;
}

static uint64_t state_key(const Frame *k, const GameNode *at)
{
    return path_mix(k->key ^ ((uint64_t)(uint32_t)at->id * 0x9e3779b97f4a7c15ULL)) | 1;
}

/* Marks (frame, position) as searched; false when it was already. */
static bool first_visit(PathSearch *ps, const Frame *k, const GameNode *at)
{
    Evaluator *ev = ps->ev;
    uint64_t key = state_key(k, at);
    if ((ev->path_seen.count + 1) * 2 > ev->path_seen.cap) {
        uint32_t cap = ev->path_seen.cap ? ev->path_seen.cap * 2 : 1024;
        PathSeenSlot *grown = xcalloc(cap, sizeof *grown);
        for (uint32_t i = 0; i < ev->path_seen.cap; i++) {
            PathSeenSlot e = ev->path_seen.slots[i];
            if (e.gen != ev->path_seen.gen) continue;
            uint32_t j = (uint32_t)e.key & (cap - 1);
            while (grown[j].gen == ev->path_seen.gen && grown[j].key) j = (j + 1) & (cap - 1);
            grown[j] = e;
        }
        free(ev->path_seen.slots);
        ev->path_seen.slots = grown;
        ev->path_seen.cap = cap;
    }
    uint32_t mask = ev->path_seen.cap - 1, i = (uint32_t)key & mask;
    for (;; i = (i + 1) & mask) {
        PathSeenSlot *e = &ev->path_seen.slots[i];
        if (e->gen != ev->path_seen.gen) {
            e->gen = ev->path_seen.gen;
            e->key = key;
            ev->path_seen.count++;
            return true;
        }
        if (e->key == key) return false;
    }
}

static void path_seen_reset(Evaluator *ev)
{
    ev->path_seen.count = 0;
    if (++ev->path_seen.gen == 0) {   /* wrapped: forget every slot */
        if (ev->path_seen.slots) memset(ev->path_seen.slots, 0, sizeof *ev->path_seen.slots * ev->path_seen.cap);
        ev->path_seen.gen = 1;
    }
}

static void path_ends_forget(Evaluator *ev)
{
    ev->path_ends.count = 0;
    if (++ev->path_ends.gen == 0) {   /* wrapped: forget every slot */
        if (ev->path_ends.slots) memset(ev->path_ends.slots, 0, sizeof *ev->path_ends.slots * ev->path_ends.cap);
        ev->path_ends.gen = 1;
    }
}

/* A new search that keeps its answers in path_ends: its serial number. */
static uint32_t path_ends_search(Evaluator *ev)
{
    if (++ev->path_ends.search == 0) {   /* wrapped: no slot may look busy in it */
        path_ends_forget(ev);
        ev->path_ends.search = 1;
    }
    return ev->path_ends.search;
}

/* The slot of `key` in this game, made (not known, not busy) if missing.
 * Valid until the next call. */
static PathEndSlot *path_ends_slot(Evaluator *ev, uint64_t key)
{
    PathEnds *t = &ev->path_ends;
    if ((t->count + 1) * 2 > t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 1024;
        PathEndSlot *grown = xcalloc(cap, sizeof *grown);
        for (uint32_t i = 0; i < t->cap; i++) {
            PathEndSlot e = t->slots[i];
            if (e.gen != t->gen) continue;
            uint32_t j = (uint32_t)e.key & (cap - 1);
            while (grown[j].gen == t->gen) j = (j + 1) & (cap - 1);
            grown[j] = e;
        }
        free(t->slots);
        t->slots = grown;
        t->cap = cap;
    }
    uint32_t mask = t->cap - 1, i = (uint32_t)key & mask;
    for (;; i = (i + 1) & mask) {
        PathEndSlot *e = &t->slots[i];
        if (e->gen != t->gen) {
            *e = (PathEndSlot){.key = key, .gen = t->gen};
            t->count++;
            return e;
        }
        if (e->key == key) return e;
    }
}

static void resume(PathSearch *ps, const Frame *k, const GameNode *at, int64_t count);

/* Has the search used up its stack budget here? (The stack may grow
 * either way.) */
static bool stack_exhausted(const PathSearch *ps)
{
    char here;
    uintptr_t at = (uintptr_t)&here;
    return (at < ps->stack_base ? ps->stack_base - at : at - ps->stack_base) > PATH_STACK_BUDGET;
}

/* Is the move into `after` one of the focused pieces' moves: made by one
 * of them (for castling, the king or the rook), or with `focus capture`
 * capturing one? */
static bool move_in_focus(const PathSearch *ps, const GameNode *after)
{
    const GameNode *from = after->parent;
    Move m = after->move;
    if (move_kind(m) == MK_NULL) return false;
    game_fill_piece_ids(ps->ev->game);
    if (ps->focused[from->piece_id[move_from(m)]]) return true;
    Square rook_from, rook_to;
    if (eval_castling_rook(&from->pos, m, &rook_from, &rook_to) && ps->focused[from->piece_id[rook_from]]) return true;
    if (ps->capture) {
        Square to = move_to(m);
        if (move_kind(m) == MK_EN_PASSANT) to = (Square)(from->pos.side == WHITE ? to - 8 : to + 8);
        if (from->piece_id[to] && ps->focused[from->piece_id[to]]) return true;
    }
    return false;
}

/* Whose squares a castling move has for the path's move patterns: the
 * king's without a focus (as for the dash filter); with a focus, those of
 * the focused pieces among king and rook: the squares of a partner piece
 * that is not focused are ignored (CQL 6.2, cql62-fidelity-2.md R1). */
static unsigned castling_movers(const PathSearch *ps, const GameNode *after)
{
    if (!ps->focus) return CASTLING_KING;
    const GameNode *from = after->parent;
    unsigned movers = 0;
    if (ps->focused[from->piece_id[move_from(after->move)]]) movers |= CASTLING_KING;
    Square rook_from, rook_to;
    if (eval_castling_rook(&from->pos, after->move, &rook_from, &rook_to) && ps->focused[from->piece_id[rook_from]])
        movers |= CASTLING_ROOK;
    return movers;
}

static bool primary_move(const GameNode *after)
{
    return after->parent->child == after;
}

/* Inside the search, pathstart and pathcount (so pathcountunfocused too)
 * describe the branch being searched: its start, and the moves taken so
 * far; pathlastposition is where the branch has got to (R4). Set before
 * each filter of the path is evaluated, since a path inside may have
 * changed them; eval_path puts back the outer state when it is done. */
static void path_status_here(PathSearch *ps, const GameNode *at, int64_t count)
{
    ps->ev->path.start = ps->start;
    ps->ev->path.last = at;
    ps->ev->path.count = count;
}

/* The comments filters made since `saved` (pending in the evaluator) go on
 * the trail when `keep`, so that they are kept along the branches that go
 * on from here only; returns the trail as it was, to be put back once
 * those branches are searched. */
static const CommentTrail *trail_keep_pending(PathSearch *ps, int saved, bool keep)
{
    Evaluator *ev = ps->ev;
    const CommentTrail *before = ps->trail;
    for (int i = saved; keep && i < ev->npending; i++) {
        CommentTrail *c = ARENA_NEW(ev->arena, CommentTrail);
        c->node_id = ev->pending[i].node_id;
        c->text = ev->pending[i].text;
        c->before = ps->trail;
        ps->trail = c;
    }
    ev->npending = saved;
    return before;
}

static inline const CommentTrail *trail_keep(PathSearch *ps, int saved, bool keep)
{
    if (ps->ev->npending == saved) return ps->trail;   /* nearly always: no comment made */
    return trail_keep_pending(ps, saved, keep);
}

/* The path, standing at `at` after `count` moves, tries the move into `c`
 * (a child of `at`, or with a focus a position further below): the sets of
 * the dash are evaluated where that move is played from, its target after
 * it (with the move counted); when all hold the path goes on from `c`. */
static void take_move(PathSearch *ps, const Node *dash, const GameNode *at, const GameNode *c, int64_t count,
                      const Frame *k)
{
    Evaluator *ev = ps->ev;
    int saved = ev->npending;
    path_status_here(ps, at, count);
    bool fits = eval_move_fits_pattern(ev, dash, c, castling_movers(ps, c));
    if (fits && dash->kids[3]) {
        path_status_here(ps, c, count + 1);
        fits = eval_dash_target_holds(ev, dash, c);
    }
    const CommentTrail *trail = trail_keep(ps, saved, fits);
    if (fits) resume(ps, k, c, count + 1);
    ps->trail = trail;
}

/* The position after `c` in a preorder walk below `at` that does not go
 * below `c`: c's next alternative, or that of the nearest position above
 * it that has one; NULL when the walk is done. */
static const GameNode *walk_past(const Evaluator *ev, const GameNode *at, const GameNode *c)
{
    for (; c != at; c = c->parent) {
        const GameNode *next = eval_next_move(ev, c);
        if (next) return next;
    }
    return NULL;
}

/* A move constituent at `at` (CQL 6.2, cql62-fidelity-2.md R1). Without a
 * focus it tries the moves of `at`, the main continuation first. With a
 * focus, at the path's start it tries the start's own moves that are in
 * focus; anywhere else it walks the positions below `at` in preorder (the
 * main continuation and all below it before the variations), passing over
 * the moves that are not in focus and trying each first focused move on a
 * line, without going below it: when that move does not fit, the line is
 * given up. So `-- --` and `--{2}` alike take two focused moves with any
 * number of other moves before the second. */
static void path_moves(PathSearch *ps, const Node *dash, const GameNode *at, int64_t count, const Frame *k)
{
    Evaluator *ev = ps->ev;
    bool primary = (ps->path->flags & NF_PRIMARY) != 0;
    bool skipping = ps->focus && at != ps->start;
    const GameNode *c = eval_first_move(ev, at);
    while (c && !ps->stop) {
        bool allowed = !primary || primary_move(c);
        if (allowed && (!ps->focus || move_in_focus(ps, c))) {
            take_move(ps, dash, at, c, count, k);
        } else if (allowed && skipping && eval_first_move(ev, c)) {
            if (++ps->steps > PATH_MAX_STEPS) {
                ps->stop = true;
                return;
            }
            c = eval_first_move(ev, c);   /* pass over the move into c */
            continue;
        }
        c = walk_past(ev, at, c);
    }
}

/* Matches constituent e at `at`, then what k says. */
static void match_constituent(PathSearch *ps, const Node *e, const GameNode *at, int64_t count, const Frame *k)
{
    Evaluator *ev = ps->ev;
    switch (e->kind) {
    case ND_DASH:
        path_moves(ps, e, at, count, k);
        return;
    case ND_GROUP: {
        if (e->nkids == 0) {
            resume(ps, k, at, count);
            return;
        }
        Frame f = frame_make(FR_SEQ, e, 1, k);
        match_constituent(ps, e->kids[0], at, count, &f);
        return;
    }
    case ND_REPEAT: {
        int64_t hi = e->num2;
        if (e->num == 0) resume(ps, k, at, count);
        if (hi == 0 || ps->stop) return;
        Frame f = frame_make(FR_REP, e, 1, k);
        match_constituent(ps, e->kids[0], at, count, &f);
        return;
    }
    default: {
        /* a filter holds where the path has got to; what it wrote is
         * kept only along the paths that go on from here */
        int saved = ev->npending;
        const GameNode *here = ev->cur;
        ev->cur = at;
        path_status_here(ps, at, count);
        Value v;
        bool holds = eval_node(ev, e, &v);
        ev->cur = here;
        const CommentTrail *trail = trail_keep(ps, saved, holds);
        if (holds) resume(ps, k, at, count);
        ps->trail = trail;
        return;
    }
    }
}

static PathEnd path_end_here(const PathSearch *ps, const GameNode *at, int64_t count, int64_t value)
{
    PathEnd e = {at, count, value, ps->trail};
    return e;
}

/* The constituents are used up at `at`: a candidate, unless still at S. */
static void path_candidate(PathSearch *ps, const GameNode *at, int64_t count)
{
    Evaluator *ev = ps->ev;
    if (at == ps->start && !ps->reuse) return;   /* a path needs a move (reuse: eval_path drops it) */
    int64_t value = count;
    if (ps->max) {
        /* F at the end, with pathcount the candidate's count */
        path_status_here(ps, at, count);
        const GameNode *here = ev->cur;
        int saved_pending = ev->npending;
        ev->cur = at;
        bool ok = eval_number(ev, ps->max, &value);
        ev->cur = here;
        ev->npending = saved_pending;
        if (!ok || value <= PATH_NO_VALUE) return;
    }
    if (!ps->have_best || value > ps->best.value) {
        ps->have_best = true;
        ps->best = path_end_here(ps, at, count, value);
        ps->nalts = 0;
    } else if (value == ps->best.value && (ps->path->flags & NF_KEEPALLBEST)) {
        if (at == ps->best.end) return;
        for (int i = 0; i < ps->nalts; i++)
            if (ps->alts[i].end == at) return;
        if (ps->nalts == ps->alts_cap) {
            int cap = ps->alts_cap ? ps->alts_cap * 2 : 4;
            PathEnd *grown = ARENA_ARRAY(ev->arena, PathEnd, cap);
            if (ps->nalts) memcpy(grown, ps->alts, sizeof *grown * (size_t)ps->nalts);
            ps->alts = grown;
            ps->alts_cap = cap;
        }
        ps->alts[ps->nalts++] = path_end_here(ps, at, count, value);
    }
    if (ps->path->flags & NF_FIRSTMATCH) ps->stop = true;
}

static void resume_here(PathSearch *ps, const Frame *k, const GameNode *at, int64_t count);

/* An end found (or taken from path_ends) by a path that keeps what it
 * finds: the value is the count, the best the first with the most moves. */
static void path_offer(PathSearch *ps, const GameNode *end, int64_t count)
{
    if (ps->have_best && count <= ps->best.value) return;
    ps->have_best = true;
    ps->best = path_end_here(ps, end, count, count);
}

/* resume for a path that keeps what it finds per state (ps->reuse): the
 * best end below the state offered from path_ends, or searched for and
 * kept there. A state the search is already in (a loop of constituents
 * that take no move) adds nothing, as in a search that skips the states it
 * has seen, but what is found around that loop is not kept. */
static void resume_reusing(PathSearch *ps, const Frame *k, const GameNode *at, int64_t count)
{
    Evaluator *ev = ps->ev;
    uint64_t key = state_key(k, at);
    PathEndSlot *slot = path_ends_slot(ev, key);
    if (slot->busy == ps->serial) {
        ps->cut = true;
        return;
    }
    if (slot->known) {
        if (slot->end) path_offer(ps, slot->end, count + slot->moves);
        return;
    }
    slot->busy = ps->serial;
    bool had_best = ps->have_best;
    PathEnd outer = ps->best;
    ps->have_best = false;
    resume_here(ps, k, at, count);
    bool found = ps->have_best;
    PathEnd inner = ps->best;
    ps->have_best = had_best;
    ps->best = outer;
    if (found) path_offer(ps, inner.end, inner.count);
    if (ps->cut) return;   /* slot stays busy: this search does not come back here */
    slot = path_ends_slot(ev, key);   /* the table may have grown */
    slot->busy = 0;
    slot->known = true;
    slot->end = found ? inner.end : NULL;
    slot->moves = found ? (int32_t)(inner.count - count) : 0;
}

/* Goes on from `at` with what k says is left. */
static void resume(PathSearch *ps, const Frame *k, const GameNode *at, int64_t count)
{
    if (ps->stop) return;
    if (stack_exhausted(ps)) {
        ps->cut = true;
        return;
    }
    if (++ps->steps > PATH_MAX_STEPS) {
        ps->stop = ps->cut = true;
        return;
    }
    if (ps->reuse) {
        resume_reusing(ps, k, at, count);
        return;
    }
    if (ps->memo && !first_visit(ps, k, at)) return;
    resume_here(ps, k, at, count);
}

/* resume once it is known that the state is to be searched. */
static void resume_here(PathSearch *ps, const Frame *k, const GameNode *at, int64_t count)
{
    switch (k->kind) {
    case FR_END:
        path_candidate(ps, at, count);
        break;
    case FR_SEQ: {
        const Node *seq = k->node;
        uint32_t i = k->index;
        while (i < seq->nkids && (seq->kids[i]->kind == ND_PATH_FOCUS || seq->kids[i]->kind == ND_PATH_MAX)) i++;
        if (i == seq->nkids) {
            resume(ps, k->next, at, count);
        } else {
            Frame f = frame_make(FR_SEQ, seq, i + 1, k->next);
            match_constituent(ps, seq->kids[i], at, count, &f);
        }
        break;
    }
    case FR_REP: {
        const Node *rep = k->node;
        int64_t lo = rep->num, hi = rep->num2, done = k->index;
        if (done >= lo) resume(ps, k->next, at, count);
        if (hi < 0 || done < hi) {
            int64_t cap = lo > 1 ? lo : 1;   /* unbounded: past the minimum and the first round, all alike */
            int64_t more = hi < 0 && done + 1 > cap ? cap : done + 1;
            Frame f = frame_make(FR_REP, rep, (uint32_t)more, k->next);
            match_constituent(ps, rep->kids[0], at, count, &f);
        }
        break;
    }
    }
}

/* Writes x in decimal (what "%lld" writes) with a '\0' after it; returns
 * its length. A path writes two comments with numbers at each match, and
 * printf would cost more than the search. */
static size_t number_text(char out[static 21], int64_t x)
{
    char digits[20];
    size_t n = 0, len = 0;
    uint64_t u = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (x < 0) out[len++] = '-';
    while (n) out[len++] = digits[--n];
    out[len] = '\0';
    return len;
}

static void append_number(StrBuf *sb, int64_t x)
{
    char text[21];
    sb_append_n(sb, text, number_text(text, x));
}

/* "move 12(wtm)"; inside a variation the position's id is appended,
 * "move 2(btm)[11]", and the comment "id:11" is made there (CQL 6.2). */
static void position_id_text(Evaluator *ev, const GameNode *at, StrBuf *sb)
{
    sb_append(sb, "move ");
    append_number(sb, at->pos.fullmove);
    sb_append(sb, at->pos.side == WHITE ? "(wtm)" : "(btm)");
    if (node_is_mainline(at)) return;
    sb_putc(sb, '[');
    append_number(sb, at->id);
    sb_putc(sb, ']');
    char id[24] = "id:";
    number_text(id + 3, at->id);
    eval_add_comment(ev, at, id);
}

/* The positions from S (excluded) to `end`, in order; returns their number. */
static int path_nodes(Evaluator *ev, const GameNode *start, const GameNode *end, const GameNode ***out)
{
    int n = 0;
    for (const GameNode *p = end; p && p != start; p = p->parent) n++;
    const GameNode **v = ARENA_ARRAY(ev->arena, const GameNode *, n > 0 ? n : 1);
    int i = n;
    for (const GameNode *p = end; p && p != start; p = p->parent) v[--i] = p;
    *out = v;
    return n;
}

/* piecepath: "Focus path: Qd1-h5 ..." for the focused pieces at S, square
 * by square from a1: each piece's squares along the path, "(xe4)" when it
 * is captured; one that never moves adds nothing but its separator (CQL
 * 6.2, cql62-remaining.md §2.6). */
static void piecepath_comment(PathSearch *ps, Bitboard focus, const GameNode *end)
{
    Evaluator *ev = ps->ev;
    const GameNode **nodes;
    int n = path_nodes(ev, ps->start, end, &nodes);
    game_fill_piece_ids(ev->game);
    StrBuf all = SB_INIT, one = SB_INIT;
    bool started = false;
    for (Square s = 0; s < SQ_NB; s++) {
        uint8_t id = ps->start->piece_id[s];
        if (!(focus & sq_bb(s)) || !id) continue;
        if (started) sb_putc(&all, ' ');
        sb_clear(&one);
        char name[3];
        sq_name(s, name);
        sb_printf(&one, "%c%s", piece_char(pos_piece_on(&ps->start->pos, s)), name);
        Square last = s;
        for (int i = 0; i < n; i++) {
            Square now = SQ_NB;
            for (Square t = 0; t < SQ_NB; t++)
                if (nodes[i]->piece_id[t] == id) now = t;
            if (now == SQ_NB) {
                sq_name(last, name);
                sb_printf(&one, "(x%s)", name);
                break;
            }
            if (now != last) {
                sq_name(now, name);
                sb_printf(&one, "-%s", name);
                last = now;
            }
        }
        if (one.len > 3) {
            sb_append(&all, sb_str(&one));
            started = true;
        }
    }
    if (started) {
        StrBuf text = SB_INIT;
        sb_printf(&text, "Focus path: %s", sb_str(&all));
        eval_add_comment(ev, ps->start, sb_str(&text));
        sb_free(&text);
    }
    sb_free(&one);
    sb_free(&all);
}

/* The comments of one end (the best, or an alternative with keepallbest):
 * the filters' comments along it, verbose's "move i of N", then unless
 * quiet "End path ..." at the end and "Start path ..." at S. */
static void path_end_comments(PathSearch *ps, const PathEnd *e, bool alternative)
{
    Evaluator *ev = ps->ev;
    const Node *n = ps->path;
    int nnotes = 0;
    for (const CommentTrail *c = e->notes; c; c = c->before) nnotes++;
    const CommentTrail **notes = ARENA_ARRAY(ev->arena, const CommentTrail *, nnotes > 0 ? nnotes : 1);
    int i = nnotes;
    for (const CommentTrail *c = e->notes; c; c = c->before) notes[--i] = c;
    for (i = 0; i < nnotes; i++) eval_add_comment(ev, eval_node_by_id(ev, notes[i]->node_id), notes[i]->text);
    StrBuf sb = SB_INIT;
    if (n->flags & NF_VERBOSE) {
        const GameNode **nodes;
        int count = path_nodes(ev, ps->start, e->end, &nodes), k = 0;
        for (int j = 0; j < count; j++) {
            if (ps->focus && !move_in_focus(ps, nodes[j])) continue;
            sb_clear(&sb);
            if (n->text) sb_printf(&sb, "%s: ", n->text);
            sb_printf(&sb, "move %d of %lld", ++k, (long long)ps->best.count);
            eval_add_comment(ev, nodes[j], sb_str(&sb));
        }
    }
    if (!(n->flags & NF_QUIET) && !ev->settings.run.quiet) {
        sb_clear(&sb);
        sb_append(&sb, "End path of length ");
        append_number(&sb, e->count);
        sb_append(&sb, " that starts at ");
        position_id_text(ev, ps->start, &sb);
        if (ps->max) sb_printf(&sb, " Max value: %lld", (long long)e->value);
        eval_add_comment(ev, e->end, sb_str(&sb));
        sb_clear(&sb);
        sb_append(&sb, "Start path that ends at ");
        position_id_text(ev, e->end, &sb);
        eval_add_comment(ev, ps->start, sb_str(&sb));
    }
    if (alternative) eval_add_fixed_comment(ev, e->end, "alternative");
    sb_free(&sb);
}

/* Does searching from the same state again find the same candidates? Yes
 * unless a constituent writes a variable or sets the search's state (a
 * path inside): what filters write to the output does not change what
 * they match, and the comments of a candidate found again would be
 * dropped anyway (it cannot beat the first). */
static bool finds_the_same_again(const Node *n)
{
    if (!n) return true;
    FilterEffect fx = filter_info(n->kind)->effect;
    if (fx == FX_WRITES || fx == FX_SETS) return false;
    for (uint32_t i = 0; i < n->nkids; i++)
        if (!finds_the_same_again(n->kids[i])) return false;
    return true;
}

/* Is there a line or path with nestban in n? Its banned positions change
 * from one start to the next. */
static bool bans_positions(const Node *n)
{
    if (!n) return false;
    if ((n->flags & NF_NESTBAN) && (n->kind == ND_LINE || n->kind == ND_PATH)) return true;
    for (uint32_t i = 0; i < n->nkids; i++)
        if (bans_positions(n->kids[i])) return true;
    return false;
}

/* Does what a path finds from a state depend on the position alone? Its
 * constituents (and the sets and targets of its moves) must: nothing they
 * read or write but the game, and no nestban. */
static bool depends_on_position_alone(const Node *n)
{
    return filter_tree_is_pure(n) && !bans_positions(n);
}

/* How a path's search skips work, the same from every start: it searches
 * every state each time it is met, each state once per search (the
 * constituents only read), or once per game (path_ends). */
enum { PATH_SEARCH_ALL = 1, PATH_SEARCH_ONCE, PATH_SEARCH_REUSE };

/* Worked out once per game, in the path's memo. */
static int path_search_kind(Evaluator *ev, const Node *n)
{
    SearchMemo *m = filter_memo(ev, n);
    if (m->path_search) return m->path_search;
    bool same_again = true, reuse = !(n->flags & (NF_FIRSTMATCH | NF_KEEPALLBEST | NF_SINGLECOLOR));
    for (uint32_t i = 0; i < n->nkids; i++) {
        const Node *k = n->kids[i];
        if (k->kind == ND_PATH_FOCUS || k->kind == ND_PATH_MAX) reuse = false;
        if (k->kind != ND_PATH_FOCUS) same_again = same_again && finds_the_same_again(k);
        reuse = reuse && depends_on_position_alone(k);
    }
    m->path_search = !same_again ? PATH_SEARCH_ALL : reuse ? PATH_SEARCH_REUSE : PATH_SEARCH_ONCE;
    return m->path_search;
}

/* The pieces a path follows, as a set of squares at its start S: those on
 * the set of `focus S`, or with singlecolor all the pieces of the side to
 * move at S (CQL 6.2, cql62-fidelity-2.md R2); 0 when the path follows
 * every move. Marks them in ps->focused by their identities. */
static void path_focus(PathSearch *ps, Bitboard *focus)
{
    Evaluator *ev = ps->ev;
    const Node *n = ps->path;
    *focus = 0;
    if (n->flags & NF_SINGLECOLOR) {
        *focus = ps->start->pos.by_color[ps->start->pos.side];
        ps->focus = true;
    }
    for (uint32_t i = 0; i < n->nkids; i++) {
        const Node *k = n->kids[i];
        if (k->kind != ND_PATH_FOCUS) continue;
        ps->focus = true;
        ps->capture = (k->flags & NF_CAPTURE) != 0;
        eval_set(ev, k->kids[0], focus);
    }
    if (!ps->focus) return;
    game_fill_piece_ids(ev->game);
    for (Bitboard b = *focus; b;) {
        uint8_t id = ps->start->piece_id[bb_pop_lsb(&b)];
        if (id) ps->focused[id] = true;
    }
}

/* path / ⊢ [parameters] constituents: see the search above. The value is
 * the best count (with max, the best F; with lastposition, the position
 * where the best path ends); a range bounds the count (with max, F).
 * Afterwards pathstart, pathlastposition and pathcount describe the best
 * path (inside the path, the branch being searched). Comments (unless
 * silent): at S the title, piecepath's "Focus path: ...", "Start path that
 * ends at move 3(btm)"; at the end "End path of length 3 that starts at
 * move 1(wtm)", with verbose "move i of N" after each move. A focus (◎ S,
 * or singlecolor) follows some pieces: only their moves count, the first
 * move is one of them made at S, and each later move constituent passes
 * over the moves of other pieces (path_moves). nestban: the positions of a
 * matched path but its end, those reached by moves passed over included,
 * may not start the path again in this game. */
static bool eval_path(Evaluator *ev, const Node *n, Value *out)
{
    char stack_marker;
    PathSearch ps = {.ev = ev, .path = n, .start = ev->cur, .stack_base = (uintptr_t)&stack_marker};
    uint8_t *banned = (n->flags & NF_NESTBAN) ? banned_positions(ev, n) : NULL;
    if (banned && banned[ps.start->id]) return false;
    Bitboard focus;
    path_focus(&ps, &focus);
    for (uint32_t i = 0; i < n->nkids; i++)
        if (n->kids[i]->kind == ND_PATH_MAX) ps.max = n->kids[i]->kids[0];
    int kind = path_search_kind(ev, n);
    ps.memo = kind != PATH_SEARCH_ALL;
    ps.reuse = kind == PATH_SEARCH_REUSE;
    if (ps.reuse) ps.serial = path_ends_search(ev);
    else if (ps.memo) path_seen_reset(ev);
    int base_pending = ev->npending;
    PathState outer = ev->path;
    Frame end = frame_make(FR_END, NULL, 0, NULL);
    Frame top = frame_make(FR_SEQ, n, 0, &end);
    resume(&ps, &top, ps.start, 0);
    ev->npending = base_pending;
    ev->path = outer;
    if (ps.have_best && ps.best.end == ps.start) ps.have_best = false;   /* reuse offers S's own end */
    if (!ps.have_best) return false;
    if (ast_has_range(n) && (ps.best.value < n->num || ps.best.value > n->num2)) return false;
    ev->path.start = ps.start;
    ev->path.last = ps.best.end;
    ev->path.count = ps.best.count;
    if (banned)
        for (const GameNode *p = ps.best.end->parent; p; p = p == ps.start ? NULL : p->parent) banned[p->id] = 1;
    if (n->text) eval_add_comment(ev, ps.start, n->text);
    if (n->flags & NF_PIECEPATH) piecepath_comment(&ps, focus, ps.best.end);
    path_end_comments(&ps, &ps.best, false);
    for (int i = 0; i < ps.nalts; i++) path_end_comments(&ps, &ps.alts[i], true);
    if (n->flags & NF_LASTPOSITION) return eval_position_value(out, ps.best.end);
    out->type = VT_NUMBER;
    out->num = ps.best.value;
    return true;
}

/* The state of the last path that matched in this game (CQL 6.2 calls
 * these filters experimental); pathdebug prints nothing here. */
static bool eval_path_status(Evaluator *ev, const Node *n, Value *out)
{
    if (n->kind == ND_PATHDEBUG) return true;
    if (!ev->path.start) return false;
    switch (n->kind) {
    case ND_PATHSTART: return eval_position_value(out, ev->path.start);
    case ND_PATHLASTPOSITION: return eval_position_value(out, ev->path.last);
    case ND_PATHCOUNT:
        out->type = VT_NUMBER;
        out->num = ev->path.count;
        return true;
    case ND_PATHCOUNTUNFOCUSED:   /* ply - pathstart:ply - pathcount, where it is used */
        out->type = VT_NUMBER;
        out->num = (int64_t)ev->cur->ply - (int64_t)ev->path.start->ply - ev->path.count;
        return true;
    default: return false;
    }
}

/* }==== */
/* {==== echo ===================================================================== */

static const Node *unwrap_paren(const Node *n)
{
    while (n->kind == ND_PAREN) n = n->kids[0];
    return n;
}

static bool is_var(const Node *n, int32_t slot)
{
    n = unwrap_paren(n);
    return n->kind == ND_VAR && n->slot == slot;
}

/* `.` / `▦`: every square, whatever stands on it. */
static bool is_every_square(const Node *n)
{
    n = unwrap_paren(n);
    return n->kind == ND_DESIGNATOR && n->desig->squares == ALL_SQUARES_BB &&
           (n->desig->all_squares_symbol || !n->desig->has_piece_part);
}

/* `s & t == .` (either order, either side): the two boards are identical. */
static bool says_same_board(const Node *m, int32_t s, int32_t t)
{
    m = unwrap_paren(m);
    if (m->kind != ND_RELATION || m->op != TK_EQ) return false;
    for (int side = 0; side < 2; side++) {
        const Node *x = unwrap_paren(m->kids[side]), *all = m->kids[1 - side];
        if (x->kind != ND_INTERSECT || x->nkids != 2 || !is_every_square(all)) continue;
        if ((is_var(x->kids[0], s) && is_var(x->kids[1], t)) || (is_var(x->kids[0], t) && is_var(x->kids[1], s)))
            return true;
    }
    return false;
}

/* Cheap whole-position tests an echo body implies, checked before the body
 * runs on each pair of positions (echo is quadratic in the game's length). */
typedef struct EchoPrecheck {
    bool same_board;            /* the body requires s & t == . */
} EchoPrecheck;

static void echo_precheck(const Node *echo, EchoPrecheck *pc)
{
    memset(pc, 0, sizeof *pc);
    const Node *body = unwrap_paren(echo->kids[0]);
    int32_t s = echo->slot, t = (int32_t)echo->num;
    if (body->kind != ND_COMPOUND) {
        pc->same_board = says_same_board(body, s, t);
        return;
    }
    for (uint32_t i = 0; i < body->nkids; i++) pc->same_board |= says_same_board(body->kids[i], s, t);
}

static bool same_board(const Position *a, const Position *b)
{
    if (a->by_color[WHITE] != b->by_color[WHITE] || a->by_color[BLACK] != b->by_color[BLACK]) return false;
    for (int t = PAWN; t <= KING; t++)
        if (a->by_type[t] != b->by_type[t]) return false;
    return true;
}

static uint64_t board_hash(const Position *p)
{
    uint64_t h = p->by_color[WHITE] * 0x9e3779b97f4a7c15ULL ^ p->by_color[BLACK];
    for (int t = PAWN; t <= KING; t++) h = (h ^ p->by_type[t]) * 0xbf58476d1ce4e5b9ULL;
    return h ^ h >> 31;
}

/* Links every node of the game to the others with the same board, in
 * preorder (ev->same_board_first / same_board_next), so that an echo whose
 * body needs s & t == . visits only those instead of the whole game. */
static void index_boards(Evaluator *ev)
{
    int count = ev->game->node_count;
    ev->same_board_first = ARENA_ARRAY(ev->arena, const GameNode *, count);
    ev->same_board_next = ARENA_ARRAY(ev->arena, const GameNode *, count);
    size_t cap = 16;
    while (cap < 2 * (size_t)count) cap *= 2;
    const GameNode **last = ARENA_ARRAY(ev->arena, const GameNode *, cap);   /* open addressing */
    for (const GameNode *n = ev->game->root; n; n = game_walk_next(NULL, n, true)) {
        size_t i = board_hash(&n->pos) & (cap - 1);
        while (last[i] && !same_board(&last[i]->pos, &n->pos)) i = (i + 1) & (cap - 1);
        if (last[i]) {
            ev->same_board_first[n->id] = ev->same_board_first[last[i]->id];
            ev->same_board_next[last[i]->id] = n;
        } else {
            ev->same_board_first[n->id] = n;
        }
        last[i] = n;
    }
}

/* echo [quiet] (s t) [in all] body: s is the current position; for each
 * position t of the game (every node with `in all` or `variations`, the
 * main line otherwise) the body is evaluated at t. Matches when it holds
 * for some t. */
static bool eval_echo(Evaluator *ev, const Node *n, Value *out)
{
    int32_t s = n->slot, t = (int32_t)n->num;
    Value saved_s = ev->vars[s], saved_t = ev->vars[t];
    bool bound_s = ev->bound[s], bound_t = ev->bound[t];
    EchoPrecheck pc;
    echo_precheck(n, &pc);
    bool every_node = ev->settings.run.variations || (n->flags & NF_IN_ALL);
    const GameNode *source = ev->cur;
    int saved_pending = ev->npending;
    bool matched = false;
    if (pc.same_board && !ev->same_board_first) index_boards(ev);
    /* with same_board, only the positions with the source's board, in the
     * same (preorder) order the whole walk would meet them */
    const GameNode *first = pc.same_board ? ev->same_board_first[source->id] : ev->game->root;
    for (const GameNode *target = first; target && !matched;
         target = pc.same_board ? ev->same_board_next[target->id] : game_walk_next(NULL, target, every_node)) {
        if (pc.same_board && !every_node && !node_is_mainline(target)) continue;
        /* the target is any position but the source (CQL 6.2: `sort "n" echo
         * (s t) {s & t == . ply >= 80}` finds repetitions, 3:4 4:8 on
         * kasparov-deep-blue-1997.pgn, not every position from ply 80 on) */
        if (target == source) continue;
        eval_position_value(&ev->vars[s], source);
        eval_position_value(&ev->vars[t], target);
        ev->bound[s] = ev->bound[t] = true;
        ev->cur = target;
        matched = eval_node(ev, n->kids[0], out);
    }
    if (!matched) out->type = VT_NONE;
    else if (out->type == VT_PIECE) eval_piece_to_set(ev, out);   /* its square at the target */
    ev->cur = source;
    ev->vars[s] = saved_s;
    ev->vars[t] = saved_t;
    ev->bound[s] = bound_s;
    ev->bound[t] = bound_t;
    if (n->flags & NF_QUIET) ev->npending = saved_pending;
    return matched;
}

/* }==== */
/* {==== consecutivemoves ========================================================= */

/* The moves from ancestor `from` down to `to`, in game order; returns their number. */
static int moves_between(Evaluator *ev, const GameNode *from, const GameNode *to, Move **out)
{
    int n = (int)(to->ply - from->ply);
    *out = ARENA_ARRAY(ev->arena, Move, n > 0 ? n : 1);
    for (int i = n - 1; i >= 0; i--, to = to->parent) (*out)[i] = to->move;
    return n;
}

/* consecutivemoves [quiet] [range] (x y): with L = lca(x, y), the length of
 * the longest run of consecutive moves on the way from L to x that is also
 * played on the way from L to y. Matches when that run has a move (and its
 * length lies in the range, when one is given). */
static bool eval_consecutivemoves(Evaluator *ev, const Node *n, Value *out)
{
    Value x, y;
    if (!eval_node(ev, n->kids[0], &x) || x.type != VT_POSITION) return false;
    if (!eval_node(ev, n->kids[1], &y) || y.type != VT_POSITION) return false;
    const GameNode *l = eval_common_ancestor(x.pos, y.pos);
    Move *a, *b;
    int na = moves_between(ev, l, x.pos, &a), nb = moves_between(ev, l, y.pos, &b);
    /* longest common run: run[j] = length of the common run ending at a[i], b[j] */
    int *run = ARENA_ARRAY(ev->arena, int, nb + 1);
    int best = 0;
    for (int i = 0; i < na; i++)
        for (int j = nb - 1; j >= 0; j--) {
            run[j + 1] = a[i] == b[j] ? run[j] + 1 : 0;
            if (run[j + 1] > best) best = run[j + 1];
        }
    if (best == 0) return false;
    if (n->kids[2] && !in_range(ev, n->kids[2], n->kids[3], best)) return false;
    out->type = VT_NUMBER;
    out->num = best;
    return true;
}

/* }==== */
/* {==== piece identities ========================================================= */

/* The identity of the piece on the one square of the operand, or 0. */
static uint8_t piece_on_single_square(Evaluator *ev, const Node *operand)
{
    Bitboard b;
    eval_set(ev, operand, &b);
    if (!b || bb_more_than_one(b)) return 0;
    game_fill_piece_ids(ev->game);
    return ev->cur->piece_id[bb_lsb(b)];
}

/* pieceid X: a number naming the piece on X, which stays the same as the
 * piece moves and when a pawn promotes. */
static bool eval_pieceid(Evaluator *ev, const Node *n, Value *out)
{
    uint8_t id = piece_on_single_square(ev, n->kids[0]);
    if (!id) return false;
    out->type = VT_NUMBER;
    out->num = id;
    return true;
}

/* }==== */

/* Repetitions, groups and the focus exist only inside line and path, which
 * match them themselves. */
static bool eval_sequence_part(Evaluator *ev, const Node *n, Value *out)
{
    (void)ev;
    (void)n;
    (void)out;
    return false;
}

static const EvalEntry path_entries[] = {
    {ND_FIND, eval_find},
    {ND_LINE, eval_line},
    {ND_PATH, eval_path},
    {ND_PATHSTART, eval_path_status},
    {ND_PATHLASTPOSITION, eval_path_status},
    {ND_PATHCOUNT, eval_path_status},
    {ND_PATHCOUNTUNFOCUSED, eval_path_status},
    {ND_PATHDEBUG, eval_path_status},
    {ND_ECHO, eval_echo},
    {ND_CONSECUTIVEMOVES, eval_consecutivemoves},
    {ND_PIECEID, eval_pieceid},
    {ND_REPEAT, eval_sequence_part},
    {ND_GROUP, eval_sequence_part},
    {ND_PATH_FOCUS, eval_sequence_part},
    {ND_PATH_MAX, eval_sequence_part},
    {ND_COUNT_, NULL},
};

static void eval_path_free(Evaluator *ev)
{
    free(ev->path_seen.slots);
    memset(&ev->path_seen, 0, sizeof ev->path_seen);
    free(ev->path_ends.slots);
    memset(&ev->path_ends, 0, sizeof ev->path_ends);
}

const EvalFamily eval_path_family = {path_entries, NULL, eval_path_new_game, eval_path_free};
