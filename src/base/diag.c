/*
 * src/base/diag.c — diagnostics: formatting and delivery to a sink (see diag.h).
 *
 * Line and column are computed on demand by scanning the source: messages are
 * rare, so a message keeps no line table (DiagLineIndex is for callers that
 * ask for many places). The caret line copies the tabs of the source line and
 * puts one space per other code point, so it lines up in any terminal.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "base/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/arena.h"

#include "base/strbuf.h"
#include "base/utf8.h"

static const char *const severity_names[] = {"error", "warning", "note"};

void diag_sink_init(DiagSink *d, DiagSinkFn fn, void *ctx)
{
    d->fn = fn;
    d->ctx = ctx;
    d->errors = 0;
    d->warnings = 0;
}

void diag_deliver(DiagSink *d, DiagSeverity sev, const char *text)
{
    if (sev == DIAG_ERROR) d->errors++;
    else if (sev == DIAG_WARNING) d->warnings++;
    if (d->fn) {
        d->fn(d->ctx, sev, text);
    } else {
        fputs(text, stderr);
        fflush(stderr);
    }
}

static void deliver(DiagSink *d, DiagSeverity sev, StrBuf *msg)
{
    diag_deliver(d, sev, sb_str(msg));
    sb_free(msg);
}

/* Moves *p forward over the code points before byte `end`, counting lines
 * and display columns. */
static void advance(const SourceText *src, DiagPoint *p, size_t end)
{
    size_t i = p->off;
    unsigned l = p->line, c = p->col;
    while (i < end) {
        unsigned char ch = (unsigned char)src->text[i];
        if (ch == '\n') {
            l++;
            c = 1;
            i++;
        } else if (ch == '\t') {
            c = ((c - 1) / 8 + 1) * 8 + 1;
            i++;
        } else {
            size_t n;
            utf8_decode(src->text + i, src->len - i, &n);
            c++;
            i += n;
        }
    }
    p->off = i;
    p->line = l;
    p->col = c;
}

/* The part of src that byte `off` belongs to (the last that begins at or
 * before it), or NULL when src is one source. */
static const SourcePart *part_at(const SourceText *src, size_t off)
{
    if (!src->parts || !src->nparts) return NULL;
    uint32_t lo = 0, hi = src->nparts;   /* the answer is in [lo, hi) */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (src->parts[mid].start <= off) lo = mid;
        else hi = mid;
    }
    return &src->parts[lo];
}

SourceText diag_source_at(const SourceText *src, uint32_t off, uint32_t *base)
{
    const SourcePart *part = part_at(src, off);
    *base = part ? part->start : 0;
    if (!part) return (SourceText){src->name, src->text, src->len, NULL, 0};
    return (SourceText){part->name, src->text + part->start, part->end - part->start, NULL, 0};
}

void diag_line_col(const SourceText *src, uint32_t off, unsigned *line, unsigned *col)
{
    uint32_t base;
    SourceText own = diag_source_at(src, off, &base);
    off -= base;
    DiagPoint p = {0, 1, 1};
    advance(&own, &p, off < own.len ? off : own.len);
    *line = p.line;
    *col = p.col;
}

/* An index keeps the place of about every DIAG_INDEX_STEP-th byte. */
#define DIAG_INDEX_STEP 1024

/* The place where the part holding byte `at` begins, when p is before it. */
static DiagPoint restart_in_part(const SourceText *src, DiagPoint p, size_t at)
{
    const SourcePart *part = part_at(src, at);
    if (part && p.off < part->start) p = (DiagPoint){part->start, 1, 1};
    return p;
}

void diag_index_init(DiagLineIndex *ix, const SourceText *src)
{
    ix->src = src;
    ix->npoints = src->len / DIAG_INDEX_STEP + 1;
    ix->points = xmalloc(ix->npoints * sizeof *ix->points);
    DiagPoint p = {0, 1, 1};
    for (size_t k = 0; k < ix->npoints; k++) {
        size_t at = k * DIAG_INDEX_STEP;
        p = restart_in_part(src, p, at);
        if (p.off < at) advance(ix->src, &p, at);   /* the first code point boundary at or after `at` */
        ix->points[k] = p;
    }
}

void diag_index_free(DiagLineIndex *ix)
{
    free(ix->points);
    ix->points = NULL;
    ix->npoints = 0;
}

void diag_index_line_col(const DiagLineIndex *ix, uint32_t off, unsigned *line, unsigned *col)
{
    size_t end = off < ix->src->len ? off : ix->src->len;
    size_t k = end / DIAG_INDEX_STEP;
    while (k > 0 && ix->points[k].off > end) k--;   /* a code point across the step */
    DiagPoint p = restart_in_part(ix->src, ix->points[k], end);
    advance(ix->src, &p, end);
    *line = p.line;
    *col = p.col;
}

/* A long source line is shown from at most this many code points before the
 * caret to this many after it, with "..." where it was cut. */
#define CARET_CONTEXT 100

/* The byte after the code point at i. */
static size_t next_code_point(const SourceText *src, size_t i)
{
    size_t n;
    utf8_decode(src->text + i, src->len - i, &n);
    return i + (n ? n : 1);
}

