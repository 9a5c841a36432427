/*
 * src/query/print.c — the query printed: the `-parse` tree, the `-a`/`-u`
 * text and the tokens for colouring (see print.h).
 *
 * The tree is the golden text of the parser tests, so its format is stable:
 * one node per line, two spaces of indent per level, then
 *   KIND type=TYPE LINE:COL-LINE:COL payload... flags...
 * (a place in a filter given apart from the query's text after its name:
 * -cql:1:1, option -player:1:8).
 * The writer converts the query token by token (lexer.h), keeping layout,
 * comments and function bodies, so its output re-parses to an equal AST.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "query/print.h"

#include <string.h>

#include "base/utf8.h"
#include "chess/bitboard.h"

/* {==== dump ================================================================= */

void print_string(StrBuf *out, const char *text, size_t len)
{
    sb_putc(out, '"');
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '"' || c == '\\') sb_putc(out, '\\');
        if (c == '\n') sb_append(out, "\\n");
        else if (c == '\t') sb_append(out, "\\t");
        else if (c == '\r') sb_append(out, "\\r");
        else sb_putc(out, c);
    }
    sb_putc(out, '"');
}

static void dump_string(StrBuf *out, const char *s)
{
    print_string(out, s, strlen(s));
}

/* Piece letters of a mask: KQRBNP kqrbnp _ with A / a for whole colours. */
static void append_piece_letters(StrBuf *out, uint16_t mask)
{
    static const char white[] = "KQRBNP", black[] = "kqrbnp";
    static const PieceType types[] = {KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN};
    const uint16_t all_white = 0x007E, all_black = 0x7E00;
    if ((mask & all_white) == all_white) sb_putc(out, 'A');
    else
        for (int i = 0; i < 6; i++)
            if (mask & (1u << make_piece(WHITE, types[i]))) sb_putc(out, white[i]);
    if ((mask & all_black) == all_black) sb_putc(out, 'a');
    else
        for (int i = 0; i < 6; i++)
            if (mask & (1u << make_piece(BLACK, types[i]))) sb_putc(out, black[i]);
    if (mask & 1u) sb_putc(out, '_');
}

static void append_part(StrBuf *out, SquarePart p)
{
    sb_putc(out, (char)('a' + p.file_lo));
    if (p.file_hi != p.file_lo) sb_printf(out, "-%c", 'a' + p.file_hi);
    sb_putc(out, (char)('1' + p.rank_lo));
    if (p.rank_hi != p.rank_lo) sb_printf(out, "-%c", '1' + p.rank_hi);
}

static void dump_designator(StrBuf *out, const Designator *d)
{
    sb_append(out, " pieces=");
    if (d->has_piece_part) append_piece_letters(out, d->pieces);
    else sb_append(out, "any");
    sb_append(out, " squares=");
    if (!d->has_square_part) {
        sb_append(out, "all");
        return;
    }
    sb_putc(out, '[');
    for (uint8_t i = 0; i < d->nparts; i++) {
        if (i) sb_putc(out, ',');
        append_part(out, d->parts[i]);
    }
    sb_putc(out, ']');
}

static void dump_dirs(StrBuf *out, uint8_t dirs)
{
    static const char *const names[DIR_NB] = {"N", "NW", "W", "SW", "S", "SE", "E", "NE"};
    sb_append(out, " dirs=");
    bool first = true;
    for (int d = 0; d < DIR_NB; d++) {
        if (!(dirs & (1u << d))) continue;
        sb_printf(out, "%s%s", first ? "" : ",", names[d]);
        first = false;
    }
}

static const char *slot_name(const Query *q, const Node *n, int64_t slot)
{
    if (n->kind == ND_CALL || n->kind == ND_FUNCTION_DEF)
        return slot >= 0 && (uint64_t)slot < q->nfuncs ? q->funcs[slot].name : "?";
    return slot >= 0 && (uint64_t)slot < q->nvars ? q->vars[slot].name : "?";
}

