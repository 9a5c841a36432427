/*
 * src/pgn/reader_int.h — private to the PGN reader, whose two stages (see
 * pgn/reader.h) are in reader_split.c (the splitter) and reader_parse.c
 * (the parser), and to tag_lines.c, which finds tag lines for them: what
 * they read PGN text with, the character classes, the tests of a token or
 * a line, and the hash that tells tag names apart. This file is not part
 * of any interface: the rest of the project uses pgn/reader.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_PGN_READER_INT_H
#define CQL_PGN_READER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* Tag names are told apart by their FNV-1a hash. */
#define NAME_HASH_START 2166136261u

static inline uint32_t name_hash_step(uint32_t h, char c)
{
    return (h ^ (unsigned char)c) * 16777619u;
}

/* `[Name` with optional blanks after the bracket (reader_split.c). */
bool starts_tag(const char *s, size_t n);
/* Could this token begin a game's movetext? (reader_split.c) */
bool looks_like_movetext(const char *s, size_t n);

#endif
