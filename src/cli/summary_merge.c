/*
 * src/cli/summary_merge.c — the -summary json lines of a run's parts added
 * up into one (see summary_merge.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/summary_merge.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/memory.h"

/* {==== one summary line ===================================================== */

/* A line being read, for messages naming where it went wrong. */
typedef struct Line {
    const char *file;
    long number;
    const char *text;
    size_t len;
    size_t at;              /* the byte being read */
    CqlMessages *m;
} Line;

/* A part of a run that a summary is of (-part K/N), and where it was. */
typedef struct PartSeen {
    long long part, parts;
    const char *file;
    long line;
    long seq;                /* its place among the summaries read */
} PartSeen;

/* What the summaries of one query add up to. */
typedef struct Total {
    char *query;             /* its "query" (a run of several queries), or NULL */
    long long matches, games, pgn_errors, threads;
    double seconds, longest;
    bool limit_reached;
    long summaries;          /* the runs summed (a merged summary counts those it holds) */
    long lines;              /* the summary lines read */
    char **outputs;          /* every output named, in order (duplicates dropped at the end) */
    size_t noutputs, outputs_cap;
    PartSeen *parts;
    size_t nparts, parts_cap;
} Total;

/* The totals, one per query named (a run of several queries gives a line
 * per query), in the order first read. */
typedef struct Merge {
    Total *totals;
    size_t ntotals, cap;
    size_t *slots;           /* totals by their query's hash: 1 + an index, 0 for none; a
                                power of two, at most half full (a file may name a
                                query on each of millions of lines) */
    size_t nslots;
    long lines;              /* the summary lines read */
} Merge;

/* "FILE:LINE:COL: error: WHY", the line and a caret under byte `at`. */
static void line_error(const Line *l, size_t at, const char *why)
{
    enum { SHOWN = 200 };   /* a longer line is shown cut */
    CqlText t = {NULL, 0, 0};
    size_t col = 1;
    for (size_t i = 0; i < at && i < l->len; i++) col += ((unsigned char)l->text[i] & 0xC0) != 0x80;
    cql_text_printf(&t, "%s:%ld:%zu: error: %s\n", l->file, l->number, col, why);
    size_t shown = l->len < SHOWN ? l->len : SHOWN;
    for (size_t i = 0; i < shown; i++) {
        unsigned char c = (unsigned char)l->text[i];
        char shown_char = c < 0x20 || c == 0x7F ? '?' : (char)c;   /* one line the caret lines up with */
        cql_text_append(&t, &shown_char, 1);
    }
    cql_text_printf(&t, "%s\n%*s^\n", shown < l->len ? "..." : "", (int)(col - 1 < SHOWN ? col - 1 : SHOWN), "");
    cql_deliver(l->m, CQL_ERROR, t.data);
    cql_text_free(&t);
}

static void skip_blanks(Line *l)
{
    while (l->at < l->len && (l->text[l->at] == ' ' || l->text[l->at] == '\t' || l->text[l->at] == '\r')) l->at++;
}

/* Reads the expected character c; false after reporting. */
static bool expect_char(Line *l, char c, const char *what)
{
    skip_blanks(l);
    if (l->at < l->len && l->text[l->at] == c) {
        l->at++;
        return true;
    }
    char why[96];
    snprintf(why, sizeof why, "expected %s", what);
    line_error(l, l->at, why);
    return false;
}

/* A JSON string into *out (malloc'd): the one-letter escapes and \uXXXX
 * (-summary json writes control characters so; another program may write
 * any character of the Basic Multilingual Plane), made UTF-8. */
