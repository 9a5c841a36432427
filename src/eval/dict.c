/*
 * src/eval/dict.c — dictionaries: `dictionary D`, `local dictionary D`,
 * stores `D[k] = v` and `D[k] += v` ..., lookups `D[k]`, and what the core
 * filters need from a dictionary: `unbind D[k]` / `unbind D`, `isbound D`,
 * iteration over the keys (`k∊D F`, `square k in D F`) and its text (str,
 * comment, message, and the list printed at the end of a run).
 *
 * Ownership: each Evaluator owns its dictionaries (Evaluator.dicts, one per
 * variable slot), made by eval_new and freed by eval_free. Keys and values
 * are copied in: strings are duplicated on the heap and freed when their
 * entry is removed or overwritten, so nothing points into a game's arena. A
 * lookup copies a string value into the game's arena, so the caller's value
 * stays valid if the entry goes away.
 *
 * Lifetime (CQL 6.2): a dictionary keeps its entries from game to game (the
 * evaluation is then ordered and single-threaded: eval_needs_order) and is
 * printed at the end of the run; a `local` dictionary is emptied before each
 * game, and only it may hold positions (sema), which live in the game.
 *
 * Storage: a hash table with chaining over a dense entry array; iteration
 * and printing go through the keys in order (numbers and positions by value
 * and id, strings by strcmp, sets by their bits), sorted on first use after
 * a change.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "eval/eval_int.h"

typedef struct DictEntry {
    Value key;                    /* a string, number, set or position (strings owned) */
    Value value;                  /* likewise */
    uint64_t hash;                /* of the key */
    int32_t next;                 /* the next entry in the same bucket, or -1 */
} DictEntry;

struct Dictionary {
    DictEntry *entries;           /* dense: entries[0 .. count) */
    uint32_t count, cap;
    int32_t *buckets;             /* first entry of each bucket, or -1; nbuckets is a power of two */
    uint32_t nbuckets;
    const DictEntry **sorted;     /* the entries in key order, valid while `is_sorted` */
    uint32_t sorted_cap;
    bool is_sorted;
};

/* {==== keys and values ======================================================== */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t key_hash(const Value *k)
{
    uint64_t h;
    switch (k->type) {
    case VT_STRING:
        h = 0xcbf29ce484222325ULL;   /* FNV-1a */
        for (const unsigned char *p = (const unsigned char *)k->str; *p; p++) h = (h ^ *p) * 0x100000001b3ULL;
        break;
    case VT_NUMBER: h = (uint64_t)k->num; break;
    case VT_SET: h = k->set; break;
    case VT_POSITION: h = (uint64_t)(uintptr_t)k->pos; break;
    default: h = 0; break;
    }
    return mix64(h ^ (uint64_t)k->type << 56);
}

/* Keys are equal when they have the same type and the same value (sets:
 * the same squares; positions: the same node of the game). */
static bool keys_equal(const Value *a, const Value *b)
{
    if (a->type != b->type) return false;
    switch (a->type) {
    case VT_STRING: return strcmp(a->str, b->str) == 0;
    case VT_NUMBER: return a->num == b->num;
    case VT_SET: return a->set == b->set;
    case VT_POSITION: return a->pos == b->pos;
    default: return false;
    }
}

static int compare_keys(const Value *a, const Value *b)
{
    if (a->type != b->type) return a->type < b->type ? -1 : 1;
    switch (a->type) {
    case VT_STRING: return strcmp(a->str, b->str);
    case VT_NUMBER: return (a->num > b->num) - (a->num < b->num);
    case VT_SET: return (a->set > b->set) - (a->set < b->set);
    case VT_POSITION: return (a->pos->id > b->pos->id) - (a->pos->id < b->pos->id);
    default: return 0;
    }
}

static int compare_entries(const void *a, const void *b)
{
    const DictEntry *x = *(const DictEntry *const *)a, *y = *(const DictEntry *const *)b;
    return compare_keys(&x->key, &y->key);
}