/* The kind-specific part of a dump line. */
static void dump_payload(const Query *q, const Node *n, StrBuf *out)
{
    switch (n->kind) {
    case ND_INT: sb_printf(out, " value=%lld", (long long)n->num); break;
    case ND_ESCAPE: if (n->num) sb_printf(out, " capture=%lld", (long long)n->num); break;
    case ND_REPEAT:
        sb_printf(out, " min=%lld max=", (long long)n->num);
        if (n->num2 < 0) sb_append(out, "inf");
        else sb_printf(out, "%lld", (long long)n->num2);
        break;
    case ND_LINE: case ND_PATH:
        if (ast_has_range(n)) sb_printf(out, " range=%lld..%lld", (long long)n->num, (long long)n->num2);
        break;
    case ND_ECHO: sb_printf(out, " target=%s", slot_name(q, n, n->num)); break;
    default: break;
    }
    if (n->op != TK_EOF) sb_printf(out, " op=%s", tok_ascii(n->op) ? tok_ascii(n->op) : "?");
    if (n->slot >= 0) {
        bool fn = n->kind == ND_CALL || n->kind == ND_FUNCTION_DEF;
        sb_printf(out, " %s=%s", fn ? "function" : n->kind == ND_ECHO ? "source" : "var", slot_name(q, n, n->slot));
    } else if (n->text) {
        sb_append(out, " text=");
        dump_string(out, n->text);
    }
    if (n->dirs) dump_dirs(out, n->dirs);
    if (n->desig) dump_designator(out, n->desig);
    for (unsigned b = 0; b < NF_BIT_COUNT_; b++)
        if (n->flags & (1ULL << b)) sb_printf(out, " %s", ast_flag_name(b));
}

/* LINE:COL of byte `off`; in a filter given apart from the query's text,
 * and not in the source of byte `from` (the span's start), after its name:
 * -player:1:8. */
static void append_place(StrBuf *out, const Query *q, const DiagLineIndex *lines, uint32_t off, uint32_t from)
{
    unsigned line, col;
    diag_index_line_col(lines, off, &line, &col);
    uint32_t base, from_base;
    SourceText own = diag_source_at(&q->src, off, &base);
    diag_source_at(&q->src, from, &from_base);
    if (base > 0 && base != from_base) sb_printf(out, "%s:", own.name);
    sb_printf(out, "%u:%u", line, col);
}

static void dump_node(const Query *q, const DiagLineIndex *lines, const Node *n, int depth, StrBuf *out)
{
    for (int i = 0; i < depth; i++) sb_append(out, "  ");
    if (!n) {
        sb_append(out, "-\n");
        return;
    }
    sb_printf(out, "%s type=%s ", ast_kind_name(n->kind), ast_type_name(n->type));
    append_place(out, q, lines, n->span.start, 0);   /* 0: in the query's text */
    sb_putc(out, '-');
    append_place(out, q, lines, n->span.end, n->span.start);

    dump_payload(q, n, out);
    sb_putc(out, '\n');
    for (uint32_t i = 0; i < n->nkids; i++) dump_node(q, lines, n->kids[i], depth + 1, out);
}

void print_node(const Query *q, const Node *n, int depth, StrBuf *out)
{
    DiagLineIndex lines;
    diag_index_init(&lines, &q->src);
    dump_node(q, &lines, n, depth, out);
    diag_index_free(&lines);
}

static void dump_header(const QueryHeader *h, StrBuf *out)
{
    sb_append(out, "header");
    if (h->present & QH_INPUT) sb_printf(out, " input=%s", h->input);
    if (h->present & QH_OUTPUT) sb_printf(out, " output=%s", h->output);
    for (size_t i = 0; i < SETTING_COUNT; i++) {   /* the settings, in the order of their rows */
        const SettingInfo *row = &setting_rows[i];
        if (!settings_given(&h->values, (SettingId)i)) continue;
        const char *sorting = i == SET_matchcount && (h->present & QH_SORT_MATCHCOUNT) ? "sort-" : "";
        switch (row->kind) {
        case SK_RANGE: {
            SettingPair r = settings_pair(&h->values, row);
            sb_printf(out, " %s%s=%lld..", sorting, row->name, (long long)r.first);
            if (r.second == INT64_MAX && row->header == HP_AT_LEAST) sb_append(out, "inf");
            else sb_printf(out, "%lld", (long long)r.second);
            break;
        }
        case SK_TEXT:
            sb_printf(out, " %s=", row->name);
            dump_string(out, settings_text(&h->values, row));
            break;
        case SK_RESULT: sb_printf(out, " %s=%s", row->name, settings_text(&h->values, row)); break;
        default: sb_printf(out, " %s", row->name); break;
        }
    }
    sb_putc(out, '\n');
}

void print_tree(const Query *q, StrBuf *out)
{
    if (q->header.span.end > q->header.span.start) dump_header(&q->header, out);
    print_node(q, q->body, 0, out);   /* one line index for the whole tree */
    for (uint32_t i = 0; i < q->nvars; i++) {
        const Variable *v = &q->vars[i];
        static const char *const kinds[] = {"set", "number", "string", "position", "piece", "dictionary"};
        sb_printf(out, "variable %s %s", v->name, kinds[v->kind]);
        if (v->persistent) sb_append(out, v->quiet ? " persistent-quiet" : " persistent");
        if (v->kind == VK_DICTIONARY)
            sb_printf(out, "%s key=%s value=%s", v->local ? " local" : "", ast_type_name(v->key_type),
                      ast_type_name(v->value_type));
        sb_putc(out, '\n');
    }
    for (uint32_t i = 0; i < q->nfuncs; i++) {
        const Function *f = &q->funcs[i];
        sb_printf(out, "function %s(", f->name);
        for (uint32_t j = 0; j < f->nparams; j++) sb_printf(out, "%s%s", j ? " " : "", f->params[j]);
        sb_append(out, ")\n");
    }
}

