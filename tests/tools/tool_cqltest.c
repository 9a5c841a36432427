/*
 * tests/tools/tool_cqltest.c — runs the data-driven query tests, tests/cql/NAME.test.
 *
 *   tool_cqltest [--filter NAME] FILE.test...
 *
 * File format (each file starts with a comment saying so; '#' lines outside
 * %%pgn and %%query are comments):
 *
 *   %%test NAME            starts a test; it ends at the next %%test or EOF
 *   %%query                the query, verbatim, any number of lines; without a
 *                          `cql(` header it is a body, as with -cql; the files
 *                          it names (similarposition "tests/data/similar/x.pgn")
 *                          are found from the repository root, where it runs
 *   %%fen                  one FEN per line, each a one-position game
 *   %%pgn                  games, verbatim
 *   %%expect               what must come out:
 *       match / nomatch         one per %%fen line, in order
 *       games G G ...           the numbers of the matching games (maybe none)
 *       game G ply P            a matched main-line position (all of them listed)
 *       game G position ID      a matched position by id (variations too)
 *       count N                 matched positions in all games
 *       output TEXT             the PGN written contains TEXT (a line break
 *                               or run of blanks there matches a blank:
 *                               comments are wrapped at 79 columns)
 *       stdout TEXT             what `message` printed contains TEXT (a runtime
 *                               error, which stops the run, is printed as
 *                               "runtime error: MESSAGE"), or what reading the
 *                               files of `similarposition` printed
 *       order G G ...           the matching games in the order a sorting
 *                               query writes them (by their sort keys, as
 *                               cql does; ties in input order)
 *       stopped G               the query stopped the run at game G (a
 *                               value-only filter evaluated as a position
 *                               filter); no game after it is searched
 *       diagnostic TEXT         the messages (compile warnings, the stop, a
 *                               file `similarposition` could not read) contain
 *                               TEXT
 *   %%fail                 the query must be rejected; each line is a prefix of
 *                          one diagnostic line, in order (%%fail ignore-msg: any)
 *   %%orbit                the text of `cql --dump-orbit` for the query, exactly
 *                          but for blank lines at the end (a test may have only
 *                          this expectation, without games)
 *   %%options              settings of the run, as words: the name of a flag
 *                          (variations, silent ...), or the name of a setting
 *                          with a value then its value (matchstring TEXT,
 *                          loopbudget N, textbudget BYTES as a number)
 *
 * Prints "FILE:LINE: test NAME: expected ..., got ..." for each failure and
 * "P of T tests passed (M malformed)"; exits 1 on any failure.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cql.h"

typedef enum Section { SEC_NONE, SEC_QUERY, SEC_FEN, SEC_PGN, SEC_EXPECT, SEC_FAIL, SEC_OPTIONS, SEC_ORBIT } Section;

typedef struct TestCase {
    const char *file;
    int line;                 /* of %%test */
    char name[128];
    CqlText query, fen, pgn, expect, fail, options, orbit;
    bool has_fen, has_pgn, has_expect, has_fail, has_orbit;
    bool fail_ignore_msg;
} TestCase;

typedef struct Totals {
    int passed, failed, malformed;
} Totals;

/* The text so far ("" before anything is appended). */
static const char *str(const CqlText *t)
{
    return t->data ? t->data : "";
}

/* Does text contain want, where a run of blanks or line breaks in text
 * matches one blank in want? */
static bool contains_words(const char *text, const char *want)
{
    for (const char *start = text; *start; start++) {
        const char *t = start, *w = want;
        while (*w) {
            if (*w == ' ') {
                if (*t != ' ' && *t != '\n') break;
                while (*t == ' ' || *t == '\n') t++;
                w++;
            } else if (*t == *w) {
                t++;
                w++;
            } else {
                break;
            }
        }
        if (!*w) return true;
    }
    return false;
}

static void append(CqlText *t, const char *s)
{
    cql_text_append(t, s, strlen(s));
}

static void capture(void *ctx, CqlSeverity sev, const char *text)
{
    (void)sev;
    append(ctx, text);
}

