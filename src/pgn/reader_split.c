/*
 * src/pgn/reader_split.c — stage 1 of the PGN reader (pgn/reader.h):
 * splitting a byte stream into the texts of its games (pgn_next_raw), and
 * pieces of it into chunks that worker threads split (pgn_take_chunk).
 *
 * Stage 1 (splitting) works line by line over an input window and tracks
 * just enough state to find game boundaries: inside a {comment}, the
 * variation depth, whether the game has movetext yet, and the tag names seen.
 * A game ends after its termination marker at depth 0, or before a tag line
 * that starts another game (the current game has movetext, or repeats a tag
 * name), or before a complete tag-pair line met inside an unclosed comment.
 * Runs of lines that change nothing but the tag names seen are taken at
 * once: once a game has movetext, lines with no bracket, result, CR or
 * escape; in its tag section, tag pairs of the usual form, whose places
 * are marked for stage 2 (RawGame.tag_marks, tag_lines.c).
 * A line ends at LF, CRLF or a lone CR. A line longer than PGN_MAX_SEGMENT
 * is taken in pieces (cut after a blank or delimiter where one is near), so
 * the window never holds more than about one piece: text without line ends
 * (binary junk, NUL bytes, /dev/zero) is scanned in bounded memory. A game
 * whose text would pass the reader's max_game_size stops being kept; its
 * boundaries are still found the same way, and it comes back `oversized`.
 * A NUL byte counts as a blank everywhere, and becomes one in a game's text.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pgn/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/utf8.h"
#include "pgn/reader_int.h"
#include "pgn/tag_lines.h"

/* ==== lines and tokens ==================================================== */

/* `[Name` with optional blanks after the bracket. */
bool starts_tag(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && is_blank(s[i])) i++;
    if (i >= n || s[i] != '[') return false;
    i++;
    while (i < n && is_blank(s[i])) i++;
    return i < n && is_class(s[i], PC_NAME);
}

/* A whole line of the form [Name "value"] (nothing else but blanks). */
static bool is_tag_pair_line(const char *s, size_t n)
{
    if (!starts_tag(s, n)) return false;
    const char *q1 = memchr(s, '"', n);
    if (!q1) return false;
    size_t i = (size_t)(q1 - s) + 1;
    while (i < n && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
    if (i >= n) return false;
    i++;
    while (i < n && is_blank(s[i])) i++;
    if (i >= n || s[i] != ']') return false;
    for (i++; i < n; i++)
        if (!is_class(s[i], PC_SPACE)) return false;
    return true;
}

/* Could this token begin a game's movetext? Move numbers, results, comments,
 * variations and SAN-like moves can; "<HTML>" or "MIME-Version:" cannot. */
bool looks_like_movetext(const char *s, size_t n)
{
    if (n == 0) return false;
    char c = s[0];
    if (is_class(c, PC_DIGIT) || c == '{' || c == '(' || c == ';' || c == '*') return true;
    if ((c == 'O' || c == 'o') && n >= 3 && s[1] == '-' && (s[2] == 'O' || s[2] == 'o'))
        return true;
    if ((n >= 2 && s[0] == '-' && s[1] == '-') || (n == 2 && s[0] == 'Z' && s[1] == '0'))
        return true;                                            /* null moves */
    size_t i = (c == 'K' || c == 'Q' || c == 'R' || c == 'B' || c == 'N' || c == 'P') ? 1 : 0;
    /* [a-h]?[1-8]?[x:-]?[a-h][1-8] */
    size_t j = i;
    if (j < n && s[j] >= 'a' && s[j] <= 'h') j++;
    if (j < n && s[j] >= '1' && s[j] <= '8') j++;
    if (j < n && (s[j] == 'x' || s[j] == ':' || s[j] == '-')) j++;
    if (j + 1 < n + 1 && j + 1 <= n && j < n && s[j] >= 'a' && s[j] <= 'h' && j + 1 < n &&
        s[j + 1] >= '1' && s[j + 1] <= '8')
        return true;
    /* plain destination square right after an optional piece letter: "e4", "Nf3" */
    return i + 1 < n && s[i] >= 'a' && s[i] <= 'h' && s[i + 1] >= '1' && s[i + 1] <= '8';
}

/* ==== stage 1: splitting the input into games ============================ */

#define READ_CHUNK (64 * 1024)
/* Most games' text is shorter than 2 KB: a new RawGame starts with room
 * for that (sb_reserve makes it 2048). */
#define TYPICAL_GAME_BYTES 1024
/* A RawGame's text buffer larger than this is released by raw_game_trim. */
#define RAW_KEEP_CAPACITY ((size_t)1 << 20)

void raw_game_init(RawGame *g)
{
    memset(g, 0, sizeof *g);
}

void raw_game_free(RawGame *g)
{
    sb_free(&g->text);
}

void raw_game_trim(RawGame *g)
{
    if (g->text.cap > RAW_KEEP_CAPACITY) sb_free(&g->text);
}

void pgn_open_stream(PgnReader *r, FILE *fp, const char *name, DiagSink *diag)
{
    memset(r, 0, sizeof *r);
    r->fp = fp;
    r->name = name;
    r->diag = diag;
    r->line = 1;
    r->max_game_size = PGN_DEFAULT_MAX_GAME_SIZE;
    r->stop_at = SIZE_MAX;
}

int pgn_open(PgnReader *r, const char *path, DiagSink *diag)
{
    if (strcmp(path, "-") == 0) {
        pgn_open_stream(r, stdin, "<stdin>", diag);
        return 0;
    }
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        diag_plain(diag, DIAG_ERROR, "cannot open input file '%s': %s", path, strerror(errno));
        return -1;
    }
    /* read straight into the window, 64 KB at a time, not through stdio's
     * buffer (which copied 4 KB of every 64 KB once more); the kernel may
     * read further ahead of a file read from start to end. A regular file
     * is read by offset (read_at), so that a jump needs no seek. */
    setvbuf(fp, NULL, _IONBF, 0);
    posix_fadvise(fileno(fp), 0, 0, POSIX_FADV_SEQUENTIAL);
    pgn_open_stream(r, fp, path, diag);
    r->owns_fp = true;
    struct stat st;
    r->by_offset = fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode);
    return 0;
}

