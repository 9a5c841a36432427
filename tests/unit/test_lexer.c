/*
 * tests/unit/test_lexer.c — unit tests of the CQL tokenizer (src/query/lexer.c).
 *
 * Token kinds of ASCII and Unicode spellings, the whitespace flags that the
 * move and designator rules depend on, designator decoding, comments, and
 * error tokens.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "chess/bitboard.h"
#include "query/lexer.h"

#define MAX_TOKENS 32

/* Lexes text into toks (up to and including TK_EOF); returns the count. */
static int lex_all(const char *text, Token *toks)
{
    Lexer lx;
    lex_init(&lx, text, 0, (uint32_t)strlen(text));
    int n = 0;
    do {
        toks[n] = lex_next(&lx);
    } while (toks[n++].kind != TK_EOF && n < MAX_TOKENS);
    return n;
}

/* Asserts the kinds of all tokens of text (TK_EOF excluded). */
static void assert_kinds(const char *text, int count, ...)
{
    Token toks[MAX_TOKENS];
    int n = lex_all(text, toks);
    if (n - 1 != count) fail_msg("'%s': %d tokens, expected %d", text, n - 1, count);
    va_list ap;
    va_start(ap, count);
    for (int i = 0; i < count; i++) {
        TokKind want = (TokKind)va_arg(ap, int);
        if (toks[i].kind != want)
            fail_msg("'%s' token %d: %s, expected %s", text, i, tok_describe(toks[i].kind), tok_describe(want));
    }
    va_end(ap);
}

static void test_designators_and_whitespace(void **state)
{
    (void)state;
    assert_kinds("Ka1", 1, TK_DESIGNATOR);
    assert_kinds("K a1", 2, TK_DESIGNATOR, TK_DESIGNATOR);
    assert_kinds("Qk", 1, TK_IDENT);                 /* a name, not Q then k */
    assert_kinds("a-h1-8", 1, TK_DESIGNATOR);
    assert_kinds("[QrbNp][a5,b-c4-5]", 1, TK_DESIGNATOR);
    assert_kinds("\xE2\x99\x95\xE2\x99\x9C""a3", 1, TK_DESIGNATOR);  /* ♕♜a3 */
    assert_kinds("ka-h1-8.", 2, TK_DESIGNATOR, TK_DESIGNATOR);
    assert_kinds("k\xE2\x96\xA6", 2, TK_DESIGNATOR, TK_DESIGNATOR);  /* k▦ */
    assert_kinds("[Aa]y", 1, TK_PIECEVAR);
    assert_kinds("\xE2\x97\xADy", 1, TK_PIECEVAR);   /* ◭y */
    assert_kinds("\xE2\x97\xAD y", 2, TK_DESIGNATOR, TK_IDENT);
    assert_kinds("[Aa] y", 2, TK_DESIGNATOR, TK_IDENT);
    assert_kinds("X[a5]", 2, TK_IDENT, TK_DESIGNATOR);
    assert_kinds("X[ a5 ]", 4, TK_IDENT, TK_LBRACKET, TK_DESIGNATOR, TK_RBRACKET);
    assert_kinds("N[x]q", 3, TK_DESIGNATOR, TK_TAKE, TK_DESIGNATOR);
    assert_kinds("x[element].k", 4, TK_IDENT, TK_ELEMENT, TK_DESIGNATOR, TK_DESIGNATOR);
    assert_kinds("[]", 1, TK_DESIGNATOR);
}

static void test_dash_spacing_flags(void **state)
{
    (void)state;
    Token t[MAX_TOKENS];
    lex_all("e2--e4", t);
    assert_int_equal(t[1].kind, TK_DASH);
    assert_false(t[1].flags & TF_SPACE_BEFORE);
    assert_false(t[2].flags & TF_SPACE_BEFORE);
    lex_all("e2 -- e4", t);
    assert_true(t[1].flags & TF_SPACE_BEFORE);
    assert_true(t[2].flags & TF_SPACE_BEFORE);
    lex_all("e2/**/--e4", t);   /* a comment counts as space */
    assert_true(t[1].flags & TF_SPACE_BEFORE);
    assert_true(t[0].flags & TF_SPACE_BEFORE);   /* the start of the text */
    assert_kinds("--=q", 3, TK_DASH, TK_ASSIGN, TK_DESIGNATOR);
    assert_kinds("-->2", 2, TK_LINE_FWD, TK_INT);
    assert_kinds("-- >2", 3, TK_DASH, TK_GT, TK_INT);
    assert_kinds("<--", 1, TK_LINE_BACK);
    assert_kinds("x<-y", 3, TK_IDENT, TK_BACKARROW, TK_IDENT);
    assert_kinds("---2", 3, TK_DASH, TK_MINUS, TK_INT);
}

