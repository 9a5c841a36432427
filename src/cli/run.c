/*
 * src/cli/run.c — one run of cql: the query compiled with the command line's
 * settings, the input and the output opened, the library's run over the
 * input (include/cql.h, CqlRun), whose games and matches this file prints
 * and writes, then the summary line.
 *
 * A run is a sequence of steps over one Run record, each returning an exit
 * status; whatever a step opened or allocated is in the record, and run()
 * releases all of it in one place, whichever step stopped the run. This
 * file works through include/cql.h alone.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/run.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cpu_share.h"
#include "cli/html.h"
#include "cli/indexing.h"
#include "cli/escape.h"
#include "cli/input.h"
#include "cli/matches.h"
#include "cli/memory.h"
#include "cli/output_file.h"
#include "cli/progress.h"
#include "cli/summary_merge.h"
#include "cli/report.h"
#include "cli/terminal.h"

typedef struct Run {
    const CliOptions *o;
    CqlMessages *m;
    CqlQuery *query;
    char *query_text;           /* the query file's text */
    size_t query_len;
    char *fen_game;             /* -searchposition: the one-position game's text */
    FILE *fen_stream;           /* and the stream it is read from */
    const char *header_input;   /* cql(input F), when no -i is given */
    InputSet inputs;            /* the PGN files, directories, compressed files */
    bool inputs_ready;
    const char *output;         /* the output file ("-": standard output) */
    char *default_output;       /* <query-stem>-out.pgn, when output is that */
    CqlRun *run;                /* the library's run over the input */
    OutputFile out;
    bool out_open;
    MatchesFile matches;        /* -matches */
    bool matches_open;
    Report report;              /* -report */
    bool report_open;
    long positions;             /* matched positions in the matching games (with either) */
    FILE *notes;                /* where -showmatches and `message` print */
    Progress progress;
    CqlText persistent;         /* persistent variables, printed after the summary */
} Run;

/* {==== the query ============================================================ */

/* The size of the pieces worker threads split the input into, from the
 * environment variable CQL_CHUNK_BYTES when set: tests make it small, so
 * that small files are cut in many places (the setting chunkbytes). */
static void chunk_bytes_for_tests(CqlSettings *s)
{
    const char *v = getenv("CQL_CHUNK_BYTES");
    if (v) cql_settings_set_number(s, "chunkbytes", (long long)strtoull(v, NULL, 10));
}

/* Adds the filter of option `option` to s when `on`, its $1 ... standing
 * for values; 1 when added. A message about a filter made of an option's
 * values names it `option -player`; a -cql text, which the user wrote, is
 * the source "-cql" (-cql:LINE:COL). */
static int add_filter(CqlSettings *s, bool on, const char *option, const char *filter, const CqlValue *values,
                      size_t count)
{
    char name[48];
    snprintf(name, sizeof name, "%s%s", count ? "option " : "", option);
    return on && cql_settings_add_filter(s, name, filter, values, count);
}

static int add_string_filter(CqlSettings *s, const char *option, const char *filter, const char *value)
{
    CqlValue v = {CQL_VALUE_STRING, value};
    return add_filter(s, value != NULL, option, filter, &v, 1);
}

/* The filters the command line adds before the body: the -assign and -cql
 * texts, then those of CQL 6.2's options (-player, -fen ...) in this order.
 * Each is a source of its own, named by its option; an option's values are
 * bound to its filter (`player $1`), never made query text. Returns how
 * many were added. */
