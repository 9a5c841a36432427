/*
 * src/pgn/writer.c — writes a Game in PGN export format (see writer.h).
 *
 * Movetext goes through a small line filler: each atom (a numbered move, a
 * comment word, a parenthesis) is placed on the current line when it fits in
 * PGN_LINE_WIDTH columns, else starts a new line. "12. e4" is one atom. An
 * atom starting with '%' or '[' (a comment word) never starts a line: it
 * could read as an escape line or a tag pair. Comments are written so that they read back the same: a '{' inside
 * one is written as it is (it means nothing inside a brace comment), and a
 * comment holding '}', which no brace comment can hold, is written as a ';'
 * comment on the rest of its line.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pgn/writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess/san.h"
#include "pgn/tag_lines.h"

static const struct {
    const char *name;
    size_t len;
} seven_tag_roster[] = {
    {"Event", 5}, {"Site", 4}, {"Date", 4}, {"Round", 5}, {"White", 5}, {"Black", 5}, {"Result", 6},
};
enum { STR_COUNT = 7 };

typedef struct LineFiller {
    /* the output, a copy taken by pgn_write_game and given back at its end:
     * a member rather than a pointer, so the usual case reads len and data
     * without a load of the pointer first. While the filler writes, the
     * bytes end at len with no NUL (each atom_slot keeps room for one;
     * pgn_write_game's last append, after the result, writes it). */
    StrBuf out;
    size_t line_start;   /* offset in out of the current line */
    /* the usual case in one test: an atom of n bytes goes after a blank on
     * the current line when len + 1 + n <= fast_end; fast_end is
     * line_start + PGN_LINE_WIDTH after an atom, else 0 (line start, after
     * '(' or a ';' comment) */
    size_t fast_end;
    bool glue_next;      /* no space before the next atom (after '(') */
    bool end_line;       /* the next atom starts a new line (after a ';' comment) */
} LineFiller;

/* Sets fast_end after line_start, glue_next or end_line changed. */
static void update_fast_end(LineFiller *f)
{
    bool after_blank = f->out.len > f->line_start && !f->end_line && !f->glue_next;
    f->fast_end = after_blank ? f->line_start + PGN_LINE_WIDTH : 0;
}

/* Where to write an atom of at most `max` bytes: in the output itself, one
 * byte after its end, which place_atom fills with the separator. */
static char *atom_slot(LineFiller *f, size_t max)
{
    if (f->out.len + max + 2 > f->out.cap) sb_reserve(&f->out, max + 1);
    return f->out.data + f->out.len + 1;
}

/* Places the n-byte atom written at atom_slot: after a blank, or on a new
 * line when it does not fit, or straight on at a line start or after '('. */
static void place_atom_anywhere(LineFiller *f, size_t n);

static inline void place_atom(LineFiller *f, size_t n)
{
    /* the usual case, written where it is used: after a blank, on the
     * current line (line_len + 1 + n <= PGN_LINE_WIDTH) */
    size_t len = f->out.len;
    if (len + 1 + n <= f->fast_end) {
        f->out.data[len] = ' ';
        f->out.len = len + 1 + n;
        return;
    }
    place_atom_anywhere(f, n);
}

/* The other cases: a new line, a line start, or glued after '('. */
static void place_atom_anywhere(LineFiller *f, size_t n)
{
    char *separator = f->out.data + f->out.len;
    size_t line_len = f->out.len - f->line_start;
    size_t used = 0;
    if (line_len > 0 &&
        (f->end_line ||
         (line_len + (f->glue_next ? 0 : 1) + n > PGN_LINE_WIDTH && separator[1] != '%' &&
          separator[1] != '['))) {
        *separator = '\n';
        f->line_start = f->out.len + 1;
        used = 1;
    } else if (line_len > 0 && !f->glue_next) {
        *separator = ' ';
        used = 1;
    }
    if (!used) memmove(separator, separator + 1, n);
    f->out.len += used + n;
    f->glue_next = false;
    f->end_line = false;
    update_fast_end(f);
}

/* Appends one byte straight on (no separator), keeping room for the NUL. */
static void filler_putc(LineFiller *f, char c)
{
    if (f->out.len + 2 > f->out.cap) sb_reserve(&f->out, 1);
    f->out.data[f->out.len++] = c;
}

