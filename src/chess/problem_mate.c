/*
 * src/chess/problem_mate.c — pure, model and ideal mates and stalemates
 * (see problem_mate.h). The clauses follow shared/spec/cql62-remaining.md
 * §11.1-11.3 one by one; the names below are the spec's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "chess/problem_mate.h"

#include "chess/attacks.h"
#include "chess/board_query.h"
#include "chess/movegen.h"

/* The next square from s in direction d, or -1 off the board. */
static int step(int s, Direction d)
{
    int f = file_of((Square)s) + dir_file_step[d], r = rank_of((Square)s) + dir_rank_step[d];
    return f < 0 || f > 7 || r < 0 || r > 7 ? -1 : make_square(f, r);
}

static bool is_diagonal(Direction d)
{
    return dir_file_step[d] != 0 && dir_rank_step[d] != 0;
}

/* Whether a slider of type t moves in direction d. */
static bool slides(PieceType t, Direction d)
{
    return t == QUEEN || (t == ROOK && !is_diagonal(d)) || (t == BISHOP && is_diagonal(d));
}

static bool is_slider(PieceType t)
{
    return t == QUEEN || t == ROOK || t == BISHOP;
}

/* Everything the clauses need about one position. */
typedef struct Facts {
    const Position *pos;
    Color d, x;                 /* defender (to move), attacker */
    Square k, K;                /* their kings */
    Bitboard field;             /* F: the squares next to k */
    Bitboard checkers;          /* C */
    Bitboard pinned;            /* pieces of either colour pinned against their own king */
    Bitboard pinners;           /* the sliders that pin them */
    Bitboard pinner_of[SQ_NB];  /* for a pinned piece: its pinner(s) */
    MoveList moves;             /* D's pseudolegal moves */
} Facts;

/* Finds every pin: a slider, along a line of its type, then empty squares,
 * an enemy piece, empty squares, and that piece's own king. */
static void find_pins(Facts *f)
{
    const Position *pos = f->pos;
    Bitboard sliders = pos->by_type[BISHOP] | pos->by_type[ROOK] | pos->by_type[QUEEN];
    while (sliders) {
        Square s = bb_pop_lsb(&sliders);
        Piece p = pos_piece_on(pos, s);
        for (int d = 0; d < DIR_NB; d++) {
            if (!slides(type_of(p), (Direction)d)) continue;
            int at = step(s, (Direction)d);
            while (at >= 0 && pos_piece_on(pos, (Square)at) == NO_PIECE) at = step(at, (Direction)d);
            if (at < 0) continue;
            Piece victim = pos_piece_on(pos, (Square)at);
            if (color_of(victim) == color_of(p)) continue;
            int beyond = step(at, (Direction)d);
            while (beyond >= 0 && pos_piece_on(pos, (Square)beyond) == NO_PIECE) beyond = step(beyond, (Direction)d);
            if (beyond < 0 || pos_piece_on(pos, (Square)beyond) != make_piece(color_of(victim), KING)) continue;
            f->pinned |= sq_bb((Square)at);
            f->pinners |= sq_bb(s);
            f->pinner_of[at] |= sq_bb(s);
        }
    }
}

static void facts_init(Facts *f, const Position *pos)
{
    *f = (Facts){.pos = pos};
    f->d = (Color)pos->side;
    f->x = other_color(f->d);
    f->k = pos_king(pos, f->d);
    f->K = pos_king(pos, f->x);
    f->field = att_king(f->k);
    Bitboard xs = pos->by_color[f->x];
    while (xs) {
        Square s = bb_pop_lsb(&xs);
        if (bq_attacks_of(pos, s) & sq_bb(f->k)) f->checkers |= sq_bb(s);
    }
    find_pins(f);
    mg_pseudo_legal(pos, &f->moves);
}

/* between(A, b): the squares strictly between some a of A and b. */
static Bitboard between_set(Bitboard a, Square b)
{
    Bitboard out = 0;
    while (a) out |= att_between(bb_pop_lsb(&a), b);
    return out;
}