static int add_option_filters(const CliOptions *o, CqlSettings *s)
{
    int added = 0;
    for (int i = 0; i < o->assign_count; i++) {
        /* -assign NAME VALUE: a number when VALUE reads as one, else a string */
        const char *v = o->assign_value[i];
        size_t digits = strspn(v + (v[0] == '-'), "0123456789");
        bool number = digits > 0 && digits <= 18 && !v[(v[0] == '-') + digits];
        CqlValue values[2] = {{CQL_VALUE_WORD, o->assign_name[i]}, {number ? CQL_VALUE_WORD : CQL_VALUE_STRING, v}};
        added += add_filter(s, true, "-assign", "$1 = $2", values, 2);
    }
    for (int i = 0; i < o->cql_count; i++) added += add_filter(s, true, "-cql", o->cql[i], NULL, 0);
    added += add_string_filter(s, "-player", "player $1", o->player);
    added += add_string_filter(s, "-white", "player white $1", o->white);
    added += add_string_filter(s, "-black", "player black $1", o->black);
    added += add_string_filter(s, "-event", "event $1", o->event);
    added += add_string_filter(s, "-site", "site $1", o->site);
    char min[24], max[24];
    snprintf(min, sizeof min, "%ld", o->year.min);
    snprintf(max, sizeof max, "%ld", o->year.max);
    CqlValue years[2] = {{CQL_VALUE_WORD, min}, {CQL_VALUE_WORD, max}};
    added += add_filter(s, o->year.set, "-year", "{year >= $1 year <= $2}", years, 2);
    char board[128];   /* -fen: the board of a whole FEN (options.c checked it: at most 71 bytes) */
    if (o->fen) snprintf(board, sizeof board, "%.*s", (int)strcspn(o->fen, " "), o->fen);
    added += add_string_filter(s, "-fen", "fen $1", o->fen ? board : NULL);
    added += add_filter(s, o->wtm, "-wtm", "wtm", NULL, 0);
    added += add_filter(s, o->btm, "-btm", "btm", NULL, 0);
    if (o->hhdb_key) {
        /* -hhdb KEY [TEXT]: a key of other characters than letters, digits
         * and _ is a quoted key (hhdb "(c)") */
        bool bare = o->hhdb_key[0] && strspn(o->hhdb_key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                           "0123456789_") == strlen(o->hhdb_key);
        CqlValue values[2] = {{bare ? CQL_VALUE_WORD : CQL_VALUE_STRING, o->hhdb_key},
                              {CQL_VALUE_STRING, o->hhdb_param}};
        size_t count = o->hhdb_param ? 2 : 1;
        added += add_filter(s, true, "-hhdb", count == 2 ? "hhdb $1 $2" : "hhdb $1", values, count);
    }
    char similar[64];
    snprintf(similar, sizeof similar, "similarposition %s%s$1", o->similar_nosort ? "nosort " : "",
             o->similar_notransform ? "notransform " : "");
    added += add_string_filter(s, "-similarposition", similar, o->similarposition);
    return added;
}

/* Compiles the query: the file, or the command line's filters alone (a
 * body: `cql -i games.pgn -player Carlsen`; with none, every position, as
 * CQL 6.2's default query), or those placed before the file's body.
 * Printing the query stops short of the run: the orbits before the
 * transform pass, the tree and the text after it. */
static ExitCode compile_query(Run *r)
{
    const CliOptions *o = r->o;
    CqlSettings *s = o->settings;   /* the command line's side of the search */
    if (o->query_file && strcmp(o->query_file, "-") != 0) cql_settings_set_text(s, "queryfile", o->query_file);
    chunk_bytes_for_tests(s);
    CqlCompileStage stage = o->dump_orbit || o->translate ? CQL_COMPILE_PARSE
                            : o->parse || o->to_ascii || o->to_unicode || o->to_html ? CQL_COMPILE_EXPAND
                            : CQL_COMPILE_RUN;
    int filters = add_option_filters(o, s);
    if (!o->query_file) {
        cql_settings_set_text(s, "name", "-cql");
        cql_settings_set_flag(s, "bodyonly", true);
        const char *body = filters ? "" : "true\n";
        r->query = cql_compile(body, strlen(body), s, stage, r->m);
        return r->query ? EXIT_RAN : EXIT_QUERY;
    }
    r->query_text = cql_read_query_file(o->query_file, &r->query_len, r->m);
    if (!r->query_text) return EXIT_USAGE;
    bool respelled = o->translate || o->to_ascii || o->to_unicode || o->dump_orbit;
    if (respelled && cql_is_cql1(r->query_text, r->query_len)) {
        /* a CQL 1.0 file is printed as its CQL 6 translation */
        char *cql6 = cql_translate_cql1(r->query_text, r->query_len, o->query_file, r->m);
        free(r->query_text);
        r->query_text = cql6;
        r->query_len = cql6 ? strlen(cql6) : 0;
        if (!cql6) return EXIT_QUERY;
    }
    cql_settings_set_text(s, "name", o->query_file);
    r->query = cql_compile(r->query_text, r->query_len, s, stage, r->m);
    return r->query ? EXIT_RAN : EXIT_QUERY;
}

