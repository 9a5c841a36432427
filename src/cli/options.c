/*
 * src/cli/options.c — parses cql's command line from a table of options.
 *
 * Each option of the program is a row: its names, what kind of value it
 * takes and where the value goes in CliOptions. The settings of the run
 * (threads, -variations, -limit ...) are the library's rows
 * (cql_setting_info, from src/query/settings.def), listed after the
 * program's inputs and filters and set by name in a CqlSettings. Adding an
 * option is adding a row, here or there.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/options.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/matches.h"
#include "cli/memory.h"

typedef enum OptKind {
    OPT_FLAG,      /* sets a bool */
    OPT_STRING,    /* one value */
    OPT_FEN,       /* a FEN board (the first field of a FEN) or a whole FEN */
    OPT_RESULT,    /* 1-0, 0-1 or 1/2-1/2 */
    OPT_CQL,       /* one value appended to the -cql list (may repeat) */
    OPT_INPUT,     /* one value appended to the input list (may repeat) */
    OPT_COUNT,     /* one integer, at least 1 */
    OPT_SIZE,      /* a byte count, with an optional K, M or G suffix */
    OPT_RANGE,     /* one integer, optionally followed by a second */
    OPT_PART,      /* K/N */
    OPT_SUMMARY,   /* text or json */
    OPT_HHDB,      /* -hhdb KEY [PARAM]: the parameter when the key takes a string */
    OPT_ASSIGN,    /* -assign NAME VALUE (may repeat) */
    OPT_SIMILAR,   /* -similarposition [nosort] [notransform] FILE */
    OPT_MERGE,     /* -summary-merge FILE...: every argument after it is a file */
    OPT_SETTINGS   /* where the settings of the run go in the table */
} OptKind;

typedef struct OptionSpec {
    const char *name;
    const char *alias;      /* NULL when none */
    OptKind kind;
    size_t offset;          /* of the field in CliOptions, or SETTING: a setting of the run,
                               whose value goes to CliOptions.settings, by name */
    long min;               /* OPT_COUNT, OPT_RANGE: the smallest value allowed */
    const char *help;       /* NULL: accepted but not listed */
} OptionSpec;

#define SETTING SIZE_MAX

#define F(field) offsetof(CliOptions, field)
#define NOMIN 0

/* The program's own options; the settings of the run go where the row
 * OPT_SETTINGS is. */
