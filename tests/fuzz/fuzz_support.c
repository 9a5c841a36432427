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

#include "query/ast.h"
#include "chess/attacks.h"
#include "chess/position.h"
#include "pgn/reader.h"
#include "query/transform.h"

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

bool fuzz_is_query_file(const char *text, size_t len)
{
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) i++;
    return (len - i >= 3 && memcmp(text + i, "cql", 3) == 0) || (i < len && text[i] == '(');
}

char *fuzz_strndup(const uint8_t *data, size_t size)
{
    char *s = xmalloc(size + 1);
    if (size) memcpy(s, data, size);
    s[size] = '\0';
    return s;
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
 * space, the ends trimmed (see new_comment in src/pgn/reader_parse.c). */
static void normalise_comment(const char *text, StrBuf *out)
{
    sb_clear(out);
    sb_append(out, "");
    for (const char *s = text; *s; s++) {
        char c = *s;
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

/* The comments a node should have after reading back, in order. */
typedef struct ExpectedComments {
    StrBuf *list;
    size_t count, cap;
} ExpectedComments;

static void expect_comment(ExpectedComments *e, const char *text)
{
    if (e->count == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 4;
        e->list = xrealloc(e->list, e->cap * sizeof *e->list);
        for (size_t i = e->count; i < e->cap; i++) e->list[i] = (StrBuf)SB_INIT;
    }
    normalise_comment(text, &e->list[e->count++]);
}

static void expected_free(ExpectedComments *e)
{
    for (size_t i = 0; i < e->cap; i++) sb_free(&e->list[i]);
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
    size_t i = 0;
    for (; got && i < want->count; got = got->next, i++)
        if (strcmp(got->text, sb_str(&want->list[i])) != 0)
            round_trip_fail(rt, at, "%scomment %zu is \"%s\" when read back, not \"%s\"", which,
                            i + 1, got->text, sb_str(&want->list[i]));
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
    for (const Comment *c = a->pre_comments; c; c = c->next) expect_comment(&want, c->text);
    check_comments(rt, a, "leading ", &want, b->pre_comments);
    want.count = 0;
    const char *note = note_of(rt, a);
    const PgnAnnotations *notes = rt->notes;
    bool dropped = notes && notes->drop_comments && notes->drop_comments[a->id];   /* removecomment */
    const Comment *c = dropped ? NULL : a->comments;
    if (a->parent == NULL && note && c) {
        /* the driver's note goes inside the game's last opening comment */
        for (; c->next; c = c->next) expect_comment(&want, c->text);
        StrBuf merged = SB_INIT;
        sb_printf(&merged, "%s%s%s", c->text, c->text[0] ? " " : "", note);
        expect_comment(&want, sb_str(&merged));
        sb_free(&merged);
    } else {
        for (; c; c = c->next) expect_comment(&want, c->text);
        if (note) expect_comment(&want, note);
    }
    if (rt->game->truncated && rt->game->unread_text && a == last_mainline_node(rt->game)) {
        /* the unread rest of the movetext, kept as a comment */
        StrBuf rest = SB_INIT;
        sb_printf(&rest, "cql: the rest of this game could not be read: %s", rt->game->unread_text);
        expect_comment(&want, sb_str(&rest));
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
    const Tag *t = notes ? game_tag_find(notes->tags, notes->ntags, name) : NULL;
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
        if (!got || strcmp(got, want) != 0)
            round_trip_fail(rt, NULL, "tag [%s \"%s\"] reads back as %s%s%s", name, want,
                            got ? "\"" : "", got ? got : "missing", got ? "\"" : "");
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
/* {==== whole positions ===================================================== */

void fuzz_check_tree_whole(const GameNode *root, const char *what)
{
    size_t cap = 64, count = 0;
    const GameNode **stack = malloc(cap * sizeof *stack);
    if (!stack) fuzz_fail("memory", "no stack");
    stack[count++] = root;
    while (count) {
        const GameNode *n = stack[--count];
        if (!pos_is_ok(&n->pos)) fuzz_fail(what, "a position of the tree is broken (node %d)", n->id);
        for (const GameNode *c = n->child; c; c = c->sibling) {
            if (count == cap) {
                cap *= 2;
                const GameNode **more = realloc(stack, cap * sizeof *stack);
                if (!more) fuzz_fail("memory", "no stack");
                stack = more;
            }
            stack[count++] = c;
        }
    }
    free(stack);
}

/* }==== */
