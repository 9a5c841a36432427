/*
 * src/base/arena.c — bump allocator in chunks (see src/base/arena.h).
 *
 * Invariant: the head chunk's fill state lives in the Arena (base, size,
 * used <= size); blocks are aligned to ARENA_ALIGN. Only the head
 * chunk is ever allocated from; the chunks behind it are full, or hold one
 * big block each. The chunks kept by a reset (`spare`) are in no order;
 * each carries the reset that last found it in use, and a new chunk is the
 * smallest kept one that fits before it is a new malloc.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "base/arena.h"

#include <assert.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaChunk {
    ArenaChunk *next;
    size_t size;      /* usable bytes in data[] */
    size_t used_at;   /* the arena's resets when a game last used it */
    _Alignas(ARENA_ALIGN) unsigned char data[];
};

/* What a failed allocation calls (base_set_nomem_handler). */
static NomemHandler nomem_handler;
static void *nomem_ctx;

void base_set_nomem_handler(NomemHandler fn, void *ctx)
{
    nomem_handler = fn;
    nomem_ctx = ctx;
}

/* Without a handler: the message, then SIGABRT, which ends the process
 * unless the program catches it (the library does not go on without the
 * memory, and calls neither abort nor exit). */
static void default_nomem(size_t size)
{
    fprintf(stderr, "cql: out of memory (asked for %zu bytes)\n", size);
    raise(SIGABRT);
}

/* A failed allocation of `size` bytes: the handler is told; when it returns
 * (having freed memory), the allocation is tried again. */
static void out_of_memory(size_t size)
{
    if (nomem_handler) nomem_handler(nomem_ctx, size);
    else default_nomem(size);
}

void *xmalloc(size_t size)
{
    void *p;
    while (!(p = malloc(size ? size : 1))) out_of_memory(size);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p;
    while (!(p = calloc(n ? n : 1, size ? size : 1))) out_of_memory(n * size);
    return p;
}

