/*
 * src/cli/memory.c — allocation that aborts with a message (see memory.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *checked(void *p, size_t size)
{
    if (p) return p;
    fprintf(stderr, "cql: out of memory (asked for %zu bytes)\n", size);
    abort();
}

void *cli_malloc(size_t size)
{
    return checked(malloc(size ? size : 1), size);
}

void *cli_calloc(size_t n, size_t size)
{
    return checked(calloc(n ? n : 1, size ? size : 1), n * size);
}

void *cli_realloc(void *p, size_t size)
{
    return checked(realloc(p, size ? size : 1), size);
}

char *cli_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(cli_malloc(n), s, n);
}
