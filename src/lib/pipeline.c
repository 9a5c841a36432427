/*
 * src/lib/pipeline.c — the engine of a run: its inputs, a reading and
 * handing-over thread, a ring of slots of input and worker threads that
 * split and search them (see pipeline.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "lib/pipeline.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/indexed.h"
#include "lib/lib_int.h"

/* {==== one game ============================================================= */

/* What searching one game with one query of the run left. */
typedef struct QueryJob {
    CqlText out;         /* PGN of the game when it matched */
    CqlText printed;     /* what `message` filters printed */
    CqlText error;       /* a runtime error that stops the query (cql_search) */
    CqlText stop;        /* the report of a stop, as keep_message keeps messages */
    CqlText positions;   /* its matched positions when asked for (lib_matched_positions) */
    CqlText tags;        /* and its tags (lib_match_tags) */
    CqlText strings;     /* and their texts */
    CqlText sort_key;    /* a matching game's, when the query sorts (CqlGameResult.sort_key) */
    bool examined;       /* inside the query's gamenumber range */
    IndexedOutcome indexed;  /* what its input's sidecar made of it for this query (lib/indexed.h) */
    bool matched;
    bool stopped;        /* the query stopped at this game (CqlGameResult.stopped) */
} QueryJob;

typedef struct GameJob {
    CqlGameText *text;
    int input;           /* which input of the run it is from */
    long index;          /* its number within that input */
    CqlText messages;    /* diagnostics about the game, in order (keep_message) */
    bool pgn_error;
    size_t text_bytes;   /* length of the game's text when it was read */
    QueryJob *queries;   /* one per query of the run */
    int nqueries;
    bool asked;          /* its input's sidecar was asked about it before it was read (skip_game) */
} GameJob;

typedef struct Worker {
    const CqlRun *run;
    CqlSearcher **searchers;   /* one per query */
    LibGate gate;              /* the game read once for all of them */
    bool *active;              /* for the current game: the queries that search it */
    CqlGame *game;             /* the current game's tree, replaced by the next */
} Worker;

/* Keeps a message about a job's game for later: its severity as one digit,
 * then its text with the terminating NUL, record after record. */
static void keep_message(void *ctx, CqlSeverity sev, const char *text)
{
    char severity = (char)('0' + sev);
    cql_text_append(ctx, &severity, 1);
    cql_text_append(ctx, text, strlen(text) + 1);
}

/* Moves the messages kept in *from to the end of *to. */
static void move_messages(CqlText *to, CqlText *from)
{
    if (from->len) cql_text_append(to, from->data, from->len);
    cql_text_clear(from);
}

/* Is game `number` inside the query's game-number range (or is there none)? */
static bool in_gamenumber_range(CqlRange wanted, long number)
{
    return !wanted.set || (number >= wanted.min && number <= wanted.max);
}

/* Passes the messages kept by keep_message on to m, in order. */
static void deliver_messages(CqlText *kept, CqlMessages *m)
{
    for (size_t at = 0; at < kept->len;) {
        const char *text = kept->data + at + 1;
        cql_deliver(m, (CqlSeverity)(kept->data[at] - '0'), text);
        at += strlen(text) + 2;
    }
    cql_text_clear(kept);
}

static void worker_init(Worker *w, const CqlRun *r)
{
    w->run = r;
    w->searchers = xcalloc((size_t)r->nqueries, sizeof *w->searchers);
    for (int i = 0; i < r->nqueries; i++) w->searchers[i] = cql_searcher_new(r->queries[i]->query);
    lib_gate_init(&w->gate, w->searchers, r->nqueries);
    w->active = xcalloc((size_t)r->nqueries, sizeof *w->active);
    w->game = cql_game_new();
}

static void worker_free(Worker *w)
{
    for (int i = 0; i < w->run->nqueries; i++) cql_searcher_free(w->searchers[i]);
    free(w->searchers);
    free(w->active);
    cql_game_free(w->game);
}

static void job_init(GameJob *job, int nqueries)
{
    memset(job, 0, sizeof *job);
    job->text = cql_game_text_new();
    job->queries = xcalloc((size_t)nqueries, sizeof *job->queries);
    job->nqueries = nqueries;
}

static void job_free(GameJob *job)
{
    cql_game_text_free(job->text);
    cql_text_free(&job->messages);
    for (int i = 0; i < job->nqueries; i++) {
        QueryJob *q = &job->queries[i];
        cql_text_free(&q->out);
        cql_text_free(&q->printed);
        cql_text_free(&q->error);
        cql_text_free(&q->stop);
        cql_text_free(&q->positions);
        cql_text_free(&q->tags);
        cql_text_free(&q->strings);
        cql_text_free(&q->sort_key);
    }
    free(job->queries);
}

/* Searches the game with query i, whose searcher is set for it. */
static void search_with(Worker *w, int i, QueryJob *q)
{
    CqlSearcher *s = w->searchers[i];
    CqlGameResult found;
    q->matched = cql_search(s, w->game, &found, &q->printed);
    if (found.error) cql_text_printf(&q->error, "%s\n", found.error);
    if (found.stopped) {
        q->stopped = true;
        CqlMessages messages = {keep_message, &q->stop, 0, 0};
        cql_search_report_stop(s, w->game, &messages);
    }
    if (q->matched) {
        cql_text_clear(&q->sort_key);
        if (found.sort_key_len) cql_text_append(&q->sort_key, found.sort_key, found.sort_key_len);
        if (w->run->match_positions) {   /* before the start's comment is joined to the game number's */
            lib_matched_positions(s, w->game, &q->positions, &q->strings);
            lib_match_tags(s, w->game, &q->tags, &q->strings);
        }
        cql_write_match(s, w->game, &q->out);
    }
}

/* Does query i search game `number` (its game-number range, and it still
 * wants games)? */
static bool searches_game(const CqlRun *r, int i, long number)
{
    const RunQuery *rq = r->queries[i];
    return in_gamenumber_range(cql_query_gamenumber(rq->query), number) &&
           !atomic_load_explicit(&rq->finished, memory_order_relaxed) &&
           !atomic_load_explicit(&rq->cancelled, memory_order_relaxed);
}

/* Asks the sidecar of the game's input about it, for each query that
 * searches it (t: its text as split off, or NULL before it is read): a
 * query it settles does not read the game (w->active). True when it
 * settles every one. */
static bool ask_sidecar(Worker *w, GameJob *job, long number, const CqlGameText *t)
{
    const CqlRun *r = w->run;
    const RunInput *in = &r->inputs[job->input];
    bool all = true;
    for (int i = 0; i < r->nqueries; i++) {
        const RunQuery *rq = r->queries[i];
        QueryJob *q = &job->queries[i];
        q->examined = in_gamenumber_range(cql_query_gamenumber(rq->query), number);
        w->active[i] = searches_game(r, i, number);
        q->indexed = w->active[i] && in->index ? indexed_search(rq->indexed, in, job->index, number, t,
                                                                w->searchers[i], w->game, &q->printed)
                                               : INDEXED_TEXT;
        w->active[i] &= q->indexed == INDEXED_TEXT;
        all &= !w->active[i];
    }
    job->asked = true;
    return all;
}

/* Asks the sidecar of the game's input, before the game is read, whether
 * the query's condition rules it out for every query that searches it;
 * nothing else (its search from codes is left to the worker that reads
 * it), and nothing is noted unless it does. When it does, job says so as
 * ask_sidecar would, and the watched tag filters have seen its tags. */
static bool ruled_out_for_all(Worker *w, GameJob *job, long number)
{
    const CqlRun *r = w->run;
    const RunInput *in = &r->inputs[job->input];
    for (int i = 0; i < r->nqueries; i++)
        if (searches_game(r, i, number) &&
            !indexed_ruled_out(r->queries[i]->indexed, in, job->index, number, w->searchers[i], w->game))
            return false;
    for (int i = 0; i < r->nqueries; i++) {
        QueryJob *q = &job->queries[i];
        q->examined = in_gamenumber_range(cql_query_gamenumber(r->queries[i]->query), number);
        bool searched = searches_game(r, i, number);
        q->indexed = searched ? INDEXED_RULED_OUT : INDEXED_TEXT;
        if (searched) indexed_watch_ruled_out(in, job->index, number, w->searchers[i], w->game);
    }
    job->asked = true;
    return true;
}