/* Every Unicode spelling lexes to the kind of its ASCII spelling. */
static void test_unicode_spellings(void **state)
{
    (void)state;
    int checked = 0;
    for (int k = 0; k < TK_COUNT_; k++) {
        const char *u = tok_unicode((TokKind)k), *a = tok_ascii((TokKind)k);
        if (!u) continue;
        Token t[MAX_TOKENS];
        assert_int_equal(lex_all(u, t), 2);
        assert_int_equal(t[0].kind, k);
        assert_int_equal(lex_all(a, t), 2);
        assert_int_equal(t[0].kind, k);
        checked++;
    }
    assert_true(checked >= 20);
    assert_kinds("\xE2\x80\x95\xE2\x80\x95", 1, TK_DASH);   /* ―― */
    assert_kinds("\xC3\x97", 1, TK_TAKE);                    /* × */
    assert_kinds("\xE2\x8A\xA2", 1, TK_PATH);                /* ⊢ */
}

static void test_figurines(void **state)
{
    (void)state;
    static const char *const figurines[12] = {
        "\xE2\x99\x94", "\xE2\x99\x95", "\xE2\x99\x96", "\xE2\x99\x97", "\xE2\x99\x98", "\xE2\x99\x99",
        "\xE2\x99\x9A", "\xE2\x99\x9B", "\xE2\x99\x9C", "\xE2\x99\x9D", "\xE2\x99\x9E", "\xE2\x99\x9F",
    };
    static const Piece pieces[12] = {W_KING, W_QUEEN, W_ROOK, W_BISHOP, W_KNIGHT, W_PAWN,
                                     B_KING, B_QUEEN, B_ROOK, B_BISHOP, B_KNIGHT, B_PAWN};
    static const char letters[] = "KQRBNPkqrbnp";
    for (int i = 0; i < 12; i++) {
        DesigScan u, a;
        const char ascii[2] = {letters[i], 0};
        assert_int_equal(lex_scan_designator(figurines[i], 0, 3, &u), 3);
        assert_int_equal(lex_scan_designator(ascii, 0, 1, &a), 1);
        assert_int_equal(u.pieces, 1u << pieces[i]);
        assert_int_equal(a.pieces, u.pieces);
    }
}

/* Unicode pieces in brackets are the same designator as without brackets
 * and as the ASCII list; one alphabet per bracket, each piece once (R25). */
static void test_bracketed_figurines(void **state)
{
    (void)state;
    DesigScan bare, bracketed, ascii;
    const char *u = "\xE2\x99\x98\xE2\x99\x97", *b = "[\xE2\x99\x98\xE2\x99\x97]e4";   /* ♘♗ [♘♗]e4 */
    assert_int_equal(lex_scan_designator(u, 0, 6, &bare), 6);
    assert_int_equal(lex_scan_designator(b, 0, 10, &bracketed), 10);
    assert_int_equal(lex_scan_designator("[NB]e4", 0, 6, &ascii), 6);
    assert_int_equal(bracketed.pieces, bare.pieces);
    assert_int_equal(bracketed.pieces, ascii.pieces);
    assert_true(bracketed.has_square_part);
    assert_kinds("[\xE2\x96\xB3\xE2\x96\xB2]", 1, TK_DESIGNATOR);   /* [△▲] */
    Token t[MAX_TOKENS];
    lex_all("[\xE2\x99\x98" "b] check", t);   /* [♘b] */
    assert_int_equal(t[0].kind, TK_ERROR);
    assert_int_equal(t[0].error, LEX_MIXED_PIECE_LIST);
    assert_int_equal(t[0].len, 6);
    assert_int_equal(t[1].kind, TK_CHECK);
    lex_all("[\xE2\x99\x98\xE2\x99\x98]", t);   /* [♘♘] */
    assert_int_equal(t[0].error, LEX_REPEATED_PIECE);
    lex_all("[NBN]", t);
    assert_int_equal(t[0].error, LEX_REPEATED_PIECE);
    assert_kinds("x[1]", 4, TK_IDENT, TK_LBRACKET, TK_INT, TK_RBRACKET);   /* not a piece list */
}

