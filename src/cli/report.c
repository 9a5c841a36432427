/*
 * src/cli/report.c — the HTML report of cql -report (see report.h).
 *
 * The page is plain HTML with inline CSS and inline SVG, so that it reads
 * the same offline, in a mail and in a browser that runs no script: the
 * pieces are SVG paths defined once (<symbol>) and placed on each board
 * with <use>, the squares a symbol of their own; no font, image or style
 * comes from elsewhere. Every text from the PGN or the query goes through
 * escape_html.
 *
 * A game's moves come from reading its match back (cql_game_parse of the
 * PGN the run hands over): its position ids are those of the game
 * searched, since the match is the game written with comments added.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/report.h"

#include <stdlib.h>
#include <string.h>

#include "cli/escape.h"
#include "cli/html.h"
#include "cli/matches.h"
#include "cli/memory.h"

/* Move numbers counted one by one for the chart; later ones with the last. */
enum { REPORT_MOVES = 1000 };

/* The colours the browser test looks for (tests/run-browser.sh). */
#define LIGHT_SQUARE "#f0d9b5"
#define DARK_SQUARE "#b58863"
#define LIGHT_MARKED "#cdd26a"
#define DARK_MARKED "#aaa23a"
#define WHITE_PIECE "#ffffff"
#define BLACK_PIECE "#1e1e1e"

/* {==== writing helpers ======================================================= */

static void put(CqlText *out, const char *s)
{
    cql_text_append(out, s, strlen(s));
}

static void put_escaped(CqlText *out, const char *s)
{
    escape_html(out, s, strlen(s));
}

static void ignore_message(void *ctx, CqlSeverity severity, const char *text)
{
    (void)ctx, (void)severity, (void)text;
}

/* }==== */

/* {==== the pieces and the board ============================================== */

/* Each piece in a 45 x 45 box: its body, filled with the piece's colour
 * and outlined, then its inner lines, in the other colour. */
