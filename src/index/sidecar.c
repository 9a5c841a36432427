/*
 * src/index/sidecar.c — writing and reading the sidecar index (see
 * sidecar.h; the format is in docs/index.md).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "index/sidecar.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index/movecode.h"
#include "pgn/reader.h"

enum {
    HEADER_BYTES = 64,
    TRAILER_BYTES = 48,
    ENDS_BYTES = 64 * 1024,          /* the PGN file's first and last bytes checked */
    POSITION_BYTES = 75,             /* a start position: board, castling, ep, side, 960, counters */
    FLUSH_BYTES = 1 << 20            /* records handed to the writer in pieces of about this */
};

#define TRAILER_MAGIC "CQLXEND\n"

/* Record flags: read without a message (the rest of the record is there);
 * split off without a message from the reader (about the text before it,
 * or its own), starting at the first column of its line, so that a reader
 * may start at its first byte (version 2). */
enum { RECORD_CLEAN = 1, RECORD_QUIET = 2 };

/* {==== the PGN file a sidecar is made from =================================== */

typedef struct PgnIdentity {
    uint64_t size;
    int64_t mtime_sec;
    uint32_t mtime_nsec;
    uint64_t head, tail;   /* checksums of the first and last ENDS_BYTES bytes (or fewer) */
} PgnIdentity;

/* The checksum of len bytes of fd from offset `at`; false when they cannot be read. */
static bool checksum_of_range(int fd, uint64_t at, size_t len, uint64_t *sum)
{
    unsigned char *buf = xmalloc(len ? len : 1);
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, buf + got, len - got, (off_t)(at + got));
        if (n <= 0) break;
        got += (size_t)n;
    }
    *sum = bytes_checksum(buf, got);
    free(buf);
    return got == len;
}

static bool identity_of(int fd, PgnIdentity *id)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    id->size = (uint64_t)st.st_size;
    id->mtime_sec = (int64_t)st.st_mtim.tv_sec;
    id->mtime_nsec = (uint32_t)st.st_mtim.tv_nsec;
    size_t ends = id->size < ENDS_BYTES ? (size_t)id->size : ENDS_BYTES;
    return checksum_of_range(fd, 0, ends, &id->head) && checksum_of_range(fd, id->size - ends, ends, &id->tail);
}

static void write_sidecar_header(StrBuf *out, const PgnIdentity *id)
{
    sb_append_n(out, SIDECAR_MAGIC, SIDECAR_MAGIC_LEN);
    bytes_put_u32(out, SIDECAR_VERSION);
    bytes_put_u32(out, HEADER_BYTES);
    bytes_put_u64(out, id->size);
    bytes_put_u64(out, (uint64_t)id->mtime_sec);
    bytes_put_u32(out, id->mtime_nsec);
    bytes_put_u32(out, ENDS_BYTES);
    bytes_put_u64(out, id->head);
    bytes_put_u64(out, id->tail);
    bytes_put_u64(out, 0);   /* reserved */
}

/* }==== */
/* {==== byte offsets of lines ================================================== */

/* The byte offset where each line of a file starts, found going forward,
 * with line ends as the reader counts them (LF, CRLF, a lone CR), in a
 * second reading of the file. The reader says where a game's text is
 * (RawGame's first_offset and end_offset); this is for a game whose last
 * line's end the reader has not read yet (a termination marker last in
 * its window: rare), and is started then. The last few line starts are
 * remembered: a game may start on the line where the one before it
 * ended. */
enum { LINES_KEPT = 8, SCAN_BYTES = 1 << 16 };

typedef struct LineScanner {
    FILE *fp;
    unsigned char buf[SCAN_BYTES];
    size_t len, pos;
    uint64_t buf_offset;             /* file offset of buf[0] */
    unsigned line;                   /* the line being scanned */
    uint64_t starts[LINES_KEPT];     /* starts[l % LINES_KEPT]: where line l starts, for the last lines */
    bool after_cr;                   /* the byte before buf[pos] is a CR */
    bool has_cr;                     /* buf holds a CR (else lines end at LFs alone) */
    bool eof;
} LineScanner;

static void scanner_init(LineScanner *s, FILE *fp)
{
    memset(s, 0, sizeof *s);
    s->fp = fp;
    s->line = 1;
    s->starts[1] = 0;
}

static void new_line(LineScanner *s, uint64_t start)
{
    s->line++;
    s->starts[s->line % LINES_KEPT] = start;
}

