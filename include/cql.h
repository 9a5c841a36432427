/*
 * include/cql.h — the library face of cql, an open implementation of the
 * Chess Query Language (CQL 6.2): compile a query with its settings, run
 * it over PGN inputs on worker threads with callbacks for the games and
 * matches, or take the steps one by one: read games, search a game, write
 * a matching game. (docs/library.md shows how.)
 *
 *     CqlSettings *settings = cql_settings_new();
 *     cql_settings_set_flag(settings, "variations", true);
 *     CqlQuery *q = cql_compile(text, len, settings, CQL_COMPILE_RUN, NULL);
 *     CqlRun *run = cql_run_new(q, settings, NULL);
 *     cql_run_add_path(run, "games.pgn");
 *     cql_run_on_match(run, on_match, ctx, true);   (each match, in input order)
 *     cql_run_start(run);
 *
 * or, a game at a time:
 *
 *     CqlReader *r = cql_reader_open("games.pgn", NULL);
 *     CqlGameText *t = cql_game_text_new();
 *     CqlGame *g = cql_game_new();
 *     CqlSearcher *s = cql_searcher_new(q);          (one per thread)
 *     while (cql_reader_next(r, t, NULL))
 *         if (cql_game_parse(g, t, cql_reader_name(r), NULL) != CQL_GAME_UNUSABLE
 *             && cql_search(s, g, &found, NULL))
 *             cql_write_match(s, g, &out);
 *
 * A compiled query is read-only: any number of threads may search with it,
 * each with its own CqlSearcher and CqlGame. Every message (a query error
 * with its caret line, a damaged game, an unreadable file) goes to a
 * CqlMessages sink, or to standard error when the sink is NULL; the library
 * never writes to standard output and never exits, but for one case: when
 * memory runs out and no handler was set (cql_set_nomem_handler), it
 * raises SIGABRT. Only cql_* names leave the library.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_H
#define CQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What the library exports: with gcc and clang, the only names of default
 * visibility (it is built with -fvisibility=hidden), and with gcc the only
 * ones left when the whole library is compiled as one program. */
#if defined(__GNUC__) && !defined(__clang__)
#define CQL_API __attribute__((visibility("default"), externally_visible))
#elif defined(__GNUC__)
#define CQL_API __attribute__((visibility("default")))
#else
#define CQL_API
#endif
#if defined(__GNUC__)
#define CQL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CQL_PRINTF(f, a)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* {==== the library =========================================================== */

/* The version of this header; cql_version() is the library's, as a string
 * ("0.1.0"). The major number changes when the ABI does (libcql.so.MAJOR). */
#define CQL_VERSION_MAJOR 0
#define CQL_VERSION_MINOR 1
#define CQL_VERSION_PATCH 0
CQL_API const char *cql_version(void);

/* Called when memory runs out, with the size asked for. It ends the
 * process, jumps out (longjmp), or frees memory and returns: the allocation
 * is then tried again. Without one (fn NULL), the library writes "cql: out
 * of memory" to standard error and raises SIGABRT. Set it before the
 * library is used on several threads; it is the process's. */
typedef void (*CqlNomemFn)(void *ctx, size_t size);
CQL_API void cql_set_nomem_handler(CqlNomemFn fn, void *ctx);

/* }==== */

/* {==== messages and text ===================================================== */

typedef enum CqlSeverity { CQL_ERROR, CQL_WARNING, CQL_NOTE } CqlSeverity;

/* Receives one complete message, with its trailing newline. */
typedef void (*CqlMessageFn)(void *ctx, CqlSeverity severity, const char *text);

/* Where messages go. Zero-initialised (or a NULL CqlMessages *): standard
 * error. The counts grow as messages are sent. */
typedef struct CqlMessages {
    CqlMessageFn fn;
    void *ctx;
    unsigned errors, warnings;
} CqlMessages;

/* Passes a finished message (as a sink received it) on to m: for a caller
 * that collects messages where they happen (a worker thread) and delivers
 * them later, in order. */
CQL_API void cql_deliver(CqlMessages *m, CqlSeverity severity, const char *text);

/* "cql: SEVERITY: MESSAGE", the form of usage and file messages. */
CQL_API void cql_report(CqlMessages *m, CqlSeverity severity, const char *fmt, ...) CQL_PRINTF(3, 4);

/* A growable string, NUL-terminated once anything is appended. Zero it to
 * start; it owns data until cql_text_free. */
typedef struct CqlText {
    char *data;
    size_t len, cap;
} CqlText;

CQL_API void cql_text_append(CqlText *t, const char *s, size_t n);
CQL_API void cql_text_printf(CqlText *t, const char *fmt, ...) CQL_PRINTF(2, 3);
CQL_API void cql_text_clear(CqlText *t);   /* length 0, keeps the buffer */
CQL_API void cql_text_free(CqlText *t);

/* }==== */

/* {==== queries =============================================================== */

typedef struct CqlQuery CqlQuery;

/* An inclusive range of numbers, when set. */
typedef struct CqlRange {
    bool set;
    long min, max;
} CqlRange;