static const struct {
    char letter;
    const char *body, *lines;
} piece_shapes[] = {
    {'P',
     "<circle cx='22.5' cy='14' r='5.5'/>"
     "<path d='M17 21.5h11l-1.5 3.5c3.5 2 6 6 6.5 10.5h-21c.5-4.5 3-8.5 6.5-10.5z'/>"
     "<rect x='10.5' y='35' width='24' height='4.5' rx='1.5'/>",
     ""},
    {'R',
     "<path d='M12 8.5h4.5v3.5h4v-3.5h4v3.5h4v-3.5h4.5v8l-3 2.5h-15l-3-2.5z'/>"
     "<path d='M15 19h15l1 13.5h-17z'/>"
     "<rect x='10.5' y='32.5' width='24' height='6.5' rx='1.5'/>",
     "<path d='M12 16.5h21M14 32.5h17'/>"},
    {'N',
     "<path d='M22 10c10.5 1 16.5 8 16 29H15c0-9 10-6.5 8-21'/>"
     "<path d='M24 18c.38 2.91-5.55 7.37-8 9-3 2-2.82 4.34-5 4-1.04-.94 1.41-3.04 0-3-1 0 .19 1.23-1 2-1 0-4 1-4-4 "
     "0-2 6-12 6-12s1.89-1.9 2-3.5c-.73-.99-.5-2-.5-3 1-1 3 2.5 3 2.5h2s.78-1.99 2.5-3c1 0 1 3 1 3'/>",
     "<path d='M9.5 25.5a.5.5 0 1 1-1 0 .5.5 0 1 1 1 0M15 15.5a.5 1.5 0 1 1-1 0 .5 1.5 0 1 1 1 0'/>"},
    {'B',
     "<path d='M9 36c3.4-1 10.1.4 13.5-2 3.4 2.4 10.1 1 13.5 2 0 0 1.6.5 3 2-.7 1-1.6 1-3 .5-3.4-1-10.1.5-13.5-1"
     "-3.4 1.5-10.1 0-13.5 1-1.4.5-2.3.5-3-.5 1.4-1.9 3-2 3-2z'/>"
     "<path d='M15 32c2.5 2.5 12.5 2.5 15 0 .5-1.5 0-2 0-2 0-2.5-2.5-4-2.5-4 5.5-1.5 6-11.5-5-15.5-11 4-10.5 14-5 15.5"
     " 0 0-2.5 1.5-2.5 4 0 0-.5.5 0 2z'/>"
     "<circle cx='22.5' cy='8' r='2.5'/>",
     "<path d='M17.5 26h10M15 30h15M22.5 15.5v5M20 18h5'/>"},
    {'Q',
     "<path d='M9 26c8.5-1.5 21-1.5 27 0l2.5-12.5L31 25l-.3-14.1-5.2 13.6-3-14.5-3 14.5-5.2-13.6L14 25 6.5 13.5z'/>"
     "<path d='M9 26c0 2 1.5 2 2.5 4 1 1.5 1 1 .5 3.5-1.5 1-1.5 2.5-1.5 2.5-1.5 1.5.5 2.5.5 2.5 6.5 1 16.5 1 23 0 "
     "0 0 1.5-1 0-2.5 0 0 .5-1.5-1-2.5-.5-2.5-.5-2 .5-3.5 1-2 2.5-2 2.5-4-8.5-1.5-18.5-1.5-27 0z'/>"
     "<circle cx='6' cy='12' r='2'/><circle cx='14' cy='9' r='2'/><circle cx='22.5' cy='8' r='2'/>"
     "<circle cx='31' cy='9' r='2'/><circle cx='39' cy='12' r='2'/>",
     "<path d='M11 38.5a35 35 1 0 0 23 0M11 29a35 35 1 0 1 23 0M12.5 31.5h20'/>"},
    {'K',
     "<path d='M22.5 11.63V6M20 8h5' fill='none'/>"
     "<path d='M22.5 25s4.5-7.5 3-10.5c0 0-1-2.5-3-2.5s-3 2.5-3 2.5c-1.5 3 3 10.5 3 10.5'/>"
     "<path d='M11.5 37c5.5 3.5 15.5 3.5 21 0v-7s9-4.5 6-10.5c-4-6.5-13.5-3.5-16 4V27v-3.5c-3.5-7.5-13-10.5-16-4"
     "-3 6 5 10 5 10V37z'/>",
     "<path d='M11.5 30c5.5-3 15.5-3 21 0M11.5 33.5c5.5-3 15.5-3 21 0M11.5 37c5.5-3 15.5-3 21 0'/>"},
};
enum { PIECE_KINDS = sizeof piece_shapes / sizeof piece_shapes[0] };

/* The symbols every board uses, in an SVG of no size: the twelve pieces
 * (cql-wK ... cql-bp) and the board with its coordinates (cql-board). */
static void put_symbols(CqlText *out)
{
    put(out, "<svg class=\"defs\" width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\">"
             "<defs>\n");
    for (int colour = 0; colour < 2; colour++)
        for (int k = 0; k < PIECE_KINDS; k++) {
            const char *fill = colour ? BLACK_PIECE : WHITE_PIECE, *line = colour ? WHITE_PIECE : BLACK_PIECE;
            cql_text_printf(out,
                            "<symbol id=\"cql-%c%c\" viewBox=\"0 0 45 45\"><g fill=\"%s\" stroke=\"%s\" "
                            "stroke-width=\"1.5\" stroke-linecap=\"round\" stroke-linejoin=\"round\">%s"
                            "<g fill=\"none\" stroke=\"%s\">%s</g></g></symbol>\n",
                            colour ? 'b' : 'w', piece_shapes[k].letter, fill, BLACK_PIECE, piece_shapes[k].body,
                            line, piece_shapes[k].lines);
        }
    put(out, "<symbol id=\"cql-board\" viewBox=\"0 0 360 360\"><rect width=\"360\" height=\"360\" fill=\""
             LIGHT_SQUARE "\"/><path fill=\"" DARK_SQUARE "\" d=\"");
    for (int row = 0; row < 8; row++)
        for (int col = 0; col < 8; col++)
            if ((row + col) % 2) cql_text_printf(out, "M%d %dh45v45h-45z", col * 45, row * 45);
    put(out, "\"/><g font-size=\"9\" font-family=\"sans-serif\">");
    for (int i = 0; i < 8; i++) {
        /* a file's letter at the foot of its square on rank 1, a rank's number at the top of the a-file's */
        cql_text_printf(out, "<text x=\"%d\" y=\"357\" fill=\"%s\">%c</text>", i * 45 + 38,
                        i % 2 ? DARK_SQUARE : LIGHT_SQUARE, 'a' + i);
        cql_text_printf(out, "<text x=\"2\" y=\"%d\" fill=\"%s\">%d</text>", i * 45 + 10,
                        i % 2 ? LIGHT_SQUARE : DARK_SQUARE, 8 - i);
    }
    put(out, "</g></symbol>\n</defs></svg>\n");
}

