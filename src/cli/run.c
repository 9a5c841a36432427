/*
 * src/cli/run.c — the game loop: query in, games through, matches out.
 *
 * The calling thread reads game texts into a ring of job slots and emits
 * finished slots in input order; workers take ready slots, parse and search
 * them, and leave the PGN text of a matching game (and any messages about the
 * game) in the slot. With one worker everything runs on the calling thread.
 * The output goes through output_file.c, which never replaces what the
 * output name is; the first failed write stops the run.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/run.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/strbuf.h"
#include "chess/attacks.h"
#include "cli/output_file.h"
#include "eval/eval.h"
#include "pgn/game.h"
#include "pgn/reader.h"
#include "pgn/writer.h"
#include "query/compile.h"
#include "query/transform.h"

/* ==== one game ============================================================= */

typedef enum SlotState { SLOT_EMPTY, SLOT_READY, SLOT_BUSY, SLOT_DONE } SlotState;

typedef struct GameJob {
    RawGame raw;
    StrBuf out;          /* PGN of the game when it matched */
    StrBuf messages;     /* diagnostics about the game, in order */
    StrBuf printed;      /* what `message` filters printed */
    bool matched;
    bool pgn_error;
    bool examined;       /* inside the gamenumber range */
    int64_t sort_value;
    size_t text_bytes;   /* length of the game's text when it was read */
    SlotState state;
} GameJob;

typedef struct Worker {
    const Search *search;
    Evaluator *eval;
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
    const char *r = game_result(g);
    return r && strcmp(r, s->result) == 0;
}

bool search_matches(const Search *s, Evaluator *ev, const Game *g, Arena *a, GameSearch *found,
                    StrBuf *printed)
{
    memset(found, 0, sizeof *found);
    if (s->gamenumber.set && (g->number < s->gamenumber.min || g->number > s->gamenumber.max))
        return false;
    if (!result_matches(s, g)) return false;
    eval_game(ev, g, a, found, printed);
    return found->matched_positions >= s->matchcount_min &&
           found->matched_positions <= s->matchcount_max;
}

static void worker_init(Worker *w, const Search *s)
{
    w->search = s;
    w->eval = eval_new(s->query, &s->eval);
    arena_init(&w->arena, 256 * 1024);
}

static void worker_free(Worker *w)
{
    eval_free(w->eval);
    arena_free(&w->arena);
}

/* The comment written before the first move of a matching game: "Game
 * number N", the sort value, then the initial position's own note. */
static const char *search_header_note(const Search *s, const Game *g, const GameSearch *found,
                                      const char *root_note, Arena *a)
{
    if (s->eval.silent) return NULL;
    StrBuf head = SB_INIT;
    if (!s->noheader) sb_printf(&head, "Game number %ld", g->number);
    if (s->sort_by_matchcount)
        sb_printf(&head, "%smatchcount: %ld", head.len ? "  " : "", found->matched_positions);
    else if (found->has_sort_value)
        sb_printf(&head, "%s%s: %lld", head.len ? "  " : "", found->sort_doc ? found->sort_doc : "sort",
                  (long long)found->sort_value);
    if (root_note) sb_printf(&head, "%s%s", head.len ? " " : "", root_note);
    const char *text = head.len ? arena_strdup(a, sb_str(&head)) : NULL;
    sb_free(&head);
    return text;
}

void search_write_game(const Search *s, const Game *g, GameSearch *found, Arena *a, StrBuf *out)
{
    found->notes[0] = search_header_note(s, g, found, found->notes[0], a);
    PgnAnnotations ann = {found->notes, found->set_tags, found->nset_tags};
    pgn_write_game(g, &ann, out);
}

static void search_game(Worker *w, GameJob *job)
{
    const Search *s = w->search;
    DiagSink sink;
    diag_sink_init(&sink, capture_message, &job->messages);
    Game g;
    PgnParseStatus st = pgn_parse_game(&job->raw, s->input_name, &w->arena, &g, &sink);
    raw_game_trim(&job->raw);   /* the tree holds copies: a big game's text can go now */
    job->pgn_error = st != PGN_OK;
    if (st == PGN_UNUSABLE) {
        arena_reset(&w->arena);
        return;
    }
    GameSearch found;
    job->matched = search_matches(s, w->eval, &g, &w->arena, &found, &job->printed);
    if (job->matched) {
        job->sort_value = s->sort_by_matchcount ? found.matched_positions : found.sort_value;
        search_write_game(s, &g, &found, &w->arena, &job->out);
    }
    arena_reset(&w->arena);
}

