/*
 * src/run.c — the game loop: query in, games through, matches out.
 *
 * The calling thread reads game texts into a ring of job slots and emits
 * finished slots in input order; workers take ready slots, parse and search
 * them, and leave the PGN text of a matching game (and any messages about the
 * game) in the slot. With one worker everything runs on the calling thread.
 * The output goes to a temporary file beside the real one, renamed when the
 * run ends, so an interrupted run never leaves a half-written file behind.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "run.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "attacks.h"
#include "game.h"
#include "pgn_reader.h"
#include "pgn_writer.h"
#include "strbuf.h"

/* ==== the search: what a run looks for ==================================== */

typedef struct Search {
    const char *matchstring;    /* comment at each matched position; "" for none */
    bool variations;            /* search variation positions too */
    bool silent;                /* no comments added at all */
    bool noheader;              /* no {Game number N} */
    Range matchcount;           /* matched positions a game needs (default 1..inf) */
    Range gamenumber;           /* games to examine (default all) */
    const char *result;         /* only games with this result, or NULL */
    const char *input_name;     /* as shown in messages */
} Search;

/* True when the query text is `cql(...) true`, the one query this build
 * evaluates until the evaluator lands: it matches every position. */
static bool query_is_true(const char *text)
{
    const char *s = text;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    if (strncmp(s, "cql", 3) == 0) {
        s += 3;
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
        if (*s != '(') return false;
        const char *close = strchr(s, ')');
        if (!close) return false;
        s = close + 1;
    }
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    if (strncmp(s, "true", 4) != 0) return false;
    s += 4;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    return *s == '\0';
}

/* ==== one game ============================================================= */

typedef enum SlotState { SLOT_EMPTY, SLOT_READY, SLOT_BUSY, SLOT_DONE } SlotState;

typedef struct GameJob {
    RawGame raw;
    StrBuf out;          /* PGN of the game when it matched */
    StrBuf messages;     /* diagnostics about the game, in order */
    bool matched;
    bool pgn_error;
    bool examined;       /* inside the gamenumber range */
    SlotState state;
} GameJob;

typedef struct Worker {
    const Search *search;
    Arena arena;         /* the current game's tree; reset per game */
} Worker;

static void capture_message(void *ctx, DiagSeverity sev, const char *text)
{
    (void)sev;
    sb_append((StrBuf *)ctx, text);
}

static bool result_matches(const Search *s, const Game *g)
{
    if (!s->result) return true;
    const char *r = game_tag(g, "Result");
    if (!r || strcmp(r, s->result) != 0) r = g->result;
    return r && strcmp(r, s->result) == 0;
}

/* The positions a search visits: the main line, or every node. */
static GameNode *next_position(const Search *s, GameNode *n)
{
    if (!s->variations) return n->child;
    if (n->child) return n->child;
    while (n && !n->sibling) n = n->parent;
    return n ? n->sibling : NULL;
}

static void search_game(Worker *w, GameJob *job)
{
    const Search *s = w->search;
    DiagSink sink;
    diag_sink_init(&sink, capture_message, &job->messages);
    Game g;
    PgnParseStatus st = pgn_parse_game(&job->raw, s->input_name, &w->arena, &g, &sink);
    job->pgn_error = st != PGN_OK;
    if (st == PGN_UNUSABLE || !result_matches(s, &g)) {
        arena_reset(&w->arena);
        return;
    }

    const char **notes = ARENA_ARRAY(&w->arena, const char *, g.node_count);
    long matched_positions = 0;
    for (GameNode *n = g.root; n; n = next_position(s, n)) {
        bool matched = true;      /* `true` matches every position */
        if (!matched) continue;
        matched_positions++;
        if (!s->silent && s->matchstring[0]) notes[n->id] = s->matchstring;
    }
    long lo = s->matchcount.set ? s->matchcount.min : 1;
    long hi = s->matchcount.set ? s->matchcount.max : -1;
    job->matched = matched_positions >= lo && (hi < 0 || matched_positions <= hi);
    if (job->matched) {
        if (!s->silent && !s->noheader) {
            StrBuf head = SB_INIT;
            sb_printf(&head, "Game number %ld", g.number);
            if (notes[0]) sb_printf(&head, " %s", notes[0]);
            notes[0] = arena_strdup(&w->arena, sb_str(&head));
            sb_free(&head);
        }
        PgnAnnotations ann = {notes};
        pgn_write_game(&g, &ann, &job->out);
    }
    arena_reset(&w->arena);
}

