/*
 * src/chess/position.c — a chess position: FEN in and out, make move, invariants.
 *
 * Owns the Position value (see src/chess/position.h): FEN parsing with a
 * FenError naming field and column for every refusal, FEN writing,
 * pos_make_move (castling in standard chess and Chess960, en passant,
 * promotion, counters, castling rights) and the incrementally updated
 * Zobrist key. The keys are a fixed table (section "Zobrist keys" at the
 * end), so positions hash identically in every run and every thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "chess/position.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "chess/attacks.h"

const char *const POS_START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/* Defined at the end of the file. */
static const uint64_t ZOBRIST_PIECE_SQUARE[PIECE_NB][SQ_NB];
static const uint64_t ZOBRIST_CASTLE[COLOR_NB][8];
static const uint64_t ZOBRIST_EP_FILE[8];
static const uint64_t ZOBRIST_BLACK_TO_MOVE;

/* ====================================================================
 * Board edits: every change to the pieces goes through these three, which
 * keep board[], the bitboards and the key in step.
 * ==================================================================== */

static uint64_t zobrist_piece(Piece p, Square s)
{
    assert(p != NO_PIECE && type_of(p) <= KING);
    return ZOBRIST_PIECE_SQUARE[p][s];
}

/* Castling rights hash by colour and rook file: a colour's rights always
 * have distinct files. */
static uint64_t zobrist_castle(Color c, Square rook)
{
    return ZOBRIST_CASTLE[c][file_of(rook)];
}

static void put_piece(Position *pos, Piece p, Square s)
{
    assert(pos->board[s] == NO_PIECE && p != NO_PIECE);
    Bitboard b = sq_bb(s);
    pos->board[s] = (uint8_t)p;
    pos->by_type[0] |= b;
    pos->by_type[type_of(p)] |= b;
    pos->by_color[color_of(p)] |= b;
    pos->key ^= zobrist_piece(p, s);
}

static void remove_piece(Position *pos, Square s)
{
    Piece p = (Piece)pos->board[s];
    assert(p != NO_PIECE);
    Bitboard b = sq_bb(s);
    pos->board[s] = NO_PIECE;
    pos->by_type[0] ^= b;
    pos->by_type[type_of(p)] ^= b;
    pos->by_color[color_of(p)] ^= b;
    pos->key ^= zobrist_piece(p, s);
}

static void move_piece(Position *pos, Square from, Square to)
{
    Piece p = (Piece)pos->board[from];
    assert(p != NO_PIECE && pos->board[to] == NO_PIECE);
    Bitboard b = sq_bb(from) | sq_bb(to);
    pos->board[from] = NO_PIECE;
    pos->board[to] = (uint8_t)p;
    pos->by_type[0] ^= b;
    pos->by_type[type_of(p)] ^= b;
    pos->by_color[color_of(p)] ^= b;
    pos->key ^= zobrist_piece(p, from) ^ zobrist_piece(p, to);
}

/* Removes c's castling right on `wing`, if it has one; returns the change
 * the caller must make to the key (pos->key itself is left alone, so the
 * hot path of pos_make_move can keep the key in a local). */
static uint64_t drop_castle_right(Position *pos, Color c, int wing)
{
    Square rook = pos->castle_rook[c][wing];
    if (rook == SQ_NONE) return 0;
    pos->castle_rook[c][wing] = SQ_NONE;
    return zobrist_castle(c, rook);
}

static void clear_ep(Position *pos)
{
    if (pos->ep == SQ_NONE) return;
    pos->key ^= ZOBRIST_EP_FILE[file_of(pos->ep)];
    pos->ep = SQ_NONE;
}

/* The key computed from scratch (for FEN input and pos_is_ok). */
static uint64_t full_key(const Position *pos)
{
    uint64_t key = pos->side == BLACK ? ZOBRIST_BLACK_TO_MOVE : 0;
    for (Bitboard b = pos->by_type[0]; b; ) {
        Square s = bb_pop_lsb(&b);
        key ^= zobrist_piece((Piece)pos->board[s], s);
    }
    for (int c = WHITE; c <= BLACK; c++)
        for (int wing = CASTLE_SHORT; wing <= CASTLE_LONG; wing++)
            if (pos->castle_rook[c][wing] != SQ_NONE)
                key ^= zobrist_castle((Color)c, pos->castle_rook[c][wing]);
    if (pos->ep != SQ_NONE) key ^= ZOBRIST_EP_FILE[file_of(pos->ep)];
    return key;
}

static void clear_position(Position *pos)
{
    memset(pos, 0, sizeof *pos);
    memset(pos->castle_rook, SQ_NONE, sizeof pos->castle_rook);
    pos->ep = SQ_NONE;
    pos->fullmove = 1;
}

/* ====================================================================
 * Attacks and checks
 * ==================================================================== */

Bitboard pos_attackers_to(const Position *pos, Square s, Bitboard occ)
{
    Bitboard diagonal = pos->by_type[BISHOP] | pos->by_type[QUEEN];
    Bitboard straight = pos->by_type[ROOK] | pos->by_type[QUEEN];
    return (att_pawn(BLACK, s) & pos_pieces(pos, WHITE, PAWN))
         | (att_pawn(WHITE, s) & pos_pieces(pos, BLACK, PAWN))
         | (att_knight(s) & pos->by_type[KNIGHT])
         | (att_king(s) & pos->by_type[KING])
         | (att_bishop(s, occ) & diagonal)
         | (att_rook(s, occ) & straight);
}

Bitboard pos_checkers(const Position *pos)
{
    Color us = (Color)pos->side;
    return pos_attackers_to(pos, pos_king(pos, us), pos_occupied(pos))
         & pos->by_color[other_color(us)];
}

/* Cheaper than pos_checkers: leapers by table, then only the sliders that
 * stand on a line with the king (usually none) are tested for blockers. */
bool pos_in_check(const Position *pos)
{
    Color us = (Color)pos->side;
    Square king = pos_king(pos, us);
    Bitboard enemy = pos->by_color[other_color(us)];
    if (((att_knight(king) & pos->by_type[KNIGHT]) | (att_pawn(us, king) & pos->by_type[PAWN])) & enemy)
        return true;
    Bitboard queens = pos->by_type[QUEEN];
    Bitboard snipers = ((att_bishop_empty(king) & (pos->by_type[BISHOP] | queens))
                        | (att_rook_empty(king) & (pos->by_type[ROOK] | queens))) & enemy;
    Bitboard occupied = pos_occupied(pos);
    while (snipers)
        if (!(att_between(king, bb_pop_lsb(&snipers)) & occupied)) return true;
    return false;
}

/* The king of colour c is attacked (c need not be the side to move). */
static bool king_attacked(const Position *pos, Color c)
{
    return (pos_attackers_to(pos, pos_king(pos, c), pos_occupied(pos))
            & pos->by_color[other_color(c)]) != 0;
}

/* ====================================================================
 * FEN input
 * ==================================================================== */

enum { FEN_MIN_FIELDS = 4, FEN_MAX_FIELDS = 6, COUNTER_MAX = 65535 };

