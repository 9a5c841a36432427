/*
 * src/pgn/reader.h — streaming PGN input: split a file into games, then
 * parse one game's text into a Game tree.
 *
 * Two stages, so that worker threads can do the expensive one:
 *   1. pgn_next_raw() reads the input in chunks and returns the text of the
 *      next game (tag section + movetext up to its termination marker), with
 *      where its tag pairs of the usual form are, found on the way. It
 *      keeps only one game in memory, skips text that is not PGN (with one
 *      message per block of it), and never loses a game: a game without a
 *      result ends where the next tag section begins. Line ends may be LF,
 *      CRLF or a lone CR (the game text always has LF); a byte-order mark
 *      at the start of any line is skipped; NUL bytes in a game become
 *      spaces (reported by stage 2). Memory stays bounded whatever the
 *      input: a line is looked at in pieces of at most PGN_MAX_SEGMENT
 *      bytes, and a game whose text passes max_game_size is not kept (its
 *      RawGame comes back `oversized`, and stage 2 reports it).
 *   2. pgn_parse_game() tokenises that text, reads the tags, replays every
 *      move (SetUp/FEN start positions, nested variations, comments, NAGs)
 *      and builds the tree in the caller's arena. The first problem in a game
 *      is reported once as `FILE:LINE:COL: game N: MESSAGE`; the game is cut
 *      at a bad main-line move (the rest is kept as `unread_text`), a bad
 *      variation is dropped from the bad move on, and parsing goes on.
 * The reader holds all its state in PgnReader: no globals, any number of
 * readers at once. Stage 1 is in reader_split.c, stage 2 in reader_parse.c,
 * what both read text with in reader_int.h, and the bytes of a tag line,
 * which the parser overwrites and the writer puts back, in tag_lines.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_PGN_READER_H
#define CQL_PGN_READER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "pgn/game.h"

/* Default limit on one game's text (option -maxgamesize). */
#define PGN_DEFAULT_MAX_GAME_SIZE ((size_t)64 << 20)
/* The longest piece of one line the splitter looks at at once. */
#define PGN_MAX_SEGMENT ((size_t)1 << 20)

typedef struct PgnReader {
    FILE *fp;
    bool owns_fp;
    bool by_offset;          /* fp is a regular file, read by offset (pread): a jump needs no seek */
    const char *name;        /* file name used in messages ("-" shows as "<stdin>") */
    DiagSink *diag;
    char *buf;               /* input window: buf[pos..len) not yet consumed */
    size_t len, pos, cap;
    bool eof;                /* fp has no more bytes */
    bool mid_line;           /* buf[pos] continues a line of which a piece was taken */
    bool saw_cr;             /* some CR was read (until then, lines are not searched for one) */
    size_t max_game_size;    /* longest game text kept (PGN_DEFAULT_MAX_GAME_SIZE) */
    unsigned line;           /* line number of buf[pos] */
    size_t line_offset;      /* bytes of that line consumed before buf[pos] */
    long games;              /* games returned so far */
    size_t stop_at;          /* a chunk's reader: no game starts at or after this offset
                                (SIZE_MAX: none) */
    uint64_t buf_offset;     /* input offset of buf[0] */
    uint64_t no_cut_before;  /* no chunk is taken before this input offset (pgn_take_chunk) */
    bool io_error;
    bool jump;               /* the next game is read from jump_offset, on line jump_line (pgn_skip_game) */
    uint64_t jump_offset;
    unsigned jump_line;
    uint64_t read_until;     /* a read for the next game goes no further than this input offset, when
                                ahead (pgn_expect_game); 0: none */
    size_t read_run;         /* bytes read since the last jump far ahead, up to a chunk (fill) */
    uint64_t bytes_read;     /* bytes read from fp so far */
    unsigned bom_line;       /* the line on which bom_bytes of byte-order marks were skipped */
    size_t bom_bytes;
} PgnReader;

/* A tag pair of the usual form, [Name "value"] with nothing escaped, that
 * the splitter found on a line of its own: the offsets in the game's text
 * of its '[', of the blank after the name and of the value's closing '"'
 * (tag_line_mark, tag_lines.h). */
typedef struct RawTagMark {
    uint32_t open, name_end, quote;
} RawTagMark;

#define RAW_TAG_MARKS 32

/* The text of one game, as split from the input. Its lines are the input's
 * lines (a line end is always '\n'), and it holds no NUL byte. */
