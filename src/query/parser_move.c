/*
 * src/query/parser_move.c — the move filters and the sequence filters of CQL 6.2:
 * the dash and capture patterns (F--G=T(target), F[x]G), legal/pseudolegal,
 * countmoves, currentmove, the 6.0 `move` filter, `line` and `path`.
 *
 * Whitespace matters here: a set written right before a dash is where the
 * move starts, a set written right after it is where it goes, and a space on
 * either side means "any square" (F--G, F --G, F-- G and F -- G differ).
 * Inside line and path constituents `+ * ? {m,n}` are repetitions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/parser_int.h"

/* {==== dashes =============================================================== */

static bool is_dash(TokKind k)
{
    return k == TK_DASH || k == TK_TAKE;
}

/* A parameter word that sets a flag (move legal, line quiet, path nestban). */
typedef struct FlagParam {
    TokKind tok;
    uint64_t flag;
} FlagParam;

/* Takes the current token when it is one of params: sets its flag on n, or
 * fails when the parameter was given already. */
static bool accept_flag(Parser *p, Node *n, const FlagParam *params, size_t count, const char *owner)
{
    for (size_t i = 0; i < count; i++) {
        if (params[i].tok != p->tok.kind) continue;
        if (n->flags & params[i].flag)
            parse_fail(p, tok_span(p->tok), "%s given twice in '%s'", tok_describe(p->tok.kind), owner);
        n->flags |= params[i].flag;
        n->span = span_join(n->span, tok_span(p->tok));
        parse_advance(p);
        return true;
    }
    return false;
}

/* A promotion piece (`--=Q`, `move promote Q`): a designator without
 * squares (Q, [RB], ♕) or a string. */
static void check_promotion(Parser *p, const Node *promo)
{
    const Designator *d = promo->kind == ND_DESIGNATOR ? promo->desig : NULL;
    if (d && d->has_piece_part && !d->has_square_part) return;
    if (promo->type == VT_STRING) return;
    if (d) parse_fail(p, promo->span, "the promoted piece takes no square: write a piece such as 'Q'");
    parse_fail(p, promo->span, "a promotion is a piece such as 'Q' or a string, not %s", sema_type_phrase(promo->type));
}

/* dash := [S] ('--' | '[x]') [S] ['=' promotion] ['(' F {F} ')']
 * The left set is written right before the dash (parse_expr passes it), the
 * right set right after it; the target is evaluated after the move. */
Node *parse_dash(Parser *p, Node *from)
{
    Token d = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_DASH, from ? span_join(from->span, tok_span(d)) : tok_span(d), 4);
    n->op = d.kind;
    if (from) {
        if (from->kind == ND_DASH)
            parse_fail(p, tok_span(d), "a move cannot start where another move pattern is written");
        parse_check(p, from->span, sema_require(p->a, from, TM_SET, "the squares a move starts from"));
        n->kids[0] = from;
    }
    if (parse_glued(&p->tok) && parse_starts_filter(&p->tok) && p->tok.kind != TK_LPAREN) {
        Node *to = parse_expr(p, PREC_ADD);
        parse_check(p, to->span, sema_require(p->a, to, TM_SET, "the squares a move goes to"));
        n->kids[1] = to;
        n->span = span_join(n->span, to->span);
    }
    if (p->tok.kind == TK_ASSIGN) {
        Token eq = p->tok;
        parse_advance(p);
        if (!parse_starts_filter(&p->tok)) parse_fail_expected(p, "a promotion piece after '='");
        Node *promo = parse_expr(p, PREC_LOWEST);
        check_promotion(p, promo);
        n->kids[2] = promo;
        n->span = span_join(n->span, span_join(tok_span(eq), promo->span));
    }
    if (p->tok.kind == TK_LPAREN) {
        Token open = p->tok;
        if (parse_glued(&open)) {
            parse_advance(p);
            Node *target = parse_braced_members(p, ND_COMPOUND, TK_RPAREN, open);
            n->kids[3] = target;
            n->span = span_join(n->span, target->span);
        } else if (p->prev.kind == d.kind) {
            parse_fail(p, span_join(tok_span(d), tok_span(open)),
                       "the target '(...)' of %s must follow it without a space", tok_describe(d.kind));
        }
    }
    n->type = n->kids[3] ? n->kids[3]->type : VT_NONE;
    if (n->type == VT_PIECE) n->type = VT_SET;
    return n;
}