void pgn_close(PgnReader *r)
{
    if (r->owns_fp && r->fp) fclose(r->fp);
    free(r->buf);
    r->buf = NULL;
    r->fp = NULL;
}

/* Reads n bytes at the input offset after the window's end into to, or
 * fewer at the end of the file or on a read error (*failed set, errno
 * says why). */
static size_t read_at(const PgnReader *r, char *to, size_t n, bool *failed)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(fileno(r->fp), to + got, n - got, (off_t)(r->buf_offset + r->len + got));
        if (k > 0) {
            got += (size_t)k;
        } else if (k == 0 || errno != EINTR) {
            *failed = k < 0;
            break;
        }
    }
    return got;
}

/* Reads up to n more bytes of input, keeping buf[pos..len). False when
 * nothing more came. The window holds at most one line piece plus a chunk,
 * so it stays small. */
static bool fill_up_to(PgnReader *r, size_t n)
{
    if (r->eof) return false;
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->buf_offset += r->pos;
        r->len -= r->pos;
        r->pos = 0;
    }
    if (r->cap - r->len < n) {
        r->cap = r->cap ? r->cap * 2 : 2 * READ_CHUNK;
        while (r->cap - r->len < n) r->cap *= 2;
        r->buf = xrealloc(r->buf, r->cap + 1);
    }
    bool failed = false;
    size_t got = r->by_offset ? read_at(r, r->buf + r->len, n, &failed) : fread(r->buf + r->len, 1, n, r->fp);
    if (got == 0) {
        if (r->by_offset ? failed : ferror(r->fp) != 0) {
            r->io_error = true;
            diag_plain(r->diag, DIAG_ERROR, "error reading '%s': %s", r->name, strerror(errno));
        }
        r->eof = true;
        return false;
    }
    if (!r->saw_cr && memchr(r->buf + r->len, '\r', got)) r->saw_cr = true;
    r->len += got;
    r->bytes_read += got;
    r->read_run = r->read_run + got < READ_CHUNK ? r->read_run + got : READ_CHUNK;
    return true;
}

/* Reads more input: a chunk; or, for a game whose end the reader was told
 * of (pgn_expect_game), as far as that end, or as far as the reading has
 * gone on since its last jump far ahead if that is further. After a jump
 * far ahead (over games ruled out) a game is then read alone, not with the
 * 64 KB after it; a run of games read one after another, or with short
 * jumps between them, is read in reads that grow back to whole chunks (a
 * read call costs about what the kernel's copy of 4 KB does: each game of
 * `check` read alone cost 11% more). */
static bool fill(PgnReader *r)
{
    uint64_t next = r->buf_offset + r->len;   /* the input offset read next */
    size_t n = READ_CHUNK;
    if (r->read_until > next && r->read_until - next < n) {
        n = (size_t)(r->read_until - next);
        if (n < r->read_run) n = r->read_run;
    }
    return fill_up_to(r, n);
}

/* One line, or one piece of a long line, at buf[pos]. */
typedef struct LinePiece {
    size_t content;      /* bytes before the line end */
    size_t consumed;     /* content plus the line end (0, 1 or 2 bytes) */
    bool newline_only;   /* the line end is a single '\n' */
    bool partial;        /* a piece: the line goes on after it */
} LinePiece;

/* Where to cut a piece of PGN_MAX_SEGMENT bytes that has no line end: just
 * after its last blank or delimiter in the second half, so that tokens stay
 * whole; else at the full length (a token that long is not PGN anyway). */
static size_t piece_length(const char *s)
{
    for (size_t k = PGN_MAX_SEGMENT; k > PGN_MAX_SEGMENT / 2; k--)
        if (is_class(s[k - 1], PC_DELIM)) return k;
    return PGN_MAX_SEGMENT;
}

/* Makes buf[pos..] hold one whole line, or a piece of a line that is longer
 * than PGN_MAX_SEGMENT, and describes it. False at the end of the input. */
static bool peek_line(PgnReader *r, LinePiece *lp)
{
    size_t scanned = 0;
    for (;;) {
        const char *start = r->buf ? r->buf + r->pos : NULL;
        size_t avail = r->len - r->pos;
        size_t window = avail < PGN_MAX_SEGMENT ? avail : PGN_MAX_SEGMENT;
        const char *nl = window > scanned ? memchr(start + scanned, '\n', window - scanned) : NULL;
        size_t end = nl ? (size_t)(nl - start) : window;
        const char *cr =
            r->saw_cr && end > scanned ? memchr(start + scanned, '\r', end - scanned) : NULL;
        if (cr) {
            size_t k = (size_t)(cr - start);
            if (k + 1 < avail || r->eof) {   /* CRLF, or a lone CR (old Mac files) */
                bool crlf = k + 1 < avail && start[k + 1] == '\n';
                *lp = (LinePiece){k, k + 1 + crlf, false, false};
                return true;
            }
            scanned = k;   /* a CR last in the window: is a '\n' next? */
        } else if (nl) {
            *lp = (LinePiece){end, end + 1, true, false};
            return true;
        } else if (window == PGN_MAX_SEGMENT) {
            size_t n = piece_length(start);
            *lp = (LinePiece){n, n, false, true};
            return true;
        } else {
            scanned = window;
        }
        if (!fill(r) && scanned == r->len - r->pos) {
            if (r->len == r->pos) return false;
            /* the last line, without a line end */
            *lp = (LinePiece){r->len - r->pos, r->len - r->pos, false, false};
            return true;
        }
    }
}

/* Moves past the first n bytes of the current line (or piece). */
static void advance_in_line(PgnReader *r, size_t n)
{
    r->pos += n;
    r->line_offset += n;
}

/* Moves past a line piece: to the next line, or on in the same line. */
static void advance_piece(PgnReader *r, const LinePiece *lp)
{
    r->pos += lp->consumed;
    r->mid_line = lp->partial;
    if (lp->partial) {
        r->line_offset += lp->consumed;
    } else {
        r->line++;
        r->line_offset = 0;
    }
}

/* The input offset where the current line starts (its byte-order marks
 * skipped take no column: line_offset does not count them). */
static uint64_t line_start_offset(const PgnReader *r)
{
    return r->buf_offset + r->pos - r->line_offset - (r->bom_line == r->line ? r->bom_bytes : 0);
}