static void put_atom(LineFiller *f, const char *s, size_t n)
{
    memcpy(atom_slot(f, n), s, n);
    place_atom(f, n);
}

static void put_str(LineFiller *f, const char *s)
{
    put_atom(f, s, strlen(s));
}

static bool is_comment_blank(char c)
{
    /* ' ', or '\t' '\n' '\v' '\f' '\r' (9 to 13) */
    return c == ' ' || (unsigned char)(c - '\t') <= '\r' - '\t';
}

/* The next word of *s (advanced past it); false when only blanks are left. */
static bool next_word(const char **s, const char **word, size_t *len)
{
    const char *p = *s;
    while (is_comment_blank(*p)) p++;
    if (!*p) return false;
    *word = p;
    /* a byte above ' ' (most) is neither a blank nor the NUL */
    while ((unsigned char)*p > ' ' || (*p && !is_comment_blank(*p))) p++;
    *len = (size_t)(p - *word);
    *s = p;
    return true;
}

/* The length of text when it is words with single spaces between them
 * (no other byte up to ' ', no '}'), else 0: such a comment goes as one
 * atom "{text}" where it fits on the current line, which is where its
 * words one by one would go (the driver's "Game number N" of every
 * matched game, most short comments). */
static size_t plain_comment_len(const char *text)
{
    const char *p = text;
    for (; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c <= ' ' && (c != ' ' || p == text || p[1] == ' ' || p[1] == '\0')) return 0;
        if (c == '}') return 0;
    }
    return (size_t)(p - text);
}

/* Whether an atom of n bytes goes on the current line (with its blank,
 * unless at the line's start or after '('), as place_atom puts it. */
static bool fits_on_line(const LineFiller *f, size_t n)
{
    size_t line_len = f->out.len - f->line_start;
    if (line_len > 0 && f->end_line) return false;
    return line_len + (line_len > 0 && !f->glue_next) + n <= PGN_LINE_WIDTH;
}

/* A comment whose text is the words of `text`, then those of `more` (NULL:
 * none), wrapped at its blanks: "{first" "word" ... "last}". Each atom is
 * written straight into the output. A text holding '}' becomes one
 * ";first word ... last" atom that ends its line, which reads back as the
 * same words. A plain text (plain_comment_len) that fits on the line is
 * one atom "{text}". */
static void put_comment_text(LineFiller *f, const char *text, const char *more)
{
    if (!more) {
        size_t len = plain_comment_len(text);
        if (len && fits_on_line(f, len + 2)) {
            char *atom = atom_slot(f, len + 2);
            atom[0] = '{';
            memcpy(atom + 1, text, len);
            atom[len + 1] = '}';
            place_atom(f, len + 2);
            return;
        }
    }
    const char *parts[2] = {text, more ? more : ""};
    bool line_comment = strchr(parts[0], '}') || strchr(parts[1], '}');
    if (line_comment) {
        size_t max = 1 + strlen(parts[0]) + 1 + strlen(parts[1]);
        char *atom = atom_slot(f, max);
        size_t k = 0;
        atom[k++] = ';';
        for (int i = 0; i < 2; i++) {
            const char *s = parts[i], *w;
            size_t wlen;
            while (next_word(&s, &w, &wlen)) {
                if (k > 1) atom[k++] = ' ';
                memcpy(atom + k, w, wlen);
                k += wlen;
            }
        }
        place_atom(f, k);
        f->end_line = true;
        update_fast_end(f);
        return;
    }
    /* the atoms: a pending word is written once the next one is found, so
     * that the last word gets its '}' */
    const char *pending = NULL;
    size_t pending_len = 0;
    bool first = true;
    for (int i = 0; i < 2; i++) {
        const char *s = parts[i], *w;
        size_t wlen;
        while (next_word(&s, &w, &wlen)) {
            if (pending) {
                char *atom = atom_slot(f, pending_len + 1);
                size_t k = 0;
                if (first) atom[k++] = '{';
                memcpy(atom + k, pending, pending_len);
                place_atom(f, k + pending_len);
                first = false;
            }
            pending = w;
            pending_len = wlen;
        }
    }
    char *atom = atom_slot(f, pending_len + 2);
    size_t k = 0;
    if (first) atom[k++] = '{';
    if (pending) memcpy(atom + k, pending, pending_len);
    k += pending_len;
    atom[k++] = '}';
    place_atom(f, k);
}

