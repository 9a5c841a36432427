/*
 * src/base/diag.h — every message cql prints about bad input goes through here.
 *
 * Formats (GCC style, which editors parse):
 *   query.cql:3:5: error: MESSAGE        + the source line + a ^~~~ caret line
 *   option -hhdb: error: MESSAGE         (in a text made of an option's values)
 *   games.pgn:120:7: game 4: MESSAGE     (a PGN problem; the run goes on)
 *   cql: error: MESSAGE                  (usage, files, options)
 * Library code never writes to stderr itself: it calls a DiagSink, whose
 * callback receives the finished text (stderr by default; tests capture it).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_DIAG_H
#define CQL_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum DiagSeverity { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagSeverity;

/* A byte range [start, end) in a source text. */
typedef struct Span {
    uint32_t start, end;
} Span;

/* One source among the parts of a text: a query is its own text and then
 * each filter given apart from it (a -cql text, an option's filter such as
 * -player's), one after the other in one text, so that a span is a range of
 * that text and the part it falls in names its source. */
typedef struct SourcePart {
    const char *name;       /* as shown in messages: "-cql", "-player" */
    uint32_t start, end;    /* its bytes in the text */
    bool bare;              /* a text made with values (an option's), which no
                               one wrote as it stands: messages name it
                               without a line and a column */
} SourcePart;

/* A named text that spans point into (the query file, or -cql text). With
 * parts, each is a source of its own: a message about a span names the part
 * the span begins in, counts lines and columns from the part's start and
 * shows the part's line. */
typedef struct SourceText {
    const char *name;   /* as shown in messages, e.g. "query.cql" */
    const char *text;
    size_t len;
    const SourcePart *parts;   /* in the order of the text; NULL: one source */
    uint32_t nparts;
} SourceText;

/* The source that byte `off` of src belongs to, as a text of its own (the
 * whole of src when it has no parts), and the offset in src where it begins.
 * An offset between two parts (a separator) belongs to the part before it. */
SourceText diag_source_at(const SourceText *src, uint32_t off, uint32_t *base);

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

/* 1-based line and display column of byte offset `off` in src (tabs to 8),
 * counted in the source `off` belongs to. It reads the text up to `off`:
 * for one message. */
void diag_line_col(const SourceText *src, uint32_t off, unsigned *line, unsigned *col);

/* The same for many offsets (`cql -parse` prints two for every node): an
 * index of the text, made in one pass, answers each in a bounded time. */
typedef struct DiagPoint {
    size_t off;
    unsigned line, col;
} DiagPoint;

typedef struct DiagLineIndex {
    const SourceText *src;   /* kept alive by the caller */
    DiagPoint *points;       /* owned: the place of every DIAG_INDEX_STEP-th byte,
                                counted from the start of its part */
    size_t npoints;
} DiagLineIndex;

void diag_index_init(DiagLineIndex *ix, const SourceText *src);
void diag_index_free(DiagLineIndex *ix);
void diag_index_line_col(const DiagLineIndex *ix, uint32_t off, unsigned *line, unsigned *col);

#endif