/* `attacked by` is one token, attackedby; each word alone is a name (R26). */
static void test_two_word_keyword(void **state)
{
    (void)state;
    assert_kinds("N attacked by p", 3, TK_DESIGNATOR, TK_ATTACKEDBY, TK_DESIGNATOR);
    assert_kinds("N attacked\n\tby p", 3, TK_DESIGNATOR, TK_ATTACKEDBY, TK_DESIGNATOR);
    assert_kinds("attacked byte", 2, TK_IDENT, TK_IDENT);
    assert_kinds("attackedby", 1, TK_ATTACKEDBY);
    assert_kinds("attacked=by", 3, TK_IDENT, TK_ASSIGN, TK_IDENT);
    Token t[MAX_TOKENS];
    lex_all("N attacked  by p", t);
    assert_int_equal(t[1].start, 2);
    assert_int_equal(t[1].len, 12);
}

static void test_designator_decoding(void **state)
{
    (void)state;
    DesigScan d;
    const char *s = "[Qq][a1-8,b3]";
    assert_int_equal(lex_scan_designator(s, 0, (uint32_t)strlen(s), &d), strlen(s));
    assert_true(d.has_piece_part && d.has_square_part);
    assert_int_equal(d.pieces, (1u << W_QUEEN) | (1u << B_QUEEN));
    assert_int_equal(d.nparts, 2);
    assert_int_equal(d.parts[0].file_lo, 0);
    assert_int_equal(d.parts[0].rank_hi, 7);
    assert_int_equal(d.parts[1].file_lo, 1);
    assert_int_equal(d.parts[1].rank_lo, 2);
    s = "_";
    lex_scan_designator(s, 0, 1, &d);
    assert_int_equal(d.pieces, 1u);   /* the empty square */
    s = "e4";
    lex_scan_designator(s, 0, 2, &d);
    assert_false(d.has_piece_part);
    assert_int_equal(d.pieces & 1u, 1u);   /* no piece part: empty squares too */
}

static void test_literals_and_comments(void **state)
{
    (void)state;
    assert_kinds("\"a\\\"b\" 12", 2, TK_STRING, TK_INT);
    assert_kinds("check // to the end\nmate", 2, TK_CHECK, TK_MATE);
    assert_kinds("check /* a\nb */ mate", 2, TK_CHECK, TK_MATE);
    assert_kinds("/// note", 2, TK_COMMENT_FILTER, TK_IDENT);
    assert_kinds("\\n \\-1 \\1", 3, TK_ESCAPE, TK_ESCAPE, TK_ESCAPE);
    assert_kinds("{3} {2,5} {,4} {1,} {+} {*}", 6, TK_QUANT, TK_QUANT, TK_QUANT, TK_QUANT, TK_QUANT, TK_QUANT);
    assert_kinds("{ 2 }", 3, TK_LBRACE, TK_INT, TK_RBRACE);   /* CQL 6.2: a compound, not a repetition */
    assert_kinds("{2 }", 3, TK_LBRACE, TK_INT, TK_RBRACE);
    assert_kinds("{2 4}", 4, TK_LBRACE, TK_INT, TK_INT, TK_RBRACE);
    assert_kinds("o-o o-o-o", 2, TK_OO, TK_OOO);
    assert_kinds("\xEF\xBB\xBF" "check", 1, TK_CHECK);   /* BOM skipped */
}