/* ==== the pipeline ========================================================= */

typedef struct Pipeline {
    pthread_mutex_t mu;
    pthread_cond_t work_ready;   /* a slot became READY, or the input ended */
    pthread_cond_t work_done;    /* a slot became DONE */
    GameJob *slots;
    long nslots;
    long next_read;              /* sequence number of the next slot to fill */
    long next_take;              /* next READY slot a worker takes */
    bool input_done;
    const Search *search;
} Pipeline;

static void *worker_main(void *arg)
{
    Pipeline *p = arg;
    Worker w = {p->search, {0}};
    arena_init(&w.arena, 256 * 1024);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->next_take == p->next_read && !p->input_done)
            pthread_cond_wait(&p->work_ready, &p->mu);
        if (p->next_take == p->next_read) break;
        GameJob *job = &p->slots[p->next_take % p->nslots];
        p->next_take++;
        job->state = SLOT_BUSY;
        pthread_mutex_unlock(&p->mu);
        if (job->examined) search_game(&w, job);
        pthread_mutex_lock(&p->mu);
        job->state = SLOT_DONE;
        pthread_cond_broadcast(&p->work_done);
    }
    pthread_mutex_unlock(&p->mu);
    arena_free(&w.arena);
    return NULL;
}

/* Totals of a run. */
typedef struct RunCounts {
    long games;          /* games read */
    long matches;        /* games written */
    long pgn_errors;     /* games with a problem in their PGN */
    bool write_failed;
} RunCounts;

static void emit(GameJob *job, FILE *out, bool showmatches, RunCounts *c)
{
    if (job->messages.len) {
        fputs(sb_str(&job->messages), stderr);
        sb_clear(&job->messages);
    }
    if (job->pgn_error) c->pgn_errors++;
    if (job->matched) {
        c->matches++;
        if (showmatches) printf("<%ld>\n", job->raw.number);
        if (fwrite(job->out.data, 1, job->out.len, out) != job->out.len) c->write_failed = true;
    }
    sb_clear(&job->out);
    job->matched = job->pgn_error = false;
    job->state = SLOT_EMPTY;
}

/* Reads the next game into job; false at the end of the input or range.
 * Messages about the text before the game (skipped junk) go with the job, so
 * that they come out in input order; at the end they are printed at once. */
static bool read_job(PgnReader *r, const Search *s, GameJob *job, RunCounts *c)
{
    if (s->gamenumber.set && r->games >= s->gamenumber.max) return false;
    DiagSink sink, *saved = r->diag;
    diag_sink_init(&sink, capture_message, &job->messages);
    r->diag = &sink;
    bool got = pgn_next_raw(r, &job->raw);
    r->diag = saved;
    if (!got) {
        fputs(sb_str(&job->messages), stderr);
        sb_clear(&job->messages);
        return false;
    }
    c->games++;
    job->examined = !s->gamenumber.set || job->raw.number >= s->gamenumber.min;
    return true;
}