/* }==== */

/* {==== writing the query in ASCII or Unicode ================================ */

#define ALL_WHITE 0x007Eu
#define ALL_BLACK 0x7E00u

/* The piece part of a designator mask in Unicode: figurines side by side
 * (juxtaposition is union), △ ▲ □ ◭ for whole groups. */
static void append_piece_symbols(StrBuf *out, uint16_t mask)
{
    static const PieceType types[] = {KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN};
    char buf[4];
    if ((mask & (ALL_WHITE | ALL_BLACK)) == (ALL_WHITE | ALL_BLACK)) {
        sb_append(out, "\xE2\x97\xAD");   /* ◭ */
    } else {
        for (int c = 0; c < 2; c++) {
            uint16_t all = c == 0 ? ALL_WHITE : ALL_BLACK;
            if ((mask & all) == all) {
                sb_append(out, c == 0 ? "\xE2\x96\xB3" : "\xE2\x96\xB2");   /* △ ▲ */
                continue;
            }
            for (int i = 0; i < 6; i++) {
                if (!(mask & (1u << make_piece((Color)c, types[i])))) continue;
                sb_append_n(out, buf, utf8_encode(0x2654 + (uint32_t)(6 * c + i), buf));
            }
        }
    }
    if (mask & 1u) sb_append(out, "\xE2\x96\xA1");   /* □ */
}

static void append_piece_ascii(StrBuf *out, uint16_t mask)
{
    StrBuf letters = SB_INIT;
    if ((mask & (ALL_WHITE | ALL_BLACK)) == (ALL_WHITE | ALL_BLACK) && !(mask & 1u)) sb_append(&letters, "Aa");
    else append_piece_letters(&letters, mask);
    if (letters.len == 1) sb_append(out, sb_str(&letters));
    else sb_printf(out, "[%s]", sb_str(&letters));
    sb_free(&letters);
}

/* Length of the piece part written at s (the designator has one). */
static uint32_t piece_part_length(const char *s, uint32_t len)
{
    if (s[0] == '[') return (uint32_t)(strchr(s, ']') - s) + 1;
    if ((unsigned char)s[0] < 0x80) return 1;
    uint32_t i = 0;
    while (i < len && (unsigned char)s[i] >= 0x80) {
        size_t n;
        uint32_t cp = utf8_decode(s + i, len - i, &n);
        if (cp == 0x25A6) break;   /* ▦ is a square part */
        i += (uint32_t)n;
    }
    return i;
}

/* Writes the designator token t; returns true when it ends with its piece
 * part (a designator glued after it would join it: ♖♚ is one designator). */
static bool write_designator(StrBuf *out, const char *s, Token t, bool unicode)
{
    DesigScan d;
    lex_scan_designator(s, t.start, t.start + t.len, &d);
    const char *text = s + t.start;
    if (d.all_squares_symbol) {
        sb_append(out, unicode ? "\xE2\x96\xA6" : ".");
        return false;
    }
    uint32_t piece_len = d.has_piece_part ? piece_part_length(text, t.len) : 0;
    if (d.has_piece_part) {
        if (unicode) append_piece_symbols(out, d.pieces);
        else append_piece_ascii(out, d.pieces);
    }
    sb_append_n(out, text + piece_len, t.len - piece_len);
    return d.has_piece_part && !d.has_square_part;
}

static bool ends_with_ident(const StrBuf *out)
{
    return out->len > 0 && lex_is_ident_char((unsigned char)out->data[out->len - 1]);
}

/* The query's text from `start` to `end` in the chosen spelling, token by
 * token, what lies between the tokens as written. */
