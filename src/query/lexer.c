/*
 * src/query/lexer.c — the CQL tokenizer (see src/query/lexer.h).
 *
 * A pure function of the text: lex_next reads one token at `pos` and never
 * allocates. Punctuation is matched longest-first against the spellings of
 * query/tokens.def (ASCII and Unicode alike), keywords by their ASCII
 * spelling, and piece designators by lex_scan_designator. A value in the
 * text (LexValue) is one string token whatever its bytes; comments are
 * skipped, or are tokens when asked (for -html). Character classes
 * come from our own table: <ctype.h> is never used on plain char.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "query/lexer.h"

#include <string.h>

#include "base/utf8.h"
#include "chess/bitboard.h"

/* {==== token tables ======================================================== */

typedef struct TokInfo {
    const char *ascii;
    const char *unicode;
    TokClass cls;
} TokInfo;

static const TokInfo tok_info[TK_COUNT_] = {
#define TOK(name, ascii, unicode, cls) {ascii, unicode, cls},
#include "query/tokens.def"
#undef TOK
};

static const char *const tok_descriptions[TK_COUNT_] = {
#define TOK(name, ascii, unicode, cls) \
    cls == TC_SPECIAL ? ascii : "'" ascii "'",
#include "query/tokens.def"
#undef TOK
};

const char *tok_describe(TokKind k)
{
    switch (k) {
    case TK_EOF:        return "the end of the query";
    case TK_ERROR:      return "invalid input";
    case TK_INT:        return "an integer";
    case TK_STRING:     return "a string";
    case TK_IDENT:      return "a name";
    case TK_DESIGNATOR: return "a piece designator";
    case TK_PIECEVAR:   return "a piece variable";
    case TK_QUANT:      return "a repetition '{m,n}'";
    case TK_ESCAPE:     return "an escape";
    default:            return tok_descriptions[k];
    }
}

const char *tok_ascii(TokKind k)
{
    return tok_info[k].cls == TC_SPECIAL && k != TK_COMMENT_FILTER ? NULL : tok_info[k].ascii;
}

const char *tok_unicode(TokKind k)
{
    return tok_info[k].unicode;
}

TokClass tok_class(TokKind k)
{
    return tok_info[k].cls;
}

const char *lex_error_message(LexError e)
{
    switch (e) {
    case LEX_OK:                   return "no error";
    case LEX_BAD_CHAR:             return "unexpected character";
    case LEX_BAD_UTF8:             return "invalid UTF-8";
    case LEX_UNTERMINATED_STRING:  return "unterminated string";
    case LEX_UNTERMINATED_COMMENT: return "unterminated comment";
    case LEX_BAD_ESCAPE:           return "unknown escape";
    case LEX_BAD_SQUARE_LIST:      return "invalid square list after a piece";
    case LEX_MIXED_PIECE_LIST:     return "a piece list '[...]' is written in ASCII letters or in Unicode pieces, not both";
    case LEX_REPEATED_PIECE:       return "the same piece twice in a piece list '[...]'";
    case LEX_BAD_QUANTIFIER:       return "invalid repetition (write {m,n} without spaces, m and n at most 100000)";
    case LEX_EMPTY_QUANTIFIER:     return "empty repetition '{,}': write '*'";
    case LEX_BACKWARD_QUANTIFIER:  return "in the repetition '{m,n}', n is less than m";
    case LEX_LONE_HORIZONTAL_BAR:  return "a move dash is two horizontal bars '――'";
    case LEX_NUL_BYTE:             return "a NUL byte (a query cannot hold one, not even in a string)";
    }
    return "error";
}

/* }==== */

/* {==== character classes =================================================== */

enum { CC_SPACE = 1, CC_DIGIT = 2, CC_ALPHA = 4, CC_IDENT = 8 };

