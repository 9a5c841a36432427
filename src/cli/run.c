/*
 * src/cli/run.c — one run of cql: the query (or each of several queries)
 * compiled with the command line's settings, the input and the outputs
 * opened, the library's run over the input (include/cql.h, CqlRun: one pass
 * for all the queries), whose games and matches this file prints and
 * writes, each query's to its own output, then a summary line per query.
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
#include <sys/stat.h>
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

/* One query of the run and its output. */
typedef struct QueryRun {
    const char *file;           /* the query file; NULL: the options alone are the query */
    CqlQuery *query;
    char *text;                 /* the query file's text */
    size_t len;
    int index;                  /* in the library's run */
    const char *output;         /* the output file ("-": standard output) */
    char *output_made;          /* the output's name when made here (<query-stem>-out.pgn,
                                   a name under -outdir) */
    OutputFile out;
    bool out_open;
    bool ok;                    /* its outputs complete, after the run */
    const char *matches_name;   /* its -matches file and -report page (NULL: none): as given, */
    const char *report_name;    /* or with several queries STEM-NAME (matches_made ...) */
    char *matches_made, *report_made;
    MatchesFile matches;
    bool matches_open;
    Report report;
    bool report_open;
    long positions;             /* matched positions in its matching games (with either) */
    CqlText persistent;         /* persistent variables, printed after the summary */
} QueryRun;

typedef struct Run {
    const CliOptions *o;
    CqlMessages *m;
    QueryRun *queries;          /* the query files in order (those of -queries DIR last) */
    int nqueries;
    char **dir_files;           /* -queries DIR's files */
    int ndir_files;
    char *fen_game;             /* -searchposition: the one-position game's text */
    FILE *fen_stream;           /* and the stream it is read from */
    const char *header_input;   /* cql(input F), when no -i is given */
    InputSet inputs;            /* the PGN files, directories, compressed files */
    bool inputs_ready;
    CqlRun *run;                /* the library's run over the input */
    OutputThread *writer;       /* writes the outputs that are regular files, during the run */
    FILE *notes;                /* where -showmatches and `message` print */
    Progress progress;
} Run;

/* {==== the query ============================================================ */

/* The size of the pieces worker threads split the input into, and the
 * text their ring holds, from the environment variables CQL_CHUNK_BYTES
 * and CQL_RING_BYTES when set: tests make them small, so that small files
 * are cut in many places and reading and searching ahead wait on the
 * budget (the settings chunkbytes and ringbytes). */
