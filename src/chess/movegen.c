/*
 * src/chess/movegen.c — pseudo-legal and legal move generation, mate tests, perft.
 *
 * One generator serves both kinds. For legal moves it first finds the
 * checkers and the pinned pieces of the side to move, then emits only moves
 * that keep the king safe: a pinned piece stays on its pin line, a single
 * check must be captured or blocked, a double check leaves king moves only,
 * the king never steps onto an attacked square, and en passant (which can
 * uncover a rank attack by removing two pieces at once) is tested on the
 * resulting occupancy. Castling is in both kinds, fully checked.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "chess/movegen.h"

#include "chess/attacks.h"

typedef struct GenContext {
    const Position *pos;
    MoveList *list;
    Color us, them;
    Square king;
    Bitboard occupied, own, enemy;
    Bitboard target;      /* where non-king pieces may go (block or capture in check) */
    Bitboard pinned;      /* own pieces pinned to the king (legal mode only) */
    bool legal;
} GenContext;

static void push_move(MoveList *list, Move m)
{
    assert(list->count < MOVELIST_MAX);
    list->moves[list->count++] = m;
}

/* Own pieces that are the only blocker between the king and an enemy slider. */
static Bitboard pinned_pieces(const Position *pos, Color us, Square king)
{
    Color them = other_color(us);
    Bitboard occupied = pos_occupied(pos);
    Bitboard snipers = ((att_rook(king, 0) & (pos->by_type[ROOK] | pos->by_type[QUEEN]))
                        | (att_bishop(king, 0) & (pos->by_type[BISHOP] | pos->by_type[QUEEN])))
                     & pos->by_color[them];
    Bitboard pinned = 0;
    while (snipers) {
        Bitboard blockers = att_between(king, bb_pop_lsb(&snipers)) & occupied;
        if (blockers && !bb_more_than_one(blockers)) pinned |= blockers;
    }
    return pinned & pos->by_color[us];
}

/* A pinned piece may only move along the line through its king. */
static bool keeps_pin(const GenContext *g, Square from, Square to)
{
    return !(g->pinned & sq_bb(from)) || (att_line(g->king, from) & sq_bb(to));
}

/* The side to move's king would be safe after the pawn capture en passant
 * from -> to (removing the captured pawn too). */
static bool ep_capture_is_safe(const Position *pos, Square from, Square to)
{
    Color us = (Color)pos->side;
    Square captured = make_square(file_of(to), rank_of(from));
    Bitboard occupied = (pos_occupied(pos) ^ sq_bb(from) ^ sq_bb(captured)) | sq_bb(to);
    Bitboard enemy = pos->by_color[other_color(us)] & ~sq_bb(captured);
    return !(pos_attackers_to(pos, pos_king(pos, us), occupied) & enemy);
}

/* ====================================================================
 * Castling
 * ==================================================================== */

Move mg_castle_move_made(const Position *pos, int wing)
{
    Color us = (Color)pos->side;
    Square rook_from = pos->castle_rook[us][wing];
    if (rook_from == SQ_NONE) return MOVE_NONE;
    Square king_from = pos_king(pos, us);
    int back_rank = rank_of(king_from);
    Square king_to = make_square(wing == CASTLE_SHORT ? 6 : 2, back_rank);
    Square rook_to = make_square(wing == CASTLE_SHORT ? 5 : 3, back_rank);

    /* Every square either piece crosses or lands on is empty, apart from
     * the castling king and rook themselves. */
    Bitboard movers = sq_bb(king_from) | sq_bb(rook_from);
    Bitboard path = att_between(king_from, king_to) | sq_bb(king_to)
                  | att_between(rook_from, rook_to) | sq_bb(rook_to);
    if (pos_occupied(pos) & path & ~movers) return MOVE_NONE;
    return move_make(king_from, king_to, NO_PIECE_TYPE,
                     wing == CASTLE_SHORT ? MK_CASTLE_SHORT : MK_CASTLE_LONG);
}

Move mg_castle_move(const Position *pos, int wing)
{
    Move m = mg_castle_move_made(pos, wing);
    if (m == MOVE_NONE) return MOVE_NONE;
    /* The king is not in check on any square from its start to its
     * destination. The castling rook is lifted first: in Chess960 it can
     * shield the king's destination along the back rank. */
    Color us = (Color)pos->side;
    Square king_from = move_from(m), king_to = move_to(m);
    Bitboard occupied = pos_occupied(pos) ^ sq_bb(king_from) ^ sq_bb(pos->castle_rook[us][wing]);
    Bitboard king_path = att_between(king_from, king_to) | sq_bb(king_from) | sq_bb(king_to);
    Bitboard enemy = pos->by_color[other_color(us)];
    while (king_path)
        if (mg_attacked_after(pos, us, bb_pop_lsb(&king_path), occupied, enemy)) return MOVE_NONE;
    return m;
}