/* A square's colour on the board: a1 dark. */
static bool is_dark(int col, int row)
{
    return (col + row) % 2 == 1;
}

/* The board of a position: the squares, the move into it marked (its two
 * squares tinted), the pieces of its FEN. */
static void put_board(CqlText *out, const CqlPosition *p, const char *label)
{
    put(out, "<svg class=\"board\" viewBox=\"0 0 360 360\" role=\"img\" aria-label=\"");
    put_escaped(out, label);
    put(out, "\"><use href=\"#cql-board\" width=\"360\" height=\"360\"/>");
    int marked[2] = {p->from, p->to};
    for (int i = 0; i < 2; i++) {
        if (marked[i] < 0 || marked[i] > 63) continue;
        int col = marked[i] % 8, row = 7 - marked[i] / 8;
        cql_text_printf(out, "<rect class=\"marked\" x=\"%d\" y=\"%d\" width=\"45\" height=\"45\" fill=\"%s\"/>",
                        col * 45, row * 45, is_dark(col, row) ? DARK_MARKED : LIGHT_MARKED);
    }
    int row = 0, col = 0;
    for (const char *c = p->fen; *c && *c != ' ' && row < 8; c++) {
        if (*c == '/') {
            row++, col = 0;
        } else if (*c >= '1' && *c <= '8') {
            col += *c - '0';
        } else if (strchr("KQRBNPkqrbnp", *c) && col < 8) {
            bool white = *c >= 'A' && *c <= 'Z';
            cql_text_printf(out, "<use href=\"#cql-%c%c\" x=\"%d\" y=\"%d\" width=\"45\" height=\"45\"/>",
                            white ? 'w' : 'b', white ? *c : *c - 'a' + 'A', col * 45, row * 45);
            col++;
        }
    }
    put(out, "</svg>");
}

/* }==== */

/* {==== a game's section ====================================================== */

/* "23...Nxe5" or "the start" */
static void put_move_name(CqlText *out, const CqlPosition *p)
{
    if (!p->san[0]) {
        put(out, "the start");
        return;
    }
    cql_text_printf(out, "%d%s", p->move_number, p->white_to_move ? "\xE2\x80\xA6" : ".");
    put_escaped(out, p->san);
}

static void anchor(CqlText *out, long game, int id)
{
    cql_text_printf(out, "g%ld-p%d", game, id);
}

/* A matched position: its board and what it is. */
static void put_position(CqlText *out, const CqlRunGame *g, const CqlPosition *p)
{
    CqlText label = {NULL, 0, 0};
    cql_text_printf(&label, "Position %d: after ", p->id);
    put_move_name(&label, p);
    cql_text_printf(&label, ", %s to move", p->white_to_move ? "White" : "Black");
    put(out, "<figure class=\"pos\" id=\"");
    anchor(out, g->number, p->id);
    put(out, "\">");
    put_board(out, p, label.data);
    cql_text_free(&label);
    put(out, "<figcaption><b>");
    if (p->san[0]) put(out, "after "), put_move_name(out, p);
    else put(out, "the start");
    cql_text_printf(out, "</b> <span class=\"side %s\"></span>%s to move", p->white_to_move ? "w" : "b",
                    p->white_to_move ? "White" : "Black");
    if (p->variation[0]) {
        put(out, "<br><span class=\"note\">in the variation ");
        put_escaped(out, p->variation);
        put(out, "</span>");
    }
    if (p->comments[0]) {
        put(out, "<br><span class=\"wrote\">");
        put_escaped(out, p->comments);
        put(out, "</span>");
    }
    put(out, "</figcaption></figure>\n");
}

