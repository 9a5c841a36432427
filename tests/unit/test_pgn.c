/*
 * tests/unit/test_pgn.c — unit tests of the PGN reader, the game tree and the PGN writer.
 *
 * Each test reads PGN text from memory (fmemopen), so the exact line and
 * column of every message can be asserted.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "chess/attacks.h"
#include "chess/san.h"
#include "pgn/game.h"
#include "pgn/reader.h"
#include "gated_both_ways.h"
#include "split_both_ways.h"
#include "pgn/writer.h"

/* ---- helpers --------------------------------------------------------------- */

typedef struct Parsed {
    Arena arena;
    Game games[16];
    PgnParseStatus status[16];
    int count;
    StrBuf messages;
} Parsed;

static void capture(void *ctx, DiagSeverity sev, const char *text)
{
    (void)sev;
    sb_append((StrBuf *)ctx, text);
}

/* Reads every game of the len bytes at text (NUL bytes too), keeping games
 * of at most max_game_size bytes (0: the default); the games stay valid
 * until parsed_free. */
static Parsed *parse_bytes(const char *text, size_t len, size_t max_game_size)
{
    Parsed *p = calloc(1, sizeof *p);
    arena_init(&p->arena, 4096);
    DiagSink sink;
    diag_sink_init(&sink, capture, &p->messages);
    FILE *fp = fmemopen((char *)(uintptr_t)text, len, "rb");
    assert_non_null(fp);
    PgnReader r;
    pgn_open_stream(&r, fp, "t.pgn", &sink);
    if (max_game_size) r.max_game_size = max_game_size;
    RawGame raw;
    raw_game_init(&raw);
    while (p->count < 16 && pgn_next_raw(&r, &raw)) {
        p->status[p->count] = pgn_parse_game(&raw, "t.pgn", &p->arena, &p->games[p->count], &sink);
        p->count++;
    }
    raw_game_free(&raw);
    pgn_close(&r);
    fclose(fp);
    return p;
}

static Parsed *parse_text(const char *text)
{
    return parse_bytes(text, strlen(text), 0);
}

/* A string literal with the NUL bytes it holds. */
#define PARSE_LITERAL(lit) parse_bytes(lit, sizeof lit - 1, 0)

static void parsed_free(Parsed *p)
{
    arena_free(&p->arena);
    sb_free(&p->messages);
    free(p);
}

static int mainline_length(const Game *g)
{
    int n = 0;
    for (const GameNode *x = g->root->child; x; x = x->child) n++;
    return n;
}

/* SAN of the move into node n. */
static const char *san_of(const GameNode *n)
{
    static char buf[SAN_MAX];
    san_write(&n->parent->pos, n->move, buf);
    return buf;
}


/* ---- reading ----------------------------------------------------------------- */

static void test_tags_and_escapes(void **state)
{
    (void)state;
    Parsed *p = parse_text("[Event \"A \\\"quoted\\\" \\\\ name\"]\n[White \"Kasparov, G\"]\n"
                           "[Result \"1-0\"]\n\n1. e4 e5 1-0\n");
    assert_int_equal(p->count, 1);
    assert_int_equal(p->status[0], PGN_OK);
    assert_string_equal(game_tag(&p->games[0], "Event"), "A \"quoted\" \\ name");
    assert_string_equal(game_tag(&p->games[0], "White"), "Kasparov, G");
    assert_null(game_tag(&p->games[0], "Black"));
    assert_string_equal(p->games[0].result, "1-0");
    assert_int_equal(mainline_length(&p->games[0]), 2);
    assert_string_equal(sb_str(&p->messages), "");
    parsed_free(p);
}

static void test_movetext_forms(void **state)
{
    (void)state;
    /* move numbers in every form, glued numbers, comments of both kinds,
     * % escape lines, NAGs and glyphs, suffixes, CRLF line ends */
    Parsed *p = parse_text("[Event \"x\"]\r\n\r\n"
                           "1.e4 {open} e5 2 Nf3 $1 2...Nc6!? ; rest of line\r\n"
                           "%  escape line ignored\r\n"
                           "3. Bb5 a6 4.Ba4 ! Nf6 +- 5.0-0 Be7 6. Re1 b5 7.Bb3 d6 *\r\n");
    assert_int_equal(p->count, 1);
    assert_int_equal(p->status[0], PGN_OK);
    Game *g = &p->games[0];
    assert_int_equal(mainline_length(g), 14);
    GameNode *e4 = g->root->child;
    assert_string_equal(e4->comments->text, "open");
    GameNode *nf3 = e4->child->child;
    assert_int_equal(nf3->nag_count, 1);
    assert_int_equal(nf3->nags[0], 1);
    GameNode *nc6 = nf3->child;
    assert_int_equal(nc6->nags[0], 5);                       /* glued "!?" */
    assert_string_equal(nc6->comments->text, "rest of line"); /* ';' comment */
    GameNode *ba4 = nc6->child->child->child;
    assert_string_equal(san_of(ba4), "Ba4");
    assert_int_equal(ba4->nags[0], 1);                       /* "!" token */
    assert_int_equal(ba4->child->nags[0], 18);               /* "+-" */
    assert_string_equal(san_of(ba4->child->child), "O-O");   /* written with zeros */
    assert_string_equal(g->result, "*");
    parsed_free(p);
}

static void test_variations_nested(void **state)
{
    (void)state;
    Parsed *p = parse_text("1. e4 (1. d4 d5 (1... Nf6 2. c4 (2. Nf3)) 2. c4) (1. c4) 1... e5 "
                           "({before} 1... c5 2. Nf3) 2. Nf3 1/2-1/2\n");
    assert_int_equal(p->count, 1);
    assert_int_equal(p->status[0], PGN_OK);
    Game *g = &p->games[0];
    assert_true(g->has_variations);
    GameNode *e4 = g->root->child, *d4 = e4->sibling, *c4 = d4->sibling;
    assert_string_equal(san_of(e4), "e4");
    assert_string_equal(san_of(d4), "d4");
    assert_string_equal(san_of(c4), "c4");
    assert_null(c4->sibling);
    assert_int_equal(e4->depth, 0);
    assert_int_equal(d4->depth, 1);
    GameNode *d5 = d4->child, *nf6 = d5->sibling;
    assert_string_equal(san_of(nf6), "Nf6");
    assert_int_equal(nf6->depth, 2);
    assert_string_equal(san_of(nf6->child->sibling), "Nf3");
    assert_int_equal(nf6->child->sibling->depth, 3);
    GameNode *c5 = e4->child->sibling;
    assert_string_equal(san_of(c5), "c5");
    assert_string_equal(c5->pre_comments->text, "before");
    assert_int_equal(mainline_length(g), 3);
    /* preorder ids, main line first */
    assert_int_equal(g->root->id, 0);
    assert_int_equal(e4->id, 1);
    assert_int_equal(e4->child->id, 2);
    assert_int_equal(e4->child->child->id, 3);
    assert_int_equal(g->node_count, 13);
    parsed_free(p);
}

static void test_setup_fen_and_bom(void **state)
{
    (void)state;
    Parsed *p = parse_text("\xEF\xBB\xBF[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 40\"]\n\n"
                           "40... Kd7 41. e4 *\n");
    assert_int_equal(p->count, 1);
    assert_int_equal(p->status[0], PGN_OK);
    Game *g = &p->games[0];
    assert_int_equal(g->root->pos.side, BLACK);
    assert_int_equal(g->root->pos.fullmove, 40);
    assert_int_equal(mainline_length(g), 2);
    parsed_free(p);
}

static void test_games_without_tags_and_tags_without_moves(void **state)
{
    (void)state;
    Parsed *p = parse_text("1. e4 e5 1-0\n1. d4 d5 0-1\n"
                           "[Event \"only tags\"]\n[Round \"1\"]\n\n"
                           "[Round \"2\"]\n[Result \"*\"]\n");
    assert_int_equal(p->count, 4);
    assert_int_equal(mainline_length(&p->games[0]), 2);
    assert_string_equal(p->games[1].result, "0-1");
    assert_string_equal(game_tag(&p->games[2], "Round"), "1");
    assert_string_equal(game_tag(&p->games[3], "Round"), "2");   /* repeated tag: new game */
    assert_int_equal(mainline_length(&p->games[3]), 0);
    /* blank line inside a tag section does not split a game */
    parsed_free(p);
    p = parse_text("[Event \"e\"]\n\n[White \"w\"]\n\n1. e4 *\n");
    assert_int_equal(p->count, 1);
    assert_string_equal(game_tag(&p->games[0], "White"), "w");
    parsed_free(p);
}