/* pattern := [S] '--' ...   — the move pattern after legal, countmoves, currentmove */
static Node *parse_dash_pattern(Parser *p, Token kw)
{
    Node *from = NULL;
    if (!is_dash(p->tok.kind)) {
        if (parse_starts_filter(&p->tok)) from = parse_expr(p, PREC_ADD);
        if (!from || !is_dash(p->tok.kind) || !parse_glued(&p->tok))
            parse_fail_expected(p, "a move pattern such as '--' after %s", tok_describe(kw.kind));
    }
    return parse_dash(p, from);
}

/* Generated moves: captures are not allowed, and a target may only say
 * which special move it is (o-o, o-o-o, castle, enpassant). */
static void check_generated(Parser *p, const Node *dash, Token kw)
{
    if (dash->op == TK_TAKE)
        parse_fail(p, dash->span, "%s works with '--' moves, not with captures", tok_describe(kw.kind));
    const Node *target = dash->kids[3];
    if (!target) return;
    const Node *only = target->nkids == 1 ? target->kids[0] : NULL;
    if (!only || (only->kind != ND_OO && only->kind != ND_OOO && only->kind != ND_CASTLE && only->kind != ND_ENPASSANT))
        parse_fail(p, target->span, "the target of %s moves may only be o-o, o-o-o, castle or enpassant",
                   tok_describe(kw.kind));
}

/* generated := ('legal' | 'pseudolegal') pattern */
Node *parse_generated_moves(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *dash = parse_dash_pattern(p, kw);
    check_generated(p, dash, kw);
    dash->flags |= kw.kind == TK_LEGAL ? NF_LEGAL : NF_PSEUDOLEGAL;
    dash->span = span_join(tok_span(kw), dash->span);
    dash->type = VT_SET;
    return dash;
}

/* countmoves := 'countmoves' ['legal' | 'pseudolegal'] pattern */
Node *parse_countmoves(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    uint64_t flags = 0;
    Token gen = p->tok;
    if (parse_accept(p, TK_LEGAL)) flags = NF_LEGAL;
    else if (parse_accept(p, TK_PSEUDOLEGAL)) flags = NF_PSEUDOLEGAL;
    Node *dash = parse_dash_pattern(p, flags ? gen : kw);
    if (flags) check_generated(p, dash, gen);
    dash->flags |= flags;
    Node *n = parse_node(p, ND_COUNTMOVES, span_join(tok_span(kw), dash->span), 1);
    n->kids[0] = dash;
    n->type = VT_NUMBER;
    return n;
}

/* currentmove := 'currentmove' pattern */
Node *parse_currentmove(Parser *p)
{
    Token kw = p->tok;
    parse_advance(p);
    Node *dash = parse_dash_pattern(p, kw);
    Node *n = parse_node(p, ND_CURRENTMOVE, span_join(tok_span(kw), dash->span), 1);
    n->kids[0] = dash;
    n->type = VT_NONE;
    return n;
}

/* }==== */

/* {==== the 6.0 move filter ================================================== */

/* move := 'move' {param}
 * param := 'legal' | 'pseudolegal' | 'previous' | 'enpassant' | 'castle' |
 *          'o-o' | 'o-o-o' | 'null' | 'primary' | 'secondary' | 'count' |
 *          ('from' | 'to' | 'capture' | 'captures' | 'enpassantsquare') S |
 *          'promote' promotion | 'comment' message-args */
