/*
 * src/query/transform.c — the transform pass: transform filters become orbits
 * (src/query/transform.h; the formal semantics are
 * ../shared/spec/seeds/000_be6cd80976a92d02.txt, followed to the letter).
 *
 * Owns the tables of the eight board symmetries (squares, directions, square
 * colours), filled once from their 2x2 matrices; the basic transforms of
 * each transform keyword (a data table); applying a basic transform to a
 * filter; orbits (invalid images dropped, duplicates removed by structural
 * equality); each member's guard; the --dump-orbit text.
 *
 * Invariants: the AST that comes out lives in the query's arena; the pass
 * works in two private arenas (one for the image being made, one for its
 * own tables), both freed before it returns. Images keep the spans of the
 * user's text, so messages and --dump-orbit point at what was written. The
 * images kept hold at most XF_MAX_FILTERS nodes in all: each one is counted
 * before it is copied; and the pass maps at most XF_MAX_MAPPED nodes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "query/transform.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "chess/bitboard.h"
#include "query/filters.h"
#include "query/lexer.h"
#include "query/sema.h"

#define LENGTH(array) (sizeof (array) / sizeof (array)[0])

/* {==== the symmetries of the board ========================================= */

/* A symmetry as a matrix on board coordinates centred on the middle of the
 * board (x = 2 * file - 7, y = 2 * rank - 7): (x, y) -> (xx x + xy y, yx x + yy y). */
typedef struct Matrix {
    int8_t xx, xy, yx, yy;
} Matrix;

static const Matrix dihedral_matrix[XF_NB] = {
    [XF_IDENTITY] = {1, 0, 0, 1},
    [XF_ROTATE90] = {0, -1, 1, 0},
    [XF_ROTATE180] = {-1, 0, 0, -1},
    [XF_ROTATE270] = {0, 1, -1, 0},
    [XF_FLIP_RANKS] = {1, 0, 0, -1},
    [XF_FLIP_FILES] = {-1, 0, 0, 1},
    [XF_FLIP_DIAG] = {0, 1, 1, 0},
    [XF_FLIP_ANTIDIAG] = {0, -1, -1, 0},
};

/* Filled once by fill_tables, read-only afterwards. */
static uint8_t xf_square_table[XF_NB][SQ_NB];
static uint8_t xf_direction_table[XF_NB][DIR_NB];
static bool xf_swaps_colours_table[XF_NB];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void apply_matrix(const Matrix *m, int x, int y, int *ox, int *oy)
{
    *ox = m->xx * x + m->xy * y;
    *oy = m->yx * x + m->yy * y;
}

static void fill_tables(void)
{
    for (int d = 0; d < XF_NB; d++) {
        const Matrix *m = &dihedral_matrix[d];
        for (Square s = 0; s < SQ_NB; s++) {
            int x, y;
            apply_matrix(m, 2 * file_of(s) - 7, 2 * rank_of(s) - 7, &x, &y);
            xf_square_table[d][s] = (uint8_t)make_square((x + 7) / 2, (y + 7) / 2);
        }
        for (int dir = 0; dir < DIR_NB; dir++) {
            int x, y;
            apply_matrix(m, dir_file_step[dir], dir_rank_step[dir], &x, &y);
            for (int k = 0; k < DIR_NB; k++)
                if (dir_file_step[k] == x && dir_rank_step[k] == y) xf_direction_table[d][dir] = (uint8_t)k;
        }
        /* a1 is dark: the map swaps colours when its image is light */
        Square a1 = xf_square_table[d][SQ_A1];
        xf_swaps_colours_table[d] = (file_of(a1) + rank_of(a1)) % 2 == 1;
    }
}

void xf_init(void)
{
    pthread_once(&tables_once, fill_tables);
}

Square xf_square(XfDihedral d, Square s)
{
    xf_init();
    return xf_square_table[d][s];
}

Direction xf_direction(XfDihedral d, Direction dir)
{
    xf_init();
    return (Direction)xf_direction_table[d][dir];
}

bool xf_swaps_square_colours(XfDihedral d)
{
    xf_init();
    return xf_swaps_colours_table[d];
}

/* }==== */

/* {==== basic transforms on squares, directions, colours ===================== */

/* The complete ranks (files) of b. */
static Bitboard complete_ranks(Bitboard b)
{
    Bitboard r = 0;
    for (int i = 0; i < 8; i++)
        if ((b & rank_bb(i)) == rank_bb(i)) r |= rank_bb(i);
    return r;
}

static Bitboard complete_files(Bitboard b)
{
    Bitboard r = 0;
    for (int i = 0; i < 8; i++)
        if ((b & file_bb(i)) == file_bb(i)) r |= file_bb(i);
    return r;
}

/* The seed's U^n along files or ranks: every square moves n steps (squares
 * leaving the board are dropped), except that a complete line along the
 * shift stays where it is. */
static Bitboard shift_files(Bitboard b, int n)
{
    Bitboard moved = n >= 0 ? bb_shift(b, DIR_E, n) : bb_shift(b, DIR_W, -n);
    return moved | complete_ranks(b);
}

static Bitboard shift_ranks(Bitboard b, int n)
{
    Bitboard moved = n >= 0 ? bb_shift(b, DIR_N, n) : bb_shift(b, DIR_S, -n);
    return moved | complete_files(b);
}

Bitboard xf_map_squares(const XfMap *m, Bitboard squares)
{
    xf_init();
    /* most images are shifts alone: no square by square map then, and no
     * shift along a line by 0 */
    Bitboard image = squares;
    if (m->dihedral != XF_IDENTITY) {
        image = 0;
        for (Bitboard b = squares; b;) image |= sq_bb(xf_square_table[m->dihedral][bb_pop_lsb(&b)]);
    }
    if (m->files) image = shift_files(image, m->files);
    if (m->ranks) image = shift_ranks(image, m->ranks);
    return image;
}

