/*
 * src/pgn/reader_parse.c — stage 2 of the PGN reader (pgn/reader.h): one
 * game's text, as the splitter (reader_split.c) gives it, into a Game
 * (pgn_parse_game, pgn_parse_game_gated).
 *
 * The tag section first: the pairs the splitter marked are added without
 * being read again, and pairs of the usual form are kept where they are in
 * a copy of the text (tag_lines.c); the others are read here, malformed
 * ones as far as they can be. Then the movetext: a token reader (blanks,
 * %-lines and move numbers passed over) gives each token to its handler,
 * which replays a move into the tree, opens or closes a variation, keeps a
 * comment, a NAG or a glyph, or ends the game at its result. Through a gate
 * (PgnGate), a game that is shut out is replayed without its tree, with the
 * same messages. The first problem of a game is its one message; line and
 * column numbers are counted only for it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pgn/reader.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chess/position.h"
#include "chess/san.h"
#include "pgn/reader_int.h"
#include "pgn/tag_lines.h"

typedef struct GameParser {
    const char *file;
    DiagSink *diag;
    Arena *arena;
    Game *game;
    const char *s;          /* the game's text, with a NUL at s[n] (a StrBuf's) */
    size_t n, i;
    unsigned first_line;    /* input line of s[0] */
    unsigned first_column;  /* input column of s[0] (a game may start mid-line) */
    int tag_cap;            /* capacity of game->tags */
    char *tag_text;         /* NULL, or a copy in the arena of s[0, tag_text_len) (tag_text_for) */
    size_t tag_text_len;
    const RawTagMark *tag_marks;   /* the splitter's RawGame.tag_marks, */
    int tag_mark_count, next_tag_mark;   /* the first one not used yet */
    int tag_lines_count;    /* the tags read as the first run of marked lines, */
    size_t tag_lines_end;   /* the last of them ending at this offset (Game.tag_lines) */
    size_t nul_at;          /* offset of the first NUL read as a space, or SIZE_MAX */
    bool reported;          /* the game's one message has been given */
    PgnParseStatus status;
    const PgnMoveHook *hook;   /* told of each node made (NULL: none) */
} GameParser;

/* Input line and column of offset `off`, counted only when a message needs
 * them (the parser itself never tracks lines). */
static void line_col_at(const GameParser *p, size_t off, unsigned *line, unsigned *col)
{
    unsigned l = p->first_line;
    size_t line_start = 0;
    for (size_t k = 0; k < off && k < p->n; k++)
        if (p->s[k] == '\n') {
            l++;
            line_start = k + 1;
        }
    *line = l;
    *col = (unsigned)(off - line_start) + 1 + (l == p->first_line ? p->first_column - 1 : 0);
}

static unsigned column_at(const GameParser *p, size_t off)
{
    unsigned line, col;
    line_col_at(p, off, &line, &col);
    return col;
}

static const char nul_message[] = "NUL byte in the game's text (read as a space, as is any other)";

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void problem_at(GameParser *p, size_t off, const char *fmt, ...)
{
    if (p->status < PGN_DAMAGED) p->status = PGN_DAMAGED;
    if (p->reported) return;
    p->reported = true;
    char msg[512];
    unsigned line, col;
    if (p->nul_at < off) {   /* the game's first problem is a NUL byte before this one */
        snprintf(msg, sizeof msg, "%s", nul_message);
        off = p->nul_at;
    } else {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
    }
    line_col_at(p, off, &line, &col);
    diag_game(p->diag, p->file, line, col, p->game->number, "%s", msg);
}

/* Reports the game's NUL bytes when no other problem came before them. */
static void report_nul(GameParser *p)
{
    if (p->nul_at != SIZE_MAX) problem_at(p, p->nul_at, "%s", nul_message);
}

/* Where the reader stands in a game's text: s[i], with s[n] a NUL. The
 * movetext loop keeps one in a local of its own, whose fields stay in
 * registers; through the GameParser (p->i) every store the replay makes
 * to a node (a byte of the board, of the SAN) could change them, so the
 * compiler read them again after each (docs/performance.md, replay round). */
typedef struct TextCursor {
    const char *s;
    size_t n, i;
} TextCursor;

/* Advances over blanks and over %-escape lines. */
static inline void cursor_skip_blanks(TextCursor *c)
{
    /* the usual case: one space, then a token (no byte above ' ' is a blank) */
    if (c->i < c->n && c->s[c->i] == ' ' && (unsigned char)c->s[c->i + 1] > ' ') {
        c->i++;
        return;
    }
    while (c->i < c->n && is_class(c->s[c->i], PC_SPACE)) {
        if (c->s[c->i++] == '\n' && c->i < c->n && c->s[c->i] == '%')
            while (c->i < c->n && c->s[c->i] != '\n') c->i++;
    }
}

static inline void skip_blanks(GameParser *p)
{
    TextCursor c = {p->s, p->n, p->i};
    cursor_skip_blanks(&c);
    p->i = c.i;
}

/* ---- tags ---- */

/* Without the splitter's marks, the tag section's bytes are most likely
 * within the first TAG_TEXT_BYTES of the game's text. */
#define TAG_TEXT_BYTES 2048

/* A copy of the start of the game's text in which the names and values of
 * tag pairs of the usual form are kept (tag_pair_keep) instead of each
 * being copied into the arena. The copy, made at the first call, goes up to the last marked
 * tag pair, else holds TAG_TEXT_BYTES; NULL when it does not hold s[need]
 * (a tag section longer than that). */
static char *tag_text_for(GameParser *p, size_t need)
{
    if (!p->tag_text) {
        /* the last mark's line end too: Game.tag_lines */
        size_t want = p->tag_mark_count ? tag_line_end(&p->tag_marks[p->tag_mark_count - 1]) : TAG_TEXT_BYTES;
        p->tag_text_len = p->n + 1 < want ? p->n + 1 : want;   /* n + 1: with s[n] */
        p->tag_text = arena_alloc(p->arena, p->tag_text_len);
        memcpy(p->tag_text, p->s, p->tag_text_len);
    }
    return need < p->tag_text_len ? p->tag_text : NULL;
}

