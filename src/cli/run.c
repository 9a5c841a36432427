/*
 * src/cli/run.c — one run of cql: the query compiled with the command line's
 * settings, the input and the output opened, the game loop (pipeline.c),
 * then the summary line.
 *
 * A run is a sequence of steps over one Run record, each returning an exit
 * status; whatever a step opened or allocated is in the record, and run()
 * releases all of it in one place, whichever step stopped the run. This
 * file works through include/cql.h alone.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/run.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/output_file.h"
#include "cli/pipeline.h"

typedef struct Run {
    const CliOptions *o;
    CqlMessages *m;
    CqlQuery *query;
    char *fen_game;             /* -fen: the one-position game's text */
    FILE *fen_stream;           /* and the stream it is read from */
    const char *input;          /* the PGN file ("-": standard input), NULL with -fen */
    const char *output;         /* the output file ("-": standard output) */
    char *default_output;       /* <query-stem>-out.pgn, when output is that */
    CqlReader *reader;
    OutputFile out;
    bool out_open;
    CqlText persistent;         /* persistent variables, printed after the summary */
} Run;

/* {==== the query ============================================================ */

/* The command-line transforms (-flip ...), each wrapping the whole body. */
static const struct {
    size_t flag;   /* offset of the option's bool in CliOptions */
    unsigned transform;
} transform_options[] = {
    {offsetof(CliOptions, flip), CQL_FLIP},
    {offsetof(CliOptions, flipcolor), CQL_FLIPCOLOR},
    {offsetof(CliOptions, shift), CQL_SHIFT},
    {offsetof(CliOptions, reversecolor), CQL_REVERSECOLOR},
    {offsetof(CliOptions, fliphorizontal), CQL_FLIPHORIZONTAL},
    {offsetof(CliOptions, flipvertical), CQL_FLIPVERTICAL},
    {offsetof(CliOptions, rotate90), CQL_ROTATE90},
    {offsetof(CliOptions, rotate45), CQL_ROTATE45},
    {offsetof(CliOptions, shifthorizontal), CQL_SHIFTHORIZONTAL},
    {offsetof(CliOptions, shiftvertical), CQL_SHIFTVERTICAL},
};

static CqlRange option_range(Range r)
{
    return (CqlRange){r.set, r.min, r.max};
}

/* The command line's side of the search. */
static CqlSettings settings_of(const CliOptions *o)
{
    CqlSettings s = {
        .matchstring = o->matchstring,
        .variations = o->variations,
        .mainline = o->mainline,
        .silent = o->silent,
        .quiet = o->quiet,
        .alwayscomment = o->alwayscomment,
        .noheader = o->noheader,
        .matchcount = option_range(o->matchcount),
        .gamenumber = option_range(o->gamenumber),
        .result = o->result,
    };
    for (size_t i = 0; i < sizeof transform_options / sizeof transform_options[0]; i++)
        if (*(const bool *)((const char *)o + transform_options[i].flag)) s.transforms |= transform_options[i].transform;
    return s;
}

/* Compiles the query: the file, or the -cql texts alone (a body), or the
 * -cql texts placed before the file's body. Printing the query stops short
 * of the run: the orbits before the transform pass, the tree and the text
 * after it. */
static ExitCode compile_query(Run *r)
{
    const CliOptions *o = r->o;
    CqlSettings s = settings_of(o);
    CqlCompileStage stage = o->dump_orbit ? CQL_COMPILE_PARSE
                            : o->parse || o->to_ascii || o->to_unicode ? CQL_COMPILE_EXPAND
                            : CQL_COMPILE_RUN;
    CqlText cql = {NULL, 0, 0};   /* the -cql texts, one per line */
    for (int i = 0; i < o->cql_count; i++) cql_text_printf(&cql, "%s\n", o->cql[i]);
    ExitCode rc = EXIT_QUERY;
    if (!o->query_file) {
        s.name = "-cql";
        s.body_only = true;
        r->query = cql_compile(cql.data ? cql.data : "", cql.len, &s, stage, r->m);
    } else {
        size_t len = 0;
        char *text = cql_read_query_file(o->query_file, &len, r->m);
        if (text) {
            s.name = o->query_file;
            s.preamble = o->cql_count > 0 ? cql.data : NULL;
            r->query = cql_compile(text, len, &s, stage, r->m);
            free(text);
        } else {
            rc = EXIT_USAGE;
        }
    }
    cql_text_free(&cql);
    return r->query ? EXIT_RAN : rc;
}

