/*
 * src/query/hhdb_keys.c — the keywords of `hhdb` (see hhdb_keys.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "query/hhdb_keys.h"

#include <string.h>

#define FLAG(name, text, quoted) {name, HH_BLACK_HAS, text, quoted, VT_NONE, false}
#define COMMENT(name, text, var) {name, HH_COMMENT_HAS, text, true, VT_NONE, var}

static const HhdbKey hhdb_table[] = {
    FLAG("(c)", "(c)", true), FLAG("(m)", "(m)", true), FLAG("(s)", "(s)", true), FLAG("(v)", "(v)", true),
    FLAG("AN", "AN", false), FLAG("CR", "CR", false), FLAG("MC", "MC", false), FLAG("PH", "PH", false),
    FLAG("TE", "TE", false), FLAG("TT", "TT", false), FLAG("TW", "TW", false), FLAG("U1", "U1", false),
    FLAG("U2", "U2", false), FLAG("U3", "U3", false), FLAG("U4", "U4", false), FLAG("U5", "U5", false),
    /* the long names of the flags */
    FLAG("correction", "(c)", false), FLAG("modification", "(m)", false),
    FLAG("corrected_solution", "(s)", false), FLAG("version", "(v)", false),
    FLAG("anticipation", "AN", false), FLAG("colors_reversed", "CR", false),
    FLAG("too_many_composers", "MC", false), FLAG("posthumous", "PH", false),
    FLAG("theoretical_ending", "TE", false), FLAG("theme_tournament", "TT", false),
    FLAG("theme_tourney", "TT", false), FLAG("twin", "TW", false), FLAG("dual_at_move_1", "U1", false),
    FLAG("dual_after_move_1", "U2", false), FLAG("white_fails", "U3", false),
    FLAG("white_wins_in_draw", "U4", false), FLAG("unreachable", "U5", false),
    COMMENT("<cook>", "<cook", false), COMMENT("<minor_dual>", "<minor_dual", false),
    COMMENT("<eg>", "<eg>", false), COMMENT("<main>", "<main>", true), COMMENT("<or>", "<or>", true),
    {"composer", HH_COMPOSER, NULL, false, VT_STRING, false},
    {"search", HH_SEARCH, NULL, false, VT_STRING, false},
    {"firstcomment", HH_FIRSTCOMMENT, NULL, false, VT_STRING, false},
    {"stipulation", HH_STIPULATION, NULL, false, VT_STRING, false},
    {"diagram", HH_DIAGRAM, NULL, false, VT_STRING, false},
    {"egdiagram", HH_EGDIAGRAM, NULL, false, VT_NUMBER, false},
    {"gbr", HH_GBR, NULL, false, VT_STRING, false},
    {"cooked", HH_COOKED, NULL, false, VT_NONE, false},
    {"dual", HH_DUAL, NULL, false, VT_NONE, false},
    {"sound", HH_SOUND, NULL, false, VT_NONE, false},
    {"unsound", HH_UNSOUND, NULL, false, VT_NONE, false},
    {"mainline", HH_MAINLINE, NULL, false, VT_NONE, true},
    {"variation", HH_VARIATION, NULL, false, VT_NONE, true},
    {"source", HH_UNMAPPED, NULL, false, VT_NONE, false},
    /* the parts of gbr, written after it: hhdb gbr material */
    {"material", HH_GBR, "material", false, VT_STRING, false},
    {"pieces", HH_GBR, "pieces", false, VT_STRING, false},
    {"pawns", HH_GBR, "pawns", false, VT_STRING, false},
    {"kings", HH_GBR, "kings", false, VT_STRING, false},
};

static bool hhdb_is_part(const HhdbKey *k)
{
    return k->what == HH_GBR && k->arg;
}

#define HHDB_LENGTH(a) (sizeof(a) / sizeof((a)[0]))

const HhdbKey *hhdb_key(const char *name, bool quoted)
{
    for (size_t i = 0; i < HHDB_LENGTH(hhdb_table); i++)
        if (!hhdb_is_part(&hhdb_table[i]) && hhdb_table[i].quoted == quoted && strcmp(hhdb_table[i].name, name) == 0) return &hhdb_table[i];
    return NULL;
}

const HhdbKey *hhdb_gbr_part(const char *name)
{
    for (size_t i = 0; i < HHDB_LENGTH(hhdb_table); i++)
        if (hhdb_is_part(&hhdb_table[i]) && strcmp(hhdb_table[i].name, name) == 0) return &hhdb_table[i];
    return NULL;
}

bool hhdb_is_gbr_part_name(const char *name)
{
    return hhdb_gbr_part(name) != NULL;
}

int hhdb_key_index(const HhdbKey *k)
{
    return (int)(k - hhdb_table);
}

const HhdbKey *hhdb_key_at(size_t i)
{
    return i < HHDB_LENGTH(hhdb_table) ? &hhdb_table[i] : NULL;
}

unsigned hhdb_award_word(const char *name)
{
    static const struct {
        const char *word;
        unsigned bit;
    } words[] = {
        {"award", HHA_AWARD}, {"prize", HHA_PRIZE}, {"hm", HHA_HM}, {"commendation", HHA_COMMENDATION},
        {"special", HHA_SPECIAL}, {"max", HHA_MAX}, {"sort", HHA_SORT},
    };
    for (size_t i = 0; i < HHDB_LENGTH(words); i++)
        if (strcmp(words[i].word, name) == 0) return words[i].bit;
    return 0;
}