Node *parse_move(Parser *p)
{
    static const FlagParam switches[] = {
        {TK_LEGAL, NF_LEGAL}, {TK_PSEUDOLEGAL, NF_PSEUDOLEGAL}, {TK_PREVIOUS, NF_PREVIOUS},
        {TK_ENPASSANT, NF_ENPASSANT}, {TK_CASTLE, NF_CASTLE}, {TK_OO, NF_OO}, {TK_OOO, NF_OOO},
        {TK_NULL, NF_NULL}, {TK_PRIMARY, NF_PRIMARY}, {TK_SECONDARY, NF_SECONDARY}, {TK_COUNT, NF_COUNT},
    };
    /* the parameters with an argument, by their kids[] index; `captures`
     * is `capture` */
    static const TokKind with_argument[] = {TK_FROM, TK_TO, TK_CAPTURE, TK_PROMOTE, TK_ENPASSANTSQUARE, TK_CAPTURES};
    static const int argument_index[] = {0, 1, 2, 3, 4, 2};
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_MOVE, tok_span(kw), 6);
    for (;;) {
        Token t = p->tok;
        int arg = -1;
        for (int i = 0; i < 6; i++)
            if (with_argument[i] == t.kind) arg = argument_index[i];
        if (accept_flag(p, n, switches, sizeof switches / sizeof switches[0], "move")) continue;
        if (arg >= 0) {
            TokKind param = with_argument[arg];
            if (n->kids[arg]) parse_fail(p, tok_span(t), "%s given twice in 'move'", tok_describe(param));
            parse_advance(p);
            parse_expect_filter(p, t.kind);
            Node *value = parse_expr(p, PREC_DIR);
            if (param == TK_PROMOTE) {
                check_promotion(p, value);
            } else {
                char role[64];
                snprintf(role, sizeof role, "the argument of %s", tok_describe(t.kind));
                parse_check(p, value->span, sema_require(p->a, value, TM_SET, role));
            }
            n->kids[arg] = value;
            if (n->op == TK_EOF && arg < 3) n->op = param;
        } else if (t.kind == TK_COMMENT) {
            if (n->kids[5]) parse_fail(p, tok_span(t), "'comment' given twice in 'move'");
            parse_advance(p);
            n->kids[5] = parse_node(p, ND_COMMENT, tok_span(t), 0);
            parse_message_args(p, n->kids[5]);
            n->kids[5]->type = VT_NONE;
            /* the comment ends the parameters (CQL 6.2: in `move castle
             * comment ("x") to r`, `to r` is a filter of its own) */
            n->span = span_join(n->span, tok_span(p->prev));
            break;
        } else {
            break;
        }
        n->span = span_join(n->span, tok_span(p->prev));
    }
    if ((n->flags & NF_LEGAL) && (n->flags & NF_PSEUDOLEGAL))
        parse_fail(p, n->span, "'legal' and 'pseudolegal' exclude each other");
    if ((n->flags & NF_PRIMARY) && (n->flags & NF_SECONDARY))
        parse_fail(p, n->span, "'primary' and 'secondary' exclude each other");
    if ((n->flags & NF_NULL) && (n->flags & (NF_CASTLE | NF_OO | NF_OOO)))
        parse_fail(p, n->span, "a null move cannot castle");
    if ((n->flags & NF_COUNT) && !(n->flags & (NF_LEGAL | NF_PSEUDOLEGAL)))
        parse_fail(p, n->span, "'move count' counts generated moves: add 'legal' or 'pseudolegal'");
    n->type = (n->flags & NF_COUNT) ? VT_NUMBER : n->op != TK_EOF ? VT_SET : VT_NONE;
    return n;
}

/* }==== */

/* {==== line and path ======================================================== */

/* In a line or path constituent, is the current '+' or '*' a repetition
 * rather than an arithmetic operator after `lhs`? Directly inside a path it
 * always is; in a line, when what follows cannot continue an expression
 * (an arrow, a closing bracket, another repetition, the end): CQL 6.2. */
