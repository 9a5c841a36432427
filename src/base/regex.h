/*
 * src/base/regex.h — regular expressions for `S ~~ P`: the ECMAScript
 * grammar of C++'s std::regex (what CQL 6.2 uses), matched by a
 * backtracking engine whose cost is bounded.
 *
 * Grammar (bytes; no case folding; no flags):
 *   P|Q        alternatives, the leftmost that matches wins (not the longest)
 *   * + ? {m} {m,} {m,n}   greedy repetition; *? +? ?? {m,n}? lazy
 *   ( )        a group, captured as \1 ... in the order of its '('
 *   (?: )      a group, not captured
 *   (?= ) (?! )   lookahead: the text that follows does (not) match
 *   .          any byte but \n and \r
 *   [...] [^...]  a class: bytes, ranges a-z, \d \w \s \D \W \S, POSIX
 *              classes [:alpha:] ..., [.c.] and [=c=]; `[]` matches
 *              nothing, `[^]` any byte
 *   \d \w \s \D \W \S   [0-9], [A-Za-z0-9_], [ \t\n\v\f\r], and the complements
 *   ^ $        the start and the end of the whole text (no multi-line mode)
 *   \b \B      a word boundary (between \w and \W, or the text's ends), or not
 *   \1 ... \N  the text a group closed before it matched (empty if the group
 *              did not take part)
 *   \f \n \r \t \v \0 \xHH \uHHHH (up to 00FF) \cX   those bytes; \ before
 *              any other byte is that byte; `]` `}` alone are themselves
 *   A quantifier may follow another (a** is (a*)*), as in libstdc++.
 * A repetition whose body can match the empty text stops repeating when an
 * iteration matches nothing (ECMAScript's rule); the captures of a group
 * inside a repetition keep their last values.
 *
 * Cost: the search counts steps (one per instruction executed, and one per
 * 16 bytes a back-reference compares; a backtrack undoes at most what an
 * instruction did) against a budget the caller gives. A pattern without
 * back-references, and without a repetition of something that can match
 * the empty text (`(a*)*`, `(\b)+`), remembers which (branch, position)
 * pairs failed, so that no state is tried twice: its cost is at most a few
 * times the instructions times the text length (regex_memoized). Memory is bounded (the caps
 * below): a memo that would be larger is not made (the budget alone bounds
 * that search), a lookahead past its log's cap stops marking, and a
 * backtracking stack that would be larger ends the search with
 * REGEX_OVER_MEMORY.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_REGEX_H
#define CQL_REGEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Regex Regex;

/* Why a pattern was refused: a message (static text) and the byte of the
 * pattern where it was found. */
typedef struct RegexError {
    const char *message;
    size_t offset;
} RegexError;

/* Limits of a compiled pattern. */
#define REGEX_MAX_PATTERN 100000        /* bytes */
#define REGEX_MAX_DEPTH 256             /* nesting of groups */
#define REGEX_MAX_INSTRUCTIONS 100000   /* after repetition counts are expanded */
#define REGEX_MAX_COUNT 100000          /* m and n of {m,n} */

/* Limits of one search, in bytes. */
#define REGEX_MEMO_MAX_BYTES ((size_t)8 << 20)
#define REGEX_STACK_MAX_BYTES ((size_t)64 << 20)   /* 4 M frames: `.*` over 4 MB */
#define REGEX_LOG_MAX_BYTES ((size_t)8 << 20)

/* The step budget `~~` gives one evaluation unless told otherwise. */
#define REGEX_DEFAULT_STEPS 100000000ULL

/* Compiles the pattern [pattern, pattern + len). Returns NULL when it is not
 * a regular expression of the grammar above, or is too large, and sets *err. */
Regex *regex_compile(const char *pattern, size_t len, RegexError *err);
void regex_free(Regex *re);

/* The number of capturing groups (not counting \0, the whole match). */
int regex_groups(const Regex *re);
/* The number of instructions of the compiled program. */
size_t regex_size(const Regex *re);
/* True when the pattern has a back-reference. */
bool regex_has_backrefs(const Regex *re);
/* True when its search remembers the states that failed: no back-reference,
 * and no repetition of something that can match the empty text. */
bool regex_memoized(const Regex *re);
/* True when the pattern has a lookahead (its captures may lie past the match). */
bool regex_has_lookahead(const Regex *re);

typedef enum RegexResult {
    REGEX_NO_MATCH,
    REGEX_MATCH,
    REGEX_OVER_BUDGET,  /* the steps ran out */
    REGEX_OVER_MEMORY   /* the backtracking stack reached its cap */
} RegexResult;

/* Search flags. */
enum {
    REGEX_CONTINUOUS = 1 << 0,   /* a match must start at `from` */
    REGEX_NOT_EMPTY = 1 << 1,    /* an empty match does not count */
    REGEX_NO_MEMO = 1 << 2       /* never memoize (for tests of the memo) */
};

/* A group's place in the text: [start, end), or both REGEX_UNSET when the
 * group did not take part in the match. */
typedef struct RegexSpan {
    size_t start, end;
} RegexSpan;
#define REGEX_UNSET SIZE_MAX

/* Searches the text [text, text + len) for the leftmost match that starts
 * at `from` or later (the bytes before `from` are seen by \b; ^ matches
 * only at 0). On a match, spans[0] is the match and spans[i] group i, for
 * i < nspans (groups beyond regex_groups are unset). Each step taken is
 * subtracted from *steps; when they run out the search stops with
 * REGEX_OVER_BUDGET (*steps is then 0). */
RegexResult regex_search(const Regex *re, const char *text, size_t len, size_t from, unsigned flags,
                         uint64_t *steps, RegexSpan *spans, int nspans);

#endif