typedef struct FenField {
    const char *text;
    int len;
    int column;        /* 1-based column of text[0] in the FEN */
} FenField;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int fen_fail(FenError *err, int field, int column, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->field = field;
        err->column = column;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* A character as a message shows it: 'x', or \xNN when unprintable. */
static const char *shown_char(char c, char out[8])
{
    unsigned char u = (unsigned char)c;
    if (u >= 0x20 && u < 0x7F) snprintf(out, 8, "'%c'", c);
    else snprintf(out, 8, "\\x%02X", u);
    return out;
}

static const char *const COLOR_NAMES[COLOR_NB] = {"white", "black"};

/* Field 1: the piece placement, rank 8 first. */
static int parse_board(Position *pos, FenField f, FenError *err)
{
    int rank = 7, file = 0;
    int king_count[COLOR_NB] = {0, 0};
    char shown[8];

    for (int i = 0; i < f.len; i++) {
        char c = f.text[i];
        int column = f.column + i;
        if (c == '/') {
            if (file != 8)
                return fen_fail(err, 1, column, "rank %d has %d squares, not 8", rank + 1, file);
            if (--rank < 0) return fen_fail(err, 1, column, "more than 8 ranks");
            file = 0;
        } else if (c >= '1' && c <= '8') {
            file += c - '0';
            if (file > 8)
                return fen_fail(err, 1, column, "rank %d has more than 8 squares", rank + 1);
        } else {
            Piece p = piece_from_char(c);
            if (p == NO_PIECE)
                return fen_fail(err, 1, column, "bad piece letter %s", shown_char(c, shown));
            if (file >= 8)
                return fen_fail(err, 1, column, "rank %d has more than 8 squares", rank + 1);
            if (type_of(p) == PAWN && (rank == 0 || rank == 7))
                return fen_fail(err, 1, column, "%s pawn on rank %d", COLOR_NAMES[color_of(p)],
                                rank + 1);
            if (type_of(p) == KING && ++king_count[color_of(p)] > 1)
                return fen_fail(err, 1, column, "%s has more than one king",
                                COLOR_NAMES[color_of(p)]);
            put_piece(pos, p, make_square(file, rank));
            file++;
        }
    }
    int end = f.column + f.len;
    if (rank > 0) return fen_fail(err, 1, end, "only %d ranks, not 8", 8 - rank);
    if (file != 8) return fen_fail(err, 1, end, "rank 1 has %d squares, not 8", file);
    for (int c = WHITE; c <= BLACK; c++)
        if (king_count[c] == 0) return fen_fail(err, 1, f.column, "%s has no king", COLOR_NAMES[c]);
    return 0;
}

/* Field 2: "w" or "b". */
static int parse_side(Position *pos, FenField f, FenError *err)
{
    if (f.len == 1 && (f.text[0] == 'w' || f.text[0] == 'b')) {
        pos->side = f.text[0] == 'w' ? WHITE : BLACK;
        return 0;
    }
    return fen_fail(err, 2, f.column, "side to move must be 'w' or 'b', not '%.*s'", f.len, f.text);
}

/* Field 3: "-", KQkq (X-FEN: the outermost rook on that wing), or Shredder
 * rook files HAha. Sets chess960 when the rights are not the standard ones. */
static int parse_castling(Position *pos, FenField f, FenError *err)
{
    static const char *const WING_NAMES[2] = {"h-side", "a-side"};
    bool files_used = false;
    char shown[8];

    if (f.len == 1 && f.text[0] == '-') return 0;
    for (int i = 0; i < f.len; i++) {
        char c = f.text[i];
        int column = f.column + i;
        Color color = (c >= 'a' && c <= 'z') ? BLACK : WHITE;
        char upper = color == BLACK ? (char)(c - 'a' + 'A') : c;
        int back_rank = color == WHITE ? 0 : 7;
        Square king = pos_king(pos, color);
        Bitboard rooks = pos_pieces(pos, color, ROOK) & rank_bb(back_rank);
        Square rook;
        int wing;

        if (upper != 'K' && upper != 'Q' && (upper < 'A' || upper > 'H'))
            return fen_fail(err, 3, column, "bad castling letter %s", shown_char(c, shown));
        if (rank_of(king) != back_rank)
            return fen_fail(err, 3, column, "castling right '%c' but the %s king is not on rank %d",
                            c, COLOR_NAMES[color], back_rank + 1);
        if (upper == 'K' || upper == 'Q') {
            wing = upper == 'K' ? CASTLE_SHORT : CASTLE_LONG;
            Bitboard side_squares = wing == CASTLE_SHORT ? ~(sq_bb(king) * 2 - 1) : sq_bb(king) - 1;
            if (!(rooks & side_squares))
                return fen_fail(err, 3, column, "castling right '%c' but no %s rook on the %s of the king",
                                c, COLOR_NAMES[color], WING_NAMES[wing]);
            rook = wing == CASTLE_SHORT ? bb_msb(rooks & side_squares) : bb_lsb(rooks & side_squares);
        } else {
            rook = make_square(upper - 'A', back_rank);
            if (!(rooks & sq_bb(rook)) || rook == king)
                return fen_fail(err, 3, column, "castling right '%c' but no %s rook on %c%d",
                                c, COLOR_NAMES[color], upper - 'A' + 'a', back_rank + 1);
            wing = rook > king ? CASTLE_SHORT : CASTLE_LONG;
            files_used = true;
        }
        if (pos->castle_rook[color][wing] != SQ_NONE)
            return fen_fail(err, 3, column, "castling right '%c' repeats the %s %s right",
                            c, COLOR_NAMES[color], WING_NAMES[wing]);
        pos->castle_rook[color][wing] = (uint8_t)rook;
        if (file_of(king) != 4 || file_of(rook) != (wing == CASTLE_SHORT ? 7 : 0))
            pos->chess960 = true;
    }
    if (files_used) pos->chess960 = true;
    return 0;
}

/* Field 4: "-" or the square a pawn of the side not to move just skipped. */
static int parse_ep(Position *pos, FenField f, FenError *err)
{
    if (f.len == 1 && f.text[0] == '-') return 0;
    Square ep = f.len == 2 ? sq_parse(f.text) : SQ_NONE;
    if (ep == SQ_NONE)
        return fen_fail(err, 4, f.column, "bad en-passant square '%.*s'", f.len, f.text);
    Color us = (Color)pos->side, them = other_color(us);
    int want_rank = us == WHITE ? 5 : 2;
    if (rank_of(ep) != want_rank)
        return fen_fail(err, 4, f.column, "en-passant square %.2s is not on rank %d",
                        f.text, want_rank + 1);
    Square pawn = us == WHITE ? ep - 8 : ep + 8;
    Square origin = us == WHITE ? ep + 8 : ep - 8;
    char name[3];
    if (pos->board[pawn] != make_piece(them, PAWN)) {
        sq_name(pawn, name);
        return fen_fail(err, 4, f.column, "en-passant square %.2s but no %s pawn on %s",
                        f.text, COLOR_NAMES[them], name);
    }
    if (pos->board[ep] != NO_PIECE || pos->board[origin] != NO_PIECE) {
        sq_name(pos->board[ep] != NO_PIECE ? ep : origin, name);
        return fen_fail(err, 4, f.column, "en-passant square %.2s but %s is not empty",
                        f.text, name);
    }
    pos->ep = (uint8_t)ep;
    return 0;
}

/* Fields 5 and 6: decimal counters up to 65535. */
static int parse_counter(FenField f, int field, int *value, FenError *err)
{
    const char *what = field == 5 ? "halfmove clock" : "fullmove number";
    long v = 0;
    for (int i = 0; i < f.len; i++) {
        if (f.text[i] < '0' || f.text[i] > '9')
            return fen_fail(err, field, f.column + i, "%s '%.*s' is not a number", what, f.len, f.text);
        v = v * 10 + (f.text[i] - '0');
        if (v > COUNTER_MAX)
            return fen_fail(err, field, f.column, "%s '%.*s' is larger than %d", what, f.len,
                            f.text, COUNTER_MAX);
    }
    *value = (int)v;
    return 0;
}

/* Splits text at runs of spaces; returns the number of fields found (which
 * may exceed max; only the first max are stored). */
static int split_fields(const char *text, FenField fields[], int max)
{
    int count = 0;
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (!*p) break;
        const char *start = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') p++;
        if (count < max) fields[count] = (FenField){start, (int)(p - start), (int)(start - text) + 1};
        count++;
    }
    return count;
}

int pos_from_fen(Position *pos, const char *fen, FenError *err)
{
    FenField fields[FEN_MAX_FIELDS + 1];   /* one more, to point at an extra field */
    int count = split_fields(fen, fields, FEN_MAX_FIELDS + 1);
    if (count < FEN_MIN_FIELDS)
        return fen_fail(err, count + 1, (int)strlen(fen) + 1,
                        "expected 4 to 6 fields, found %d", count);
    if (count > FEN_MAX_FIELDS)
        return fen_fail(err, FEN_MAX_FIELDS, fields[FEN_MAX_FIELDS].column,
                        "expected 4 to 6 fields, found %d", count);

    Position p;
    clear_position(&p);
    int halfmove = 0, fullmove = 1;
    if (parse_board(&p, fields[0], err) || parse_side(&p, fields[1], err)
        || parse_castling(&p, fields[2], err) || parse_ep(&p, fields[3], err))
        return -1;
    if (count >= 5 && parse_counter(fields[4], 5, &halfmove, err)) return -1;
    if (count >= 6 && parse_counter(fields[5], 6, &fullmove, err)) return -1;
    p.halfmove = (uint16_t)halfmove;
    p.fullmove = (uint16_t)(fullmove > 0 ? fullmove : 1);   /* "0" is common dirt */

    if (king_attacked(&p, other_color((Color)p.side)))
        return fen_fail(err, 2, fields[1].column, "%s is to move but %s is in check",
                        COLOR_NAMES[p.side], COLOR_NAMES[other_color((Color)p.side)]);
    p.key = full_key(&p);
    *pos = p;
    return 0;
}