static void put_comment(LineFiller *f, const char *text)
{
    put_comment_text(f, text, NULL);
}

static void put_comments(LineFiller *f, const Comment *c)
{
    for (; c; c = c->next) put_comment(f, c->text);
}

/* "00" to "99": two digits with one copy */
static const char two_digits[200] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Decimal digits of v into out (no NUL); returns their count. */
static inline size_t write_uint(char *out, unsigned v)
{
    /* move numbers: nearly always one or two digits */
    if (v < 10) {
        out[0] = (char)('0' + v);
        return 1;
    }
    if (v < 100) {
        memcpy(out, two_digits + 2 * v, 2);
        return 2;
    }
    return decimal_digits(out, v);
}

/* The start of a move's atom, its number: move_numbers[n][side] is "n. "
 * (White) or "n... " (Black), for n below 100, and its last byte the
 * length of that text */
#define MOVE_NUMBER_1(d) {{'0' + (d), '.', ' ', 0, 0, 0, 0, 3}, {'0' + (d), '.', '.', '.', ' ', 0, 0, 5}}
#define MOVE_NUMBER_2(t, u) \
    {{'0' + (t), '0' + (u), '.', ' ', 0, 0, 0, 4}, {'0' + (t), '0' + (u), '.', '.', '.', ' ', 0, 6}}
#define MOVE_NUMBERS_TENS(t) \
    MOVE_NUMBER_2(t, 0), MOVE_NUMBER_2(t, 1), MOVE_NUMBER_2(t, 2), MOVE_NUMBER_2(t, 3), \
    MOVE_NUMBER_2(t, 4), MOVE_NUMBER_2(t, 5), MOVE_NUMBER_2(t, 6), MOVE_NUMBER_2(t, 7), \
    MOVE_NUMBER_2(t, 8), MOVE_NUMBER_2(t, 9)
static const char move_numbers[100][2][8] = {
    MOVE_NUMBER_1(0), MOVE_NUMBER_1(1), MOVE_NUMBER_1(2), MOVE_NUMBER_1(3), MOVE_NUMBER_1(4),
    MOVE_NUMBER_1(5), MOVE_NUMBER_1(6), MOVE_NUMBER_1(7), MOVE_NUMBER_1(8), MOVE_NUMBER_1(9),
    MOVE_NUMBERS_TENS(1), MOVE_NUMBERS_TENS(2), MOVE_NUMBERS_TENS(3), MOVE_NUMBERS_TENS(4),
    MOVE_NUMBERS_TENS(5), MOVE_NUMBERS_TENS(6), MOVE_NUMBERS_TENS(7), MOVE_NUMBERS_TENS(8),
    MOVE_NUMBERS_TENS(9),
};

/* The game's first comments with the driver's note (the game number)
 * appended inside the last one, as CQL 6.2 writes it: {<original> Game
 * number 3 CQL}. (The conformance vectors show it: a long original comment
 * wraps "Game number N" across lines there.) */
static void put_root_comments_and_note(LineFiller *f, const Comment *c, const char *note)
{
    if (!note) {
        put_comments(f, c);
        return;
    }
    if (!c) {
        put_comment(f, note);
        return;
    }
    for (; c->next; c = c->next) put_comment(f, c->text);
    put_comment_text(f, c->text, note);
}

typedef struct Writer {
    LineFiller fill;
    const PgnAnnotations *notes;
    /* notes->node_comments (an array of NULLs when the driver gives none)
     * and notes->drop_comments (or NULL) */
    const char *const *node_comments;
    const bool *drop_comments;
    const Game *game;
    /* a truncated game's last main-line move: its unread rest goes right
     * after that move's comments, before its variations, which is where a
     * reader puts a comment that follows them with no move after it */
    const GameNode *unread_after;
    /* the last one-word note written after a move, as its atom: the driver
     * gives every matched position the same note ({CQL}) */
    const char *note_text;
    char note_atom[16];
    size_t note_len;
} Writer;

