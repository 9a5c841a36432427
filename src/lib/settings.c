/*
 * src/lib/settings.c — settings in the library face: CqlSettings, the
 * rows of query/settings.def set and read by name, its texts owned.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>

#include "lib/lib_int.h"

_Static_assert((int)CQL_SETTING_FLAG == SK_FLAG && (int)CQL_SETTING_TEXT == SK_TEXT &&
                   (int)CQL_SETTING_RESULT == SK_RESULT && (int)CQL_SETTING_COUNT == SK_COUNT &&
                   (int)CQL_SETTING_SIZE == SK_SIZE && (int)CQL_SETTING_RANGE == SK_RANGE &&
                   (int)CQL_SETTING_PART == SK_PART,
               "cql.h and settings.h number the kinds of settings alike");

struct CqlSettings {
    Settings values;
    char *texts[SETTING_COUNT];   /* the copies of the text values */
};

static const CqlSettingInfo public_rows[SETTING_COUNT] = {
#define SETTING(id, kind, name, alias, min, header, where, help) \
    [SET_##id] = {name, alias, (CqlSettingKind)kind, min, header != HP_NONE, where != SW_LIBRARY, where == SW_OPTION, help},
#include "query/settings.def"
};

const CqlSettingInfo *cql_setting_info(size_t i)
{
    return i < SETTING_COUNT ? &public_rows[i] : NULL;
}

CqlSettings *cql_settings_new(void)
{
    return xcalloc(1, sizeof(CqlSettings));
}

void cql_settings_free(CqlSettings *s)
{
    if (!s) return;
    for (size_t i = 0; i < SETTING_COUNT; i++) free(s->texts[i]);
    free(s);
}

const Settings *lib_settings(const CqlSettings *s)
{
    return &s->values;
}

bool cql_settings_set_flag(CqlSettings *s, const char *name, bool on)
{
    const SettingInfo *row = settings_find(name);
    return row && settings_set_flag(&s->values, row, on);
}

bool cql_settings_set_number(CqlSettings *s, const char *name, long long value)
{
    const SettingInfo *row = settings_find(name);
    return row && settings_set_number(&s->values, row, value);
}

bool cql_settings_set_pair(CqlSettings *s, const char *name, long long first, long long second)
{
    const SettingInfo *row = settings_find(name);
    return row && settings_set_pair(&s->values, row, first, second);
}

bool cql_settings_set_text(CqlSettings *s, const char *name, const char *text)
{
    const SettingInfo *row = settings_find(name);
    if (!row) return false;
    char *copy = text ? xstrdup(text) : NULL;
    if (!settings_set_text(&s->values, row, copy)) {
        free(copy);
        return false;
    }
    size_t i = (size_t)(row - setting_rows);
    free(s->texts[i]);
    s->texts[i] = copy;
    return true;
}

bool cql_settings_given(const CqlSettings *s, const char *name)
{
    const SettingInfo *row = settings_find(name);
    return row && settings_given(&s->values, (SettingId)(row - setting_rows));
}

bool cql_settings_flag(const CqlSettings *s, const char *name)
{
    const SettingInfo *row = settings_find(name);
    return row && settings_flag(&s->values, row);
}

long long cql_settings_number(const CqlSettings *s, const char *name)
{
    const SettingInfo *row = settings_find(name);
    return row ? settings_number(&s->values, row) : 0;
}

bool cql_settings_pair(const CqlSettings *s, const char *name, long long *first, long long *second)
{
    const SettingInfo *row = settings_find(name);
    if (!row || !settings_given(&s->values, (SettingId)(row - setting_rows))) return false;
    SettingPair p = settings_pair(&s->values, row);
    *first = p.first;
    *second = p.second;
    return row->kind == SK_RANGE || row->kind == SK_PART;
}

const char *cql_settings_text(const CqlSettings *s, const char *name)
{
    const SettingInfo *row = settings_find(name);
    return row ? settings_text(&s->values, row) : NULL;
}