/* The settings of a compile and a run: how a query is compiled and searched
 * (the comment at matched positions, variations, budgets, transforms of
 * the whole query ...) and how its run goes (threads, limit, part ...), one
 * per row of src/query/settings.def, each set by its name, the command
 * line's option ("variations", "threads" ...). A setting given overrides
 * the query's cql(...) header, as the command line does; one not given
 * leaves it to the header or the default. A new setting is a new name, not
 * a new type. */
typedef struct CqlSettings CqlSettings;

typedef enum CqlSettingKind {
    CQL_SETTING_FLAG,      /* on or off */
    CQL_SETTING_TEXT,      /* a string */
    CQL_SETTING_RESULT,    /* 1-0, 0-1, 1/2-1/2 (or *) */
    CQL_SETTING_COUNT,     /* a whole number of at least `min` */
    CQL_SETTING_SIZE,      /* a number of bytes */
    CQL_SETTING_RANGE,     /* two numbers: min (at least `min`) and max */
    CQL_SETTING_PART       /* two numbers: part K, from 0, of N */
} CqlSettingKind;

/* What a setting is: for a program that offers the settings as options. */
typedef struct CqlSettingInfo {
    const char *name;      /* as the setters name it (and the command line) */
    const char *alias;     /* another name, or NULL */
    CqlSettingKind kind;
    long long min;         /* a count's or a range's smallest value */
    bool header;           /* a parameter of the cql(...) header too */
    bool option;           /* an option of the command line ... */
    bool listed;           /* ... listed in its help (else accepted, as CQL 6.2 accepts it) */
    const char *help;      /* its line in the help */
} CqlSettingInfo;

/* The i-th setting, in the order of the rows (NULL past the last). */
CQL_API const CqlSettingInfo *cql_setting_info(size_t i);

/* New settings, none given. */
CQL_API CqlSettings *cql_settings_new(void);
CQL_API void cql_settings_free(CqlSettings *s);
/* Gives the setting `name` (or its alias, in any case) a value of its
 * kind. False, and nothing set, when there is no such setting, it is of
 * another kind, or the value is outside its range. A flag set off, or a
 * text set to NULL, is not given; a text is copied. */
CQL_API bool cql_settings_set_flag(CqlSettings *s, const char *name, bool on);
CQL_API bool cql_settings_set_number(CqlSettings *s, const char *name, long long value);   /* count, size */
CQL_API bool cql_settings_set_pair(CqlSettings *s, const char *name, long long first, long long second);
                                                                          /* range, part */
CQL_API bool cql_settings_set_text(CqlSettings *s, const char *name, const char *text);    /* text, result */
/* Whether setting `name` was given, and its value (false, 0, NULL when not). */
CQL_API bool cql_settings_given(const CqlSettings *s, const char *name);
CQL_API bool cql_settings_flag(const CqlSettings *s, const char *name);
CQL_API long long cql_settings_number(const CqlSettings *s, const char *name);
CQL_API bool cql_settings_pair(const CqlSettings *s, const char *name, long long *first, long long *second);
CQL_API const char *cql_settings_text(const CqlSettings *s, const char *name);

/* A value bound to a filter of cql_settings_add_filter. */
typedef enum CqlValueKind {
    CQL_VALUE_STRING,   /* a string, whatever its bytes: quotes, backslashes, line ends */
    CQL_VALUE_WORD      /* one word of CQL: a name, a keyword or a whole number (-5) */
} CqlValueKind;

typedef struct CqlValue {
    CqlValueKind kind;
    const char *text;
} CqlValue;

/* Adds a filter to place before the query's body, after its header and the
 * filters added before, as cql's options add theirs (-cql TEXT, -player
 * NAME ...). `filter` is CQL text in which $1 ... $9 stand for values[0]
 * ... values[8] (with no value, the text is taken as it is). A value is
 * never read as query text: a string value is one string whatever it
 * holds, a word value must be one word where it stands. The filter is a
 * source of its own, parsed once: a message about it names it `name`
 * (with values, without a line and a column: "option -player: error: ...")
 * and shows its text with the values in place (a string value as a CQL
 * string), a caret under the culprit; so do -parse, -a and
 * cql_query_tokens. False, and nothing added, when filter or a value is
 * NULL, count is over 9 or a $N names no value. Texts are copied.
 *
 *     CqlValue who = {CQL_VALUE_STRING, "O\"Kelly"};
 *     cql_settings_add_filter(s, "option -player", "player $1", &who, 1);
 */
CQL_API bool cql_settings_add_filter(CqlSettings *s, const char *name, const char *filter, const CqlValue *values,
                                     size_t count);

/* How far cql_compile goes. */
typedef enum CqlCompileStage {
    CQL_COMPILE_RUN,       /* ready to search: transforms expanded, every filter supported */
    CQL_COMPILE_EXPAND,    /* transforms expanded; unsupported filters allowed (printing) */
    CQL_COMPILE_PARSE      /* parsed and typed; transform filters left as written (orbits) */
} CqlCompileStage;

/* The longest query text cql_compile accepts (64 MB). */
#define CQL_QUERY_MAX_BYTES (64u * 1024 * 1024)