static void sizes_for_tests(CqlSettings *s)
{
    const char *v = getenv("CQL_CHUNK_BYTES");
    if (v) cql_settings_set_number(s, "chunkbytes", (long long)strtoull(v, NULL, 10));
    v = getenv("CQL_RING_BYTES");
    if (v) cql_settings_set_number(s, "ringbytes", (long long)strtoull(v, NULL, 10));
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

/* The query files: those given, then those of -queries DIR, in name
 * order; none: the command line's filters alone are the query. */
static ExitCode list_queries(Run *r)
{
    const CliOptions *o = r->o;
    static const char *const query_suffix[] = {".cql"};
    if (o->queries_dir) {
        r->dir_files = input_list_directory(o->queries_dir, query_suffix, 1, "query", &r->ndir_files, r->m);
        if (!r->dir_files) return EXIT_USAGE;
        if (r->ndir_files == 0) {
            cql_report(r->m, CQL_ERROR, "the query directory '%s' has no query file (*.cql)", o->queries_dir);
            return EXIT_USAGE;
        }
    }
    r->nqueries = o->query_count + r->ndir_files;
    if (r->nqueries == 0) r->nqueries = 1;   /* the options alone */
    r->queries = cli_calloc((size_t)r->nqueries, sizeof *r->queries);
    for (int i = 0; i < o->query_count; i++) r->queries[i].file = o->query_files[i];
    for (int i = 0; i < r->ndir_files; i++) r->queries[o->query_count + i].file = r->dir_files[i];
    return EXIT_RAN;
}

/* Compiles a query: its file, or the command line's filters alone (a
 * body: `cql -i games.pgn -player Carlsen`; with none, every position, as
 * CQL 6.2's default query), or those placed before the file's body.
 * Printing the query stops short of the run: the orbits before the
 * transform pass, the tree and the text after it. */
static ExitCode compile_query(Run *r, QueryRun *qr, int filters)
{
    const CliOptions *o = r->o;
    CqlSettings *s = o->settings;   /* the command line's side of the search */
    cql_settings_set_text(s, "queryfile", qr->file && strcmp(qr->file, "-") != 0 ? qr->file : NULL);
    sizes_for_tests(s);
    CqlCompileStage stage = o->dump_orbit || o->translate ? CQL_COMPILE_PARSE
                            : o->parse || o->to_ascii || o->to_unicode || o->to_html ? CQL_COMPILE_EXPAND
                            : CQL_COMPILE_RUN;
    if (!qr->file) {
        cql_settings_set_text(s, "name", "-cql");
        cql_settings_set_flag(s, "bodyonly", true);
        const char *body = filters ? "" : "true\n";
        qr->query = cql_compile(body, strlen(body), s, stage, r->m);
        return qr->query ? EXIT_RAN : EXIT_QUERY;
    }
    qr->text = cql_read_query_file(qr->file, &qr->len, r->m);
    if (!qr->text) return EXIT_USAGE;
    bool respelled = o->translate || o->to_ascii || o->to_unicode || o->dump_orbit;
    if (respelled && cql_is_cql1(qr->text, qr->len)) {
        /* a CQL 1.0 file is printed as its CQL 6 translation */
        char *cql6 = cql_translate_cql1(qr->text, qr->len, qr->file, r->m);
        free(qr->text);
        qr->text = cql6;
        qr->len = cql6 ? strlen(cql6) : 0;
        if (!cql6) return EXIT_QUERY;
    }
    cql_settings_set_text(s, "name", qr->file);
    qr->query = cql_compile(qr->text, qr->len, s, stage, r->m);
    return qr->query ? EXIT_RAN : EXIT_QUERY;
}

/* Compiles every query, each error reported; the run goes on only when
 * all of them compiled. The command line's filters are added to the
 * settings once: each query is compiled with them. */
static ExitCode compile_queries(Run *r)
{
    int filters = add_option_filters(r->o, r->o->settings);
    ExitCode rc = EXIT_RAN;
    for (int i = 0; i < r->nqueries; i++) {
        ExitCode got = compile_query(r, &r->queries[i], filters);
        if (got == EXIT_USAGE || (got != EXIT_RAN && rc == EXIT_RAN)) rc = got;
    }
    return rc;
}

/* --dump-orbit, -parse, -a, -u, -html, -translate: print the query and
 * stop (-translate: a CQL 1.0 file as CQL 6, in ASCII or with -u in
 * Unicode, before the transform pass). */
static ExitCode print_query(Run *r)
{
    const CliOptions *o = r->o;
    const QueryRun *qr = &r->queries[0];   /* the one query (cli_parse) */
    if (o->to_html) {
        html_write_query(qr->file ? qr->file : "-cql", qr->query, stdout);
        return EXIT_RAN;
    }
    CqlText text = {NULL, 0, 0};
    cql_query_print(qr->query, o->dump_orbit ? CQL_PRINT_ORBITS : o->parse ? CQL_PRINT_TREE
                              : o->to_unicode ? CQL_PRINT_UNICODE : CQL_PRINT_ASCII, &text);
    if (text.len) fwrite(text.data, 1, text.len, stdout);   /* all of it: a comment may hold a NUL byte */
    cql_text_free(&text);
    return EXIT_RAN;
}

/* }==== */

/* {==== input and output ===================================================== */

/* "<stdout>" or the file's name, as the summary names an output. */
static const char *shown_output(const char *output)
{
    return strcmp(output, "-") == 0 ? "<stdout>" : output;
}

/* True when an output of a query is named "-", standard output: the notes
 * and the summary lines then go to standard error (before the outputs are
 * open: by their names). */
static bool names_standard_output(const Run *r)
{
    for (int i = 0; i < r->nqueries; i++) {
        const QueryRun *qr = &r->queries[i];
        if (strcmp(qr->output, "-") == 0 || (qr->matches_name && strcmp(qr->matches_name, "-") == 0) ||
            (qr->report_name && strcmp(qr->report_name, "-") == 0))
            return true;
    }
    return false;
}

/* The name of a file made for a query: its file's name without its
 * directory and extension ("dir/query.cql": "query"; cqldefault without a
 * query file), then "-" and `what`, in the directory `dir` (NULL: the
 * current one). */
static char *query_file_name(const char *query_file, const char *dir, size_t dir_len, const char *what)
{
    const char *base = query_file ? query_file : "cqldefault.cql";
    const char *slash = strrchr(base, '/');
    if (slash) base = slash + 1;
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot > base) n = (size_t)(dot - base);
    CqlText name = {NULL, 0, 0};
    cql_text_printf(&name, "%.*s%s%.*s-%s", (int)dir_len, dir ? dir : "",
                    dir_len && dir[dir_len - 1] != '/' ? "/" : "", (int)n, base, what);
    return name.data;
}

/* `name` moved into -outdir DIR (its last part there), when given and not
 * standard output: *made holds the new name, freed when it held another. */
