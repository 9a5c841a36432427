/*
 * src/cli/options.c — parses cql's command line from a table of options.
 *
 * Each option is a row: its names, what kind of value it takes and where the
 * value goes in CliOptions. Adding an option is adding a row.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/options.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CQL_VERSION "0.1.0"

typedef enum OptKind {
    OPT_FLAG,      /* sets a bool */
    OPT_STRING,    /* one value */
    OPT_CQL,       /* one value appended to the -cql list */
    OPT_COUNT,     /* one non-negative integer */
    OPT_SIZE,      /* a byte count, with an optional K, M or G suffix */
    OPT_RANGE,     /* one integer, optionally followed by a second */
    OPT_HHDB       /* -hhdb KEY [PARAM]: the parameter when the key takes a string */
} OptKind;

typedef struct OptionSpec {
    const char *name;
    const char *alias;      /* NULL when none */
    OptKind kind;
    size_t offset;          /* of the field in CliOptions */
    const char *help;       /* NULL: accepted but not listed */
} OptionSpec;

#define F(field) offsetof(CliOptions, field)

static const OptionSpec options[] = {
    {"input", "i", OPT_STRING, F(input), "PGN file to read ('-' = standard input)"},
    {"output", "o", OPT_STRING, F(output), "PGN file to write ('-' = standard output)"},
    {"cql", NULL, OPT_CQL, F(cql), "query text (instead of, or before, the query file's body)"},
    {"fen", NULL, OPT_STRING, F(fen), "search this one position instead of a PGN file"},
    {"gamenumber", "g", OPT_RANGE, F(gamenumber), "N [M]: only games N (to M)"},
    {"matchcount", NULL, OPT_RANGE, F(matchcount), "N [M]: a game matches when N (to M) positions match"},
    {"matchstring", NULL, OPT_STRING, F(matchstring), "comment at each matched position (default CQL)"},
    {"result", NULL, OPT_STRING, F(result), "only games with this result"},
    {"variations", NULL, OPT_FLAG, F(variations), "search variations too"},
    {"mainline", NULL, OPT_FLAG, F(mainline), "search the main line only (the default)"},
    {"silent", NULL, OPT_FLAG, F(silent), "add no comments to the output"},
    {"quiet", NULL, OPT_FLAG, F(quiet), "add only the game-number comment"},
    {"noheader", "noheaders", OPT_FLAG, F(noheader), "no {Game number N} comment"},
    {"alwayscomment", NULL, OPT_FLAG, F(alwayscomment), "keep comments at unmatched positions"},
    {"noremovecomment", NULL, OPT_FLAG, F(noremovecomment), "`removecomment` removes no comment"},
    {"hhdb", NULL, OPT_HHDB, F(hhdb_key), "KEY [TEXT]: add the filter hhdb KEY \"TEXT\" ('-hhdb info': the keys)"},
    {"vi", NULL, OPT_FLAG, F(vi), "read hhdbvi.pgn (when no -i is given)"},
    {"vii", NULL, OPT_FLAG, F(vii), "read hhdbvii.pgn (when no -i is given)"},
    {"showmatches", NULL, OPT_FLAG, F(showmatches), "print <N> for each matching game"},
    {"threads", NULL, OPT_COUNT, F(threads), "N: worker threads (default: one per core)"},
    {"singlethreaded", "s", OPT_FLAG, F(singlethreaded), "one thread"},
    {"strict", NULL, OPT_FLAG, F(strict), "exit with status 3 when the input had PGN errors"},
    {"maxgamesize", NULL, OPT_SIZE, F(max_game_size),
     "BYTES: a longer game is skipped (K, M, G suffixes; default 64M)"},
    {"parse", NULL, OPT_FLAG, F(parse), "print the query's syntax tree and stop"},
    {"a", NULL, OPT_FLAG, F(to_ascii), "print the query in ASCII spelling and stop"},
    {"u", NULL, OPT_FLAG, F(to_unicode), "print the query in Unicode spelling and stop"},
    {"dump-orbit", "dumporbit", OPT_FLAG, F(dump_orbit), "print each transform's orbit and stop"},
    {"flip", NULL, OPT_FLAG, F(flip), "apply flip to the whole query"},
    {"flipcolor", NULL, OPT_FLAG, F(flipcolor), "apply flipcolor to the whole query"},
    {"shift", NULL, OPT_FLAG, F(shift), "apply shift to the whole query"},
    {"reversecolor", NULL, OPT_FLAG, F(reversecolor), "apply reversecolor to the whole query"},
    {"fliphorizontal", NULL, OPT_FLAG, F(fliphorizontal), NULL},
    {"flipvertical", NULL, OPT_FLAG, F(flipvertical), NULL},
    {"rotate90", NULL, OPT_FLAG, F(rotate90), NULL},
    {"rotate45", NULL, OPT_FLAG, F(rotate45), NULL},
    {"shifthorizontal", NULL, OPT_FLAG, F(shifthorizontal), NULL},
    {"shiftvertical", NULL, OPT_FLAG, F(shiftvertical), NULL},
    {"help", "h", OPT_FLAG, F(help), "this text"},
    {"version", NULL, OPT_FLAG, F(version), "print the version"},
};

static bool same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = (*a >= 'A' && *a <= 'Z') ? (char)(*a + 32) : *a;
        if (x != *b) return false;
    }
    return *a == '\0' && *b == '\0';
}