/* --dump-orbit, -parse, -a, -u, -html, -translate: print the query and
 * stop (-translate: a CQL 1.0 file as CQL 6, in ASCII or with -u in
 * Unicode, before the transform pass). */
static ExitCode print_query(Run *r)
{
    const CliOptions *o = r->o;
    if (o->to_html) {
        html_write_query(o->query_file ? o->query_file : "-cql", r->query, stdout);
        return EXIT_RAN;
    }
    CqlText text = {NULL, 0, 0};
    cql_query_print(r->query, o->dump_orbit ? CQL_PRINT_ORBITS : o->parse ? CQL_PRINT_TREE
                              : o->to_unicode ? CQL_PRINT_UNICODE : CQL_PRINT_ASCII, &text);
    if (text.len) fwrite(text.data, 1, text.len, stdout);   /* all of it: a comment may hold a NUL byte */
    cql_text_free(&text);
    return EXIT_RAN;
}

/* }==== */

/* {==== input and output ===================================================== */

/* "dir/query.cql" -> "query-out.pgn", in the current directory as CQL 6.2
 * writes it */
static char *default_output_name(const char *query_file)
{
    const char *base = query_file ? query_file : "cqldefault.cql";
    const char *slash = strrchr(base, '/');
    if (slash) base = slash + 1;
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot > base) n = (size_t)(dot - base);
    CqlText name = {NULL, 0, 0};
    cql_text_printf(&name, "%.*s-out.pgn", (int)n, base);
    return name.data;
}

/* The games: the input files (-i, else the header's input, else standard
 * input with -guipgnstdin), or with -searchposition one game holding that
 * position; and the output's name. */
static ExitCode open_input(Run *r)
{
    const CliOptions *o = r->o;
    if (o->searchposition) {
        int field, column;
        char why[160];
        if (!cql_fen_check(o->searchposition, &field, &column, why, sizeof why)) {
            cql_report(r->m, CQL_ERROR, "bad -searchposition position (field %d, column %d): %s", field, column,
                       why);
            return EXIT_USAGE;
        }
        CqlText game = {NULL, 0, 0};
        cql_text_printf(&game, "[SetUp \"1\"]\n[FEN \"%s\"]\n\n*\n", o->searchposition);
        r->fen_game = game.data;
        r->fen_stream = fmemopen(r->fen_game, game.len, "rb");
    } else {
        static const char *const standard_input[] = {"-"};
        r->header_input = cql_query_input(r->query);
        const char *const *names = o->inputs;
        int count = o->input_count;
        static const char *const hhdb_vi[] = {"hhdbvi.pgn"}, *const hhdb_vii[] = {"hhdbvii.pgn"};
        if (!count && o->gui_stdin) names = standard_input, count = 1;
        else if (!count && o->vi) names = hhdb_vi, count = 1;
        else if (!count && o->vii) names = hhdb_vii, count = 1;
        else if (!count && r->header_input) names = &r->header_input, count = 1;
        if (!count) {
            cql_report(r->m, CQL_ERROR, "no input: give a PGN file with -i FILE ('-' for standard input)");
            return EXIT_USAGE;
        }
        r->inputs_ready = true;
        if (input_expand(&r->inputs, names, count, r->m) != 0) return EXIT_USAGE;
    }
    const char *header_output = cql_query_output(r->query);
    r->output = o->output ? o->output : o->gui_stdout ? "-" : header_output ? header_output
                : (r->default_output = default_output_name(o->query_file));
    return EXIT_RAN;
}

/* `lastgamenumber`: the games of the input counted before the first one is
 * searched, as CQL 6.2 counts them: the occurrences of "[White " in the
 * text, with its three lines on standard output (cql62-remaining.md §12). */