static void test_piece_identity_follows_pieces(void **state)
{
    (void)state;
    /* castling moves the rook's id; en passant removes the captured pawn's;
     * a promoted pawn keeps its id */
    Parsed *p = parse_text("[FEN \"4k3/1P6/8/8/3p4/8/4P3/R3K3 w Q - 0 1\"]\n\n"
                           "1. e4 dxe3 2. O-O-O Ke7 3. b8=Q *\n");
    assert_int_equal(p->status[0], PGN_OK);
    Game *g = &p->games[0];
    GameNode *root = g->root;
    /* set on first use; the second call changes nothing */
    assert_false(g->piece_ids_filled);
    game_fill_piece_ids(g);
    assert_true(g->piece_ids_filled);
    game_fill_piece_ids(g);
    uint8_t rook = root->piece_id[SQ_A1], king = root->piece_id[SQ_E1];
    uint8_t pawn_b7 = root->piece_id[SQ_B7], black_pawn = root->piece_id[SQ_D4];
    assert_true(rook && king && pawn_b7 && black_pawn);
    assert_int_not_equal(rook, king);
    GameNode *ep = root->child->child;           /* 1... dxe3 e.p. */
    assert_int_equal(ep->piece_id[SQ_E3], black_pawn);
    assert_int_equal(ep->piece_id[SQ_E4], 0);
    GameNode *castle = ep->child;
    assert_int_equal(castle->piece_id[SQ_C1], king);
    assert_int_equal(castle->piece_id[SQ_D1], rook);
    assert_int_equal(castle->piece_id[SQ_A1], 0);
    GameNode *promo = castle->child->child;
    assert_int_equal(promo->piece_id[SQ_B8], pawn_b7);
    assert_int_equal(promo->pos.board[SQ_B8], W_QUEEN);
    parsed_free(p);
}

/* ---- bad input ---------------------------------------------------------------- */

static void test_illegal_move_is_reported_and_next_game_read(void **state)
{
    (void)state;
    Parsed *p = parse_text("[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6\n4. Bxc7 Nf6 1-0\n\n"
                           "[Event \"b\"]\n\n1. d4 1-0\n");
    assert_int_equal(p->count, 2);
    assert_int_equal(p->status[0], PGN_DAMAGED);
    assert_string_equal(sb_str(&p->messages),
                        "t.pgn:4:4: game 1: illegal move 'Bxc7' at move 4 (white to play)\n");
    assert_true(p->games[0].truncated);
    assert_int_equal(mainline_length(&p->games[0]), 6);      /* cut at the bad move */
    assert_string_equal(p->games[0].unread_text, "Bxc7 Nf6 1-0\n");
    assert_int_equal(p->status[1], PGN_OK);
    parsed_free(p);
}

static void test_ambiguous_and_unreadable_moves(void **state)
{
    (void)state;
    Parsed *p = parse_text("[FEN \"4k3/8/8/8/8/8/8/4KN1N w - - 0 1\"]\n\n1. Ng3 *\n"
                           "1. e4 <br> e5 *\n"
                           "1. e4 Nf9 *\n");
    assert_int_equal(p->count, 3);
    assert_string_equal(sb_str(&p->messages),
                        "t.pgn:3:4: game 1: ambiguous move 'Ng3' at move 1 (white to play)\n"
                        "t.pgn:4:7: game 2: unexpected text '<br>' in the movetext (skipped)\n"
                        "t.pgn:5:7: game 3: unreadable move 'Nf9' at move 1 (black to play)\n");
    assert_int_equal(mainline_length(&p->games[1]), 2);      /* junk skipped, e5 kept */
    parsed_free(p);
}

/* As CQL 6.2 does, a game is read no further than its first bad move, even
 * when that move is in a variation. */
static void test_bad_move_in_variation_ends_the_game(void **state)
{
    (void)state;
    Parsed *p = parse_text("1. e4 (1. d4 Qh5 2. c4) e5 2. Nf3 *\n");
    assert_int_equal(p->status[0], PGN_DAMAGED);
    assert_string_equal(sb_str(&p->messages),
                        "t.pgn:1:14: game 1: illegal move 'Qh5' at move 1 (black to play)\n");
    Game *g = &p->games[0];
    assert_int_equal(mainline_length(g), 1);
    assert_null(g->root->child->sibling->child);              /* variation cut after 1. d4 */
    assert_string_equal(g->unread_text, "Qh5 2. c4) e5 2. Nf3 *\n");
    parsed_free(p);
}

static void test_truncated_and_unclosed(void **state)
{
    (void)state;
    Parsed *p = parse_text("[Event \"a\"]\n\n1. e4 {never closed e5\n[Event \"b\"]\n\n1. d4 *\n"
                           "[Event \"c\"]\n\n1. c4 (1. Nf3\n");
    assert_int_equal(p->count, 3);
    assert_string_equal(sb_str(&p->messages),
                        "t.pgn:3:7: game 1: comment is not closed by '}'\n"
                        "t.pgn:9:7: game 3: variation is not closed by ')'\n");
    assert_int_equal(mainline_length(&p->games[1]), 1);
    parsed_free(p);
}

/* A line starting with a tag pair inside a brace comment that a '}' closes
 * later is comment text, as the PGN standard and CQL 6.2 have it (it used
 * to end the comment: the game lost its moves, and a game with the tags
 * the comment chose appeared); inside a comment never closed, it begins the
 * next game, also when that game has comments of its own. */
static void test_tag_pairs_inside_comments(void **state)
{
    (void)state;
    Parsed *p = parse_text("[Event \"a\"]\n\n1. e4 {see the game\n[Event \"phantom\"]\n[White \"X\"]\n"
                           "played earlier} e5 1-0\n\n[Event \"b\"]\n\n1. d4 *\n");
    assert_int_equal(p->count, 2);
    assert_string_equal(sb_str(&p->messages), "");
    assert_int_equal(mainline_length(&p->games[0]), 2);
    assert_string_equal(p->games[0].root->child->comments->text,
                        "see the game [Event \"phantom\"] [White \"X\"] played earlier");
    assert_string_equal(game_tag(&p->games[1], "Event"), "b");
    parsed_free(p);
    p = parse_text("[Event \"a\"]\n\n1. e4 {never closed\n[Event \"b\"]\n\n1. d4 {c} d5 *\n");
    assert_int_equal(p->count, 2);
    assert_string_equal(sb_str(&p->messages), "t.pgn:3:7: game 1: comment is not closed by '}'\n");
    assert_int_equal(mainline_length(&p->games[1]), 2);
    parsed_free(p);
}

/* A game that opens with a comment and has no result still ends at the next
 * tag section: its moves are not mistaken for a remark about the file. */
static void test_comment_first_game_without_result(void **state)
{
    (void)state;
    Parsed *p = parse_text("{A remark}\n1. e4 e5 2. Nf3\n\n[Event \"b\"]\n\n1. d4 *\n");
    assert_int_equal(p->count, 2);
    assert_int_equal(mainline_length(&p->games[0]), 3);
    assert_string_equal(p->games[0].root->comments->text, "A remark");
    assert_int_equal(mainline_length(&p->games[1]), 1);
    assert_string_equal(sb_str(&p->messages),
                        "t.pgn:3:1: game 1: game has no result (1-0, 0-1, 1/2-1/2 or *): truncated?\n");
    parsed_free(p);
}

/* A '}' with no comment open is reported and passed over (it used to stop
 * the reader dead: found by fuzzing). */
static void test_stray_closing_brace(void **state)
{
    (void)state;
    Parsed *p = parse_text("[Event \"a\"]\n\n1. e4 e5} 2. Nf3 1/2-1/2\n\n[Event \"b\"]\n\n1. d4 }*\n");
    assert_int_equal(p->count, 2);
    assert_int_equal(mainline_length(&p->games[0]), 3);
    assert_int_equal(mainline_length(&p->games[1]), 1);
    assert_string_equal(sb_str(&p->messages),
                        "t.pgn:3:9: game 1: unexpected '}' in movetext\n"
                        "t.pgn:7:7: game 2: unexpected '}' in movetext\n");
    parsed_free(p);
}

static void test_bad_tags(void **state)
{
    (void)state;
    Parsed *p = parse_text("[Event \"LA Tour \"C\"\"]\n[Site \"no close]\n[Round]\n\n1. e4 *\n");
    assert_int_equal(p->count, 1);
    assert_string_equal(sb_str(&p->messages),
                        "t.pgn:1:8: game 1: tag value of 'Event' has an unescaped '\"'\n");
    assert_string_equal(game_tag(&p->games[0], "Event"), "LA Tour \"C\"");
    assert_string_equal(game_tag(&p->games[0], "Site"), "no close");
    assert_int_equal(mainline_length(&p->games[0]), 1);
    parsed_free(p);
}