static void test_reset(TestCase *t)
{
    cql_text_clear(&t->query);
    cql_text_clear(&t->fen);
    cql_text_clear(&t->pgn);
    cql_text_clear(&t->expect);
    cql_text_clear(&t->fail);
    cql_text_clear(&t->options);
    cql_text_clear(&t->orbit);
    t->has_fen = t->has_pgn = t->has_expect = t->has_fail = t->has_orbit = t->fail_ignore_msg = false;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void report(const TestCase *t, Totals *tot, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s:%d: test %s: ", t->file, t->line, t->name);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    tot->failed++;
}

/* What one run of the query over the test's games produced. */
typedef struct Outcome {
    CqlText matched;          /* "game G ply P\n" and "game G position ID\n" lines */
    CqlText games;            /* "G G G" */
    CqlText output;           /* the PGN written */
    CqlText printed;          /* what message filters printed */
    CqlText diagnostics;      /* the compile messages, then why the run stopped */
    long stopped_game;        /* the game where the query stopped the run, or 0 */
    long order_game[256];     /* matching games and their sort keys, in input order */
    CqlText order_key[256];
    int norder;
    long count;
    int fen_results[256];     /* per %%fen line: 1 match, 0 no match */
    int nfen;
} Outcome;

/* The test's %%options, as the command line would give them: each word a
 * flag setting, or a setting's name followed by its value. */
static void set_options(const TestCase *t, CqlSettings *o)
{
    const char *s = str(&t->options);
    char word[64], value[64];
    int used;
    while (sscanf(s, "%63s%n", word, &used) == 1) {
        s += used;
        if (cql_settings_set_flag(o, word, true)) continue;
        if (sscanf(s, "%63s%n", value, &used) != 1) break;
        s += used;
        char *end;
        long long number = strtoll(value, &end, 10);
        if (!(*end == '\0' && cql_settings_set_number(o, word, number))) cql_settings_set_text(o, word, value);
    }
}

/* Runs the compiled query over the games of `pgn`. */
static void run_games(const CqlQuery *q, const char *pgn, Outcome *out, bool per_fen)
{
    CqlSearcher *searcher = cql_searcher_new(q);
    CqlText pgn_messages = {NULL, 0, 0};
    CqlMessages messages = {capture, &pgn_messages, 0, 0};
    FILE *fp = fmemopen((char *)(uintptr_t)pgn, strlen(pgn), "rb");
    CqlReader *r = cql_reader_open_stream(fp, "test.pgn", &messages);
    CqlGameText *text = cql_game_text_new();
    CqlGame *g = cql_game_new();
    while (cql_reader_next(r, text, &messages)) {
        if (cql_game_parse(g, text, "test.pgn", &messages) == CQL_GAME_UNUSABLE) continue;
        CqlGameResult found;
        bool matched = cql_search(searcher, g, &found, &out->printed);
        if (found.error) {   /* a runtime error stops the run, as in cql: its message is printed */
            cql_text_printf(&out->printed, "runtime error: %s\n", found.error);
            break;
        }
        long number = cql_game_number(g);
        if (found.stopped) {
            CqlMessages stop = {capture, &out->diagnostics, 0, 0};
            cql_search_report_stop(searcher, g, &stop);
            out->stopped_game = number;
            break;
        }
        if (per_fen && out->nfen < 256) out->fen_results[out->nfen++] = matched;
        if (matched) {
            if (out->norder < 256) {
                out->order_game[out->norder] = number;
                out->order_key[out->norder] = (CqlText){NULL, 0, 0};
                cql_text_append(&out->order_key[out->norder++], found.sort_key ? found.sort_key : "", found.sort_key_len);
            }
            cql_text_printf(&out->games, "%s%ld", out->games.len ? " " : "", number);
            cql_write_match(searcher, g, &out->output);
        }
        /* every matched position, by id and (main line) by ply */
        for (int id = 0; id < cql_game_positions(g); id++) {
            if (!cql_position_matched(searcher, id)) continue;
            int ply;
            bool mainline;
            cql_game_position(g, id, &ply, &mainline);
            out->count++;
            cql_text_printf(&out->matched, "game %ld position %d\n", number, id);
            if (mainline) cql_text_printf(&out->matched, "game %ld ply %d\n", number, ply);
        }
    }
    cql_game_free(g);
    cql_game_text_free(text);
    cql_reader_close(r);
    fclose(fp);
    cql_text_free(&pgn_messages);
    cql_searcher_free(searcher);
}

/* Does sort key a come strictly before b (CqlGameResult.sort_key)? */
static bool key_before(const CqlText *a, const CqlText *b)
{
    size_t common = a->len < b->len ? a->len : b->len;
    int order = common ? memcmp(a->data, b->data, common) : 0;
    return order < 0 || (order == 0 && a->len < b->len);
}

/* Compares the expected "game G ply P" / "game G position ID" lines (in any
 * order) with the matched ones of the same kinds. */
static bool same_positions(const char *expect, const char *matched, const char *kind, CqlText *why)
{
    int want = 0, got = 0;
    char line[256];
    for (const char *p = expect; sscanf(p, "%255[^\n]", line) == 1 || *p == '\n'; ) {
        if (strstr(line, kind) && strncmp(line, "game ", 5) == 0) {
            want++;
            char l[260];
            snprintf(l, sizeof l, "%s\n", line);
            if (!strstr(matched, l)) cql_text_printf(why, "position not matched: %s; ", line);
        }
        const char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
        line[0] = '\0';
    }
    for (const char *p = matched; (p = strstr(p, kind)); p++) got++;
    if (want && got != want) cql_text_printf(why, "%d positions (%s) matched, %d expected; ", got, kind, want);
    return why->len == 0;
}

static void run_test(TestCase *t, Totals *tot)
{
    const char *qt = str(&t->query);
    while (*qt == ' ' || *qt == '\n') qt++;
    CqlSettings *settings = cql_settings_new();
    cql_settings_set_text(settings, "name", "test.cql");
    cql_settings_set_flag(settings, "bodyonly", strncmp(qt, "cql", 3) != 0);
    set_options(t, settings);
    CqlText diags = {NULL, 0, 0};
    CqlMessages messages = {capture, &diags, 0, 0};
    if (t->has_orbit) {
        CqlText quiet = {NULL, 0, 0};
        CqlMessages dropped = {capture, &quiet, 0, 0};
        CqlQuery *parsed = cql_compile(str(&t->query), t->query.len, settings, CQL_COMPILE_PARSE, &dropped);
        cql_text_free(&quiet);
        if (parsed) {
            CqlText orbits = {NULL, 0, 0};
            cql_query_print(parsed, CQL_PRINT_ORBITS, &orbits);
            cql_query_free(parsed);
            while (t->orbit.len && t->orbit.data[t->orbit.len - 1] == '\n') t->orbit.data[--t->orbit.len] = '\0';
            while (orbits.len && orbits.data[orbits.len - 1] == '\n') orbits.data[--orbits.len] = '\0';
            bool same = strcmp(str(&orbits), str(&t->orbit)) == 0;
            if (!same) report(t, tot, "expected the orbits\n%sgot\n%s", str(&t->orbit), str(&orbits));
            cql_text_free(&orbits);
            if (!same || (!t->has_fen && !t->has_pgn && !t->has_fail)) {
                if (same) tot->passed++;
                cql_settings_free(settings);
                return;
            }
        }
    }
    CqlQuery *q = cql_compile(str(&t->query), t->query.len, settings, CQL_COMPILE_RUN, &messages);
    cql_settings_free(settings);
    bool compiled = q != NULL;

    if (t->has_fail) {
        if (compiled) {
            report(t, tot, "expected the query to be rejected, but it compiled");
        } else if (!t->fail_ignore_msg) {
            /* each expected line is a prefix of the next diagnostic line */
            const char *got = str(&diags);
            const char *want = str(&t->fail);
            bool ok = true;
            while (*want && ok) {
                const char *wend = strchr(want, '\n');
                size_t wlen = wend ? (size_t)(wend - want) : strlen(want);
                if (wlen && strncmp(got, want, wlen) != 0) ok = false;
                const char *gend = strchr(got, '\n');
                got = gend ? gend + 1 : got + strlen(got);
                want = wend ? wend + 1 : want + wlen;
            }
            if (!ok) report(t, tot, "expected diagnostics starting\n%s\ngot\n%s", str(&t->fail), str(&diags));
            else tot->passed++;
        } else {
            tot->passed++;
        }
        cql_query_free(q);
        cql_text_free(&diags);
        return;
    }
    if (!compiled) {
        report(t, tot, "expected the query to compile, got\n%s", str(&diags));
        cql_text_free(&diags);
        return;
    }

    Outcome out;
    memset(&out, 0, sizeof out);
    /* the files the query reads before the search (similarposition's):
     * what reading them prints goes with what `message` prints, and when
     * one cannot be read, no game is searched and the messages tell why */
    bool files_read = !cql_query_reads_files(q) || cql_query_read_files(q, &out.printed, &messages);
    cql_text_printf(&out.diagnostics, "%s", str(&diags));
    CqlText why = {NULL, 0, 0};
    if (files_read && t->has_fen) {
        /* each FEN line is a one-position game */
        CqlText games = {NULL, 0, 0};
        const char *p = str(&t->fen);
        while (*p) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            if (len) cql_text_printf(&games, "[SetUp \"1\"]\n[FEN \"%.*s\"]\n\n*\n\n", (int)len, p);
            p += len + (nl ? 1 : 0);
        }
        run_games(q, str(&games), &out, true);
        cql_text_free(&games);
    } else if (files_read) {
        run_games(q, str(&t->pgn), &out, false);
    }

    const char *e = str(&t->expect);
    int fen_index = 0;
    bool has_positions = false, expects_stop = false;
    char line[1024];
    while (*e) {
        const char *nl = strchr(e, '\n');
        size_t len = nl ? (size_t)(nl - e) : strlen(e);
        if (len >= sizeof line) len = sizeof line - 1;
        memcpy(line, e, len);
        line[len] = '\0';
        e += len + (nl ? 1 : 0);
        if (!line[0] || line[0] == '#') continue;
        if (strcmp(line, "match") == 0 || strcmp(line, "nomatch") == 0) {
            int want = line[0] == 'm';
            if (fen_index >= out.nfen) cql_text_printf(&why, "no position %d to match; ", fen_index + 1);
            else if (out.fen_results[fen_index] != want)
                cql_text_printf(&why, "FEN %d: expected %s, got %s; ", fen_index + 1, line, want ? "nomatch" : "match");
            fen_index++;
        } else if (strncmp(line, "games", 5) == 0) {
            const char *want = line + 5;
            while (*want == ' ') want++;
            if (strcmp(want, str(&out.games)) != 0)
                cql_text_printf(&why, "matching games: expected '%s', got '%s'; ", want, str(&out.games));
        } else if (strncmp(line, "game ", 5) == 0) {
            has_positions = true;
        } else if (strncmp(line, "count ", 6) == 0) {
            long want = strtol(line + 6, NULL, 10);
            if (want != out.count) cql_text_printf(&why, "count: expected %ld, got %ld; ", want, out.count);
        } else if (strncmp(line, "output ", 7) == 0) {
            if (!contains_words(str(&out.output), line + 7))
                cql_text_printf(&why, "output lacks '%s'; it is:\n%s\n", line + 7, str(&out.output));
        } else if (strncmp(line, "order", 5) == 0) {
            /* a stable sort by key, as the pipeline writes them */
            for (int i = 1; i < out.norder; i++)
                for (int j = i; j > 0 && key_before(&out.order_key[j], &out.order_key[j - 1]); j--) {
                    CqlText k = out.order_key[j];
                    long g = out.order_game[j];
                    out.order_key[j] = out.order_key[j - 1];
                    out.order_game[j] = out.order_game[j - 1];
                    out.order_key[j - 1] = k;
                    out.order_game[j - 1] = g;
                }
            CqlText got = {NULL, 0, 0};
            for (int i = 0; i < out.norder; i++) cql_text_printf(&got, "%s%ld", i ? " " : "", out.order_game[i]);
            const char *want = line + 5;
            while (*want == ' ') want++;
            if (strcmp(want, str(&got)) != 0)
                cql_text_printf(&why, "order: expected '%s', got '%s'; ", want, str(&got));
            cql_text_free(&got);
        } else if (strncmp(line, "stopped ", 8) == 0) {
            expects_stop = true;
            long want = strtol(line + 8, NULL, 10);
            if (want != out.stopped_game)
                cql_text_printf(&why, "stopped at game %ld, expected %ld; ", out.stopped_game, want);
        } else if (strncmp(line, "diagnostic ", 11) == 0) {
            if (!strstr(str(&out.diagnostics), line + 11))
                cql_text_printf(&why, "messages lack '%s'; they are:\n%s\n", line + 11, str(&out.diagnostics));
        } else if (strncmp(line, "stdout ", 7) == 0) {
            if (!strstr(str(&out.printed), line + 7))
                cql_text_printf(&why, "stdout lacks '%s'; it is:\n%s\n", line + 7, str(&out.printed));
        } else {
            tot->malformed++;
            cql_text_printf(&why, "unknown expectation '%s'; ", line);
        }
    }
    if (out.stopped_game && !expects_stop)
        cql_text_printf(&why, "the query stopped the run at game %ld:\n%s\n", out.stopped_game, str(&out.diagnostics));
    if (t->has_fen && fen_index != out.nfen)
        cql_text_printf(&why, "%d FEN lines but %d match/nomatch lines; ", out.nfen, fen_index);
    if (has_positions) {
        same_positions(str(&t->expect), str(&out.matched), " ply ", &why);
        same_positions(str(&t->expect), str(&out.matched), " position ", &why);
    }
    if (why.len) report(t, tot, "%s", str(&why));
    else tot->passed++;
    cql_text_free(&why);
    cql_text_free(&out.matched);
    cql_text_free(&out.games);
    cql_text_free(&out.output);
    cql_text_free(&out.printed);
    cql_text_free(&out.diagnostics);
    for (int i = 0; i < out.norder; i++) cql_text_free(&out.order_key[i]);
    cql_text_free(&diags);
    cql_query_free(q);
}