static const char *in_outdir(const CliOptions *o, const char *name, char **made)
{
    if (!o->outdir || !name || strcmp(name, "-") == 0) return name;
    const char *slash = strrchr(name, '/');
    size_t dl = strlen(o->outdir);
    CqlText moved = {NULL, 0, 0};
    cql_text_printf(&moved, "%s%s%s", o->outdir, dl && o->outdir[dl - 1] == '/' ? "" : "/", slash ? slash + 1 : name);
    free(*made);
    return *made = moved.data;
}

/* A query's -matches or -report file: the name given; with several
 * queries, each its own, STEM-NAME beside the name given ("-": standard
 * output, as given). */
static const char *per_query_name(const Run *r, const QueryRun *qr, const char *given, char **made)
{
    if (!given || r->nqueries == 1 || strcmp(given, "-") == 0) return given;
    const char *slash = strrchr(given, '/');
    return *made = query_file_name(qr->file, given, slash ? (size_t)(slash - given + 1) : 0, slash ? slash + 1 : given);
}

/* The input the queries' headers name (cql(input F)), when no -i is
 * given: all that name one must name the same. */
static ExitCode header_input(Run *r)
{
    const QueryRun *named = NULL;
    for (int i = 0; i < r->nqueries; i++) {
        const char *input = cql_query_input(r->queries[i].query);
        if (!input) continue;
        if (named && strcmp(input, r->header_input) != 0) {
            cql_report(r->m, CQL_ERROR, "the queries name different inputs in their headers ('%s' in %s, '%s' "
                       "in %s): give the input with -i", r->header_input, named->file, input, r->queries[i].file);
            return EXIT_USAGE;
        }
        named = &r->queries[i];
        r->header_input = input;
    }
    return EXIT_RAN;
}

/* One of the files a run writes: a query's PGN output (kind 0), its
 * -matches file (1) or its -report page (2). */
typedef struct Written {
    const char *name;
    int query;
    int kind;
    OutputPlace place;       /* where it writes, unless "-" (standard output) */
} Written;

static const char *const kind_option[] = {"the PGN output", "-matches", "-report"};

/* A file's place and its index among the run's files, sorted by place. */
typedef struct PlaceAt {
    const OutputPlace *place;
    int index;
} PlaceAt;

static int by_place(const void *x, const void *y)
{
    const PlaceAt *a = x, *b = y;
    int order = output_place_compare(a->place, b->place);
    return order ? order : (a->index > b->index) - (a->index < b->index);
}

static bool is_stdout(const Written *w)
{
    return strcmp(w->name, "-") == 0;
}

/* The first two of the count files that would be one (*a before *b, *b as
 * early as can be, then *a): the same place, or standard output for two
 * queries. Each file's place found once, then sorted: a run of thousands
 * of queries costs no stat for each pair. */
static bool first_clash(Written *all, int count, int *a, int *b)
{
    PlaceAt *order = cli_calloc((size_t)count + 1, sizeof *order);
    int *same = cli_calloc((size_t)count + 1, sizeof *same);
    int n = 0;
    for (int i = 0; i < count; i++) {
        same[i] = i;
        if (is_stdout(&all[i])) continue;
        output_place_of(all[i].name, &all[i].place);
        order[n++] = (PlaceAt){&all[i].place, i};
    }
    qsort(order, (size_t)n, sizeof *order, by_place);
    for (int k = 1; k < n; k++)   /* the first file of the same place as each */
        if (output_place_compare(order[k].place, order[k - 1].place) == 0) same[order[k].index] = same[order[k - 1].index];
    int first_stdout = -1, other_stdout = -1;   /* the first two for different queries */
    bool found = false;
    for (int i = 0; i < count && !found; i++) {
        int earliest = same[i] < i ? same[i] : -1;
        if (is_stdout(&all[i])) {
            int other = first_stdout < 0                            ? -1
                        : all[first_stdout].query != all[i].query ? first_stdout
                                                                   : other_stdout;
            if (other >= 0 && (earliest < 0 || other < earliest)) earliest = other;
            if (first_stdout < 0) first_stdout = i;
            else if (other_stdout < 0 && all[i].query != all[first_stdout].query) other_stdout = i;
        }
        if (earliest >= 0) {
            *a = earliest;
            *b = i;
            found = true;
        }
    }
    free(order);
    free(same);
    return found;
}

/* Two files of the run that would be one: refused, naming them. */
static void report_clash(const Run *r, const Written *a, const Written *b)
{
    const CliOptions *o = r->o;
    const QueryRun *qa = &r->queries[a->query], *qb = &r->queries[b->query];
    if (a->query == b->query) {   /* as for one query alone */
        cql_report(r->m, CQL_ERROR, "%s and %s name the same file '%s': give each its own",
                   a->kind == 0 && o->output ? "-o" : kind_option[a->kind], kind_option[b->kind], b->name);
    } else if (a->kind == 0 && b->kind == 0 && (o->output || o->gui_stdout)) {
        cql_report(r->m, CQL_ERROR, "%s names one output for all the queries: give each query its own with "
                   "-outdir DIR (or an output in its header)", o->output ? "-o" : "-guipgnstdout");
    } else {
        const char *shown = strcmp(b->name, "-") == 0 ? "<stdout>" : b->name;
        cql_report(r->m, CQL_ERROR, "the queries %s and %s would both write %s%s': give them outputs of their own "
                   "(-outdir DIR, or an output in the header)", qa->file, qb->file,
                   strcmp(a->name, b->name) == 0 ? "'" : "the same file, '", shown);
    }
}