static const unsigned char char_class[256] = {
    ['\t'] = CC_SPACE, ['\n'] = CC_SPACE, ['\v'] = CC_SPACE, ['\f'] = CC_SPACE,
    ['\r'] = CC_SPACE, [' '] = CC_SPACE,
    ['0'] = CC_DIGIT | CC_IDENT, ['1'] = CC_DIGIT | CC_IDENT, ['2'] = CC_DIGIT | CC_IDENT,
    ['3'] = CC_DIGIT | CC_IDENT, ['4'] = CC_DIGIT | CC_IDENT, ['5'] = CC_DIGIT | CC_IDENT,
    ['6'] = CC_DIGIT | CC_IDENT, ['7'] = CC_DIGIT | CC_IDENT, ['8'] = CC_DIGIT | CC_IDENT,
    ['9'] = CC_DIGIT | CC_IDENT,
    ['A'] = CC_ALPHA | CC_IDENT, ['B'] = CC_ALPHA | CC_IDENT, ['C'] = CC_ALPHA | CC_IDENT,
    ['D'] = CC_ALPHA | CC_IDENT, ['E'] = CC_ALPHA | CC_IDENT, ['F'] = CC_ALPHA | CC_IDENT,
    ['G'] = CC_ALPHA | CC_IDENT, ['H'] = CC_ALPHA | CC_IDENT, ['I'] = CC_ALPHA | CC_IDENT,
    ['J'] = CC_ALPHA | CC_IDENT, ['K'] = CC_ALPHA | CC_IDENT, ['L'] = CC_ALPHA | CC_IDENT,
    ['M'] = CC_ALPHA | CC_IDENT, ['N'] = CC_ALPHA | CC_IDENT, ['O'] = CC_ALPHA | CC_IDENT,
    ['P'] = CC_ALPHA | CC_IDENT, ['Q'] = CC_ALPHA | CC_IDENT, ['R'] = CC_ALPHA | CC_IDENT,
    ['S'] = CC_ALPHA | CC_IDENT, ['T'] = CC_ALPHA | CC_IDENT, ['U'] = CC_ALPHA | CC_IDENT,
    ['V'] = CC_ALPHA | CC_IDENT, ['W'] = CC_ALPHA | CC_IDENT, ['X'] = CC_ALPHA | CC_IDENT,
    ['Y'] = CC_ALPHA | CC_IDENT, ['Z'] = CC_ALPHA | CC_IDENT,
    ['a'] = CC_ALPHA | CC_IDENT, ['b'] = CC_ALPHA | CC_IDENT, ['c'] = CC_ALPHA | CC_IDENT,
    ['d'] = CC_ALPHA | CC_IDENT, ['e'] = CC_ALPHA | CC_IDENT, ['f'] = CC_ALPHA | CC_IDENT,
    ['g'] = CC_ALPHA | CC_IDENT, ['h'] = CC_ALPHA | CC_IDENT, ['i'] = CC_ALPHA | CC_IDENT,
    ['j'] = CC_ALPHA | CC_IDENT, ['k'] = CC_ALPHA | CC_IDENT, ['l'] = CC_ALPHA | CC_IDENT,
    ['m'] = CC_ALPHA | CC_IDENT, ['n'] = CC_ALPHA | CC_IDENT, ['o'] = CC_ALPHA | CC_IDENT,
    ['p'] = CC_ALPHA | CC_IDENT, ['q'] = CC_ALPHA | CC_IDENT, ['r'] = CC_ALPHA | CC_IDENT,
    ['s'] = CC_ALPHA | CC_IDENT, ['t'] = CC_ALPHA | CC_IDENT, ['u'] = CC_ALPHA | CC_IDENT,
    ['v'] = CC_ALPHA | CC_IDENT, ['w'] = CC_ALPHA | CC_IDENT, ['x'] = CC_ALPHA | CC_IDENT,
    ['y'] = CC_ALPHA | CC_IDENT, ['z'] = CC_ALPHA | CC_IDENT,
    ['_'] = CC_IDENT, ['$'] = CC_IDENT,
};

static bool is_space(unsigned char c) { return char_class[c] & CC_SPACE; }
static bool is_digit(unsigned char c) { return char_class[c] & CC_DIGIT; }
bool lex_is_ident_char(unsigned char c) { return char_class[c] & CC_IDENT; }
static bool is_file_char(unsigned char c) { return c >= 'a' && c <= 'h'; }
static bool is_rank_char(unsigned char c) { return c >= '1' && c <= '8'; }

/* }==== */

/* {==== designators ========================================================== */

#define WHITE_PIECES_MASK 0x007Eu   /* bits W_PAWN..W_KING */
#define BLACK_PIECES_MASK 0x7E00u   /* bits B_PAWN..B_KING */
#define EMPTY_SQUARE_MASK 0x0001u   /* bit NO_PIECE */
#define ANY_PIECE_MASK (WHITE_PIECES_MASK | BLACK_PIECES_MASK)
#define EVERYTHING_MASK (ANY_PIECE_MASK | EMPTY_SQUARE_MASK)