/* The game starts at the current line's column `column`. */
static void game_starts(const PgnReader *r, RawGame *g, unsigned column)
{
    g->first_line = r->line;
    g->first_column = column;
    g->first_offset = line_start_offset(r) + column - 1;
}

/* After a termination marker, where its line ends, when the window holds
 * that line end (or the input ends before one). */
static bool end_of_result_line(const PgnReader *r, uint64_t *end)
{
    const char *s = r->buf + r->pos;
    size_t avail = r->len - r->pos;
    const char *nl = memchr(s, '\n', avail);
    const char *cr = r->saw_cr ? memchr(s, '\r', nl ? (size_t)(nl - s) : avail) : NULL;
    uint64_t at = r->buf_offset + r->pos;
    if (cr) {
        size_t k = (size_t)(cr - s);
        if (k + 1 == avail && !r->eof) return false;   /* is a '\n' next? */
        *end = at + k + 1 + (k + 1 < avail && s[k + 1] == '\n');
        return true;
    }
    if (nl) *end = at + (size_t)(nl - s) + 1;
    else if (r->eof) *end = at + avail;
    return nl || r->eof;
}

void pgn_skip_game(PgnReader *r, uint64_t next_offset, unsigned next_line)
{
    r->games++;
    r->jump = true;
    r->jump_offset = next_offset;
    r->jump_line = next_line;
}

void pgn_expect_game(PgnReader *r, uint64_t end_offset)
{
    r->read_until = end_offset;
}

/* Makes the jump pgn_skip_game asked for: within the window when the
 * offset is in it, else by a seek (the window read again from there). A
 * jump further ahead of the window's end than the reading has gone on
 * since the last such jump is far: reads start small again (fill). */
static void make_jump(PgnReader *r)
{
    r->jump = false;
    uint64_t at = r->buf_offset + r->pos;
    if (r->jump_offset >= at && r->jump_offset <= r->buf_offset + r->len) {
        r->pos = (size_t)(r->jump_offset - r->buf_offset);
    } else if (r->by_offset || fseeko(r->fp, (off_t)r->jump_offset, SEEK_SET) == 0) {
        uint64_t end = r->buf_offset + r->len;
        if (r->jump_offset < end || r->jump_offset - end > r->read_run) r->read_run = 0;
        r->buf_offset = r->jump_offset;
        r->pos = r->len = 0;
        r->eof = false;
    } else {
        r->io_error = r->eof = true;
        r->pos = r->len;
        diag_plain(r->diag, DIAG_ERROR, "error reading '%s': %s", r->name, strerror(errno));
    }
    r->line = r->jump_line;
    r->line_offset = 0;
    r->mid_line = false;
}

/* Splitting state of the game being collected. */
typedef struct SplitState {
    bool started;        /* some line of the game was taken */
    bool has_movetext;   /* moves, comments or variations seen */
    bool has_content;    /* tags, moves or variations: more than comments */
    bool in_comment;
    bool line_comment;   /* a ';' comment runs to the end of the current line */
    int depth;           /* variation depth */
    int tag_count;
    uint64_t tag_bits;   /* bit (hash % 64) of each name in tag_hash: most names are new */
    uint32_t tag_hash[64];   /* the tag names seen, the first 64 (only [0, tag_count) is set) */
    /* comment_fate's last answer (closed, undecided), which holds for every
     * line before this input offset: the brace found, or the end of what was
     * looked at; 0 when none */
    uint64_t fate_until;
    int fate;
} SplitState;

/* A new game's state (tag_hash is not cleared: only tag_count entries are read). */
static void split_state_clear(SplitState *st)
{
    st->started = st->has_movetext = st->has_content = st->in_comment = st->line_comment = false;
    st->depth = 0;
    st->tag_count = 0;
    st->tag_bits = 0;
    st->fate_until = 0;
}

static uint32_t name_hash(const char *s, size_t n)
{
    uint32_t h = NAME_HASH_START;
    for (size_t i = 0; i < n; i++) h = name_hash_step(h, s[i]);
    return h;
}

/* Hash of the tag name on a line known to start a tag. */
static uint32_t tag_line_hash(const char *s, size_t n)
{
    size_t i = 0;
    while (s[i] != '[') i++;
    i++;
    while (i < n && is_blank(s[i])) i++;
    size_t start = i;
    while (i < n && is_class(s[i], PC_NAME)) i++;
    return name_hash(s + start, i - start);
}

static bool seen_tag(const SplitState *st, uint32_t h)
{
    if (!(st->tag_bits >> (h % 64) & 1)) return false;
    for (int i = 0; i < st->tag_count; i++)
        if (st->tag_hash[i] == h) return true;
    return false;
}

static void remember_tag(SplitState *st, uint32_t h)
{
    if (st->tag_count == 64) return;
    st->tag_hash[st->tag_count++] = h;
    st->tag_bits |= (uint64_t)1 << (h % 64);
}

/* Offset just past the ']' closing the '[' at s[i] (quoted strings may hold
 * ']'), or n. */
static size_t skip_bracket_group(const char *s, size_t n, size_t i)
{
    for (i++; i < n && s[i] != ']'; i++) {
        if (s[i] != '"') continue;
        /* the closing quote: the next one, when no backslash comes before it */
        const char *quote = memchr(s + i + 1, '"', n - i - 1);
        if (quote && !memchr(s + i + 1, '\\', (size_t)(quote - s) - i - 1)) {
            i = (size_t)(quote - s);
            continue;
        }
        for (i++; i < n && s[i] != '"'; i++)
            if (s[i] == '\\') i++;
        if (i >= n) return n;
    }
    return i < n ? i + 1 : n;
}

#if defined(__SSE2__)
/* Bit k set when byte k of b is a PC_SPLIT character, { } ( ) ; [ ] * - /,
 * found by bit tricks (fewer operations than one compare per character):
 * ESC (0x1B) is caught with ';', which only sends a fast path to the
 * full scan a little early. */
