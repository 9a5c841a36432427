/*
 * src/index/movecode.c — two-byte move codes and move trees (see movecode.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "index/movecode.h"

#include <stdlib.h>
#include <string.h>

#include "chess/movegen.h"
#include "index/bytes.h"

static uint16_t code_make(Square from, Square to, unsigned kind)
{
    return (uint16_t)((unsigned)from | (unsigned)to << 6 | kind << 12);
}

bool movecode_move(uint16_t c, Move *m)
{
    Square from = c & 63, to = (c >> 6) & 63;
    unsigned kind = c >> 12;
    switch (kind) {
    case MOVECODE_NORMAL: *m = move_make(from, to, NO_PIECE_TYPE, MK_NORMAL); return true;
    case MOVECODE_EN_PASSANT: *m = move_make(from, to, NO_PIECE_TYPE, MK_EN_PASSANT); return true;
    case MOVECODE_CASTLE_SHORT: *m = move_make(from, to, NO_PIECE_TYPE, MK_CASTLE_SHORT); return true;
    case MOVECODE_CASTLE_LONG: *m = move_make(from, to, NO_PIECE_TYPE, MK_CASTLE_LONG); return true;
    case MOVECODE_NULL: *m = MOVE_NULL; return true;
    default: break;
    }
    if (kind > MOVECODE_PROMOTION && kind <= MOVECODE_PROMOTION + KING) {
        *m = move_make(from, to, (PieceType)(kind - MOVECODE_PROMOTION), MK_PROMOTION);
        return true;
    }
    return false;
}

/* {==== writing a tree ========================================================= */

/* What is left to write, on a stack: the line after a node, a variation's
 * first move (with its "begins"), or its "ends". */
typedef enum WorkKind { WORK_LINE, WORK_VARIATION, WORK_END } WorkKind;

typedef struct Work {
    WorkKind kind;
    const GameNode *node;
} Work;

typedef struct WorkStack {
    Work *items;
    size_t count, cap;
} WorkStack;

static void push_work(WorkStack *s, WorkKind kind, const GameNode *node)
{
    if (s->count == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->items = xrealloc(s->items, s->cap * sizeof *s->items);
    }
    s->items[s->count++] = (Work){kind, node};
}

static void put_code(StrBuf *out, uint16_t c, size_t *count)
{
    movecode_append(out, c);
    (*count)++;
}

/* A loop over a stack, not a recursion: a variation can be thousands of
 * moves deep. (The sidecar's build calls it for a tree with variations
 * alone: a main line's codes it makes during the parse.) */
size_t movecode_write_tree(const Game *g, StrBuf *out)
{
    size_t count = 0;
    WorkStack stack = {NULL, 0, 0};
    push_work(&stack, WORK_LINE, g->root);
    while (stack.count) {
        Work w = stack.items[--stack.count];
        if (w.kind == WORK_END) {
            put_code(out, code_make(0, 0, MOVECODE_END), &count);
            continue;
        }
        if (w.kind == WORK_VARIATION) {
            put_code(out, code_make(0, 0, MOVECODE_BEGIN), &count);
            put_code(out, movecode_of(w.node->move), &count);
            push_work(&stack, WORK_LINE, w.node);
            continue;
        }
        const GameNode *next = w.node->child;
        if (!next) continue;
        put_code(out, movecode_of(next->move), &count);
        /* the line goes on after the alternatives to `next`, which come in order */
        push_work(&stack, WORK_LINE, next);
        size_t first = stack.count;
        for (const GameNode *s = next->sibling; s; s = s->sibling) {
            push_work(&stack, WORK_END, NULL);
            push_work(&stack, WORK_VARIATION, s);
        }
        /* the pairs were pushed first to last: reverse them, so the first pops first */
        for (size_t i = first, j = stack.count - 2; stack.count > first && i < j; i += 2, j -= 2) {
            Work end = stack.items[i], var = stack.items[i + 1];
            stack.items[i] = stack.items[j];
            stack.items[i + 1] = stack.items[j + 1];
            stack.items[j] = end;
            stack.items[j + 1] = var;
        }
    }
    free(stack.items);
    return count;
}

