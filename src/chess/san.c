/*
 * src/chess/san.c — Standard Algebraic Notation in and out (see src/chess/san.h).
 *
 * san_read is a pure text scanner: it strips annotation suffixes and splits
 * the move into piece, optional origin file/rank, destination and promotion
 * (the common shapes in one pass, everything else by the general reader).
 * san_resolve is on the PGN reader's hot path, so it never builds a move
 * list: it takes the few pieces of the right type that reach the target
 * square (from the attack tables, or the one or two pawn origins), filters
 * them by the written disambiguation, and tests king safety for each.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "chess/san.h"

#include <string.h>

#include "chess/attacks.h"
#include "chess/movegen.h"

/* ====================================================================
 * Reading
 * ==================================================================== */

static bool is_file_letter(char c) { return c >= 'a' && c <= 'h'; }
static bool is_rank_digit(char c) { return c >= '1' && c <= '8'; }

/* Length of text without trailing annotations: ! ? + # and e.p. / ep. */
static size_t strip_suffixes(const char *text, size_t len)
{
    while (len) {
        char last = text[len - 1];
        if (last == '!' || last == '?' || last == '+' || last == '#' || last == ' ') {
            len--;
        } else if (len > 4 && last == '.' && memcmp(text + len - 4, "e.p.", 4) == 0) {
            len -= 4;
        } else if (len > 2 && last == 'p' && text[len - 2] == 'e') {
            len -= 2;
        } else {
            break;
        }
    }
    return len;
}

/* O-O, 0-0, o-o (hyphens optional): 1 short, 2 long, 0 not castling. */
static int read_castling(const char *text, size_t len)
{
    int letters = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == 'O' || c == '0' || c == 'o') letters++;
        else if (c != '-' || i == 0 || text[i - 1] == '-') return 0;
    }
    if (text[len - 1] == '-') return 0;
    return letters == 2 ? 1 : letters == 3 ? 2 : 0;
}

static PieceType piece_type_from_letter(char c)
{
    switch (c) {
    case 'P': return PAWN;
    case 'N': return KNIGHT;
    case 'B': return BISHOP;
    case 'R': return ROOK;
    case 'Q': return QUEEN;
    case 'K': return KING;
    default:  return NO_PIECE_TYPE;
    }
}

/* A promotion letter, either case; NO_PIECE_TYPE otherwise. */
static PieceType promotion_from_letter(char c)
{
    PieceType t = piece_type_from_letter(c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c);
    return t >= KNIGHT && t <= QUEEN ? t : NO_PIECE_TYPE;
}

/* The general reader: every shape and every kind of dirt san.h lists. */
static SanStatus read_general(const char *text, size_t len, SanMove *out)
{
    *out = (SanMove){PAWN, -1, -1, SQ_NONE, NO_PIECE_TYPE, false, 0, false};
    len = strip_suffixes(text, len);
    if (len == 0) return SAN_SYNTAX;

    if ((len == 2 && (memcmp(text, "--", 2) == 0 || memcmp(text, "Z0", 2) == 0))
        || (len == 4 && memcmp(text, "0000", 4) == 0)) {
        out->piece = NO_PIECE_TYPE;
        out->null_move = true;
        return SAN_OK;
    }
    int castle = read_castling(text, len);
    if (castle) {
        out->piece = NO_PIECE_TYPE;
        out->castle = castle;
        return SAN_OK;
    }

    size_t i = 0;
    if (piece_type_from_letter(text[0]) != NO_PIECE_TYPE) out->piece = piece_type_from_letter(text[i++]);

    /* Promotion at the end: "=Q", "=q", or a letter right after the rank. */
    if (len - i >= 3 && promotion_from_letter(text[len - 1]) != NO_PIECE_TYPE
        && (text[len - 2] == '=' || is_rank_digit(text[len - 2]))) {
        out->promo = promotion_from_letter(text[len - 1]);
        len -= text[len - 2] == '=' ? 2 : 1;
        if (out->piece != PAWN) return SAN_SYNTAX;
    }

    /* What is left is [file][rank][file][rank] with optional x : - between. */
    char squares[4];
    int n = 0;
    for (; i < len; i++) {
        char c = text[i];
        if (c == 'x' || c == ':') out->capture = true;
        else if (c == '-') continue;
        else if ((is_file_letter(c) || is_rank_digit(c)) && n < 4) squares[n++] = c;
        else return SAN_SYNTAX;
    }
    if (n < 2 || !is_file_letter(squares[n - 2]) || !is_rank_digit(squares[n - 1])) return SAN_SYNTAX;
    out->to = make_square(squares[n - 2] - 'a', squares[n - 1] - '1');
    if (n == 4) {
        if (!is_file_letter(squares[0]) || !is_rank_digit(squares[1])) return SAN_SYNTAX;
        out->from_file = squares[0] - 'a';
        out->from_rank = squares[1] - '1';
    } else if (n == 3) {
        if (is_file_letter(squares[0])) out->from_file = squares[0] - 'a';
        else out->from_rank = squares[0] - '1';
    }
    return SAN_OK;
}