/* ==== writing results in input order ======================================== */

/* A matched game kept for sorting. */
typedef struct SortedGame {
    int64_t value;
    long number;
    char *text;
} SortedGame;

/* Where finished games go, and the totals of a run. */
typedef struct Emitter {
    OutputFile *out;
    FILE *notes;                 /* where -showmatches and `message` print: stdout, or
                                    stderr when the games go to standard output */
    bool showmatches;
    bool sort_min;               /* `sort min`: smallest value first */
    bool sorting;
    SortedGame *sorted;
    size_t nsorted, sorted_cap;
    long games;                  /* games read */
    long matches;                /* games written */
    long pgn_errors;             /* games with a problem in their PGN */
} Emitter;

/* True once a write to the output failed: the run stops reading. */
static bool emit_failed(const Emitter *e)
{
    return e->out->error != 0;
}

static void emit(Emitter *e, GameJob *job)
{
    if (job->messages.len) {
        fputs(sb_str(&job->messages), stderr);
        sb_clear(&job->messages);
    }
    if (job->printed.len) {
        fputs(sb_str(&job->printed), e->notes);
        sb_clear(&job->printed);
    }
    if (job->pgn_error) e->pgn_errors++;
    if (job->matched && !emit_failed(e)) {
        e->matches++;
        if (e->showmatches) fprintf(e->notes, "<%ld>\n", job->raw.number);
        if (e->sorting) {
            if (e->nsorted == e->sorted_cap) {
                e->sorted_cap = e->sorted_cap ? 2 * e->sorted_cap : 64;
                e->sorted = xrealloc(e->sorted, e->sorted_cap * sizeof *e->sorted);
            }
            e->sorted[e->nsorted++] = (SortedGame){job->sort_value, job->raw.number, sb_take(&job->out)};
        } else {
            output_write(e->out, job->out.data, job->out.len);
        }
    }
    sb_clear(&job->out);
    job->matched = job->pgn_error = false;
    job->state = SLOT_EMPTY;
}

static int by_value_desc(const void *a, const void *b)
{
    const SortedGame *x = a, *y = b;
    if (x->value != y->value) return x->value > y->value ? -1 : 1;
    return x->number < y->number ? -1 : x->number > y->number;   /* stable: input order */
}

static int by_value_asc(const void *a, const void *b)
{
    const SortedGame *x = a, *y = b;
    if (x->value != y->value) return x->value < y->value ? -1 : 1;
    return x->number < y->number ? -1 : x->number > y->number;
}

/* Writes the games kept for sorting, best first. */
static void emit_sorted(Emitter *e)
{
    if (e->nsorted)   /* qsort wants an array, even of nothing */
        qsort(e->sorted, e->nsorted, sizeof *e->sorted, e->sort_min ? by_value_asc : by_value_desc);
    for (size_t i = 0; i < e->nsorted; i++) {
        output_write(e->out, e->sorted[i].text, strlen(e->sorted[i].text));
        free(e->sorted[i].text);
    }
    free(e->sorted);
    e->sorted = NULL;
    e->nsorted = 0;
}

static void job_free(GameJob *job)
{
    raw_game_free(&job->raw);
    sb_free(&job->out);
    sb_free(&job->messages);
    sb_free(&job->printed);
}

/* A slot's output buffer larger than this is released before the slot is reused. */
#define JOB_KEEP_CAPACITY ((size_t)1 << 20)

/* Reads the next game into job; false at the end of the input or range.
 * Messages about the text before the game (skipped junk) go with the job, so
 * that they come out in input order; at the end they are printed at once. */