/* --dump-orbit, -parse, -a, -u: print the query and stop. */
static ExitCode print_query(Run *r)
{
    const CliOptions *o = r->o;
    CqlText text = {NULL, 0, 0};
    cql_query_print(r->query, o->dump_orbit ? CQL_PRINT_ORBITS : o->parse ? CQL_PRINT_TREE
                              : o->to_unicode ? CQL_PRINT_UNICODE : CQL_PRINT_ASCII, &text);
    if (text.len) fwrite(text.data, 1, text.len, stdout);   /* all of it: a comment may hold a NUL byte */
    cql_text_free(&text);
    return EXIT_RAN;
}

/* }==== */

/* {==== input and output ===================================================== */

/* "dir/query.cql" -> "dir/query-out.pgn" */
static char *default_output_name(const char *query_file)
{
    const char *base = query_file ? query_file : "cqldefault.cql";
    size_t n = strlen(base);
    const char *slash = strrchr(base, '/');
    const char *dot = strrchr(base, '.');
    if (dot && (!slash || dot > slash)) n = (size_t)(dot - base);
    CqlText name = {NULL, 0, 0};
    cql_text_printf(&name, "%.*s-out.pgn", (int)n, base);
    return name.data;
}

/* The games: the input file, or with -fen one game holding that position. */
static ExitCode open_input(Run *r)
{
    const CliOptions *o = r->o;
    r->input = o->input ? o->input : cql_query_input(r->query);
    if (o->fen) {
        int field, column;
        char why[160];
        if (!cql_fen_check(o->fen, &field, &column, why, sizeof why)) {
            cql_report(r->m, CQL_ERROR, "bad -fen position (field %d, column %d): %s", field, column, why);
            return EXIT_USAGE;
        }
        CqlText game = {NULL, 0, 0};
        cql_text_printf(&game, "[SetUp \"1\"]\n[FEN \"%s\"]\n\n*\n", o->fen);
        r->fen_game = game.data;
        r->fen_stream = fmemopen(r->fen_game, game.len, "rb");
        r->input = NULL;
    }
    if (!r->input && !r->fen_stream) {
        cql_report(r->m, CQL_ERROR, "no input: give a PGN file with -i FILE ('-' for standard input)");
        return EXIT_USAGE;
    }
    const char *header_output = cql_query_output(r->query);
    r->output = o->output ? o->output : header_output ? header_output
                : (r->default_output = default_output_name(o->query_file));
    return EXIT_RAN;
}

static ExitCode open_reader_and_output(Run *r)
{
    r->reader = r->fen_stream ? cql_reader_open_stream(r->fen_stream, "-fen", r->m)
                              : cql_reader_open(r->input, r->m);
    if (!r->reader) return EXIT_USAGE;
    if (r->o->max_game_size) cql_reader_set_max_game_size(r->reader, r->o->max_game_size);
    if (output_open(&r->out, r->output, r->fen_stream ? NULL : r->input, r->m) != 0) return EXIT_USAGE;
    r->out_open = true;
    return EXIT_RAN;
}

/* }==== */

/* {==== the games and the summary ============================================ */

static long default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

