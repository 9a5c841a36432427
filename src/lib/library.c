/*
 * src/lib/library.c — the library's setup (the tables of the chess core,
 * filled once on first use), its version, its out-of-memory handler, and
 * the messages and texts of include/cql.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <pthread.h>
#include <stdarg.h>

#include "chess/attacks.h"
#include "lib/lib_int.h"

_Static_assert((int)CQL_ERROR == (int)DIAG_ERROR && (int)CQL_WARNING == (int)DIAG_WARNING &&
                   (int)CQL_NOTE == (int)DIAG_NOTE,
               "cql.h and diag.h number the severities alike");

static pthread_once_t library_once = PTHREAD_ONCE_INIT;

static void fill_library_tables(void)
{
    att_init();
}

void lib_init(void)
{
    pthread_once(&library_once, fill_library_tables);
}

#define CQL_STRINGIFY(x) #x
#define CQL_VERSION_TEXT(a, b, c) CQL_STRINGIFY(a) "." CQL_STRINGIFY(b) "." CQL_STRINGIFY(c)

const char *cql_version(void)
{
    return CQL_VERSION_TEXT(CQL_VERSION_MAJOR, CQL_VERSION_MINOR, CQL_VERSION_PATCH);
}

void cql_set_nomem_handler(CqlNomemFn fn, void *ctx)
{
    base_set_nomem_handler(fn, ctx);
}

static void forward_message(void *ctx, DiagSeverity sev, const char *text)
{
    CqlMessages *m = ctx;
    m->fn(m->ctx, (CqlSeverity)sev, text);
}

DiagSink lib_sink(CqlMessages *m)
{
    DiagSink d;
    diag_sink_init(&d, m && m->fn ? forward_message : NULL, m);
    return d;
}

void lib_count(CqlMessages *m, const DiagSink *d)
{
    if (!m) return;
    m->errors += d->errors;
    m->warnings += d->warnings;
}

void cql_deliver(CqlMessages *m, CqlSeverity severity, const char *text)
{
    DiagSink d = lib_sink(m);
    diag_deliver(&d, (DiagSeverity)severity, text);
    lib_count(m, &d);
}

void cql_report(CqlMessages *m, CqlSeverity severity, const char *fmt, ...)
{
    StrBuf text = SB_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&text, fmt, ap);
    va_end(ap);
    DiagSink d = lib_sink(m);
    diag_plain(&d, (DiagSeverity)severity, "%s", sb_str(&text));
    lib_count(m, &d);
    sb_free(&text);
}

void cql_text_append(CqlText *t, const char *s, size_t n)
{
    StrBuf sb = lib_text_in(t);
    sb_append_n(&sb, s, n);
    lib_text_out(t, &sb);
}

void cql_text_printf(CqlText *t, const char *fmt, ...)
{
    StrBuf sb = lib_text_in(t);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    lib_text_out(t, &sb);
}

void cql_text_clear(CqlText *t)
{
    StrBuf sb = lib_text_in(t);
    sb_clear(&sb);
    lib_text_out(t, &sb);
}

void cql_text_free(CqlText *t)
{
    StrBuf sb = lib_text_in(t);
    sb_free(&sb);
    lib_text_out(t, &sb);
}

/* }==== */
