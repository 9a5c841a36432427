/*
 * src/chess/position.h — a chess position: FEN in and out, make move, checks.
 *
 * A Position is a plain value (152 bytes): copy it with `=`. Game-tree
 * nodes store one each, so making a move is copy-then-pos_make_move; a
 * replay without a tree makes its moves in place and takes them back
 * (pos_make_move_undoable, pos_unmake_move).
 * Castling is stored as the square of the rook each side may still castle
 * with (SQ_NONE when the right is gone), which covers Chess960 as well as
 * standard chess. `ep` is the en-passant target square recorded after every
 * double pawn push (as FEN writes it), SQ_NONE otherwise.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_POSITION_H
#define CQL_POSITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chess/bitboard.h"

/*
 * Move encoding (a uint32_t):
 *
 *   bits  0-5   from square
 *   bits  6-11  to square (for castling: the king's destination, g- or c-file)
 *   bits 12-14  promotion PieceType (0 when none)
 *   bits 15-17  MoveKind
 *
 * MOVE_NONE (0) is never a legal move.
 */
typedef uint32_t Move;

typedef enum MoveKind {
    /* castling and the null move last: they alone write no square (san_write_marked) */
    MK_NORMAL, MK_PROMOTION, MK_EN_PASSANT, MK_CASTLE_SHORT, MK_CASTLE_LONG, MK_NULL
} MoveKind;

#define MOVE_NONE ((Move)0)

static inline Move move_make(Square from, Square to, PieceType promo, MoveKind kind)
{
    return (Move)from | ((Move)to << 6) | ((Move)promo << 12) | ((Move)kind << 15);
}
static inline Square move_from(Move m) { return (Square)(m & 63); }
static inline Square move_to(Move m) { return (Square)((m >> 6) & 63); }
static inline PieceType move_promo(Move m) { return (PieceType)((m >> 12) & 7); }
static inline MoveKind move_kind(Move m) { return (MoveKind)((m >> 15) & 7); }
static inline bool move_is_castle(Move m)
{
    return move_kind(m) == MK_CASTLE_SHORT || move_kind(m) == MK_CASTLE_LONG;
}
#define MOVE_NULL move_make(0, 0, NO_PIECE_TYPE, MK_NULL)

enum { CASTLE_SHORT = 0, CASTLE_LONG = 1 };

typedef struct Position {
    Bitboard by_type[PIECE_TYPE_NB];  /* [0] is every occupied square */
    Bitboard by_color[COLOR_NB];
    uint8_t board[SQ_NB];             /* Piece on each square */
    uint8_t castle_rook[COLOR_NB][2]; /* [color][CASTLE_SHORT/LONG]: rook square or SQ_NONE */
    uint8_t ep;                       /* en-passant target square or SQ_NONE */
    uint8_t side;                     /* Color to move */
    uint8_t chess960;                 /* king or castling rook off the standard squares,
                                         or rights given as rook files (HAha) */
    uint16_t halfmove;                /* plies since the last capture or pawn move */
    uint16_t fullmove;                /* starts at 1, grows after Black moves */
    uint8_t king[COLOR_NB];           /* each colour's king square, as the bitboards
                                         say (kept by every move and by FEN reading,
                                         so pos_king needs no bit scan) */
} Position;
_Static_assert(sizeof(Position) == 152, "the king squares fill the padding: a node's size stays");

/* Why a FEN was refused: the field (1..6), the 1-based column in the FEN
 * text, and a message such as "bad piece letter 'x'". */
typedef struct FenError {
    int field;
    int column;
    char message[120];
} FenError;

#define FEN_MAX 100   /* enough bytes for any FEN this module writes */

extern const char *const POS_START_FEN;

void pos_start(Position *pos);
/* 0 on success; otherwise fills *err (when non-NULL) and returns -1.
 * Accepts 4 fields (EPD, counters default to 0 1) to 6. Castling may be KQkq,
 * X-FEN (KQkq meaning the outermost rook) or Shredder files (HAha).
 * A fullmove number of 0 (common in the wild) is read as 1. On failure
 * *pos is left untouched. */
int pos_from_fen(Position *pos, const char *fen, FenError *err);
/* The same, reading a PGN FEN tag as CQL 6.2 does: the side not to move may
 * be in check (no move can capture a king: movegen never makes one), and an
 * en-passant square that does not fit the board (wrong rank, no pawn that
 * just skipped it, a square not empty) is ignored. */
int pos_from_fen_tolerant(Position *pos, const char *fen, FenError *err);
/* Writes the FEN (6 fields) into out; returns its length. Castling is
 * X-FEN: KQkq for the outermost rooks (so standard chess is plain KQkq),
 * a rook's file letter for an inner castling rook. */
