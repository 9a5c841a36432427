/*
 * src/index/summary.c — a game's summary for ruling it out (see summary.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "index/summary.h"

#include <string.h>

#include "chess/movegen.h"

const Piece summary_pieces[12] = {W_PAWN, W_KNIGHT, W_BISHOP, W_ROOK, W_QUEEN, W_KING,
                                  B_PAWN, B_KNIGHT, B_BISHOP, B_ROOK, B_QUEEN, B_KING};

/* What the move into n does: castling, en passant, a null move, a
 * promotion, a capture. */
static uint32_t move_flags(const GameNode *n)
{
    const Position *before = &n->parent->pos;
    Move m = n->move;
    switch (move_kind(m)) {
    case MK_NULL: return SUMMARY_NULL_MOVE;
    case MK_CASTLE_SHORT: return SUMMARY_CASTLE_SHORT;
    case MK_CASTLE_LONG: return SUMMARY_CASTLE_LONG;
    case MK_EN_PASSANT: return SUMMARY_EN_PASSANT | summary_capture(PAWN);
    case MK_PROMOTION:
    case MK_NORMAL: break;
    }
    uint32_t f = move_kind(m) == MK_PROMOTION ? summary_promotion(move_promo(m)) : 0;
    Piece taken = pos_piece_on(before, move_to(m));
    if (taken != NO_PIECE) f |= summary_capture(type_of(taken));
    return f;
}

/* What a position is: check, mate, stalemate, as `check`, `mate` and
 * `stalemate` find them (eval.c). */
static uint32_t position_flags(const GameNode *n)
{
    NodeCheck state = game_node_check(n);
    if (state == NODE_MATED) return SUMMARY_CHECK | (n->child ? 0 : SUMMARY_MATE);
    if (state == NODE_IN_CHECK) return SUMMARY_CHECK;
    if (!game_node_plays_a_move(n) && !mg_has_legal_move(&n->pos)) return SUMMARY_STALEMATE;
    return 0;
}

void summary_of_game(const Game *g, GameSummary *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < 12; i++) s->min_count[summary_pieces[i]] = SUMMARY_MANY;
    for (const GameNode *n = g->root; n; n = game_walk_next(NULL, n, true)) {
        const Position *pos = &n->pos;
        for (int i = 0; i < 12; i++) {
            Piece p = summary_pieces[i];
            Bitboard b = pos_pieces(pos, color_of(p), type_of(p));
            int count = bb_popcount(b);
            if (count > SUMMARY_MANY) count = SUMMARY_MANY;
            s->squares[p] |= b;
            if (count < s->min_count[p]) s->min_count[p] = (uint8_t)count;
            if (count > s->max_count[p]) s->max_count[p] = (uint8_t)count;
        }
        s->flags |= position_flags(n);
        if (n->parent) s->flags |= move_flags(n);
        if (n->sibling) s->flags |= SUMMARY_VARIATIONS;
    }
}

/* flags (a varint); the counts, min in the high nibble; a 12-bit mask of
 * the pieces that stood anywhere (two bytes); for each of those a mask of
 * the ranks it stood on, then a byte per such rank (files a..h, bit 0 a). */
void summary_write(const GameSummary *s, StrBuf *out)
{
    bytes_put_varint(out, s->flags);
    unsigned present = 0;
    for (int i = 0; i < 12; i++) {
        Piece p = summary_pieces[i];
        sb_putc(out, (char)(unsigned char)(s->min_count[p] << 4 | s->max_count[p]));
        if (s->squares[p]) present |= 1u << i;
    }
    bytes_put_u16(out, (uint16_t)present);
    for (int i = 0; i < 12; i++) {
        Bitboard b = s->squares[summary_pieces[i]];
        if (!b) continue;
        unsigned ranks = 0;
        for (int r = 0; r < 8; r++)
            if ((b >> (8 * r)) & 0xff) ranks |= 1u << r;
        sb_putc(out, (char)(unsigned char)ranks);
        for (int r = 0; r < 8; r++)
            if (ranks & (1u << r)) sb_putc(out, (char)(unsigned char)(b >> (8 * r)));
    }
}

void summary_read(ByteCursor *c, GameSummary *s)
{
    memset(s, 0, sizeof *s);
    uint64_t flags = bytes_get_varint(c);
    if (flags > UINT32_MAX) c->bad = true;
    s->flags = (uint32_t)flags;
    const unsigned char *counts = bytes_get(c, 12);
    for (int i = 0; counts && i < 12; i++) {
        Piece p = summary_pieces[i];
        s->min_count[p] = counts[i] >> 4;
        s->max_count[p] = counts[i] & 15;
    }
    unsigned present = bytes_get_u16(c);
    for (int i = 0; i < 12; i++) {
        if (!(present & (1u << i))) continue;
        unsigned ranks = bytes_get_u8(c);
        Bitboard b = 0;
        for (int r = 0; r < 8; r++)
            if (ranks & (1u << r)) b |= (Bitboard)bytes_get_u8(c) << (8 * r);
        s->squares[summary_pieces[i]] = b;
    }
}