/* The input's comments after the move into n, unless the driver drops them. */
static const Comment *comments_of(const Writer *w, const GameNode *n)
{
    if (w->drop_comments && w->drop_comments[n->id]) return NULL;
    return n->comments;
}

static const char *note_for(const Writer *w, const GameNode *n)
{
    return w->node_comments[n->id];
}

/* "{word}" at out; returns its length, len + 2. */
static size_t write_braced(char *out, const char *word, size_t len)
{
    out[0] = '{';
    memcpy(out + 1, word, len);
    out[len + 1] = '}';
    return len + 2;
}

/* A note after a move: a comment of its own, written as one atom "{word}"
 * when it is one word of at most 30 bytes (a word here ends at " \n\t\r{}"
 * only). A word of up to 14 bytes, as the driver's usual note, is kept as
 * its atom for the next note. */
static void put_note(Writer *w, const char *note)
{
    enum { NOTE_WORD_MAX = 30 };
    if (note != w->note_text) {
        size_t word = strcspn(note, " \n\t\r{}");
        if (note[word] || word == 0 || word > NOTE_WORD_MAX) {
            put_comment(&w->fill, note);
            return;
        }
        if (word + 2 > sizeof w->note_atom) {   /* written, not kept */
            place_atom(&w->fill, write_braced(atom_slot(&w->fill, word + 2), note, word));
            return;
        }
        w->note_len = write_braced(w->note_atom, note, word);
        w->note_text = note;
    }
    /* the whole (fixed-size) array is copied: one copy of known size */
    memcpy(atom_slot(&w->fill, sizeof w->note_atom), w->note_atom, sizeof w->note_atom);
    place_atom(&w->fill, w->note_len);
}

/* The glyphs after the move into n: $1 $14 ... */
static void put_nags(Writer *w, const GameNode *n)
{
    for (int i = 0; i < n->nag_count; i++) {
        char nag[8] = "$";
        put_atom(&w->fill, nag, 1 + write_uint(nag + 1, n->nags[i]));
    }
}

/* The side to move and the move number of the position before a move:
 * its parent's, followed down a line from the first parent
 * (pos_fullmove_after) rather than read at every parent, whose position
 * is on another cache line than what the writer reads of a node. */
typedef struct MoveClock {
    Color side;
    unsigned number;
} MoveClock;

static MoveClock clock_before(const GameNode *n)
{
    return (MoveClock){(Color)n->parent->pos.side, n->parent->pos.fullmove};
}

/* The clock before n's child, from the clock before n. */
static inline MoveClock clock_after(MoveClock c)
{
    return (MoveClock){other_color(c.side), pos_fullmove_after(c.side, c.number)};
}

/* The atom of the move into n, at `atom`: its number when it is White's
 * move or need_number ("12. ", "12... "), its SAN and its check mark.
 * `before` is the clock of n's parent. Returns its length, at most
 * MOVE_ATOM_MAX. */
enum { MOVE_ATOM_MAX = 32 + SAN_MAX };
static inline size_t write_move_atom(char *atom, const GameNode *n, MoveClock before, bool need_number)
{
#ifdef CQL_DEBUG
    assert(before.side == n->parent->pos.side && before.number == n->parent->pos.fullmove);
#endif
    size_t len = 0;
    if (before.side == WHITE || need_number) {
        unsigned number = before.number;
        if (number < 100) {   /* nearly always: "12. " or "12... " in one copy */
            const char *entry = move_numbers[number][before.side];
            memcpy(atom, entry, 8);
            len = (size_t)entry[7];
        } else {
            len = write_uint(atom, number);
            atom[len++] = '.';
            if (before.side == BLACK) {
                atom[len++] = '.';
                atom[len++] = '.';
            }
            atom[len++] = ' ';
        }
    }
    static const char check_marks[] = {[NODE_NO_CHECK] = '\0', [NODE_IN_CHECK] = '+', [NODE_MATED] = '#'};
    char mark = check_marks[game_node_check(n)];
    if (n->san_len) {   /* the SAN as read: nearly always */
        memcpy(atom + len, n->san, SAN_WRITTEN_KEPT);
        len += n->san_len;
        atom[len] = mark;
        len += mark != '\0';
    } else {
        len += san_write_marked(&n->parent->pos, n->move, mark, atom + len);
    }
    return len;
}

