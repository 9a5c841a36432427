/*
 * tests/unit/test_run.c — the run object of include/cql.h (CqlRun) on
 * games in memory: a run that the query stops with a runtime error (a
 * failed `assert`) says in its totals at which game and with which text,
 * the text the game callback had; a run that is not stopped has neither;
 * the games before the stop are handed over, none after it. The matched
 * positions and tags a match hands over (the move into each position, its
 * place among the variations, the query's comments there, the tags as
 * `settag` left them), on 1 and 2 threads, and the same facts of any
 * position of a game read alone (cql_game_describe, cql_game_child,
 * cql_game_sibling).
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

/* A game with variations, nested: 1. e4 e5 (1... c5 2. Nf3 (2. c3 d5) 2... d6) (1... e6) 2. Qh5 ... */
static char variations_game[] =
    "[Event \"Vars\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n"
    "1. e4 e5 (1... c5 2. Nf3 (2. c3 d5) 2... d6) (1... e6) 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";

/* What the match callback saw of the positions and tags: a line per
 * position, then a line per tag. */
static void describe_match(void *ctx, CqlRun *run, const CqlRunGame *game)
{
    (void)run;
    CqlText *seen = ctx;
    for (int i = 0; i < game->npositions; i++) {
        const CqlPosition *p = &game->positions[i];
        cql_text_printf(seen, "%d ply %d move %d %s %s from %d to %d var '%s'%s comments '%s' fen %s\n", p->id,
                        p->ply, p->move_number, p->white_to_move ? "w" : "b", p->san[0] ? p->san : "-", p->from,
                        p->to, p->variation, p->in_variation ? " (in)" : "", p->comments, p->fen);
    }
    for (int i = 0; i < game->ntags; i++) cql_text_printf(seen, "[%s \"%s\"]\n", game->tags[i].name, game->tags[i].value);
}

static void test_a_match_hands_over_its_positions_and_tags(void **state)
{
    (void)state;
    static const char query[] = "cql(variations) {check comment(\"check here\")} or positionid == 0 or "
                                "positionid == 10 or positionid == 12 or positionid == 13 "
                                "settag(\"Event\" \"Changed\") settag(\"Added\" \"yes\")";
    static const char want[] =
        "0 ply 0 move 1 w - from -1 to -1 var '' comments 'CQL' "
        "fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n"
        "7 ply 7 move 4 b Qxf7# from 39 to 53 var '' comments 'check here CQL' "
        "fen r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4\n"
        "10 ply 4 move 2 w d6 from 51 to 43 var '2:1' (in) comments 'CQL' "
        "fen rnbqkbnr/pp2pppp/3p4/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3\n"
        "12 ply 4 move 2 w d5 from 51 to 35 var '2:1/3:1' (in) comments 'CQL' "
        "fen rnbqkbnr/pp2pppp/8/2pp4/4P3/2P5/PP1P1PPP/RNBQKBNR w KQkq d6 0 3\n"
        "13 ply 2 move 1 w e6 from 52 to 44 var '2:2' (in) comments 'CQL' "
        "fen rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\n"
        "[Event \"Changed\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"1-0\"]\n[Added \"yes\"]\n";
    for (long threads = 1; threads <= 2; threads++) {
        CqlMessages messages = {.fn = ignore};
        CqlSettings *settings = cql_settings_new();
        assert_true(cql_settings_set_number(settings, "threads", threads));
        CqlQuery *q = cql_compile(query, strlen(query), settings, CQL_COMPILE_RUN, &messages);
        assert_non_null(q);
        FILE *fp = fmemopen(variations_game, sizeof variations_game - 1, "r");
        assert_non_null(fp);
        CqlRun *run = cql_run_new(q, settings, &messages);
        cql_run_add_stream(run, fp, "vars.pgn");
        CqlText seen = {NULL, 0, 0};
        cql_run_on_match(run, describe_match, &seen, true);
        assert_int_equal(cql_run_start(run), CQL_RUN_DONE);
        assert_non_null(seen.data);
        assert_string_equal(seen.data, want);
        cql_text_free(&seen);
        cql_run_free(run);
        fclose(fp);
        cql_query_free(q);
        cql_settings_free(settings);
    }
}

static void test_a_game_read_alone_is_described_and_walked(void **state)
{
    (void)state;
    FILE *fp = fmemopen(variations_game, sizeof variations_game - 1, "r");
    assert_non_null(fp);
    CqlMessages messages = {.fn = ignore};
    CqlReader *reader = cql_reader_open_stream(fp, "vars.pgn", &messages);
    CqlGameText *text = cql_game_text_new();
    CqlGame *game = cql_game_new();
    assert_true(cql_reader_next(reader, text, &messages));
    assert_int_not_equal(cql_game_parse(game, text, "vars.pgn", &messages), CQL_GAME_UNUSABLE);
    /* the tree by ids, in preorder, the main continuation first: the main line 0-7, then 1... c5 (8)
     * 2. Nf3 (9) d6 (10), then 2. c3 (11) d5 (12), then 1... e6 (13) */
    assert_int_equal(cql_game_child(game, 0), 1);
    assert_int_equal(cql_game_child(game, 1), 2);
    assert_int_equal(cql_game_sibling(game, 2), 8);
    assert_int_equal(cql_game_sibling(game, 8), 13);
    assert_int_equal(cql_game_sibling(game, 13), -1);
    assert_int_equal(cql_game_child(game, 8), 9);
    assert_int_equal(cql_game_child(game, 9), 10);
    assert_int_equal(cql_game_sibling(game, 9), 11);
    assert_int_equal(cql_game_child(game, 11), 12);
    assert_int_equal(cql_game_child(game, 12), -1);
    assert_int_equal(cql_game_child(game, 7), -1);
    assert_int_equal(cql_game_sibling(game, 0), -1);
    CqlText strings = {NULL, 0, 0};
    CqlPosition p;
    cql_game_describe(game, 12, &p, &strings);
    assert_int_equal(p.id, 12);
    assert_int_equal(p.ply, 4);
    assert_int_equal(p.move_number, 2);
    assert_true(p.white_to_move);
    assert_true(p.in_variation);
    assert_string_equal(p.san, "d5");
    assert_string_equal(p.variation, "2:1/3:1");
    assert_string_equal(p.comments, "");
    assert_int_equal(p.from, 51);   /* d7 */
    assert_int_equal(p.to, 35);     /* d5 */
    assert_string_equal(p.fen, "rnbqkbnr/pp2pppp/8/2pp4/4P3/2P5/PP1P1PPP/RNBQKBNR w KQkq d6 0 3");
    cql_text_clear(&strings);
    cql_game_describe(game, 0, &p, &strings);
    assert_string_equal(p.san, "");
    assert_int_equal(p.from, -1);
    assert_false(p.in_variation);
    assert_string_equal(p.variation, "");
    cql_text_free(&strings);
    cql_game_free(game);
    cql_game_text_free(text);
    cql_reader_close(reader);
    fclose(fp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_runtime_error_is_in_the_totals),
        cmocka_unit_test(test_a_run_not_stopped_has_no_error),
        cmocka_unit_test(test_a_match_hands_over_its_positions_and_tags),
        cmocka_unit_test(test_a_game_read_alone_is_described_and_walked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