/* A copy of v that owns its string. */
static Value owned_copy(const Value *v)
{
    Value c = *v;
    if (c.type == VT_STRING) c.str = xstrdup(v->str);
    return c;
}

static void release(Value *v)
{
    if (v->type == VT_STRING) free((char *)(uintptr_t)v->str);
    v->type = VT_NONE;
}

/* A copy of v whose string lives in the game's arena (made by filter n);
 * false past the text budget. */
static bool arena_copy(Evaluator *ev, const Node *n, const Value *v, Value *copy)
{
    *copy = *v;
    if (v->type == VT_STRING) copy->str = eval_new_string(ev, n, v->str, strlen(v->str));
    return copy->type != VT_STRING || copy->str;
}

/* The bytes a value stored in a dictionary takes, counted towards the
 * text budget (eval_count_text). */
static size_t stored_size(const Value *v)
{
    return sizeof *v + (v->type == VT_STRING ? strlen(v->str) + 1 : 0);
}

/* }==== */
/* {==== the table ============================================================== */

static int32_t dict_find(const Dictionary *d, const Value *key, uint64_t hash)
{
    if (!d->nbuckets) return -1;
    for (int32_t i = d->buckets[hash & (d->nbuckets - 1)]; i >= 0; i = d->entries[i].next)
        if (d->entries[i].hash == hash && keys_equal(&d->entries[i].key, key)) return i;
    return -1;
}

static void dict_rehash(Dictionary *d, uint32_t nbuckets)
{
    free(d->buckets);
    d->nbuckets = nbuckets;
    d->buckets = xmalloc(sizeof *d->buckets * nbuckets);
    for (uint32_t b = 0; b < nbuckets; b++) d->buckets[b] = -1;
    for (uint32_t i = 0; i < d->count; i++) {
        int32_t *head = &d->buckets[d->entries[i].hash & (nbuckets - 1)];
        d->entries[i].next = *head;
        *head = (int32_t)i;
    }
}

/* Adds an entry (the key must be absent); key and value are copied. */
static void dict_insert(Dictionary *d, const Value *key, uint64_t hash, const Value *value)
{
    if (d->count == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 8;
        d->entries = xrealloc(d->entries, sizeof *d->entries * d->cap);
    }
    DictEntry *e = &d->entries[d->count];
    e->key = owned_copy(key);
    e->value = owned_copy(value);
    e->hash = hash;
    d->count++;
    if (d->count > d->nbuckets / 4 * 3) {
        dict_rehash(d, d->nbuckets ? 2 * d->nbuckets : 16);
    } else {
        int32_t *head = &d->buckets[hash & (d->nbuckets - 1)];
        e->next = *head;
        *head = (int32_t)(d->count - 1);
    }
    d->is_sorted = false;
}

/* The link (a bucket head or an entry's next) that points at entry i. */
static int32_t *link_to(Dictionary *d, int32_t i)
{
    int32_t *link = &d->buckets[d->entries[i].hash & (d->nbuckets - 1)];
    while (*link != i) link = &d->entries[*link].next;
    return link;
}

/* Removes entry i; the last entry moves into its place. */
static void dict_remove(Dictionary *d, int32_t i)
{
    *link_to(d, i) = d->entries[i].next;
    release(&d->entries[i].key);
    release(&d->entries[i].value);
    int32_t last = (int32_t)d->count - 1;
    if (i != last) {
        *link_to(d, last) = i;
        d->entries[i] = d->entries[last];
    }
    d->count--;
    d->is_sorted = false;
}

static void dict_clear(Dictionary *d)
{
    for (uint32_t i = 0; i < d->count; i++) {
        release(&d->entries[i].key);
        release(&d->entries[i].value);
    }
    d->count = 0;
    for (uint32_t b = 0; b < d->nbuckets; b++) d->buckets[b] = -1;
    d->is_sorted = false;
}

