/*
 * src/cli/options.h — command-line options of the cql program and its exit codes.
 *
 * Options take one or two leading hyphens and are matched without regard to
 * case, as CQL 6.2 does; the query file comes last. The program's own
 * options are kept as pointers into argv; the settings of the run (the
 * rows of src/query/settings.def, listed by the library) go into a
 * CqlSettings.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_CLI_OPTIONS_H
#define CQL_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cql.h"

/* Exit status of the cql program (ARCHITECTURE.md, shown by -help). */
typedef enum ExitCode {
    EXIT_RAN = 0,        /* the run finished, whether or not anything matched */
    EXIT_QUERY = 1,      /* the query has an error (no game was read), or it stopped the
                            run: a failed `assert`, a file `readfile` cannot read, a
                            value-only filter evaluated as a position filter ... */
    EXIT_USAGE = 2,      /* bad options, or a file could not be read or written */
    EXIT_PGN_STRICT = 3  /* the input had PGN errors and --strict was given */
} ExitCode;

/* An inclusive range given as `N` or `N M`. */
typedef struct Range {
    bool set;
    long min, max;
} Range;

#define CLI_MAX_CQL 32
#define CLI_MAX_INPUTS 256

/* What -summary asks for after the run. */
typedef enum SummaryForm { SUMMARY_TEXT, SUMMARY_JSON } SummaryForm;

typedef struct CliOptions {
    const char *const *query_files;   /* the last arguments (in argv): one query file, or
                                         several searched in one pass; none with -cql only */
    int query_count;
    const char *queries_dir;    /* -queries DIR: its *.cql files too */
    const char *outdir;         /* -outdir DIR: where each query's output file goes */
    CqlSettings *settings;      /* the options that are settings of the run (src/query/settings.def:
                                   -variations, -threads, -limit ...), set by name */
    const char *cql[CLI_MAX_CQL];  /* -cql texts, in order */
    int cql_count;
    const char *assign_name[CLI_MAX_CQL];    /* -assign NAME VALUE, in order */
    const char *assign_value[CLI_MAX_CQL];
    int assign_count;
    const char *inputs[CLI_MAX_INPUTS];   /* -i / -input, in order (files, directories, "-") */
    int input_count;
    const char *output;         /* -o / -output */
    bool showmatches, strict;
    bool parse, to_ascii, to_unicode, to_html, dump_orbit, translate;
    bool help, version;
    /* filters the command line adds before the query's body (CQL 6.2) */
    const char *player, *white, *black, *event, *site;
    Range year;
    const char *fen;            /* -fen BOARD: only positions with this board */
    const char *similarposition;  /* -similarposition [nosort] [notransform] FILE: the filter */
    bool similar_nosort, similar_notransform;
    bool wtm, btm;
    /* what is written */
    bool noclobber;
    /* the outputs beside the PGN file (cli/matches.c, cli/report.c) */
    const char *matches;        /* -matches FILE: a record per matched position */
    const char *matchformat;    /* -matchformat jsonl|tsv|epd (default: by the extension) */
    const char *report;         /* -report FILE: the HTML page */
    long reportlimit;           /* -reportlimit N: games shown in it (-1: not given) */
    /* how the run reports */
    long lineincrement;         /* -lineincrement N: a line every N games (0: none) */
    bool progress;              /* -progress: the live line even when stderr is no terminal */
    bool nooutputstatus;        /* no progress line, no -lineincrement lines */
    SummaryForm summary;        /* -summary json: one JSON line after the summary */
    bool dryrun;                /* compile and report, read nothing */
    bool index;                 /* -index: write the sidecar index of the PGN files named, and stop */
    const char *searchposition; /* -searchposition FEN: search this one position, no PGN */
    bool ignored;               /* options of CQL 6.2 that change nothing here */
    bool gui_stdin, gui_stdout; /* -guipgnstdin, -guipgnstdout: standard input and output */
    const char *hhdb_key;       /* -hhdb KEY [PARAM]: the filter hhdb KEY "PARAM" added */
    const char *hhdb_param;
    bool hhdb_info;             /* -hhdb info / -hhdb help: print the keys */
    bool vi, vii;               /* -vi / -vii: read hhdbvi.pgn / hhdbvii.pgn */
    bool summary_merge;         /* -summary-merge FILE...: add up -summary json lines, no run */
    const char *const *merge_files;
    int merge_count;
} CliOptions;

/* Fills *o from argv: the program's own options from its table, the
 * settings of the run from the library's (cql_setting_info). Returns
 * EXIT_RAN, or EXIT_USAGE after reporting; either way o->settings is to be
 * freed with cli_options_free. */
ExitCode cli_parse(int argc, char **argv, CliOptions *o, CqlMessages *m);
void cli_options_free(CliOptions *o);
void cli_print_help(FILE *out);
void cli_print_usage(FILE *out);   /* the usage lines that begin the help */
void cli_print_version(FILE *out);

#endif