/* Reads the game, once, and searches it with every query that examines it,
 * still wants games and that the sidecar did not settle (none: the game is
 * not even parsed). */
static void search_game(Worker *w, GameJob *job)
{
    const CqlRun *r = w->run;
    const RunInput *in = &r->inputs[job->input];
    if (!job->asked) ask_sidecar(w, job, cql_game_text_number(job->text), job->text);
    bool any = false;
    for (int i = 0; i < r->nqueries; i++) any |= w->active[i];
    if (!any) return;
    CqlMessages messages = {keep_message, &job->messages, 0, 0};
    CqlGameStatus st = lib_parse_for(w->game, job->text, in->name, &messages, &w->gate, w->active);
    job->pgn_error = st != CQL_GAME_OK;
    if (st == CQL_GAME_UNUSABLE) return;
    for (int i = 0; i < r->nqueries; i++)
        if (w->active[i]) search_with(w, i, &job->queries[i]);
}

/* }==== */

/* {==== the inputs =========================================================== */

/* 1 + the number of line ends in the first `bytes` bytes of fd's file,
 * counted as the reader counts them (LF, CRLF, and a lone CR of an old Mac
 * file, each one: counting LFs alone put every game of a CR file in the
 * last part): the line that byte `bytes` is on; -1 when it cannot be read. */
static long line_at(int fd, uint64_t bytes)
{
    enum { BUF_BYTES = 1 << 20 };
    char *buf = xmalloc(BUF_BYTES);
    long line = 1;
    uint64_t done = 0;
    bool after_cr = false;   /* the byte before buf[0] is a CR */
    if (lseek(fd, 0, SEEK_SET) != 0) line = -1;
    while (line > 0 && done < bytes) {
        size_t want = bytes - done < BUF_BYTES ? (size_t)(bytes - done) : BUF_BYTES;
        ssize_t got = read(fd, buf, want);
        if (got <= 0) {
            line = got < 0 ? -1 : line + after_cr;
            after_cr = false;
            break;
        }
        if (after_cr && buf[0] != '\n') line++;   /* a lone CR ended the block before */
        for (const char *p = buf, *end = buf + got; (p = memchr(p, '\n', (size_t)(end - p))); p++) line++;
        if (memchr(buf, '\r', (size_t)got))
            for (ssize_t i = 0; i + 1 < got; i++) line += buf[i] == '\r' && buf[i + 1] != '\n';
        after_cr = buf[got - 1] == '\r';
        done += (uint64_t)got;
    }
    if (line > 0 && after_cr) {   /* a lone CR, unless the byte after it is a LF */
        char next;
        if (read(fd, &next, 1) != 1 || next != '\n') line++;
    }
    free(buf);
    return line;
}

/* A range input's lines: games that start on a line from the one byte
 * `from` is on to before the one byte `to` is on (0: to the end). */
static bool range_lines(CqlRun *r, RunInput *in)
{
    int fd = open(in->path, O_RDONLY);
    if (fd < 0) {
        cql_report(r->messages, CQL_ERROR, "cannot open input file '%s': %s", in->path, strerror(errno));
        return false;
    }
    in->first_line = in->from == 0 ? 0 : line_at(fd, in->from);
    in->end_line = in->to == 0 ? 0 : line_at(fd, in->to);
    close(fd);
    if (in->first_line < 0 || in->end_line < 0) {
        cql_report(r->messages, CQL_ERROR, "cannot read input file '%s'", in->path);
        return false;
    }
    return true;
}

/* The setting `part` K/N: the one input file's bytes cut in N equal
 * ranges, each moved to the start of the line it is in; part K is the
 * games that start on a line from its range's start to the next one's.
 * Every game is in one part, and the games keep their numbers in the file. */
static bool part_range(CqlRun *r)
{
    RunInput *in = r->ninputs == 1 ? &r->inputs[0] : NULL;
    struct stat st;
    if (!in || !in->path || strcmp(in->path, "-") == 0 || in->ranged || stat(in->path, &st) != 0 ||
        !S_ISREG(st.st_mode) || st.st_size == 0) {
        cql_report(r->messages, CQL_ERROR, "-part needs one uncompressed PGN file (not standard input, not a pipe)");
        return false;
    }
    for (int i = 0; i < r->nqueries; i++) {
        const CqlQuery *q = r->queries[i]->query;
        if (!cql_query_sorts(q) && !cql_query_in_order(q)) continue;
        cql_report(r->messages, CQL_ERROR, "-part cannot split %s: it %s, so its parts would not add up to "
                   "one run", r->nqueries == 1 ? "this query" : q->query->src.name, cql_query_sorts(q)
                   ? "sorts the games" : "keeps values from game to game (persistent variables or dictionaries)");
        return false;
    }
    uint64_t size = (uint64_t)st.st_size, k = (uint64_t)r->settings.part.first, n = (uint64_t)r->settings.part.second;
    in->ranged = true;
    in->from = k == 0 ? 0 : size / n * k + size % n * k / n;
    in->to = k + 1 == n ? 0 : size / n * (k + 1) + size % n * (k + 1) / n;
    return true;
}

/* Opens input `in`; messages about it go to m. False after reporting. */
static bool open_run_input(CqlRun *r, RunInput *in, CqlMessages *m)
{
    if (in->path) {
        in->reader = cql_reader_open(in->path, m);
    } else if (in->stream) {
        in->reader = cql_reader_open_stream(in->stream, in->name, m);
    } else {
        in->source_fp = in->open(in->ctx, m);
        if (in->source_fp) in->reader = cql_reader_open_stream(in->source_fp, in->name, m);
    }
    if (!in->reader) {
        in->done = true;
        return false;
    }
    if (r->settings.max_game_size) cql_reader_set_max_game_size(in->reader, (size_t)r->settings.max_game_size);
    return true;
}

/* Closes input `in`: read to its end, or not (the run stopped). A source
 * that was not complete, or a read error, fails the run. */
static void close_run_input(CqlRun *r, RunInput *in, bool read_to_end)
{
    if (in->done) return;
    in->done = true;
    if (in->reader && cql_reader_failed(in->reader)) r->read_failed = true;
    cql_reader_close(in->reader);
    in->reader = NULL;
    if (in->source_fp && !in->close(in->ctx, in->source_fp, read_to_end)) r->read_failed = true;
    in->source_fp = NULL;
}

bool pipeline_open(CqlRun *r)
{
    if (r->opened) return !r->open_failed;
    r->opened = true;
    r->open_failed = true;
    if (settings_given(&r->settings, SET_part) && !part_range(r)) return false;
    for (int i = 0; i < r->ninputs; i++)
        if (r->inputs[i].ranged && !range_lines(r, &r->inputs[i])) return false;
    if (r->ninputs > 0 && !open_run_input(r, &r->inputs[0], r->messages)) {
        r->read_failed = true;
        return false;
    }
    r->open_failed = false;
    return true;
}

void pipeline_close_inputs(CqlRun *r)
{
    for (int i = 0; i < r->ninputs; i++) close_run_input(r, &r->inputs[i], r->inputs[i].ended);
}

/* }==== */

/* {==== handing the games over in input order ================================ */

/* A matched game kept for sorting. */
typedef struct SortedGame {
    CqlText key;
    long number;
    int input;
    long index;
    CqlText text;
    CqlText positions, tags, strings;
} SortedGame;

/* What the handing over keeps for one query of the run. */
typedef struct QueryState {
    bool sorting;
    SortedGame *sorted;
    size_t nsorted, sorted_cap;
    bool past_range;     /* a game after its game-number range came: it is done */
    bool runtime_error;  /* it stopped */
} QueryState;

