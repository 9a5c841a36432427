/*
 * src/cli/escape.c — text escaped for JSON, TSV, EPD and HTML, made valid
 * UTF-8 on the way (see escape.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static const char replacement[] = "\xEF\xBF\xBD";   /* U+FFFD */

/* The length of the UTF-8 sequence at s (n bytes left), or 0 when the
 * byte at s begins none: overlong forms, surrogates and code points past
 * U+10FFFF are not UTF-8. */
static size_t utf8_length(const unsigned char *s, size_t n)
{
    if (s[0] < 0x80) return 1;
    size_t len = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    if (len == 0 || s[0] > 0xF4 || len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    if (len == 3 && s[0] == 0xE0 && s[1] < 0xA0) return 0;   /* overlong */
    if (len == 3 && s[0] == 0xED && s[1] >= 0xA0) return 0;  /* a surrogate */
    if (len == 4 && s[0] == 0xF0 && s[1] < 0x90) return 0;   /* overlong */
    if (len == 4 && s[0] == 0xF4 && s[1] >= 0x90) return 0;  /* past U+10FFFF */
    return len;
}

/* What one escaping does with a byte below 0x80: the text to write in its
 * place, or NULL to write the byte. */
typedef const char *(*AsciiRule)(unsigned char c, char buf[8]);

/* A set of ASCII bytes, a bit per byte: those an escaping writes as they
 * are without asking its rule (the fast way over most text). */
typedef struct ByteSet {
    uint64_t low, high;   /* bytes 0-63, 64-127 */
} ByteSet;
#define LOW_BIT(c) ((c) < 64 ? (uint64_t)1 << (c) : 0)
#define HIGH_BIT(c) ((c) >= 64 ? (uint64_t)1 << ((c) - 64) : 0)
/* the printable bytes, 0x20 to 0x7e, but those of a, b ... */
#define PRINTABLE_BUT(a, b, c, d, e)                                                                 \
    {(~(uint64_t)0 << 0x20) & ~(LOW_BIT(a) | LOW_BIT(b) | LOW_BIT(c) | LOW_BIT(d) | LOW_BIT(e)),   \
     (~(uint64_t)0 >> 1) & ~(HIGH_BIT(a) | HIGH_BIT(b) | HIGH_BIT(c) | HIGH_BIT(d) | HIGH_BIT(e))}

static bool in_set(ByteSet set, unsigned char c)
{
    return c < 64 ? (set.low >> c) & 1 : c < 128 && (set.high >> (c - 64)) & 1;
}

/* Appends n bytes of s: ASCII through `rule` (those of plain_bytes go as
 * they are without asking it), valid UTF-8 sequences as they are, any
 * other byte as U+FFFD. */
static void escaped(CqlText *out, const char *s, size_t n, ByteSet plain_bytes, AsciiRule rule)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t plain = 0;   /* bytes from u[plain] on that are written as they are */
    for (size_t i = 0; i < n;) {
        if (in_set(plain_bytes, u[i])) {
            i++;
            continue;
        }
        char buf[8];
        size_t len = utf8_length(u + i, n - i);
        const char *instead = len == 0 ? replacement : len == 1 ? rule(u[i], buf) : NULL;
        if (!instead) {
            i += len;
            continue;
        }
        cql_text_append(out, s + plain, i - plain);
        cql_text_append(out, instead, strlen(instead));
        i += len ? len : 1;
        plain = i;
    }
    cql_text_append(out, s + plain, n - plain);
}

static const char *json_rule(unsigned char c, char buf[8])
{
    if (c == '"') return "\\\"";
    if (c == '\\') return "\\\\";
    if (c == '\n') return "\\n";
    if (c == '\t') return "\\t";
    if (c < 0x20 || c == 0x7f) {
        static const char hex[] = "0123456789abcdef";
        memcpy(buf, "\\u00", 4);
        buf[4] = hex[c >> 4];
        buf[5] = hex[c & 15];
        buf[6] = '\0';
        return buf;
    }
    return NULL;
}

void escape_json(CqlText *out, const char *s)
{
    cql_text_append(out, "\"", 1);
    escaped(out, s, strlen(s), (ByteSet)PRINTABLE_BUT('"', '\\', 0, 0, 0), json_rule);
    cql_text_append(out, "\"", 1);
}

static const char *tsv_rule(unsigned char c, char buf[8])
{
    (void)buf;
    if (c == '\t' || c == '\n' || c == '\r') return " ";
    return c < 0x20 || c == 0x7f ? "" : NULL;
}

void escape_tsv(CqlText *out, const char *s)
{
    escaped(out, s, strlen(s), (ByteSet)PRINTABLE_BUT(0, 0, 0, 0, 0), tsv_rule);
}

static const char *epd_rule(unsigned char c, char buf[8])
{
    (void)buf;
    if (c == '"') return "'";
    return c < 0x20 || c == 0x7f ? " " : NULL;
}

void escape_epd(CqlText *out, const char *s)
{
    escaped(out, s, strlen(s), (ByteSet)PRINTABLE_BUT('"', 0, 0, 0, 0), epd_rule);
}

static const char *html_rule(unsigned char c, char buf[8])
{
    (void)buf;
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    case '\t': case '\n': return NULL;
    default: return c < 0x20 || c == 0x7f ? replacement : NULL;
    }
}

void escape_html(CqlText *out, const char *s, size_t n)
{
    escaped(out, s, n, (ByteSet)PRINTABLE_BUT('&', '<', '>', '"', '\''), html_rule);
}