static const OptionSpec program_options[] = {
    {"input", "i", OPT_INPUT, F(inputs), NOMIN,
     "PGN file, directory or .gz/.bz2/.xz/.zst file; may repeat ('-' = stdin)"},
    {"output", "o", OPT_STRING, F(output), NOMIN, "PGN file to write ('-' = standard output)"},
    {"queries", NULL, OPT_STRING, F(queries_dir), NOMIN,
     "DIR: search with every *.cql file of DIR (in name order) too, in the same pass"},
    {"outdir", NULL, OPT_STRING, F(outdir), NOMIN,
     "DIR: write each query's output file in DIR (under the name it has without -outdir)"},
    {"cql", NULL, OPT_CQL, F(cql), NOMIN, "filters before the query file's body (or the body); may repeat"},
    {"player", NULL, OPT_STRING, F(player), NOMIN, "S: only games where White or Black contains S"},
    {"white", NULL, OPT_STRING, F(white), NOMIN, "S: only games where White contains S"},
    {"black", NULL, OPT_STRING, F(black), NOMIN, "S: only games where Black contains S"},
    {"event", NULL, OPT_STRING, F(event), NOMIN, "S: only games whose Event contains S"},
    {"site", NULL, OPT_STRING, F(site), NOMIN, "S: only games whose Site contains S"},
    {"year", NULL, OPT_RANGE, F(year), NOMIN, "N [M]: only games of year N (to M)"},
    {"fen", NULL, OPT_FEN, F(fen), NOMIN, "BOARD: only positions with this board (a FEN or its first field)"},
    {"similarposition", NULL, OPT_SIMILAR, F(similarposition), NOMIN,
     "[nosort] [notransform] FILE: only positions reached in FILE's games (or their mirror images, "
     "rotations, shifts), sorted by FILE's game number"},
    {"wtm", NULL, OPT_FLAG, F(wtm), NOMIN, "only positions with White to move"},
    {"btm", NULL, OPT_FLAG, F(btm), NOMIN, "only positions with Black to move"},
    {"assign", NULL, OPT_ASSIGN, F(assign_name), NOMIN,
     "NAME VALUE: the variable NAME starts as VALUE (a number when VALUE is one, else a string); may repeat"},
    {"hhdb", NULL, OPT_HHDB, F(hhdb_key), NOMIN, "KEY [TEXT]: add the filter hhdb KEY \"TEXT\" ('-hhdb info': the keys)"},
    {"vi", NULL, OPT_FLAG, F(vi), NOMIN, "read hhdbvi.pgn (when no -i is given)"},
    {"vii", NULL, OPT_FLAG, F(vii), NOMIN, "read hhdbvii.pgn (when no -i is given)"},
    {NULL, NULL, OPT_SETTINGS, 0, NOMIN, NULL},   /* the settings of the run */
    {"showmatches", NULL, OPT_FLAG, F(showmatches), NOMIN, "print <N> for each matching game"},
    {"noclobber", NULL, OPT_FLAG, F(noclobber), NOMIN, "refuse to replace an existing output file"},
    /* the outputs beside the PGN file (cli/matches.c, cli/report.c) */
    {"matches", NULL, OPT_STRING, F(matches), NOMIN,
     "FILE: a record per matched position (.jsonl, .tsv or .epd; '-' = standard output)"},
    {"matchformat", NULL, OPT_STRING, F(matchformat), NOMIN, "jsonl, tsv or epd: the form of -matches"},
    {"report", NULL, OPT_STRING, F(report), NOMIN, "FILE.html: a page with a board for each matched position"},
    {"reportlimit", NULL, OPT_COUNT, F(reportlimit), NOMIN, "N: games shown in the report (default 200)"},
    {"dryrun", NULL, OPT_FLAG, F(dryrun), NOMIN, "compile the query, check the files, read no game"},
    {"index", NULL, OPT_FLAG, F(index), NOMIN,
     "write the sidecar index of the PGN file (cql -index games.pgn: games.pgn.cqlx), which makes the "
     "searches over it faster, and stop"},
    {"multithreaded", "m", OPT_FLAG, F(ignored), NOMIN, NULL},   /* the default */
    {"strict", NULL, OPT_FLAG, F(strict), NOMIN, "exit with status 3 when the input had PGN errors"},
    {"lineincrement", NULL, OPT_COUNT, F(lineincrement), 1, "N: print a line every N games"},
    {"progress", NULL, OPT_FLAG, F(progress), NOMIN, "show the live progress line even when stderr is no terminal"},
    {"nooutputstatus", NULL, OPT_FLAG, F(nooutputstatus), NOMIN, "no progress line and no -lineincrement lines"},
    {"summary", NULL, OPT_SUMMARY, F(summary), NOMIN, "json: one more summary line, in JSON"},
    {"summary-merge", "summarymerge", OPT_MERGE, F(summary_merge), NOMIN,
     "FILE...: add up the -summary json lines in FILEs (the parts of a run) into one, and stop"},
    {"parse", NULL, OPT_FLAG, F(parse), NOMIN, "print the query's syntax tree and stop"},
    {"a", NULL, OPT_FLAG, F(to_ascii), NOMIN, "print the query in ASCII spelling and stop"},
    {"u", NULL, OPT_FLAG, F(to_unicode), NOMIN, "print the query in Unicode spelling and stop"},
    {"html", NULL, OPT_FLAG, F(to_html), NOMIN, "print the query as an HTML page, syntax coloured, and stop"},
    {"translate", NULL, OPT_FLAG, F(translate), NOMIN, "print the query as CQL 6 (a CQL 1.0 file translated) and stop"},
    {"dump-orbit", "dumporbit", OPT_FLAG, F(dump_orbit), NOMIN, "print each transform's orbit and stop"},
    {"searchposition", NULL, OPT_FEN, F(searchposition), NOMIN,
     "FEN: search this one position instead of a PGN file"},
    {"guipgnstdin", NULL, OPT_FLAG, F(gui_stdin), NOMIN, NULL},
    {"guipgnstdout", NULL, OPT_FLAG, F(gui_stdout), NOMIN, NULL},
    /* accepted for CQL 6.2's scripts; they change nothing here (cql -help
     * does not list them; the manual page does) */
    {"gui", NULL, OPT_FLAG, F(ignored), NOMIN, NULL},
    {"virtualmainline", NULL, OPT_FLAG, F(ignored), NOMIN, NULL},
    {"uniquecomments", NULL, OPT_FLAG, F(ignored), NOMIN, NULL},
    {"nosortcomments", NULL, OPT_FLAG, F(ignored), NOMIN, NULL},
    {"nolinearize", NULL, OPT_FLAG, F(ignored), NOMIN, NULL},
    {"outputbuffer", NULL, OPT_FLAG, F(ignored), NOMIN, NULL},
    {"utf8", NULL, OPT_FLAG, F(ignored), NOMIN, NULL},
    {"echo", NULL, OPT_FLAG, F(ignored), NOMIN, NULL},
    {"colorize", NULL, OPT_FLAG, F(ignored), NOMIN, NULL},
    {"lex", NULL, OPT_FLAG, F(ignored), NOMIN, NULL},
    {"debug", "d", OPT_FLAG, F(ignored), NOMIN, NULL},
    {"help", "h", OPT_FLAG, F(help), NOMIN, "this text"},
    {"version", NULL, OPT_FLAG, F(version), NOMIN, "print the version"},
};