/* One move of the listing, linked to its board when it matched. */
static void put_listed_move(Report *r, CqlText *out, long game, int id, bool number, const bool *matched)
{
    CqlPosition p;
    cql_text_clear(&r->scratch);
    cql_game_describe(r->game, id, &p, &r->scratch);
    if (!p.white_to_move) cql_text_printf(out, "%d.", p.move_number);
    else if (number) cql_text_printf(out, "%d\xE2\x80\xA6", p.move_number);
    if (matched[id]) {
        put(out, "<a class=\"hit\" href=\"#");
        anchor(out, game, id);
        put(out, "\">");
    }
    put_escaped(out, p.san);
    put(out, matched[id] ? "</a> " : " ");
}

/* The moves of the game read back, in PGN order (each variation after the
 * move it is an alternative to), without recursion: a variation may be
 * nested thousands deep. */
static void put_moves(Report *r, CqlText *out, long game, const bool *matched)
{
    typedef struct Open {
        int resume;      /* the main move the variations are alternatives to: the line goes on after it */
        int alternative; /* the variation being written */
    } Open;
    Open *stack = NULL;
    size_t depth = 0, cap = 0;
    int at = 0;
    bool number = true;   /* the next move is numbered even when Black plays it */
    put(out, "<p class=\"moves\">");
    for (;;) {
        int next = cql_game_child(r->game, at);
        if (next >= 0) {
            put_listed_move(r, out, game, next, number, matched);
            number = false;
            int alternative = cql_game_sibling(r->game, next);
            if (alternative >= 0) {
                if (depth == cap) stack = cli_realloc(stack, (cap = cap ? 2 * cap : 16) * sizeof *stack);
                stack[depth++] = (Open){next, alternative};
                put(out, "<span class=\"var\">(");
                put_listed_move(r, out, game, alternative, true, matched);
                next = alternative;
            }
            at = next;
            continue;
        }
        if (depth == 0) break;
        out->len--;   /* the blank after the last move */
        put(out, ")</span> ");
        Open *top = &stack[depth - 1];
        int alternative = cql_game_sibling(r->game, top->alternative);
        if (alternative >= 0) {
            top->alternative = alternative;
            put(out, "<span class=\"var\">(");
            put_listed_move(r, out, game, alternative, true, matched);
            at = alternative;
            continue;
        }
        at = top->resume;
        depth--;
        number = true;
    }
    put(out, "</p>\n");
    free(stack);
}

/* The heading: the game's number and players, then where it is from and
 * the tags most people look for. */
static void put_heading(CqlText *out, const CqlRunGame *g)
{
    const char *white = match_tag(g, "White"), *black = match_tag(g, "Black");
    cql_text_printf(out, "<h2>Game %ld: ", g->number);
    put_escaped(out, white ? white : "?");
    put(out, " \xE2\x80\x93 ");
    put_escaped(out, black ? black : "?");
    const char *result = match_tag(g, "Result");
    if (result) put(out, ", "), put_escaped(out, result);
    put(out, "</h2>\n<p class=\"where\">");
    put_escaped(out, g->input);
    cql_text_printf(out, ", game %ld", g->index);
    static const char *const shown[] = {"Event", "Site", "Date", "Round", "ECO", "WhiteElo", "BlackElo"};
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
        const char *value = match_tag(g, shown[i]);
        if (!value || !value[0] || strcmp(value, "?") == 0 || strcmp(value, "????.??.??") == 0) continue;
        cql_text_printf(out, " &middot; %s%s", i >= 3 ? shown[i] : "", i >= 3 ? " " : "");
        put_escaped(out, value);
    }
    cql_text_printf(out, " &middot; <b>%d matched position%s</b></p>\n", g->npositions, g->npositions == 1 ? "" : "s");
}

/* Every tag, in a table that opens when asked (without a script). */
static void put_tags(CqlText *out, const CqlRunGame *g)
{
    cql_text_printf(out, "<details><summary>%d tag%s</summary><table class=\"tags\">", g->ntags,
                    g->ntags == 1 ? "" : "s");
    for (int i = 0; i < g->ntags; i++) {
        put(out, "<tr><th>");
        put_escaped(out, g->tags[i].name);
        put(out, "</th><td>");
        put_escaped(out, g->tags[i].value);
        put(out, "</td></tr>");
    }
    put(out, "</table></details>\n");
}

