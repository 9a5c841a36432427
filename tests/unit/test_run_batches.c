/*
 * tests/unit/test_run_batches.c — the batches of a run (cql_run_on_batch_end):
 * every match is handed over in a batch, and its PGN text and positions are
 * still there, unchanged, when the batch ends, on one thread (a batch per
 * game), on two threads with small and default chunks (a batch per chunk),
 * and for a sorting query (one batch at the end). One game's text is over
 * the 4 KB a slot keeps, so that its buffer is freed once the batch is done
 * (the sanitizer build sees a use after that). A batch held
 * (cql_run_hold_batch) keeps its texts until another thread releases it,
 * later, while the run reads on; the run ends once all are released.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    struct Releaser *releaser;   /* holds each batch and has it released there, or NULL */
    long held;             /* batches held */
} Seen;

/* A held batch: its matches, checked when it is released. */
typedef struct HeldBatch {
    CqlRunHold *hold;
    Kept *kept;
    size_t nkept;
} HeldBatch;

/* A thread that releases the held batches in order, each a millisecond
 * after it was queued (by then the run has read on and may wait for it),
 * once it has checked that their texts are still there, unchanged. */
typedef struct Releaser {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t queued;
    HeldBatch queue[1024];
    size_t head, tail;
    bool stopping;
    CqlRun *run;
    long released, matches_intact;
} Releaser;

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

/* Checks that the kept matches are unchanged, and forgets them; how many. */
static long check_kept(Kept *kept, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        Kept *k = &kept[i];
        assert_memory_equal(k->pgn, k->copy, k->len);
        assert_string_equal(k->san, k->san_copy);
        free(k->copy);
        free(k->san_copy);
    }
    return (long)n;
}

static void *releaser_main(void *arg)
{
    Releaser *r = arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        if (r->head == r->tail) {
            if (r->stopping) break;
            pthread_cond_wait(&r->queued, &r->mu);
            continue;
        }
        HeldBatch b = r->queue[r->head++ % 1024];
        pthread_mutex_unlock(&r->mu);
        nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
        long intact = check_kept(b.kept, b.nkept);
        free(b.kept);
        pthread_mutex_lock(&r->mu);   /* counted first: the run may return once it is released */
        r->matches_intact += intact;
        r->released++;
        pthread_mutex_unlock(&r->mu);
        cql_run_release(r->run, b.hold);
        pthread_mutex_lock(&r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

static void on_batch_end(void *ctx, CqlRun *run)
{
    Seen *seen = ctx;
    CqlRunHold *hold = seen->releaser ? cql_run_hold_batch(run) : NULL;
    seen->batches++;
    if (hold) {   /* its matches go with it, checked on the releasing thread */
        assert_null(cql_run_hold_batch(run));   /* held once */
        seen->held++;
        Releaser *r = seen->releaser;
        pthread_mutex_lock(&r->mu);
        assert_true(r->tail - r->head < 1024);
        r->queue[r->tail++ % 1024] = (HeldBatch){hold, seen->kept, seen->nkept};
        pthread_cond_signal(&r->queued);
        pthread_mutex_unlock(&r->mu);
        seen->kept = NULL;
        seen->nkept = seen->cap = 0;
        return;
    }
    seen->matches_ended += check_kept(seen->kept, seen->nkept);
    seen->nkept = 0;
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
 * `chunk_bytes` (0: the default); what the callbacks saw. With a releaser,
 * every batch that can be is held and released there. */
static void run_query(const char *query, long threads, long chunk_bytes, Seen *seen, Releaser *releaser)
{
    memset(seen, 0, sizeof *seen);
    seen->releaser = releaser;
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
    if (releaser) {
        memset(releaser, 0, sizeof *releaser);
        releaser->run = run;
        pthread_mutex_init(&releaser->mu, NULL);
        pthread_cond_init(&releaser->queued, NULL);
        assert_int_equal(pthread_create(&releaser->thread, NULL, releaser_main, releaser), 0);
    }
    assert_int_equal(cql_run_start(run), CQL_RUN_DONE);
    if (releaser) {   /* every hold was released before the run returned */
        pthread_mutex_lock(&releaser->mu);
        assert_int_equal(releaser->released, seen->held);
        releaser->stopping = true;
        pthread_cond_signal(&releaser->queued);
        pthread_mutex_unlock(&releaser->mu);
        pthread_join(releaser->thread, NULL);
        pthread_cond_destroy(&releaser->queued);
        pthread_mutex_destroy(&releaser->mu);
        seen->matches_ended += releaser->matches_intact;
    }
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
            run_query("cql() true", threads, chunks[c], &seen, NULL);
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
        run_query("cql() sort \"plies\" ply", threads, 100, &seen, NULL);
        assert_int_equal(seen.matches, 13);
        assert_int_equal(seen.matches_ended, 13);
        assert_int_equal(seen.numbers[0], 11);   /* the longest game first */
        /* each game a batch of none on one thread, the chunks on two, then the matches */
        assert_true(seen.batches >= 1);
    }
}

static void test_a_held_batch_keeps_its_texts_until_released(void **state)
{
    (void)state;
    const long chunks[] = {0, 100};
    for (long threads = 1; threads <= 3; threads++)
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            Seen seen;
            Releaser releaser;
            run_query("cql() true", threads, chunks[c], &seen, &releaser);
            assert_int_equal(seen.matches, 13);
            assert_int_equal(seen.matches_ended, 13);
            for (long i = 0; i < 13; i++) assert_int_equal(seen.numbers[i], i + 1);
            if (threads == 1) assert_int_equal(seen.held, 0);   /* a game at a time: no batch to hold */
            else assert_int_equal(seen.held, seen.batches);
            /* 100-byte chunks: more batches than the ring has slots, so that
             * the run waited for releases */
            if (threads > 1 && chunks[c] == 100) assert_true(seen.held > 3 * threads);
        }
    Seen seen;   /* the sorted matches, handed over at the end: not held */
    Releaser releaser;
    run_query("cql() sort \"plies\" ply", 2, 100, &seen, &releaser);
    assert_int_equal(seen.matches_ended, 13);
    assert_int_equal(seen.numbers[0], 11);
    assert_int_equal(seen.held, seen.batches - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_match_is_intact_at_the_end_of_its_batch),
        cmocka_unit_test(test_a_sorting_query_hands_its_matches_over_in_one_batch),
        cmocka_unit_test(test_a_held_batch_keeps_its_texts_until_released),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