static ExitCode count_games(Run *r)
{
    if (!cql_query_needs_game_count(r->query)) return EXIT_RAN;
    static const char pattern[] = "[White ";
    const size_t plen = sizeof pattern - 1;
    long count = 0;
    for (int f = 0; !r->fen_stream && f < r->inputs.count; f++) {
        const InputFile *in = &r->inputs.files[f];
        if (strcmp(in->path, "-") == 0 || in->decompressor) {
            cql_report(r->m, CQL_ERROR, "'lastgamenumber' needs input files it can read twice to count their "
                       "games, not %s", in->decompressor ? "a compressed file" : "standard input");
            return EXIT_USAGE;
        }
        FILE *fp = fopen(in->path, "rb");
        if (!fp) {
            cql_report(r->m, CQL_ERROR, "cannot open '%s' to count its games", in->path);
            return EXIT_USAGE;
        }
        char buf[65536 + sizeof pattern];
        size_t keep = 0, bytes = 0, got;
        while ((got = fread(buf + keep, 1, sizeof buf - keep - 1, fp)) > 0) {
            bytes += got;
            size_t len = keep + got;
            for (size_t i = 0; i + plen <= len; i++)
                if (buf[i] == '[' && memcmp(buf + i, pattern, plen) == 0) count++;
            /* the last plen - 1 bytes may begin a match that the next read ends */
            keep = len < plen - 1 ? len : plen - 1;
            memmove(buf, buf + len - keep, keep);
        }
        fclose(fp);
        printf("lastgamenumber: reading file: %s\n", in->path);
        printf("lastnumber: read %zu bytes. Counting games:...\n", bytes);
    }
    const char *name = r->inputs.count == 1 ? r->inputs.files[0].path : "the input files";
    if (count == 0) {
        printf("No valid games found by searching for the pattern '[White ' in the file: %s\n", name);
        fflush(stdout);
        return EXIT_QUERY;
    }
    printf("Detected estimated %ld games in the file: %s (Number may not be accurate)\n", count, name);
    CqlRange wanted = cql_query_gamenumber(r->query);
    if (wanted.set && count > wanted.max)
        printf("Due to CQL header gamenumber, using lastgamenumber value of: %ld\n", wanted.max);
    fflush(stdout);
    cql_query_set_game_count(r->query, count);
    return EXIT_RAN;
}

/* The files the query reads before the search (similarposition's), with
 * what CQL 6.2 prints about them, beside the summary line. */
static ExitCode read_query_files(Run *r)
{
    if (!cql_query_reads_files(r->query)) return EXIT_RAN;
    CqlText printed = {NULL, 0, 0};
    bool ok = cql_query_read_files(r->query, &printed, r->m);
    if (printed.len) {
        const CliOptions *o = r->o;
        bool on_stdout = strcmp(r->output, "-") == 0 || (o->matches && strcmp(o->matches, "-") == 0) ||
                         (o->report && strcmp(o->report, "-") == 0);
        FILE *notes = on_stdout ? stderr : stdout;   /* the outputs are not open yet: by their names */
        terminal_write(notes, printed.data, printed.len);
        fflush(notes);
    }
    cql_text_free(&printed);
    return ok ? EXIT_RAN : EXIT_USAGE;
}

/* -dryrun: what the run would do, on standard error; nothing is read or written. */
static ExitCode dry_run(Run *r)
{
    uint64_t bytes = 0;
    for (int i = 0; i < r->inputs.count; i++) bytes += r->inputs.files[i].size;
    fprintf(stderr, "cql: the query compiled; %d input file%s (%llu bytes on disk) would be read and the "
            "matching games written to %s\n", r->fen_stream ? 1 : r->inputs.count,
            r->fen_stream || r->inputs.count == 1 ? "" : "s", (unsigned long long)bytes,
            strcmp(r->output, "-") == 0 ? "<stdout>" : r->output);
    for (int i = 0; i < r->inputs.count; i++)
        fprintf(stderr, "  %s%s%s\n", r->inputs.files[i].path, r->inputs.files[i].decompressor ? " via " : "",
                r->inputs.files[i].decompressor ? r->inputs.files[i].decompressor : "");
    return EXIT_RAN;
}

/* }==== */

/* {==== the games and the summary ============================================ */

/* About three significant digits, as CQL 6.2 prints them. */
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

/* "<stdout>" or the file's name, as the summary names an output. */
static const char *summary_name(const char *output)
{
    return strcmp(output, "-") == 0 ? "<stdout>" : output;
}

/* -summary json: the summary for a program that adds up the parts of a run
 * (with -matches and -report, the positions they hold and their files). */
