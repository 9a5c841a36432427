/*
 * src/base/strbuf.h — growable byte strings (heap-owned, always NUL-terminated).
 *
 * A StrBuf starts empty with SB_INIT and owns its buffer until sb_free (or
 * sb_take, which hands the buffer to the caller). Used for output text,
 * diagnostics and anything whose size is not known in advance.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_STRBUF_H
#define CQL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

typedef struct StrBuf {
    char *data;   /* NUL-terminated when cap > 0; NULL while empty and unallocated */
    size_t len;
    size_t cap;
} StrBuf;

#define SB_INIT {NULL, 0, 0}

void sb_reserve(StrBuf *sb, size_t extra);
void sb_append(StrBuf *sb, const char *s);

/* The two hot appends, inline: a check for room, then a copy. */
static inline void sb_putc(StrBuf *sb, char c)
{
    if (sb->len + 2 > sb->cap) sb_reserve(sb, 1);
    sb->data[sb->len++] = c;
    sb->data[sb->len] = '\0';
}

static inline void sb_append_n(StrBuf *sb, const char *s, size_t n)
{
    if (sb->len + n + 1 > sb->cap) sb_reserve(sb, n);
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}
/* The decimal digits of v at out (no NUL; at most 20); returns their count. */
size_t decimal_digits(char *out, unsigned long long v);
/* A byte count as the size options take it (-maxgamesize, -textbudget):
 * "64M", "100K", "1000", at out (cap bytes, NUL-terminated). */
void format_size(char *out, size_t cap, size_t bytes);

void sb_printf(StrBuf *sb, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 0)))
#endif
    ;
void sb_clear(StrBuf *sb);                 /* length 0, keeps the buffer */
void sb_truncate(StrBuf *sb, size_t len);
const char *sb_str(const StrBuf *sb);      /* "" when nothing was appended */
char *sb_take(StrBuf *sb);                 /* caller owns the result; sb becomes empty */
void sb_free(StrBuf *sb);

#endif
