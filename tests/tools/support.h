/*
 * tests/tools/support.h — what the conformance and CQL 1.0 test tools share:
 * message sinks, files read whole, tab-separated lines, the games of a PGN
 * file parsed once, and the count of matches per game that the conformance
 * vectors record. On include/cql.h alone.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_TOOL_SUPPORT_H
#define CQL_TOOL_SUPPORT_H

#include <stdbool.h>

#include "cql.h"

/* The match string the vectors were made with (-matchstring ZZMATCH). */
#define TOOL_MATCHSTRING "ZZMATCH"

/* Message sinks: one that drops messages, one that appends them to the
 * CqlText given as its context. */
void tool_discard(void *ctx, CqlSeverity sev, const char *text);
void tool_capture(void *ctx, CqlSeverity sev, const char *text);

/* The text so far ("" before anything is appended). */
const char *tool_str(const CqlText *t);
/* p, or exits with status 2 after "out of memory" when it is NULL. */
void *tool_must(void *p);
/* New settings naming the query `name` (in messages), a body without a
 * header when body_only; cql_settings_free them. */
CqlSettings *tool_settings(const char *name, bool body_only);
/* The whole file, NUL-terminated (free() it); NULL when it cannot be read. */
char *tool_read_all(const char *path);
/* Splits a line at tabs into at most n fields (in place); returns how many. */
int tool_split_tabs(char *line, char **fields, int n);
/* The occurrences of "[White " in file `path`: how cql counts the games
 * for `lastgamenumber` (cql62-remaining.md §12). */
long tool_count_white_tags(const char *path);

/* The games of one PGN file, parsed once (an unusable game is NULL). */
typedef struct ToolDataset {
    CqlGame **games;
    int count;
} ToolDataset;

bool tool_load_dataset(const char *path, ToolDataset *d);
void tool_free_dataset(ToolDataset *d);

/* What the vectors record, from an output text made with TOOL_MATCHSTRING:
 * a game's part begins at "Game number N", where the words may be separated
 * by any run of white space (CQL 6.2 breaks the line inside the game-number
 * comment when it follows a long comment), the splitter
 * Game\s+number\s+(\d+) of the vectors. Match strings count for the game of
 * the part they are in, summed per game in the order the games first
 * appear; the text before the first part is not counted. Appends
 * "G:P G:P ...". */
void tool_count_matches(const char *text, CqlText *got);

/* Searches every game of d with q as cql does (the query's game-number
 * range respected) and appends the matches, "G:P G:P ...", to got. False
 * when the query stopped the run (cql exits 1 there): its message is
 * appended to why and got is left as it was. */
bool tool_search_dataset(const CqlQuery *q, const ToolDataset *d, CqlText *got, CqlText *why);

#endif
