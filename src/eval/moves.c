/*
 * src/eval/moves.c — the move filters: the dash and capture patterns
 * (F--G=T(target), F[x]G), legal/pseudolegal, countmoves, currentmove, the
 * 6.0 `move` filter, and the move-kind keywords castle, o-o, o-o-o,
 * enpassant, nullmove, from, to.
 *
 * Two sources of moves: the game's moves from a node (the children of the
 * node: the main continuation only, or every child with `variations`), and
 * the moves generated in its position (legal or pseudo-legal), which are
 * computed once per node and kept in the NodeCache. Sets written in a move
 * pattern are evaluated once, in the position the moves are played from.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <string.h>

#include "chess/movegen.h"
#include "eval/eval_int.h"

/* {==== where moves come from ================================================== */

const GameNode *eval_first_move(const Evaluator *ev, const GameNode *n)
{
    (void)ev;
    return n->child;
}

const GameNode *eval_next_move(const Evaluator *ev, const GameNode *child)
{
    return ev->settings.run.variations ? child->sibling : NULL;
}

/* A game set up from a FEN that grants no castling right at all: CQL 6.2
 * then lets a king and rook that stand on their home squares (and have
 * stood there since the start) castle in its generated moves. Observed on
 * pychess/mate_in_2.pgn games 48 and 70 ("R1B1K2R w - -", "R3K2R w - -"),
 * where `countmoves legal -- > 40` counts 40 + O-O and 39 + O-O + O-O-O. */
static Position with_inferred_castling(const Evaluator *ev, const GameNode *n)
{
    static const Square king_home[COLOR_NB] = {SQ_E1, SQ_E8};
    static const Square rook_home[COLOR_NB][2] = {{SQ_H1, SQ_A1}, {SQ_H8, SQ_A8}};
    Position pos = n->pos;
    const GameNode *root = ev->game->root;
    for (int c = 0; c < COLOR_NB; c++)
        for (int wing = 0; wing < 2; wing++)
            if (root->pos.castle_rook[c][wing] != SQ_NONE) return pos;
    game_fill_piece_ids(ev->game);
    for (int c = 0; c < COLOR_NB; c++) {
        Square k = king_home[c];
        if (pos_piece_on(&root->pos, k) != make_piece((Color)c, KING) || n->piece_id[k] != root->piece_id[k]) continue;
        for (int wing = 0; wing < 2; wing++) {
            Square r = rook_home[c][wing];
            if (pos_piece_on(&root->pos, r) == make_piece((Color)c, ROOK) && n->piece_id[r] == root->piece_id[r])
                pos.castle_rook[c][wing] = (uint8_t)r;
        }
    }
    return pos;
}

/* The legal (or pseudo-legal) moves of node n, generated on first use. */
static const Move *generated_moves(Evaluator *ev, const GameNode *n, bool pseudo, int *count)
{
    NodeCache *c = eval_node_cache(ev, n);
    unsigned bit = pseudo ? NC_PSEUDO_MOVES : NC_LEGAL_MOVES;
    if (!(c->known & bit)) {
        MoveList list;
        Position pos = with_inferred_castling(ev, n);
        if (pseudo) mg_pseudo_legal(&pos, &list);
        else mg_legal(&pos, &list);
        Move *copy = ARENA_ARRAY(ev->arena, Move, list.count ? list.count : 1);
        memcpy(copy, list.moves, sizeof(Move) * (size_t)list.count);
        if (pseudo) c->pseudo = copy, c->npseudo = (uint16_t)list.count;
        else c->legal = copy, c->nlegal = (uint16_t)list.count;
        c->known |= bit;
    }
    *count = pseudo ? c->npseudo : c->nlegal;
    return pseudo ? c->pseudo : c->legal;
}