/* Whether the game read back from the match's PGN is the game searched, so
 * that its moves can be listed with the matched ones linked: each matched
 * position's id holds the same position there. */
static bool same_tree(Report *r, const CqlRunGame *g, int count)
{
    for (int i = 0; i < g->npositions; i++) {
        const CqlPosition *p = &g->positions[i];
        CqlPosition back;
        if (p->id >= count) return false;
        cql_text_clear(&r->scratch);
        cql_game_describe(r->game, p->id, &back, &r->scratch);
        if (strcmp(back.fen, p->fen) != 0) return false;
    }
    return count > 0;
}

static void put_game(Report *r, CqlText *out, const CqlRunGame *g)
{
    cql_text_printf(out, "<article class=\"game\" id=\"g%ld\">\n", g->number);
    put_heading(out, g);
    put_tags(out, g);
    CqlMessages quiet = {ignore_message, NULL, 0, 0};
    cql_game_text_set(r->game_text, g->pgn, g->pgn_len, g->index);
    int count = cql_game_parse(r->game, r->game_text, g->input, &quiet) == CQL_GAME_UNUSABLE
                ? 0 : cql_game_positions(r->game);
    if (same_tree(r, g, count)) {
        bool *matched = cli_calloc((size_t)count, sizeof *matched);
        for (int i = 0; i < g->npositions; i++) matched[g->positions[i].id] = true;
        put_moves(r, out, g->number, matched);
        free(matched);
    }
    put(out, "<div class=\"boards\">\n");
    for (int i = 0; i < g->npositions; i++) put_position(out, g, &g->positions[i]);
    put(out, "</div>\n</article>\n");
}

/* }==== */

/* {==== the page ============================================================== */

/* The page is a column: the header, the totals and the chart (written at
 * the end of the run), the games, the footer; `order` shows the totals
 * where a reader looks for them. */
static const char page_style[] =
    "body { font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif;"
    " color: #222; background: #fafaf7; margin: 0 auto; max-width: 1120px; padding: 12px 24px 40px;"
    " display: flex; flex-direction: column; }\n"
    "body > header { order: 1; } body > section.totals { order: 2; } body > main { order: 3; }"
    " body > footer { order: 4; }\n"
    "h1 { font-size: 1.5em; margin: .3em 0; } h2 { font-size: 1.15em; margin: .2em 0; }\n"
    "pre.query { background: #fff; border: 1px solid #ddd; border-radius: 4px; padding: 6px 12px; margin: .5em 0;"
    " white-space: pre-wrap; overflow-wrap: anywhere; font-size: 88%; }\n"
    "table.facts { border-collapse: collapse; margin: .3em 0; font-size: .93em; }\n"
    "table.facts th { text-align: left; font-weight: normal; color: #666; padding: 1px 16px 1px 0; width: 14em;"
    " white-space: nowrap;"
    " vertical-align: top; }\n"
    "table.facts td { padding: 1px 0; }\n"
    ".chart svg { width: 100%; max-width: 720px; height: auto; display: block; }\n"
    "article.game { border-top: 2px solid #ddd; margin-top: 1.6em; padding-top: .6em; }\n"
    "p.where { color: #666; margin: 0 0 .4em; }\n"
    "details { font-size: .88em; color: #666; } summary { cursor: pointer; }\n"
    "table.tags { border-collapse: collapse; margin: .2em 0 .4em; color: #222; }\n"
    "table.tags th { text-align: left; font-weight: normal; color: #666; padding: 0 12px 0 0; }\n"
    "table.tags td { padding: 0; }\n"
    "p.moves { line-height: 1.7; }\n"
    "a.hit { background: #f6e58d; color: #000; font-weight: bold; text-decoration: none; border-radius: 3px;"
    " padding: 0 3px; }\n"
    ".var { color: #777; }\n"
    ".boards { display: flex; flex-wrap: wrap; gap: 18px; }\n"
    "figure.pos { margin: 0; width: 264px; }\n"
    "svg.board { width: 264px; height: 264px; display: block; box-shadow: 0 1px 3px rgba(0,0,0,.35); }\n"
    "figcaption { font-size: .9em; margin-top: 4px; }\n"
    ".side { display: inline-block; width: .8em; height: .8em; border-radius: 50%; border: 1px solid #333;"
    " vertical-align: -1px; margin: 0 3px 0 4px; }\n"
    ".side.w { background: #fff; } .side.b { background: #222; }\n"
    ".wrote { color: #1d5fa0; } .note { color: #777; }\n"
    "footer { margin-top: 2em; color: #777; font-size: .85em; }\n";