/* Compiles a query with its settings (NULL: none given; the query keeps a
 * copy). The settings "name" (the query's name in messages), "bodyonly"
 * (the text is a body without a cql(...) header), "preamble" (filters
 * placed before the body, a source named "preamble", before those of
 * cql_settings_add_filter) and "queryfile" (the file it was read from,
 * which writefile refuses) say what the text is. On an error, reports it
 * (FILE:LINE:COL, the source line and a caret) and returns NULL. The text
 * is copied. */
CQL_API CqlQuery *cql_compile(const char *text, size_t len, const CqlSettings *settings, CqlCompileStage stage,
                              CqlMessages *m);
CQL_API void cql_query_free(CqlQuery *q);

/* Reads a query file ("-": standard input), no further than just past
 * CQL_QUERY_MAX_BYTES. Returns the text (free() it) and its length in *len,
 * or NULL after reporting. */
CQL_API char *cql_read_query_file(const char *path, size_t *len, CqlMessages *m);

/* True when the text is a CQL 1.0 query file, `(match ...)`: its first
 * character outside blanks and `;` comments is '('. cql_compile reads such
 * a file as CQL 1.0 (unless the setting bodyonly is given). */
CQL_API bool cql_is_cql1(const char *text, size_t len);

/* The CQL 6 query equivalent to a CQL 1.0 file (malloc'd, NUL-terminated:
 * free() it), or NULL after reporting the file's errors. name: the file's
 * name in messages. */
CQL_API char *cql_translate_cql1(const char *text, size_t len, const char *name, CqlMessages *m);

/* The i-th keyword of `hhdb` as it is written after it (NULL past the end). */
CQL_API const char *cql_hhdb_key(size_t i);

/* What the query's header says, merged with the settings. */
CQL_API const char *cql_query_input(const CqlQuery *q);    /* cql(input F), or NULL */
CQL_API const char *cql_query_output(const CqlQuery *q);   /* cql(output F), or NULL */
CQL_API CqlRange cql_query_gamenumber(const CqlQuery *q);  /* the games to examine */
/* True when games must be searched one after the other, in input order, by
 * one searcher (persistent variables, dictionaries that are not local). */
CQL_API bool cql_query_in_order(const CqlQuery *q);
/* True when matching games are to be kept and written sorted at the end, by
 * CqlGameResult.sort_key. */
CQL_API bool cql_query_sorts(const CqlQuery *q);
/* True when q uses `lastgamenumber`: before the first search the caller
 * gives the number of games with cql_query_set_game_count. */
CQL_API bool cql_query_needs_game_count(const CqlQuery *q);
/* Sets the value of `lastgamenumber` (clipped to the header's gamenumber
 * range); call it before the first searcher is made. */
CQL_API void cql_query_set_game_count(CqlQuery *q, long count);
/* True when q reads files before its search: the PGN files of its
 * `similarposition` filters. The caller then reads them with
 * cql_query_read_files, once, before the first searcher is made; a search
 * that meets a file not read stops with an error. */
CQL_API bool cql_query_reads_files(const CqlQuery *q);
/* Reads those files, each once. What CQL 6.2 prints while doing so (`Db:
 * read N games from submission file: FILE`) is appended to printed. False
 * after reporting why a file could not be read (a missing or unreadable
 * file, one that is not a regular file or holds binary data, a file without
 * a game or with a damaged game, too many positions), naming it. */
CQL_API bool cql_query_read_files(CqlQuery *q, CqlText *printed, CqlMessages *m);

typedef enum CqlPrint {
    CQL_PRINT_TREE,      /* the syntax tree, one node per line (cql -parse) */
    CQL_PRINT_ASCII,     /* the query in ASCII spelling (cql -a) */
    CQL_PRINT_UNICODE,   /* the query in Unicode spelling (cql -u) */
    CQL_PRINT_ORBITS     /* each transform's orbit (cql --dump-orbit; CQL_COMPILE_PARSE) */
} CqlPrint;

/* Appends the query as asked to out (the text may hold a NUL byte: use out->len). */
CQL_API void cql_query_print(const CqlQuery *q, CqlPrint what, CqlText *out);

/* The kinds of the pieces of a query's text, as its lexer reads them. */
typedef enum CqlTokenKind {
    CQL_TOKEN_SPACE,       /* white space, and the line ends between its sources */
    CQL_TOKEN_COMMENT,     /* a // comment or a block comment */
    CQL_TOKEN_KEYWORD,     /* a keyword (check, flipcolor, ⊢, ///), a word of the cql(...) header */
    CQL_TOKEN_NAME,        /* a variable, function or dictionary name (x, checkx) */
    CQL_TOKEN_NUMBER,      /* 42 */
    CQL_TOKEN_STRING,      /* "text", an escape \n */
    CQL_TOKEN_PIECE,       /* a piece or square designator (Ka1, [Qq]e4, a1-8), a piece variable */
    CQL_TOKEN_OPERATOR,    /* -> + == : {2,5} ... */
    CQL_TOKEN_BRACKET,     /* ( ) { } [ ] */
    CQL_TOKEN_OTHER        /* what the lexer does not read as a token (in a CQL 1.0 file) */
} CqlTokenKind;

typedef void (*CqlTokenFn)(void *ctx, CqlTokenKind kind, const char *text, size_t len);