/* The shapes that make up nearly all real movetext, read in one pass: an
 * optional piece letter N B R Q K, an optional origin file or rank, an
 * optional 'x', the destination square, then any run of + and # (e4, exd5,
 * Nf3, Nbd7, R1e2, Qxe7+). Returns false for everything else (castling,
 * promotions, long algebraic, 'P', ':', other suffixes, null moves), which
 * goes to read_general. A token accepted here ends in a rank digit once
 * + and # are gone, so read_general would strip the same suffixes, see no
 * null move, castling or promotion, and split the rest the same way;
 * debug builds check that on every token. */
static inline bool read_common(const char *text, size_t len, SanMove *out)
{
    while (len && (text[len - 1] == '+' || text[len - 1] == '#')) len--;
    if (len < 2 || len > 5 || !is_file_letter(text[len - 2]) || !is_rank_digit(text[len - 1]))
        return false;
    const char *p = text, *dest = text + len - 2;
    PieceType piece = piece_type_from_letter(*p);
    if (piece >= KNIGHT) p++;
    else piece = PAWN;
    int from_file = -1, from_rank = -1;
    if (p < dest && is_file_letter(*p)) from_file = *p++ - 'a';
    else if (p < dest && is_rank_digit(*p)) from_rank = *p++ - '1';
    bool capture = p < dest && *p == 'x';
    if (capture) p++;
    if (p != dest) return false;
    *out = (SanMove){piece, from_file, from_rank, make_square(dest[0] - 'a', dest[1] - '1'),
                     NO_PIECE_TYPE, capture, 0, false};
    return true;
}

#ifdef CQL_DEBUG
static bool same_san_move(const SanMove *a, const SanMove *b)
{
    return a->piece == b->piece && a->from_file == b->from_file && a->from_rank == b->from_rank
        && a->to == b->to && a->promo == b->promo && a->capture == b->capture
        && a->castle == b->castle && a->null_move == b->null_move;
}
#endif

/* san_read's body, inline in san_parse too (saving a call per move). */
static inline SanStatus read_move(const char *text, size_t len, SanMove *out)
{
    if (read_common(text, len, out)) {
#ifdef CQL_DEBUG
        SanMove general;
        assert(read_general(text, len, &general) == SAN_OK && same_san_move(out, &general));
#endif
        return SAN_OK;
    }
    return read_general(text, len, out);
}

SanStatus san_read(const char *text, size_t len, SanMove *out)
{
    return read_move(text, len, out);
}

/* ====================================================================
 * Resolving against a position
 * ==================================================================== */

/* A king move written as "king to own castling rook" (Chess960 UCI, e1h1)
 * or as the two-square king step (e1g1) denotes castling; returns that
 * castling move, or MOVE_NONE when the SanMove is an ordinary king move. */
static Move king_move_as_castling(const Position *pos, const SanMove *sm)
{
    Color us = (Color)pos->side;
    Square king = pos_king(pos, us);
    if ((sm->from_file >= 0 && sm->from_file != file_of(king))
        || (sm->from_rank >= 0 && sm->from_rank != rank_of(king)))
        return MOVE_NONE;
    for (int wing = CASTLE_SHORT; wing <= CASTLE_LONG; wing++) {
        Square rook = pos->castle_rook[us][wing];
        if (rook == SQ_NONE) continue;
        Square king_to = make_square(wing == CASTLE_SHORT ? 6 : 2, rank_of(king));
        bool two_step = sm->to == king_to && (king_to - king == 2 || king - king_to == 2);
        if (sm->to == rook || two_step) return move_make(king, king_to, NO_PIECE_TYPE,
                                                         wing == CASTLE_SHORT ? MK_CASTLE_SHORT
                                                                              : MK_CASTLE_LONG);
    }
    return MOVE_NONE;
}

