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

/* What a position is: check, mate, stalemate, as `check`, `mate` and
 * `stalemate` find them (eval.c), for a position without a move after it
 * (game_node_plays_a_move: the others have a legal move, and are asked
 * only whether they are in check). */
static uint32_t position_flags(const GameNode *n)
{
    NodeCheck state = game_node_check(n);
    if (state == NODE_MATED) return SUMMARY_CHECK | (n->child ? 0 : SUMMARY_MATE);
    if (state == NODE_IN_CHECK) return SUMMARY_CHECK;
    if (!mg_has_legal_move(&n->pos)) return SUMMARY_STALEMATE;
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

/* Each piece's count in pos, into counts[] and the summary's range (a
 * look at each piece on the board: cheaper than twelve population counts
 * where the processor has no instruction for them). */
static void count_pieces(const Position *pos, int counts[PIECE_NB], GameSummary *s)
{
    memset(counts, 0, PIECE_NB * sizeof *counts);
    for (Bitboard occupied = pos_occupied(pos); occupied; occupied &= occupied - 1)
        counts[pos_piece_on(pos, bb_lsb(occupied))]++;
    for (int i = 0; i < 12; i++) note_count(s, summary_pieces[i], counts[summary_pieces[i]]);
}

SummaryResult summary_result_of(const char *result)
{
    static const char *const texts[] = {"1-0", "0-1", "1/2-1/2", "*"};
    if (!result) return RESULT_NONE;
    for (int i = 0; i < 4; i++)
        if (strcmp(result, texts[i]) == 0) return (SummaryResult)(RESULT_WHITE_WINS + i);
    return RESULT_OTHER;
}

/* The root's squares, counts and check: the summary's start (what the
 * root's pieces and side to move make: those of the last root, when they
 * are the same). */
static void start_at_root(SummaryBuilder *b, const GameNode *root)
{
    b->last = root;
    if (b->root_known && b->root_side == root->pos.side && memcmp(b->root_board, root->pos.board, SQ_NB) == 0) {
        b->s = b->root_summary;
        memcpy(b->counts, b->root_counts, sizeof b->counts);
        return;
    }
    GameSummary *s = &b->s;
    memset(s, 0, sizeof *s);
    for (int i = 0; i < 12; i++) {
        Piece p = summary_pieces[i];
        s->min_count[p] = SUMMARY_MANY;
        s->squares[p] = pos_pieces(&root->pos, color_of(p), type_of(p));
    }
    count_pieces(&root->pos, b->counts, s);
    if (pos_in_check(&root->pos)) s->flags |= SUMMARY_CHECK;
    b->root_known = true;
    b->root_side = root->pos.side;
    memcpy(b->root_board, root->pos.board, SQ_NB);
    b->root_summary = *s;
    memcpy(b->root_counts, b->counts, sizeof b->counts);
}

void summary_start(SummaryBuilder *b)
{
    b->last = NULL;
}

/* (These two are not inlined into the build's hook: there, their
 * registers would be saved for every move, the usual ones too.) */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
void summary_note_check(SummaryBuilder *b, const GameNode *n)
{
    if (pos_in_check(&n->pos)) b->s.flags |= SUMMARY_CHECK;
}

/* What the move into n does, in one look at it: the squares it brings a
 * piece to (the mover's or the promoted piece's destination, the rook's
 * when castling: with the start position's squares, every square a piece
 * ever stands on), its flags (castling, en passant, a null move, a
 * promotion, a capture) and, when the counts before it are those of the
 * parent (`follows`), the counts it changes: a piece taken, a pawn
 * promoted. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
void summary_add_any_node(SummaryBuilder *b, const GameNode *n)
{
    const GameNode *parent = n->parent;
    if (!b->last) start_at_root(b, parent);   /* the first node made is a child of the root */
    bool follows = parent == b->last;
    b->last = n;
    GameSummary *s = &b->s;
    int *counts = b->counts;
    const Position *before = &parent->pos;
    Move m = n->move;
    Square from = move_from(m), to = move_to(m);
    Color us = (Color)before->side;
    MoveKind kind = move_kind(m);
    Piece on_to = pos_piece_on(before, to), taken = on_to;
    uint32_t flags = s->flags;
    switch (kind) {
    case MK_NORMAL:
        s->squares[pos_piece_on(before, from)] |= sq_bb(to);
        break;
    case MK_PROMOTION: {
        Piece pawn = make_piece(us, PAWN), promoted = make_piece(us, move_promo(m));
        s->squares[promoted] |= sq_bb(to);
        flags |= summary_promotion(move_promo(m));
        if (follows) {
            note_count(s, pawn, --counts[pawn]);
            note_count(s, promoted, ++counts[promoted]);
        }
        break;
    }
    case MK_EN_PASSANT:
        s->squares[pos_piece_on(before, from)] |= sq_bb(to);
        flags |= SUMMARY_EN_PASSANT;
        taken = make_piece(other_color(us), PAWN);
        break;
    case MK_CASTLE_SHORT:
    case MK_CASTLE_LONG: {
        bool short_side = kind == MK_CASTLE_SHORT;
        s->squares[make_piece(us, KING)] |= sq_bb(to);
        s->squares[make_piece(us, ROOK)] |= sq_bb(make_square(short_side ? 5 : 3, rank_of(from)));
        flags |= short_side ? SUMMARY_CASTLE_SHORT : SUMMARY_CASTLE_LONG;
        taken = NO_PIECE;
        break;
    }
    case MK_NULL:
        flags |= SUMMARY_NULL_MOVE;
        taken = NO_PIECE;
        break;
    }
    if (taken != NO_PIECE) {
        flags |= summary_capture(type_of(taken));
        if (follows) note_count(s, taken, --counts[taken]);
    }
    s->flags = flags;
    /* the counts followed move by move along a line, counted again where
     * another line goes on */
    if (!follows) count_pieces(&n->pos, counts, s);
    /* the parent's first move (its first child is known from now on) is a
     * null move or takes a king: the parent has no move after it
     * (game_node_plays_a_move) */
    if (parent->child == n && (kind == MK_NULL || type_of(on_to) == KING)) s->flags |= position_flags(parent);
    /* once the game has a check, a position is asked no more (last: no
     * value is kept across the call) */
    if (!(s->flags & SUMMARY_CHECK) && pos_in_check(&n->pos)) s->flags |= SUMMARY_CHECK;
}