static inline unsigned split_char_mask(__m128i b)
{
    __m128i parens = _mm_sub_epi8(b, _mm_set1_epi8('('));   /* ( ) * as 0 1 2 */
    __m128i hits = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(_mm_or_si128(b, _mm_set1_epi8(0x60)), _mm_set1_epi8('{')),   /* ; [ { */
                     _mm_cmpeq_epi8(_mm_or_si128(b, _mm_set1_epi8(0x20)), _mm_set1_epi8('}'))),  /* ] } */
        _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(parens, _mm_set1_epi8(2)), parens),
                     _mm_cmpeq_epi8(_mm_or_si128(b, _mm_set1_epi8(0x02)), _mm_set1_epi8('/'))));  /* - / */
    return (unsigned)_mm_movemask_epi8(hits);
}
#endif
/* The first byte at or after i in s[0..n) that may matter when splitting (a
 * PC_SPLIT character, or an ESC: see split_char_mask), or n. Most movetext
 * lines have none but a castling '-', so this is where splitting spends its
 * time: with SSE2 it tests 16 bytes at a time. */
static size_t find_split_char(const char *s, size_t i, size_t n)
{
#if defined(__SSE2__)
    for (; i + 16 <= n; i += 16) {
        unsigned mask = split_char_mask(_mm_loadu_si128((const __m128i *)(const void *)(s + i)));
        if (mask) return i + (size_t)__builtin_ctz(mask);
    }
#endif
    while (i < n && !is_class(s[i], PC_SPLIT)) i++;
    return i;
}

/* Is s[i] a '-' or '/' that cannot be part of a result: one after a byte
 * other than a digit on the same line (O-O, Nb1-c3)? s[0] starts a line. */
static inline bool is_harmless_dash(const char *s, size_t i)
{
    return (s[i] == '-' || s[i] == '/') && i > 0 && s[i - 1] != '\n' && !is_class(s[i - 1], PC_DIGIT);
}

/* The first byte of a line that needs the line to itself in pgn_next_raw:
 * the '%' of an escape line, the first byte of a byte-order mark. */
static inline bool starts_unusual_line(char c)
{
    return c == '%' || (unsigned char)c == 0xEF;
}

/* Length of the whole lines at the start of s[0..n) (s[0] starts a line)
 * that hold no PC_SPLIT byte but harmless dashes, no CR (when the input
 * `may_hold_cr`) and do not start with starts_unusual_line; in *lines their
 * count, and in *stop_at the offset of the byte that ends them (n when none
 * does). Once a game has movetext and is outside a comment, such a line
 * changes nothing in the splitting state and is kept as it is, so
 * pgn_next_raw takes a run of them at once instead of line by line. */
static size_t plain_movetext_lines(const char *s, size_t n, bool may_hold_cr, unsigned *lines,
                                   size_t *stop_at)
{
    size_t i = 0, whole = 0;   /* whole: just past the last line end before i */
    unsigned count = 0;
    if (n > 0 && starts_unusual_line(s[0])) n = 0;
#if defined(__SSE2__)
    /* 32 bytes at a time (an ESC caught by split_char_mask only ends the
     * run early); a line start after a line end in the 32 bytes is bit 1 to
     * 32 above that end */
    for (; i + 32 <= n; i += 32) {
        __m128i lo = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i hi = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
        uint64_t stop = split_char_mask(lo) | (uint64_t)split_char_mask(hi) << 16;
        if (may_hold_cr)
            stop |= (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(lo, _mm_set1_epi8('\r'))) |
                    (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(hi, _mm_set1_epi8('\r'))) << 16;
        uint64_t ends = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(lo, _mm_set1_epi8('\n'))) |
                        (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(hi, _mm_set1_epi8('\n'))) << 16;
        for (uint64_t e = ends; e; e &= e - 1) {
            size_t next = i + (size_t)__builtin_ctzll(e) + 1;
            if (next < n && starts_unusual_line(s[next])) stop |= (uint64_t)1 << (next - i);
        }
        for (; stop; stop &= stop - 1) {
            unsigned k = (unsigned)__builtin_ctzll(stop);
            if (k < 32 && is_harmless_dash(s, i + k)) continue;
            ends &= ((uint64_t)1 << k) - 1;   /* the lines that end before the stop */
            if (ends) whole = i + 64 - (size_t)__builtin_clzll(ends);
            for (; ends; ends &= ends - 1) count++;
            *lines = count;
            *stop_at = i + k;
            return whole;
        }
        if (ends) whole = i + 64 - (size_t)__builtin_clzll(ends);
        for (; ends; ends &= ends - 1) count++;   /* nearly always one bit or none */
    }
#endif
    for (; i < n; i++) {
        if (s[i] == '\n') {
            count++;
            whole = i + 1;
            if (i + 1 < n && starts_unusual_line(s[i + 1])) {
                i++;
                break;
            }
        } else if ((is_class(s[i], PC_SPLIT) || (may_hold_cr && s[i] == '\r')) && !is_harmless_dash(s, i)) {
            break;
        }
    }
    *lines = count;
    *stop_at = i;
    return whole;
}

/* Where the scan of movetext from s[i] (a token start) must go on: the
 * start of the first token holding a character that may matter, or n. Used
 * once the game has movetext and outside a comment: a '-' or '/' after a
 * non-digit (O-O, Nb1-c3) cannot be in a result, and the tokens passed over
 * change nothing. Most movetext lines hold no bracket and no result. */
static size_t skip_plain_tokens(const char *s, size_t i, size_t n)
{
    size_t from = i;
    for (; (i = find_split_char(s, i, n)) < n; i++)
        if (!is_harmless_dash(s, i)) break;
    if (i == n) return n;
    while (i > from && !is_class(s[i - 1], PC_DELIM)) i--;
    return i;
}

/* Scans movetext in s[0..n). Returns the offset just past a termination
 * marker at depth 0, or 0 when the game goes on. */
