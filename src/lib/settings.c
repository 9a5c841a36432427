/*
 * src/lib/settings.c — settings in the library face: CqlSettings, the
 * rows of query/settings.def set and read by name, its texts owned, and the
 * filters added to it (cql_settings_add_filter, with their values).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lib_int.h"

_Static_assert((int)CQL_SETTING_FLAG == SK_FLAG && (int)CQL_SETTING_TEXT == SK_TEXT &&
                   (int)CQL_SETTING_RESULT == SK_RESULT && (int)CQL_SETTING_COUNT == SK_COUNT &&
                   (int)CQL_SETTING_SIZE == SK_SIZE && (int)CQL_SETTING_RANGE == SK_RANGE &&
                   (int)CQL_SETTING_PART == SK_PART,
               "cql.h and settings.h number the kinds of settings alike");

struct CqlSettings {
    Settings values;
    char *texts[SETTING_COUNT];   /* the copies of the text values */
    QueryFilter *filters;         /* cql_settings_add_filter's, in order; every
                                     text and value copied */
    size_t nfilters, filters_cap;
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
    for (size_t i = 0; i < s->nfilters; i++) {
        QueryFilter *f = &s->filters[i];
        free((char *)(uintptr_t)f->name);
        free((char *)(uintptr_t)f->text);
        for (uint32_t k = 0; k < f->nvalues; k++) free((char *)(uintptr_t)f->values[k].text);
        free((FilterValue *)(uintptr_t)f->values);
    }
    free(s->filters);
    free(s);
}

_Static_assert((int)CQL_VALUE_STRING == FV_STRING && (int)CQL_VALUE_WORD == FV_WORD,
               "cql.h and compile.h number the kinds of values alike");

/* True when every $N of text names one of `count` values. */
static bool names_values(const char *text, size_t count)
{
    for (const char *c = text; (c = strchr(c, '$')) != NULL; c++)
        if (c[1] >= '1' && c[1] <= '9' && (size_t)(c[1] - '0') > count) return false;
    return true;
}

bool cql_settings_add_filter(CqlSettings *s, const char *name, const char *filter, const CqlValue *values,
                             size_t count)
{
    if (!filter || count > FILTER_MAX_VALUES || (count && !values) || (count && !names_values(filter, count)))
        return false;
    for (size_t k = 0; k < count; k++)
        if (!values[k].text || (values[k].kind != CQL_VALUE_STRING && values[k].kind != CQL_VALUE_WORD))
            return false;
    if (s->nfilters == s->filters_cap) {
        s->filters_cap = s->filters_cap ? 2 * s->filters_cap : 8;
        s->filters = xrealloc(s->filters, s->filters_cap * sizeof *s->filters);
    }
    FilterValue *copies = count ? xmalloc(count * sizeof *copies) : NULL;
    for (size_t k = 0; k < count; k++)
        copies[k] = (FilterValue){(FilterValueKind)values[k].kind, xstrdup(values[k].text)};
    s->filters[s->nfilters++] =
        (QueryFilter){xstrdup(name ? name : "filter"), xstrdup(filter), copies, (uint32_t)count};
    return true;
}

const QueryFilter *lib_filters(const CqlSettings *s, size_t *count)
{
    *count = s->nfilters;
    return s->filters;
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