/* Where finished games go, the inputs being read, and the totals of a run. */
typedef struct Emitter {
    CqlRun *run;
    QueryState *queries;
    CqlSearcher **tags;  /* per query: what every worker's searcher saw of its tag filters */
    /* messages about the text after the last game (skipped junk), handed
     * over once every game is: on worker threads the reader gets there
     * before the games before it are handed over */
    CqlText trailing;
    CqlRunProgress progress;   /* games handed over, their matches (of every query), bytes */
    /* the reading thread's: the input being read, the games of those before it */
    int input;
    long input_base;
    CqlText carried;     /* messages about the end of an input, handed over with the next game */
} Emitter;

static bool cancelled(const Emitter *e)
{
    return atomic_load_explicit(&e->run->cancelled, memory_order_relaxed);
}

static bool query_cancelled(const Emitter *e, int i)
{
    return atomic_load_explicit(&e->run->queries[i]->cancelled, memory_order_relaxed);
}

/* True once `limit` matching games of query i were handed over. */
static bool limit_reached(const Emitter *e, int i)
{
    return e->run->settings.limit > 0 && e->run->queries[i]->totals.matches >= e->run->settings.limit;
}

/* True once the games still to come are as if never read for query i:
 * after its limit, its runtime error, its game-number range or a cancel. */
static bool query_done(const Emitter *e, int i)
{
    return atomic_load_explicit(&e->run->queries[i]->finished, memory_order_relaxed) || query_cancelled(e, i) ||
           cancelled(e);
}

/* Query i wants no more games: the workers stop searching for it. */
static void finish_query(Emitter *e, int i)
{
    atomic_store_explicit(&e->run->queries[i]->finished, true, memory_order_relaxed);
}

/* True once no query wants more games: the run stops reading. */
static bool run_stopped(const Emitter *e)
{
    for (int i = 0; i < e->run->nqueries; i++)
        if (!query_done(e, i)) return false;
    return true;
}

/* The last game a query that still wants games examines (its game-number
 * range): the run reads no further. LONG_MAX: a query wants every game. */
static long last_game_wanted(const Emitter *e)
{
    long last = 0;
    for (int i = 0; i < e->run->nqueries; i++) {
        if (query_done(e, i)) continue;
        CqlRange wanted = cql_query_gamenumber(e->run->queries[i]->query);
        if (!wanted.set) return LONG_MAX;
        if (wanted.max > last) last = wanted.max;
    }
    return last;
}

/* The reader of the input being read, opened when first needed (messages
 * about opening it go to m); NULL when every input is read, or one could
 * not be opened or read (the run then fails, and reads no further). */
static CqlReader *current_reader(Emitter *e, CqlMessages *m)
{
    CqlRun *r = e->run;
    if (e->input >= r->ninputs) return NULL;
    RunInput *in = &r->inputs[e->input];
    if (!in->reader && (in->done || !open_run_input(r, in, m))) {
        r->read_failed = true;
        e->input = r->ninputs;
        return NULL;
    }
    return in->reader;
}

/* Games read from the inputs so far. */
static long games_read(const Emitter *e)
{
    const CqlRun *r = e->run;
    const CqlReader *reader = e->input < r->ninputs ? r->inputs[e->input].reader : NULL;
    return e->input_base + (reader ? cql_reader_games(reader) : 0);
}

/* Done with the input being read: the next one is read from now on. A
 * read error ends the reading of every input. */
static void next_input(Emitter *e, bool read_to_end)
{
    CqlRun *r = e->run;
    RunInput *in = &r->inputs[e->input];
    e->input_base += in->reader ? cql_reader_games(in->reader) : 0;
    close_run_input(r, in, read_to_end);
    e->input = r->read_failed ? r->ninputs : e->input + 1;
}

/* The positions and tags kept with a game (lib_matched_positions,
 * lib_match_tags), their texts made pointers into *strings. */
static const CqlPosition *positions_of(CqlText *positions, const CqlText *strings, int *count)
{
    CqlPosition *p = (CqlPosition *)positions->data;
    *count = (int)(positions->len / sizeof *p);
    for (int i = 0; i < *count; i++) {
        p[i].san = lib_text_pointer(p[i].san, strings);
        p[i].fen = lib_text_pointer(p[i].fen, strings);
        p[i].variation = lib_text_pointer(p[i].variation, strings);
        p[i].comments = lib_text_pointer(p[i].comments, strings);
    }
    return p;
}

static const CqlTag *tags_of(CqlText *tags, const CqlText *strings, int *count)
{
    CqlTag *t = (CqlTag *)tags->data;
    *count = (int)(tags->len / sizeof *t);
    for (int i = 0; i < *count; i++) {
        t[i].name = lib_text_pointer(t[i].name, strings);
        t[i].value = lib_text_pointer(t[i].value, strings);
    }
    return t;
}

/* The texts of a matching game: its PGN, and its positions, tags and
 * their texts when asked for. */
typedef struct MatchTexts {
    CqlText *pgn, *positions, *tags, *strings;
} MatchTexts;

static void hand_over_match(Emitter *e, int query, long number, int input, long index, MatchTexts texts)
{
    CqlRun *r = e->run;
    CqlRunGame g = {.number = number, .input = r->inputs[input].name, .index = index, .examined = true,
                    .matched = true, .pgn = texts.pgn->data, .pgn_len = texts.pgn->len, .query = query};
    if (r->match_positions) {
        g.positions = positions_of(texts.positions, texts.strings, &g.npositions);
        g.tags = tags_of(texts.tags, texts.strings, &g.ntags);
    }
    r->on_match(r->match_ctx, r, &g);
}

/* A slot keeps its buffers for the next game, but not after a large game:
 * else every one of the ring's slots would in time hold buffers the size of
 * the largest game read, and memory would grow with the length of the input
 * (`check` on 2 threads over the shared PGN files repeated: 9, 19 and 43 MB
 * peak at 10k, 100k and 1M games; 9, 17 and 20 MB with a 16 KB limit). At
 * 4 KB (most games are 1-3 KB) the few hundred games of the ring hold at
 * most a few MB. */
enum { SLOT_KEEP_BYTES = 4 * 1024 };

static void release_large_buffers(GameJob *job)
{
    if (cql_game_text_size(job->text) > SLOT_KEEP_BYTES) {
        cql_game_text_free(job->text);
        job->text = cql_game_text_new();
    }
    for (int i = 0; i < job->nqueries; i++) {
        QueryJob *q = &job->queries[i];
        if (q->out.cap > SLOT_KEEP_BYTES) cql_text_free(&q->out);
        if (q->strings.cap > SLOT_KEEP_BYTES) cql_text_free(&q->strings);
        if (q->positions.cap > SLOT_KEEP_BYTES) cql_text_free(&q->positions);
        if (q->tags.cap > SLOT_KEEP_BYTES) cql_text_free(&q->tags);
    }
}

/* Readies a job for the next game: what the last one left is dropped. */
static void job_clear(GameJob *job)
{
    cql_text_clear(&job->messages);
    job->pgn_error = job->asked = false;
    for (int i = 0; i < job->nqueries; i++) {
        QueryJob *q = &job->queries[i];
        cql_text_clear(&q->printed);
        cql_text_clear(&q->error);
        cql_text_clear(&q->stop);
        cql_text_clear(&q->out);
        cql_text_clear(&q->positions);
        cql_text_clear(&q->tags);
        cql_text_clear(&q->strings);
        q->examined = q->matched = q->stopped = false;
        q->indexed = INDEXED_TEXT;
    }
    release_large_buffers(job);
}

/* The end of a batch of games handed over: the texts of its matches may
 * go once the caller is told (cql_run_on_batch_end). */
static void end_batch(Emitter *e)
{
    CqlRun *r = e->run;
    if (r->on_batch_end) r->on_batch_end(r->batch_ctx, r);
}