/* Calls fn on each piece of the query's text as written, in order, with its
 * kind as the query's own lexer reads it: its header, each filter given
 * apart from it (the setting preamble, cql_settings_add_filter's) on a line
 * of its own, then its body (a value bound to a filter is one piece, a
 * string written as CQL writes one). Put together, the pieces are that
 * text: for a query without such filters, exactly the text compiled (a
 * CQL 1.0 file is read as if all of it were the header). For colouring a
 * query. */
CQL_API void cql_query_tokens(const CqlQuery *q, CqlTokenFn fn, void *ctx);

/* True when the two queries have the same header settings and the same
 * syntax tree (where written aside). */
CQL_API bool cql_query_equal(const CqlQuery *a, const CqlQuery *b);

/* }==== */

/* {==== games ================================================================= */

typedef struct CqlReader CqlReader;
typedef struct CqlGameText CqlGameText;
typedef struct CqlGame CqlGame;

/* A reader splits a PGN input into the texts of its games, one at a time,
 * skipping (and reporting) text that is not PGN and never losing a game. */
CQL_API CqlReader *cql_reader_open(const char *path, CqlMessages *m);   /* "-": standard input */
CQL_API CqlReader *cql_reader_open_stream(FILE *fp, const char *name, CqlMessages *m);   /* fp stays open */
CQL_API void cql_reader_set_max_game_size(CqlReader *r, size_t bytes);   /* a longer game is skipped */
/* The next game's text into t; false at the end of the input (or after a
 * reported read error). Messages about the text before it go to m. */
CQL_API bool cql_reader_next(CqlReader *r, CqlGameText *t, CqlMessages *m);
CQL_API const char *cql_reader_name(const CqlReader *r);   /* as shown in messages */
CQL_API long cql_reader_games(const CqlReader *r);         /* game texts cql_reader_next returned so far */
CQL_API bool cql_reader_failed(const CqlReader *r);        /* a read error happened */
CQL_API void cql_reader_close(CqlReader *r);

/* Splitting on worker threads: one thread at a time takes chunks, pieces of
 * the input that begin between two games, and any thread splits a chunk
 * into the same game texts cql_reader_next would give, numbered from 1
 * within the chunk (see cql_game_text_set_number). When a chunk's end turns
 * out not to be between two games (cql_chunk_overran), the chunks from it
 * on go back to the reader, newest first (cql_reader_give_back), and are
 * read again. */
typedef struct CqlChunk CqlChunk;
typedef enum CqlTake {
    CQL_TAKE_CHUNK,     /* the chunk holds the next piece of the input */
    CQL_TAKE_END,       /* the input is read */
    CQL_TAKE_NO_CUT     /* no chunk here (a very long game, games without tags): use cql_reader_next */
} CqlTake;
CQL_API CqlChunk *cql_chunk_new(void);
CQL_API void cql_chunk_free(CqlChunk *c);
/* The next piece of about `bytes` bytes (at most 256 KB) into c. Messages (a read error) go to m. */
CQL_API CqlTake cql_reader_take_chunk(CqlReader *r, size_t bytes, CqlChunk *c, CqlMessages *m);
CQL_API size_t cql_chunk_size(const CqlChunk *c);   /* bytes of input it holds */
/* The chunk's next game text into t, like cql_reader_next; false at its end,
 * or when the game runs past it: then cql_chunk_overran, and what the call
 * reported to m is to be dropped (it is reported again). */
CQL_API bool cql_chunk_next(CqlChunk *c, CqlGameText *t, CqlMessages *m);
CQL_API bool cql_chunk_overran(const CqlChunk *c);
/* Gives the chunk's text back to the reader: all of it (`whole`), or from
 * the game that overran. */
CQL_API void cql_reader_give_back(CqlReader *r, const CqlChunk *c, bool whole);

CQL_API CqlGameText *cql_game_text_new(void);
CQL_API void cql_game_text_free(CqlGameText *t);
/* Makes t the game text `text` with game number `number` (line 1). */
CQL_API void cql_game_text_set(CqlGameText *t, const char *text, size_t len, long number);
CQL_API long cql_game_text_number(const CqlGameText *t);   /* 1-based, in the input */
CQL_API void cql_game_text_set_number(CqlGameText *t, long number);
CQL_API size_t cql_game_text_size(const CqlGameText *t);   /* bytes */
CQL_API long cql_game_text_line(const CqlGameText *t);     /* the input line it starts on */

typedef enum CqlGameStatus {
    CQL_GAME_OK,        /* read completely */
    CQL_GAME_DAMAGED,   /* read with a problem (reported); what could be read is there */
    CQL_GAME_UNUSABLE   /* nothing to search (reported) */
} CqlGameStatus;

/* A game: its tags and its whole move tree, every move replayed. A CqlGame
 * is reused from game to game; its memory is kept for the next. */
CQL_API CqlGame *cql_game_new(void);
CQL_API void cql_game_free(CqlGame *g);
/* Reads t into g (`file` names the input in messages). Problems are
 * reported once per game as FILE:LINE:COL: game N: MESSAGE. The text's
 * buffer may be released afterwards (a reused CqlGameText keeps no huge one). */
CQL_API CqlGameStatus cql_game_parse(CqlGame *g, CqlGameText *t, const char *file, CqlMessages *m);
CQL_API long cql_game_number(const CqlGame *g);
/* The positions of the game, the start position and every move of every
 * variation: ids 0 .. count - 1 in preorder, the main line first. */