/* Adds a tag: name and value are the game's, NUL-terminated (value_len
 * counts the value's bytes when plain). */
static void add_tag(GameParser *p, const char *name, const char *value, bool plain, size_t value_len)
{
    Game *g = p->game;
    if (g->tag_count == p->tag_cap) {
        int cap = p->tag_cap ? p->tag_cap * 2 : 16;
        g->tags = arena_realloc(p->arena, g->tags, sizeof(Tag) * (size_t)p->tag_cap,
                                sizeof(Tag) * (size_t)cap);
        p->tag_cap = cap;
    }
    g->tags[g->tag_count].name = name;
    g->tags[g->tag_count].value = value;
    g->tags[g->tag_count].plain = plain && value_len <= UINT32_MAX;
    g->tags[g->tag_count].value_len = (uint32_t)value_len;
    g->tag_count++;
}

/* True when a tag pair starts on a later line of the game text. */
static bool more_tags_follow(const GameParser *p, size_t from)
{
    for (size_t i = from; i < p->n; i++) {
        if (p->s[i] != '\n') continue;
        size_t eol = i + 1;
        while (eol < p->n && p->s[eol] != '\n') eol++;
        if (starts_tag(p->s + i + 1, eol - i - 1)) return true;
        if (is_class(p->s[i + 1], PC_DIGIT)) return false;   /* movetext began */
    }
    return false;
}

/* The tag value written in s[from, to), with \" and \\ unescaped, in the
 * arena; `plain` when the caller knows it holds no backslash. */
static const char *tag_value(GameParser *p, size_t from, size_t to, bool plain)
{
    char *v = arena_alloc(p->arena, to - from + 1);
    if (plain || !memchr(p->s + from, '\\', to - from)) {   /* nothing escaped: the usual value */
        memcpy(v, p->s + from, to - from);
        v[to - from] = '\0';
        return v;
    }
    size_t n = 0;
    for (size_t i = from; i < to; i++) {
        if (p->s[i] == '\\' && i + 1 < to && (p->s[i + 1] == '"' || p->s[i + 1] == '\\')) i++;
        v[n++] = p->s[i];
    }
    v[n] = '\0';
    return v;
}

/* Adds the pair of the usual form at s[open], whose name ends at name_end
 * and value at quote, keeping both in text (tag_text), and moves past it. */
static void add_usual_tag(GameParser *p, char *text, size_t open, size_t name_end, size_t quote)
{
    KeptTag t = tag_pair_keep(text, open, name_end, quote);
    add_tag(p, t.name, t.value, true, t.value_len);
    p->i = t.end;
}

/* The tag pairs the splitter marked from p->i on (RawGame.tag_marks), each
 * followed by the next one on the following line: added as parse_tag would
 * add them, without reading them again. False when no marked pair starts
 * at p->i. */
static bool parse_marked_tags(GameParser *p)
{
    const RawTagMark *m = p->tag_marks + p->next_tag_mark, *end = p->tag_marks + p->tag_mark_count;
    while (m < end && m->open < p->i) m++;
    char *text;
    if (m == end || m->open != p->i || !(text = tag_text_for(p, m->quote))) {
        p->next_tag_mark = (int)(m - p->tag_marks);
        return false;
    }
    bool first_tags = p->game->tag_count == 0;
    do {
        add_usual_tag(p, text, m->open, m->name_end, m->quote);
        m++;
    } while (m < end && tag_line_follows(p->s, p->i, m));
    p->next_tag_mark = (int)(m - p->tag_marks);
    if (first_tags) {
        p->tag_lines_count = p->game->tag_count;
        p->tag_lines_end = p->i;
    }
    return true;
}

/* [Name "value"] at p->s[p->i] == '['. A malformed pair is reported and what
 * can be read of it is kept. */
static void parse_tag(GameParser *p)
{
    size_t open = p->i;
    /* the usual form, [Name "value"] with nothing escaped: its name and
     * value kept in place in tag_text */
    TagLine usual;
    char *text;
    if (tag_pair_usual(p->s + open, p->n - open, &usual) && (text = tag_text_for(p, open + usual.quote))) {
        add_usual_tag(p, text, open, open + usual.name_end, open + usual.quote);
        return;
    }
    size_t i = open + 1;
    while (i < p->n && (p->s[i] == ' ' || p->s[i] == '\t')) i++;
    size_t name = i;
    while (i < p->n && is_class(p->s[i], PC_NAME)) i++;
    size_t name_len = i - name;
    while (i < p->n && (p->s[i] == ' ' || p->s[i] == '\t')) i++;
    size_t vstart = i, vend = i;   /* the value as written */
    bool plain = false;            /* ... holds no '"', backslash, CR or LF (Tag.plain) */
    bool ok = name_len > 0;
    if (ok && i < p->n && p->s[i] == '"') {
        vstart = ++i;
        /* the usual value: the next '"' with no backslash or line end before
         * it (a CR, which the game's text never holds, only sends the value
         * the long way) */
        size_t quote = find_value_stop(p->s, i, p->n);
        if (quote < p->n && p->s[quote] == '"') {
            i = quote;
            plain = true;
        } else {
            while (i < p->n && p->s[i] != '"' && p->s[i] != '\n')
                i += p->s[i] == '\\' && i + 1 < p->n && (p->s[i + 1] == '"' || p->s[i + 1] == '\\') ? 2 : 1;
        }
        vend = i;
        if (i < p->n && p->s[i] == '"') {
            i++;
            /* an unescaped '"' inside the value ("Tour "C""): take the value
             * up to the last '"' before the line's closing ']' */
            size_t j = i;
            while (j < p->n && (p->s[j] == ' ' || p->s[j] == '\t')) j++;
            if (j < p->n && p->s[j] != ']') {
                size_t eol = j, last = 0;
                while (eol < p->n && p->s[eol] != '\n') eol++;
                for (size_t k = j; k < eol; k++) {
                    size_t m = k + 1;
                    while (m < eol && (p->s[m] == ' ' || p->s[m] == '\t')) m++;
                    if (p->s[k] == '"' && m < eol && p->s[m] == ']') last = k;
                }
                if (last) {
                    problem_at(p, vstart - 1, "tag value of '%.*s' has an unescaped '\"'",
                               (int)name_len, p->s + name);
                    vend = last;
                    i = last + 1;
                    plain = false;
                }
            }
        } else {
            problem_at(p, open, "tag value of '%.*s' is not closed by '\"'", (int)name_len,
                       p->s + name);
            /* keep the text up to the last ']' on the line */
            size_t rb = i;
            while (rb > vstart && p->s[rb - 1] != ']') rb--;
            if (rb > vstart) i = vend = rb - 1;
            ok = false;
        }
    } else if (ok) {
        problem_at(p, i, "tag '%.*s' has no quoted value", (int)name_len, p->s + name);
        ok = false;
    } else {
        problem_at(p, open, "malformed tag pair");
    }
    while (i < p->n && (p->s[i] == ' ' || p->s[i] == '\t')) i++;
    if (i < p->n && p->s[i] == ']') {
        i++;
    } else if (ok) {
        problem_at(p, i, "expected ']' to close the tag pair opened at column %u",
                   column_at(p, open));
    }
    if (name_len > 0)
        add_tag(p, arena_strndup(p->arena, p->s + name, name_len), tag_value(p, vstart, vend, plain), plain,
                vend - vstart);
    p->i = i;
}