static size_t scan_movetext(SplitState *st, const char *s, size_t n)
{
    size_t i = 0;
    if (st->has_content && st->has_movetext && !st->in_comment) i = skip_plain_tokens(s, 0, n);
    while (i < n) {
        char c = s[i];
        if (st->in_comment) {
            const char *close = memchr(s + i, '}', n - i);
            if (!close) return 0;
            st->in_comment = false;
            i = (size_t)(close - s) + 1;
            continue;
        }
        if (is_class(c, PC_SPACE)) {
            i++;
            continue;
        }
        switch (c) {
        case '{':
            st->in_comment = true;
            st->has_movetext = true;
            i++;
            continue;
        case ';':
            st->has_movetext = true;
            st->line_comment = true;
            return 0;
        case '(':
            st->depth++;
            st->has_movetext = true;
            st->has_content = true;
            i++;
            continue;
        case ')':
            if (st->depth > 0) st->depth--;
            i++;
            continue;
        case '[':     /* a bracketed group inside the line: skip it, strings included */
            i = skip_bracket_group(s, n, i);
            continue;
        case ']':
        case '}':     /* a stray closer: the parser reports it */
            i++;
            continue;
        default:
            break;
        }
        size_t start = i;
        while (i < n && !is_class(s[i], PC_DELIM)) i++;
        if (st->depth == 0 && is_result(s + start, i - start)) return i;
        if (st->has_movetext || looks_like_movetext(s + start, i - start)) {
            st->has_movetext = true;
            st->has_content = true;
            i = skip_plain_tokens(s, i, n);
        }
    }
    return 0;
}

/* Notes, for stage 2, the tag line t found at offset `at` of the game's text. */
static void mark_tag(RawGame *g, size_t at, const TagLine *t)
{
    if (g->tag_mark_count < RAW_TAG_MARKS && tag_line_mark(&g->tag_marks[g->tag_mark_count], at, t))
        g->tag_mark_count++;
}

/* Lines before a game that are not PGN, gathered into one message per block. */
typedef struct JunkBlock {
    unsigned first_line, last_line, lines;
    bool has_nul;
} JunkBlock;

static void junk_add(JunkBlock *j, unsigned line, const char *s, size_t n)
{
    if (!j->lines) {
        j->first_line = line;
        j->has_nul = false;
    }
    if (!j->lines || line != j->last_line) j->lines++;   /* pieces of one line count once */
    j->last_line = line;
    if (!j->has_nul && memchr(s, '\0', n)) j->has_nul = true;
}

static void junk_end(PgnReader *r, JunkBlock *j)
{
    if (!j->lines) return;
    diag_file(r->diag, r->name, j->first_line, 0, DIAG_WARNING,
              "skipped %u line%s of text that is not PGN%s", j->lines, j->lines == 1 ? "" : "s",
              j->has_nul ? " (it holds NUL bytes)" : "");
    j->lines = 0;
}

/* Only blanks, and no NUL byte (a line of NULs is junk, not a blank line). */
static bool is_blank_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_class(s[i], PC_SPACE) || s[i] == '\0') return false;
    return true;
}

/* Appends n bytes of s (and a '\n' when `newline`) to the game's text. When
 * that would pass the size limit, the game becomes oversized instead: its
 * text is released and nothing more is kept. */
static inline void keep_text(const PgnReader *r, RawGame *g, const char *s, size_t n, bool newline)
{
    if (g->oversized) return;
    if (g->text.len + n + newline + 1 > r->max_game_size) {   /* + 1: the final NUL */
        g->oversized = true;
        g->size_limit = r->max_game_size;
        sb_free(&g->text);
        return;
    }
    sb_append_n(&g->text, s, n);
    if (newline) sb_putc(&g->text, '\n');
}

/* Makes every NUL byte of the game's text a space, noting the first. */
static void blank_out_nuls(RawGame *g)
{
    char *t = g->text.data;
    size_t n = g->text.len;
    char *z = n ? memchr(t, '\0', n) : NULL;
    if (!z) return;
    g->first_nul = (size_t)(z - t) + 1;
    for (size_t i = (size_t)(z - t); i < n; i++)
        if (t[i] == '\0') t[i] = ' ';
}

/* What take_usual_lines did. */
typedef enum UsualLines {
    USUAL_NONE,     /* nothing: the next line is for the loop of pgn_next_raw */
    USUAL_TAKEN,    /* took lines, or learnt that the game's movetext begins */
    USUAL_RESULT    /* took the game up to its termination marker: the game ends */
} UsualLines;

/* The lines of a usual game, taken as the loop of pgn_next_raw would take
 * them one by one, but in runs (r at a line start, outside a comment):
 * before a game, blank lines and the tag pair that starts it; in a tag
 * section, blank lines and tag pairs of the usual form with a name not seen
 * yet (a name seen ends the game: the loop does that), then whether the
 * next line begins the movetext (a move number); in movetext, plain lines
 * and a termination marker outside any variation that is the first byte
 * on its line that matters. Anything else is left to the loop. */
static UsualLines take_usual_lines(PgnReader *r, RawGame *g, SplitState *st, JunkBlock *junk)
{
    const char *s = r->buf + r->pos;
    size_t avail = r->len - r->pos, whole = 0;
    unsigned lines = 0;
    TagLine tag;
    if (!st->started) {
        while (whole < avail && s[whole] == '\n' && r->pos + whole != r->stop_at) whole++;
        if (whole) {   /* blank lines */
            junk_end(r, junk);
            r->pos += whole;
            r->line += (unsigned)whole;
            r->line_offset = 0;
            return USUAL_TAKEN;
        }
        size_t len = tag_line_usual(s, avail, &tag);
        if (!len) return USUAL_NONE;
        junk_end(r, junk);
        st->started = true;
        st->has_content = true;
        remember_tag(st, tag.hash);
        mark_tag(g, g->text.len, &tag);
        game_starts(r, g, (unsigned)r->line_offset + 1);
        keep_text(r, g, s, len, false);
        r->pos += len;
        r->line++;
        r->line_offset = 0;
        return USUAL_TAKEN;
    }
    if (!st->has_content) return USUAL_NONE;
    if (!st->has_movetext) {
        for (;;) {
            size_t len;
            if (whole < avail && s[whole] == '\n') {
                len = 1;
            } else if ((len = tag_line_usual(s + whole, avail - whole, &tag)) && !seen_tag(st, tag.hash)) {
                remember_tag(st, tag.hash);
                mark_tag(g, g->text.len + whole, &tag);
            } else {
                break;
            }
            whole += len;
            lines++;
        }
        /* a line that begins with a move number begins the movetext: the
         * loop would learn it from that first token */
        size_t end = whole;
        if (end < avail && is_class(s[end], PC_DIGIT)) {
            while (end < avail && !is_class(s[end], PC_DELIM)) end++;
            if (end < avail && !is_result(s + whole, end - whole) && looks_like_movetext(s + whole, end - whole))
                st->has_movetext = true;
        }
        if (!whole) return st->has_movetext ? USUAL_TAKEN : USUAL_NONE;
    } else {
        size_t stop;
        whole = plain_movetext_lines(s, avail, r->saw_cr, &lines, &stop);
        if (st->depth == 0 && stop < avail && (s[stop] == '-' || s[stop] == '/' || s[stop] == '*')) {
            /* the token of the stop: a termination marker ends the game
             * right after it, the rest of its line is a line of its own */
            size_t start = stop, end = stop;
            while (start > whole && !is_class(s[start - 1], PC_DELIM)) start--;
            while (end < avail && !is_class(s[end], PC_DELIM)) end++;
            if (end < avail && end - whole < PGN_MAX_SEGMENT / 2 && is_result(s + start, end - start)) {
                keep_text(r, g, s, end, true);
                r->pos += end;
                r->line_offset = (lines ? 0 : r->line_offset) + (end - whole);
                r->line += lines;
                r->mid_line = false;
                return USUAL_RESULT;
            }
        }
        if (!whole) return USUAL_NONE;
    }
    keep_text(r, g, s, whole, false);
    r->pos += whole;
    r->line += lines;
    r->line_offset = 0;
    return USUAL_TAKEN;
}