static void test_bad_fen_and_variant_skip_game(void **state)
{
    (void)state;
    Parsed *p = parse_text("[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n*\n"
                           "[Variant \"Crazyhouse\"]\n\n1. e4 *\n"
                           "[Variant \"chess960\"]\n[FEN \"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\"]\n\n9. a4 *\n");
    assert_int_equal(p->count, 3);
    assert_int_equal(p->status[0], PGN_UNUSABLE);
    assert_int_equal(p->status[1], PGN_UNUSABLE);
    assert_int_equal(p->status[2], PGN_OK);
    assert_non_null(strstr(sb_str(&p->messages), "t.pgn:1:1: game 1: bad FEN tag"));
    assert_non_null(strstr(sb_str(&p->messages),
                           "game 2: variant 'Crazyhouse' is not supported; game skipped\n"));
    assert_int_equal(mainline_length(&p->games[2]), 1);
    parsed_free(p);
}

static void test_junk_between_games_is_skipped(void **state)
{
    (void)state;
    Parsed *p = parse_text("<html>\nMIME-Version: 1.0\n\n[Event \"a\"]\n1. e4 1-0 </p>\n* *\n"
                           "{ a remark about the file }\n\n[Event \"b\"]\n1. d4 *\n");
    assert_int_equal(p->count, 2);
    assert_string_equal(sb_str(&p->messages),
                        "t.pgn:1: warning: skipped 2 lines of text that is not PGN\n"
                        "t.pgn:5: warning: skipped 1 line of text that is not PGN\n"
                        "t.pgn:6:1: warning: result '*' outside any game ignored\n"
                        "t.pgn:6:3: warning: result '*' outside any game ignored\n");
    parsed_free(p);
}

/* ---- bytes real files contain, and input that is not PGN -------------------- */

static void test_cr_only_line_ends(void **state)
{
    (void)state;
    /* old Mac files: every line ends with a lone CR */
    Parsed *p = parse_text("[Event \"a\"]\r[Result \"1-0\"]\r\r1. e4 e5 1-0\r\r"
                           "[Event \"b\"]\r\r1. d4 Nf9 *\r");
    assert_int_equal(p->count, 2);
    assert_int_equal(p->status[0], PGN_OK);
    assert_string_equal(sb_str(&p->messages),
                        "t.pgn:8:7: game 2: unreadable move 'Nf9' at move 1 (black to play)\n");
    parsed_free(p);

    /* CR, CRLF and LF mixed; CR CR LF is two line ends; a comment across a CR */
    p = parse_text("1. e4 {a\rb} e5 *\r\n\r1. d4\r\r\n2. Qxh7 *\n");
    assert_int_equal(p->count, 2);
    assert_string_equal(p->games[0].root->child->comments->text, "a b");
    assert_int_equal(mainline_length(&p->games[0]), 2);
    assert_string_equal(sb_str(&p->messages),
                        "t.pgn:6:4: game 2: illegal move 'Qxh7' at move 1 (black to play)\n");
    parsed_free(p);
}

/* A CRLF or a lone CR that falls on the boundary between two reads. */
static void test_line_end_across_reads(void **state)
{
    (void)state;
    for (int lone = 0; lone < 2; lone++) {
        StrBuf text = SB_INIT;
        sb_append(&text, "1. e4 {");
        while (text.len < 65534) sb_putc(&text, 'x');
        sb_append(&text, lone ? "}\rNf9 *\n" : "}\r\nNf9 *\n");   /* the CR is byte 65535 */
        assert_int_equal(text.data[65535], '\r');
        Parsed *p = parse_bytes(text.data, text.len, 0);
        assert_int_equal(p->count, 1);
        assert_string_equal(sb_str(&p->messages),
                            "t.pgn:2:1: game 1: unreadable move 'Nf9' at move 1 (black to play)\n");
        parsed_free(p);
        sb_free(&text);
    }
}

static void test_byte_order_mark_mid_file(void **state)
{
    (void)state;
    /* files appended to each other, each with its mark; the mark takes no column */
    Parsed *p = parse_text("\xEF\xBB\xBF[Event \"a\"]\n\n1. e4 1-0\n"
                           "\xEF\xBB\xBF[Event \"b\"]\n[Site \"s\"]\n\n1. d4 *\n"
                           "\xEF\xBB\xBF\n\xEF\xBB\xBF" "1. c4 Nf9 *\n");
    assert_int_equal(p->count, 3);
    assert_string_equal(game_tag(&p->games[0], "Event"), "a");
    assert_string_equal(game_tag(&p->games[1], "Site"), "s");
    assert_int_equal(p->games[1].tag_count, 2);
    assert_string_equal(sb_str(&p->messages),
                        "t.pgn:9:7: game 3: unreadable move 'Nf9' at move 1 (black to play)\n");
    parsed_free(p);
}

static void test_nul_bytes_are_reported_and_read_as_spaces(void **state)
{
    (void)state;
    /* in a tag value: kept whole, the NUL a space */
    Parsed *p = PARSE_LITERAL("[Event \"a\0b\"]\n[Site \"x\"]\n\n1. e4 *\n");
    assert_int_equal(p->count, 1);
    assert_int_equal(p->status[0], PGN_DAMAGED);
    assert_string_equal(game_tag(&p->games[0], "Event"), "a b");
    assert_string_equal(game_tag(&p->games[0], "Site"), "x");
    assert_int_equal(mainline_length(&p->games[0]), 1);
    assert_string_equal(sb_str(&p->messages), "t.pgn:1:10: game 1: NUL byte in the game's text "
                                               "(read as a space, as is any other)\n");
    parsed_free(p);

    /* in a comment (blanks collapse as usual), and between moves */
    p = PARSE_LITERAL("1. e4 {x\0\0y} e5\0Nf3 *\n");
    assert_int_equal(p->count, 1);
    assert_string_equal(p->games[0].root->child->comments->text, "x y");
    assert_int_equal(mainline_length(&p->games[0]), 3);
    assert_string_equal(p->games[0].result, "*");
    assert_string_equal(sb_str(&p->messages), "t.pgn:1:9: game 1: NUL byte in the game's text "
                                               "(read as a space, as is any other)\n");
    parsed_free(p);

    /* one message per game: the first problem in the text */
    p = PARSE_LITERAL("1. e4\0 Nf9 *\n\n1. e4 Nf9 {a\0b} *\n");
    assert_int_equal(p->count, 2);
    assert_string_equal(sb_str(&p->messages),
                        "t.pgn:1:6: game 1: NUL byte in the game's text (read as a space, as is any other)\n"
                        "t.pgn:3:7: game 2: unreadable move 'Nf9' at move 1 (black to play)\n");
    assert_non_null(strstr(p->games[1].unread_text, "Nf9 {a b} *"));   /* not cut at the NUL */
    parsed_free(p);
}

static void test_nul_bytes_between_games_are_junk(void **state)
{
    (void)state;
    StrBuf text = SB_INIT;
    sb_append(&text, "1. e4 *\n");
    size_t run = 3 * PGN_MAX_SEGMENT + 5;   /* a line of NULs longer than one piece */
    sb_reserve(&text, run);
    memset(text.data + text.len, 0, run);
    text.len += run;
    sb_append_n(&text, "\n\n\0\0\0\n1. d4 *\n", 15);
    sb_append_n(&text, "\0\n1. c4 *\n", 9);
    Parsed *p = parse_bytes(text.data, text.len, 0);
    assert_int_equal(p->count, 3);
    assert_int_equal(p->status[1], PGN_OK);
    assert_string_equal(sb_str(&p->messages),
                        "t.pgn:2: warning: skipped 1 line of text that is not PGN (it holds NUL bytes)\n"
                        "t.pgn:4: warning: skipped 1 line of text that is not PGN (it holds NUL bytes)\n"
                        "t.pgn:6: warning: skipped 1 line of text that is not PGN (it holds NUL bytes)\n");
    parsed_free(p);
    sb_free(&text);
}

