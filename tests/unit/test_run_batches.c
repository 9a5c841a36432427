/*
 * tests/unit/test_run_batches.c — the batches of a run (cql_run_on_batch_end):
 * every match is handed over in a batch, and its PGN text and positions are
 * still there, unchanged, when the batch ends, on one thread (a batch per
 * game), on two threads with small and default chunks (a batch per chunk),
 * and for a sorting query (one batch at the end). One game's text is over
 * the 4 KB a slot keeps, so that its buffer is freed once the batch is done
 * (the sanitizer build sees a use after that).
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

/* What the callbacks saw: the matches of the batch not yet ended, each with
 * where its text and first position's SAN are and a copy of them. */
typedef struct Kept {
    const char *pgn;
    size_t len;
    char *copy;
    const char *san;
    char *san_copy;
} Kept;

typedef struct Seen {
    Kept *kept;
    size_t nkept, cap;
    long matches;          /* handed over */
    long matches_ended;    /* in a batch that ended with them intact */
    long batches;          /* batch ends */
    long numbers[64];      /* the matches' game numbers, in the order handed over */
} Seen;

static char *copy_of(const char *s, size_t n)
{
    char *c = malloc(n + 1);
    assert_non_null(c);
    memcpy(c, s, n);
    c[n] = '\0';
    return c;
}

static void on_match(void *ctx, CqlRun *run, const CqlRunGame *game)
{
    (void)run;
    Seen *seen = ctx;
    if (seen->nkept == seen->cap) {
        seen->cap = seen->cap ? 2 * seen->cap : 16;
        seen->kept = realloc(seen->kept, seen->cap * sizeof *seen->kept);
        assert_non_null(seen->kept);
    }
    assert_true(game->npositions > 0);
    const char *san = game->positions[0].san;
    seen->kept[seen->nkept++] = (Kept){game->pgn, game->pgn_len, copy_of(game->pgn, game->pgn_len), san,
                                       copy_of(san, strlen(san))};
    if (seen->matches < 64) seen->numbers[seen->matches] = game->number;
    seen->matches++;
}

static void on_batch_end(void *ctx, CqlRun *run)
{
    (void)run;
    Seen *seen = ctx;
    for (size_t i = 0; i < seen->nkept; i++) {
        Kept *k = &seen->kept[i];
        assert_memory_equal(k->pgn, k->copy, k->len);
        assert_string_equal(k->san, k->san_copy);
        free(k->copy);
        free(k->san_copy);
    }
    seen->matches_ended += (long)seen->nkept;
    seen->nkept = 0;
    seen->batches++;
}

static void ignore(void *ctx, CqlSeverity severity, const char *text)
{
    (void)ctx;
    (void)severity;
    (void)text;
}

/* Ten short games, then one whose text is over 4 KB (a knight back and
 * forth), then two more. */
static char *make_games(void)
{
    size_t cap = 64 * 1024, len = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    for (int g = 0; g < 13; g++) {
        len += (size_t)snprintf(t + len, cap - len, "[Event \"game %d\"]\n[Result \"*\"]\n\n", g + 1);
        if (g == 10)
            for (int m = 0; m < 150; m++)
                len += (size_t)snprintf(t + len, cap - len, "%d. Nf3 Nf6 %d. Ng1 Ng8 ", 2 * m + 1, 2 * m + 2);
        else len += (size_t)snprintf(t + len, cap - len, "1. e4 e5 2. Qh5 Nc6 %d. Bc4 *", 3);
        len += (size_t)snprintf(t + len, cap - len, "%s\n\n", g == 10 ? "*" : "");
    }
    assert_true(len < cap - 1);
    return t;
}

/* Runs `query` over the games on `threads` threads with chunks of
 * `chunk_bytes` (0: the default); what the callbacks saw. */
static void run_query(const char *query, long threads, long chunk_bytes, Seen *seen)
{
    memset(seen, 0, sizeof *seen);
    CqlMessages messages = {.fn = ignore};
    CqlSettings *settings = cql_settings_new();
    assert_true(cql_settings_set_number(settings, "threads", threads));
    if (chunk_bytes) assert_true(cql_settings_set_number(settings, "chunkbytes", chunk_bytes));
    assert_true(cql_settings_set_text(settings, "name", "batches.cql"));
    CqlQuery *q = cql_compile(query, strlen(query), settings, CQL_COMPILE_RUN, &messages);
    assert_non_null(q);
    char *games = make_games();
    FILE *fp = fmemopen(games, strlen(games), "r");
    assert_non_null(fp);
    CqlRun *run = cql_run_new(q, settings, &messages);
    cql_run_add_stream(run, fp, "games.pgn");
    cql_run_on_match(run, on_match, seen, true);
    cql_run_on_batch_end(run, on_batch_end, seen);
    assert_int_equal(cql_run_start(run), CQL_RUN_DONE);
    cql_run_free(run);
    fclose(fp);
    free(games);
    cql_query_free(q);
    cql_settings_free(settings);
    free(seen->kept);
}

static void test_every_match_is_intact_at_the_end_of_its_batch(void **state)
{
    (void)state;
    const long chunks[] = {0, 100};
    for (long threads = 1; threads <= 2; threads++)
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            Seen seen;
            run_query("cql() true", threads, chunks[c], &seen);
            assert_int_equal(seen.matches, 13);
            assert_int_equal(seen.matches_ended, 13);   /* none left after the last batch */
            for (long i = 0; i < 13; i++) assert_int_equal(seen.numbers[i], i + 1);
            if (threads == 1) assert_int_equal(seen.batches, 13);   /* a game each */
            if (threads == 2 && chunks[c] == 100) assert_true(seen.batches > 1);
        }
}

static void test_a_sorting_query_hands_its_matches_over_in_one_batch(void **state)
{
    (void)state;
    for (long threads = 1; threads <= 2; threads++) {
        Seen seen;
        run_query("cql() sort \"plies\" ply", threads, 100, &seen);
        assert_int_equal(seen.matches, 13);
        assert_int_equal(seen.matches_ended, 13);
        assert_int_equal(seen.numbers[0], 11);   /* the longest game first */
        /* each game a batch of none on one thread, the chunks on two, then the matches */
        assert_true(seen.batches >= 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_match_is_intact_at_the_end_of_its_batch),
        cmocka_unit_test(test_a_sorting_query_hands_its_matches_over_in_one_batch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
