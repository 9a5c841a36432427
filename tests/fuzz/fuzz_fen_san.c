/*
 * tests/fuzz/fuzz_fen_san.c — fuzz harness of FEN and SAN.
 *
 * The input's first line is a FEN; the rest is a list of move tokens
 * separated by white space. The harness
 *   - reads the FEN (pos_from_fen). When it is accepted, the position must
 *     be consistent (pos_is_ok) and its FEN written back must read as the
 *     same position and write the same text again; when it is refused, the
 *     error must name a field, a column inside the text and a reason.
 *     A refused FEN leaves the start position.
 *   - checks the moves of the position: every legal move written in SAN,
 *     and in UCI coordinates, parses back to the same move; the legal moves
 *     are the pseudo-legal moves mg_is_legal accepts; mate and stalemate
 *     agree with the move list.
 *   - reads each token as a move (san_read, san_resolve, san_parse must
 *     agree); a move read must be one of the legal moves, and is played,
 *     after which the same checks run on the new position.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_support.h"
#include "chess/movegen.h"
#include "chess/position.h"
#include "chess/san.h"

const char *const fuzz_harness_name = "fuzz_fen_san";

enum { MAX_TOKENS = 64 };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init_library();
    return 0;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* The FEN of pos reads back as the same position, and writes the same text.
 * (Not the chess960 flag: KQkq for rooks on the corner squares drops the
 * "rights given as files" reason, and nothing reads the flag.) */
static void check_fen_round_trip(const Position *pos, const char *given)
{
    if (!pos_is_ok(pos)) fuzz_fail("an accepted FEN gives an inconsistent position", "FEN: %s", given);
    char fen[FEN_MAX], again[FEN_MAX];
    size_t len = pos_to_fen(pos, fen);
    if (len != strlen(fen) || len >= FEN_MAX)
        fuzz_fail("pos_to_fen returns a wrong length", "FEN given: %s\nwritten: %s", given, fen);
    Position back;
    FenError err;
    if (pos_from_fen(&back, fen, &err) != 0)
        fuzz_fail("a FEN written by pos_to_fen is refused",
                  "FEN given: %s\nwritten: %s\nrefused: field %d, column %d: %s", given, fen,
                  err.field, err.column, err.message);
    pos_to_fen(&back, again);
    if (!pos_same(pos, &back) || pos_key(pos) != pos_key(&back) || pos->halfmove != back.halfmove ||
        pos->fullmove != back.fullmove ||
        strcmp(fen, again) != 0)
        fuzz_fail("a FEN written by pos_to_fen reads as another position",
                  "FEN given: %s\nwritten: %s\nwritten again: %s", given, fen, again);
}

static void check_fen_error(const FenError *err, const char *given)
{
    size_t len = strlen(given);
    if (err->field < 1 || err->field > 6 || err->column < 1 || (size_t)err->column > len + 1 ||
        !memchr(err->message, '\0', sizeof err->message) || !err->message[0])
        fuzz_fail("a refused FEN has a bad error report",
                  "FEN: %s\nfield %d, column %d, message \"%.*s\"", given, err->field, err->column,
                  (int)sizeof err->message, err->message);
}

static bool in_list(const MoveList *list, Move m)
{
    for (int i = 0; i < list->count; i++)
        if (list->moves[i] == m) return true;
    return false;
}

static void describe(const Position *pos, char fen[FEN_MAX])
{
    pos_to_fen(pos, fen);
}

