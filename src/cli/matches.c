/*
 * src/cli/matches.c — the records of cql -matches (see matches.h): for
 * each matched position its game (number in the run, input and number
 * there, the main tags), where it is (position id, ply, move number, side
 * to move, the move into it, its FEN, its variation) and the comments the
 * query wrote there, in one of three forms. docs/matches.md describes the
 * fields; a new field goes there, into each form here, and into the tests
 * (tests/run-matches.sh).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/matches.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/escape.h"

/* The tags a record carries, under their names in JSON and TSV. */
static const struct {
    const char *tag, *field;
    bool rating;   /* a number, or null when it is none ("?", "") */
} main_tags[] = {
    {"White", "white", false}, {"Black", "black", false}, {"Event", "event", false},
    {"Site", "site", false},   {"Date", "date", false},   {"Result", "result", false},
    {"ECO", "eco", false},     {"WhiteElo", "white_elo", true}, {"BlackElo", "black_elo", true},
};
enum { MAIN_TAGS = sizeof main_tags / sizeof main_tags[0] };

/* The fields of a record after the tags, in order (the TSV header). */
static const char *const position_fields[] = {"position_id", "ply", "move_number", "to_move", "san",
                                              "fen", "in_variation", "variation", "comments"};

bool matches_format(const char *named, const char *file, MatchFormat *format, CqlMessages *m)
{
    static const struct {
        const char *name;
        MatchFormat format;
    } forms[] = {{"jsonl", MATCH_JSONL}, {"json", MATCH_JSONL}, {"tsv", MATCH_TSV}, {"epd", MATCH_EPD}};
    const char *dot = strrchr(file, '.');
    const char *name = named ? named : strcmp(file, "-") == 0 ? "jsonl" : dot && !strchr(dot, '/') ? dot + 1 : "";
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        if (strcmp(name, forms[i].name) == 0) {
            *format = forms[i].format;
            return true;
        }
    if (named)
        cql_report(m, CQL_ERROR, "option '-matchformat' needs jsonl, tsv or epd, not '%s'", named);
    else
        cql_report(m, CQL_ERROR, "-matches '%s': name a .jsonl, .tsv or .epd file, or give -matchformat "
                   "jsonl, tsv or epd", file);
    return false;
}

const char *match_tag(const CqlRunGame *g, const char *name)
{
    for (int i = 0; i < g->ntags; i++)
        if (strcmp(g->tags[i].name, name) == 0) return g->tags[i].value;
    return NULL;
}

/* A rating's value: its digits, or NULL when it is none ("?", "-", ""). */
static const char *rating(const char *value)
{
    size_t digits = value ? strspn(value, "0123456789") : 0;
    return digits > 0 && digits <= 6 && !value[digits] ? value : NULL;
}

/* Each form writes a game's part of its records once (the fields of the
 * game, the same in each), then each record: the game's part and the
 * position's. A record is made of appends (printf costs more than the rest
 * of a record: docs/performance.md). */

static void put(CqlText *out, const char *s)
{
    cql_text_append(out, s, strlen(s));
}

static void put_number(CqlText *out, long n)
{
    char digits[24], *d = digits + sizeof digits;
    unsigned long u = n < 0 ? 0UL - (unsigned long)n : (unsigned long)n;
    do *--d = (char)('0' + u % 10); while (u /= 10);
    if (n < 0) *--d = '-';
    cql_text_append(out, d, (size_t)(digits + sizeof digits - d));
}

/* {==== JSON Lines ============================================================ */

/* A field after the first: its key, written `, "KEY": ` */
static void json_number(CqlText *out, const char *key, long n)
{
    put(out, key);
    put_number(out, n);
}

static void json_text_or_null(CqlText *out, const char *key, const char *value, bool number)
{
    put(out, key);
    if (!value) cql_text_append(out, "null", 4);
    else if (number) put(out, value);
    else escape_json(out, value);
}

static void json_game(CqlText *out, const CqlRunGame *g)
{
    put(out, "{\"game\": ");
    put_number(out, g->number);
    json_text_or_null(out, ", \"input\": ", g->input, false);
    json_number(out, ", \"index\": ", g->index);
    CqlText key = {NULL, 0, 0};
    for (size_t t = 0; t < MAIN_TAGS; t++) {
        const char *value = match_tag(g, main_tags[t].tag);
        cql_text_clear(&key);
        cql_text_printf(&key, ", \"%s\": ", main_tags[t].field);
        json_text_or_null(out, key.data, main_tags[t].rating ? rating(value) : value, main_tags[t].rating);
    }
    cql_text_free(&key);
}

static void json_position(CqlText *out, const CqlPosition *p)
{
    json_number(out, ", \"position_id\": ", p->id);
    json_number(out, ", \"ply\": ", p->ply);
    json_number(out, ", \"move_number\": ", p->move_number);
    put(out, p->white_to_move ? ", \"to_move\": \"white\"" : ", \"to_move\": \"black\"");
    json_text_or_null(out, ", \"san\": ", p->san[0] ? p->san : NULL, false);
    json_text_or_null(out, ", \"fen\": ", p->fen, false);
    put(out, p->in_variation ? ", \"in_variation\": true" : ", \"in_variation\": false");
    json_text_or_null(out, ", \"variation\": ", p->variation, false);
    json_text_or_null(out, ", \"comments\": ", p->comments, false);
    cql_text_append(out, "}\n", 2);
}

/* }==== */

/* {==== TSV =================================================================== */

static void tsv_header(CqlText *out)
{
    cql_text_printf(out, "game\tinput\tindex");
    for (size_t t = 0; t < MAIN_TAGS; t++) cql_text_printf(out, "\t%s", main_tags[t].field);
    for (size_t f = 0; f < sizeof position_fields / sizeof position_fields[0]; f++)
        cql_text_printf(out, "\t%s", position_fields[f]);
    cql_text_append(out, "\n", 1);
}