uint8_t xf_map_directions(const XfMap *m, uint8_t dirs)
{
    xf_init();
    uint8_t image = 0;
    for (int d = 0; d < DIR_NB; d++)
        if (dirs & (1u << d)) image |= (uint8_t)(1u << ((xf_direction_table[m->dihedral][d] + m->eighth) % DIR_NB));
    return image;
}

/* Whether light squares become dark ones: the symmetry says, and a shift by
 * an odd number of steps swaps them again. An image with a 45° turn has no
 * map of squares (its square designators are all squares or none), so the
 * seed gives light and dark no image: they are kept as they are. */
static bool map_swaps_square_colours(const XfMap *m)
{
    return !m->eighth && xf_swaps_colours_table[m->dihedral] != ((m->files + m->ranks) % 2 != 0);
}

/* A designator's mask has bit p for Piece p: white pieces are bits 1-6,
 * black ones bits 9-14, bit 0 is the empty square. */
#define WHITE_PIECE_BITS 0x007Eu
#define BLACK_PIECE_BITS 0x7E00u

static uint16_t swap_piece_colours(uint16_t pieces)
{
    return (uint16_t)((pieces & 1u) | ((pieces & WHITE_PIECE_BITS) << 8) | ((pieces & BLACK_PIECE_BITS) >> 8));
}

/* }==== */

/* {==== the basic transforms of each transform keyword ====================== */

#define D4_BIT(d) (1u << (d))
#define D4_ALL 0xFFu
#define D4_ROTATIONS (D4_BIT(XF_IDENTITY) | D4_BIT(XF_ROTATE90) | D4_BIT(XF_ROTATE180) | D4_BIT(XF_ROTATE270))

/* The seed's table of basic transforms: the symmetries taken as they are,
 * those taken with colour inversion, whether 45° turns are added, and how far
 * shifts reach along files and ranks. Read literally (fliphorizontal is
 * reflecth, about the horizontal bisector; flipvertical is reflectv), it
 * agrees with every conformance vector (`fliphorizontal {Ka1}`,
 * `flipvertical {Kg1}`, `reversecolor {Kg1}` ...). */
typedef struct XfFamily {
    TokKind op;
    uint8_t plain;        /* D4_BIT(d) for each symmetry d */
    uint8_t inverted;     /* D4_BIT(d) for each invertcolor ∘ d */
    bool eighths;         /* rotate45: every symmetry also with a 45° turn */
    int8_t files, ranks;  /* shifts by -files..files and -ranks..ranks */
} XfFamily;

static const XfFamily families[] = {
    {TK_FLIP, D4_ALL, 0, false, 0, 0},
    {TK_FLIPCOLOR, D4_BIT(XF_IDENTITY), D4_BIT(XF_FLIP_RANKS), false, 0, 0},
    {TK_FLIPHORIZONTAL, D4_BIT(XF_IDENTITY) | D4_BIT(XF_FLIP_RANKS), 0, false, 0, 0},
    {TK_FLIPVERTICAL, D4_BIT(XF_IDENTITY) | D4_BIT(XF_FLIP_FILES), 0, false, 0, 0},
    {TK_REVERSECOLOR, 0, D4_BIT(XF_FLIP_RANKS), false, 0, 0},
    {TK_ROTATE90, D4_ROTATIONS, 0, false, 0, 0},
    {TK_ROTATE45, D4_ROTATIONS, 0, true, 0, 0},
    {TK_SHIFT, D4_BIT(XF_IDENTITY), 0, false, 7, 7},
    {TK_SHIFTHORIZONTAL, D4_BIT(XF_IDENTITY), 0, false, 7, 0},
    {TK_SHIFTVERTICAL, D4_BIT(XF_IDENTITY), 0, false, 0, 7},
};

/* Shift distances in orbit order: 0, 1 ... n, -1 ... -n. */
static int8_t shift_at(int i, int n)
{
    return (int8_t)(i <= n ? i : n - i);
}

int xf_family(TokKind op, XfMap *out)
{
    const XfFamily *f = NULL;
    for (size_t i = 0; i < LENGTH(families); i++)
        if (families[i].op == op) f = &families[i];
    if (!f) return 0;
    int n = 0;
    for (int d = 0; d < XF_NB; d++)
        for (int eighth = 0; eighth <= f->eighths; eighth++)
            for (int invert = 0; invert < 2; invert++) {
                if (!((invert ? f->inverted : f->plain) & D4_BIT(d))) continue;
                for (int i = 0; i <= 2 * f->files; i++)
                    for (int j = 0; j <= 2 * f->ranks; j++)
                        out[n++] = (XfMap){(XfDihedral)d, eighth, invert, shift_at(i, f->files), shift_at(j, f->ranks)};
            }
    return n;
}

/* }==== */

/* {==== applying a basic transform to a filter =============================== */

typedef enum MapResult { MAP_OK, MAP_INVALID, MAP_UNDEFINED } MapResult;

typedef struct Mapper {
    const XfMap *map;
    Arena *arena;
    Arena *names;          /* where the names `currenttransform` gets are kept */
    const Node *culprit;   /* the designator that made the image invalid or undefined */
} Mapper;

static const char *const result_pairs[][2] = {{"1-0", "0-1"}};

/* A rectangle file_lo-file_hi x rank_lo-rank_hi of squares, without a
 * loop: parts_of_set asks for thousands of them for each image of an orbit
 * (the files of one rank, copied to every rank; the ranks, as a run of
 * whole bytes). */
static Bitboard rectangle_squares(SquarePart p)
{
    Bitboard one_rank = ((2u << p.file_hi) - (1u << p.file_lo)) & 0xFFu;
    Bitboard files = one_rank * 0x0101010101010101ULL;
    Bitboard ranks = (~0ULL >> (8 * (7 - p.rank_hi))) & (~0ULL << (8 * p.rank_lo));
    return files & ranks;
}

/* The rectangle of `left` with its lower left corner at s, grown along the
 * rank as far as it goes and then along the file (or the other way round). */