/* ====================================================================
 * Generation by piece
 * ==================================================================== */

static Bitboard shift_forward(Bitboard b, Color c, int squares)
{
    return c == WHITE ? b << squares : b >> squares;
}

static void push_pawn_moves(GenContext *g, Bitboard targets, int from_offset, MoveKind kind)
{
    while (targets) {
        Square to = bb_pop_lsb(&targets);
        Square from = to - from_offset;
        if (g->legal && !keeps_pin(g, from, to)) continue;
        if (kind == MK_PROMOTION) {
            push_move(g->list, move_make(from, to, QUEEN, MK_PROMOTION));
            push_move(g->list, move_make(from, to, ROOK, MK_PROMOTION));
            push_move(g->list, move_make(from, to, BISHOP, MK_PROMOTION));
            push_move(g->list, move_make(from, to, KNIGHT, MK_PROMOTION));
        } else {
            push_move(g->list, move_make(from, to, NO_PIECE_TYPE, kind));
        }
    }
}

static void gen_pawn_moves(GenContext *g)
{
    const Position *pos = g->pos;
    Color us = g->us;
    int forward = us == WHITE ? 8 : -8;
    Bitboard last_rank = us == WHITE ? RANK_8_BB : RANK_1_BB;
    Bitboard double_push_rank = us == WHITE ? rank_bb(3) : rank_bb(4);
    Bitboard pawns = pos_pieces(pos, us, PAWN);
    Bitboard empty = ~g->occupied;

    Bitboard single = shift_forward(pawns, us, 8) & empty;
    Bitboard twice = shift_forward(single, us, 8) & empty & double_push_rank & g->target;
    single &= g->target;
    push_pawn_moves(g, single & ~last_rank, forward, MK_NORMAL);
    push_pawn_moves(g, single & last_rank, forward, MK_PROMOTION);
    push_pawn_moves(g, twice, 2 * forward, MK_NORMAL);

    /* Captures toward the a-file, then toward the h-file. */
    Bitboard victims = g->enemy & g->target;
    Bitboard toward_a = (shift_forward(pawns & ~FILE_A_BB, us, 8) >> 1) & victims;
    Bitboard toward_h = (shift_forward(pawns & ~FILE_H_BB, us, 8) << 1) & victims;
    push_pawn_moves(g, toward_a & ~last_rank, forward - 1, MK_NORMAL);
    push_pawn_moves(g, toward_a & last_rank, forward - 1, MK_PROMOTION);
    push_pawn_moves(g, toward_h & ~last_rank, forward + 1, MK_NORMAL);
    push_pawn_moves(g, toward_h & last_rank, forward + 1, MK_PROMOTION);

    if (pos->ep != SQ_NONE) {
        Bitboard capturers = att_pawn(g->them, pos->ep) & pawns;
        while (capturers) {
            Square from = bb_pop_lsb(&capturers);
            if (!g->legal || ep_capture_is_safe(pos, from, pos->ep))
                push_move(g->list, move_make(from, pos->ep, NO_PIECE_TYPE, MK_EN_PASSANT));
        }
    }
}

static void push_piece_moves(GenContext *g, Square from, Bitboard targets)
{
    if (g->pinned & sq_bb(from)) targets &= att_line(g->king, from);
    while (targets) push_move(g->list, move_make(from, bb_pop_lsb(&targets), NO_PIECE_TYPE, MK_NORMAL));
}

/* Knights, bishops, rooks and queens (a queen moves as both sliders). */
static void gen_piece_moves(GenContext *g)
{
    const Position *pos = g->pos;
    Bitboard own = g->own, pieces;
    /* A pinned knight can never move. */
    for (pieces = pos->by_type[KNIGHT] & own & ~g->pinned; pieces; ) {
        Square from = bb_pop_lsb(&pieces);
        push_piece_moves(g, from, att_knight(from) & g->target);
    }
    for (pieces = (pos->by_type[BISHOP] | pos->by_type[QUEEN]) & own; pieces; ) {
        Square from = bb_pop_lsb(&pieces);
        push_piece_moves(g, from, att_bishop(from, g->occupied) & g->target);
    }
    for (pieces = (pos->by_type[ROOK] | pos->by_type[QUEEN]) & own; pieces; ) {
        Square from = bb_pop_lsb(&pieces);
        push_piece_moves(g, from, att_rook(from, g->occupied) & g->target);
    }
}

