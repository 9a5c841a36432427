/*
 * src/pgn/reader.c — streaming PGN reader: game splitting and game parsing.
 *
 * Stage 1 (splitting) works line by line over an input window and tracks
 * just enough state to find game boundaries: inside a {comment}, the
 * variation depth, whether the game has movetext yet, and the tag names seen.
 * A game ends after its termination marker at depth 0, or before a tag line
 * that starts another game (the current game has movetext, or repeats a tag
 * name), or before a complete tag-pair line met inside an unclosed comment.
 * Runs of lines that change nothing but the tag names seen are taken at
 * once: once a game has movetext, lines with no bracket, result, CR or
 * escape; in its tag section, tag pairs of the usual form.
 * A line ends at LF, CRLF or a lone CR. A line longer than PGN_MAX_SEGMENT
 * is taken in pieces (cut after a blank or delimiter where one is near), so
 * the window never holds more than about one piece: text without line ends
 * (binary junk, NUL bytes, /dev/zero) is scanned in bounded memory. A game
 * whose text would pass the reader's max_game_size stops being kept; its
 * boundaries are still found the same way, and it comes back `oversized`.
 * A NUL byte counts as a blank everywhere, and becomes one in a game's text.
 *
 * Stage 2 (parsing) tokenises one game's text with line and column numbers,
 * reads tags, then replays the movetext into the game tree.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pgn/reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "chess/position.h"
#include "chess/san.h"

#if defined(__SSE2__)
#include <emmintrin.h>   /* x86-64 always has SSE2: 16 bytes tested at once */
#endif

/* ==== character classes ================================================== */

enum {
    PC_SPACE = 1,     /* blank, tab, CR, LF, FF, VT, and NUL (read as a space) */
    PC_DIGIT = 2,
    PC_NAME = 4,      /* tag-name characters: letters, digits, '_' */
    PC_DELIM = 8,     /* ends a movetext token: { } ( ) ; [ ] and blanks */
    PC_SPLIT = 16,    /* matters when splitting games: { } ( ) ; [ ] and result characters
                         (split_char_mask finds them again) */
    PC_NUMERIC = 32,  /* starts a movetext word that is not a move: digits, '$', '*' */
    PC_GLYPH = 64     /* ! and ?, glued after a move */
};

static const unsigned char pgn_char_class[256] = {
    ['\0'] = PC_SPACE | PC_DELIM,
    ['\t'] = PC_SPACE | PC_DELIM, ['\n'] = PC_SPACE | PC_DELIM, ['\v'] = PC_SPACE | PC_DELIM,
    ['\f'] = PC_SPACE | PC_DELIM, ['\r'] = PC_SPACE | PC_DELIM, [' '] = PC_SPACE | PC_DELIM,
    ['{'] = PC_DELIM | PC_SPLIT, ['}'] = PC_DELIM | PC_SPLIT, ['('] = PC_DELIM | PC_SPLIT,
    [')'] = PC_DELIM | PC_SPLIT, [';'] = PC_DELIM | PC_SPLIT, ['['] = PC_DELIM | PC_SPLIT,
    [']'] = PC_DELIM | PC_SPLIT, ['*'] = PC_SPLIT | PC_NUMERIC, ['-'] = PC_SPLIT, ['/'] = PC_SPLIT,
    ['$'] = PC_NUMERIC, ['!'] = PC_GLYPH, ['?'] = PC_GLYPH,
    ['0'] = PC_DIGIT | PC_NAME | PC_NUMERIC, ['1'] = PC_DIGIT | PC_NAME | PC_NUMERIC,
    ['2'] = PC_DIGIT | PC_NAME | PC_NUMERIC, ['3'] = PC_DIGIT | PC_NAME | PC_NUMERIC,
    ['4'] = PC_DIGIT | PC_NAME | PC_NUMERIC, ['5'] = PC_DIGIT | PC_NAME | PC_NUMERIC,
    ['6'] = PC_DIGIT | PC_NAME | PC_NUMERIC, ['7'] = PC_DIGIT | PC_NAME | PC_NUMERIC,
    ['8'] = PC_DIGIT | PC_NAME | PC_NUMERIC, ['9'] = PC_DIGIT | PC_NAME | PC_NUMERIC,
    ['_'] = PC_NAME,
    ['A'] = PC_NAME, ['B'] = PC_NAME, ['C'] = PC_NAME, ['D'] = PC_NAME, ['E'] = PC_NAME,
    ['F'] = PC_NAME, ['G'] = PC_NAME, ['H'] = PC_NAME, ['I'] = PC_NAME, ['J'] = PC_NAME,
    ['K'] = PC_NAME, ['L'] = PC_NAME, ['M'] = PC_NAME, ['N'] = PC_NAME, ['O'] = PC_NAME,
    ['P'] = PC_NAME, ['Q'] = PC_NAME, ['R'] = PC_NAME, ['S'] = PC_NAME, ['T'] = PC_NAME,
    ['U'] = PC_NAME, ['V'] = PC_NAME, ['W'] = PC_NAME, ['X'] = PC_NAME, ['Y'] = PC_NAME,
    ['Z'] = PC_NAME,
    ['a'] = PC_NAME, ['b'] = PC_NAME, ['c'] = PC_NAME, ['d'] = PC_NAME, ['e'] = PC_NAME,
    ['f'] = PC_NAME, ['g'] = PC_NAME, ['h'] = PC_NAME, ['i'] = PC_NAME, ['j'] = PC_NAME,
    ['k'] = PC_NAME, ['l'] = PC_NAME, ['m'] = PC_NAME, ['n'] = PC_NAME, ['o'] = PC_NAME,
    ['p'] = PC_NAME, ['q'] = PC_NAME, ['r'] = PC_NAME, ['s'] = PC_NAME, ['t'] = PC_NAME,
    ['u'] = PC_NAME, ['v'] = PC_NAME, ['w'] = PC_NAME, ['x'] = PC_NAME, ['y'] = PC_NAME,
    ['z'] = PC_NAME,
};

static inline bool is_class(char c, int cls) { return (pgn_char_class[(unsigned char)c] & cls) != 0; }

/* A blank inside a line: space, tab, or a NUL byte (read as a space). */
static inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\0'; }

