/*
 * src/query/settings.c — the rows of settings.def as data, and setting,
 * reading and merging their values (see settings.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "query/settings.h"

#include <string.h>

#include "query/lexer.h"

const SettingInfo setting_rows[SETTING_COUNT] = {
#define SETTING(id, kind, name, alias, min, header, where, help) \
    [SET_##id] = {name, alias, kind, min, header, where, help, offsetof(Settings, id), -1},
#define TRANSFORM(id, name, token, where, help) \
    [SET_##id] = {name, NULL, SK_FLAG, 0, HP_NONE, where, help, offsetof(Settings, id), token},
#include "query/settings.def"
};

static char name_char(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

static bool same_setting_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (name_char(*a) != name_char(*b)) return false;
    return *a == *b;
}

const SettingInfo *settings_find(const char *name)
{
    for (size_t i = 0; i < SETTING_COUNT; i++) {
        const SettingInfo *row = &setting_rows[i];
        if (same_setting_name(name, row->name) || (row->alias && same_setting_name(name, row->alias))) return row;
    }
    return NULL;
}

static void *value_of(const Settings *s, const SettingInfo *row)
{
    return (char *)(uintptr_t)s + row->offset;
}

static void mark_given(Settings *s, const SettingInfo *row, bool given)
{
    uint64_t bit = UINT64_C(1) << (row - setting_rows);
    s->given = given ? s->given | bit : s->given & ~bit;
}

bool settings_set_flag(Settings *s, const SettingInfo *row, bool on)
{
    if (row->kind != SK_FLAG) return false;
    *(bool *)value_of(s, row) = on;
    mark_given(s, row, on);
    return true;
}

bool settings_set_number(Settings *s, const SettingInfo *row, int64_t value)
{
    if (row->kind == SK_COUNT && value >= row->min) *(int64_t *)value_of(s, row) = value;
    else if (row->kind == SK_SIZE && value >= 0) *(uint64_t *)value_of(s, row) = (uint64_t)value;
    else return false;
    mark_given(s, row, true);
    return true;
}

bool settings_set_pair(Settings *s, const SettingInfo *row, int64_t first, int64_t second)
{
    bool ok = row->kind == SK_RANGE ? first >= row->min && second >= first
              : row->kind == SK_PART && first >= 0 && first < second && second <= 1000000;
    if (!ok) return false;
    *(SettingPair *)value_of(s, row) = (SettingPair){first, second};
    mark_given(s, row, true);
    return true;
}

bool settings_set_text(Settings *s, const SettingInfo *row, const char *text)
{
    if (row->kind != SK_TEXT && row->kind != SK_RESULT) return false;
    if (row->kind == SK_RESULT && text && strcmp(text, "1-0") != 0 && strcmp(text, "0-1") != 0 &&
        strcmp(text, "1/2-1/2") != 0 && strcmp(text, "*") != 0)
        return false;
    *(const char **)value_of(s, row) = text;
    mark_given(s, row, text != NULL);
    return true;
}

bool settings_flag(const Settings *s, const SettingInfo *row)
{
    return row->kind == SK_FLAG && *(const bool *)value_of(s, row);
}

int64_t settings_number(const Settings *s, const SettingInfo *row)
{
    if (row->kind == SK_COUNT) return *(const int64_t *)value_of(s, row);
    if (row->kind == SK_SIZE) return (int64_t)*(const uint64_t *)value_of(s, row);
    return 0;
}

SettingPair settings_pair(const Settings *s, const SettingInfo *row)
{
    if (row->kind != SK_RANGE && row->kind != SK_PART) return (SettingPair){0, 0};
    return *(const SettingPair *)value_of(s, row);
}

const char *settings_text(const Settings *s, const SettingInfo *row)
{
    return row->kind == SK_TEXT || row->kind == SK_RESULT ? *(const char *const *)value_of(s, row) : NULL;
}

void settings_merge(Settings *out, const Settings *caller, const Settings *header)
{
    *out = *caller;
#define SETTING(id, kind, name, alias, min, hp, where, help)                     \
    if (hp != HP_NONE && !settings_given(caller, SET_##id) && settings_given(header, SET_##id)) { \
        out->id = header->id;                                                \
        out->given |= UINT64_C(1) << SET_##id;                               \
    }
#include "query/settings.def"
}

static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

bool settings_equal(const Settings *a, const Settings *b)
{
    if (a->given != b->given) return false;
    for (size_t i = 0; i < SETTING_COUNT; i++) {
        const SettingInfo *row = &setting_rows[i];
        bool same;
        switch (row->kind) {
        case SK_FLAG: same = settings_flag(a, row) == settings_flag(b, row); break;
        case SK_TEXT: case SK_RESULT: same = same_text(settings_text(a, row), settings_text(b, row)); break;
        case SK_COUNT: case SK_SIZE: same = settings_number(a, row) == settings_number(b, row); break;
        default:
            same = settings_pair(a, row).first == settings_pair(b, row).first &&
                   settings_pair(a, row).second == settings_pair(b, row).second;
        }
        if (!same) return false;
    }
    return true;
}