static SquarePart grow_part(Bitboard left, Square s, bool rank_first)
{
    SquarePart p = {(uint8_t)file_of(s), (uint8_t)file_of(s), (uint8_t)rank_of(s), (uint8_t)rank_of(s)};
    for (int pass = 0; pass < 2; pass++) {
        bool along_rank = (pass == 0) == rank_first;
        for (;;) {
            SquarePart next = p;
            if (along_rank && p.file_hi < 7) next.file_hi++;
            else if (!along_rank && p.rank_hi < 7) next.rank_hi++;
            else break;
            if ((rectangle_squares(next) & left) != rectangle_squares(next)) break;
            p = next;
        }
    }
    return p;
}

/* Square parts for a set of squares, as one would write them: the largest
 * rectangle first (the lowest corner on ties), then the largest of what is
 * left ... (reflectv [a1-8,b3] is [h1-8,g3]; rotate90 [a1-8,b3] is
 * [a-h1,f2]). The parts depend only on the set, so equal sets give equal
 * designators. */
static uint8_t parts_of_set(Bitboard b, SquarePart *out)
{
    uint8_t n = 0;
    while (b) {
        SquarePart best = {0, 0, 0, 0};
        int best_size = 0;
        for (Bitboard corners = b; corners;) {
            Square s = bb_pop_lsb(&corners);
            for (int rank_first = 1; rank_first >= 0; rank_first--) {
                SquarePart p = grow_part(b, s, rank_first);
                int size = bb_popcount(rectangle_squares(p));
                if (size > best_size) {
                    best = p;
                    best_size = size;
                }
            }
        }
        out[n++] = best;
        b &= ~rectangle_squares(best);
    }
    return n;
}

/* Gives d the squares b, written as parts_of_set writes them. */
static void set_squares(Arena *a, Designator *d, Bitboard b)
{
    SquarePart parts[SQ_NB];
    d->nparts = parts_of_set(b, parts);
    d->parts = ARENA_ARRAY(a, SquarePart, d->nparts);
    memcpy(d->parts, parts, d->nparts * sizeof *parts);
    d->squares = b;
    d->has_square_part = true;
    d->all_squares_symbol = false;
}

/* A square designator moves as a unit: the image of its whole set. The
 * written parts are kept while the set does not change. */
static MapResult map_designator(Mapper *mp, Node *n)
{
    Designator *d = n->desig;
    const XfMap *m = mp->map;
    if (m->invert) d->pieces = swap_piece_colours(d->pieces);
    if (m->eighth && d->squares != ALL_SQUARES_BB && d->squares != 0) {
        mp->culprit = n;
        return MAP_UNDEFINED;
    }
    Bitboard image = xf_map_squares(m, d->squares);
    if (!image) {
        mp->culprit = n;
        return MAP_INVALID;
    }
    if (image != d->squares) set_squares(mp->arena, d, image);
    return MAP_OK;
}

/* The direction words (filters.def: the spellings of ND_DIRECTION, whose arg
 * is the mask), the largest groups first, so that direction_text covers a
 * mask with them in order. */
typedef struct DirectionWord {
    TokKind tok;
    uint8_t dirs;
} DirectionWord;

enum { DIRECTION_WORDS_MAX = 32 };

static size_t direction_words(DirectionWord *out)
{
    TokKind toks[DIRECTION_WORDS_MAX];
    size_t n = filter_keywords(ND_DIRECTION, toks, DIRECTION_WORDS_MAX);
    assert(n <= DIRECTION_WORDS_MAX);
    for (size_t i = 0; i < n; i++) out[i] = (DirectionWord){toks[i], (uint8_t)filter_keyword_arg(toks[i])};
    return n;
}

/* The direction keyword of a mask that has one (ND_DIRECTION's op), or TK_EOF. */
static TokKind direction_word(uint8_t dirs)
{
    DirectionWord words[DIRECTION_WORDS_MAX];
    size_t n = direction_words(words);
    for (size_t i = 0; i < n; i++)
        if (words[i].dirs == dirs) return words[i].tok;
    return TK_EOF;
}

/* The names are those of cql62-remaining.md §13. */
void xf_map_name(const XfMap *m, StrBuf *sb)
{
    static const char *const dihedral_names[XF_NB] = {
        [XF_IDENTITY] = "", [XF_ROTATE90] = "counterclockwise90", [XF_ROTATE180] = "rotate180",
        [XF_ROTATE270] = "clockwise90", [XF_FLIP_RANKS] = "reflect_h", [XF_FLIP_FILES] = "reflect_v",
        [XF_FLIP_DIAG] = "reflect_a1h8", [XF_FLIP_ANTIDIAG] = "reflect_a8h1",
    };
    static const int quarter_turns[XF_NB] = {[XF_ROTATE90] = 1, [XF_ROTATE180] = 2, [XF_ROTATE270] = 3};
    if (m->invert) sb_append(sb, "invertcolor");
    if (m->eighth) {
        sb_printf(sb, "%srotate45^%d", sb->len ? " " : "", 2 * quarter_turns[m->dihedral] + 1);
    } else if (m->dihedral != XF_IDENTITY) {
        sb_printf(sb, "%s%s", sb->len ? " " : "", dihedral_names[m->dihedral]);
    }
    if (m->files) sb_printf(sb, "%s%s^%d", sb->len ? " " : "", m->files > 0 ? "right" : "left", abs(m->files));
    if (m->ranks) sb_printf(sb, "%s%s^%d", sb->len ? " " : "", m->ranks > 0 ? "up" : "down", abs(m->ranks));
}

/* `currenttransform` in an image: the name of the transform is put in at
 * n->num, after the names of the enclosing orbits (made before this one)
 * and before those of the transforms inside this one's chain (applied
 * before it): outermost first. */
