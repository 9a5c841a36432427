/*
 * src/eval/search.c — the search of one game (see search.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "eval/search.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pgn/writer.h"
#include "query/filters.h"
#include "query/hhdb_keys.h"

static bool result_matches(const Search *s, const Game *g)
{
    if (!s->result) return true;
    const char *r = game_result(g);
    return r && strcmp(r, s->result) == 0;
}

bool search_examines(const Search *s, const Game *g)
{
    return !s->gamenumber.set || (g->number >= s->gamenumber.min && g->number <= s->gamenumber.max);
}

/* Whether a game may match before its positions are searched: its number
 * is in range, its result the one asked for, its moves read. */
static bool may_match(const Search *s, const Game *g, GameSearch *found)
{
    memset(found, 0, sizeof *found);
    return search_examines(s, g) && result_matches(s, g) && !g->moves_skipped;
}

/* Whether the game whose positions were searched into *found matches. */
static bool matched_enough(const Search *s, const GameSearch *found)
{
    if (found->runtime_error || found->stopped_at) return false;
    return found->matched_positions >= s->matchcount_min &&
           found->matched_positions <= s->matchcount_max;
}

bool search_matches(const Search *s, Evaluator *ev, const Game *g, bool tags_test_held, Arena *a,
                    GameSearch *found, StrBuf *printed)
{
    if (!may_match(s, g, found)) return false;
    eval_game(ev, g, tags_test_held ? s->body_past_tags_test : NULL, a, found, printed);
    return matched_enough(s, found);
}

bool search_positions_begin(const Search *s, Evaluator *ev, const Game *g, Arena *a, GameSearch *found,
                            StrBuf *printed)
{
    if (!may_match(s, g, found)) return false;
    eval_positions_begin(ev, g, a, found, printed);
    return true;
}

bool search_positions_at(const Search *s, Evaluator *ev, const GameNode *n, const GameSearch *found)
{
    return eval_positions_at(ev, n) &&
           (s->matchcount_max != INT64_MAX || found->matched_positions < s->matchcount_min);
}

long search_positions_settled(const Search *s, const Evaluator *ev, const GameSearch *found)
{
    bool matched;
    if (!eval_positions_settled(ev, &matched)) return -1;
    /* search_positions_at stops where a match count without a bound is
     * reached */
    if (!matched || s->matchcount_max != INT64_MAX) return LONG_MAX;
    int64_t left = s->matchcount_min - found->matched_positions;
    return left > LONG_MAX ? LONG_MAX : left < 0 ? 0 : (long)left;
}

void search_positions_pass(Evaluator *ev, int32_t first_id, long count)
{
    eval_positions_pass(ev, first_id, count);
}

bool search_positions_end(const Search *s, Evaluator *ev, const GameSearch *found)
{
    eval_positions_end(ev);
    return matched_enough(s, found);
}

/* Appends v to key so that keys compare as the values do (search.h):
 * a type byte (numbers before strings), then a number's 8 bytes, big-endian
 * with the sign bit flipped, or a string's bytes and a NUL. `best_largest`:
 * every byte is inverted, so that the larger value comes first. */
static void append_sort_value(StrBuf *key, const SortValue *v, bool best_largest)
{
    unsigned char flip = best_largest ? 0xff : 0;
    size_t from = key->len;
    if (v->type == VT_STRING) {
        sb_putc(key, 1);
        sb_append_n(key, v->str, strlen(v->str) + 1);
    } else {
        uint64_t x = (uint64_t)v->num ^ (UINT64_C(1) << 63);
        sb_putc(key, 0);
        for (int shift = 56; shift >= 0; shift -= 8) sb_putc(key, (char)(unsigned char)(x >> shift));
    }
    for (size_t i = from; i < key->len; i++) key->data[i] = (char)((unsigned char)key->data[i] ^ flip);
}

void search_sort_key(const Search *s, const GameSearch *found, StrBuf *key)
{
    sb_clear(key);
    if (s->sort_by_matchcount)
        append_sort_value(key, &(SortValue){VT_NUMBER, found->matched_positions, NULL}, true);
    const Query *q = s->query;
    for (uint32_t i = 0; found->sort_values && i < q->nsort_keys; i++) {
        const SortValue *v = &found->sort_values[i];
        /* a game without a value for the key comes after every game with one */
        sb_putc(key, v->type == VT_NONE ? 1 : 0);
        if (v->type != VT_NONE) append_sort_value(key, v, !q->sort_keys[i].min);
    }
}