/* Piece mask of an ASCII piece letter (KQRBNP kqrbnp A a _), 0 otherwise. */
static uint16_t ascii_piece_mask(unsigned char c)
{
    static const char letters[] = "PNBRQK";
    if (c == 'A') return WHITE_PIECES_MASK;
    if (c == 'a') return BLACK_PIECES_MASK;
    if (c == '_') return EMPTY_SQUARE_MASK;
    for (int t = 0; t < 6; t++) {
        if (c == (unsigned char)letters[t]) return (uint16_t)(1u << make_piece(WHITE, (PieceType)(t + 1)));
        if (c == (unsigned char)(letters[t] + 32)) return (uint16_t)(1u << make_piece(BLACK, (PieceType)(t + 1)));
    }
    return 0;
}

/* Piece mask of a Unicode piece symbol (figurines, △ ▲ □ ◭), 0 otherwise. */
static uint16_t unicode_piece_mask(uint32_t cp)
{
    if (cp >= 0x2654 && cp <= 0x2659)   /* ♔♕♖♗♘♙: king queen rook bishop knight pawn */
        return (uint16_t)(1u << make_piece(WHITE, (PieceType)(KING - (int)(cp - 0x2654))));
    if (cp >= 0x265A && cp <= 0x265F)   /* ♚♛♜♝♞♟ */
        return (uint16_t)(1u << make_piece(BLACK, (PieceType)(KING - (int)(cp - 0x265A))));
    switch (cp) {
    case 0x25B3: return WHITE_PIECES_MASK;   /* △ */
    case 0x25B2: return BLACK_PIECES_MASK;   /* ▲ */
    case 0x25A1: return EMPTY_SQUARE_MASK;   /* □ */
    case 0x25ED: return ANY_PIECE_MASK;      /* ◭ */
    default: return 0;
    }
}

#define ALL_SQUARES_CP 0x25A6u   /* ▦ */

static uint32_t decode_at(const char *text, uint32_t pos, uint32_t end, size_t *len)
{
    return utf8_decode(text + pos, end - pos, len);
}

/* file[-file]rank[-rank] at *i; advances *i on success. */
static bool scan_square_spec(const char *s, uint32_t *i, uint32_t end, SquarePart *part)
{
    uint32_t j = *i;
    if (j >= end || !is_file_char((unsigned char)s[j])) return false;
    int f1 = s[j] - 'a', f2 = f1;
    j++;
    if (j + 1 < end && s[j] == '-' && is_file_char((unsigned char)s[j + 1])) {
        f2 = s[j + 1] - 'a';
        j += 2;
    }
    if (j >= end || !is_rank_char((unsigned char)s[j])) return false;
    int r1 = s[j] - '1', r2 = r1;
    j++;
    if (j + 1 < end && s[j] == '-' && is_rank_char((unsigned char)s[j + 1])) {
        r2 = s[j + 1] - '1';
        j += 2;
    }
    if (f2 < f1 || r2 < r1) return false;
    part->file_lo = (uint8_t)f1;
    part->file_hi = (uint8_t)f2;
    part->rank_lo = (uint8_t)r1;
    part->rank_hi = (uint8_t)r2;
    *i = j;
    return true;
}

static void add_part(DesigScan *d, SquarePart part)
{
    if (d->nparts < DESIG_MAX_PARTS) d->parts[d->nparts++] = part;
}

/* [spec, spec, ...] or [] at *i. */
static bool scan_square_list(const char *s, uint32_t *i, uint32_t end, DesigScan *d)
{
    uint32_t j = *i + 1;
    uint8_t saved = d->nparts;
    if (j < end && s[j] == ']') {
        *i = j + 1;
        return true;
    }
    for (;;) {
        SquarePart part;
        if (!scan_square_spec(s, &j, end, &part) || d->nparts >= DESIG_MAX_PARTS) {
            d->nparts = saved;
            return false;
        }
        add_part(d, part);
        if (j < end && s[j] == ',') {
            j++;
            continue;
        }
        if (j < end && s[j] == ']') {
            *i = j + 1;
            return true;
        }
        d->nparts = saved;
        return false;
    }
}

/* One piece symbol at s[j]: an ASCII letter (KQRBNP kqrbnp A a _) or a
 * Unicode piece (figurines, △ ▲ □ ◭). Returns its mask (0: none) and sets
 * *len to its byte length and *unicode to its alphabet. */
