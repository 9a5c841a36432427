/*
 * src/eval/hhdb.c — `hhdb`, the interface to the Heijden endgame study
 * database (shared/spec/cql62-remaining.md §14): its conventions in the
 * Event tag (the award), the White tag (the composers), the Black tag (a
 * GBR code and flags) and the comments (source, stipulation, <main> ...).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "eval/eval_int.h"
#include "query/hhdb_keys.h"

/* {==== the game's texts ======================================================== */

/* A tag with a non-empty value, or NULL. */
static const char *hh_tag_value(const Evaluator *ev, const char *name)
{
    const char *v = game_tag(ev->game, name);
    return v && v[0] ? v : NULL;
}

static bool hh_black_has(const Evaluator *ev, const char *text)
{
    const char *black = hh_tag_value(ev, "Black");
    return black && strstr(black, text);
}

static bool hh_comment_has(Evaluator *ev, const GameNode *n, const char *text)
{
    const char *c = eval_comments_at(ev, n);
    return c && strstr(c, text);
}

static const char *hh_copy_range(Evaluator *ev, const char *s, size_t n)
{
    return arena_strndup(ev->arena, s, n);
}

/* The game's text contains "<cook" (its comments, anywhere in the tree,
 * and its tags), worked out once per game. */
static bool hh_cooked(Evaluator *ev)
{
    if (ev->hhdb_cooked < 0) {
        bool found = false;
        for (int i = 0; i < ev->game->tag_count && !found; i++) found = strstr(ev->game->tags[i].value, "<cook") != NULL;
        for (const GameNode *n = ev->game->root; n && !found; n = game_walk_next(NULL, n, true)) {
            for (const Comment *c = n->comments; c && !found; c = c->next) found = strstr(c->text, "<cook") != NULL;
            for (const Comment *c = n->pre_comments; c && !found; c = c->next) found = strstr(c->text, "<cook") != NULL;
        }
        ev->hhdb_cooked = found;
    }
    return ev->hhdb_cooked == 1;
}

static bool hh_any_u(const Evaluator *ev, int from, int to)
{
    for (int i = from; i <= to; i++) {
        char flag[3] = {'U', (char)('0' + i), '\0'};
        if (hh_black_has(ev, flag)) return true;
    }
    return false;
}

/* }==== */

/* {==== string keys ============================================================= */

static const char *hh_composer(Evaluator *ev)
{
    if (hh_black_has(ev, "MC")) {
        /* too many composers for the tag: the first comment up to its first '.' */
        const char *first = eval_comments_at(ev, ev->game->root);
        const char *dot = first ? strchr(first, '.') : NULL;
        if (!dot || dot == first) return NULL;
        return hh_copy_range(ev, first, (size_t)(dot - first));
    }
    const char *white = hh_tag_value(ev, "White");
    if (!white) return NULL;
    size_t n = strlen(white);
    if (n >= 3 && strcmp(white + n - 3, " NN") == 0) return hh_copy_range(ev, white, n - 3);
    return white;
}

static const char *hh_search_text(Evaluator *ev)
{
    const char *event = hh_tag_value(ev, "Event"), *white = hh_tag_value(ev, "White"), *black = hh_tag_value(ev, "Black");
    if (!event || !white || !black) return NULL;
    StrBuf sb = SB_INIT;
    sb_printf(&sb, "%s\n%s\n%s", event, white, black);
    const char *first = eval_comments_at(ev, ev->game->root);
    if (first) sb_printf(&sb, "\n%s", first);
    const char *text = arena_strdup(ev->arena, sb_str(&sb));
    sb_free(&sb);
    return text;
}

/* stipulation: ([^.]+)\. in the first comment */
static const char *hh_stipulation(Evaluator *ev)
{
    const char *first = eval_comments_at(ev, ev->game->root);
    for (const char *s = first; s && (s = strstr(s, "stipulation: ")); s++) {
        const char *body = s + 13;
        size_t n = strcspn(body, ".");
        if (n > 0 && body[n] == '.') return hh_copy_range(ev, body, n);
    }
    return NULL;
}

/* #([^ ]+) in the Event tag */
static const char *hh_diagram(Evaluator *ev)
{
    const char *event = hh_tag_value(ev, "Event");
    for (const char *s = event; s && (s = strchr(s, '#')); s++) {
        size_t n = strcspn(s + 1, " ");
        if (n > 0) return hh_copy_range(ev, s + 1, n);
    }
    return NULL;
}