/* Inputs named in the header; the others are counted. */
enum { REPORT_INPUTS_NAMED = 20 };

/* One line of a table of facts: its name, and its value as HTML. */
static void fact(CqlText *out, const char *name, const char *value_html)
{
    cql_text_printf(out, "<tr><th>%s</th><td>%s</td></tr>\n", name, value_html);
}

/* The page's header: the title, the query, the inputs and the output. */
static void put_header(const ReportHead *head, CqlText *out)
{
    const char *name = head->query_name ? head->query_name : "-cql";
    put(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>cql report: ");
    put_escaped(out, name);
    put(out, "</title>\n<style>\n");
    put(out, page_style);
    put(out, html_query_style);
    put(out, "</style>\n</head>\n<body>\n");
    put_symbols(out);
    put(out, "<header>\n<h1>cql report: ");
    put_escaped(out, name);
    put(out, "</h1>\n");
    put(out, "<pre class=\"query\">");
    html_query_spans(head->query, out);   /* the options' filters too, after the header */
    put(out, "</pre>\n");
    put(out, "<table class=\"facts\">\n");
    CqlText value = {NULL, 0, 0};
    for (int i = 0; i < head->ninputs && i < REPORT_INPUTS_NAMED; i++) {
        if (i) put(&value, "<br>");
        put_escaped(&value, head->inputs[i]);
    }
    if (head->ninputs > REPORT_INPUTS_NAMED)
        cql_text_printf(&value, "<br>and %d more", head->ninputs - REPORT_INPUTS_NAMED);
    fact(out, head->ninputs == 1 ? "input" : "inputs", value.data ? value.data : "");
    cql_text_clear(&value);
    put_escaped(&value, head->pgn_output);
    fact(out, "matching games written to", value.data);
    cql_text_free(&value);
    put(out, "</table>\n</header>\n<main>\n");
}

/* The bar chart of matched positions by move number: one bar per move, or
 * per 2, 5, 10 ... moves when there are more than 100. */
static void put_chart(const Report *r, CqlText *out)
{
    put(out, "<div class=\"chart\"><h2>Matched positions by move number</h2>\n");
    if (r->positions == 0) {
        put(out, "<p>No position matched.</p></div>\n");
        return;
    }
    static const int widths[] = {1, 2, 5, 10, 20, 50, 100};
    int width = 1;
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        width = widths[i];
        if ((r->max_move + width - 1) / width <= 100) break;
    }
    int bins = (r->max_move + width - 1) / width;
    long *sums = cli_calloc((size_t)bins, sizeof *sums);
    long most = 0;
    for (int b = 0; b < bins; b++) {
        for (int m = b * width + 1; m <= (b + 1) * width && m <= REPORT_MOVES; m++) sums[b] += r->by_move[m];
        if (sums[b] > most) most = sums[b];
    }
    const int left = 44, top = 10, plot_w = 660, plot_h = 120, bottom = 36;
    double bar = (double)plot_w / bins;
    cql_text_printf(out, "<svg viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"matched positions by move number,"
                    " %ld at most\" font-family=\"sans-serif\" font-size=\"11\">\n", left + plot_w + 10,
                    top + plot_h + bottom, most);
    cql_text_printf(out, "<path d=\"M%d %dV%dH%d\" stroke=\"#888\" fill=\"none\"/>\n", left, top, top + plot_h,
                    left + plot_w);
    cql_text_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#555\">%ld</text>"
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#555\">0</text>\n", left - 4, top + 8, most,
                    left - 4, top + plot_h);
    int label_every = bins <= 20 ? 1 : bins <= 50 ? 5 : 10;
    for (int b = 0; b < bins; b++) {
        double h = (double)plot_h * (double)sums[b] / (double)most;
        int first = b * width + 1, last = first + width - 1 < REPORT_MOVES ? first + width - 1 : REPORT_MOVES;
        char moves[48];
        if (width > 1) snprintf(moves, sizeof moves, "moves %d-%d", first, last);
        else snprintf(moves, sizeof moves, "move %d", first);
        if (sums[b])
            cql_text_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#4a7ab0\">"
                            "<title>%s: %ld</title></rect>\n", left + b * bar + bar * 0.1, top + plot_h - h,
                            bar * 0.8, h, moves, sums[b]);
        if (b % label_every == 0)
            cql_text_printf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%d</text>\n",
                            left + b * bar + bar / 2, top + plot_h + 14, first);
    }
    cql_text_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">move number%s</text>\n",
                    left + plot_w / 2, top + plot_h + 30, r->max_move >= REPORT_MOVES ? " (the last bar: that"
                    " move and later)" : "");
    put(out, "</svg></div>\n");
    free(sums);
}