static const DictEntry *const *dict_sorted(Dictionary *d)
{
    if (d->is_sorted) return d->sorted;
    if (d->count > d->sorted_cap) {
        d->sorted_cap = d->cap;
        d->sorted = xrealloc(d->sorted, sizeof *d->sorted * d->sorted_cap);
    }
    for (uint32_t i = 0; i < d->count; i++) d->sorted[i] = &d->entries[i];
    if (d->count > 1) qsort(d->sorted, d->count, sizeof *d->sorted, compare_entries);
    d->is_sorted = true;
    return d->sorted;
}

static bool is_dictionary(const Evaluator *ev, int32_t slot)
{
    return slot >= 0 && ev->q->vars[slot].kind == VK_DICTIONARY;
}

static void eval_dict_init(Evaluator *ev)
{
    ev->dicts = xcalloc(ev->q->nvars ? ev->q->nvars : 1, sizeof *ev->dicts);
}

static void eval_dict_free(Evaluator *ev)
{
    if (!ev->dicts) return;
    for (uint32_t i = 0; i < ev->q->nvars; i++) {
        Dictionary *d = &ev->dicts[i];
        dict_clear(d);
        free(d->entries);
        free(d->buckets);
        free(d->sorted);
    }
    free(ev->dicts);
    ev->dicts = NULL;
}

/* Local dictionaries start each game empty (chosen without a conformance
 * vector: CQL 6.2 documents local dictionaries as not kept across games). */
static void eval_dict_new_game(Evaluator *ev)
{
    for (uint32_t i = 0; i < ev->q->nvars; i++)
        if (is_dictionary(ev, (int32_t)i) && ev->q->vars[i].local) dict_clear(&ev->dicts[i]);
}

/* }==== */
/* {==== filters ================================================================ */

/* The key of D[k]: a string, number, set (a piece stands for its square) or
 * position. A set key is its value even when empty. */
static bool dict_key(Evaluator *ev, const Node *key_node, Value *key)
{
    bool matched = eval_node(ev, key_node, key);
    eval_piece_to_set(ev, key);
    if (key->type == VT_SET) return true;
    return matched && (key->type == VT_STRING || key->type == VT_NUMBER || key->type == VT_POSITION);
}

/* D[k]: the value stored under k; no match when k is absent. A set value
 * matches when it is not empty, as a set variable does. */
static bool eval_dict_index(Evaluator *ev, const Node *n, Value *out)
{
    Value key;
    if (!dict_key(ev, n->kids[0], &key)) return false;
    const Dictionary *d = &ev->dicts[n->slot];
    int32_t i = dict_find(d, &key, key_hash(&key));
    if (i < 0) return false;
    if (!arena_copy(ev, n, &d->entries[i].value, out)) return false;
    return out->type != VT_SET || out->set != 0;
}

/* D[k] += v ... on an existing entry: numbers, or strings joined by +=. */
static bool combine(TokKind op, Value *stored, const Value *v)
{
    if (stored->type == VT_STRING) {
        if (op != TK_PLUS_ASSIGN || v->type != VT_STRING) return false;
        size_t a = strlen(stored->str), b = strlen(v->str);
        char *s = xmalloc(a + b + 1);
        memcpy(s, stored->str, a);
        memcpy(s + a, v->str, b + 1);
        release(stored);
        stored->type = VT_STRING;
        stored->str = s;
        return true;
    }
    if (stored->type != VT_NUMBER) return false;
    int64_t rhs;
    if (v->type == VT_NUMBER) rhs = v->num;
    else if (v->type == VT_SET) rhs = bb_popcount(v->set);
    else return false;
    return eval_arith_op(op, stored->num, rhs, &stored->num);
}

/* D[k] = v stores v under k: like a variable assignment it matches when v
 * matched, and always when v is a set. D[k] += v (and -= *= /= %=) change an
 * existing entry and do not match when k is absent, as `x += v` does not
 * when x is unbound (chosen without a conformance vector). */
