/*
 * tests/unit/test_run_queries.c — a run of several queries in one pass
 * (include/cql.h, cql_run_add_query), on games in memory: each query is
 * handed the same games, matches and PGN text as in a run of it alone, on
 * 1 and 2 threads with the input cut in small chunks (queries whose gates
 * differ: a piece placement, a result, a tag test, none); a failed
 * `assert` stops its query alone; a cancelled query stops alone; the limit
 * is each query's; a query is added before the run starts only.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cql.h>

/* Six games: mates, checks, results and a White king on a1 in some. */
static char games[] =
    "[Event \"quiet\"]\n[White \"Anna\"]\n[Result \"*\"]\n\n1. e4 e5 *\n\n"
    "[Event \"scholar\"]\n[White \"Kasparov\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n\n"
    "[Event \"quiet again\"]\n[White \"Karl\"]\n[Result \"1/2-1/2\"]\n\n1. d4 d5 1/2-1/2\n\n"
    "[Event \"check\"]\n[White \"Kasparov\"]\n[Result \"0-1\"]\n\n1. e4 f6 2. Qh5+ g6 0-1\n\n"
    "[Event \"king a1\"]\n[White \"Anna\"]\n[SetUp \"1\"]\n[FEN \"k7/2R5/8/8/8/8/8/K6R w - - 0 1\"]\n"
    "[Result \"1-0\"]\n\n1. Rh8# 1-0\n\n"
    "[Event \"fool\"]\n[White \"Kasparov\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";

enum { MAX_QUERIES = 6, SEEN_BYTES = 16384 };

/* What the callbacks saw, per query: the games' numbers and matches, the
 * matches' PGN. */
typedef struct Seen {
    char text[MAX_QUERIES][SEEN_BYTES];
    int games[MAX_QUERIES], matches[MAX_QUERIES];
    int cancel_after;       /* cancel query 0 after this many of its matches (0: never) */
} Seen;

__attribute__((format(printf, 2, 3)))
static void append(char *to, const char *fmt, ...)
{
    size_t used = strlen(to);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(to + used, SEEN_BYTES - used, fmt, ap);
    va_end(ap);
}

static void on_game(void *ctx, CqlRun *run, const CqlRunGame *g)
{
    (void)run;
    Seen *seen = ctx;
    assert_true(g->query >= 0 && g->query < MAX_QUERIES);
    seen->games[g->query]++;
    append(seen->text[g->query], "game %ld %d %d%s\n", g->number, g->examined, g->matched, g->error ? " error" : "");
}

static void on_match(void *ctx, CqlRun *run, const CqlRunGame *g)
{
    Seen *seen = ctx;
    seen->matches[g->query]++;
    append(seen->text[g->query], "match %ld %d\n%.*s", g->number, g->npositions, (int)g->pgn_len, g->pgn);
    if (g->query == 0 && seen->matches[0] == seen->cancel_after) cql_run_cancel_query(run, 0);
}

static void ignore(void *ctx, CqlSeverity severity, const char *text)
{
    (void)ctx;
    (void)severity;
    (void)text;
}

/* Runs the queries in one pass over the games on `threads` threads, in
 * chunks of 120 bytes; the status, what the callbacks saw, each query's
 * totals (their error texts dropped). */
static CqlRunStatus run_queries(const char *const *texts, int n, long threads, long limit, Seen *seen,
                                CqlRunTotals *totals, CqlRunStatus *statuses)
{
    CqlMessages messages = {.fn = ignore};
    CqlSettings *settings = cql_settings_new();
    assert_true(cql_settings_set_number(settings, "threads", threads));
    assert_true(cql_settings_set_number(settings, "chunkbytes", 120));
    if (limit) assert_true(cql_settings_set_number(settings, "limit", limit));
    CqlQuery *q[MAX_QUERIES];
    for (int i = 0; i < n; i++) {
        q[i] = cql_compile(texts[i], strlen(texts[i]), settings, CQL_COMPILE_RUN, &messages);
        assert_non_null(q[i]);
    }
    FILE *fp = fmemopen(games, sizeof games - 1, "r");
    assert_non_null(fp);
    CqlRun *run = cql_run_new(q[0], settings, &messages);
    for (int i = 1; i < n; i++) assert_int_equal(cql_run_add_query(run, q[i]), i);
    assert_int_equal(cql_run_query_count(run), n);
    cql_run_add_stream(run, fp, "games.pgn");
    cql_run_on_game(run, on_game, seen);
    cql_run_on_match(run, on_match, seen, true);
    CqlRunStatus status = cql_run_start(run);
    assert_int_equal(cql_run_add_query(run, q[0]), -1);   /* too late */
    for (int i = 0; i < n; i++) {
        totals[i] = *cql_run_query_totals(run, i);
        totals[i].error = NULL;
        statuses[i] = cql_run_query_status(run, i);
    }
    assert_null(cql_run_query_totals(run, n));
    assert_ptr_equal(cql_run_totals(run), cql_run_query_totals(run, 0));
    cql_run_free(run);
    fclose(fp);
    for (int i = 0; i < n; i++) cql_query_free(q[i]);
    cql_settings_free(settings);
    return status;
}

