/*
 * tests/unit/test_pipeline_sidecar.c — a run with a sidecar index asks the
 * query's condition about each game's record once: on worker threads the
 * reading thread asks before the game is read (and jumps over the games
 * it rules out), and its answers go with each game it reads to the worker
 * that searches it, which does not ask again (RunQuery.conditions_asked,
 * summed over the threads). On one thread and on two, over the 2,000
 * engine games of tests/data with their sidecar made in a temporary folder.
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
#include <unistd.h>

#include "index/sidecar.h"
#include "lib/pipeline.h"

#define ENGINE_GAMES "tests/data/pgn/generated/engine-games-2000.pgn"

static void ignore(void *ctx, CqlSeverity severity, const char *text)
{
    (void)ctx;
    (void)severity;
    (void)text;
}

static bool write_to(void *ctx, const void *data, size_t len)
{
    return fwrite(data, 1, len, ctx) == len;
}

/* Copies the engine games to dir/games.pgn and makes their sidecar. */
static void make_indexed_copy(const char *dir, char *pgn, size_t size)
{
    snprintf(pgn, size, "%s/games.pgn", dir);
    FILE *in = fopen(ENGINE_GAMES, "rb"), *out = fopen(pgn, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[1 << 16];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0) assert_int_equal(fwrite(buf, 1, got, out), got);
    fclose(in);
    assert_int_equal(fclose(out), 0);
    char *index_path = cql_index_path(pgn);
    FILE *ix = fopen(index_path, "wb");
    assert_non_null(ix);
    CqlMessages messages = {.fn = ignore};
    assert_true(cql_index_build(pgn, write_to, ix, NULL, NULL, NULL, &messages));
    assert_int_equal(fclose(ix), 0);
    free(index_path);
}

/* Removes what make_indexed_copy made: the copy, its sidecar, dir. */
static void remove_indexed_copy(const char *dir, const char *pgn)
{
    char *index_path = cql_index_path(pgn);
    assert_int_equal(unlink(index_path), 0);
    free(index_path);
    assert_int_equal(unlink(pgn), 0);
    assert_int_equal(rmdir(dir), 0);
}

static void test_the_condition_is_asked_once_per_game(void **state)
{
    (void)state;
    char dir[] = "/tmp/cql-test-pipeline-sidecar-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char pgn[256];
    make_indexed_copy(dir, pgn, sizeof pgn);
    for (long threads = 1; threads <= 2; threads++) {
        CqlMessages messages = {.fn = ignore};
        CqlSettings *settings = cql_settings_new();
        assert_true(cql_settings_set_number(settings, "threads", threads));
        const char *query = "cql() check";   /* its condition rules out a few games, not most */
        CqlQuery *q = cql_compile(query, strlen(query), settings, CQL_COMPILE_RUN, &messages);
        assert_non_null(q);
        CqlRun *run = cql_run_new(q, settings, &messages);
        cql_run_add_path(run, pgn);
        assert_int_equal(cql_run_start(run), CQL_RUN_DONE);
        const CqlRunTotals *totals = cql_run_totals(run);
        assert_int_equal(totals->games, 2000);
        assert_true(totals->ruled_out > 0);                            /* the sidecar was read */
        assert_true(totals->ruled_out < totals->games / 2);
        assert_int_equal(run->queries[0]->conditions_asked, 2000);     /* once each, not again on a worker */
        cql_run_free(run);
        cql_query_free(q);
        cql_settings_free(settings);
    }
    remove_indexed_copy(dir, pgn);
}

/* On one thread, a query without a condition, searched from the codes of
 * every game the reader jumps over (none matches), reads the head of each
 * game's record once: to jump over the game (which reads the next one's
 * too, then not read again) and to search it from the same head. The last
 * game has no next record to jump to: it is read from its text, and its
 * head read twice more (where its text ends, and for its search). */
static void test_a_record_head_is_read_once_per_game(void **state)
{
    (void)state;
    char dir[] = "/tmp/cql-test-pipeline-sidecar-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char pgn[256];
    make_indexed_copy(dir, pgn, sizeof pgn);
    CqlMessages messages = {.fn = ignore};
    CqlSettings *settings = cql_settings_new();
    assert_true(cql_settings_set_number(settings, "threads", 1));
    const char *query = "cql(matchcount 1000) true";
    CqlQuery *q = cql_compile(query, strlen(query), settings, CQL_COMPILE_RUN, &messages);
    assert_non_null(q);
    CqlRun *run = cql_run_new(q, settings, &messages);
    cql_run_add_path(run, pgn);
    long before = sidecar_heads_read;
    assert_int_equal(cql_run_start(run), CQL_RUN_DONE);
    const CqlRunTotals *totals = cql_run_totals(run);
    assert_int_equal(totals->games, 2000);
    assert_int_equal(totals->matches, 0);
    assert_int_equal(sidecar_heads_read - before, 2000 + 2);   /* three a game before: 6,000 */
    cql_run_free(run);
    cql_query_free(q);
    cql_settings_free(settings);
    remove_indexed_copy(dir, pgn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_condition_is_asked_once_per_game),
        cmocka_unit_test(test_a_record_head_is_read_once_per_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