static uint16_t piece_symbol(const char *s, uint32_t j, uint32_t end, size_t *len, bool *unicode)
{
    unsigned char c = (unsigned char)s[j];
    *len = 1;
    *unicode = c >= 0x80;
    return c < 0x80 ? ascii_piece_mask(c) : unicode_piece_mask(decode_at(s, j, end, len));
}

/* [KQ...] or [♕♔...] at *i: one or more piece symbols of one alphabet, each
 * once (CQL 6.2). Returns false when the brackets are not a piece list;
 * *error is set when they are one with mixed alphabets or a repeated piece.
 * Within one alphabet each symbol has its own mask, so a repeated mask is a
 * repeated symbol. */
static bool scan_piece_list(const char *s, uint32_t *i, uint32_t end, uint16_t *mask, LexError *error)
{
    uint32_t j = *i + 1;
    uint16_t m = 0;
    bool mixed = false, repeated = false, first_unicode = false;
    uint16_t seen[16];
    int nseen = 0;
    for (;;) {
        size_t len;
        bool unicode;
        uint16_t sym = j < end ? piece_symbol(s, j, end, &len, &unicode) : 0;
        if (!sym) break;
        if (nseen == 0) first_unicode = unicode;
        mixed |= unicode != first_unicode;
        for (int k = 0; k < nseen; k++) repeated |= seen[k] == sym;
        if (nseen < 16) seen[nseen++] = sym;
        m |= sym;
        j += (uint32_t)len;
    }
    if (m == 0 || j >= end || s[j] != ']') return false;
    if (mixed || repeated) {
        *error = mixed ? LEX_MIXED_PIECE_LIST : LEX_REPEATED_PIECE;
        *i = j + 1;
        return false;
    }
    *mask = m;
    *i = j + 1;
    return true;
}

static bool starts_with(const char *s, uint32_t pos, uint32_t end, const char *lit)
{
    size_t n = strlen(lit);
    return end - pos >= n && memcmp(s + pos, lit, n) == 0;
}

/* Scans a designator; returns its end, 0 if none. Sets *error when the
 * text is a bad designator: a piece part followed by '[' that does not open
 * a square list (the end returned is the piece part's), or a piece list
 * with mixed alphabets or a repeated piece (the end is its ']'). */
static uint32_t scan_designator(const char *s, uint32_t pos, uint32_t end, DesigScan *d, LexError *error)
{
    memset(d, 0, offsetof(DesigScan, parts));
    *error = LEX_OK;
    uint32_t i = pos;
    unsigned char c = (unsigned char)s[i];
    size_t cplen = 1;
    uint32_t cp = c < 0x80 ? c : decode_at(s, i, end, &cplen);

    if (c == '.' || cp == ALL_SQUARES_CP) {
        d->has_square_part = true;
        d->all_squares_symbol = true;
        d->pieces = EVERYTHING_MASK;
        add_part(d, (SquarePart){0, 7, 0, 7});
        return i + (uint32_t)cplen;
    }
    /* a square designator alone: a1, a-h1-8, [a1,b2], [] */
    if (is_file_char(c)) {
        SquarePart part;
        uint32_t j = i;
        if (scan_square_spec(s, &j, end, &part)) {
            d->has_square_part = true;
            d->pieces = EVERYTHING_MASK;
            add_part(d, part);
            return j;
        }
    }
    if (c == '[') {
        uint32_t j = i;
        if (scan_square_list(s, &j, end, d)) {
            d->has_square_part = true;
            d->pieces = EVERYTHING_MASK;
            return j;
        }
        if (!scan_piece_list(s, &j, end, &d->pieces, error)) return *error ? j : 0;
        i = j;
    } else if (ascii_piece_mask(c)) {
        d->pieces = ascii_piece_mask(c);
        i++;
    } else if (unicode_piece_mask(cp)) {
        while (i < end) {
            uint32_t u = decode_at(s, i, end, &cplen);
            if (!unicode_piece_mask(u)) break;
            d->pieces |= unicode_piece_mask(u);
            i += (uint32_t)cplen;
        }
    } else {
        return 0;
    }
    d->has_piece_part = true;

    /* optional square part, written right after the piece part */
    if (i < end && is_file_char((unsigned char)s[i])) {
        SquarePart part;
        uint32_t j = i;
        if (scan_square_spec(s, &j, end, &part)) {
            d->has_square_part = true;
            add_part(d, part);
            i = j;
        }
    } else if (i < end && s[i] == '[' && !starts_with(s, i, end, "[x]")) {
        uint32_t j = i;
        if (scan_square_list(s, &j, end, d)) {
            d->has_square_part = true;
            i = j;
        } else {
            *error = LEX_BAD_SQUARE_LIST;
        }
    }
    return i;
}