bool eval_dash_finds_no_move(Evaluator *ev, const Node *dash, bool *none)
{
    if (dash->kind == ND_COUNTMOVES) dash = dash->kids[0];
    if (dash->kind != ND_DASH || dash->op != TK_DASH || (dash->flags & NF_LEGAL) == 0
        || dash->kids[0] || dash->kids[1] || dash->kids[2] || dash->kids[3])
        return false;
    /* the moves match_dash counts are there exactly when some legal move
     * is (of a pawn's promotions it skips all but the queen's) */
    NodeCache *c = eval_node_cache(ev, ev->cur);
    if (c->known & NC_LEGAL_MOVES) {
        *none = c->nlegal == 0;
    } else if (game_node_plays_a_move(ev->cur) || mg_has_legal_move(&ev->cur->pos)) {
        *none = false;   /* inferred castling only adds moves: nearly always */
    } else {
        Position pos = with_inferred_castling(ev, ev->cur);
        *none = !mg_has_legal_move(&pos);
    }
    return true;
}

/* Walks the moves a filter examines from one node: generated moves, or the
 * game's moves (with the node each one reaches). */
typedef struct MoveWalk {
    const Evaluator *ev;
    const Move *list;           /* generated moves, or NULL for game moves */
    int count, next;
    const GameNode *child;      /* the next game move's node */
    bool single;                /* only that one game move */
} MoveWalk;

static void walk_start(Evaluator *ev, MoveWalk *w, const GameNode *n, uint64_t flags)
{
    memset(w, 0, sizeof *w);
    w->ev = ev;
    if (flags & (NF_LEGAL | NF_PSEUDOLEGAL))
        w->list = generated_moves(ev, n, (flags & NF_PSEUDOLEGAL) != 0, &w->count);
    else
        w->child = eval_first_move(ev, n);
}

/* The next move, and the node it reaches (NULL for a generated move). */
static bool walk_next(MoveWalk *w, Move *m, const GameNode **after)
{
    if (w->list) {
        if (w->next >= w->count) return false;
        *m = w->list[w->next++];
        *after = NULL;
        return true;
    }
    if (!w->child) return false;
    *m = w->child->move;
    *after = w->child;
    w->child = w->single ? NULL : eval_next_move(w->ev, w->child);
    return true;
}

/* }==== */
/* {==== facts about one move =================================================== */

/* The square of the piece a move captures, or SQ_NONE. */
static Square captured_square(const Position *before, Move m)
{
    MoveKind k = move_kind(m);
    if (k == MK_EN_PASSANT) return (Square)(move_to(m) + (before->side == WHITE ? -8 : 8));
    if (k == MK_NULL || k == MK_CASTLE_SHORT || k == MK_CASTLE_LONG) return SQ_NONE;
    return pos_piece_on(before, move_to(m)) != NO_PIECE ? move_to(m) : SQ_NONE;
}

/* The move kinds each move-kind keyword names (bit k for MoveKind k). */
static const struct { NodeKind keyword; unsigned kinds; } MOVE_KIND_KEYWORDS[] = {
    {ND_CASTLE, 1u << MK_CASTLE_SHORT | 1u << MK_CASTLE_LONG},
    {ND_OO, 1u << MK_CASTLE_SHORT},
    {ND_OOO, 1u << MK_CASTLE_LONG},
    {ND_ENPASSANT, 1u << MK_EN_PASSANT},
    {ND_NULLMOVE, 1u << MK_NULL},
};

/* The kinds a keyword names, 0 when it is no move-kind keyword. */
static unsigned keyword_move_kinds(NodeKind k)
{
    for (size_t i = 0; i < sizeof MOVE_KIND_KEYWORDS / sizeof MOVE_KIND_KEYWORDS[0]; i++)
        if (MOVE_KIND_KEYWORDS[i].keyword == k) return MOVE_KIND_KEYWORDS[i].kinds;
    return 0;
}

static bool move_has_kind(Move m, NodeKind k)
{
    return (keyword_move_kinds(k) >> move_kind(m)) & 1u;
}