/* The offset where line `line` starts (the file's end when it has fewer lines). */
static uint64_t scanner_line_start(LineScanner *s, unsigned line)
{
    while (s->line < line && !s->eof) {
        if (s->pos == s->len) {
            s->buf_offset += s->len;
            s->len = fread(s->buf, 1, sizeof s->buf, s->fp);
            s->pos = 0;
            s->has_cr = memchr(s->buf, '\r', s->len) != NULL;
            if (s->len == 0) {
                s->eof = true;
                if (s->after_cr) new_line(s, s->buf_offset);
                break;
            }
        }
        unsigned char c = s->buf[s->pos];
        if (s->after_cr) {   /* a CR ended the line, and a LF right after it belongs to it */
            s->after_cr = false;
            if (c == '\n') {
                s->pos++;
                new_line(s, s->buf_offset + s->pos);
                continue;
            }
            new_line(s, s->buf_offset + s->pos);
            continue;
        }
        const unsigned char *p = s->buf + s->pos, *end = s->buf + s->len;
        const unsigned char *lf = memchr(p, '\n', (size_t)(end - p));
        const unsigned char *cr = s->has_cr ? memchr(p, '\r', (size_t)((lf ? lf : end) - p)) : NULL;
        if (cr) {
            s->pos = (size_t)(cr - s->buf) + 1;
            s->after_cr = true;
        } else if (lf) {
            s->pos = (size_t)(lf - s->buf) + 1;
            new_line(s, s->buf_offset + s->pos);
        } else {
            s->pos = s->len;
        }
    }
    if (line > s->line) return s->buf_offset + s->len;   /* past the end */
    if (s->line - line >= LINES_KEPT) return 0;   /* never asked: games come in order */
    return s->starts[line % LINES_KEPT];
}

/* }==== */
/* {==== strings ================================================================ */

/* The string table being made: each distinct string once (tag names and
 * values repeat from game to game), its bytes as the sidecar holds them. */
typedef struct StringTable {
    StrBuf bytes;           /* the section: varint length, bytes, NUL, for each */
    uint64_t *offsets;      /* where string id's bytes begin in bytes */
    uint32_t *lengths;      /* and how many there are */
    uint32_t *slots;        /* open addressing: id + 1, 0 for an empty slot */
    size_t count, cap_ids, nslots;
} StringTable;

/* Eight bytes a step, each mixed in by a multiply (the tags' strings are
 * hashed 19 times a game: a byte a step was 2% of the build). */
static uint64_t string_hash(const char *s, size_t len)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325) ^ len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * UINT64_C(0x9e3779b97f4a7c15);
        h ^= h >> 29;
    }
    /* the last bytes: the last eight, read again in part, or a short
     * string's few (no call to copy a length known only now) */
    uint64_t tail = 0;
    if (len >= 8) memcpy(&tail, s + len - 8, 8);
    else
        for (; i < len; i++) tail = tail << 8 | (unsigned char)s[i];
    h = (h ^ tail) * UINT64_C(0x9e3779b97f4a7c15);
    return h ^ h >> 32;
}

static const char *table_string(const StringTable *t, uint32_t id, size_t *len)
{
    *len = t->lengths[id];
    return t->bytes.data + t->offsets[id];
}