/* Each query's outputs: -o, standard output with -guipgnstdout, its
 * header's output, else <query-stem>-out.pgn; its -matches and -report
 * files (per_query_name); under -outdir DIR, DIR/ and the last part of
 * those names. Two that would write the same file are refused (standard
 * output for two queries too; for one query's, once open). */
static ExitCode output_names(Run *r)
{
    const CliOptions *o = r->o;
    if (o->outdir) {
        struct stat st;
        if (stat(o->outdir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            cql_report(r->m, CQL_ERROR, "-outdir '%s' is not a directory", o->outdir);
            return EXIT_USAGE;
        }
    }
    Written *all = cli_calloc((size_t)r->nqueries * 3, sizeof *all);
    int count = 0;
    for (int i = 0; i < r->nqueries; i++) {
        QueryRun *qr = &r->queries[i];
        const char *header_output = cql_query_output(qr->query);
        if (o->output || o->gui_stdout) qr->output = o->output ? o->output : "-";
        else if (header_output) qr->output = header_output;
        else qr->output = qr->output_made = query_file_name(qr->file, NULL, 0, "out.pgn");
        qr->output = in_outdir(o, qr->output, &qr->output_made);
        qr->matches_name = in_outdir(o, per_query_name(r, qr, o->matches, &qr->matches_made), &qr->matches_made);
        qr->report_name = in_outdir(o, per_query_name(r, qr, o->report, &qr->report_made), &qr->report_made);
        const char *names[3] = {qr->output, qr->matches_name, qr->report_name};
        for (int kind = 0; kind < 3; kind++)
            if (names[kind]) all[count++] = (Written){.name = names[kind], .query = i, .kind = kind};
    }
    ExitCode rc = EXIT_RAN;
    int a, b;
    if (first_clash(all, count, &a, &b)) {
        report_clash(r, &all[a], &all[b]);
        rc = EXIT_USAGE;
    }
    for (int i = 0; i < count; i++) output_place_free(&all[i].place);
    free(all);
    return rc;
}

/* The games: the input files (-i, else the headers' input, else standard
 * input with -guipgnstdin), or with -searchposition one game holding that
 * position; and the outputs' names. */
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
        const char *const *names = o->inputs;
        int count = o->input_count;
        static const char *const hhdb_vi[] = {"hhdbvi.pgn"}, *const hhdb_vii[] = {"hhdbvii.pgn"};
        if (!count && o->gui_stdin) names = standard_input, count = 1;
        else if (!count && o->vi) names = hhdb_vi, count = 1;
        else if (!count && o->vii) names = hhdb_vii, count = 1;
        else if (!count && header_input(r) != EXIT_RAN) return EXIT_USAGE;
        else if (!count && r->header_input) names = &r->header_input, count = 1;
        if (!count) {
            cql_report(r->m, CQL_ERROR, "no input: give a PGN file with -i FILE ('-' for standard input)");
            return EXIT_USAGE;
        }
        r->inputs_ready = true;
        if (input_expand(&r->inputs, names, count, r->m) != 0) return EXIT_USAGE;
    }
    return output_names(r);
}

/* `lastgamenumber`: the games of the input counted before the first one is
 * searched, as CQL 6.2 counts them: the occurrences of "[White " in the
 * text, with its three lines on standard output (cql62-remaining.md §12). */
static ExitCode count_games(Run *r)
{
    bool needed = false;
    for (int i = 0; i < r->nqueries; i++) needed |= cql_query_needs_game_count(r->queries[i].query);
    if (!needed) return EXIT_RAN;
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
    for (int i = 0; i < r->nqueries; i++) {
        CqlQuery *q = r->queries[i].query;
        if (!cql_query_needs_game_count(q)) continue;
        CqlRange wanted = cql_query_gamenumber(q);
        if (wanted.set && count > wanted.max)
            printf("Due to CQL header gamenumber, using lastgamenumber value of: %ld\n", wanted.max);
        cql_query_set_game_count(q, count);
    }
    fflush(stdout);
    return EXIT_RAN;
}

/* The files the query reads before the search (similarposition's), with
 * what CQL 6.2 prints about them, beside the summary line. */
