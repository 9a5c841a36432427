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
 * `stalemate` find them (eval.c). Once the game has a check, only the
 * positions without a move after them are asked: mate and stalemate are
 * found there alone. */
static uint32_t position_flags(const GameNode *n, uint32_t known)
{
    if ((known & SUMMARY_CHECK) && game_node_plays_a_move(n)) return 0;
    NodeCheck state = game_node_check(n);
    if (state == NODE_MATED) return SUMMARY_CHECK | (n->child ? 0 : SUMMARY_MATE);
    if (state == NODE_IN_CHECK) return SUMMARY_CHECK;
    if (!game_node_plays_a_move(n) && !mg_has_legal_move(&n->pos)) return SUMMARY_STALEMATE;
    return 0;
}

/* The count of piece p at a position, into the summary's range. */
static void note_count(GameSummary *s, Piece p, int count)
{
    if (count > SUMMARY_MANY) count = SUMMARY_MANY;
    if (count < 0) count = 0;
    if (count < s->min_count[p]) s->min_count[p] = (uint8_t)count;
    if (count > s->max_count[p]) s->max_count[p] = (uint8_t)count;
}

/* Each piece's count in pos, into counts[] and the summary's range. */
static void count_pieces(const Position *pos, int counts[PIECE_NB], GameSummary *s)
{
    for (int i = 0; i < 12; i++) {
        Piece p = summary_pieces[i];
        counts[p] = bb_popcount(pos_pieces(pos, color_of(p), type_of(p)));
        note_count(s, p, counts[p]);
    }
}

/* The counts after the move into n, from those before it: a piece taken,
 * a pawn promoted. */
static void count_move(const GameNode *n, int counts[PIECE_NB], GameSummary *s)
{
    const Position *before = &n->parent->pos;
    Move m = n->move;
    Color us = (Color)before->side;
    MoveKind kind = move_kind(m);
    if (kind == MK_NULL || kind == MK_CASTLE_SHORT || kind == MK_CASTLE_LONG) return;
    Piece taken = kind == MK_EN_PASSANT ? make_piece(other_color(us), PAWN) : pos_piece_on(before, move_to(m));
    if (taken != NO_PIECE) note_count(s, taken, --counts[taken]);
    if (kind == MK_PROMOTION) {
        Piece pawn = make_piece(us, PAWN), promoted = make_piece(us, move_promo(m));
        note_count(s, pawn, --counts[pawn]);
        note_count(s, promoted, ++counts[promoted]);
    }
}

/* The squares the move into n brings a piece to: the mover's (or the
 * promoted piece's) destination, and the rook's when castling. With the
 * start position's squares, every square a piece ever stands on. */
static void add_arrivals(const GameNode *n, GameSummary *s)
{
    const Position *before = &n->parent->pos;
    Move m = n->move;
    Square from = move_from(m), to = move_to(m);
    switch (move_kind(m)) {
    case MK_NULL:
        return;
    case MK_CASTLE_SHORT:
    case MK_CASTLE_LONG: {
        Color us = (Color)before->side;
        int rank = rank_of(from);
        s->squares[make_piece(us, KING)] |= sq_bb(to);
        s->squares[make_piece(us, ROOK)] |= sq_bb(make_square(move_kind(m) == MK_CASTLE_SHORT ? 5 : 3, rank));
        return;
    }
    case MK_PROMOTION:
        s->squares[make_piece((Color)before->side, move_promo(m))] |= sq_bb(to);
        return;
    case MK_NORMAL:
    case MK_EN_PASSANT:
        break;
    }
    s->squares[pos_piece_on(before, from)] |= sq_bb(to);
}

SummaryResult summary_result_of(const char *result)
{
    static const char *const texts[] = {"1-0", "0-1", "1/2-1/2", "*"};
    if (!result) return RESULT_NONE;
    for (int i = 0; i < 4; i++)
        if (strcmp(result, texts[i]) == 0) return (SummaryResult)(RESULT_WHITE_WINS + i);
    return RESULT_OTHER;
}

void summary_of_game(const Game *g, GameSummary *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < 12; i++) {
        Piece p = summary_pieces[i];
        s->min_count[p] = SUMMARY_MANY;
        s->squares[p] = pos_pieces(&g->root->pos, color_of(p), type_of(p));
    }
    /* the counts of the node walked last, followed move by move along a
     * line and counted again where a variation goes back */
    int counts[PIECE_NB] = {0};
    const GameNode *last = NULL;
    for (const GameNode *n = g->root; n; last = n, n = game_walk_next(NULL, n, true)) {
        s->flags |= position_flags(n, s->flags);
        if (n->sibling) s->flags |= SUMMARY_VARIATIONS;
        if (!n->parent || n->parent != last) {
            count_pieces(&n->pos, counts, s);
            if (!n->parent) continue;
        } else {
            count_move(n, counts, s);
        }
        s->flags |= move_flags(n);
        add_arrivals(n, s);
    }
    s->flags |= (uint32_t)summary_result_of(game_result(g)) << SUMMARY_RESULT_SHIFT;
}

/* The ranks (bit r: rank r + 1) on which b has a square: each byte's bits
 * folded into its lowest, then those eight bits gathered by a multiply. */
static unsigned ranks_of(Bitboard b)
{
    b |= b >> 4;
    b |= b >> 2;
    b |= b >> 1;
    b &= UINT64_C(0x0101010101010101);
    return (unsigned)((b * UINT64_C(0x0102040810204080)) >> 56);
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
        sb_putc(out, (char)(unsigned char)ranks_of(b));
        for (Bitboard rest = ranks_of(b); rest; rest &= rest - 1)
            sb_putc(out, (char)(unsigned char)(b >> (8 * bb_lsb(rest))));
    }
}

void summary_read(ByteCursor *c, GameSummary *s)
{
    memset(s, 0, sizeof *s);
    uint64_t flags = bytes_get_varint(c);
    if (flags > UINT32_MAX) c->bad = true;
    s->flags = (uint32_t)flags;
    const unsigned char *p = bytes_get(c, 14);   /* the counts and the mask */
    if (!p) return;
    for (int i = 0; i < 12; i++) {
        Piece piece = summary_pieces[i];
        s->min_count[piece] = p[i] >> 4;
        s->max_count[piece] = p[i] & 15;
    }
    unsigned present = p[12] | (unsigned)p[13] << 8;
    const unsigned char *at = c->at, *end = c->end;
    for (int i = 0; i < 12; i++) {
        if (!(present & (1u << i))) continue;
        if (at == end) break;
        unsigned ranks = *at++;
        Bitboard b = 0;
        for (; ranks && at < end; ranks &= ranks - 1) b |= (Bitboard)*at++ << (8 * __builtin_ctz(ranks));
        if (ranks) break;
        s->squares[summary_pieces[i]] = b;
        present &= ~(1u << i);
    }
    c->at = at;
    if (present) c->bad = true;   /* the bytes ran out, or a piece that is none */
}
