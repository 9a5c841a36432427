/*
 * src/base/utf8.h — UTF-8 decoding and encoding of single code points.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_UTF8_H
#define CQL_UTF8_H

#include <stddef.h>
#include <stdint.h>

#define UTF8_INVALID 0xFFFFFFFFu

/* Decodes the code point at s[0..n). Stores its byte length in *len (1 for an
 * invalid byte, so callers can skip it) and returns UTF8_INVALID on malformed,
 * overlong or truncated input. */
uint32_t utf8_decode(const char *s, size_t n, size_t *len);
/* Writes the encoding of cp into out (at least 4 bytes); returns its length. */
size_t utf8_encode(uint32_t cp, char *out);
/* True when the text starts with a UTF-8 byte-order mark (EF BB BF). */
int utf8_has_bom(const char *s, size_t n);

#endif