/* Lines longer than the piece the splitter looks at at once. */
static void test_lines_longer_than_a_piece(void **state)
{
    (void)state;
    /* a comment of 3 MB on one line, then the next game */
    StrBuf text = SB_INIT;
    sb_append(&text, "[Event \"a\"]\n\n1. e4 {");
    while (text.len < 3 * PGN_MAX_SEGMENT) sb_append(&text, "ab ");
    sb_append(&text, "} e5 1-0\n[Event \"b\"]\n\n1. d4 *\n");
    Parsed *p = parse_bytes(text.data, text.len, 0);
    assert_int_equal(p->count, 2);
    assert_int_equal(p->status[0], PGN_OK);
    assert_int_equal(mainline_length(&p->games[0]), 2);
    assert_true(strlen(p->games[0].root->child->comments->text) > 3 * PGN_MAX_SEGMENT - 30);
    assert_string_equal(sb_str(&p->messages), "");
    parsed_free(p);

    /* a result across the place where a blind cut would fall, with the next
     * game on the same line: pieces are cut between tokens */
    sb_clear(&text);
    sb_append(&text, "1. e4");
    while (text.len < PGN_MAX_SEGMENT - 2) sb_putc(&text, ' ');
    sb_append(&text, "1-0 1. d4 *\n");
    p = parse_bytes(text.data, text.len, 0);
    assert_int_equal(p->count, 2);
    assert_string_equal(p->games[0].result, "1-0");
    assert_string_equal(san_of(p->games[1].root->child), "d4");
    assert_string_equal(sb_str(&p->messages), "");
    parsed_free(p);
    sb_free(&text);
}

/* Lines of plain movetext are taken by runs (plain_movetext_lines); what
 * stops a run gets its own line, so lines, escapes and marks count the same. */
static void test_runs_of_plain_movetext_lines(void **state)
{
    (void)state;
    /* a run of lines across the 64 KB reads, then a bad move: its line */
    StrBuf text = SB_INIT;
    sb_append(&text, "[Event \"a\"]\n\n");
    unsigned line = 3, move = 1;
    while (text.len < 70000) {
        sb_printf(&text, "%u. Nf3 Nf6 %u. Ng1 Ng8\n", move, move + 1);
        move += 2;
        line++;
    }
    sb_printf(&text, "%u. O-O Nf9 *\n", move);
    Parsed *p = parse_bytes(text.data, text.len, 0);
    assert_int_equal(p->count, 1);
    char expected[128];
    int column = snprintf(expected, sizeof expected, "%u. ", move) + 1;
    snprintf(expected, sizeof expected, "t.pgn:%u:%d: game 1: illegal move 'O-O' at move %u (white to play)\n",
             line, column, move);
    assert_string_equal(sb_str(&p->messages), expected);
    parsed_free(p);
    sb_free(&text);

    /* an escape line holding '{', a mark of a file appended, a line
     * starting with '-' and a result after a digit, each inside a run */
    p = parse_text("[Event \"a\"]\n\n1. e4 e5\n2. Nf3 Nc6\n%{ not a comment\n3. Bb5 a6\n"
                   "\xEF\xBB\xBF" "4. Ba4 Nf6\n5. O-O Be7\n-- Nf9 1-0\n[Event \"b\"]\n\n1. d4 *\n");
    assert_int_equal(p->count, 2);
    assert_int_equal(mainline_length(&p->games[0]), 11);
    assert_string_equal(sb_str(&p->messages),
                        "t.pgn:9:4: game 1: unreadable move 'Nf9' at move 6 (black to play)\n");
    parsed_free(p);
}

/* Splitting in chunks (on worker threads) gives the games, numbers, lines
 * and messages of splitting one game after another, wherever the chunks are
 * cut: also where a cut turns out not to be between two games. */
static void test_chunks_split_as_one_by_one(void **state)
{
    (void)state;
    static const char *const texts[] = {
        /* plain games, a result glued to the next tag section */
        "[Event \"a\"]\n[Site \"s\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n\n1. d4 d5 0-1 [Event \"c\"]\n\n1. c4 *\n"
        "\n[Event \"d\"]\n\n1. Nf3 1/2-1/2\n",
        /* an unclosed variation: the tag lines after it stay in the game */
        "[Event \"a\"]\n\n1. e4 (1. d4 d5\n\n[Event \"b\"]\n\n1. e4 e5 1-0\n\n[Event \"c\"]\n\n1. d4 *\n"
        "\n[Event \"d\"]\n\n1. c4 *\n",
        /* unclosed variations in a row: chunks after one that overran overrun too */
        "[Event \"a\"]\n\n1. e4 (1. d4\n\n[Event \"b\"]\n\n1. e4 e5 *\n\n[Event \"c\"]\n\n1. d4 (1. c4\n"
        "\n[Event \"d\"]\n\n1. c4 *\n\n[Event \"e\"]\n\n1. e4 *\n\n[Event \"f\"]\n\n1. b3 *\n",
        /* a line of other text between two tags: the tag after it looks
         * like a game's first */
        "[Event \"a\"]\nnot a tag\n[Site \"s\"]\n\n1. e4 *\n\n[Event \"b\"]\n%escape\n[Site \"t\"]\n\n1. d4 *\n"
        "\n[Event \"c\"]\n\n1. c4 *\n",
        /* blank lines inside a tag section, a repeated tag name */
        "[Event \"a\"]\n\n[Site \"s\"]\n\n1. e4 *\n\n[Event \"b\"]\n[Event \"c\"]\n\n1. d4 *\n"
        "\n[Event \"d\"]\n\n1. c4 *\n",
        /* a remark before a tag section, text between games, a lone result */
        "{about this file}\n\n[Event \"a\"]\n\n1. e4 *\n\n<html>\nnot pgn\n\n[Event \"b\"]\n\n1. d4 *\n\n* *\n"
        "\n[Event \"c\"]\n\n1. c4 { a comment\n\n[Event \"x\"]\nstill } 1-0\n\n[Event \"d\"]\n\n1. Nf3 *\n",
        /* a comment never closed; a game without a result; junk at the end */
        "[Event \"a\"]\n\n1. e4 { never closed\n\n[Event \"b\"]\n\n1. d4 d5\n\n[Event \"c\"]\n\n1. c4 *\n"
        "\nsome text at the end\n",
        /* lone CR line ends, then CRLF */
        "[Event \"a\"]\r\r1. e4 e5 1-0\r\r[Event \"b\"]\r\r1. d4 *\r\r[Event \"c\"]\r\r1. c4 *\r"
        "\r\n[Event \"d\"]\r\n\r\n1. Nf3 *\r\n\r\n[Event \"e\"]\r\n\r\n1. g3 *\r\n",
        /* tag pairs inside a comment closed after them (comment text), and
         * inside one never closed (the next game) */
        "[Event \"a\"]\n\n1. e4 {see\n[Event \"p\"]\n[White \"X\"]\nmore} e5 1-0\n\n[Event \"b\"]\n\n"
        "1. d4 {x\n\n[Event \"c\"]\n\n1. c4 {y} *\n\n[Event \"d\"]\n\n1. Nf3 {z\n[Event \"e\"]\n} *\n",
        /* byte-order marks, escape lines, a tag with text after it */
        "\xEF\xBB\xBF[Event \"a\"]\n\n1. e4 *\n\n%escape [Event \"no\"]\n[Event \"b\"] {c}\n\n1. d4 *\n"
        "\n\xEF\xBB\xBF[Event \"c\"]\n\n1. c4 *\n\n[Event \"d\"]\n\n1. Nf3 *\n",
    };
    for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) {
        for (size_t max = 0; max <= 40; max += 40) {   /* also with games too long to keep */
            size_t len = strlen(texts[t]);
            StrBuf want = SB_INIT;
            split_one_by_one(texts[t], len, max, &want);
            for (size_t bytes = 1; bytes <= len + 1; bytes++) {
                StrBuf got = SB_INIT;
                split_by_chunks(texts[t], len, bytes, max, &got);
                if (strcmp(sb_str(&got), sb_str(&want)) != 0)
                    fail_msg("text %zu, chunks of %zu bytes, limit %zu:\n%s\nwanted:\n%s", t, bytes, max,
                             sb_str(&got), sb_str(&want));
                sb_free(&got);
            }
            sb_free(&want);
        }
    }
}

/* A chunk taken after pgn_skip_game begins where the jump lands, on its
 * line (the reading thread goes back to chunks after jumping over games
 * that a sidecar index rules out). */