static void name_image(Mapper *mp, Node *n)
{
    StrBuf name = SB_INIT;
    xf_map_name(mp->map, &name);
    if (name.len) {
        const char *old = n->text ? n->text : "";
        size_t len = strlen(old);
        size_t at = n->num > 0 && (size_t)n->num < len ? (size_t)n->num : n->num > 0 ? len : 0;
        StrBuf sb = SB_INIT;
        sb_append_n(&sb, old, at);
        if (at) sb_putc(&sb, ' ');
        sb_append(&sb, sb_str(&name));
        if (old[at]) sb_printf(&sb, " %s", old + at + (old[at] == ' '));
        n->text = arena_strdup(mp->names, sb_str(&sb));
        sb_free(&sb);
    }
    sb_free(&name);
}

/* The payload of one node, as its row's transform column says (its children
 * are mapped by map_node). */
static MapResult map_payload(Mapper *mp, Node *n)
{
    const XfMap *m = mp->map;
    const FilterInfo *f = filter_info(n->kind);
    if (n->kind == ND_CURRENTTRANSFORM) name_image(mp, n);
    switch (f->transform) {
    case XR_SQUARES:
        return map_designator(mp, n);
    case XR_DIRECTIONS:
        n->dirs = xf_map_directions(m, n->dirs);
        if (n->op != TK_EOF) n->op = direction_word(n->dirs);   /* written as one direction word */
        break;
    case XR_SQUARE_COLOUR:
        if (map_swaps_square_colours(m)) n->kind = f->partner;
        break;
    case XR_COLOUR:
        if (m->invert) n->kind = f->partner;
        break;
    case XR_SIDES:
        if (m->invert && (n->flags & (NF_WHITE | NF_BLACK))) n->flags ^= NF_WHITE | NF_BLACK;
        break;
    case XR_RESULT:
        if (!m->invert) break;
        for (size_t i = 0; i < LENGTH(result_pairs); i++)
            for (int side = 0; side < 2; side++)
                if (strcmp(n->text, result_pairs[i][side]) == 0) {
                    n->text = result_pairs[i][!side];
                    return MAP_OK;
                }
        break;
    default:
        break;
    }
    return MAP_OK;
}

/* Maps n and its constituents in place; `notransform F` is left alone. */
static MapResult map_node(Mapper *mp, Node *n)
{
    if (!n || filter_info(n->kind)->transform == XR_OPAQUE) return MAP_OK;
    MapResult r = map_payload(mp, n);
    for (uint32_t i = 0; i < n->nkids && r == MAP_OK; i++) r = map_node(mp, n->kids[i]);
    return r;
}

Node *xf_apply(Arena *a, const XfMap *m, const Node *f)
{
    xf_init();
    Node *image = ast_clone(a, f);
    Mapper mp = {m, a, a, NULL};
    return map_node(&mp, image) == MAP_OK ? image : NULL;
}

/* }==== */

/* {==== orbits =============================================================== */

/* Orbits larger than this are refused (an orbit is built once, but each of
 * its members is evaluated at every position). */
#define ORBIT_MAX_MEMBERS 100000

static uint64_t hash_mix(uint64_t h, uint64_t x)
{
    h ^= x + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    return h * 0x100000001B3ULL;
}

/* A hash of what ast_equal compares (equal filters hash alike). */
static uint64_t hash_node(const Node *n)
{
    if (!n) return 0x5bd1e995;
    uint64_t h = hash_mix((uint64_t)n->kind, (uint64_t)n->type);
    h = hash_mix(h, n->nkids);
    if (n->kind != ND_CURRENTTRANSFORM) h = hash_mix(h, (uint64_t)n->num);
    h = hash_mix(h, (uint64_t)n->num2);
    h = hash_mix(h, n->flags);
    h = hash_mix(h, (uint64_t)(int64_t)n->slot);
    h = hash_mix(h, (uint64_t)n->op);
    h = hash_mix(h, n->dirs);
    if (n->text && n->kind != ND_CURRENTTRANSFORM)   /* a prefix is enough (ast_equal decides): a query's strings can be long */
        for (const char *s = n->text; *s && s < n->text + 32; s++) h = hash_mix(h, (unsigned char)*s);
    if (n->desig) {
        const Designator *d = n->desig;
        h = hash_mix(h, d->pieces);
        h = hash_mix(h, d->squares);
        h = hash_mix(h, (uint64_t)d->has_piece_part << 2 | (uint64_t)d->has_square_part << 1 | d->all_squares_symbol);
        for (uint8_t i = 0; i < d->nparts; i++) {
            SquarePart p = d->parts[i];
            h = hash_mix(h, (uint64_t)p.file_lo << 24 | (uint64_t)p.file_hi << 16 | (uint64_t)p.rank_lo << 8 | p.rank_hi);
        }
    }
    for (uint32_t i = 0; i < n->nkids; i++) h = hash_mix(h, hash_node(n->kids[i]));
    return h;
}

/* A set of distinct filters in the order they were added. */
typedef struct ImageSet {
    Node **items;
    uint32_t count, cap;
    /* a hash table by open addressing: slot i holds hashes[i] and, in
     * slots[i], the index + 1 of its item (0: the slot is free) */
    uint64_t *hashes;
    uint32_t *slots;
    uint32_t nslots;       /* a power of two, at least twice count */
} ImageSet;

static void images_init(ImageSet *s, Arena *work)
{
    memset(s, 0, sizeof *s);
    s->nslots = 64;
    s->hashes = ARENA_ARRAY(work, uint64_t, s->nslots);
    s->slots = ARENA_ARRAY(work, uint32_t, s->nslots);
}

static uint32_t images_find_slot(const ImageSet *s, uint64_t h, const Node *n, bool *found)
{
    uint32_t i = (uint32_t)h & (s->nslots - 1);
    for (; s->slots[i]; i = (i + 1) & (s->nslots - 1))
        if (s->hashes[i] == h && ast_equal(s->items[s->slots[i] - 1], n)) {
            *found = true;
            return i;
        }
    *found = false;
    return i;
}