/* How the command line reads the value of a setting of each kind. */
static OptKind option_kind(CqlSettingKind kind)
{
    switch (kind) {
    case CQL_SETTING_FLAG: return OPT_FLAG;
    case CQL_SETTING_RESULT: return OPT_RESULT;
    case CQL_SETTING_COUNT: return OPT_COUNT;
    case CQL_SETTING_SIZE: return OPT_SIZE;
    case CQL_SETTING_RANGE: return OPT_RANGE;
    case CQL_SETTING_PART: return OPT_PART;
    case CQL_SETTING_TEXT: break;
    }
    return OPT_STRING;
}

/* Every option: the program's, with the settings the library offers as
 * options in place of the row OPT_SETTINGS. Made once. */
static const OptionSpec *options;
static size_t option_count;

static void make_options(void)
{
    if (options) return;
    size_t nsettings = 0;
    while (cql_setting_info(nsettings)) nsettings++;
    size_t n = sizeof program_options / sizeof program_options[0];
    OptionSpec *all = cli_calloc(n + nsettings, sizeof *all);
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        if (program_options[i].kind != OPT_SETTINGS) {
            all[count++] = program_options[i];
            continue;
        }
        for (size_t k = 0; k < nsettings; k++) {
            const CqlSettingInfo *s = cql_setting_info(k);
            if (!s->option) continue;
            all[count++] = (OptionSpec){s->name, s->alias, option_kind(s->kind), SETTING, (long)s->min,
                                        s->listed ? s->help : NULL};
        }
    }
    options = all;
    option_count = count;
}

static char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
}

static bool same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (lower(*a) != *b) return false;
    return *a == '\0' && *b == '\0';
}

static const OptionSpec *find_option(const char *name)
{
    for (size_t i = 0; i < option_count; i++)
        if (same_name(name, options[i].name) ||
            (options[i].alias && same_name(name, options[i].alias)))
            return &options[i];
    return NULL;
}

/* Edit distance (insert, delete, replace, swap two neighbours) between the
 * lower-case a and the option name b, at most 40 bytes each; larger for longer. */
static size_t option_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40) return 99;
    size_t d[41][41];
    for (size_t i = 0; i <= la; i++) d[i][0] = i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = lower(a[i - 1]) == b[j - 1] ? 0 : 1;
            size_t best = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && lower(a[i - 1]) == b[j - 2] && lower(a[i - 2]) == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/* The listed option nearest to name, when it is near enough to be a typo. */