CQL_API int cql_game_positions(const CqlGame *g);
/* The ply of position id (0 at the start) and whether it is on the main line. */
CQL_API void cql_game_position(CqlGame *g, int id, int *ply, bool *mainline);
/* Appends the FEN of position id of g. */
CQL_API void cql_game_fen(CqlGame *g, int id, CqlText *out);
/* Appends g in PGN export format, as read (no annotations). */
CQL_API void cql_game_write(const CqlGame *g, CqlText *out);
/* True when b has a's moves, glyphs and comments everywhere, and a's tags
 * with the same values (what writing and reading a game back must keep). */
CQL_API bool cql_game_same(const CqlGame *a, const CqlGame *b);

/* A position of g described as the match callback describes a matched one
 * (CqlPosition below; its comments ""): its texts (SAN, FEN, the variation's
 * path) are appended to *text, and p's pointers point there, valid until
 * text next changes. */
typedef struct CqlPosition CqlPosition;
CQL_API void cql_game_describe(CqlGame *g, int id, CqlPosition *p, CqlText *text);
/* The tree of g by position ids: the position the main continuation of
 * position id's move leads to, and the next alternative to the move into
 * position id (a variation, in the order the PGN gives them); -1 when
 * there is none. cql_game_child(g, 0) is the first move's position. */
CQL_API int cql_game_child(CqlGame *g, int id);
CQL_API int cql_game_sibling(CqlGame *g, int id);

/* Checks a position in FEN. True when it is valid; otherwise *field (1-6),
 * *column and message (size bytes) say why. */
CQL_API bool cql_fen_check(const char *fen, int *field, int *column, char *message, size_t size);

/* }==== */

/* {==== searching ============================================================= */

typedef struct CqlSearcher CqlSearcher;

/* What searching one game found. */
typedef struct CqlGameResult {
    bool matched;             /* the game matches: write it (cql_write_match) */
    long matched_positions;   /* positions where the query matched */
    const char *sort_key;     /* a matching game's place in sorted output (cql_query_sorts):
                                 games are written in the order of their keys, compared
                                 bytewise as memcmp does (a key that is the start of
                                 another comes first), ties in input order. sort_key_len
                                 bytes, not a C string; valid until the next search */
    size_t sort_key_len;
    const char *error;        /* a runtime error stopped the search (a failed `assert`, a
                                 file `readfile` cannot read ...): the message, to be
                                 printed; the run must stop (CQL 6.2 exits with status 1).
                                 Valid until the next search. NULL otherwise */
    bool stopped;             /* the query stopped the run at this game, where CQL 6.2
                                 exits 1: a value-only filter (a number, a string ...)
                                 was evaluated as a position filter, or a filter met a
                                 value it cannot take (`up x K` with x out of -7..7);
                                 report it with cql_search_report_stop and stop (exit
                                 status 1) */
} CqlGameResult;

/* A searcher holds what one thread needs to search games with q: variable
 * values, caches, the notes of the last game searched. q must outlive it. */
CQL_API CqlSearcher *cql_searcher_new(const CqlQuery *q);
CQL_API void cql_searcher_free(CqlSearcher *s);
/* Searches g; returns found->matched. What the query's `message` filters
 * print is appended to printed (NULL: dropped). The notes stay in s until
 * the next search. */
CQL_API bool cql_search(CqlSearcher *s, const CqlGame *g, CqlGameResult *found, CqlText *printed);
/* cql_game_parse for a search with s, faster for a game its query cannot
 * match: a game whose Result tag is not the result asked for, whose tags
 * fail a filter of the body that reads only tags (`player white "X" ...`,
 * `check player "X"`), or none of whose positions has a piece the body
 * needs, where nothing with an effect comes before it (`Ka1`, `check
 * Ka1`, `{[RQ]h7 ...}`, `flipcolor {Ka1 ...}`). Such a game's moves are
 * checked without building its tree (its only position is the start);
 * every problem is reported exactly as cql_game_parse reports it, and
 * cql_search finds no match in it without evaluating the query. Where the
 * filter of the tags holds and is the body's first, a search with s
 * evaluates only the rest of the body. */
CQL_API CqlGameStatus cql_game_parse_for(CqlGame *g, CqlGameText *t, const char *file, CqlMessages *m,
                                         CqlSearcher *s);
/* After a search of g that stopped (found->stopped): reports the filter
 * that stopped it, FILE:LINE:COL with a caret, through m. */
CQL_API void cql_search_report_stop(const CqlSearcher *s, const CqlGame *g, CqlMessages *m);
/* After a search of g: whether position id matched. */
CQL_API bool cql_position_matched(const CqlSearcher *s, int id);
/* After a search of g that matched: appends g as cql writes a match, with
 * "Game number N", the match string at matched positions, the query's
 * comments and tags. */
CQL_API void cql_write_match(CqlSearcher *s, const CqlGame *g, CqlText *out);
/* At the end of a run: `name: value` for every persistent variable and every
 * dictionary that is not local. */