static void images_grow(ImageSet *s, Arena *work)
{
    ImageSet bigger = *s;
    bigger.nslots = s->nslots * 2;
    bigger.hashes = ARENA_ARRAY(work, uint64_t, bigger.nslots);
    bigger.slots = ARENA_ARRAY(work, uint32_t, bigger.nslots);
    for (uint32_t i = 0; i < s->nslots; i++) {
        if (!s->slots[i]) continue;
        uint32_t j = (uint32_t)s->hashes[i] & (bigger.nslots - 1);
        while (bigger.slots[j]) j = (j + 1) & (bigger.nslots - 1);
        bigger.hashes[j] = s->hashes[i];
        bigger.slots[j] = s->slots[i];
    }
    *s = bigger;
}

typedef struct Pass {
    const Query *q;        /* whose text the spans are in */
    const SourceText *src; /* its text */
    DiagSink *diag;
    Arena *keep;           /* where kept images go: the query's arena, or `work` */
    Arena work;            /* the pass's own tables */
    Arena image;           /* the image being made, reset after each */
    const Node *outermost; /* the outermost transform being expanded */
    uint64_t filters;      /* nodes of the images kept so far (XF_MAX_FILTERS) */
    uint64_t mapped;       /* nodes mapped so far, dropped images included (XF_MAX_MAPPED) */
    bool ok;
} Pass;

/* Adds a copy of n (made in `keep`) unless an equal filter is there. False
 * after reporting that the copy would take the pass over its budget: the
 * budget is checked before the copy is made, so memory stays bounded. */
static bool images_add(Pass *p, ImageSet *s, const Node *n)
{
    uint64_t h = hash_node(n);
    bool found;
    uint32_t slot = images_find_slot(s, h, n, &found);
    if (found) return true;
    uint64_t left = XF_MAX_FILTERS - p->filters;
    uint64_t size = ast_count(n, left);
    if (size > left) {
        diag_at(p->diag, p->src, p->outermost->span, DIAG_ERROR, "transforms expand to more than %d filters",
                XF_MAX_FILTERS);
        return false;
    }
    p->filters += size;
    if (s->count == s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 16;
        s->items = arena_realloc(&p->work, s->items, s->cap * sizeof *s->items, cap * sizeof *s->items);
        s->cap = cap;
    }
    s->items[s->count++] = ast_clone(p->keep, n);
    s->hashes[slot] = h;
    s->slots[slot] = s->count;
    if (2 * s->count > s->nslots) images_grow(s, &p->work);
    return true;
}

/* keep: the arena of the images kept, NULL for the pass's own. */
static void pass_init(Pass *p, const Query *q, Arena *keep, DiagSink *diag)
{
    xf_init();
    p->q = q;
    p->src = &q->src;
    p->diag = diag;
    arena_init(&p->work, 64 * 1024);
    arena_init(&p->image, 16 * 1024);
    p->keep = keep ? keep : &p->work;
    p->outermost = NULL;
    p->filters = 0;
    p->mapped = 0;
    p->ok = true;
}

static void pass_free(Pass *p)
{
    arena_free(&p->work);
    arena_free(&p->image);
}

/* At most this many directly nested transforms compose; a deeper one is
 * an argument like any filter (its orbit is made in each image). */
#define CHAIN_MAX 64

/* The argument under a chain of directly nested transforms, and the chain
 * itself, outermost first; *count when one of them has `count`. */
static const Node *transform_chain(const Node *t, const Node **chain, int *n, bool *count)
{
    *n = 0;
    *count = false;
    for (; t->kind == ND_TRANSFORM && *n < CHAIN_MAX; t = t->kids[0]) {
        chain[(*n)++] = t;
        if (t->flags & NF_COUNT) *count = true;
    }
    return t;
}

/* Each `currenttransform` under n gets the names of this orbit's transforms
 * after those it has (of the enclosing orbits). */
static void mark_name_insertion(Node *n)
{
    if (!n) return;
    if (n->kind == ND_CURRENTTRANSFORM) n->num = n->text ? (int64_t)strlen(n->text) : 0;
    for (uint32_t i = 0; i < n->nkids; i++) mark_name_insertion(n->kids[i]);
}

/* The distinct valid images of transform t's argument under the
 * composition of t and the transforms directly inside it: the innermost
 * transform first, then each outer one on the images so far (X∘Y G is
 * X applied to the orbit of Y on G). NULL after reporting an error. */
static ImageSet *orbit_images(Pass *p, const Node *t)
{
    const Node *chain[CHAIN_MAX];
    int depth;
    bool count;
    const Node *arg = transform_chain(t, chain, &depth, &count);
    ImageSet *cur = ARENA_NEW(&p->work, ImageSet);
    images_init(cur, &p->work);
    if (!images_add(p, cur, arg)) return NULL;
    mark_name_insertion(cur->items[0]);
    XfMap maps[XF_FAMILY_MAX];
    for (int level = depth - 1; level >= 0; level--) {
        ImageSet *next = ARENA_NEW(&p->work, ImageSet);
        images_init(next, &p->work);
        int nmaps = xf_family(chain[level]->op, maps);
        for (int m = 0; m < nmaps; m++)
            for (uint32_t i = 0; i < cur->count; i++) {
                uint64_t left = XF_MAX_MAPPED - p->mapped, size = ast_count(cur->items[i], left);
                if (size > left) {
                    diag_at(p->diag, p->src, p->outermost->span, DIAG_ERROR,
                            "transforms make more than %d filter images to expand (duplicates included)",
                            XF_MAX_MAPPED);
                    return NULL;
                }
                p->mapped += size;
                Node *image = ast_clone(&p->image, cur->items[i]);
                Mapper mp = {&maps[m], &p->image, p->keep, NULL};
                MapResult r = map_node(&mp, image);
                if (r == MAP_UNDEFINED) {
                    diag_at(p->diag, p->src, mp.culprit->span, DIAG_ERROR,
                            "'rotate45' needs square designators that cover the whole board");
                    return NULL;
                }
                bool added = r != MAP_OK || images_add(p, next, image);
                arena_reset(&p->image);
                if (!added) return NULL;
                if (next->count > ORBIT_MAX_MEMBERS) {
                    diag_at(p->diag, p->src, t->span, DIAG_ERROR,
                            "this transform has more than %d distinct images", ORBIT_MAX_MEMBERS);
                    return NULL;
                }
            }
        cur = next;
    }
    return cur;
}