static const char *nearest_option(const char *name)
{
    const char *best = NULL;
    size_t best_d = 99;
    for (size_t i = 0; i < option_count; i++) {
        if (strlen(options[i].name) < 3) continue;   /* -a, -u: everything is near them */
        size_t dist = option_distance(name, options[i].name);
        if (dist < best_d) {
            best_d = dist;
            best = options[i].name;
        }
    }
    size_t len = strlen(name);
    size_t allowed = len <= 4 ? 1 : len <= 8 ? 2 : 3;
    return best_d <= allowed ? best : NULL;
}

static bool parse_long(const char *s, long *out)
{
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end) return false;
    *out = v;
    return true;
}

/* "1000", "512K", "64M", "2G" (powers of 1024): a byte count of at least 1. */
static bool parse_size(const char *s, size_t *out)
{
    if (!s || *s < '0' || *s > '9') return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return false;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k') shift = 10;
    else if (*end == 'M' || *end == 'm') shift = 20;
    else if (*end == 'G' || *end == 'g') shift = 30;
    if (shift) end++;
    if (*end || v == 0 || v > (SIZE_MAX >> shift)) return false;
    *out = (size_t)v << shift;
    return true;
}

/* The board of a FEN (its first field): eight ranks of eight squares.
 * NULL when it is one, else why not. */
static const char *fen_board_problem(const char *fen)
{
    int ranks = 0, squares = 0;
    for (const char *c = fen;; c++) {
        if (*c == '/' || *c == ' ' || *c == '\0') {
            if (squares != 8) return "a rank without exactly 8 squares";
            ranks++;
            squares = 0;
            if (*c != '/') break;
        } else if (*c >= '1' && *c <= '8') {
            squares += *c - '0';
        } else if (strchr("KQRBNPkqrbnp", *c)) {
            squares++;
        } else {
            return "a character that is neither a piece nor a digit 1-8";
        }
    }
    return ranks == 8 ? NULL : "not 8 ranks";
}

static bool parse_part(const char *s, long *k, long *n)
{
    const char *slash = strchr(s, '/');
    if (!slash) return false;
    char first[32];
    size_t len = (size_t)(slash - s);
    if (len == 0 || len >= sizeof first) return false;
    memcpy(first, s, len);
    first[len] = '\0';
    return parse_long(first, k) && parse_long(slash + 1, n) && *n >= 1 && *n <= 1000000 && *k >= 0 &&
           *k < *n;
}

/* Reads the value of option spec (written arg) into o: `attached` (given as
 * -option=value), else the next argument; an option's further values (the
 * second number of a range ...) are the arguments after it. */
/* A setting's value, read as the program's options are, before it is set by name. */
typedef union SettingValue {
    const char *text;
    long number;
    size_t size;
    Range range;
    long part[2];
} SettingValue;

/* Gives the setting of option spec the value read into v. */
static bool set_setting(CqlSettings *s, const OptionSpec *spec, const SettingValue *v)
{
    switch (spec->kind) {
    case OPT_FLAG: return cql_settings_set_flag(s, spec->name, true);
    case OPT_COUNT: return cql_settings_set_number(s, spec->name, v->number);
    case OPT_SIZE: return v->size <= INT64_MAX && cql_settings_set_number(s, spec->name, (long long)v->size);
    case OPT_RANGE: return cql_settings_set_pair(s, spec->name, v->range.min, v->range.max);
    case OPT_PART: return cql_settings_set_pair(s, spec->name, v->part[0], v->part[1]);
    default: return cql_settings_set_text(s, spec->name, v->text);
    }
}

