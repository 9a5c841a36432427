/*
 * src/query/lexer.h — tokens of the CQL query language.
 *
 * The lexer is a small pure core over retained text: a Token is a kind plus
 * byte offsets into the query text (which the caller keeps alive), and a
 * flag telling whether white space (or a comment, or the start of the text)
 * comes right before it — CQL is whitespace-sensitive in a few places
 * (`Ka1` vs `K a1`, `F--G` vs `F -- G`). ASCII and Unicode spellings of a
 * symbol lex to the same kind. Bad input becomes a TK_ERROR token carrying a
 * LexError code; the lexer never stops the caller. It knows nothing of the
 * AST.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_LEXER_H
#define CQL_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum TokKind {
#define TOK(name, ascii, unicode, cls) name,
#include "query/tokens.def"
#undef TOK
    TK_COUNT_
} TokKind;

typedef enum TokClass { TC_SPECIAL, TC_PUNCT, TC_KEYWORD } TokClass;

/* Why a TK_ERROR token is bad (lex_error_message gives the text). */
typedef enum LexError {
    LEX_OK,
    LEX_BAD_CHAR,          /* a byte or code point CQL does not use */
    LEX_BAD_UTF8,          /* malformed UTF-8 */
    LEX_UNTERMINATED_STRING,
    LEX_UNTERMINATED_COMMENT,
    LEX_BAD_ESCAPE,        /* \a outside a string */
    LEX_BAD_SQUARE_LIST,   /* K[...] whose brackets are not a square list */
    LEX_MIXED_PIECE_LIST,  /* [♘b]: ASCII letters and Unicode pieces in one bracket */
    LEX_REPEATED_PIECE,    /* [♘♘], [NN]: the same piece twice in one bracket */
    LEX_BAD_QUANTIFIER,    /* {3+4}: a brace and a digit that do not form {m,n} */
    LEX_EMPTY_QUANTIFIER,  /* {,} */
    LEX_BACKWARD_QUANTIFIER, /* {3,2} */
    LEX_LONE_HORIZONTAL_BAR, /* one U+2015 where ―― (two) was meant */
    LEX_NUL_BYTE           /* a NUL byte, in a string or not (in a comment it is ignored) */
} LexError;

enum {
    TF_SPACE_BEFORE = 1,  /* white space, a comment or the start of the text precedes */
    TF_VALUE = 2          /* a TK_STRING that stands for a value (LexValue) */
};

typedef struct Token {
    TokKind kind;
    uint32_t start;   /* byte offset into the text */
    uint32_t len;     /* byte length */
    uint8_t flags;    /* TF_* */
    uint8_t error;    /* LexError, for TK_ERROR */
} Token;

/* A value given apart from any query text, such as the name an option
 * looks for (`cql -player 'O"Kelly'`), and the bytes of the text that stand
 * for it (the value written as a CQL string, for messages and printing):
 * they lex as one TK_STRING token flagged TF_VALUE, whatever they hold, and
 * the parser takes the value, so a value is never read as query text. */
typedef struct LexValue {
    uint32_t start, end;
    const char *text;   /* the value itself, NUL-terminated */
} LexValue;

typedef struct Lexer {
    const char *text;  /* the whole source; offsets are relative to it */
    uint32_t pos;      /* next byte to read */
    uint32_t end;      /* lexing stops here (a function body is a sub-range) */
    const LexValue *values;   /* the values in the text, in its order (NULL: none) */
    uint32_t nvalues;
    uint32_t next_value;      /* the first of them not yet read */
    bool comments;     /* comments are TK_COMMENT_TEXT tokens (for colouring), not skipped */
} Lexer;

/* Lexes text[start, end). Offsets in tokens are relative to `text`. */
void lex_init(Lexer *lx, const char *text, uint32_t start, uint32_t end);
/* The values of the text (after lex_init): those inside [start, end) are
 * each one token. */
void lex_set_values(Lexer *lx, const LexValue *values, uint32_t nvalues);
/* Next token; TK_EOF (zero length, at `end`) forever once the range is used up. */
Token lex_next(Lexer *lx);

/* "'('" for punctuation, "'and'" for keywords, "an integer" for the rest. */
const char *tok_describe(TokKind k);
const char *tok_ascii(TokKind k);     /* ASCII spelling ("--", "and") or NULL */
const char *tok_unicode(TokKind k);   /* Unicode spelling or NULL */
TokClass tok_class(TokKind k);
const char *lex_error_message(LexError e);

/* ---- piece and square designators --------------------------------------- */

/* One file-range x rank-range part of a square designator: [a1-8,b3] has
 * two parts. Files and ranks are 0..7 (a..h, 1..8). */
typedef struct SquarePart {
    uint8_t file_lo, file_hi, rank_lo, rank_hi;
} SquarePart;

#define DESIG_MAX_PARTS 64

/* The decoded text of a TK_DESIGNATOR token. `pieces` has bit p set for
 * every Piece code p (bitboard.h: W_PAWN = 1 ... B_KING = 14) the designator
 * allows, and bit 0 (NO_PIECE) for the empty square. Without a piece part
 * every piece and the empty square are allowed; without a square part the
 * square part is the whole board. */
typedef struct DesigScan {
    uint16_t pieces;
    bool has_piece_part;
    bool has_square_part;
    bool all_squares_symbol;   /* written `.` or `▦` */
    uint8_t nparts;
    SquarePart parts[DESIG_MAX_PARTS];
} DesigScan;

/* Decodes the designator that starts at text[pos] (within text[0, end)).
 * Returns its end offset, or 0 when no designator starts there. `out` may be
 * NULL. The token boundary rule for ASCII words is applied by the lexer. */
uint32_t lex_scan_designator(const char *text, uint32_t pos, uint32_t end, DesigScan *out);

/* Offset of the variable name in a TK_PIECEVAR token ([Aa]x, ◭x). */
uint32_t lex_piecevar_name(const char *text, Token t);

/* True for the bytes that make identifiers: A-Z a-z 0-9 _ $ */
bool lex_is_ident_char(unsigned char c);

#endif
