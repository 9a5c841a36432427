/*
 * tests/fuzz/fuzz_pipeline.c — fuzz harness of a whole run: a query and
 * games through the evaluator and the writer.
 *
 * The input is a query, then the line `%%pgn`, then PGN text:
 *
 *     cql(variations) check
 *     %%pgn
 *     [Event "x"] 1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0
 *
 * (the query is a query file when it starts with `cql`, else a body as
 * given with -cql). Without the `%%pgn` line the whole input is the query,
 * searched in a small built-in game with a variation, comments and NAGs.
 * A query that compiles, expands and is supported is run (unless it has
 * `readfile` or `writefile`, which reach files, or nests so many square
 * iterations and position walks that one game would take minutes, as it
 * would in CQL) as cql runs it (search_init with small budgets,
 * search_matches, search_write_game): a `while` or `loop` that would repeat
 * for ever stops at the loop budget, a string that doubles at the text
 * budget, as in cql; and
 * every matching game written must read back as the game that was searched
 * with the notes and tags the search added (fuzz_check_pgn_round_trip).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/ast.h"
#include "eval/eval.h"
#include "fuzz_support.h"
#include "pgn/reader.h"
#include "eval/search.h"
#include "query/compile.h"
#include "query/transform.h"

const char *const fuzz_harness_name = "fuzz_pipeline";

static const char separator[] = "\n%%pgn\n";

enum { FUZZ_LOOP_BUDGET = 10000, FUZZ_TEXT_BUDGET = 1 << 20 };

static const char builtin_game[] =
    "[Event \"fuzz\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n"
    "{opening} 1. e4 e5 2. Nf3 (2. Bc4 Nf6 $2 3. d3 {quiet}) 2... Nc6 3. Bb5 a6 4. Ba4 Nf6\n"
    "5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 11. c4 c6 12. cxb5 axb5\n"
    "13. Nc3 Bb7 14. Bg5 b4 15. Nb1 h6 16. Bh4 c5 17. dxe5 Nxe4 18. Bxe7 Qxe7 19. exd6 Qf6\n"
    "20. Nbd2 Nxd6 21. Nc4 Nxc4 22. Bxc4 Nb6 23. Ne5 Rae8 24. Bxf7+ Rxf7 25. Nxf7 Rxe1+\n"
    "26. Qxe1 Kxf7 27. Qe3 Qg5 28. Qxg5 hxg5 29. b3 Ke6 30. a3 Kd6 31. axb4 cxb4\n"
    "32. Ra5 Nd5 33. f3 Bc8 34. Kf2 Bf5 35. Ra7 g6 36. Ra6+ Kc5 37. Ke1 Nf4 38. g3 Nxh3\n"
    "39. Kd2 Kb5 40. Rd6 Kc5 41. Ra6 Nf2 42. g4 Bd3 43. Re6 1-0\n";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init_library();
    return 0;
}


static bool find_file(const Node *n, void *ctx)
{
    if (n->kind == ND_READFILE || n->kind == ND_WRITEFILE) *(bool *)ctx = true;
    return true;
}

/* readfile and writefile reach files named by the query: the harness never
 * runs them (it would write files wherever it runs). */
static bool uses_files(const Query *q)
{
    bool found = false;
    ast_walk(q->body, find_file, &found);
    return found;
}

/* A rough count of the evaluations one position of a game costs: a square
 * or piece iteration does its body 64 times, a filter that walks the game's
 * positions (find, echo, line, path ...) about 100 times. The harness skips
 * queries above 10^7: three nested paths, about 2 * 10^8 here, take a second
 * per game in a release build and ten times more under the sanitizers. */
static double query_cost(const Node *n)
{
    if (!n) return 0;
    double inside = 1;
    for (uint32_t i = 0; i < n->nkids; i++) inside += query_cost(n->kids[i]);
    switch (n->kind) {
    case ND_SQUARE_ITER: return 64 * inside;
    case ND_FIND: case ND_ECHO: case ND_LINE: case ND_PATH: case ND_CONSECUTIVEMOVES:
    case ND_ANCESTOR: case ND_DESCENDANT: case ND_DISTANCE: case ND_LCA: case ND_COUNTMOVES:
        return 100 * inside;
    default: return inside;
    }
}