static bool read_job(PgnReader *r, const Search *s, GameJob *job, Emitter *e)
{
    if (s->gamenumber.set && r->games >= s->gamenumber.max) return false;
    if (job->out.cap > JOB_KEEP_CAPACITY) sb_free(&job->out);   /* left by a big game */
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
    e->games++;
    job->examined = !s->gamenumber.set || job->raw.number >= s->gamenumber.min;
    return true;
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

enum { WORKER_BATCH = 32 };   /* games a worker takes from the ring at once */

/* Game text the ring may hold before the reader waits for games to be
 * written (one game is always let in, however long): with a few huge games
 * memory stays near this, not the slot count times the size of a game. */
#define RING_TEXT_BUDGET ((size_t)32 << 20)

static void *worker_main(void *arg)
{
    Pipeline *p = arg;
    Worker w;
    worker_init(&w, p->search);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->next_take == p->next_read && !p->input_done)
            pthread_cond_wait(&p->work_ready, &p->mu);
        if (p->next_take == p->next_read) break;
        /* a run of games at once: one wake-up of the writing thread per
         * batch, not per game (a game takes only microseconds) */
        long first = p->next_take;
        long count = p->next_read - first < WORKER_BATCH ? p->next_read - first : WORKER_BATCH;
        p->next_take += count;
        for (long i = 0; i < count; i++) p->slots[(first + i) % p->nslots].state = SLOT_BUSY;
        pthread_mutex_unlock(&p->mu);
        for (long i = 0; i < count; i++) {
            GameJob *job = &p->slots[(first + i) % p->nslots];
            if (job->examined) search_game(&w, job);
        }
        pthread_mutex_lock(&p->mu);
        for (long i = 0; i < count; i++) p->slots[(first + i) % p->nslots].state = SLOT_DONE;
        pthread_cond_broadcast(&p->work_done);
    }
    pthread_mutex_unlock(&p->mu);
    worker_free(&w);
    return NULL;
}

/* One thread: read, search and write each game in turn. Returns the
 * evaluator so that persistent variables can be printed. */
static void run_single(PgnReader *r, const Search *s, Emitter *e, StrBuf *persistent)
{
    Worker w;
    worker_init(&w, s);
    GameJob job;
    memset(&job, 0, sizeof job);
    raw_game_init(&job.raw);
    while (!emit_failed(e) && read_job(r, s, &job, e)) {
        if (job.examined) search_game(&w, &job);
        emit(e, &job);
    }
    eval_print_persistent(w.eval, persistent);
    job_free(&job);
    worker_free(&w);
}