void *xrealloc(void *p, size_t size)
{
    void *q;
    while (!(q = realloc(p, size ? size : 1))) out_of_memory(size);
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

/* The head chunk becomes c, empty. */
static void make_head(Arena *a, ArenaChunk *c)
{
    a->head = c;
    a->base = c ? c->data : NULL;
    a->size = c ? c->size : 0;
    a->used = 0;
}

void arena_init(Arena *a, size_t chunk_size)
{
    make_head(a, NULL);
    a->chunk_size = chunk_size ? chunk_size : 64 * 1024;
    a->chunk_max = a->chunk_size;
    a->bytes_before = 0;
    a->spare = NULL;
    a->resets = 0;
    a->chunks_made = 0;
}

void arena_init_growing(Arena *a, size_t first, size_t max)
{
    arena_init(a, first);
    a->chunk_max = max > a->chunk_size ? max : a->chunk_size;
}

static ArenaChunk *new_chunk(Arena *a, size_t size)
{
    ArenaChunk *c = xmalloc(sizeof(ArenaChunk) + size);
    c->next = NULL;
    c->size = size;
    c->used_at = a->resets;
    a->chunks_made++;
    return c;
}

/* Whether the kept chunk c may serve a request for `min` bytes: large
 * enough, and, when larger than the usual chunks, at most about twice the
 * request, so that small games do not keep a big game's chunk in use (and
 * so never let it go). */
static bool fits(const Arena *a, const ArenaChunk *c, size_t min)
{
    return c->size >= min && (c->size <= a->chunk_max || c->size / 2 <= min);
}

/* The smallest kept chunk that fits a request for `min` bytes, or a new
 * one of exactly that size. */
static ArenaChunk *take_chunk(Arena *a, size_t min)
{
    ArenaChunk **best = NULL;
    for (ArenaChunk **at = &a->spare; *at; at = &(*at)->next)
        if (fits(a, *at, min) && (!best || (*at)->size < (*best)->size)) best = at;
    if (!best) return new_chunk(a, min);
    ArenaChunk *c = *best;
    *best = c->next;
    c->next = NULL;
    return c;
}

void *arena_alloc_grow(Arena *a, size_t need)
{
    assert(need == arena_align_up(need) && need > a->size - a->used);
    if (need > a->chunk_size / 4 && a->head && a->size - a->used >= a->chunk_size / 8) {
        /* a big block: give it a chunk of its own behind the head, so the
         * head's free space is not wasted */
        ArenaChunk *big = take_chunk(a, need);
        big->next = a->head->next;
        a->head->next = big;
        a->bytes_before += need;
        return big->data;
    }
    size_t made = a->chunks_made;
    ArenaChunk *c = take_chunk(a, need > a->chunk_size ? need : a->chunk_size);
    c->next = a->head;
    a->bytes_before += a->used;   /* the old head's */
    make_head(a, c);
    if (a->chunks_made != made && a->chunk_size < a->chunk_max)
        a->chunk_size = a->chunk_max / 2 < a->chunk_size ? a->chunk_max : 2 * a->chunk_size;
    a->used = need;
    return a->base;
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
    /* the last block of the head chunk: it ends where the free space begins */
    uintptr_t at = (uintptr_t)p, base = (uintptr_t)a->base;
    if (a->head && at >= base && at + arena_align_up(old_size ? old_size : 1) == base + a->used) {
        size_t offset = at - base, need = arena_align_up(new_size ? new_size : 1);
        if (offset + need <= a->size) {
            a->used = offset + need;
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

/* Forgets every allocation, the chunks in use marked used at `now`
 * (arena_reset, arena_rewind). */
static void recycle(Arena *a, size_t now)
{
    ArenaChunk *head = a->head;
    a->bytes_before = 0;
    if (head && !head->next && !a->spare && head->size <= a->chunk_max) {
        /* the usual case: the game used one chunk, and nothing else is kept */
        head->used_at = now;
        make_head(a, head);
        return;
    }
    /* the chunks this game used join the kept ones */
    for (ArenaChunk *c = head, *next; c; c = next) {
        next = c->next;
        c->used_at = now;
        c->next = a->spare;
        a->spare = c;
    }
    /* free those that no recent game used, and those beyond the bound */
    size_t held = 0, bound = ARENA_KEEP_CHUNKS * a->chunk_max;
    for (ArenaChunk **at = &a->spare; *at;) {
        ArenaChunk *c = *at;
        if (now - c->used_at >= ARENA_KEEP_GAMES || c->size > bound - held) {
            *at = c->next;
            free(c);
        } else {
            held += c->size;
            at = &c->next;
        }
    }
    /* the next game starts in the largest chunk of usual size */
    ArenaChunk **largest = NULL;
    for (ArenaChunk **at = &a->spare; *at; at = &(*at)->next)
        if ((*at)->size <= a->chunk_max && (!largest || (*at)->size > (*largest)->size)) largest = at;
    head = NULL;
    if (largest) {
        head = *largest;
        *largest = head->next;
        head->next = NULL;
    }
    make_head(a, head);
}

void arena_reset(Arena *a)
{
    recycle(a, ++a->resets);
}

void arena_rewind(Arena *a)
{
    recycle(a, a->resets);
}

static void free_list(ArenaChunk *c)
{
    for (ArenaChunk *next; c; c = next) {
        next = c->next;
        free(c);
    }
}

void arena_free(Arena *a)
{
    free_list(a->head);
    free_list(a->spare);
    make_head(a, NULL);
    a->spare = NULL;
    a->bytes_before = 0;
}

size_t arena_bytes_held(const Arena *a)
{
    size_t held = 0;
    for (const ArenaChunk *c = a->head; c; c = c->next) held += c->size;
    for (const ArenaChunk *c = a->spare; c; c = c->next) held += c->size;
    return held;
}