uint32_t lex_piecevar_name(const char *text, Token t)
{
    DesigScan d;
    LexError error;
    return scan_designator(text, t.start, t.start + t.len, &d, &error);
}

uint32_t lex_scan_designator(const char *text, uint32_t pos, uint32_t end, DesigScan *out)
{
    DesigScan local;
    LexError error;
    uint32_t e = scan_designator(text, pos, end, out ? out : &local, &error);
    return error ? 0 : e;
}

/* }==== */

/* {==== the scanner ========================================================== */

void lex_init(Lexer *lx, const char *text, uint32_t start, uint32_t end)
{
    *lx = (Lexer){.text = text, .pos = start, .end = end};
}

void lex_set_values(Lexer *lx, const LexValue *values, uint32_t nvalues)
{
    lx->values = values;
    lx->nvalues = nvalues;
    lx->next_value = 0;
    while (lx->next_value < nvalues && values[lx->next_value].start < lx->pos) lx->next_value++;
}

static Token make_token(TokKind kind, uint32_t start, uint32_t end, bool space)
{
    Token t = {kind, start, end - start, (uint8_t)(space ? TF_SPACE_BEFORE : 0), LEX_OK};
    return t;
}

static Token error_token(LexError e, uint32_t start, uint32_t end, bool space)
{
    Token t = make_token(TK_ERROR, start, end > start ? end : start + 1, space);
    t.error = (uint8_t)e;
    return t;
}

/* True when a comment (not the `///` comment filter) begins at pos. */
static bool starts_comment(const Lexer *lx)
{
    const char *s = lx->text;
    return starts_with(s, lx->pos, lx->end, "/*") ||
           (starts_with(s, lx->pos, lx->end, "//") && !starts_with(s, lx->pos, lx->end, "///"));
}

/* A comment as a token: from `//` to the end of the line, or a block comment. */
static Token lex_comment(Lexer *lx, uint32_t start, bool space)
{
    const char *s = lx->text;
    bool line = s[start + 1] == '/';
    lx->pos = start + 2;
    if (line) {
        while (lx->pos < lx->end && s[lx->pos] != '\n') lx->pos++;
    } else {
        while (lx->pos < lx->end && !starts_with(s, lx->pos, lx->end, "*/")) lx->pos++;
        if (lx->pos >= lx->end) return error_token(LEX_UNTERMINATED_COMMENT, start, start + 2, space);
        lx->pos += 2;
    }
    return make_token(TK_COMMENT_TEXT, start, lx->pos, space);
}

/* Skips white space and comments (not the `///` comment filter; none when
 * comments are tokens). Returns false with *err set for an unterminated
 * block comment. */
static bool skip_space(Lexer *lx, bool *skipped, uint32_t *comment_start)
{
    const char *s = lx->text;
    if (lx->pos == 0 && utf8_has_bom(s, lx->end)) {
        lx->pos = 3;
        *skipped = true;
    }
    while (lx->pos < lx->end) {
        unsigned char c = (unsigned char)s[lx->pos];
        if (is_space(c)) {
            lx->pos++;
            *skipped = true;
        } else if (lx->comments && starts_comment(lx)) {
            break;   /* a token of its own */
        } else if (c == '/' && starts_with(s, lx->pos, lx->end, "//") &&
                   !starts_with(s, lx->pos, lx->end, "///")) {
            while (lx->pos < lx->end && s[lx->pos] != '\n') lx->pos++;
            *skipped = true;
        } else if (c == '/' && starts_with(s, lx->pos, lx->end, "/*")) {
            *comment_start = lx->pos;
            lx->pos += 2;
            while (lx->pos < lx->end && !starts_with(s, lx->pos, lx->end, "*/")) lx->pos++;
            if (lx->pos >= lx->end) return false;
            lx->pos += 2;
            *skipped = true;
        } else {
            break;
        }
    }
    return true;
}