static void print_json_summary(FILE *fp, const Run *r, const CqlRunTotals *t, double secs)
{
    CqlText line = {NULL, 0, 0};
    cql_text_printf(&line, "{\"matches\": %ld, \"games\": %ld, \"pgn_errors\": %ld, \"seconds\": %.3f, "
                    "\"threads\": %ld, \"output\": ", t->matches, t->games, t->pgn_errors, secs, t->threads);
    escape_json(&line, summary_name(r->output));
    cql_text_printf(&line, ", \"limit_reached\": %s", t->limit_reached ? "true" : "false");
    if (t->ruled_out || t->from_codes)
        cql_text_printf(&line, ", \"ruled_out\": %ld, \"from_codes\": %ld", t->ruled_out, t->from_codes);
    long long k, n;
    if (cql_settings_pair(r->o->settings, "part", &k, &n)) cql_text_printf(&line, ", \"part\": %lld, \"parts\": %lld", k, n);
    if (r->o->matches || r->o->report) cql_text_printf(&line, ", \"positions\": %ld", r->positions);
    if (r->o->matches) {
        cql_text_printf(&line, ", \"matches_file\": ");
        escape_json(&line, summary_name(r->o->matches));
    }
    if (r->o->report) {
        cql_text_printf(&line, ", \"report\": ");
        escape_json(&line, summary_name(r->o->report));
    }
    cql_text_printf(&line, "}\n");
    fputs(line.data, fp);
    cql_text_free(&line);
}

/* What the run hands over for each game: what the query printed, a runtime
 * error, -showmatches's <N>. */
static void on_game(void *ctx, CqlRun *run, const CqlRunGame *g)
{
    (void)run;
    Run *r = ctx;
    if (g->printed) terminal_write(r->notes, g->printed, g->printed_len);
    if (g->error) terminal_write(r->notes, g->error, strlen(g->error));   /* where CQL 6.2 prints it */
    if (g->matched && r->o->showmatches) fprintf(r->notes, "<%ld>\n", g->number);
}

/* A matching game goes to the output, its text written where it is at
 * the end of its batch, its positions to -matches and -report; the first
 * failed write stops the run. */
static void on_match(void *ctx, CqlRun *run, const CqlRunGame *g)
{
    Run *r = ctx;
    r->positions += g->npositions;
    bool ok = output_write_kept(&r->out, g->pgn, g->pgn_len);
    if (ok && r->matches_open) ok = matches_write_game(&r->matches, g);
    if (ok && r->report_open) ok = report_game(&r->report, g);
    if (!ok) cql_run_cancel(run);
}

static void on_batch_end(void *ctx, CqlRun *run)
{
    Run *r = ctx;
    if (!output_release(&r->out)) cql_run_cancel(run);
}

static void on_progress(void *ctx, const CqlRunProgress *p)
{
    Run *r = ctx;
    progress_update(&r->progress, p->games, p->matches, p->bytes);
}

/* -matches and -report, opened after the PGN output: each a file of its
 * own (not the PGN output's, nor the other's), at most one of the three on
 * standard output. */
static ExitCode open_more_outputs(Run *r, const OutputInputs *inputs)
{
    const CliOptions *o = r->o;
    MatchFormat format;   /* the options checked it (cli_parse) */
    if (o->matches && !matches_format(o->matchformat, o->matches, &format, r->m)) return EXIT_USAGE;
    const char *names[] = {r->output, o->matches, o->report};
    const char *options[] = {r->o->output ? "-o" : "the PGN output", "-matches", "-report"};
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            if (names[a] && names[b] && output_same_file(names[a], names[b])) {
                cql_report(r->m, CQL_ERROR, "%s and %s name the same file '%s': give each its own", options[a],
                           options[b], names[b]);
                return EXIT_USAGE;
            }
    if (o->matches) {
        if (matches_open(&r->matches, o->matches, format, inputs, o->noclobber, r->m) != 0) return EXIT_USAGE;
        r->matches_open = true;
    }
    if (o->report) {
        const char **paths = cli_calloc((size_t)r->inputs.count + 1, sizeof *paths);
        for (int i = 0; i < r->inputs.count; i++) paths[i] = r->inputs.files[i].path;
        if (r->fen_stream) paths[0] = "-searchposition";
        ReportHead head = {o->query_file, r->query, paths,
                           r->fen_stream ? 1 : r->inputs.count, summary_name(r->output)};
        int failed = report_open(&r->report, o->report, o->reportlimit, &head, inputs, o->noclobber, r->m);
        free(paths);
        if (failed) return EXIT_USAGE;
        r->report_open = true;
    }
    const OutputFile *outputs[] = {&r->out, r->matches_open ? &r->matches.out : NULL,
                                   r->report_open ? &r->report.out : NULL};
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            if (outputs[a] && outputs[b] && output_is_standard_output(outputs[a]) &&
                output_is_standard_output(outputs[b])) {
                cql_report(r->m, CQL_ERROR, "%s and %s would both write to standard output: give %s a file",
                           options[a], options[b], a == 0 ? options[a] : options[b]);
                return EXIT_USAGE;
            }
    return EXIT_RAN;
}

