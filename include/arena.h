/*
 * include/arena.h — bump allocation in chunks.
 *
 * An Arena owns every allocation made from it; nothing is freed one by one.
 * The query owns one arena (AST, interned names, transform clones) freed when
 * the run ends; each worker owns one per game, reset between games, so memory
 * stays bounded by the largest game. Allocation failure aborts the process
 * with a message (there is no sensible recovery from out-of-memory here).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_ARENA_H
#define CQL_ARENA_H

#include <stddef.h>

typedef struct ArenaChunk ArenaChunk;

typedef struct Arena {
    ArenaChunk *head;    /* chunk being filled; older chunks follow ->next */
    size_t chunk_size;   /* default size of a new chunk */
    size_t bytes_used;   /* total bytes handed out since init or reset */
} Arena;

void  arena_init(Arena *a, size_t chunk_size);
void *arena_alloc(Arena *a, size_t size);          /* aligned for any type, uninitialised */
void *arena_zalloc(Arena *a, size_t size);         /* zero-filled */
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
/* Grows the most recent allocation `p` of `old_size` bytes to `new_size` in place
 * when it is the last block of the head chunk, else copies. */
void *arena_realloc(Arena *a, void *p, size_t old_size, size_t new_size);
void  arena_reset(Arena *a);   /* forget every allocation, keep one chunk for reuse */
void  arena_free(Arena *a);    /* release all memory */

#define ARENA_NEW(a, T)        ((T *)arena_zalloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n)   ((T *)arena_zalloc((a), sizeof(T) * (size_t)(n)))

/* Process-wide allocation helpers that abort on failure (used outside arenas). */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);

#endif
