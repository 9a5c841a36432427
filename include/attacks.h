/*
 * include/attacks.h — attack tables for every piece, rays, `between` and `line`.
 *
 * att_init() fills the tables once; main() and every test call it before use
 * (it is idempotent but not thread-safe: call it before starting threads).
 * Sliders take the board occupancy and return the squares they attack,
 * the first blocker in each direction included.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_ATTACKS_H
#define CQL_ATTACKS_H

#include "bitboard.h"

/* The eight compass directions, counter-clockwise from north ("up" on the
 * board, toward rank 8). DIR_N + k is rotated k * 45 degrees anticlockwise. */
typedef enum Direction {
    DIR_N, DIR_NW, DIR_W, DIR_SW, DIR_S, DIR_SE, DIR_E, DIR_NE, DIR_NB
} Direction;

/* File and rank step of each direction (DIR_N is {0, +1}). */
extern const int dir_file_step[DIR_NB];
extern const int dir_rank_step[DIR_NB];

void att_init(void);

Bitboard att_pawn(Color c, Square s);      /* the two diagonal capture squares */
Bitboard att_knight(Square s);
Bitboard att_king(Square s);
Bitboard att_bishop(Square s, Bitboard occ);
Bitboard att_rook(Square s, Bitboard occ);
Bitboard att_queen(Square s, Bitboard occ);
/* Attacks of piece p standing on s (colour matters for pawns only). */
Bitboard att_piece(Piece p, Square s, Bitboard occ);

/* Squares strictly between a and b when they share a rank, file or diagonal;
 * otherwise empty. */
Bitboard att_between(Square a, Square b);
/* The whole rank, file or diagonal through a and b (both included) when they
 * are aligned and distinct; otherwise empty. */
Bitboard att_line(Square a, Square b);
/* Every square from s (excluded) to the board edge in direction d. */
Bitboard att_ray(Square s, Direction d);

#endif
