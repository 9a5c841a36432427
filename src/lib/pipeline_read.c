/*
 * src/lib/pipeline_read.c — the reading side of a run: its inputs (opened
 * when reached, closed once read; a range of lines, and `-part`), the games
 * read one by one (read_job) or in chunks the workers split (read_slot),
 * and the games an input's sidecar lets the reader jump over without
 * reading them (skip_game). On one thread at a time: the calling thread,
 * or on worker threads the one that holds the ring's reading role
 * (read_tail in pipeline_ring.c: a worker for chunks, the calling thread
 * for games read one by one with a sidecar or in a range, and to open the
 * next input).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "lib/pipeline_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Input a worker splits at once: about 70 games of 900 bytes. Smaller
 * chunks cost more waits, each a wake-up and a switch of thread in the
 * kernel: with 32 KB, two threads with nothing to write ran 1.77-1.79 times
 * as fast as one, with 64 KB 1.84, for 0.8-1.3 MB more peak memory.
 * Larger ones halve the switches again, but not the main thread's share
 * of the CPU, and cost the run more (128 KB: 3% more CPU for `check` on
 * two threads; docs/performance.md, "The main thread"). */
enum { CHUNK_BYTES = 64 * 1024 };

/* Games a slot holds when they are read one by one; with
 * the games a sidecar let it jump over, at most SLOT_SKIPPED_GAMES (`Ka1`
 * rules out 95% of engine games; each game costs a job, which a slot keeps
 * for its next piece: with 1,024, `Ka1` on two threads took 6 MB more). */
enum { SLOT_GAMES = 32, SLOT_SKIPPED_GAMES = 256 };

/* With a sidecar, the main thread reads the games one by one and jumps
 * over those ruled out; once it has read SKIP_TRIAL_GAMES so and jumped
 * over fewer than half, it goes back to chunks, which the workers split:
 * `check` (1.5% ruled out) on two threads took 12.6% of the run's CPU time
 * on the main thread read one by one, 5.0% in chunks. */
enum { SKIP_TRIAL_GAMES = 1024 };

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
    if (in->reader) r->pgn_read += in->reader->reader.bytes_read;
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

/* A game of an earlier part of a range input (read and dropped) that the
 * input's sidecar lets the reader jump over: counted as read, not read. */
static bool skip_earlier_part(const RunInput *in, CqlReader *reader)
{
    IndexedSkip skip;
    if (!in->index || in->first_line <= 1 ||
        !indexed_skip_of(in, cql_reader_games(reader) + 1, SIZE_MAX, NULL, &skip) ||
        skip.line >= (unsigned long)in->first_line)
        return false;
    pgn_skip_game(&reader->reader, skip.next_offset, skip.next_line);
    return true;
}

/* Tells the reader where the game it reads next ends, when the input's
 * sidecar knows: after a jump, it then reads that game, not the 64 KB of
 * games (most of them to be jumped over) after it. */
static void expect_game(const RunInput *in, CqlReader *reader)
{
    uint64_t end;
    if (in->index && indexed_end_of(in, cql_reader_games(reader) + 1, &end)) pgn_expect_game(&reader->reader, end);
}

bool read_job(Emitter *e, GameJob *job)
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
        expect_game(in, reader);
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

bool skip_game(Emitter *e, Worker *w, GameJob *job, bool from_codes)
{
    CqlRun *r = e->run;
    if (e->input >= r->ninputs || e->carried.len) return false;
    RunInput *in = &r->inputs[e->input];
    if (!in->index || !in->reader) return false;
    long index = cql_reader_games(in->reader) + 1;
    long number = e->input_base + index;
    size_t max_size = r->settings.max_game_size ? (size_t)r->settings.max_game_size : PGN_DEFAULT_MAX_GAME_SIZE;
    if (number > last_game_wanted(e)) return false;
    /* the head of the game's record: read as the last game's next */
    bool follows = e->skip_index && e->skip_input == e->input && e->skip_index + 1 == index;
    IndexedSkip *skip = &e->skips[index & 1];
    bool skippable = indexed_skip_of(in, index, max_size, follows ? &e->skips[(index - 1) & 1] : NULL, skip);
    e->skip_index = skippable ? index : 0;
    e->skip_input = e->input;
    if (!skippable || skip->line < (unsigned long)in->first_line ||
        (in->end_line && skip->line >= (unsigned long)in->end_line))
        return false;
    job->input = e->input;
    job->index = index;
    if (from_codes ? !ask_sidecar(w, job, number, NULL, skip->head) : !ruled_out_for_all(w, job, number, skip->head))
        return false;
    pgn_skip_game(&in->reader->reader, skip->next_offset, skip->next_line);
    cql_game_text_set_number(job->text, number);
    job->text_bytes = (size_t)skip->text_size;
    return true;
}

ReadOutcome read_slot(Emitter *e, Ring *p, Slot *s, ReadNext *next, Worker *reading)
{
    if (!p->chunks) {
        /* a range, or games a sidecar may rule out: games read one by one,
         * SLOT_GAMES at a time, and those jumped over (skip_game, with the
         * main thread's searchers) */
        size_t read = 0;
        bool ended = false;   /* the inputs, or the games wanted */
        while (read < SLOT_GAMES && s->ngames < SLOT_SKIPPED_GAMES && !run_stopped(e)) {
            GameJob *job = slot_game(s, s->ngames);
            bool skipped = reading && skip_game(e, reading, job, false);
            int input = job->input;
            long index = job->index;
            if (!skipped && !read_job(e, job)) {
                job_clear(job);   /* no game: what was asked goes */
                ended = true;
                break;
            }
            if (!skipped) {
                forget_answers(job, input, index);
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

bool sidecar_rules_out(const CqlRun *r)
{
    bool sidecar = false, rules_out = false;
    for (int i = 0; i < r->ninputs; i++) sidecar |= r->inputs[i].index != NULL;
    for (int i = 0; sidecar && i < r->nqueries; i++)
        rules_out |= indexed_may_rule_out(r->queries[i]->indexed, r->queries[i]->query);
    return rules_out;
}