/* Writes the move into `n` with its number when needed, then its glyphs and comments.
 * Returns whether the next move needs its number repeated. */
static bool put_move(Writer *w, const GameNode *n, MoveClock before, bool need_number)
{
    place_atom(&w->fill, write_move_atom(atom_slot(&w->fill, MOVE_ATOM_MAX), n, before, need_number));
    /* glyphs and comments only where the node is annotated (one test for
     * the others) */
    if (n->annotated && n->nag_count) put_nags(w, n);
    /* after a move, the note is a comment of its own: {book} {CQL} */
    const char *note = note_for(w, n);
    const Comment *comments = n->annotated ? comments_of(w, n) : NULL;
    if (!note && !comments) return false;
    if (comments) put_comments(&w->fill, comments);
    if (note) put_note(w, note);
    return true;
}

/* Room in the output for a move's atom written anywhere up to the end of
 * the current line's fast part, f->fast_end (or the output's end when that
 * is past it): the plain run then needs no test of the room at each move. */
static void reserve_to_fast_end(LineFiller *f)
{
    size_t end = f->fast_end > f->out.len ? f->fast_end : f->out.len;
    if (end + MOVE_ATOM_MAX + 2 > f->out.cap) sb_reserve(&f->out, end - f->out.len + MOVE_ATOM_MAX + 1);
}

/* What put_plain_moves keeps in locals: the line filler, and its output's
 * bytes, length and fast_end. */
typedef struct PlainRun {
    LineFiller *fill;
    char *data;
    size_t len, fast_end;
} PlainRun;

/* Whether the move into n is one put_plain_moves writes; id is n's. */
static inline bool is_plain_move(const GameNode *n, const char *const *notes, int32_t id)
{
#ifdef CQL_DEBUG
    assert(n->id == id);
#endif
    return !n->annotated && !notes[id] && n->child;
}

/* Writes the move into n (write_move_atom's arguments) and places it, as
 * place_atom. */
#if defined(__GNUC__)
__attribute__((always_inline))   /* with the side known where it is called */
#endif
static inline void plain_run_move(PlainRun *r, const GameNode *n, MoveClock before, bool need_number)
{
    /* what the run reads of a node, from the SAN to the child link (two
     * cache lines for one node in four), four nodes ahead (the arena lays
     * a line's nodes out one after another): a little less waiting
     * (docs/performance.md, check round, third part) */
    game_node_prefetch(n, 4, offsetof(GameNode, san));
    game_node_prefetch(n, 4, offsetof(GameNode, child));
    /* room for the atom (as atom_slot): len <= max(fast_end, the output's
     * end), which reserve_to_fast_end made room after */
    size_t atom_len = write_move_atom(r->data + r->len + 1, n, before, need_number);
    if (r->len + 1 + atom_len <= r->fast_end) {   /* as place_atom */
        r->data[r->len] = ' ';
        r->len += 1 + atom_len;
        return;
    }
    LineFiller *f = r->fill;
    if (r->fast_end) {
        /* after a blank, on a line the atom does not fit on: it starts
         * the next line, as place_atom_anywhere puts it (a move's atom
         * never starts with '%' or '[') */
        r->data[r->len] = '\n';
        f->line_start = r->len + 1;
        r->len += 1 + atom_len;
        r->fast_end = f->line_start + PGN_LINE_WIDTH;
        f->out.len = r->len;
        f->fast_end = r->fast_end;
        reserve_to_fast_end(f);
        r->data = f->out.data;
        return;
    }
    f->out.len = r->len;
    place_atom_anywhere(f, atom_len);
    reserve_to_fast_end(f);
    r->data = f->out.data;
    r->len = f->out.len;
    r->fast_end = f->fast_end;
}

/* Writes the moves from n on that are plain: no comment, glyph, variation
 * or note, and not the line's last (where a truncated game's unread rest
 * goes): nearly every move. The line filler's usual case, an atom after a
 * blank on the current line, is done here with the output's length in a
 * local: kept in the LineFiller, it would be read back from memory after
 * each byte written (a char store may alias anything), and every move
 * would wait on the store of the last one. Returns the first move not
 * written (at the latest the line's last). *before is the clock before n,
 * and then before the move returned. */
