/*
 * src/cli/cpu_share.h — what the threads of a run cost: with the
 * environment variable CQL_CPU_SHARE set, the CPU time (user and system)
 * of the main thread (reading the input, writing the output) and of the
 * whole process during the run, and the main thread's share of it, on
 * standard error after the run (scripts/bench.sh, docs/performance.md).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CLI_CPU_SHARE_H
#define CQL_CLI_CPU_SHARE_H

#include <stdbool.h>
#include <stdio.h>

/* CPU seconds at one moment: the calling thread's, the process's (every
 * thread, those that ended too) and the waited-for children's (the
 * decompressors). */
typedef struct CpuShare {
    bool on;                     /* CQL_CPU_SHARE is set */
    double main_user, main_system;
    double all_user, all_system;
    double children;             /* user + system */
    long main_switches;          /* the main thread's context switches, voluntary or not */
} CpuShare;

/* Takes the start of the measure, when CQL_CPU_SHARE is set. */
void cpu_share_start(CpuShare *c);
/* Prints what the run cost since cpu_share_start, one line, when it was on. */
void cpu_share_report(const CpuShare *c, FILE *fp);

#endif