/* Appends the source line containing `span.start` and a ^~~~ underline.
 * Control bytes (a NUL ...) show as '?', so the text stays one line that
 * the caret lines up with. */
static void append_caret(StrBuf *sb, const SourceText *src, Span span)
{
    size_t start = span.start < src->len ? span.start : src->len;
    size_t bol = start;
    while (bol > 0 && src->text[bol - 1] != '\n') bol--;
    size_t eol = start;
    while (eol < src->len && src->text[eol] != '\n' && src->text[eol] != '\r') eol++;
    size_t before = 0;
    for (size_t i = bol; i < start; i = next_code_point(src, i)) before++;
    size_t from = bol;
    for (; before > CARET_CONTEXT; before--) from = next_code_point(src, from);
    size_t to = start;
    for (int k = 0; k < CARET_CONTEXT && to < eol; k++) to = next_code_point(src, to);
    if (to > eol) to = eol;
    if (from > bol) sb_append(sb, "...");
    for (size_t i = from; i < to;) {
        size_t next = next_code_point(src, i);
        unsigned char ch = (unsigned char)src->text[i];
        if ((ch < 0x20 && ch != '\t') || ch == 0x7F) sb_putc(sb, '?');
        else sb_append_n(sb, src->text + i, next - i);
        i = next;
    }
    if (to < eol) sb_append(sb, "...");
    sb_putc(sb, '\n');
    if (from > bol) sb_append(sb, "   ");
    for (size_t i = from; i < start; i = next_code_point(src, i)) sb_putc(sb, src->text[i] == '\t' ? '\t' : ' ');
    sb_putc(sb, '^');
    size_t end = span.end < to ? span.end : to;
    for (size_t i = start < end ? next_code_point(src, start) : end; i < end; i = next_code_point(src, i))
        sb_putc(sb, '~');   /* the caret covers the first code point */
    sb_putc(sb, '\n');
}

/* "FILE:LINE:COL: " (or "FILE:LINE: " when col is 0). */
static void append_location(StrBuf *sb, const char *file, unsigned line, unsigned col)
{
    if (col) sb_printf(sb, "%s:%u:%u: ", file, line, col);
    else sb_printf(sb, "%s:%u: ", file, line);
}

/* The formatted message and its newline. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 0)))
#endif
static void append_message(StrBuf *sb, const char *fmt, va_list ap)
{
    /* the message may quote the input (a PGN token, a file name): control
     * bytes and bytes that are not UTF-8 show as '?', so that a message
     * never writes raw binary to a terminal or a log */
    size_t from = sb->len;
    sb_vprintf(sb, fmt, ap);
    for (size_t i = from; i < sb->len;) {
        size_t n;
        unsigned char ch = (unsigned char)sb->data[i];
        if (ch >= 0x80) {
            if (utf8_decode(sb->data + i, sb->len - i, &n) == UTF8_INVALID) sb->data[i] = '?';
            i += n ? n : 1;
            continue;
        }
        if ((ch < 0x20 && ch != '\t' && ch != '\n') || ch == 0x7F) sb->data[i] = '?';
        i++;
    }
    sb_putc(sb, '\n');
}

void diag_at(DiagSink *d, const SourceText *src, Span span, DiagSeverity sev,
             const char *fmt, ...)
{
    StrBuf sb = SB_INIT;
    /* the source the span begins in, and the span in it */
    const SourcePart *part = part_at(src, span.start);
    uint32_t base;
    SourceText own = diag_source_at(src, span.start, &base);
    Span in_own = {span.start - base, span.end > span.start ? span.end - base : span.start - base};
    unsigned line, col;
    diag_line_col(&own, in_own.start, &line, &col);
    if (part && part->bare) sb_printf(&sb, "%s: ", own.name);
    else append_location(&sb, own.name, line, col);
    sb_printf(&sb, "%s: ", severity_names[sev]);
    va_list ap;
    va_start(ap, fmt);
    append_message(&sb, fmt, ap);
    va_end(ap);
    append_caret(&sb, &own, in_own);
    deliver(d, sev, &sb);
}

void diag_game(DiagSink *d, const char *file, unsigned line, unsigned col,
               long game, const char *fmt, ...)
{
    StrBuf sb = SB_INIT;
    append_location(&sb, file, line, col);
    sb_printf(&sb, "game %ld: ", game);
    va_list ap;
    va_start(ap, fmt);
    append_message(&sb, fmt, ap);
    va_end(ap);
    deliver(d, DIAG_WARNING, &sb);
}

void diag_file(DiagSink *d, const char *file, unsigned line, unsigned col,
               DiagSeverity sev, const char *fmt, ...)
{
    StrBuf sb = SB_INIT;
    append_location(&sb, file, line, col);
    sb_printf(&sb, "%s: ", severity_names[sev]);
    va_list ap;
    va_start(ap, fmt);
    append_message(&sb, fmt, ap);
    va_end(ap);
    deliver(d, sev, &sb);
}

void diag_plain(DiagSink *d, DiagSeverity sev, const char *fmt, ...)
{
    StrBuf sb = SB_INIT;
    sb_printf(&sb, "cql: %s: ", severity_names[sev]);
    va_list ap;
    va_start(ap, fmt);
    append_message(&sb, fmt, ap);
    va_end(ap);
    deliver(d, sev, &sb);
}