static void test_chunk_after_a_skipped_game(void **state)
{
    (void)state;
    static const char text[] = "[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 *\n\n"
                               "[Event \"c\"]\n\n1. c4 *\n\n[Event \"d\"]\n\n1. Nf3 *\n";
    StrBuf said = SB_INIT;
    DiagSink sink;
    diag_sink_init(&sink, split_capture, &said);
    PgnReader r;
    FILE *fp = open_text(&r, text, sizeof text - 1, 0, &sink);
    RawGame g;
    raw_game_init(&g);
    assert_true(pgn_next_raw(&r, &g));
    assert_int_equal(g.first_line, 1);
    /* game 2 (lines 5 to 7) counted as read, not read: the next is game 3 */
    const char *third = strstr(text, "[Event \"c\"]");
    pgn_skip_game(&r, (uint64_t)(third - text), 9);
    PgnChunk c;
    memset(&c, 0, sizeof c);
    assert_int_equal(pgn_take_chunk(&r, 1 << 16, &c), PGN_TAKE_CHUNK);
    assert_true(pgn_chunk_next(&c, &g, &sink));
    assert_int_equal(g.first_line, 9);
    assert_true(strncmp(g.text.data, "[Event \"c\"]", 11) == 0);
    assert_true(pgn_chunk_next(&c, &g, &sink));
    assert_int_equal(g.first_line, 13);
    assert_false(pgn_chunk_next(&c, &g, &sink));
    assert_int_equal(said.len, 0);
    pgn_chunk_free(&c);
    raw_game_free(&g);
    pgn_close(&r);
    fclose(fp);
    sb_free(&said);
}

/* Tag pairs of the usual form are taken by runs too (tag_line_usual); a
 * repeated name still starts a game, and lines of other forms (escapes, CR,
 * blanks, text after the pair) still count as lines of their own. */
static void test_runs_of_tag_lines(void **state)
{
    (void)state;
    Parsed *p = parse_text("[Event \"a\"]\n[Site \"s ]\"]\n[Round \"1\"]\n[Round \"2\"]\n"
                           "[White \"w \\\"x\\\"\"]\n[Black  \"b\"]  \n[Date \"d\"]\r\n"
                           "[Result \"*\"]\n\n1. e4 Nf9 *\n");
    assert_int_equal(p->count, 2);
    assert_int_equal(p->games[0].tag_count, 3);
    assert_string_equal(game_tag(&p->games[0], "Site"), "s ]");
    assert_string_equal(game_tag(&p->games[1], "Round"), "2");   /* repeated tag: new game */
    assert_string_equal(game_tag(&p->games[1], "White"), "w \"x\"");
    assert_string_equal(game_tag(&p->games[1], "Black"), "b");
    assert_string_equal(game_tag(&p->games[1], "Date"), "d");
    assert_string_equal(game_tag(&p->games[1], "Result"), "*");
    assert_string_equal(sb_str(&p->messages),
                        "t.pgn:10:7: game 2: unreadable move 'Nf9' at move 1 (black to play)\n");
    parsed_free(p);
}

/* The lines at a game's edges are taken in runs too (take_usual_lines):
 * blank lines and a first tag pair before a game, blank lines in a tag
 * section, the first movetext line, the line of the result. A result
 * inside a variation does not end the game; one followed by a tag section
 * on the same line ends it there; a movetext that is only a result is a
 * game without moves; messages keep their lines and columns. */
static void test_runs_at_game_edges(void **state)
{
    (void)state;
    Parsed *p = parse_text("\n\n[Event \"a\"]\n\n[Site \"s\"]\n\n1. e4 (1. d4\n"
                           "d5 1-0) e5 2. Nf3 Nc6\n3. Bb5 a6 1-0 [Event \"b \"x\"\"]\n\n1-0\n\n"
                           "[Event \"c\"]\n[Round \"1\"]\n\n1. e4 e5 2. Nf3 Nf9 *\n\n\n");
    assert_int_equal(p->count, 3);
    assert_string_equal(game_tag(&p->games[0], "Site"), "s");
    assert_int_equal(mainline_length(&p->games[0]), 6);
    assert_string_equal(p->games[0].result, "1-0");
    assert_string_equal(game_tag(&p->games[1], "Event"), "b \"x\"");
    assert_int_equal(mainline_length(&p->games[1]), 0);
    assert_string_equal(p->games[1].result, "1-0");
    assert_string_equal(game_tag(&p->games[2], "Round"), "1");
    assert_int_equal(mainline_length(&p->games[2]), 3);
    assert_string_equal(sb_str(&p->messages),
                        "t.pgn:8:4: game 1: game result '1-0' inside a variation\n"
                        "t.pgn:9:22: game 2: tag value of 'Event' has an unescaped '\"'\n"
                        "t.pgn:16:17: game 3: unreadable move 'Nf9' at move 2 (black to play)\n");
    parsed_free(p);
}

/* ---- reading through a gate ---------------------------------------------- */

/* A gate for one placement, pieces (a Piece code mask) on squares. */
static PgnGate placement_gate(unsigned pieces, Bitboard squares)
{
    PgnGate gate = {.nplacements = 1, .placements = {{(uint16_t)pieces, squares}}};
    return gate;
}

/* the Piece code of make_piece, as a constant */
#define PIECE_BIT(c, t) (1u << ((unsigned)(c) << 3 | (unsigned)(t)))

/* What the gates let through, over a whole file. */
typedef struct GateTally {
    long games, skipped, kept;
} GateTally;

/* Calls each(raw, path, ctx) for every game of every .pgn file under dir,
 * recursively. */
typedef void EachGame(const RawGame *raw, const char *path, void *ctx);

static void every_game_of(const char *path, EachGame *each, void *ctx)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    DiagSink quiet;
    StrBuf ignored = SB_INIT;
    diag_sink_init(&quiet, capture, &ignored);
    PgnReader r;
    pgn_open_stream(&r, fp, path, &quiet);
    RawGame raw;
    raw_game_init(&raw);
    while (pgn_next_raw(&r, &raw)) {
        each(&raw, path, ctx);
        sb_clear(&ignored);
    }
    raw_game_free(&raw);
    pgn_close(&r);
    fclose(fp);
    sb_free(&ignored);
}

static void every_game_under(const char *dir, EachGame *each, void *ctx)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        StrBuf path = SB_INIT;
        sb_printf(&path, "%s/%s", dir, e->d_name);
        size_t n = strlen(e->d_name);
        if (n > 4 && strcmp(e->d_name + n - 4, ".pgn") == 0) {
            every_game_of(sb_str(&path), each, ctx);
        } else {
            DIR *sub = opendir(sb_str(&path));
            if (sub) {
                closedir(sub);
                every_game_under(sb_str(&path), each, ctx);
            }
        }
        sb_free(&path);
    }
    closedir(d);
}

/* The gates of a test and what they let through. */
typedef struct GateRun {
    const PgnGate *gates;
    GateTally *tally;
    int ngates;
} GateRun;

/* A game through each gate and without: the same. */
static void gate_game(const RawGame *raw, const char *path, void *ctx)
{
    const GateRun *run = ctx;
    for (int i = 0; i < run->ngates; i++) {
        StrBuf why = SB_INIT;
        bool skipped;
        if (!gated_same_as_ungated(raw, &run->gates[i], &skipped, &why))
            fail_msg("%s, game %ld, gate %d: %s", path, raw->number, i, sb_str(&why));
        sb_free(&why);
        run->tally[i].games++;
        if (skipped) run->tally[i].skipped++;
        else run->tally[i].kept++;
    }
}

/* Every bundled game through the gates. */
static void gate_every_file_under(const char *dir, const PgnGate *gates, GateTally *tally, int ngates)
{
    GateRun run = {gates, tally, ngates};
    every_game_under(dir, gate_game, &run);
}

/* Games whose tags the splitter marked, and all games. */
typedef struct MarkTally {
    long games, marked;
} MarkTally;

/* A game read with the splitter's tag marks and without: the same status,
 * messages and tags. */
static void read_with_and_without_marks(const RawGame *raw, const char *path, void *ctx)
{
    MarkTally *tally = ctx;
    RawGame unmarked = *raw;   /* the same text, read-only */
    unmarked.tag_mark_count = 0;
    Arena with_arena, without_arena;
    arena_init(&with_arena, 64 * 1024);
    arena_init(&without_arena, 64 * 1024);
    StrBuf with_messages = SB_INIT, without_messages = SB_INIT;
    DiagSink with_sink, without_sink;
    diag_sink_init(&with_sink, capture, &with_messages);
    diag_sink_init(&without_sink, capture, &without_messages);
    Game a, b;
    PgnParseStatus sa = pgn_parse_game(raw, path, &with_arena, &a, &with_sink);
    PgnParseStatus sb = pgn_parse_game(&unmarked, path, &without_arena, &b, &without_sink);
    if (sa != sb || strcmp(sb_str(&with_messages), sb_str(&without_messages)) != 0 || !same_tags(&a, &b))
        fail_msg("%s, game %ld: read with the splitter's tag marks:\n%sand without:\n%s", path, raw->number,
                 sb_str(&with_messages), sb_str(&without_messages));
    tally->games++;
    if (raw->tag_mark_count) tally->marked++;
    sb_free(&with_messages);
    sb_free(&without_messages);
    arena_free(&with_arena);
    arena_free(&without_arena);
}