static const GameNode *put_plain_moves(Writer *w, const GameNode *n, MoveClock *before, bool need_number)
{
    LineFiller *f = &w->fill;
    reserve_to_fast_end(f);
    PlainRun r = {f, f->out.data, f->out.len, f->fast_end};
    /* the Writer's fields in locals too: read from it, they would be
     * loaded again after every byte written */
    const char *const *notes = w->node_comments;
    /* the node's id counted down the line rather than read from it: a
     * child's id is its parent's plus one (the ids are numbered in
     * game_walk_next's order, the child first), so the test of the note,
     * whose answer the processor cannot guess at a check, does not wait
     * on the node's loads */
    int32_t id = n->id;
    Color side = before->side;
    unsigned number = before->number;
    /* a first move of Black's, which may need its number repeated */
    if (side == BLACK && is_plain_move(n, notes, id)) {
        plain_run_move(&r, n, (MoveClock){BLACK, number}, need_number);
        n = n->child, id++;
        side = WHITE, number = pos_fullmove_after(BLACK, number);
    }
    /* then White's move and Black's, with the side of each known, so that
     * no move tests it, the clock or need_number */
    while (side == WHITE && is_plain_move(n, notes, id)) {
        plain_run_move(&r, n, (MoveClock){WHITE, number}, false);
        n = n->child, id++;
        side = BLACK;
        if (!is_plain_move(n, notes, id)) break;
        plain_run_move(&r, n, (MoveClock){BLACK, number}, false);
        n = n->child, id++;
        side = WHITE, number = pos_fullmove_after(BLACK, number);
    }
    f->out.len = r.len;
    *before = (MoveClock){side, number};
    return n;
}

/* The unread rest of a truncated game, as a comment. */
static void put_unread_text(Writer *w)
{
    put_comment_text(&w->fill, "cql: the rest of this game could not be read:", w->game->unread_text);
}

/* Writes the line that starts with `first`. For a variation's first move,
 * its siblings are the caller's business. */
static void put_line(Writer *w, const GameNode *first, bool is_variation)
{
    bool need_number = true;
    MoveClock before = clock_before(first);
    for (const GameNode *n = first; n; before = clock_after(before), n = n->child) {
        const GameNode *rest = put_plain_moves(w, n, &before, need_number);
        if (rest != n) {
            need_number = false;
            n = rest;
        }
#ifdef CQL_DEBUG
        assert(n->annotated == (n->pre_comments || n->comments || n->nag_count || n->sibling));
#endif
        if (n->annotated && n->pre_comments) {
            put_comments(&w->fill, n->pre_comments);
            need_number = true;
        }
        need_number = put_move(w, n, before, need_number);
        if (n == w->unread_after) {
            put_unread_text(w);
            need_number = true;
        }
        if (!n->annotated || (n == first && is_variation)) continue;
        for (const GameNode *v = n->sibling; v; v = v->sibling) {
            LineFiller *f = &w->fill;
            put_str(f, "(");
            f->glue_next = true;
            update_fast_end(f);
            put_line(w, v, true);
            /* ")" sticks to what precedes it, unless a ';' comment ended the line */
            if (f->out.len - f->line_start + 1 > PGN_LINE_WIDTH || f->end_line) {
                filler_putc(f, '\n');
                f->line_start = f->out.len;
                f->end_line = false;
            }
            filler_putc(f, ')');
            update_fast_end(f);
            need_number = true;
        }
    }
}

/* Writes [name "value"], value escaped, and a line end; name_len is
 * strlen(name). `plain`: the value's length when it is known to need no
 * escape (Tag.plain), else SIZE_MAX. */