static ExitCode read_query_files(Run *r)
{
    for (int i = 0; i < r->nqueries; i++) {
        QueryRun *qr = &r->queries[i];
        if (!cql_query_reads_files(qr->query)) continue;
        CqlText printed = {NULL, 0, 0};
        bool ok = cql_query_read_files(qr->query, &printed, r->m);
        if (printed.len) {
            FILE *notes = names_standard_output(r) ? stderr : stdout;
            terminal_write(notes, printed.data, printed.len);
            fflush(notes);
        }
        cql_text_free(&printed);
        if (!ok) return EXIT_USAGE;
    }
    return EXIT_RAN;
}

/* -dryrun: what the run would do, on standard error; nothing is read or written. */
static ExitCode dry_run(Run *r)
{
    uint64_t bytes = 0;
    for (int i = 0; i < r->inputs.count; i++) bytes += r->inputs.files[i].size;
    int files = r->fen_stream ? 1 : r->inputs.count;
    if (r->nqueries == 1) {
        fprintf(stderr, "cql: the query compiled; %d input file%s (%llu bytes on disk) would be read and the "
                "matching games written to %s\n", files, files == 1 ? "" : "s", (unsigned long long)bytes,
                shown_output(r->queries[0].output));
    } else {
        fprintf(stderr, "cql: the %d queries compiled; %d input file%s (%llu bytes on disk) would be read once "
                "and the matching games of each query written to its output:\n", r->nqueries, files,
                files == 1 ? "" : "s", (unsigned long long)bytes);
        for (int i = 0; i < r->nqueries; i++)
            fprintf(stderr, "  %s -> %s\n", r->queries[i].file, shown_output(r->queries[i].output));
    }
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

/* -summary json: the summary for a program that adds up the parts of a
 * run (with several queries, it names its query; with -matches and
 * -report, the positions they hold and their files). */
static void print_json_summary(FILE *fp, const Run *r, const QueryRun *qr, const CqlRunTotals *t, double secs)
{
    CqlText line = {NULL, 0, 0};
    cql_text_printf(&line, "{\"matches\": %ld, \"games\": %ld, \"pgn_errors\": %ld, \"seconds\": %.3f, "
                    "\"threads\": %ld, \"output\": ", t->matches, t->games, t->pgn_errors, secs, t->threads);
    escape_json(&line, shown_output(qr->output));
    if (r->nqueries > 1) {
        cql_text_printf(&line, ", \"query\": ");
        escape_json(&line, qr->file);
    }
    cql_text_printf(&line, ", \"limit_reached\": %s", t->limit_reached ? "true" : "false");
    if (t->ruled_out || t->from_codes)
        cql_text_printf(&line, ", \"ruled_out\": %ld, \"from_codes\": %ld, \"in_place\": %ld, \"pgn_read\": %llu",
                        t->ruled_out, t->from_codes, t->in_place, (unsigned long long)t->pgn_read);
    long long k, n;
    if (cql_settings_pair(r->o->settings, "part", &k, &n))
        cql_text_printf(&line, ", \"part\": %lld, \"parts\": %lld", k, n);
    if (qr->matches_name || qr->report_name) cql_text_printf(&line, ", \"positions\": %ld", qr->positions);
    if (qr->matches_name) {
        cql_text_printf(&line, ", \"matches_file\": ");
        escape_json(&line, shown_output(qr->matches_name));
    }
    if (qr->report_name) {
        cql_text_printf(&line, ", \"report\": ");
        escape_json(&line, shown_output(qr->report_name));
    }
    cql_text_printf(&line, "}\n");
    fputs(line.data, fp);
    cql_text_free(&line);
}

/* What the run hands over for each game and query: what the query
 * printed, a runtime error, -showmatches's <N>. */
static void on_game(void *ctx, CqlRun *run, const CqlRunGame *g)
{
    (void)run;
    Run *r = ctx;
    if (g->printed) terminal_write(r->notes, g->printed, g->printed_len);
    if (g->error) terminal_write(r->notes, g->error, strlen(g->error));   /* where CQL 6.2 prints it */
    if (g->matched && r->o->showmatches) fprintf(r->notes, "<%ld>\n", g->number);
}

/* A matching game goes to its query's output, its text written where it
 * is at the end of its batch, its positions to the query's -matches and
 * -report; the first failed write stops that query. */
static void on_match(void *ctx, CqlRun *run, const CqlRunGame *g)
{
    Run *r = ctx;
    QueryRun *qr = &r->queries[g->query];
    qr->positions += g->npositions;
    bool ok = output_write_kept(&qr->out, g->pgn, g->pgn_len);
    if (ok && qr->matches_open) ok = matches_write_game(&qr->matches, g);
    if (ok && qr->report_open) ok = report_game(&qr->report, g);
    if (!ok) cql_run_cancel_query(run, g->query);
}

/* The end of a batch: its matches are written, by the output thread when
 * there is one, the batch then held until the thread has written them
 * (no copy); else they are written or copied now. */
static void on_batch_end(void *ctx, CqlRun *run)
{
    Run *r = ctx;
    bool to_thread = false;
    for (int i = 0; i < r->nqueries; i++) to_thread |= output_would_hold(&r->queries[i].out);
    CqlRunHold *hold = to_thread ? cql_run_hold_batch(run) : NULL;
    for (int i = 0; i < r->nqueries; i++)
        if (!output_release(&r->queries[i].out, hold != NULL)) cql_run_cancel_query(run, r->queries[i].index);
    if (hold) output_thread_release(r->writer, run, hold);
}

static void on_progress(void *ctx, const CqlRunProgress *p)
{
    Run *r = ctx;
    progress_update(&r->progress, p->games, p->matches, p->bytes);
}

/* A query's -matches and -report, opened after its PGN output. */
static ExitCode open_more_outputs(Run *r, QueryRun *qr, const OutputInputs *inputs)
{
    const CliOptions *o = r->o;
    if (qr->matches_name) {
        MatchFormat format;   /* the options checked it (cli_parse) */
        if (!matches_format(o->matchformat, qr->matches_name, &format, r->m) ||
            matches_open(&qr->matches, qr->matches_name, format, inputs, o->noclobber, r->m) != 0)
            return EXIT_USAGE;
        qr->matches_open = true;
    }
    if (qr->report_name) {
        const char **paths = cli_calloc((size_t)r->inputs.count + 1, sizeof *paths);
        for (int i = 0; i < r->inputs.count; i++) paths[i] = r->inputs.files[i].path;
        if (r->fen_stream) paths[0] = "-searchposition";
        ReportHead head = {qr->file, qr->query, paths, r->fen_stream ? 1 : r->inputs.count,
                           shown_output(qr->output)};
        int failed = report_open(&qr->report, qr->report_name, o->reportlimit, &head, inputs, o->noclobber, r->m);
        free(paths);
        if (failed) return EXIT_USAGE;
        qr->report_open = true;
    }
    return EXIT_RAN;
}

/* The outputs of query qr: its PGN output, its -matches and -report. */
static int outputs_of(QueryRun *qr, OutputFile *outputs[3])
{
    int n = 0;
    if (qr->out_open) outputs[n++] = &qr->out;
    if (qr->matches_open) outputs[n++] = &qr->matches.out;
    if (qr->report_open) outputs[n++] = &qr->report.out;
    return n;
}

/* The output thread, for the outputs that are regular files (none: no
 * thread; one that cannot start: they are written on this thread). */
static void start_output_thread(Run *r)
{
    for (int i = 0; i < r->nqueries; i++) {
        OutputFile *outputs[3];
        for (int k = outputs_of(&r->queries[i], outputs); k-- > 0;) {
            if (!output_is_regular_file(outputs[k])) continue;
            if (!r->writer && !(r->writer = output_thread_start())) return;
            output_use_thread(outputs[k], r->writer);
        }
    }
}

/* Every output written on this thread again, once the thread has written
 * what it was given. */
static void stop_output_thread(Run *r)
{
    if (!r->writer) return;
    for (int i = 0; i < r->nqueries; i++) {
        OutputFile *outputs[3];
        for (int k = outputs_of(&r->queries[i], outputs); k-- > 0;) output_leave_thread(outputs[k]);
    }
    output_thread_stop(r->writer);
    r->writer = NULL;
}

/* At most one output of the run on standard output (by any name:
 * /dev/stdout ...), now that they are open. */
static ExitCode one_standard_output(Run *r)
{
    const OutputFile *first = NULL;
    int first_query = 0, first_kind = 0;
    for (int i = 0; i < r->nqueries; i++) {
        QueryRun *qr = &r->queries[i];
        const OutputFile *outputs[3] = {&qr->out, qr->matches_open ? &qr->matches.out : NULL,
                                        qr->report_open ? &qr->report.out : NULL};
        for (int kind = 0; kind < 3; kind++) {
            if (!outputs[kind] || !output_is_standard_output(outputs[kind])) continue;
            if (!first) {
                first = outputs[kind];
                first_query = i;
                first_kind = kind;
                continue;
            }
            const char *a = first_kind == 0 && r->o->output ? "-o" : kind_option[first_kind];
            if (first_query == i)
                cql_report(r->m, CQL_ERROR, "%s and %s would both write to standard output: give %s a file", a,
                           kind_option[kind], first_kind == 0 ? a : kind_option[kind]);
            else
                cql_report(r->m, CQL_ERROR, "the queries %s and %s would both write to standard output: give "
                           "them outputs of their own", r->queries[first_query].file, qr->file);
            return EXIT_USAGE;
        }
    }
    return EXIT_RAN;
}

/* The run made, its inputs checked and the first opened, then the outputs
 * opened (none when an input cannot be read). */
static ExitCode open_run(Run *r)
{
    r->run = cql_run_new(r->queries[0].query, r->o->settings, r->m);
    for (int i = 1; i < r->nqueries; i++) r->queries[i].index = cql_run_add_query(r->run, r->queries[i].query);
    if (r->fen_stream) cql_run_add_stream(r->run, r->fen_stream, "-searchposition");
    else if (!input_add_to_run(&r->inputs, r->run, r->m)) return EXIT_USAGE;
    if (!cql_run_open(r->run)) {
        input_finish(&r->inputs, r->m);
        return EXIT_USAGE;
    }
    const char **names = cli_calloc((size_t)r->inputs.count + 1, sizeof *names);
    const char **files = cli_calloc((size_t)r->nqueries, sizeof *files);
    for (int i = 0; !r->fen_stream && i < r->inputs.count; i++) names[i] = r->inputs.files[i].path;
    for (int i = 0; i < r->nqueries; i++) files[i] = r->queries[i].file;
    OutputInputs inputs;
    output_inputs_make(&inputs, names, r->fen_stream ? 0 : r->inputs.count, files, r->nqueries);
    ExitCode rc = EXIT_RAN;
    for (int i = 0; i < r->nqueries && rc == EXIT_RAN; i++) {
        QueryRun *qr = &r->queries[i];
        if (output_open(&qr->out, qr->output, &inputs, r->o->noclobber, r->m) != 0) rc = EXIT_USAGE;
        else qr->out_open = true;
        if (rc == EXIT_RAN) rc = open_more_outputs(r, qr, &inputs);
    }
    output_inputs_free(&inputs);
    free(names);
    free(files);
    return rc == EXIT_RAN ? one_standard_output(r) : rc;
}

/* Whether any output goes to standard output: the summary and what the
 * queries print then go to standard error. */
static bool writes_standard_output(const Run *r)
{
    for (int i = 0; i < r->nqueries; i++) {
        const QueryRun *qr = &r->queries[i];
        if (output_is_standard_output(&qr->out) || (qr->matches_open && output_is_standard_output(&qr->matches.out)) ||
            (qr->report_open && output_is_standard_output(&qr->report.out)))
            return true;
    }
    return false;
}

/* Closes a query's -matches and -report (ok: the run succeeded for it);
 * false when one is not complete. */
static bool close_more_outputs(Run *r, QueryRun *qr, bool ok, const CqlRunTotals *t, double seconds)
{
    bool complete = true;
    if (qr->matches_open) {
        qr->matches_open = false;
        complete = matches_close(&qr->matches, ok, r->m) == 0;
    }
    if (qr->report_open) {
        qr->report_open = false;
        complete = report_close(&qr->report, ok, t, seconds, r->m) == 0 && complete;
    }
    return complete;
}

/* The PGN errors of the input, said once, or once per count where the
 * queries examined different games. */
static void report_pgn_errors(const Run *r)
{
    long said_errors = -1, said_games = -1;
    for (int i = 0; i < r->nqueries; i++) {
        const CqlRunTotals *t = cql_run_query_totals(r->run, r->queries[i].index);
        if (!t->pgn_errors || (t->pgn_errors == said_errors && t->games == said_games)) continue;
        cql_report(r->m, CQL_WARNING, "%ld of %ld games had PGN errors (see the messages above)", t->pgn_errors,
                   t->games);
        said_errors = t->pgn_errors;
        said_games = t->games;
    }
}

/* A query's summary: `N matches of M games in S seconds using T threads
 * to FILE`, its persistent variables, its JSON line, the limit's note;
 * or why its output was not written. EXIT_USAGE when it was not. */
static ExitCode summarize(Run *r, QueryRun *qr, bool ok, FILE *summary, double secs)
{
    const CliOptions *o = r->o;
    const CqlRunTotals *t = cql_run_query_totals(r->run, qr->index);
    const char *label = r->nqueries > 1 ? qr->file : NULL;   /* which query a message is about */
    if (t->stopped_at) {   /* a run of several queries: the others went on */
        cql_report(r->m, CQL_ERROR, "%s stopped at game %ld; %s", label, t->stopped_at,
                   strcmp(qr->output, "-") == 0 ? "its output is incomplete" : "its output file was not written");
        return EXIT_QUERY;
    }
    if (!ok) {
        /* no summary line: tools that read it must not take the run for a success */
        cql_report(r->m, CQL_ERROR, "%s%sthe run stopped after %ld games; %s", label ? label : "",
                   label ? ": " : "", t->games,
                   strcmp(qr->output, "-") == 0 ? "the output is incomplete" : "the output file was not written");
        return EXIT_USAGE;
    }
    /* "1 matches of 1 games": always plural, as CQL 6.2 writes it, for the
     * tools that parse this line */
    fprintf(summary, "%ld matches of %ld games in ", t->matches, t->games);
    print_seconds(summary, secs);
    fprintf(summary, " seconds using %ld thread%s to %s", t->threads, t->threads == 1 ? "" : "s",
            shown_output(qr->output));
    long long k, n;
    if (cql_settings_pair(o->settings, "part", &k, &n)) fprintf(summary, " (part %lld/%lld)", k, n);
    fputc('\n', summary);
    if (qr->matches_name)
        fprintf(summary, "%ld positions of %ld matches to %s\n", qr->positions, t->matches,
                shown_output(qr->matches_name));
    if (qr->report_name) {
        fprintf(summary, "%ld positions of %ld matches to %s", qr->positions, t->matches,
                shown_output(qr->report_name));
        if (qr->report.shown < qr->report.games) fprintf(summary, " (the first %ld games shown)", qr->report.shown);
        fputc('\n', summary);
    }
    cql_run_query_print_persistent(r->run, qr->index, &qr->persistent);
    if (qr->persistent.len) terminal_write(summary, qr->persistent.data, qr->persistent.len);
    if (o->summary == SUMMARY_JSON) print_json_summary(summary, r, qr, t, secs);
    fflush(summary);
    if (t->limit_reached)
        cql_report(r->m, CQL_NOTE, "%s%sstopped after %ld matching games (-limit %lld)", label ? label : "",
                   label ? ": " : "", t->matches, cql_settings_number(o->settings, "limit"));
    return EXIT_RAN;
}

/* The run, then a summary line per query (on standard error when games go
 * to standard output). */
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
    bool positions = false;   /* -matches and -report want them */
    for (int i = 0; i < r->nqueries; i++) positions |= r->queries[i].matches_open || r->queries[i].report_open;
    cql_run_on_match(r->run, on_match, r, positions);
    cql_run_on_progress(r->run, on_progress, r);
    cql_run_on_batch_end(r->run, on_batch_end, r);
    CpuShare cpu;
    cpu_share_start(&cpu);
    start_output_thread(r);
    cql_run_start(r->run);
    stop_output_thread(r);
    progress_end(&r->progress);
    bool input_ok = input_finish(&r->inputs, r->m);
    double secs = seconds_since(&t0);
    bool any_stopped = false;
    for (int i = 0; i < r->nqueries; i++) {
        QueryRun *qr = &r->queries[i];
        CqlRunStatus status = cql_run_query_status(r->run, qr->index);
        any_stopped |= status == CQL_RUN_STOPPED;
        bool ran = input_ok && status == CQL_RUN_DONE;
        /* -matches and -report first: the PGN output is not written when they are not */
        qr->ok = close_more_outputs(r, qr, ran, cql_run_query_totals(r->run, qr->index), secs);
        qr->out_open = false;
        qr->ok = output_close(&qr->out, ran && qr->ok, r->m) == 0 && qr->ok;
    }
    cpu_share_report(&cpu, stderr);
    if (r->nqueries == 1 && any_stopped) {
        fflush(stdout);
        return EXIT_QUERY;   /* as CQL 6.2: the message printed, no summary, no output */
    }

    FILE *summary = on_stdout ? stderr : stdout;
    report_pgn_errors(r);
    bool pgn_errors = false;
    for (int i = 0; i < r->nqueries; i++) {
        ExitCode got = summarize(r, &r->queries[i], r->queries[i].ok, summary, secs);
        if (got == EXIT_USAGE || (got == EXIT_QUERY && rc == EXIT_RAN)) rc = got;
        pgn_errors |= cql_run_query_totals(r->run, r->queries[i].index)->pgn_errors > 0;
    }
    if (rc == EXIT_RAN && o->strict && pgn_errors) return EXIT_PGN_STRICT;
    return rc;
}

/* }==== */

static ExitCode run_steps(Run *r)
{
    const CliOptions *o = r->o;
    ExitCode rc = list_queries(r);
    if (rc != EXIT_RAN) return rc;
    rc = compile_queries(r);
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
    stop_output_thread(r);
    for (int i = 0; i < r->nqueries; i++) {
        close_more_outputs(r, &r->queries[i], false, NULL, 0);
        if (r->queries[i].out_open) output_close(&r->queries[i].out, false, r->m);
    }
    cql_run_free(r->run);
    if (r->inputs_ready) input_free(&r->inputs);
    if (r->fen_stream) fclose(r->fen_stream);
    free(r->fen_game);
    for (int i = 0; i < r->nqueries; i++) {
        QueryRun *qr = &r->queries[i];
        free(qr->output_made);
        free(qr->matches_made);
        free(qr->report_made);
        free(qr->text);
        cql_text_free(&qr->persistent);
        cql_query_free(qr->query);
    }
    free(r->queries);
    for (int i = 0; i < r->ndir_files; i++) free(r->dir_files[i]);
    free(r->dir_files);
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