static void gen_king_moves(GenContext *g)
{
    Bitboard targets = att_king(g->king) & ~g->own & ~pos_pieces(g->pos, g->them, KING);
    Bitboard without_king = g->occupied ^ sq_bb(g->king);
    while (targets) {
        Square to = bb_pop_lsb(&targets);
        if (g->legal && (pos_attackers_to(g->pos, to, without_king) & g->enemy)) continue;
        push_move(g->list, move_make(g->king, to, NO_PIECE_TYPE, MK_NORMAL));
    }
}

/* Fills list; with stop_early, returns as soon as one move is found. */
static void generate(const Position *pos, MoveList *list, bool legal, bool stop_early)
{
    GenContext g;
    g.pos = pos;
    g.list = list;
    g.us = (Color)pos->side;
    g.them = other_color(g.us);
    g.king = pos_king(pos, g.us);
    g.occupied = pos_occupied(pos);
    g.own = pos->by_color[g.us];
    g.enemy = pos->by_color[g.them];
    /* never a capture of the king: only a position read from a FEN tag with
     * the side not to move in check offers one (pos_from_fen_tolerant) */
    g.target = ~g.own & ~pos_pieces(pos, g.them, KING);
    g.pinned = 0;
    g.legal = legal;
    list->count = 0;

    Bitboard checkers = 0;
    if (legal) {
        checkers = pos_checkers(pos);
        g.pinned = pinned_pieces(pos, g.us, g.king);
        if (checkers) {
            Square checker = bb_lsb(checkers);
            g.target = att_between(g.king, checker) | checkers;
        }
    }
    gen_king_moves(&g);
    if (bb_more_than_one(checkers) || (stop_early && list->count)) return;
    gen_piece_moves(&g);
    if (stop_early && list->count) return;
    gen_pawn_moves(&g);
    if (checkers || (stop_early && list->count)) return;
    for (int wing = CASTLE_SHORT; wing <= CASTLE_LONG; wing++) {
        Move m = mg_castle_move(pos, wing);
        if (m != MOVE_NONE) push_move(list, m);
    }
}

/* ====================================================================
 * Public interface
 * ==================================================================== */

void mg_pseudo_legal(const Position *pos, MoveList *list)
{
    generate(pos, list, false, false);
}

void mg_legal(const Position *pos, MoveList *list)
{
    generate(pos, list, true, false);
}

/* Castling, en passant and null moves. */
static bool special_is_legal(const Position *pos, Move m)
{
    switch (move_kind(m)) {
    case MK_NULL:
        return !pos_in_check(pos);
    case MK_CASTLE_SHORT:
        return mg_castle_move(pos, CASTLE_SHORT) == m;
    case MK_CASTLE_LONG:
        return mg_castle_move(pos, CASTLE_LONG) == m;
    default:
        assert(move_kind(m) == MK_EN_PASSANT);
        return ep_capture_is_safe(pos, move_from(m), move_to(m));
    }
}

bool mg_is_legal(const Position *pos, Move m)
{
    if (move_kind(m) != MK_NORMAL && move_kind(m) != MK_PROMOTION) return special_is_legal(pos, m);
    return mg_normal_move_is_legal(pos, move_from(m), move_to(m));
}

/* The first legal move of `from` among `targets` (its pseudo-legal
 * destinations), tested alone: out of check, a piece that is not pinned
 * has every such move legal, and a pinned knight none. */
static inline bool first_is_legal(const Position *pos, Square from, Bitboard targets)
{
    return targets && mg_normal_move_is_legal(pos, from, bb_lsb(targets));
}

/* A legal move found the quick way, where one nearly always is out of
 * check: a pawn's push, a knight's, the king's or a slider's move, each
 * tried by mg_normal_move_is_legal (no attack map, no pin list). False
 * means only that none was found this way. */