/* The legal moves of pos, and each one written and read back. */
static void check_moves(const Position *pos, MoveList *legal)
{
    char fen[FEN_MAX];
    mg_legal(pos, legal);
    MoveList pseudo;
    mg_pseudo_legal(pos, &pseudo);
    int legal_seen = 0;
    for (int i = 0; i < pseudo.count; i++) {
        Move m = pseudo.moves[i];
        bool is_legal = mg_is_legal(pos, m);
        if (is_legal != in_list(legal, m)) {
            describe(pos, fen);
            fuzz_fail("mg_is_legal and mg_legal disagree", "FEN %s, move %#x: mg_is_legal says %s",
                      fen, (unsigned)m, is_legal ? "legal" : "illegal");
        }
        legal_seen += is_legal;
    }
    bool in_check = pos_in_check(pos);
    if (legal_seen != legal->count || mg_has_legal_move(pos) != (legal->count > 0) ||
        mg_is_mate(pos) != (legal->count == 0 && in_check) ||
        mg_is_stalemate(pos) != (legal->count == 0 && !in_check)) {
        describe(pos, fen);
        fuzz_fail("the move generator disagrees with itself",
                  "FEN %s: %d legal moves, %d pseudo-legal ones pass mg_is_legal", fen,
                  legal->count, legal_seen);
    }
    for (int i = 0; i < legal->count; i++) {
        Move m = legal->moves[i], back;
        char san[SAN_MAX], uci[8];
        size_t n = san_write(pos, m, san);
        SanStatus st = san_parse(pos, san, n, &back);
        if (n == 0 || n >= SAN_MAX || st != SAN_OK || back != m) {
            describe(pos, fen);
            fuzz_fail("a move written in SAN does not read back", "FEN %s, move %#x written '%s', "
                      "read back with status %d as %#x", fen, (unsigned)m, san, (int)st,
                      (unsigned)back);
        }
        /* castling in UCI is the king's two squares, read back as castling
         * only when the king moves two files (see san.h) */
        int king_files = (int)(move_to(m) & 7) - (int)(move_from(m) & 7);
        if (move_is_castle(m) && king_files != 2 && king_files != -2) continue;
        n = san_move_uci(m, uci);
        st = san_parse(pos, uci, n, &back);
        if (st != SAN_OK || back != m) {
            describe(pos, fen);
            fuzz_fail("a move written in UCI does not read back", "FEN %s, move %#x written '%s', "
                      "read back with status %d as %#x", fen, (unsigned)m, uci, (int)st,
                      (unsigned)back);
        }
    }
}

/* Reads one token as a move in pos; plays it when it is one. */
static void play_token(Position *pos, const MoveList *legal, const char *tok, size_t len)
{
    char fen[FEN_MAX];
    SanMove sm;
    Move by_parts = MOVE_NONE, at_once = MOVE_NONE;
    SanStatus st = san_read(tok, len, &sm);
    if (st == SAN_OK) st = san_resolve(pos, &sm, &by_parts);
    SanStatus st2 = san_parse(pos, tok, len, &at_once);
    if (st != st2 || (st == SAN_OK && by_parts != at_once)) {
        describe(pos, fen);
        fuzz_fail("san_parse and san_read + san_resolve disagree",
                  "FEN %s, token '%.*s': %d/%#x against %d/%#x", fen, (int)len, tok, (int)st,
                  (unsigned)by_parts, (int)st2, (unsigned)at_once);
    }
    if (st != SAN_OK) return;
    bool null_ok = at_once == MOVE_NULL && !pos_in_check(pos);
    if (!in_list(legal, at_once) && !null_ok) {
        describe(pos, fen);
        fuzz_fail("a move read is not legal", "FEN %s, token '%.*s' read as %#x", fen, (int)len,
                  tok, (unsigned)at_once);
    }
    pos_make_move(pos, at_once);
    if (!pos_is_ok(pos)) {
        describe(pos, fen);
        fuzz_fail("a move read leaves an inconsistent position", "after '%.*s': %s", (int)len,
                  tok, fen);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_init_library();
    char *text = fuzz_strndup(data, size);
    size_t line_end = 0;
    while (line_end < size && text[line_end] != '\n') line_end++;
    char *fen = fuzz_strndup(data, line_end);

    Position pos;
    FenError err;
    memset(&err, 0, sizeof err);
    if (pos_from_fen(&pos, fen, &err) == 0) {
        check_fen_round_trip(&pos, fen);
    } else {
        check_fen_error(&err, fen);
        pos_start(&pos);
    }

    MoveList legal;
    check_moves(&pos, &legal);
    int tokens = 0;
    for (size_t i = line_end; i < size && tokens < MAX_TOKENS;) {
        while (i < size && is_space(text[i])) i++;
        size_t start = i;
        while (i < size && !is_space(text[i])) i++;
        if (i == start) break;
        tokens++;
        Position before = pos;
        play_token(&pos, &legal, text + start, i - start);
        if (!pos_same(&before, &pos)) check_moves(&pos, &legal);
    }
    free(fen);
    free(text);
    return 0;
}