/* }==== */
/* {==== reading a tree ========================================================= */

/* Whether a piece of the side to move stands on `from`, and lands on no
 * piece of its own (so not on `from` itself) and takes no king on `to`:
 * read from the board, without a branch. pos_make_move reads the same
 * two squares next: read once, they are not waited for twice (from the
 * bitboards, the check cost a replay through the sidecar 7% more CPU). */
static inline bool mover_lands(const Position *pos, Color us, Square from, Square to)
{
    /* bit p of movers[us]: piece p is us's (its PAWN ... KING); bit v of
     * landings[us]: us may land on v (NO_PIECE, or the other side's PAWN
     * ... QUEEN) */
    static const uint16_t movers[COLOR_NB] = {0x7e, 0x7e00}, landings[COLOR_NB] = {0x3e01, 0x003f};
    _Static_assert(W_PAWN == 1 && W_KING == 6 && B_PAWN == 9 && B_KING == 14, "the pieces' bits");
    return (movers[us] >> pos_piece_on(pos, from) & landings[us] >> pos_piece_on(pos, to) & 1) != 0;
}

/* Whether a pawn's plain move leaves the position whole (pos_is_ok): not
 * onto its first or last rank (forward, that is a promotion), and not two
 * squares along its file (which sets the en passant square) but forward
 * from its second rank over an empty square. Other odd moves of a pawn
 * (sideways, back one square) break nothing. */
static inline bool pawn_step_fits(const Position *pos, Color us, Square from, Square to)
{
    if (sq_bb(to) & (RANK_1_BB | RANK_8_BB)) return false;
    if (to - from != 16 && from - to != 16) return true;
    bool white = us == WHITE;
    return to - from == (white ? 16 : -16) && rank_of(from) == (white ? 1 : 6) &&
           pos_piece_on(pos, (from + to) / 2) == NO_PIECE;
}

/* code_move_fits for a plain move (MOVECODE_NORMAL, most of them): the
 * mover lands (mover_lands), and a pawn's move breaks nothing
 * (pawn_step_fits). */
static inline bool normal_code_fits(const Position *pos, Color us, Square from, Square to)
{
    return mover_lands(pos, us, from, to) &&
           (type_of(pos_piece_on(pos, from)) != PAWN || pawn_step_fits(pos, us, from, to));
}

/* Whether m, a move other than a plain one, can be played in pos without
 * breaking the position: the mover lands (mover_lands); a promotion is a
 * pawn's to the last rank; en passant takes a pawn that just moved two
 * squares; castling is the castling move with its path empty. (Whether
 * the mover leaves or, castling, passes through check is not asked: the
 * sidecar's checksum keeps the moves the build wrote; this keeps a damaged
 * one from breaking a position.) */
static bool code_move_fits(const Position *pos, Move m)
{
    Color us = (Color)pos->side;
    Square from = move_from(m), to = move_to(m);
    switch (move_kind(m)) {
    case MK_NULL:
        return true;
    case MK_CASTLE_SHORT:
    case MK_CASTLE_LONG:
        return mg_castle_move_made(pos, move_kind(m) == MK_CASTLE_SHORT ? CASTLE_SHORT : CASTLE_LONG) == m;
    default:
        break;
    }
    if (!mover_lands(pos, us, from, to) || type_of(pos_piece_on(pos, from)) != PAWN) return false;
    if (move_kind(m) == MK_EN_PASSANT) {
        Square passed = make_square(file_of(to), rank_of(from));
        return to == pos->ep && pos_piece_on(pos, to) == NO_PIECE &&
               pos_piece_on(pos, passed) == make_piece(other_color(us), PAWN);
    }
    return move_kind(m) == MK_PROMOTION && move_promo(m) >= KNIGHT && move_promo(m) <= QUEEN &&
           rank_of(to) == (us == WHITE ? 7 : 0);
}