/* Hands game `number` over for query i, which still wants games. */
static void emit_query(Emitter *e, int i, GameJob *job, long number)
{
    CqlRun *r = e->run;
    RunQuery *rq = r->queries[i];
    QueryState *qs = &e->queries[i];
    QueryJob *q = &job->queries[i];
    rq->totals.games++;
    rq->totals.bytes += job->text_bytes;
    if (q->stopped) qs->runtime_error = true;
    deliver_messages(&q->stop, r->messages);
    if (q->error.len) {
        /* CQL 6.2 prints a runtime error where `message` prints, and stops */
        qs->runtime_error = true;
        q->matched = false;
        cql_text_append(&rq->stop_error, q->error.data, q->error.len);
    }
    if (qs->runtime_error) {
        rq->totals.stopped_at = number;
        finish_query(e, i);
    }
    bool damaged = q->examined && q->indexed == INDEXED_TEXT && job->pgn_error;   /* read for this query */
    if (damaged) rq->totals.pgn_errors++;
    rq->totals.ruled_out += q->indexed == INDEXED_RULED_OUT;
    rq->totals.from_codes += q->indexed == INDEXED_FROM_CODES || q->indexed == INDEXED_IN_PLACE;
    rq->totals.in_place += q->indexed == INDEXED_IN_PLACE;
    if (q->matched) {
        rq->totals.matches++;
        e->progress.matches++;
    }
    if (r->on_game) {
        CqlRunGame g = {.number = number, .input = r->inputs[job->input].name, .index = job->index,
                        .examined = q->examined, .damaged = damaged, .matched = q->matched,
                        .printed = q->printed.len ? q->printed.data : NULL, .printed_len = q->printed.len,
                        .error = q->error.len ? q->error.data : NULL, .query = i};
        r->on_game(r->game_ctx, r, &g);
    }
    if (q->matched && !cancelled(e) && !query_cancelled(e, i)) {
        if (qs->sorting) {
            if (qs->nsorted == qs->sorted_cap) {
                qs->sorted_cap = qs->sorted_cap ? 2 * qs->sorted_cap : 64;
                qs->sorted = xrealloc(qs->sorted, qs->sorted_cap * sizeof *qs->sorted);
            }
            qs->sorted[qs->nsorted++] = (SortedGame){q->sort_key, number, job->input, job->index, q->out,
                                                     q->positions, q->tags, q->strings};
            /* the sorted game owns them now */
            q->out = q->sort_key = q->positions = q->tags = q->strings = (CqlText){NULL, 0, 0};
        } else if (r->on_match) {
            hand_over_match(e, i, number, job->input, job->index,
                            (MatchTexts){&q->out, &q->positions, &q->tags, &q->strings});
        }
    }
    if (limit_reached(e, i)) {
        rq->totals.limit_reached = true;
        finish_query(e, i);
    }
}

/* Hands a game over; the caller clears its job (job_clear) once the batch
 * it is in has ended. */
static void emit(Emitter *e, GameJob *job)
{
    CqlRun *r = e->run;
    long number = cql_game_text_number(job->text);
    for (int i = 0; i < r->nqueries; i++) {
        CqlRange wanted = cql_query_gamenumber(r->queries[i]->query);
        if (wanted.set && number > wanted.max && !e->queries[i].past_range) {
            e->queries[i].past_range = true;
            finish_query(e, i);
        }
    }
    /* a game read ahead of the limit, after a runtime error or past the range: as if never read */
    if (run_stopped(e)) return;
    e->progress.games++;
    e->progress.bytes += job->text_bytes;
    deliver_messages(&job->messages, r->messages);
    for (int i = 0; i < r->nqueries; i++)
        if (!query_done(e, i)) emit_query(e, i, job, number);
    if (r->on_progress) r->on_progress(r->progress_ctx, &e->progress);
}

/* The order of CqlGameResult.sort_key, then input order. */
static int by_key(const void *a, const void *b)
{
    const SortedGame *x = a, *y = b;
    size_t common = x->key.len < y->key.len ? x->key.len : y->key.len;
    int order = common ? memcmp(x->key.data, y->key.data, common) : 0;
    if (order) return order;
    if (x->key.len != y->key.len) return x->key.len < y->key.len ? -1 : 1;
    return x->number < y->number ? -1 : x->number > y->number;   /* stable: input order */
}

/* Hands over the games kept for sorting by query i, best first, as one
 * batch. */
static void emit_sorted(Emitter *e, int i)
{
    QueryState *qs = &e->queries[i];
    if (qs->nsorted)   /* qsort wants an array, even of nothing */
        qsort(qs->sorted, qs->nsorted, sizeof *qs->sorted, by_key);
    for (size_t k = 0; k < qs->nsorted; k++) {
        SortedGame *g = &qs->sorted[k];
        if (!qs->runtime_error && !cancelled(e) && !query_cancelled(e, i) && e->run->on_match)
            hand_over_match(e, i, g->number, g->input, g->index,
                            (MatchTexts){&g->text, &g->positions, &g->tags, &g->strings});
    }
    end_batch(e);
    for (size_t k = 0; k < qs->nsorted; k++) {
        SortedGame *g = &qs->sorted[k];
        cql_text_free(&g->text);
        cql_text_free(&g->key);
        cql_text_free(&g->positions);
        cql_text_free(&g->tags);
        cql_text_free(&g->strings);
    }
    free(qs->sorted);
    qs->sorted = NULL;
    qs->nsorted = 0;
}

/* A game of an earlier part of a range input (read and dropped) that the
 * input's sidecar lets the reader jump over: counted as read, not read. */
static bool skip_earlier_part(const RunInput *in, CqlReader *reader)
{
    IndexedSkip skip;
    if (!in->index || in->first_line <= 1 ||
        !indexed_skip_of(in, cql_reader_games(reader) + 1, SIZE_MAX, &skip) || skip.line >= (unsigned long)in->first_line)
        return false;
    pgn_skip_game(&reader->reader, skip.next_offset, skip.next_line);
    return true;
}

/* Reads the next game into job; false at the end of the inputs or range.
 * Messages about the text before the game (skipped junk) go with the job, so
 * that they come out in input order; those at the end of an input go with
 * the next input's first game, and those at the end of the last are kept
 * in e->trailing, handed over after the last game. */
static bool read_job(Emitter *e, GameJob *job)
{
    CqlMessages messages = {keep_message, &job->messages, 0, 0};
    for (;;) {
        if (games_read(e) >= last_game_wanted(e)) return false;
        CqlReader *reader = current_reader(e, &messages);
        if (!reader) {
            move_messages(&e->carried, &job->messages);
            move_messages(&e->trailing, &e->carried);
            return false;
        }
        const RunInput *in = &e->run->inputs[e->input];
        if (skip_earlier_part(in, reader)) continue;
        if (!cql_reader_next(reader, job->text, &messages)) {
            e->run->inputs[e->input].ended = true;
            /* what is left after the last game belongs to the last part */
            if (!in->end_line) move_messages(&e->carried, &job->messages);
            cql_text_clear(&job->messages);
            next_input(e, true);
            continue;
        }
        long line = cql_game_text_line(job->text);
        if (in->end_line && line >= in->end_line) {   /* the next part's */
            cql_text_clear(&job->messages);
            next_input(e, false);
            continue;
        }
        if (line >= in->first_line) break;
        cql_text_clear(&job->messages);   /* an earlier part's game and its messages */
    }
    if (e->carried.len) {   /* the end of the input before, then this game's */
        move_messages(&e->carried, &job->messages);
        CqlText t = e->carried;
        e->carried = job->messages;
        job->messages = t;
    }
    job->input = e->input;
    job->index = cql_game_text_number(job->text);
    cql_game_text_set_number(job->text, e->input_base + job->index);
    job->text_bytes = cql_game_text_size(job->text);
    return true;
}

/* }==== */

/* {==== one thread =========================================================== */

/* Drops what the sidecar said of a game that was not the one read. */
static void forget_answers(GameJob *job)
{
    for (int i = 0; i < job->nqueries; i++) {
        cql_text_clear(&job->queries[i].printed);
        job->queries[i].indexed = INDEXED_TEXT;
    }
    job->asked = false;
}