/* How far past a tag pair line inside a brace comment the reader looks for
 * the brace that tells whether the comment is closed (comment_fate). */
#define COMMENT_LOOKAHEAD ((size_t)1 << 20)

typedef enum CommentFate { COMMENT_CLOSED, COMMENT_UNCLOSED, COMMENT_UNDECIDED } CommentFate;

/* A line inside a brace comment starts with a tag pair at buf[pos + rel]:
 * is the comment closed after it? The first brace from there on tells. A
 * '}' closes it, and the tag pair is comment text, as the PGN standard and
 * CQL 6.2 have it; a '{', or no brace in the next COMMENT_LOOKAHEAD bytes
 * nor before the end of the input, means the comment was never closed, and
 * the tag pair begins the next game. A chunk's reader, whose memory ends
 * after its cut (stop_at set) and holds no brace: undecided. The answer
 * holds for the comment's later lines up to the brace (or the end looked
 * at): kept in st, so that a comment of many tag pairs is looked through
 * once, not once for each. */
static CommentFate comment_fate(PgnReader *r, size_t rel, SplitState *st)
{
    uint64_t at = r->buf_offset + r->pos + rel;
    if (at < st->fate_until) return (CommentFate)st->fate;
    size_t scanned = 0;   /* bytes looked at from buf[pos + rel] */
    CommentFate fate = COMMENT_UNCLOSED;
    for (;;) {
        const char *s = r->buf + r->pos + rel;
        size_t avail = r->len - r->pos - rel;
        if (avail > COMMENT_LOOKAHEAD) avail = COMMENT_LOOKAHEAD;
        while (scanned < avail && s[scanned] != '}' && s[scanned] != '{') scanned++;
        if (scanned < avail) {
            fate = s[scanned] == '}' ? COMMENT_CLOSED : COMMENT_UNCLOSED;
            break;
        }
        if (avail == COMMENT_LOOKAHEAD) break;
        if (!fill(r)) {
            if (r->stop_at != SIZE_MAX) fate = COMMENT_UNDECIDED;
            break;
        }
    }
    st->fate_until = at + scanned;
    st->fate = fate;
    return fate;
}

/* Does the line at buf[pos + rel], of len bytes, inside a brace comment,
 * end the comment: a tag pair, and the comment never closed? Undecided in a
 * chunk, the comment goes on: the game then runs past the chunk's cut and
 * is read again from the whole input (pgn_chunk_next), where the answer is
 * the same as when it is read there first. */
static bool ends_unclosed_comment(PgnReader *r, size_t rel, size_t len, SplitState *st)
{
    return is_tag_pair_line(r->buf + r->pos + rel, len) && comment_fate(r, rel, st) == COMMENT_UNCLOSED;
}