/* The run made, its inputs checked and the first opened, then the outputs
 * opened (none when an input cannot be read). */
static ExitCode open_run(Run *r)
{
    r->run = cql_run_new(r->query, r->o->settings, r->m);
    if (r->fen_stream) cql_run_add_stream(r->run, r->fen_stream, "-searchposition");
    else if (!input_add_to_run(&r->inputs, r->run, r->m)) return EXIT_USAGE;
    if (!cql_run_open(r->run)) {
        input_finish(&r->inputs, r->m);
        return EXIT_USAGE;
    }
    const char **names = NULL;
    OutputInputs inputs = {NULL, 0, r->o->query_file};
    if (!r->fen_stream) {
        names = malloc((size_t)r->inputs.count * sizeof *names);
        for (int i = 0; names && i < r->inputs.count; i++) names[i] = r->inputs.files[i].path;
        inputs = (OutputInputs){names, names ? r->inputs.count : 0, r->o->query_file};
    }
    int failed = output_open(&r->out, r->output, &inputs, r->o->noclobber, r->m);
    if (!failed) {
        r->out_open = true;
        failed = open_more_outputs(r, &inputs) != EXIT_RAN;
    }
    free(names);
    return failed ? EXIT_USAGE : EXIT_RAN;
}

/* Whether any output goes to standard output: the summary and what the
 * query prints then go to standard error. */
static bool writes_standard_output(const Run *r)
{
    return output_is_standard_output(&r->out) || (r->matches_open && output_is_standard_output(&r->matches.out)) ||
           (r->report_open && output_is_standard_output(&r->report.out));
}

/* Closes -matches and -report (ok: the run succeeded); false when one is
 * not complete. */
static bool close_more_outputs(Run *r, bool ok, const CqlRunTotals *t, double seconds)
{
    bool complete = true;
    if (r->matches_open) {
        r->matches_open = false;
        complete = matches_close(&r->matches, ok, r->m) == 0;
    }
    if (r->report_open) {
        r->report_open = false;
        complete = report_close(&r->report, ok, t, seconds, r->m) == 0 && complete;
    }
    return complete;
}

/* The run, then `N matches of M games in S seconds using T threads to
 * FILE` (on standard error when the games go to standard output). */