bool parse_is_repetition(Parser *p, const Node *lhs)
{
    (void)lhs;
    if (p->regex == REGEX_PATH) return true;
    if (p->regex != REGEX_LINE) return false;
    switch (parse_peek(p, 1)->kind) {
    case TK_LINE_FWD: case TK_LINE_BACK: case TK_RPAREN: case TK_RBRACE: case TK_EOF:
    case TK_QUANT: case TK_PLUS: case TK_STAR: case TK_QUESTION:
        return true;
    default:
        return false;
    }
}

/* The bounds of a {m,n} token: {m} {m,n} {,n} {m,} { m } {+} {*}. */
static void decode_quantifier(Parser *p, Token t, int64_t *lo, int64_t *hi, bool *forced)
{
    const char *s = p->src->text + t.start + 1;
    const char *end = p->src->text + t.start + t.len - 1;
    *forced = false;
    if (*s == '+' || *s == '*') {
        *forced = true;
        *lo = *s == '+' ? 1 : 0;
        *hi = -1;
        return;
    }
    while (*s == ' ' || *s == '\t') s++;
    char *after;
    *lo = (*s >= '0' && *s <= '9') ? strtoll(s, &after, 10) : 0;
    if (*s >= '0' && *s <= '9') s = after;
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    if (*s != ',') {
        *hi = *lo;
        return;
    }
    s++;
    *hi = (*s >= '0' && *s <= '9') ? strtoll(s, NULL, 10) : -1;
    if (*hi >= 0 && *hi < *lo)
        parse_fail(p, tok_span(t), "the repetition '%.*s' is empty", (int)t.len, p->src->text + t.start);
}

/* Can a line or path constituent match without taking a position (line)
 * or a move (path)? A filter in a line takes one position; in a path it
 * takes no move. */
static bool sequence_nullable(const Node *n, bool path)
{
    switch (n->kind) {
    case ND_DASH: return false;
    case ND_REPEAT: return n->num == 0 || sequence_nullable(n->kids[0], path);
    case ND_GROUP:
        for (uint32_t i = 0; i < n->nkids; i++)
            if (!sequence_nullable(n->kids[i], path)) return false;
        return true;
    default: return path;
    }
}

/* repetition := {'{m,n}' | '+' | '*' | '?'}, each applying to what is
 * before it. In a line (CQL 6.2): none may apply to something that can
 * match an empty sequence, '+' not to a '+', '{m,n}' not to a '+'. In a
 * path one repetition at most, and '*', '+' or an unbounded '{m,}' not
 * over a group that can match without a move (CQL 6.2 recurses for ever
 * there; this is refused instead). */
static Node *parse_repetitions(Parser *p, Node *atom, bool path)
{
    for (int count = 0;; count++) {
        Token t = p->tok;
        if (t.kind != TK_QUANT && t.kind != TK_PLUS && t.kind != TK_STAR && t.kind != TK_QUESTION) return atom;
        const char *text = p->src->text + t.start;
        if (path && count > 0)
            parse_fail(p, tok_span(t), "two repetitions in a row ('%.*s' after '%.*s'): write a group, '((...){2}){2}'",
                       (int)t.len, text, (int)p->prev.len, p->src->text + p->prev.start);
        Node *r = parse_node(p, ND_REPEAT, span_join(atom->span, tok_span(t)), 1);
        r->kids[0] = atom;
        bool forced = false;
        if (t.kind == TK_QUANT) decode_quantifier(p, t, &r->num, &r->num2, &forced);
        else if (t.kind == TK_PLUS) r->num = 1, r->num2 = -1;
        else if (t.kind == TK_STAR) r->num = 0, r->num2 = -1;
        else r->num = 0, r->num2 = 1;
        bool is_plus = r->num == 1 && r->num2 < 0 && (t.kind == TK_PLUS || forced);
        bool atom_is_plus = atom->kind == ND_REPEAT && (atom->flags & NF_PLUS);
        if (is_plus) r->flags |= NF_PLUS;
        if (forced) r->flags |= NF_FORCED;
        if (path) {
            if (r->num2 < 0 && sequence_nullable(atom, true))
                parse_fail(p, tok_span(t), "'%.*s' cannot repeat something that can match without a move", (int)t.len, text);
        } else if (sequence_nullable(atom, false)) {
            parse_fail(p, tok_span(t), "'%.*s' cannot repeat something that can match an empty sequence of positions",
                       (int)t.len, text);
        } else if (atom_is_plus && (is_plus || (t.kind == TK_QUANT && !forced))) {
            parse_fail(p, tok_span(t), "'%.*s' cannot apply to a '+' repetition", (int)t.len, text);
        }
        r->type = atom->type;
        parse_advance(p);
        atom = r;
    }
}

