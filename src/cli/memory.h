/*
 * src/cli/memory.h — allocation for the program's own buffers: on failure it
 * says so on standard error and aborts, since a run cannot go on without
 * memory; the library's out-of-memory handler does the same.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CLI_MEMORY_H
#define CQL_CLI_MEMORY_H

#include <stddef.h>

void *cli_malloc(size_t size);
void *cli_calloc(size_t n, size_t size);
void *cli_realloc(void *p, size_t size);
char *cli_strdup(const char *s);

/* Tunes the C library's allocator for a long run, where it allows it (see
 * memory.c), and gives the library its out-of-memory handler; call once,
 * before any thread starts. */
void cli_memory_setup(void);

#endif