/* ---- movetext ---- */

/* A comment's text with every run of blanks and line ends made one space and
 * the ends trimmed, so that re-wrapping it on output changes nothing. */
static Comment *new_comment(GameParser *p, const char *text, size_t len)
{
    char *t = arena_alloc(p->arena, len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (!is_class(text[i], PC_SPACE)) t[n++] = text[i];
        else if (n > 0 && t[n - 1] != ' ') t[n++] = ' ';
    }
    if (n > 0 && t[n - 1] == ' ') n--;
    t[n] = '\0';
    Comment *c = arena_alloc(p->arena, sizeof *c);
    c->next = NULL;
    c->text = t;
    c->last = c;
    return c;
}

/* Appends c to a list: its first comment knows the last, so that a move
 * with 100,000 comments is read in linear time. */
static void append_comment(Comment **list, Comment *c)
{
    if (*list) {
        (*list)->last->next = c;
        (*list)->last = c;
    } else {
        *list = c;
    }
}

static void add_nag(GameParser *p, GameNode *node, unsigned nag)
{
    if (nag > 255 || node->nag_count == 255) return;
    uint8_t *nags = arena_alloc(p->arena, (size_t)node->nag_count + 1);
    if (node->nag_count) memcpy(nags, node->nags, node->nag_count);
    nags[node->nag_count++] = (uint8_t)nag;
    node->nags = nags;
    node->annotated = 1;
}

/* Glyphs written instead of $N. */
static const struct { const char *text; unsigned nag; } glyph_nags[] = {
    {"!", 1}, {"?", 2}, {"!!", 3}, {"??", 4}, {"!?", 5}, {"?!", 6}, {"=", 10},
    {"+=", 14}, {"=+", 15}, {"+/=", 14}, {"=/+", 15}, {"+/-", 16}, {"-/+", 17},
    {"+-", 18}, {"-+", 19},
};

static unsigned glyph_nag(const char *s, size_t n)
{
    if (s[0] != '!' && s[0] != '?' && s[0] != '=' && s[0] != '+' && s[0] != '-') return 0;
    for (size_t k = 0; k < sizeof glyph_nags / sizeof glyph_nags[0]; k++)
        if (strlen(glyph_nags[k].text) == n && memcmp(glyph_nags[k].text, s, n) == 0)
            return glyph_nags[k].nag;
    return 0;
}

/* Skips a variation whose bad move starts at c->i, up to and including its
 * closing ')' (nested ones and comments included). */
static void skip_rest_of_variation(TextCursor *c)
{
    int depth = 1;
    while (c->i < c->n && depth > 0) {
        char ch = c->s[c->i];
        if (ch == '{') {
            const char *close = memchr(c->s + c->i, '}', c->n - c->i);
            c->i = close ? (size_t)(close - c->s) + 1 : c->n;
            continue;
        }
        if (ch == ';') {
            while (c->i < c->n && c->s[c->i] != '\n') c->i++;
            continue;
        }
        if (ch == '(') depth++;
        if (ch == ')') depth--;
        c->i++;
    }
}

/* Can a movetext token starting with c be meant as a move? A token that
 * cannot ("<br>", "Tf8-e8") is skipped; one that can is an error. */
static bool is_move_attempt(char c)
{
    return (c >= 'a' && c <= 'h') || c == 'K' || c == 'Q' || c == 'R' || c == 'B' || c == 'N' ||
           c == 'P' || c == 'O' || c == 'o' || c == '0' || c == '-' || c == 'Z';
}

static const char *san_problem(SanStatus st)
{
    switch (st) {
    case SAN_ILLEGAL: return "illegal move";
    case SAN_AMBIGUOUS: return "ambiguous move";
    default: return "unreadable move";
    }
}

#define MAX_VARIATION_DEPTH 1024

/* {---- the movetext token reader ---- */

typedef enum MovetextKind {
    MT_END,          /* no more text */
    MT_COMMENT,      /* {...} (text: inside the braces; closed: the '}' was there) */
    MT_LINE_COMMENT, /* ; to the end of the line */
    MT_OPEN,         /* ( */
    MT_CLOSE,        /* ) */
    MT_STRAY,        /* [ ] or } where no comment or tag is open */
    MT_WORD          /* anything else, up to a delimiter: a move, a number, a NAG, a result */
} MovetextKind;

typedef struct MovetextToken {
    MovetextKind kind;
    size_t start;            /* offset of its first byte in the game's text */
    size_t text, text_end;   /* comments: the text inside (words: start only, see below) */
    bool closed;             /* MT_COMMENT: the closing '}' was found */
} MovetextToken;