/* With a fresh sidecar of the input being read, asked about its next game
 * before the game is read (ask_sidecar; on worker threads ruled_out_for_all,
 * which does not search it from its codes: from_codes false): when that
 * settles the game for every query that searches it (ruled out, or
 * searched from its codes and not matched), and the reader may jump over
 * it (indexed_skip_of), the game is counted as read without its text being
 * read, and job holds what its searches left. Else the game is read
 * (read_job) and searched for the queries not settled. The messages of the
 * games after a skipped one keep their lines: the reader goes on at the
 * next game's line. */
static bool skip_game(Emitter *e, Worker *w, GameJob *job, bool from_codes)
{
    CqlRun *r = e->run;
    if (e->input >= r->ninputs || e->carried.len) return false;
    RunInput *in = &r->inputs[e->input];
    if (!in->index || !in->reader) return false;
    long index = cql_reader_games(in->reader) + 1;
    long number = e->input_base + index;
    size_t max_size = r->settings.max_game_size ? (size_t)r->settings.max_game_size : PGN_DEFAULT_MAX_GAME_SIZE;
    IndexedSkip skip;
    if (number > last_game_wanted(e) || !indexed_skip_of(in, index, max_size, &skip) ||
        skip.line < (unsigned long)in->first_line || (in->end_line && skip.line >= (unsigned long)in->end_line))
        return false;
    job->input = e->input;
    job->index = index;
    if (from_codes ? !ask_sidecar(w, job, number, NULL) : !ruled_out_for_all(w, job, number)) return false;
    pgn_skip_game(&in->reader->reader, skip.next_offset, skip.next_line);
    cql_game_text_set_number(job->text, number);
    job->text_bytes = (size_t)skip.text_size;
    return true;
}

static void run_single(Emitter *e)
{
    CqlRun *r = e->run;
    Worker w;
    worker_init(&w, r);
    GameJob job;
    job_init(&job, r->nqueries);
    while (!run_stopped(e)) {
        if (!skip_game(e, &w, &job, true)) {
            int input = job.input;
            long index = job.index;
            if (!read_job(e, &job)) break;
            /* the game asked about ended its input early (the file was cut
             * while it was read): the next one is asked about anew */
            if (job.asked && (job.input != input || job.index != index)) forget_answers(&job);
            search_game(&w, &job);
        }
        emit(e, &job);
        end_batch(e);
        job_clear(&job);
    }
    for (int i = 0; i < r->nqueries; i++) {
        cql_searcher_print_persistent(w.searchers[i], &r->queries[i]->persistent);
        cql_searcher_merge_tags(e->tags[i], w.searchers[i]);
    }
    job_free(&job);
    worker_free(&w);
}

/* }==== */

/* {==== worker threads ======================================================= */

/* A slot goes EMPTY -> READY (filled) -> SPLITTING -> SPLIT -> NUMBERED
 * (its games have their numbers: all slots before it are split) ->
 * SEARCHING -> DONE -> handed over and EMPTY again, or HELD by the caller
 * (cql_run_hold_batch) and emptied once released (cql_run_release, on any
 * thread) when the reading thread comes to it. A cancelled slot goes from
 * SPLIT to DONE. */
typedef enum SlotState {
    SLOT_EMPTY, SLOT_READY, SLOT_SPLITTING, SLOT_SPLIT, SLOT_NUMBERED, SLOT_SEARCHING, SLOT_DONE, SLOT_HELD
} SlotState;

/* A piece of an input and its games, in input order: a chunk a worker
 * splits, or games the reading thread read one by one (in a range of
 * lines, after a chunk that overran, and where no chunk can be cut). */
typedef struct Slot {
    CqlChunk *chunk;        /* the piece to split (`split`), else games[0..ngames) were read */
    bool split;
    GameJob *games;
    size_t ngames, cap;
    int input;              /* the input it is a piece of */
    CqlText leading;        /* messages before its games (a read error) */
    CqlText trailing;       /* messages about the text after its last game */
    long base;              /* games of the inputs before its first */
    long input_base;        /* games of the inputs before its input */
    bool numbered;          /* its games were numbered as they were read (read_job, skip_game): input and
                               input_base are its last game's */
    bool overran;           /* its last game ran past the chunk: the input is read again from there */
    bool cancelled;         /* after a slot that overran: read again, never handed over */
    bool held;              /* held by the caller (cql_run_hold_batch), on the reading thread */
    bool released;          /* and released (under the ring's lock: the release may come
                               before the reading thread has made it HELD) */
    size_t bytes;           /* input it holds, for the ring's budget */
    SlotState state;
    int nqueries;           /* of the run: each game job's */
} Slot;

typedef struct Ring {
    pthread_mutex_t mu;
    pthread_cond_t work_ready;   /* a slot became READY or NUMBERED, or the run ends (workers wait) */
    pthread_cond_t work_done;    /* slots became DONE (the reading thread waits: worth_waking) */
    Slot *slots;
    long nslots;
    long next_emit;              /* the next slot the reading thread hands over */
    long wake_batch;             /* finished slots that make it worth waking the reading thread */
    long next_read;              /* sequence number of the next slot to fill */
    long next_take;              /* next READY slot a worker splits */
    long next_numbered;          /* next slot whose games get their numbers */
    long next_search;            /* next NUMBERED slot a worker searches */
    long games_numbered;         /* games in the slots before it */
    int numbered_input;          /* the input of the last slot numbered */
    long numbered_input_base;    /* the games of the inputs before it */
    long last_chunk;             /* the last slot read that holds a chunk (-1: none) */
    bool overrun;                /* a numbered slot overran: the ones after it are cancelled */
    /* the reading thread's: it takes chunks that the workers split, or else
     * reads the games one by one (a range, or with a sidecar that may rule
     * games out: skip_game), and how many of those it jumped over */
    bool chunks;
    bool ranged;                 /* an input is a range: games are read one by one to the end */
    long alone_games, alone_skipped;
    bool done;
    long held;                   /* slots HELD less those released (for a while -1: a
                                    release before its slot was made HELD) */
    bool draining;               /* the reading thread waits for the last of them */
    const CqlRun *run;
    CqlSearcher **tags;          /* Emitter.tags: each worker adds what it saw, at its end */
} Ring;

/* Input a worker splits at once: about 70 games of 900 bytes. Smaller
 * chunks cost more waits, each a wake-up and a switch of thread in the
 * kernel: with 32 KB, two threads with nothing to write ran 1.77-1.79 times
 * as fast as one, with 64 KB 1.84, for 0.8-1.3 MB more peak memory. */
enum { CHUNK_BYTES = 64 * 1024 };

/* Games a slot holds when the reading thread reads them one by one; with
 * the games a sidecar let it jump over, at most SLOT_SKIPPED_GAMES (`Ka1`
 * rules out 95% of engine games; each game costs a job, which a slot keeps
 * for its next piece: with 1,024, `Ka1` on two threads took 6 MB more). */
enum { SLOT_GAMES = 32, SLOT_SKIPPED_GAMES = 256 };

/* With a sidecar, the reading thread reads the games one by one and jumps
 * over those ruled out; once it has read SKIP_TRIAL_GAMES so and jumped
 * over fewer than half, it goes back to chunks, which the workers split:
 * `check` (1.5% ruled out) on two threads took 12.6% of the run's CPU time
 * on the reading thread read one by one, 5.0% in chunks. */
enum { SKIP_TRIAL_GAMES = 1024 };

/* Game text the ring may hold before the reader waits for games to be
 * handed over (one slot is always let in, however long): with a few huge
 * games memory stays near this, not the slot count times the size of a game. */
#define RING_TEXT_BUDGET ((size_t)32 << 20)

static Slot *ring_slot(const Ring *p, long seq)
{
    return &p->slots[seq % p->nslots];
}

/* The slot's i-th game job, made when first needed. */
static GameJob *slot_game(Slot *s, size_t i)
{
    if (i == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->games = xrealloc(s->games, s->cap * sizeof *s->games);
        for (size_t k = i; k < s->cap; k++) job_init(&s->games[k], s->nqueries);
    }
    return &s->games[i];
}