static void test_error_tokens(void **state)
{
    (void)state;
    Token t[MAX_TOKENS];
    lex_all("\"open", t);
    assert_int_equal(t[0].kind, TK_ERROR);
    assert_int_equal(t[0].error, LEX_UNTERMINATED_STRING);
    lex_all("/* open", t);
    assert_int_equal(t[0].error, LEX_UNTERMINATED_COMMENT);
    lex_all("\\a", t);
    assert_int_equal(t[0].error, LEX_BAD_ESCAPE);
    lex_all("a[<]1", t);
    assert_int_equal(t[0].error, LEX_BAD_SQUARE_LIST);
    lex_all("{3+4}", t);
    assert_int_equal(t[0].error, LEX_BAD_QUANTIFIER);
    lex_all("{,}", t);
    assert_int_equal(t[0].error, LEX_EMPTY_QUANTIFIER);
    lex_all("{3,2}", t);
    assert_int_equal(t[0].error, LEX_BACKWARD_QUANTIFIER);
    lex_all("{100001}", t);
    assert_int_equal(t[0].error, LEX_BAD_QUANTIFIER);
    lex_all("@", t);
    assert_int_equal(t[0].error, LEX_BAD_CHAR);
    lex_all("\xE2\x80\x95", t);
    assert_int_equal(t[0].error, LEX_LONE_HORIZONTAL_BAR);
    lex_all("\xFF", t);
    assert_int_equal(t[0].error, LEX_BAD_UTF8);
    assert_string_equal(lex_error_message(LEX_UNTERMINATED_STRING), "unterminated string");
}

/* A NUL byte is an error where it stands, in a string or not; a comment
 * may hold one (it is skipped). */
static void test_nul_bytes(void **state)
{
    (void)state;
    static const char text[] = "x = \"ab\0cd\" check \0 mate // c\0d\n";
    Lexer lx;
    lex_init(&lx, text, 0, (uint32_t)sizeof text - 1);
    Token t[8];
    int n = 0;
    do {
        t[n] = lex_next(&lx);
    } while (t[n++].kind != TK_EOF && n < 8);
    assert_int_equal(n, 7);   /* x = <error> check <error> mate EOF */
    assert_int_equal(t[2].kind, TK_ERROR);
    assert_int_equal(t[2].error, LEX_NUL_BYTE);
    assert_int_equal(t[2].start, 7);
    assert_int_equal(t[2].len, 1);
    assert_int_equal(t[3].kind, TK_CHECK);   /* lexing goes on after the string */
    assert_int_equal(t[4].error, LEX_NUL_BYTE);
    assert_int_equal(t[4].start, 18);
    assert_int_equal(t[5].kind, TK_MATE);
    /* an unterminated string with a NUL: the NUL is reported */
    static const char open[] = "\"a\0";
    lex_init(&lx, open, 0, (uint32_t)sizeof open - 1);
    Token u = lex_next(&lx);
    assert_int_equal(u.error, LEX_NUL_BYTE);
    assert_int_equal(u.start, 2);
}

static void test_sub_range(void **state)
{
    (void)state;
    const char *text = "function f(){check mate} f()";
    Lexer lx;
    lex_init(&lx, text, 12, 24);   /* the body {check mate} */
    assert_int_equal(lex_next(&lx).kind, TK_LBRACE);
    Token t = lex_next(&lx);
    assert_int_equal(t.kind, TK_CHECK);
    assert_int_equal(t.start, 13);
    assert_int_equal(lex_next(&lx).kind, TK_MATE);
    assert_int_equal(lex_next(&lx).kind, TK_RBRACE);
    assert_int_equal(lex_next(&lx).kind, TK_EOF);
    assert_int_equal(lex_next(&lx).kind, TK_EOF);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_designators_and_whitespace),
        cmocka_unit_test(test_dash_spacing_flags),
        cmocka_unit_test(test_unicode_spellings),
        cmocka_unit_test(test_figurines),
        cmocka_unit_test(test_bracketed_figurines),
        cmocka_unit_test(test_two_word_keyword),
        cmocka_unit_test(test_designator_decoding),
        cmocka_unit_test(test_literals_and_comments),
        cmocka_unit_test(test_error_tokens),
        cmocka_unit_test(test_nul_bytes),
        cmocka_unit_test(test_sub_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
