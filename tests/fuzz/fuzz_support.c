/*
 * tests/fuzz/fuzz_support.c — shared pieces of the fuzz harnesses (see
 * fuzz_support.h): a quiet sink, fuzz_fail, and the PGN write/read-back check.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "fuzz_support.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "attacks.h"
#include "pgn_reader.h"
#include "transform.h"

/* {==== messages and failing ================================================ */

/* The last messages a harness's sink received, shown when a check fails. */
static StrBuf last_messages = SB_INIT;

static void keep_message(void *ctx, DiagSeverity sev, const char *text)
{
    (void)ctx;
    (void)sev;
    if (last_messages.len > 4096) sb_clear(&last_messages);
    sb_append(&last_messages, text);
}

void fuzz_quiet_sink(DiagSink *d)
{
    sb_clear(&last_messages);
    diag_sink_init(d, keep_message, NULL);
}

void fuzz_fail(const char *what, const char *fmt, ...)
{
    fprintf(stderr, "\n==== %s: %s\n", fuzz_harness_name, what);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (last_messages.len)
        fprintf(stderr, "\n==== the last messages of the library:\n%s", sb_str(&last_messages));
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}

void fuzz_init_library(void)
{
    static bool done;
    if (done) return;
    att_init();
    xf_init();
    done = true;
}