bool pgn_next_raw(PgnReader *r, RawGame *g)
{
    if (r->jump) make_jump(r);
    SplitState st;
    split_state_clear(&st);
    raw_game_trim(g);
    if (!g->text.cap) sb_reserve(&g->text, TYPICAL_GAME_BYTES);   /* one allocation, not five */
    sb_clear(&g->text);
    g->first_nul = 0;
    g->oversized = false;
    g->ends_input = false;
    g->tag_mark_count = 0;
    JunkBlock junk = {0, 0, 0, false};
    bool rest_unscanned = false;   /* the line's further pieces are a tag or an escape line */
    bool ended_by_result = false;

    for (;;) {
        if (r->pos == r->stop_at && !st.started) break;   /* a chunk's cut, between games */
        if (!r->mid_line && !st.in_comment && r->len > r->pos) {
            UsualLines took = take_usual_lines(r, g, &st, &junk);
            if (took == USUAL_RESULT) {
                ended_by_result = true;
                break;
            }
            if (took == USUAL_TAKEN) continue;
        }
        LinePiece lp;
        if (!peek_line(r, &lp)) {
            g->ends_input = true;
            break;
        }
        bool line_start = !r->mid_line;
        bool bom = line_start && (unsigned char)r->buf[r->pos] == 0xEF && utf8_has_bom(r->buf + r->pos, lp.content);
        size_t bom_len = bom ? 3 : 0;
        bool comment_ends = line_start && st.in_comment && ends_unclosed_comment(r, bom_len, lp.content - bom_len, &st);
        if (bom && (!st.in_comment || comment_ends)) {
            /* a byte-order mark: at the start of the input, or of a file
             * appended to another one; it takes no column (inside a
             * comment it is text, unless a file appended after a comment
             * never closed begins there) */
            r->pos += 3;
            lp.content -= 3;
            lp.consumed -= 3;
            if (r->bom_line != r->line) r->bom_bytes = 0;
            r->bom_line = r->line;
            r->bom_bytes += 3;
        }
        const char *s = r->buf + r->pos;
        size_t content = lp.content;
        if (line_start) {
            st.line_comment = false;
            rest_unscanned = false;
        }
        /* a line that starts a tag, outside a comment, and its name's hash
         * (found once: both tests below need them) */
        bool tag_line = line_start && !st.in_comment && starts_tag(s, content);
        uint32_t tag_hash = tag_line ? tag_line_hash(s, content) : 0;

        if (!st.started) {
            if (!line_start) {   /* a further piece of a line that started no game */
                if (!rest_unscanned && !is_blank_text(s, content))
                    junk_add(&junk, r->line, s, content);
                advance_piece(r, &lp);
                continue;
            }
            size_t k = 0;
            while (k < content && is_class(s[k], PC_SPACE)) k++;
            bool blank = k == content && !memchr(s, '\0', content);
            bool escape = content > 0 && s[0] == '%';
            size_t tok_end = k;
            while (tok_end < content && !is_class(s[tok_end], PC_SPACE)) tok_end++;
            if (blank || escape || (!tag_line && !looks_like_movetext(s + k, tok_end - k))) {
                if (!blank && !escape) junk_add(&junk, r->line, s, content);
                else junk_end(r, &junk);
                if (escape) rest_unscanned = true;
                advance_piece(r, &lp);
                continue;
            }
            junk_end(r, &junk);
            st.started = true;
            game_starts(r, g, (unsigned)r->line_offset + 1);
        } else if (!line_start) {
            /* a further piece of a long line: no game starts here */
        } else if (st.in_comment) {
            if (comment_ends) break;   /* a comment never closed: the next game */
        } else if (tag_line && st.depth == 0) {
            if (!st.has_content) {
                /* only comments so far: a remark about the file, not a game */
                split_state_clear(&st);
                sb_clear(&g->text);
                g->tag_mark_count = 0;
                g->oversized = false;
                game_starts(r, g, 1);
                st.started = true;
            } else if (st.has_movetext || seen_tag(&st, tag_hash)) {
                break;
            }
        }

        size_t end = 0;
        if (!line_start) {
            if (!rest_unscanned && !st.line_comment) end = scan_movetext(&st, s, content);
        } else if (content > 0 && s[0] == '%') {
            rest_unscanned = true;   /* escape line: kept for the parser, which skips it */
        } else if (tag_line && !st.has_movetext) {
            remember_tag(&st, tag_hash);
            st.has_content = true;
            rest_unscanned = true;
            size_t k = 0;
            while (s[k] != '[') k++;
            k = skip_bracket_group(s, content, k);
            while (k < content && is_class(s[k], PC_SPACE)) k++;
            if (k < content) end = scan_movetext(&st, s, content);   /* text after the tag */
        } else {
            end = scan_movetext(&st, s, content);
        }
        if (end) {          /* termination marker: the rest of the line stays */
            if (!st.has_content && !st.has_movetext) {
                /* a result with no game before it, as in "* *" */
                size_t k = 0;
                while (is_class(s[k], PC_SPACE)) k++;
                diag_file(r->diag, r->name, r->line, (unsigned)(r->line_offset + k) + 1,
                          DIAG_WARNING, "result '%.*s' outside any game ignored",
                          (int)(end - k), s + k);
                advance_in_line(r, end);
                r->mid_line = false;
                split_state_clear(&st);
                sb_clear(&g->text);
                g->tag_mark_count = 0;
                continue;
            }
            keep_text(r, g, s, end, true);
            advance_in_line(r, end);
            r->mid_line = false;   /* the rest is looked at as a line of its own */
            ended_by_result = true;
            break;
        }
        if (lp.partial) keep_text(r, g, s, content, false);
        else if (lp.newline_only) keep_text(r, g, s, content + 1, false);   /* with its '\n' */
        else keep_text(r, g, s, content, true);   /* CRLF, CR or none: a '\n' instead */
        advance_piece(r, &lp);
    }
    junk_end(r, &junk);
    if (!st.started) return false;
    /* the line of the termination marker, or the one before the next game */
    g->last_line = ended_by_result ? r->line : r->line - 1;
    g->end_offset = line_start_offset(r);   /* of line last_line + 1 */
    g->end_offset_known = !ended_by_result || end_of_result_line(r, &g->end_offset);
    g->number = ++r->games;
    if (!g->oversized) blank_out_nuls(g);
    return true;
}

/* ==== stage 1 on worker threads: chunks ================================== */

/* Line ends in s[0..n), counted as the reader counts them: LF, CRLF and a
 * lone CR are one each (s does not end between the CR and LF of a CRLF).
 * Without a CR in the input (`may_hold_cr` false) only LFs are looked at. */
static unsigned count_line_ends(const char *s, size_t n, bool may_hold_cr)
{
    unsigned lines = 0;
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    while (i + 17 <= n) {   /* 16 byte counters, summed before they can overflow */
        __m128i counts = _mm_setzero_si128();
        for (int k = 0; k < 255 && i + 17 <= n; k++, i += 16) {
            __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            __m128i ends = _mm_cmpeq_epi8(b, lf);
            if (may_hold_cr) {   /* a CR not followed by a LF */
                __m128i next = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 1));
                ends = _mm_or_si128(ends, _mm_andnot_si128(_mm_cmpeq_epi8(next, lf), _mm_cmpeq_epi8(b, cr)));
            }
            counts = _mm_sub_epi8(counts, ends);
        }
        __m128i sums = _mm_sad_epu8(counts, _mm_setzero_si128());
        lines += (unsigned)_mm_cvtsi128_si32(sums) + (unsigned)_mm_extract_epi16(sums, 4);
    }
#endif
    for (; i < n; i++) lines += s[i] == '\n' || (s[i] == '\r' && (i + 1 == n || s[i + 1] != '\n'));
    return lines;
}

/* Does the last line before s[at] (a line start) that is not blank start a
 * tag? Also true when there is no such line in s. */
static bool tag_line_before(const char *s, size_t at)
{
    size_t end = at;
    while (end > 0) {
        while (end > 0 && (s[end - 1] == '\n' || s[end - 1] == '\r')) end--;
        size_t start = end;
        while (start > 0 && s[start - 1] != '\n' && s[start - 1] != '\r') start--;
        size_t k = start;
        while (k < end && is_blank(s[k])) k++;
        if (k < end) return starts_tag(s + start, end - start);
        end = start;
    }
    return true;
}

