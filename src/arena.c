/*
 * src/arena.c — bump allocator in chunks (see include/arena.h).
 *
 * Invariant: every chunk's `used` never exceeds its `size`; blocks are aligned
 * to ARENA_ALIGN. A reset keeps the largest chunk and frees the others.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "arena.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN 16

struct ArenaChunk {
    ArenaChunk *next;
    size_t size;      /* usable bytes in data[] */
    size_t used;
    size_t last;      /* offset of the most recent block, for arena_realloc */
    _Alignas(ARENA_ALIGN) unsigned char data[];
};

static void out_of_memory(size_t size)
{
    fprintf(stderr, "cql: out of memory (asked for %zu bytes)\n", size);
    abort();
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p) out_of_memory(size);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) out_of_memory(n * size);
    return p;
}

void *xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q) out_of_memory(size);
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

static size_t align_up(size_t n)
{
    return (n + (ARENA_ALIGN - 1)) & ~(size_t)(ARENA_ALIGN - 1);
}

void arena_init(Arena *a, size_t chunk_size)
{
    a->head = NULL;
    a->chunk_size = chunk_size ? chunk_size : 64 * 1024;
    a->bytes_used = 0;
}

static ArenaChunk *new_chunk(size_t size)
{
    ArenaChunk *c = xmalloc(sizeof(ArenaChunk) + size);
    c->next = NULL;
    c->size = size;
    c->used = 0;
    c->last = 0;
    return c;
}

void *arena_alloc(Arena *a, size_t size)
{
    size_t need = align_up(size ? size : 1);
    ArenaChunk *c = a->head;
    if (!c || c->size - c->used < need) {
        size_t csize = need > a->chunk_size ? need : a->chunk_size;
        if (need > a->chunk_size / 4 && c && c->size - c->used >= a->chunk_size / 8) {
            /* a big block: give it a chunk of its own behind the head, so the
             * head's free space is not wasted */
            ArenaChunk *big = new_chunk(need);
            big->next = c->next;
            c->next = big;
            big->used = need;
            a->bytes_used += need;
            return big->data;
        }
        c = new_chunk(csize);
        c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->last = c->used;
    c->used += need;
    a->bytes_used += need;
    return p;
}

void *arena_zalloc(Arena *a, size_t size)
{
    void *p = arena_alloc(a, size);
    memset(p, 0, size);
    return p;
}

void *arena_realloc(Arena *a, void *p, size_t old_size, size_t new_size)
{
    if (!p) return arena_alloc(a, new_size);
    ArenaChunk *c = a->head;
    if (c && (unsigned char *)p == c->data + c->last) {
        size_t need = align_up(new_size ? new_size : 1);
        if (c->last + need <= c->size) {
            a->bytes_used += need - (c->used - c->last);
            c->used = c->last + need;
            return p;
        }
    }
    if (new_size <= old_size) return p;
    void *q = arena_alloc(a, new_size);
    memcpy(q, p, old_size);
    return q;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(Arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

void arena_reset(Arena *a)
{
    ArenaChunk *keep = NULL;
    for (ArenaChunk *c = a->head, *next; c; c = next) {
        next = c->next;
        if (!keep || c->size > keep->size) {
            if (keep) free(keep);
            keep = c;
        } else {
            free(c);
        }
    }
    if (keep) {
        keep->next = NULL;
        keep->used = keep->last = 0;
    }
    a->head = keep;
    a->bytes_used = 0;
}

void arena_free(Arena *a)
{
    for (ArenaChunk *c = a->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    a->head = NULL;
    a->bytes_used = 0;
}