static void respell_range(const Query *q, uint32_t start, uint32_t end, bool unicode, StrBuf *out)
{
    const char *s = q->src.text;
    Lexer lx;
    ast_lexer_init(&lx, q, start, end);
    uint32_t prev_end = start;
    TokKind prev_kind = TK_EOF;
    bool prev_ends_in_pieces = false;
    for (;;) {
        Token t = lex_next(&lx);
        sb_append_n(out, s + prev_end, t.start - prev_end);
        if (t.kind == TK_EOF) break;
        StrBuf tok = SB_INIT;
        const char *spelling = unicode ? tok_unicode(t.kind) : tok_ascii(t.kind);
        bool ends_in_pieces = false, starts_with_pieces = false;
        if (t.kind == TK_DESIGNATOR) {
            ends_in_pieces = write_designator(&tok, s, t, unicode);
            starts_with_pieces = (unsigned char)tok.data[0] >= 0x80 && memcmp(tok.data, "\xE2\x96\xA6", 3) != 0;
        } else if (t.kind == TK_PIECEVAR) {
            uint32_t name_at = lex_piecevar_name(s, t);
            sb_append(&tok, unicode ? "\xE2\x97\xAD" : "[Aa]");
            sb_append_n(&tok, s + name_at, t.start + t.len - name_at);
        } else if (tok_class(t.kind) != TC_SPECIAL && tok_unicode(t.kind) && spelling) {
            sb_append(&tok, spelling);
        } else {
            sb_append_n(&tok, s + t.start, t.len);
        }
        bool touching = t.start == prev_end;
        /* keep tokens apart that the new spelling would glue together (a
         * letter right after a designator would make `A[]N` a name, or
         * `[Aa]x` a piece variable) */
        if (touching && (ends_with_ident(out) || prev_kind == TK_DESIGNATOR) &&
            lex_is_ident_char((unsigned char)tok.data[0]))
            sb_putc(out, ' ');
        if (touching && !unicode && tok.data[0] == '[' && t.kind != TK_TAKE && prev_kind == TK_DESIGNATOR)
            sb_putc(out, ' ');
        if (touching && unicode && prev_ends_in_pieces && starts_with_pieces) sb_putc(out, ' ');
        /* `<` `――` `>` must not become the arrows `<--` `-->` */
        if (touching && !unicode && tok.data[0] == '-' && out->len && out->data[out->len - 1] == '<') sb_putc(out, ' ');
        if (!unicode && (t.kind == TK_DASH || t.kind == TK_BACKARROW) && t.start + t.len < end &&
            s[t.start + t.len] == (t.kind == TK_DASH ? '>' : '-'))
            sb_putc(&tok, ' ');
        sb_append(out, sb_str(&tok));
        sb_free(&tok);
        prev_end = t.start + t.len;
        prev_kind = t.kind;
        prev_ends_in_pieces = ends_in_pieces;
    }
}

void print_in_order(const Query *q, const QueryWriter *w)
{
    const SourceText *src = &q->src;
    uint32_t cut = q->header.span.end, end = src->nparts ? src->parts[0].end : (uint32_t)src->len;
    w->range(w->ctx, q, 0, cut, true);
    if (cut > 0 && src->nparts > 1) w->text(w->ctx, "\n", 1);
    for (uint32_t i = 1; i < src->nparts; i++) {
        w->range(w->ctx, q, src->parts[i].start, src->parts[i].end, false);
        w->text(w->ctx, "\n", 1);
    }
    w->range(w->ctx, q, cut, end, false);
}

typedef struct Respelling {
    StrBuf *out;
    bool unicode;
} Respelling;

static void respell_text(void *ctx, const char *text, size_t len)
{
    sb_append_n(((Respelling *)ctx)->out, text, len);
}

static void respell(void *ctx, const Query *q, uint32_t start, uint32_t end, bool header)
{
    Respelling *r = ctx;
    if (header) sb_append_n(r->out, q->src.text + start, end - start);   /* file names are raw text */
    else respell_range(q, start, end, r->unicode, r->out);
}

void print_source(const Query *q, bool unicode, StrBuf *out)
{
    Respelling r = {out, unicode};
    print_in_order(q, &(QueryWriter){respell, respell_text, &r});
}

typedef struct Pieces {
    PrintPieceFn fn;
    void *ctx;
} Pieces;

static void piece_text(void *ctx, const char *text, size_t len)
{
    Pieces *p = ctx;
    p->fn(p->ctx, TK_EOF, false, text, len);
}

/* The tokens of text[start, end) and what lies between them, comments as
 * tokens. */
static void piece_range(void *ctx, const Query *q, uint32_t start, uint32_t end, bool header)
{
    Pieces *p = ctx;
    const char *s = q->src.text;
    Lexer lx;
    ast_lexer_init(&lx, q, start, end);
    lx.comments = true;
    uint32_t at = start;
    for (Token t = lex_next(&lx);; t = lex_next(&lx)) {
        if (t.start > at) p->fn(p->ctx, TK_EOF, header, s + at, t.start - at);
        if (t.kind == TK_EOF) break;
        if (t.start < at) continue;   /* an error inside a token already given */
        p->fn(p->ctx, t.kind, header, s + t.start, t.len);
        at = t.start + t.len;
    }
}

void print_pieces(const Query *q, PrintPieceFn fn, void *ctx)
{
    Pieces p = {fn, ctx};
    print_in_order(q, &(QueryWriter){piece_range, piece_text, &p});
}

/* }==== */