static ExitCode take_value(const OptionSpec *spec, const char *arg, const char *attached, int argc, char **argv,
                           int *i, CliOptions *o, CqlMessages *m)
{
    SettingValue setting;
    char *field = spec->offset == SETTING ? (char *)&setting : (char *)o + spec->offset;
    const char *value = attached ? attached : argv[++*i];
    switch (spec->kind) {
    case OPT_STRING:
        *(const char **)field = value;
        break;
    case OPT_FEN: {
        const char *why = fen_board_problem(value);
        if (why) {
            cql_report(m, CQL_ERROR, "option '%s' needs a FEN board such as "
                       "'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR', not '%s': %s", arg, value, why);
            return EXIT_USAGE;
        }
        *(const char **)field = value;
        break;
    }
    case OPT_RESULT:
        if (strcmp(value, "1-0") != 0 && strcmp(value, "0-1") != 0 && strcmp(value, "1/2-1/2") != 0) {
            cql_report(m, CQL_ERROR, "option '%s' needs 1-0, 0-1 or 1/2-1/2, not '%s'", arg, value);
            return EXIT_USAGE;
        }
        *(const char **)field = value;
        break;
    case OPT_CQL:
        if (o->cql_count == CLI_MAX_CQL) {
            cql_report(m, CQL_ERROR, "too many -cql options (limit is %d)", CLI_MAX_CQL);
            return EXIT_USAGE;
        }
        o->cql[o->cql_count++] = value;
        break;
    case OPT_INPUT:
        if (o->input_count == CLI_MAX_INPUTS) {
            cql_report(m, CQL_ERROR, "too many -i options (limit is %d; give a directory)", CLI_MAX_INPUTS);
            return EXIT_USAGE;
        }
        o->inputs[o->input_count++] = value;
        break;
    case OPT_COUNT:
        if (!parse_long(value, (long *)field) || *(long *)field < spec->min) {
            cql_report(m, CQL_ERROR, "option '%s' needs a number of at least %ld, not '%s'", arg, spec->min,
                       value);
            return EXIT_USAGE;
        }
        break;
    case OPT_SIZE:
        if (!parse_size(value, (size_t *)field)) {
            cql_report(m, CQL_ERROR,
                       "option '%s' needs a size in bytes such as 1000, 512K, 64M or 2G, not '%s'",
                       arg, value);
            return EXIT_USAGE;
        }
        break;
    case OPT_RANGE: {
        Range *r = (Range *)field;
        if (!parse_long(value, &r->min) || r->min < spec->min) {
            cql_report(m, CQL_ERROR, "option '%s' needs a number%s, not '%s'", arg,
                       spec->min == 1 ? " of at least 1" : spec->min == 0 ? " of at least 0" : "", value);
            return EXIT_USAGE;
        }
        r->max = r->min;
        r->set = true;
        long second;
        if (*i + 1 < argc && parse_long(argv[*i + 1], &second)) {
            r->max = second;
            ++*i;
        }
        if (r->max < r->min) {
            cql_report(m, CQL_ERROR, "option '%s': the range %ld %ld is empty (the second number is smaller)",
                       arg, r->min, r->max);
            return EXIT_USAGE;
        }
        break;
    }
    case OPT_PART:
        if (!parse_part(value, &((long *)field)[0], &((long *)field)[1])) {
            cql_report(m, CQL_ERROR, "option '%s' needs K/N with 0 <= K < N, such as 0/4, not '%s'", arg,
                       value);
            return EXIT_USAGE;
        }
        break;
    case OPT_SUMMARY:
        if (strcmp(value, "json") == 0) o->summary = SUMMARY_JSON;
        else if (strcmp(value, "text") == 0) o->summary = SUMMARY_TEXT;
        else {
            cql_report(m, CQL_ERROR, "option '%s' needs 'text' or 'json', not '%s'", arg, value);
            return EXIT_USAGE;
        }
        break;
    case OPT_ASSIGN: {
        size_t n = strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
        if (!value[0] || value[n] || (value[0] >= '0' && value[0] <= '9')) {
            cql_report(m, CQL_ERROR, "option '%s' needs a variable name (letters, digits, _), not '%s'", arg, value);
            return EXIT_USAGE;
        }
        if (*i + 1 >= argc) {
            cql_report(m, CQL_ERROR, "option '%s' needs a value after the name '%s'", arg, value);
            return EXIT_USAGE;
        }
        const char *assigned = argv[++*i];
        if (o->assign_count == CLI_MAX_CQL) {
            cql_report(m, CQL_ERROR, "too many -assign options (limit is %d)", CLI_MAX_CQL);
            return EXIT_USAGE;
        }
        o->assign_name[o->assign_count] = value;
        o->assign_value[o->assign_count++] = assigned;
        break;
    }
    case OPT_HHDB: {
        /* the keys whose value is a string take a text to look for */
        static const char *const with_text[] = {"composer", "firstcomment", "gbr", "search", "source",
                                                "stipulation"};
        o->hhdb_key = value;
        if (strcmp(value, "info") == 0 || strcmp(value, "help") == 0) {
            o->hhdb_info = true;
            break;
        }
        for (size_t k = 0; k < sizeof with_text / sizeof with_text[0]; k++) {
            if (strcmp(value, with_text[k]) != 0) continue;
            if (*i + 1 >= argc) {
                cql_report(m, CQL_ERROR, "Unable to parse 'hhdb' parameters at command line: '%s' needs a text",
                           value);
                return EXIT_USAGE;
            }
            o->hhdb_param = argv[++*i];
        }
        break;
    }
    case OPT_SIMILAR:
        /* the words of the filter similarposition before the file, in either order */
        for (;;) {
            bool *word = strcmp(value, "nosort") == 0 ? &o->similar_nosort
                         : strcmp(value, "notransform") == 0 ? &o->similar_notransform : NULL;
            if (!word || *word) break;
            if (*i + 1 >= argc) {
                cql_report(m, CQL_ERROR, "option '%s' needs a PGN file after '%s'", arg, value);
                return EXIT_USAGE;
            }
            *word = true;
            value = argv[++*i];
        }
        *(const char **)field = value;
        break;
    case OPT_FLAG:
    case OPT_SETTINGS:
    case OPT_MERGE:
        break;
    }
    if (spec->offset == SETTING && !set_setting(o->settings, spec, &setting)) {
        cql_report(m, CQL_ERROR, "option '%s': the value '%s' is out of its range", arg, value);
        return EXIT_USAGE;
    }
    return EXIT_RAN;
}

