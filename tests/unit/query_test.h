/*
 * tests/unit/query_test.h — a helper shared by the cmocka tests of the query front
 * end and the transforms: compiling a query body as `cql -cql TEXT` does,
 * with its messages dropped.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_QUERY_TEST_H
#define CQL_QUERY_TEST_H

#include <string.h>

#include "query/compile.h"
#include "query/sema.h"

static inline void drop_message(void *ctx, DiagSeverity sev, const char *text)
{
    (void)ctx;
    (void)sev;
    (void)text;
}

/* The compiled query, or NULL when it is refused. */
static inline Query *compile_quietly(const char *text)
{
    DiagSink diag;
    diag_sink_init(&diag, drop_message, NULL);
    SourceText src = {"-cql", text, strlen(text), NULL, 0};
    CompileOptions opt = {.body_only = true};
    return query_compile(&src, &opt, &diag);
}

#endif