/* The tag pairs the splitter marks are read as they are without the marks,
 * in every bundled game, clean or broken. */
static void test_marked_tags_read_as_unmarked(void **state)
{
    (void)state;
    MarkTally tally = {0, 0};
    every_game_under("tests/data/pgn", read_with_and_without_marks, &tally);
    assert_true(tally.games > 10000);
    assert_true(tally.marked > tally.games / 2);
}

/* Every bundled game, clean or broken, gives through a gate the messages,
 * status and result it gives without, and the same tree unless the gate
 * shut it out: gates that shut out nearly every game, some games (the rest
 * read again with their tree), and by result. */
static void test_gated_games_read_as_ungated(void **state)
{
    (void)state;
    PgnGate gates[4] = {
        placement_gate(PIECE_BIT(WHITE, PAWN), rank_bb(0)),        /* a white pawn on the first rank */
        placement_gate(PIECE_BIT(WHITE, KING) | PIECE_BIT(BLACK, KING),
                       sq_bb(SQ_A1) | sq_bb(SQ_H8)),               /* a king in a corner */
        {.result = "1-0"},
        {.result = "0-1", .nplacements = 1, .placements = {{PIECE_BIT(BLACK, QUEEN), sq_bb(SQ_D1)}}},
    };
    GateTally tally[4] = {{0, 0, 0}};
    gate_every_file_under("tests/data/pgn", gates, tally, 4);
    for (int i = 0; i < 4; i++) {
        assert_true(tally[i].games > 10000);
        assert_true(tally[i].skipped > 0);   /* each gate shut some out ... */
        assert_true(tally[i].kept > 0);      /* ... and let some through */
    }
    assert_true(tally[0].skipped > tally[0].games * 9 / 10);
}

/* A gate's question about the tags: no 'c' in the Event tag. */
static bool refuses_events_with_c(void *ctx, const Game *g)
{
    (void)ctx;
    const char *event = game_tag(g, "Event");
    return !event || !strchr(event, 'c');
}

/* Every problem the reader reports in a movetext, through a gate that shuts
 * the games out (a white pawn on the first rank), one that lets most of
 * them through late (a black king on g8, after castling), and the same with
 * a question about the tags: the same messages, in the same order, as
 * without a gate. */
static void test_gated_problems_read_as_ungated(void **state)
{
    (void)state;
    static const char text[] =
        "[Event \"stray closers\"]\n\n1. e4 ] e5 } 2. Nf3 *\n\n"
        "[Event \"unclosed comment\"]\n\n1. e4 e5 2. Nf3 { never closed\n\n"
        "[Event \"bad NAG\"]\n\n1. e4 $999 e5 $1 2. Nf3 ! *\n\n"
        "[Event \"text\"]\n\n1. e4 e5 zz 2. Nf3 e.p. Nc6 *\n\n"
        "[Event \"result in a variation\"]\n\n1. e4 e5 (1... c5 1-0) 2. Nf3 *\n\n"
        "[Event \"closes nothing\"]\n\n1. e4 e5 ) 2. Nf3 *\n\n"
        "[Event \"before the first move\"]\n\n(1. d4) 1. e4 e5 *\n\n"
        "[Event \"bad move in a variation\"]\n\n1. e4 e5 (1... Ke7 2. Qh5 Kf9) 2. Nf3 *\n\n"
        "[Event \"ambiguous\"]\n\n1. Nf3 d5 2. Nc3 d4 3. Ne4 c5 4. Ng5 *\n\n"
        "[Event \"null move in check\"]\n\n1. e4 f5 2. Qh5+ -- *\n\n"
        "[Event \"castling, en passant, promotion\"]\n[FEN \"r3k2r/1P4p1/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1\"]\n\n"
        "1. exd6 O-O 2. bxa8=Q Rxa8 3. O-O Kh8 *\n\n"
        "[Event \"no result\"]\n\n1. e4 e5 2. Nf3\n\n"
        "[Event \"NUL\"]\n\n1. e4 e5 2. Nf3 \0 Nc6 *\n\n"
        "[Event \"castles\"]\n\n1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. O-O O-O 5. d3 d6 *\n\n"
        "[Event \"variation not closed\"]\n\n1. e4 e5 (1... c5 2. Nf3\n";
    PgnGate gates[3] = {
        placement_gate(PIECE_BIT(WHITE, PAWN), rank_bb(0)),
        placement_gate(PIECE_BIT(BLACK, KING), sq_bb(SQ_G8)),
        placement_gate(PIECE_BIT(BLACK, KING), sq_bb(SQ_G8)),
    };
    gates[2].admits = refuses_events_with_c;   /* and the tags: the placement no longer matters */
    FILE *fp = fmemopen((char *)(uintptr_t)text, sizeof text - 1, "rb");
    assert_non_null(fp);
    StrBuf ignored = SB_INIT;
    DiagSink quiet;
    diag_sink_init(&quiet, capture, &ignored);
    PgnReader r;
    pgn_open_stream(&r, fp, "t.pgn", &quiet);
    RawGame raw;
    raw_game_init(&raw);
    long games = 0, skipped_by[3] = {0, 0, 0};
    while (pgn_next_raw(&r, &raw)) {
        games++;
        for (int i = 0; i < 3; i++) {
            StrBuf why = SB_INIT;
            bool skipped;
            if (!gated_same_as_ungated(&raw, &gates[i], &skipped, &why))
                fail_msg("game %ld, gate %d: %s", raw.number, i, sb_str(&why));
            skipped_by[i] += skipped;
            sb_free(&why);
        }
    }
    assert_int_equal(games, 15);
    assert_int_equal(skipped_by[0], 15);
    assert_int_equal(skipped_by[1], 13);   /* two games castle: the black king reaches g8 */
    assert_int_equal(skipped_by[2], 15);   /* the two that castle have a 'c' in their Event */
    raw_game_free(&raw);
    pgn_close(&r);
    fclose(fp);
    sb_free(&ignored);
}

/* Which games a gate lets through: a placement reached in a variation or
 * by castling counts (variations go back as far as they should); one
 * reached after a bad move or in a variation dropped as bad does not (the
 * game ends there, the variation is skipped); one at the start lets the
 * game through at once; a Result tag of
 * another result shuts a game out whatever its positions, "*" does not. */
static void test_gate_lets_through_what_can_match(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *result;
        unsigned pieces;
        Square square;
        bool skipped;
        const char *messages;
    } cases[] = {
        {"[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n", NULL, PIECE_BIT(WHITE, KNIGHT), SQ_F3, false, ""},
        {"[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n", NULL, PIECE_BIT(WHITE, KNIGHT), SQ_E5, true, ""},
        {"[Result \"*\"]\n\n1. e4 e5 (1... d5 2. Nf3 (2. Nc3 Nf6)) 2. Nf3 *\n", NULL, PIECE_BIT(WHITE, KNIGHT),
         SQ_C3, false, ""},
        {"[Result \"*\"]\n\n1. e4 e5 (1... d5 2. Nf3 (2. Nc3 Nf6)) 2. Nf3 *\n", NULL, PIECE_BIT(BLACK, KNIGHT),
         SQ_F6, false, ""},
        {"[Result \"*\"]\n\n1. e4 e5 ( ( 1. d4 ) 1... d5 ) 2. Nf3 *\n", NULL, PIECE_BIT(WHITE, PAWN), SQ_D4,
         false, ""},
        {"[Result \"*\"]\n\n1. e4 ( ( 1. d4 ) ) e5 *\n", NULL, PIECE_BIT(WHITE, PAWN), SQ_D4, true,
         "t.pgn:3:9: game 1: variation before the first move\n"},
        {"[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O *\n", NULL, PIECE_BIT(WHITE, ROOK), SQ_F1,
         false, ""},
        {"[Result \"*\"]\n\n1. e4 e5 2. Qxf7 Nc6 3. Nf3 *\n", NULL, PIECE_BIT(WHITE, KNIGHT), SQ_F3, true,
         "t.pgn:3:13: game 1: illegal move 'Qxf7' at move 2 (white to play)\n"},
        {"[FEN \"4k3/8/8/8/8/8/8/K7 w - - 0 1\"]\n\n1. Kb1 Kd8 *\n", NULL, PIECE_BIT(WHITE, KING), SQ_A1, false,
         ""},
        {"[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n", "0-1", PIECE_BIT(WHITE, KNIGHT), SQ_F3, true, ""},
        {"[Result \"*\"]\n\n1. e4 e5 2. Nf3 1-0\n", "0-1", PIECE_BIT(WHITE, KNIGHT), SQ_F3, false, ""},
        {"[Result \"1-0\"]\n\n1. e4 e5 2. Nf3\n", "1-0", PIECE_BIT(WHITE, KNIGHT), SQ_E5, true,
         "t.pgn:3:16: game 1: game has no result (1-0, 0-1, 1/2-1/2 or *): truncated?\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        RawGame raw;
        raw_game_init(&raw);
        sb_append(&raw.text, cases[i].text);
        raw.first_line = raw.first_column = 1;
        raw.number = 1;
        PgnGate gate = placement_gate(cases[i].pieces, sq_bb(cases[i].square));
        gate.result = cases[i].result;
        StrBuf why = SB_INIT;
        bool skipped;
        if (!gated_same_as_ungated(&raw, &gate, &skipped, &why)) fail_msg("case %zu: %s", i, sb_str(&why));
        if (skipped != cases[i].skipped) fail_msg("case %zu: skipped %d, not %d", i, skipped, cases[i].skipped);
        /* and the messages are the ones expected */
        Arena a;
        arena_init(&a, 4096);
        StrBuf messages = SB_INIT;
        DiagSink sink;
        diag_sink_init(&sink, capture, &messages);
        Game g;
        pgn_parse_game_gated(&raw, "t.pgn", &a, &g, &sink, &gate);
        assert_string_equal(sb_str(&messages), cases[i].messages);
        sb_free(&messages);
        arena_free(&a);
        sb_free(&why);
        raw_game_free(&raw);
    }
}

