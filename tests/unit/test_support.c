/*
 * tests/unit/test_support.c — unit tests of the support modules: arena, strbuf, utf8, diag.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "base/utf8.h"

/* Under AddressSanitizer too, a failed allocation returns NULL to xmalloc. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

/* The out-of-memory handler is told the size that could not be had; when
 * it returns, the allocation is tried again; this one jumps out the second
 * time. */
static jmp_buf nomem_jump;
static size_t nomem_size;
static int nomem_calls;

static void nomem_handler(void *ctx, size_t size)
{
    assert_ptr_equal(ctx, &nomem_calls);
    nomem_size = size;
    if (++nomem_calls == 2) longjmp(nomem_jump, 1);
}

static void test_nomem_handler(void **state)
{
    (void)state;
    volatile size_t huge = SIZE_MAX / 4;   /* more than any address space */
    base_set_nomem_handler(nomem_handler, &nomem_calls);
    nomem_calls = 0;
    if (setjmp(nomem_jump) == 0) {
        free(xmalloc(huge));
        fail_msg("xmalloc of %zu bytes returned", (size_t)huge);
    }
    assert_int_equal(nomem_calls, 2);
    assert_true(nomem_size == huge);
    nomem_calls = 0;
    void *volatile small = xmalloc(16);
    if (setjmp(nomem_jump) == 0) {
        small = xrealloc(small, huge);
        fail_msg("xrealloc to %zu bytes returned", (size_t)huge);
    }
    assert_int_equal(nomem_calls, 2);
    free(small);   /* a failed realloc leaves the block as it was */
    base_set_nomem_handler(NULL, NULL);
}

static void test_arena_alloc_and_reset(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a, 256);
    char *p = arena_alloc(&a, 10);
    memset(p, 'x', 10);
    for (int i = 0; i < 1000; i++) {
        int *q = ARENA_NEW(&a, int);
        assert_int_equal(*q, 0);
        assert_int_equal((uintptr_t)q % 16, 0);
        *q = i;
    }
    char *big = arena_alloc(&a, 10000);       /* larger than a chunk */
    memset(big, 1, 10000);
    assert_string_equal(arena_strdup(&a, "hello"), "hello");
    assert_string_equal(arena_strndup(&a, "hello", 3), "hel");
    arena_reset(&a);
    assert_int_equal(arena_bytes_used(&a), 0);
    assert_non_null(arena_alloc(&a, 100));
    arena_free(&a);
}

static void test_arena_realloc_grows_last_block(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a, 1024);
    char *p = arena_alloc(&a, 16);
    memcpy(p, "abcdefghijklmno", 16);
    char *q = arena_realloc(&a, p, 16, 64);
    assert_ptr_equal(p, q);                   /* grown in place */
    char *r = arena_realloc(&a, q, 64, 4096); /* must move */
    assert_string_equal(r, "abcdefghijklmno");
    arena_free(&a);
}

/* One "game": `blocks` blocks of `size` bytes, then one of `big` bytes (none
 * if 0), each written to; then a reset. */
static void play_game(Arena *a, int blocks, size_t size, size_t big)
{
    for (int i = 0; i < blocks; i++) memset(arena_alloc(a, size), i, size);
    if (big) memset(arena_alloc(a, big), 1, big);
    arena_reset(a);
}

static void test_arena_reuses_chunks_between_games(void **state)
{
    (void)state;
    Arena a;
    arena_init_growing(&a, 1024, 8192);
    /* games that need about 2.5 chunks of the largest size and a big block
     * (a chunk of its own), between smaller games: once the chunks of the
     * first games have gone, no game makes a new chunk or frees one */
    for (int game = 0; game < 2 * ARENA_KEEP_GAMES; game++) {
        play_game(&a, 40, 500, 30000);
        play_game(&a, 10, 100, 0);
    }
    size_t made = a.chunks_made, held = arena_bytes_held(&a);
    assert_true(held >= 2 * 8192 + 30000);
    for (int game = 0; game < 1000; game++) {
        play_game(&a, 40, 500, 30000);
        play_game(&a, 10, 100, 0);
        assert_int_equal(arena_bytes_held(&a), held);
    }
    assert_int_equal(a.chunks_made, made);
    arena_free(&a);
    assert_int_equal(arena_bytes_held(&a), 0);
}