void summary_finish(SummaryBuilder *b, const Game *g, GameSummary *s)
{
    if (!b->last) start_at_root(b, g->root);
    /* the leaves: the last node made, when the tree is one line */
    if (g->has_variations) {
        b->s.flags |= SUMMARY_VARIATIONS;
        for (const GameNode *n = g->root; n; n = game_walk_next(NULL, n, true))
            if (!n->child) b->s.flags |= position_flags(n);
    } else {
        b->s.flags |= position_flags(b->last);
    }
    b->s.flags |= (uint32_t)summary_result_of(game_result(g)) << SUMMARY_RESULT_SHIFT;
    *s = b->s;
}

void summary_of_game(const Game *g, GameSummary *s)
{
    SummaryBuilder b = {0};
    summary_start(&b);
    for (const GameNode *n = game_walk_next(NULL, g->root, true); n; n = game_walk_next(NULL, n, true))
        summary_add_node(&b, n);
    summary_finish(&b, g, s);
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

/* After the flags, a summary's head: the counts (a byte a piece), the
 * mask of the pieces present (two bytes), the length of the pieces' bytes
 * that follow it (a byte). */
enum { HEAD_MASK_AT = 12, HEAD_LENGTH_AT = 14, HEAD_BYTES = 15 };

/* flags (a varint); the counts, min in the high nibble; a 12-bit mask of
 * the pieces that stood anywhere (two bytes); the length of the pieces'
 * bytes that follow (a byte: 108 at most); for each of those pieces a mask
 * of the ranks it stood on, then a byte per such rank (files a..h, bit 0
 * a). */
void summary_write(const GameSummary *s, StrBuf *out)
{
    bytes_put_varint(out, s->flags);
    /* written in place, the room made once (a check and a NUL a byte cost
     * more than the bytes) */
    enum { MOST_BYTES = HEAD_BYTES + 12 * 9 };
    _Static_assert(MOST_BYTES - HEAD_BYTES <= UINT8_MAX, "the pieces' length fits its byte");
    if (out->len + MOST_BYTES + 1 > out->cap) sb_reserve(out, MOST_BYTES);
    unsigned char *start = (unsigned char *)out->data + out->len, *p = start + HEAD_BYTES;
    unsigned present = 0;
    for (int i = 0; i < 12; i++) {
        Piece piece = summary_pieces[i];
        start[i] = (unsigned char)(s->min_count[piece] << 4 | s->max_count[piece]);
        Bitboard b = s->squares[piece];
        if (!b) continue;
        present |= 1u << i;
        *p++ = (unsigned char)ranks_of(b);
        /* the bytes of its ranks, each written and kept when it is not 0:
         * eight steps always (a loop over the ranks it has ends where the
         * processor cannot foresee) */
        for (int r = 0; r < 8; r++) {
            unsigned char files = (unsigned char)(b >> (8 * r));
            *p = files;
            p += files != 0;
        }
    }
    start[HEAD_MASK_AT] = (unsigned char)(present & 0xFF);   /* little-endian, as bytes_put_u16 */
    start[HEAD_MASK_AT + 1] = (unsigned char)(present >> 8);
    start[HEAD_LENGTH_AT] = (unsigned char)(p - start - HEAD_BYTES);
    *p = '\0';
    out->len += (size_t)(p - start);
}

void summary_read(ByteCursor *c, GameSummary *s)
{
    summary_read_some(c, s, SUMMARY_ALL_PIECES);
}

/* The rank bytes that follow a piece's ranks byte: its bits, by the
 * byte's value (a table: no call, a load). */
#define BITS2(n) n, n + 1, n + 1, n + 2
#define BITS4(n) BITS2(n), BITS2(n + 1), BITS2(n + 1), BITS2(n + 2)
#define BITS6(n) BITS4(n), BITS4(n + 1), BITS4(n + 1), BITS4(n + 2)
static const unsigned char rank_bytes[256] = {BITS6(0), BITS6(1), BITS6(1), BITS6(2)};
#undef BITS2
#undef BITS4
#undef BITS6

/* A summary passed over (a search without a condition passes over every
 * game's) is read as far as the pieces' length, which says where it ends:
 * one step, where a loop over the pieces present, each piece's bytes
 * counted from its ranks byte before the next could be found, was a chain
 * of two loads a piece (format version 2; about 2% of a replay's CPU). */
void summary_read_some(ByteCursor *c, GameSummary *s, uint16_t pieces)
{
    uint64_t flags = bytes_get_varint(c);
    if (flags > UINT32_MAX) c->bad = true;
    if (s) memset(s, 0, sizeof *s);
    /* the counts, the mask, the pieces' length, then the pieces' bytes */
    const unsigned char *p = bytes_get(c, HEAD_BYTES), *at = p ? bytes_get(c, p[HEAD_LENGTH_AT]) : NULL;
    if (!at) return;   /* the bytes ran out (c->bad) */
    unsigned present = p[HEAD_MASK_AT] | (unsigned)p[HEAD_MASK_AT + 1] << 8;
    if (present >> 12) c->bad = true;   /* a piece that is none */
    if (!s) return;
    s->flags = (uint32_t)flags;
    for (int i = 0; i < 12; i++) {
        Piece piece = summary_pieces[i];
        s->min_count[piece] = p[i] >> 4;
        s->max_count[piece] = p[i] & 15;
    }
    const unsigned char *end = at + p[HEAD_LENGTH_AT];
    for (int i = 0; i < 12; i++) {
        if (!(present & (1u << i))) continue;
        if (at == end) break;
        unsigned ranks = *at++;
        if (!(pieces & (1u << summary_pieces[i]))) {   /* not asked for: its rank bytes skipped */
            unsigned n = rank_bytes[ranks];
            if ((size_t)(end - at) < n) break;
            at += n;
            present &= ~(1u << i);
            continue;
        }
        Bitboard b = 0;
        for (; ranks && at < end; ranks &= ranks - 1) b |= (Bitboard)*at++ << (8 * __builtin_ctz(ranks));
        if (ranks) break;
        s->squares[summary_pieces[i]] = b;
        present &= ~(1u << i);
    }
    if (present || at != end) c->bad = true;   /* the pieces' bytes are not as long as their length */
}