/* Whether m, a move a walk readied (ready_next_move), can be made in pos
 * (normal_code_fits, code_move_fits). */
static inline bool readied_move_fits(const Position *pos, Move m)
{
    return move_kind(m) == MK_NORMAL ? normal_code_fits(pos, (Color)pos->side, move_from(m), move_to(m))
                                     : code_move_fits(pos, m);
}

/* The move of code c, a move (no variation mark), made from pos; false
 * when it cannot be made there (code_move_fits). Inline: both callers
 * call it at every move. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool code_to_move(uint16_t c, const Position *pos, Move *m)
{
    if (c >> 12 == MOVECODE_NORMAL) {
        /* the usual move, without movecode_move's switch: its code is its
         * Move (from, to, no promotion, MK_NORMAL: 0) */
        _Static_assert(MOVECODE_NORMAL == 0 && MK_NORMAL == 0 && NO_PIECE_TYPE == 0, "a plain move's code is its Move");
        *m = (Move)c;
        return normal_code_fits(pos, (Color)pos->side, c & 63, c >> 6);
    }
    return movecode_move(c, m) && code_move_fits(pos, *m);
}

/* The code at index i of codes. */
static inline uint16_t code_at(const unsigned char *codes, size_t i)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint16_t c;   /* one load where the machine is little-endian */
    memcpy(&c, codes + 2 * i, sizeof c);
    return c;
#else
    return (uint16_t)(codes[2 * i] | codes[2 * i + 1] << 8);
#endif
}

/* The sidecar's bytes a walk reads next are seldom in the cache when it
 * gets there: a game's record is a few hundred bytes, too few for the
 * processor to see that they are read in order, and the run does other
 * work between two records (a replay through the sidecar waited on them
 * for about 5% of its CPU). This fetches the bytes 1 KB after code i (the
 * game's later codes, then the next games' records) ahead of the walk.
 * Only a hint: nothing is read, and a prefetch never faults (the address
 * may be past the sidecar's end). */
static inline void codes_prefetch(const unsigned char *codes, size_t i)
{
#if defined(__GNUC__)
    __builtin_prefetch((const void *)((uintptr_t)codes + 2 * i + 1024));
#else
    (void)codes, (void)i;
#endif
}

/* An open variation: where the line it branches from goes on, and its
 * first node (the last child so far of the position it starts from). */
typedef struct OpenVariation {
    GameNode *resume;
    GameNode *head;
} OpenVariation;

typedef struct VariationStack {
    OpenVariation *items;
    size_t count, cap;
} VariationStack;

bool movecode_read_tree(const unsigned char *codes, size_t ncodes, Game *g, Arena *a)
{
    GameNode *cur = g->root;
    VariationStack stack = {NULL, 0, 0};
    bool ok = true;
    g->variation_tail = NULL;
    for (size_t i = 0; ok && i < ncodes; i++) {
        uint16_t c = code_at(codes, i);
        unsigned kind = c >> 12;
        if (kind == MOVECODE_BEGIN) {
            ok = cur->parent != NULL;
            if (!ok) break;
            if (stack.count == stack.cap) {
                stack.cap = stack.cap ? 2 * stack.cap : 16;
                stack.items = xrealloc(stack.items, stack.cap * sizeof *stack.items);
            }
            stack.items[stack.count++] = (OpenVariation){cur, NULL};
            cur = cur->parent;
            continue;
        }
        if (kind == MOVECODE_END) {
            ok = stack.count > 0 && stack.items[stack.count - 1].head != NULL;   /* not an empty variation */
            if (!ok) break;
            OpenVariation v = stack.items[--stack.count];
            /* the next variation from the same position goes after this one,
             * found without a walk over its siblings (game_add_move) */
            g->variation_tail = v.head;
            cur = v.resume;
            continue;
        }
        Move m;
        /* a second child only in a variation */
        ok = code_to_move(c, &cur->pos, &m) && (!cur->child || stack.count > 0);
        if (!ok) break;
        GameNode *n = game_add_move(g, a, cur, m);
        if (cur->child != n) stack.items[stack.count - 1].head = n;   /* a variation's first move */
        cur = n;
    }
    ok = ok && stack.count == 0;
    free(stack.items);
    g->variation_tail = NULL;
    if (ok) game_number_nodes(g);
    return ok;
}

