/*
 * src/base/arena.h — bump allocation in chunks.
 *
 * An Arena owns every allocation made from it; nothing is freed one by one.
 * The query owns one arena (AST, interned names, transform clones) freed when
 * the run ends; each worker owns two reset between games (the game's tree and
 * the search's notes). A reset keeps the chunks that the last ARENA_KEEP_GAMES
 * games used, up to ARENA_KEEP_CHUNKS of the largest chunk size, and reuses
 * them: in the steady state a game allocates nothing from the C library (no
 * mmap and munmap per game), while one huge game's memory goes back after
 * that many smaller games, or at once beyond the bound. Allocation failure
 * aborts the process with a message (there is no sensible recovery from
 * out-of-memory here).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_ARENA_H
#define CQL_ARENA_H

#include <stddef.h>

typedef struct ArenaChunk ArenaChunk;

/* The head chunk's fill state is kept here rather than in the chunk, so
 * that arena_alloc's common case (room left in the head chunk) is inline. */
typedef struct Arena {
    ArenaChunk *head;      /* chunk being filled; older chunks follow ->next */
    unsigned char *base;   /* the head chunk's data (NULL before the first chunk) */
    size_t size;           /* usable bytes at base (0 before the first chunk) */
    size_t used;           /* bytes at base handed out */
    size_t chunk_size;     /* default size of a new chunk */
    size_t chunk_max;      /* chunk_size doubles with each head chunk made, up to this */
    size_t bytes_before;   /* bytes handed out since init or reset outside the head's used */
    ArenaChunk *spare;     /* chunks kept by resets and not used since the last one */
    size_t resets;         /* arena_reset calls since init: the chunks' clock */
    size_t chunks_made;    /* chunks taken from malloc since init (for the tests) */
} Arena;

#define ARENA_ALIGN 16     /* every block is aligned to this (enough for any type here) */
/* A reset frees a chunk that no game used among the last ARENA_KEEP_GAMES,
 * and keeps at most ARENA_KEEP_CHUNKS * chunk_max bytes of chunks (4 MB for
 * the 256 KB chunks of a game's arena). */
#define ARENA_KEEP_GAMES 64
#define ARENA_KEEP_CHUNKS 16

void  arena_init(Arena *a, size_t chunk_size);
/* An arena whose chunks start at `first` bytes and double with each new
 * chunk up to `max`: small for a small game, and (since arena_reset keeps
 * the chunks that recent games used) no allocation per game once reused
 * for a while. */
void  arena_init_growing(Arena *a, size_t first, size_t max);
/* arena_alloc's slow path: a new head chunk, or a chunk of its own for a
 * big block, taken from the kept chunks when one fits, else from malloc.
 * `need` is already rounded up to ARENA_ALIGN. */
void *arena_alloc_grow(Arena *a, size_t need);

static inline size_t arena_align_up(size_t n)
{
    return (n + (ARENA_ALIGN - 1)) & ~(size_t)(ARENA_ALIGN - 1);
}

/* Aligned for any type, uninitialised. */
static inline void *arena_alloc(Arena *a, size_t size)
{
    size_t need = arena_align_up(size ? size : 1);
    if (a->size - a->used < need) return arena_alloc_grow(a, need);
    void *p = a->base + a->used;
    a->used += need;
    return p;
}

/* Total bytes handed out since init or reset (blocks rounded up to
 * ARENA_ALIGN). */
static inline size_t arena_bytes_used(const Arena *a)
{
    return a->bytes_before + a->used;
}

void *arena_zalloc(Arena *a, size_t size);         /* zero-filled */
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
/* Grows the allocation `p` of `old_size` bytes to `new_size` in place when
 * it is the last block of the head chunk (the most recent allocation), else
 * copies. */
void *arena_realloc(Arena *a, void *p, size_t old_size, size_t new_size);
/* Forgets every allocation; keeps the chunks that recent games used (see
 * ARENA_KEEP_GAMES), the largest of usual size as the head. */
void  arena_reset(Arena *a);
/* arena_reset without a tick of the clock that ages the kept chunks: for
 * an arena several searches of one game use in turn (lib/searcher.c), so
 * that chunks are kept for the last ARENA_KEEP_GAMES games, not searches. */
void  arena_rewind(Arena *a);
void  arena_free(Arena *a);    /* release all memory */
/* Bytes in the arena's chunks, used or kept (for the tests). */
size_t arena_bytes_held(const Arena *a);

#define ARENA_NEW(a, T)        ((T *)arena_zalloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n)   ((T *)arena_zalloc((a), sizeof(T) * (size_t)(n)))

/* Process-wide allocation helpers (used outside arenas, and by arenas for
 * their chunks) that never return NULL: a failed allocation calls the
 * out-of-memory handler and, when it returns, tries again. */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);

/* The out-of-memory handler, told the size asked for: it ends the process,
 * jumps out, or frees memory and returns. Without one, a message and
 * SIGABRT. Set it before any thread allocates. */
typedef void (*NomemHandler)(void *ctx, size_t size);
void base_set_nomem_handler(NomemHandler fn, void *ctx);

#endif
