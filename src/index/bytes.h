/*
 * src/index/bytes.h — the byte forms of the sidecar index (docs/index.md):
 * unsigned varints (LEB128: seven bits a byte, low bits first),
 * little-endian fixed-width numbers, and the checksum of a range of bytes.
 *
 * Writers append to a StrBuf; readers take bytes from a ByteCursor, which never
 * reads past its end: a read past it sets `bad` and gives 0, so that a
 * damaged record is found by one test at its end instead of one per field.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_INDEX_BYTES_H
#define CQL_INDEX_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"

/* Bytes being read: [at, end). */
typedef struct ByteCursor {
    const unsigned char *at, *end;
    bool bad;            /* a read went past the end, or a varint was too long */
} ByteCursor;

static inline ByteCursor cursor_of(const void *data, size_t len)
{
    const unsigned char *p = data;
    return (ByteCursor){p, p + len, false};
}

static inline size_t cursor_left(const ByteCursor *c)
{
    return (size_t)(c->end - c->at);
}

/* Any varint; bytes_put_varint, inline, for the one-byte ones (most of a
 * record's: tag strings, counts). */
void bytes_put_long_varint(StrBuf *out, uint64_t v);
static inline void bytes_put_varint(StrBuf *out, uint64_t v)
{
    if (v >= 0x80 || out->len + 2 > out->cap) {
        bytes_put_long_varint(out, v);
        return;
    }
    out->data[out->len++] = (char)(unsigned char)v;
    out->data[out->len] = '\0';
}
void bytes_put_u16(StrBuf *out, uint16_t v);
void bytes_put_u32(StrBuf *out, uint32_t v);
void bytes_put_u64(StrBuf *out, uint64_t v);

uint64_t bytes_get_varint(ByteCursor *c);
uint8_t bytes_get_u8(ByteCursor *c);
uint16_t bytes_get_u16(ByteCursor *c);
/* n bytes taken from c (NULL, and c->bad, when fewer are left) */
const unsigned char *bytes_get(ByteCursor *c, size_t n);

/* The little-endian numbers at p (which holds at least their width). */
uint64_t bytes_u64_at(const unsigned char *p);
uint32_t bytes_u32_at(const unsigned char *p);

/* A 64-bit checksum of a stream of bytes given in pieces of any size:
 * four lanes of multiply-and-rotate over 8-byte words (xxHash's round),
 * several bytes a cycle. It finds damage (a flipped bit, a truncation,
 * bytes moved or added), not an adversary. */
typedef struct Checksum {
    uint64_t lane[4];
    unsigned char block[32];   /* the bytes of a block not yet whole */
    size_t held;
    uint64_t total;
} Checksum;

void checksum_init(Checksum *c);
void checksum_add(Checksum *c, const void *data, size_t len);
uint64_t checksum_value(const Checksum *c);
/* The checksum of len bytes in one call. */
uint64_t bytes_checksum(const void *data, size_t len);

#endif