/* Appends "title: value" for each sort key written in the game (the
 * matchcount of `sort matchcount`, then the keys of the sort filters in
 * order, "title: none" for a key without a value), separated by a blank:
 * '{' and '}' are written as '_', as in every added comment. */
static void append_sort_values(const Search *s, const GameSearch *found, StrBuf *out)
{
    const Query *q = s->query;
    size_t from = out->len;
    if (s->sort_by_matchcount) sb_printf(out, "matchcount: %ld", found->matched_positions);
    for (uint32_t i = 0; found->sort_values && i < q->nsort_keys; i++) {
        const SortKey *k = &q->sort_keys[i];
        const SortValue *v = &found->sort_values[i];
        if (k->hhdb) continue;
        sb_printf(out, "%s%s: ", out->len > from ? " " : "", k->title ? k->title : "sort");
        if (v->type == VT_NONE) sb_append(out, "none");
        else if (v->type == VT_STRING) sb_append(out, v->str);
        else sb_printf(out, "%lld", (long long)v->num);
    }
    eval_unbrace(out->data + from);
}

/* Whether a game's first comment gets sort values (append_sort_values). */
static bool writes_sort_values(const Search *s)
{
    const Query *q = s->query;
    if (s->sort_by_matchcount) return true;
    for (uint32_t i = 0; i < q->nsort_keys; i++)
        if (!q->sort_keys[i].hhdb) return true;
    return false;
}

/* The comment written before the first move of a matching game: "Game
 * number N", the initial position's own note, then the sort values two
 * blanks after the rest, as CQL 6.2 has them ({Game number 3 CQL  wp: 3});
 * the writer makes every run of blanks in a comment one blank. */
static const char *search_header_note(const Search *s, const Game *g, const GameSearch *found,
                                      const char *root_note, Arena *a)
{
    if (s->eval.run.silent) return NULL;
    static const char prefix[] = "Game number ";
    char game_number[sizeof prefix + 20];   /* + the digits of any long */
    size_t len = 0;
    if (!s->eval.run.noheader) {   /* without printf, once per matched game */
        memcpy(game_number, prefix, sizeof prefix - 1);
        len = sizeof prefix - 1 + decimal_digits(game_number + sizeof prefix - 1, (unsigned long long)g->number);
    }
    bool sort_note = writes_sort_values(s);
    if (!sort_note && !root_note)   /* the usual note: no buffer to grow */
        return len ? arena_strndup(a, game_number, len) : NULL;
    StrBuf head = SB_INIT;
    if (len) sb_append_n(&head, game_number, len);
    if (root_note) sb_printf(&head, "%s%s", head.len ? " " : "", root_note);
    if (sort_note) {
        if (head.len) sb_append(&head, "  ");
        append_sort_values(s, found, &head);
    }
    const char *text = head.len ? arena_strdup(a, sb_str(&head)) : NULL;
    sb_free(&head);
    return text;
}

void search_write_game(const Search *s, const Game *g, GameSearch *found, Arena *a, StrBuf *out)
{
    found->notes[0] = search_header_note(s, g, found, found->notes[0], a);
    PgnAnnotations ann = {found->notes, found->set_tags, found->nset_tags, found->remove_comment};
    pgn_write_game(g, &ann, out);
}

/* {==== tag filters that hold in no game ===================================== */

/* The text a tag filter looks for (player "X" ...), or NULL. */
static const char *watched_text(const Node *n)
{
    bool tag_kind = n->kind == ND_PLAYER || (filter_info(n->kind)->tag && n->kind != ND_HASCOMMENT);
    if (!tag_kind || n->nkids == 0 || !n->kids[0] || n->kids[0]->kind != ND_STRING) return NULL;
    return n->kids[0]->text;
}

static bool same_watch(const Node *a, const Node *b)
{
    return a->kind == b->kind && (a->flags & (NF_WHITE | NF_BLACK)) == (b->flags & (NF_WHITE | NF_BLACK)) &&
           strcmp(watched_text(a), watched_text(b)) == 0;
}

static bool find_watched(const Node *n, void *ctx)
{
    Search *s = ctx;
    if (!watched_text(n)) return true;
    for (int i = 0; i < s->nwatched; i++)
        if (same_watch(s->watched[i], n)) return true;
    if (s->nwatched < SEARCH_WATCHED_TAGS) s->watched[s->nwatched++] = n;
    return true;
}

