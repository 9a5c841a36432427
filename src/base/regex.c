/*
 * src/base/regex.c — regular expressions (see regex.h for the grammar).
 *
 * A pattern is parsed into a tree (RxNode), checked (depth, size), and
 * compiled into a program for a backtracking machine (RxInst): SPLIT tries
 * one branch and keeps the other on the stack, SAVE sets a capture, and so
 * on. Repetition counts are expanded: a{2,4} is a a (a (a)?)?.
 *
 * The search runs the program at each start position in turn; the first
 * match found is ECMAScript's (leftmost, then the first branch in the
 * pattern's order). What keeps it polynomial is a memo of (SPLIT, position)
 * pairs already tried: a state tried once and left failed would fail again,
 * because without back-references what happens from a state depends only on
 * the instruction and the position (captures only record). Two things add
 * state of their own, and a pattern with either is not memoized (the step
 * budget bounds it): a back-reference (the text a group took), and a
 * repetition of something that can match the empty text (its register, the
 * position where the iteration began, which ends an empty iteration: with
 * the memo, `(\B)*...` once lost its longest match).
 *
 * A lookahead runs its body on the same stack above a LOOK frame. When the
 * body matches, the frames above are cut (a positive lookahead keeps their
 * capture restores); the states marked while the body ran are unmarked then,
 * as some of them were on the way to that match, not failed (the log).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "base/regex.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"

/* ---- byte sets ----------------------------------------------------------- */

typedef struct RxSet {
    uint64_t w[4];
} RxSet;

static void rx_set_add(RxSet *s, unsigned c)
{
    s->w[c >> 6] |= 1ULL << (c & 63);
}

static bool rx_set_has(const RxSet *s, unsigned char c)
{
    return (s->w[c >> 6] >> (c & 63)) & 1;
}

static void rx_set_union(RxSet *s, const RxSet *t)
{
    for (int i = 0; i < 4; i++) s->w[i] |= t->w[i];
}

static void rx_set_invert(RxSet *s)
{
    for (int i = 0; i < 4; i++) s->w[i] = ~s->w[i];
}