/* "1-0", "0-1", "1/2-1/2", "*", and the short draw "1/2" some files use. */
static inline bool is_result(const char *s, size_t n)
{
    if (s[0] != '*' && s[0] != '0' && s[0] != '1') return false;
    return (n == 1 && s[0] == '*') ||
           (n == 3 && (memcmp(s, "1-0", 3) == 0 || memcmp(s, "0-1", 3) == 0 ||
                       memcmp(s, "1/2", 3) == 0)) ||
           (n == 7 && memcmp(s, "1/2-1/2", 7) == 0);
}

/* `[Name` with optional blanks after the bracket. */
static bool starts_tag(const char *s, size_t n)
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
static bool looks_like_movetext(const char *s, size_t n)
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

/* Can a movetext token starting with c be meant as a move? A token that
 * cannot ("<br>", "Tf8-e8") is skipped; one that can is an error. */
static bool is_move_attempt(char c)
{
    return (c >= 'a' && c <= 'h') || c == 'K' || c == 'Q' || c == 'R' || c == 'B' || c == 'N' ||
           c == 'P' || c == 'O' || c == 'o' || c == '0' || c == '-' || c == 'Z';
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
    pgn_open_stream(r, fp, path, diag);
    r->owns_fp = true;
    return 0;
}

void pgn_close(PgnReader *r)
{
    if (r->owns_fp && r->fp) fclose(r->fp);
    free(r->buf);
    r->buf = NULL;
    r->fp = NULL;
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
    size_t got = fread(r->buf + r->len, 1, n, r->fp);
    if (got == 0) {
        if (ferror(r->fp)) {
            r->io_error = true;
            diag_plain(r->diag, DIAG_ERROR, "error reading '%s': %s", r->name, strerror(errno));
        }
        r->eof = true;
        return false;
    }
    if (!r->saw_cr && memchr(r->buf + r->len, '\r', got)) r->saw_cr = true;
    r->len += got;
    return true;
}

static bool fill(PgnReader *r)
{
    return fill_up_to(r, READ_CHUNK);
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

/* Tag names are told apart by their FNV-1a hash. */
#define NAME_HASH_START 2166136261u

static inline uint32_t name_hash_step(uint32_t h, char c)
{
    return (h ^ (unsigned char)c) * 16777619u;
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

/* The first '"', '\\', LF or CR at or after i in s[0..n), or n: where a
 * tag value (a few words, after its opening '"') stops being plain text.
 * One call instead of a memchr per character: with SSE2, 16 bytes at a
 * time. */
static inline size_t find_value_stop(const char *s, size_t i, size_t n)
{
#if defined(__SSE2__)
    for (; i + 16 <= n; i += 16) {
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i hits = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8('"')), _mm_cmpeq_epi8(b, _mm_set1_epi8('\\'))),
            _mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8('\n')), _mm_cmpeq_epi8(b, _mm_set1_epi8('\r'))));
        unsigned mask = (unsigned)_mm_movemask_epi8(hits);
        if (mask) return i + (size_t)__builtin_ctz(mask);
    }
#endif
    while (i < n && s[i] != '"' && s[i] != '\\' && s[i] != '\n' && s[i] != '\r') i++;
    return i;
}

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

/* Where simple_tag_line found the parts of a tag line. */
typedef struct TagLine {
    size_t name_end;         /* the blank after the name */
    size_t quote;            /* the value's closing '"' */
    uint32_t hash;           /* the name's tag_line_hash */
} TagLine;

/* Length of the line at s[0..n) (with its '\n') when it is exactly a tag
 * pair of the usual form, [Name "value"] with no blank but the one before
 * the value and no backslash, CR or line end in the value, and its parts
 * in *t; 0 otherwise (and for a line not whole in s). For such a line in a
 * tag section (the game has content, no movetext yet, outside a comment),
 * pgn_next_raw would recognise a tag, record its name and keep the line as
 * it is, so it takes a run of them at once. */
static size_t simple_tag_line(const char *s, size_t n, TagLine *t)
{
    if (n < 7 || s[0] != '[') return 0;
    size_t i = 1;
    uint32_t h = NAME_HASH_START;   /* name_hash, found on the way */
    for (; i < n && is_class(s[i], PC_NAME); i++) h = name_hash_step(h, s[i]);
    if (i == 1 || i + 2 >= n || s[i] != ' ' || s[i + 1] != '"') return 0;
    size_t quote = find_value_stop(s, i + 2, n);   /* the value's end: '"' then "]\n" */
    if (quote + 2 >= n || s[quote] != '"' || s[quote + 1] != ']' || s[quote + 2] != '\n') return 0;
    *t = (TagLine){i, quote, h};
    return quote + 3;
}