/* The names of the tags a watched filter reads (1 or 2). */
static int watched_tags(const Node *n, const char *tags[2])
{
    if (n->kind != ND_PLAYER) {
        tags[0] = filter_info(n->kind)->tag;
        return 1;
    }
    if (n->flags & (NF_WHITE | NF_BLACK)) {
        tags[0] = n->flags & NF_WHITE ? "White" : "Black";
        return 1;
    }
    tags[0] = "White";
    tags[1] = "Black";
    return 2;
}

static char ascii_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

/* strstr with ASCII letters of either case alike. */
static bool contains_any_case(const char *s, const char *sub)
{
    size_t n = strlen(sub);
    for (; *s; s++) {
        size_t k = 0;
        while (k < n && s[k] && ascii_lower(s[k]) == ascii_lower(sub[k])) k++;
        if (k == n) return true;
    }
    return n == 0;
}

void search_watch_tags(const Search *s, const Game *g, TagWatch *w)
{
    w->games++;
    for (int i = 0; i < s->nwatched; i++) {
        if (w->held[i]) continue;
        const char *tags[2], *text = watched_text(s->watched[i]);
        int ntags = watched_tags(s->watched[i], tags);
        for (int t = 0; t < ntags && !w->held[i]; t++) {
            const char *value = game_tag(g, tags[t]);
            if (!value) continue;
            if (strstr(value, text)) {
                w->held[i] = true;
            } else if (!w->near_game[i] && contains_any_case(value, text)) {
                w->near_game[i] = g->number;
                w->near_value[i] = xstrdup(value);
            }
        }
    }
}

void search_merge_watch(TagWatch *into, const TagWatch *from)
{
    into->games += from->games;
    for (int i = 0; i < SEARCH_WATCHED_TAGS; i++) {
        into->held[i] |= from->held[i];
        /* the first game in the input, whichever thread read it */
        if (from->near_game[i] && (!into->near_game[i] || from->near_game[i] < into->near_game[i])) {
            free(into->near_value[i]);
            into->near_game[i] = from->near_game[i];
            into->near_value[i] = xstrdup(from->near_value[i]);
        }
    }
}

void search_report_unmatched_tags(const Search *s, const TagWatch *w, DiagSink *d)
{
    if (w->games == 0) return;
    for (int i = 0; i < s->nwatched; i++) {
        if (w->held[i]) continue;
        const Node *n = s->watched[i];
        const char *tags[2], *text = watched_text(n);
        int ntags = watched_tags(n, tags);
        const char *side = n->kind != ND_PLAYER ? "" : n->flags & NF_WHITE ? " white" : n->flags & NF_BLACK ? " black" : "";
        StrBuf why = SB_INIT;
        if (w->near_game[i])
            sb_printf(&why, " (the case differs: game %ld's is \"%s\")", w->near_game[i], w->near_value[i]);
        diag_plain(d, DIAG_NOTE, "%s%s \"%s\" held in none of the %ld game%s examined: no %s%s%s tag holds \"%s\"%s",
                   filter_info(n->kind)->name, side, text, w->games, w->games == 1 ? "" : "s", tags[0],
                   ntags == 2 ? " or " : "", ntags == 2 ? tags[1] : "", text, sb_str(&why));
        sb_free(&why);
    }
}

void tag_watch_free(TagWatch *w)
{
    for (int i = 0; i < SEARCH_WATCHED_TAGS; i++) free(w->near_value[i]);
    memset(w, 0, sizeof *w);
}

/* }==== */

/* Adds d to the gate's placements: false when it cannot be one (none, or
 * one the empty square satisfies) or there is no room. */
static bool add_placement(PgnGate *gate, const Designator *d)
{
    if (!d || !d->pieces || (d->pieces & 1u) || gate->nplacements == PGN_GATE_PLACEMENTS) return false;
    gate->placements[gate->nplacements++] = (PgnPlacement){d->pieces, d->squares};
    return true;
}

/* Adds to the gate placements one of which a position needs for n to match
 * there, where evaluating n does nothing else when none is there. False
 * when n has no such placements (or too many). They come from a piece
 * designator that the empty square does not satisfy (Ka1, [RQ]h7); from a
 * member of a compound, all of whose members must match, after members
 * that change nothing (check Ka1, player "X" Ka1); from every operand of
 * `or`; from the attacking side of `attacks`; from the keys of an orbit's
 * members (flipcolor {Ka1 ...}), which are tested before the members are
 * evaluated (eval/orbit.c). */