static void run_games(PgnReader *r, const Search *s, long threads, FILE *out,
                      bool showmatches, RunCounts *c)
{
    if (threads <= 1) {
        Worker w = {s, {0}};
        arena_init(&w.arena, 256 * 1024);
        GameJob job;
        memset(&job, 0, sizeof job);
        raw_game_init(&job.raw);
        while (read_job(r, s, &job, c)) {
            if (job.examined) search_game(&w, &job);
            emit(&job, out, showmatches, c);
        }
        raw_game_free(&job.raw);
        sb_free(&job.out);
        sb_free(&job.messages);
        arena_free(&w.arena);
        return;
    }

    Pipeline p;
    memset(&p, 0, sizeof p);
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.work_ready, NULL);
    pthread_cond_init(&p.work_done, NULL);
    p.nslots = threads * 8;
    p.slots = xcalloc((size_t)p.nslots, sizeof *p.slots);
    p.search = s;
    pthread_t *tids = xcalloc((size_t)threads, sizeof *tids);
    for (long i = 0; i < threads; i++) pthread_create(&tids[i], NULL, worker_main, &p);

    long next_emit = 0;
    bool input_left = true;
    pthread_mutex_lock(&p.mu);
    for (;;) {
        GameJob *head = &p.slots[next_emit % p.nslots];
        if (next_emit < p.next_read && head->state == SLOT_DONE) {
            pthread_mutex_unlock(&p.mu);
            emit(head, out, showmatches, c);
            pthread_mutex_lock(&p.mu);
            next_emit++;
            continue;
        }
        GameJob *tail = &p.slots[p.next_read % p.nslots];
        if (input_left && tail->state == SLOT_EMPTY && p.next_read - next_emit < p.nslots) {
            pthread_mutex_unlock(&p.mu);
            input_left = read_job(r, s, tail, c);
            pthread_mutex_lock(&p.mu);
            if (input_left) {
                tail->state = SLOT_READY;
                p.next_read++;
                pthread_cond_signal(&p.work_ready);
            } else {
                p.input_done = true;
                pthread_cond_broadcast(&p.work_ready);
            }
            continue;
        }
        if (!input_left && next_emit == p.next_read) break;
        pthread_cond_wait(&p.work_done, &p.mu);
    }
    pthread_mutex_unlock(&p.mu);
    for (long i = 0; i < threads; i++) pthread_join(tids[i], NULL);
    for (long i = 0; i < p.nslots; i++) {
        raw_game_free(&p.slots[i].raw);
        sb_free(&p.slots[i].out);
        sb_free(&p.slots[i].messages);
    }
    free(p.slots);
    free(tids);
    pthread_cond_destroy(&p.work_ready);
    pthread_cond_destroy(&p.work_done);
    pthread_mutex_destroy(&p.mu);
}

/* ==== files ================================================================ */

static char *read_file(const char *path, size_t *len, DiagSink *d)
{
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!fp) {
        diag_plain(d, DIAG_ERROR, "cannot open query file '%s': %s", path, strerror(errno));
        return NULL;
    }
    StrBuf sb = SB_INIT;
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0) sb_append_n(&sb, chunk, got);
    bool failed = ferror(fp);
    if (fp != stdin) fclose(fp);
    if (failed) {
        diag_plain(d, DIAG_ERROR, "error reading query file '%s'", path);
        sb_free(&sb);
        return NULL;
    }
    *len = sb.len;
    return sb_take(&sb);
}

/* "dir/query.cql" -> "dir/query-out.pgn" */
static char *default_output_name(const char *query_file)
{
    StrBuf sb = SB_INIT;
    const char *base = query_file ? query_file : "cqldefault.cql";
    size_t n = strlen(base);
    const char *slash = strrchr(base, '/');
    const char *dot = strrchr(base, '.');
    if (dot && (!slash || dot > slash)) n = (size_t)(dot - base);
    sb_append_n(&sb, base, n);
    sb_append(&sb, "-out.pgn");
    return sb_take(&sb);
}

/* The output file: written under a temporary name, renamed by output_commit. */
typedef struct Output {
    FILE *fp;
    const char *name;       /* final name ("-" = stdout) */
    char *tmp_name;         /* NULL for stdout */
} Output;

static int output_open(Output *o, const char *name, const char *input, DiagSink *d)
{
    o->name = name;
    o->tmp_name = NULL;
    if (strcmp(name, "-") == 0) {
        o->fp = stdout;
        return 0;
    }
    struct stat in_st, out_st;
    if (input && strcmp(input, "-") != 0 && stat(input, &in_st) == 0 &&
        stat(name, &out_st) == 0 && in_st.st_dev == out_st.st_dev &&
        in_st.st_ino == out_st.st_ino) {
        diag_plain(d, DIAG_ERROR, "refusing to write the output over the input file '%s'", name);
        return -1;
    }
    StrBuf tmp = SB_INIT;
    const char *slash = strrchr(name, '/');
    if (slash) sb_append_n(&tmp, name, (size_t)(slash - name) + 1);
    sb_printf(&tmp, ".%s.XXXXXX", slash ? slash + 1 : name);
    o->tmp_name = sb_take(&tmp);
    int fd = mkstemp(o->tmp_name);
    if (fd < 0 || !(o->fp = fdopen(fd, "wb"))) {
        diag_plain(d, DIAG_ERROR, "cannot write output file '%s': %s", name, strerror(errno));
        if (fd >= 0) close(fd);
        free(o->tmp_name);
        o->tmp_name = NULL;
        return -1;
    }
    fchmod(fd, 0644 & ~(mode_t)0);
    setvbuf(o->fp, NULL, _IOFBF, 1 << 20);
    return 0;
}