static void slot_free(Slot *s)
{
    for (size_t i = 0; i < s->cap; i++) job_free(&s->games[i]);
    free(s->games);
    cql_chunk_free(s->chunk);
    cql_text_free(&s->leading);
    cql_text_free(&s->trailing);
}

/* Game jobs a slot keeps for its next piece: twice as many as the piece
 * just handed over held, and at least SLOT_KEEP_GAMES, so that a piece of
 * about as many games as the one before reuses its jobs (keeping 64 made
 * and freed some 60 jobs for every chunk of 64 KB of engine games, which
 * hold about 74, freed on another thread than the one that made them); a
 * piece of far fewer games lets the rest go (else every slot would in time
 * keep buffers for the most games a piece ever held). */
enum { SLOT_KEEP_GAMES = 64 };

/* Empties a handed-over or cancelled slot for the next piece. */
static void slot_reset(Slot *s)
{
    if (s->cancelled)   /* a slot handed over was cleared then (emit_slot) */
        for (size_t i = 0; i < s->ngames; i++) job_clear(&s->games[i]);
    size_t keep = s->ngames > SLOT_KEEP_GAMES / 2 ? 2 * s->ngames : SLOT_KEEP_GAMES;
    if (s->cap > keep) {
        for (size_t i = keep; i < s->cap; i++) job_free(&s->games[i]);
        s->cap = keep;
    }
    cql_text_clear(&s->leading);
    cql_text_clear(&s->trailing);
    s->ngames = 0;
    s->split = s->numbered = s->overran = s->cancelled = s->held = s->released = false;
    s->bytes = 0;
    s->state = SLOT_EMPTY;
}

/* Splits the slot's chunk into its games (on a worker). */
static void split_chunk(Slot *s)
{
    for (;;) {
        GameJob *job = slot_game(s, s->ngames);
        CqlMessages messages = {keep_message, &job->messages, 0, 0};
        if (!cql_chunk_next(s->chunk, job->text, &messages)) {
            s->overran = cql_chunk_overran(s->chunk);
            if (!s->overran) move_messages(&s->trailing, &job->messages);
            cql_text_clear(&job->messages);
            return;
        }
        job->text_bytes = cql_game_text_size(job->text);
        s->ngames++;
    }
}

/* Gives the slots split so far their place in the numbering of the inputs'
 * games, in slot order: up to the first one not split yet. After a slot
 * that overran, the rest are cancelled (done at once). The caller holds the
 * lock. */
static void number_split_slots(Ring *p)
{
    bool numbered = false;
    for (; p->next_numbered < p->next_take; p->next_numbered++) {
        Slot *s = ring_slot(p, p->next_numbered);
        if (s->state != SLOT_SPLIT) break;
        if (p->overrun) {
            s->cancelled = true;
            s->state = SLOT_DONE;
            pthread_cond_signal(&p->work_done);
            continue;
        }
        if (s->numbered) {   /* what its last game's number says */
            p->numbered_input = s->input;
            p->numbered_input_base = s->input_base;
        } else if (s->input != p->numbered_input) {   /* the first slot of an input */
            p->numbered_input = s->input;
            p->numbered_input_base = p->games_numbered;
        }
        s->base = p->games_numbered;
        s->input_base = p->numbered_input_base;
        p->games_numbered += (long)s->ngames;
        p->overrun = s->overran;
        s->state = SLOT_NUMBERED;
        numbered = true;
    }
    if (numbered) pthread_cond_broadcast(&p->work_ready);
}

static void search_slot(Worker *w, const Ring *p, Slot *s)
{
    for (size_t i = 0; i < s->ngames; i++) {
        if (atomic_load_explicit(&p->run->cancelled, memory_order_relaxed)) return;   /* never handed over */
        GameJob *job = &s->games[i];
        if (job->asked) continue;   /* settled before it was read (skip_game) */
        if (!s->numbered) {
            long number = s->base + (long)i + 1;
            cql_game_text_set_number(job->text, number);
            job->input = s->input;
            job->index = number - s->input_base;
        }
        search_game(w, job);
    }
}

/* Is it worth waking the reading thread (the caller holds the lock and has
 * just finished a slot)? When it waits, it waits for the slot at the head
 * of the ring. It is woken once a batch of slots from the head on is
 * finished, or every slot read is, or the workers are about to run out of
 * slots to work on; not for every slot, since each wake-up is two switches
 * of thread in the kernel (`check` on the 40,000 engine games on two
 * threads: 710 switches of the main thread with a wake-up per slot, 350
 * with a batch of one slot per worker; its share of the run's CPU time
 * about half a point less, within the noise of the machine). A cancelled
 * slot wakes it at once (number_split_slots). */
static bool worth_waking(const Ring *p)
{
    long done = 0;
    while (p->next_emit + done < p->next_read && ring_slot(p, p->next_emit + done)->state == SLOT_DONE) done++;
    if (done == 0) return false;
    bool workers_idle = p->next_search == p->next_numbered && p->next_take == p->next_read;
    return done >= p->wake_batch || p->next_emit + done == p->next_read || workers_idle;
}

/* The slot being handed over is held (on the reading thread, in a
 * callback of its batch): it is made HELD once handed over. */
CqlRunHold *pipeline_hold_batch(CqlRun *r)
{
    Slot *s = r->batch;
    if (!s || s->held) return NULL;
    s->held = true;
    return (CqlRunHold *)s;
}

/* On any thread: the reading thread empties the slot when it comes to it,
 * and is woken when it waits for this slot, or for the last one held. */
void pipeline_release(CqlRun *r, CqlRunHold *hold)
{
    Slot *s = (Slot *)hold;
    Ring *p = r->ring;
    pthread_mutex_lock(&p->mu);
    assert(s->held && !s->released);
    s->released = true;
    p->held--;
    bool workers_starve = p->next_take == p->next_read;
    if ((ring_slot(p, p->next_read) == s && workers_starve) || (p->draining && p->held == 0))
        pthread_cond_signal(&p->work_done);
    pthread_mutex_unlock(&p->mu);
}

/* A worker searches numbered slots first, else splits the next ready one;
 * it never waits for another worker's split. */
static void *worker_main(void *arg)
{
    Ring *p = arg;
    Worker w;
    worker_init(&w, p->run);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (p->next_search < p->next_numbered) {
            Slot *s = ring_slot(p, p->next_search++);
            if (s->state != SLOT_NUMBERED) continue;   /* cancelled */
            s->state = SLOT_SEARCHING;
            pthread_mutex_unlock(&p->mu);
            search_slot(&w, p, s);
            pthread_mutex_lock(&p->mu);
            s->state = SLOT_DONE;
            if (worth_waking(p)) pthread_cond_signal(&p->work_done);
        } else if (p->next_take < p->next_read) {
            Slot *s = ring_slot(p, p->next_take++);
            s->state = SLOT_SPLITTING;
            pthread_mutex_unlock(&p->mu);
            if (s->split) split_chunk(s);
            pthread_mutex_lock(&p->mu);
            s->state = SLOT_SPLIT;
            number_split_slots(p);
        } else if (p->done) {
            break;
        } else {
            pthread_cond_wait(&p->work_ready, &p->mu);
        }
    }
    for (int i = 0; i < p->run->nqueries; i++) cql_searcher_merge_tags(p->tags[i], w.searchers[i]);
    pthread_mutex_unlock(&p->mu);
    worker_free(&w);
    return NULL;
}

/* Hands over a slot's games and messages, in input order, the games as
 * one batch, which the caller may hold (its games are then cleared when it
 * is released). */
static void emit_slot(Emitter *e, Slot *s)
{
    deliver_messages(&s->leading, e->run->messages);
    if (s->cancelled) return;
    e->run->batch = s;
    for (size_t i = 0; i < s->ngames; i++) emit(e, &s->games[i]);
    end_batch(e);
    e->run->batch = NULL;
    if (!s->held)
        for (size_t i = 0; i < s->ngames; i++) job_clear(&s->games[i]);
    /* the text after the last game: reported when the run read on */
    bool read_on = !run_stopped(e) && s->base + (long)s->ngames < last_game_wanted(e);
    if (read_on) deliver_messages(&s->trailing, e->run->messages);
}

