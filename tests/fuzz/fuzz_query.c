/*
 * tests/fuzz/fuzz_query.c — fuzz harness of the query compiler.
 *
 * The input is a query: a query file when it starts with `cql` (after
 * blanks), otherwise a body as given with -cql. The harness compiles it
 * (lexer, parser, sema); when it is accepted it
 *   - dumps the tree (`cql -parse`);
 *   - writes it with `-a`, which must compile to an equal tree and header,
 *     and whose `-a` is the same text again; then that text with `-u`,
 *     which must compile to an equal tree and header too (as the oracle
 *     round trip of tests/run-oracle.sh checks on the oracle's queries);
 *   - writes the transform orbits (`--dump-orbit`), expands the transforms
 *     and checks that the evaluator supports the query, creating an
 *     evaluator for it when it does.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/ast.h"
#include "eval/eval.h"
#include "fuzz_support.h"
#include "query/compile.h"
#include "query/print.h"
#include "query/transform.h"

const char *const fuzz_harness_name = "fuzz_query";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init_library();
    return 0;
}


static Query *compile(const char *name, const char *text, size_t len, bool body_only)
{
    DiagSink diag;
    fuzz_quiet_sink(&diag);
    SourceText src = {name, text, len, NULL, 0};
    CompileOptions opt = {.body_only = body_only};
    Query *q = query_compile(&src, &opt, &diag);
    if (q && diag.errors) fuzz_fail("a query is accepted with an error message", "query: %.*s", (int)len, text);
    return q;
}

static bool same_string(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_header(const QueryHeader *a, const QueryHeader *b)
{
    return a->present == b->present && same_string(a->input, b->input) &&
           same_string(a->output, b->output) && settings_equal(&a->values, &b->values);
}

/* `-a` or `-u` of q, which must compile to the same query. */
static Query *check_respelling(const Query *q, bool unicode, bool body_only, StrBuf *text)
{
    const char *option = unicode ? "-u" : "-a";
    sb_clear(text);
    print_source(q, unicode, text);
    Query *again = compile(option, text->data ? text->data : "", text->len, body_only);
    if (!again)
        fuzz_fail("a query written with -a/-u does not compile",
                  "option %s\n---- query:\n%.*s\n---- written:\n%s", option, (int)q->src.len,
                  q->src.text, sb_str(text));
    if (!ast_equal(q->body, again->body) || !same_header(&q->header, &again->header)) {
        StrBuf dump1 = SB_INIT, dump2 = SB_INIT;
        print_tree(q, &dump1);
        print_tree(again, &dump2);
        fuzz_fail("a query written with -a/-u compiles to another query",
                  "option %s\n---- query:\n%.*s\n---- written:\n%s\n---- tree before:\n%s---- tree after:\n%s",
                  option, (int)q->src.len, q->src.text, sb_str(text), sb_str(&dump1), sb_str(&dump2));
    }
    return again;
}

/* A CQL 1.0 file: its CQL 6 translation (cql -translate) must compile to
 * the same query. */
static void check_cql1_translation(const Query *q, const char *text, size_t size)
{
    DiagSink diag;
    fuzz_quiet_sink(&diag);
    SourceText src = {"fuzz.cql", text, size, NULL, 0};
    char *cql6 = query_translate_cql1(&src, &diag);
    if (!cql6) fuzz_fail("a CQL 1.0 file compiles but does not translate", "file:\n%.*s", (int)size, text);
    Query *again = compile("translation", cql6, strlen(cql6), false);
    if (!again)
        fuzz_fail("the CQL 6 translation of a CQL 1.0 file does not compile",
                  "---- file:\n%.*s\n---- translation:\n%s", (int)size, text, cql6);
    if (!ast_equal(q->body, again->body) || !same_header(&q->header, &again->header))
        fuzz_fail("the CQL 6 translation of a CQL 1.0 file compiles to another query",
                  "---- file:\n%.*s\n---- translation:\n%s", (int)size, text, cql6);
    query_free(again);
    free(cql6);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_init_library();
    const char *text = (const char *)data;
    bool body_only = !fuzz_is_query_file(text, size);
    Query *q = compile(body_only ? "-cql" : "fuzz.cql", text, size, body_only);
    if (!q) return 0;
    if (!body_only && query_is_cql1(text, size)) {
        check_cql1_translation(q, text, size);
        query_free(q);
        return 0;
    }

    StrBuf out = SB_INIT, ascii = SB_INIT, ascii_again = SB_INIT, uni = SB_INIT;
    print_tree(q, &out);
    Query *qa = check_respelling(q, false, body_only, &ascii);
    Query *qaa = check_respelling(qa, false, body_only, &ascii_again);
    if (strcmp(sb_str(&ascii), sb_str(&ascii_again)) != 0)
        fuzz_fail("-a of the -a text is not the same text", "---- -a:\n%s\n---- -a again:\n%s",
                  sb_str(&ascii), sb_str(&ascii_again));
    Query *qu = check_respelling(qa, true, body_only, &uni);

    sb_clear(&out);
    xf_write_orbits(q, &out);
    DiagSink diag;
    fuzz_quiet_sink(&diag);
    if (xf_expand_query(q, &diag) &&
        eval_check_supported(q, &diag)) {
        EvalSettings settings = {.last_game_number = 0};
        eval_free(eval_new(q, &settings));
    }

    query_free(qu);
    query_free(qaa);
    query_free(qa);
    query_free(q);
    sb_free(&out);
    sb_free(&ascii);
    sb_free(&ascii_again);
    sb_free(&uni);
    return 0;
}