static const OptionSpec *find_option(const char *name)
{
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if (same_name(name, options[i].name) ||
            (options[i].alias && same_name(name, options[i].alias)))
            return &options[i];
    return NULL;
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

ExitCode cli_parse(int argc, char **argv, CliOptions *o, CqlMessages *m)
{
    memset(o, 0, sizeof *o);
    int i = 1;
    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == '\0') break;
        const char *name = arg + (arg[1] == '-' ? 2 : 1);
        const OptionSpec *spec = find_option(name);
        if (!spec) {
            cql_report(m, CQL_ERROR, "unknown option '%s' (try 'cql -help')", arg);
            return EXIT_USAGE;
        }
        char *field = (char *)o + spec->offset;
        if (spec->kind == OPT_FLAG) {
            *(bool *)field = true;
            continue;
        }
        if (i + 1 >= argc) {
            cql_report(m, CQL_ERROR, "option '%s' needs a value", arg);
            return EXIT_USAGE;
        }
        const char *value = argv[++i];
        if (spec->kind == OPT_HHDB && (strcmp(value, "info") == 0 || strcmp(value, "help") == 0)) o->hhdb_info = true;
        switch (spec->kind) {
        case OPT_STRING:
            *(const char **)field = value;
            break;
        case OPT_CQL:
            if (o->cql_count == CLI_MAX_CQL) {
                cql_report(m, CQL_ERROR, "too many -cql options (limit is %d)", CLI_MAX_CQL);
                return EXIT_USAGE;
            }
            o->cql[o->cql_count++] = value;
            break;
        case OPT_COUNT:
            if (!parse_long(value, (long *)field) || *(long *)field < 0) {
                cql_report(m, CQL_ERROR, "option '%s' needs a number, not '%s'", arg, value);
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
            if (!parse_long(value, &r->min)) {
                cql_report(m, CQL_ERROR, "option '%s' needs a number, not '%s'", arg, value);
                return EXIT_USAGE;
            }
            r->max = r->min;
            r->set = true;
            long second;
            if (i + 1 < argc && parse_long(argv[i + 1], &second)) {
                r->max = second;
                i++;
            }
            if (r->max < r->min) {
                cql_report(m, CQL_ERROR, "option '%s': range %ld %ld is empty", arg, r->min,
                           r->max);
                return EXIT_USAGE;
            }
            break;
        }
        case OPT_HHDB: {
            /* the keys whose value is a string take a text to look for */
            static const char *const with_text[] = {"composer", "firstcomment", "gbr", "search", "source",
                                                    "stipulation"};
            o->hhdb_key = value;
            if (strcmp(value, "info") == 0 || strcmp(value, "help") == 0) break;
            for (size_t k = 0; k < sizeof with_text / sizeof with_text[0]; k++) {
                if (strcmp(value, with_text[k]) != 0) continue;
                if (i + 1 >= argc) {
                    cql_report(m, CQL_ERROR, "Unable to parse 'hhdb' parameters at command line: '%s' needs a text",
                               value);
                    return EXIT_USAGE;
                }
                o->hhdb_param = argv[++i];
            }
            break;
        }
        case OPT_FLAG:
            break;
        }
    }
    if (o->help || o->version || o->hhdb_info) return EXIT_RAN;
    if (i < argc) o->query_file = argv[i++];
    if (i < argc) {
        cql_report(m, CQL_ERROR, "unexpected argument '%s' after the query file '%s'", argv[i],
                   o->query_file);
        return EXIT_USAGE;
    }
    if (!o->query_file && o->cql_count == 0 && !o->hhdb_key) {
        cql_report(m, CQL_ERROR, "no query: give a query file or -cql TEXT (try 'cql -help')");
        return EXIT_USAGE;
    }
    if (o->variations && o->mainline) {
        cql_report(m, CQL_ERROR, "-variations and -mainline exclude each other");
        return EXIT_USAGE;
    }
    return EXIT_RAN;
}

void cli_print_version(FILE *out)
{
    fprintf(out, "cql %s, an open implementation of the Chess Query Language (CQL 6.2)\n",
            CQL_VERSION);
}

void cli_print_help(FILE *out)
{
    cli_print_version(out);
    fputs("\nusage: cql [options] [query.cql]\n"
          "       cql -i games.pgn -o hits.pgn query.cql\n"
          "       cql -i games.pgn -cql 'mate'\n\n"
          "options (one or two hyphens, any case):\n",
          out);
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        const OptionSpec *s = &options[i];
        if (!s->help) continue;
        char names[48];
        /* the shorter spelling first: "-i, -input", "-noheader, -noheaders" */
        bool alias_first = s->alias && strlen(s->alias) < strlen(s->name);
        if (s->alias)
            snprintf(names, sizeof names, "-%s, -%s", alias_first ? s->alias : s->name,
                     alias_first ? s->name : s->alias);
        else snprintf(names, sizeof names, "-%s", s->name);
        fprintf(out, "  %-24s %s\n", names, s->help);
    }
    fputs("\nWithout -o the output is <query-stem>-out.pgn. The last line printed is\n"
          "  N matches of M games in S seconds using T thread(s) to FILE\n\n"
          "exit status:\n"
          "  0  the run finished (whether or not anything matched)\n"
          "  1  the query has an error (no game is read), or a filter stopped the run\n"
          "     (a failed assert, a file readfile cannot read ...)\n"
          "  2  bad options, or a file could not be read or written\n"
          "  3  the input had PGN errors and -strict was given\n",
          out);
}
