/*
 * tests/unit/test_filters.c — the table of filters (src/query/filters.def)
 * against the code that reads it: every row the table says is evaluated has
 * an evaluation function and every other row has none; every row is named;
 * the keywords of a row begin it and no other; colour partners are mutual;
 * the direction words carry their masks; the scope column tells the query
 * bodies evaluated once per game from the others. The columns of the
 * evaluator's stops, on probes run over a short game: every value-only row
 * stops the run (or never matches, or gives its own error) where only
 * whether it matches is used, and a filter that stops the run is one its
 * row says may; every row that says it may has a probe that does. The
 * kids column on the contexts it makes, and the gate's "changes nothing"
 * and "reads only tags".
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/strbuf.h"
#include "chess/attacks.h"
#include "chess/san.h"
#include "eval/eval.h"
#include "pgn/game.h"
#include "query/filters.h"
#include "query/lexer.h"
#include "query_test.h"

/* EVAL_YES: a function; EVAL_NOT_YET and EVAL_REPLACED: none, so that
 * "not supported yet" is said before the run and never by a crash. */
static void test_every_row_is_evaluated_or_marked(void **state)
{
    (void)state;
    int failures = 0;
    for (int k = 0; k < ND_COUNT_; k++) {
        const FilterInfo *f = filter_info((NodeKind)k);
        bool has_function = eval_can_evaluate((NodeKind)k);
        if (has_function != (f->evaluated == EVAL_YES)) {
            printf("filter '%s': %s in filters.def, but the evaluator %s a function for it\n", f->name,
                   f->evaluated == EVAL_YES ? "EVAL_YES" : f->evaluated == EVAL_NOT_YET ? "EVAL_NOT_YET" : "EVAL_REPLACED",
                   has_function ? "has" : "has no");
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* Every row has a name (`int` names both the integer and `int F`, as -parse
 * has always printed them). */
static void test_every_row_has_a_name(void **state)
{
    (void)state;
    for (int k = 0; k < ND_COUNT_; k++) {
        const char *name = filter_info((NodeKind)k)->name;
        assert_non_null(name);
        assert_true(name[0] != '\0');
    }
}

/* A row with a keyword shape has spellings, and the others none; every
 * spelling is a keyword that begins exactly its own row. */
static void test_keywords_begin_their_filter(void **state)
{
    (void)state;
    int spellings = 0;
    for (int k = 0; k < ND_COUNT_; k++) {
        const FilterInfo *f = filter_info((NodeKind)k);
        TokKind toks[32];
        size_t n = filter_keywords((NodeKind)k, toks, 32);
        assert_true(n <= 32);
        if ((n > 0) != f->has_keyword) fail_msg("filter '%s': %zu keywords but has_keyword %d", f->name, n, f->has_keyword);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(tok_class(toks[i]), TC_KEYWORD);
            assert_int_equal(filter_of_keyword(toks[i]), k);
            spellings++;
        }
    }
    /* and nothing else begins a filter */
    int begin = 0;
    for (int t = 0; t < TK_COUNT_; t++)
        if (filter_of_keyword((TokKind)t) != ND_COUNT_) begin++;
    assert_int_equal(begin, spellings);
    assert_int_equal(filter_of_keyword(TK_AND), ND_COUNT_);
    assert_int_equal(filter_of_keyword(TK_THROUGH), ND_COUNT_);
    assert_int_equal(filter_of_keyword(TK_IDENT), ND_COUNT_);
    assert_int_equal(filter_of_keyword(TK_PIN), ND_PIN);
    assert_int_equal(filter_of_keyword(TK_CURPOS), ND_CURRENTPOSITION);
}

static void test_colour_partners_are_mutual(void **state)
{
    (void)state;
    for (int k = 0; k < ND_COUNT_; k++) {
        const FilterInfo *f = filter_info((NodeKind)k);
        if (f->transform != XR_COLOUR && f->transform != XR_SQUARE_COLOUR) continue;
        assert_true(f->partner != (NodeKind)k);
        const FilterInfo *p = filter_info(f->partner);
        assert_int_equal(p->transform, f->transform);
        assert_int_equal(p->partner, k);
        assert_int_equal(p->result, f->result);
    }
    assert_int_equal(filter_info(ND_WTM)->partner, ND_BTM);
    assert_int_equal(filter_info(ND_LIGHT)->partner, ND_DARK);
}

/* Direction words carry their masks; no other keyword has an argument. */
static void test_direction_words(void **state)
{
    (void)state;
    assert_int_equal(filter_keyword_arg(TK_UP), 1u << DIR_N);
    assert_int_equal(filter_keyword_arg(TK_ANYDIRECTION), 0xFFu);
    assert_int_equal(filter_keyword_arg(TK_MAINDIAGONAL), 1u << DIR_NE | 1u << DIR_SW);
    assert_int_equal(filter_keyword_arg(TK_PIN), 0);
    for (int t = 0; t < TK_COUNT_; t++) {
        bool direction = filter_of_keyword((TokKind)t) == ND_DIRECTION;
        assert_true(direction == (filter_keyword_arg((TokKind)t) != 0));
    }
}

/* The effect column decides what find may remember and what a guard may
 * skip; a few rows whose class matters most. */
static void test_effects(void **state)
{
    (void)state;
    assert_int_equal(filter_info(ND_DESIGNATOR)->effect, FX_PURE);
    assert_int_equal(filter_info(ND_VAR)->effect, FX_READS);
    assert_int_equal(filter_info(ND_ASSIGN)->effect, FX_WRITES);
    assert_int_equal(filter_info(ND_COMMENT)->effect, FX_OUTPUT);
    assert_int_equal(filter_info(ND_REGEX)->effect, FX_SETS);
    assert_int_equal(filter_info(ND_PLAYER)->effect, FX_READS);   /* settag may change a tag */
    assert_int_equal(filter_info(ND_READFILE)->effect, FX_FILES);  /* the games in input order */
    assert_int_equal(filter_info(ND_WRITEFILE)->effect, FX_FILES);
}

static bool body_is_pure(const char *text)
{
    Query *q = compile_quietly(text);
    assert_non_null(q);
    bool pure = filter_tree_is_pure(q->body);
    query_free(q);
    return pure;
}

/* find comments what it found ("Found"), unless it is quiet: an enclosing
 * find may remember its body only then. */
static void test_find_comments_unless_quiet(void **state)
{
    (void)state;
    assert_int_equal(filter_info(ND_FIND)->effect, FX_COMMENTS);
    assert_false(body_is_pure("find check"));
    assert_false(body_is_pure("find all check"));
    assert_true(body_is_pure("find quiet check"));
    assert_true(body_is_pure("find quiet 1 2 check"));
    assert_false(body_is_pure("find quiet comment(\"x\")"));   /* its body writes */
}

/* Whether the body of `text` is evaluated once per game (the scope column). */
static bool body_is_per_game(const char *text)
{
    Query *q = compile_quietly(text);
    assert_non_null(q);
    bool per_game = filter_tree_is_per_game(q->body);
    query_free(q);
    return per_game;
}

/* The scope column: tag readers, constants and their connectives give one
 * answer per game; anything reading the position, a variable or a tag
 * settag may change does not. */
static void test_scope(void **state)
{
    (void)state;
    assert_true(body_is_per_game("result 1-0"));
    assert_true(body_is_per_game("player white \"Stockfish\" and not event \"x\""));
    assert_true(body_is_per_game("elo white > 2500 or year < 1990"));
    assert_true(body_is_per_game("{gamenumber == 3 tag \"Opening\"}"));
    assert_true(body_is_per_game("elo > 2500"));   /* the higher rating of the two */
    assert_false(body_is_per_game("result 1-0 check"));
    assert_false(body_is_per_game("result 1-0 or Ka1"));
    assert_false(body_is_per_game("x = 1 x == 1"));
    assert_false(body_is_per_game("settag(\"A\" \"b\") tag \"A\""));
    assert_true(body_is_per_game("(elo > 2500)"));
}

/* {==== probes: a query evaluated over a short game =========================== */

/* 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6, with its players and date */
static Game *probe_game(Arena *a)
{
    static const char *const moves[] = {"e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"};
    static Tag tags[] = {{"White", "Anderssen", false, 0}, {"Black", "Kieseritzky", false, 0},
                         {"Date", "1851.06.21", false, 0}, {"Result", "1-0", false, 0}};
    Game *g = ARENA_NEW(a, Game);
    memset(g, 0, sizeof *g);
    g->number = 1;
    g->tags = tags;
    g->tag_count = 4;
    g->arena = a;
    Position start;
    pos_start(&start);
    GameNode *n = game_new_root(g, a, &start);
    for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++) {
        Move m;
        assert_int_equal(san_parse(&n->pos, moves[i], strlen(moves[i]), &m), SAN_OK);
        n = game_add_move(g, a, n, m);
    }
    game_number_nodes(g);
    return g;
}

/* The budgets of a probe: each as small as it goes, so that a filter that
 * makes text, repeats or searches a text stops the run at once. */
static const EvalSettings tight = {.run = {.text_budget = 1, .loop_budget = 1, .max_regex_steps = 1}};

typedef struct Probe {
    Query *q;
    bool matched;             /* at some position */
    const Node *stopped_at;   /* the filter that stopped the run, or NULL */
    bool error;               /* a runtime error stopped it ... */
    const Node *error_at;     /* ... raised by this filter */
    const Node *culprit;      /* stopped_at or error_at */
} Probe;

/* Compiles `text` as a run does (contexts marked, transforms expanded) and
 * searches the probe game with settings s; false when the query is refused. */
static bool probe(const char *text, const EvalSettings *s, Probe *p)
{
    memset(p, 0, sizeof *p);
    DiagSink diag;
    diag_sink_init(&diag, drop_message, NULL);
    SourceText src = {"-cql", text, strlen(text), NULL, 0};
    CompileOptions opt = {.body_only = true, .expand = true};
    p->q = query_compile(&src, &opt, &diag);
    if (!p->q || !eval_check_supported(p->q, &diag)) {
        query_free(p->q);
        p->q = NULL;
        return false;
    }
    Arena a;
    arena_init(&a, 4096);
    Game *g = probe_game(&a);
    Evaluator *ev = eval_new(p->q, s);
    StrBuf messages = SB_INIT;
    GameSearch found;
    eval_game(ev, g, NULL, &a, &found, &messages);
    /* what it found lives in the game's arena, freed below; the nodes in the query */
    p->matched = found.matched_positions > 0;
    p->stopped_at = found.stopped_at;
    p->error = found.runtime_error != NULL;
    p->error_at = p->error ? found.error_at : NULL;
    p->culprit = p->stopped_at ? p->stopped_at : p->error_at;
    sb_free(&messages);
    eval_free(ev);
    arena_free(&a);
    return true;
}

/* The first node of kind k in n (preorder), or NULL. */
static const Node *find_kind(const Node *n, NodeKind k)
{
    if (!n) return NULL;
    if (n->kind == k) return n;
    for (uint32_t i = 0; i < n->nkids; i++) {
        const Node *f = find_kind(n->kids[i], k);
        if (f) return f;
    }
    return NULL;
}

/* The filter at which the probe stopped the run (or raised an error), if
 * it did, is one whose row says it may. */
static void assert_stop_is_marked(const char *text, const Probe *p)
{
    if (p->culprit && !filter_may_stop(p->culprit))
        fail_msg("'%s' stopped the run at filter '%s', whose row says it cannot", text,
                 filter_info(p->culprit->kind)->name);
}

/* }==== */

/* The value-only filters: for each, where only whether it matches is used,
 * a probe in the form its row names value-only (VALUE and VALUE_IF: the run
 * stops there; NEVER: it does not match; OWN_ERROR: its own error), and for
 * VALUE_IF rows a probe in a form that matches as usual. Every row whose
 * test column is not MATCH has one: a new value-only row needs its probe. */
static const struct {
    NodeKind kind;
    const char *value_only, *matching;
} value_probes[] = {
    {ND_INT, "2", NULL},
    {ND_NEGATE, "-2", NULL},
    {ND_STRING, "\"a\"", NULL},
    {ND_ESCAPE, "\\n", NULL},
    {ND_VAR, "x = 1 x", "x = a1 x"},
    {ND_ARITH, "\"a\" + \"b\"", "1 + 2"},
    {ND_COUNT, "#\"ab\"", "#a1"},
    {ND_INTERSECT, "currentposition & currentposition", "a1 & e1"},
    {ND_MINMAX, "max(1 2)", NULL},
    {ND_ABS, "abs 1", NULL},
    {ND_SQRT, "sqrt 4", NULL},
    {ND_DISTANCE, "distance(currentposition currentposition)", NULL},
    {ND_LCA, "lca(currentposition currentposition)", NULL},
    {ND_PIECENAME, "piecename e1", NULL},
    {ND_TYPENAME, "typename e1", NULL},
    {ND_TYPE, "type e1", NULL},
    {ND_STR, "str(1)", NULL},
    {ND_POSITIONID, "positionid", NULL},
    {ND_FEN, "fen", "fen \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR\""},
    {ND_PLAYER, "player", "player white"},
    {ND_LOWERCASE, "lowercase \"A\"", NULL},
    {ND_UPPERCASE, "uppercase \"a\"", NULL},
    {ND_CURRENTTRANSFORM, "currenttransform", NULL},
    {ND_LASTGAMENUMBER, "lastgamenumber", NULL},
    {ND_READFILE, "readfile \"zz-no-such-file.pgn\"", NULL},
    {ND_HHDB, "hhdb composer", NULL},
};

static void test_value_only_rows_behave_so(void **state)
{
    (void)state;
    bool probed[ND_COUNT_] = {false};
    const EvalSettings plain = {.run = {.text_budget = 0}};
    for (size_t i = 0; i < sizeof value_probes / sizeof value_probes[0]; i++) {
        NodeKind k = value_probes[i].kind;
        const char *text = value_probes[i].value_only;
        probed[k] = true;
        Probe p;
        if (!probe(text, &plain, &p)) fail_msg("'%s' is refused", text);
        const Node *n = find_kind(p.q->body, k);
        assert_non_null(n);
        FilterTest test = filter_test(n);
        if (test == TEST_MATCH) fail_msg("'%s': its row does not call it value-only", text);
        if (!(n->flags & NF_AS_POSITION)) fail_msg("'%s' is not flagged as a position filter", text);
        switch (test) {
        case TEST_VALUE:
            if (p.stopped_at != n) fail_msg("'%s' did not stop the run at itself", text);
            break;
        case TEST_NEVER:
            if (p.matched || p.culprit) fail_msg("'%s' matched, or stopped the run", text);
            break;
        default:
            if (!p.error || p.error_at != n) fail_msg("'%s' gave no error of its own", text);
            break;
        }
        if (test != TEST_NEVER) assert_true(filter_may_stop(n));
        query_free(p.q);
        text = value_probes[i].matching;
        if (!text) continue;
        if (!probe(text, &plain, &p)) fail_msg("'%s' is refused", text);
        n = find_kind(p.q->body, k);
        assert_non_null(n);
        if (filter_test(n) != TEST_MATCH || (n->flags & NF_AS_POSITION) || p.culprit)
            fail_msg("'%s' is taken for value-only", text);
        query_free(p.q);
    }
    for (int k = 0; k < ND_COUNT_; k++)
        if (filter_info((NodeKind)k)->test != TEST_MATCH && !probed[k])
            fail_msg("filter '%s' is value-only in filters.def but has no probe here", filter_info((NodeKind)k)->name);
}

/* Every keyword that is a filter on its own (check, ply, fen, player ...),
 * where only whether it matches is used, with every budget as small as it
 * goes: it stops the run exactly when its row says it is value-only, and
 * anything else that stops the run is a filter whose row says it may. */
static void test_every_keyword_alone(void **state)
{
    (void)state;
    int probes = 0;
    for (int t = 0; t < TK_COUNT_; t++) {
        NodeKind k = filter_of_keyword((TokKind)t);
        if (k == ND_COUNT_) continue;
        const char *text = tok_ascii((TokKind)t);
        Probe p;
        if (!probe(text, &tight, &p)) continue;   /* it needs more than its keyword */
        const Node *n = find_kind(p.q->body, k);
        if (n) {
            probes++;
            FilterTest test = filter_test(n);
            if ((test == TEST_VALUE) != (p.stopped_at == n))
                fail_msg("'%s' %s the run, but its row calls it %s", text, p.stopped_at == n ? "stopped" : "did not stop",
                         test == TEST_VALUE ? "value-only" : "not value-only");
            if (test == TEST_OWN_ERROR && p.error_at != n) fail_msg("'%s' gave no error of its own", text);
            assert_stop_is_marked(text, &p);
        }
        query_free(p.q);
    }
    assert_true(probes >= 60);
}

/* Probes that stop the run, each at a filter of the kind it names, in the
 * form the probe has. With the tight budgets. */
static const struct {
    NodeKind kind;
    const char *text;
} stop_probes[] = {
    {ND_VAR, "x = 1 unbind x x == 1"},                  /* an unbound variable read */
    {ND_ASSIGN, "x = \"a\" x += \"b\""},                  /* text */
    {ND_DICT_ASSIGN, "dictionary D D[\"k\"] = \"v\""},
    {ND_LOOP, "x = 0 loop {x += 1 x < 10}"},            /* the loop budget */
    {ND_WHILE, "x = 0 while (x < 10) x += 1"},
    {ND_DIRECTION, "X = 9 up X a1"},                    /* an invalid range */
    {ND_SQUARE_ITER, "square x in a1 square x in a1 true"},   /* a bound iteration variable */
    {ND_ASSERT, "assert false"},
    {ND_READFILE, "x = readfile \"zz-no-such-file.pgn\""},
    {ND_WRITEFILE, "writefile(\"zz-not-written.txt\" \"a\")"},   /* the name is refused */
    {ND_SIMILARPOSITION, "similarposition \"zz-not-read.pgn\""},   /* not read before the search */
    {ND_REGEX, "\"aaaa\" ~~ \"a*b\""},                  /* the regex steps */
    {ND_ESCAPE, "\\n == \"x\""},
    {ND_INDEX, "\"abc\"[1] == \"b\""},
    {ND_ASCII, "ascii 65 == \"A\""},
    {ND_LOWERCASE, "lowercase \"A\" == \"a\""},
    {ND_UPPERCASE, "uppercase \"a\" == \"A\""},
    {ND_STR, "str(1) == \"1\""},
    {ND_COMMENT, "comment(\"abc\")"},
    {ND_MESSAGE, "message(\"abc\")"},
    {ND_ARITH, "\"a\" + \"b\" == \"ab\""},
    {ND_FEN, "fen == \"x\""},
    {ND_PLAYER, "player == \"x\""},
};

/* A probe per row that says it may stop the run, which does, at a filter
 * of that row; and a stop only ever at a filter whose row says it may. */
static void test_stops_are_marked(void **state)
{
    (void)state;
    bool probed[ND_COUNT_] = {false};
    for (size_t i = 0; i < sizeof stop_probes / sizeof stop_probes[0]; i++) {
        const char *text = stop_probes[i].text;
        Probe p;
        if (!probe(text, &tight, &p)) fail_msg("'%s' is refused", text);
        if (!p.culprit || p.culprit->kind != stop_probes[i].kind)
            fail_msg("'%s' did not stop the run at its filter '%s'", text, filter_info(stop_probes[i].kind)->name);
        assert_stop_is_marked(text, &p);
        probed[p.culprit->kind] = true;
        query_free(p.q);
    }
    /* the dictionary's stored value, copied out by D["k"] */
    Probe p;
    char text[2048];
    snprintf(text, sizeof text, "dictionary D D[\"k\"] = \"%01000d\" D[\"k\"] == \"\"", 0);
    const EvalSettings some = {.run = {.text_budget = 1500}};
    assert_true(probe(text, &some, &p));
    assert_non_null(p.culprit);
    assert_int_equal(p.culprit->kind, ND_DICT_INDEX);
    assert_stop_is_marked("D[\"k\"]", &p);
    probed[ND_DICT_INDEX] = true;
    query_free(p.q);
    for (int k = 0; k < ND_COUNT_; k++)
        if (filter_info((NodeKind)k)->stops && !probed[k])
            fail_msg("filter '%s' may stop the run in filters.def but has no probe here", filter_info((NodeKind)k)->name);
}

/* The forms of the STOPS_IF rows in which they cannot stop the run. */
static void test_stop_cases(void **state)
{
    (void)state;
    static const char *const safe[] = {"1 + 2 == 3", "fen \"8/8/8/8/8/8/8/8\" or true", "player white \"Anderssen\"",
                                       "player \"Anderssen\""};
    for (size_t i = 0; i < sizeof safe / sizeof safe[0]; i++) {
        Probe p;
        assert_true(probe(safe[i], &tight, &p));
        if (p.culprit) fail_msg("'%s' stopped the run", safe[i]);
        if (!filter_tree_changes_nothing(p.q->body)) fail_msg("'%s' is taken to change something", safe[i]);
        query_free(p.q);
    }
}

/* Whether the nodes of kind k in `text` are flagged as position filters,
 * all of them (1), none (0), or some (-1). */
static int flagged(const char *text, NodeKind k)
{
    Query *q = NULL;
    DiagSink diag;
    diag_sink_init(&diag, drop_message, NULL);
    SourceText src = {"-cql", text, strlen(text), NULL, 0};
    CompileOptions opt = {.body_only = true, .expand = true};
    q = query_compile(&src, &opt, &diag);
    assert_non_null(q);
    int yes = 0, no = 0;
    const Node *stack[64];
    int top = 0;
    stack[top++] = q->body;
    while (top > 0) {
        const Node *n = stack[--top];
        if (n->kind == k && (n->flags & NF_AS_POSITION)) yes++;
        else if (n->kind == k) no++;
        for (uint32_t i = 0; i < n->nkids; i++)
            if (n->kids[i] && top < 64) stack[top++] = n->kids[i];
    }
    query_free(q);
    return yes && no ? -1 : yes ? 1 : 0;
}

/* The kids column: where only whether a child matches is used. */
static void test_kid_contexts(void **state)
{
    (void)state;
    assert_int_equal(flagged("check 2 check", ND_INT), 1);      /* the body's members */
    assert_int_equal(flagged("{2 check}", ND_INT), 1);          /* a member but the last */
    assert_int_equal(flagged("x = {check 2}", ND_INT), 0);      /* the last member of a value */
    assert_int_equal(flagged("not 2", ND_INT), 1);
    assert_int_equal(flagged("if 2 check", ND_INT), 1);         /* if's test */
    assert_int_equal(flagged("x = if check 2 else 3", ND_INT), 0);   /* its branches, in a value */
    assert_int_equal(flagged("find \"a\"", ND_STRING), 1);     /* find's body */
    assert_int_equal(flagged("square x in a1 2", ND_INT), 1);   /* the body of an iteration */
    assert_int_equal(flagged("e2--e4(2)", ND_INT), 1);          /* a move's target */
    assert_int_equal(flagged("line --> \"a\"", ND_STRING), 1);
    assert_int_equal(flagged("parent:2", ND_INT), 1);           /* colon: where it stands */
    assert_int_equal(flagged("x = parent:2", ND_INT), 0);
    assert_int_equal(flagged("2 == 2", ND_INT), 0);             /* a relation's operands are values */
    assert_int_equal(flagged("max(2 3) == 3", ND_INT), 0);
    assert_int_equal(flagged("flipcolor {2 Ka1}", ND_INT), 1);  /* a transform: where it stands */
    assert_int_equal(flagged("find currenttransform", ND_CURRENTTRANSFORM), 1);
    assert_int_equal(flagged("x = currenttransform", ND_CURRENTTRANSFORM), 0);
}

static bool changes_nothing(const char *text, bool *tags_only)
{
    Query *q = NULL;
    DiagSink diag;
    diag_sink_init(&diag, drop_message, NULL);
    SourceText src = {"-cql", text, strlen(text), NULL, 0};
    CompileOptions opt = {.body_only = true, .expand = true};
    q = query_compile(&src, &opt, &diag);
    assert_non_null(q);
    bool nothing = filter_tree_changes_nothing(q->body);
    *tags_only = filter_tree_reads_only_tags(q->body);
    query_free(q);
    return nothing;
}

/* What the gate looks past (eval/search.c): filters that change nothing;
 * and what it asks before a game's moves are read: those of the tags. */
static void test_changes_nothing(void **state)
{
    (void)state;
    bool tags;
    assert_true(changes_nothing("player white \"Stockfish\"", &tags) && tags);
    assert_true(changes_nothing("elo black > 2500 and not event \"x\"", &tags) && tags);
    assert_true(changes_nothing("(tag \"White\" == \"A\")", &tags) && tags);
    assert_true(changes_nothing("result 1-0", &tags) && !tags);   /* the movetext may give the result */
    assert_true(changes_nothing("check Ka1 attacks k", &tags) && !tags);
    assert_true(changes_nothing("ply > 10", &tags) && !tags);
    assert_false(changes_nothing("player == \"x\"", &tags) || tags);   /* both names: a new string */
    assert_false(changes_nothing("comment(\"x\")", &tags) || tags);
    assert_false(changes_nothing("x = 1 x == 1", &tags) || tags);
    assert_false(changes_nothing("find check", &tags));     /* it comments what it found */
    assert_true(changes_nothing("find quiet check", &tags));
    assert_false(changes_nothing("2 check", &tags));       /* 2 stops the run */
}

int main(void)
{
    att_init();   /* the attack tables, for the probes */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_row_is_evaluated_or_marked),
        cmocka_unit_test(test_every_row_has_a_name),
        cmocka_unit_test(test_keywords_begin_their_filter),
        cmocka_unit_test(test_colour_partners_are_mutual),
        cmocka_unit_test(test_direction_words),
        cmocka_unit_test(test_effects),
        cmocka_unit_test(test_find_comments_unless_quiet),
        cmocka_unit_test(test_scope),
        cmocka_unit_test(test_value_only_rows_behave_so),
        cmocka_unit_test(test_every_keyword_alone),
        cmocka_unit_test(test_stops_are_marked),
        cmocka_unit_test(test_stop_cases),
        cmocka_unit_test(test_kid_contexts),
        cmocka_unit_test(test_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
