/*
 * tests/unit/test_treeless.c — the search without a tree (issue 33): a
 * query made of filters of the CURRENT, GAME and TAGS scopes
 * (src/query/filters.def) gives, with a game's main line walked from its
 * move codes in one node changed in place (index/movecode.h,
 * MovecodeWalk; eval_positions_begin), the same matches position for
 * position as the search of the game's tree. Every row of the CURRENT
 * scope has a probe here, each run over random games (random legal moves
 * from starts with mates, stalemates, promotions, castling and en passant
 * near, with variations, which the walk passes over); a filter that reads
 * another position, a variable or a move is not of the scope; and a walk
 * that is to go into variations refuses a game that has them.
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
#include "chess/movegen.h"
#include "eval/eval.h"
#include "index/movecode.h"
#include "pgn/game.h"
#include "query/filters.h"
#include "query_test.h"

/* {==== games ================================================================= */

static uint64_t seed = 0x2545F4914F6CDD1Du;

static uint32_t pick(uint32_t n)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return (uint32_t)(seed % n);
}

static const char *const fens[] = {
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",   /* castling, pins */
    "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",            /* a back-rank mate near */
    "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1",                  /* mates and stalemates */
    "8/2P1k3/8/8/8/8/3p1K2/8 w - - 0 1",               /* promotions */
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",               /* en passant at once */
};
#define NFENS ((int)(sizeof fens / sizeof fens[0]))

/* Plays up to `plies` random legal moves from n, a mate or a check when
 * there is one half of the time (so that the games have them); the last
 * node. */
static GameNode *play_line(Game *g, Arena *a, GameNode *n, int plies)
{
    MoveList moves;
    for (int i = 0; i < plies; i++) {
        mg_legal(&n->pos, &moves);
        if (moves.count == 0) break;
        Move m = moves.moves[pick((uint32_t)moves.count)];
        for (int k = 0; k < moves.count && pick(2) == 0; k++) {
            Position after;
            pos_play_move(&after, &n->pos, moves.moves[k]);
            if (pos_in_check(&after)) m = moves.moves[k];
        }
        n = game_add_move(g, a, n, m);
    }
    return n;
}

/* Game k: a main line from one of the starts, and variations off it. */
static void make_game(Game *g, Arena *a, int k)
{
    memset(g, 0, sizeof *g);
    g->arena = a;
    g->number = k + 1;
    Position start;
    assert_int_equal(pos_from_fen(&start, fens[k % NFENS], NULL), 0);
    GameNode *root = game_new_root(g, a, &start);
    play_line(g, a, root, 10 + (int)pick(90));
    for (int v = (int)pick(4); v > 0; v--) {
        GameNode *from = root->child;
        for (int steps = (int)pick(40); steps > 0 && from && from->child; steps--) from = from->child;
        if (from) play_line(g, a, from, 1 + (int)pick(8));
    }
    game_number_nodes(g);
}

/* }==== */
/* {==== the two searches ====================================================== */

/* Compiles `text` as a run does (transforms expanded); NULL when refused. */
static Query *compile_run(const char *text)
{
    DiagSink diag;
    diag_sink_init(&diag, drop_message, NULL);
    SourceText src = {"-cql", text, strlen(text), NULL, 0};
    CompileOptions opt = {.body_only = true, .expand = true};
    Query *q = query_compile(&src, &opt, &diag);
    if (q && !eval_check_supported(q, &diag)) {
        query_free(q);
        return NULL;
    }
    return q;
}

/* The matched main-line positions of g (by ply) searched with q: from its
 * tree, or walked in place from its codes. */