/* }==== */
/* {==== a main line made in place ============================================== */

/* Where the codes go on after the variation that begins at code `at`,
 * and those within it; 0 when it does not end, or holds no move. (Given
 * the walk's fields, not the walk: a walk kept in registers stays there.) */
static size_t variation_end(const unsigned char *codes, size_t ncodes, size_t at)
{
    size_t first = ++at;
    for (unsigned depth = 1; depth > 0; at++) {
        if (at == ncodes) return 0;
        unsigned kind = code_at(codes, at) >> 12;
        depth += kind == MOVECODE_BEGIN;
        depth -= kind == MOVECODE_END;
    }
    return at - first >= 2 ? at : 0;   /* a move and its end at least */
}

/* Readies w->move, and the child stand-in's, for the move of the next
 * code from the current position, past the variations of the move that
 * led there; when there is none, the child is NULL (it is the stand-in
 * until then). False when that code is no move. Whether it can be played
 * there is asked when it is made (movecode_walk_next): the position is
 * not changed in between. */
static inline bool ready_next_move(MovecodeWalk *w)
{
    for (;;) {
        if (w->next == w->ncodes) {
            w->nodes->here.child = NULL;
            return true;
        }
        uint16_t c = code_at(w->codes, w->next);
        Move m = (Move)c;   /* a plain move's code is its Move (code_to_move) */
        if (c >> 12 != MOVECODE_NORMAL) {
            if (c >> 12 == MOVECODE_BEGIN) {
                if (w->ply == 0 || (w->next = variation_end(w->codes, w->ncodes, w->next)) == 0) return false;
                continue;
            }
            if (!movecode_move(c, &m)) return false;
        }
        w->move = w->nodes->after.move = m;
        return true;
    }
}

bool movecode_walk_start(MovecodeWalk *w, MovecodeWalkNodes *nodes, const unsigned char *codes, size_t ncodes,
                         const Position *start, bool variations)
{
    if (variations) {
        /* a variation mark: a kind of BEGIN or END, in the high byte's
         * high half (a loop without a branch) */
        unsigned marks = 0;
        for (size_t i = 0; i < ncodes; i++) marks |= (unsigned)(codes[2 * i + 1] >> 4) - MOVECODE_BEGIN <= 1u;
        if (marks) return false;
    }
    *w = (MovecodeWalk){.codes = codes, .ncodes = ncodes, .nodes = nodes, .move = MOVE_NONE};
    memset(nodes, 0, sizeof *nodes);
    nodes->here.pos = *start;
    nodes->here.move = MOVE_NONE;
    nodes->here.child = &nodes->after;
    nodes->after.parent = &nodes->here;
    return true;
}

/* Inline where it is called: the loops over a walk keep it in registers
 * then (search_walk) */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline const GameNode *movecode_walk_next(MovecodeWalk *w)
{
    GameNode *here = &w->nodes->here;
    if (w->started) {
        if (w->next == w->ncodes) return NULL;
        /* the move ready_next_move readied, checked (code_to_move's
         * checks) and made in place */
        Move m = w->move;
        if (!readied_move_fits(&here->pos, m)) {
            w->bad = true;
            return NULL;
        }
        pos_make_move(&here->pos, m);
        codes_prefetch(w->codes, w->next);
        here->move = m;
        here->parent = &w->nodes->before;
        here->check_state = 0;
        here->id = here->ply = ++w->ply;
        w->next++;
    }
    w->started = true;
    if (!ready_next_move(w)) {
        w->bad = true;
        return NULL;
    }
    return here;
}