/* A filter inside line or path, parsed with + * ? recognized as repetitions. */
static Node *parse_regex_filter(Parser *p, const char *after, uint8_t mode)
{
    if (!parse_starts_filter(&p->tok)) {
        parse_fail_expected(p, "a filter after %s", after);
    }
    uint8_t saved = p->regex;
    p->regex = mode;
    Node *n = parse_filter(p);
    p->regex = saved;
    return n;
}

static bool closes_sequence(TokKind k)
{
    return k == TK_EOF || k == TK_RPAREN || k == TK_RBRACE || k == TK_RBRACKET;
}

/* Is there a blank line (one holding only white space) between the last
 * token and the current one? A `//` comment ends with its line, so a blank
 * line after it counts too. A blank line ends a path (CQL 6.2). */
static bool blank_line_before(const Parser *p)
{
    const char *s = p->src->text;
    uint32_t i = p->prev.start + p->prev.len, end = p->tok.start;
    if (p->prev.len == 0 || end <= i) return false;
    bool line_empty = false;   /* the line so far holds only white space */
    while (i < end) {
        char c = s[i];
        if (c == '\n') {
            if (line_empty) return true;
            line_empty = true;
            i++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            i++;
        } else if (c == '/' && i + 1 < end && s[i + 1] == '/') {
            while (i < end && s[i] != '\n') i++;
            line_empty = false;
        } else if (c == '/' && i + 1 < end && s[i + 1] == '*') {
            for (i += 2; i + 1 < end && !(s[i] == '*' && s[i + 1] == '/'); i++) {}
            i += 2;
            line_empty = false;
        } else {
            i++;
            line_empty = false;
        }
    }
    return false;
}

static Node *parse_line_constituent(Parser *p, TokKind dir);

/* line-seq := constituent {arrow constituent}   (one arrow direction) */
static void parse_line_sequence(Parser *p, Node *parent, TokKind dir)
{
    for (;;) {
        ast_push(p->a, parent, parse_line_constituent(p, dir));
        if (p->tok.kind == dir) {
            parse_advance(p);
            continue;
        }
        if (p->tok.kind == TK_LINE_FWD || p->tok.kind == TK_LINE_BACK)
            parse_fail(p, tok_span(p->tok), "cannot mix '-->' and '<--' in one line");
        return;
    }
}

/* constituent := ('(' line-seq ')' | F) {repetition} */
static Node *parse_line_constituent(Parser *p, TokKind dir)
{
    Node *atom;
    if (p->tok.kind == TK_LPAREN) {
        Token open = p->tok;
        parse_advance(p);
        atom = parse_node(p, ND_GROUP, tok_span(open), 0);
        parse_line_sequence(p, atom, dir);
        atom->span = span_join(atom->span, tok_span(p->tok));
        parse_expect_closing(p, TK_RPAREN, open);
        atom->type = VT_NONE;
    } else {
        atom = parse_regex_filter(p, tok_describe(dir), REGEX_LINE);
        if (atom->type == VT_NUMBER && atom->kind != ND_RELATION && atom->kind != ND_COMPOUND)
            parse_fail(p, atom->span, "a constituent of 'line' cannot be a number");
    }
    return parse_repetitions(p, atom, false);
}