/* The piece types a promotion names (bit t for PieceType t), colour-blind:
 * `move promote N` and `move promote n` find the same games in CQL 6.2. */
static unsigned promotion_types(Evaluator *ev, const Node *promo)
{
    unsigned types = 0;
    if (promo->kind == ND_DESIGNATOR) {
        for (int p = W_PAWN; p <= B_KING; p++)
            if (promo->desig->pieces & (1u << p)) types |= 1u << type_of((Piece)p);
        return types;
    }
    Value v;
    if (!eval_node(ev, promo, &v) || v.type != VT_STRING) return 0;
    static const char letters[] = "PNBRQK";
    for (const char *s = v.str; *s; s++) {
        const char *at = strchr(letters, *s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s);
        if (at) types |= 1u << (PAWN + (at - letters));
    }
    return types;
}

/* }==== */
/* {==== move patterns ========================================================== */

/* What a move must do, with every set already evaluated. */
typedef struct MovePattern {
    Bitboard from, to;          /* the moving piece's squares before and after */
    Bitboard capture;           /* the captured piece's square (when must_capture) */
    bool must_capture;
    unsigned promo_types;       /* 0: any move; else the promotion must be one of these */
    uint64_t kinds;             /* NF_ENPASSANT NF_CASTLE NF_OO NF_OOO NF_NULL required */
} MovePattern;

static void pattern_any(MovePattern *p)
{
    memset(p, 0, sizeof *p);
    p->from = p->to = p->capture = ALL_SQUARES_BB;
}

static bool move_fits(const MovePattern *p, const Position *before, Move m)
{
    if (move_kind(m) == MK_NULL) {
        /* a null move is a move of the king from its square to its square
         * (CQL 6.2: `--`, `k--k` and `move from k` find it) */
        if (p->kinds & NF_NULL) return true;
        Bitboard king = pos_pieces(before, (Color)before->side, KING);
        return (p->from & king) && (p->to & king) && !p->must_capture && !p->promo_types && !p->kinds;
    }
    if ((p->kinds & NF_NULL) || !(p->from & sq_bb(move_from(m))) || !(p->to & sq_bb(move_to(m))))
        return false;
    if (p->must_capture) {
        Square c = captured_square(before, m);
        if (c == SQ_NONE || !(p->capture & sq_bb(c))) return false;
    }
    if (p->promo_types && !((p->promo_types >> move_promo(m)) & 1u)) return false;
    if ((p->kinds & NF_ENPASSANT) && move_kind(m) != MK_EN_PASSANT) return false;
    if ((p->kinds & NF_CASTLE) && !move_is_castle(m)) return false;
    if ((p->kinds & NF_OO) && move_kind(m) != MK_CASTLE_SHORT) return false;
    if ((p->kinds & NF_OOO) && move_kind(m) != MK_CASTLE_LONG) return false;
    return true;
}

/* The pattern of a dash node, its sets evaluated at the current position. */
static void dash_pattern(Evaluator *ev, const Node *dash, MovePattern *p)
{
    pattern_any(p);
    if (dash->kids[0]) eval_set(ev, dash->kids[0], &p->from);
    if (dash->kids[1]) {
        eval_set(ev, dash->kids[1], dash->op == TK_TAKE ? &p->capture : &p->to);
    }
    p->must_capture = dash->op == TK_TAKE;
    if (dash->kids[2]) p->promo_types = promotion_types(ev, dash->kids[2]);
}

/* A dash's target after move m: a lone move-kind keyword (o-o, castle ...)
 * says which move it is; anything else is evaluated at the node the move
 * reaches. */
