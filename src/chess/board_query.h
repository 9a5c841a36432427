/*
 * src/chess/board_query.h — the set-valued questions CQL asks about a board.
 *
 * Pure functions of a Position and square sets, used by the evaluator:
 * colour-blind attacks (`->`, `<-`) and arrow chains, `between`, direction
 * filters, `ray`, `xray`, `pin`, pawn structure and material. Every
 * "attack" here is geometric: a piece attacks the squares it could capture
 * on if an enemy stood there, whatever actually stands there; sliders stop
 * at the first piece, which they attack.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_BOARD_QUERY_H
#define CQL_BOARD_QUERY_H

#include "chess/attacks.h"
#include "chess/position.h"

/* A set of compass directions: bit d for Direction d. */
typedef uint8_t DirMask;
#define DIRS_ORTHOGONAL ((DirMask)(1u << DIR_N | 1u << DIR_W | 1u << DIR_S | 1u << DIR_E))
#define DIRS_DIAGONAL ((DirMask)(1u << DIR_NW | 1u << DIR_SW | 1u << DIR_SE | 1u << DIR_NE))
#define DIRS_ALL ((DirMask)0xFF)

/* Squares attacked by the piece on s (empty set when s is empty). */
Bitboard bq_attacks_of(const Position *pos, Square s);
/* `X -> Y`: the squares of X holding a piece that attacks a square of Y. */
Bitboard bq_attackers(const Position *pos, Bitboard x, Bitboard y);
/* `Y <- X`: the squares of Y attacked by some piece on a square of X. */
Bitboard bq_attacked(const Position *pos, Bitboard y, Bitboard x);
/* Arrow chains of three sets or more, `A -> B -> C ...` (CQL 6.2): a line
 * from a queen, rook or bishop on a square of sets[0], in a direction that
 * piece moves, meeting sets[1] ... sets[n-1] in order. Along the line, an
 * occupied square of the set sought is taken (of the last set: a hit, and
 * the line ends there), an occupied square not in it ends the line, an
 * empty square of it is either taken or passed over (of the last set: a hit,
 * and the line goes on), and an empty square not in it is passed over.
 * Returns the squares of sets[0] with a hit, and the hit squares in *hits.
 * A line has at most 7 squares after its start, so a chain of more than
 * BQ_ARROW_CHAIN_MAX sets never has a hit. */
#define BQ_ARROW_CHAIN_MAX 8
Bitboard bq_arrow_chain(const Position *pos, const Bitboard *sets, int n, Bitboard *hits);

/* Every square attacked by a piece on a square of X. */
Bitboard bq_attacks_from(const Position *pos, Bitboard x);

/* `between(X Y)`: squares strictly between a square of X and a square of Y
 * that share a rank, file or diagonal. */
Bitboard bq_between(Bitboard x, Bitboard y);

/* Direction filter: the squares at distance min..max (-7..7) from a square of
 * x in one of the directions of `dirs`: distance 0 is the square itself, a
 * negative distance goes the opposite way (pure geometry: pieces do not
 * block). */
Bitboard bq_direction(Bitboard x, DirMask dirs, int min, int max);

/* `ray [dirs] (S1 ... Sn)`: the end squares of the rays, in a direction of
 * `dirs`, that hold a square of S1, then of S2, ... in that order with only
 * empty squares between consecutive ones. n >= 2. */
Bitboard bq_ray(const Position *pos, DirMask dirs, const Bitboard *sets, int n);
/* `xray (S1 ... Sn)`: like ray, but S1 must hold a slider able to move along
 * the ray (rook or queen orthogonally, bishop or queen diagonally). */
Bitboard bq_xray(const Position *pos, const Bitboard *sets, int n);

/* Which squares `pin` reports: the first parameter written decides. */
typedef enum PinValue { PIN_PINNED, PIN_PINNING, PIN_PINNED_TO } PinValue;
/* `pin from F through T to Z`: a slider on F attacks an enemy piece on T, and
 * a square of Z beyond it is not attacked but would be if that piece were
 * gone, and is empty or holds a piece of the pinned piece's colour. */
Bitboard bq_pin(const Position *pos, Bitboard from, Bitboard through, Bitboard to, PinValue v);

/* Pawn structure (both colours): pawns with a friendly pawn on the same file;
 * with no friendly pawn on an adjacent file; with no enemy pawn ahead on the
 * same or an adjacent file; with a friendly pawn on an adjacent file. */
Bitboard bq_doubled_pawns(const Position *pos);
Bitboard bq_isolated_pawns(const Position *pos);
Bitboard bq_passed_pawns(const Position *pos);
Bitboard bq_connected_pawns(const Position *pos);

/* `power X`: material on X counting P 1, N 3, B 3, R 5, Q 9, K 0. */
int bq_power(const Position *pos, Bitboard x);

#endif