/* Notes, for stage 2, the tag line t found at offset `at` of the game's text. */
static void mark_tag(RawGame *g, size_t at, const TagLine *t)
{
    if (g->tag_mark_count == RAW_TAG_MARKS || at + t->quote > UINT32_MAX) return;
    g->tag_marks[g->tag_mark_count++] =
        (RawTagMark){(uint32_t)at, (uint32_t)(at + t->name_end), (uint32_t)(at + t->quote)};
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
        size_t len = simple_tag_line(s, avail, &tag);
        if (!len) return USUAL_NONE;
        junk_end(r, junk);
        st->started = true;
        st->has_content = true;
        remember_tag(st, tag.hash);
        mark_tag(g, g->text.len, &tag);
        g->first_line = r->line;
        g->first_column = (unsigned)r->line_offset + 1;
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
            } else if ((len = simple_tag_line(s + whole, avail - whole, &tag)) && !seen_tag(st, tag.hash)) {
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
            g->first_line = r->line;
            g->first_column = (unsigned)r->line_offset + 1;
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
                g->first_line = r->line;
                g->first_column = 1;
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

/* ==== stage 2: parsing one game ========================================== */

typedef struct GameParser {
    const char *file;
    DiagSink *diag;
    Arena *arena;
    Game *game;
    const char *s;          /* the game's text, with a NUL at s[n] (a StrBuf's) */
    size_t n, i;
    unsigned first_line;    /* input line of s[0] */
    unsigned first_column;  /* input column of s[0] (a game may start mid-line) */
    int tag_cap;            /* capacity of game->tags */
    char *tag_text;         /* NULL, or a copy in the arena of s[0, tag_text_len) (tag_text_for) */
    size_t tag_text_len;
    const RawTagMark *tag_marks;   /* the splitter's RawGame.tag_marks, */
    int tag_mark_count, next_tag_mark;   /* the first one not used yet */
    int tag_lines_count;    /* the tags read as the first run of marked lines, */
    size_t tag_lines_end;   /* up to this offset (Game.tag_lines) */
    size_t nul_at;          /* offset of the first NUL read as a space, or SIZE_MAX */
    bool reported;          /* the game's one message has been given */
    PgnParseStatus status;
} GameParser;

/* Input line and column of offset `off`, counted only when a message needs
 * them (the parser itself never tracks lines). */
static void line_col_at(const GameParser *p, size_t off, unsigned *line, unsigned *col)
{
    unsigned l = p->first_line;
    size_t line_start = 0;
    for (size_t k = 0; k < off && k < p->n; k++)
        if (p->s[k] == '\n') {
            l++;
            line_start = k + 1;
        }
    *line = l;
    *col = (unsigned)(off - line_start) + 1 + (l == p->first_line ? p->first_column - 1 : 0);
}

static unsigned column_at(const GameParser *p, size_t off)
{
    unsigned line, col;
    line_col_at(p, off, &line, &col);
    return col;
}

static const char nul_message[] = "NUL byte in the game's text (read as a space, as is any other)";

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void problem_at(GameParser *p, size_t off, const char *fmt, ...)
{
    if (p->status < PGN_DAMAGED) p->status = PGN_DAMAGED;
    if (p->reported) return;
    p->reported = true;
    char msg[512];
    unsigned line, col;
    if (p->nul_at < off) {   /* the game's first problem is a NUL byte before this one */
        snprintf(msg, sizeof msg, "%s", nul_message);
        off = p->nul_at;
    } else {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
    }
    line_col_at(p, off, &line, &col);
    diag_game(p->diag, p->file, line, col, p->game->number, "%s", msg);
}

/* Reports the game's NUL bytes when no other problem came before them. */
static void report_nul(GameParser *p)
{
    if (p->nul_at != SIZE_MAX) problem_at(p, p->nul_at, "%s", nul_message);
}

/* Advances over blanks and over %-escape lines. */
static inline void skip_blanks(GameParser *p)
{
    /* the usual case: one space, then a token (no byte above ' ' is a blank) */
    if (p->i < p->n && p->s[p->i] == ' ' && (unsigned char)p->s[p->i + 1] > ' ') {
        p->i++;
        return;
    }
    while (p->i < p->n && is_class(p->s[p->i], PC_SPACE)) {
        if (p->s[p->i++] == '\n' && p->i < p->n && p->s[p->i] == '%')
            while (p->i < p->n && p->s[p->i] != '\n') p->i++;
    }
}

/* ---- tags ---- */

/* Without the splitter's marks, the tag section's bytes are most likely
 * within the first TAG_TEXT_BYTES of the game's text. */
#define TAG_TEXT_BYTES 2048

/* A copy of the start of the game's text in which the names and values of
 * tag pairs of the usual form end with a NUL written over the blank and the
 * '"' after them: they are kept there instead of each being copied into
 * the arena. The copy, made at the first call, goes up to the last marked
 * tag pair, else holds TAG_TEXT_BYTES; NULL when it does not hold s[need]
 * (a tag section longer than that). */
static char *tag_text_for(GameParser *p, size_t need)
{
    if (!p->tag_text) {
        /* the last mark's "]\n" too: Game.tag_lines */
        size_t want = p->tag_mark_count ? p->tag_marks[p->tag_mark_count - 1].quote + 3 : TAG_TEXT_BYTES;
        p->tag_text_len = p->n + 1 < want ? p->n + 1 : want;   /* n + 1: with s[n] */
        p->tag_text = arena_alloc(p->arena, p->tag_text_len);
        memcpy(p->tag_text, p->s, p->tag_text_len);
    }
    return need < p->tag_text_len ? p->tag_text : NULL;
}

/* Adds a tag: name and value are the game's, NUL-terminated (value_len
 * counts the value's bytes when plain). */
static void add_tag(GameParser *p, const char *name, const char *value, bool plain, size_t value_len)
{
    Game *g = p->game;
    if (g->tag_count == p->tag_cap) {
        int cap = p->tag_cap ? p->tag_cap * 2 : 16;
        g->tags = arena_realloc(p->arena, g->tags, sizeof(Tag) * (size_t)p->tag_cap,
                                sizeof(Tag) * (size_t)cap);
        p->tag_cap = cap;
    }
    g->tags[g->tag_count].name = name;
    g->tags[g->tag_count].value = value;
    g->tags[g->tag_count].plain = plain && value_len <= UINT32_MAX;
    g->tags[g->tag_count].value_len = (uint32_t)value_len;
    g->tag_count++;
}

/* True when a tag pair starts on a later line of the game text. */
static bool more_tags_follow(const GameParser *p, size_t from)
{
    for (size_t i = from; i < p->n; i++) {
        if (p->s[i] != '\n') continue;
        size_t eol = i + 1;
        while (eol < p->n && p->s[eol] != '\n') eol++;
        if (starts_tag(p->s + i + 1, eol - i - 1)) return true;
        if (is_class(p->s[i + 1], PC_DIGIT)) return false;   /* movetext began */
    }
    return false;
}

/* The tag value written in s[from, to), with \" and \\ unescaped, in the
 * arena; `plain` when the caller knows it holds no backslash. */
static const char *tag_value(GameParser *p, size_t from, size_t to, bool plain)
{
    char *v = arena_alloc(p->arena, to - from + 1);
    if (plain || !memchr(p->s + from, '\\', to - from)) {   /* nothing escaped: the usual value */
        memcpy(v, p->s + from, to - from);
        v[to - from] = '\0';
        return v;
    }
    size_t n = 0;
    for (size_t i = from; i < to; i++) {
        if (p->s[i] == '\\' && i + 1 < to && (p->s[i + 1] == '"' || p->s[i + 1] == '\\')) i++;
        v[n++] = p->s[i];
    }
    v[n] = '\0';
    return v;
}

/* Adds the pair of the usual form at s[open], whose name ends at name_end
 * and value at quote, keeping both in text (tag_text), and moves past it. */
static void add_usual_tag(GameParser *p, char *text, size_t open, size_t name_end, size_t quote)
{
    text[name_end] = '\0';
    text[quote] = '\0';
    add_tag(p, text + open + 1, text + name_end + 2, true, quote - name_end - 2);
    p->i = quote + 2;
}

/* The tag pairs the splitter marked from p->i on (RawGame.tag_marks), each
 * followed by the next one on the following line: added as parse_tag would
 * add them, without reading them again. False when no marked pair starts
 * at p->i. */
static bool parse_marked_tags(GameParser *p)
{
    const RawTagMark *m = p->tag_marks + p->next_tag_mark, *end = p->tag_marks + p->tag_mark_count;
    while (m < end && m->open < p->i) m++;
    char *text;
    if (m == end || m->open != p->i || !(text = tag_text_for(p, m->quote))) {
        p->next_tag_mark = (int)(m - p->tag_marks);
        return false;
    }
    bool first_tags = p->game->tag_count == 0;
    do {
        add_usual_tag(p, text, m->open, m->name_end, m->quote);
        m++;
    } while (m < end && m->open == p->i + 1 && p->s[p->i] == '\n');
    p->next_tag_mark = (int)(m - p->tag_marks);
    if (first_tags) {
        p->tag_lines_count = p->game->tag_count;
        p->tag_lines_end = p->i + 1;   /* after the last line's '\n' */
    }
    return true;
}

/* [Name "value"] at p->s[p->i] == '['. A malformed pair is reported and what
 * can be read of it is kept. */
static void parse_tag(GameParser *p)
{
    size_t open = p->i;
    size_t i = p->i + 1;
    /* the usual form, [Name "value"] with nothing escaped: its name and
     * value kept in place in tag_text (the NUL at s[n] ends the name at the
     * latest) */
    while (is_class(p->s[i], PC_NAME)) i++;
    if (i > open + 1 && p->s[i] == ' ' && p->s[i + 1] == '"') {
        size_t quote = find_value_stop(p->s, i + 2, p->n);
        char *text;
        if (quote + 1 < p->n && p->s[quote] == '"' && p->s[quote + 1] == ']' && (text = tag_text_for(p, quote))) {
            add_usual_tag(p, text, open, i, quote);
            return;
        }
    }
    i = open + 1;
    while (i < p->n && (p->s[i] == ' ' || p->s[i] == '\t')) i++;
    size_t name = i;
    while (i < p->n && is_class(p->s[i], PC_NAME)) i++;
    size_t name_len = i - name;
    while (i < p->n && (p->s[i] == ' ' || p->s[i] == '\t')) i++;
    size_t vstart = i, vend = i;   /* the value as written */
    bool plain = false;            /* ... holds no '"', backslash, CR or LF (Tag.plain) */
    bool ok = name_len > 0;
    if (ok && i < p->n && p->s[i] == '"') {
        vstart = ++i;
        /* the usual value: the next '"' with no backslash or line end before
         * it (a CR, which the game's text never holds, only sends the value
         * the long way) */
        size_t quote = find_value_stop(p->s, i, p->n);
        if (quote < p->n && p->s[quote] == '"') {
            i = quote;
            plain = true;
        } else {
            while (i < p->n && p->s[i] != '"' && p->s[i] != '\n')
                i += p->s[i] == '\\' && i + 1 < p->n && (p->s[i + 1] == '"' || p->s[i + 1] == '\\') ? 2 : 1;
        }
        vend = i;
        if (i < p->n && p->s[i] == '"') {
            i++;
            /* an unescaped '"' inside the value ("Tour "C""): take the value
             * up to the last '"' before the line's closing ']' */
            size_t j = i;
            while (j < p->n && (p->s[j] == ' ' || p->s[j] == '\t')) j++;
            if (j < p->n && p->s[j] != ']') {
                size_t eol = j, last = 0;
                while (eol < p->n && p->s[eol] != '\n') eol++;
                for (size_t k = j; k < eol; k++) {
                    size_t m = k + 1;
                    while (m < eol && (p->s[m] == ' ' || p->s[m] == '\t')) m++;
                    if (p->s[k] == '"' && m < eol && p->s[m] == ']') last = k;
                }
                if (last) {
                    problem_at(p, vstart - 1, "tag value of '%.*s' has an unescaped '\"'",
                               (int)name_len, p->s + name);
                    vend = last;
                    i = last + 1;
                    plain = false;
                }
            }
        } else {
            problem_at(p, open, "tag value of '%.*s' is not closed by '\"'", (int)name_len,
                       p->s + name);
            /* keep the text up to the last ']' on the line */
            size_t rb = i;
            while (rb > vstart && p->s[rb - 1] != ']') rb--;
            if (rb > vstart) i = vend = rb - 1;
            ok = false;
        }
    } else if (ok) {
        problem_at(p, i, "tag '%.*s' has no quoted value", (int)name_len, p->s + name);
        ok = false;
    } else {
        problem_at(p, open, "malformed tag pair");
    }
    while (i < p->n && (p->s[i] == ' ' || p->s[i] == '\t')) i++;
    if (i < p->n && p->s[i] == ']') {
        i++;
    } else if (ok) {
        problem_at(p, i, "expected ']' to close the tag pair opened at column %u",
                   column_at(p, open));
    }
    if (name_len > 0)
        add_tag(p, arena_strndup(p->arena, p->s + name, name_len), tag_value(p, vstart, vend, plain), plain,
                vend - vstart);
    p->i = i;
}

/* ---- movetext ---- */

/* A comment's text with every run of blanks and line ends made one space and
 * the ends trimmed, so that re-wrapping it on output changes nothing. */
static Comment *new_comment(GameParser *p, const char *text, size_t len)
{
    char *t = arena_alloc(p->arena, len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (!is_class(text[i], PC_SPACE)) t[n++] = text[i];
        else if (n > 0 && t[n - 1] != ' ') t[n++] = ' ';
    }
    if (n > 0 && t[n - 1] == ' ') n--;
    t[n] = '\0';
    Comment *c = arena_alloc(p->arena, sizeof *c);
    c->next = NULL;
    c->text = t;
    c->last = c;
    return c;
}

/* Appends c to a list: its first comment knows the last, so that a move
 * with 100,000 comments is read in linear time. */
static void append_comment(Comment **list, Comment *c)
{
    if (*list) {
        (*list)->last->next = c;
        (*list)->last = c;
    } else {
        *list = c;
    }
}

static void add_nag(GameParser *p, GameNode *node, unsigned nag)
{
    if (nag > 255 || node->nag_count == 255) return;
    uint8_t *nags = arena_alloc(p->arena, (size_t)node->nag_count + 1);
    if (node->nag_count) memcpy(nags, node->nags, node->nag_count);
    nags[node->nag_count++] = (uint8_t)nag;
    node->nags = nags;
}

/* Glyphs written instead of $N. */
static const struct { const char *text; unsigned nag; } glyph_nags[] = {
    {"!", 1}, {"?", 2}, {"!!", 3}, {"??", 4}, {"!?", 5}, {"?!", 6}, {"=", 10},
    {"+=", 14}, {"=+", 15}, {"+/=", 14}, {"=/+", 15}, {"+/-", 16}, {"-/+", 17},
    {"+-", 18}, {"-+", 19},
};

static unsigned glyph_nag(const char *s, size_t n)
{
    if (s[0] != '!' && s[0] != '?' && s[0] != '=' && s[0] != '+' && s[0] != '-') return 0;
    for (size_t k = 0; k < sizeof glyph_nags / sizeof glyph_nags[0]; k++)
        if (strlen(glyph_nags[k].text) == n && memcmp(glyph_nags[k].text, s, n) == 0)
            return glyph_nags[k].nag;
    return 0;
}

/* Skips a variation whose bad move starts at p->i, up to and including its
 * closing ')' (nested ones and comments included). */
static void skip_rest_of_variation(GameParser *p)
{
    int depth = 1;
    while (p->i < p->n && depth > 0) {
        char c = p->s[p->i];
        if (c == '{') {
            const char *close = memchr(p->s + p->i, '}', p->n - p->i);
            p->i = close ? (size_t)(close - p->s) + 1 : p->n;
            continue;
        }
        if (c == ';') {
            while (p->i < p->n && p->s[p->i] != '\n') p->i++;
            continue;
        }
        if (c == '(') depth++;
        if (c == ')') depth--;
        p->i++;
    }
}

static const char *san_problem(SanStatus st)
{
    switch (st) {
    case SAN_ILLEGAL: return "illegal move";
    case SAN_AMBIGUOUS: return "ambiguous move";
    default: return "unreadable move";
    }
}

#define MAX_VARIATION_DEPTH 1024

/* {---- the movetext token reader ---- */

typedef enum MovetextKind {
    MT_END,          /* no more text */
    MT_COMMENT,      /* {...} (text: inside the braces; closed: the '}' was there) */
    MT_LINE_COMMENT, /* ; to the end of the line */
    MT_OPEN,         /* ( */
    MT_CLOSE,        /* ) */
    MT_STRAY,        /* [ ] or } where no comment or tag is open */
    MT_WORD          /* anything else, up to a delimiter: a move, a number, a NAG, a result */
} MovetextKind;

typedef struct MovetextToken {
    MovetextKind kind;
    size_t start;            /* offset of its first byte in the game's text */
    size_t text, text_end;   /* comments: the text inside; words: the word */
    bool closed;             /* MT_COMMENT: the closing '}' was found */
} MovetextToken;

/* Whether a word that starts with a digit is a move number alone, "12.",
 * "12..." or "12": it means nothing to the reader, which passes over it
 * (on_word reads one glued to its move, "12.e4"). */
static inline bool is_move_number(const char *w, size_t len)
{
    size_t k = 1;
    while (k < len && is_class(w[k], PC_DIGIT)) k++;
    while (k < len && w[k] == '.') k++;
    return k == len;
}

/* The next token of the movetext from p->i (blanks, %-lines and move
 * numbers skipped); p->i moves past it. */
static inline MovetextToken next_movetext_token(GameParser *p)
{
    size_t start;
    MovetextToken t;
    for (;;) {
        skip_blanks(p);
        t = (MovetextToken){MT_END, p->i, p->i, p->i, false};
        if (p->i >= p->n) return t;
        start = p->i;
        const char *s = p->s;
        unsigned first = pgn_char_class[(unsigned char)s[start]];
        if (first & PC_DELIM) break;
        /* a word: nearly every token */
        size_t end = start + 1;
        while (!is_class(s[end], PC_DELIM)) end++;   /* the NUL at s[n] ends the last */
        p->i = end;
        if (!(first & PC_DIGIT) || !is_move_number(s + start, end - start))
            return (MovetextToken){MT_WORD, start, start, end, false};
    }
    switch (p->s[start]) {
    case '{': {
        const char *close = memchr(p->s + start + 1, '}', p->n - start - 1);
        size_t end = close ? (size_t)(close - p->s) : p->n;
        t = (MovetextToken){MT_COMMENT, start, start + 1, end, close != NULL};
        p->i = close ? end + 1 : end;
        return t;
    }
    case ';': {
        size_t end = start;
        while (end < p->n && p->s[end] != '\n') end++;
        t = (MovetextToken){MT_LINE_COMMENT, start, start + 1, end, false};
        p->i = end;
        return t;
    }
    case '(': t.kind = MT_OPEN; p->i++; return t;
    case ')': t.kind = MT_CLOSE; p->i++; return t;
    default:   /* [ ] } (blanks were skipped, words taken above) */
        t.kind = MT_STRAY;
        p->i++;
        return t;
    }
}

/* }---- */

/* {---- the movetext handlers ---- */

/* Where the replay of the movetext stands. It builds the game's tree, or,
 * for a game a gate shut out (pgn_parse_game_gated), only keeps the
 * positions of the line being read: the same moves played, the same
 * problems reported, no node made. */
typedef struct Movetext {
    GameParser *p;
    Game *game;
    bool build_tree;
    GameNode *root;              /* the game's root, or line[0] */
    GameNode *cur;               /* the position the next move is played from */
    GameNode *stack[MAX_VARIATION_DEPTH];   /* where each open variation goes back to */
    /* the last child so far of the position a variation at each depth
     * starts from (its first move goes after it), and the move it was
     * opened before: the next '(' at that depth before the same move adds
     * a sibling of the same children */
    GameNode *sibling_tail[MAX_VARIATION_DEPTH];
    GameNode *opened_before[MAX_VARIATION_DEPTH];
    int tails_set;               /* depths whose two entries above are set */
    size_t open_at[MAX_VARIATION_DEPTH];    /* and where its '(' is */
    int depth;
    Comment *pending;            /* comments before a variation's first move */
    bool at_variation_start;
    bool done;                   /* the result, or a bad move, ends the movetext */
    /* without a tree: cur is line[ply], whose position (its pos alone is
     * used) is the one the next move is played from, line[0] the root's,
     * line[1..ply) the ones between; an open variation keeps the position
     * it goes back to in returns[] and its ply in return_ply[] */
    GameNode *line;
    Position *returns;
    int ply, line_cap, returns_cap;
    int return_ply[MAX_VARIATION_DEPTH];
    const PgnGate *gate;         /* whose placements to stop at (NULL: none) */
    Bitboard placement_squares;  /* the squares of all of them */
    bool placement_reached;
} Movetext;

/* Some square of a placement's squares holds one of its pieces. */
static bool has_placement(const Position *pos, const PgnGate *gate)
{
    for (int i = 0; i < gate->nplacements; i++)
        if (pos_squares_with(pos, gate->placements[i].pieces) & gate->placements[i].squares) return true;
    return false;
}

/* Grows an array of `size`-byte elements in the game's arena to hold `need`. */
static void *grow_array(Arena *a, void *old, size_t size, int *cap, int need)
{
    if (need <= *cap) return old;
    int more = *cap ? *cap * 2 : 64;
    while (more < need) more *= 2;
    void *grown = arena_realloc(a, old, size * (size_t)*cap, size * (size_t)more);
    *cap = more;
    return grown;
}

/* Without a tree: plays m from the current position, as a child would. */
static void line_play(Movetext *mt, Move m)
{
    mt->line = grow_array(mt->p->arena, mt->line, sizeof *mt->line, &mt->line_cap, mt->ply + 2);
    mt->line[mt->ply + 1].pos = mt->line[mt->ply].pos;
    mt->cur = &mt->line[++mt->ply];
    pos_make_move(&mt->cur->pos, m);
    /* a piece comes to a square by a move there, or by castling */
    bool may_arrive = (sq_bb(move_to(m)) & mt->placement_squares) || move_is_castle(m);
    if (mt->gate && may_arrive && has_placement(&mt->cur->pos, mt->gate)) {
        mt->placement_reached = true;   /* the game needs its tree after all */
        mt->done = true;
    }
}

static void on_comment(Movetext *mt, const MovetextToken *t)
{
    GameParser *p = mt->p;
    if (t->kind == MT_COMMENT && !t->closed) problem_at(p, t->start, "comment is not closed by '}'");
    if (!mt->build_tree) return;
    Comment *cm = new_comment(p, p->s + t->text, t->text_end - t->text);
    if (mt->at_variation_start) append_comment(&mt->pending, cm);
    else append_comment(&mt->cur->comments, cm);
}

static void on_open_variation(Movetext *mt, size_t at)
{
    GameParser *p = mt->p;
    if (mt->depth == MAX_VARIATION_DEPTH || mt->cur == mt->root) {
        if (mt->depth == MAX_VARIATION_DEPTH)
            problem_at(p, at, "variations nested too deeply (limit is %d)", MAX_VARIATION_DEPTH);
        else
            problem_at(p, at, "variation before the first move");
        skip_rest_of_variation(p);
        return;
    }
    if (mt->build_tree) {
        int d = mt->depth;
        if (d == mt->tails_set) mt->opened_before[mt->tails_set++] = NULL;
        if (mt->opened_before[d] != mt->cur) {   /* the first variation before this move */
            mt->opened_before[d] = mt->cur;
            mt->sibling_tail[d] = mt->cur;
        }
        mt->stack[d] = mt->cur;
        mt->cur = mt->cur->parent;
        mt->game->variation_tail = mt->sibling_tail[d];
    } else {
        mt->returns = grow_array(p->arena, mt->returns, sizeof *mt->returns, &mt->returns_cap, mt->depth + 1);
        mt->returns[mt->depth] = mt->cur->pos;
        mt->return_ply[mt->depth] = mt->ply;
        mt->cur = &mt->line[--mt->ply];
    }
    mt->open_at[mt->depth] = at;
    mt->depth++;
    mt->at_variation_start = true;
    mt->pending = NULL;
}

static void on_close_variation(Movetext *mt, size_t at)
{
    if (mt->depth == 0) {
        problem_at(mt->p, at, "')' closes no variation");
        return;
    }
    mt->depth--;
    if (mt->build_tree) {
        mt->cur = mt->stack[mt->depth];
        /* the variation's first move, when it had one, is the last child now */
        GameNode **tail = &mt->sibling_tail[mt->depth];
        if ((*tail)->sibling) *tail = (*tail)->sibling;
    } else {
        mt->ply = mt->return_ply[mt->depth];
        mt->cur = &mt->line[mt->ply];
        mt->cur->pos = mt->returns[mt->depth];
    }
    mt->at_variation_start = false;
    mt->pending = NULL;
}

/* $N */
static void on_nag(Movetext *mt, size_t start, const char *tok, size_t len)
{
    unsigned nag = 0;
    size_t k = 1;
    while (k < len && is_class(tok[k], PC_DIGIT) && nag < 1000) nag = nag * 10 + (unsigned)(tok[k++] - '0');
    if (k == 1 || k < len || nag > 255) problem_at(mt->p, start, "bad NAG '%.*s'", (int)len, tok);
    else if (mt->build_tree && mt->cur != mt->root) add_nag(mt->p, mt->cur, nag);
}

/* 1-0 0-1 1/2-1/2 *: the end of the game, unless inside a variation */
static void on_result(Movetext *mt, size_t start, const char *tok, size_t len)
{
    if (mt->depth > 0) {
        problem_at(mt->p, start, "game result '%.*s' inside a variation", (int)len, tok);
        return;
    }
    mt->game->result = len == 3 && tok[1] == '/' ? "1/2-1/2" : arena_strndup(mt->p->arena, tok, len);
    mt->done = true;
}

/* A word that is not a move: a glyph ("!", "+-"), an en-passant remark, or
 * text that is no move at all. False when it looked like a move. */
static bool on_other_word(Movetext *mt, size_t start, const char *tok, size_t len)
{
    unsigned glyph = glyph_nag(tok, len);
    if (glyph) {      /* "!", "+-", "=" ... written as their own token */
        if (mt->build_tree && mt->cur != mt->root) add_nag(mt->p, mt->cur, glyph);
        return true;
    }
    if ((len == 4 && memcmp(tok, "e.p.", 4) == 0) || (len == 2 && memcmp(tok, "ep", 2) == 0))
        return true;   /* en-passant remark written as its own token */
    if (!is_move_attempt(tok[0])) {
        problem_at(mt->p, start, "unexpected text '%.*s' in the movetext (skipped)", (int)len, tok);
        return true;
    }
    return false;
}

/* A move that cannot be played: reported, and the game ends there. */
static void on_bad_move(Movetext *mt, size_t start, const char *tok, size_t len, SanStatus st)
{
    GameParser *p = mt->p;
    const Position *pos = &mt->cur->pos;
    problem_at(p, start, "%s '%.*s' at move %u (%s to play)", san_problem(st), (int)len, tok, pos->fullmove,
               pos->side == WHITE ? "white" : "black");
    /* CQL 6.2 reads a game no further than its first bad move, in a
     * variation too (conformance: the-fork.pgn games 17 and 18) */
    mt->game->truncated = true;
    mt->game->unread_text = arena_strndup(p->arena, p->s + start, p->n - start);
    p->i = p->n;
    mt->depth = 0;
    mt->done = true;
}

/* A word: a NAG, a result, or a move (after its move number, with glyphs
 * glued to it). */
static void on_word(Movetext *mt, const MovetextToken *t)
{
    GameParser *p = mt->p;
    size_t start = t->text;
    const char *tok = p->s + start;
    size_t len = t->text_end - start;
    /* a word starting with a letter is a move, or no movetext at all */
    if (is_class(tok[0], PC_NUMERIC)) {
        if (tok[0] == '$') {
            on_nag(mt, start, tok, len);
            return;
        }
        /* a move number glued to its move ("12.e4", "12...Nf6": a move
         * number alone is no word, see is_move_number); no result is one,
         * and "0-0" is not one either */
        size_t k = 0, digits = 0;
        if (is_class(tok[0], PC_DIGIT)) {
            for (k = 1; k < len && is_class(tok[k], PC_DIGIT);) k++;
            digits = k;
            while (k < len && tok[k] == '.') k++;
        }
        if (digits && k > digits) {
            tok += k;
            len -= k;
            start += k;
        } else if (is_result(tok, len)) {
            on_result(mt, start, tok, len);
            return;
        }
    }
    /* trailing !? glyphs glued to the move */
    size_t move_len = len;
    while (move_len > 0 && is_class(tok[move_len - 1], PC_GLYPH)) move_len--;

    Move m;
    size_t written_len = 0;
    SanStatus st = move_len ? san_parse_written(&mt->cur->pos, tok, move_len, &m, &written_len)
                            : SAN_SYNTAX;
    if (st != SAN_OK) {
        if (!on_other_word(mt, start, tok, len)) on_bad_move(mt, start, tok, len, st);
        return;
    }
    mt->at_variation_start = false;
    if (!mt->build_tree) {
        line_play(mt, m);
        return;
    }
    GameNode *node = game_add_move(mt->game, p->arena, mt->cur, m);
    if (written_len) game_keep_san(node, tok, written_len);
    if (mt->pending) {
        node->pre_comments = mt->pending;
        mt->pending = NULL;
    }
    mt->cur = node;
    if (move_len < len) {
        unsigned nag = glyph_nag(tok + move_len, len - move_len);
        if (nag) add_nag(p, node, nag);
    }
}

/* }---- */

/* Replays the movetext from p->i: the token reader's tokens, each to its
 * handler, until the text or the game ends. With build_tree, into the tree
 * under the root; without, on the positions of the current line alone,
 * stopping at the first position with one of the gate's placements (when
 * `gate` is not NULL): then the result is false, and the game is to be
 * parsed with its tree. */
static bool replay_movetext(GameParser *p, bool build_tree, const PgnGate *gate)
{
    Movetext mt;
    mt.p = p;
    mt.game = p->game;
    mt.build_tree = build_tree;
    mt.root = mt.cur = p->game->root;
    mt.depth = 0;
    mt.tails_set = 0;
    mt.pending = NULL;
    mt.at_variation_start = false;
    mt.done = false;
    mt.gate = gate;
    mt.placement_squares = 0;
    for (int i = 0; gate && i < gate->nplacements; i++) mt.placement_squares |= gate->placements[i].squares;
    mt.placement_reached = false;
    mt.line = NULL;
    mt.returns = NULL;
    mt.line_cap = mt.returns_cap = 0;
    mt.ply = 0;
    if (!build_tree) {
        mt.line = grow_array(p->arena, NULL, sizeof *mt.line, &mt.line_cap, 1);
        mt.line[0].pos = p->game->root->pos;
        mt.root = mt.cur = &mt.line[0];
    }
    skip_blanks(p);
    size_t movetext_start = p->i;   /* == p->n: a tag section without movetext */

    while (!mt.done) {
        MovetextToken t = next_movetext_token(p);
        switch (t.kind) {
        case MT_END: mt.done = true; break;
        case MT_COMMENT: case MT_LINE_COMMENT: on_comment(&mt, &t); break;
        case MT_OPEN: on_open_variation(&mt, t.start); break;
        case MT_CLOSE: on_close_variation(&mt, t.start); break;
        case MT_STRAY: problem_at(p, t.start, "unexpected '%c' in movetext", p->s[t.start]); break;
        case MT_WORD: on_word(&mt, &t); break;
        }
    }
    p->game->variation_tail = NULL;
    if (mt.placement_reached) return false;
    Game *g = p->game;
    if (mt.depth > 0) problem_at(p, mt.open_at[mt.depth - 1], "variation is not closed by ')'");
    if (!g->result && !g->truncated && !p->reported && movetext_start < p->n)
        problem_at(p, p->i > 0 ? p->i - 1 : 0, "game has no result (1-0, 0-1, 1/2-1/2 or *): truncated?");
    return true;
}

/* Variants whose moves are ordinary chess moves. */
static bool variant_is_playable(const char *v)
{
    static const char *const ok[] = {"standard", "chess", "chess960", "fischerandom",
                                     "fischerrandom", "from position", "normal", "960"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        const char *a = ok[i], *b = v;
        while (*a && *b && (*a == *b || (*b >= 'A' && *b <= 'Z' && *b + 32 == *a))) a++, b++;
        if (!*a && !*b) return true;
    }
    return false;
}

/* Keeps a message of the pass without a tree, which may be dropped: its
 * severity as one digit, then its text with the terminating NUL, record
 * after record. */
static void hold_message(void *ctx, DiagSeverity sev, const char *text)
{
    StrBuf *held = ctx;
    sb_putc(held, (char)('0' + sev));
    sb_append_n(held, text, strlen(text) + 1);
}

static void deliver_held(DiagSink *to, const StrBuf *held)
{
    for (size_t at = 0; at < held->len;) {
        const char *text = held->data + at + 1;
        diag_deliver(to, (DiagSeverity)(held->data[at] - '0'), text);
        at += strlen(text) + 2;
    }
}

/* The gate shuts the game out by its tags: a Result tag of another result
 * than the one it wants, or tags its `admits` refuses. */
static bool tags_shut_out(const PgnGate *gate, const Game *g)
{
    const char *r = gate->result ? game_result_tag(g) : NULL;
    if (r && strcmp(r, gate->result) != 0) return true;
    return gate->admits && !gate->admits(gate->ctx, g);
}

/* The movetext of a game the gate shuts out (by_tags: already known),
 * replayed without a tree, unless it reaches a position with a placement
 * (when its tags did not shut it out); then parsed with its tree from the
 * same point, as if the first pass never was, and the messages of that
 * pass are dropped. */
static void gated_movetext(GameParser *p, const PgnGate *gate, bool by_tags)
{
    GameParser first = *p;
    StrBuf held = SB_INIT;
    DiagSink holder;
    diag_sink_init(&holder, hold_message, &held);
    first.diag = &holder;
    if (replay_movetext(&first, false, by_tags ? NULL : gate)) {
        DiagSink *diag = p->diag;
        *p = first;
        p->diag = diag;
        deliver_held(diag, &held);
        p->game->moves_skipped = true;
    } else {
        Game *g = p->game;   /* what the first pass set, unset */
        g->result = NULL;
        g->truncated = false;
        g->unread_text = NULL;
        replay_movetext(p, true, NULL);
    }
    sb_free(&held);
}

PgnParseStatus pgn_parse_game(const RawGame *raw, const char *file, Arena *a, Game *out,
                              DiagSink *diag)
{
    return pgn_parse_game_gated(raw, file, a, out, diag, NULL);
}

PgnParseStatus pgn_parse_game_gated(const RawGame *raw, const char *file, Arena *a, Game *out,
                                    DiagSink *diag, const PgnGate *gate)
{
    memset(out, 0, sizeof *out);
    out->number = raw->number;
    out->arena = a;
    GameParser p = {0};
    p.file = file;
    p.diag = diag;
    p.arena = a;
    p.game = out;
    p.s = sb_str(&raw->text);
    p.n = raw->text.len;
    p.first_line = raw->first_line;
    p.first_column = raw->first_column ? raw->first_column : 1;
    p.nul_at = raw->first_nul ? raw->first_nul - 1 : SIZE_MAX;
    p.tag_marks = raw->tag_marks;
    p.tag_mark_count = raw->tag_mark_count;
    p.status = PGN_OK;

    if (raw->oversized) {
        char limit[32];
        format_size(limit, sizeof limit, raw->size_limit);
        char last[48];
        if (raw->ends_input) snprintf(last, sizeof last, "the end of the input");
        else snprintf(last, sizeof last, "line %u", raw->last_line);
        diag_game(diag, file, p.first_line, p.first_column, raw->number,
                  "game text is longer than the limit (-maxgamesize %s); skipped it, up to %s",
                  limit, last);
        Position start;
        pos_start(&start);
        game_new_root(out, a, &start);
        return PGN_UNUSABLE;
    }

    /* tag section */
    for (;;) {
        skip_blanks(&p);
        if (p.i < p.n && p.s[p.i] == '%' && (p.i == 0 || p.s[p.i - 1] == '\n')) {
            while (p.i < p.n && p.s[p.i] != '\n') p.i++;
            continue;
        }
        if (p.i >= p.n) break;
        if (p.s[p.i] == '[') {
            if (!parse_marked_tags(&p)) parse_tag(&p);
            continue;
        }
        /* text that cannot start movetext, between tags: report and skip it */
        size_t end = p.i;
        while (end < p.n && !is_class(p.s[end], PC_SPACE)) end++;
        if (looks_like_movetext(p.s + p.i, end - p.i) || !more_tags_follow(&p, end)) break;
        problem_at(&p, p.i, "unexpected text '%.*s' in the tag section", (int)(end - p.i),
                   p.s + p.i);
        p.i = end;
    }
    if (p.tag_lines_count && p.tag_lines_count == out->tag_count) {   /* no other tag */
        out->tag_lines = out->tags[0].name - 1;   /* its '[' */
        out->tag_lines_len = p.tag_text + p.tag_lines_end - out->tag_lines;
    }

    Position start;
    const char *variant = game_tag(out, "Variant");
    const char *fen = game_tag(out, "FEN");
    if (variant && !variant_is_playable(variant)) {
        problem_at(&p, 0, "variant '%s' is not supported; game skipped", variant);
        p.status = PGN_UNUSABLE;
        pos_start(&start);
        game_new_root(out, a, &start);
        return p.status;
    }
    if (fen) {
        FenError err;
        if (pos_from_fen_tolerant(&start, fen, &err) != 0) {
            problem_at(&p, 0, "bad FEN tag (field %d, column %d: %s); game skipped", err.field,
                       err.column, err.message);
            p.status = PGN_UNUSABLE;
            pos_start(&start);
            game_new_root(out, a, &start);
            return p.status;
        }
    } else {
        pos_start(&start);
    }
    game_new_root(out, a, &start);
    bool by_tags = gate && tags_shut_out(gate, out);
    if (by_tags || (gate && gate->nplacements && !has_placement(&out->root->pos, gate)))
        gated_movetext(&p, gate, by_tags);
    else
        replay_movetext(&p, true, NULL);
    report_nul(&p);
    game_number_nodes(out);
    return p.status;
}
