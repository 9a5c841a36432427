/*
 * src/cli/output_thread.h — a thread that writes the run's outputs, so that
 * the thread handing the games over does not pay the kernel's copy of the
 * output into the page cache (issue 32: with `check` on 2 threads, about
 * half of that thread's time when the output is a file).
 *
 * The handing-over thread queues writes: blocks of copied bytes (taken from
 * the thread's pool, given back once written) and the texts of a batch of
 * the library's run, held until written (cql_run_hold_batch) and released
 * by this thread. One queue for every output of the run: the writes to each
 * file stay in the order queued. The queue is short (QUEUE_WRITES), and a
 * full queue makes the queuing thread wait: a slow disk cannot make memory
 * grow. A failed write is kept as the errno in the output's `error` (the
 * first one only); the later writes to that output are dropped.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_OUTPUT_THREAD_H
#define CQL_OUTPUT_THREAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <sys/uio.h>

#include "cql.h"

/* The size of a block of the pool: the size of an output's buffer. */
enum { OUTPUT_BLOCK = 256 * 1024 };

typedef struct OutputThread OutputThread;

/* Starts the thread; NULL when it cannot start (outputs are then written
 * on the calling thread). */
OutputThread *output_thread_start(void);

/* Writes what is queued, then ends the thread and frees it (NULL: none). */
void output_thread_stop(OutputThread *t);

/* A block of OUTPUT_BLOCK bytes, from the pool when one is free. */
char *output_thread_block(OutputThread *t);

/* Waits until everything queued is written. */
void output_thread_wait(OutputThread *t);

/* Queues the writing of v[0..n) to fd (the vector is copied; the bytes
 * must stay until written), then the giving back of `block` (NULL: none)
 * to the pool. A failed write's errno goes to *error, unless it holds one
 * already; nothing is written to fd while it does. Without `wake`, the
 * thread is not woken for it: the caller queues a release right after
 * (one wake-up for a batch's writes and their release, not two). */
void output_thread_write(OutputThread *t, int fd, atomic_int *error, const struct iovec *v, int n, char *block,
                         bool wake);

/* Queues the release of a batch of `run` held for the writes queued before
 * (cql_run_release). */
void output_thread_release(OutputThread *t, CqlRun *run, CqlRunHold *hold);

/* Writes v[0..n) to fd, whatever the kernel takes at a time (IOV_MAX
 * pieces at most per call, the rest of a piece written in part); 0 or the
 * errno of the failure. The vector is used up. */
int output_write_vector(int fd, struct iovec *v, int n);

#endif