static bool read_string(Line *l, char **out)
{
    skip_blanks(l);
    size_t start = l->at;
    if (!expect_char(l, '"', "'\"' (a string)")) return false;
    CqlText s = {NULL, 0, 0};
    for (;;) {
        if (l->at >= l->len) {
            cql_text_free(&s);
            line_error(l, start, "a string that is not closed");
            return false;
        }
        char c = l->text[l->at++];
        if (c == '"') break;
        if (c != '\\') {
            cql_text_append(&s, &c, 1);
            continue;
        }
        char e = l->at < l->len ? l->text[l->at++] : '\0';
        const char *plain = strchr("\"\\/bfnrt", e);
        if (e && plain) {
            static const char decoded[] = "\"\\/\b\f\n\r\t";
            cql_text_append(&s, &decoded[plain - "\"\\/bfnrt"], 1);
            continue;
        }
        unsigned code = 0;
        bool ok = e == 'u' && l->at + 4 <= l->len;
        for (int k = 0; ok && k < 4; k++) {
            char h = l->text[l->at + (size_t)k];
            int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
            ok = v >= 0;
            code = code * 16 + (unsigned)(v >= 0 ? v : 0);
        }
        if (!ok || code == 0 || (code >= 0xD800 && code <= 0xDFFF)) {
            cql_text_free(&s);
            line_error(l, l->at - 2, "a bad escape in a string (one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t, or "
                                     "\\u and four hex digits of a character other than NUL and surrogates)");
            return false;
        }
        l->at += 4;
        char utf8[3];
        int n = code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
        if (n == 1) utf8[0] = (char)code;
        else if (n == 2) utf8[0] = (char)(0xC0 | code >> 6), utf8[1] = (char)(0x80 | (code & 0x3F));
        else utf8[0] = (char)(0xE0 | code >> 12), utf8[1] = (char)(0x80 | ((code >> 6) & 0x3F)),
             utf8[2] = (char)(0x80 | (code & 0x3F));
        cql_text_append(&s, utf8, (size_t)n);
    }
    *out = s.data ? s.data : cli_strdup("");
    return true;
}

/* A number; `whole`: a count (no fraction, no sign). */
static bool read_number(Line *l, bool whole, double *out)
{
    skip_blanks(l);
    size_t start = l->at;
    size_t end = start;
    while (end < l->len && strchr("0123456789.eE+-", l->text[end])) end++;
    char buf[64];
    bool ok = end > start && end - start < sizeof buf;
    if (ok) {
        memcpy(buf, l->text + start, end - start);
        buf[end - start] = '\0';
        char *stop;
        errno = 0;
        *out = strtod(buf, &stop);
        ok = *stop == '\0' && errno == 0 && isfinite(*out) && *out >= 0 &&
             (!whole || (strspn(buf, "0123456789") == end - start && *out <= 9e15));
    }
    if (!ok) {
        line_error(l, start, whole ? "expected a count (a whole number of at least 0)"
                                   : "expected a number of at least 0");
        return false;
    }
    l->at = end;
    return true;
}

static bool read_word(Line *l, const char *word)
{
    size_t n = strlen(word);
    if (l->len - l->at >= n && memcmp(l->text + l->at, word, n) == 0) {
        l->at += n;
        return true;
    }
    return false;
}

static bool read_bool(Line *l, bool *out)
{
    skip_blanks(l);
    if (read_word(l, "true")) *out = true;
    else if (read_word(l, "false")) *out = false;
    else {
        line_error(l, l->at, "expected true or false");
        return false;
    }
    return true;
}

static void add_output(Total *t, char *name)
{
    if (t->noutputs == t->outputs_cap) {
        t->outputs_cap = t->outputs_cap ? 2 * t->outputs_cap : 8;
        t->outputs = cli_realloc(t->outputs, t->outputs_cap * sizeof *t->outputs);
    }
    t->outputs[t->noutputs++] = name;
}

/* A list "[a, b ...]" at l (at its '['), each item read by `item`; false
 * after reporting. */
static bool read_list(Line *l, bool (*item)(Line *l, void *ctx), void *ctx)
{
    l->at++;
    skip_blanks(l);
    bool more = l->at >= l->len || l->text[l->at] != ']';
    while (more) {
        if (!item(l, ctx)) return false;
        skip_blanks(l);
        more = l->at >= l->len || l->text[l->at] != ']';
        if (more && !expect_char(l, ',', "',' or ']'")) return false;
    }
    l->at++;   /* the ']' */
    return true;
}

static bool read_output_name(Line *l, void *total)
{
    char *name;
    if (!read_string(l, &name)) return false;
    add_output(total, name);
    return true;
}

/* "output": a name, or the list of names of a merged summary. */
static bool read_outputs(Line *l, Total *t)
{
    skip_blanks(l);
    if (l->at < l->len && l->text[l->at] == '[') return read_list(l, read_output_name, t);
    return read_output_name(l, t);
}

/* Passes over a string, a number, true, false or null. */
static bool skip_scalar(Line *l, void *unused)
{
    (void)unused;
    skip_blanks(l);
    if (l->at < l->len && l->text[l->at] == '"') {
        char *s;
        if (!read_string(l, &s)) return false;
        free(s);
        return true;
    }
    if (read_word(l, "true") || read_word(l, "false") || read_word(l, "null")) return true;
    double ignored;
    return read_number(l, false, &ignored);
}

/* Passes over the value of a key this version does not know (one a later
 * -summary json may write): a scalar or a list of them (not deeper, so
 * that a hostile line cannot nest without end). */