/* Options whose values conflict, or that need another. */
static ExitCode check_together(const CliOptions *o, CqlMessages *m)
{
    static const char *const exclusive[][2] = {{"variations", "mainline"}, {"silent", "quiet"}};
    for (size_t k = 0; k < sizeof exclusive / sizeof exclusive[0]; k++)
        if (cql_settings_flag(o->settings, exclusive[k][0]) && cql_settings_flag(o->settings, exclusive[k][1])) {
            cql_report(m, CQL_ERROR, "-%s and -%s exclude each other", exclusive[k][0], exclusive[k][1]);
            return EXIT_USAGE;
        }
    if (o->wtm && o->btm) {
        cql_report(m, CQL_ERROR, "-wtm and -btm exclude each other");
        return EXIT_USAGE;
    }
    long long threads = cql_settings_number(o->settings, "threads");
    if (cql_settings_flag(o->settings, "singlethreaded") && threads > 1) {
        cql_report(m, CQL_ERROR, "-singlethreaded and -threads %lld exclude each other", threads);
        return EXIT_USAGE;
    }
    if (o->searchposition && (o->input_count || cql_settings_given(o->settings, "part"))) {
        cql_report(m, CQL_ERROR, "-searchposition searches one position: it takes no -i and no -part");
        return EXIT_USAGE;
    }
    if (o->gui_stdin && o->input_count) {
        cql_report(m, CQL_ERROR, "-guipgnstdin reads standard input: it takes no -i");
        return EXIT_USAGE;
    }
    if (o->gui_stdout && o->output) {
        cql_report(m, CQL_ERROR, "-guipgnstdout writes standard output: it takes no -o");
        return EXIT_USAGE;
    }
    if (o->outdir && (o->output || o->gui_stdout)) {
        cql_report(m, CQL_ERROR, "-outdir puts each query's output file in a directory: it takes no %s",
                   o->output ? "-o" : "-guipgnstdout");
        return EXIT_USAGE;
    }
    bool prints = o->parse || o->to_ascii || o->to_unicode || o->to_html || o->dump_orbit || o->translate;
    if (prints && (o->query_count > 1 || o->queries_dir)) {
        cql_report(m, CQL_ERROR, "-parse, -a, -u, -html, -translate and -dump-orbit print one query: give one "
                   "query file");
        return EXIT_USAGE;
    }
    if (o->matchformat && !o->matches) {
        cql_report(m, CQL_ERROR, "-matchformat says the form of -matches FILE, which is not given");
        return EXIT_USAGE;
    }
    MatchFormat format;
    if (o->matches && !matches_format(o->matchformat, o->matches, &format, m)) return EXIT_USAGE;
    if (o->reportlimit >= 0 && !o->report) {
        cql_report(m, CQL_ERROR, "-reportlimit says how many games -report FILE shows, which is not given");
        return EXIT_USAGE;
    }
    return EXIT_RAN;
}