typedef struct RawGame {
    StrBuf text;             /* owned; reuse the same RawGame to avoid allocations */
    unsigned first_line;     /* input line of text[0] */
    unsigned first_column;   /* input column of text[0] (a game can start mid-line) */
    long number;             /* 1-based game number in the input */
    size_t first_nul;        /* 1 + offset in text of the first NUL read as a space; 0: none */
    bool oversized;          /* longer than the limit: text is empty, the game was skipped */
    size_t size_limit;       /* the limit it passed (for the message) */
    unsigned last_line;      /* input line where the game's text ends */
    /* For a reader of an input from its start (not a chunk's, not after a
     * jump): the input offset of the start of first_line, plus
     * first_column - 1; and the offset where last_line ends (after its
     * line end), when end_offset_known (the reader may not yet have read
     * that far: then it is unknown). A byte-order mark takes no column. */
    uint64_t first_offset, end_offset;
    bool end_offset_known;
    bool ends_input;         /* the game runs to the end of the input */
    int tag_mark_count;      /* the first RAW_TAG_MARKS such tag pairs, in text order, */
    RawTagMark tag_marks[RAW_TAG_MARKS];   /* so that stage 2 reads them without a scan */
} RawGame;

/* Opens path ("-" = standard input). Returns 0, or -1 after reporting why. */
int pgn_open(PgnReader *r, const char *path, DiagSink *diag);
/* Reads from an open stream (not closed by pgn_close). */
void pgn_open_stream(PgnReader *r, FILE *fp, const char *name, DiagSink *diag);
/* Fills *g with the next game; false at end of input (or on a read error,
 * which sets io_error and is reported). */
bool pgn_next_raw(PgnReader *r, RawGame *g);
void pgn_close(PgnReader *r);
/* Counts the next game as read without reading it: the game after it is
 * read from byte next_offset of the input, which is the first byte of
 * line next_line and where that game starts (a sidecar index knows both:
 * index/sidecar.h). Only for a reader of a file (pgn_open), between games;
 * the jump is made when the next game or chunk is read. */
void pgn_skip_game(PgnReader *r, uint64_t next_offset, unsigned next_line);
/* The next game read ends at input offset end_offset (after its last
 * line's end), as a sidecar index knows: a read for it goes no further
 * than that, instead of a whole chunk (after a jump, the games jumped to
 * are read without the skipped ones after them). Only reads are sized by
 * it: what the game's text is does not change, and when it needs more
 * (the sidecar was wrong) the reader reads on as always. */
void pgn_expect_game(PgnReader *r, uint64_t end_offset);

void raw_game_init(RawGame *g);
void raw_game_free(RawGame *g);
/* Releases the text buffer when a big game left it large (call once the
 * game is parsed), so that a reused RawGame does not keep the largest game's
 * memory for the rest of the run. */
void raw_game_trim(RawGame *g);

/* Splitting on worker threads. A chunk is a piece of the input taken by the
 * reading thread: it begins between two games and ends at its cut, a tag
 * line that most likely begins the next game (the line before it is not a
 * tag line). Any thread then splits it into games with pgn_chunk_next,
 * exactly as pgn_next_raw would have, numbering them from 1; the reading
 * thread only takes the bytes and counts their lines. Whether the cut
 * really is between two games shows once the chunk is split: the last game
 * either ends at the cut or runs past it (pgn_chunk_overran: an unclosed
 * variation, a line of other text inside a tag section, a comment alone
 * before the tags ...). Then the chunk's text
 * from that game on, and the chunks taken after it, go back to the reader
 * (pgn_give_back) to be read again. */
typedef struct PgnChunk {
    char *mem;               /* owned: the reader's window the chunk was taken from */
    size_t mem_cap;
    const char *data;        /* in mem: the piece, then the cut's line */
    size_t len;
    size_t cut;              /* offset of the next piece; SIZE_MAX: the input ends in data */
    PgnReader reader;        /* splits data (pgn_chunk_next) */
    unsigned first_line;     /* input line and column offset of data[0] */
    size_t first_offset;
    bool overran;            /* the game after the last one returned runs past the cut ... */
    size_t restart;          /* ... and begins at data[restart], */
    unsigned restart_line;   /* on this input line, at this column offset */
    size_t restart_offset;
} PgnChunk;