/* The offset of the last '[' in s[from..to), or SIZE_MAX. */
static size_t last_bracket(const char *s, size_t from, size_t to)
{
    size_t i = to;
#if defined(__SSE2__)
    for (; i >= from + 16; i -= 16) {
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i - 16));
        unsigned hits = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(b, _mm_set1_epi8('[')));
        if (hits) return i - 16 + (31 - (size_t)__builtin_clz(hits));
    }
#endif
    while (i > from)
        if (s[--i] == '[') return i;
    return SIZE_MAX;
}

/* The last cut after `from` (> 0) in s[0..n): the start of a line that is a
 * whole tag pair, after a line that is not a tag line, with its own line
 * end in s (and, after a CR, the byte that tells a CRLF). Sets *cut and
 * *after (just past the cut's line end). Looking from the end leaves little
 * of the window for the next chunk. */
static bool find_last_cut(const char *s, size_t n, size_t from, size_t *cut, size_t *after)
{
    for (size_t t = n; (t = last_bracket(s, from, t)) != SIZE_MAX;) {
        if (s[t - 1] != '\n' && s[t - 1] != '\r') continue;
        size_t e = t;
        while (e < n && s[e] != '\n' && s[e] != '\r') e++;
        if (e + 1 >= n) continue;   /* the line, or whether a CR is a CRLF, is not all in s */
        if (!is_tag_pair_line(s + t, e - t) || tag_line_before(s, t)) continue;
        *cut = t;
        *after = e + 1 + (s[e] == '\r' && s[e + 1] == '\n');
        return true;
    }
    return false;
}

/* A window that grew past this (looking for a cut in a long game) is freed
 * when it comes back from its chunk, so that the ring's windows do not all
 * keep the size of the largest. */
#define CHUNK_KEEP_CAPACITY ((size_t)256 << 10)

PgnTake pgn_take_chunk(PgnReader *r, size_t bytes, PgnChunk *c)
{
    if (r->jump) make_jump(r);
    if (r->mid_line || r->buf_offset + r->pos < r->no_cut_before) return PGN_TAKE_NO_CUT;
    size_t want = bytes, cut = SIZE_MAX, after = 0;
    for (;;) {
        /* a window of `want` bytes: the chunk is all of it but the game cut */
        while (r->len - r->pos < want && fill_up_to(r, want - (r->len - r->pos))) {
        }
        size_t avail = r->len - r->pos;
        if (avail == 0) return PGN_TAKE_END;
        if (r->eof && avail <= want) {   /* the rest of the input */
            after = avail;
            break;
        }
        if (find_last_cut(r->buf + r->pos, avail, avail / 2 + 1, &cut, &after)) break;
        if (want >= PGN_MAX_CHUNK) {
            /* games are read one by one at least to the middle of the window
             * (which holds no cut), before a chunk is looked for again */
            r->no_cut_before = r->buf_offset + r->pos + avail / 2;
            return PGN_TAKE_NO_CUT;
        }
        want *= 2;
    }
    /* the chunk takes the window; the reader goes on in the chunk's old
     * memory with what follows the cut */
    char *window = r->buf;
    size_t window_cap = r->cap, start = r->pos, end = r->len;
    size_t taken = cut == SIZE_MAX ? after : cut, rest = end - start - taken;
    r->buf = c->mem;
    r->cap = c->mem_cap;
    if (r->cap > CHUNK_KEEP_CAPACITY) {   /* a window grown for a long game: not kept */
        free(r->buf);
        r->buf = NULL;
        r->cap = 0;
    }
    if (r->cap < rest + bytes) {   /* room for the next window */
        r->cap = rest + bytes + bytes / 4;
        r->buf = xrealloc(r->buf, r->cap + 1);
    }
    memcpy(r->buf, window + start + taken, rest);
    r->buf_offset += start + taken;
    r->pos = 0;
    r->len = rest;
    c->mem = window;
    c->mem_cap = window_cap;
    c->data = window + start;
    c->len = after;
    c->cut = cut;
    c->overran = false;
    c->first_line = r->line;
    c->first_offset = r->line_offset;
    PgnReader *cr = &c->reader;   /* a reader over memory: no stream, all read */
    pgn_open_stream(cr, NULL, r->name, NULL);
    cr->buf = window + start;
    cr->len = cr->cap = after;
    cr->eof = true;
    cr->saw_cr = r->saw_cr;
    cr->max_game_size = r->max_game_size;
    cr->line = r->line;
    cr->line_offset = r->line_offset;
    cr->stop_at = cut;
    r->line += count_line_ends(c->data, taken, r->saw_cr);
    r->line_offset = 0;   /* a cut starts a line; after the rest of the input, nothing follows */
    return PGN_TAKE_CHUNK;
}

bool pgn_chunk_next(PgnChunk *c, RawGame *g, DiagSink *diag)
{
    PgnReader *r = &c->reader;
    if (c->overran) return false;
    size_t pos = r->pos, offset = r->line_offset;
    unsigned line = r->line;
    r->diag = diag;
    bool got = pgn_next_raw(r, g);
    r->diag = NULL;
    if (!got || r->pos <= c->cut) return got;
    c->overran = true;
    c->restart = pos;
    c->restart_line = line;
    c->restart_offset = offset;
    return false;
}

/* Puts s[0..n) in front of the reader's unread input. */
static void push_back(PgnReader *r, const char *s, size_t n)
{
    if (r->pos < n) {
        size_t unread = r->len - r->pos;
        if (n + unread > r->cap) {
            r->cap = n + unread + READ_CHUNK;
            r->buf = xrealloc(r->buf, r->cap + 1);
        }
        memmove(r->buf + n, r->buf + r->pos, unread);
        r->buf_offset = r->buf_offset + r->pos - n;
        r->pos = n;
        r->len = n + unread;
    }
    r->pos -= n;
    memcpy(r->buf + r->pos, s, n);
}

void pgn_give_back(PgnReader *r, const PgnChunk *c, bool whole)
{
    size_t end = c->cut == SIZE_MAX ? c->len : c->cut;
    size_t from = whole ? 0 : c->restart;
    if (end > from) push_back(r, c->data + from, end - from);
    r->line = whole ? c->first_line : c->restart_line;
    r->line_offset = whole ? c->first_offset : c->restart_offset;
    r->mid_line = false;
}

void pgn_chunk_free(PgnChunk *c)
{
    free(c->mem);
}
