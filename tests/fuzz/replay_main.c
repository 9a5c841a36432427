/*
 * tests/fuzz/replay_main.c — runs a fuzz harness without libFuzzer: every
 * file named on the command line, and every file in each directory named,
 * is passed once to LLVMFuzzerTestOneInput. `make test` links each harness
 * with this driver and replays the seed corpus and the regression files
 * (tests/fuzz/corpus/, tests/fuzz/regressions/); a harness that finds a
 * problem aborts, so the driver dies and the test fails.
 *
 *   fuzz_replay_NAME [-v] FILE|DIR...
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_support.h"

static bool verbose;

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open '%s'\n", fuzz_harness_name, path);
        return -1;
    }
    StrBuf sb = SB_INIT;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_append_n(&sb, buf, n);
    fclose(f);
    if (verbose) fprintf(stderr, "%s: %s (%zu bytes)\n", fuzz_harness_name, path, sb.len);
    /* a copy of exactly the file's size, so that ASan sees any read past it */
    uint8_t *data = xmalloc(sb.len ? sb.len : 1);
    if (sb.len) memcpy(data, sb.data, sb.len);
    LLVMFuzzerTestOneInput(data, sb.len);
    free(data);
    sb_free(&sb);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays every regular file of dir, in name order; returns how many, or -1. */
static long replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "%s: cannot open directory '%s'\n", fuzz_harness_name, dir);
        return -1;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        if (count == cap) names = xrealloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
        StrBuf path = SB_INIT;
        sb_printf(&path, "%s/%s", dir, e->d_name);
        names[count++] = sb_take(&path);
    }
    closedir(d);
    if (count) qsort(names, count, sizeof *names, by_name);
    long replayed = 0;
    for (size_t i = 0; i < count; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (replay_file(names[i]) != 0) replayed = -1;
            else if (replayed >= 0) replayed++;
        }
        free(names[i]);
    }
    free(names);
    return replayed;
}

int main(int argc, char **argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    long replayed = 0;
    int status = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0) {
            verbose = true;
            continue;
        }
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "%s: no such file or directory '%s'\n", fuzz_harness_name, argv[i]);
            status = 2;
            continue;
        }
        long n = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]) == 0 ? 1 : -1;
        if (n < 0) status = 2;
        else replayed += n;
    }
    printf("%s: %ld inputs replayed\n", fuzz_harness_name, replayed);
    return status;
}