/* Origins of own pawns that can reach `to`, and the kind of that move. */
static Bitboard pawn_origins(const Position *pos, const SanMove *sm, MoveKind *kind)
{
    Color us = (Color)pos->side;
    Square to = sm->to;
    int forward = us == WHITE ? 8 : -8;
    Piece pawn = make_piece(us, PAWN);
    bool capture = sm->from_file >= 0 ? sm->from_file != file_of(to) : sm->capture;

    *kind = MK_NORMAL;
    if (capture) {
        Bitboard origins = att_pawn(other_color(us), to) & pos_pieces(pos, us, PAWN);
        if (to == pos->ep) *kind = MK_EN_PASSANT;
        else if (!(pos->by_color[other_color(us)] & sq_bb(to))) return 0;
        return origins;
    }
    if (pos->board[to] != NO_PIECE) return 0;
    Square one_back = to - forward;
    if (one_back < 0 || one_back >= SQ_NB) return 0;
    if (pos->board[one_back] == pawn) return sq_bb(one_back);
    int double_push_rank = us == WHITE ? 3 : 4;
    if (pos->board[one_back] == NO_PIECE && rank_of(to) == double_push_rank
        && pos->board[one_back - forward] == pawn)
        return sq_bb(one_back - forward);
    return 0;
}

/* Own pieces of a type other than pawn that attack `to`. */
static Bitboard piece_origins(const Position *pos, PieceType type, Square to)
{
    Bitboard pieces = pos_pieces(pos, (Color)pos->side, type);
    switch (type) {
    case KNIGHT: return att_knight(to) & pieces;
    case BISHOP: return att_bishop(to, pos_occupied(pos)) & pieces;
    case ROOK:   return att_rook(to, pos_occupied(pos)) & pieces;
    case QUEEN:  return att_queen(to, pos_occupied(pos)) & pieces;
    case KING:   return att_king(to) & pieces;
    default:     assert(!"piece_origins: not a piece type"); return 0;
    }
}

static SanStatus resolve_null_or_castling(const Position *pos, const SanMove *sm, Move *out)
{
    if (sm->null_move) {
        if (pos_in_check(pos)) return SAN_ILLEGAL;
        *out = MOVE_NULL;
        return SAN_OK;
    }
    *out = mg_castle_move(pos, sm->castle == 1 ? CASTLE_SHORT : CASTLE_LONG);
    return *out == MOVE_NONE ? SAN_ILLEGAL : SAN_OK;
}

SanStatus san_resolve(const Position *pos, const SanMove *sm, Move *out)
{
    Color us = (Color)pos->side;
    *out = MOVE_NONE;
    if (sm->null_move || sm->castle) return resolve_null_or_castling(pos, sm, out);
    assert(sm->to >= 0 && sm->to < SQ_NB);

    /* Coordinates without a piece letter (e2e4, g1f3, e1g1) move whatever
     * own piece stands on the origin square. */
    SanMove coordinates;
    if (sm->piece == PAWN && sm->from_file >= 0 && sm->from_rank >= 0) {
        Piece on_origin = pos_piece_on(pos, make_square(sm->from_file, sm->from_rank));
        if (on_origin != NO_PIECE && color_of(on_origin) == us && type_of(on_origin) != PAWN) {
            coordinates = *sm;
            coordinates.piece = type_of(on_origin);
            sm = &coordinates;
        }
    }
    if (sm->piece == KING) {
        Move castle = king_move_as_castling(pos, sm);
        if (castle != MOVE_NONE) {
            *out = castle;
            return mg_is_legal(pos, castle) ? SAN_OK : SAN_ILLEGAL;
        }
    }
    if (pos->by_color[us] & sq_bb(sm->to)) return SAN_ILLEGAL;

    MoveKind kind = MK_NORMAL;
    Bitboard origins;
    if (sm->piece == PAWN) {
        origins = pawn_origins(pos, sm, &kind);
        bool promotes = rank_of(sm->to) == (us == WHITE ? 7 : 0);
        if (promotes != (sm->promo != NO_PIECE_TYPE)) return SAN_ILLEGAL;
        if (promotes) kind = MK_PROMOTION;
    } else {
        if (sm->promo != NO_PIECE_TYPE) return SAN_ILLEGAL;
        origins = piece_origins(pos, sm->piece, sm->to);
    }
    if (sm->from_file >= 0) origins &= file_bb(sm->from_file);
    if (sm->from_rank >= 0) origins &= rank_bb(sm->from_rank);

    int legal = 0;
    while (origins) {
        Square from = bb_pop_lsb(&origins);
        Move m = move_make(from, sm->to, sm->promo, kind);
        if (kind == MK_EN_PASSANT ? mg_is_legal(pos, m) : mg_normal_move_is_legal(pos, from, sm->to)) {
            if (legal++) return SAN_AMBIGUOUS;
            *out = m;
        }
    }
    return legal ? SAN_OK : SAN_ILLEGAL;
}

