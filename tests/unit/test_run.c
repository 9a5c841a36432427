/*
 * tests/unit/test_run.c — the run object of include/cql.h (CqlRun) on
 * games in memory: a run that the query stops with a runtime error (a
 * failed `assert`) says in its totals at which game and with which text,
 * the text the game callback had; a run that is not stopped has neither;
 * the games before the stop are handed over, none after it.
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

/* Four games; the second and the fourth have a check. */
static char games[] =
    "[Event \"quiet\"]\n[Result \"*\"]\n\n1. e4 e5 *\n\n"
    "[Event \"scholar\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n\n"
    "[Event \"quiet again\"]\n[Result \"*\"]\n\n1. d4 d5 *\n\n"
    "[Event \"check\"]\n[Result \"*\"]\n\n1. e4 f6 2. Qh5+ *\n";

/* What the callbacks saw. */
typedef struct Seen {
    long games, matches;
    long last_game;
    char error[256];   /* the game callback's CqlRunGame.error */
} Seen;

static void on_game(void *ctx, CqlRun *run, const CqlRunGame *game)
{
    (void)run;
    Seen *seen = ctx;
    seen->games++;
    seen->last_game = game->number;
    if (game->error) snprintf(seen->error, sizeof seen->error, "%s", game->error);
}

static void on_match(void *ctx, CqlRun *run, const CqlRunGame *game)
{
    (void)run;
    (void)game;
    ((Seen *)ctx)->matches++;
}

static void ignore(void *ctx, CqlSeverity severity, const char *text)
{
    (void)ctx;
    (void)severity;
    (void)text;
}

/* Runs `query` over the games on `threads` threads; the status, what the
 * callbacks saw and the totals (copied before the run is freed, its error
 * text into error). */
static CqlRunStatus run_query(const char *query, long threads, Seen *seen, CqlRunTotals *totals, char *error,
                              size_t size)
{
    memset(seen, 0, sizeof *seen);
    CqlMessages messages = {.fn = ignore};
    CqlSettings *settings = cql_settings_new();
    assert_true(cql_settings_set_number(settings, "threads", threads));
    assert_true(cql_settings_set_text(settings, "name", "run.cql"));
    CqlQuery *q = cql_compile(query, strlen(query), settings, CQL_COMPILE_RUN, &messages);
    assert_non_null(q);
    FILE *fp = fmemopen(games, sizeof games - 1, "r");
    assert_non_null(fp);
    CqlRun *run = cql_run_new(q, settings, &messages);
    cql_run_add_stream(run, fp, "games.pgn");
    cql_run_on_game(run, on_game, seen);
    cql_run_on_match(run, on_match, seen, true);
    CqlRunStatus status = cql_run_start(run);
    *totals = *cql_run_totals(run);
    error[0] = '\0';
    if (totals->error) snprintf(error, size, "%s", totals->error);
    cql_run_free(run);
    fclose(fp);
    cql_query_free(q);
    cql_settings_free(settings);
    return status;
}

static void test_a_runtime_error_is_in_the_totals(void **state)
{
    (void)state;
    for (long threads = 1; threads <= 2; threads++) {
        Seen seen;
        CqlRunTotals totals;
        char error[256];
        /* the first check is in game 2, where the assert fails */
        CqlRunStatus status = run_query("cql() check assert gamenumber > 2", threads, &seen, &totals, error,
                                        sizeof error);
        assert_int_equal(status, CQL_RUN_STOPPED);
        assert_int_equal(totals.stopped_at, 2);
        assert_int_equal(seen.last_game, 2);   /* no game after it handed over */
        assert_int_equal(seen.games, 2);
        assert_int_equal(seen.matches, 0);
        assert_non_null(strstr(error, "assert filter"));
        assert_string_equal(error, seen.error);   /* what the game callback had */
    }
}

static void test_a_run_not_stopped_has_no_error(void **state)
{
    (void)state;
    for (long threads = 1; threads <= 2; threads++) {
        Seen seen;
        CqlRunTotals totals;
        char error[256];
        CqlRunStatus status = run_query("cql() check assert gamenumber > 1", threads, &seen, &totals, error,
                                        sizeof error);
        assert_int_equal(status, CQL_RUN_DONE);
        assert_int_equal(totals.stopped_at, 0);
        assert_string_equal(error, "");
        assert_int_equal(seen.games, 4);
        assert_int_equal(seen.matches, 2);
        assert_int_equal(totals.matches, 2);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_runtime_error_is_in_the_totals),
        cmocka_unit_test(test_a_run_not_stopped_has_no_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