static bool target_holds(Evaluator *ev, const Node *target, Move m, const GameNode *after, Value *out)
{
    if (target->nkids == 1 && keyword_move_kinds(target->kids[0]->kind)) {
        out->type = VT_NONE;
        return move_has_kind(m, target->kids[0]->kind);
    }
    if (!after) return false;
    const GameNode *saved = ev->cur;
    ev->cur = after;
    bool matched = eval_node(ev, target, out);
    if (out->type == VT_PIECE) {   /* a piece's square is the one after the move */
        out->set = eval_piece_square(ev, out->piece);
        out->type = VT_SET;
    }
    ev->cur = saved;
    return matched;
}

/* Matches the dash pattern against the moves from node `from` (whose
 * position the sets were evaluated in): counts the matching moves into
 * *count, collects their destination squares, and leaves the first target
 * value in *target_value. */
static bool match_dash(Evaluator *ev, const Node *dash, const GameNode *from, int64_t *count,
                       Bitboard *to_squares, Value *target_value)
{
    MovePattern p;
    dash_pattern(ev, dash, &p);
    const Node *target = dash->kids[3];
    MoveWalk w;
    walk_start(ev, &w, from, dash->flags);
    Move m;
    const GameNode *after;
    bool found = false;
    *to_squares = 0;
    bool any_move = p.from == ALL_SQUARES_BB && p.to == ALL_SQUARES_BB && !p.must_capture
                    && !p.promo_types && !p.kinds;
    if (w.list && any_move && !target) {
        /* `legal --`: every generated move, no test per move */
        for (int i = 0; i < w.count; i++) {
            Move g = w.list[i];
            if (move_promo(g) != NO_PIECE_TYPE && move_promo(g) != QUEEN) continue;   /* as below */
            *to_squares |= sq_bb(move_to(g));
            ++*count;
            found = true;
        }
        return found;
    }
    while (walk_next(&w, &m, &after)) {
        if (!move_fits(&p, &from->pos, m)) continue;
        /* Without `=T` a generated promotion is one move, whatever it
         * promotes to: CQL 6.2's `countmoves legal -- > 40` skips positions
         * of engine-games-2000 game 1005 whose 43 and 41 moves include two
         * pawns' four promotions each. */
        if (w.list && !p.promo_types && move_promo(m) != NO_PIECE_TYPE && move_promo(m) != QUEEN) continue;
        Value tv;
        if (target && !target_holds(ev, target, m, after, found ? &tv : target_value)) continue;
        found = true;
        *to_squares |= sq_bb(move_to(m));
        ++*count;
    }
    return found;
}

/* F--G, F[x]G, legal --, pseudolegal --: the value is the target's, or the
 * set of squares the matching moves go to. */
static bool eval_dash(Evaluator *ev, const Node *n, Value *out)
{
    Bitboard to_squares;
    Value target_value = {.type = VT_NONE};
    bool generated = (n->flags & (NF_LEGAL | NF_PSEUDOLEGAL)) != 0;
    int64_t count = 0;
    bool found = match_dash(ev, n, ev->cur, &count, &to_squares, &target_value);
    if (n->kids[3] && !generated) {
        *out = target_value;
        return found;
    }
    out->type = VT_SET;
    out->set = to_squares;
    return found;
}

static bool eval_countmoves(Evaluator *ev, const Node *n, Value *out)
{
    Bitboard to_squares;
    Value target_value;
    int64_t count = 0;
    match_dash(ev, n->kids[0], ev->cur, &count, &to_squares, &target_value);
    out->type = VT_NUMBER;
    out->num = count;
    return true;
}

bool eval_castling_rook(const Position *before, Move m, Square *from, Square *to)
{
    if (!move_is_castle(m)) return false;
    int wing = move_kind(m) == MK_CASTLE_SHORT ? CASTLE_SHORT : CASTLE_LONG;
    *from = before->castle_rook[before->side][wing];
    *to = make_square(wing == CASTLE_SHORT ? 5 : 3, rank_of(move_from(m)));
    return *from < SQ_NB;
}