/* Of several origins of a normal move to `to`, the one from which the
 * move is legal; SQ_NONE when none is, or more than one. Out of line: the
 * fast path below nearly always has one origin. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static Square only_legal_origin(const Position *pos, Bitboard origins, Square to)
{
    Square found = SQ_NONE;
    while (origins) {
        Square from = bb_pop_lsb(&origins);
        if (mg_normal_move_is_legal(pos, from, to)) {
            if (found != SQ_NONE) return SQ_NONE;
            found = from;
        }
    }
    return found;
}

/*
 * san_parse's fast path: the shapes of read_common (nearly every move of
 * real movetext), read forward from text[0] and resolved in the same
 * pass, with one switch on the first letter giving the candidate origins.
 * It reads an optional piece letter, an optional origin file or rank, an
 * optional 'x', the destination square and any run of + and #, and stops
 * at the first byte that does not go on with that shape: it returns the
 * bytes read, so that the PGN reader, which calls it at the start of a
 * word, needs no scan for the word's end first (san_parse_usual). Each
 * byte is read only after the one before it was part of the shape, so a
 * NUL (or any other byte outside the shape) ends the reading.
 * It answers (a length above 0) only when it finds the one legal move, and
 * leaves everything else (errors included) to the general path, so it
 * never decides differently from read_move + san_resolve. It gives up
 * where san_resolve does more than this for such a SanMove:
 *  - an own piece on the destination (SAN_ILLEGAL there);
 *  - a pawn move to the first or last rank (promotion, or no move);
 *  - a pawn capture on a square without an enemy piece (en passant, or
 *    no move);
 *  - no legal candidate, or more than one.
 * The coordinate case of san_resolve (a pawn SanMove with both origin
 * file and rank) cannot arise: the shape has one of them at most. Nor
 * can a king move that king_move_as_castling reads as castling: it goes
 * to an own rook (an own piece on `to`: given up) or two files from the
 * king (so no king reaches `to`: no candidate, given up).
 * It also tells whether the text, without its check mark, is the SAN
 * san_write_marked writes for the move (*written_len, else 0): no origin
 * written but a pawn capture's file, and 'x' exactly for a capture.
 * Debug builds check every answer against the general path.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline size_t parse_usual(const Position *pos, const char *text, Square *from_out, Square *to_out,
                                 size_t *written_len)
{
    const char *p = text;
    bool pawn = *p < 'A' || *p > 'Z';   /* no piece letter (or a wrong one, given up below) */
    if (!pawn) p++;
    Bitboard written_origin = ~(Bitboard)0;
    int from_file = -1;
    bool capture = false;
    if (!is_file_letter(p[0]) || !is_rank_digit(p[1])) {   /* not the destination yet */
        if (is_file_letter(*p)) {
            from_file = *p++ - 'a';
            written_origin = file_bb(from_file);
        } else if (is_rank_digit(*p)) {
            written_origin = rank_bb(*p++ - '1');
        }
        capture = *p == 'x';
        if (capture) p++;
        if (!is_file_letter(p[0]) || !is_rank_digit(p[1])) return 0;
    }
    Square to = make_square(p[0] - 'a', p[1] - '1');
    p += 2;
    size_t san_len = (size_t)(p - text);
    while (*p == '+' || *p == '#') p++;
    Color us = (Color)pos->side;
    Bitboard own = pos->by_color[us];
    if (own & sq_bb(to)) return 0;
    Bitboard occupied = pos_occupied(pos);

    /* the pieces of the written type that reach `to` (either colour, own kept below) */
    Bitboard origins;
    switch (pawn ? '\0' : text[0]) {
    case 'N': origins = att_knight(to) & pos->by_type[KNIGHT]; break;
    case 'B': origins = att_bishop(to, occupied) & pos->by_type[BISHOP]; break;
    case 'R': origins = att_rook(to, occupied) & pos->by_type[ROOK]; break;
    case 'Q': origins = att_queen(to, occupied) & pos->by_type[QUEEN]; break;
    case 'K': origins = att_king(to) & pos->by_type[KING]; break;
    case '\0': {   /* a pawn: pawn_origins, for a move to ranks 2 to 7 */
        int rank = rank_of(to);
        if (rank == 0 || rank == 7) return 0;
        Bitboard pawns = pos->by_type[PAWN] & own;
        if (from_file >= 0 ? from_file != file_of(to) : capture) {
            if (!(pos->by_color[other_color(us)] & sq_bb(to))) return 0;
            origins = att_pawn(other_color(us), to) & pawns;
        } else {
            if (occupied & sq_bb(to)) return 0;
            Square one_back = us == WHITE ? to - 8 : to + 8;
            if (pawns & sq_bb(one_back)) origins = sq_bb(one_back);
            else if (!(occupied & sq_bb(one_back)) && rank == (us == WHITE ? 3 : 4))
                origins = pawns & sq_bb(us == WHITE ? to - 16 : to + 16);
            else return 0;
        }
        break;
    }
    default: return 0;   /* another capital letter, P included */
    }
    /* `to` holds no own piece (given up above) */
    bool captures = pos->board[to] != NO_PIECE;
    bool origin_as_written = pawn && captures ? from_file >= 0 : written_origin == ~(Bitboard)0;
    *written_len = origin_as_written && capture == captures ? san_len : 0;
    origins &= own & written_origin;
    if (!origins) return 0;
    Square from = bb_lsb(origins);
    if (bb_more_than_one(origins)) {
        from = only_legal_origin(pos, origins, to);
        if (from == SQ_NONE) return 0;
    } else if (!mg_normal_move_is_legal(pos, from, to)) {
        return 0;
    }
    *from_out = from;
    *to_out = to;
    return (size_t)(p - text);
}