/* The start position is parsed once and copied: every game without a FEN
 * tag begins with it. */
static Position start_position;
static pthread_once_t start_position_once = PTHREAD_ONCE_INIT;

static void parse_start_position(void)
{
    int ok = pos_from_fen(&start_position, POS_START_FEN, NULL);
    assert(ok == 0);
    (void)ok;
}

void pos_start(Position *pos)
{
    pthread_once(&start_position_once, parse_start_position);
    *pos = start_position;
}

/* ====================================================================
 * FEN output
 * ==================================================================== */

/* The castling rook of c on wing is the last rook on that side of the
 * king, so X-FEN can write the right as K or Q. */
static bool is_outermost_rook(const Position *pos, Color c, int wing)
{
    Square rook = pos->castle_rook[c][wing];
    Bitboard beyond = att_ray(rook, wing == CASTLE_SHORT ? DIR_E : DIR_W);
    return !(beyond & pos_pieces(pos, c, ROOK));
}

/* Castling is written X-FEN style: K/Q for the outermost rook on a wing
 * (so standard chess reads KQkq), the rook's file letter otherwise. */
size_t pos_to_fen(const Position *pos, char out[FEN_MAX])
{
    char *p = out;
    for (int rank = 7; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 8; file++) {
            Piece piece = (Piece)pos->board[make_square(file, rank)];
            if (piece == NO_PIECE) {
                empty++;
                continue;
            }
            if (empty) *p++ = (char)('0' + empty);
            empty = 0;
            *p++ = piece_char(piece);
        }
        if (empty) *p++ = (char)('0' + empty);
        if (rank) *p++ = '/';
    }
    *p++ = ' ';
    *p++ = pos->side == WHITE ? 'w' : 'b';
    *p++ = ' ';
    char *castling = p;
    for (int c = WHITE; c <= BLACK; c++)
        for (int wing = CASTLE_SHORT; wing <= CASTLE_LONG; wing++) {
            Square rook = pos->castle_rook[c][wing];
            if (rook == SQ_NONE) continue;
            char letter = is_outermost_rook(pos, (Color)c, wing) ? (wing == CASTLE_SHORT ? 'K' : 'Q')
                                                                  : (char)('A' + file_of(rook));
            *p++ = c == WHITE ? letter : (char)(letter - 'A' + 'a');
        }
    if (p == castling) *p++ = '-';
    *p++ = ' ';
    if (pos->ep != SQ_NONE) {
        sq_name(pos->ep, p);
        p += 2;
    } else {
        *p++ = '-';
    }
    int n = snprintf(p, (size_t)(FEN_MAX - (p - out)), " %u %u", (unsigned)pos->halfmove,
                     (unsigned)pos->fullmove);
    assert(n > 0 && n < FEN_MAX - (p - out));
    return (size_t)(p - out) + (size_t)n;
}

/* ====================================================================
 * Making moves
 * ==================================================================== */

/* Marks a rarely taken function so the compiler keeps it out of its
 * callers (GCC and Clang; elsewhere a no-op). */
#if defined(__GNUC__)
#define COLD_PATH __attribute__((noinline, cold))
#else
#define COLD_PATH
#endif

/* Some castling right is left. Trick: the four rook squares read as one
 * 32-bit word, which has every byte SQ_NONE exactly when no right is left
 * (the byte order does not matter when all four bytes are the same). */
static bool castle_rights_remain(const Position *pos)
{
    _Static_assert(sizeof pos->castle_rook == sizeof(uint32_t), "four rook squares");
    uint32_t rooks;
    memcpy(&rooks, pos->castle_rook, sizeof rooks);
    return rooks != (uint32_t)SQ_NONE * 0x01010101u;
}

/* Drops the castling rights that the move m, just made, takes away: both
 * of the mover's when it was the king (now on the destination square), and
 * any whose rook left its square or was captured on it (a castling rook
 * square always holds that side's rook, so no colour test is needed).
 * Returns the change to the key. */
COLD_PATH static uint64_t drop_rights_touched(Position *pos, Move m)
{
    Square from = move_from(m), to = move_to(m);
    Piece mover = (Piece)pos->board[to];
    uint64_t delta = 0;
    for (int c = WHITE; c <= BLACK; c++)
        for (int wing = CASTLE_SHORT; wing <= CASTLE_LONG; wing++) {
            Square rook = pos->castle_rook[c][wing];
            bool king_moved = mover == make_piece((Color)c, KING);
            if (rook == from || rook == to || king_moved) delta ^= drop_castle_right(pos, (Color)c, wing);
        }
    return delta;
}

/* The other side moves next; Black's move completes a full move. */
static void pass_turn(Position *pos)
{
    if (pos->side == BLACK && pos->fullmove < COUNTER_MAX) pos->fullmove++;
    pos->side = (uint8_t)other_color((Color)pos->side);
    pos->key ^= ZOBRIST_BLACK_TO_MOVE;
}

/*
 * A normal move (no promotion, castling or en passant): nearly every move
 * of a game, so it is done in one pass rather than through the board-edit
 * helpers. The key, counter and ep square are kept in locals, and board[]
 * is written after the bitboards: a store to board[] (uint8_t, which may
 * alias anything) would make the compiler reload every field after it.
 * The rare castling-right update comes last, so the hot path keeps few
 * values live. The result is what the helpers would produce; pos_is_ok
 * checks it after every move in debug builds.
 */
static void make_normal_move(Position *pos, Move m)
{
    Square from = move_from(m), to = move_to(m);
    Piece piece = (Piece)pos->board[from], victim = (Piece)pos->board[to];
    Color us = (Color)pos->side;
    Bitboard from_to = sq_bb(from) | sq_bb(to);
    uint64_t key = pos->key ^ zobrist_piece(piece, from) ^ zobrist_piece(piece, to);
    unsigned halfmove = pos->halfmove < COUNTER_MAX ? pos->halfmove + 1u : COUNTER_MAX;
    Square ep = SQ_NONE;
    assert(piece != NO_PIECE && color_of(piece) == us && move_kind(m) == MK_NORMAL);

    if (pos->ep != SQ_NONE) key ^= ZOBRIST_EP_FILE[file_of(pos->ep)];
    pos->by_type[0] ^= from_to;
    pos->by_type[type_of(piece)] ^= from_to;
    pos->by_color[us] ^= from_to;
    if (victim != NO_PIECE) {
        assert(color_of(victim) == other_color(us) && type_of(victim) != KING);
        Bitboard to_bb = sq_bb(to);
        pos->by_type[0] ^= to_bb;          /* undo: `to` stays occupied */
        pos->by_type[type_of(victim)] ^= to_bb;
        pos->by_color[other_color(us)] ^= to_bb;
        key ^= zobrist_piece(victim, to);
        halfmove = 0;
    }
    if (type_of(piece) == PAWN) {
        halfmove = 0;
        if (to - from == 16 || from - to == 16) {
            ep = (from + to) / 2;
            key ^= ZOBRIST_EP_FILE[file_of(ep)];
        }
    }
    pos->board[from] = NO_PIECE;
    pos->board[to] = (uint8_t)piece;
    pos->ep = (uint8_t)ep;
    pos->halfmove = (uint16_t)halfmove;
    pos->key = key;
    /* Only a king or rook move, or a rook capture, can take a right away. */
    bool rights_at_stake = type_of(piece) == KING || type_of(piece) == ROOK || type_of(victim) == ROOK;
    if (rights_at_stake && castle_rights_remain(pos))
        pos->key ^= drop_rights_touched(pos, m);
}