/* The range of line or path into n->num..num2: int [int], or 'count' (any
 * number). */
static void parse_sequence_range(Parser *p, Node *n, const char *who)
{
    if (parse_accept(p, TK_COUNT)) {
        n->num = -AST_COUNT_RANGE;
        n->num2 = AST_COUNT_RANGE;
        return;
    }
    n->num = n->num2 = parse_count_literal(p, who);
    if (p->tok.kind == TK_INT) n->num2 = parse_count_literal(p, who);
}

/* line := 'line' {line-param} arrow line-seq
 * line-param := 'primary' | 'secondary' | 'firstmatch' | 'lastposition' |
 *               'singlecolor' | 'quiet' | 'nestban' | int [int] | 'count' */
Node *parse_line(Parser *p)
{
    static const FlagParam params[] = {
        {TK_PRIMARY, NF_PRIMARY}, {TK_SECONDARY, NF_SECONDARY}, {TK_FIRSTMATCH, NF_FIRSTMATCH},
        {TK_LASTPOSITION, NF_LASTPOSITION}, {TK_SINGLECOLOR, NF_SINGLECOLOR}, {TK_QUIET, NF_QUIET},
        {TK_NESTBAN, NF_NESTBAN},
    };
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_LINE, tok_span(kw), 0);
    n->num = n->num2 = -1;
    for (;;) {
        Token t = p->tok;
        if (accept_flag(p, n, params, sizeof params / sizeof params[0], "line")) {
            if ((n->flags & NF_PRIMARY) && (n->flags & NF_SECONDARY))
                parse_fail(p, tok_span(t), "'primary' and 'secondary' exclude each other");
        } else if ((t.kind == TK_INT || t.kind == TK_COUNT) && !ast_has_range(n)) {
            parse_sequence_range(p, n, "line");
        } else {
            break;
        }
    }
    TokKind dir = p->tok.kind;
    if (dir != TK_LINE_FWD && dir != TK_LINE_BACK) parse_fail_expected(p, "'-->' or '<--' after 'line'");
    if (dir == TK_LINE_BACK) n->flags |= NF_BACKWARD;
    if (dir == TK_LINE_BACK && (n->flags & NF_NESTBAN))
        parse_fail(p, tok_span(p->tok), "the 'nestban' parameter may not be used with a backward line 'line <--'");
    parse_advance(p);
    /* the line ends at the first constituent not followed by an arrow:
     * `line --> check K` is the line and then K (as in CQL 6.2) */
    parse_line_sequence(p, n, dir);
    n->span = span_join(n->span, tok_span(p->prev));
    /* lastposition: the value is the line's last position, not its length */
    n->type = (n->flags & NF_LASTPOSITION) ? VT_POSITION : VT_NUMBER;
    return n;
}

static Node *parse_path_atom(Parser *p);

static bool is_step(const Node *n)
{
    return n->kind == ND_DASH || n->kind == ND_GROUP;
}

/* path-seq := element {element}    (up to ')' or the end)
 * element  := atom {repetition}
 * A repetition repeats a move (or group) together with the filters written
 * after it: `-- k +` repeats "a move, then k" (an implicit group). */
static void parse_path_sequence(Parser *p, Node *parent)
{
    int64_t last_step = -1;   /* index in parent->kids of the last move or group */
    do {
        Node *atom = parse_path_atom(p);
        TokKind k = p->tok.kind;
        bool repeated = k == TK_QUANT || k == TK_PLUS || k == TK_STAR || k == TK_QUESTION;
        if (repeated && !is_step(atom)) {
            if (last_step < 0)
                parse_fail(p, tok_span(p->tok), "nothing to repeat: in a path, a repetition follows a move");
            Node *group = parse_node(p, ND_GROUP, span_join(parent->kids[last_step]->span, atom->span), 0);
            group->flags |= NF_IMPLICIT;
            for (uint32_t i = (uint32_t)last_step; i < parent->nkids; i++) ast_push(p->a, group, parent->kids[i]);
            ast_push(p->a, group, atom);
            parent->nkids = (uint32_t)last_step;
            atom = group;
        }
        if (repeated) atom = parse_repetitions(p, atom, true);
        if (is_step(atom) || atom->kind == ND_REPEAT) last_step = parent->nkids;
        ast_push(p->a, parent, atom);
    } while (!closes_sequence(p->tok.kind) && !blank_line_before(p)
             && (parse_starts_filter(&p->tok) || p->tok.kind == TK_LPAREN));
}