size_t pos_to_fen(const Position *pos, char out[FEN_MAX]);

static inline Piece pos_piece_on(const Position *pos, Square s) { return (Piece)pos->board[s]; }
static inline Bitboard pos_occupied(const Position *pos) { return pos->by_type[0]; }
static inline Bitboard pos_pieces(const Position *pos, Color c, PieceType t)
{
    return pos->by_type[t] & pos->by_color[c];
}
/* The squares holding a piece of `pieces` (bit p for Piece code p; bit 0:
 * the empty squares), as a piece designator's mask gives them. */
static inline Bitboard pos_squares_with(const Position *pos, unsigned pieces)
{
    Bitboard b = (pieces & 1u) ? ~pos_occupied(pos) : 0;
    for (pieces &= ~1u; pieces; pieces &= pieces - 1) {
        Piece p = (Piece)__builtin_ctz(pieces);
        b |= pos_pieces(pos, color_of(p), type_of(p));
    }
    return b;
}
static inline Square pos_king(const Position *pos, Color c)
{
    assert(pos->king[c] < SQ_NB && pos->board[pos->king[c]] == make_piece(c, KING));
    return pos->king[c];
}
/* Sets pos->king from the bitboards (SQ_NONE for a colour without one),
 * for code that places pieces itself rather than through FEN reading or
 * moves (the sidecar's reader). */
void pos_find_kings(Position *pos);

/* The move number of the position after any move (a null move too) from
 * one where `side` is to move at move `fullmove`: Black's move completes a
 * full move, and the counter stops at its largest value, 65535. With the
 * side, which every move passes to the other, it is all a walk down a line
 * needs to number its moves without reading each position. */
static inline unsigned pos_fullmove_after(Color side, unsigned fullmove)
{
    return side == BLACK && fullmove < UINT16_MAX ? fullmove + 1 : fullmove;
}

/* Plays a move that is legal (or at least pseudo-legal) in pos, in place:
 * board, castling rights, ep square, counters and side are all updated.
 * MOVE_NULL passes the turn. */
void pos_make_move(Position *pos, Move m);
/* pos_make_move for a normal move (MK_NORMAL) of `us`, the side to move,
 * but for the side and the counters, which it neither reads nor writes
 * (pos->side may be behind): for a run of moves that keeps those apart
 * and sets them after its last (movecode_walk_pass: their stores and
 * loads at every move cost it 2-3% of its CPU). True when the move sets
 * the half-move clock back to 0 (a capture or a pawn's move). */
bool pos_make_normal_move_uncounted(Position *pos, Move m, Color us);
/* *dst = *src, then m made in *dst (dst != src): a child position made
 * from its parent's, faster than the copy and pos_make_move. */
void pos_play_move(Position *dst, const Position *src, Move m);
/* The same for a normal move (MK_NORMAL) from `from` to `to`. */
void pos_play_normal_move(Position *dst, const Position *src, Square from, Square to);

/* What a move made in place cannot give back by itself: the piece it
 * took on its destination square, the rights, the ep square and the
 * counters before it (a replay without a tree keeps one per ply of its
 * line, to go back to where a variation starts). */
typedef struct PosUndo {
    Move move;
    uint8_t victim;
    uint8_t ep;
    uint8_t castle_rook[COLOR_NB][2];
    uint16_t halfmove, fullmove;
} PosUndo;
/* pos_make_move, keeping in *undo what pos_unmake_move needs to take the
 * move back. */
void pos_make_move_undoable(Position *pos, Move m, PosUndo *undo);
/* The same for a normal move (MK_NORMAL) from `from` to `to`. */
void pos_make_normal_move_undoable(Position *pos, Square from, Square to, PosUndo *undo);
/* Takes back the move that pos_make_move_undoable made into *undo, the
 * last one made in pos: pos is then what it was before, byte for byte. */
void pos_unmake_move(Position *pos, const PosUndo *undo);

/* Every piece of either colour attacking square s, given occupancy occ. */
Bitboard pos_attackers_to(const Position *pos, Square s, Bitboard occ);
/* Pieces of the side not to move that give check to the side to move. */
Bitboard pos_checkers(const Position *pos);
bool pos_in_check(const Position *pos);

/* The structural invariants hold (one king each, bitboards agree with the
 * board array); used after every move in debug builds. */
bool pos_is_ok(const Position *pos);

/* The Zobrist hash of board, side, castling rights and ep file, computed
 * from scratch (no move pays for keeping one up to date). */
uint64_t pos_key(const Position *pos);

/* Compares boards, side, castling and ep: the same position for repetition. */
bool pos_same(const Position *a, const Position *b);

#endif
