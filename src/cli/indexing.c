/*
 * src/cli/indexing.c — `cql -index`: sidecar indexes written (see indexing.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/indexing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/input.h"
#include "cli/memory.h"
#include "cli/output_file.h"
#include "cli/progress.h"

static bool write_out(void *ctx, const void *data, size_t len)
{
    return output_write(ctx, data, len);
}

static void show_progress(void *ctx, const CqlRunProgress *p)
{
    progress_update(ctx, p->games, p->matches, p->bytes);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* One file's sidecar, at `name`. */
static ExitCode index_one(const CliOptions *o, const InputFile *f, const char *name, CqlMessages *m)
{
    if (strcmp(f->path, "-") == 0 || f->decompressor) {
        cql_report(m, CQL_ERROR, "cannot index %s: a sidecar index is made for a plain PGN file",
                   f->decompressor ? "a compressed file" : "standard input");
        return EXIT_USAGE;
    }
    struct stat st;
    if (stat(name, &st) == 0 && !cql_index_is_sidecar(name)) {
        cql_report(m, CQL_ERROR, "'%s' exists and is not a sidecar index: cql does not write over it", name);
        return EXIT_USAGE;
    }
    const char *inputs[] = {f->path};
    OutputInputs in;
    output_inputs_make(&in, inputs, 1, NULL, 0);
    OutputFile out;
    int opened = output_open(&out, name, &in, false, m);
    output_inputs_free(&in);
    if (opened != 0) return EXIT_USAGE;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    Progress progress;
    progress_start(&progress, stderr, !o->nooutputstatus && isatty(STDERR_FILENO), o->progress && !o->nooutputstatus,
                   0, f->size);
    CqlIndexTotals t;
    bool ok = cql_index_build(f->path, write_out, &out, o->nooutputstatus ? NULL : show_progress, &progress, &t, m);
    progress_end(&progress);
    if (output_close(&out, ok, m) != 0 || !ok) return EXIT_USAGE;
    printf("%s: %ld game%s of %s (%.1f MB) indexed in %.2f seconds: %.1f MB, %.0f%% of the PGN file", name,
           t.games, t.games == 1 ? "" : "s", f->path, (double)t.pgn_bytes / 1e6, seconds_since(&t0), (double)t.index_bytes / 1e6,
           t.pgn_bytes ? 100.0 * (double)t.index_bytes / (double)t.pgn_bytes : 0.0);
    if (t.text_only) printf("; %ld game%s with PGN problems read from %s text", t.text_only,
                            t.text_only == 1 ? "" : "s", t.text_only == 1 ? "its" : "their");
    printf("\n");
    fflush(stdout);
    return EXIT_RAN;
}

ExitCode index_files(const CliOptions *o, CqlMessages *m)
{
    const char **names = cli_calloc((size_t)(o->input_count + o->query_count) + 1, sizeof *names);
    int count = 0;
    for (int i = 0; i < o->input_count; i++) names[count++] = o->inputs[i];
    for (int i = 0; i < o->query_count; i++) names[count++] = o->query_files[i];   /* cql -index games.pgn */
    if (count == 0) {
        free(names);
        cql_report(m, CQL_ERROR, "-index needs a PGN file: cql -index games.pgn");
        return EXIT_USAGE;
    }
    InputSet set;
    int expanded = input_expand(&set, names, count, m);
    free(names);
    if (expanded != 0) {
        input_free(&set);
        return EXIT_USAGE;
    }
    const char *named = cql_settings_text(o->settings, "indexfile");
    ExitCode rc = EXIT_RAN;
    if (named && set.count != 1) {
        cql_report(m, CQL_ERROR, "-indexfile names the sidecar index of one PGN file, and %d are given", set.count);
        rc = EXIT_USAGE;
    }
    for (int i = 0; rc == EXIT_RAN && i < set.count; i++) {
        char *usual = named ? NULL : cql_index_path(set.files[i].path);
        rc = index_one(o, &set.files[i], named ? named : usual, m);
        free(usual);
    }
    input_free(&set);
    return rc;
}