CQL_API void cql_searcher_print_persistent(const CqlSearcher *s, CqlText *out);
/* At the end of a run that read every game: a note for each tag filter of
 * the query with a text to find (player white "X", event "X" ...; those of
 * -player, -event ... too) that held in none of the games searched, saying
 * when a tag holds the text in another case. With a searcher per thread,
 * merge them into one first (it then tells about the games of all). */
CQL_API void cql_searcher_merge_tags(CqlSearcher *into, const CqlSearcher *from);
CQL_API void cql_searcher_report_unmatched_tags(const CqlSearcher *s, CqlMessages *m);

/* }==== */

/* {==== runs ================================================================== */

/* A run: a compiled query over its inputs, read in order and searched on
 * worker threads, each game and each match handed to the caller's
 * callbacks in input order whatever the thread count (a sorting query's
 * matches at the end, in the order of their keys).
 *
 * A run may search with several queries in one pass (cql_run_add_query):
 * each game is read, split, parsed and replayed once and searched with
 * every query that still wants games. Each query's games and matches (the
 * callbacks say which query, CqlRunGame.query), totals, limit, sorting and
 * stop are its own, the same as in a run of it alone; a query that stops
 * (a failed `assert` ...) or is cancelled (cql_run_cancel_query) stops
 * alone, and the run reads on while one query wants games. A query that
 * must see the games in order (cql_query_in_order) makes the whole run go
 * on one thread.
 *
 *     CqlRun *run = cql_run_new(q, &settings);
 *     cql_run_add_path(run, "games.pgn");
 *     cql_run_on_match(run, on_match, ctx, true);
 *     CqlRunStatus st = cql_run_start(run);       (returns when the run is over)
 *     cql_run_free(run);
 *
 * Callbacks run on the thread that called cql_run_start, one at a time;
 * any of them, or another thread, may call cql_run_cancel. */
typedef struct CqlRun CqlRun;

/* A position where the query matched (or any position of a game:
 * cql_game_describe). */
struct CqlPosition {
    int id;                   /* preorder id: 0 the start, the main line first */
    int ply;                  /* plies from the start */
    int move_number;          /* of the move into it, as PGN numbers it (1. e4, 1... e5);
                                 at the start, the start position's own */
    bool white_to_move;
    bool in_variation;        /* off the main line */
    const char *san;          /* the move into it in SAN, with + or # ("" at the start) */
    const char *fen;
    int from, to;             /* the squares of the move into it, 0 (a1), 1 (b1) ... 63 (h8);
                                 castling: the king's; -1 at the start and for a null move */
    const char *variation;    /* where it lies off the main line: PLY:K for each variation
                                 it lies in, outermost first, joined by '/', where the move
                                 of ply PLY is the K-th alternative (K >= 1) to the move
                                 played there ("4:1/7:2"); "" on the main line */
    const char *comments;     /* what the query wrote there as the match is written (its
                                 comments, the match string, joined by a blank), "" when
                                 nothing */
};

/* A tag pair of a game. */
typedef struct CqlTag {
    const char *name, *value;
} CqlTag;

/* A game of a run. Its pointers are valid during the callback only; with a
 * batch callback (cql_run_on_batch_end), a match's pgn and positions until
 * the end of its batch. */
typedef struct CqlRunGame {
    long number;              /* in the run: numbered on across its inputs, from 1 */
    const char *input;        /* the name of its input */
    long index;               /* its number within that input, from 1 */
    bool examined;            /* inside the game-number range: searched */
    bool damaged;             /* its PGN had a problem (reported through the messages) */
    bool matched;
    const char *printed;      /* what the query's `message` filters printed (printed_len
                                 bytes; NULL when nothing) */
    size_t printed_len;
    const char *error;        /* a runtime error that stopped the run at this game (a
                                 failed `assert` ...): the text to print; NULL otherwise */
    /* the match callback only: */
    const char *pgn;          /* the game as cql writes a match (pgn_len bytes) */
    size_t pgn_len;
    const CqlPosition *positions;   /* where it matched, in id order (when asked for) */
    int npositions;
    const CqlTag *tags;       /* its tags as the match writes them: the input's in order,
                                 with the values the query's `settag` gave, then the tags
                                 `settag` added (with the positions, when asked for) */
    int ntags;
    int query;                /* the run's query it is about: 0, the one of cql_run_new,
                                 then 1, 2 ... in the order of cql_run_add_query */
} CqlRunGame;

typedef void (*CqlRunGameFn)(void *ctx, CqlRun *run, const CqlRunGame *game);

/* How far a run is, after each game. */
typedef struct CqlRunProgress {
    long games;               /* games read */
    long matches;             /* matching games */
    uint64_t bytes;           /* game text read */
} CqlRunProgress;

typedef void (*CqlRunProgressFn)(void *ctx, const CqlRunProgress *progress);

/* The end of a batch of games handed over (a piece of the input, the
 * sorted matches). */
typedef void (*CqlRunBatchFn)(void *ctx, CqlRun *run);

/* An input the run opens when it comes to it: open returns the stream
 * (NULL after reporting through m: the run fails); close is told when the
 * run is done with it, and whether it read it to its end, and returns
 * false when the input was not complete (the run then fails, as on a read
 * error). For a decompressor's output, a pipe ... */
typedef FILE *(*CqlOpenFn)(void *ctx, CqlMessages *m);
typedef bool (*CqlCloseFn)(void *ctx, FILE *fp, bool read_to_end);