static void make_castle(Position *pos, Move m)
{
    Color us = (Color)pos->side;
    int wing = move_kind(m) == MK_CASTLE_SHORT ? CASTLE_SHORT : CASTLE_LONG;
    Square king_from = move_from(m), king_to = move_to(m);
    Square rook_from = pos->castle_rook[us][wing];
    Square rook_to = make_square(wing == CASTLE_SHORT ? 5 : 3, rank_of(king_from));
    assert(rook_from != SQ_NONE && pos->board[rook_from] == make_piece(us, ROOK));

    /* In Chess960 either piece may land on the other's start square, or
     * stay put: lift both before placing either. */
    remove_piece(pos, king_from);
    remove_piece(pos, rook_from);
    put_piece(pos, make_piece(us, KING), king_to);
    put_piece(pos, make_piece(us, ROOK), rook_to);
    pos->key ^= drop_rights_touched(pos, m);
}

/* Promotion, castling, en passant and the null move: rare, so done with
 * the plain board edits, and kept out of line so that the registers and
 * stack of the hot path stay small. */
COLD_PATH static void make_special_move(Position *pos, Move m)
{
    Color us = (Color)pos->side;
    Square from = move_from(m), to = move_to(m);

    clear_ep(pos);
    if (pos->halfmove < COUNTER_MAX) pos->halfmove++;
    switch (move_kind(m)) {
    case MK_PROMOTION:
        assert(pos->board[from] == make_piece(us, PAWN));
        if (pos->board[to] != NO_PIECE) remove_piece(pos, to);
        remove_piece(pos, from);
        put_piece(pos, make_piece(us, move_promo(m)), to);
        pos->key ^= drop_rights_touched(pos, m);
        pos->halfmove = 0;
        break;
    case MK_EN_PASSANT:
        assert(pos->board[from] == make_piece(us, PAWN));
        remove_piece(pos, make_square(file_of(to), rank_of(from)));
        move_piece(pos, from, to);
        pos->halfmove = 0;
        break;
    case MK_CASTLE_SHORT:
    case MK_CASTLE_LONG:
        make_castle(pos, m);
        break;
    default:
        assert(move_kind(m) == MK_NULL);
        break;
    }
}

void pos_make_move(Position *pos, Move m)
{
    if (move_kind(m) == MK_NORMAL) make_normal_move(pos, m);
    else make_special_move(pos, m);
    pass_turn(pos);
#ifdef CQL_DEBUG
    assert(pos_is_ok(pos));
#endif
}

/* ====================================================================
 * Invariants and comparison
 * ==================================================================== */

bool pos_is_ok(const Position *pos)
{
    if (pos->side > BLACK) return false;
    if (pos->by_color[WHITE] & pos->by_color[BLACK]) return false;
    if ((pos->by_color[WHITE] | pos->by_color[BLACK]) != pos->by_type[0]) return false;
    Bitboard all_types = 0;
    for (int t = PAWN; t <= KING; t++) {
        if (all_types & pos->by_type[t]) return false;
        all_types |= pos->by_type[t];
    }
    if (all_types != pos->by_type[0]) return false;
    for (Square s = 0; s < SQ_NB; s++) {
        Piece p = (Piece)pos->board[s];
        bool occupied = (pos->by_type[0] & sq_bb(s)) != 0;
        if (p == NO_PIECE) {
            if (occupied) return false;
            continue;
        }
        if (type_of(p) == NO_PIECE_TYPE || type_of(p) > KING || (p & ~15)) return false;
        if (!(pos_pieces(pos, color_of(p), type_of(p)) & sq_bb(s))) return false;
    }
    for (int c = WHITE; c <= BLACK; c++)
        if (bb_popcount(pos_pieces(pos, (Color)c, KING)) != 1) return false;
    if (pos->by_type[PAWN] & (RANK_1_BB | RANK_8_BB)) return false;
    for (int c = WHITE; c <= BLACK; c++)
        for (int wing = CASTLE_SHORT; wing <= CASTLE_LONG; wing++) {
            Square rook = pos->castle_rook[c][wing];
            if (rook == SQ_NONE) continue;
            Square king = pos_king(pos, (Color)c);
            int back_rank = c == WHITE ? 0 : 7;
            if (rook > SQ_H8 || pos->board[rook] != make_piece((Color)c, ROOK)) return false;
            if (rank_of(rook) != back_rank || rank_of(king) != back_rank) return false;
            if ((wing == CASTLE_SHORT) != (rook > king)) return false;
        }
    if (pos->ep != SQ_NONE) {
        Color us = (Color)pos->side;
        if (pos->ep > SQ_H8 || rank_of(pos->ep) != (us == WHITE ? 5 : 2)) return false;
        Square pawn = us == WHITE ? pos->ep - 8 : pos->ep + 8;
        if (pos->board[pawn] != make_piece(other_color(us), PAWN)) return false;
        if (pos->board[pos->ep] != NO_PIECE) return false;
    }
    if (pos->fullmove == 0) return false;
    /* Not checked: whether the side not to move is in check, since making a
     * pseudo-legal move may legitimately produce such a position. */
    return pos->key == full_key(pos);
}

bool pos_same(const Position *a, const Position *b)
{
    return a->side == b->side && a->ep == b->ep
        && memcmp(a->castle_rook, b->castle_rook, sizeof a->castle_rook) == 0
        && memcmp(a->board, b->board, sizeof a->board) == 0;
}

/* ====================================================================
 * Zobrist keys: splitmix64 outputs from seed 0x3243F6A8885A308D, in the
 * order piece-square (P N B R Q K p n b r q k, a1..h8), castling (white
 * then black, by rook file a..h), en-passant file a..h, black to move.
 * ==================================================================== */