#ifdef CQL_DEBUG
/* Debug builds: the fast path's answer for text[0..len) is the general
 * path's (and its kept SAN what san_write_marked writes). */
static void check_usual_answer(const Position *pos, const char *text, size_t len, Move m, size_t written_len)
{
    SanMove general;
    Move expected;
    assert(read_general(text, len, &general) == SAN_OK);
    assert(san_resolve(pos, &general, &expected) == SAN_OK && expected == m);
    char written[SAN_MAX];
    assert(written_len == 0 || (san_write_marked(pos, m, '\0', written) == written_len &&
                                memcmp(written, text, written_len) == 0));
}
#endif

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline size_t san_parse_usual(const Position *pos, const char *text, Square *from, Square *to,
                              size_t *written_len)
{
    size_t len = parse_usual(pos, text, from, to, written_len);
#ifdef CQL_DEBUG
    if (len) check_usual_answer(pos, text, len, move_make(*from, *to, NO_PIECE_TYPE, MK_NORMAL), *written_len);
#endif
    return len;
}

/* O-O or O-O-O and its marks (san_parse_special). */
static size_t usual_castling(const Position *pos, const char *text, Move *out)
{
    if (text[1] != '-' || text[2] != 'O') return 0;
    const char *p = text + 3;
    int wing = CASTLE_SHORT;
    if (p[0] == '-' && p[1] == 'O') {
        wing = CASTLE_LONG;
        p += 2;
    }
    while (*p == '+' || *p == '#') p++;
    Move m = mg_castle_move(pos, wing);
    if (m == MOVE_NONE) return 0;
    *out = m;
    return (size_t)(p - text);
}

/* A pawn's promotion, e8=Q or exd8=Q, and its marks (san_parse_special):
 * the pawn on the square behind (or beside) the last rank, an empty
 * destination or an enemy piece there as 'x' says, and the move legal. */
