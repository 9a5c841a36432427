/*
 * src/chess/san.h — Standard Algebraic Notation in and out.
 *
 * Parsing has two stages: san_read turns text into a SanMove with no board
 * involved (tolerating real-world dirt: 0-0, O-O+, e.p., !? suffixes, a
 * missing 'x', long algebraic e2e4 / e2-e4 / Ng1-f3, lower-case promotion
 * e8q / e8=q, -- and Z0 null moves); san_resolve matches it against the
 * legal moves of a position: no match is SAN_ILLEGAL, several SAN_AMBIGUOUS.
 * Coordinates without a piece letter (g1f3) move whatever own piece is on
 * the origin; a king move onto its own castling rook (e1h1, Chess960 UCI)
 * or two files sideways (e1g1) is castling. A missing promotion piece is
 * SAN_ILLEGAL, as is a null move while in check. Result tokens (1-0, 0-1,
 * 1/2-1/2, *) are SAN_SYNTAX.
 * san_write produces canonical SAN with minimal disambiguation and +/#.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_SAN_H
#define CQL_SAN_H

#include <stddef.h>

#include "chess/position.h"

#define SAN_MAX 16   /* bytes, NUL included, of the longest SAN written */

typedef enum SanStatus { SAN_OK, SAN_SYNTAX, SAN_ILLEGAL, SAN_AMBIGUOUS } SanStatus;

typedef struct SanMove {
    PieceType piece;     /* moving piece (PAWN when no letter); NO_PIECE_TYPE for castling/null */
    int from_file;       /* 0..7, or -1 when not given */
    int from_rank;       /* 0..7, or -1 when not given */
    Square to;           /* SQ_NONE for castling and null moves */
    PieceType promo;     /* NO_PIECE_TYPE when none */
    bool capture;        /* an 'x' or ':' was written (not required to match) */
    int castle;          /* 0 none, 1 short (O-O), 2 long (O-O-O) */
    bool null_move;      /* "--" or "Z0" */
} SanMove;

/* Reads one move token text[0..len) (suffixes such as + # ! ? allowed). */
SanStatus san_read(const char *text, size_t len, SanMove *out);
/* Finds the one legal move in pos that the SanMove denotes. */
SanStatus san_resolve(const Position *pos, const SanMove *sm, Move *out);
/* Both stages at once. */
SanStatus san_parse(const Position *pos, const char *text, size_t len, Move *out);
/* The same, also telling whether text[0..*written_len), the text without
 * its check mark, is exactly what san_write_marked writes for the move
 * ("e4", "Nf3", "exd5", "Qxe7": at most SAN_WRITTEN_KEPT bytes); 0 when it
 * is not, or not known (shapes other than the usual ones). */
SanStatus san_parse_written(const Position *pos, const char *text, size_t len, Move *out,
                            size_t *written_len);
#define SAN_WRITTEN_KEPT 4
/* For a reader of NUL-terminated text: reads a move of the usual shapes
 * (e4, exd5, Nf3, Nbd7, R1e2, Qxe7+: a piece letter, an origin file or
 * rank, 'x', the square, + and #, each optional but the square) from
 * text[0] up to the first byte that does not go on with it. Returns the
 * bytes read when they make that shape and play exactly one legal move
 * in pos (a normal move from *from to *to, and *written_len as
 * san_parse_written gives it), else 0.
 * When the move's token ends there, that is san_parse_written's answer
 * for the token; otherwise the token is no usual move, and 0 or not, the
 * caller reads it with san_parse_written. */
size_t san_parse_usual(const Position *pos, const char *text, Square *from, Square *to, size_t *written_len);
/* The same for the shapes san_parse_usual gives up on that the usual run
 * of a movetext reads too: castling, "O-O" or "O-O-O" (capital letters,
 * with their hyphens), and a pawn's promotion, "e8=Q" or "exd8=Q", each
 * then + and #, from text[0]. Returns the bytes read when they make one
 * of those shapes and play a legal move in pos (*out), else 0; when the
 * move's token ends there, that is san_parse's answer for the token (the
 * SAN as written is not kept: san_write_marked writes these from the
 * move). */
size_t san_parse_special(const Position *pos, const char *text, Move *out);

/* Writes the SAN of the legal move m in pos (with + or #); returns its length. */
size_t san_write(const Position *pos, Move m, char out[SAN_MAX]);
/* The same with the check mark already known (a game-tree node keeps it):
 * `mark` is '+', '#' or '\0' for none. */
size_t san_write_marked(const Position *pos, Move m, char mark, char out[SAN_MAX]);
/* Writes m in UCI coordinates ("e2e4", "e7e8q", "0000"); returns its length.
 * Castling is the king's start and destination squares ("e1g1"), which
 * san_parse reads back whenever the king moves two files. */
size_t san_move_uci(Move m, char out[8]);

#endif