static void grow_slots(StringTable *t)
{
    size_t n = t->nslots ? 2 * t->nslots : 1024;
    uint32_t *slots = xcalloc(n, sizeof *slots);
    for (size_t id = 0; id < t->count; id++) {
        size_t len;
        const char *s = table_string(t, (uint32_t)id, &len);
        size_t i = (size_t)string_hash(s, len) & (n - 1);
        while (slots[i]) i = (i + 1) & (n - 1);
        slots[i] = (uint32_t)id + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = n;
}

static uint32_t intern_n(StringTable *t, const char *s, size_t len)
{
    if (2 * (t->count + 1) > t->nslots) grow_slots(t);
    size_t i = (size_t)string_hash(s, len) & (t->nslots - 1);
    for (; t->slots[i]; i = (i + 1) & (t->nslots - 1)) {
        size_t have;
        const char *other = table_string(t, t->slots[i] - 1, &have);
        if (have == len && memcmp(other, s, len) == 0) return t->slots[i] - 1;
    }
    if (t->count == t->cap_ids) {
        t->cap_ids = t->cap_ids ? 2 * t->cap_ids : 1024;
        t->offsets = xrealloc(t->offsets, t->cap_ids * sizeof *t->offsets);
        t->lengths = xrealloc(t->lengths, t->cap_ids * sizeof *t->lengths);
    }
    bytes_put_varint(&t->bytes, len);
    t->offsets[t->count] = t->bytes.len;
    t->lengths[t->count] = (uint32_t)len;
    sb_append_n(&t->bytes, s, len);
    sb_putc(&t->bytes, '\0');
    t->slots[i] = (uint32_t)t->count + 1;
    return (uint32_t)t->count++;
}

static uint32_t intern(StringTable *t, const char *s)
{
    return intern_n(t, s, strlen(s));
}

/* The tags of one game after another: their names, and many of their
 * values, are those of the game before at the same place (the same tags
 * in the same order, the same Event and Site), so the id found there last
 * time is tried first, without a hash. */
enum { RECENT_TAGS = 32 };
#define NO_STRING UINT32_MAX

typedef struct RecentTags {
    uint32_t name[RECENT_TAGS], value[RECENT_TAGS];   /* ids, or NO_STRING */
} RecentTags;

static uint32_t intern_recent(StringTable *t, uint32_t *recent, const char *s, size_t len)
{
    if (*recent != NO_STRING) {
        size_t have;
        const char *other = table_string(t, *recent, &have);
        if (have == len && memcmp(other, s, len) == 0) return *recent;
    }
    return *recent = intern_n(t, s, len);
}

/* The ids of tag i's name and value. */
static void intern_tag(StringTable *t, RecentTags *r, int i, const Tag *tag, uint32_t *name, uint32_t *value)
{
    size_t value_len = tag->plain ? tag->value_len : strlen(tag->value);
    if (i >= RECENT_TAGS) {
        *name = intern(t, tag->name);
        *value = intern_n(t, tag->value, value_len);
        return;
    }
    *name = intern_recent(t, &r->name[i], tag->name, strlen(tag->name));
    *value = intern_recent(t, &r->value[i], tag->value, value_len);
}

static void string_table_free(StringTable *t)
{
    sb_free(&t->bytes);
    free(t->offsets);
    free(t->lengths);
    free(t->slots);
}

/* }==== */
/* {==== start positions ======================================================== */

static bool is_usual_start(const Position *pos)
{
    Position start;
    pos_start(&start);
    return pos_same(pos, &start) && pos->halfmove == start.halfmove && pos->fullmove == start.fullmove &&
           pos->chess960 == start.chess960;
}

static void write_position(StrBuf *out, const Position *pos)
{
    sb_append_n(out, (const char *)pos->board, SQ_NB);
    for (int c = 0; c < COLOR_NB; c++)
        for (int w = 0; w < 2; w++) sb_putc(out, (char)pos->castle_rook[c][w]);
    sb_putc(out, (char)pos->ep);
    sb_putc(out, (char)pos->side);
    sb_putc(out, (char)pos->chess960);
    bytes_put_u16(out, pos->halfmove);
    bytes_put_u16(out, pos->fullmove);
}

/* A position as write_position wrote it; false when it is not one. */
static bool read_position(ByteCursor *c, Position *pos)
{
    const unsigned char *b = bytes_get(c, POSITION_BYTES - 4);
    if (!b) return false;
    memset(pos, 0, sizeof *pos);
    for (Square s = 0; s < SQ_NB; s++) {
        Piece p = (Piece)b[s];
        if (p == NO_PIECE) continue;
        if ((p & ~15) || type_of(p) == NO_PIECE_TYPE || type_of(p) > KING) return false;
        pos->board[s] = (uint8_t)p;
        pos->by_type[0] |= sq_bb(s);
        pos->by_type[type_of(p)] |= sq_bb(s);
        pos->by_color[color_of(p)] |= sq_bb(s);
    }
    for (int i = 0; i < 4; i++) {
        pos->castle_rook[i / 2][i % 2] = b[SQ_NB + i];
        if (b[SQ_NB + i] > SQ_NONE) return false;
    }
    pos->ep = b[SQ_NB + 4];
    pos->side = b[SQ_NB + 5];
    pos->chess960 = b[SQ_NB + 6];
    pos->halfmove = bytes_get_u16(c);
    pos->fullmove = bytes_get_u16(c);
    pos_find_kings(pos);
    return !c->bad && pos->ep <= SQ_NONE && pos->chess960 <= 1 && pos_is_ok(pos);
}

/* }==== */
/* {==== building =============================================================== */

typedef struct Builder {
    SidecarWriteFn write;
    void *ctx;
    Checksum sum;
    uint64_t written;
    bool failed;
    StrBuf out;             /* bytes not yet handed to write */
    uint64_t *offsets;      /* each record's offset, then the end of the records */
    size_t noffsets, cap_offsets;
    StringTable strings;
    RecentTags recent;
    /* made while the game is parsed (game_node_made): its summary, and
     * the codes of its moves, in the order they are made, which are the
     * codes of its tree when the tree is one line */
    SummaryBuilder summary;
    StrBuf codes;           /* a game's move codes, before their count is written */
} Builder;

/* game_node_made for any node but the usual move. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void game_node_made_other(Builder *b, const GameNode *n)
{
    movecode_append(&b->codes, movecode_of(n->move));
    summary_add_any_node(&b->summary, n);
}

/* The parse made node n: into the game's summary and codes, while n is in
 * the cache. The usual move (summary_move_is_usual) is told apart once
 * for both: its code is its from and to squares (movecode_of), written in
 * the room game_begin made. Each call it makes is its last act, so that
 * the usual move saves no registers. */
static void game_node_made(void *ctx, const GameNode *n)
{
    Builder *b = ctx;
    const GameNode *parent = n->parent;
    Move m = n->move;
    Square to = move_to(m);
    Piece taken = pos_piece_on(&parent->pos, to);
    /* (the room game_begin made holds every move of the text; were it
     * ever short, the general path, which grows it, writes the move) */
    if (!summary_move_is_usual(&b->summary, parent, m, taken) || b->codes.len + 2 >= b->codes.cap) {
        game_node_made_other(b, n);
        return;
    }
    uint16_t code = movecode_of(m);
    char *p = b->codes.data + b->codes.len;
    p[0] = (char)(unsigned char)code;
    p[1] = (char)(unsigned char)(code >> 8);
    b->codes.len += 2;   /* (no NUL: the codes are bytes, never read as a string) */
    summary_add_usual_node(&b->summary, n, to, taken);
}

/* Ready for the parse of raw: room for the codes of every move its text
 * can hold (each move takes two bytes of it at least, "e4" or "--", and
 * its code two), so that the usual move's need not be checked. */
static void game_begin(Builder *b, const RawGame *raw)
{
    summary_start(&b->summary);
    sb_clear(&b->codes);
    sb_reserve(&b->codes, raw->text.len + 2);
}

static void flush(Builder *b)
{
    if (!b->out.len) return;
    checksum_add(&b->sum, b->out.data, b->out.len);
    if (!b->failed && !b->write(b->ctx, b->out.data, b->out.len)) b->failed = true;
    b->written += b->out.len;
    sb_clear(&b->out);
}

static void note_offset(Builder *b)
{
    if (b->noffsets == b->cap_offsets) {
        b->cap_offsets = b->cap_offsets ? 2 * b->cap_offsets : 4096;
        b->offsets = xrealloc(b->offsets, b->cap_offsets * sizeof *b->offsets);
    }
    b->offsets[b->noffsets++] = b->written + b->out.len;
}

/* Counts every message (the build reports none of a game's). */
static void count_message(void *ctx, DiagSeverity sev, const char *text)
{
    (void)sev;
    (void)text;
    (*(long *)ctx)++;
}

/* One game's record: where its text is, then, for a game read without a
 * message, its summary, tags, termination marker, start and moves. */
static void write_record(Builder *b, const RawGame *raw, uint64_t offset, uint64_t length, const Game *g,
                         bool clean, bool quiet)
{
    note_offset(b);
    StrBuf *out = &b->out;
    bytes_put_varint(out, raw->first_line);
    bytes_put_varint(out, raw->text.len);
    bytes_put_varint(out, offset);
    bytes_put_varint(out, length);
    sb_putc(out, (char)((clean ? RECORD_CLEAN : 0) | (quiet ? RECORD_QUIET : 0)));
    if (clean) {
        GameSummary s;
        summary_finish(&b->summary, g, &s);
        summary_write(&s, out);
        bytes_put_varint(out, (uint64_t)g->tag_count);
        for (int i = 0; i < g->tag_count; i++) {
            uint32_t name, value;
            intern_tag(&b->strings, &b->recent, i, &g->tags[i], &name, &value);
            bytes_put_varint(out, name);
            bytes_put_varint(out, value);
        }
        bytes_put_varint(out, g->result ? (uint64_t)intern(&b->strings, g->result) + 1 : 0);
        bool usual = is_usual_start(&g->root->pos);
        sb_putc(out, (char)(usual ? 0 : 1));
        if (!usual) write_position(out, &g->root->pos);
        if (g->has_variations) {   /* the codes in the tree's order, with the variations marked */
            sb_clear(&b->codes);
            movecode_write_tree(g, &b->codes);
        }
        size_t ncodes = b->codes.len / 2;
        bytes_put_varint(out, ncodes);
        if (ncodes) sb_append_n(out, b->codes.data, b->codes.len);
    }
    if (b->out.len >= FLUSH_BYTES) flush(b);
}

static bool same_file_state(const PgnIdentity *a, const PgnIdentity *b)
{
    return a->size == b->size && a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec &&
           a->head == b->head && a->tail == b->tail;
}

bool sidecar_build(const char *pgn_path, SidecarWriteFn write, void *ctx, SidecarProgressFn progress,
                   void *progress_ctx, DiagSink *diag, SidecarTotals *totals)
{
    memset(totals, 0, sizeof *totals);
    FILE *fp = fopen(pgn_path, "rb");
    FILE *lines_fp = fp ? fopen(pgn_path, "rb") : NULL;
    PgnIdentity id;
    if (!fp || !lines_fp || !identity_of(fileno(fp), &id)) {
        if (fp && lines_fp) diag_plain(diag, DIAG_ERROR, "cannot index '%s': not a regular file that can be read",
                                       pgn_path);
        else diag_plain(diag, DIAG_ERROR, "cannot open input file '%s': %s", pgn_path, strerror(errno));
        if (fp) fclose(fp);
        if (lines_fp) fclose(lines_fp);
        return false;
    }
    Builder b;
    memset(&b, 0, sizeof b);
    b.write = write;
    b.ctx = ctx;
    checksum_init(&b.sum);
    memset(&b.recent, 0xff, sizeof b.recent);   /* NO_STRING */
    write_sidecar_header(&b.out, &id);

    long ignored = 0;   /* messages about the text between games: a search reports them */
    DiagSink reader_sink, game_sink;
    diag_sink_init(&reader_sink, count_message, &ignored);
    long game_messages = 0;
    diag_sink_init(&game_sink, count_message, &game_messages);
    PgnReader reader;
    setvbuf(fp, NULL, _IONBF, 0);   /* read straight into the reader's window, as pgn_open does */
    pgn_open_stream(&reader, fp, pgn_path, &reader_sink);
    LineScanner *lines = NULL;   /* made the first time the reader does not know where a game ends */
    RawGame raw;
    raw_game_init(&raw);
    Arena arena;
    arena_init_growing(&arena, (size_t)16 << 10, (size_t)256 << 10);
    uint64_t text_bytes = 0;
    PgnMoveHook hook = {game_node_made, &b};
    for (;;) {
        long before = ignored;
        if (b.failed || !pgn_next_raw(&reader, &raw)) break;
        bool quiet = ignored == before && raw.first_column == 1;
        arena_reset(&arena);
        Game g;
        game_messages = 0;
        game_begin(&b, &raw);
        PgnParseStatus st = pgn_parse_game_hooked(&raw, pgn_path, &arena, &g, &game_sink, &hook);
        bool clean = st == PGN_OK && game_messages == 0;
        uint64_t start = raw.first_offset, end = raw.end_offset;
        if (!raw.end_offset_known) {
            if (!lines) {
                lines = xmalloc(sizeof *lines);
                scanner_init(lines, lines_fp);
            }
            end = scanner_line_start(lines, raw.last_line + 1);
        }
        write_record(&b, &raw, start, end > start ? end - start : 0, &g, clean, quiet);
        totals->games++;
        if (!clean) totals->text_only++;
        text_bytes += raw.text.len;
        raw_game_trim(&raw);
        if (progress) progress(progress_ctx, totals->games, text_bytes);
    }
    bool read_failed = reader.io_error || ferror(lines_fp);
    raw_game_free(&raw);
    arena_free(&arena);
    free(lines);
    pgn_close(&reader);   /* closes fp */

    /* the strings, the table of record offsets, the trailer */
    note_offset(&b);
    uint64_t strings_at = b.offsets[b.noffsets - 1];
    flush(&b);
    sb_append_n(&b.out, b.strings.bytes.data ? b.strings.bytes.data : "", b.strings.bytes.len);
    uint64_t table_at = strings_at + b.strings.bytes.len;
    for (size_t i = 0; i < b.noffsets; i++) {
        bytes_put_u64(&b.out, b.offsets[i]);
        if (b.out.len >= FLUSH_BYTES) flush(&b);
    }
    flush(&b);
    StrBuf trailer = SB_INIT;
    bytes_put_u64(&trailer, (uint64_t)totals->games);
    bytes_put_u64(&trailer, strings_at);
    bytes_put_u64(&trailer, b.strings.count);
    bytes_put_u64(&trailer, table_at);
    bytes_put_u64(&trailer, checksum_value(&b.sum));
    sb_append_n(&trailer, TRAILER_MAGIC, 8);
    if (!b.failed && !write(ctx, trailer.data, trailer.len)) b.failed = true;
    b.written += trailer.len;
    sb_free(&trailer);

    PgnIdentity after;
    bool changed = !identity_of(fileno(lines_fp), &after) || !same_file_state(&id, &after);
    fclose(lines_fp);
    if (read_failed) diag_plain(diag, DIAG_ERROR, "cannot read input file '%s'", pgn_path);
    else if (changed && !b.failed)
        diag_plain(diag, DIAG_ERROR, "'%s' changed while it was indexed; index it again", pgn_path);
    totals->pgn_bytes = id.size;
    totals->sidecar_bytes = b.written;
    sb_free(&b.out);
    sb_free(&b.codes);
    free(b.offsets);
    string_table_free(&b.strings);
    return !b.failed && !read_failed && !changed;
}

/* }==== */
/* {==== reading ================================================================ */

/* The regular file at path opened for reading, its status in *st; NULL
 * (errno) when it cannot be, or is no regular file (EINVAL): a FIFO or a
 * terminal is not waited on, as opening or reading one for a sidecar would
 * (a name for the run's own standard output would wait for ever). */
static FILE *open_regular(const char *path, struct stat *st)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) return NULL;
    int err = fstat(fd, st) != 0 ? errno : !S_ISREG(st->st_mode) ? EINVAL : 0;
    if (err) {
        close(fd);
        errno = err;
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *fp = fdopen(fd, "rb");
    if (!fp) close(fd);
    return fp;
}