void cli_options_free(CliOptions *o)
{
    cql_settings_free(o->settings);
    o->settings = NULL;
}

static ExitCode parse_arguments(int argc, char **argv, CliOptions *o, const char **seen, CqlMessages *m);

ExitCode cli_parse(int argc, char **argv, CliOptions *o, CqlMessages *m)
{
    memset(o, 0, sizeof *o);
    o->reportlimit = -1;   /* not given */
    o->settings = cql_settings_new();
    make_options();
    const char **seen = cli_calloc(option_count, sizeof *seen);   /* as first written, per option */
    ExitCode rc = parse_arguments(argc, argv, o, seen, m);
    free(seen);
    return rc;
}

/* cli_parse, once the table is made. */
static ExitCode parse_arguments(int argc, char **argv, CliOptions *o, const char **seen, CqlMessages *m)
{
    if (argc <= 1) {   /* a bare `cql`: how to use it */
        cli_print_usage(stderr);
        fputs("try 'cql -help' for the options\n", stderr);
        return EXIT_USAGE;
    }
    int i = 1;
    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == '\0') break;
        if (strcmp(arg, "--") == 0) {   /* the end of the options: the query file follows */
            i++;
            break;
        }
        /* -option=value and --option=value are -option value */
        const char *equals = strchr(arg, '=');
        char written[64];   /* the option as written, without its value */
        snprintf(written, sizeof written, "%.*s", equals ? (int)(equals - arg) : (int)strlen(arg), arg);
        arg = written;
        const char *name = arg + (arg[1] == '-' ? 2 : 1);
        const OptionSpec *spec = find_option(name);
        if (!spec) {
            const char *near = nearest_option(name);
            if (near)
                cql_report(m, CQL_ERROR, "unknown option '%s'; did you mean '-%s'? (try 'cql -help')", arg, near);
            else
                cql_report(m, CQL_ERROR, "unknown option '%s' (try 'cql -help')", arg);
            return EXIT_USAGE;
        }
        size_t index = (size_t)(spec - options);
        if (seen[index] && spec->kind != OPT_FLAG && spec->kind != OPT_CQL && spec->kind != OPT_INPUT &&
            spec->kind != OPT_ASSIGN) {
            cql_report(m, CQL_ERROR, "option '%s' given twice (first as '%.*s'); it takes one value", arg,
                       (int)strcspn(seen[index], "="), seen[index]);
            return EXIT_USAGE;
        }
        seen[index] = argv[i];
        if (spec->kind == OPT_MERGE) {   /* the files are the rest of the arguments */
            bool alone = !equals;
            for (size_t k = 0; k < option_count; k++) alone = alone && (k == index || !seen[k]);
            if (!alone) {
                cql_report(m, CQL_ERROR, "-summary-merge takes files and nothing else: cql -summary-merge FILE...");
                return EXIT_USAGE;
            }
            o->summary_merge = true;
            o->merge_files = (const char *const *)argv + i + 1;
            o->merge_count = argc - i - 1;
            return EXIT_RAN;
        }
        if (spec->kind == OPT_FLAG) {
            if (equals) {
                cql_report(m, CQL_ERROR, "option '%s' takes no value (given '%s')", arg, argv[i]);
                return EXIT_USAGE;
            }
            if (spec->offset == SETTING) set_setting(o->settings, spec, NULL);
            else *(bool *)((char *)o + spec->offset) = true;
            continue;
        }
        if (!equals && i + 1 >= argc) {
            cql_report(m, CQL_ERROR, "option '%s' needs a value", arg);
            return EXIT_USAGE;
        }
        ExitCode rc = take_value(spec, arg, equals ? equals + 1 : NULL, argc, argv, &i, o, m);
        if (rc != EXIT_RAN) return rc;
    }
    if (o->help || o->version || o->hhdb_info) return EXIT_RAN;
    /* the query files: one, or several searched in one pass */
    o->query_files = (const char *const *)argv + i;
    o->query_count = argc - i;
    for (int k = 1; k < o->query_count; k++)
        if (o->query_files[k][0] == '-' && o->query_files[k][1] != '\0') {
            cql_report(m, CQL_ERROR, "option '%s' after the query file '%s' (options come first, the query "
                       "file last, or the query files)", o->query_files[k], o->query_files[0]);
            return EXIT_USAGE;
        }
    return check_together(o, m);
}

