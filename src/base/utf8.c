/*
 * src/base/utf8.c — UTF-8 decoding (strict: no overlongs, no surrogates).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "base/utf8.h"

uint32_t utf8_decode(const char *s, size_t n, size_t *len)
{
    const unsigned char *u = (const unsigned char *)s;
    *len = 1;
    if (n == 0) return UTF8_INVALID;
    unsigned char c = u[0];
    if (c < 0x80) return c;
    size_t need;
    uint32_t cp, min;
    if ((c & 0xE0) == 0xC0) { need = 2; cp = c & 0x1F; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { need = 3; cp = c & 0x0F; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { need = 4; cp = c & 0x07; min = 0x10000; }
    else return UTF8_INVALID;
    if (n < need) return UTF8_INVALID;
    for (size_t i = 1; i < need; i++) {
        if ((u[i] & 0xC0) != 0x80) return UTF8_INVALID;
        cp = (cp << 6) | (u[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return UTF8_INVALID;
    *len = need;
    return cp;
}

size_t utf8_encode(uint32_t cp, char *out)
{
    unsigned char *o = (unsigned char *)out;
    if (cp < 0x80) { o[0] = (unsigned char)cp; return 1; }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

int utf8_has_bom(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    return n >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF;
}