static bool add_requirement(PgnGate *gate, const Node *n)
{
    while (n && n->kind == ND_PAREN) n = n->kids[0];
    if (!n || (n->flags & NF_AS_POSITION)) return false;
    switch (n->kind) {
    case ND_DESIGNATOR:
        return add_placement(gate, n->desig);
    case ND_COMPOUND:
        for (uint32_t i = 0; i < n->nkids; i++) {
            int kept = gate->nplacements;
            if (add_requirement(gate, n->kids[i])) return true;
            gate->nplacements = kept;
            if (!filter_tree_changes_nothing(n->kids[i])) return false;
        }
        return false;
    case ND_OR:
        for (uint32_t i = 0; i < n->nkids; i++)
            if (!add_requirement(gate, n->kids[i])) return false;
        return true;
    case ND_ATTACKS: case ND_ATTACKEDBY:   /* kids[0] attacking, or attacked from kids[1] */
        return n->kids[0]->kind == ND_DESIGNATOR && n->kids[1]->kind == ND_DESIGNATOR &&
               add_placement(gate, n->kids[n->kind == ND_ATTACKEDBY]->desig);
    case ND_ORBIT:   /* with count it always matches */
        if (n->flags & NF_COUNT) return false;
        for (uint32_t i = 0; i < n->nkids; i++)
            if (!add_placement(gate, n->kids[i]->desig)) return false;
        return n->nkids > 0;
    default:
        return false;
    }
}

static bool finds_settag(const Node *n, void *ctx)
{
    if (n->kind == ND_SETTAG) *(bool *)ctx = true;
    return true;
}

/* What a game needs to be able to match, known before its moves are played
 * (the gate, pgn_parse_game_gated, and tags_test, which the searcher adds
 * to it). matchcount 0 lets a game match with no position matched. */
static void init_gate(Search *s)
{
    s->gate.result = s->result;
    if (s->matchcount_min < 1) return;
    const Node *body = s->query->body, *first = body;
    while (first->kind == ND_COMPOUND && first->nkids > 0) first = first->kids[0];
    if (!add_requirement(&s->gate, body)) s->gate.nplacements = 0;
    bool tags_first = first != body && filter_tree_reads_only_tags(first);
    if (tags_first) s->tags_test = first;
    /* or a later member of the body, after members that change nothing */
    for (uint32_t i = 1; !tags_first && i < body->nkids && filter_tree_changes_nothing(body->kids[i - 1]); i++)
        if (filter_tree_reads_only_tags(body->kids[i])) {
            s->tags_test = body->kids[i];
            break;
        }
    /* the rest of the body, after a first filter of the tags alone, which
     * has no effect and holds at every position where it holds at one */
    bool rest_after_tags = tags_first && first == body->kids[0] && body->nkids >= 2;
    bool sets_tags = false;   /* settag can change what the test reads */
    ast_walk(body, finds_settag, &sets_tags);
    if (!rest_after_tags || sets_tags) return;
    if (body->nkids == 2) {
        s->body_past_tags_test = body->kids[1];
    } else {
        s->past_tags_test = *body;
        s->past_tags_test.kids = body->kids + 1;
        s->past_tags_test.nkids = body->nkids - 1;
        s->past_tags_test.kids_cap = 0;
        s->body_past_tags_test = &s->past_tags_test;
    }
}

void search_init(Search *s, const Settings *given, const Query *q)
{
    const QueryHeader *h = &q->header;
    memset(s, 0, sizeof *s);
    s->query = q;
    Settings *run = &s->eval.run;
    settings_merge(run, given, &h->values);
    run->variations = run->variations && !run->mainline;
    s->matchcount_min = 1;
    s->matchcount_max = INT64_MAX;
    if (settings_given(run, SET_matchcount)) {
        s->matchcount_min = run->matchcount.first;
        s->matchcount_max = run->matchcount.second;
    }
    s->sort_by_matchcount = (h->present & QH_SORT_MATCHCOUNT) != 0;
    if (settings_given(run, SET_gamenumber)) {
        s->gamenumber.set = true;
        s->gamenumber.min = (long)run->gamenumber.first;
        s->gamenumber.max = run->gamenumber.second > LONG_MAX ? LONG_MAX : (long)run->gamenumber.second;
    }
    s->result = run->result;
    s->sorting = q->nsort_keys > 0 || s->sort_by_matchcount;
    ast_walk(q->body, find_watched, s);
    init_gate(s);
}
