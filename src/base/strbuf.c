/*
 * src/base/strbuf.c — growable strings (see src/base/strbuf.h).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"

void sb_reserve(StrBuf *sb, size_t extra)
{
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap) return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < need) cap *= 2;
    sb->data = xrealloc(sb->data, cap);
    sb->cap = cap;
    sb->data[sb->len] = '\0';
}

void sb_append(StrBuf *sb, const char *s)
{
    sb_append_n(sb, s, strlen(s));
}

size_t decimal_digits(char *out, unsigned long long v)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
    return n;
}

void format_size(char *out, size_t cap, size_t bytes)
{
    static const char units[] = "GMK";
    for (int u = 0; u < 3; u++) {
        size_t unit = (size_t)1 << (10 * (3 - u));
        if (bytes >= unit && bytes % unit == 0) {
            snprintf(out, cap, "%zu%c", bytes / unit, units[u]);
            return;
        }
    }
    snprintf(out, cap, "%zu", bytes);
}

void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    if ((size_t)n < sizeof small) {
        sb_append_n(sb, small, (size_t)n);
    } else {
        sb_reserve(sb, (size_t)n);
        vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
        sb->len += (size_t)n;
    }
    va_end(ap2);
}

void sb_printf(StrBuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(sb, fmt, ap);
    va_end(ap);
}

void sb_clear(StrBuf *sb)
{
    sb->len = 0;
    if (sb->data) sb->data[0] = '\0';
}

void sb_truncate(StrBuf *sb, size_t len)
{
    if (len < sb->len) {
        sb->len = len;
        sb->data[len] = '\0';
    }
}

const char *sb_str(const StrBuf *sb)
{
    return sb->data ? sb->data : "";
}

char *sb_take(StrBuf *sb)
{
    char *s = sb->data ? sb->data : xstrdup("");
    sb->data = NULL;
    sb->len = sb->cap = 0;
    return s;
}

void sb_free(StrBuf *sb)
{
    free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
}