/* A move number alone ("12.", "12...", "12") at s[start], a digit: the
 * end of its digits and dots when a delimiter follows them (the NUL at
 * s[n] ends the last word), else 0. */
static inline size_t move_number_end(const char *s, size_t start)
{
    size_t end = start + 1;
    while (is_class(s[end], PC_DIGIT)) end++;
    while (s[end] == '.') end++;
    return is_class(s[end], PC_DELIM) ? end : 0;
}

/* The next token of the movetext from c->i (blanks, %-lines and move
 * numbers alone skipped: they mean nothing to the reader, which reads
 * one glued to its move, "12.e4", in on_word); c->i moves past it. A word
 * is not read here: its token gives where it starts, c->i stays there,
 * and the caller reads it up to word_end (play_usual_run, before this,
 * has played the moves of the usual shape). */
static inline MovetextToken next_movetext_token(TextCursor *c)
{
    size_t start;
    MovetextToken t;
    const char *s = c->s;
    for (;;) {
        cursor_skip_blanks(c);
        t = (MovetextToken){MT_END, c->i, c->i, c->i, false};
        if (c->i >= c->n) return t;
        start = c->i;
        unsigned first = pgn_char_class[(unsigned char)s[start]];
        if (first & PC_DELIM) break;
        if (first & PC_DIGIT) {
            size_t end = move_number_end(s, start);
            if (end) {
                c->i = end;
                continue;
            }
        }
        return (MovetextToken){MT_WORD, start, start, start, false};
    }
    switch (s[start]) {
    case '{': {
        const char *close = memchr(s + start + 1, '}', c->n - start - 1);
        size_t end = close ? (size_t)(close - s) : c->n;
        t = (MovetextToken){MT_COMMENT, start, start + 1, end, close != NULL};
        c->i = close ? end + 1 : end;
        return t;
    }
    case ';': {
        size_t end = start;
        while (end < c->n && s[end] != '\n') end++;
        t = (MovetextToken){MT_LINE_COMMENT, start, start + 1, end, false};
        c->i = end;
        return t;
    }
    case '(': t.kind = MT_OPEN; c->i++; return t;
    case ')': t.kind = MT_CLOSE; c->i++; return t;
    default:   /* [ ] } (blanks were skipped, words taken above) */
        t.kind = MT_STRAY;
        c->i++;
        return t;
    }
}

/* The end of the word starting at s[start]: its first delimiter (the NUL
 * at s[n] ends the last word). */
static inline size_t word_end(const char *s, size_t start)
{
    size_t end = start + 1;
    while (!is_class(s[end], PC_DELIM)) end++;
    return end;
}

/* }---- */

/* {---- the movetext handlers ---- */

/* Where the replay of the movetext stands. It builds the game's tree, or,
 * for a game a gate shut out (pgn_parse_game_gated), only keeps the
 * position the line being read has reached, and what takes its moves
 * back: the same moves played, the same problems reported, no node made. */
typedef struct LineReturn {
    Position pos;
    PosUndo undo;
} LineReturn;

typedef struct Movetext {
    GameParser *p;
    Game *game;
    bool build_tree;
    GameNode *root;              /* the game's root, or the line's node (below) */
    GameNode *cur;               /* the position the next move is played from */
    GameNode *stack[MAX_VARIATION_DEPTH];   /* where each open variation goes back to */
    /* the last child so far of the position a variation at each depth
     * starts from (its first move goes after it), and the move it was
     * opened before: the next '(' at that depth before the same move adds
     * a sibling of the same children */
    GameNode *sibling_tail[MAX_VARIATION_DEPTH];
    GameNode *opened_before[MAX_VARIATION_DEPTH];
    int tails_set;               /* depths whose two entries above are set */
    size_t open_at[MAX_VARIATION_DEPTH];    /* and where its '(' is */
    int depth;
    Comment *pending;            /* comments before a variation's first move */
    bool at_variation_start;
    bool done;                   /* the result, or a bad move, ends the movetext */
    /* without a tree: cur is root, a node of the arena whose position
     * (its pos alone is used) is the one the next move is played from,
     * made in place: ply moves after the game's first position, each
     * taken back by line_undo[0..ply) in reverse order. An open variation
     * keeps the position it goes back to, and the entry of line_undo it
     * overwrites, in returns[], and its ply in return_ply[] */
    PosUndo *line_undo;
    LineReturn *returns;
    int ply, line_cap, returns_cap;
    int return_ply[MAX_VARIATION_DEPTH];
    const PgnGate *gate;         /* whose placements to stop at (NULL: none) */
    Bitboard placement_squares;  /* the squares of all of them */
    bool placement_reached;
} Movetext;

/* Some square of a placement's squares holds one of its pieces. */
static bool has_placement(const Position *pos, const PgnGate *gate)
{
    for (int i = 0; i < gate->nplacements; i++)
        if (pos_squares_with(pos, gate->placements[i].pieces) & gate->placements[i].squares) return true;
    return false;
}

/* Grows an array of `size`-byte elements in the game's arena to hold `need`. */
static void *grow_array(Arena *a, void *old, size_t size, int *cap, int need)
{
    if (need <= *cap) return old;
    int more = *cap ? *cap * 2 : 64;
    while (more < need) more *= 2;
    void *grown = arena_realloc(a, old, size * (size_t)*cap, size * (size_t)more);
    *cap = more;
    return grown;
}

/* The entry of line_undo for the next move. */
static inline PosUndo *next_line_undo(Movetext *mt)
{
    mt->line_undo = grow_array(mt->p->arena, mt->line_undo, sizeof *mt->line_undo, &mt->line_cap, mt->ply + 1);
    return &mt->line_undo[mt->ply++];
}

/* After a move on the line that may have brought a piece to one of the
 * gate's placements. */
static inline void line_arrived(Movetext *mt, bool may_arrive)
{
    if (mt->gate && may_arrive && has_placement(&mt->cur->pos, mt->gate)) {
        mt->placement_reached = true;   /* the game needs its tree after all */
        mt->done = true;
    }
}

/* Without a tree: plays m in the current position, keeping what takes it
 * back. */