/* Indexed by Piece, so the rows of the unused codes (0, 7, 8, 15) are zero. */
static const uint64_t ZOBRIST_PIECE_SQUARE[PIECE_NB][SQ_NB] = {
    [W_PAWN] = {
        0x9A133C88D1995DC2ULL, 0x00F07B931B31AB50ULL, 0x5D560270C4901989ULL, 0x1FF2AEF408E56D42ULL,
        0xEE1B9B2C46734A79ULL, 0x052FAF5EE692B27DULL, 0x92A6D0E507329F29ULL, 0x3058050576A063B3ULL,
        0x62AEB4051E876E2CULL, 0x27A0B27C273F0BE1ULL, 0x80C9CA84C046D56BULL, 0xE56D5023C6A24870ULL,
        0x36FD656A5E4AFA1CULL, 0x05152F8DDF73A080ULL, 0x3849B2C4AC0924B0ULL, 0xBC7DC794922AFF6BULL,
        0xE7935BBAFB62F14CULL, 0x598E82D1B84BCC62ULL, 0x4BA06A9721675B02ULL, 0xCD777269860FF52EULL,
        0x3B9990099D17F11EULL, 0xEC2E2951728779BEULL, 0xAAF809F43D4093A8ULL, 0x7FBF1213E430E2D2ULL,
        0x6D4CF05FAA8F915EULL, 0x273DFB4C9B05A521ULL, 0x8AD9B5F5013E51F9ULL, 0x6789B14E3ED1C5BBULL,
        0xCC98EF25636182B5ULL, 0x0DD9567E3B30E778ULL, 0x2B8980B1ABFF74FBULL, 0xA7604A688D325CE5ULL,
        0x6D35DC34908CC9C1ULL, 0xA5CB8B15373E366DULL, 0xCA566C5744681BD5ULL, 0x77D37558D807EF2DULL,
        0x5A4F2530548CC5DAULL, 0x15399C1C2BDAABC4ULL, 0x5E0EE3176E023BEFULL, 0xAA18869666BE6722ULL,
        0x4A9E6C998C3944BDULL, 0xBB9B48A15A94A414ULL, 0x508F6FC8FFB5419AULL, 0xC0576CBEB3FD7159ULL,
        0x199FF89D6E75E211ULL, 0x70C83DE27FE503B2ULL, 0x8974BF96DA3E0E9CULL, 0x895E58C49E12C1F0ULL,
        0x2FF63C11A3F1B616ULL, 0x3A8AD51EBC1CD26BULL, 0x241AD6EF4B24758AULL, 0x12693EEE3D2148BFULL,
        0xF8CF0A4CCFCD0B06ULL, 0x768407498A8AD37FULL, 0x8B86454E59AADA77ULL, 0x5BBAE64D0CF9FBA1ULL,
        0x211EED87B327BCB2ULL, 0xCBFA402CB0449F18ULL, 0xD80F91701E452650ULL, 0xD9B0C11D0FDC6F32ULL,
        0x53102A49BF6383F0ULL, 0x9A03F58F8DF3538AULL, 0x60A937B1087A8DB6ULL, 0x99B72E91758C8D98ULL,
    },
    [W_KNIGHT] = {
        0x27F3A50B336577B2ULL, 0xF6E0AE1E697C0395ULL, 0x04A2B9071D959791ULL, 0x2DEE7F73F9FBD7A9ULL,
        0xCF2AA1A74745D880ULL, 0xC99283198E01768BULL, 0x37780067066C3093ULL, 0x097347DEE1D2C80CULL,
        0x3C50FBB759106E53ULL, 0xA19DD6F2FDE506DFULL, 0xC9F69B9AB1EA8AA1ULL, 0xEF9979823C7C78B4ULL,
        0xBBDCD068E7CBE285ULL, 0x3D6CB5443EE4366AULL, 0x3799AC586376514FULL, 0x0FC4AFCE1A038BF9ULL,
        0x9D02C320F4D93AABULL, 0x25182D5A6DDEEF1CULL, 0x60DEBE27E83E87F9ULL, 0xF8444F751AE9BD18ULL,
        0x40ADD1BACF466A60ULL, 0x39F76616A967333DULL, 0x72F2F23A9BCCE7B6ULL, 0xD743F98316E0508DULL,
        0x9FA04C697FD9542CULL, 0xE24471D9FEAE0A88ULL, 0xE07FB096F3CD98AEULL, 0x993F5B3C9624794FULL,
        0x3AB1A664E6392CA6ULL, 0x5E9790386291F00DULL, 0xE93F8225FFC31A49ULL, 0xBAB76BAEB4509D78ULL,
        0x90B506209D56BC9BULL, 0xB09C3E8EA6947636ULL, 0x4A1DB337590BA87AULL, 0xCBEB57741C58EB0BULL,
        0x2D8330E47DC9F2BBULL, 0x0023D9986F61BB68ULL, 0xADEE86939FF0B3EEULL, 0x1110C267517390A0ULL,
        0xC2B75757966C560DULL, 0x4EA7DA5FE519CA5BULL, 0x8D574CA073447634ULL, 0xED7C2D27831E9B66ULL,
        0x27E220517864D3A0ULL, 0xDBA6123D6DE33AB0ULL, 0xE75FB46E6CADF421ULL, 0x8066EC505F06FE34ULL,
        0x908BD9CB55D842FCULL, 0xF718782930159F63ULL, 0xD34CCBD67B83E497ULL, 0x819BC6A87E44EB9CULL,
        0x5FBA2680F57A0BB4ULL, 0xAB3F0057D6EEE349ULL, 0x65A3F1B88B468089ULL, 0x5082CE61E69DD01EULL,
        0x7FF2A0839D355B9EULL, 0xDC495FB1C7205F9AULL, 0x7C689353559114D0ULL, 0x58CF8666DA63D28EULL,
        0x50C4B2051372D22BULL, 0x39B3ED7F5D4684C7ULL, 0x759BB56AC1543C88ULL, 0xA121C78F96266359ULL,
    },
    [W_BISHOP] = {
        0xF876C389524C7BA3ULL, 0x3F346B30C2A0E833ULL, 0x7ED0E43707713E9AULL, 0xA24436B755F97317ULL,
        0xBED820555C8189DEULL, 0x5615CEC7A540CB03ULL, 0x1024CD31AB5304E2ULL, 0xD2E9E1B7984E5C30ULL,
        0x6123ACDCD75678CCULL, 0x6D551FE4D206EA41ULL, 0xFB8594DB5E0E0154ULL, 0xB8427FED51C8E43EULL,
        0x335D35103B91FCBBULL, 0x1184D7C2783104A2ULL, 0x99F6F0EFB5F3C17AULL, 0xD376E68975965D4BULL,
        0x6B25CAB359A7CBD5ULL, 0x6B690F1C82AE0040ULL, 0xECA33848CE15E1D9ULL, 0x04E3F5E081EE07C5ULL,
        0xEFD5757003AD447DULL, 0xB8A6F78AD8DAB988ULL, 0x69E90D269F0EC914ULL, 0x3365DD4AC45C7E79ULL,
        0xC79ED92AFFD80695ULL, 0xD2CCE1F1141F64C5ULL, 0x6A5A026A3743F2BBULL, 0x61D7FEED6C4B1A98ULL,
        0x506045972E3BB7F4ULL, 0x7A315A996B59EA4BULL, 0xA3E284F9721A1F2AULL, 0x97D0696A0175E4C1ULL,
        0x26D1F1A10D823655ULL, 0x989D8C3B67694F0DULL, 0xA45026A8DC91E9CCULL, 0x990812105E8216FEULL,
        0x1A961631EE0D5FECULL, 0x30381A9EEF6EAF7FULL, 0xECA0B5DB40C64E92ULL, 0x16BCD20E0728F54AULL,
        0x633B269865C72295ULL, 0x09BFB630E970B9AAULL, 0x252991B441061AB5ULL, 0x5BE9138366D4DC0AULL,
        0x192A583455621CB1ULL, 0x5F6A7A7E90C8B35AULL, 0xCF9FD4014E7CEC68ULL, 0xA2ADE6A1AF1A58C2ULL,
        0xD15F510A87442660ULL, 0xDC558327C36E0359ULL, 0xA0C96F55E9F54A9AULL, 0xD0C174FCCEAEB30BULL,
        0x7237498B464E337AULL, 0x0EDDAE443993B816ULL, 0xD97DC985940079D9ULL, 0xDD6C86F01E188626ULL,
        0xA2A98D1FA2F3046CULL, 0x862E3E878CE9E4A9ULL, 0x0C94BA3DA98C57E0ULL, 0x906816A881E779DEULL,
        0xEDD37B70F18FDF38ULL, 0x2C1FE3EA8CDE9A63ULL, 0x1A72ECD81F4CF091ULL, 0xDDBE7E45665EB26AULL,
    },
    [W_ROOK] = {
        0x7FA1987C20223F46ULL, 0x6E86F02EA6D480EDULL, 0x4DDE41AD5885A7D3ULL, 0xF6CF54FCEE48B11AULL,
        0x73D6948494FD6591ULL, 0xA4564AE4D78B93FFULL, 0xF56EB4D1A7968E1CULL, 0xBFF91D56134C69D0ULL,
        0x1F496200A4B21E52ULL, 0x7EA8CFE639AF1483ULL, 0xA211D8A88ADFA779ULL, 0x7E7055D612057EC3ULL,
        0x71C7D60082C5FF4BULL, 0xEF6ACF771052ADEFULL, 0xFFEEC0DFD544B08EULL, 0x57A758E69C51DFD1ULL,
        0x0854CE8F0B391571ULL, 0x5AC6050908C3DE49ULL, 0x4ED6134D1CE8EF9BULL, 0xE971752ED00187E4ULL,
        0x8567BD2FFF48F621ULL, 0xFDD6BDD0769DB02AULL, 0x7EF440C8FFF53319ULL, 0xDC72CD6353A72028ULL,
        0x117381115688070CULL, 0xC95A1AA4A4C3D41EULL, 0x0F08AB4665A4A025ULL, 0xC9003760941EB851ULL,
        0x63A7C109008E820FULL, 0x24F392F010D81F41ULL, 0xB6DEDEDAC58EEBC3ULL, 0x74562087A26DC9EDULL,
        0xA3C07FD0435A91BAULL, 0x38F36E29D3D0A0F0ULL, 0x455962C30AF420B1ULL, 0x9645F06FA246E06CULL,
        0x392476527FF83A12ULL, 0x22D57E05D9E2E784ULL, 0xD2DE93129018762AULL, 0xC58485253E08B5B2ULL,
        0x67DA247DD168EBB9ULL, 0xF2CAECABA39428A2ULL, 0xF7E365A908568ACAULL, 0x18A73D72582E1336ULL,
        0x69ADC0351C530D1BULL, 0x991F6AA7BFCC4A18ULL, 0xA6CC321FC9B3AB05ULL, 0xCC3E67A7665DE255ULL,
        0xAE7B5142EF0D3E6EULL, 0x94AE41058C45D640ULL, 0xA820A94C2CF437A7ULL, 0xE39EF0349AC63D6EULL,
        0x5D291334277D8716ULL, 0xF3E39A79D7C50774ULL, 0x1A5AD32E414B16B8ULL, 0x42806558CAC42F81ULL,
        0xD225BE30CE4DCF13ULL, 0x3F5021278B42E167ULL, 0x719DB335BCF7AB49ULL, 0x5735B29E7A5ED36BULL,
        0xF1627C0A4A27FD45ULL, 0xD71707E3A2312795ULL, 0x3FF73FB8B49C1640ULL, 0xCC2F43E1744F7C8EULL,
    },
    [W_QUEEN] = {
        0x96A0749DB0D8B6BAULL, 0xA2EBEC18FE535E6EULL, 0x8C163E86CF36803BULL, 0x85DB01A9994738E4ULL,
        0x67F80D3BF648F5D1ULL, 0x4D0702C8A2965998ULL, 0x8CC063E7832E9632ULL, 0x187DFF41CDAC630FULL,
        0x41F45A4F20665E4FULL, 0x63A1B48359E00B58ULL, 0xEA86666C1197E1DFULL, 0x79FDED134CEC8F10ULL,
        0x5E5FFED8CB1E875CULL, 0x4BF6D0210674B1F3ULL, 0x6BD8B6A64129E1C5ULL, 0x1A6B77D6DA0F208FULL,
        0x25B862D781F85E4DULL, 0x8956996EC31D2EE6ULL, 0xEBE3C3F3585A2703ULL, 0x433E88A302528341ULL,
        0x7C31B1A897E558F7ULL, 0xA15EF1303FAC54A6ULL, 0x02C3CED40FD682EEULL, 0xCA07CF3DD4537389ULL,
        0xE920D76219BAC140ULL, 0xCAE45F4CE3F6BD29ULL, 0x2428981F87F59F81ULL, 0xCFE93A52224A38DAULL,
        0x7D92B5528633A10FULL, 0xFEFE32BE554A29D4ULL, 0x3EDA2517B6474FCAULL, 0x3BDDF5AA9C38DED0ULL,
        0xFD2FD5AC39ABB5D1ULL, 0xAF134557738AAE33ULL, 0x4CD7349068F065FBULL, 0x8D887DF49FACF6DEULL,
        0x4E98711A50ABEB77ULL, 0xF7A84EE26D91CBC8ULL, 0x93043A65DC831928ULL, 0x5E6568987CDA2666ULL,
        0x32A368E81962E7A2ULL, 0xD3F102E1FA375975ULL, 0x88DD6ACD899FB93FULL, 0xCA15E05CB9758409ULL,
        0xE174C8970AA99B33ULL, 0xF69BFDFC0E21CCF2ULL, 0xC4AD08FB8C84A3F2ULL, 0xA3060A29FF3CC2D1ULL,
        0xE9B0E9833E7B9214ULL, 0x083C355B89E2C6B6ULL, 0x07A36C3D0089DA9AULL, 0xABC8C0B213AA9B1EULL,
        0x5576BBA120729D85ULL, 0x6B3AA956F15787CDULL, 0xB3B0E40D2B12C5BCULL, 0xF2071BA80890C1C3ULL,
        0x1D55A4760CA28346ULL, 0x9105F5B20F915737ULL, 0x0B8901ECE21C6B82ULL, 0x296057649F001CB2ULL,
        0x7302CFB82FF2B939ULL, 0xC3FAF8E4851D902EULL, 0x6B5A3EF732D3DF63ULL, 0x6640AC6C65517F31ULL,
    },
    [W_KING] = {
        0xC612DB3BCBBDC982ULL, 0xD63F6F9D92FCB598ULL, 0x516D88AE063A8FE6ULL, 0x0A9A470ED986C718ULL,
        0x38D352458C180934ULL, 0xDC493312A68CE38AULL, 0xB6C03993DDD36DCFULL, 0x69F71E5934F2803BULL,
        0x2B0F205241ED3F76ULL, 0x4F56B9E680215C35ULL, 0x278D263F431B881EULL, 0xD619C6AEF8744B7AULL,
        0x5359E4D4F300B2D5ULL, 0x3AEE82A0040CCF15ULL, 0x7E1C7C035F531A8CULL, 0x09D21DBC2967D82EULL,
        0xAD621F20077D3C65ULL, 0x0029A69BB30CF082ULL, 0xC293601859840FECULL, 0x02C89D63F815EED6ULL,
        0x9A33A07206C137FDULL, 0x9B2DF2014DDF6833ULL, 0x1EDDD5E83BCA82BAULL, 0xC47E39174F4B545CULL,
        0xC5E6DCB8EDABE2C7ULL, 0x4DB86EA07AD05C6FULL, 0x2898BC4B521BAF0BULL, 0x4D287381DBEE97C4ULL,
        0x543B75BDEA378DEEULL, 0xA903B3E01480C99CULL, 0xC5B7445B5FE4CBB2ULL, 0x6389F696FAF64A63ULL,
        0xF065A7EB60A435B8ULL, 0x86DBEC6038003E23ULL, 0xDA473D27FE88B1A7ULL, 0x3E0E06F207E61AF3ULL,
        0x2B531FDAD0EF255EULL, 0x8BC300C025761021ULL, 0x47F2244C3B10A337ULL, 0x4D69D525B53EE173ULL,
        0x74D50330619528DCULL, 0xB0FE50EC62DD9D48ULL, 0x5D61962A70BF3532ULL, 0x085A543A05F87283ULL,
        0x65219F60CC97B0A5ULL, 0x9A3CD005D3C61DB1ULL, 0x98235077B4873E69ULL, 0xD7FE20F23F520A63ULL,
        0x5B83E94E85E95B8FULL, 0x2464A6D033F2BE9DULL, 0x9AC33E64BDF5452FULL, 0xF0BE63DA52903ECBULL,
        0x39BD8EC1112EF55FULL, 0x36ABC3269F90D39AULL, 0x65E273BC6E25A710ULL, 0x8B0FDAF4733C918FULL,
        0x56A0DE1131731FB4ULL, 0x322BBC0B76125733ULL, 0x6EBB40C123D8CF57ULL, 0x9CB391C6C4217E15ULL,
        0x591992FC2109E82FULL, 0x37AD3020ABC095F6ULL, 0x03B356EFA55F2B1BULL, 0x8648ADFCD4E826AEULL,
    },
    [B_PAWN] = {
        0xB5C5821750AABF54ULL, 0xA4C2C0C8CF553649ULL, 0xFDA264E11891C115ULL, 0x6C0049E411C5C64DULL,
        0xDB987FE78E0B7568ULL, 0x15CDE49FE7FC87BEULL, 0xDFBBF5DCE6486E33ULL, 0x86E179A642856200ULL,
        0x3D8127C244C7572AULL, 0xDA1BFECCFBC93E9EULL, 0x6FBB921477B1DA47ULL, 0x706C19D919FD9527ULL,
        0x60806889D0819E65ULL, 0x21424AF9BCCC21C3ULL, 0xFAA4DE3503553FFCULL, 0x4824200AB42BC8F5ULL,
        0xCFC5F0DAC6E19FB0ULL, 0xCBC52F9699E80E76ULL, 0xB056CBD0164F879AULL, 0xC878491FCA5CE967ULL,
        0x01219263707652ABULL, 0xC0A119F852EC9436ULL, 0xDABD1B89B2F8FA01ULL, 0xA23A1721127A0C4DULL,
        0xEBC53B09E4BBD7A5ULL, 0xFB43C348D2B6A8F9ULL, 0x7F2BC141FD10E2F3ULL, 0xD7F3F6018B187A02ULL,
        0x663BCB73A61334DEULL, 0x58201021920F7FE1ULL, 0xB60033C28D5B55FCULL, 0x5F9B87EF766F82E2ULL,
        0xFC77FAA6163D8E50ULL, 0x5FA278C017BBDD16ULL, 0xACC0F3913C5AFC50ULL, 0x2EAB8019DEA526D3ULL,
        0xB895D80A755F971FULL, 0xA3FA765DCF1C426CULL, 0x03D88A865B867D7EULL, 0x533D8058F7A2FA12ULL,
        0xEB83BAFB79D76EC0ULL, 0xF7056142C3126233ULL, 0x41069A205024E66CULL, 0xDCBA97735CA12D8BULL,
        0x072BD0BA2C85377EULL, 0xDF6DEAA568B01346ULL, 0x2FF38E573D033B4FULL, 0xDCAB4FCF135B8202ULL,
        0x276877CA1367BAD8ULL, 0x7AA4E94E1069F825ULL, 0x09338F5148EA0FCBULL, 0x849DAECDDE62A05CULL,
        0xA0FB159D358BCE4CULL, 0x040694A1D96DB179ULL, 0xB3D46887649459C0ULL, 0x10018300E68DAB86ULL,
        0x98AE4E7A34284FEFULL, 0xDDBFB60556382E80ULL, 0x34E4AA3E9E5D5081ULL, 0xFBFF9ACCE52D8665ULL,
        0x43BCDA6F1DF4AE35ULL, 0x56BB952897E8EFD8ULL, 0xC99B8F3A62B60465ULL, 0x1660AC24642EF720ULL,
    },
    [B_KNIGHT] = {
        0x6F56B7121F9F6A48ULL, 0x20660C94D50DA5F3ULL, 0x861A933FDFDD818FULL, 0x45A2440B1D1AB134ULL,
        0x7BEA534A455195DDULL, 0x3657E8ACC6A99BF8ULL, 0xA8AB908209C503CCULL, 0x4687CF4CCE8F32F4ULL,
        0x960A780D29AE7CBAULL, 0xDE742FC70049DAC7ULL, 0x6142FF80F14B0AE2ULL, 0xF27853F6F63593A2ULL,
        0xE4EF30FA81283C05ULL, 0xD2D683F5AFEE20B2ULL, 0xCB5617CCC7AACDB9ULL, 0x3B2F07CC8F2A4544ULL,
        0xF78238E737BAD2E9ULL, 0xF1B1BFC173DCF3E1ULL, 0xA0B831DDB69FF782ULL, 0x0EFB58DCE986F713ULL,
        0xEA2A7CE211FBC7DFULL, 0x69E1FA0441664646ULL, 0x54BB8EEE5E697559ULL, 0x0BAC604F87CB9747ULL,
        0x56EC5610BE60AE43ULL, 0x10FD4AFAC0C7936BULL, 0x9001731B98CC46DBULL, 0xD5DD1A2C19E26013ULL,
        0xB67AF94B18181029ULL, 0x702CC74C084BF234ULL, 0xB82F8CCFCB1D2769ULL, 0xA1F86E347E2E06D3ULL,
        0x81B503DEA3A86510ULL, 0xD441F7464B0FBCD7ULL, 0xCA3CAD9191E877AEULL, 0x6554257C725A59E6ULL,
        0xCCA3392953E5DE97ULL, 0xC69CDD8D8B2593E8ULL, 0x23FCE03681A6714DULL, 0x8C3080802180829EULL,
        0xCC93140378D72ED9ULL, 0x00CA96B7E632080EULL, 0x66FD9AB9540E700FULL, 0x6518CC530D26D80FULL,
        0x42B5CDC347BB347BULL, 0x1E5E1E5B5177C88DULL, 0x0A4D4EB2433511C3ULL, 0x4C8280B22B72F62EULL,
        0x38511C411E6E57B2ULL, 0xF8262D1A866EB681ULL, 0x419479789C367DCBULL, 0x3F76BBB0D051C3E1ULL,
        0xB0EDAE6AB7DAA003ULL, 0xC6F3E8A0FDBADFF6ULL, 0x00577B63C93AEA72ULL, 0xB1170FD0C51D236CULL,
        0x4B4F288E64978804ULL, 0x3A6AD5880E12B874ULL, 0x70AE16765CAF6139ULL, 0x8004EBC03E3A4A67ULL,
        0x42609DEA5E54691EULL, 0xE93E1EA940B55A6CULL, 0x85520BD841DAE5FAULL, 0x5DD84BD66D10BC22ULL,
    },
    [B_BISHOP] = {
        0x4F46D45F58B3BA29ULL, 0xF1F41C794F9459B9ULL, 0x738D094DF40FE13BULL, 0x72CE606DD2E347B8ULL,
        0xCD85A1592FE15D41ULL, 0xDDBEBBCF3E763425ULL, 0x02F803E5F5C2D229ULL, 0xACC03D4938B9A20EULL,
        0xD5CFA33D70FA984FULL, 0x8F3CB507238AD383ULL, 0xA9B79E25FAAAB3CCULL, 0xA909D523F96105C2ULL,
        0x3EA15D95D440AEA2ULL, 0x67E6693B59AF9250ULL, 0x25CADA70B67554A8ULL, 0xACD9AC64DCB827F5ULL,
        0x201FF029DA991406ULL, 0xD64855328257CE79ULL, 0x2D2D351A0E9C1139ULL, 0xAF5262EB7D76C0C8ULL,
        0x813F538A14C036C9ULL, 0x099A37DA0D4BA4B5ULL, 0xF653327977F823E2ULL, 0x3D9594ABA696A204ULL,
        0x0E4670E274560789ULL, 0x465DA8F612FE5377ULL, 0xDF15D1708E36F1D4ULL, 0x6D24AD2AA066C4FDULL,
        0x47165B353373BBF2ULL, 0x5963B86CAE18AE41ULL, 0x945E6779CF36726FULL, 0x32A8864B2F880583ULL,
        0x726C68717439042FULL, 0xF0D85CE075B82752ULL, 0xD12A35BC08288C37ULL, 0x9745C3B92864F2B3ULL,
        0xF610E6C67B420071ULL, 0x3E09B28C42B9727CULL, 0x953E0D000693C428ULL, 0xA8F3471689B5BE74ULL,
        0xBDF9FD56AC8397A8ULL, 0x252F32610D14E738ULL, 0x5964EDB981AA565BULL, 0xE87A476244ACD0A4ULL,
        0xC4D399FC4707DFABULL, 0x26B6C6176014B8D8ULL, 0x24C50874BCA294C8ULL, 0xE65A42BE853A91ADULL,
        0x7396F5015576768AULL, 0x81624A5AE8BCFA21ULL, 0x66586BC9AF7AC564ULL, 0xE952062CE4421AD3ULL,
        0xFB1EA1D6C15E0198ULL, 0x184DB128511A72FAULL, 0x6E568FCFD000F23FULL, 0x9671E087F150C31BULL,
        0x1E4E5F8760EA7BC1ULL, 0x9F6596F1D603FC27ULL, 0x6C8A4CC95A1446B4ULL, 0x9732E362FC29EAA9ULL,
        0x928566BFF6338A7BULL, 0xB74636902753B2D9ULL, 0x8397EDDFB1C6C2E0ULL, 0x455898AFB360A7A7ULL,
    },
    [B_ROOK] = {
        0x9CF35ACA94B6F448ULL, 0xD9519E62FEF4741FULL, 0xD7A216910ECD649AULL, 0x6CA25A505CB9772BULL,
        0x471A2354ACDC746FULL, 0x78B546A1ECA553D1ULL, 0xE26D0380CF60C95AULL, 0x24D5992DDE686DC6ULL,
        0x58DD1C9BE72BAF71ULL, 0x75D9009E74D2AB26ULL, 0xA6C7C52E7039605CULL, 0x61F8F21339255596ULL,
        0x789D85882555FCB6ULL, 0x34B380FD1645589EULL, 0x3EDC9C6D8804033DULL, 0x1106CF10489DD515ULL,
        0xE36A46E3C552848CULL, 0xFA26A1FB403A7A14ULL, 0x2BBEAE45CAB396ABULL, 0x95324F9A377D014BULL,
        0x1436DA535393754EULL, 0x944D1D5876BF2957ULL, 0x03D6B48020B1C8BAULL, 0x0A2CBE9679A70139ULL,
        0x4CBDFE92996DADA1ULL, 0xE46759F064DFE2AFULL, 0x7F8B2769BEB91356ULL, 0x74969FBF8852A4BDULL,
        0xF233C0370052B71EULL, 0x68F282FA15C15EAEULL, 0x0E3E882D0C268BC5ULL, 0xA875D67D9561BD0FULL,
        0x7F403ECC1B4BDA66ULL, 0xE53A90BA657DA441ULL, 0x9501C92A317196CCULL, 0xBB8312D057E62C7EULL,
        0x3EA6816B7DE472C7ULL, 0xFF9865B070E19064ULL, 0x2BA94771FE3C7274ULL, 0xEF79B90D410A38B8ULL,
        0x77FB1441D21CAB73ULL, 0xCCCDD04627324C97ULL, 0x765629B8F74E02EDULL, 0x8AACFC08CA59E0FEULL,
        0xEE76FCEFE00CFCC2ULL, 0x9EFA067B89713A4CULL, 0x384AE5CB6849648DULL, 0xB62B09B04E75B3D0ULL,
        0x558EF01D88F84CC8ULL, 0x9527D70657C5B75CULL, 0x217B2F6B257035D7ULL, 0x9046ABE83AE27D7BULL,
        0xB93FBA8B819FCD09ULL, 0x3E58BE3507298EFDULL, 0xEDB333A1D9727F88ULL, 0x28114A7CEB7D802EULL,
        0xE71AD5D0A4F0D0BFULL, 0xE23EDDDDFEF1F06AULL, 0xAFBD4D6EAEF52537ULL, 0x9C8EDFAF3CE5B1FEULL,
        0xB3F5A7AB18104051ULL, 0x4FBD4AF4B1DBCA58ULL, 0x8E640241569CD742ULL, 0x417C1F8A642D9628ULL,
    },
    [B_QUEEN] = {
        0x5AD2BF21029EC400ULL, 0xB1DAAFDEBB95082FULL, 0x0E16BECA349CFAE2ULL, 0xEDD8839310A44169ULL,
        0xB8926664BFDE4C60ULL, 0xC58FCB1B304CF060ULL, 0x22582C381246AD41ULL, 0x8E5AE0467EDE497BULL,
        0x4E54D5BAEAE786CAULL, 0xF142DF975FCC9AEAULL, 0x4CCCB9323B612401ULL, 0x67BCEF05879E7D98ULL,
        0x0E43536370D4558CULL, 0xC3E3C69C1F244260ULL, 0x2DCEBAF9ABB13FA9ULL, 0xAAE459803A8067B5ULL,
        0x7B79D3E70780D071ULL, 0x078424BBF65C4B6AULL, 0xD6B93C99CEEE3B60ULL, 0x9841C0BEF3E7D7E9ULL,
        0x08381804EF79EF6BULL, 0xB10C92BC6AF2E7C0ULL, 0xCE9FB2B934ED48E0ULL, 0x60E093CF49D9A571ULL,
        0x7D1C4D443642B324ULL, 0x86DAB7EF4AB02A57ULL, 0x953999FFDCDEB705ULL, 0xF197F74EE602BC3BULL,
        0xA78C01E8B8B9F198ULL, 0xB4327091FC3CA9BFULL, 0xA98021CE55604D0DULL, 0xF5CFCDAB9FE1B66AULL,
        0xC446ED1F62016E10ULL, 0x24479735FD143B34ULL, 0xAB70938D98063601ULL, 0x81AEE3675C8532D5ULL,
        0x394D2E048F463B3AULL, 0xACB532599C12A933ULL, 0xC330295D075ECB17ULL, 0xF68797C2E51D48D2ULL,
        0x78FAA038651BE5E7ULL, 0x42E58905687DB8A3ULL, 0x87A980EEE8EDD5D8ULL, 0x9AB8D96B604988E6ULL,
        0x0493251A17BBC913ULL, 0x7A8B73C3C9967553ULL, 0x1CAD84DE322F3FA7ULL, 0x81A2CAA54AC30449ULL,
        0x1333830E079973BFULL, 0x27EE08ED897E09FAULL, 0x72C46A29BC7AA719ULL, 0xED69D5E285FB87C6ULL,
        0x80E70C7275FD507EULL, 0x2D41754F95D1DDEBULL, 0xFD534C7E2298584CULL, 0x732C7D107D772D5FULL,
        0xDCF756CCED76C8EBULL, 0x373BF0B0D246A087ULL, 0xCFAA822EF9067D7EULL, 0x2D439E75A08B8CF5ULL,
        0x7EF90F6997074569ULL, 0xFD2DA038493E3F84ULL, 0xF3B8EEE100CBFF9CULL, 0x5927C899A074858CULL,
    },
    [B_KING] = {
        0x6BF701BF50664A23ULL, 0x4B377B293B151E60ULL, 0xD91494FD33A9D308ULL, 0x6C7A6AA76B8490A8ULL,
        0xC915753EA185482FULL, 0xA3E253E6EC4B1DCAULL, 0xE7AFA37149BF9682ULL, 0x709005676F0761C3ULL,
        0x78BF36C06A8FDAEDULL, 0xE356A49347AC23C5ULL, 0x290A15D41F47A02EULL, 0x120F569634A291DDULL,
        0xC5FB8CD374D5BD0EULL, 0xD52B71AE1AA114A0ULL, 0xEEA0A559555541ADULL, 0xA4827ECAFB98781CULL,
        0xF4C276199BCB01E9ULL, 0x7B9056B1D374D65EULL, 0x402AABCC1253F3FFULL, 0x4E4ACCB523FD58DEULL,
        0xEE79BBEE035D2B13ULL, 0xE8BF689ADC76D30BULL, 0xFB31440B338C49A4ULL, 0x010E8F9F9A424EABULL,
        0xED861EDB3C14A682ULL, 0xEE0329457A055AB6ULL, 0xEB481AD7F78FA6DAULL, 0xD1EF62145DEDDDF3ULL,
        0x170EEAD2DA4F753BULL, 0xEAB22D563C42AC01ULL, 0xAF6A40C3BEFFCECBULL, 0xCD2E7E6CF940928DULL,
        0x39EF1484B25CB19EULL, 0x427A80D986C94374ULL, 0x2C781741A2999991ULL, 0xA0EA5438178F93A2ULL,
        0x4137F683441E204DULL, 0xAC43BA0ECE1D595FULL, 0xF121D50A7CC1444BULL, 0x7057B1927B6E7FD1ULL,
        0x8CDC78B5F3E1A517ULL, 0xFFE0FC19A5D766CDULL, 0x0CE05A1EB229DC8AULL, 0x85385BBDBF0541E8ULL,
        0xBDD0D47045E27D47ULL, 0xDE848BBB922A4D29ULL, 0xCA6281F552D3995FULL, 0x4392DA28DED243AFULL,
        0xE22D66587F8FA653ULL, 0x07E3593635865475ULL, 0x21882618E3D5500EULL, 0xBAD988042882CBA9ULL,
        0xFD5DBF307CE5DDF9ULL, 0x7390F604E5BB3962ULL, 0x1EA338E1838622D7ULL, 0x376A8BD2AEDB4DCEULL,
        0xE0141FC05B83107EULL, 0x5B738FC461C00D41ULL, 0x2407DEF463C26BA0ULL, 0x4DE2FCBADC3C5E90ULL,
        0xDBB4DBD54611A938ULL, 0xB017355DB1A408E0ULL, 0xFFB022979CD25F5EULL, 0x3360E9DE020929D3ULL,
    },
};