/* The classes of bytes, as in the C locale. */
static bool rx_is_digit(unsigned c) { return c >= '0' && c <= '9'; }
static bool rx_is_upper(unsigned c) { return c >= 'A' && c <= 'Z'; }
static bool rx_is_lower(unsigned c) { return c >= 'a' && c <= 'z'; }
static bool rx_is_alpha(unsigned c) { return rx_is_upper(c) || rx_is_lower(c); }
static bool rx_is_alnum(unsigned c) { return rx_is_alpha(c) || rx_is_digit(c); }
static bool rx_is_word(unsigned c) { return rx_is_alnum(c) || c == '_'; }
static bool rx_is_space(unsigned c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static bool rx_is_blank(unsigned c) { return c == ' ' || c == '\t'; }
static bool rx_is_cntrl(unsigned c) { return c < 0x20 || c == 0x7f; }
static bool rx_is_graph(unsigned c) { return c > 0x20 && c < 0x7f; }
static bool rx_is_print(unsigned c) { return c >= 0x20 && c < 0x7f; }
static bool rx_is_punct(unsigned c) { return rx_is_graph(c) && !rx_is_alnum(c); }
static bool rx_is_not_newline(unsigned c) { return c != '\n' && c != '\r'; }
static bool rx_is_xdigit(unsigned c)
{
    return rx_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The classes [:name:] (and \d \w \s, which std::regex also knows by name). */
static const struct {
    const char *name;
    bool (*has)(unsigned c);
} rx_named_classes[] = {
    {"alnum", rx_is_alnum}, {"alpha", rx_is_alpha}, {"blank", rx_is_blank}, {"cntrl", rx_is_cntrl},
    {"digit", rx_is_digit}, {"graph", rx_is_graph}, {"lower", rx_is_lower}, {"print", rx_is_print},
    {"punct", rx_is_punct}, {"space", rx_is_space}, {"upper", rx_is_upper}, {"xdigit", rx_is_xdigit},
    {"d", rx_is_digit},     {"w", rx_is_word},      {"s", rx_is_space},
};

static RxSet rx_set_of(bool (*has)(unsigned c))
{
    RxSet s = {{0}};
    for (unsigned c = 0; c < 256; c++)
        if (has(c)) rx_set_add(&s, c);
    return s;
}

/* ---- the tree ---------------------------------------------------------------- */

typedef enum RxKind {
    RX_EMPTY,
    RX_BYTE,        /* value: the byte */
    RX_SET,         /* value: the set's index */
    RX_CAT,         /* kids in order */
    RX_ALT,         /* kids in order of preference */
    RX_GROUP,       /* value: the group's number; one kid */
    RX_REPEAT,      /* min, max (-1: no limit), greedy; one kid */
    RX_BOL,
    RX_EOL,
    RX_WORD_BOUNDARY,
    RX_NOT_WORD_BOUNDARY,
    RX_BACKREF,     /* value: the group's number */
    RX_LOOK         /* negative; one kid */
} RxKind;

typedef struct RxNode {
    uint8_t kind;
    bool greedy, negative, nullable;
    int value, min, max;
    int kid, next;    /* first kid, next sibling (-1: none) */
} RxNode;

typedef struct RxParser {
    const char *pat;
    size_t len, pos;
    RxNode *nodes;
    int nnodes, nodes_cap;
    RxSet *sets;
    int nsets, sets_cap;
    int ngroups;                    /* opened so far */
    int open[REGEX_MAX_DEPTH + 1];  /* the groups not closed yet */
    int nopen, depth;
    bool has_backrefs, has_lookahead;
    const char *error;
    size_t error_at;
} RxParser;

/* Records the first error; returns -1 for the callers to pass up. */
static int rx_fail(RxParser *p, size_t at, const char *message)
{
    if (!p->error) {
        p->error = message;
        p->error_at = at;
    }
    return -1;
}

static int rx_node(RxParser *p, RxKind kind, int value)
{
    if (p->nnodes == p->nodes_cap) {
        p->nodes_cap = p->nodes_cap ? 2 * p->nodes_cap : 16;
        p->nodes = xrealloc(p->nodes, sizeof *p->nodes * (size_t)p->nodes_cap);
    }
    p->nodes[p->nnodes] = (RxNode){(uint8_t)kind, true, false, false, value, 0, 0, -1, -1};
    return p->nnodes++;
}

static int rx_set_node(RxParser *p, const RxSet *s)
{
    if (p->nsets == p->sets_cap) {
        p->sets_cap = p->sets_cap ? 2 * p->sets_cap : 4;
        p->sets = xrealloc(p->sets, sizeof *p->sets * (size_t)p->sets_cap);
    }
    p->sets[p->nsets] = *s;
    return rx_node(p, RX_SET, p->nsets++);
}

static bool rx_at(const RxParser *p, size_t i, char c)
{
    return i < p->len && p->pat[i] == c;
}

static int rx_hex(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The set of \d \D \w \W \s \S (c is the letter), or false for another letter. */
static bool rx_shorthand(char c, RxSet *s)
{
    bool (*has)(unsigned) = c == 'd' || c == 'D' ? rx_is_digit
                            : c == 'w' || c == 'W' ? rx_is_word
                            : c == 's' || c == 'S' ? rx_is_space : NULL;
    if (!has) return false;
    *s = rx_set_of(has);
    if (c >= 'A' && c <= 'Z') rx_set_invert(s);
    return true;
}

/* escape_byte := '0' | 'f' | 'n' | 'r' | 't' | 'v' | 'c' letter | 'x' hex hex
 *              | 'u' hex hex hex hex | any other byte (itself)
 * c, the byte after the backslash, is read; p->pos is past it. */
static int rx_escape_byte(RxParser *p, char c, size_t at)
{
    static const char from[] = "0fnrtv", to[] = "\0\f\n\r\t\v";
    const char *hit = memchr(from, c, sizeof from - 1);
    if (hit) return (unsigned char)to[hit - from];
    if (c == 'c') {
        char x = p->pos < p->len ? p->pat[p->pos] : 0;
        if (!rx_is_alpha((unsigned char)x)) return rx_fail(p, at, "'\\c' needs a letter after it");
        p->pos++;
        return x & 31;
    }
    if (c == 'x' || c == 'u') {
        int digits = c == 'x' ? 2 : 4, v = 0;
        for (int i = 0; i < digits; i++) {
            int h = p->pos < p->len ? rx_hex(p->pat[p->pos]) : -1;
            if (h < 0) return rx_fail(p, at, c == 'x' ? "'\\x' needs two hex digits" : "'\\u' needs four hex digits");
            v = v * 16 + h;
            p->pos++;
        }
        if (v > 0xff) return rx_fail(p, at, "'\\u' beyond 00FF (a pattern matches bytes)");
        return v;
    }
    return (unsigned char)c;
}

/* One member of a class: a byte (returned) or a set (*set, returns 256).
 * class_atom := '[:' name ':]' | '[.' byte '.]' | '[=' byte '=]' | '\' escape | byte */
static int rx_class_atom(RxParser *p, RxSet *set)
{
    size_t at = p->pos;
    char c = p->pat[p->pos];
    if (c == '[' && p->pos + 1 < p->len && memchr(":.=", p->pat[p->pos + 1], 3)) {
        char kind = p->pat[p->pos + 1];
        size_t start = p->pos + 2, end = start;
        while (end + 1 < p->len && !(p->pat[end] == kind && p->pat[end + 1] == ']')) end++;
        if (end + 1 >= p->len) return rx_fail(p, at, "missing ']' after '[:', '[.' or '[='");
        p->pos = end + 2;
        size_t n = end - start;
        if (kind != ':') {
            if (n != 1) return rx_fail(p, at, "'[.' and '[=' take one byte");
            return (unsigned char)p->pat[start];
        }
        for (size_t i = 0; i < sizeof rx_named_classes / sizeof rx_named_classes[0]; i++)
            if (strlen(rx_named_classes[i].name) == n && memcmp(rx_named_classes[i].name, p->pat + start, n) == 0) {
                *set = rx_set_of(rx_named_classes[i].has);
                return 256;
            }
        return rx_fail(p, at, "unknown class name");
    }
    p->pos++;
    if (c != '\\') return (unsigned char)c;
    if (p->pos >= p->len) return rx_fail(p, at, "'\\' at the end of the pattern");
    c = p->pat[p->pos++];
    if (rx_shorthand(c, set)) return 256;
    if (c == 'b') return '\b';
    if (c == 'B') return rx_fail(p, at, "'\\B' inside '[...]'");
    if (c >= '1' && c <= '9') return rx_fail(p, at, "a back-reference inside '[...]'");
    return rx_escape_byte(p, c, at);
}

/* class := '[' ['^'] (']' | member* ']')     member := class_atom ['-' class_atom]
 * A '-' first, last or right after a range is itself; `[]` is empty, `[^]`
 * any byte (ECMAScript). */
static int rx_class(RxParser *p)
{
    size_t open = p->pos++;
    bool negate = rx_at(p, p->pos, '^');
    if (negate) p->pos++;
    RxSet s = {{0}};
    bool after_range = false;
    for (;;) {
        if (p->pos >= p->len) return rx_fail(p, open, "missing ']'");
        if (p->pat[p->pos] == ']') {
            p->pos++;
            break;
        }
        size_t at = p->pos;
        RxSet member;
        bool dash_itself = after_range && p->pat[p->pos] == '-';
        int lo = rx_class_atom(p, &member);
        after_range = false;
        if (lo < 0) return -1;
        bool range = !dash_itself && rx_at(p, p->pos, '-') && p->pos + 1 < p->len && p->pat[p->pos + 1] != ']';
        if (lo == 256) {
            if (range) return rx_fail(p, at, "a range in '[...]' must start with a byte, not a class");
            rx_set_union(&s, &member);
            continue;
        }
        if (!range) {
            rx_set_add(&s, (unsigned)lo);
            continue;
        }
        p->pos++;
        int hi = rx_class_atom(p, &member);
        if (hi < 0) return -1;
        if (hi == 256) return rx_fail(p, at, "a range in '[...]' must end with a byte, not a class");
        if (hi < lo) return rx_fail(p, at, "a range in '[...]' goes backwards");
        for (int c = lo; c <= hi; c++) rx_set_add(&s, (unsigned)c);
        after_range = true;
    }
    if (negate) rx_set_invert(&s);
    return rx_set_node(p, &s);
}

static int rx_alternation(RxParser *p);

/* A number of a {m,n}. */
static bool rx_count(RxParser *p, int *out)
{
    if (p->pos >= p->len || !rx_is_digit((unsigned char)p->pat[p->pos])) return false;
    long v = 0;
    while (p->pos < p->len && rx_is_digit((unsigned char)p->pat[p->pos])) {
        v = v * 10 + (p->pat[p->pos++] - '0');
        if (v > REGEX_MAX_COUNT) v = REGEX_MAX_COUNT + 1;
    }
    *out = (int)v;
    return true;
}

/* quantifiers := { ('*' | '+' | '?' | '{' m [',' [n]] '}') ['?'] } */
static int rx_quantifiers(RxParser *p, int atom)
{
    while (p->pos < p->len) {
        size_t at = p->pos;
        char c = p->pat[p->pos];
        int min, max;
        if (c == '*' || c == '+' || c == '?') {
            p->pos++;
            min = c == '+';
            max = c == '?' ? 1 : -1;
        } else if (c == '{') {
            p->pos++;
            if (!rx_count(p, &min)) return rx_fail(p, at, "'{' needs a count: {m}, {m,} or {m,n}");
            max = min;
            if (rx_at(p, p->pos, ',')) {
                p->pos++;
                if (!rx_count(p, &max)) max = -1;
            }
            if (!rx_at(p, p->pos, '}')) return rx_fail(p, at, "'{' needs a count: {m}, {m,} or {m,n}");
            p->pos++;
            if (min > REGEX_MAX_COUNT || max > REGEX_MAX_COUNT) return rx_fail(p, at, "repetition count too large");
            if (max >= 0 && max < min) return rx_fail(p, at, "{m,n} with n smaller than m");
        } else {
            break;
        }
        int r = rx_node(p, RX_REPEAT, 0);
        p->nodes[r].min = min;
        p->nodes[r].max = max;
        p->nodes[r].kid = atom;
        if (rx_at(p, p->pos, '?')) {
            p->nodes[r].greedy = false;
            p->pos++;
        }
        atom = r;
    }
    return atom;
}

/* group := '(' ['?:'] alternation ')'     lookahead := '(?=' alternation ')' | '(?!' alternation ')' */
static int rx_group(RxParser *p)
{
    size_t open = p->pos++;
    int kind = RX_GROUP;
    bool negative = false;
    if (rx_at(p, p->pos, '?')) {
        char c = p->pos + 1 < p->len ? p->pat[p->pos + 1] : 0;
        if (c == ':') kind = RX_EMPTY;   /* no group node */
        else if (c == '=' || c == '!') kind = RX_LOOK, negative = c == '!';
        else return rx_fail(p, open, "'(?' must be followed by ':', '=' or '!'");
        p->pos += 2;
    }
    if (p->depth == REGEX_MAX_DEPTH) return rx_fail(p, open, "groups nested too deeply");
    p->depth++;
    int number = 0;
    if (kind == RX_GROUP) {
        number = ++p->ngroups;
        p->open[p->nopen++] = number;
    }
    int body = rx_alternation(p);
    if (body < 0) return -1;
    if (!rx_at(p, p->pos, ')')) return rx_fail(p, open, "missing ')'");
    p->pos++;
    p->depth--;
    if (kind == RX_GROUP) p->nopen--;
    if (kind == RX_EMPTY) return body;
    int g = rx_node(p, (RxKind)kind, number);
    p->nodes[g].kid = body;
    p->nodes[g].negative = negative;
    if (kind == RX_LOOK) p->has_lookahead = true;
    return g;
}

/* \N: a back-reference to group N, which must be closed (as in libstdc++). */
static int rx_backref(RxParser *p, size_t at)
{
    long n = 0;
    p->pos = at + 1;
    while (p->pos < p->len && rx_is_digit((unsigned char)p->pat[p->pos])) {
        n = n * 10 + (p->pat[p->pos++] - '0');
        if (n > REGEX_MAX_COUNT) n = REGEX_MAX_COUNT;
    }
    bool closed = n <= p->ngroups;
    for (int i = 0; i < p->nopen; i++)
        if (p->open[i] == n) closed = false;
    if (!closed) return rx_fail(p, at, "a back-reference to a group that is not closed before it");
    p->has_backrefs = true;
    return rx_node(p, RX_BACKREF, (int)n);
}

/* term := '^' | '$' | '\b' | '\B' | lookahead | atom quantifiers
 * atom := '.' | group | class | '\' escape | byte */
static int rx_term(RxParser *p)
{
    size_t at = p->pos;
    char c = p->pat[p->pos];
    char next = at + 1 < p->len ? p->pat[at + 1] : 0;
    if (c == '^' || c == '$') {
        p->pos++;
        return rx_node(p, c == '^' ? RX_BOL : RX_EOL, 0);
    }
    if (c == '\\' && (next == 'b' || next == 'B')) {
        p->pos += 2;
        return rx_node(p, next == 'b' ? RX_WORD_BOUNDARY : RX_NOT_WORD_BOUNDARY, 0);
    }
    if (c == '(' && next == '?' && at + 2 < p->len && (p->pat[at + 2] == '=' || p->pat[at + 2] == '!'))
        return rx_group(p);
    int atom;
    RxSet s;
    switch (c) {
    case '.':
        p->pos++;
        s = rx_set_of(rx_is_not_newline);
        atom = rx_set_node(p, &s);
        break;
    case '(':
        atom = rx_group(p);
        break;
    case '[':
        atom = rx_class(p);
        break;
    case '*': case '+': case '?': case '{':
        return rx_fail(p, at, "nothing to repeat");
    case '\\':
        if (at + 1 >= p->len) return rx_fail(p, at, "'\\' at the end of the pattern");
        p->pos += 2;
        if (rx_shorthand(next, &s)) atom = rx_set_node(p, &s);
        else if (next >= '1' && next <= '9') atom = rx_backref(p, at);
        else {
            int b = rx_escape_byte(p, next, at);
            atom = b < 0 ? -1 : rx_node(p, RX_BYTE, b);
        }
        break;
    default:
        p->pos++;
        atom = rx_node(p, RX_BYTE, (unsigned char)c);
        break;
    }
    if (atom < 0) return -1;
    return rx_quantifiers(p, atom);
}

/* sequence := term*   (up to '|', ')' or the end) */
static int rx_sequence(RxParser *p)
{
    int first = -1, last = -1, count = 0;
    while (p->pos < p->len && p->pat[p->pos] != '|' && p->pat[p->pos] != ')') {
        int t = rx_term(p);
        if (t < 0) return -1;
        if (last >= 0) p->nodes[last].next = t;
        else first = t;
        last = t;
        count++;
    }
    if (count == 0) return rx_node(p, RX_EMPTY, 0);
    if (count == 1) return first;
    int cat = rx_node(p, RX_CAT, 0);
    p->nodes[cat].kid = first;
    return cat;
}

/* alternation := sequence { '|' sequence } */
static int rx_alternation(RxParser *p)
{
    int first = rx_sequence(p);
    if (first < 0 || !rx_at(p, p->pos, '|')) return first;
    int last = first;
    while (rx_at(p, p->pos, '|')) {
        p->pos++;
        int s = rx_sequence(p);
        if (s < 0) return -1;
        p->nodes[last].next = s;
        last = s;
    }
    int alt = rx_node(p, RX_ALT, 0);
    p->nodes[alt].kid = first;
    return alt;
}

/* ---- the program ------------------------------------------------------------- */

typedef enum RxOp {
    OP_BYTE,          /* a: the byte */
    OP_SET,           /* a: the set */
    OP_SPLIT,         /* try a, then b; c: its row in the memo */
    OP_JMP,           /* a */
    OP_SAVE,          /* slot a = the position */
    OP_LOOP_ENTER,    /* register a = the position (where this iteration began) */
    OP_LOOP_CHECK,    /* fails when register a is the position (the iteration matched nothing) */
    OP_BOL,
    OP_EOL,
    OP_WORD_BOUNDARY,
    OP_NOT_WORD_BOUNDARY,
    OP_BACKREF,       /* a: the group */
    OP_LOOK,          /* a: negative; b: the instruction after the lookahead */
    OP_LOOK_END,
    OP_MATCH
} RxOp;

typedef struct RxInst {
    uint8_t op;
    uint32_t a, b, c;
} RxInst;

struct Regex {
    RxInst *prog;
    uint32_t nprog;
    RxSet *sets;
    int ngroups;
    int nregisters;     /* OP_LOOP_ENTER registers */
    uint32_t nsplits;   /* rows of the memo */
    bool has_backrefs, has_lookahead;
    bool anchored;      /* every match starts with ^ */
    bool nullable;      /* can match the empty text */
    RxSet first;        /* the bytes a match can start with (when not nullable) */
};

#define RX_MAX_TREE_DEPTH 2048

/* Works out nullable for each node, checks the tree's depth and returns
 * the number of instructions it compiles to (at most
 * REGEX_MAX_INSTRUCTIONS + 1), or -1 when the tree is too deep. */
static int64_t rx_analyse(RxNode *nodes, int i, int depth)
{
    if (depth > RX_MAX_TREE_DEPTH) return -1;
    RxNode *n = &nodes[i];
    int64_t size = 0, kid;
    const int64_t over = REGEX_MAX_INSTRUCTIONS + 1;
    switch ((RxKind)n->kind) {
    case RX_EMPTY:
        n->nullable = true;
        return 0;
    case RX_BYTE: case RX_SET:
        return 1;
    case RX_BOL: case RX_EOL: case RX_WORD_BOUNDARY: case RX_NOT_WORD_BOUNDARY: case RX_BACKREF:
        n->nullable = true;
        return 1;
    case RX_CAT: case RX_ALT:
        n->nullable = n->kind == RX_CAT;
        for (int k = n->kid; k >= 0; k = nodes[k].next) {
            if ((kid = rx_analyse(nodes, k, depth + 1)) < 0) return -1;
            size += kid + (n->kind == RX_ALT && nodes[k].next >= 0 ? 2 : 0);
            if (n->kind == RX_CAT) n->nullable &= nodes[k].nullable;
            else n->nullable |= nodes[k].nullable;
            if (size > over) size = over;
        }
        return size;
    case RX_GROUP: case RX_LOOK:
        if ((kid = rx_analyse(nodes, n->kid, depth + 1)) < 0) return -1;
        n->nullable = n->kind == RX_LOOK || nodes[n->kid].nullable;
        return kid + 2 > over ? over : kid + 2;
    case RX_REPEAT:
        if ((kid = rx_analyse(nodes, n->kid, depth + 1)) < 0) return -1;
        n->nullable = n->min == 0 || nodes[n->kid].nullable;
        /* min copies, then a loop (kid, a split, a jump, the two loop checks)
         * or max - min optional copies (kid and a split each) */
        size = (int64_t)n->min * kid;
        if (n->max < 0) size += kid + 2 + (nodes[n->kid].nullable ? 2 : 0);
        else size += (int64_t)(n->max - n->min) * (kid + 1);
        return size > over ? over : size;
    }
    return 0;
}

/* Adds the bytes a match of node i can start with to *out; returns true
 * when node i can match without taking a byte (what follows counts then). */
static bool rx_first(const RxNode *nodes, const RxSet *sets, int i, RxSet *out)
{
    const RxNode *n = &nodes[i];
    switch ((RxKind)n->kind) {
    case RX_BYTE:
        rx_set_add(out, (unsigned)n->value);
        return false;
    case RX_SET:
        rx_set_union(out, &sets[n->value]);
        return false;
    case RX_BACKREF:
        memset(out, 0xff, sizeof *out);
        return true;
    case RX_GROUP:
        return rx_first(nodes, sets, n->kid, out);
    case RX_REPEAT:
        if (n->max == 0) return true;
        return rx_first(nodes, sets, n->kid, out) || n->min == 0;
    case RX_CAT:
        for (int k = n->kid; k >= 0; k = nodes[k].next)
            if (!rx_first(nodes, sets, k, out)) return false;
        return true;
    case RX_ALT: {
        bool any = false;
        for (int k = n->kid; k >= 0; k = nodes[k].next) any |= rx_first(nodes, sets, k, out);
        return any;
    }
    default:   /* the empty text and the assertions take no byte */
        return true;
    }
}

/* True when every match of node i starts with ^. */
static bool rx_anchored(const RxNode *nodes, int i)
{
    const RxNode *n = &nodes[i];
    switch ((RxKind)n->kind) {
    case RX_BOL:
        return true;
    case RX_CAT: case RX_GROUP:
        return rx_anchored(nodes, n->kid);
    case RX_REPEAT:
        return n->min > 0 && rx_anchored(nodes, n->kid);
    case RX_ALT:
        for (int k = n->kid; k >= 0; k = nodes[k].next)
            if (!rx_anchored(nodes, k)) return false;
        return true;
    default:
        return false;
    }
}

typedef struct RxCompiler {
    const RxNode *nodes;
    Regex *re;
} RxCompiler;

static uint32_t rx_emit(RxCompiler *c, RxOp op, uint32_t a, uint32_t b)
{
    Regex *re = c->re;
    re->prog[re->nprog] = (RxInst){(uint8_t)op, a, b, 0};
    if (op == OP_SPLIT) re->prog[re->nprog].c = re->nsplits++;
    return re->nprog++;
}

static void rx_compile_node(RxCompiler *c, int i);

/* Optional copies of kid, each after the one before: (kid (kid ...)?)?. */
static void rx_compile_optional(RxCompiler *c, const RxNode *n, int copies)
{
    Regex *re = c->re;
    uint32_t skips = UINT32_MAX;   /* the splits to patch, chained through their skip field */
    for (int i = 0; i < copies; i++) {
        uint32_t split = rx_emit(c, OP_SPLIT, 0, 0);
        if (n->greedy) re->prog[split].a = split + 1, re->prog[split].b = skips;
        else re->prog[split].b = split + 1, re->prog[split].a = skips;
        skips = split;
        rx_compile_node(c, n->kid);
    }
    while (skips != UINT32_MAX) {
        RxInst *s = &re->prog[skips];
        uint32_t *field = n->greedy ? &s->b : &s->a;
        skips = *field;
        *field = re->nprog;
    }
}

static void rx_compile_node(RxCompiler *c, int i)
{
    const RxNode *n = &c->nodes[i];
    Regex *re = c->re;
    switch ((RxKind)n->kind) {
    case RX_EMPTY:
        break;
    case RX_BYTE: case RX_SET: case RX_BACKREF:
    case RX_BOL: case RX_EOL: case RX_WORD_BOUNDARY: case RX_NOT_WORD_BOUNDARY: {
        /* one instruction, with the node's value (a byte, a set, a group) */
        static const uint8_t op[] = {
            [RX_BYTE] = OP_BYTE, [RX_SET] = OP_SET, [RX_BACKREF] = OP_BACKREF, [RX_BOL] = OP_BOL,
            [RX_EOL] = OP_EOL, [RX_WORD_BOUNDARY] = OP_WORD_BOUNDARY,
            [RX_NOT_WORD_BOUNDARY] = OP_NOT_WORD_BOUNDARY,
        };
        rx_emit(c, (RxOp)op[n->kind], (uint32_t)n->value, 0);
        break;
    }
    case RX_CAT:
        for (int k = n->kid; k >= 0; k = c->nodes[k].next) rx_compile_node(c, k);
        break;
    case RX_ALT: {
        /* split L1 N1; L1: kid1; jmp end; N1: split L2 N2 ... kidN; end: */
        uint32_t jumps = UINT32_MAX;
        for (int k = n->kid; k >= 0; k = c->nodes[k].next) {
            if (c->nodes[k].next < 0) {
                rx_compile_node(c, k);
                break;
            }
            uint32_t split = rx_emit(c, OP_SPLIT, 0, 0);
            re->prog[split].a = split + 1;
            rx_compile_node(c, k);
            jumps = rx_emit(c, OP_JMP, jumps, 0);
            re->prog[split].b = re->nprog;
        }
        while (jumps != UINT32_MAX) {
            uint32_t next = re->prog[jumps].a;
            re->prog[jumps].a = re->nprog;
            jumps = next;
        }
        break;
    }
    case RX_GROUP:
        rx_emit(c, OP_SAVE, 2 * (uint32_t)n->value, 0);
        rx_compile_node(c, n->kid);
        rx_emit(c, OP_SAVE, 2 * (uint32_t)n->value + 1, 0);
        break;
    case RX_REPEAT:
        for (int k = 0; k < n->min; k++) rx_compile_node(c, n->kid);
        if (n->max >= 0) {
            rx_compile_optional(c, n, n->max - n->min);
        } else {
            /* head: split body exit; body: [enter r] kid [check r] jmp head; exit: */
            bool check = c->nodes[n->kid].nullable;
            uint32_t head = rx_emit(c, OP_SPLIT, 0, 0), reg = (uint32_t)re->nregisters;
            if (check) {
                re->nregisters++;
                rx_emit(c, OP_LOOP_ENTER, reg, 0);
            }
            rx_compile_node(c, n->kid);
            if (check) rx_emit(c, OP_LOOP_CHECK, reg, 0);
            rx_emit(c, OP_JMP, head, 0);
            re->prog[head].a = n->greedy ? head + 1 : re->nprog;
            re->prog[head].b = n->greedy ? re->nprog : head + 1;
        }
        break;
    case RX_LOOK: {
        uint32_t look = rx_emit(c, OP_LOOK, n->negative, 0);
        rx_compile_node(c, n->kid);
        rx_emit(c, OP_LOOK_END, 0, 0);
        re->prog[look].b = re->nprog;
        break;
    }
    }
}

Regex *regex_compile(const char *pattern, size_t len, RegexError *err)
{
    RxParser p = {.pat = pattern, .len = len};
    int root = len > REGEX_MAX_PATTERN ? rx_fail(&p, 0, "pattern longer than 100000 bytes") : rx_alternation(&p);
    if (root >= 0 && p.pos < p.len) root = rx_fail(&p, p.pos, "')' without '('");
    int64_t size = root >= 0 ? rx_analyse(p.nodes, root, 0) : 0;
    if (root >= 0 && size < 0) root = rx_fail(&p, 0, "pattern nested too deeply");
    if (root >= 0 && size > REGEX_MAX_INSTRUCTIONS) root = rx_fail(&p, 0, "pattern too large once its counts are expanded");
    if (root < 0) {
        err->message = p.error;
        err->offset = p.error_at;
        free(p.nodes);
        free(p.sets);
        return NULL;
    }
    Regex *re = xcalloc(1, sizeof *re);
    re->prog = xmalloc(sizeof *re->prog * (size_t)(size + 1));
    re->sets = p.sets;
    re->ngroups = p.ngroups;
    re->has_backrefs = p.has_backrefs;
    re->has_lookahead = p.has_lookahead;
    RxCompiler c = {p.nodes, re};
    rx_compile_node(&c, root);
    rx_emit(&c, OP_MATCH, 0, 0);
    re->nullable = rx_first(p.nodes, p.sets, root, &re->first);
    re->anchored = rx_anchored(p.nodes, root);
    free(p.nodes);
    return re;
}

void regex_free(Regex *re)
{
    if (!re) return;
    free(re->prog);
    free(re->sets);
    free(re);
}

int regex_groups(const Regex *re)
{
    return re->ngroups;
}

size_t regex_size(const Regex *re)
{
    return re->nprog;
}

bool regex_memoized(const Regex *re)
{
    return !re->has_backrefs && re->nregisters == 0;
}

bool regex_has_backrefs(const Regex *re)
{
    return re->has_backrefs;
}

bool regex_has_lookahead(const Regex *re)
{
    return re->has_lookahead;
}

/* ---- the search -------------------------------------------------------------- */

typedef enum RxFrameKind {
    FR_RESUME,    /* try instruction pc at pos */
    FR_RESTORE,   /* set slot pc back to pos */
    FR_LOOK       /* the lookahead at instruction pc began at pos */
} RxFrameKind;

typedef struct RxFrame {
    uint32_t kind, pc;
    size_t pos;
} RxFrame;

/* A lookahead being run: its frame, and the length of the log when it began. */
typedef struct RxLook {
    size_t frame, log_mark;
} RxLook;

/* Memoize only after this many steps: most searches end sooner. */
#define RX_MEMO_AFTER_STEPS 256
/* Slots kept in the matcher itself (no allocation for most patterns). */
#define RX_FEW_SLOTS 32
/* A back-reference costs a step, and one more per this many bytes compared. */
#define RX_COMPARE_BYTES 16

typedef struct RxMatcher {
    const Regex *re;
    const unsigned char *text;
    size_t len, from;
    unsigned flags;
    uint64_t steps, budget;     /* left, and given */
    RegexResult over;           /* REGEX_OVER_MEMORY once a cap is reached */
    size_t *slots;              /* captures (2 per group, \0 first), then the loop registers */
    size_t nslots;
    size_t few_slots[RX_FEW_SLOTS];   /* the slots, when they fit */
    RxFrame *frames;
    size_t nframes, frames_cap;
    RxLook *looks;
    size_t nlooks, looks_cap;
    uint64_t *memo;             /* bit row * width + (pos - from) */
    size_t width;
    bool memo_off;              /* no memo for this search */
    size_t *log;                /* memo bits set while a lookahead runs */
    size_t nlog, log_cap;
} RxMatcher;

/* Grows an array of `*cap` items of `size` bytes to hold one more, within
 * `limit` bytes; false when it cannot. */
static bool rx_grow(void **items, size_t *cap, size_t size, size_t limit)
{
    size_t want = *cap ? 2 * *cap : 64;
    if (want * size > limit) want = limit / size;
    if (want <= *cap) return false;
    *items = xrealloc(*items, want * size);
    *cap = want;
    return true;
}

static bool rx_push(RxMatcher *m, RxFrameKind kind, uint32_t pc, size_t pos)
{
    if (m->nframes == m->frames_cap &&
        !rx_grow((void **)&m->frames, &m->frames_cap, sizeof *m->frames, REGEX_STACK_MAX_BYTES)) {
        m->over = REGEX_OVER_MEMORY;
        return false;
    }
    m->frames[m->nframes++] = (RxFrame){kind, pc, pos};
    return true;
}

/* slot = pos, undone when the search backtracks past here. */
static bool rx_set_slot(RxMatcher *m, uint32_t slot, size_t pos)
{
    if (!rx_push(m, FR_RESTORE, slot, m->slots[slot])) return false;
    m->slots[slot] = pos;
    return true;
}

/* Starts the memo when the search has run long enough to need it. */
static bool rx_memo_ready(RxMatcher *m)
{
    if (m->memo) return true;
    if (m->memo_off || m->budget - m->steps < RX_MEMO_AFTER_STEPS) return false;
    size_t bits = (size_t)m->re->nsplits * m->width;
    if (bits / m->width != m->re->nsplits || bits / 8 > REGEX_MEMO_MAX_BYTES) {
        m->memo_off = true;   /* too large: the budget alone bounds the search */
        return false;
    }
    m->memo = xcalloc(bits / 64 + 1, sizeof *m->memo);
    return true;
}

/* True when the split `row` was already tried at pos (it failed then);
 * else marks it. */
static bool rx_seen(RxMatcher *m, uint32_t row, size_t pos)
{
    if (!rx_memo_ready(m)) return false;
    size_t bit = (size_t)row * m->width + (pos - m->from);
    uint64_t mask = 1ULL << (bit & 63);
    if (m->memo[bit >> 6] & mask) return true;
    if (m->nlooks) {
        /* inside a lookahead: logged, to be unmarked if its body matches;
         * past the log's cap, not marked */
        if (m->nlog == m->log_cap &&
            !rx_grow((void **)&m->log, &m->log_cap, sizeof *m->log, REGEX_LOG_MAX_BYTES))
            return false;
        m->log[m->nlog++] = bit;
    }
    m->memo[bit >> 6] |= mask;
    return false;
}

/* Unmarks the memo bits logged since mark. */
static void rx_unmark_since(RxMatcher *m, size_t mark)
{
    for (size_t i = mark; i < m->nlog; i++) m->memo[m->log[i] >> 6] &= ~(1ULL << (m->log[i] & 63));
    m->nlog = mark;
}

static bool rx_word_boundary(const RxMatcher *m, size_t pos)
{
    bool before = pos > 0 && rx_is_word(m->text[pos - 1]);
    bool after = pos < m->len && rx_is_word(m->text[pos]);
    return before != after;
}

/* Runs the program from start; on a match, the slots hold the groups.
 * Without a match every slot is back to unset and the stack empty (each
 * change of a slot is undone when the search backtracks past it). */
static RegexResult rx_run(RxMatcher *m, size_t start)
{
    const RxInst *prog = m->re->prog;
    const size_t len = m->len, captures = 2 * ((size_t)m->re->ngroups + 1);
    size_t pos = start;
    uint32_t pc = 0;
    for (;;) {
        if (m->steps == 0) return REGEX_OVER_BUDGET;
        m->steps--;
        const RxInst *in = &prog[pc];
        switch ((RxOp)in->op) {
        case OP_BYTE:
            if (pos < len && m->text[pos] == in->a) {
                pos++, pc++;
                continue;
            }
            break;
        case OP_SET:
            if (pos < len && rx_set_has(&m->re->sets[in->a], m->text[pos])) {
                pos++, pc++;
                continue;
            }
            break;
        case OP_SPLIT:
            if (rx_seen(m, in->c, pos)) break;
            if (!rx_push(m, FR_RESUME, in->b, pos)) return m->over;
            pc = in->a;
            continue;
        case OP_JMP:
            pc = in->a;
            continue;
        case OP_SAVE: case OP_LOOP_ENTER:
            if (!rx_set_slot(m, in->op == OP_SAVE ? in->a : (uint32_t)captures + in->a, pos)) return m->over;
            pc++;
            continue;
        case OP_LOOP_CHECK:
            if (m->slots[captures + in->a] == pos) break;
            pc++;
            continue;
        case OP_BOL: case OP_EOL: case OP_WORD_BOUNDARY: case OP_NOT_WORD_BOUNDARY: {
            bool holds = in->op == OP_BOL ? pos == 0
                         : in->op == OP_EOL ? pos == len
                         : rx_word_boundary(m, pos) == (in->op == OP_WORD_BOUNDARY);
            if (!holds) break;
            pc++;
            continue;
        }
        case OP_BACKREF: {
            size_t s = m->slots[2 * in->a], e = m->slots[2 * in->a + 1];
            size_t n = s == REGEX_UNSET || e == REGEX_UNSET ? 0 : e - s;
            if (n > len - pos) break;
            /* a step per RX_COMPARE_BYTES bytes compared (memcmp is that much faster) */
            if (n / RX_COMPARE_BYTES > m->steps) {
                m->steps = 0;
                return REGEX_OVER_BUDGET;
            }
            m->steps -= n / RX_COMPARE_BYTES;
            if (n && memcmp(m->text + s, m->text + pos, n) != 0) break;
            pos += n, pc++;
            continue;
        }
        case OP_LOOK:
            if (m->nlooks == m->looks_cap &&
                !rx_grow((void **)&m->looks, &m->looks_cap, sizeof *m->looks, REGEX_STACK_MAX_BYTES))
                return REGEX_OVER_MEMORY;
            m->looks[m->nlooks++] = (RxLook){m->nframes, m->nlog};
            if (!rx_push(m, FR_LOOK, pc, pos)) return m->over;
            pc++;
            continue;
        case OP_LOOK_END: {
            /* the body matched: what it marked on the way is not failed */
            RxLook look = m->looks[--m->nlooks];
            if (m->memo) rx_unmark_since(m, look.log_mark);
            RxFrame f = m->frames[look.frame];
            const RxInst *at = &prog[f.pc];
            if (!at->a) {
                /* positive: drop the body's other branches, keep the
                 * restores of the captures it set, go on after it */
                size_t out = look.frame;
                for (size_t i = look.frame + 1; i < m->nframes; i++)
                    if (m->frames[i].kind == FR_RESTORE) m->frames[out++] = m->frames[i];
                m->nframes = out;
                pos = f.pos, pc = at->b;
                continue;
            }
            /* negative: it fails; undo what the body set */
            while (m->nframes > look.frame) {
                RxFrame g = m->frames[--m->nframes];
                if (g.kind == FR_RESTORE) m->slots[g.pc] = g.pos;
            }
            break;
        }
        case OP_MATCH:
            if ((m->flags & REGEX_NOT_EMPTY) && pos == start) break;
            m->slots[0] = start, m->slots[1] = pos;
            return REGEX_MATCH;
        }
        /* this branch failed: back to the last one left */
        for (;;) {
            if (m->nframes == 0) return REGEX_NO_MATCH;
            RxFrame f = m->frames[--m->nframes];
            if (f.kind == FR_RESUME) {
                pc = f.pc, pos = f.pos;
                break;
            }
            if (f.kind == FR_RESTORE) {
                m->slots[f.pc] = f.pos;
                continue;
            }
            /* a lookahead's body found no match: what it marked failed */
            if (--m->nlooks == 0) m->nlog = 0;
            if (prog[f.pc].a) {   /* negative: it holds */
                pc = prog[f.pc].b, pos = f.pos;
                break;
            }
        }
    }
}

RegexResult regex_search(const Regex *re, const char *text, size_t len, size_t from, unsigned flags,
                         uint64_t *steps, RegexSpan *spans, int nspans)
{
    if (from > len || (re->anchored && from > 0)) return REGEX_NO_MATCH;
    RxMatcher m = {
        .re = re,
        .text = (const unsigned char *)text,
        .len = len,
        .from = from,
        .flags = flags,
        .steps = *steps,
        .budget = *steps,
        .over = REGEX_OVER_MEMORY,
        .nslots = 2 * ((size_t)re->ngroups + 1) + (size_t)re->nregisters,
        .width = len - from + 1,
        .memo_off = (flags & REGEX_NO_MEMO) || !regex_memoized(re),
    };
    m.slots = m.nslots <= RX_FEW_SLOTS ? m.few_slots : xmalloc(sizeof *m.slots * m.nslots);
    for (size_t i = 0; i < m.nslots; i++) m.slots[i] = REGEX_UNSET;
    size_t last = (flags & REGEX_CONTINUOUS) || re->anchored ? from : len;
    RegexResult r = REGEX_NO_MATCH;
    for (size_t start = from; start <= last && r == REGEX_NO_MATCH; start++) {
        if (!re->nullable) {
            /* a match takes a byte: skip to one it can start with */
            while (start < len && !rx_set_has(&re->first, m.text[start])) start++;
            if (start >= len || start > last) break;
        }
        r = rx_run(&m, start);
    }
    if (r == REGEX_MATCH)
        for (int i = 0; i < nspans; i++) {
            bool set = i <= re->ngroups && m.slots[2 * i] != REGEX_UNSET && m.slots[2 * i + 1] != REGEX_UNSET;
            spans[i].start = set ? m.slots[2 * i] : REGEX_UNSET;
            spans[i].end = set ? m.slots[2 * i + 1] : REGEX_UNSET;
        }
    *steps = r == REGEX_OVER_BUDGET ? 0 : m.steps;
    if (m.slots != m.few_slots) free(m.slots);
    free(m.frames);
    free(m.looks);
    free(m.memo);
    free(m.log);
    return r;
}