static size_t usual_promotion(const Position *pos, const char *text, Move *out)
{
    const char *p = text + 1;
    int from_file = text[0] - 'a', to_file = from_file;
    if (*p == 'x') {
        to_file = p[1] - 'a';
        if (!is_file_letter(p[1]) || (to_file != from_file - 1 && to_file != from_file + 1)) return 0;
        p += 2;
    }
    Color us = (Color)pos->side;
    int last_rank = us == WHITE ? 7 : 0;
    if (p[0] != '1' + last_rank || p[1] != '=') return 0;
    PieceType promo;
    switch (p[2]) {
    case 'Q': promo = QUEEN; break;
    case 'R': promo = ROOK; break;
    case 'B': promo = BISHOP; break;
    case 'N': promo = KNIGHT; break;
    default: return 0;
    }
    p += 3;
    while (*p == '+' || *p == '#') p++;
    Square from = make_square(from_file, us == WHITE ? 6 : 1), to = make_square(to_file, last_rank);
    Piece victim = (Piece)pos->board[to];
    bool captures = to_file != from_file;
    if (pos->board[from] != make_piece(us, PAWN) ||
        (captures ? victim == NO_PIECE || color_of(victim) == us : victim != NO_PIECE))
        return 0;
    if (!mg_normal_move_is_legal(pos, from, to)) return 0;
    *out = move_make(from, to, promo, MK_PROMOTION);
    return (size_t)(p - text);
}

size_t san_parse_special(const Position *pos, const char *text, Move *out)
{
    size_t len = text[0] == 'O' ? usual_castling(pos, text, out)
               : is_file_letter(text[0]) ? usual_promotion(pos, text, out) : 0;
#ifdef CQL_DEBUG
    Move expected;
    assert(len == 0 || (san_parse(pos, text, len, &expected) == SAN_OK && expected == *out));
#endif
    return len;
}

/* The fast path for text[0..len), which need not be followed by a NUL:
 * the usual shapes are at most 5 bytes before their + and #, read from a
 * copy that ends in NULs. */
static inline bool parse_common(const Position *pos, const char *text, size_t len, Move *out,
                                size_t *written_len)
{
    size_t marks = 0;   /* the + and # after the square */
    while (marks < len && (text[len - 1 - marks] == '+' || text[len - 1 - marks] == '#')) marks++;
    if (len - marks < 2 || len - marks > 5) return false;
    char shape[8] = {0};
    memcpy(shape, text, len - marks);
    Square from, to;
    if (parse_usual(pos, shape, &from, &to, written_len) != len - marks) return false;
    *out = move_make(from, to, NO_PIECE_TYPE, MK_NORMAL);
    return true;
}

/* The general path of san_parse: every token the fast path gives up on,
 * a few in a game (castling, promotions, errors). Kept out of line (GCC
 * and Clang) so that the reader's hot loop, where san_parse is inlined,
 * stays small. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static SanStatus parse_general(const Position *pos, const char *text, size_t len, Move *out)
{
    SanMove sm;
    SanStatus status = read_move(text, len, &sm);
    if (status != SAN_OK) {
        *out = MOVE_NONE;
        return status;
    }
    return san_resolve(pos, &sm, out);
}

SanStatus san_parse_written(const Position *pos, const char *text, size_t len, Move *out,
                            size_t *written_len)
{
    if (parse_common(pos, text, len, out, written_len)) {
#ifdef CQL_DEBUG
        check_usual_answer(pos, text, len, *out, *written_len);
#endif
        return SAN_OK;
    }
    *written_len = 0;
    SanStatus status = parse_general(pos, text, len, out);
#ifdef CQL_DEBUG
    /* and the other way: a usual token that the general path plays as a
     * plain move (no castling, en passant or promotion) is one the fast
     * path answers */
    SanMove common;
    assert(!(status == SAN_OK && move_kind(*out) == MK_NORMAL && read_common(text, len, &common)));
#endif
    return status;
}

SanStatus san_parse(const Position *pos, const char *text, size_t len, Move *out)
{
    size_t written_len;
    return san_parse_written(pos, text, len, out, &written_len);
}

/* ====================================================================
 * Writing
 * ==================================================================== */

/* File, rank or both of `from`, as little as tells it apart from the other
 * pieces of its kind that can legally move to the same square. */