static void test_arena_lets_a_big_game_go(void **state)
{
    (void)state;
    Arena a;
    arena_init_growing(&a, 1024, 8192);
    size_t bound = ARENA_KEEP_CHUNKS * (size_t)8192;
    play_game(&a, 10, 100, 0);
    size_t small = arena_bytes_held(&a);
    /* a game far over the bound keeps no more than the bound */
    play_game(&a, 1000, 1000, 0);
    assert_true(arena_bytes_held(&a) <= bound);
    assert_true(arena_bytes_held(&a) > small);
    /* nor does a huge block of its own */
    play_game(&a, 3, 1000, 10 * bound);
    assert_true(arena_bytes_held(&a) <= bound);
    /* the big game's chunks stay while a game among the last
     * ARENA_KEEP_GAMES used them, and then go */
    for (int game = 0; game < ARENA_KEEP_GAMES - 2; game++) play_game(&a, 10, 100, 0);
    assert_true(arena_bytes_held(&a) > 2 * 8192);
    for (int game = 0; game < 2; game++) play_game(&a, 10, 100, 0);
    assert_true(arena_bytes_held(&a) <= 8192);
    /* a chunk larger than the usual ones is reused for a block of similar
     * size, never for one of less than half its size */
    for (int game = 0; game < 3; game++) play_game(&a, 1, 100, 50000);
    size_t made = a.chunks_made;
    play_game(&a, 1, 100, 40000);
    assert_int_equal(a.chunks_made, made);
    for (int game = 0; game < ARENA_KEEP_GAMES; game++) play_game(&a, 1, 100, 20000);
    assert_int_equal(a.chunks_made, made + 1);
    assert_true(arena_bytes_held(&a) < 50000);
    arena_free(&a);
}

static void test_strbuf(void **state)
{
    (void)state;
    StrBuf sb = SB_INIT;
    assert_string_equal(sb_str(&sb), "");
    sb_append(&sb, "abc");
    sb_putc(&sb, '-');
    sb_printf(&sb, "%d/%s", 42, "x");
    assert_string_equal(sb_str(&sb), "abc-42/x");
    for (int i = 0; i < 100; i++) sb_printf(&sb, "%0100d", i);
    assert_int_equal(sb.len, 8 + 100 * 100);
    sb_truncate(&sb, 3);
    assert_string_equal(sb_str(&sb), "abc");
    char *s = sb_take(&sb);
    assert_string_equal(s, "abc");
    assert_int_equal(sb.len, 0);
    free(s);
    sb_free(&sb);
}

static void test_utf8_roundtrip(void **state)
{
    (void)state;
    const uint32_t cps[] = {0x41, 0xD7, 0x2015, 0x265A, 0x1F600};
    for (size_t i = 0; i < sizeof cps / sizeof cps[0]; i++) {
        char buf[4];
        size_t n = utf8_encode(cps[i], buf), m;
        assert_int_equal(utf8_decode(buf, n, &m), cps[i]);
        assert_int_equal(m, n);
    }
    size_t m;
    assert_int_equal(utf8_decode("\xC0\x80", 2, &m), UTF8_INVALID);  /* overlong */
    assert_int_equal(utf8_decode("\xE2\x80", 2, &m), UTF8_INVALID);  /* truncated */
    assert_int_equal(utf8_decode("\xED\xA0\x80", 3, &m), UTF8_INVALID); /* surrogate */
    assert_true(utf8_has_bom("\xEF\xBB\xBFx", 4));
    assert_false(utf8_has_bom("x", 1));
}

static void capture(void *ctx, DiagSeverity sev, const char *text)
{
    (void)sev;
    sb_append((StrBuf *)ctx, text);
}

static void test_diag_caret(void **state)
{
    (void)state;
    StrBuf out = SB_INIT;
    DiagSink d;
    diag_sink_init(&d, capture, &out);
    const char *text = "cql()\n\tpiece K a9 \xE2\x99\x94x\n";
    SourceText src = {"q.cql", text, strlen(text), NULL, 0};
    /* "a9" is at byte 15 */
    diag_at(&d, &src, (Span){15, 17}, DIAG_ERROR, "invalid square '%s'", "a9");
    assert_string_equal(sb_str(&out),
                        "q.cql:2:17: error: invalid square 'a9'\n"
                        "\tpiece K a9 \xE2\x99\x94x\n"
                        "\t        ^~\n");
    sb_clear(&out);
    /* the figurine is one column wide: 'x' after it is at column 21 */
    diag_at(&d, &src, (Span){21, 24}, DIAG_WARNING, "w");
    assert_string_equal(sb_str(&out), "q.cql:2:21: warning: w\n"
                                      "\tpiece K a9 \xE2\x99\x94x\n"
                                      "\t            ^\n");
    sb_clear(&out);
    diag_game(&d, "g.pgn", 12, 5, 3, "illegal move '%s'", "Nf3");
    assert_string_equal(sb_str(&out), "g.pgn:12:5: game 3: illegal move 'Nf3'\n");
    sb_clear(&out);
    diag_plain(&d, DIAG_ERROR, "cannot open '%s'", "x.pgn");
    assert_string_equal(sb_str(&out), "cql: error: cannot open 'x.pgn'\n");
    assert_int_equal(d.errors, 2);
    assert_int_equal(d.warnings, 2);
    sb_free(&out);
}