/* Guard(y) for the X piece on y: the flights it attacks, and the square
 * behind the king when it is a slider checking along a line of its type. */
static Bitboard guard_of(const Facts *f, Square y)
{
    Bitboard attacked = bq_attacks_of(f->pos, y);
    Bitboard g = attacked & f->field;
    PieceType t = type_of(pos_piece_on(f->pos, y));
    if (is_slider(t) && (attacked & sq_bb(f->k))) {
        for (int d = 0; d < DIR_NB; d++) {
            if (!slides(t, (Direction)d) || !(att_ray(y, (Direction)d) & sq_bb(f->k))) continue;
            int behind = step(f->k, (Direction)d);
            if (behind >= 0) g |= sq_bb((Square)behind);
        }
    }
    return g;
}

static int guarders(const Facts *f, Square s)
{
    int n = 0;
    Bitboard xs = f->pos->by_color[f->x];
    while (xs)
        if (guard_of(f, bb_pop_lsb(&xs)) & sq_bb(s)) n++;
    return n;
}

/* The number of X pieces attacking s (plain attacks). */
static int attackers(const Facts *f, Square s)
{
    int n = 0;
    Bitboard xs = f->pos->by_color[f->x];
    while (xs)
        if (bq_attacks_of(f->pos, bb_pop_lsb(&xs)) & sq_bb(s)) n++;
    return n;
}

/* D's pieces with a pseudolegal move to a square of `to` (castling aside);
 * with `en_passant`, also those with an en-passant capture. */
static Bitboard movers_to(const Facts *f, Bitboard to, bool en_passant)
{
    Bitboard out = 0;
    for (int i = 0; i < f->moves.count; i++) {
        Move m = f->moves.moves[i];
        if (move_is_castle(m)) continue;
        if ((sq_bb(move_to(m)) & to) || (en_passant && move_kind(m) == MK_EN_PASSANT)) out |= sq_bb(move_from(m));
    }
    return out;
}

/* A slider ray r -> x -> T: a slider on a square of R, along a line of its
 * type, empty squares, then x, then empty squares up to a square of T. */
static bool slider_ray(const Facts *f, Bitboard r, Square x, Bitboard t)
{
    const Position *pos = f->pos;
    while (r) {
        Square s = bb_pop_lsb(&r);
        PieceType type = type_of(pos_piece_on(pos, s));
        if (!is_slider(type)) continue;
        for (int d = 0; d < DIR_NB; d++) {
            if (!slides(type, (Direction)d) || !(att_ray(s, (Direction)d) & sq_bb(x))) continue;
            if (att_between(s, x) & pos_occupied(pos)) continue;
            for (int at = step(x, (Direction)d); at >= 0; at = step(at, (Direction)d)) {
                if (sq_bb((Square)at) & t) return true;
                if (pos_piece_on(pos, (Square)at) != NO_PIECE) break;
            }
        }
    }
    return false;
}

/* §11.2, clauses 2-4 (clause 1, the mate itself, is checked by the caller). */
static bool pure_mate(const Facts *f)
{
    const Position *pos = f->pos;
    int nchecks = bb_popcount(f->checkers);
    Bitboard parry = f->checkers | between_set(f->checkers, f->k);
    Bitboard field = f->field;
    while (field) {
        Square s = bb_pop_lsb(&field);
        Piece p = pos_piece_on(pos, s);
        int g = guarders(f, s);
        if (p == NO_PIECE || color_of(p) == f->x) {
            if (g != 1) return false;
            continue;
        }
        /* a self-block */
        if (g == 0) continue;
        if (nchecks >= 2 || g != 1 || !(f->pinned & sq_bb(s))) return false;
        /* only its pin keeps it from parrying the check */
        if (!(movers_to(f, parry, true) & sq_bb(s))) return false;
    }
    if (nchecks >= 2) {
        Bitboard free_defenders = pos->by_color[f->d] & ~sq_bb(f->k) & ~f->pinned;
        Bitboard cs = f->checkers;
        while (cs) {
            Square c = bb_pop_lsb(&cs);
            Bitboard others = f->checkers & ~sq_bb(c);
            Bitboard r = others | between_set(others, f->k);
            if (!(bq_attacks_from(pos, free_defenders) & r)) return false;
        }
    }
    return true;
}