bool eval_move_fits_pattern(Evaluator *ev, const Node *dash, const GameNode *after, unsigned castling_movers)
{
    if (!after->parent) return false;
    const GameNode *here = ev->cur;
    ev->cur = after->parent;
    MovePattern p;
    dash_pattern(ev, dash, &p);
    ev->cur = here;
    const Position *before = &after->parent->pos;
    Move m = after->move;
    if (!move_is_castle(m) || (castling_movers & CASTLING_KING))
        if (move_fits(&p, before, m)) return true;
    Square rook_from, rook_to;
    if (!(castling_movers & CASTLING_ROOK) || !eval_castling_rook(before, m, &rook_from, &rook_to)) return false;
    if (!(p.from & sq_bb(rook_from)) || !(p.to & sq_bb(rook_to))) return false;
    p.from = p.to = ALL_SQUARES_BB;   /* the rook's squares fit: the rest of the pattern still must */
    return move_fits(&p, before, m);
}

bool eval_dash_target_holds(Evaluator *ev, const Node *dash, const GameNode *after)
{
    Value ignored;
    return !dash->kids[3] || target_holds(ev, dash->kids[3], after->move, after, &ignored);
}

/* currentmove F--G: the move that led to the current position. */
static bool eval_currentmove(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    return eval_move_fits_pattern(ev, n->kids[0], ev->cur, CASTLING_KING) &&
           eval_dash_target_holds(ev, n->kids[0], ev->cur);
}

/* }==== */
/* {==== the 6.0 move filter ==================================================== */

/* move [legal|pseudolegal|previous] [from X] [to Y] [capture Z] [promote T]
 * [enpassant] [castle] [o-o] [o-o-o] [null] [primary|secondary] [count]
 * [enpassantsquare S] [comment ...]. The value is the set named by the first
 * of from/to/capture written (the squares moved from, to, or captured on),
 * or with `count` the number of matching moves. */
static bool eval_move(Evaluator *ev, const Node *n, Value *out)
{
    const GameNode *here = ev->cur;
    bool previous = (n->flags & NF_PREVIOUS) != 0;
    const GameNode *from = previous ? here->parent : here;
    if (!from) return false;
    MovePattern p;
    pattern_any(&p);
    Bitboard ep_squares = ALL_SQUARES_BB;
    ev->cur = from;
    if (n->kids[0]) eval_set(ev, n->kids[0], &p.from);
    if (n->kids[1]) eval_set(ev, n->kids[1], &p.to);
    if (n->kids[2]) {
        eval_set(ev, n->kids[2], &p.capture);
        p.must_capture = true;
    }
    if (n->kids[3]) p.promo_types = promotion_types(ev, n->kids[3]);
    if (n->kids[4]) eval_set(ev, n->kids[4], &ep_squares);
    ev->cur = here;
    p.kinds = n->flags & (NF_ENPASSANT | NF_CASTLE | NF_OO | NF_OOO | NF_NULL);
    if (n->kids[3] && !p.promo_types) return false;
    if (n->kids[4]) p.kinds |= NF_ENPASSANT;

    MoveWalk w;
    walk_start(ev, &w, from, previous ? 0 : n->flags);
    if (previous) {   /* the one move that led here */
        w.child = here;
        w.single = true;
    }
    Move m;
    const GameNode *after;
    Bitboard value = 0;
    int64_t count = 0;
    Move last_promotion = MOVE_NONE;
    while (walk_next(&w, &m, &after)) {
        if (!move_fits(&p, &from->pos, m)) continue;
        if (n->kids[4] && !(ep_squares & sq_bb(move_to(m)))) continue;
        if (after && (n->flags & (NF_PRIMARY | NF_SECONDARY))) {
            bool primary = after->parent->child == after;
            if (primary != ((n->flags & NF_PRIMARY) != 0)) continue;
        }
        /* the promotions of one pawn to one square count once (CQL 6.2:
         * `move legal count` is 3, not 6, with one promoting pawn and two
         * other moves); the generator gives them one after another */
        bool same_promotion = move_kind(m) == MK_PROMOTION && last_promotion != MOVE_NONE &&
                              move_from(m) == move_from(last_promotion) && move_to(m) == move_to(last_promotion);
        last_promotion = move_kind(m) == MK_PROMOTION ? m : MOVE_NONE;
        if (!same_promotion) count++;
        if (n->op == TK_FROM) value |= sq_bb(move_from(m));
        else if (n->op == TK_TO) value |= sq_bb(move_to(m));
        else if (n->op == TK_CAPTURE) value |= sq_bb(captured_square(&from->pos, m));
        if (n->kids[5]) {
            /* move comment: the arguments, written after the move */
            const Node *comment = n->kids[5];
            Value ignored;
            const GameNode *saved = ev->cur;
            if (after) ev->cur = after;
            eval_node(ev, comment, &ignored);
            ev->cur = saved;
        }
    }
    if (n->flags & NF_COUNT) {
        out->type = VT_NUMBER;
        out->num = count;
        return true;
    }
    if (n->op != TK_EOF) {
        out->type = VT_SET;
        out->set = value;
    }
    return count > 0;
}