static bool eval_dict_assign(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    Value key, v;
    if (!dict_key(ev, n->kids[0], &key)) return false;
    bool matched = eval_node(ev, n->kids[1], &v);
    eval_piece_to_set(ev, &v);
    Dictionary *d = &ev->dicts[n->slot];
    uint64_t hash = key_hash(&key);
    int32_t i = dict_find(d, &key, hash);
    if (n->op == TK_ASSIGN) {
        if (!matched && v.type != VT_SET) return false;
        if (v.type != VT_STRING && v.type != VT_NUMBER && v.type != VT_SET && v.type != VT_POSITION)
            return false;
        if (!eval_count_text(ev, n, stored_size(&v) + (i < 0 ? stored_size(&key) : 0))) return false;
        if (i < 0) {
            dict_insert(d, &key, hash, &v);
        } else {
            release(&d->entries[i].value);
            d->entries[i].value = owned_copy(&v);
        }
        return true;
    }
    if (!matched || i < 0) return false;
    const Value *stored = &d->entries[i].value;
    if (stored->type == VT_STRING && v.type == VT_STRING &&
        !eval_count_text(ev, n, stored_size(stored) + strlen(v.str)))
        return false;
    return combine(n->op, &d->entries[i].value, &v);
}

/* unbind D[k] removes the entry (if any); unbind D removes them all. */
void eval_dict_unbind(Evaluator *ev, const Node *target)
{
    Dictionary *d = &ev->dicts[target->slot];
    if (target->kind != ND_DICT_INDEX) {
        dict_clear(d);
        return;
    }
    Value key;
    if (!dict_key(ev, target->kids[0], &key)) return;
    int32_t i = dict_find(d, &key, key_hash(&key));
    if (i >= 0) dict_remove(d, i);
}

/* k∊D F, ∀k∊D F, square k in D F: F with k bound to each key in turn (in
 * key order, over the keys present when the iteration starts). Matches when
 * F matched for some key (for every key with ∀); it has no value. */
bool eval_dict_iterate(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    Value domain;
    if (!eval_node(ev, n->kids[0], &domain) || domain.type != VT_DICTIONARY) return false;
    Dictionary *d = &ev->dicts[domain.dict_slot];
    uint32_t nkeys = d->count;
    Value *keys = ARENA_ARRAY(ev->arena, Value, nkeys ? nkeys : 1);
    const DictEntry *const *sorted = dict_sorted(d);
    for (uint32_t i = 0; i < nkeys; i++)
        if (!arena_copy(ev, n, &sorted[i]->key, &keys[i])) return false;
    bool all = (n->flags & NF_ALL) != 0, any = false, every = true;
    int32_t slot = n->slot;
    Value saved = ev->vars[slot];
    bool saved_bound = ev->bound[slot];
    for (uint32_t i = 0; i < nkeys; i++) {
        ev->vars[slot] = keys[i];
        ev->bound[slot] = true;
        Value body;
        if (eval_node(ev, n->kids[1], &body)) {
            any = true;
        } else {
            every = false;
            if (all) break;
        }
    }
    ev->vars[slot] = saved;
    ev->bound[slot] = saved_bound;
    return all ? every : any;
}

static void entry_text(const Evaluator *ev, const Value *v, StrBuf *sb)
{
    if (v->type == VT_STRING) sb_printf(sb, "\"%s\"", v->str);
    else eval_value_to_text(ev, v, sb);
}

/* {"a": 1, "b": 2}: the entries in key order, strings quoted (a format
 * chosen without a conformance vector). */
void eval_dict_to_text(const Evaluator *ev, int32_t slot, StrBuf *sb)
{
    Dictionary *d = &ev->dicts[slot];
    const DictEntry *const *sorted = dict_sorted(d);
    sb_putc(sb, '{');
    for (uint32_t i = 0; i < d->count; i++) {
        if (i) sb_append(sb, ", ");
        entry_text(ev, &sorted[i]->key, sb);
        sb_append(sb, ": ");
        entry_text(ev, &sorted[i]->value, sb);
    }
    sb_putc(sb, '}');
}

/* }==== */

static const EvalEntry dict_entries[] = {
    {ND_DICT_INDEX, eval_dict_index},
    {ND_DICT_ASSIGN, eval_dict_assign},
    {ND_COUNT_, NULL},
};

const EvalFamily eval_dict_family = {dict_entries, eval_dict_init, eval_dict_new_game, eval_dict_free};
