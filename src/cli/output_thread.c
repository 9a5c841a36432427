/*
 * src/cli/output_thread.c — the thread that writes the run's outputs (see
 * output_thread.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/output_thread.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/memory.h"

/* Writes queued at most. Each holds at most one block of the pool, so the
 * queue holds at most 16 blocks (4 MB) of copied output; the batches of
 * the run it holds are at most the run's slots (three per worker, each a
 * chunk of about 64 KB of input), since a held slot is not read into
 * again until released. */
enum { QUEUE_WRITES = 16 };

/* At most this many pieces in one writev (IOV_MAX: 1024 on Linux; POSIX
 * promises 16). */
#if defined(IOV_MAX) && IOV_MAX < 1024
enum { VECTOR_MAX = IOV_MAX };
#else
enum { VECTOR_MAX = 1024 };
#endif

/* One queued write, or a release alone (no pieces). */
typedef struct QueuedWrite {
    int fd;
    atomic_int *error;
    struct iovec *v;       /* its pieces, v[0..n); the array is kept for the next write queued here */
    int n, cap;
    char *block;           /* given back to the pool once written */
    CqlRun *run;           /* a batch of the run released once written */
    CqlRunHold *hold;
} QueuedWrite;

struct OutputThread {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t queued;     /* the thread waits for a write, or the stop */
    pthread_cond_t room;       /* the queuing thread waits for room in the queue */
    QueuedWrite queue[QUEUE_WRITES];
    long head, tail;           /* the next write done, the next queued (head <= tail) */
    char **free_blocks;        /* the pool: blocks given back, with room for those queued too
                                  (so that this thread allocates nothing) */
    int nfree, free_cap, queued_blocks;
    bool stopping;
};

int output_write_vector(int fd, struct iovec *v, int n)
{
    for (;;) {
        for (; n > 0 && v->iov_len == 0; v++, n--) {}   /* nothing there: no write (it would give 0) */
        if (n == 0) return 0;
        ssize_t w = writev(fd, v, n < VECTOR_MAX ? n : VECTOR_MAX);
        if (w < 0) {
            if (errno != EINTR) return errno;
            continue;
        }
        if (w == 0) return EIO;
        size_t done = (size_t)w;
        for (; n > 0 && done >= v->iov_len; v++, n--) done -= v->iov_len;
        if (n > 0) {   /* part of one went */
            v->iov_base = (char *)v->iov_base + done;
            v->iov_len -= done;
        }
    }
}

/* Does the queued write w (without the lock: the queuing thread does not
 * touch it until head passes it). */
static void do_write(QueuedWrite *w)
{
    if (w->n > 0 && atomic_load(w->error) == 0) {
        int err = output_write_vector(w->fd, w->v, w->n);
        int none = 0;
        if (err) atomic_compare_exchange_strong(w->error, &none, err);
    }
    if (w->hold) cql_run_release(w->run, w->hold);
}

static void *thread_main(void *arg)
{
    OutputThread *t = arg;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        if (t->head == t->tail) {
            if (t->stopping) break;
            pthread_cond_wait(&t->queued, &t->mu);
            continue;
        }
        QueuedWrite *w = &t->queue[t->head % QUEUE_WRITES];
        pthread_mutex_unlock(&t->mu);
        do_write(w);
        pthread_mutex_lock(&t->mu);
        if (w->block) {
            t->free_blocks[t->nfree++] = w->block;
            t->queued_blocks--;
        }
        w->block = NULL;
        w->hold = NULL;
        t->head++;
        pthread_cond_signal(&t->room);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

OutputThread *output_thread_start(void)
{
    OutputThread *t = cli_calloc(1, sizeof *t);
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->queued, NULL);
    pthread_cond_init(&t->room, NULL);
    if (pthread_create(&t->thread, NULL, thread_main, t) != 0) {
        pthread_cond_destroy(&t->room);
        pthread_cond_destroy(&t->queued);
        pthread_mutex_destroy(&t->mu);
        free(t);
        return NULL;
    }
    return t;
}

void output_thread_stop(OutputThread *t)
{
    if (!t) return;
    pthread_mutex_lock(&t->mu);
    t->stopping = true;
    pthread_cond_signal(&t->queued);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->thread, NULL);
    for (int i = 0; i < QUEUE_WRITES; i++) free(t->queue[i].v);
    for (int i = 0; i < t->nfree; i++) free(t->free_blocks[i]);
    free(t->free_blocks);
    pthread_cond_destroy(&t->room);
    pthread_cond_destroy(&t->queued);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

char *output_thread_block(OutputThread *t)
{
    pthread_mutex_lock(&t->mu);
    char *block = t->nfree ? t->free_blocks[--t->nfree] : NULL;
    pthread_mutex_unlock(&t->mu);
    return block ? block : cli_malloc(OUTPUT_BLOCK);
}

void output_thread_wait(OutputThread *t)
{
    pthread_mutex_lock(&t->mu);
    if (t->head != t->tail) pthread_cond_signal(&t->queued);   /* queued without waking it */
    while (t->head != t->tail) pthread_cond_wait(&t->room, &t->mu);
    pthread_mutex_unlock(&t->mu);
}

/* The next place in the queue, once there is room (the lock held). */
static QueuedWrite *next_place(OutputThread *t)
{
    if (t->tail - t->head == QUEUE_WRITES) pthread_cond_signal(&t->queued);   /* queued without waking it */
    while (t->tail - t->head == QUEUE_WRITES) pthread_cond_wait(&t->room, &t->mu);
    return &t->queue[t->tail % QUEUE_WRITES];
}

/* The write at the tail is queued; the thread is woken when `wake` (the
 * lock held). */
static void queued(OutputThread *t, bool wake)
{
    t->tail++;
    if (wake) pthread_cond_signal(&t->queued);
}

void output_thread_write(OutputThread *t, int fd, atomic_int *error, const struct iovec *v, int n, char *block,
                         bool wake)
{
    pthread_mutex_lock(&t->mu);
    QueuedWrite *w = next_place(t);
    if (w->cap < n) {   /* the array of this place in the queue, kept for the next write here */
        free(w->v);
        w->cap = n > 2 * w->cap ? n : 2 * w->cap;
        w->v = cli_malloc((size_t)w->cap * sizeof *w->v);
    }
    memcpy(w->v, v, (size_t)n * sizeof *v);
    w->n = n;
    w->fd = fd;
    w->error = error;
    w->block = block;
    if (block && t->nfree + ++t->queued_blocks > t->free_cap) {   /* room for it in the pool */
        t->free_cap = 2 * (t->nfree + t->queued_blocks);
        t->free_blocks = cli_realloc(t->free_blocks, (size_t)t->free_cap * sizeof *t->free_blocks);
    }
    queued(t, wake);
    pthread_mutex_unlock(&t->mu);
}

void output_thread_release(OutputThread *t, CqlRun *run, CqlRunHold *hold)
{
    pthread_mutex_lock(&t->mu);
    QueuedWrite *w = next_place(t);
    w->n = 0;
    w->run = run;
    w->hold = hold;
    queued(t, true);
    pthread_mutex_unlock(&t->mu);
}