static void run_file(const char *path, const char *filter, Totals *tot)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        printf("%s: cannot open\n", path);
        tot->malformed++;
        return;
    }
    TestCase t;
    memset(&t, 0, sizeof t);
    t.file = path;
    Section sec = SEC_NONE;
    bool in_test = false;
    char line[4096];
    int lineno = 0;
    for (;;) {
        bool eof = !fgets(line, sizeof line, fp);
        if (!eof) lineno++;
        if (eof || strncmp(line, "%%test", 6) == 0) {
            if (in_test && (!filter || strstr(t.name, filter))) {
                bool games_checked = (t.has_fen || t.has_pgn) && t.has_expect;
                if (!t.query.len || (!games_checked && !t.has_fail && !t.has_orbit) ||
                    ((t.has_fen || t.has_pgn) && !t.has_expect && !t.has_fail)) {
                    printf("%s:%d: test %s: malformed (needs %%%%query, and games with %%%%expect, %%%%fail or %%%%orbit)\n",
                           path, t.line, t.name);
                    tot->malformed++;
                } else {
                    run_test(&t, tot);
                }
            }
            if (eof) break;
            test_reset(&t);
            in_test = true;
            t.line = lineno;
            sscanf(line + 6, " %127[^\n]", t.name);
            sec = SEC_NONE;
            continue;
        }
        if (strncmp(line, "%%", 2) == 0) {
            if (strncmp(line, "%%query", 7) == 0) sec = SEC_QUERY;
            else if (strncmp(line, "%%fen", 5) == 0) sec = SEC_FEN, t.has_fen = true;
            else if (strncmp(line, "%%pgn", 5) == 0) sec = SEC_PGN, t.has_pgn = true;
            else if (strncmp(line, "%%expect", 8) == 0) sec = SEC_EXPECT, t.has_expect = true;
            else if (strncmp(line, "%%options", 9) == 0) sec = SEC_OPTIONS;
            else if (strncmp(line, "%%orbit", 7) == 0) sec = SEC_ORBIT, t.has_orbit = true;
            else if (strncmp(line, "%%fail", 6) == 0) {
                sec = SEC_FAIL;
                t.has_fail = true;
                t.fail_ignore_msg = strstr(line, "ignore-msg") != NULL;
            } else {
                printf("%s:%d: unknown section %s", path, lineno, line);
                tot->malformed++;
            }
            continue;
        }
        if (!in_test) continue;
        if (line[0] == '#' && sec != SEC_PGN && sec != SEC_QUERY) continue;
        switch (sec) {
        case SEC_QUERY: append(&t.query, line); break;
        case SEC_FEN: append(&t.fen, line); break;
        case SEC_PGN: append(&t.pgn, line); break;
        case SEC_EXPECT: append(&t.expect, line); break;
        case SEC_FAIL: append(&t.fail, line); break;
        case SEC_OPTIONS: append(&t.options, line); break;
        case SEC_ORBIT: append(&t.orbit, line); break;
        case SEC_NONE: break;
        }
    }
    fclose(fp);
    cql_text_free(&t.query);
    cql_text_free(&t.fen);
    cql_text_free(&t.pgn);
    cql_text_free(&t.expect);
    cql_text_free(&t.fail);
    cql_text_free(&t.options);
    cql_text_free(&t.orbit);
}

int main(int argc, char **argv)
{
    const char *filter = NULL;
    Totals tot = {0, 0, 0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc) {
            filter = argv[++i];
            continue;
        }
        run_file(argv[i], filter, &tot);
    }
    int total = tot.passed + tot.failed;
    printf("query tests: %d of %d tests passed (%d malformed)\n", tot.passed, total, tot.malformed);
    return tot.failed || tot.malformed ? 1 : 0;
}