/* A move of a path may have a target, `--(check)`, evaluated after the move
 * (CQL 6.2, cql62-fidelity-2.md R14), but no move pattern among the
 * target's filters: CQL 6.2 refuses `path --(-- --)` and `path
 * B[x]h7(check k[x]h7(N--g5 check))` (the parse oracle), while it takes
 * the latter outside a path. */
static void check_path_target(Parser *p, const Node *dash)
{
    const Node *target = dash->kids[3];
    for (uint32_t i = 0; target && i < target->nkids; i++) {
        const Node *m = target->kids[i];
        if (m->kind == ND_DASH && !(m->flags & (NF_LEGAL | NF_PSEUDOLEGAL)))
            parse_fail(p, m->span, "the target of a move in 'path' cannot hold a move: write it as the next constituent");
    }
}

/* atom := '(' path-seq ')' | F */
static Node *parse_path_atom(Parser *p)
{
    if (p->tok.kind == TK_LPAREN) {
        Token open = p->tok;
        parse_advance(p);
        Node *group = parse_node(p, ND_GROUP, tok_span(open), 0);
        parse_path_sequence(p, group);
        group->span = span_join(group->span, tok_span(p->tok));
        parse_expect_closing(p, TK_RPAREN, open);
        group->type = VT_NONE;
        return group;
    }
    Node *atom = parse_regex_filter(p, "'path'", REGEX_PATH);
    if (atom->kind == ND_DASH) check_path_target(p, atom);
    return atom;
}

/* A path parameter that may be given once: "multiple 'max' specifications
 * in 'path'" otherwise (CQL 6.2). */
static void path_param_once(Parser *p, Node *n, uint64_t flag, Token t)
{
    if (n->flags & flag)
        parse_fail(p, tok_span(t), "multiple '%.*s' specifications in 'path'", (int)t.len, p->src->text + t.start);
    n->flags |= flag;
}

/* singlecolor and focus both say which pieces a path follows (CQL 6.2
 * refuses the two together, in either order). */
static void refuse_singlecolor_with_focus(Parser *p, Token second)
{
    parse_fail(p, tok_span(second), "'singlecolor' and 'focus' exclude each other in 'path'");
}

/* path := ('path' | '⊢') {path-param} path-seq
 * path-param := 'quiet' | 'primary' | 'firstmatch' | 'lastposition' |
 *               'nestban' | 'keepallbest' | 'max' F | 'piecepath' |
 *               'verbose' | 'title' string | int [int] | 'count' | 'singlecolor' |
 *               ('focus' | '◎') ['capture'] S
 * Each may be given once, but lastposition and title (the last title wins);
 * a second range ends the parameters. singlecolor is a focus on the side to
 * move, so it excludes focus; primary may not go with focus. The path ends
 * where no constituent can be parsed, at a closing bracket, or at a blank
 * line (CQL 6.2). */
