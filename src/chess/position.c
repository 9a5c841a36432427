/*
 * src/chess/position.c — a chess position: FEN in and out, make move, invariants.
 *
 * Owns the Position value (see src/chess/position.h): FEN parsing with a
 * FenError naming field and column for every refusal, FEN writing,
 * pos_make_move (castling in standard chess and Chess960, en passant,
 * promotion, counters, castling rights) and the Zobrist key, computed when
 * asked (pos_key). The keys are made once from a fixed seed (section
 * "Zobrist keys"), so positions hash identically in every run and thread.
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

/* ====================================================================
 * Zobrist keys: the outputs of splitmix64 from seed 0x3243F6A8885A308D, in
 * the order piece-square (P N B R Q K p n b r q k, a1..h8), castling (white
 * then black, by rook file a..h), en-passant file a..h, black to move. They
 * are made once, before the first position is read (pos_from_fen), and are
 * the same in every run and every thread (a unit test pins one key).
 * ==================================================================== */

/* Indexed by Piece, so the rows of the unused codes (0, 7, 8, 15) are zero. */
static uint64_t ZOBRIST_PIECE_SQUARE[PIECE_NB][SQ_NB];
static uint64_t ZOBRIST_CASTLE[COLOR_NB][8];
static uint64_t ZOBRIST_EP_FILE[8];
static uint64_t ZOBRIST_BLACK_TO_MOVE;

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void make_zobrist_keys(void)
{
    static const PieceType types[] = {PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING};
    uint64_t state = 0x3243F6A8885A308DULL;
    for (int c = WHITE; c <= BLACK; c++)
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
            for (Square s = 0; s < SQ_NB; s++) ZOBRIST_PIECE_SQUARE[make_piece((Color)c, types[t])][s] = splitmix64(&state);
    for (int c = WHITE; c <= BLACK; c++)
        for (int file = 0; file < 8; file++) ZOBRIST_CASTLE[c][file] = splitmix64(&state);
    for (int file = 0; file < 8; file++) ZOBRIST_EP_FILE[file] = splitmix64(&state);
    ZOBRIST_BLACK_TO_MOVE = splitmix64(&state);
}

static pthread_once_t zobrist_once = PTHREAD_ONCE_INIT;

/* ====================================================================
 * Board edits: every change to the pieces goes through these three, which
 * keep board[], the bitboards and the king squares in step (a king taken
 * off is always put back: no position is without one).
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
    if (type_of(p) == KING) pos->king[color_of(p)] = (uint8_t)s;
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
    if (type_of(p) == KING) pos->king[color_of(p)] = (uint8_t)to;
}

/* Removes c's castling right on `wing`, if it has one. */
static void drop_castle_right(Position *pos, Color c, int wing)
{
    pos->castle_rook[c][wing] = SQ_NONE;
}

static void clear_ep(Position *pos)
{
    pos->ep = SQ_NONE;
}

/* Computed when asked, from scratch: a replay never needs it, so no move
 * pays for keeping it up to date. */
uint64_t pos_key(const Position *pos)
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
    memset(pos->king, SQ_NONE, sizeof pos->king);
}