static void test_oversized_game_is_skipped_and_reported(void **state)
{
    (void)state;
    StrBuf text = SB_INIT;
    sb_append(&text, "[Event \"a\"]\n\n1. e4 *\n[Event \"big\"]\n\n1. e4 {");
    for (int i = 0; i < 40; i++) sb_append(&text, "word ");
    sb_append(&text, "\n} e5 *\n[Event \"c\"]\n\n1. d4 {");
    for (int i = 0; i < 40; i++) sb_append(&text, "word ");
    sb_append(&text, "\n}\n\n[Event \"d\"]\n\n1. c4 *\n[Event \"e\"]\n{");
    for (int i = 0; i < 40; i++) sb_append(&text, "word ");
    Parsed *p = parse_bytes(text.data, text.len, 100);
    assert_int_equal(p->count, 5);
    assert_int_equal(p->status[0], PGN_OK);
    assert_int_equal(p->status[1], PGN_UNUSABLE);
    assert_int_equal(p->status[2], PGN_UNUSABLE);
    assert_int_equal(p->status[3], PGN_OK);
    assert_int_equal(p->status[4], PGN_UNUSABLE);
    assert_string_equal(game_tag(&p->games[3], "Event"), "d");
    assert_string_equal(sb_str(&p->messages),
                        "t.pgn:4:1: game 2: game text is longer than the limit (-maxgamesize 100); "
                        "skipped it, up to line 7\n"
                        "t.pgn:8:1: game 3: game text is longer than the limit (-maxgamesize 100); "
                        "skipped it, up to line 12\n"
                        "t.pgn:16:1: game 5: game text is longer than the limit (-maxgamesize 100); "
                        "skipped it, up to the end of the input\n");
    parsed_free(p);
    sb_free(&text);
}

/* ---- writing ----------------------------------------------------------------- */

static void test_writer_export_format(void **state)
{
    (void)state;
    Parsed *p = parse_text("[White \"W\"]\n[ECO \"C20\"]\n[Event \"E\"]\n\n"
                           "{start} 1. e4 $1 {good} e5 (1... c5 {sicilian} 2. Nf3) 2. Nf3 Nc6 1-0\n");
    StrBuf out = SB_INIT;
    const char *notes[16] = {0};
    notes[0] = "Game number 1";
    notes[2] = "CQL";
    PgnAnnotations ann = {.node_comments = notes};
    pgn_write_game(&p->games[0], &ann, &out);
    assert_string_equal(sb_str(&out),
                        "[Event \"E\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n"
                        "[White \"W\"]\n[Black \"?\"]\n[Result \"1-0\"]\n[ECO \"C20\"]\n\n"
                        "{start Game number 1} 1. e4 $1 {good} 1... e5 {CQL} (1... c5 {sicilian} 2. Nf3)\n"
                        "2. Nf3 Nc6 1-0\n\n");
    sb_free(&out);
    parsed_free(p);
}

/* Tags read from lines of the usual form, the Seven Tag Roster first and in
 * order, are written as they were read (Game.tag_lines); out of order, with
 * a tag of another form, or with tags the driver sets, they are written
 * the usual way: the same output either way. */
static void test_writer_tags_as_read(void **state)
{
    (void)state;
    static const char roster[] =
        "[Event \"E\"]\n[Site \"S\"]\n[Date \"2024.01.02\"]\n[Round \"3\"]\n"
        "[White \"W\"]\n[Black \"B\"]\n[Result \"1-0\"]\n";
    StrBuf text = SB_INIT, want = SB_INIT, out = SB_INIT;

    /* as read: the roster, then the others in their order (after a first
     * game: the reader's first line of a file is not looked at in runs) */
    sb_printf(&text, "[Event \"first\"]\n\n1. d4 *\n\n%s[ECO \"C20\"]\n[Opening \"King's pawn\"]\n\n1. e4 e5 1-0\n", roster);
    Parsed *p = parse_text(sb_str(&text));
    assert_non_null(p->games[1].tag_lines);
    assert_string_equal(game_tag(&p->games[1], "Opening"), "King's pawn");   /* names, values ended */
    pgn_write_game(&p->games[1], NULL, &out);
    sb_printf(&want, "%s[ECO \"C20\"]\n[Opening \"King's pawn\"]\n\n1. e4 e5 1-0\n\n", roster);
    assert_string_equal(sb_str(&out), sb_str(&want));

    /* the driver's tags: one replaced, one added */
    Tag set[2] = {{"Event", "Mates", true, 5}, {"Mover", "3", true, 1}};
    PgnAnnotations ann = {.tags = set, .ntags = 2};
    sb_clear(&out);
    pgn_write_game(&p->games[1], &ann, &out);
    assert_string_equal(sb_str(&out), "[Event \"Mates\"]\n[Site \"S\"]\n[Date \"2024.01.02\"]\n[Round \"3\"]\n"
                                      "[White \"W\"]\n[Black \"B\"]\n[Result \"1-0\"]\n[ECO \"C20\"]\n"
                                      "[Opening \"King's pawn\"]\n[Mover \"3\"]\n\n1. e4 e5 1-0\n\n");
    parsed_free(p);

    /* the roster out of order, and a tag of another form after it */
    p = parse_text("[Event \"first\"]\n\n1. d4 *\n\n[Site \"S\"]\n[Event \"E\"]\n[Date \"2024.01.02\"]\n[Round \"3\"]\n[White \"W\"]\n"
                   "[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n"
                   "[Event \"E\"]\n[Site \"S\"]\n[Date \"2024.01.02\"]\n[Round \"3\"]\n[White \"W\"]\n"
                   "[Black \"B\"]\n[Result \"1-0\"]\n[Annotator  \"A\"]\n\n1. e4 e5 1-0\n");
    assert_int_equal(p->count, 3);
    assert_null(p->games[2].tag_lines);
    sb_clear(&want);
    sb_printf(&want, "%s\n1. e4 e5 1-0\n\n", roster);
    sb_clear(&out);
    pgn_write_game(&p->games[1], NULL, &out);
    assert_string_equal(sb_str(&out), sb_str(&want));
    sb_clear(&want);
    sb_printf(&want, "%s[Annotator \"A\"]\n\n1. e4 e5 1-0\n\n", roster);
    sb_clear(&out);
    pgn_write_game(&p->games[2], NULL, &out);
    assert_string_equal(sb_str(&out), sb_str(&want));
    parsed_free(p);
    sb_free(&text);
    sb_free(&want);
    sb_free(&out);
}

/* A one-word note is one atom "{word}", whatever its length up to 30 bytes
 * (a vertical tab does not end the word there); longer, or of several
 * words, it is a comment like the input's. */