static void put_tag(StrBuf *out, const char *name, size_t name_len, const char *value, size_t plain)
{
    if (plain == SIZE_MAX) plain = strcspn(value, "\"\\\n\r");   /* nearly always the whole value */
    if (out->len + name_len + plain + 7 > out->cap) sb_reserve(out, name_len + plain + 6);
    char *p = out->data + out->len;
    p[0] = '[';
    memcpy(p + 1, name, name_len);
    p += 1 + name_len;
    memcpy(p, " \"", 2);
    memcpy(p + 2, value, plain);
    p += 2 + plain;
    if (!value[plain]) {   /* the usual case: nothing to escape, all of it fits */
        memcpy(p, "\"]\n", 4);   /* with the NUL */
        out->len += 6 + name_len + plain;
        return;
    }
    out->len += 3 + name_len + plain;
    for (const char *s = value + plain; *s;) {
        if (*s == '"' || *s == '\\') {   /* escaped; a line end is dropped */
            sb_putc(out, '\\');
            sb_putc(out, *s);
        }
        s++;
        size_t more = strcspn(s, "\"\\\n\r");
        sb_append_n(out, s, more);
        s += more;
    }
    sb_append_n(out, "\"]\n", 3);
}

/* put_tag's `plain` for a tag. */
static size_t tag_plain_len(const Tag *t)
{
    return t->plain ? t->value_len : SIZE_MAX;
}

/* Index in the Seven Tag Roster of `name`, of len bytes, or -1. */
static int roster_index(const char *name, size_t len)
{
    /* memcmp of a constant size after the length test: a few compares */
#define IS(lit) (len == sizeof lit - 1 && memcmp(name, lit, sizeof lit - 1) == 0)
    switch (name[0]) {   /* the one or two names it can be */
    case 'E': return IS("Event") ? 0 : -1;
    case 'S': return IS("Site") ? 1 : -1;
    case 'D': return IS("Date") ? 2 : -1;
    case 'R': return IS("Round") ? 3 : IS("Result") ? 6 : -1;
    case 'W': return IS("White") ? 4 : -1;
    case 'B': return IS("Black") ? 5 : -1;
    default: return -1;
    }
#undef IS
}

/* A tag name's length and roster index (-1: not in the roster). */
typedef struct TagName {
    size_t len;
    int roster;
} TagName;

static TagName tag_name(const char *name)
{
    size_t len = strlen(name);
    return (TagName){len, roster_index(name, len)};
}

/* The result written after the moves and in a missing Result tag. */
static const char *result_to_write(const Game *g)
{
    const char *r = game_result(g);
    return r ? r : "*";
}

/* The driver's value for tag `name` (settag), or NULL. */
static const char *tag_override(const PgnAnnotations *notes, const char *name)
{
    const Tag *t = notes ? game_tag_find(notes->tags, notes->ntags, name) : NULL;
    return t ? t->value : NULL;
}

/* The tags as the input has them (Game.tag_lines), when that is how
 * put_tags writes them: the Seven Tag Roster first and in its order, and no
 * tag of the driver's. False when not. */
static bool put_tags_as_read(const Game *g, const PgnAnnotations *notes, StrBuf *out)
{
    if (!g->tag_lines || g->tag_count < STR_COUNT || (notes && notes->ntags)) return false;
    for (int i = 0; i < STR_COUNT; i++) {
        const Tag *t = &g->tags[i];
        if (tag_lines_name_len(t) != seven_tag_roster[i].len ||
            memcmp(t->name, seven_tag_roster[i].name, seven_tag_roster[i].len) != 0)
            return false;
    }
    sb_reserve(out, g->tag_lines_len);
    tag_lines_copy(out->data + out->len, g);
    out->len += g->tag_lines_len;
    out->data[out->len] = '\0';
    return true;
}

/* Tags up to which a repeated name is found by comparing with every
 * earlier tag; beyond, through a table of the names (100,000 tags in one
 * game took 43 s to write with the comparisons alone). */
enum { TAGS_COMPARED = 32 };