/* The end of the page: the totals of the run, the chart, the footer. */
static void put_totals(const Report *r, const CqlRunTotals *t, double seconds, CqlText *out)
{
    put(out, "</main>\n<section class=\"totals\">\n<table class=\"facts\">\n");
    CqlText value = {NULL, 0, 0};
    cql_text_printf(&value, "%ld of %ld game%s read%s", t->matches, t->games, t->games == 1 ? "" : "s",
                    t->limit_reached ? " (stopped at -limit)" : "");
    fact(out, "matching games", value.data);
    cql_text_clear(&value);
    cql_text_printf(&value, "%ld", r->positions);
    fact(out, "matched positions", value.data);
    cql_text_clear(&value);
    if (r->shown < r->games)
        cql_text_printf(&value, "the first %ld (-reportlimit %ld)", r->shown, r->limit);
    else
        cql_text_printf(&value, "all %ld", r->games);
    fact(out, "games shown", value.data);
    if (t->pgn_errors) {
        cql_text_clear(&value);
        cql_text_printf(&value, "%ld", t->pgn_errors);
        fact(out, "games with PGN errors", value.data);
    }
    cql_text_clear(&value);
    cql_text_printf(&value, "%.3f seconds, %ld thread%s", seconds, t->threads, t->threads == 1 ? "" : "s");
    fact(out, "time", value.data);
    cql_text_free(&value);
    put(out, "</table>\n");
    put_chart(r, out);
    cql_text_printf(out, "</section>\n<footer>Written by cql %s.</footer>\n</body>\n</html>\n", cql_version());
}

/* }==== */

int report_open(Report *r, const char *name, long limit, const ReportHead *head, const OutputInputs *inputs,
                bool noclobber, CqlMessages *m)
{
    memset(r, 0, sizeof *r);
    r->limit = limit < 0 ? REPORT_DEFAULT_LIMIT : limit;
    if (output_open(&r->out, name, inputs, noclobber, m) != 0) return -1;
    r->by_move = cli_calloc(REPORT_MOVES + 1, sizeof *r->by_move);
    r->game = cql_game_new();
    r->game_text = cql_game_text_new();
    put_header(head, &r->text);
    output_write(&r->out, r->text.data, r->text.len);   /* a failure is the first game's, or the close's */
    return 0;
}

bool report_game(Report *r, const CqlRunGame *g)
{
    r->games++;
    r->positions += g->npositions;
    for (int i = 0; i < g->npositions; i++) {
        int move = g->positions[i].move_number;
        move = move < 1 ? 1 : move > REPORT_MOVES ? REPORT_MOVES : move;
        r->by_move[move]++;
        if (move > r->max_move) r->max_move = move;
    }
    if (r->shown >= r->limit) return true;
    r->shown++;
    cql_text_clear(&r->text);
    put_game(r, &r->text, g);
    return output_write(&r->out, r->text.data, r->text.len);
}

int report_close(Report *r, bool ok, const CqlRunTotals *totals, double seconds, CqlMessages *m)
{
    if (ok && totals) {
        cql_text_clear(&r->text);
        put_totals(r, totals, seconds, &r->text);
        ok = output_write(&r->out, r->text.data, r->text.len);
    }
    cql_game_free(r->game);
    cql_game_text_free(r->game_text);
    cql_text_free(&r->text);
    cql_text_free(&r->scratch);
    free(r->by_move);
    return output_close(&r->out, ok, m) == 0 && ok ? 0 : -1;
}
