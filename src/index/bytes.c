/*
 * src/index/bytes.c — varints, little-endian numbers and the checksum of
 * the sidecar format (see bytes.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "index/bytes.h"

#include <string.h>

void bytes_put_long_varint(StrBuf *out, uint64_t v)
{
    if (out->len + 11 > out->cap) sb_reserve(out, 10);
    char *p = out->data + out->len, *start = p;
    while (v >= 0x80) {
        *p++ = (char)(unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (char)(unsigned char)v;
    *p = '\0';
    out->len += (size_t)(p - start);
}

static void put_le(StrBuf *out, uint64_t v, size_t width)
{
    char b[8];
    for (size_t i = 0; i < width; i++) b[i] = (char)(unsigned char)(v >> (8 * i));
    sb_append_n(out, b, width);
}

void bytes_put_u16(StrBuf *out, uint16_t v) { put_le(out, v, 2); }
void bytes_put_u32(StrBuf *out, uint32_t v) { put_le(out, v, 4); }
void bytes_put_u64(StrBuf *out, uint64_t v) { put_le(out, v, 8); }

uint64_t bytes_get_varint(ByteCursor *c)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (c->at == c->end) break;
        unsigned char b = *c->at++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    c->bad = true;   /* past the end, or more than ten bytes */
    return 0;
}

const unsigned char *bytes_get(ByteCursor *c, size_t n)
{
    if (cursor_left(c) < n) {
        c->bad = true;
        c->at = c->end;
        return NULL;
    }
    const unsigned char *p = c->at;
    c->at += n;
    return p;
}

static uint64_t get_le(ByteCursor *c, size_t width)
{
    const unsigned char *p = bytes_get(c, width);
    uint64_t v = 0;
    for (size_t i = 0; p && i < width; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

uint8_t bytes_get_u8(ByteCursor *c) { return (uint8_t)get_le(c, 1); }
uint16_t bytes_get_u16(ByteCursor *c) { return (uint16_t)get_le(c, 2); }

uint64_t bytes_u64_at(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;   /* one load where the machine is little-endian */
    memcpy(&v, p, sizeof v);
    return v;
#else
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
#endif
}

uint32_t bytes_u32_at(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* {==== the checksum (xxHash64's round and avalanche) ========================== */

#define PRIME1 UINT64_C(0x9E3779B185EBCA87)
#define PRIME2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define PRIME3 UINT64_C(0x165667B19E3779F9)
#define PRIME4 UINT64_C(0x85EBCA77C2B2AE63)

static inline uint64_t rotl(uint64_t x, unsigned r)
{
    return (x << r) | (x >> (64 - r));
}

static inline uint64_t round_of(uint64_t lane, uint64_t word)
{
    return rotl(lane + word * PRIME2, 31) * PRIME1;
}

/* The blocks of len bytes at p (len a multiple of 32) into the lanes. The
 * lanes are locals here: kept in c, each store through it might change the
 * bytes (an unsigned char pointer may alias anything), so each block would
 * store and load them again (half the loop's instructions). */
static void add_blocks(Checksum *c, const unsigned char *p, size_t len)
{
    uint64_t l0 = c->lane[0], l1 = c->lane[1], l2 = c->lane[2], l3 = c->lane[3];
    for (const unsigned char *end = p + len; p < end; p += 32) {
        l0 = round_of(l0, bytes_u64_at(p));
        l1 = round_of(l1, bytes_u64_at(p + 8));
        l2 = round_of(l2, bytes_u64_at(p + 16));
        l3 = round_of(l3, bytes_u64_at(p + 24));
    }
    c->lane[0] = l0;
    c->lane[1] = l1;
    c->lane[2] = l2;
    c->lane[3] = l3;
}

void checksum_init(Checksum *c)
{
    memset(c, 0, sizeof *c);
    c->lane[0] = PRIME1 + PRIME2;
    c->lane[1] = PRIME2;
    c->lane[2] = 0;
    c->lane[3] = (uint64_t)0 - PRIME1;
}

void checksum_add(Checksum *c, const void *data, size_t len)
{
    const unsigned char *p = data;
    c->total += len;
    if (c->held) {
        size_t take = sizeof c->block - c->held < len ? sizeof c->block - c->held : len;
        memcpy(c->block + c->held, p, take);
        c->held += take;
        p += take;
        len -= take;
        if (c->held < sizeof c->block) return;
        add_blocks(c, c->block, sizeof c->block);
        c->held = 0;
    }
    size_t whole = len - len % sizeof c->block;
    add_blocks(c, p, whole);
    p += whole;
    len -= whole;
    memcpy(c->block, p, len);
    c->held = len;
}

uint64_t checksum_value(const Checksum *c)
{
    uint64_t h = rotl(c->lane[0], 1) + rotl(c->lane[1], 7) + rotl(c->lane[2], 12) + rotl(c->lane[3], 18);
    for (int i = 0; i < 4; i++) h = (h ^ round_of(0, c->lane[i])) * PRIME1 + PRIME4;
    h += c->total;
    size_t i = 0;
    for (; i + 8 <= c->held; i += 8) h = rotl(h ^ round_of(0, bytes_u64_at(c->block + i)), 27) * PRIME1 + PRIME4;
    for (; i < c->held; i++) h = rotl(h ^ (c->block[i] * PRIME3), 11) * PRIME1;
    h ^= h >> 33;
    h *= PRIME2;
    h ^= h >> 29;
    h *= PRIME3;
    h ^= h >> 32;
    return h;
}

uint64_t bytes_checksum(const void *data, size_t len)
{
    Checksum c;
    checksum_init(&c);
    checksum_add(&c, data, len);
    return checksum_value(&c);
}

/* }==== */