/* §11.2, participants: the X-participants and the D-participants. */
static void mate_participants(const Facts *f, Bitboard *xpart, Bitboard *dpart)
{
    const Position *pos = f->pos;
    bool single = bb_popcount(f->checkers) == 1;
    Bitboard ref = sq_bb(f->K) | f->checkers | between_set(f->checkers, f->k);
    Bitboard pr = movers_to(f, ref, false);
    Bitboard pinned_on_pr = f->pinned & pr;
    Bitboard pins_pr = 0;
    while (pinned_on_pr) pins_pr |= f->pinner_of[bb_pop_lsb(&pinned_on_pr)];
    *xpart = *dpart = 0;
    Bitboard xs = pos->by_color[f->x];
    while (xs) {
        Square y = bb_pop_lsb(&xs);
        Bitboard b = sq_bb(y);
        if ((f->checkers & b) || (bq_attacks_of(pos, y) & f->field) || (f->pinned & b) ||
            (single && (pins_pr & b)) || (single && slider_ray(f, pr, y, ref)))
            *xpart |= b;
    }
    Bitboard ds = pos->by_color[f->d];
    while (ds) {
        Square x = bb_pop_lsb(&ds);
        Bitboard b = sq_bb(x);
        if (x == f->k || (f->field & b) || slider_ray(f, pos->by_color[f->d], x, sq_bb(f->K)) ||
            (single && slider_ray(f, pos->by_color[f->d], x, ref)))
            *dpart |= b;
    }
}

static Bitboard officers(const Position *pos, Color c)
{
    return pos->by_color[c] & (pos->by_type[KNIGHT] | pos->by_type[BISHOP] | pos->by_type[ROOK] | pos->by_type[QUEEN]);
}

/* §11.3: every flight attacked once, a pinned self-block once, a free one never. */
static bool pure_stalemate(const Facts *f)
{
    Bitboard field = f->field;
    while (field) {
        Square s = bb_pop_lsb(&field);
        Piece p = pos_piece_on(f->pos, s);
        int a = attackers(f, s);
        if (p == NO_PIECE || color_of(p) == f->x) {
            if (a != 1) return false;
        } else if (f->pinned & sq_bb(s)) {
            if (a != 1) return false;
        } else if (a != 0) {
            return false;
        }
    }
    return true;
}

bool pm_classify(const Position *pos, ProblemMate kind, Bitboard *participants)
{
    *participants = 0;
    if (!pos_pieces(pos, WHITE, KING) || !pos_pieces(pos, BLACK, KING)) return false;
    bool mate = kind <= PM_IDEAL_MATE;
    if (mate ? !mg_is_mate(pos) : !mg_is_stalemate(pos)) return false;
    Facts f;
    facts_init(&f, pos);
    Bitboard xs = pos->by_color[f.x], ds = pos->by_color[f.d];
    if (mate) {
        if (!pure_mate(&f)) return false;
        Bitboard xpart, dpart;
        mate_participants(&f, &xpart, &dpart);
        if (kind == PM_MODEL_MATE && (officers(pos, f.x) & ~xpart)) return false;
        if (kind == PM_IDEAL_MATE && ((xs & ~xpart) || (ds & ~dpart))) return false;
        *participants = xpart | dpart;
        return true;
    }
    if (!pure_stalemate(&f)) return false;
    Bitboard sx = 0;
    Bitboard all = xs;
    while (all) {
        Square y = bb_pop_lsb(&all);
        Bitboard b = sq_bb(y);
        if ((f.pinned & b) || (f.pinners & b) || (bq_attacks_of(pos, y) & f.field)) sx |= b;
    }
    if (kind == PM_MODEL_STALEMATE && (officers(pos, f.x) & ~sx)) return false;
    if (kind == PM_IDEAL_STALEMATE && (xs & ~sx)) return false;
    *participants = sx | ds;
    return true;
}