static bool finds_legal_move_quickly(const Position *pos)
{
    Color us = (Color)pos->side;
    Bitboard own = pos->by_color[us], occupied = pos_occupied(pos);
    Bitboard target = ~own & ~pos_pieces(pos, other_color(us), KING);
    Bitboard pawns = pos->by_type[PAWN] & own;
    /* pawns with an empty square ahead (a pawn never stands on its last rank) */
    Bitboard pushers = pawns & (us == WHITE ? ~occupied >> 8 : ~occupied << 8);
    while (pushers) {
        Square from = bb_pop_lsb(&pushers);
        if (mg_normal_move_is_legal(pos, from, us == WHITE ? from + 8 : from - 8)) return true;
    }
    for (Bitboard knights = pos->by_type[KNIGHT] & own; knights;) {
        Square from = bb_pop_lsb(&knights);
        if (first_is_legal(pos, from, att_knight(from) & target)) return true;
    }
    Square king = pos_king(pos, us);
    for (Bitboard steps = att_king(king) & target; steps;)
        if (mg_normal_move_is_legal(pos, king, bb_pop_lsb(&steps))) return true;
    Bitboard queens = pos->by_type[QUEEN];
    for (Bitboard sliders = (pos->by_type[BISHOP] | queens) & own; sliders;) {
        Square from = bb_pop_lsb(&sliders);
        if (first_is_legal(pos, from, att_bishop(from, occupied) & target)) return true;
    }
    for (Bitboard sliders = (pos->by_type[ROOK] | queens) & own; sliders;) {
        Square from = bb_pop_lsb(&sliders);
        if (first_is_legal(pos, from, att_rook(from, occupied) & target)) return true;
    }
    return false;
}

/* Whether one of `from` (own pieces, not the king) moving to `to` is legal. */
static bool some_move_to_is_legal(const Position *pos, Bitboard from, Square to)
{
    while (from)
        if (mg_normal_move_is_legal(pos, bb_pop_lsb(&from), to)) return true;
    return false;
}

/* In check from one piece: a step of the king, else a move of another piece
 * onto the checker or between it and the king, each tested alone (no move
 * list, no pin list: a mated side, the usual case here, has few such
 * moves to try). With no checker, or an en-passant square (a capture that
 * may answer a pawn's check), the generator answers. */
bool mg_has_legal_move_in_check(const Position *pos)
{
    Color us = (Color)pos->side, them = other_color(us);
    Bitboard checkers = pos_checkers(pos);
    if (!checkers || pos->ep != SQ_NONE) {
        MoveList list;
        generate(pos, &list, true, true);
        return list.count > 0;
    }
    Square king = pos_king(pos, us);
    Bitboard own = pos->by_color[us], occupied = pos_occupied(pos);
    /* never a capture of the king (generate's target) */
    for (Bitboard steps = att_king(king) & ~own & ~pos_pieces(pos, them, KING); steps;)
        if (mg_normal_move_is_legal(pos, king, bb_pop_lsb(&steps))) return true;
    if (bb_more_than_one(checkers)) return false;
    Square checker = bb_lsb(checkers);
    Bitboard pawns = pos->by_type[PAWN] & own, queens = pos->by_type[QUEEN];
    Bitboard knights = pos->by_type[KNIGHT] & own;
    Bitboard diagonal = (pos->by_type[BISHOP] | queens) & own, straight = (pos->by_type[ROOK] | queens) & own;
    for (Bitboard targets = att_between(king, checker) | checkers; targets;) {
        Square to = bb_pop_lsb(&targets);
        Bitboard from = (att_knight(to) & knights) | (att_bishop(to, occupied) & diagonal)
                      | (att_rook(to, occupied) & straight);
        if (to == checker) {
            from |= att_pawn(them, to) & pawns;   /* own pawns that attack `to` */
        } else if (rank_of(to) != (us == WHITE ? 0 : 7)) {   /* empty: a pawn's push, one or two squares */
            Square one_back = us == WHITE ? to - 8 : to + 8;
            if (pawns & sq_bb(one_back)) from |= sq_bb(one_back);
            else if (!(occupied & sq_bb(one_back)) && rank_of(to) == (us == WHITE ? 3 : 4))
                from |= pawns & sq_bb(us == WHITE ? to - 16 : to + 16);
        }
        if (some_move_to_is_legal(pos, from, to)) return true;
    }
    return false;
}

bool mg_has_legal_move(const Position *pos)
{
    return finds_legal_move_quickly(pos) || mg_has_legal_move_in_check(pos);
}

bool mg_is_mate(const Position *pos)
{
    return pos_in_check(pos) && !mg_has_legal_move_in_check(pos);
}

bool mg_is_stalemate(const Position *pos)
{
    return !pos_in_check(pos) && !mg_has_legal_move(pos);
}

uint64_t mg_perft(const Position *pos, int depth)
{
    assert(depth >= 0);
    if (depth == 0) return 1;
    MoveList list;
    mg_legal(pos, &list);
    if (depth == 1) return (uint64_t)list.count;
    uint64_t nodes = 0;
    for (int i = 0; i < list.count; i++) {
        Position child = *pos;
        pos_make_move(&child, list.moves[i]);
        nodes += mg_perft(&child, depth - 1);
    }
    return nodes;
}