static long search(const Query *q, const Game *g, bool in_place, bool matched[], int size)
{
    static const EvalSettings defaults;
    Evaluator *ev = eval_new(q, &defaults);
    Arena a;
    arena_init(&a, 4096);
    StrBuf printed = SB_INIT, codes = SB_INIT;
    GameSearch found;
    memset(matched, 0, (size_t)size);
    if (!in_place) {
        eval_game(ev, g, NULL, &a, &found, &printed);
        for (const GameNode *n = g->root; n; n = n->child) matched[n->ply] = found.matched[n->id];
    } else {
        size_t ncodes = movecode_write_tree(g, &codes);
        MovecodeWalk walk;
        MovecodeWalkNodes nodes;
        assert_true(
            movecode_walk_start(&walk, &nodes, (const unsigned char *)codes.data, ncodes, &g->root->pos, false));
        Game head = *g;   /* its tags, result and number; no tree read */
        head.node_count = (int)ncodes + 1;
        eval_positions_begin(ev, &head, &a, &found, &printed);
        for (const GameNode *n; (n = movecode_walk_next(&walk)) && eval_positions_at(ev, n);)
            ;
        eval_positions_end(ev);
        assert_false(walk.bad);
        for (int ply = 0; ply < size && ply < head.node_count; ply++) matched[ply] = found.matched[ply];
    }
    long count = found.matched_positions;
    sb_free(&printed);
    sb_free(&codes);
    arena_free(&a);
    eval_free(ev);
    return count;
}

/* }==== */

/* A probe for every row of the CURRENT scope (and a few of the others
 * beside them), in a body that reads only the current position. */
static const struct {
    NodeKind kind;
    const char *text;
} probes[] = {
    {ND_IF, "if check then Ka1 else wtm"},
    {ND_NEGATE, "-ply < -30"},
    {ND_ARITH, "ply + 1 > 40"},
    {ND_COUNT, "#P == 3"},
    {ND_MINMAX, "max(ply 30) == ply"},
    {ND_DESIGNATOR, "Kg1"},
    {ND_MAKESQUARE, "makesquare(6 1) & K"},
    {ND_UNION, "#(N | B) < 3"},
    {ND_INTERSECT, "R & a-h8"},
    {ND_COMPLEMENT, "#(~P & a-h2) > 4"},
    {ND_IN, "e4 in P"},
    {ND_ATTACKS, "Q attacks k"},
    {ND_ATTACKEDBY, "k attackedby [QR]"},
    {ND_BETWEEN, "between(a1 h8) & [Bb]"},
    {ND_DIRECTION, "up K & P"},
    {ND_RAY, "ray(Q k)"},
    {ND_XRAY, "xray(R r k)"},
    {ND_PIN, "pin"},
    {ND_ORBIT, "flipcolor {K attacks q}"},
    {ND_ORBIT_MEMBER, "flip {Qf7}"},
    {ND_ORBIT_GROUP, "shift flip {Kg1}"},
    {ND_FEN, "fen \"8/8/8/8/8/8/8/8\" or fen \"6k1/5ppp/8/8/8/8/5PPP/R5K1\""},
    {ND_CHECK, "check"},
    {ND_MATE, "mate"},
    {ND_STALEMATE, "stalemate"},
    {ND_WTM, "wtm check"},
    {ND_BTM, "btm check"},
    {ND_INITIAL, "initial"},
    {ND_TERMINAL, "terminal"},
    {ND_MAINLINE, "mainline ply == 7"},
    {ND_VARIATION, "variation"},
    {ND_ENPASSANTSQUARE, "enpassantsquare & a-h6"},
    {ND_CONNECTEDPAWNS, "#connectedpawns > 4"},
    {ND_DOUBLEDPAWNS, "doubledpawns"},
    {ND_ISOLATEDPAWNS, "isolatedpawns & a2"},
    {ND_PASSEDPAWNS, "passedpawns"},
    {ND_PLY, "ply == 3"},
    {ND_MOVENUMBER, "movenumber == 12 btm"},
    {ND_DEPTH, "depth == 0 ply > 50"},
    {ND_POSITIONID, "positionid == 5 or positionid == 60"},
    {ND_WHITE, "sidetomove == white check"},
    {ND_BLACK, "sidetomove == black check"},
    {ND_SIDETOMOVE, "sidetomove > 0 Q"},
    {ND_ABS, "abs (ply - 40) < 2"},
    {ND_SQRT, "sqrt ply == 6"},
    {ND_RANK, "rank K == 1"},
    {ND_FILE, "file K == 7"},
    {ND_POWER, "power A > power a"},
    {ND_TYPE, "type e4 == 1"},
    {ND_COLORTYPE, "colortype g1 > 5"},
    {ND_LIGHT, "light K"},
    {ND_DARK, "dark k"},
    {ND_PIECENAME, "piecename g1 == \"K\""},
    {ND_TYPENAME, "typename e4 == \"Pawn\""},
    {ND_RESULT, "result 1-0 check"},
    {ND_PLAYER, "player white \"A\" or check"},
    {ND_RELATION, "#A == #a"},
};
#define NPROBES ((int)(sizeof probes / sizeof probes[0]))

