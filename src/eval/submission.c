/*
 * src/eval/submission.c — the positions of a file of submitted games, for
 * `similarposition` (see submission.h).
 *
 * A board is packed into four 64-bit words, a nibble per square (the Piece
 * code), and kept once per side to move in an open-addressing hash table;
 * its records form a list in the order recorded.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "eval/submission.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "pgn/reader.h"
#include "query/transform.h"

/* {==== boards =============================================================== */

/* A board, a nibble per square: the Piece code of square s is nibble s % 16
 * of word s / 16. */
typedef struct SubPackedBoard {
    uint64_t w[4];
} SubPackedBoard;

static void sub_pack_board(const uint8_t board[SQ_NB], SubPackedBoard *out)
{
    memset(out, 0, sizeof *out);
    for (int s = 0; s < SQ_NB; s++) out->w[s / 16] |= (uint64_t)(board[s] & 15u) << (4 * (s % 16));
}

static uint64_t sub_board_hash(const SubPackedBoard *b, uint8_t side)
{
    uint64_t h = side ? 0x9E3779B97F4A7C15ull : 0x632BE59BD9B4E019ull;
    for (int i = 0; i < 4; i++) {
        h = (h ^ b->w[i]) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    return h;
}

static bool sub_same_board(const SubPackedBoard *a, const SubPackedBoard *b)
{
    return memcmp(a->w, b->w, sizeof a->w) == 0;
}

/* }==== */

/* {==== transforms =========================================================== */

/* The transforms positions are recorded under: with pawns, the identity,
 * the 14 horizontal shifts, the a-h reflection and it followed by each shift
 * (PAWN_MAPS of them, first); without pawns, the 8 symmetries of the board
 * (from FIRST_DIHEDRAL on). Each list begins with the identity. */
enum { PAWN_MAPS = 30, FIRST_DIHEDRAL = PAWN_MAPS, MAP_COUNT = PAWN_MAPS + XF_NB };

static void sub_fill_maps(XfMap maps[MAP_COUNT])
{
    XfMap family[XF_FAMILY_MAX];
    int shifts = xf_family(TK_SHIFTHORIZONTAL, family);   /* the identity, then the 14 shifts */
    for (int i = 0; i < shifts; i++) {
        maps[i] = family[i];
        maps[shifts + i] = family[i];
        maps[shifts + i].dihedral = XF_FLIP_FILES;
    }
    int dihedral = xf_family(TK_FLIP, family);
    for (int i = 0; i < dihedral; i++) maps[FIRST_DIHEDRAL + i] = family[i];
}

static bool sub_map_is_identity(const XfMap *m)
{
    return m->dihedral == XF_IDENTITY && !m->files && !m->ranks && !m->eighth && !m->invert;
}

/* The image of board under m (a symmetry, then a shift along the ranks);
 * false when a piece would leave the board. */
static bool sub_map_board(const XfMap *m, const uint8_t board[SQ_NB], uint8_t image[SQ_NB])
{
    memset(image, 0, SQ_NB);
    for (Square s = 0; s < SQ_NB; s++) {
        if (!board[s]) continue;
        Square t = xf_square(m->dihedral, s);
        int file = file_of(t) + m->files;
        if (file < 0 || file > 7) return false;
        image[make_square(file, rank_of(t))] = board[s];
    }
    return true;
}

/* }==== */

/* {==== a file =============================================================== */

typedef struct SubmissionBoard {
    SubPackedBoard board;
    uint32_t first, last;      /* its first and last records */
    uint8_t side;
} SubmissionBoard;

struct SubmissionFile {
    char *name;
    SubmissionBoard *boards;
    uint32_t nboards, boards_cap;
    uint32_t *slots;           /* 1 + a board's index, 0: empty; slots_cap a power of 2 */
    uint32_t slots_cap;
    SubmissionRecord *records;
    uint32_t nrecords, records_cap;
    XfMap maps[MAP_COUNT];
    char *map_names[MAP_COUNT];
};

/* The slot where board b with side stands, or the empty one where it would go. */
static uint32_t *sub_find_slot(const SubmissionFile *f, const SubPackedBoard *b, uint8_t side)
{
    uint32_t mask = f->slots_cap - 1;
    for (uint32_t i = (uint32_t)sub_board_hash(b, side) & mask;; i = (i + 1) & mask) {
        uint32_t *slot = &f->slots[i];
        if (!*slot) return slot;
        const SubmissionBoard *e = &f->boards[*slot - 1];
        if (e->side == side && sub_same_board(&e->board, b)) return slot;
    }
}

static void sub_grow_slots(SubmissionFile *f)
{
    free(f->slots);
    f->slots_cap = f->slots_cap ? f->slots_cap * 2 : 1024;
    f->slots = xcalloc(f->slots_cap, sizeof *f->slots);
    for (uint32_t i = 0; i < f->nboards; i++) *sub_find_slot(f, &f->boards[i].board, f->boards[i].side) = i + 1;
}

static void sub_add_record(SubmissionFile *f, const SubPackedBoard *b, uint8_t side, SubmissionRecord r)
{
    if (2 * (f->nboards + 1) > f->slots_cap) sub_grow_slots(f);
    uint32_t *slot = sub_find_slot(f, b, side);
    if (f->nrecords == f->records_cap) {
        f->records_cap = f->records_cap ? f->records_cap * 2 : 1024;
        f->records = xrealloc(f->records, sizeof *f->records * f->records_cap);
    }
    uint32_t index = f->nrecords++;
    f->records[index] = r;
    if (!*slot) {
        if (f->nboards == f->boards_cap) {
            f->boards_cap = f->boards_cap ? f->boards_cap * 2 : 1024;
            f->boards = xrealloc(f->boards, sizeof *f->boards * f->boards_cap);
        }
        f->boards[f->nboards] = (SubmissionBoard){*b, index, index, side};
        *slot = ++f->nboards;
    } else {
        SubmissionBoard *e = &f->boards[*slot - 1];
        f->records[e->last].next = index + 1;
        e->last = index;
    }
}

/* Records one position of game G at move M under its transforms. False when
 * the file gives too many records. */
static bool sub_record_position(SubmissionFile *f, const Position *pos, int32_t game, int32_t move)
{
    bool pawns = pos->by_type[PAWN] != 0;
    int first = pawns ? 0 : FIRST_DIHEDRAL, end = pawns ? PAWN_MAPS : MAP_COUNT;
    SubPackedBoard images[MAP_COUNT];
    int nimages = 0;
    for (int m = first; m < end; m++) {
        uint8_t image[SQ_NB];
        if (!sub_map_board(&f->maps[m], pos->board, image)) continue;
        SubPackedBoard packed;
        sub_pack_board(image, &packed);
        bool seen = false;   /* the same image by an earlier transform of this position */
        for (int i = 0; i < nimages && !seen; i++) seen = sub_same_board(&images[i], &packed);
        if (seen) continue;
        if (f->nrecords == SUBMISSION_MAX_RECORDS) return false;
        images[nimages++] = packed;
        sub_add_record(f, &packed, pos->side, (SubmissionRecord){game, move, 0, (uint8_t)m});
    }
    return true;
}

static void sub_file_free(SubmissionFile *f)
{
    if (!f) return;
    for (int i = 0; i < MAP_COUNT; i++) free(f->map_names[i]);
    free(f->name);
    free(f->boards);
    free(f->slots);
    free(f->records);
    free(f);
}

/* Opens path for reading as a PGN file: a regular file whose first bytes
 * hold no NUL. NULL after reporting. */
static FILE *sub_open_file(const char *path, DiagSink *diag)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        diag_plain(diag, DIAG_ERROR, "similarposition: cannot open the file '%s': %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    const char *problem = NULL;
    if (fstat(fileno(fp), &st) != 0) problem = strerror(errno);
    else if (!S_ISREG(st.st_mode)) problem = "it is not a regular file";
    if (!problem) {
        char head[4096];
        size_t got = fread(head, 1, sizeof head, fp);
        if (ferror(fp)) problem = strerror(errno);
        else if (memchr(head, '\0', got)) problem = "it is not a PGN file (it holds binary data)";
        else rewind(fp);
    }
    if (problem) {
        diag_plain(diag, DIAG_ERROR, "similarposition: cannot read the file '%s': %s", path, problem);
        fclose(fp);
        return NULL;
    }
    return fp;
}

/* Reads every game of path; NULL after reporting. */
static SubmissionFile *sub_file_read(const char *path, StrBuf *printed, DiagSink *diag)
{
    FILE *fp = sub_open_file(path, diag);
    if (!fp) return NULL;
    SubmissionFile *f = xcalloc(1, sizeof *f);
    f->name = xstrdup(path);
    sub_fill_maps(f->maps);
    for (int i = 0; i < MAP_COUNT; i++) {
        StrBuf name = SB_INIT;
        xf_map_name(&f->maps[i], &name);
        f->map_names[i] = xstrdup(sb_str(&name));
        sb_free(&name);
    }
    PgnReader reader;
    pgn_open_stream(&reader, fp, path, diag);
    RawGame raw;
    raw_game_init(&raw);
    Arena arena;
    arena_init_growing(&arena, (size_t)16 << 10, (size_t)256 << 10);
    long games = 0;
    bool ok = true;
    while (ok && pgn_next_raw(&reader, &raw)) {
        arena_reset(&arena);
        Game g;
        PgnParseStatus status = pgn_parse_game(&raw, path, &arena, &g, diag);
        if (status != PGN_OK) {
            diag_plain(diag, DIAG_ERROR, "similarposition: game %ld of the file '%s' has an error (above): "
                       "its positions are not all known", raw.number, path);
            ok = false;
            break;
        }
        games++;
        int black_first = g.root->pos.side == BLACK;
        for (const GameNode *n = g.root; n && ok; n = n->child) {
            int32_t move = 1 + (n->ply + black_first) / 2;
            if (!sub_record_position(f, &n->pos, (int32_t)g.number, move)) {
                diag_plain(diag, DIAG_ERROR, "similarposition: the file '%s' gives more than %d positions to "
                           "look for (with their transforms), at game %ld", path, SUBMISSION_MAX_RECORDS, g.number);
                ok = false;
            }
        }
    }
    if (ok && reader.io_error) {
        diag_plain(diag, DIAG_ERROR, "similarposition: cannot read the file '%s'", path);
        ok = false;
    }
    if (ok && games == 0) {
        diag_plain(diag, DIAG_ERROR, "similarposition: the file '%s' has no game", path);
        ok = false;
    }
    if (ok) sb_printf(printed, "Db: read %ld games from submission file: %s\n", games, path);
    arena_free(&arena);
    raw_game_free(&raw);
    pgn_close(&reader);
    fclose(fp);
    if (ok) return f;
    sub_file_free(f);
    return NULL;
}

const SubmissionRecord *submission_first(const SubmissionFile *f, const Position *pos)
{
    if (!f->nboards) return NULL;
    SubPackedBoard b;
    sub_pack_board(pos->board, &b);
    uint32_t slot = *sub_find_slot(f, &b, pos->side);
    return slot ? &f->records[f->boards[slot - 1].first] : NULL;
}

const SubmissionRecord *submission_next(const SubmissionFile *f, const SubmissionRecord *r)
{
    return r->next ? &f->records[r->next - 1] : NULL;
}

const char *submission_transform_name(const SubmissionFile *f, const SubmissionRecord *r)
{
    return f->map_names[r->transform];
}

bool submission_is_identity(const SubmissionFile *f, const SubmissionRecord *r)
{
    return sub_map_is_identity(&f->maps[r->transform]);
}

/* }==== */

/* {==== the files of a query ================================================= */

static bool sub_has_similarposition(const Node *n, void *ctx)
{
    if (n->kind == ND_SIMILARPOSITION) *(bool *)ctx = true;
    return !*(bool *)ctx;
}

bool submissions_needed(const Query *q)
{
    bool found = false;
    ast_walk(q->body, sub_has_similarposition, &found);
    return found;
}

typedef struct SubReading {
    Submissions *s;
    StrBuf *printed;
    DiagSink *diag;
    bool failed;
} SubReading;

static bool sub_read_file_of(const Node *n, void *ctx)
{
    SubReading *r = ctx;
    if (r->failed) return false;
    if (n->kind != ND_SIMILARPOSITION || submissions_find(r->s, n->text)) return true;
    SubmissionFile *f = sub_file_read(n->text, r->printed, r->diag);
    if (!f) {
        r->failed = true;
        return false;
    }
    r->s->files = xrealloc(r->s->files, sizeof *r->s->files * (size_t)(r->s->count + 1));
    r->s->files[r->s->count++] = f;
    return true;
}

bool submissions_read(Submissions *s, const Query *q, StrBuf *printed, DiagSink *diag)
{
    SubReading r = {s, printed, diag, false};
    ast_walk(q->body, sub_read_file_of, &r);
    return !r.failed;
}

void submissions_free(Submissions *s)
{
    for (int i = 0; i < s->count; i++) sub_file_free(s->files[i]);
    free(s->files);
    s->files = NULL;
    s->count = 0;
}

const SubmissionFile *submissions_find(const Submissions *s, const char *path)
{
    for (int i = 0; s && i < s->count; i++)
        if (strcmp(s->files[i]->name, path) == 0) return s->files[i];
    return NULL;
}

/* }==== */