/* Closes the output; renames it into place when ok, else removes it. */
static int output_commit(Output *o, bool ok, DiagSink *d)
{
    if (!o->fp) return -1;
    if (o->fp == stdout) {
        if (fflush(stdout) != 0) ok = false;
        return ok ? 0 : -1;
    }
    if (fclose(o->fp) != 0) {
        diag_plain(d, DIAG_ERROR, "cannot write output file '%s': %s", o->name, strerror(errno));
        ok = false;
    }
    o->fp = NULL;
    if (ok && rename(o->tmp_name, o->name) != 0) {
        diag_plain(d, DIAG_ERROR, "cannot rename '%s' to '%s': %s", o->tmp_name, o->name,
                   strerror(errno));
        ok = false;
    }
    if (!ok) remove(o->tmp_name);
    free(o->tmp_name);
    o->tmp_name = NULL;
    return ok ? 0 : -1;
}

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

/* ==== the run ============================================================== */

ExitCode run(const CliOptions *o, DiagSink *d)
{
    att_init();
    if (o->help) {
        cli_print_help(stdout);
        return EXIT_RAN;
    }
    if (o->version) {
        cli_print_version(stdout);
        return EXIT_RAN;
    }

    /* the query */
    size_t qlen = 0;
    char *qtext;
    if (o->query_file) {
        qtext = read_file(o->query_file, &qlen, d);
        if (!qtext) return EXIT_USAGE;
    } else {
        StrBuf sb = SB_INIT;
        for (int i = 0; i < o->cql_count; i++) sb_printf(&sb, "%s\n", o->cql[i]);
        qtext = sb_take(&sb);
    }
    if (!query_is_true(qtext)) {
        diag_plain(d, DIAG_ERROR,
                   "this build of cql evaluates only the query 'cql() true' (the query language is not built yet)");
        free(qtext);
        return EXIT_QUERY;
    }
    free(qtext);

    Search s;
    memset(&s, 0, sizeof s);
    s.matchstring = o->matchstring ? o->matchstring : "CQL";
    s.variations = o->variations;
    s.silent = o->silent;
    s.noheader = o->noheader;
    s.matchcount = o->matchcount;
    s.gamenumber = o->gamenumber;
    s.result = o->result;

    if (!o->input) {
        diag_plain(d, DIAG_ERROR, "no input: give a PGN file with -i FILE ('-' for standard input)");
        return EXIT_USAGE;
    }
    const char *input = o->input;
    char *default_out = NULL;
    const char *output = o->output;
    if (!output) output = default_out = default_output_name(o->query_file);

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);

    PgnReader reader;
    if (pgn_open(&reader, input, d) != 0) {
        free(default_out);
        return EXIT_USAGE;
    }
    s.input_name = reader.name;
    Output out;
    if (output_open(&out, output, input, d) != 0) {
        pgn_close(&reader);
        free(default_out);
        return EXIT_USAGE;
    }
    long threads = o->singlethreaded ? 1 : o->threads ? o->threads : default_threads();

    RunCounts counts = {0};
    run_games(&reader, &s, threads, out.fp, o->showmatches, &counts);
    bool read_failed = reader.io_error;
    pgn_close(&reader);
    if (counts.write_failed)
        diag_plain(d, DIAG_ERROR, "cannot write output file '%s'", output);
    bool ok = !counts.write_failed && !read_failed;
    if (output_commit(&out, ok, d) != 0) ok = false;

    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    FILE *summary = strcmp(output, "-") == 0 ? stderr : stdout;
    if (counts.pgn_errors)
        diag_plain(d, DIAG_WARNING, "%ld of %ld games had PGN errors (see the messages above)",
                   counts.pgn_errors, counts.games);
    fprintf(summary, "%ld match%s of %ld game%s in ", counts.matches,
            counts.matches == 1 ? "" : "es", counts.games, counts.games == 1 ? "" : "s");
    print_seconds(summary, secs);
    fprintf(summary, " seconds using %ld thread%s to %s\n", threads, threads == 1 ? "" : "s",
            strcmp(output, "-") == 0 ? "<stdout>" : output);
    fflush(summary);
    free(default_out);
    if (!ok) return EXIT_USAGE;
    if (o->strict && counts.pgn_errors) return EXIT_PGN_STRICT;
    return EXIT_RAN;
}
