/*
 * src/cli/cpu_share.c — the main thread's share of a run's CPU time (see
 * cpu_share.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE   /* RUSAGE_THREAD (Linux) */
#include "cli/cpu_share.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double seconds(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

static void take(CpuShare *c)
{
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    c->all_user = seconds(self.ru_utime);
    c->all_system = seconds(self.ru_stime);
    c->children = seconds(children.ru_utime) + seconds(children.ru_stime);
#ifdef RUSAGE_THREAD
    struct rusage thread;
    getrusage(RUSAGE_THREAD, &thread);
    c->main_user = seconds(thread.ru_utime);
    c->main_system = seconds(thread.ru_stime);
    c->main_switches = thread.ru_nvcsw + thread.ru_nivcsw;
#else   /* no split between user and system time for one thread */
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    c->main_user = (double)t.tv_sec + (double)t.tv_nsec / 1e9;
    c->main_system = 0;
    c->main_switches = 0;
#endif
}

void cpu_share_start(CpuShare *c)
{
    const char *v = getenv("CQL_CPU_SHARE");
    c->on = v && *v;
    if (c->on) take(c);
}

void cpu_share_report(const CpuShare *c, FILE *fp)
{
    if (!c->on) return;
    CpuShare now;
    take(&now);
    double mu = now.main_user - c->main_user, ms = now.main_system - c->main_system;
    double au = now.all_user - c->all_user, as = now.all_system - c->all_system;
    fprintf(fp, "cql: CPU of the run: main thread %.3f s user + %.3f s system, all threads %.3f + %.3f s "
            "(main thread %.1f%%, system %.1f%%), decompressors %.3f s; main thread %ld context switches\n", mu, ms,
            au, as, au + as > 0 ? 100 * (mu + ms) / (au + as) : 0.0, au + as > 0 ? 100 * as / (au + as) : 0.0,
            now.children - c->children, now.main_switches - c->main_switches);
}