/* The compiled, expanded and supported query, or NULL. */
static Query *load_query(const char *text, size_t len)
{
    DiagSink diag;
    fuzz_quiet_sink(&diag);
    bool body_only = !fuzz_is_query_file(text, len);
    SourceText src = {body_only ? "-cql" : "fuzz.cql", text, len, NULL, 0};
    CompileOptions opt = {.body_only = body_only};
    Query *q = query_compile(&src, &opt, &diag);
    if (q && !uses_files(q) && xf_expand_query(q, &diag) &&
        eval_check_supported(q, &diag) && query_cost(q->body) < 1e7)
        return q;
    query_free(q);
    return NULL;
}

/* Searches every game of pgn[0, len) as cql does, checking what it writes. */
static void search_games(const Search *s, const char *pgn, size_t len)
{
    FILE *fp = fmemopen((void *)(uintptr_t)pgn, len, "rb");
    if (!fp) return;
    DiagSink diag;
    fuzz_quiet_sink(&diag);
    PgnReader r;
    pgn_open_stream(&r, fp, "fuzz.pgn", &diag);
    Evaluator *ev = eval_new(s->query, &s->eval);
    RawGame raw;
    raw_game_init(&raw);
    Arena arena;
    arena_init(&arena, 64 * 1024);
    StrBuf printed = SB_INIT, written = SB_INIT, checked = SB_INIT;
    while (pgn_next_raw(&r, &raw)) {
        Game g;
        if (pgn_parse_game(&raw, r.name, &arena, &g, &diag) != PGN_UNUSABLE) {
            GameSearch found;
            if (search_matches(s, ev, &g, false, &arena, &found, &printed)) {
                sb_clear(&written);
                search_write_game(s, &g, &found, &arena, &written);
                PgnAnnotations notes = {found.notes, found.set_tags, found.nset_tags, found.remove_comment};
                sb_clear(&checked);
                fuzz_check_pgn_round_trip(&g, &notes, &checked);
                if (strcmp(sb_str(&written), sb_str(&checked)) != 0)
                    fuzz_fail("search_write_game writes something else than pgn_write_game",
                              "---- search_write_game:\n%s---- pgn_write_game:\n%s",
                              sb_str(&written), sb_str(&checked));
            }
        }
        arena_reset(&arena);
        sb_clear(&printed);
    }
    StrBuf persistent = SB_INIT;
    eval_print_persistent(ev, &persistent);
    sb_free(&persistent);
    sb_free(&printed);
    sb_free(&written);
    sb_free(&checked);
    arena_free(&arena);
    raw_game_free(&raw);
    eval_free(ev);
    pgn_close(&r);
    fclose(fp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_init_library();
    const char *text = (const char *)data;
    size_t query_len = size;
    const char *pgn = builtin_game;
    size_t pgn_len = sizeof builtin_game - 1;
    size_t sep_len = sizeof separator - 1;
    for (size_t i = 0; i + sep_len <= size; i++)
        if (memcmp(text + i, separator, sep_len) == 0) {
            query_len = i;
            pgn = text + i + sep_len;
            pgn_len = size - i - sep_len;
            break;
        }
    Query *q = load_query(text, query_len);
    if (!q) return 0;
    /* budgets small enough that an input never takes seconds: a loop that
     * never ends stops after 10,000 runs for a position, a string that
     * doubles at 1 MB (cql's defaults: 10,000,000 and 256M) */
    Settings options;
    memset(&options, 0, sizeof options);
    settings_set_number(&options, &setting_rows[SET_loop_budget], FUZZ_LOOP_BUDGET);
    settings_set_number(&options, &setting_rows[SET_text_budget], FUZZ_TEXT_BUDGET);
    Search s;
    search_init(&s, &options, q);
    search_games(&s, pgn, pgn_len);
    query_free(q);
    return 0;
}
