/*
 * src/eval/path.c — the filters that search the game tree: find, line,
 * path (⊢) with its status filters (pathstart, pathlastposition, pathcount),
 * echo, consecutivemoves, and the piece identities pieceid and piecename.
 *
 * Searches follow the search mode: the main continuation of each position,
 * or every child with `variations` (`echo ... in all` looks at every
 * position). line and path are regular expressions over sequences of
 * positions; they are matched on sets of nodes (a Thompson-style
 * simulation), so a repetition never backtracks. What this file owns per
 * game — the memos of `find`, the last path — lives in the game's arena and
 * is forgotten by eval_path_new_game.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <string.h>

#include "chess/movegen.h"
#include "eval/eval_int.h"

/* {==== per-game state =========================================================== */

static void eval_path_new_game(Evaluator *ev)
{
    ev->memos = NULL;
    ev->nmemos = ev->memos_cap = 0;
    memset(&ev->path, 0, sizeof ev->path);
    ev->same_board_first = ev->same_board_next = NULL;
}


/* The memo of a search filter in this game; its arrays exist only when the
 * filter's body depends on the position alone. */
static SearchMemo *search_memo(Evaluator *ev, const Node *filter, const Node *body)
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
    if (filter_tree_is_pure(body)) {
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

/* find [all] [quiet] [<--] [range] F: the first position at or after the
 * current one (at or before it with <--) where F holds. `find F` includes
 * the current position: `mate find mate` matches wherever `mate` does
 * (settled by running CQL 6.2). With `all` the value is the number of such
 * positions; with a range that number must lie in the range (one bound:
 * exactly that many) and the value stays the first position. */
static bool eval_find(Evaluator *ev, const Node *n, Value *out)
{
    const Node *body = n->kids[0];
    bool backward = (n->flags & NF_BACKWARD) != 0;
    bool counting = (n->flags & NF_ALL) || n->kids[1];
    SearchMemo *memo = search_memo(ev, n, body);
    const GameNode *here = ev->cur, *first = NULL;
    int saved_pending = ev->npending;
    int64_t count = 0;
    if (!counting && !backward && memo->next_match && !ev->settings.variations) {
        first = find_forward_memo(ev, memo, body, here);
    } else {
        for (const GameNode *p = here; p; p = backward ? p->parent : game_walk_next(here, p, ev->settings.variations)) {
            if (!body_holds_at(ev, memo, body, p)) continue;
            if (!first) first = p;
            count++;
            if (!counting) break;
        }
    }
    ev->cur = here;
    if (n->flags & NF_QUIET) ev->npending = saved_pending;
    if (n->flags & NF_ALL) {
        out->type = VT_NUMBER;
        out->num = count;
        return count > 0;
    }
    if (n->kids[1] && !in_range(ev, n->kids[1], n->kids[2], count)) return false;
    return eval_position_value(out, first);
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
    bool is_path;
    uint8_t focus[SQ_NB];       /* path focus: piece ids to follow (nfocus of them) */
    int nfocus;
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

static bool is_focused_move(const Sequence *sq, const GameNode *after)
{
    uint8_t id = after->parent->piece_id[move_from(after->move)];
    for (int i = 0; i < sq->nfocus; i++)
        if (sq->focus[i] == id) return true;
    return false;
}

/* A move of a path: from each node, the moves fitting the dash pattern
 * (with a focus, made by a focused piece after any number of moves by the
 * other pieces). */
static void path_moves(Sequence *sq, const Node *dash, const NodeSet *in, NodeSet *out)
{
    Evaluator *ev = sq->ev;
    uint64_t flags = sq->filter->flags;
    NodeSet from = {0};
    set_add_all(ev, &from, in);
    if (sq->nfocus) {   /* close over unfocused moves */
        for (int i = 0; i < from.n; i++)
            for (const GameNode *c = eval_first_move(ev, from.v[i]); c; c = eval_next_move(ev, c))
                if (move_allowed(flags, c) && !is_focused_move(sq, c)) set_add(ev, &from, c);
    }
    for (int i = 0; i < from.n; i++) {
        const GameNode *at = from.v[i];
        for (const GameNode *c = eval_first_move(ev, at); c; c = eval_next_move(ev, c)) {
            if (!move_allowed(flags, c) || (sq->nfocus && !is_focused_move(sq, c))) continue;
            if (eval_move_fits_dash(ev, dash, c)) set_add(ev, out, c);
        }
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
        if (kids[i]->kind == ND_PATH_FOCUS) continue;
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
    } else if (sq->is_path && e->kind == ND_DASH) {
        path_moves(sq, e, in, out);
    } else if (sq->is_path) {
        /* a filter in a path holds where the path has got to */
        for (int i = 0; i < in->n; i++)
            if (holds_at(sq, e, in->v[i])) set_add(ev, out, in->v[i]);
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
 * restrict the moves taken (nestban is refused by eval_check_supported). */
static bool eval_line(Evaluator *ev, const Node *n, Value *out)
{
    Sequence sq = {.ev = ev, .filter = n, .start = ev->cur};
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
    if (n->num >= 0 && (best < n->num || best > n->num2)) return false;
    if (n->flags & NF_LASTPOSITION) return eval_position_value(out, last);
    out->type = VT_NUMBER;
    out->num = best;
    return true;
}

static void path_comment(Evaluator *ev, const Node *n, const GameNode *start, const GameNode *end)
{
    const char *what = n->text ? n->text : "path";
    StrBuf sb = SB_INIT;
    sb_printf(&sb, "Start %s that ends at move %u(%s)", what, end->pos.fullmove, end->pos.side == WHITE ? "wtm" : "btm");
    eval_add_comment(ev, start, sb_str(&sb));
    sb_clear(&sb);
    sb_printf(&sb, "End %s of length %d that starts at move %u(%s)", what, (int)plies_between(end, start),
              start->pos.fullmove, start->pos.side == WHITE ? "wtm" : "btm");
    eval_add_comment(ev, end, sb_str(&sb));
    sb_free(&sb);
}

/* path / ⊢: a regular expression over the moves from the current position:
 * a move pattern takes a move, a filter must hold where the path has got
 * to. The value is the length in moves of the longest path (the shortest
 * with firstmatch); unless quiet, CQL 6.2's comments mark where it starts
 * and ends: {Start path that ends at move 13(btm)} ... {End path of length
 * 3 that starts at move 12(wtm)}, with the title in place of "path" when
 * one is given. A focus (◎ S) follows the pieces on S: its moves are the
 * path's, moves of other pieces in between are passed over. max,
 * keepallbest, piecepath, verbose, nestban, lastposition and focus capture
 * are refused by eval_check_supported until they are built. */
static bool eval_path(Evaluator *ev, const Node *n, Value *out)
{
    Sequence sq = {.ev = ev, .filter = n, .start = ev->cur, .is_path = true};
    for (uint32_t i = 0; i < n->nkids; i++) {
        if (n->kids[i]->kind != ND_PATH_FOCUS) continue;
        Bitboard focus;
        eval_set(ev, n->kids[i]->kids[0], &focus);
        for (; focus && sq.nfocus < SQ_NB;) {
            uint8_t id = ev->cur->piece_id[bb_pop_lsb(&focus)];
            if (id) sq.focus[sq.nfocus++] = id;
        }
        if (!sq.nfocus) return false;
    }
    NodeSet in = {0}, end = {0};
    set_add(ev, &in, sq.start);
    int saved_pending = ev->npending;
    match_sequence(&sq, n->kids, n->nkids, &in, &end);
    /* comments made by the filters inside come from every branch tried */
    ev->npending = saved_pending;
    const GameNode *last = NULL;
    bool shortest = (n->flags & NF_FIRSTMATCH) != 0;
    for (int i = 0; i < end.n; i++) {
        const GameNode *e = end.v[i];
        if (!last || (shortest ? e->ply < last->ply : e->ply > last->ply) || (e->ply == last->ply && e->id < last->id))
            last = e;
    }
    if (!last) return false;
    int64_t length = plies_between(last, sq.start);
    ev->path.start = sq.start;
    ev->path.last = last;
    ev->path.count = length;
    ev->path.count_unfocused = length;
    if (!(n->flags & NF_QUIET) && length > 0) path_comment(ev, n, sq.start, last);
    out->type = VT_NUMBER;
    out->num = length;
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
    case ND_PATHCOUNTUNFOCUSED:
        out->type = VT_NUMBER;
        out->num = ev->path.count_unfocused;
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
        if (x->kind != ND_INTERSECT || !is_every_square(all)) continue;
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
    bool every_node = ev->settings.variations || (n->flags & NF_IN_ALL);
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
    {ND_COUNT_, NULL},
};

const EvalFamily eval_path_family = {path_entries, NULL, eval_path_new_game, NULL};