static const Node *find_kind(const Node *n, NodeKind k)
{
    if (!n || n->kind == k) return n;
    for (uint32_t i = 0; i < n->nkids; i++) {
        const Node *f = find_kind(n->kids[i], k);
        if (f) return f;
    }
    return NULL;
}

/* Every row of the CURRENT scope has a probe, which holds a filter of the
 * row and reads only the current position. */
static void test_every_current_row_has_a_probe(void **state)
{
    (void)state;
    for (int k = 0; k < ND_COUNT_; k++) {
        if (filter_info((NodeKind)k)->scope != SCOPE_CURRENT) continue;
        int i = 0;
        while (i < NPROBES && probes[i].kind != (NodeKind)k) i++;
        if (i == NPROBES)
            fail_msg("filter '%s' is of the CURRENT scope but has no probe here", filter_info((NodeKind)k)->name);
    }
    for (int i = 0; i < NPROBES; i++) {
        Query *q = compile_run(probes[i].text);
        if (!q) fail_msg("probe '%s' does not compile", probes[i].text);
        if (!find_kind(q->body, probes[i].kind))
            fail_msg("probe '%s' has no filter '%s'", probes[i].text, filter_info(probes[i].kind)->name);
        if (!filter_tree_reads_one_position(q->body))
            fail_msg("probe '%s' reads more than one position", probes[i].text);
        query_free(q);
    }
}

/* Each probe over random games: the walk in place matches where the tree
 * does, position for position. */
static void test_in_place_is_the_tree(void **state)
{
    (void)state;
    enum { GAMES = 60, SIZE = 512 };
    static Game games[GAMES];
    Arena a;
    arena_init(&a, 1 << 16);
    for (int k = 0; k < GAMES; k++) make_game(&games[k], &a, k);
    static bool by_tree[SIZE], in_place[SIZE];
    long matches = 0;
    int probes_matching = 0;
    for (int i = 0; i < NPROBES; i++) {
        Query *q = compile_run(probes[i].text);
        assert_non_null(q);
        long probe_matches = 0;
        for (int k = 0; k < GAMES; k++) {
            long t = search(q, &games[k], false, by_tree, SIZE);
            long w = search(q, &games[k], true, in_place, SIZE);
            if (t != w || memcmp(by_tree, in_place, SIZE) != 0)
                fail_msg("'%s' on game %d: %ld positions matched from the tree, %ld in place", probes[i].text, k, t,
                         w);
            probe_matches += t;
        }
        matches += probe_matches;
        probes_matching += probe_matches > 0;
        query_free(q);
    }
    arena_free(&a);
    printf("treeless: %d probes on %d games, %ld matches; %d probes matched somewhere\n", NPROBES, GAMES, matches,
           probes_matching);
    assert_true(probes_matching >= NPROBES * 3 / 4);   /* the probes were put to the test */
}

/* Filters that read other positions, variables, moves or comments are of
 * another scope: their queries build the tree. */
static void test_others_read_more(void **state)
{
    (void)state;
    static const char *const others[] = {
        "parent:check", "x = ply x > 3", "move from K", "line --> check --> check", "originalcomment \"x\"",
        "find check", "echo (s t) {s & t == . s < t}", "position 3:check", "check comment(\"x\")", "sort ply",
        "piece x in [Aa] x == e4",
    };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        Query *q = compile_run(others[i]);
        if (!q) fail_msg("'%s' does not compile", others[i]);
        if (filter_tree_reads_one_position(q->body)) fail_msg("'%s' is taken to read one position", others[i]);
        query_free(q);
    }
}