static ExitCode search_games(Run *r)
{
    const CliOptions *o = r->o;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ExitCode rc = open_run(r);
    if (rc != EXIT_RAN) return rc;
    bool on_stdout = writes_standard_output(r);
    r->notes = on_stdout ? stderr : stdout;
    bool live = !o->nooutputstatus && isatty(STDERR_FILENO);
    progress_start(&r->progress, stderr, live, o->progress && !o->nooutputstatus,
                   o->nooutputstatus ? 0 : o->lineincrement, r->inputs.total_known ? r->inputs.total_size : 0);
    cql_run_on_game(r->run, on_game, r);
    cql_run_on_match(r->run, on_match, r, r->matches_open || r->report_open);
    cql_run_on_progress(r->run, on_progress, r);
    cql_run_on_batch_end(r->run, on_batch_end, r);
    CpuShare cpu;
    cpu_share_start(&cpu);
    CqlRunStatus status = cql_run_start(r->run);
    const CqlRunTotals *t = cql_run_totals(r->run);
    cql_run_print_persistent(r->run, &r->persistent);
    progress_end(&r->progress);
    bool read_failed = status == CQL_RUN_FAILED;
    if (!input_finish(&r->inputs, r->m)) read_failed = true;
    double secs = seconds_since(&t0);
    bool ran = !read_failed && status != CQL_RUN_STOPPED;
    /* -matches and -report first: the PGN output is not written when they are not */
    bool ok = close_more_outputs(r, ran, t, secs);
    r->out_open = false;
    ok = output_close(&r->out, ran && ok, r->m) == 0 && ok;
    cpu_share_report(&cpu, stderr);
    if (status == CQL_RUN_STOPPED) {
        fflush(stdout);
        return EXIT_QUERY;   /* as CQL 6.2: the message printed, no summary, no output */
    }

    FILE *summary = on_stdout ? stderr : stdout;
    if (t->pgn_errors)
        cql_report(r->m, CQL_WARNING, "%ld of %ld games had PGN errors (see the messages above)", t->pgn_errors,
                   t->games);
    if (!ok) {
        /* no summary line: tools that read it must not take the run for a success */
        cql_report(r->m, CQL_ERROR, "the run stopped after %ld games; %s", t->games,
                   strcmp(r->output, "-") == 0 ? "the output is incomplete" : "the output file was not written");
        return EXIT_USAGE;
    }
    /* "1 matches of 1 games": always plural, as CQL 6.2 writes it, for the
     * tools that parse this line */
    fprintf(summary, "%ld matches of %ld games in ", t->matches, t->games);
    print_seconds(summary, secs);
    fprintf(summary, " seconds using %ld thread%s to %s", t->threads, t->threads == 1 ? "" : "s",
            summary_name(r->output));
    long long k, n;
    if (cql_settings_pair(o->settings, "part", &k, &n)) fprintf(summary, " (part %lld/%lld)", k, n);
    fputc('\n', summary);
    if (o->matches) fprintf(summary, "%ld positions of %ld matches to %s\n", r->positions, t->matches,
                            summary_name(o->matches));
    if (o->report) {
        fprintf(summary, "%ld positions of %ld matches to %s", r->positions, t->matches, summary_name(o->report));
        if (r->report.shown < r->report.games) fprintf(summary, " (the first %ld games shown)", r->report.shown);
        fputc('\n', summary);
    }
    if (r->persistent.len) terminal_write(summary, r->persistent.data, r->persistent.len);
    if (o->summary == SUMMARY_JSON) print_json_summary(summary, r, t, secs);
    fflush(summary);
    if (t->limit_reached)
        cql_report(r->m, CQL_NOTE, "stopped after %ld matching games (-limit %lld)", t->matches,
                   cql_settings_number(o->settings, "limit"));
    if (o->strict && t->pgn_errors) return EXIT_PGN_STRICT;
    return EXIT_RAN;
}

/* }==== */

static ExitCode run_steps(Run *r)
{
    const CliOptions *o = r->o;
    ExitCode rc = compile_query(r);
    if (rc != EXIT_RAN) return rc;
    if (o->dump_orbit || o->translate || o->parse || o->to_ascii || o->to_unicode || o->to_html) return print_query(r);
    rc = open_input(r);
    if (rc != EXIT_RAN) return rc;
    if (o->dryrun) return dry_run(r);
    rc = count_games(r);
    if (rc != EXIT_RAN) return rc;
    rc = read_query_files(r);
    if (rc != EXIT_RAN) return rc;
    return search_games(r);
}

/* Everything a run may hold, released whichever step it stopped at. */
static void run_free(Run *r)
{
    close_more_outputs(r, false, NULL, 0);
    if (r->out_open) output_close(&r->out, false, r->m);
    cql_run_free(r->run);
    if (r->inputs_ready) input_free(&r->inputs);
    if (r->fen_stream) fclose(r->fen_stream);
    free(r->fen_game);
    free(r->default_output);
    free(r->query_text);
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
    if (o->summary_merge) return summary_merge(o->merge_files, o->merge_count, stdout, m);
    if (o->index) return index_files(o, m);
    if (o->hhdb_info) {
        fputs("the keys of hhdb (cql -hhdb KEY [TEXT] adds the filter hhdb KEY \"TEXT\"):\n", stdout);
        for (size_t i = 0; cql_hhdb_key(i); i++) printf("  %s\n", cql_hhdb_key(i));
        fputs("  award prize hm commendation special max sort (in any order)\n", stdout);
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