/* Each query in one pass sees what it sees alone. */
static void expect_as_alone(const char *const *texts, int n, long limit)
{
    for (long threads = 1; threads <= 2; threads++) {
        Seen *together = calloc(1, sizeof *together), *alone = calloc(1, sizeof *alone);
        CqlRunTotals totals[MAX_QUERIES], one;
        CqlRunStatus statuses[MAX_QUERIES], status;
        run_queries(texts, n, threads, limit, together, totals, statuses);
        for (int i = 0; i < n; i++) {
            memset(alone, 0, sizeof *alone);
            run_queries(texts + i, 1, threads, limit, alone, &one, &status);
            assert_string_equal(together->text[i], alone->text[0]);
            assert_int_equal(totals[i].games, one.games);
            assert_int_equal(totals[i].matches, one.matches);
            assert_int_equal(totals[i].pgn_errors, one.pgn_errors);
            assert_int_equal(totals[i].stopped_at, one.stopped_at);
            assert_int_equal(totals[i].limit_reached, one.limit_reached);
            assert_int_equal(statuses[i], status);
        }
        free(together);
        free(alone);
    }
}

static void test_each_query_as_alone(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "cql() check",                          /* no gate */
        "cql() Ka1",                            /* a placement */
        "cql(result 1-0) mate",                 /* a result */
        "cql() player white \"Kasparov\" mate", /* a tag test */
        "cql() sort min \"ply\" ply mate",      /* sorted */
        "cql(gamenumber 2 4) true",             /* a range */
    };
    expect_as_alone(texts, 6, 0);
    expect_as_alone(texts, 6, 1);   /* the limit is each query's */
    /* gates that shut some games out for all: placements of each, results
     * and tags of each */
    static const char *const placed[] = {"cql() Ka1", "cql() Qf7", "cql() flipcolor {qh4 check}"};
    expect_as_alone(placed, 3, 0);
    static const char *const tagged[] = {"cql(result 0-1) player white \"Kas\" check",
                                         "cql(result 1-0) player white \"Anna\" mate"};
    expect_as_alone(tagged, 2, 0);
}

static void test_an_assert_stops_its_query_alone(void **state)
{
    (void)state;
    static const char *const texts[] = {"cql() check", "cql() check assert gamenumber < 4", "cql() mate"};
    for (long threads = 1; threads <= 2; threads++) {
        Seen *seen = calloc(1, sizeof *seen);
        CqlRunTotals totals[3];
        CqlRunStatus statuses[3];
        CqlRunStatus status = run_queries(texts, 3, threads, 0, seen, totals, statuses);
        assert_int_equal(status, CQL_RUN_STOPPED);
        assert_int_equal(statuses[0], CQL_RUN_DONE);
        assert_int_equal(statuses[1], CQL_RUN_STOPPED);
        assert_int_equal(statuses[2], CQL_RUN_DONE);
        assert_int_equal(totals[1].stopped_at, 4);
        assert_int_equal(seen->games[1], 4);   /* none after it */
        assert_non_null(strstr(seen->text[1], "game 4 1 0 error"));
        assert_int_equal(totals[0].stopped_at, 0);
        assert_int_equal(totals[0].games, 6);
        assert_int_equal(totals[0].matches, 4);
        assert_int_equal(totals[2].games, 6);
        assert_int_equal(totals[2].matches, 3);
        free(seen);
    }
}

static void test_a_cancelled_query_stops_alone(void **state)
{
    (void)state;
    static const char *const texts[] = {"cql() check", "cql() mate"};
    for (long threads = 1; threads <= 2; threads++) {
        Seen *seen = calloc(1, sizeof *seen);
        seen->cancel_after = 2;
        CqlRunTotals totals[2];
        CqlRunStatus statuses[2];
        assert_int_equal(run_queries(texts, 2, threads, 0, seen, totals, statuses), CQL_RUN_DONE);
        assert_int_equal(seen->matches[0], 2);
        assert_true(totals[0].cancelled);
        assert_false(totals[1].cancelled);
        assert_int_equal(seen->matches[1], 3);
        assert_int_equal(totals[1].games, 6);
        free(seen);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_query_as_alone),
        cmocka_unit_test(test_an_assert_stops_its_query_alone),
        cmocka_unit_test(test_a_cancelled_query_stops_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
