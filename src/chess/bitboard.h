/*
 * src/chess/bitboard.h — squares, pieces, colours, directions and 64-bit square sets.
 *
 * Square numbering (a1 = 0, h1 = 7, a8 = 56, h8 = 63):
 *
 *     8 | 56 57 58 59 60 61 62 63
 *     7 | 48 49 50 51 52 53 54 55
 *     ...
 *     2 |  8  9 10 11 12 13 14 15
 *     1 |  0  1  2  3  4  5  6  7
 *         a  b  c  d  e  f  g  h
 *
 * A Bitboard has bit s set when square s is in the set. A Piece packs its
 * colour in bit 3 and its type in bits 0-2: W_PAWN = 1 ... W_KING = 6,
 * B_PAWN = 9 ... B_KING = 14, NO_PIECE = 0. The piece-type numbers 1..6
 * (P N B R Q K) are the values CQL's `type` filter reports.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_BITBOARD_H
#define CQL_BITBOARD_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

typedef uint64_t Bitboard;
typedef int Square;            /* 0..63, or SQ_NONE */

enum {
    SQ_A1, SQ_B1, SQ_C1, SQ_D1, SQ_E1, SQ_F1, SQ_G1, SQ_H1,
    SQ_A2, SQ_B2, SQ_C2, SQ_D2, SQ_E2, SQ_F2, SQ_G2, SQ_H2,
    SQ_A3, SQ_B3, SQ_C3, SQ_D3, SQ_E3, SQ_F3, SQ_G3, SQ_H3,
    SQ_A4, SQ_B4, SQ_C4, SQ_D4, SQ_E4, SQ_F4, SQ_G4, SQ_H4,
    SQ_A5, SQ_B5, SQ_C5, SQ_D5, SQ_E5, SQ_F5, SQ_G5, SQ_H5,
    SQ_A6, SQ_B6, SQ_C6, SQ_D6, SQ_E6, SQ_F6, SQ_G6, SQ_H6,
    SQ_A7, SQ_B7, SQ_C7, SQ_D7, SQ_E7, SQ_F7, SQ_G7, SQ_H7,
    SQ_A8, SQ_B8, SQ_C8, SQ_D8, SQ_E8, SQ_F8, SQ_G8, SQ_H8,
    SQ_NB = 64,
    SQ_NONE = 64
};

typedef enum Color { WHITE, BLACK, COLOR_NB } Color;

typedef enum PieceType {
    NO_PIECE_TYPE, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING, PIECE_TYPE_NB
} PieceType;

typedef enum Piece {
    NO_PIECE = 0,
    W_PAWN = 1, W_KNIGHT, W_BISHOP, W_ROOK, W_QUEEN, W_KING,
    B_PAWN = 9, B_KNIGHT, B_BISHOP, B_ROOK, B_QUEEN, B_KING,
    PIECE_NB = 16
} Piece;

#define FILE_A_BB 0x0101010101010101ULL
#define FILE_H_BB 0x8080808080808080ULL
#define RANK_1_BB 0x00000000000000FFULL
#define RANK_8_BB 0xFF00000000000000ULL
#define LIGHT_SQUARES_BB 0x55AA55AA55AA55AAULL   /* h1 and a8 are light */
#define DARK_SQUARES_BB  0xAA55AA55AA55AA55ULL   /* a1 and h8 are dark */
#define ALL_SQUARES_BB   0xFFFFFFFFFFFFFFFFULL

static inline Bitboard sq_bb(Square s) { return 1ULL << s; }
static inline int file_of(Square s) { return s & 7; }
static inline int rank_of(Square s) { return s >> 3; }
static inline Square make_square(int file, int rank) { return rank * 8 + file; }
static inline Bitboard file_bb(int file) { return FILE_A_BB << file; }
static inline Bitboard rank_bb(int rank) { return RANK_1_BB << (8 * rank); }

static inline Piece make_piece(Color c, PieceType t) { return (Piece)(((int)c << 3) | (int)t); }
static inline PieceType type_of(Piece p) { return (PieceType)(p & 7); }
static inline Color color_of(Piece p) { return (Color)(p >> 3); }
static inline Color other_color(Color c) { return (Color)(c ^ 1); }

static inline int bb_popcount(Bitboard b)
{
#if defined(__GNUC__)
    return __builtin_popcountll(b);
#else
    int n = 0;
    for (; b; b &= b - 1) n++;
    return n;
#endif
}

/* Lowest set square; b must not be empty. */
static inline Square bb_lsb(Bitboard b)
{
    assert(b);
#if defined(__GNUC__)
    return __builtin_ctzll(b);
#else
    Square s = 0;
    while (!(b & 1)) { b >>= 1; s++; }
    return s;
#endif
}

/* Highest set square; b must not be empty. */
static inline Square bb_msb(Bitboard b)
{
    assert(b);
#if defined(__GNUC__)
    return 63 - __builtin_clzll(b);
#else
    Square s = 63;
    while (!(b >> 63)) { b <<= 1; s--; }
    return s;
#endif
}

/* Removes and returns the lowest set square; *b must not be empty. */
static inline Square bb_pop_lsb(Bitboard *b)
{
    Square s = bb_lsb(*b);
    *b &= *b - 1;
    return s;
}

static inline bool bb_more_than_one(Bitboard b) { return (b & (b - 1)) != 0; }

/* The eight compass directions, counter-clockwise from north ("up" on the
 * board, toward rank 8). DIR_N + k is rotated k * 45 degrees anticlockwise. */
typedef enum Direction {
    DIR_N, DIR_NW, DIR_W, DIR_SW, DIR_S, DIR_SE, DIR_E, DIR_NE, DIR_NB
} Direction;

/* File and rank step of each direction (DIR_N is {0, +1}). */
extern const int dir_file_step[DIR_NB];
extern const int dir_rank_step[DIR_NB];

/* One step of every square of b in direction d; squares leaving the board vanish. */
static inline Bitboard bb_step(Bitboard b, Direction d)
{
    switch (d) {
    case DIR_N: return b << 8;
    case DIR_S: return b >> 8;
    case DIR_E: return (b & ~FILE_H_BB) << 1;
    case DIR_W: return (b & ~FILE_A_BB) >> 1;
    case DIR_NE: return (b & ~FILE_H_BB) << 9;
    case DIR_NW: return (b & ~FILE_A_BB) << 7;
    case DIR_SE: return (b & ~FILE_H_BB) >> 7;
    case DIR_SW: return (b & ~FILE_A_BB) >> 9;
    default: return 0;
    }
}

/* b moved `steps` squares in direction d (squares leaving the board vanish). */
Bitboard bb_shift(Bitboard b, Direction d, int steps);

/* "e4" from square 28; out must hold 3 bytes. */
void sq_name(Square s, char out[3]);
/* Parses "e4"; returns SQ_NONE unless s[0] is a-h and s[1] is 1-8. */
Square sq_parse(const char *s);

/* The set as an 8x8 diagram, rank 8 first, 'x' for a member and '.' for
 * other squares, with file letters below (for test failures and debugging). */
#define BB_DIAGRAM_SIZE (9 * 18 + 1)
void bb_diagram(Bitboard b, char out[BB_DIAGRAM_SIZE]);

/* FEN/SAN letters: piece_char(W_KNIGHT) == 'N', piece_char(B_KNIGHT) == 'n'. */
char piece_char(Piece p);
/* Inverse of piece_char; NO_PIECE for any other character. */
Piece piece_from_char(char c);
/* 'N' for KNIGHT etc.; 'P' for PAWN. */
char piece_type_char(PieceType t);

#endif