void cli_print_version(FILE *out)
{
    fprintf(out, "cql %s, an open implementation of the Chess Query Language (CQL 6.2)\n", cql_version());
}

void cli_print_usage(FILE *out)
{
    fputs("usage: cql [options] [query.cql] [more query files ...]\n"
          "       cql -i games.pgn -o hits.pgn query.cql\n"
          "       cql -i games.pgn q1.cql q2.cql        (one pass: q1-out.pgn, q2-out.pgn)\n"
          "       cql -i games.pgn -cql 'mate'\n"
          "       cql -i games.pgn -player Kasparov      (the options alone are the query)\n"
          "       cql -summary-merge part*.json          (add up the -summary json lines of parts)\n"
          "       cql -index games.pgn                   (a sidecar index: faster searches)\n",
          out);
}

void cli_print_help(FILE *out)
{
    cli_print_version(out);
    fputc('\n', out);
    cli_print_usage(out);
    fputs("\noptions (one or two hyphens, any case; -o=FILE is -o FILE; -- ends the options):\n", out);
    make_options();
    for (size_t i = 0; i < option_count; i++) {
        const OptionSpec *s = &options[i];
        if (!s->help) continue;
        char names[48];
        /* the shorter spelling first: "-i, -input", "-s, -singlethreaded" */
        bool alias_first = s->alias && strlen(s->alias) < strlen(s->name);
        if (s->alias)
            snprintf(names, sizeof names, "-%s, -%s", alias_first ? s->alias : s->name,
                     alias_first ? s->name : s->alias);
        else snprintf(names, sizeof names, "-%s", s->name);
        fprintf(out, "  %-24s %s\n", names, s->help);
    }
    fputs("\nWithout a query file or -cql, the query is the filters of the options alone\n"
          "(-player, -fen, -similarposition ...), or every position when there are none.\n"
          "Without -o the output is <query-stem>-out.pgn in the current directory\n"
          "(cqldefault-out.pgn without a query file). The summary line is\n"
          "  N matches of M games in S seconds using T thread(s) to FILE\n"
          "With several query files (or -queries DIR) each game is read once and\n"
          "searched with every query; each query writes its own output file (as\n"
          "alone, or under -outdir) and has its own summary line.\n"
          "Also accepted, as by CQL 6.2: the transforms -fliphorizontal -flipvertical\n"
          "-rotate90 -rotate45 -shifthorizontal -shiftvertical; -guipgnstdin and\n"
          "-guipgnstdout (standard input and output); and, without effect here, -gui\n"
          "-virtualmainline -uniquecomments (the default) -nosortcomments -nolinearize\n"
          "-outputbuffer -utf8 -echo -colorize -lex -d -debug.\n\n"
          "exit status:\n"
          "  0  the run finished (whether or not anything matched)\n"
          "  1  the query has an error (no game is read), or a filter stopped the run\n"
          "     (a failed assert, a file readfile cannot read ...)\n"
          "  2  bad options, or a file could not be read or written\n"
          "  3  the input had PGN errors and -strict was given\n",
          out);
}