/* Longest punctuation spelling (ASCII or Unicode) matching at pos. */
static TokKind match_punct(const char *s, uint32_t pos, uint32_t end, uint32_t *len)
{
    TokKind best = TK_EOF;
    size_t best_len = 0;
    for (int k = 0; k < TK_COUNT_; k++) {
        if (tok_info[k].cls != TC_PUNCT) continue;
        const char *spellings[2] = {tok_info[k].ascii, tok_info[k].unicode};
        for (int v = 0; v < 2; v++) {
            const char *sp = spellings[v];
            if (!sp) continue;
            size_t n = strlen(sp);
            if (n > best_len && starts_with(s, pos, end, sp)) {
                best = (TokKind)k;
                best_len = n;
            }
        }
    }
    *len = (uint32_t)best_len;
    return best;
}

/* Keywords with a Unicode spelling (⊢ ✵ ⬓ ◎ ∙). */
static TokKind match_unicode_keyword(const char *s, uint32_t pos, uint32_t end, uint32_t *len)
{
    for (int k = 0; k < TK_COUNT_; k++) {
        const char *u = tok_info[k].unicode;
        if (tok_info[k].cls == TC_KEYWORD && u && starts_with(s, pos, end, u)) {
            *len = (uint32_t)strlen(u);
            return (TokKind)k;
        }
    }
    return TK_EOF;
}

static TokKind keyword_kind(const char *s, uint32_t len)
{
    for (int k = 0; k < TK_COUNT_; k++) {
        const char *a = tok_info[k].ascii;
        if (tok_info[k].cls == TC_KEYWORD && strlen(a) == len && memcmp(a, s, len) == 0)
            return (TokKind)k;
    }
    return TK_IDENT;
}

/* A string; one with a NUL byte is an error at the NUL (strings are C
 * strings from here on: a NUL would cut them short without a word). */
static Token lex_string(Lexer *lx, uint32_t start, bool space)
{
    const char *s = lx->text;
    uint32_t i = start + 1, nul = 0;
    while (i < lx->end && s[i] != '"') {
        if (s[i] == '\\' && i + 1 < lx->end) i++;
        if (s[i] == '\0' && !nul) nul = i;
        i++;
    }
    if (i >= lx->end) {
        lx->pos = lx->end;
        if (nul) return error_token(LEX_NUL_BYTE, nul, nul + 1, space);
        return error_token(LEX_UNTERMINATED_STRING, start, start + 1, space);
    }
    lx->pos = i + 1;
    if (nul) return error_token(LEX_NUL_BYTE, nul, nul + 1, space);
    return make_token(TK_STRING, start, lx->pos, space);
}

/* \n \t \r \" \\ \digits \-digits outside a string. */
static Token lex_escape(Lexer *lx, uint32_t start, bool space)
{
    const char *s = lx->text;
    uint32_t i = start + 1;
    if (i < lx->end && (s[i] == 'n' || s[i] == 't' || s[i] == 'r' || s[i] == '"' || s[i] == '\\')) {
        lx->pos = i + 1;
        return make_token(TK_ESCAPE, start, lx->pos, space);
    }
    if (i < lx->end && s[i] == '-') i++;
    if (i < lx->end && is_digit((unsigned char)s[i])) {
        while (i < lx->end && is_digit((unsigned char)s[i])) i++;
        lx->pos = i;
        return make_token(TK_ESCAPE, start, i, space);
    }
    lx->pos = start + 2 <= lx->end ? start + 2 : lx->end;
    return error_token(LEX_BAD_ESCAPE, start, lx->pos, space);
}

/* `{` may open a repetition {m}, {m,n}, {,n}, {m,}, {+}, {*}: one token,
 * written without spaces (CQL 6.2: `{ 2 }` is a compound filter), bounds at
 * most QUANT_MAX. `{,}` and `{3,2}` are errors; so is `{3+4}`. */
#define QUANT_MAX 100000

/* Reads the digits at *k (advancing it): -1 when there are none, a number
 * over QUANT_MAX when it is too large. */
static long scan_bound(const char *s, uint32_t *k, uint32_t end)
{
    long v = -1;
    for (; *k < end && is_digit((unsigned char)s[*k]); (*k)++) {
        v = (v < 0 ? 0 : v) * 10 + (s[*k] - '0');
        if (v > QUANT_MAX) v = QUANT_MAX + 1;
    }
    return v;
}