static char *write_disambiguation(const Position *pos, Piece piece, Square from, Square to, char *p)
{
    Bitboard others = pos_pieces(pos, color_of(piece), type_of(piece)) & ~sq_bb(from);
    if (!others) return p;     /* the only piece of its kind: nothing to tell apart */
    /* the others that reach `to` (a knight, bishop, rook or queen: the
     * caller writes no disambiguation for a pawn or king) */
    Bitboard rivals;
    switch (type_of(piece)) {
    case KNIGHT: rivals = att_knight(to); break;
    case BISHOP: rivals = att_bishop(to, pos_occupied(pos)); break;
    case ROOK:   rivals = att_rook(to, pos_occupied(pos)); break;
    default:     assert(type_of(piece) == QUEEN); rivals = att_queen(to, pos_occupied(pos)); break;
    }
    rivals &= others;
    Bitboard legal_rivals = 0;
    while (rivals) {
        Square s = bb_pop_lsb(&rivals);
        if (mg_normal_move_is_legal(pos, s, to)) legal_rivals |= sq_bb(s);
    }
    if (!legal_rivals) return p;
    bool file_shared = (legal_rivals & file_bb(file_of(from))) != 0;
    bool rank_shared = (legal_rivals & rank_bb(rank_of(from))) != 0;
    if (!file_shared) {
        *p++ = (char)('a' + file_of(from));
    } else if (!rank_shared) {
        *p++ = (char)('1' + rank_of(from));
    } else {
        sq_name(from, p);
        p += 2;
    }
    return p;
}

/* "a1" to "h8" in square order: a square's name in one two-byte copy */
static const char square_names[2 * SQ_NB] =
    "a1b1c1d1e1f1g1h1" "a2b2c2d2e2f2g2h2" "a3b3c3d3e3f3g3h3" "a4b4c4d4e4f4g4h4"
    "a5b5c5d5e5f5g5h5" "a6b6c6d6e6f6g6h6" "a7b7c7d7e7f7g7h7" "a8b8c8d8e8f8g8h8";

size_t san_write(const Position *pos, Move m, char out[SAN_MAX])
{
    Position after = *pos;
    pos_make_move(&after, m);
    char mark = !pos_in_check(&after) ? '\0' : mg_has_legal_move_in_check(&after) ? '+' : '#';
    return san_write_marked(pos, m, mark, out);
}

size_t san_write_marked(const Position *pos, Move m, char mark, char out[SAN_MAX])
{
    char *p = out;
    Square from = move_from(m), to = move_to(m);
    MoveKind kind = move_kind(m);

    if (kind >= MK_CASTLE_SHORT) {   /* castling or a null move: no square written */
        if (kind == MK_NULL) {
            memcpy(out, "--", 3);
            return 2;
        }
        size_t len = kind == MK_CASTLE_SHORT ? 3 : 5;
        memcpy(p, "O-O-O", len);
        p += len;
    } else {
        Piece piece = pos_piece_on(pos, from);
        assert(piece != NO_PIECE);
        PieceType type = type_of(piece);
        bool capture = pos_piece_on(pos, to) != NO_PIECE || kind == MK_EN_PASSANT;
        if (type == PAWN) {
            if (capture) *p++ = (char)('a' + file_of(from));
        } else {
            *p++ = piece_type_char(type);
            if (type != KING) p = write_disambiguation(pos, piece, from, to, p);
        }
        if (capture) *p++ = 'x';
        memcpy(p, square_names + 2 * to, 2);
        p += 2;
        if (kind == MK_PROMOTION) {
            *p++ = '=';
            *p++ = piece_type_char(move_promo(m));
        }
    }
    if (mark) *p++ = mark;
    *p = '\0';
    assert(p - out < SAN_MAX);
    return (size_t)(p - out);
}

size_t san_move_uci(Move m, char out[8])
{
    if (move_kind(m) == MK_NULL) {
        memcpy(out, "0000", 5);
        return 4;
    }
    sq_name(move_from(m), out);
    sq_name(move_to(m), out + 2);
    if (move_kind(m) != MK_PROMOTION) return 4;
    out[4] = (char)(piece_type_char(move_promo(m)) - 'A' + 'a');
    out[5] = '\0';
    return 5;
}