void pos_find_kings(Position *pos)
{
    for (int c = WHITE; c <= BLACK; c++) {
        Bitboard king = pos_pieces(pos, (Color)c, KING);
        pos->king[c] = (uint8_t)(king ? bb_lsb(king) : SQ_NONE);
    }
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
    return att_any_slider_reaches(king, enemy & (pos->by_type[BISHOP] | queens),
                                  enemy & (pos->by_type[ROOK] | queens), pos_occupied(pos));
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
_Static_assert(COUNTER_MAX == UINT16_MAX, "pos_fullmove_after stops the move number where its field does");

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

/* Field 4: "-" or the square a pawn of the side not to move just skipped.
 * Tolerant: a square that does not fit the board is ignored. */
static int parse_ep(Position *pos, FenField f, bool tolerant, FenError *err)
{
    if (f.len == 1 && f.text[0] == '-') return 0;
    Square ep = f.len == 2 ? sq_parse(f.text) : SQ_NONE;
    if (ep == SQ_NONE)
        return fen_fail(err, 4, f.column, "bad en-passant square '%.*s'", f.len, f.text);
    Color us = (Color)pos->side, them = other_color(us);
    int want_rank = us == WHITE ? 5 : 2;
    if (tolerant) {
        Square pawn = us == WHITE ? ep - 8 : ep + 8, origin = us == WHITE ? ep + 8 : ep - 8;
        if (rank_of(ep) == want_rank && pos->board[pawn] == make_piece(them, PAWN) && pos->board[ep] == NO_PIECE
            && pos->board[origin] == NO_PIECE)
            pos->ep = (uint8_t)ep;
        return 0;
    }
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

static int from_fen(Position *pos, const char *fen, bool tolerant, FenError *err)
{
    pthread_once(&zobrist_once, make_zobrist_keys);   /* every position begins here */
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
        || parse_castling(&p, fields[2], err) || parse_ep(&p, fields[3], tolerant, err))
        return -1;
    if (count >= 5 && parse_counter(fields[4], 5, &halfmove, err)) return -1;
    if (count >= 6 && parse_counter(fields[5], 6, &fullmove, err)) return -1;
    p.halfmove = (uint16_t)halfmove;
    p.fullmove = (uint16_t)(fullmove > 0 ? fullmove : 1);   /* "0" is common dirt */

    if (!tolerant && king_attacked(&p, other_color((Color)p.side)))
        return fen_fail(err, 2, fields[1].column, "%s is to move but %s is in check",
                        COLOR_NAMES[p.side], COLOR_NAMES[other_color((Color)p.side)]);
    *pos = p;
    return 0;
}

int pos_from_fen(Position *pos, const char *fen, FenError *err)
{
    return from_fen(pos, fen, false, err);
}

int pos_from_fen_tolerant(Position *pos, const char *fen, FenError *err)
{
    return from_fen(pos, fen, true, err);
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
 */
COLD_PATH static void drop_rights_touched(Position *pos, Move m)
{
    Square from = move_from(m), to = move_to(m);
    Piece mover = (Piece)pos->board[to];
    for (int c = WHITE; c <= BLACK; c++)
        for (int wing = CASTLE_SHORT; wing <= CASTLE_LONG; wing++) {
            Square rook = pos->castle_rook[c][wing];
            bool king_moved = mover == make_piece((Color)c, KING);
            if (rook == from || rook == to || king_moved) drop_castle_right(pos, (Color)c, wing);
        }
}

/* The other side moves next; Black's move completes a full move (read
 * from src, written to dst: see make_normal_move). */
static inline void pass_turn(Position *dst, const Position *src)
{
    Color side = (Color)src->side;
    dst->fullmove = (uint16_t)pos_fullmove_after(side, src->fullmove);
    dst->side = (uint8_t)other_color(side);
}

/*
 * A normal move (no promotion, castling or en passant): nearly every move
 * of a game, so it is done in one pass rather than through the board-edit
 * helpers (the side is passed in pass_turn). The counter and ep square are
 * kept in locals, and board[]
 * is written after the bitboards: a store to board[] (uint8_t, which may
 * alias anything) would make the compiler reload every field after it.
 * The rare castling-right update comes last, so the hot path keeps few
 * values live. The result is what the helpers would produce; pos_is_ok
 * checks it after every move in debug builds.
 *
 * `us` is the side to move; without `counted` (a constant where it is
 * inlined), the half-move clock is neither read nor written, and whether
 * the move sets it back to 0 (a capture or a pawn's move) is returned
 * (pos_make_normal_move_uncounted). Made from one body so that the counted
 * move compiles as it did alone (the body split in two, the pieces' part
 * returning whether the clock goes back, cost `cql -index` 4% more CPU).
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool make_normal_from_to(Position *dst, const Position *src, Square from, Square to, Color us,
                                      bool counted)
{
    /* everything read from src first: dst may be src, or a copy of it
     * just written, whose bytes read back would wait on those stores */
    Piece piece = (Piece)src->board[from], victim = (Piece)src->board[to];
    Bitboard from_to = sq_bb(from) | sq_bb(to);
    unsigned halfmove = !counted ? 1 : src->halfmove + (unsigned)(src->halfmove < COUNTER_MAX);
    Bitboard occupied = src->by_type[0] ^ from_to, movers = src->by_type[type_of(piece)] ^ from_to,
             own = src->by_color[us] ^ from_to;
    Square ep = SQ_NONE;
    assert(piece != NO_PIECE && color_of(piece) == us);

    dst->by_type[0] = occupied;
    dst->by_type[type_of(piece)] = movers;
    dst->by_color[us] = own;
    if (victim != NO_PIECE) {
        assert(color_of(victim) == other_color(us) && type_of(victim) != KING);
        Bitboard to_bb = sq_bb(to);
        dst->by_type[0] ^= to_bb;          /* undo: `to` stays occupied */
        dst->by_type[type_of(victim)] ^= to_bb;
        dst->by_color[other_color(us)] ^= to_bb;
        halfmove = 0;
    }
    if (type_of(piece) == PAWN) {
        halfmove = 0;
        if (to - from == 16 || from - to == 16) {
            ep = (from + to) / 2;
        }
    }
    dst->board[from] = NO_PIECE;
    dst->board[to] = (uint8_t)piece;
    dst->ep = (uint8_t)ep;
    if (counted) dst->halfmove = (uint16_t)halfmove;
    if (type_of(piece) == KING) dst->king[us] = (uint8_t)to;
    /* Only a king or rook move, or a rook capture, can take a right away. */
    bool rights_at_stake = type_of(piece) == KING || type_of(piece) == ROOK || type_of(victim) == ROOK;
    if (rights_at_stake && castle_rights_remain(dst))
        drop_rights_touched(dst, move_make(from, to, NO_PIECE_TYPE, MK_NORMAL));
    return halfmove == 0;
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool make_normal(Position *dst, const Position *src, Move m, Color us, bool counted)
{
    assert(move_kind(m) == MK_NORMAL);
    return make_normal_from_to(dst, src, move_from(m), move_to(m), us, counted);
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void make_normal_move(Position *dst, const Position *src, Move m)
{
    make_normal(dst, src, m, (Color)src->side, true);
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
    drop_rights_touched(pos, m);
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
        drop_rights_touched(pos, m);
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

/* Inline where they are called: a game's replay calls pos_play_move at
 * every move, in game_add_move or (a game read without its tree) in the
 * reader itself, and left to itself the compiler inlines it nowhere once it
 * has two hot callers. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline void pos_make_move(Position *pos, Move m)
{
    if (move_kind(m) == MK_NORMAL) make_normal_move(pos, pos, m);
    else make_special_move(pos, m);
    pass_turn(pos, pos);
#ifdef CQL_DEBUG
    assert(pos_is_ok(pos));
#endif
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline bool pos_make_normal_move_uncounted(Position *pos, Move m, Color us)
{
    return make_normal(pos, pos, m, us, false);
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline void pos_play_move(Position *dst, const Position *src, Move m)
{
    *dst = *src;
    if (move_kind(m) == MK_NORMAL) {
        make_normal_move(dst, src, m);
        pass_turn(dst, src);
    } else {
        make_special_move(dst, m);
        pass_turn(dst, dst);
    }
#ifdef CQL_DEBUG
    assert(pos_is_ok(dst));
#endif
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline void pos_play_normal_move(Position *dst, const Position *src, Square from, Square to)
{
    *dst = *src;
    make_normal_from_to(dst, src, from, to, (Color)src->side, true);
    pass_turn(dst, src);
#ifdef CQL_DEBUG
    assert(pos_is_ok(dst));
#endif
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline void pos_make_move_undoable(Position *pos, Move m, PosUndo *undo)
{
    undo->move = m;
    undo->victim = pos->board[move_to(m)];
    undo->ep = pos->ep;
    memcpy(undo->castle_rook, pos->castle_rook, sizeof undo->castle_rook);
    undo->halfmove = pos->halfmove;
    undo->fullmove = pos->fullmove;
    pos_make_move(pos, m);
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline void pos_make_normal_move_undoable(Position *pos, Square from, Square to, PosUndo *undo)
{
    /* pos_make_move_undoable's record, spelled out with `to` at hand: the
     * same through a shared helper reading move_to of the move made here
     * cost 4 instructions a ply in the pass without a tree */
    undo->move = move_make(from, to, NO_PIECE_TYPE, MK_NORMAL);
    undo->victim = pos->board[to];
    undo->ep = pos->ep;
    memcpy(undo->castle_rook, pos->castle_rook, sizeof undo->castle_rook);
    undo->halfmove = pos->halfmove;
    undo->fullmove = pos->fullmove;
    make_normal_from_to(pos, pos, from, to, (Color)pos->side, true);
    pass_turn(pos, pos);
#ifdef CQL_DEBUG
    assert(pos_is_ok(pos));
#endif
}

void pos_unmake_move(Position *pos, const PosUndo *undo)
{
    Move m = undo->move;
    Color us = other_color((Color)pos->side);
    Square from = move_from(m), to = move_to(m);
    switch (move_kind(m)) {
    case MK_NORMAL:
        move_piece(pos, to, from);
        if (undo->victim != NO_PIECE) put_piece(pos, (Piece)undo->victim, to);
        break;
    case MK_PROMOTION:
        remove_piece(pos, to);
        if (undo->victim != NO_PIECE) put_piece(pos, (Piece)undo->victim, to);
        put_piece(pos, make_piece(us, PAWN), from);
        break;
    case MK_EN_PASSANT:
        move_piece(pos, to, from);
        put_piece(pos, make_piece(other_color(us), PAWN), make_square(file_of(to), rank_of(from)));
        break;
    case MK_CASTLE_SHORT:
    case MK_CASTLE_LONG: {
        /* lift both before placing either, as make_castle does */
        int wing = move_kind(m) == MK_CASTLE_SHORT ? CASTLE_SHORT : CASTLE_LONG;
        Square rook_to = make_square(wing == CASTLE_SHORT ? 5 : 3, rank_of(from));
        remove_piece(pos, to);
        remove_piece(pos, rook_to);
        put_piece(pos, make_piece(us, KING), from);
        put_piece(pos, make_piece(us, ROOK), undo->castle_rook[us][wing]);
        break;
    }
    default:
        assert(move_kind(m) == MK_NULL);
        break;
    }
    memcpy(pos->castle_rook, undo->castle_rook, sizeof pos->castle_rook);
    pos->ep = undo->ep;
    pos->halfmove = undo->halfmove;
    pos->fullmove = undo->fullmove;
    pos->side = (uint8_t)us;
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
        if (bb_popcount(pos_pieces(pos, (Color)c, KING)) != 1 || pos->king[c] >= SQ_NB
            || pos->board[pos->king[c]] != make_piece((Color)c, KING))
            return false;
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
    return true;
}

bool pos_same(const Position *a, const Position *b)
{
    return a->side == b->side && a->ep == b->ep
        && memcmp(a->castle_rook, b->castle_rook, sizeof a->castle_rook) == 0
        && memcmp(a->board, b->board, sizeof a->board) == 0;
}