static Token lex_brace(Lexer *lx, uint32_t start, bool space)
{
    const char *s = lx->text;
    uint32_t i = start + 1, end = lx->end;
    if (starts_with(s, i, end, "+}") || starts_with(s, i, end, "*}")) {
        lx->pos = i + 2;
        return make_token(TK_QUANT, start, lx->pos, space);
    }
    if (i >= end || !(is_digit((unsigned char)s[i]) || s[i] == ',')) {
        lx->pos = i;
        return make_token(TK_LBRACE, start, i, space);
    }
    uint32_t k = i;
    long lo = scan_bound(s, &k, end), hi = -1;
    if (k < end && s[k] == '}' && lo >= 0) {
        lx->pos = k + 1;
        return lo > QUANT_MAX ? error_token(LEX_BAD_QUANTIFIER, start, lx->pos, space)
                              : make_token(TK_QUANT, start, lx->pos, space);
    }
    if (k < end && s[k] == ',') {
        k++;
        hi = scan_bound(s, &k, end);
        if (k < end && s[k] == '}') {
            lx->pos = k + 1;
            if (lo < 0 && hi < 0) return error_token(LEX_EMPTY_QUANTIFIER, start, lx->pos, space);
            if (lo > QUANT_MAX || hi > QUANT_MAX) return error_token(LEX_BAD_QUANTIFIER, start, lx->pos, space);
            if (lo >= 0 && hi >= 0 && hi < lo) return error_token(LEX_BACKWARD_QUANTIFIER, start, lx->pos, space);
            return make_token(TK_QUANT, start, lx->pos, space);
        }
    }
    if (lo >= 0 && k < end && is_space((unsigned char)s[k]) && s[k - 1] != ',') {   /* {2 4}: a compound filter */
        lx->pos = i;
        return make_token(TK_LBRACE, start, i, space);
    }
    uint32_t stop = k;
    while (stop < end && s[stop] != '}' && s[stop] != '\n') stop++;
    lx->pos = stop < end && s[stop] == '}' ? stop + 1 : k;
    return error_token(LEX_BAD_QUANTIFIER, start, lx->pos, space);
}

/* A designator, or [Aa]x / ◭x (piece iteration variable). `word` is true
 * when the designator starts with an ASCII letter: then it must end where the
 * word ends (`Qk` is a name, not Q followed by k). */
static bool lex_designator(Lexer *lx, uint32_t start, bool space, bool word, Token *out)
{
    DesigScan d;
    LexError error;
    const char *s = lx->text;
    uint32_t e = scan_designator(s, start, lx->end, &d, &error);
    if (e == 0) return false;
    if (error == LEX_BAD_SQUARE_LIST) {   /* the error token runs to the bad list's ']' */
        while (e < lx->end && s[e] != ']' && !is_space((unsigned char)s[e])) e++;
        if (e < lx->end && s[e] == ']') e++;
    }
    if (error) {
        lx->pos = e;
        *out = error_token(error, start, e, space);
        return true;
    }
    bool ident_follows = e < lx->end && lex_is_ident_char((unsigned char)s[e]);
    if (ident_follows && d.has_piece_part && !d.has_square_part && d.pieces == ANY_PIECE_MASK &&
        !is_digit((unsigned char)s[e])) {
        /* [Aa]x or ◭x */
        uint32_t j = e;
        while (j < lx->end && lex_is_ident_char((unsigned char)s[j])) j++;
        lx->pos = j;
        *out = make_token(TK_PIECEVAR, start, j, space);
        return true;
    }
    if (word && ident_follows) return false;
    lx->pos = e;
    *out = make_token(TK_DESIGNATOR, start, e, space);
    return true;
}

/* `attacked by`, two words with white space between them, is `attackedby`
 * (CQL 6.2); either word alone is a name. Returns the end of `by` when the
 * word text[start, end) is `attacked` and `by` follows, else 0. */
static uint32_t two_word_keyword_end(const Lexer *lx, uint32_t start, uint32_t end)
{
    const char *s = lx->text;
    if (end - start != 8 || memcmp(s + start, "attacked", 8) != 0) return 0;
    uint32_t j = end;
    while (j < lx->end && is_space((unsigned char)s[j])) j++;
    if (j == end || !starts_with(s, j, lx->end, "by")) return 0;
    if (j + 2 < lx->end && lex_is_ident_char((unsigned char)s[j + 2])) return 0;
    return j + 2;
}