typedef enum ReadOutcome { READ_FILLED, READ_LATER, READ_END } ReadOutcome;

/* How the reading thread goes on once every chunk read so far is numbered
 * and none overran (READ_LATER): the next games one by one (where no chunk
 * can be cut; also after an overrun), or the next input. */
typedef enum ReadNext { NEXT_CHUNK, NEXT_GAMES, NEXT_INPUT } ReadNext;

/* Fills slot s with the next piece of the inputs. READ_LATER: what comes
 * next (*next) waits until every chunk before it is numbered and none
 * overran. */
static ReadOutcome read_slot(Emitter *e, Ring *p, Slot *s, ReadNext *next, Worker *reading)
{
    if (!p->chunks) {
        /* a range, or games a sidecar may rule out: games read one by one,
         * SLOT_GAMES at a time, and those jumped over (skip_game, with the
         * reading thread's searchers) */
        size_t read = 0;
        bool ended = false;   /* the inputs, or the games wanted */
        while (read < SLOT_GAMES && s->ngames < SLOT_SKIPPED_GAMES && !run_stopped(e)) {
            GameJob *job = slot_game(s, s->ngames);
            bool skipped = reading && skip_game(e, reading, job, false);
            if (!skipped && !read_job(e, job)) {
                ended = true;
                break;
            }
            if (!skipped) {
                s->bytes += job->text_bytes;
                read++;
            }
            p->alone_skipped += skipped;
            s->ngames++;
        }
        if (s->ngames == 0) return READ_END;
        const GameJob *last = &s->games[s->ngames - 1];
        s->numbered = true;
        s->input = last->input;
        s->input_base = cql_game_text_number(last->text) - last->index;
        /* too few jumped over to pay for reading here what the workers
         * would split: chunks from now on */
        p->alone_games += (long)s->ngames;
        if (!p->ranged && !ended && p->alone_games >= SKIP_TRIAL_GAMES && p->alone_skipped < p->alone_games / 2)
            p->chunks = true;
        return READ_FILLED;
    }
    if (*next == NEXT_INPUT) next_input(e, true);   /* every chunk of it is numbered: it is read */
    CqlMessages messages = {keep_message, &s->leading, 0, 0};
    CqlReader *r = current_reader(e, &messages);
    s->input = e->input;
    if (!r) return s->leading.len ? READ_FILLED : READ_END;   /* one that could not be opened */
    if (*next != NEXT_GAMES) {
        *next = NEXT_CHUNK;
        if (!s->chunk) s->chunk = cql_chunk_new();
        size_t bytes = e->run->settings.chunk_bytes ? (size_t)e->run->settings.chunk_bytes : CHUNK_BYTES;
        CqlTake took = cql_reader_take_chunk(r, bytes, s->chunk, &messages);
        if (took == CQL_TAKE_CHUNK) {
            s->split = true;
            s->bytes = cql_chunk_size(s->chunk);
            return READ_FILLED;
        }
        if (took == CQL_TAKE_NO_CUT) *next = NEXT_GAMES;
        else if (!cql_reader_failed(r) && e->input + 1 < e->run->ninputs) *next = NEXT_INPUT;
        /* else the end (after a read error, of every input): the input
         * stays open, since a chunk of it may yet be read again */
        if (took == CQL_TAKE_END) e->run->inputs[e->input].ended = true;
        if (s->leading.len > 0) return READ_FILLED;   /* a read error's message */
        return *next != NEXT_CHUNK ? READ_LATER : READ_END;
    }
    /* games read one by one, SLOT_GAMES at most */
    *next = NEXT_CHUNK;
    while (s->ngames < SLOT_GAMES) {
        GameJob *job = slot_game(s, s->ngames);
        CqlMessages job_messages = {keep_message, &job->messages, 0, 0};
        if (!cql_reader_next(r, job->text, &job_messages)) {
            move_messages(&s->trailing, &job->messages);   /* the text after the last game */
            e->run->inputs[e->input].ended = true;
            break;
        }
        s->bytes += job->text_bytes = cql_game_text_size(job->text);
        s->ngames++;
    }
    if (s->ngames) return READ_FILLED;
    return s->trailing.len > 0 ? READ_FILLED : READ_END;
}

/* After slot `seq` overran, once it is handed over: the slots after it were
 * cancelled; their text and the overran part of slot `seq` go back to the
 * reader of its input, newest first, and reading starts again where the
 * game that ran past the chunk begins. A read error met while taking them
 * ended the input there: its message is moved to *at_end. Called with the
 * lock held; returns the bytes the cancelled slots held. */
static size_t read_again_after(Ring *p, long seq, CqlReader *r, CqlText *at_end)
{
    for (;;) {   /* the workers' last use of the cancelled slots */
        bool busy = p->next_take != p->next_read;
        for (long q = seq + 1; q < p->next_take; q++)
            if (ring_slot(p, q)->state != SLOT_DONE) busy = true;
        if (!busy) break;
        pthread_cond_wait(&p->work_done, &p->mu);
    }
    size_t bytes = 0;
    for (long q = p->next_read - 1; q > seq; q--) {
        Slot *s = ring_slot(p, q);
        assert(s->split);   /* a game read alone waits until no slot overran */
        cql_reader_give_back(r, s->chunk, true);
        move_messages(at_end, &s->leading);
        bytes += s->bytes;
        slot_reset(s);
    }
    cql_reader_give_back(r, ring_slot(p, seq)->chunk, false);
    p->next_read = p->next_take = p->next_numbered = p->next_search = seq + 1;
    p->last_chunk = seq;
    p->overrun = false;
    return bytes;
}

/* Games read one by one, and a new input, must follow chunks known to end
 * between two games. */
static bool may_read_alone(const Ring *p)
{
    return p->next_numbered > p->last_chunk && !p->overrun;
}

/* Can the sidecar of some input rule games out for some query of the run? */
static bool sidecar_rules_out(const CqlRun *r)
{
    bool sidecar = false, rules_out = false;
    for (int i = 0; i < r->ninputs; i++) sidecar |= r->inputs[i].index != NULL;
    for (int i = 0; sidecar && i < r->nqueries; i++)
        rules_out |= indexed_may_rule_out(r->queries[i]->indexed, r->queries[i]->query);
    return rules_out;
}

/* Frees the reading thread's searchers (NULL: none), once what their
 * watched tag filters saw is added to the run's. */
static void reading_free(Worker *reading, Emitter *e)
{
    if (!reading) return;
    for (int i = 0; i < e->run->nqueries; i++) cql_searcher_merge_tags(e->tags[i], reading->searchers[i]);
    worker_free(reading);
    free(reading);
}

/* Runs the game loop on worker threads: as many as the run asks for, or as
 * many as could start (a process limit, -threads 40000), said once through
 * the messages. Returns the number that ran; 0 when none could start
 * (nothing was read: the caller runs the loop on its own thread). */
