/*
 * src/base/diag.h — every message cql prints about bad input goes through here.
 *
 * Formats (GCC style, which editors parse):
 *   query.cql:3:5: error: MESSAGE        + the source line + a ^~~~ caret line
 *   games.pgn:120:7: game 4: MESSAGE     (a PGN problem; the run goes on)
 *   cql: error: MESSAGE                  (usage, files, options)
 * Library code never writes to stderr itself: it calls a DiagSink, whose
 * callback receives the finished text (stderr by default; tests capture it).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_DIAG_H
#define CQL_DIAG_H

#include <stddef.h>
#include <stdint.h>

typedef enum DiagSeverity { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagSeverity;

/* A byte range [start, end) in a source text. */
typedef struct Span {
    uint32_t start, end;
} Span;

/* A named text that spans point into (the query file, or -cql text). */
typedef struct SourceText {
    const char *name;   /* as shown in messages, e.g. "query.cql" */
    const char *text;
    size_t len;
} SourceText;

/* Receives one complete message (with its trailing newline). */
typedef void (*DiagSinkFn)(void *ctx, DiagSeverity sev, const char *text);

typedef struct DiagSink {
    DiagSinkFn fn;      /* NULL: write to stderr */
    void *ctx;
    unsigned errors;    /* counts of messages sent, by severity */
    unsigned warnings;
} DiagSink;

#if defined(__GNUC__)
#define DIAG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define DIAG_PRINTF(f, a)
#endif

void diag_sink_init(DiagSink *d, DiagSinkFn fn, void *ctx);

/* FILE:LINE:COL: SEVERITY: MESSAGE, the source line and a caret under span. */
void diag_at(DiagSink *d, const SourceText *src, Span span, DiagSeverity sev,
             const char *fmt, ...) DIAG_PRINTF(5, 6);

/* FILE:LINE:COL: game N: MESSAGE  (col 0 omits the column). */
void diag_game(DiagSink *d, const char *file, unsigned line, unsigned col,
               long game, const char *fmt, ...) DIAG_PRINTF(6, 7);

/* FILE:LINE:COL: SEVERITY: MESSAGE, for input files without a caret line
 * (col 0 omits the column). */
void diag_file(DiagSink *d, const char *file, unsigned line, unsigned col,
               DiagSeverity sev, const char *fmt, ...) DIAG_PRINTF(6, 7);

/* Delivers a finished message (as a sink received it) to d: for messages
 * collected where they happened and passed on later, in order. */
void diag_deliver(DiagSink *d, DiagSeverity sev, const char *text);

/* cql: SEVERITY: MESSAGE */
void diag_plain(DiagSink *d, DiagSeverity sev, const char *fmt, ...) DIAG_PRINTF(3, 4);

/* 1-based line and display column of byte offset `off` in src (tabs to 8).
 * It reads the text up to `off`: for one message. */
void diag_line_col(const SourceText *src, uint32_t off, unsigned *line, unsigned *col);

/* The same for many offsets (`cql -parse` prints two for every node): an
 * index of the text, made in one pass, answers each in a bounded time. */
typedef struct DiagPoint {
    size_t off;
    unsigned line, col;
} DiagPoint;

typedef struct DiagLineIndex {
    const SourceText *src;   /* kept alive by the caller */
    DiagPoint *points;       /* owned: the place of every DIAG_INDEX_STEP-th byte */
    size_t npoints;
} DiagLineIndex;

void diag_index_init(DiagLineIndex *ix, const SourceText *src);
void diag_index_free(DiagLineIndex *ix);
void diag_index_line_col(const DiagLineIndex *ix, uint32_t off, unsigned *line, unsigned *col);

#endif