/* A walk that is to go into variations refuses a game that has them; one
 * that passes over them gives the main line alone. */
static void test_variations(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a, 1 << 16);
    int with_variations = 0;
    for (int k = 0; k < 40; k++) {
        Game g;
        make_game(&g, &a, k);
        StrBuf codes = SB_INIT;
        size_t ncodes = movecode_write_tree(&g, &codes);
        MovecodeWalk walk;
        MovecodeWalkNodes nodes;
        bool refused =
            !movecode_walk_start(&walk, &nodes, (const unsigned char *)codes.data, ncodes, &g.root->pos, true);
        assert_int_equal(refused, g.has_variations);
        with_variations += g.has_variations;
        assert_true(movecode_walk_start(&walk, &nodes, (const unsigned char *)codes.data, ncodes, &g.root->pos, false));
        const GameNode *n = g.root, *here;
        for (; (here = movecode_walk_next(&walk)) != NULL; n = n->child) {
            assert_non_null(n);
            assert_true(pos_same(&here->pos, &n->pos));
            assert_int_equal(here->move, n->move);
            assert_int_equal(here->ply, n->ply);
            assert_int_equal(here->id, n->id);
            assert_int_equal(here->child != NULL, n->child != NULL);
            if (n->child) assert_int_equal(here->child->move, n->child->move);
            assert_int_equal(here->parent != NULL, n->parent != NULL);
        }
        assert_null(n);
        assert_false(walk.bad);
        sb_free(&codes);
    }
    assert_true(with_variations >= 10);
    arena_free(&a);
}

/* The node of a walk where the tree has node n. */
static void assert_walk_at(const GameNode *here, const GameNode *n)
{
    assert_non_null(n);
    assert_true(pos_same(&here->pos, &n->pos));
    assert_int_equal(here->pos.halfmove, n->pos.halfmove);
    assert_int_equal(here->pos.fullmove, n->pos.fullmove);
    assert_int_equal(here->move, n->move);
    assert_int_equal(here->ply, n->ply);
    assert_int_equal(here->id, n->id);
    assert_int_equal(here->check_state, 0);
    assert_int_equal(here->child != NULL, n->child != NULL);
    if (n->child) assert_int_equal(here->child->move, n->child->move);
    assert_int_equal(here->parent != NULL, n->parent != NULL);
}

/* Moves passed over in one step (movecode_walk_pass) leave the walk where
 * as many steps would: the same position, move, ply and id, and the rest
 * of the main line after it; past the end, as many as there were. */
static void test_pass(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a, 1 << 16);
    static const long counts[] = {0, 1, 2, 7, 30, 1000};
    for (int k = 0; k < 40; k++) {
        Game g;
        make_game(&g, &a, k);
        StrBuf codes = SB_INIT;
        size_t ncodes = movecode_write_tree(&g, &codes);
        long plies = 0;
        for (const GameNode *n = g.root->child; n; n = n->child) plies++;
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            MovecodeWalk walk;
            MovecodeWalkNodes nodes;
            assert_true(
                movecode_walk_start(&walk, &nodes, (const unsigned char *)codes.data, ncodes, &g.root->pos, false));
            const GameNode *here = movecode_walk_next(&walk), *n = g.root;
            long made = movecode_walk_pass(&walk, counts[c]);
            assert_int_equal(made, counts[c] < plies ? counts[c] : plies);
            for (long i = 0; i < made; i++) n = n->child;
            assert_walk_at(here, n);
            while ((here = movecode_walk_next(&walk)) != NULL) {
                n = n->child;
                assert_walk_at(here, n);
            }
            assert_null(n->child);
            assert_false(walk.bad);
        }
        sb_free(&codes);
    }
    arena_free(&a);
}

int main(void)
{
    att_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_current_row_has_a_probe),
        cmocka_unit_test(test_in_place_is_the_tree),
        cmocka_unit_test(test_others_read_more),
        cmocka_unit_test(test_variations),
        cmocka_unit_test(test_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