static void test_writer_notes_after_moves(void **state)
{
    (void)state;
    Parsed *p = parse_text("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 *\n");
    StrBuf out = SB_INIT;
    const char *notes[16] = {0};
    notes[1] = "CQL";
    notes[2] = "abcdefghijklmn";
    notes[3] = "abcdefghij\vklmnopqrs";
    notes[4] = "abcdefghijklmnopqrstuvwxyz0123";
    notes[5] = "abcdefghijklmnopqrstuvwxyz01234";
    notes[6] = "two\vwords CQL";
    notes[7] = notes[1];
    PgnAnnotations ann = {.node_comments = notes};
    pgn_write_game(&p->games[0], &ann, &out);
    assert_string_equal(sb_str(&out),
                        "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n"
                        "[White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n\n"
                        "1. e4 {CQL} 1... e5 {abcdefghijklmn} 2. Nf3 {abcdefghij\vklmnopqrs} 2... Nc6\n"
                        "{abcdefghijklmnopqrstuvwxyz0123} 3. Bb5 {abcdefghijklmnopqrstuvwxyz01234}\n"
                        "3... a6 {two words CQL} 4. Ba4 {CQL} *\n\n");
    sb_free(&out);
    parsed_free(p);
}

static void test_writer_wraps_without_splitting_numbers(void **state)
{
    (void)state;
    Parsed *p = parse_text("1. d4 Nf6 2. c4 e6 3. Nf3 d5 4. Nc3 Be7 5. Bg5 h6 6. Bxf6 Bxf6 7. e3 O-O "
                           "8. Rc1 c6 9. Bd3 Nd7 10. O-O dxc4 11. Bxc4 b5 12. Bb3 Bb7 *\n");
    StrBuf out = SB_INIT;
    pgn_write_game(&p->games[0], NULL, &out);
    const char *moves = strstr(sb_str(&out), "\n\n") + 2;
    for (const char *line = moves; *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = (size_t)(eol - line);
        assert_true(len <= PGN_LINE_WIDTH);
        if (len > 0) assert_true(line[len - 1] != '.');       /* number not split from move */
        line = eol + 1;
    }
    sb_free(&out);
    parsed_free(p);
}

/* Read -> write -> read gives the same tree. */
static void assert_same_tree(const GameNode *a, const GameNode *b)
{
    for (; a || b; a = a->sibling, b = b->sibling) {
        assert_non_null(a);
        assert_non_null(b);
        assert_int_equal(a->move, b->move);
        assert_int_equal(a->nag_count, b->nag_count);
        if (a->nag_count) assert_memory_equal(a->nags, b->nags, a->nag_count);
        const Comment *ca = a->comments, *cb = b->comments;
        for (; ca || cb; ca = ca->next, cb = cb->next) {
            assert_non_null(ca);
            assert_non_null(cb);
            assert_string_equal(ca->text, cb->text);
        }
        assert_same_tree(a->child, b->child);
    }
}

static void test_round_trip(void **state)
{
    (void)state;
    const char *text = "[Event \"E\"]\n[FEN \"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\"]\n\n"
                       "{c0} 1. O-O {a b  c} (1. O-O-O $2 O-O (1... Kf7) 2. Rd7) 1... O-O-O $14 "
                       "2. Ra8+ Kb7 {x} 3. Rxd8 Rxh1+ *\n";
    Parsed *p = parse_text(text);
    StrBuf out = SB_INIT;
    pgn_write_game(&p->games[0], NULL, &out);
    assert_int_equal(p->status[0], PGN_OK);
    Parsed *q = parse_text(sb_str(&out));
    assert_int_equal(q->count, 1);
    assert_int_equal(q->status[0], PGN_OK);
    assert_string_equal(q->games[0].root->comments->text, "c0");
    assert_same_tree(p->games[0].root, q->games[0].root);
    sb_free(&out);
    parsed_free(q);
    parsed_free(p);
}

/* Writes game 0 of p and reads it back: the trees must be the same. */
static Parsed *write_and_read_back(Parsed *p, StrBuf *out)
{
    sb_clear(out);
    pgn_write_game(&p->games[0], NULL, out);
    Parsed *q = parse_text(sb_str(out));
    assert_int_equal(q->count, 1);
    assert_string_equal(sb_str(&q->messages), "");
    assert_same_tree(p->games[0].root, q->games[0].root);
    return q;
}

static void test_writer_comments_read_back_the_same(void **state)
{
    (void)state;
    StrBuf out = SB_INIT;
    /* '{' means nothing inside a brace comment: written as it is */
    Parsed *p = parse_text("{x { y} 1. e4 {a { b} (1. d4 {{}) *\n");
    assert_string_equal(p->games[0].root->child->comments->text, "a { b");
    Parsed *q = write_and_read_back(p, &out);
    assert_non_null(strstr(sb_str(&out), "{x { y} 1. e4 {a { b} (1. d4 {{}) *"));
    assert_string_equal(q->games[0].root->comments->text, "x { y");
    parsed_free(q);
    parsed_free(p);

    /* a comment holding '}' (a ';' comment in the input) becomes a ';'
     * comment that ends its line, in a variation too */
    p = parse_text("1. e4 ; a } b\n(1. d4 ; c}\n) 1... e5 *\n");
    assert_string_equal(p->games[0].root->child->comments->text, "a } b");
    q = write_and_read_back(p, &out);
    assert_non_null(strstr(sb_str(&out), "1. e4 ;a } b\n(1. d4 ;c}\n) 1... e5 *\n"));
    parsed_free(q);
    parsed_free(p);

    /* comment words starting with '%' or '[' never start a line: such a
     * line would read as an escape line or a tag pair */
    StrBuf text = SB_INIT;
    sb_append(&text, "1. e4 {");
    for (int i = 0; i < 12; i++) sb_append(&text, "word %escape [Event \"x\"] ");
    sb_append(&text, "} *\n");
    p = parse_text(sb_str(&text));
    q = write_and_read_back(p, &out);
    assert_null(strstr(sb_str(&out), "\n%"));
    assert_null(strstr(sb_str(&out), "\n["  "Event \"x\"]"));
    parsed_free(q);
    parsed_free(p);
    sb_free(&text);
    sb_free(&out);
}

int main(void)
{
    att_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tags_and_escapes),
        cmocka_unit_test(test_movetext_forms),
        cmocka_unit_test(test_variations_nested),
        cmocka_unit_test(test_setup_fen_and_bom),
        cmocka_unit_test(test_games_without_tags_and_tags_without_moves),
        cmocka_unit_test(test_piece_identity_follows_pieces),
        cmocka_unit_test(test_illegal_move_is_reported_and_next_game_read),
        cmocka_unit_test(test_ambiguous_and_unreadable_moves),
        cmocka_unit_test(test_bad_move_in_variation_ends_the_game),
        cmocka_unit_test(test_truncated_and_unclosed),
        cmocka_unit_test(test_tag_pairs_inside_comments),
        cmocka_unit_test(test_comment_first_game_without_result),
        cmocka_unit_test(test_stray_closing_brace),
        cmocka_unit_test(test_bad_tags),
        cmocka_unit_test(test_bad_fen_and_variant_skip_game),
        cmocka_unit_test(test_junk_between_games_is_skipped),
        cmocka_unit_test(test_cr_only_line_ends),
        cmocka_unit_test(test_line_end_across_reads),
        cmocka_unit_test(test_byte_order_mark_mid_file),
        cmocka_unit_test(test_nul_bytes_are_reported_and_read_as_spaces),
        cmocka_unit_test(test_nul_bytes_between_games_are_junk),
        cmocka_unit_test(test_lines_longer_than_a_piece),
        cmocka_unit_test(test_runs_of_plain_movetext_lines),
        cmocka_unit_test(test_runs_of_tag_lines),
        cmocka_unit_test(test_runs_at_game_edges),
        cmocka_unit_test(test_marked_tags_read_as_unmarked),
        cmocka_unit_test(test_chunks_split_as_one_by_one),
        cmocka_unit_test(test_chunk_after_a_skipped_game),
        cmocka_unit_test(test_oversized_game_is_skipped_and_reported),
        cmocka_unit_test(test_gated_games_read_as_ungated),
        cmocka_unit_test(test_gated_problems_read_as_ungated),
        cmocka_unit_test(test_gate_lets_through_what_can_match),
        cmocka_unit_test(test_writer_export_format),
        cmocka_unit_test(test_writer_tags_as_read),
        cmocka_unit_test(test_writer_notes_after_moves),
        cmocka_unit_test(test_writer_wraps_without_splitting_numbers),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_writer_comments_read_back_the_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