static void tsv_field(CqlText *out, const char *value)
{
    cql_text_append(out, "\t", 1);
    if (value) escape_tsv(out, value);
}

static void tsv_number(CqlText *out, long n)
{
    cql_text_append(out, "\t", 1);
    put_number(out, n);
}

static void tsv_game(CqlText *out, const CqlRunGame *g)
{
    put_number(out, g->number);
    tsv_field(out, g->input);
    tsv_number(out, g->index);
    for (size_t t = 0; t < MAIN_TAGS; t++) {
        const char *value = match_tag(g, main_tags[t].tag);
        tsv_field(out, main_tags[t].rating ? rating(value) : value);
    }
}

static void tsv_position(CqlText *out, const CqlPosition *p)
{
    tsv_number(out, p->id);
    tsv_number(out, p->ply);
    tsv_number(out, p->move_number);
    put(out, p->white_to_move ? "\twhite" : "\tblack");
    tsv_field(out, p->san);
    tsv_field(out, p->fen);
    put(out, p->in_variation ? "\ttrue" : "\tfalse");
    tsv_field(out, p->variation);
    tsv_field(out, p->comments);
    cql_text_append(out, "\n", 1);
}

/* }==== */

/* {==== EPD =================================================================== */

/* ` OPCODE "TEXT";` */
static void epd_string(CqlText *out, const char *opcode, const char *text)
{
    cql_text_printf(out, " %s \"", opcode);
    escape_epd(out, text);
    cql_text_append(out, "\";", 2);
}

/* A record is the four fields of the FEN, then hmvc and fmvn from its last
 * two; id "game G position P"; c0 the players, event, site, date and
 * result; c1 the input and the game's number there; c2 the move into the
 * position (and its variation); c3 the query's comments, when it wrote
 * any. The game's part is c0 and c1, which the position's part puts in
 * place after its id (the number of the position is in the id). */
static void epd_game(CqlText *out, const CqlRunGame *g)
{
    static const char *const c0_tags[] = {"Event", "Site", "Date", "Result"};
    CqlText about = {NULL, 0, 0};
    const char *white = match_tag(g, "White"), *black = match_tag(g, "Black");
    cql_text_printf(&about, "%s - %s", white ? white : "?", black ? black : "?");
    for (size_t t = 0; t < sizeof c0_tags / sizeof c0_tags[0]; t++) {
        const char *value = match_tag(g, c0_tags[t]);
        if (value) cql_text_printf(&about, ", %s", value);
    }
    epd_string(out, "c0", about.data);
    cql_text_clear(&about);
    cql_text_printf(&about, "%s game %ld", g->input, g->index);
    epd_string(out, "c1", about.data);
    cql_text_free(&about);
}

static void epd_position(CqlText *out, const CqlText *game_part, long game, const CqlPosition *p)
{
    const char *fen = p->fen, *field = fen;
    for (int spaces = 0; spaces < 4 && (field = strchr(field, ' ')); spaces++) field++;
    if (!field) return;   /* the library's FEN has six fields */
    cql_text_append(out, fen, (size_t)(field - 1 - fen));
    char *end;
    long halfmoves = strtol(field, &end, 10), fullmove = strtol(end, NULL, 10);
    put(out, " hmvc ");
    put_number(out, halfmoves);
    put(out, "; fmvn ");
    put_number(out, fullmove);
    put(out, "; id \"game ");
    put_number(out, game);
    put(out, " position ");
    put_number(out, p->id);
    put(out, "\";");
    cql_text_append(out, game_part->data, game_part->len);
    put(out, " c2 \"");
    if (p->san[0]) {
        put_number(out, p->move_number);
        put(out, p->white_to_move ? "..." : ".");
        escape_epd(out, p->san);
    } else {
        put(out, "start");
    }
    if (p->variation[0]) {
        put(out, " (variation ");
        put(out, p->variation);
        put(out, ")");
    }
    cql_text_append(out, "\";", 2);
    if (p->comments[0]) epd_string(out, "c3", p->comments);
    cql_text_append(out, "\n", 1);
}

/* }==== */

int matches_open(MatchesFile *f, const char *name, MatchFormat format, const OutputInputs *inputs,
                 bool noclobber, CqlMessages *m)
{
    memset(f, 0, sizeof *f);
    f->format = format;
    if (output_open(&f->out, name, inputs, noclobber, m) != 0) return -1;
    if (format == MATCH_TSV) {
        tsv_header(&f->text);
        output_write(&f->out, f->text.data, f->text.len);
        cql_text_clear(&f->text);
    }
    return 0;
}

bool matches_write_game(MatchesFile *f, const CqlRunGame *g)
{
    cql_text_clear(&f->text);
    cql_text_clear(&f->game);
    switch (f->format) {
    case MATCH_JSONL: json_game(&f->game, g); break;
    case MATCH_TSV: tsv_game(&f->game, g); break;
    case MATCH_EPD: epd_game(&f->game, g); break;
    }
    for (int i = 0; i < g->npositions; i++) {
        const CqlPosition *p = &g->positions[i];
        if (f->format == MATCH_EPD) {
            epd_position(&f->text, &f->game, g->number, p);
            continue;
        }
        cql_text_append(&f->text, f->game.data, f->game.len);
        if (f->format == MATCH_JSONL) json_position(&f->text, p);
        else tsv_position(&f->text, p);
    }
    return f->text.len == 0 || output_write(&f->out, f->text.data, f->text.len);
}

int matches_close(MatchesFile *f, bool ok, CqlMessages *m)
{
    cql_text_free(&f->text);
    cql_text_free(&f->game);
    return output_close(&f->out, ok, m);
}