static Token lex_word(Lexer *lx, uint32_t start, bool space)
{
    const char *s = lx->text;
    uint32_t i = start;
    if (is_digit((unsigned char)s[i])) {
        while (i < lx->end && is_digit((unsigned char)s[i])) i++;
        lx->pos = i;
        return make_token(TK_INT, start, i, space);
    }
    Token t;
    if (lex_designator(lx, start, space, true, &t)) return t;
    static const char *const castles[] = {"o-o-o", "o-o"};
    for (int c = 0; c < 2; c++) {
        uint32_t n = (uint32_t)strlen(castles[c]);
        if (starts_with(s, start, lx->end, castles[c]) &&
            (start + n >= lx->end || !lex_is_ident_char((unsigned char)s[start + n]))) {
            lx->pos = start + n;
            return make_token(c == 0 ? TK_OOO : TK_OO, start, lx->pos, space);
        }
    }
    while (i < lx->end && lex_is_ident_char((unsigned char)s[i])) i++;
    uint32_t two = two_word_keyword_end(lx, start, i);
    if (two) {
        lx->pos = two;
        return make_token(TK_ATTACKEDBY, start, two, space);
    }
    lx->pos = i;
    return make_token(keyword_kind(s + start, i - start), start, i, space);
}

/* The next token of text[pos, end), which holds no value. */
static Token lex_text(Lexer *lx)
{
    bool skipped = false;
    uint32_t comment_start = 0;
    if (!skip_space(lx, &skipped, &comment_start))
        return error_token(LEX_UNTERMINATED_COMMENT, comment_start, comment_start + 2, true);
    const char *s = lx->text;
    uint32_t start = lx->pos;
    bool space = skipped || start == 0 || is_space((unsigned char)s[start - 1]);
    if (start >= lx->end) return make_token(TK_EOF, lx->end, lx->end, space);

    unsigned char c = (unsigned char)s[start];
    if (lx->comments && starts_comment(lx)) return lex_comment(lx, start, space);
    if (lex_is_ident_char(c)) return lex_word(lx, start, space);
    if (c == '"') return lex_string(lx, start, space);
    if (c == '\\') return lex_escape(lx, start, space);
    if (c == '{') return lex_brace(lx, start, space);
    if (starts_with(s, start, lx->end, "///")) {
        lx->pos = start + 3;
        return make_token(TK_COMMENT_FILTER, start, lx->pos, space);
    }

    Token t;
    uint32_t len = 0;
    TokKind k = match_punct(s, start, lx->end, &len);
    if (len > 1 || (k != TK_EOF && c != '[' && c != '.')) {
        lx->pos = start + len;
        return make_token(k, start, lx->pos, space);
    }
    if (lex_designator(lx, start, space, false, &t)) return t;
    if (k != TK_EOF) {   /* a plain '[' */
        lx->pos = start + len;
        return make_token(k, start, lx->pos, space);
    }
    if (c >= 0x80) {
        k = match_unicode_keyword(s, start, lx->end, &len);
        if (k != TK_EOF) {
            lx->pos = start + len;
            return make_token(k, start, lx->pos, space);
        }
        size_t n;
        uint32_t cp = decode_at(s, start, lx->end, &n);
        lx->pos = start + (uint32_t)n;
        if (cp == UTF8_INVALID) return error_token(LEX_BAD_UTF8, start, lx->pos, space);
        if (cp == 0x2015) return error_token(LEX_LONE_HORIZONTAL_BAR, start, lx->pos, space);
        return error_token(LEX_BAD_CHAR, start, lx->pos, space);
    }
    lx->pos = start + 1;
    return error_token(c == '\0' ? LEX_NUL_BYTE : LEX_BAD_CHAR, start, lx->pos, space);
}

Token lex_next(Lexer *lx)
{
    while (lx->next_value < lx->nvalues && lx->values[lx->next_value].start < lx->pos) lx->next_value++;
    const LexValue *v = lx->next_value < lx->nvalues ? &lx->values[lx->next_value] : NULL;
    if (!v || v->end > lx->end) return lex_text(lx);
    /* the text up to the value, then the value */
    uint32_t end = lx->end;
    lx->end = v->start;
    Token t = lex_text(lx);
    lx->end = end;
    if (t.kind != TK_EOF) return t;
    lx->pos = v->end;
    lx->next_value++;
    Token value = make_token(TK_STRING, v->start, v->end, (t.flags & TF_SPACE_BEFORE) != 0);
    value.flags |= TF_VALUE;
    return value;
}

/* }==== */
