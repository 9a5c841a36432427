/*
 * src/chess/movegen.h — pseudo-legal and legal move generation, mate tests, perft.
 *
 * Pseudo-legal moves obey piece movement but may leave the mover's king in
 * check; castling is generated only when the squares are empty and the king
 * does not start in, pass through or land in check. Legal moves are the
 * pseudo-legal moves that do not leave the mover's king in check.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_MOVEGEN_H
#define CQL_MOVEGEN_H

#include <stdint.h>

#include "chess/attacks.h"
#include "chess/position.h"

#define MOVELIST_MAX 512

typedef struct MoveList {
    int count;
    Move moves[MOVELIST_MAX];
} MoveList;

void mg_pseudo_legal(const Position *pos, MoveList *list);
void mg_legal(const Position *pos, MoveList *list);

/* True when the pseudo-legal move m does not leave the mover's king in check. */
bool mg_is_legal(const Position *pos, Move m);

/* Some piece of `enemy` attacks square s of the side `us` once the board is
 * occupied by occ (the caller takes captured pieces out of enemy and moves
 * the mover in occ). Cheaper than pos_attackers_to: sliders are first
 * narrowed to those on a line with s at all (their empty-board attacks;
 * usually none or one), and each of those is tested with the `between`
 * table instead of two slider lookups (att_sliders_reaching's test, here
 * stopping at the first: the SAN resolver's hot path, where the
 * profile-guided build ran 2% slower with the shared helper). */
static inline bool mg_attacked_after(const Position *pos, Color us, Square s, Bitboard occ,
                                     Bitboard enemy)
{
    if (((att_knight(s) & pos->by_type[KNIGHT]) | (att_pawn(us, s) & pos->by_type[PAWN])
         | (att_king(s) & pos->by_type[KING])) & enemy)
        return true;
    Bitboard queens = pos->by_type[QUEEN];
    Bitboard snipers = ((att_bishop_empty(s) & (pos->by_type[BISHOP] | queens))
                        | (att_rook_empty(s) & (pos->by_type[ROOK] | queens))) & enemy;
    while (snipers)
        if (!(att_between(s, bb_pop_lsb(&snipers)) & occ)) return true;
    return false;
}

/* mg_is_legal for a pseudo-legal normal move or promotion from -> to (not
 * castling, en passant or a null move), inline for the SAN resolver, which
 * tests every move of every game read. After the move the mover stands on
 * `to`, the piece on `to` (if any) is captured and attacks nothing, and the
 * own king (which may be the mover) must not be attacked. */
static inline bool mg_normal_move_is_legal(const Position *pos, Square from, Square to)
{
    /* never a capture of a king: a position read from a FEN tag may leave
     * the side not to move in check (pos_from_fen_tolerant), and the SAN
     * resolvers do not rule that move out before asking */
    if (pos->by_type[KING] & sq_bb(to)) return false;
    Color us = (Color)pos->side;
    Square king = pos_king(pos, us);
    Bitboard occupied = (pos_occupied(pos) ^ sq_bb(from)) | sq_bb(to);
    Bitboard enemy = pos->by_color[other_color(us)] & ~sq_bb(to);
    return !mg_attacked_after(pos, us, from == king ? to : king, occupied, enemy);
}

/* True when the side to move has at least one legal move (faster than
 * mg_legal: out of check, a move is nearly always found by trying a few). */
bool mg_has_legal_move(const Position *pos);
/* The same for a position known to be in check, where those few tries
 * seldom find one: the king's steps, then the moves onto the checker or
 * between it and the king, each tried alone (the generator with a double
 * check, an en-passant square, or out of check: right there too). */
bool mg_has_legal_move_in_check(const Position *pos);
bool mg_is_mate(const Position *pos);
bool mg_is_stalemate(const Position *pos);

/* The castling move of the side to move on `wing` (CASTLE_SHORT or
 * CASTLE_LONG) when it is legal now, otherwise MOVE_NONE. */
Move mg_castle_move(const Position *pos, int wing);
/* The castling move of the side to move on `wing` when it can be made
 * (pos_make_move) without breaking the position: the right remains and
 * every square the king and rook cross or land on is empty; whether the
 * king passes through check is not asked. MOVE_NONE otherwise. */
Move mg_castle_move_made(const Position *pos, int wing);

/* Number of leaf nodes of the legal move tree of the given depth. */
uint64_t mg_perft(const Position *pos, int depth);

#endif