/* EG#(\d+) in the first comment */
static bool hh_egdiagram(Evaluator *ev, int64_t *out)
{
    const char *first = eval_comments_at(ev, ev->game->root);
    for (const char *s = first; s && (s = strstr(s, "EG#")); s++) {
        const char *d = s + 3;
        if (*d < '0' || *d > '9') continue;
        int64_t x = 0;
        for (; *d >= '0' && *d <= '9'; d++)
            if (x < 100000000000LL) x = x * 10 + (*d - '0');
        *out = x;
        return true;
    }
    return false;
}

static bool hh_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool hh_is_square(const char *s)
{
    return s[0] >= 'a' && s[0] <= 'h' && s[1] >= '1' && s[1] <= '8';
}

/* The GBR code in the Black tag: c dddd . dd sq sq, c any of + , - . / 0-9 : ; < = */
static const char *hh_gbr(Evaluator *ev)
{
    const char *black = hh_tag_value(ev, "Black");
    if (!black) return NULL;
    size_t n = strlen(black);
    for (size_t i = 0; i + 12 <= n; i++) {
        const char *s = black + i;
        if (s[0] < '+' || s[0] > '=') continue;
        if (!hh_is_digit(s[1]) || !hh_is_digit(s[2]) || !hh_is_digit(s[3]) || !hh_is_digit(s[4]) || s[5] != '.') continue;
        if (!hh_is_digit(s[6]) || !hh_is_digit(s[7]) || !hh_is_square(s + 8) || !hh_is_square(s + 10)) continue;
        return hh_copy_range(ev, s, 12);
    }
    return NULL;
}

static const char *hh_gbr_part(Evaluator *ev, const char *part)
{
    const char *code = hh_gbr(ev);
    if (!code || !part) return code;
    if (strcmp(part, "material") == 0) return hh_copy_range(ev, code + 1, 7);
    if (strcmp(part, "pieces") == 0) return hh_copy_range(ev, code + 1, 4);
    if (strcmp(part, "pawns") == 0) return hh_copy_range(ev, code + 6, 2);
    return hh_copy_range(ev, code + 8, 4);   /* kings */
}

/* }==== */

/* {==== awards ================================================================== */

typedef struct Award {
    int kind;        /* HHA_PRIZE, HHA_HM or HHA_COMMENDATION */
    bool special;
    int64_t r1, r2;
} Award;

static bool hh_read_rank(const char **s, int64_t *out)
{
    if (!hh_is_digit(**s)) return false;
    int64_t x = 0;
    for (; hh_is_digit(**s); (*s)++)
        if (x < 100000000LL) x = x * 10 + (**s - '0');
    *out = x;
    return true;
}

/* The award at the start of the Event tag: [R1[/R2]] [sp | .sp] (.p | .hm | .c) */
static bool hh_parse_award(const Evaluator *ev, Award *a)
{
    const char *s = hh_tag_value(ev, "Event");
    if (!s) return false;
    *a = (Award){0, false, 1, 10000};
    bool ranked = hh_read_rank(&s, &a->r1);
    if (ranked) {
        if (a->r1 <= 0) return false;
        a->r2 = a->r1;
        if (*s == '/') {
            s++;
            if (!hh_read_rank(&s, &a->r2) || a->r2 <= a->r1) return false;
        }
        if (strncmp(s, ".sp", 3) == 0) {
            a->special = true;
            s += 3;
        }
    } else if (strncmp(s, "sp", 2) == 0) {
        a->special = true;
        s += 2;
    }
    if (strncmp(s, ".p", 2) == 0) a->kind = HHA_PRIZE;
    else if (strncmp(s, ".hm", 3) == 0) a->kind = HHA_HM;
    else if (strncmp(s, ".c", 2) == 0) a->kind = HHA_COMMENDATION;
    else return false;
    return true;
}

/* The place of an award in `hhdb sort`: prize, special prize, hm, special hm,
 * commendation, special commendation. */
static int hh_award_category(const Award *a)
{
    int base = a->kind == HHA_PRIZE ? 1 : a->kind == HHA_HM ? 3 : 5;
    return base + a->special;
}

static bool eval_award(Evaluator *ev, const Node *n, Value *out)
{
    unsigned words = (unsigned)n->num2;
    Award a;
    if (!hh_parse_award(ev, &a)) return false;
    unsigned wanted = words & (HHA_PRIZE | HHA_HM | HHA_COMMENDATION);
    if (wanted && !(wanted & (unsigned)a.kind)) return false;
    if ((words & HHA_SPECIAL) && !a.special) return false;
    if (words & HHA_SORT) {
        /* ascending by (category, R1, R2): the output sorts largest first */
        int64_t key = -(((int64_t)hh_award_category(&a) * 100000000 + a.r1) * 100000000 + a.r2);
        uint32_t hhdb_key = 0;   /* every hhdb sort shares one key */
        while (!ev->q->sort_keys[hhdb_key].hhdb) hhdb_key++;
        eval_sort_offer(ev, hhdb_key, &(SortValue){VT_NUMBER, key, NULL});
    }
    /* a special award without `special` matches, but has no value */
    if (a.special && !(words & HHA_SPECIAL)) return true;
    out->type = VT_NUMBER;
    out->num = (words & HHA_MAX) ? a.r2 : a.r1;
    return true;
}

