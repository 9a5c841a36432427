/*
 * src/index/sidecar.h — the sidecar index of a PGN file (games.pgn.cqlx):
 * written in one pass over the file, read back whole, checked against the
 * file it was made from (docs/index.md has the format).
 *
 * Per game it keeps where its text is (the line it starts on, the size of
 * the text the reader splits off, its byte range in the file), whether it
 * read without any message (only such a game is searched from the sidecar),
 * whether the reader split it off without a message from its line's first
 * column (a reader may jump to it),
 * its summary (summary.h), its tags, its termination marker, its start
 * position when that is not the usual one, and its moves as two-byte codes
 * (movecode.h). The file begins with a header naming the PGN file (size,
 * modification time, checksums of its first and last 64 KB) and ends with a
 * trailer (the sections, the game count, a checksum of everything before
 * it): a sidecar whose PGN file changed is stale, one whose bytes do not
 * add up is damaged, and neither is used.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_INDEX_SIDECAR_H
#define CQL_INDEX_SIDECAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/diag.h"
#include "index/bytes.h"
#include "index/summary.h"
#include "pgn/game.h"

#define SIDECAR_SUFFIX ".cqlx"
#define SIDECAR_VERSION 3
/* The first eight bytes of every sidecar: a name, then bytes that a text
 * file or a transfer in text mode would not keep (as PNG's). */
#define SIDECAR_MAGIC "CQLX\r\n\x1a\n"
#define SIDECAR_MAGIC_LEN 8

/* Bytes the sidecar is handed to its writer in. */
typedef bool (*SidecarWriteFn)(void *ctx, const void *data, size_t len);
/* After each game of the build: games read, bytes of game text read. */
typedef void (*SidecarProgressFn)(void *ctx, long games, uint64_t bytes);

typedef struct SidecarTotals {
    long games;              /* games indexed */
    long text_only;          /* of them, games with a message when read (searched from their text) */
    uint64_t pgn_bytes;      /* the PGN file's size */
    uint64_t sidecar_bytes;  /* the sidecar's */
} SidecarTotals;

/* Reads the PGN file at pgn_path in one pass and hands the sidecar's bytes
 * to write, in order. False after reporting through diag: the file cannot
 * be read, a write failed, or the file changed while it was read. The
 * messages about the games themselves are not reported (a search reports
 * them): such games are marked to be read from their text. */
bool sidecar_build(const char *pgn_path, SidecarWriteFn write, void *ctx, SidecarProgressFn progress,
                   void *progress_ctx, DiagSink *diag, SidecarTotals *totals);

/* True when the file at path begins as a sidecar does (whatever its state). */
bool sidecar_is_sidecar(const char *path);

typedef enum SidecarStatus {
    SIDECAR_OK,
    SIDECAR_MISSING,         /* there is none */
    SIDECAR_STALE,           /* made from another state of the PGN file, or in another format version */
    SIDECAR_DAMAGED          /* not a sidecar, or its bytes do not add up */
} SidecarStatus;

/* A sidecar read into memory. */
typedef struct Sidecar {
    unsigned char *data;
    size_t len;
    long games;
    const unsigned char *table;    /* games + 1 record offsets (u64 each) */
    const char **strings;          /* the string table: NUL-terminated, in data */
    size_t nstrings;
} Sidecar;

/* Reads the sidecar at sidecar_path made for pgn_path and checks it: not
 * SIDECAR_OK, why (a phrase: "the PGN file's size differs") goes in why,
 * and *s holds nothing. */
SidecarStatus sidecar_open(Sidecar *s, const char *pgn_path, const char *sidecar_path, char *why,
                           size_t why_size);
/* The checks of sidecar_open on bytes already read: s takes data (len
 * bytes from malloc) and frees it, at once when they do not add up
 * (SIDECAR_DAMAGED) or are of another format version (SIDECAR_STALE), why
 * in why. Nothing ties them to a PGN file. */
SidecarStatus sidecar_from_bytes(Sidecar *s, unsigned char *data, size_t len, char *why, size_t why_size);
void sidecar_close(Sidecar *s);

/* One game's record, as far as its summary. */
typedef struct SidecarGame {
    unsigned first_line;     /* the input line its text starts on */
    uint64_t text_size;      /* the size of its text as the reader splits it off */
    uint64_t offset, length; /* its bytes in the PGN file */
    bool clean;              /* read without a message: the rest is there */
    bool quiet;              /* split off without a message, from its line's first column: a
                                reader may start at offset, on line first_line */
    ByteCursor rest;             /* tags, termination marker, start position, moves */
    GameSummary summary;         /* last: a head is copied without it (offsetof) */
} SidecarGame;

/* Game number k (from 1) of the file; false when there is no such game or
 * its record is damaged. */
bool sidecar_game(const Sidecar *s, long k, SidecarGame *out);
/* The same with the squares of only the pieces of `pieces` in its summary
 * (summary_read_some). */
bool sidecar_game_some(const Sidecar *s, long k, uint16_t pieces, SidecarGame *out);
/* The same as far as its flags (where its text is, clean, quiet): its
 * summary is not read, and rest is where it begins. */
bool sidecar_game_head(const Sidecar *s, long k, SidecarGame *out);
/* The heads of records sidecar_game_head read on this thread (that game k
 * of the file exists), for the tests: a search reads each game's once. */
extern _Thread_local long sidecar_heads_read;

/* How much of a game sidecar_game_read makes. */
typedef enum SidecarRead {
    SIDECAR_TAGS,            /* its tags and termination marker */
    SIDECAR_START,           /* and its root, the start position */
    SIDECAR_TREE             /* and its whole tree, numbered */
} SidecarRead;

/* The game of a clean record into *g, numbered `number`, in arena a, as
 * far as `what`. False when the record is damaged. */
bool sidecar_game_read(const Sidecar *s, const SidecarGame *sg, long number, SidecarRead what, Game *g, Arena *a);

/* sidecar_game_read as far as SIDECAR_START, and where the game's move
 * codes are (movecode.h): *codes, *ncodes. False when the record is
 * damaged. */
bool sidecar_game_codes(const Sidecar *s, const SidecarGame *sg, long number, Game *g, Arena *a,
                        const unsigned char **codes, size_t *ncodes);

#endif