typedef enum PgnTake {
    PGN_TAKE_CHUNK,          /* *c holds the next piece of the input */
    PGN_TAKE_END,            /* the input is read */
    PGN_TAKE_NO_CUT          /* no cut in reach (a very long game): read one game with pgn_next_raw */
} PgnTake;

/* Takes the next piece of about `bytes` bytes into c (bytes <= PGN_MAX_CHUNK / 4).
 * r must be between two games (after pgn_next_raw, or a chunk). */
PgnTake pgn_take_chunk(PgnReader *r, size_t bytes, PgnChunk *c);
/* The next game of the chunk into *g; false at the end of the chunk, or
 * when that game runs past the cut (then pgn_chunk_overran is true and what
 * the call reported is to be dropped: the reader reports it again). */
bool pgn_chunk_next(PgnChunk *c, RawGame *g, DiagSink *diag);
/* Puts the chunk's text back in front of the reader's unread input, and the
 * reader's line count with it: all of it (`whole`), or from where its
 * overrunning game begins. Chunks go back in the reverse of the order they
 * were taken. */
void pgn_give_back(PgnReader *r, const PgnChunk *c, bool whole);
void pgn_chunk_free(PgnChunk *c);
/* The largest chunk: a piece with no cut this long is read game by game. */
#define PGN_MAX_CHUNK ((size_t)1 << 20)

typedef enum PgnParseStatus {
    PGN_OK,          /* read completely */
    PGN_DAMAGED,     /* read with a problem (reported); the tree holds what could be read */
    PGN_UNUSABLE     /* nothing to search (bad FEN, unsupported variant); reported */
} PgnParseStatus;

/* Builds *out (tags, tree, result) from raw in arena a. `file` names the
 * input in messages. The nodes are numbered (game_number_nodes). A NUL byte
 * read as a space is reported (once per game, in text order with the
 * game's other problem); an oversized game is reported and is PGN_UNUSABLE. */
PgnParseStatus pgn_parse_game(const RawGame *raw, const char *file, Arena *a, Game *out,
                              DiagSink *diag);

/* Told of each node the tree gains while a game is parsed, once the node
 * is made (its position, move and parent set; its children to come), in
 * the order of the text: a caller's look at each position while it is
 * still in the cache. */
typedef struct PgnMoveHook {
    void (*node_made)(void *ctx, const GameNode *n);
    void *ctx;
} PgnMoveHook;

/* pgn_parse_game, telling hook of each node made. */
PgnParseStatus pgn_parse_game_hooked(const RawGame *raw, const char *file, Arena *a, Game *out,
                                     DiagSink *diag, const PgnMoveHook *hook);

/* A piece of one of `pieces` (bit p for Piece code p; bit 0, the empty
 * square, is never set) on one of `squares`. */
typedef struct PgnPlacement {
    uint16_t pieces;
    Bitboard squares;
} PgnPlacement;

#define PGN_GATE_PLACEMENTS 16

/* What a caller needs of a game to care about its moves: a game whose
 * Result tag says another result than `result` (when set), whose tags
 * `admits` refuses (when set), or none of whose positions has one of the
 * placements (when there are some), matters only for its messages. */
typedef struct PgnGate {
    const char *result;          /* "1-0", "0-1", "1/2-1/2", or NULL */
    int nplacements;
    PgnPlacement placements[PGN_GATE_PLACEMENTS];
    /* asked once the tags and the start position are read (NULL: none) */
    bool (*admits)(void *ctx, const Game *g);
    void *ctx;
} PgnGate;

/* pgn_parse_game, through a gate. A game the gate shuts out is replayed
 * without a tree: every move is still checked and every problem reported
 * exactly as pgn_parse_game reports it, and the game comes back with its
 * tags, result and root only (Game.moves_skipped, node_count 1). Whether
 * a position has a placement is known only by playing the moves, so a
 * game that reaches one is then parsed again with its tree (its messages
 * are held back until one of the two passes finishes). */
PgnParseStatus pgn_parse_game_gated(const RawGame *raw, const char *file, Arena *a, Game *out,
                                    DiagSink *diag, const PgnGate *gate);

/* Whether some position of g's tree, the start and every variation's
 * included, has one of the gate's placements: what a game read through the
 * gate with its tree would need (for a tree read through another gate). */
bool pgn_game_has_placement(const Game *g, const PgnGate *gate);

#endif