/* A pass's side to move and counters, kept apart from its position: what
 * they were at the walk's ply `base`, and the ply of the last move since
 * then that set the half-move clock back to 0 (a capture or a pawn's
 * move; before `base`, none). */
typedef struct PassClock {
    int32_t base, reset;
    Color side;
    unsigned halfmove, fullmove;
} PassClock;

static inline PassClock pass_clock(const Position *pos, int32_t ply)
{
    return (PassClock){.base = ply, .reset = ply - 1, .side = (Color)pos->side, .halfmove = pos->halfmove,
                       .fullmove = pos->fullmove};
}

/* The side and the counters of the position at `ply`, set in pos: as
 * pos_make_move would have made them move by move (stopping at 65535). */
static inline void pass_clock_set(const PassClock *k, int32_t ply, Position *pos)
{
    unsigned made = (unsigned)(ply - k->base);
    unsigned blacks = k->side == BLACK ? (made + 1) / 2 : made / 2;   /* Black's moves complete a full move */
    unsigned halfmove = k->reset >= k->base ? (unsigned)(ply - k->reset) : k->halfmove + made;
    pos->side = (uint8_t)(k->side ^ (made & 1));
    pos->halfmove = (uint16_t)(halfmove < UINT16_MAX ? halfmove : UINT16_MAX);
    pos->fullmove = (uint16_t)(k->fullmove + blacks < UINT16_MAX ? k->fullmove + blacks : UINT16_MAX);
}

/* Inline where it is called, as movecode_walk_next. Between the moves only
 * the position changes: the node's other fields are what the first move
 * made them (its parent, its check state unknown), or what the last is to
 * make them (its move, id and ply): stored once, not at every move. So
 * are the position's side and counters (pass_clock), but around a move
 * other than a plain one (pos_make_move makes it): their stores and loads
 * at every move cost the pass 2-3% of its CPU. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline long movecode_walk_pass(MovecodeWalk *w, long count)
{
    GameNode *here = &w->nodes->here;
    Position *pos = &here->pos;
    int32_t first_ply = w->ply;
    Move last = MOVE_NONE;
    PassClock clock = pass_clock(pos, w->ply);
    Color us = clock.side;
    while (w->ply - first_ply < count && w->next < w->ncodes) {
        Move m = w->move;
        if (move_kind(m) == MK_NORMAL) {
            if (!normal_code_fits(pos, us, move_from(m), move_to(m))) {
                w->bad = true;
                break;
            }
            if (pos_make_normal_move_uncounted(pos, m, us)) clock.reset = w->ply + 1;
            us = other_color(us);
        } else {
            pass_clock_set(&clock, w->ply, pos);
            if (!code_move_fits(pos, m)) {
                w->bad = true;
                break;
            }
            pos_make_move(pos, m);
            clock = pass_clock(pos, w->ply + 1);
            us = clock.side;
        }
        last = m;
        w->ply++;
        w->next++;
        codes_prefetch(w->codes, w->next);
        uint16_t c = w->next < w->ncodes ? code_at(w->codes, w->next) : 0;
        if (w->next < w->ncodes && c >> 12 == MOVECODE_NORMAL) {
            w->move = (Move)c;   /* the usual move (ready_next_move) */
        } else if (!ready_next_move(w)) {
            w->bad = true;
            break;
        }
    }
    pass_clock_set(&clock, w->ply, pos);
    long made = w->ply - first_ply;
    if (made) {
        here->move = last;
        here->parent = &w->nodes->before;
        here->check_state = 0;
        here->id = here->ply = w->ply;
        w->nodes->after.move = w->move;
    }
    return made;
}

/* }==== */