/* }==== */
/* {==== move keywords ========================================================== */

/* castle, o-o, o-o-o, enpassant, nullmove: a game move of that kind is
 * played from the current position (CQL 6.2 finds the same games with
 * `castle` as with `move castle`, e.g. on kasparov-deep-blue-1997.pgn). */
static bool eval_move_kind(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    for (const GameNode *c = eval_first_move(ev, ev->cur); c; c = eval_next_move(ev, c))
        if (move_has_kind(c->move, n->kind)) return true;
    return false;
}

/* nullmove: the move that led to the current position is a null move (CQL
 * 6.2 marks the position after `--`, not the one it is played from) */
static bool eval_nullmove(Evaluator *ev, const Node *n, Value *out)
{
    (void)n;
    (void)out;
    return ev->cur->parent && move_kind(ev->cur->move) == MK_NULL;
}

/* from, to: the squares of the move that led to the current position (in a
 * dash target or a path, the move just examined). */
static bool eval_move_square(Evaluator *ev, const Node *n, Value *out)
{
    const GameNode *c = ev->cur;
    out->type = VT_SET;
    out->set = 0;
    if (!c->parent) return false;
    if (move_kind(c->move) == MK_NULL) {
        /* a null move is the king's, from its square to its square (CQL 6.2) */
        const Position *before = &c->parent->pos;
        out->set = pos_pieces(before, (Color)before->side, KING);
        return out->set != 0;
    }
    out->set = sq_bb(n->kind == ND_FROM ? move_from(c->move) : move_to(c->move));
    /* castling moves the rook too: its squares are in from and to (CQL
     * 6.2: from is [e8,h8], to [f8,g8] for black's o-o) */
    Square rook_from, rook_to;
    if (eval_castling_rook(&c->parent->pos, c->move, &rook_from, &rook_to))
        out->set |= sq_bb(n->kind == ND_FROM ? rook_from : rook_to);
    return true;
}

static const EvalEntry moves_entries[] = {
    {ND_DASH, eval_dash},
    {ND_COUNTMOVES, eval_countmoves},
    {ND_CURRENTMOVE, eval_currentmove},
    {ND_MOVE, eval_move},
    {ND_CASTLE, eval_move_kind},
    {ND_OO, eval_move_kind},
    {ND_OOO, eval_move_kind},
    {ND_ENPASSANT, eval_move_kind},
    {ND_NULLMOVE, eval_nullmove},
    {ND_FROM, eval_move_square},
    {ND_TO, eval_move_square},
    {ND_COUNT_, NULL},
};

const EvalFamily eval_moves_family = {moves_entries, NULL, NULL, NULL};

/* }==== */
