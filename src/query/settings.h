/*
 * src/query/settings.h — the settings of a run, made from the rows of
 * query/settings.def: one field per row in Settings, a bit per row for
 * whether it was given, and the rows as data (names, kinds, limits, help)
 * for the command line, the query's header and the library's setters.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_SETTINGS_H
#define CQL_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum SettingKind { SK_FLAG, SK_TEXT, SK_RESULT, SK_COUNT, SK_SIZE, SK_RANGE, SK_PART } SettingKind;
typedef enum SettingHeader { HP_NONE, HP_PARAM, HP_AT_LEAST } SettingHeader;
typedef enum SettingWhere { SW_OPTION, SW_HIDDEN, SW_LIBRARY } SettingWhere;

/* Two numbers: a range's min and max (SK_RANGE), a part's K and N (SK_PART). */
typedef struct SettingPair {
    int64_t first, second;
} SettingPair;

/* The C type of each kind's value. */
#define SETTING_TYPE_SK_FLAG bool
#define SETTING_TYPE_SK_TEXT const char *
#define SETTING_TYPE_SK_RESULT const char *
#define SETTING_TYPE_SK_COUNT int64_t
#define SETTING_TYPE_SK_SIZE uint64_t
#define SETTING_TYPE_SK_RANGE SettingPair
#define SETTING_TYPE_SK_PART SettingPair

typedef enum SettingId {
#define SETTING(id, ...) SET_##id,
#include "query/settings.def"
    SETTING_COUNT
} SettingId;

_Static_assert(SETTING_COUNT <= 64, "Settings.given has a bit per setting");

/* A value for each setting, and which were given: a value not given is
 * zero (NULL, false), and the query's header or the default decides. The
 * strings are not owned. */
typedef struct Settings {
    uint64_t given;             /* bit SET_id: the setting was given */
#define SETTING(id, kind, ...) SETTING_TYPE_##kind id;
#include "query/settings.def"
} Settings;

/* A row of settings.def as data. */
typedef struct SettingInfo {
    const char *name;
    const char *alias;          /* NULL: none */
    SettingKind kind;
    int64_t min;                /* SK_COUNT, SK_RANGE: the smallest value */
    SettingHeader header;
    SettingWhere where;
    const char *help;
    size_t offset;              /* of its value in Settings */
    int transform;              /* a TRANSFORM row: the TokenKind of its filter; else -1 */
} SettingInfo;

extern const SettingInfo setting_rows[SETTING_COUNT];

static inline bool settings_given(const Settings *s, SettingId id)
{
    return (s->given >> id) & 1;
}

/* The row named `name` or with that alias, in any case; NULL when none. */
const SettingInfo *settings_find(const char *name);

/* Setting a value: false (and s unchanged) when the row's kind is another,
 * or the value is out of its range (a count below the row's min; a range
 * whose min is below it or whose max is below its min; a part K/N without
 * 0 <= K < N <= 1000000; a result not 1-0, 0-1, 1/2-1/2 or *). A flag set off
 * is not given (the header may still set it); a text is kept as a pointer
 * (the caller owns it; NULL: not given). */
bool settings_set_flag(Settings *s, const SettingInfo *row, bool on);
bool settings_set_number(Settings *s, const SettingInfo *row, int64_t value);   /* SK_COUNT, SK_SIZE */
bool settings_set_pair(Settings *s, const SettingInfo *row, int64_t first, int64_t second);   /* SK_RANGE, SK_PART */
bool settings_set_text(Settings *s, const SettingInfo *row, const char *text);  /* SK_TEXT, SK_RESULT */

/* A row's value in s, by kind. */
bool settings_flag(const Settings *s, const SettingInfo *row);
int64_t settings_number(const Settings *s, const SettingInfo *row);
SettingPair settings_pair(const Settings *s, const SettingInfo *row);
const char *settings_text(const Settings *s, const SettingInfo *row);

/* The settings of a search: for each row that is a header parameter, the
 * caller's value when given, else the header's (given when either is);
 * the caller's for every other row. */
void settings_merge(Settings *out, const Settings *caller, const Settings *header);

/* True when a and b give the same rows with the same values. */
bool settings_equal(const Settings *a, const Settings *b);

#endif