static const uint64_t ZOBRIST_CASTLE[COLOR_NB][8] = {
    {
        0x91967936ABC01B3DULL, 0x164296073F9E8BEEULL, 0x8D7BF10151EAD89AULL, 0x10B87ABE94456003ULL,
        0xB381346195217225ULL, 0x424E01ED7300A3BDULL, 0xF948456BCF7A4CBBULL, 0x1C1AE80E7FE6E142ULL,
    },
    {
        0xD362C97AEDAE4690ULL, 0x30413BA66BF4E695ULL, 0xF3F0BA32A1FE26C9ULL, 0xE42E01D1FB90D11EULL,
        0xDBA079DF34F2C015ULL, 0x4BB901BF5ADD7A42ULL, 0x8E9228839D427332ULL, 0x09F176A0ABF42037ULL,
    },
};

static const uint64_t ZOBRIST_EP_FILE[8] = {
    0xC08F652354FB141BULL, 0x194EA5E28325AF54ULL, 0x23578777F408ADE5ULL, 0xE9904004423F190EULL,
    0xBED33F147C9C36F6ULL, 0x1CEAF3616A883155ULL, 0x8ADC32849536835DULL, 0xC8C3FF701100522FULL,
};

static const uint64_t ZOBRIST_BLACK_TO_MOVE = 0xEFE3FDD04158A759ULL;