Node *parse_path(Parser *p)
{
    static const FlagParam params[] = {
        {TK_QUIET, NF_QUIET}, {TK_PRIMARY, NF_PRIMARY}, {TK_FIRSTMATCH, NF_FIRSTMATCH},
        {TK_NESTBAN, NF_NESTBAN}, {TK_KEEPALLBEST, NF_KEEPALLBEST}, {TK_PIECEPATH, NF_PIECEPATH},
        {TK_VERBOSE, NF_VERBOSE}, {TK_SINGLECOLOR, NF_SINGLECOLOR},
    };
    Token kw = p->tok;
    parse_advance(p);
    Node *n = parse_node(p, ND_PATH, tok_span(kw), 0);
    n->num = n->num2 = -1;
    Token focus_tok = {0}, primary_tok = {0};
    for (;;) {
        Token t = p->tok;
        bool flag = false;
        for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
            if (params[i].tok == t.kind) {
                path_param_once(p, n, params[i].flag, t);
                flag = true;
            }
        if (flag) {
            if (t.kind == TK_PRIMARY) primary_tok = t;
            if (t.kind == TK_SINGLECOLOR && focus_tok.len) refuse_singlecolor_with_focus(p, t);
            parse_advance(p);
        } else if (t.kind == TK_LASTPOSITION) {
            n->flags |= NF_LASTPOSITION;
            parse_advance(p);
        } else if (t.kind == TK_SECONDARY) {
            parse_fail(p, tok_span(t), "'secondary' is not supported with 'path'");
        } else if ((t.kind == TK_INT || t.kind == TK_COUNT) && !ast_has_range(n)) {
            parse_sequence_range(p, n, "path");
            if (n->num2 < n->num) parse_fail(p, span_join(tok_span(t), tok_span(p->prev)), "the range of 'path' is empty");
        } else if (t.kind == TK_MAX) {
            path_param_once(p, n, NF_MAX, t);
            parse_advance(p);
            if (p->tok.kind == TK_MAX && parse_peek(p, 1)->kind != TK_LPAREN) path_param_once(p, n, NF_MAX, p->tok);
            parse_expect_filter(p, t.kind);
            Node *max = parse_node(p, ND_PATH_MAX, tok_span(t), 1);
            max->kids[0] = parse_expr(p, PREC_REL);
            parse_check(p, max->kids[0]->span, sema_require(p->a, max->kids[0], TM_NUMBER, "the value of 'path max'"));
            max->span = span_join(max->span, max->kids[0]->span);
            ast_push(p->a, n, max);
        } else if (t.kind == TK_TITLE) {
            parse_advance(p);
            Token title = parse_expect(p, TK_STRING, "a string after 'title'");
            n->text = parse_decode_string(p, title);
        } else if (t.kind == TK_FOCUS) {
            if (focus_tok.len) parse_fail(p, tok_span(t), "multiple 'focus' specifications in 'path'");
            if (n->flags & NF_SINGLECOLOR) refuse_singlecolor_with_focus(p, t);
            focus_tok = t;
            parse_advance(p);
            Node *focus = parse_node(p, ND_PATH_FOCUS, tok_span(t), 1);
            if (parse_accept(p, TK_CAPTURE)) focus->flags |= NF_CAPTURE;
            parse_expect_filter(p, t.kind);
            focus->kids[0] = parse_expr(p, PREC_UNION);
            parse_check(p, focus->kids[0]->span, sema_require(p->a, focus->kids[0], TM_SET, "the focus of 'path'"));
            focus->span = span_join(focus->span, focus->kids[0]->span);
            ast_push(p->a, n, focus);
        } else {
            break;
        }
    }
    if (focus_tok.len && primary_tok.len)
        parse_fail(p, tok_span(primary_tok), "'primary' cannot be used with 'focus' in 'path'");
    if ((n->flags & NF_PIECEPATH) && !focus_tok.len && !(n->flags & NF_SINGLECOLOR))
        parse_fail(p, n->span,
                   "the 'piecepath' parameter to 'path' can only be used when 'focus' or 'singlecolor' gives the pieces to follow");
    if (closes_sequence(p->tok.kind) || blank_line_before(p))
        parse_fail_expected(p, "a move or filter after 'path'");
    parse_path_sequence(p, n);
    n->span = span_join(n->span, tok_span(p->prev));
    /* lastposition: the value is the position where the best path ends */
    n->type = (n->flags & NF_LASTPOSITION) ? VT_POSITION : VT_NUMBER;
    return n;
}

/* }==== */
