/*
 * src/query/hhdb_keys.h — the keywords of `hhdb`, the interface to the
 * Heijden endgame study database (shared/spec/cql62-remaining.md §14):
 * each key's spelling (bare, or quoted when it has other characters than
 * letters, digits and `_`), what it reads and the type of its value.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_HHDB_KEYS_H
#define CQL_HHDB_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "query/ast.h"

/* What a key reads. */
typedef enum HhdbWhat {
    HH_BLACK_HAS,       /* the Black tag contains `arg` (a flag: TT, U1 ...) */
    HH_COMMENT_HAS,     /* the comment at the position contains `arg` (<cook ...) */
    HH_COMPOSER,
    HH_SEARCH,
    HH_FIRSTCOMMENT,
    HH_STIPULATION,
    HH_DIAGRAM,
    HH_EGDIAGRAM,
    HH_GBR,             /* and its parts: arg "material", "pieces", "pawns", "kings" */
    HH_COOKED,
    HH_DUAL,
    HH_SOUND,
    HH_UNSOUND,
    HH_MAINLINE,
    HH_VARIATION,
    HH_AWARD,           /* award prize hm commendation special max sort */
    HH_UNMAPPED         /* listed by CQL 6.2 but without a meaning: an error */
} HhdbWhat;

typedef struct HhdbKey {
    const char *name;   /* as written after hhdb (quoted when `quoted`) */
    HhdbWhat what;
    const char *arg;    /* the text looked for, or the gbr part */
    bool quoted;
    ValueType type;     /* VT_NONE, VT_STRING or VT_NUMBER */
    bool needs_variations;
} HhdbKey;

/* The key named `name` (written quoted or not), or NULL. */
const HhdbKey *hhdb_key(const char *name, bool quoted);
/* The gbr part named `name` (material, pieces, pawns, kings), or NULL. */
const HhdbKey *hhdb_gbr_part(const char *name);
/* The i-th key of the list (NULL past the end): hhdb_key_at(hhdb_key_index(k)) == k. */
const HhdbKey *hhdb_key_at(size_t i);
int hhdb_key_index(const HhdbKey *k);
/* True for material, pieces, pawns and kings (which are not keys alone). */
bool hhdb_is_gbr_part_name(const char *name);

/* The award words: a bit each, in Node.num2 of an award filter. */
enum {
    HHA_AWARD = 1, HHA_PRIZE = 2, HHA_HM = 4, HHA_COMMENDATION = 8, HHA_SPECIAL = 16, HHA_MAX = 32, HHA_SORT = 64
};
/* The bit of award word `name`, or 0. */
unsigned hhdb_award_word(const char *name);

#endif