/* What a run did (for one of its queries). */
typedef struct CqlRunTotals {
    long games;               /* games read (up to where the run stopped) */
    long matches;             /* matching games */
    long pgn_errors;          /* games whose PGN had a problem */
    uint64_t bytes;           /* game text read */
    long threads;             /* the threads that ran: those asked for, or fewer when no
                                 more could start */
    bool limit_reached;       /* stopped after the setting `limit` of matching games */
    bool cancelled;           /* cql_run_cancel was called */
    long stopped_at;          /* the game the query stopped the run at (CQL_RUN_STOPPED), as
                                 CqlRunGame.number; 0 otherwise */
    const char *error;        /* its runtime error, as CqlRunGame.error had it (valid until
                                 cql_run_free); NULL when the stop was reported through the
                                 messages instead (a value-only filter ...) or not stopped */
    long ruled_out;           /* games a sidecar index ruled out: not replayed (CqlIndex) */
    long from_codes;          /* games searched from a sidecar's move codes, not their text */
    long in_place;            /* of those, searched with their positions made one after another
                                 in place, no game tree built (docs/index.md) */
    uint64_t pgn_read;        /* bytes read of the run's inputs: less than their size when a
                                 sidecar let the reader jump over games (docs/index.md) */
} CqlRunTotals;

typedef enum CqlRunStatus {
    CQL_RUN_DONE,             /* every game read, or stopped at the limit or by cql_run_cancel */
    CQL_RUN_STOPPED,          /* the query stopped the run: a runtime error (CqlRunGame.error),
                                 a value-only filter evaluated as a position filter (reported);
                                 CQL 6.2 exits with status 1 there. With several queries: one
                                 of them stopped, the others went on (its totals' stopped_at) */
    CQL_RUN_FAILED            /* an input could not be opened or read to its end, or the
                                 settings do not fit the inputs (reported) */
} CqlRunStatus;

/* A run of q (which must outlive it) with the run's settings (threads,
 * limit, part, maxgamesize ...; NULL: those q was compiled with); those of
 * the search (gamenumber, variations ...) are q's. Messages about the
 * games and the run go to m (NULL: standard error), in input order. */
CQL_API CqlRun *cql_run_new(const CqlQuery *q, const CqlSettings *settings, CqlMessages *m);
CQL_API void cql_run_free(CqlRun *r);
/* Adds query q (which must outlive the run) before the run starts: the run
 * searches with it too, in the same pass. Returns its index (1, 2 ...; the
 * query of cql_run_new is 0), or -1 once the run has started. */
CQL_API int cql_run_add_query(CqlRun *r, const CqlQuery *q);
CQL_API int cql_run_query_count(const CqlRun *r);

/* Inputs, read in the order added; games are numbered on across them. */
CQL_API void cql_run_add_path(CqlRun *r, const char *path);             /* "-": standard input */
CQL_API void cql_run_add_stream(CqlRun *r, FILE *fp, const char *name); /* fp stays the caller's */
CQL_API void cql_run_add_source(CqlRun *r, const char *name, CqlOpenFn open, CqlCloseFn close, void *ctx);
/* Only the games of path that begin on a line from the one byte `from` is
 * on to before the line byte `to` is on (0: to the end): a part of a file,
 * whose games keep their numbers in the whole file. */
CQL_API void cql_run_add_range(CqlRun *r, const char *path, uint64_t from, uint64_t to);

/* The callbacks (each may be NULL): every game read, in input order, with
 * what its search printed; every matching game with its PGN text, and its
 * matched positions and tags when `positions`; progress after each game. */
CQL_API void cql_run_on_game(CqlRun *r, CqlRunGameFn fn, void *ctx);
CQL_API void cql_run_on_match(CqlRun *r, CqlRunGameFn fn, void *ctx, bool positions);
CQL_API void cql_run_on_progress(CqlRun *r, CqlRunProgressFn fn, void *ctx);
/* Called after each batch of games was handed over (a piece of the input
 * of about 64 KB on worker threads; a game on one thread; every match of a
 * sorting query). The PGN text and the positions of each match handed over
 * in the batch stay valid until this callback returns: a caller can write
 * a batch's matches at once (writev) instead of copying each. */
CQL_API void cql_run_on_batch_end(CqlRun *r, CqlRunBatchFn fn, void *ctx);

/* A batch held past its end (cql_run_hold_batch). */
typedef struct CqlRunHold CqlRunHold;
/* Called from a batch's callbacks (its match callbacks or its end): the
 * PGN texts of the batch's matches stay valid after the batch ends, until
 * cql_run_release(r, hold), which may be called from any thread (one that
 * writes them; the batch's texts are freed on it): the run goes on
 * meanwhile with other buffers, waits for a release when it has none left
 * or when the held batches reach its budget of text (the setting
 * ringbytes), and returns from cql_run_start once every hold is released.
 * Each batch is held at most once. NULL when the batch cannot be held (on
 * one thread; the matches of a sorting query): its texts then go when the
 * batch ends. */
CQL_API CqlRunHold *cql_run_hold_batch(CqlRun *r);
CQL_API void cql_run_release(CqlRun *r, CqlRunHold *hold);