/* }==== */

/* {==== guards =============================================================== */

/* A guard keeps the GUARD_MAX most selective designators (fewest squares). */
#define GUARD_MAX 4
#define GUARD_SEEN 16

typedef struct Guard {
    const Node *desig[GUARD_SEEN];
    int n;
} Guard;

/* Adds the designators that must be non-empty when n matches. */
static void collect_guard(const Node *n, Guard *g)
{
    if (!n) return;
    if (n->kind == ND_DESIGNATOR) {
        if (g->n < GUARD_SEEN) g->desig[g->n++] = n;
        return;
    }
    /* an intersection of sets is empty when one of them is (of positions, not) */
    bool set_intersection = n->kind == ND_INTERSECT && type_is_set(n->kids[0]->type);
    if (!filter_info(n->kind)->all_kids && !set_intersection) return;
    for (uint32_t i = 0; i < n->nkids; i++) collect_guard(n->kids[i], g);
}

/* The designators that must be non-empty for `member` to match, the most
 * selective (fewest squares) first; none when skipping the member could be
 * noticed (it assigns, comments, ...: filters.def's effect column), which
 * `only_reads` says (filter_tree_only_reads of the member). */
static Guard member_guard(const Node *member, bool only_reads)
{
    Guard g = {{NULL}, 0};
    if (!only_reads) return g;
    collect_guard(member, &g);
    for (int i = 1; i < g.n; i++)   /* insertion sort by number of squares */
        for (int j = i; j > 0 && bb_popcount(g.desig[j - 1]->desig->squares) > bb_popcount(g.desig[j]->desig->squares); j--) {
            const Node *t = g.desig[j];
            g.desig[j] = g.desig[j - 1];
            g.desig[j - 1] = t;
        }
    if (g.n > GUARD_MAX) g.n = GUARD_MAX;
    return g;
}

/* Fills the orbit-member node m for image: its key (desig: the guard's
 * first designator, which the evaluator tests before anything else) and
 * the rest of its guard (kids[1]). */
static void make_member(Arena *a, Node *m, Designator *key, Node *image, bool only_reads)
{
    *m = (Node){.kind = ND_ORBIT_MEMBER, .type = image->type, .span = image->span, .slot = -1, .op = TK_EOF};
    m->nkids = 2;
    m->kids = ARENA_ARRAY(a, Node *, 2);
    m->kids[0] = image;
    Guard g = member_guard(image, only_reads);
    if (g.n == 0) return;
    *key = *g.desig[0]->desig;
    m->desig = key;
    if (g.n == 1) return;
    Node *rest = ast_new(a, ND_COMPOUND, image->span, (uint32_t)g.n - 1);
    rest->type = VT_SET;
    for (int i = 1; i < g.n; i++) rest->kids[i - 1] = ast_clone(a, g.desig[i]);
    m->kids[1] = rest;
}

/* }==== */

/* {==== the pass ============================================================= */

static void expand(Pass *p, Node **slot);

/* A group is made for a half of the board when more members than this have
 * their keys there. */
#define GROUP_MIN 8

static Bitboard square_range(int lo, int hi)
{
    return (ALL_SQUARES_BB >> (SQ_NB - (hi - lo))) << lo;
}

/* Appends to parent (whose kids array has room) the keyed members ms[0..n),
 * whose keys lie in squares [lo, hi): those whose keys straddle the middle
 * as they are, the others in one orbit-group for each half, split again in
 * the same way. The evaluator then tests a member only when a piece its key
 * needs stands in each enclosing group's squares: about log2(64) tests
 * instead of one per member, when the keys are single squares. */
static void group_members(Pass *p, Node *parent, Node **ms, uint32_t n, int lo, int hi)
{
    if (n <= GROUP_MIN || hi - lo <= 1) {
        for (uint32_t i = 0; i < n; i++) parent->kids[parent->nkids++] = ms[i];
        return;
    }
    int mid = (lo + hi) / 2;
    Node **half[2] = {ARENA_ARRAY(&p->work, Node *, n), ARENA_ARRAY(&p->work, Node *, n)};
    uint32_t count[2] = {0, 0};
    for (uint32_t i = 0; i < n; i++) {
        Bitboard key = ms[i]->desig->squares;
        if (!(key & ~square_range(lo, mid))) half[0][count[0]++] = ms[i];
        else if (!(key & ~square_range(mid, hi))) half[1][count[1]++] = ms[i];
        else parent->kids[parent->nkids++] = ms[i];
    }
    for (int h = 0; h < 2; h++) {
        if (!count[h]) continue;
        Node *g = ast_new(p->keep, ND_ORBIT_GROUP, parent->span, 0);
        g->kids = ARENA_ARRAY(p->keep, Node *, count[h]);
        Designator *key = ARENA_NEW(p->keep, Designator);
        key->has_piece_part = true;
        Bitboard squares = 0;
        for (uint32_t i = 0; i < count[h]; i++) {
            key->pieces |= half[h][i]->desig->pieces;
            squares |= half[h][i]->desig->squares;
        }
        set_squares(p->keep, key, squares);
        g->desig = key;
        group_members(p, g, half[h], count[h], h ? mid : lo, h ? hi : mid);
        parent->kids[parent->nkids++] = g;
    }
}

/* The orbit node of transform t: its distinct valid images, each expanded
 * in turn (transforms inside them become orbits) and given its guard. */