char *fuzz_strndup(const uint8_t *data, size_t size)
{
    char *s = xmalloc(size + 1);
    if (size) memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* The most orbit members the transforms at and below n can make: a
 * transform multiplies what its argument makes by its family's size. */
static double orbit_bound(const Node *n)
{
    if (!n) return 0;
    double inside = 0;
    for (uint32_t i = 0; i < n->nkids; i++) inside += orbit_bound(n->kids[i]);
    if (n->kind != ND_TRANSFORM) return inside;
    XfMap family[XF_FAMILY_MAX];
    int members = xf_family(n->op, family);
    return (inside > 1 ? inside : 1) * (members > 0 ? members : 1);
}

bool fuzz_skip_large_orbits(const struct Query *q, double limit)
{
    return FUZZ_SKIPPING_KNOWN && orbit_bound(q->body) > limit;
}

bool fuzz_skip_lone_cr(const char *text, size_t len)
{
    if (!FUZZ_SKIPPING_KNOWN) return false;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\r' && (i + 1 == len || text[i + 1] != '\n')) return true;
    return false;
}

/* }==== */

/* {==== the PGN write / read-back check ====================================== */

typedef struct RoundTrip {
    const Game *game;            /* what was written */
    const PgnAnnotations *notes;
    const char *text;            /* the text written, for messages */
} RoundTrip;

static bool pgn_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* What the reader makes of a comment's text: every run of white space one
 * space, the ends trimmed (see new_comment in src/pgn_reader.c). With
 * `braces_as_parens`, { and } become ( and ). */
static void normalise_comment(const char *text, bool braces_as_parens, StrBuf *out)
{
    sb_clear(out);
    sb_append(out, "");
    for (const char *s = text; *s; s++) {
        char c = *s;
        if (braces_as_parens) c = c == '{' ? '(' : c == '}' ? ')' : c;
        if (!pgn_space(c)) sb_putc(out, c);
        else if (out->len > 0 && out->data[out->len - 1] != ' ') sb_putc(out, ' ');
    }
    if (out->len > 0 && out->data[out->len - 1] == ' ') sb_truncate(out, out->len - 1);
}

static _Noreturn void round_trip_fail(const RoundTrip *rt, const GameNode *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void round_trip_fail(const RoundTrip *rt, const GameNode *at, const char *fmt, ...)
{
    StrBuf why = SB_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&why, fmt, ap);
    va_end(ap);
    fuzz_fail("a game written as PGN does not read back the same",
              "game %ld, at ply %d (node %d): %s\n---- the text written:\n%s----",
              rt->game->number, at ? at->ply : -1, at ? at->id : -1, sb_str(&why), rt->text);
}

/* The comments a node should have after reading back, in order. An entry
 * marked `braces_as_parens` is compared with the braces of both texts made
 * parentheses. */
typedef struct ExpectedComment {
    StrBuf text;
    bool braces_as_parens;
} ExpectedComment;

typedef struct ExpectedComments {
    ExpectedComment *list;
    size_t count, cap;
} ExpectedComments;

static void expect_comment(ExpectedComments *e, const char *text, bool braces_as_parens)
{
    if (e->count == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 4;
        e->list = xrealloc(e->list, e->cap * sizeof *e->list);
        for (size_t i = e->count; i < e->cap; i++) e->list[i] = (ExpectedComment){SB_INIT, false};
    }
    ExpectedComment *c = &e->list[e->count++];
    braces_as_parens |= FUZZ_SKIPPING_KNOWN;   /* known: braces in comments become parentheses */
    normalise_comment(text, braces_as_parens, &c->text);
    c->braces_as_parens = braces_as_parens;
}

static void expected_free(ExpectedComments *e)
{
    for (size_t i = 0; i < e->cap; i++) sb_free(&e->list[i].text);
    free(e->list);
}

static const char *note_of(const RoundTrip *rt, const GameNode *n)
{
    const PgnAnnotations *notes = rt->notes;
    return notes && notes->node_comments ? notes->node_comments[n->id] : NULL;
}

/* The last node of the main line: where the writer's "the rest of this game
 * could not be read" comment lands. */
static const GameNode *last_mainline_node(const Game *g)
{
    const GameNode *n = g->root;
    while (n->child) n = n->child;
    return n;
}

static void check_comments(const RoundTrip *rt, const GameNode *at, const char *which,
                           const ExpectedComments *want, const Comment *got)
{
    StrBuf lenient = SB_INIT;
    size_t i = 0;
    for (; got && i < want->count; got = got->next, i++) {
        const ExpectedComment *w = &want->list[i];
        const char *text = got->text;
        if (w->braces_as_parens) {
            normalise_comment(got->text, true, &lenient);
            text = sb_str(&lenient);
        }
        if (strcmp(text, sb_str(&w->text)) != 0)
            round_trip_fail(rt, at, "%scomment %zu is \"%s\" when read back, not \"%s\"", which,
                            i + 1, got->text, sb_str(&w->text));
    }
    sb_free(&lenient);
    if (got || i < want->count) {
        size_t got_count = i;
        for (; got; got = got->next) got_count++;
        round_trip_fail(rt, at, "%zu %scomments read back, %zu written", got_count, which,
                        want->count);
    }
}

/* Compares node a (written) with b (read back): move, glyphs, comments. */
static void check_node(const RoundTrip *rt, const GameNode *a, const GameNode *b)
{
    if (a->move != b->move)
        round_trip_fail(rt, a, "move %#x read back as %#x", (unsigned)a->move, (unsigned)b->move);
    if (a->nag_count != b->nag_count ||
        (a->nag_count && memcmp(a->nags, b->nags, a->nag_count) != 0))
        round_trip_fail(rt, a, "%d NAGs written, %d read back (or different ones)", a->nag_count,
                        b->nag_count);
    ExpectedComments want = {0};
    for (const Comment *c = a->pre_comments; c; c = c->next) expect_comment(&want, c->text, false);
    check_comments(rt, a, "leading ", &want, b->pre_comments);
    want.count = 0;
    const char *note = note_of(rt, a);
    const Comment *c = a->comments;
    if (a->parent == NULL && note && c) {
        /* the driver's note goes inside the game's last opening comment */
        for (; c->next; c = c->next) expect_comment(&want, c->text, false);
        StrBuf merged = SB_INIT;
        sb_printf(&merged, "%s%s%s", c->text, c->text[0] ? " " : "", note);
        expect_comment(&want, sb_str(&merged), false);
        sb_free(&merged);
    } else {
        for (; c; c = c->next) expect_comment(&want, c->text, false);
        if (note) expect_comment(&want, note, false);
    }
    if (rt->game->truncated && rt->game->unread_text && a == last_mainline_node(rt->game)) {
        /* the unread rest of the movetext, kept as a comment whose braces
         * cannot stay braces */
        StrBuf rest = SB_INIT;
        sb_printf(&rest, "cql: the rest of this game could not be read: %s", rt->game->unread_text);
        expect_comment(&want, sb_str(&rest), true);
        sb_free(&rest);
    }
    check_comments(rt, a, "", &want, b->comments);
    expected_free(&want);
}

/* Compares the alternatives a, a->sibling, ... with b, b->sibling, ... and
 * everything after them; the main line is walked without recursion. */
static void check_tree(const RoundTrip *rt, const GameNode *a, const GameNode *b)
{
    while (a || b) {
        if (!a || !b)
            round_trip_fail(rt, a ? a : b->parent, "the game %s when read back",
                            a ? "is shorter" : "has more moves");
        const GameNode *va = a->sibling, *vb = b->sibling;
        for (; va || vb; va = va->sibling, vb = vb->sibling) {
            if (!va || !vb)
                round_trip_fail(rt, a, "%s variations read back", va ? "fewer" : "more");
            check_node(rt, va, vb);
            check_tree(rt, va->child, vb->child);
        }
        check_node(rt, a, b);
        a = a->child;
        b = b->child;
    }
}

/* The value the writer gives tag `name`: the driver's when it set one. */
static const char *written_tag_value(const RoundTrip *rt, const char *name)
{
    const PgnAnnotations *notes = rt->notes;
    const Tag *t = notes ? tag_find(notes->tags, notes->ntags, name) : NULL;
    return t ? t->value : game_tag(rt->game, name);
}

static void check_tags(const RoundTrip *rt, const Game *back)
{
    const Game *g = rt->game;
    int ntags = rt->notes ? rt->notes->ntags : 0;
    for (int i = 0; i < g->tag_count + ntags; i++) {
        const char *name = i < g->tag_count ? g->tags[i].name : rt->notes->tags[i - g->tag_count].name;
        const char *want = written_tag_value(rt, name);
        const char *got = game_tag(back, name);
        StrBuf known = SB_INIT;
        if (FUZZ_SKIPPING_KNOWN) {
            /* known: a CR inside a tag value is dropped when it is written */
            for (const char *c = want; *c; c++)
                if (*c != '\r') sb_putc(&known, *c);
            want = sb_str(&known);
        }
        if (!got || strcmp(got, want) != 0)
            round_trip_fail(rt, NULL, "tag [%s \"%s\"] reads back as %s%s%s", name, want,
                            got ? "\"" : "", got ? got : "missing", got ? "\"" : "");
        sb_free(&known);
    }
}

void fuzz_check_pgn_round_trip(const Game *g, const PgnAnnotations *notes, StrBuf *written)
{
    StrBuf text = SB_INIT;
    pgn_write_game(g, notes, &text);
    RoundTrip rt = {g, notes, sb_str(&text)};

    DiagSink diag;
    fuzz_quiet_sink(&diag);
    RawGame raw;
    raw_game_init(&raw);
    sb_append_n(&raw.text, text.data, text.len);
    raw.first_line = 1;
    raw.number = g->number;
    Arena arena;
    arena_init(&arena, 64 * 1024);
    Game back;
    PgnParseStatus st = pgn_parse_game(&raw, "<written>", &arena, &back, &diag);
    if (st != PGN_OK || diag.errors || diag.warnings)
        round_trip_fail(&rt, NULL, "the text written does not read as a well-formed game (%s)",
                        st == PGN_OK ? "messages" : st == PGN_DAMAGED ? "damaged" : "unusable");
    check_tags(&rt, &back);
    const char *result = game_result(g) ? game_result(g) : "*";
    if (!back.result || strcmp(back.result, result) != 0)
        round_trip_fail(&rt, NULL, "the result '%s' reads back as '%s'", result,
                        back.result ? back.result : "(none)");
    check_node(&rt, g->root, back.root);
    check_tree(&rt, g->root->child, back.root->child);

    /* what was read back is written the same way again */
    StrBuf again = SB_INIT;
    pgn_write_game(&back, NULL, &again);
    if (strcmp(sb_str(&again), sb_str(&text)) != 0)
        round_trip_fail(&rt, NULL, "writing the game read back gives a different text:\n%s",
                        sb_str(&again));
    sb_free(&again);
    if (written) sb_append_n(written, text.data, text.len);
    arena_free(&arena);
    raw_game_free(&raw);
    sb_free(&text);
}

/* }==== */