/* Checks the settings against the inputs (a part needs one file ...) and
 * opens the first input; false after reporting. cql_run_start opens the run
 * when the caller has not. */
CQL_API bool cql_run_open(CqlRun *r);
/* Runs to the end (or the limit, or cql_run_cancel) on the calling thread
 * and the worker threads; the callbacks are called on the calling thread.
 * A run is started once. */
CQL_API CqlRunStatus cql_run_start(CqlRun *r);
/* After the run, how it went for query `query`: CQL_RUN_STOPPED when that
 * query stopped (the others may have gone on), else CQL_RUN_FAILED when an
 * input could not be read (or the run did not start), else CQL_RUN_DONE. */
CQL_API CqlRunStatus cql_run_query_status(const CqlRun *r, int query);
/* Stops the run soon, from a callback or any thread: the games after the
 * one being handed over are not delivered. */
CQL_API void cql_run_cancel(CqlRun *r);
/* Stops query `query` alone: no game after the one being handed over is
 * delivered for it (the run stops once no query wants games). */
CQL_API void cql_run_cancel_query(CqlRun *r, int query);
/* The totals of the run's first query (with one query, the run's), and of
 * query `query` (NULL when there is no such query). */
CQL_API const CqlRunTotals *cql_run_totals(const CqlRun *r);
CQL_API const CqlRunTotals *cql_run_query_totals(const CqlRun *r, int query);
/* After a run on one thread: `name: value` for every persistent variable
 * and every dictionary that is not local of the first query, or of query
 * `query`, appended to out. */
CQL_API void cql_run_print_persistent(const CqlRun *r, CqlText *out);
CQL_API void cql_run_query_print_persistent(const CqlRun *r, int query, CqlText *out);

/* }==== */

/* {==== the sidecar index ===================================================== */

/* A sidecar index (games.pgn.cqlx) keeps, for every game of a PGN file,
 * where its text is, its moves as two-byte codes, its tags, and a summary
 * that lets a query rule it out without replaying it (the squares each
 * piece ever stood on, piece counts, whether it has a check, a mate ...).
 * A run over a path uses the path's fresh sidecar by itself (the setting
 * "noindex" turns that off; "indexfile" names it for a run of one file):
 * games the query cannot match are skipped, the others searched from
 * their codes, and every matching game is read and written from its text,
 * so the run's output is the same byte for byte as without it. A sidecar
 * made from another state of the file (its size, modification time, first
 * or last bytes differ) is stale, one whose bytes do not add up damaged:
 * neither is used, and the run says so once. (docs/index.md) */
typedef struct CqlIndex CqlIndex;

/* Hands over the sidecar's bytes in order; false when the write failed. */
typedef bool (*CqlIndexWriteFn)(void *ctx, const void *data, size_t len);

typedef struct CqlIndexTotals {
    long games;               /* games indexed */
    long text_only;           /* of them, games that had a PGN problem: a search reads their text */
    uint64_t pgn_bytes;       /* the PGN file's size */
    uint64_t index_bytes;     /* the sidecar's */
} CqlIndexTotals;

/* Reads the PGN file pgn_path in one pass and hands its sidecar to write,
 * with progress after each game (matches 0; NULL: none). The caller puts
 * the bytes where they go: the program writes a temporary file renamed
 * into place (docs/index.md). False after reporting through m: the file
 * cannot be read, a write failed, or it changed while it was read. */
CQL_API bool cql_index_build(const char *pgn_path, CqlIndexWriteFn write, void *ctx, CqlRunProgressFn progress,
                             void *progress_ctx, CqlIndexTotals *totals, CqlMessages *m);

/* The sidecar's usual name, pgn_path + ".cqlx" (malloc'd: free() it). */
CQL_API char *cql_index_path(const char *pgn_path);
/* True when the file at path begins as a sidecar index does. */
CQL_API bool cql_index_is_sidecar(const char *path);

typedef enum CqlIndexStatus {
    CQL_INDEX_OK,
    CQL_INDEX_MISSING,        /* there is none */
    CQL_INDEX_STALE,          /* made from another state of the PGN file, or by a cql of another
                                 sidecar format version (reported) */
    CQL_INDEX_DAMAGED         /* unreadable, or its bytes do not add up (reported) */
} CqlIndexStatus;

/* Opens the sidecar index_path (NULL: the usual name) of the PGN file
 * pgn_path into *out, checking it against the file. A stale or damaged
 * one is reported through m (a note: the text is read instead); *out is
 * NULL unless CQL_INDEX_OK. */
CQL_API CqlIndexStatus cql_index_open(const char *pgn_path, const char *index_path, CqlIndex **out,
                                      CqlMessages *m);
CQL_API void cql_index_close(CqlIndex *ix);
/* The games it indexes. */
CQL_API long cql_index_games(const CqlIndex *ix);
/* How many of them q's condition rules out: games q cannot match, which a
 * run skips without replaying them. */
CQL_API long cql_index_ruled_out(const CqlIndex *ix, const CqlQuery *q);
/* q's condition on a game's summary, in words ("none" when there is none),
 * appended to out. */
CQL_API void cql_index_condition(const CqlQuery *q, CqlText *out);

/* }==== */

#ifdef __cplusplus
}
#endif

#endif