static void run_threads(PgnReader *r, const Search *s, long threads, Emitter *e)
{
    Pipeline p;
    memset(&p, 0, sizeof p);
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.work_ready, NULL);
    pthread_cond_init(&p.work_done, NULL);
    p.nslots = threads * WORKER_BATCH * 4;
    p.slots = xcalloc((size_t)p.nslots, sizeof *p.slots);
    p.search = s;
    pthread_t *tids = xcalloc((size_t)threads, sizeof *tids);
    for (long i = 0; i < threads; i++) pthread_create(&tids[i], NULL, worker_main, &p);

    long next_emit = 0;
    bool input_left = true;
    size_t text_in_ring = 0;     /* game text read and not yet written */
    pthread_mutex_lock(&p.mu);
    for (;;) {
        GameJob *head = &p.slots[next_emit % p.nslots];
        if (next_emit < p.next_read && head->state == SLOT_DONE) {
            pthread_mutex_unlock(&p.mu);
            text_in_ring -= head->text_bytes;
            emit(e, head);
            pthread_mutex_lock(&p.mu);
            next_emit++;
            continue;
        }
        GameJob *tail = &p.slots[p.next_read % p.nslots];
        if (input_left && tail->state == SLOT_EMPTY && p.next_read - next_emit < p.nslots &&
            (text_in_ring < RING_TEXT_BUDGET || p.next_read == next_emit)) {
            pthread_mutex_unlock(&p.mu);
            input_left = !emit_failed(e) && read_job(r, s, tail, e);
            pthread_mutex_lock(&p.mu);
            if (input_left) {
                tail->text_bytes = tail->raw.text.len;
                text_in_ring += tail->text_bytes;
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
    for (long i = 0; i < p.nslots; i++) job_free(&p.slots[i]);
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
    /* no further than just past the limit (the query may be /dev/zero) */
    while (sb.len <= QUERY_MAX_BYTES && (got = fread(chunk, 1, sizeof chunk, fp)) > 0) sb_append_n(&sb, chunk, got);
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

/* ==== the query ============================================================ */

/* Joins the -cql texts, one per line. */
static char *joined_cql(const CliOptions *o)
{
    StrBuf sb = SB_INIT;
    for (int i = 0; i < o->cql_count; i++) sb_printf(&sb, "%s\n", o->cql[i]);
    return sb_take(&sb);
}

/* The command-line transforms (-flip ...), each wrapping the whole body. */
static const struct {
    size_t flag;   /* offset of the option's bool in CliOptions */
    unsigned transform;
} transform_options[] = {
    {offsetof(CliOptions, flip), QX_FLIP},
    {offsetof(CliOptions, flipcolor), QX_FLIPCOLOR},
    {offsetof(CliOptions, shift), QX_SHIFT},
    {offsetof(CliOptions, reversecolor), QX_REVERSECOLOR},
    {offsetof(CliOptions, fliphorizontal), QX_FLIPHORIZONTAL},
    {offsetof(CliOptions, flipvertical), QX_FLIPVERTICAL},
    {offsetof(CliOptions, rotate90), QX_ROTATE90},
    {offsetof(CliOptions, rotate45), QX_ROTATE45},
    {offsetof(CliOptions, shifthorizontal), QX_SHIFTHORIZONTAL},
    {offsetof(CliOptions, shiftvertical), QX_SHIFTVERTICAL},
};

/* Compiles the query: the file, or the -cql texts alone (a body), or the
 * -cql texts placed before the file's body. The transform pass runs unless
 * the orbits are to be printed. NULL after reporting. */
static Query *load_query(const CliOptions *o, DiagSink *d, ExitCode *rc)
{
    *rc = EXIT_QUERY;
    CompileOptions opt = {.expand = !o->dump_orbit};
    for (size_t i = 0; i < sizeof transform_options / sizeof transform_options[0]; i++)
        if (*(const bool *)((const char *)o + transform_options[i].flag)) opt.transforms |= transform_options[i].transform;
    char *cql = joined_cql(o);
    Query *q = NULL;
    if (!o->query_file) {
        SourceText src = {"-cql", cql, strlen(cql)};
        opt.body_only = true;
        q = query_compile(&src, &opt, d);
    } else {
        size_t len = 0;
        char *text = read_file(o->query_file, &len, d);
        if (text) {
            SourceText src = {o->query_file, text, len};
            opt.preamble = o->cql_count > 0 ? cql : NULL;
            q = query_compile(&src, &opt, d);
        } else {
            *rc = EXIT_USAGE;
        }
        free(text);
    }
    free(cql);
    return q;
}

static bool has_sort(const Node *n, void *ctx)
{
    if (n->kind == ND_SORT) *(bool *)ctx = true;
    return true;
}

void search_init(Search *s, const CliOptions *o, const Query *q)
{
    const QueryHeader *h = &q->header;
    memset(s, 0, sizeof *s);
    s->query = q;
    s->eval.matchstring = o->matchstring ? o->matchstring
                          : (h->present & QH_MATCHSTRING) ? h->matchstring : "CQL";
    s->eval.variations = !o->mainline && (o->variations || (h->present & QH_VARIATIONS));
    s->eval.silent = o->silent || (h->present & QH_SILENT);
    s->eval.alwayscomment = o->alwayscomment;
    if (o->quiet || (h->present & QH_QUIET)) s->eval.matchstring = "";
    s->noheader = o->noheader;
    s->matchcount_min = 1;
    s->matchcount_max = INT64_MAX;
    if (o->matchcount.set) {
        s->matchcount_min = o->matchcount.min;
        s->matchcount_max = o->matchcount.max;
    } else if (h->present & (QH_MATCHCOUNT | QH_SORT_MATCHCOUNT)) {
        s->matchcount_min = h->matchcount_min;
        s->matchcount_max = h->matchcount_max;
    }
    s->sort_by_matchcount = (h->present & QH_SORT_MATCHCOUNT) != 0;
    if (o->gamenumber.set) {
        s->gamenumber = o->gamenumber;
    } else if (h->present & QH_GAMENUMBER) {
        s->gamenumber.set = true;
        s->gamenumber.min = (long)h->gamenumber_min;
        s->gamenumber.max = h->gamenumber_max > LONG_MAX ? LONG_MAX : (long)h->gamenumber_max;
    }
    s->result = o->result ? o->result : (h->present & QH_RESULT) ? h->result : NULL;
    bool sorted = false;
    ast_walk(q->body, has_sort, &sorted);
    s->sorting = sorted || s->sort_by_matchcount;
}

/* ==== the run ============================================================== */

/* --dump-orbit (before the transform pass), -parse, -a, -u: print the query and stop. */
static ExitCode print_query(const CliOptions *o, const Query *q)
{
    StrBuf sb = SB_INIT;
    if (o->dump_orbit) xf_write_orbits(q, &sb);
    else if (o->parse) ast_dump(q, &sb);
    else ast_write_source(q, o->to_unicode, &sb);
    if (sb.len) fwrite(sb.data, 1, sb.len, stdout);   /* all of it: a comment may hold a NUL byte */
    sb_free(&sb);
    return EXIT_RAN;
}

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

    ExitCode rc;
    Query *q = load_query(o, d, &rc);
    if (!q) return rc;
    if (o->dump_orbit || o->parse || o->to_ascii || o->to_unicode) {
        rc = print_query(o, q);
        query_free(q);
        return rc;
    }
    if (!eval_check_supported(q, d)) {
        query_free(q);
        return EXIT_QUERY;
    }

    Search s;
    search_init(&s, o, q);

    /* -fen: one game holding just that position */
    char *fen_game = NULL;
    FILE *fen_stream = NULL;
    const char *input = o->input ? o->input : (q->header.present & QH_INPUT) ? q->header.input : NULL;
    if (o->fen) {
        Position pos;
        FenError err;
        if (pos_from_fen(&pos, o->fen, &err) != 0) {
            diag_plain(d, DIAG_ERROR, "bad -fen position (field %d, column %d): %s", err.field,
                       err.column, err.message);
            query_free(q);
            return EXIT_USAGE;
        }
        StrBuf sb = SB_INIT;
        sb_printf(&sb, "[SetUp \"1\"]\n[FEN \"%s\"]\n\n*\n", o->fen);
        fen_game = sb_take(&sb);
        fen_stream = fmemopen(fen_game, strlen(fen_game), "rb");
        input = NULL;
    }
    if (!input && !fen_stream) {
        diag_plain(d, DIAG_ERROR, "no input: give a PGN file with -i FILE ('-' for standard input)");
        query_free(q);
        return EXIT_USAGE;
    }
    char *default_out = NULL;
    const char *output = o->output ? o->output
                         : (q->header.present & QH_OUTPUT) ? q->header.output
                         : (default_out = default_output_name(o->query_file));

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);

    PgnReader reader;
    if (fen_stream) {
        pgn_open_stream(&reader, fen_stream, "-fen", d);
    } else if (pgn_open(&reader, input, d) != 0) {
        free(default_out);
        query_free(q);
        return EXIT_USAGE;
    }
    s.input_name = reader.name;
    if (o->max_game_size) reader.max_game_size = o->max_game_size;
    OutputFile out;
    if (output_open(&out, output, fen_stream ? NULL : input, d) != 0) {
        pgn_close(&reader);
        if (fen_stream) fclose(fen_stream);
        free(fen_game);
        free(default_out);
        query_free(q);
        return EXIT_USAGE;
    }
    long threads = o->singlethreaded ? 1 : o->threads ? o->threads : default_threads();
    if (eval_needs_order(q)) threads = 1;

    Emitter e;
    memset(&e, 0, sizeof e);
    e.out = &out;
    bool games_on_stdout = output_is_standard_output(&out);
    e.notes = games_on_stdout ? stderr : stdout;
    e.showmatches = o->showmatches;
    e.sorting = s.sorting;
    StrBuf persistent = SB_INIT;
    if (threads <= 1) run_single(&reader, &s, &e, &persistent);
    else run_threads(&reader, &s, threads, &e);
    if (e.sorting) emit_sorted(&e);
    bool read_failed = reader.io_error;
    pgn_close(&reader);
    if (fen_stream) fclose(fen_stream);
    free(fen_game);
    bool ok = output_close(&out, !read_failed, d) == 0;

    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    FILE *summary = games_on_stdout ? stderr : stdout;
    if (e.pgn_errors)
        diag_plain(d, DIAG_WARNING, "%ld of %ld games had PGN errors (see the messages above)",
                   e.pgn_errors, e.games);
    if (!ok) {
        /* no summary line: tools that read it must not take the run for a success */
        diag_plain(d, DIAG_ERROR, "the run stopped after %ld games; %s", e.games,
                   strcmp(output, "-") == 0 ? "the output is incomplete"
                                            : "the output file was not written");
        sb_free(&persistent);
        free(default_out);
        query_free(q);
        return EXIT_USAGE;
    }
    fprintf(summary, "%ld match%s of %ld game%s in ", e.matches, e.matches == 1 ? "" : "es",
            e.games, e.games == 1 ? "" : "s");
    print_seconds(summary, secs);
    fprintf(summary, " seconds using %ld thread%s to %s\n", threads, threads == 1 ? "" : "s",
            strcmp(output, "-") == 0 ? "<stdout>" : output);
    fputs(sb_str(&persistent), summary);
    fflush(summary);
    sb_free(&persistent);
    free(default_out);
    query_free(q);
    if (o->strict && e.pgn_errors) return EXIT_PGN_STRICT;
    return EXIT_RAN;
}