static void print_seconds(FILE *fp, double s)
{
    if (s >= 100) fprintf(fp, "%.0f", s);
    else if (s >= 10) fprintf(fp, "%.1f", s);
    else if (s >= 1) fprintf(fp, "%.2f", s);
    else fprintf(fp, "%.3f", s);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The game loop, then `N matches of M games in S seconds using T threads to
 * FILE` (on standard error when the games go to standard output). */
static ExitCode search_games(Run *r)
{
    const CliOptions *o = r->o;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ExitCode rc = open_reader_and_output(r);
    if (rc != EXIT_RAN) return rc;
    long threads = o->singlethreaded ? 1 : o->threads ? o->threads : default_threads();
    if (cql_query_in_order(r->query)) threads = 1;
    bool games_on_stdout = output_is_standard_output(&r->out);
    PipelineSetup setup = {
        .query = r->query,
        .reader = r->reader,
        .out = &r->out,
        .messages = r->m,
        .notes = games_on_stdout ? stderr : stdout,
        .showmatches = o->showmatches,
        .threads = threads,
    };
    PipelineTotals t;
    pipeline_run(&setup, &t, &r->persistent);
    bool read_failed = cql_reader_failed(r->reader);
    cql_reader_close(r->reader);
    r->reader = NULL;
    r->out_open = false;
    bool ok = output_close(&r->out, !read_failed, r->m) == 0;

    double secs = seconds_since(&t0);
    FILE *summary = games_on_stdout ? stderr : stdout;
    if (t.pgn_errors)
        cql_report(r->m, CQL_WARNING, "%ld of %ld games had PGN errors (see the messages above)", t.pgn_errors,
                   t.games);
    if (!ok) {
        /* no summary line: tools that read it must not take the run for a success */
        cql_report(r->m, CQL_ERROR, "the run stopped after %ld games; %s", t.games,
                   strcmp(r->output, "-") == 0 ? "the output is incomplete" : "the output file was not written");
        return EXIT_USAGE;
    }
    if (t.stopped) {
        /* the query stopped the run (reported where it stopped); no summary
         * line, as for any failed run; the games before are written */
        cql_report(r->m, CQL_ERROR, "the run stopped (%ld game%s read)", t.games, t.games == 1 ? "" : "s");
        return EXIT_QUERY;
    }
    fprintf(summary, "%ld match%s of %ld game%s in ", t.matches, t.matches == 1 ? "" : "es", t.games,
            t.games == 1 ? "" : "s");
    print_seconds(summary, secs);
    fprintf(summary, " seconds using %ld thread%s to %s\n", threads, threads == 1 ? "" : "s",
            strcmp(r->output, "-") == 0 ? "<stdout>" : r->output);
    if (r->persistent.len) fputs(r->persistent.data, summary);
    fflush(summary);
    if (o->strict && t.pgn_errors) return EXIT_PGN_STRICT;
    return EXIT_RAN;
}

/* }==== */

static ExitCode run_steps(Run *r)
{
    ExitCode rc = compile_query(r);
    if (rc != EXIT_RAN) return rc;
    if (r->o->dump_orbit || r->o->parse || r->o->to_ascii || r->o->to_unicode) return print_query(r);
    rc = open_input(r);
    if (rc != EXIT_RAN) return rc;
    return search_games(r);
}

/* Everything a run may hold, released whichever step it stopped at. */
static void run_free(Run *r)
{
    if (r->out_open) output_close(&r->out, false, r->m);
    cql_reader_close(r->reader);
    if (r->fen_stream) fclose(r->fen_stream);
    free(r->fen_game);
    free(r->default_output);
    cql_text_free(&r->persistent);
    cql_query_free(r->query);
}

ExitCode run(const CliOptions *o, CqlMessages *m)
{
    if (o->help) {
        cli_print_help(stdout);
        return EXIT_RAN;
    }
    if (o->version) {
        cli_print_version(stdout);
        return EXIT_RAN;
    }
    Run r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.m = m;
    ExitCode rc = run_steps(&r);
    run_free(&r);
    return rc;
}