static void line_play(Movetext *mt, Move m)
{
    pos_make_move_undoable(&mt->cur->pos, m, next_line_undo(mt));
    /* a piece comes to a square by a move there, or by castling */
    line_arrived(mt, (sq_bb(move_to(m)) & mt->placement_squares) || move_is_castle(m));
}

/* The same for a normal move from `from` to `to` (the usual run's, inline
 * in it). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void line_play_normal(Movetext *mt, Square from, Square to)
{
    pos_make_normal_move_undoable(&mt->cur->pos, from, to, next_line_undo(mt));
    line_arrived(mt, sq_bb(to) & mt->placement_squares);
}

static void on_comment(Movetext *mt, const MovetextToken *t)
{
    GameParser *p = mt->p;
    if (t->kind == MT_COMMENT && !t->closed) problem_at(p, t->start, "comment is not closed by '}'");
    if (!mt->build_tree) return;
    Comment *cm = new_comment(p, p->s + t->text, t->text_end - t->text);
    if (mt->at_variation_start) {
        append_comment(&mt->pending, cm);
    } else {
        append_comment(&mt->cur->comments, cm);
        mt->cur->annotated = 1;
    }
}

static void on_open_variation(Movetext *mt, size_t at, TextCursor *c)
{
    GameParser *p = mt->p;
    if (mt->depth == MAX_VARIATION_DEPTH || (mt->build_tree ? mt->cur == mt->root : mt->ply == 0)) {
        if (mt->depth == MAX_VARIATION_DEPTH)
            problem_at(p, at, "variations nested too deeply (limit is %d)", MAX_VARIATION_DEPTH);
        else
            problem_at(p, at, "variation before the first move");
        skip_rest_of_variation(c);
        return;
    }
    if (mt->build_tree) {
        int d = mt->depth;
        if (d == mt->tails_set) mt->opened_before[mt->tails_set++] = NULL;
        if (mt->opened_before[d] != mt->cur) {   /* the first variation before this move */
            mt->opened_before[d] = mt->cur;
            mt->sibling_tail[d] = mt->cur;
        }
        mt->stack[d] = mt->cur;
        mt->cur = mt->cur->parent;
        mt->game->variation_tail = mt->sibling_tail[d];
    } else {
        mt->returns = grow_array(p->arena, mt->returns, sizeof *mt->returns, &mt->returns_cap, mt->depth + 1);
        mt->returns[mt->depth] = (LineReturn){mt->cur->pos, mt->line_undo[mt->ply - 1]};
        mt->return_ply[mt->depth] = mt->ply;
        pos_unmake_move(&mt->cur->pos, &mt->line_undo[--mt->ply]);
    }
    mt->open_at[mt->depth] = at;
    mt->depth++;
    mt->at_variation_start = true;
    mt->pending = NULL;
}

static void on_close_variation(Movetext *mt, size_t at)
{
    if (mt->depth == 0) {
        problem_at(mt->p, at, "')' closes no variation");
        return;
    }
    mt->depth--;
    if (mt->build_tree) {
        mt->cur = mt->stack[mt->depth];
        /* the variation's first move, when it had one, is the last child now */
        GameNode **tail = &mt->sibling_tail[mt->depth];
        if ((*tail)->sibling) *tail = (*tail)->sibling;
    } else {
        mt->ply = mt->return_ply[mt->depth];
        mt->cur->pos = mt->returns[mt->depth].pos;
        mt->line_undo[mt->ply - 1] = mt->returns[mt->depth].undo;
    }
    mt->at_variation_start = false;
    mt->pending = NULL;
}

/* $N */
static void on_nag(Movetext *mt, size_t start, const char *tok, size_t len)
{
    unsigned nag = 0;
    size_t k = 1;
    while (k < len && is_class(tok[k], PC_DIGIT) && nag < 1000) nag = nag * 10 + (unsigned)(tok[k++] - '0');
    if (k == 1 || k < len || nag > 255) problem_at(mt->p, start, "bad NAG '%.*s'", (int)len, tok);
    else if (mt->build_tree && mt->cur != mt->root) add_nag(mt->p, mt->cur, nag);
}

/* 1-0 0-1 1/2-1/2 *: the end of the game, unless inside a variation */
static void on_result(Movetext *mt, size_t start, const char *tok, size_t len)
{
    if (mt->depth > 0) {
        problem_at(mt->p, start, "game result '%.*s' inside a variation", (int)len, tok);
        return;
    }
    mt->game->result = len == 3 && tok[1] == '/' ? "1/2-1/2" : arena_strndup(mt->p->arena, tok, len);
    mt->done = true;
}

/* A word that is not a move: a glyph ("!", "+-"), an en-passant remark, or
 * text that is no move at all. False when it looked like a move. */
static bool on_other_word(Movetext *mt, size_t start, const char *tok, size_t len)
{
    unsigned glyph = glyph_nag(tok, len);
    if (glyph) {      /* "!", "+-", "=" ... written as their own token */
        if (mt->build_tree && mt->cur != mt->root) add_nag(mt->p, mt->cur, glyph);
        return true;
    }
    if ((len == 4 && memcmp(tok, "e.p.", 4) == 0) || (len == 2 && memcmp(tok, "ep", 2) == 0))
        return true;   /* en-passant remark written as its own token */
    if (!is_move_attempt(tok[0])) {
        problem_at(mt->p, start, "unexpected text '%.*s' in the movetext (skipped)", (int)len, tok);
        return true;
    }
    return false;
}

/* A move that cannot be played: reported, and the game ends there. */
static void on_bad_move(Movetext *mt, size_t start, const char *tok, size_t len, SanStatus st)
{
    GameParser *p = mt->p;
    const Position *pos = &mt->cur->pos;
    problem_at(p, start, "%s '%.*s' at move %u (%s to play)", san_problem(st), (int)len, tok, pos->fullmove,
               pos->side == WHITE ? "white" : "black");
    /* CQL 6.2 reads a game no further than its first bad move, in a
     * variation too (conformance: the-fork.pgn games 17 and 18) */
    mt->game->truncated = true;
    mt->game->unread_text = arena_strndup(p->arena, p->s + start, p->n - start);
    mt->depth = 0;
    mt->done = true;
}

