/*
 * tests/fuzz/fuzz_support.h — what the fuzz harnesses share: the libFuzzer
 * entry points, a quiet diagnostic sink, a way to fail loudly, and the
 * checks that what the PGN writer writes reads back as the same game.
 *
 * Each harness (fuzz_*.c) defines LLVMFuzzerTestOneInput. It is linked two
 * ways: with libFuzzer (`make fuzz`, clang -fsanitize=fuzzer), and with
 * replay_main.c, a plain main() that feeds it files, so that `make test`
 * replays the seed corpus and every regression file without libFuzzer.
 * A harness reports a wrong result (not a crash) with fuzz_fail, which
 * prints what differs and aborts: libFuzzer then saves the input as a
 * crash, and the replay driver dies with SIGABRT.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_FUZZ_SUPPORT_H
#define CQL_FUZZ_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/diag.h"
#include "pgn/game.h"
#include "pgn/writer.h"
#include "base/strbuf.h"

/* libFuzzer's entry points (declared here for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The name every harness goes by in messages ("fuzz_pgn", ...). */
extern const char *const fuzz_harness_name;

/* A sink that keeps the last messages (for fuzz_fail to show) and prints nothing. */
void fuzz_quiet_sink(DiagSink *d);

/* Prints "HARNESS: what" and the details, then aborts. */
_Noreturn void fuzz_fail(const char *what, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* One-time set-up of the library tables (att_init, xf_init). */
void fuzz_init_library(void);

/* Writes g (with the driver's notes, which may be NULL) as PGN, reads the
 * text back and checks that the game is the same: the text reads as one
 * well-formed game; the move tree (moves, variations, NAGs) is identical;
 * the tags hold the values written (the notes' tags replacing the game's);
 * every comment is there with its text unchanged except that runs of
 * white space are one space (the writer re-wraps comments), the notes
 * appearing as the writer documents (pgn_writer.h); and writing the game
 * read back gives the same text again. Calls fuzz_fail on any difference.
 * Appends the text written to *written when it is not NULL. */
void fuzz_check_pgn_round_trip(const Game *g, const PgnAnnotations *notes, StrBuf *written);

/* Every position of the tree under root is whole (pos_is_ok); else fails
 * with `what`. A loop over a stack, not a recursion: a line can be as long
 * as the input. */
void fuzz_check_tree_whole(const GameNode *root, const char *what);

/* A query file starts with its `cql(...)` header, or with `(` for a CQL 1.0
 * file; anything else is a query body (as given with -cql). */
bool fuzz_is_query_file(const char *text, size_t len);

/* The text [data, data + size) as a NUL-terminated heap string. */
char *fuzz_strndup(const uint8_t *data, size_t size);

#endif
