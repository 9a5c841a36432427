/*
 * include/pgn_reader.h — streaming PGN input: split a file into games, then
 * parse one game's text into a Game tree.
 *
 * Two stages, so that worker threads can do the expensive one:
 *   1. pgn_next_raw() reads the input in chunks and returns the text of the
 *      next game (tag section + movetext up to its termination marker). It
 *      keeps only one game in memory, skips text that is not PGN (with one
 *      message per block of it), and never loses a game: a game without a
 *      result ends where the next tag section begins.
 *   2. pgn_parse_game() tokenises that text, reads the tags, replays every
 *      move (SetUp/FEN start positions, nested variations, comments, NAGs)
 *      and builds the tree in the caller's arena. The first problem in a game
 *      is reported once as `FILE:LINE:COL: game N: MESSAGE`; the game is cut
 *      at a bad main-line move (the rest is kept as `unread_text`), a bad
 *      variation is dropped from the bad move on, and parsing goes on.
 * The reader holds all its state in PgnReader: no globals, any number of
 * readers at once.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_PGN_READER_H
#define CQL_PGN_READER_H

#include <stdbool.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "game.h"
#include "strbuf.h"

typedef struct PgnReader {
    FILE *fp;
    bool owns_fp;
    const char *name;        /* file name used in messages ("-" shows as "<stdin>") */
    DiagSink *diag;
    char *buf;               /* input window: buf[pos..len) not yet consumed */
    size_t len, pos, cap;
    bool eof;                /* fp has no more bytes */
    bool at_start;           /* nothing consumed yet (for the byte-order mark) */
    unsigned line;           /* line number of buf[pos] */
    size_t line_offset;      /* bytes of that line consumed before buf[pos] */
    long games;              /* games returned so far */
    long junk_blocks;        /* blocks of non-PGN text skipped */
    bool io_error;
} PgnReader;

/* The text of one game, as split from the input. */
typedef struct RawGame {
    StrBuf text;             /* owned; reuse the same RawGame to avoid allocations */
    unsigned first_line;     /* input line of text[0] */
    unsigned first_column;   /* input column of text[0] (a game can start mid-line) */
    long number;             /* 1-based game number in the input */
} RawGame;

/* Opens path ("-" = standard input). Returns 0, or -1 after reporting why. */
int pgn_open(PgnReader *r, const char *path, DiagSink *diag);
/* Reads from an open stream (not closed by pgn_close). */
void pgn_open_stream(PgnReader *r, FILE *fp, const char *name, DiagSink *diag);
/* Fills *g with the next game; false at end of input (or on a read error,
 * which sets io_error and is reported). */
bool pgn_next_raw(PgnReader *r, RawGame *g);
void pgn_close(PgnReader *r);

void raw_game_init(RawGame *g);
void raw_game_free(RawGame *g);

typedef enum PgnParseStatus {
    PGN_OK,          /* read completely */
    PGN_DAMAGED,     /* read with a problem (reported); the tree holds what could be read */
    PGN_UNUSABLE     /* nothing to search (bad FEN, unsupported variant); reported */
} PgnParseStatus;

/* Builds *out (tags, tree, result) from raw in arena a. `file` names the
 * input in messages. The nodes are numbered (game_number_nodes). */
PgnParseStatus pgn_parse_game(const RawGame *raw, const char *file, Arena *a, Game *out,
                              DiagSink *diag);

#endif