static Node *build_orbit(Pass *p, Node *t)
{
    const Node *chain[CHAIN_MAX];
    int depth;
    bool count;
    transform_chain(t, chain, &depth, &count);
    ImageSet *images = orbit_images(p, t);
    if (!images) {
        p->ok = false;
        return t;
    }
    /* the members and their keys side by side in memory: the evaluator runs
     * through them at every position */
    uint32_t n = images->count, nkeyed = 0;
    Node *members = ARENA_ARRAY(p->keep, Node, n);
    Designator *keys = ARENA_ARRAY(p->keep, Designator, n);
    Node **keyed = ARENA_ARRAY(&p->work, Node *, n);
    Node *orbit = ast_new(p->keep, ND_ORBIT, t->span, 0);
    orbit->kids = ARENA_ARRAY(p->keep, Node *, n);
    /* the images of one filter have its kinds of filters, and so its
     * effects: asked once, not for each of them */
    bool only_reads = filter_tree_only_reads(t->kids[0]);
    for (uint32_t i = 0; i < n; i++) {
        Node *image = images->items[i];
        expand(p, &image);
        make_member(p->keep, &members[i], &keys[i], image, only_reads);
        if (members[i].desig) keyed[nkeyed++] = &members[i];
        else orbit->kids[orbit->nkids++] = &members[i];
    }
    group_members(p, orbit, keyed, nkeyed, 0, SQ_NB);
    orbit->op = t->op;
    orbit->type = t->type;
    orbit->num = n;
    if (count) orbit->flags |= NF_COUNT;
    return orbit;
}

/* Replaces every transform filter in the tree at *slot by its orbit. */
static void expand(Pass *p, Node **slot)
{
    Node *n = *slot;
    if (!n || !p->ok) return;
    if (n->kind == ND_TRANSFORM) {
        bool outermost = !p->outermost;
        if (outermost) p->outermost = n;
        *slot = build_orbit(p, n);
        if (outermost) p->outermost = NULL;
        return;
    }
    for (uint32_t i = 0; i < n->nkids; i++) expand(p, &n->kids[i]);
}

bool xf_expand_query(Query *q, DiagSink *diag)
{
    Pass p;
    pass_init(&p, q, &q->arena, diag);
    expand(&p, &q->body);
    pass_free(&p);
    return p.ok;
}

void xf_wrap_body(Query *q, TokKind op)
{
    Node *body = q->body;
    /* a body that is one transform filter (or was wrapped already) composes */
    bool compose = body->nkids == 1 && body->kids[0]->kind == ND_TRANSFORM;
    Node *arg = compose ? body->kids[0] : body;
    Node *t = ast_new(&q->arena, ND_TRANSFORM, body->span, 1);
    t->op = op;
    t->kids[0] = arg;
    t->type = arg->type == VT_PIECE ? VT_SET : arg->type == VT_DICTIONARY ? VT_NONE : arg->type;
    if (compose) {
        body->kids[0] = t;
        return;
    }
    Node *wrapped = ast_new(&q->arena, ND_COMPOUND, body->span, 1);
    wrapped->flags = NF_IMPLICIT;
    wrapped->type = t->type;
    wrapped->kids[0] = t;
    q->body = wrapped;
}

/* }==== */

/* {==== writing filters and orbits =========================================== */

/* Replace source bytes [start, end) by text. */
typedef struct Edit {
    uint32_t start, end;
    const char *text;
} Edit;

typedef struct Edits {
    const Query *q;
    Span within;           /* edits outside (a called function's body) are dropped */
    Arena *arena;
    Edit *items;
    uint32_t n, cap;
} Edits;

static void add_edit(Edits *e, uint32_t start, uint32_t end, const char *text)
{
    if (start < e->within.start || end > e->within.end) return;
    if (e->n == e->cap) {
        uint32_t cap = e->cap ? 2 * e->cap : 16;
        e->items = arena_realloc(e->arena, e->items, e->cap * sizeof *e->items, cap * sizeof *e->items);
        e->cap = cap;
    }
    e->items[e->n++] = (Edit){start, end, text};
}

/* The index-th token from byte `at` of the query's text. */
static Token token_at(const Query *q, uint32_t at, int index)
{
    Lexer lx;
    ast_lexer_init(&lx, q, at, (uint32_t)q->src.len);
    Token t = lex_next(&lx);
    while (index-- > 0) t = lex_next(&lx);
    return t;
}

static void edit_token(Edits *e, Token t, const char *text)
{
    add_edit(e, t.start, t.start + t.len, text);
}

/* A designator in ASCII: piece letters ([Qq] for several), then the parts. */
static const char *designator_text(Arena *a, const Designator *d)
{
    StrBuf sb = SB_INIT;
    if (d->has_piece_part) {
        StrBuf letters = SB_INIT;
        static const PieceType order[] = {KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN};
        for (int c = WHITE; c <= BLACK; c++) {
            unsigned all = c == WHITE ? WHITE_PIECE_BITS : BLACK_PIECE_BITS;   /* written A or a */
            if ((d->pieces & all) == all) {
                sb_putc(&letters, c == WHITE ? 'A' : 'a');
                continue;
            }
            for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
                Piece p = make_piece((Color)c, order[i]);
                if (d->pieces & (1u << p)) sb_putc(&letters, piece_char(p));
            }
        }
        if (d->pieces & 1u) sb_putc(&letters, '_');
        sb_printf(&sb, letters.len == 1 ? "%s" : "[%s]", sb_str(&letters));
        sb_free(&letters);
    }
    if (d->all_squares_symbol && !d->has_piece_part) {
        sb_putc(&sb, '.');
    } else if (d->has_square_part) {
        if (d->nparts > 1) sb_putc(&sb, '[');
        for (uint8_t i = 0; i < d->nparts; i++) {
            SquarePart p = d->parts[i];
            if (i) sb_putc(&sb, ',');
            sb_putc(&sb, (char)('a' + p.file_lo));
            if (p.file_hi != p.file_lo) sb_printf(&sb, "-%c", 'a' + p.file_hi);
            sb_putc(&sb, (char)('1' + p.rank_lo));
            if (p.rank_hi != p.rank_lo) sb_printf(&sb, "-%c", '1' + p.rank_hi);
        }
        if (d->nparts > 1) sb_putc(&sb, ']');
    }
    const char *text = arena_strdup(a, sb_str(&sb));
    sb_free(&sb);
    return text;
}

