/*
 * tests/tools/support.c — what the conformance and CQL 1.0 test tools share
 * (see support.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tool_discard(void *ctx, CqlSeverity sev, const char *text)
{
    (void)ctx;
    (void)sev;
    (void)text;
}

void tool_capture(void *ctx, CqlSeverity sev, const char *text)
{
    (void)sev;
    cql_text_append(ctx, text, strlen(text));
}

const char *tool_str(const CqlText *t)
{
    return t->data ? t->data : "";
}

void *tool_must(void *p)
{
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

CqlSettings *tool_settings(const char *name, bool body_only)
{
    CqlSettings *s = tool_must(cql_settings_new());
    cql_settings_set_text(s, "name", name);
    cql_settings_set_flag(s, "bodyonly", body_only);
    return s;
}

char *tool_read_all(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    CqlText t = {NULL, 0, 0};
    char buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, fp)) > 0) cql_text_append(&t, buf, got);
    fclose(fp);
    return t.data ? t.data : tool_must(calloc(1, 1));
}

int tool_split_tabs(char *line, char **fields, int n)
{
    int k = 0;
    fields[k++] = line;
    for (char *p = line; *p && k < n; p++)
        if (*p == '\t') {
            *p = '\0';
            fields[k++] = p + 1;
        }
    return k;
}

long tool_count_white_tags(const char *path)
{
    char *text = tool_read_all(path);
    long n = 0;
    for (const char *p = text; p && (p = strstr(p, "[White ")); p++) n++;
    free(text);
    return n;
}

bool tool_load_dataset(const char *path, ToolDataset *d)
{
    memset(d, 0, sizeof *d);
    CqlMessages quiet = {tool_discard, NULL, 0, 0};
    CqlReader *r = cql_reader_open(path, &quiet);
    if (!r) return false;
    CqlGameText *text = cql_game_text_new();
    int cap = 0;
    while (cql_reader_next(r, text, &quiet)) {
        if (d->count == cap) {
            cap = cap ? 2 * cap : 256;
            d->games = tool_must(realloc(d->games, (size_t)cap * sizeof *d->games));
        }
        CqlGame *g = cql_game_new();
        if (cql_game_parse(g, text, path, &quiet) == CQL_GAME_UNUSABLE) {
            cql_game_free(g);
            g = NULL;
        }
        d->games[d->count++] = g;
    }
    cql_game_text_free(text);
    cql_reader_close(r);
    return true;
}

void tool_free_dataset(ToolDataset *d)
{
    for (int i = 0; i < d->count; i++) cql_game_free(d->games[i]);
    free(d->games);
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* When p starts "Game<ws>number<ws>DIGITS": the number, and *end past it. */
static bool game_marker(const char *p, long *number, const char **end)
{
    if (strncmp(p, "Game", 4) != 0 || !is_space(p[4])) return false;
    p += 4;
    while (is_space(*p)) p++;
    if (strncmp(p, "number", 6) != 0 || !is_space(p[6])) return false;
    p += 6;
    while (is_space(*p)) p++;
    if (*p < '0' || *p > '9') return false;
    char *after;
    *number = strtol(p, &after, 10);
    *end = after;
    return true;
}

void tool_count_matches(const char *text, CqlText *got)
{
    const size_t match_len = strlen(TOOL_MATCHSTRING);
    long *numbers = NULL;
    int *counts = NULL;
    int games = 0, cap = 0, current = -1;
    for (const char *p = text; *p;) {
        long number;
        const char *end;
        if (*p == 'G' && game_marker(p, &number, &end)) {
            current = -1;
            for (int i = 0; i < games && current < 0; i++)
                if (numbers[i] == number) current = i;
            if (current < 0) {
                if (games == cap) {
                    cap = cap ? 2 * cap : 16;
                    numbers = tool_must(realloc(numbers, (size_t)cap * sizeof *numbers));
                    counts = tool_must(realloc(counts, (size_t)cap * sizeof *counts));
                }
                numbers[games] = number;
                counts[games] = 0;
                current = games++;
            }
            p = end;
        } else if (*p == TOOL_MATCHSTRING[0] && current >= 0 && strncmp(p, TOOL_MATCHSTRING, match_len) == 0) {
            counts[current]++;
            p += match_len;
        } else {
            p++;
        }
    }
    for (int i = 0; i < games; i++) cql_text_printf(got, "%s%ld:%d", i ? " " : "", numbers[i], counts[i]);
    free(numbers);
    free(counts);
}

bool tool_search_dataset(const CqlQuery *q, const ToolDataset *d, CqlText *got, CqlText *why)
{
    CqlSearcher *searcher = cql_searcher_new(q);
    CqlRange wanted = cql_query_gamenumber(q);
    CqlMessages messages = {tool_capture, why, 0, 0};
    bool stopped = false;
    CqlText printed = {NULL, 0, 0}, pgn = {NULL, 0, 0};
    for (int i = 0; i < d->count && !stopped; i++) {
        const CqlGame *g = d->games[i];
        if (!g) continue;
        if (wanted.set && cql_game_number(g) > wanted.max) break;
        CqlGameResult found;
        if (cql_search(searcher, g, &found, &printed)) cql_write_match(searcher, g, &pgn);
        cql_text_clear(&printed);
        if (found.error) cql_text_printf(why, "%s\n", found.error);
        else if (found.stopped) cql_search_report_stop(searcher, g, &messages);
        stopped = found.error || found.stopped;
    }
    if (!stopped) tool_count_matches(tool_str(&pgn), got);
    cql_text_free(&printed);
    cql_text_free(&pgn);
    cql_searcher_free(searcher);
    return !stopped;
}