static bool skip_value(Line *l)
{
    skip_blanks(l);
    if (l->at < l->len && l->text[l->at] == '[') return read_list(l, skip_scalar, NULL);
    return skip_scalar(l, NULL);
}

/* The keys of a summary; those it must have come first. */
enum { K_MATCHES, K_GAMES, K_PGN_ERRORS, K_SECONDS, K_THREADS, K_REQUIRED, K_SECONDS_LONGEST = K_REQUIRED,
       K_SUMMARIES, K_OUTPUT, K_LIMIT, K_PART, K_PARTS, K_QUERY, K_COUNT };
static const char *const key_names[K_COUNT] = {"matches", "games", "pgn_errors", "seconds", "threads",
                                               "seconds_longest", "summaries", "output", "limit_reached",
                                               "part", "parts", "query"};

/* FNV-1a of a query's name (NULL: none named). */
static size_t query_hash(const char *query)
{
    uint64_t h = 14695981039346656037u;
    for (const char *p = query ? query : ""; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211u;
    return (size_t)(h ^ (query ? 0 : 1));
}

static bool same_query(const Total *t, const char *query)
{
    return query ? t->query && strcmp(t->query, query) == 0 : !t->query;
}

/* The slot of `query` in mg->slots: its total's, or the empty one where it goes. */
static size_t *slot_of(Merge *mg, const char *query)
{
    size_t mask = mg->nslots - 1;
    for (size_t i = query_hash(query) & mask;; i = (i + 1) & mask)
        if (!mg->slots[i] || same_query(&mg->totals[mg->slots[i] - 1], query)) return &mg->slots[i];
}

/* The total of the summaries of `query` (NULL: none named), made when
 * first needed; it owns query then. */
static Total *total_of(Merge *mg, char *query)
{
    if (2 * (mg->ntotals + 1) > mg->nslots) {   /* grown: every total to its new slot */
        free(mg->slots);
        mg->nslots = mg->nslots ? 2 * mg->nslots : 16;
        mg->slots = cli_calloc(mg->nslots, sizeof *mg->slots);
        for (size_t i = 0; i < mg->ntotals; i++) *slot_of(mg, mg->totals[i].query) = i + 1;
    }
    size_t *slot = slot_of(mg, query);
    if (*slot) {
        free(query);
        return &mg->totals[*slot - 1];
    }
    if (mg->ntotals == mg->cap) {
        mg->cap = mg->cap ? 2 * mg->cap : 4;
        mg->totals = cli_realloc(mg->totals, mg->cap * sizeof *mg->totals);
    }
    *slot = mg->ntotals + 1;
    Total *t = &mg->totals[mg->ntotals++];
    memset(t, 0, sizeof *t);
    t->query = query;
    return t;
}

/* Reads the summary on line l into t (zeroed), its "query" into *query;
 * seq: its place among the summaries read. False after reporting. */
static bool read_summary(Line *l, Total *t, char **query, long seq)
{
    double value[K_COUNT] = {0};
    size_t key_at[K_COUNT] = {0};
    bool seen[K_COUNT] = {false}, limit = false;
    if (!expect_char(l, '{', "'{'")) return false;
    skip_blanks(l);
    bool empty = l->at < l->len && l->text[l->at] == '}';
    while (!empty) {
        skip_blanks(l);
        size_t at = l->at;
        char *key;
        if (!read_string(l, &key)) return false;
        int k = 0;
        while (k < K_COUNT && strcmp(key, key_names[k]) != 0) k++;
        free(key);
        if (k < K_COUNT && seen[k]) {
            line_error(l, at, "a key given twice");
            return false;
        }
        if (!expect_char(l, ':', "':' after the key")) return false;
        bool got = k == K_COUNT ? skip_value(l)
                   : k == K_OUTPUT ? read_outputs(l, t)
                   : k == K_QUERY ? read_string(l, query)
                   : k == K_LIMIT ? read_bool(l, &limit)
                   : read_number(l, k != K_SECONDS && k != K_SECONDS_LONGEST, &value[k]);
        if (!got) return false;
        if (k < K_COUNT) {
            seen[k] = true;
            key_at[k] = at;
        }
        skip_blanks(l);
        if (l->at < l->len && l->text[l->at] == '}') break;
        if (!expect_char(l, ',', "',' or '}'")) return false;
    }
    l->at++;   /* the '}' */
    skip_blanks(l);
    if (l->at < l->len) {
        line_error(l, l->at, "text after the summary's '}'");
        return false;
    }
    for (int k = 0; k < K_REQUIRED; k++)
        if (!seen[k]) {
            char why[80];
            snprintf(why, sizeof why, "the summary has no \"%s\" (-summary json writes it)", key_names[k]);
            line_error(l, l->at - 1, why);
            return false;
        }
    if (seen[K_PART] != seen[K_PARTS] || (seen[K_PART] && value[K_PART] >= value[K_PARTS])) {
        line_error(l, key_at[seen[K_PART] ? K_PART : K_PARTS], "\"part\" and \"parts\" go together, with part < parts");
        return false;
    }
    if (seen[K_PART]) {
        if (t->nparts == t->parts_cap) {
            t->parts_cap = t->parts_cap ? 2 * t->parts_cap : 8;
            t->parts = cli_realloc(t->parts, t->parts_cap * sizeof *t->parts);
        }
        t->parts[t->nparts++] = (PartSeen){(long long)value[K_PART], (long long)value[K_PARTS], l->file, l->number,
                                           seq};
    }
    t->matches += (long long)value[K_MATCHES];
    t->games += (long long)value[K_GAMES];
    t->pgn_errors += (long long)value[K_PGN_ERRORS];
    t->threads += (long long)value[K_THREADS];
    t->seconds += value[K_SECONDS];
    double longest = seen[K_SECONDS_LONGEST] ? value[K_SECONDS_LONGEST] : value[K_SECONDS];
    if (longest > t->longest) t->longest = longest;
    t->limit_reached |= limit;
    t->summaries += seen[K_SUMMARIES] ? (long)value[K_SUMMARIES] : 1;   /* a merged one holds several */
    t->lines++;
    return true;
}

static void total_free(Total *t)
{
    for (size_t i = 0; i < t->noutputs; i++) free(t->outputs[i]);
    free(t->outputs);
    free(t->parts);
    free(t->query);
}

/* Reads the summary on line l and adds it to its query's total; false
 * after reporting. */
static bool add_summary(Line *l, Merge *mg)
{
    Total one;   /* the line's own, then added to its query's */
    memset(&one, 0, sizeof one);
    char *query = NULL;
    bool ok = read_summary(l, &one, &query, mg->lines);
    if (ok) {
        Total *t = total_of(mg, query);
        t->matches += one.matches;
        t->games += one.games;
        t->pgn_errors += one.pgn_errors;
        t->threads += one.threads;
        t->seconds += one.seconds;
        if (one.longest > t->longest) t->longest = one.longest;
        t->limit_reached |= one.limit_reached;
        t->summaries += one.summaries;
        t->lines++;
        for (size_t i = 0; i < one.noutputs; i++) add_output(t, one.outputs[i]);   /* t owns them now */
        one.noutputs = 0;
        for (size_t i = 0; i < one.nparts; i++) {
            if (t->nparts == t->parts_cap) {
                t->parts_cap = t->parts_cap ? 2 * t->parts_cap : 8;
                t->parts = cli_realloc(t->parts, t->parts_cap * sizeof *t->parts);
            }
            t->parts[t->nparts++] = one.parts[i];
        }
        mg->lines++;
    } else {
        free(query);
    }
    total_free(&one);
    return ok;
}

/* }==== */

/* {==== the files ============================================================ */

/* Adds up the summaries of one file; false after reporting. */
static bool read_file(const char *path, Merge *mg, CqlMessages *m)
{
    bool is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "<stdin>" : path;
    FILE *fp = is_stdin ? stdin : fopen(path, "rb");
    if (!fp) {
        cql_report(m, CQL_ERROR, "cannot open summary file '%s': %s", path, strerror(errno));
        return false;
    }
    long before = mg->lines;
    bool ok = true;
    char *text = NULL;
    size_t cap = 0;
    ssize_t got;
    for (long number = 1; ok && (got = getline(&text, &cap, fp)) >= 0; number++) {
        size_t len = (size_t)got;
        while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r')) len--;
        Line l = {name, number, text, len, 0, m};
        skip_blanks(&l);
        if (l.at < len && text[l.at] == '{') ok = add_summary(&l, mg);
    }
    if (ok && ferror(fp)) {
        cql_report(m, CQL_ERROR, "cannot read summary file '%s': %s", name, strerror(errno));
        ok = false;
    }
    free(text);
    if (!is_stdin) fclose(fp);
    if (ok && mg->lines == before) {
        cql_report(m, CQL_ERROR, "'%s' has no -summary json line (a line beginning with '{')", name);
        ok = false;
    }
    return ok;
}

static int by_part(const void *a, const void *b)
{
    const PartSeen *x = a, *y = b;
    if (x->parts != y->parts) return x->parts < y->parts ? -1 : 1;
    if (x->part != y->part) return x->part < y->part ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;   /* the first read first */
}

/* The summaries of parts hold each part of N as often as part 0/N: a part
 * missing is a job that did not finish, one too many a job run twice.
 * False after reporting. */
static bool check_parts(Total *t, CqlMessages *m)
{
    if (t->nparts == 0) return true;
    qsort(t->parts, t->nparts, sizeof *t->parts, by_part);
    for (size_t i = 0; i < t->nparts;) {
        long long n = t->parts[i].parts;
        size_t per_part = 0;   /* the times part 0/n is there */
        long long want = 0;
        for (; i < t->nparts && t->parts[i].parts == n; want++) {
            const PartSeen *first = &t->parts[i];
            if (first->part != want) {
                cql_report(m, CQL_ERROR, "no summary of part %lld/%lld (a job that did not finish?)", want, n);
                return false;
            }
            size_t times = 0;
            while (i < t->nparts && t->parts[i].parts == n && t->parts[i].part == want) i++, times++;
            if (want == 0) per_part = times;
            if (times != per_part) {
                cql_report(m, CQL_ERROR, "%zu summaries of part %lld/%lld (the first at %s:%ld) but %zu of part "
                           "0/%lld (a job run twice, or one that did not finish?)", times, want, n, first->file,
                           first->line, per_part, n);
                return false;
            }
        }
        if (want != n) {
            cql_report(m, CQL_ERROR, "no summary of part %lld/%lld (a job that did not finish?)", want, n);
            return false;
        }
    }
    return true;
}

/* }==== */

/* {==== the total ============================================================ */

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c < 0x20) fprintf(out, "\\u%04x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

typedef struct NamedAt {
    const char *name;
    size_t at;
} NamedAt;

static int by_name_then_place(const void *a, const void *b)
{
    const NamedAt *x = a, *y = b;
    int order = strcmp(x->name, y->name);
    return order ? order : x->at < y->at ? -1 : x->at > y->at;
}

static int by_place(const void *a, const void *b)
{
    const NamedAt *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* "output": the one name every summary gives, else the list of the names
 * given, each once, in the order first given. */
static void print_outputs(FILE *out, const Total *t)
{
    NamedAt *names = cli_calloc(t->noutputs ? t->noutputs : 1, sizeof *names);
    for (size_t i = 0; i < t->noutputs; i++) names[i] = (NamedAt){t->outputs[i], i};
    if (t->noutputs) qsort(names, t->noutputs, sizeof *names, by_name_then_place);
    size_t distinct = 0;
    for (size_t i = 0; i < t->noutputs; i++)
        if (i == 0 || strcmp(names[i].name, names[distinct - 1].name) != 0) names[distinct++] = names[i];
    if (distinct) qsort(names, distinct, sizeof *names, by_place);
    if (distinct == 1) {
        json_string(out, names[0].name);
    } else {
        fputc('[', out);
        for (size_t i = 0; i < distinct; i++) {
            if (i) fputs(", ", out);
            json_string(out, names[i].name);
        }
        fputc(']', out);
    }
    free(names);
}

ExitCode summary_merge(const char *const *files, int count, FILE *out, CqlMessages *m)
{
    Merge mg;
    memset(&mg, 0, sizeof mg);
    bool ok = count > 0;
    if (!ok) cql_report(m, CQL_ERROR, "-summary-merge needs the files of -summary json lines to add up");
    for (int i = 0; ok && i < count; i++) ok = read_file(files[i], &mg, m);
    for (size_t i = 0; ok && i < mg.ntotals; i++) ok = check_parts(&mg.totals[i], m);
    for (size_t i = 0; ok && i < mg.ntotals; i++) {
        const Total *t = &mg.totals[i];
        fprintf(out, "{\"matches\": %lld, \"games\": %lld, \"pgn_errors\": %lld, \"seconds\": %.3f, \"threads\": %lld, "
                "\"output\": ", t->matches, t->games, t->pgn_errors, t->seconds, t->threads);
        print_outputs(out, t);
        if (t->query) {
            fputs(", \"query\": ", out);
            json_string(out, t->query);
        }
        fprintf(out, ", \"limit_reached\": %s, \"seconds_longest\": %.3f, \"summaries\": %ld}\n",
                t->limit_reached ? "true" : "false", t->longest, t->summaries);
    }
    fflush(out);
    for (size_t i = 0; i < mg.ntotals; i++) total_free(&mg.totals[i]);
    free(mg.totals);
    free(mg.slots);
    return ok ? EXIT_RAN : EXIT_USAGE;
}

/* }==== */