/* Direction words for a mask, the largest groups first ("orthogonal northeast"). */
static const char *direction_text(Arena *a, uint8_t dirs)
{
    DirectionWord words[DIRECTION_WORDS_MAX];
    size_t n = direction_words(words);
    StrBuf sb = SB_INIT;
    for (size_t i = 0; i < n && dirs; i++) {
        if ((words[i].dirs & dirs) != words[i].dirs) continue;
        sb_printf(&sb, "%s%s", sb.len ? " " : "", tok_ascii(words[i].tok));
        dirs &= (uint8_t)~words[i].dirs;
    }
    const char *text = arena_strdup(a, sb_str(&sb));
    sb_free(&sb);
    return text;
}

static bool is_direction_token(TokKind k)
{
    return filter_of_keyword(k) == ND_DIRECTION;
}

/* The words of n that a transform may have changed, as n now says. */
static void collect_edits(Edits *e, const Node *n)
{
    if (!n) return;
    const Query *src = e->q;
    switch (filter_info(n->kind)->transform) {
    case XR_SQUARES:
        add_edit(e, n->span.start, n->span.end, designator_text(e->arena, n->desig));
        break;
    case XR_DIRECTIONS:
        if (n->op != TK_EOF) {   /* one direction word, the filter's keyword */
            edit_token(e, token_at(src, n->span.start, 0), tok_ascii(n->op));
        } else {                 /* the direction words after the keyword (ray) */
            Token first = token_at(src, n->span.start, 1), last = first;
            int i = 1;
            for (Token t = first; is_direction_token(t.kind); t = token_at(src, n->span.start, ++i)) last = t;
            if (is_direction_token(first.kind))
                add_edit(e, first.start, last.start + last.len, direction_text(e->arena, n->dirs));
        }
        break;
    case XR_COLOUR: case XR_SQUARE_COLOUR:
        edit_token(e, token_at(src, n->span.start, 0), ast_kind_name(n->kind));
        break;
    case XR_SIDES:
        if (n->flags & (NF_WHITE | NF_BLACK))
            edit_token(e, token_at(src, n->span.start, 1), n->flags & NF_WHITE ? "white" : "black");
        break;
    case XR_RESULT:
        add_edit(e, token_at(src, n->span.start, 1).start, n->span.end, n->text);
        break;
    default:
        break;
    }
    for (uint32_t i = 0; i < n->nkids; i++) collect_edits(e, n->kids[i]);
}

static int by_start(const void *a, const void *b)
{
    const Edit *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Filter f's text, as its tokens now say. */
static void write_filter(const Query *q, Arena *a, const Node *f, StrBuf *out)
{
    const SourceText *src = &q->src;
    Edits e = {q, f->span, a, NULL, 0, 0};
    collect_edits(&e, f);
    if (e.n > 1) qsort(e.items, e.n, sizeof *e.items, by_start);   /* items is NULL when there is no edit */
    uint32_t at = f->span.start;
    for (uint32_t i = 0; i < e.n; i++) {
        if (e.items[i].start < at) continue;   /* the same argument seen twice (a parameter) */
        sb_append_n(out, src->text + at, e.items[i].start - at);
        sb_append(out, e.items[i].text);
        at = e.items[i].end;
    }
    sb_append_n(out, src->text + at, f->span.end - at);
}

void xf_write_filter(const Query *q, const Node *f, StrBuf *out)
{
    Arena a;
    arena_init(&a, 4096);
    write_filter(q, &a, f, out);
    arena_free(&a);
}

static void capture_diag(void *ctx, DiagSeverity sev, const char *text)
{
    (void)sev;
    sb_append((StrBuf *)ctx, text);
}

/* `orbit LINE:COL KEYWORDS: N members`, then the members, two spaces in. */
static void write_orbit(Pass *p, const Node *t, StrBuf *out)
{
    const Node *chain[CHAIN_MAX];
    int depth;
    bool count;
    transform_chain(t, chain, &depth, &count);
    unsigned line, col;
    diag_line_col(p->src, t->span.start, &line, &col);
    sb_printf(out, "orbit %u:%u", line, col);
    for (int i = 0; i < depth; i++)
        sb_printf(out, " %s%s", tok_ascii(chain[i]->op), chain[i]->flags & NF_COUNT ? " count" : "");
    StrBuf errors = SB_INIT;
    DiagSink sink;
    diag_sink_init(&sink, capture_diag, &errors);
    p->diag = &sink;
    p->outermost = t;
    ImageSet *images = orbit_images(p, t);
    if (!images) {
        sb_printf(out, ": no orbit\n%s", sb_str(&errors));
    } else {
        sb_printf(out, ": %u member%s\n", images->count, images->count == 1 ? "" : "s");
        for (uint32_t i = 0; i < images->count; i++) {
            StrBuf text = SB_INIT;
            write_filter(p->q, &p->work, images->items[i], &text);
            sb_append(out, "  ");
            for (const char *c = sb_str(&text); *c; c++) {   /* a member's next lines go 4 spaces in */
                sb_putc(out, *c);
                if (*c == '\n' && c[1]) sb_append(out, "    ");
            }
            sb_putc(out, '\n');
            sb_free(&text);
        }
    }
    sb_free(&errors);
}

/* Every outermost transform filter under n (a call: in its expanded body). */
static void write_orbits_under(Pass *p, const Node *n, StrBuf *out)
{
    if (!n) return;
    if (n->kind == ND_TRANSFORM) {
        write_orbit(p, n, out);
        return;
    }
    uint32_t nkids = n->kind == ND_CALL ? 1 : n->nkids;
    for (uint32_t i = 0; i < nkids; i++) write_orbits_under(p, n->kids[i], out);
}

void xf_write_orbits(const Query *q, StrBuf *out)
{
    Pass p;
    pass_init(&p, q, NULL, NULL);
    write_orbits_under(&p, q->body, out);
    pass_free(&p);
}

/* }==== */