/* What a run of moves does with them: RUN_TREE, builds the tree, with no
 * comment pending and no hook (nearly always); RUN_LINE, plays them on the
 * current line without a tree; RUN_ANY, either, testing at every move. */
typedef enum RunKind { RUN_TREE, RUN_LINE, RUN_ANY } RunKind;

/* Where the moves of the movetext are played: the current node and the
 * comments waiting for the next move, and what playing one needs, read
 * once (play_usual_run keeps them in registers for a run of moves; the
 * stores into each new node could change anything a pointer reaches). */
typedef struct MovePlayer {
    Movetext *mt;
    Game *game;
    Arena *arena;
    bool build_tree;
    GameNode *cur;       /* the node the next move is played from */
    Comment *pending;    /* comments before a variation's first move */
    const PgnMoveHook *hook;
} MovePlayer;

static inline MovePlayer move_player(Movetext *mt)
{
    return (MovePlayer){mt, mt->game, mt->p->arena, mt->build_tree, mt->cur, mt->pending, mt->p->hook};
}

/* Back into the Movetext, after a move played. */
static inline void move_player_done(const MovePlayer *pl)
{
    pl->mt->cur = pl->cur;
    pl->mt->pending = pl->pending;
    pl->mt->at_variation_start = false;
}

/* The new node's SAN (its first written_len bytes at san are its SAN when
 * that is above 0: san_parse_written), and the comments pending. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void node_made(MovePlayer *pl, GameNode *node, const char *san, size_t written_len, RunKind kind)
{
    if (written_len) game_keep_san(node, san, written_len);
    if (kind == RUN_ANY && pl->pending) {
        node->pre_comments = pl->pending;
        node->annotated = 1;
        pl->pending = NULL;
    }
    pl->cur = node;
    if (kind == RUN_ANY && pl->hook) pl->hook->node_made(pl->hook->ctx, node);
}

/* Whether a run of `kind` plays its moves on the current line (no tree). */
static inline bool plays_on_line(const MovePlayer *pl, RunKind kind)
{
    return kind == RUN_LINE || (kind == RUN_ANY && !pl->build_tree);
}

/* Plays the legal move m, read from the text at san (its first
 * written_len bytes are its SAN when that is above 0: san_parse_written),
 * from pl->cur: into the tree (the comments pending go with it), or on the
 * current line. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void play_move(MovePlayer *pl, Move m, const char *san, size_t written_len, RunKind kind)
{
    if (plays_on_line(pl, kind)) line_play(pl->mt, m);
    else node_made(pl, game_add_move(pl->game, pl->arena, pl->cur, m), san, written_len, kind);
}

/* The same for the usual run's normal move from `from` to `to`. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void play_normal_move(MovePlayer *pl, Square from, Square to, const char *san, size_t written_len,
                                    RunKind kind)
{
    if (plays_on_line(pl, kind)) line_play_normal(pl->mt, from, to);
    else node_made(pl, game_add_normal_move(pl->game, pl->arena, pl->cur, from, to), san, written_len, kind);
}

static void on_move(Movetext *mt, Move m, const char *san, size_t written_len)
{
    MovePlayer pl = move_player(mt);
    play_move(&pl, m, san, written_len, RUN_ANY);
    move_player_done(&pl);
}

/* The word s[start, end): a NAG, a result, or a move (after its move
 * number, with glyphs glued to it): every word but the moves of the
 * usual shape, which play_usual_run has played. */
static void on_word(Movetext *mt, size_t start, size_t end)
{
    GameParser *p = mt->p;
    const char *tok = p->s + start;
    size_t len = end - start;
    /* a word starting with a letter is a move, or no movetext at all */
    if (is_class(tok[0], PC_NUMERIC)) {
        if (tok[0] == '$') {
            on_nag(mt, start, tok, len);
            return;
        }
        /* a move number glued to its move ("12.e4", "12...Nf6": a move
         * number alone is no word, see next_movetext_token); no result is
         * one, and "0-0" is not one either */
        size_t k = 0, digits = 0;
        if (is_class(tok[0], PC_DIGIT)) {
            for (k = 1; k < len && is_class(tok[k], PC_DIGIT);) k++;
            digits = k;
            while (k < len && tok[k] == '.') k++;
        }
        if (digits && k > digits) {
            tok += k;
            len -= k;
            start += k;
        } else if (is_result(tok, len)) {
            on_result(mt, start, tok, len);
            return;
        }
    }
    /* trailing !? glyphs glued to the move */
    size_t move_len = len;
    while (move_len > 0 && is_class(tok[move_len - 1], PC_GLYPH)) move_len--;

    Move m;
    size_t written_len = 0;
    SanStatus st = move_len ? san_parse_written(&mt->cur->pos, tok, move_len, &m, &written_len)
                            : SAN_SYNTAX;
    if (st != SAN_OK) {
        if (!on_other_word(mt, start, tok, len)) on_bad_move(mt, start, tok, len, st);
        return;
    }
    on_move(mt, m, tok, written_len);
    if (mt->build_tree && move_len < len) {
        unsigned nag = glyph_nag(tok + move_len, len - move_len);
        if (nag) add_nag(p, mt->cur, nag);
    }
}