static long run_threads(Emitter *e, long threads)
{
    Ring p;
    memset(&p, 0, sizeof p);
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.work_ready, NULL);
    pthread_cond_init(&p.work_done, NULL);
    p.run = e->run;
    e->run->ring = &p;
    p.tags = e->tags;
    for (int i = 0; i < e->run->ninputs; i++) p.ranged |= e->run->inputs[i].ranged;
    p.chunks = !p.ranged;
    /* the reading thread asks the inputs' sidecars about the games before
     * it reads them, and jumps over those ruled out (skip_game) */
    Worker *reading = sidecar_rules_out(e->run) ? xcalloc(1, sizeof *reading) : NULL;
    if (reading) {
        worker_init(reading, e->run);
        p.chunks = false;
    }
    p.last_chunk = -1;
    p.numbered_input = -1;
    pthread_t *tids = xcalloc((size_t)threads, sizeof *tids);
    long started = 0;
    int err = 0;
    pthread_mutex_lock(&p.mu);   /* the workers see the slots once they are made */
    while (started < threads && (err = pthread_create(&tids[started], NULL, worker_main, &p)) == 0) started++;
    if (started == 0)
        cql_report(e->run->messages, CQL_WARNING, "none of the %ld worker threads asked for could start (%s); "
                   "the run goes on on one thread", threads, strerror(err));
    else if (started < threads)
        cql_report(e->run->messages, CQL_WARNING, "only %ld of the %ld worker threads asked for could start "
                   "(%s); the run goes on with %ld", started, threads, strerror(err), started);
    /* per worker one being searched and one ready, and one handed over that
     * the caller may hold while its thread writes the matches, the reading
     * thread reading on meanwhile (`check` on 2 threads over the 40,000
     * engine games, to a file: with two per worker, the reading thread
     * waited for a held slot 240-300 times, and switched 530 times instead
     * of 350) */
    p.nslots = started * 3;
    p.wake_batch = started;
    p.slots = xcalloc((size_t)(p.nslots ? p.nslots : 1), sizeof *p.slots);
    for (long i = 0; i < p.nslots; i++) p.slots[i].nqueries = e->run->nqueries;
    pthread_mutex_unlock(&p.mu);
    if (started == 0) {
        e->run->ring = NULL;
        reading_free(reading, e);
        free(p.slots);
        free(tids);
        pthread_cond_destroy(&p.work_ready);
        pthread_cond_destroy(&p.work_done);
        pthread_mutex_destroy(&p.mu);
        return 0;
    }

    bool input_left = true;
    ReadNext next = NEXT_CHUNK;
    size_t text_in_ring = 0;     /* input read and not yet handed over */
    pthread_mutex_lock(&p.mu);
    for (;;) {
        Slot *head = ring_slot(&p, p.next_emit);
        if (p.next_emit < p.next_read && head->state == SLOT_DONE) {
            pthread_mutex_unlock(&p.mu);
            text_in_ring -= head->bytes;
            emit_slot(e, head);
            pthread_mutex_lock(&p.mu);
            if (head->overran && !run_stopped(e)) {
                CqlReader *r = e->run->inputs[head->input].reader;
                text_in_ring -= read_again_after(&p, p.next_emit, r, &e->trailing);
                input_left = true;
                next = NEXT_GAMES;
            }
            if (head->held) {   /* emptied once released */
                head->state = SLOT_HELD;
                p.held++;
            } else {
                slot_reset(head);
            }
            p.next_emit++;
            continue;
        }
        Slot *tail = ring_slot(&p, p.next_read);
        if (tail->state == SLOT_HELD && tail->released) {
            pthread_mutex_unlock(&p.mu);
            for (size_t i = 0; i < tail->ngames; i++) job_clear(&tail->games[i]);
            pthread_mutex_lock(&p.mu);
            slot_reset(tail);
        }
        bool may_read = next == NEXT_CHUNK || may_read_alone(&p);
        if (input_left && may_read && tail->state == SLOT_EMPTY && p.next_read - p.next_emit < p.nslots &&
            (text_in_ring < RING_TEXT_BUDGET || p.next_read == p.next_emit)) {
            pthread_mutex_unlock(&p.mu);
            ReadOutcome got = run_stopped(e) ? READ_END : read_slot(e, &p, tail, &next, reading);
            pthread_mutex_lock(&p.mu);
            if (got == READ_FILLED) {
                if (tail->split) p.last_chunk = p.next_read;
                text_in_ring += tail->bytes;
                tail->state = SLOT_READY;
                p.next_read++;
                pthread_cond_signal(&p.work_ready);
                continue;
            }
            if (got == READ_END) input_left = false;
            /* the lock was let go while reading: a slot may have been
             * handed in meanwhile, whose signal nobody waited for */
            continue;
        }
        if (!input_left && p.next_emit == p.next_read) break;
        pthread_cond_wait(&p.work_done, &p.mu);
    }
    p.draining = true;   /* the texts of the slots still held are the caller's until released */
    while (p.held > 0) pthread_cond_wait(&p.work_done, &p.mu);
    e->run->ring = NULL;
    p.done = true;
    pthread_cond_broadcast(&p.work_ready);
    pthread_mutex_unlock(&p.mu);
    for (long i = 0; i < started; i++) pthread_join(tids[i], NULL);
    reading_free(reading, e);
    for (long i = 0; i < p.nslots; i++) slot_free(&p.slots[i]);
    free(p.slots);
    free(tids);
    pthread_cond_destroy(&p.work_ready);
    pthread_cond_destroy(&p.work_done);
    pthread_mutex_destroy(&p.mu);
    return started;
}

/* }==== */

/* The threads a run asks for: the setting, else one per core; one for a
 * query that must see the games in order (then for all of the run's). */
static long threads_of(const CqlRun *r)
{
    long n = r->settings.singlethreaded ? 1 : (long)r->settings.threads;
    if (n == 0) {
        n = sysconf(_SC_NPROCESSORS_ONLN);
        if (n < 1) n = 1;
    }
    for (int i = 0; i < r->nqueries; i++)
        if (cql_query_in_order(r->queries[i]->query)) n = 1;
    return n;
}

/* Each distinct message kept by keep_message once, in order: the notes
 * that several queries would give alike (a tag filter of the command
 * line's, placed before each of them). */
static void deliver_distinct(CqlText *kept, CqlMessages *m)
{
    CqlText seen = {NULL, 0, 0};
    for (size_t at = 0; at < kept->len;) {
        const char *record = kept->data + at;
        size_t len = strlen(record + 1) + 2;
        bool again = false;
        for (size_t k = 0; k < seen.len && !again; k += strlen(seen.data + k + 1) + 2)
            again = strcmp(seen.data + k, record) == 0;
        if (!again) {
            cql_text_append(&seen, record, len);
            cql_deliver(m, (CqlSeverity)(record[0] - '0'), record + 1);
        }
        at += len;
    }
    cql_text_free(&seen);
    cql_text_clear(kept);
}

void pipeline_run(CqlRun *r)
{
    Emitter e;
    memset(&e, 0, sizeof e);
    e.run = r;
    e.queries = xcalloc((size_t)r->nqueries, sizeof *e.queries);
    e.tags = xcalloc((size_t)r->nqueries, sizeof *e.tags);
    for (int i = 0; i < r->nqueries; i++) {
        e.queries[i].sorting = cql_query_sorts(r->queries[i]->query);
        e.tags[i] = cql_searcher_new(r->queries[i]->query);
    }
    long threads = threads_of(r);
    long ran = threads <= 1 ? 0 : run_threads(&e, threads);
    if (ran == 0) {
        run_single(&e);
        ran = 1;
    }
    move_messages(&e.trailing, &e.carried);
    deliver_messages(&e.trailing, r->messages);
    /* a tag filter that held in no game (its case differs ...): said when
     * every game was read */
    for (int i = 0; i < r->nqueries; i++) {
        if (limit_reached(&e, i) || e.queries[i].runtime_error || cancelled(&e) || query_cancelled(&e, i)) continue;
        CqlMessages notes = {keep_message, &e.trailing, 0, 0};
        cql_searcher_report_unmatched_tags(e.tags[i], &notes);
    }
    deliver_distinct(&e.trailing, r->messages);
    for (int i = 0; i < r->nqueries; i++) {
        cql_searcher_free(e.tags[i]);
        if (e.queries[i].sorting) emit_sorted(&e, i);
    }
    pipeline_close_inputs(r);
    for (int i = 0; i < r->nqueries; i++) {
        RunQuery *rq = r->queries[i];
        rq->totals.threads = ran;
        rq->totals.cancelled = cancelled(&e) || query_cancelled(&e, i);
        rq->stopped = e.queries[i].runtime_error;
        rq->totals.error = rq->stop_error.len ? rq->stop_error.data : NULL;
        r->stopped |= rq->stopped;
    }
    cql_text_free(&e.trailing);
    cql_text_free(&e.carried);
    free(e.tags);
    free(e.queries);
}