static uint32_t tag_name_hash(const char *s)
{
    uint32_t h = 2166136261u;   /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* For each of the game's tags, whether an earlier tag has its name, in
 * linear time: an open-addressing table of the names seen. An array of
 * tag_count flags that the caller frees. */
static bool *repeated_tag_names(const Game *g)
{
    size_t size = 64;
    while (size < 2 * (size_t)g->tag_count) size *= 2;
    int *table = xcalloc(size, sizeof *table);   /* index + 1 of a tag, 0: free */
    bool *repeated = xcalloc((size_t)g->tag_count, sizeof *repeated);
    for (int i = 0; i < g->tag_count; i++) {
        const char *name = g->tags[i].name;
        size_t k = tag_name_hash(name) & (size - 1);
        while (table[k] && strcmp(g->tags[table[k] - 1].name, name) != 0) k = (k + 1) & (size - 1);
        if (table[k]) repeated[i] = true;
        else table[k] = i + 1;
    }
    free(table);
    return repeated;
}

/* The Seven Tag Roster (missing ones as "?"), the input's other tags in
 * their order (each name once), then the driver's new ones. */
static void put_tags(const Game *g, const PgnAnnotations *notes, StrBuf *out)
{
    if (put_tags_as_read(g, notes, out)) return;
    /* the names of the first tags, worked out once for both passes */
    enum { NAMES_KEPT = 32 };
    TagName names[NAMES_KEPT];
    const Tag *roster[STR_COUNT] = {NULL};
    for (int i = 0; i < g->tag_count; i++) {
        TagName t = tag_name(g->tags[i].name);
        if (i < NAMES_KEPT) names[i] = t;
        if (t.roster >= 0 && !roster[t.roster]) roster[t.roster] = &g->tags[i];
    }
    for (int i = 0; notes && i < notes->ntags; i++) {
        int r = tag_name(notes->tags[i].name).roster;
        if (r >= 0) roster[r] = &notes->tags[i];
    }
    for (int i = 0; i < STR_COUNT; i++) {
        const Tag *t = roster[i];
        if (t) {
            put_tag(out, seven_tag_roster[i].name, seven_tag_roster[i].len, t->value, tag_plain_len(t));
        } else {
            const char *value = i == 2 ? "????.??.??" : i == 6 ? result_to_write(g) : "?";
            put_tag(out, seven_tag_roster[i].name, seven_tag_roster[i].len, value, SIZE_MAX);
        }
    }
    bool *repeated = g->tag_count > TAGS_COMPARED ? repeated_tag_names(g) : NULL;
    for (int i = 0; i < g->tag_count; i++) {
        TagName t = i < NAMES_KEPT ? names[i] : tag_name(g->tags[i].name);
        /* a tag given twice is written once, with the value lookups see
         * (the first): a repeated tag name on a line of its own starts
         * the next game when the text is read again */
        if (t.roster >= 0 || (repeated ? repeated[i] : game_tag_find(g->tags, i, g->tags[i].name) != NULL))
            continue;
        const char *value = tag_override(notes, g->tags[i].name);
        if (value) put_tag(out, g->tags[i].name, t.len, value, SIZE_MAX);
        else put_tag(out, g->tags[i].name, t.len, g->tags[i].value, tag_plain_len(&g->tags[i]));
    }
    free(repeated);
    for (int i = 0; notes && i < notes->ntags; i++) {
        TagName t = tag_name(notes->tags[i].name);
        if (t.roster < 0 && !game_tag(g, notes->tags[i].name))
            put_tag(out, notes->tags[i].name, t.len, notes->tags[i].value, SIZE_MAX);
    }
}

void pgn_write_game(const Game *g, const PgnAnnotations *notes, StrBuf *out)
{
    put_tags(g, notes, out);
    sb_putc(out, '\n');

    const char **no_notes = notes && notes->node_comments ? NULL : xcalloc((size_t)g->node_count, sizeof *no_notes);
    Writer w = {{*out, out->len, 0, false, false}, notes, no_notes ? no_notes : notes->node_comments,
                notes ? notes->drop_comments : NULL, g, NULL, NULL, "", 0};
    bool unread = g->truncated && g->unread_text;
    if (unread && g->root->child) {
        const GameNode *last = g->root->child;
        while (last->child) last = last->child;
        w.unread_after = last;
    }
    put_root_comments_and_note(&w.fill, comments_of(&w, g->root), note_for(&w, g->root));
    if (g->root->child) put_line(&w, g->root->child, false);
    else if (unread) put_unread_text(&w);
    put_str(&w.fill, result_to_write(g));
    *out = w.fill.out;
    sb_append(out, "\n\n");   /* with the NUL */
    free(no_notes);
}