bool sidecar_is_sidecar(const char *path)
{
    struct stat st;
    FILE *fp = open_regular(path, &st);
    if (!fp) return false;
    char magic[SIDECAR_MAGIC_LEN];
    bool is = fread(magic, 1, sizeof magic, fp) == sizeof magic && memcmp(magic, SIDECAR_MAGIC, sizeof magic) == 0;
    fclose(fp);
    return is;
}

/* Gives up on s: st, and why (the reason, unless it is already there). */
static SidecarStatus refuse(Sidecar *s, SidecarStatus st, char *why, size_t why_size, const char *reason)
{
    if (reason != why) snprintf(why, why_size, "%s", reason);
    free(s->data);
    free(s->strings);
    memset(s, 0, sizeof *s);
    return st;
}

/* Memory for the n bytes of a sidecar, freed with free(). Where the
 * system offers huge pages on request (Linux's transparent huge pages in
 * `madvise` mode), a sidecar of some megabytes gets them: aligned to their
 * size and asked for before the bytes are read in, its memory is faulted in
 * a few pieces of 2 MB instead of a page of 4 KB at a time (the faults, and
 * the unmapping at the end, were about a tenth of a search's CPU through a
 * sidecar of 14 MB). Elsewhere, and for a small one, plain memory. */
static unsigned char *sidecar_memory(size_t n)
{
#if defined(MADV_HUGEPAGE)
    enum { HUGE_PAGE = 2 << 20 };
    if (n >= 2 * (size_t)HUGE_PAGE && n <= SIZE_MAX - HUGE_PAGE) {
        size_t rounded = (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        void *p;
        if (posix_memalign(&p, HUGE_PAGE, rounded) == 0) {
            (void)madvise(p, rounded, MADV_HUGEPAGE);   /* only a wish: without it, plain pages */
            return p;
        }
    }
#endif
    return xmalloc(n ? n : 1);
}

/* Reads the whole file at path into s->data; errno when it cannot. */
static bool read_whole(Sidecar *s, const char *path)
{
    struct stat st;
    FILE *fp = open_regular(path, &st);
    if (!fp) return false;
    s->len = (size_t)st.st_size;
    s->data = sidecar_memory(s->len);
    bool ok = fread(s->data, 1, s->len, fp) == s->len;
    if (!ok && !errno) errno = EIO;
    fclose(fp);
    return ok;
}

/* The sections of s->data, checked: SIDECAR_OK, SIDECAR_STALE for a
 * sidecar of another format version (an older or newer cql wrote it), and
 * SIDECAR_DAMAGED when its bytes do not add up. */
static SidecarStatus read_sections(Sidecar *s, char *why, size_t why_size)
{
    const unsigned char *d = s->data;
    if (s->len < HEADER_BYTES + TRAILER_BYTES || memcmp(d, SIDECAR_MAGIC, SIDECAR_MAGIC_LEN) != 0) {
        snprintf(why, why_size, "it is not a sidecar index");
        return SIDECAR_DAMAGED;
    }
    uint32_t version = bytes_u32_at(d + 8);
    if (version != SIDECAR_VERSION) {
        snprintf(why, why_size, "it is of format version %u, and this cql reads version %u", version,
                 SIDECAR_VERSION);
        return SIDECAR_STALE;
    }
    if (bytes_u32_at(d + 12) != HEADER_BYTES) {
        snprintf(why, why_size, "its header does not add up");
        return SIDECAR_DAMAGED;
    }
    const unsigned char *t = d + s->len - TRAILER_BYTES;
    if (memcmp(t + 40, TRAILER_MAGIC, 8) != 0 || bytes_u64_at(t + 32) != bytes_checksum(d, s->len - TRAILER_BYTES)) {
        snprintf(why, why_size, "its checksum does not match its contents");
        return SIDECAR_DAMAGED;
    }
    uint64_t games = bytes_u64_at(t), strings_at = bytes_u64_at(t + 8), nstrings = bytes_u64_at(t + 16),
             table_at = bytes_u64_at(t + 24), body_end = s->len - TRAILER_BYTES;
    snprintf(why, why_size, "its sections do not add up");
    if (games >= (uint64_t)LONG_MAX / 8 || strings_at < HEADER_BYTES || strings_at > table_at ||
        table_at > body_end || (body_end - table_at) / 8 != games + 1 || (body_end - table_at) % 8 != 0)
        return SIDECAR_DAMAGED;
    s->games = (long)games;
    s->table = d + table_at;
    uint64_t prev = HEADER_BYTES;
    for (uint64_t k = 0; k <= games; k++) {
        uint64_t at = bytes_u64_at(s->table + 8 * k);
        if (at < prev || (k == 0 && at != HEADER_BYTES) || (k == games && at != strings_at))
            return SIDECAR_DAMAGED;
        prev = at;
    }
    if (nstrings > table_at - strings_at) return SIDECAR_DAMAGED;
    s->strings = xmalloc((size_t)(nstrings ? nstrings : 1) * sizeof *s->strings);
    s->nstrings = (size_t)nstrings;
    ByteCursor c = cursor_of(d + strings_at, (size_t)(table_at - strings_at));
    for (size_t i = 0; i < s->nstrings; i++) {
        uint64_t len = bytes_get_varint(&c);
        const unsigned char *p = len < cursor_left(&c) ? bytes_get(&c, (size_t)len + 1) : NULL;
        if (!p || p[len] != '\0' || memchr(p, '\0', (size_t)len)) return SIDECAR_DAMAGED;
        s->strings[i] = (const char *)p;
    }
    return cursor_left(&c) == 0 ? SIDECAR_OK : SIDECAR_DAMAGED;
}

SidecarStatus sidecar_from_bytes(Sidecar *s, unsigned char *data, size_t len, char *why, size_t why_size)
{
    memset(s, 0, sizeof *s);
    s->data = data;
    s->len = len;
    SidecarStatus st = read_sections(s, why, why_size);
    return st == SIDECAR_OK ? st : refuse(s, st, why, why_size, why);
}

SidecarStatus sidecar_open(Sidecar *s, const char *pgn_path, const char *sidecar_path, char *why,
                           size_t why_size)
{
    memset(s, 0, sizeof *s);
    errno = 0;
    if (!read_whole(s, sidecar_path)) {
        if (errno == ENOENT) return refuse(s, SIDECAR_MISSING, why, why_size, "there is none");
        char reason[200];
        if (errno == EINVAL) snprintf(reason, sizeof reason, "it is not a regular file");
        else snprintf(reason, sizeof reason, "it cannot be read: %s", strerror(errno));
        return refuse(s, SIDECAR_DAMAGED, why, why_size, reason);
    }
    SidecarStatus st = sidecar_from_bytes(s, s->data, s->len, why, why_size);
    if (st != SIDECAR_OK) return st;
    int fd = open(pgn_path, O_RDONLY);
    PgnIdentity now;
    bool known = fd >= 0 && identity_of(fd, &now);
    if (fd >= 0) close(fd);
    const unsigned char *h = s->data;
    const char *reason = !known                                  ? "the PGN file cannot be read"
                         : now.size != bytes_u64_at(h + 16)      ? "the PGN file's size differs"
                         : (uint64_t)now.mtime_sec != bytes_u64_at(h + 24) || now.mtime_nsec != bytes_u32_at(h + 32)
                             ? "the PGN file was modified after it"
                         : bytes_u32_at(h + 36) != ENDS_BYTES || now.head != bytes_u64_at(h + 40)
                             ? "the PGN file's first bytes differ"
                         : now.tail != bytes_u64_at(h + 48) ? "the PGN file's last bytes differ"
                                                            : NULL;
    if (reason) return refuse(s, SIDECAR_STALE, why, why_size, reason);
    return SIDECAR_OK;
}

void sidecar_close(Sidecar *s)
{
    free(s->data);
    free(s->strings);
    memset(s, 0, sizeof *s);
}

_Thread_local long sidecar_heads_read;

bool sidecar_game_head(const Sidecar *s, long k, SidecarGame *out)
{
    if (k < 1 || k > s->games) return false;
    sidecar_heads_read++;
    uint64_t at = bytes_u64_at(s->table + 8 * (size_t)(k - 1)), end = bytes_u64_at(s->table + 8 * (size_t)k);
    ByteCursor c = cursor_of(s->data + at, (size_t)(end - at));
    uint64_t line = bytes_get_varint(&c);
    out->first_line = (unsigned)line;
    out->text_size = bytes_get_varint(&c);
    out->offset = bytes_get_varint(&c);
    out->length = bytes_get_varint(&c);
    unsigned flags = bytes_get_u8(&c);
    out->clean = (flags & RECORD_CLEAN) != 0;
    out->quiet = (flags & RECORD_QUIET) != 0;
    out->rest = c;
    return !c.bad && line == out->first_line;
}

bool sidecar_game(const Sidecar *s, long k, SidecarGame *out)
{
    return sidecar_game_some(s, k, SUMMARY_ALL_PIECES, out);
}

bool sidecar_game_some(const Sidecar *s, long k, uint16_t pieces, SidecarGame *out)
{
    if (!sidecar_game_head(s, k, out)) return false;
    if (out->clean) summary_read_some(&out->rest, &out->summary, pieces);
    return !out->rest.bad;
}

/* The string of id (a varint of c), or NULL (c->bad) when there is none.
 * Most ids are one byte: read without a call (a game's tags are about 18
 * of them). */
static const char *string_at(const Sidecar *s, ByteCursor *c)
{
    uint64_t id = c->at < c->end && *c->at < 0x80 ? *c->at++ : bytes_get_varint(c);
    if (id >= s->nstrings) {
        c->bad = true;
        return NULL;
    }
    return s->strings[id];
}

/* sidecar_game_read's, the cursor c left where the game's codes begin when
 * `what` is SIDECAR_TREE. */
static bool read_game_head(const Sidecar *s, const SidecarGame *sg, long number, SidecarRead what, Game *g, Arena *a,
                           ByteCursor *at)
{
    if (!sg->clean) return false;
    ByteCursor c = sg->rest;
    memset(g, 0, sizeof *g);
    g->number = number;
    g->arena = a;
    uint64_t ntags = bytes_get_varint(&c);
    if (ntags > cursor_left(&c) / 2) return false;
    /* not zeroed (a string of `rep stos` where it was inlined: 1% of a
     * search's CPU): each tag's fields are all set below */
    g->tags = arena_alloc(a, sizeof(Tag) * (ntags ? (size_t)ntags : 1));
    for (uint64_t i = 0; i < ntags && !c.bad; i++) {
        Tag *t = &g->tags[g->tag_count++];
        t->name = string_at(s, &c);
        t->value = string_at(s, &c);
        t->plain = false;
        t->value_len = 0;
    }
    uint64_t result = bytes_get_varint(&c);
    if (result > s->nstrings) return false;
    g->result = result ? s->strings[result - 1] : NULL;
    if (c.bad) return false;
    if (what == SIDECAR_TAGS) return true;
    Position start;
    unsigned kind = bytes_get_u8(&c);
    if (kind == 0) pos_start(&start);
    else if (kind != 1 || !read_position(&c, &start)) return false;
    game_new_root(g, a, &start);
    *at = c;
    return true;
}

/* The codes at c, the record's last bytes. */
static bool read_codes(ByteCursor c, const unsigned char **codes, size_t *ncodes)
{
    uint64_t n = bytes_get_varint(&c);
    *codes = n <= cursor_left(&c) / 2 ? bytes_get(&c, (size_t)n * 2) : NULL;
    *ncodes = (size_t)n;
    return !c.bad && cursor_left(&c) == 0 && (*codes || n == 0);
}

bool sidecar_game_read(const Sidecar *s, const SidecarGame *sg, long number, SidecarRead what, Game *g, Arena *a)
{
    ByteCursor c;
    const unsigned char *codes;
    size_t ncodes;
    if (!read_game_head(s, sg, number, what, g, a, &c)) return false;
    return what != SIDECAR_TREE ||
           (read_codes(c, &codes, &ncodes) && movecode_read_tree(codes, ncodes, g, a));
}

bool sidecar_game_codes(const Sidecar *s, const SidecarGame *sg, long number, Game *g, Arena *a,
                        const unsigned char **codes, size_t *ncodes)
{
    ByteCursor c;
    return read_game_head(s, sg, number, SIDECAR_TREE, g, a, &c) && read_codes(c, codes, ncodes);
}

/* }==== */