/* A long line is shown around the caret, cut at code points, with "..."
 * where it was cut; control bytes show as '?'. */
static void test_diag_long_line(void **state)
{
    (void)state;
    StrBuf text = SB_INIT, want = SB_INIT, out = SB_INIT;
    DiagSink d;
    diag_sink_init(&d, capture, &out);
    sb_append(&text, "/*");
    for (int i = 0; i < 200; i++) sb_append(&text, "\xC3\xA9");   /* é, two bytes */
    sb_append(&text, "*/ atacks");
    uint32_t at = (uint32_t)text.len - 6;
    for (int i = 0; i < 300; i++) sb_append(&text, " x");
    sb_append(&text, "\nnext line\n");
    SourceText src = {"q.cql", text.data, text.len, NULL, 0};
    diag_at(&d, &src, (Span){at, at + 6}, DIAG_ERROR, "unknown filter");
    /* 100 code points before the caret: 97 é then '*', '/', ' ' */
    sb_append(&want, "q.cql:1:206: error: unknown filter\n...");
    for (int i = 0; i < 97; i++) sb_append(&want, "\xC3\xA9");
    sb_append(&want, "*/ atacks");
    for (int i = 0; i < 47; i++) sb_append(&want, " x");
    sb_append(&want, "...\n");
    for (int i = 0; i < 103; i++) sb_putc(&want, ' ');
    sb_append(&want, "^~~~~~\n");
    assert_string_equal(sb_str(&out), sb_str(&want));
    /* a span longer than the window is underlined to the window's end */
    sb_clear(&out);
    diag_at(&d, &src, (Span){at, (uint32_t)text.len - 12}, DIAG_ERROR, "e");
    const char *caret = strrchr(sb_str(&out), '^');
    assert_int_equal(strspn(caret + 1, "~"), 99);
    /* a short line is shown whole; a NUL and an escape byte show as '?' */
    static const char nul[] = "check \0 \x1B mate";
    SourceText nul_src = {"q.cql", nul, sizeof nul - 1, NULL, 0};
    sb_clear(&out);
    diag_at(&d, &nul_src, (Span){6, 7}, DIAG_ERROR, "a NUL byte");
    assert_string_equal(sb_str(&out), "q.cql:1:7: error: a NUL byte\ncheck ? ? mate\n      ^\n");
    sb_free(&text);
    sb_free(&want);
    sb_free(&out);
}

/* The line index gives what diag_line_col gives, at every offset (tabs,
 * multibyte code points across the index's steps, bad UTF-8, newlines). */
static void test_diag_line_index(void **state)
{
    (void)state;
    static const char *const pieces[] = {"ab", "\t", "\n", "\xC3\xA9", "\xE2\x88\x8A", "\xF0\x9F\x98\x80", "\xFF", " "};
    StrBuf text = SB_INIT;
    uint32_t seed = 12345;
    while (text.len < 5000) {
        seed = seed * 1103515245u + 12345u;
        sb_append(&text, pieces[(seed >> 16) % 8]);
    }
    SourceText src = {"q.cql", text.data, text.len, NULL, 0};
    DiagLineIndex ix;
    diag_index_init(&ix, &src);
    for (uint32_t off = 0; off <= text.len + 2; off++) {
        unsigned l1, c1, l2, c2;
        diag_line_col(&src, off, &l1, &c1);
        diag_index_line_col(&ix, off, &l2, &c2);
        if (l1 != l2 || c1 != c2) fail_msg("offset %u: %u:%u, index says %u:%u", off, l1, c1, l2, c2);
    }
    diag_index_free(&ix);
    sb_free(&text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nomem_handler),
        cmocka_unit_test(test_arena_alloc_and_reset),
        cmocka_unit_test(test_arena_realloc_grows_last_block),
        cmocka_unit_test(test_arena_reuses_chunks_between_games),
        cmocka_unit_test(test_arena_lets_a_big_game_go),
        cmocka_unit_test(test_strbuf),
        cmocka_unit_test(test_utf8_roundtrip),
        cmocka_unit_test(test_diag_caret),
        cmocka_unit_test(test_diag_long_line),
        cmocka_unit_test(test_diag_line_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