/* }==== */

/* hhdb mainline: no position from here back to the start was reached by a
 * move other than the first whose comment lacks <main>. */
static bool hh_hhdb_mainline(Evaluator *ev)
{
    for (const GameNode *q = ev->cur; q->parent; q = q->parent)
        if (q->parent->child != q && !hh_comment_has(ev, q, "<main>")) return false;
    return true;
}

static bool hh_string_result(const Node *n, const char *value, Value *out)
{
    if (!value) return false;
    if (n->kids[0] && !strstr(value, n->kids[0]->text)) return false;
    return eval_string_value(out, value);
}

static bool eval_hhdb(Evaluator *ev, const Node *n, Value *out)
{
    if (n->num < 0) return eval_award(ev, n, out);
    const HhdbKey *key = hhdb_key_at((size_t)n->num);
    if (!key) return false;
    if ((key->what == HH_COMPOSER || key->what == HH_SEARCH) && !n->kids[0] && eval_value_discarded(n)) {
        eval_runtime_error(ev, n, "'hhdb %s' was evaluated only for whether it matched; its string value was ignored",
                           key->name);
        return false;
    }
    switch (key->what) {
    case HH_BLACK_HAS: return hh_black_has(ev, key->arg);
    case HH_COMMENT_HAS: return hh_comment_has(ev, ev->cur, key->arg);
    case HH_COMPOSER: return hh_string_result(n, hh_composer(ev), out);
    case HH_SEARCH: return hh_string_result(n, hh_search_text(ev), out);
    case HH_FIRSTCOMMENT: return hh_string_result(n, eval_comments_at(ev, ev->game->root), out);
    case HH_STIPULATION: return hh_string_result(n, hh_stipulation(ev), out);
    case HH_DIAGRAM: return hh_string_result(n, hh_diagram(ev), out);
    case HH_GBR: return hh_string_result(n, hh_gbr_part(ev, key->arg), out);
    case HH_EGDIAGRAM: {
        int64_t x;
        if (!hh_egdiagram(ev, &x)) return false;
        out->type = VT_NUMBER;
        out->num = x;
        return true;
    }
    case HH_COOKED: return hh_cooked(ev);
    case HH_DUAL: return hh_any_u(ev, 1, 2);
    case HH_SOUND: return !((hh_cooked(ev) && hh_any_u(ev, 1, 2)) || hh_any_u(ev, 3, 5));
    case HH_UNSOUND: return hh_cooked(ev) || hh_any_u(ev, 1, 5);
    case HH_MAINLINE: return hh_hhdb_mainline(ev);
    case HH_VARIATION: return !hh_hhdb_mainline(ev);
    default: return false;
    }
}

typedef struct SettingsCheck {
    const Query *q;
    const EvalSettings *settings;
    DiagSink *diag;
    bool ok;
} SettingsCheck;

static bool check_variations(const Node *n, void *ctx)
{
    SettingsCheck *c = ctx;
    if (!c->ok || n->kind != ND_HHDB || n->num < 0) return c->ok;
    const HhdbKey *key = hhdb_key_at((size_t)n->num);
    if (key && key->needs_variations && !c->settings->run.variations) {
        diag_at(c->diag, &c->q->src, n->span, DIAG_ERROR,
                "'hhdb %s' can only be used when 'variations' is set in the CQL header (or run with 'cql -variations')",
                key->name);
        c->ok = false;
    }
    return c->ok;
}

bool eval_check_settings(const Query *q, const EvalSettings *s, DiagSink *diag)
{
    SettingsCheck c = {q, s, diag, true};
    ast_walk(q->body, check_variations, &c);
    return c.ok;
}

static void hhdb_new_game(Evaluator *ev)
{
    ev->hhdb_cooked = -1;
}

static const EvalEntry hhdb_entries[] = {
    {ND_HHDB, eval_hhdb},
    {ND_COUNT_, NULL},
};

const EvalFamily eval_hhdb_family = {hhdb_entries, NULL, hhdb_new_game, NULL};