/*
 * The usual run of a movetext: blanks, move numbers alone, and moves of
 * the usual shape (san_parse_usual), castling and promotions
 * (san_parse_special) followed by a delimiter, each played as on_move
 * plays it, from c->i up to the first other byte (a comment, a variation,
 * a glyph, a result, an error, a %-line, a NUL, the end), where c->i is
 * left for the token reader.
 * It reads exactly what that reader would: the bulk of every game's text,
 * in a function of its own, so that its few values stay in registers
 * (docs/performance.md, replay round). Made in three copies, so that
 * none tests at every move what its kind fixes (play_usual_run).
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void usual_run(Movetext *mt, TextCursor *c, RunKind kind)
{
    const char *const s = c->s;
    const char *w = s + c->i;
    MovePlayer pl = move_player(mt);
    bool played = false;
    for (;;) {
        char b = *w;
        if (b == ' ') {
            w++;
            continue;
        }
        if (is_class(b, PC_SPACE)) {
            /* the end of the text (or a NUL in it), or an escape line: the
             * token reader knows them */
            if (b == '\0' || (b == '\n' && w[1] == '%')) break;
            w++;
            continue;
        }
        if (is_class(b, PC_DIGIT)) {
            size_t end = move_number_end(s, (size_t)(w - s));
            if (!end) break;
            w = s + end;
            continue;
        }
        if (is_class(b, PC_NUMERIC | PC_DELIM)) break;
        Square from, to;
        size_t written_len, len = san_parse_usual(&pl.cur->pos, w, &from, &to, &written_len);
        if (len) {   /* a normal move */
            if (!is_class(w[len], PC_DELIM)) break;
            play_normal_move(&pl, from, to, w, written_len, kind);
        } else {   /* castling and promotions, read here too: one move in 50 */
            Move special;
            len = san_parse_special(&pl.cur->pos, w, &special);
            if (!len || !is_class(w[len], PC_DELIM)) break;
            play_move(&pl, special, w, 0, kind);
        }
        played = true;
        w += len;
        if (kind != RUN_TREE && !pl.build_tree && mt->done) break;   /* a placement of the gate reached */
    }
    c->i = (size_t)(w - s);
    if (played) move_player_done(&pl);
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void usual_run_tree(Movetext *mt, TextCursor *c)
{
    usual_run(mt, c, RUN_TREE);
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void usual_run_line(Movetext *mt, TextCursor *c)
{
    usual_run(mt, c, RUN_LINE);
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void usual_run_any(Movetext *mt, TextCursor *c)
{
    usual_run(mt, c, RUN_ANY);
}

static inline void play_usual_run(Movetext *mt, TextCursor *c)
{
    if (!mt->build_tree) usual_run_line(mt, c);
    else if (!mt->pending && !mt->p->hook) usual_run_tree(mt, c);
    else usual_run_any(mt, c);
}

/* }---- */

/* Replays the movetext from p->i: the token reader's tokens, each to its
 * handler, until the text or the game ends. With build_tree, into the tree
 * under the root; without, on the positions of the current line alone,
 * stopping at the first position with one of the gate's placements (when
 * `gate` is not NULL): then the result is false, and the game is to be
 * parsed with its tree. */
static bool replay_movetext(GameParser *p, bool build_tree, const PgnGate *gate)
{
    Movetext mt;
    mt.p = p;
    mt.game = p->game;
    mt.build_tree = build_tree;
    mt.root = mt.cur = p->game->root;
    mt.depth = 0;
    mt.tails_set = 0;
    mt.pending = NULL;
    mt.at_variation_start = false;
    mt.done = false;
    mt.gate = gate;
    mt.placement_squares = 0;
    for (int i = 0; gate && i < gate->nplacements; i++) mt.placement_squares |= gate->placements[i].squares;
    mt.placement_reached = false;
    mt.line_undo = NULL;
    mt.returns = NULL;
    mt.line_cap = mt.returns_cap = 0;
    mt.ply = 0;
    if (!build_tree) {
        GameNode *line = arena_alloc(p->arena, sizeof *line);
        line->pos = p->game->root->pos;
        mt.root = mt.cur = line;
    }
    TextCursor c = {p->s, p->n, p->i};
    cursor_skip_blanks(&c);
    size_t movetext_start = c.i;   /* == p->n: a tag section without movetext */

    while (!mt.done) {
        play_usual_run(&mt, &c);
        if (mt.done) break;
        MovetextToken t = next_movetext_token(&c);
        switch (t.kind) {
        case MT_END: mt.done = true; break;
        case MT_COMMENT: case MT_LINE_COMMENT: on_comment(&mt, &t); break;
        case MT_OPEN: on_open_variation(&mt, t.start, &c); break;
        case MT_CLOSE: on_close_variation(&mt, t.start); break;
        case MT_STRAY: problem_at(p, t.start, "unexpected '%c' in movetext", p->s[t.start]); break;
        case MT_WORD:   /* not a move of the usual shape (play_usual_run) */
            c.i = word_end(c.s, t.start);
            on_word(&mt, t.start, c.i);
            break;
        }
    }
    p->i = c.i;
    p->game->variation_tail = NULL;
    if (mt.placement_reached) return false;
    Game *g = p->game;
    if (mt.depth > 0) problem_at(p, mt.open_at[mt.depth - 1], "variation is not closed by ')'");
    if (!g->result && !g->truncated && !p->reported && movetext_start < p->n)
        problem_at(p, p->i > 0 ? p->i - 1 : 0, "game has no result (1-0, 0-1, 1/2-1/2 or *): truncated?");
    return true;
}

/* Variants whose moves are ordinary chess moves. */
static bool variant_is_playable(const char *v)
{
    static const char *const ok[] = {"standard", "chess", "chess960", "fischerandom",
                                     "fischerrandom", "from position", "normal", "960"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        const char *a = ok[i], *b = v;
        while (*a && *b && (*a == *b || (*b >= 'A' && *b <= 'Z' && *b + 32 == *a))) a++, b++;
        if (!*a && !*b) return true;
    }
    return false;
}

/* Keeps a message of the pass without a tree, which may be dropped: its
 * severity as one digit, then its text with the terminating NUL, record
 * after record. */
static void hold_message(void *ctx, DiagSeverity sev, const char *text)
{
    StrBuf *held = ctx;
    sb_putc(held, (char)('0' + sev));
    sb_append_n(held, text, strlen(text) + 1);
}

static void deliver_held(DiagSink *to, const StrBuf *held)
{
    for (size_t at = 0; at < held->len;) {
        const char *text = held->data + at + 1;
        diag_deliver(to, (DiagSeverity)(held->data[at] - '0'), text);
        at += strlen(text) + 2;
    }
}

/* The gate shuts the game out by its tags: a Result tag of another result
 * than the one it wants, or tags its `admits` refuses. */
static bool tags_shut_out(const PgnGate *gate, const Game *g)
{
    const char *r = gate->result ? game_result_tag(g) : NULL;
    if (r && strcmp(r, gate->result) != 0) return true;
    return gate->admits && !gate->admits(gate->ctx, g);
}

/* The movetext of a game the gate shuts out (by_tags: already known),
 * replayed without a tree, unless it reaches a position with a placement
 * (when its tags did not shut it out); then parsed with its tree from the
 * same point, as if the first pass never was, and the messages of that
 * pass are dropped. */
static void gated_movetext(GameParser *p, const PgnGate *gate, bool by_tags)
{
    GameParser first = *p;
    StrBuf held = SB_INIT;
    DiagSink holder;
    diag_sink_init(&holder, hold_message, &held);
    first.diag = &holder;
    if (replay_movetext(&first, false, by_tags ? NULL : gate)) {
        DiagSink *diag = p->diag;
        *p = first;
        p->diag = diag;
        deliver_held(diag, &held);
        p->game->moves_skipped = true;
    } else {
        Game *g = p->game;   /* what the first pass set, unset */
        g->result = NULL;
        g->truncated = false;
        g->unread_text = NULL;
        replay_movetext(p, true, NULL);
    }
    sb_free(&held);
}

bool pgn_game_has_placement(const Game *g, const PgnGate *gate)
{
    for (const GameNode *n = g->root; n; n = game_walk_next(NULL, n, true))
        if (has_placement(&n->pos, gate)) return true;
    return false;
}

PgnParseStatus pgn_parse_game(const RawGame *raw, const char *file, Arena *a, Game *out,
                              DiagSink *diag)
{
    return pgn_parse_game_gated(raw, file, a, out, diag, NULL);
}

static PgnParseStatus parse_game(const RawGame *raw, const char *file, Arena *a, Game *out, DiagSink *diag,
                                 const PgnGate *gate, const PgnMoveHook *hook);

PgnParseStatus pgn_parse_game_gated(const RawGame *raw, const char *file, Arena *a, Game *out,
                                    DiagSink *diag, const PgnGate *gate)
{
    return parse_game(raw, file, a, out, diag, gate, NULL);
}

PgnParseStatus pgn_parse_game_hooked(const RawGame *raw, const char *file, Arena *a, Game *out,
                                     DiagSink *diag, const PgnMoveHook *hook)
{
    return parse_game(raw, file, a, out, diag, NULL, hook);
}

static PgnParseStatus parse_game(const RawGame *raw, const char *file, Arena *a, Game *out, DiagSink *diag,
                                 const PgnGate *gate, const PgnMoveHook *hook)
{
    memset(out, 0, sizeof *out);
    out->number = raw->number;
    out->arena = a;
    GameParser p = {0};
    p.file = file;
    p.diag = diag;
    p.arena = a;
    p.game = out;
    p.s = sb_str(&raw->text);
    p.n = raw->text.len;
    p.first_line = raw->first_line;
    p.first_column = raw->first_column ? raw->first_column : 1;
    p.nul_at = raw->first_nul ? raw->first_nul - 1 : SIZE_MAX;
    p.tag_marks = raw->tag_marks;
    p.tag_mark_count = raw->tag_mark_count;
    p.status = PGN_OK;
    p.hook = hook;

    if (raw->oversized) {
        char limit[32];
        format_size(limit, sizeof limit, raw->size_limit);
        char last[48];
        if (raw->ends_input) snprintf(last, sizeof last, "the end of the input");
        else snprintf(last, sizeof last, "line %u", raw->last_line);
        diag_game(diag, file, p.first_line, p.first_column, raw->number,
                  "game text is longer than the limit (-maxgamesize %s); skipped it, up to %s",
                  limit, last);
        Position start;
        pos_start(&start);
        game_new_root(out, a, &start);
        return PGN_UNUSABLE;
    }

    /* tag section */
    for (;;) {
        skip_blanks(&p);
        if (p.i < p.n && p.s[p.i] == '%' && (p.i == 0 || p.s[p.i - 1] == '\n')) {
            while (p.i < p.n && p.s[p.i] != '\n') p.i++;
            continue;
        }
        if (p.i >= p.n) break;
        if (p.s[p.i] == '[') {
            if (!parse_marked_tags(&p)) parse_tag(&p);
            continue;
        }
        /* text that cannot start movetext, between tags: report and skip it */
        size_t end = p.i;
        while (end < p.n && !is_class(p.s[end], PC_SPACE)) end++;
        if (looks_like_movetext(p.s + p.i, end - p.i) || !more_tags_follow(&p, end)) break;
        problem_at(&p, p.i, "unexpected text '%.*s' in the tag section", (int)(end - p.i),
                   p.s + p.i);
        p.i = end;
    }
    if (p.tag_lines_count && p.tag_lines_count == out->tag_count)   /* no other tag */
        tag_lines_set(out, p.tag_text + p.tag_lines_end);

    Position start;
    const char *variant = game_tag(out, "Variant");
    const char *fen = game_tag(out, "FEN");
    if (variant && !variant_is_playable(variant)) {
        problem_at(&p, 0, "variant '%s' is not supported; game skipped", variant);
        p.status = PGN_UNUSABLE;
        pos_start(&start);
        game_new_root(out, a, &start);
        return p.status;
    }
    if (fen) {
        FenError err;
        if (pos_from_fen_tolerant(&start, fen, &err) != 0) {
            problem_at(&p, 0, "bad FEN tag (field %d, column %d: %s); game skipped", err.field,
                       err.column, err.message);
            p.status = PGN_UNUSABLE;
            pos_start(&start);
            game_new_root(out, a, &start);
            return p.status;
        }
    } else {
        pos_start(&start);
    }
    game_new_root(out, a, &start);
    bool by_tags = gate && tags_shut_out(gate, out);
    if (by_tags || (gate && gate->nplacements && !has_placement(&out->root->pos, gate)))
        gated_movetext(&p, gate, by_tags);
    else
        replay_movetext(&p, true, NULL);
    report_nul(&p);
    game_number_nodes(out);
    return p.status;
}
