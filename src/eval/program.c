/*
 * src/eval/program.c — the filters about the run rather than the board
 * (`assert`, `try`, `removecomment`, `currenttransform`, `lastgamenumber`,
 * `readfile`, `writefile`, `similarposition`) and the problem-chess mates
 * (`puremate` ..., whose chess lives in chess/problem_mate.c). Specified in
 * shared/spec/cql62-remaining.md §§5-6, 8-13 (`similarposition`:
 * cql62-fidelity-2.md R24).
 *
 * Some of these stop the run with a runtime error, as CQL 6.2 does (it
 * prints the message and exits with status 1): a failed `assert`, a file
 * that cannot be read or written, and a filter that always matches used
 * only for whether it matches (its value thrown away).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess/problem_mate.h"
#include "eval/eval_int.h"
#include "eval/submission.h"

/* {==== state ================================================================= */

typedef struct OpenFile {
    char *name;
    FILE *fp;
} OpenFile;

typedef struct ProgramState {
    const Node **discarded;       /* filters whose value is thrown away where they stand */
    int ndiscarded, discarded_cap;
    OpenFile *files;              /* `writefile`'s files, open for the run */
    int nfiles;
} ProgramState;

/* The filters whose use for a truth value alone CQL 6.2 reports. */
static bool reports_discarded(const Node *n)
{
    return n->kind == ND_CURRENTTRANSFORM || n->kind == ND_LASTGAMENUMBER || n->kind == ND_READFILE ||
           n->kind == ND_HHDB;
}

/* Records the filters under n whose value is thrown away: the members of
 * the query body, a member of a compound that is not its last (the last
 * gives the compound's value), the operands of and, or, not and the test
 * of if. */
static void find_discarded(ProgramState *ps, const Node *n, bool discarded)
{
    if (!n) return;
    if (discarded && reports_discarded(n)) {
        if (ps->ndiscarded == ps->discarded_cap) {
            ps->discarded_cap = ps->discarded_cap ? 2 * ps->discarded_cap : 8;
            ps->discarded = xrealloc(ps->discarded, sizeof *ps->discarded * (size_t)ps->discarded_cap);
        }
        ps->discarded[ps->ndiscarded++] = n;
    }
    switch (n->kind) {
    case ND_COMPOUND:
        for (uint32_t i = 0; i < n->nkids; i++) find_discarded(ps, n->kids[i], discarded || i + 1 < n->nkids);
        return;
    case ND_PAREN: case ND_ORBIT: case ND_ORBIT_GROUP: case ND_NOTRANSFORM: case ND_TRANSFORM:
        for (uint32_t i = 0; i < n->nkids; i++) find_discarded(ps, n->kids[i], discarded);
        return;
    case ND_ORBIT_MEMBER:
        find_discarded(ps, n->kids[0], discarded);
        return;
    case ND_AND: case ND_OR: case ND_NOT:
        for (uint32_t i = 0; i < n->nkids; i++) find_discarded(ps, n->kids[i], true);
        return;
    case ND_IF:
        find_discarded(ps, n->kids[0], true);
        find_discarded(ps, n->kids[1], discarded);
        find_discarded(ps, n->kids[2], discarded);
        return;
    case ND_CALL:   /* the body expanded for the call stands where the call does */
        find_discarded(ps, n->kids[0], discarded);
        return;
    default:
        for (uint32_t i = 0; i < n->nkids; i++) find_discarded(ps, n->kids[i], false);
        return;
    }
}

bool eval_value_discarded(const Evaluator *ev, const Node *n)
{
    const ProgramState *ps = ev->program;
    for (int i = 0; i < ps->ndiscarded; i++)
        if (ps->discarded[i] == n) return true;
    return false;
}

static void program_init(Evaluator *ev)
{
    ProgramState *ps = xcalloc(1, sizeof *ps);
    ev->program = ps;
    /* the body is the query's implicit compound: each of its members is
     * evaluated for whether it matches */
    find_discarded(ps, ev->q->body, true);
}

static void program_free(Evaluator *ev)
{
    ProgramState *ps = ev->program;
    if (!ps) return;
    for (int i = 0; i < ps->nfiles; i++) {
        if (ps->files[i].fp) fclose(ps->files[i].fp);
        free(ps->files[i].name);
    }
    free(ps->files);
    free(ps->discarded);
    free(ps);
    ev->program = NULL;
}

/* }==== */

/* {==== assert, try, removecomment ============================================= */

/* assert F: F holds (a bare variable: is bound), or the run stops. */
static bool eval_assert(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    const Node *f = n->kids[0];
    Value v;
    bool ok = f->kind == ND_VAR && ev->q->vars[f->slot].kind != VK_DICTIONARY ? ev->bound[f->slot]
                                                                               : eval_node(ev, f, &v);
    if (ok || ev->runtime_error) return ok;
    unsigned line, col;
    diag_line_col(&ev->q->src, n->span.start, &line, &col);
    eval_runtime_error(ev,
                       "assert filter in .cql file failed at gamenumber %ld and positionid: %d: {Line %u, Column %u}",
                       ev->game->number, (int)ev->cur->id, line, col);
    return false;
}

/* try: the position lies inside exactly one White alternative: of the
 * positions from here back to the start, exactly one has Black to move and
 * was reached by a move that is not its parent's main continuation. */
static bool eval_try(Evaluator *ev, const Node *n, Value *out)
{
    (void)n;
    int alternatives = 0;
    for (const GameNode *q = ev->cur; q->parent; q = q->parent)
        if (q->pos.side == BLACK && q->parent->child != q) alternatives++;
    if (alternatives != 1) return false;
    out->type = VT_NUMBER;
    out->num = 1;
    return true;
}

/* removecomment: the input's comment at this position is left out when the
 * game is written (whether or not the position matches in the end). */
static bool eval_removecomment(Evaluator *ev, const Node *n, Value *out)
{
    (void)n;
    (void)out;
    if (ev->settings.noremovecomment) return true;
    GameSearch *s = ev->search;
    if (!s->remove_comment) s->remove_comment = ARENA_ARRAY(ev->arena, bool, ev->game->node_count);
    s->remove_comment[ev->cur->id] = true;
    return true;
}

/* }==== */

/* {==== currenttransform, lastgamenumber ======================================== */

static bool eval_currenttransform(Evaluator *ev, const Node *n, Value *out)
{
    if (eval_value_discarded(ev, n)) {
        eval_runtime_error(ev, "attempt to use 'currenttransform' for whether it matches rather than its string "
                               "value, but the filter always matches");
        return false;
    }
    StrBuf sb = SB_INIT;
    sb_printf(&sb, "<%s>", n->text ? n->text : "");
    bool ok = eval_string_value(out, arena_strdup(ev->arena, sb_str(&sb)));
    sb_free(&sb);
    return ok;
}

static bool eval_lastgamenumber(Evaluator *ev, const Node *n, Value *out)
{
    if (eval_value_discarded(ev, n)) {
        eval_runtime_error(ev, "'lastgamenumber' invoked in a context where it is used for whether it matches, "
                               "but this filter always matches. Do not ignore its numeric value");
        return false;
    }
    out->type = VT_NUMBER;
    out->num = ev->settings.last_game_number;
    return true;
}

/* }==== */

/* {==== readfile, writefile ===================================================== */

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* The name ends in one of the extensions, all in lower case or all in upper. */
static bool has_extension(const char *name, const char *const *extensions)
{
    for (; *extensions; extensions++) {
        char upper[8];
        size_t i = 0;
        for (; (*extensions)[i] && i + 1 < sizeof upper; i++) {
            char c = (*extensions)[i];
            upper[i] = c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
        }
        upper[i] = '\0';
        if (ends_with(name, *extensions) || ends_with(name, upper)) return true;
    }
    return false;
}

/* readfile F: the whole content of file F, read again at every evaluation. */
static bool eval_readfile(Evaluator *ev, const Node *n, Value *out)
{
    if (eval_value_discarded(ev, n)) {
        eval_runtime_error(ev, "readfile was evaluated only for whether it matched. The contents of the read "
                               "file were ignored");
        return false;
    }
    Value name;
    if (!eval_node(ev, n->kids[0], &name) || name.type != VT_STRING) return false;
    static const char *const extensions[] = {".cqo", ".pgn", ".cql", NULL};
    if (!has_extension(name.str, extensions)) {
        eval_runtime_error(ev, "Invalid filename for 'readfile'. Filename must have extension '.cqo', '.pgn', or "
                               "'.cql' but got filename: %s", name.str);
        return false;
    }
    /* CQL 6.2 prints these lines on standard output, with `message`'s text */
    if (ev->messages) sb_printf(ev->messages, "Reading file: %s\n", name.str);
    FILE *fp = fopen(name.str, "rb");
    if (!fp) {
        eval_runtime_error(ev, "Unable to open file: %s", name.str);
        return false;
    }
    StrBuf sb = SB_INIT;
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0) sb_append_n(&sb, chunk, got);
    bool failed = ferror(fp) != 0;
    fclose(fp);
    if (failed) {
        sb_free(&sb);
        eval_runtime_error(ev, "Unable to read file: %s", name.str);
        return false;
    }
    if (ev->messages) sb_printf(ev->messages, "Read file: %s got %zu bytes\n", name.str, sb.len);
    bool ok = eval_string_value(out, arena_strdup(ev->arena, sb_str(&sb)));
    sb_free(&sb);
    return ok;
}

/* The open file named `name`, opened (truncated) on first use; NULL after
 * a runtime error. */
static FILE *output_file(Evaluator *ev, const char *name)
{
    ProgramState *ps = ev->program;
    for (int i = 0; i < ps->nfiles; i++)
        if (strcmp(ps->files[i].name, name) == 0) return ps->files[i].fp;
    if (ev->messages) sb_printf(ev->messages, "writefile: opening file: %s\n", name);
    FILE *fp = fopen(name, "wb");
    if (!fp) {
        eval_runtime_error(ev, "writefile: unable to open file: %s", name);
        return NULL;
    }
    ps->files = xrealloc(ps->files, sizeof *ps->files * (size_t)(ps->nfiles + 1));
    ps->files[ps->nfiles++] = (OpenFile){xstrdup(name), fp};
    return fp;
}

/* writefile(F C): appends C to file F (opened for the run), and flushes. */
static bool eval_writefile(Evaluator *ev, const Node *n, Value *out)
{
    (void)out;
    Value name, text;
    if (!eval_node(ev, n->kids[0], &name) || name.type != VT_STRING) return false;
    if (!eval_node(ev, n->kids[1], &text) || text.type != VT_STRING) return false;
    static const char *const extensions[] = {".cqo", ".cql", NULL};
    if (!has_extension(name.str, extensions)) {
        eval_runtime_error(ev, "writefile: filename must have extension '.cqo' or '.cql' but got filename: %s",
                           name.str);
        return false;
    }
    FILE *fp = output_file(ev, name.str);
    if (!fp) return false;
    size_t len = strlen(text.str);
    if (fwrite(text.str, 1, len, fp) != len || fflush(fp) != 0) {
        eval_runtime_error(ev, "writefile: unable to write to file: %s: %s", name.str, strerror(errno));
        return false;
    }
    return true;
}

/* }==== */

/* {==== similarposition ========================================================= */

/* similarposition [notransform] "FILE": the position's board and side to
 * move were recorded from FILE (read before the run, eval/submission.h).
 * Each record equal to it, in the order recorded, adds the comment `see FILE
 * game: G at move: M wtm` and the transform's name; the value is the
 * smallest G (the parser's `sort min` around it sorts the games by it). */
static bool eval_similarposition(Evaluator *ev, const Node *n, Value *out)
{
    const SubmissionFile *f = submissions_find(ev->settings.submissions, n->text);
    if (!f) {
        eval_runtime_error(ev, "similarposition: the file %s was not read before the search", n->text);
        return false;
    }
    bool identity_only = n->num != 0;
    const char *side = ev->cur->pos.side == WHITE ? "wtm" : "btm";
    int64_t smallest = -1;
    /* the comments joined here, as the notes of a position are joined: a
     * file's start position may be recorded thousands of times, and
     * joining them one by one would copy them all again each time */
    StrBuf text = SB_INIT;
    for (const SubmissionRecord *r = submission_first(f, &ev->cur->pos); r; r = submission_next(f, r)) {
        if (identity_only && !submission_is_identity(f, r)) continue;
        const char *transform = submission_transform_name(f, r);
        sb_printf(&text, "%ssee %s game: %d at move: %d %s%s%s", text.len ? " " : "", n->text, (int)r->game,
                  (int)r->move, side, transform[0] ? " " : "", transform);
        if (smallest < 0 || r->game < smallest) smallest = r->game;
    }
    if (text.len) eval_add_comment(ev, ev->cur, sb_str(&text));
    sb_free(&text);
    if (smallest < 0) return false;
    out->type = VT_NUMBER;
    out->num = smallest;
    return true;
}

/* }==== */

/* {==== problem-chess mates ===================================================== */

static bool eval_problem_mate(Evaluator *ev, const Node *n, Value *out)
{
    ProblemMate kind;
    switch (n->kind) {
    case ND_PUREMATE: kind = PM_PURE_MATE; break;
    case ND_MODELMATE: kind = PM_MODEL_MATE; break;
    case ND_IDEALMATE: kind = PM_IDEAL_MATE; break;
    case ND_PURESTALEMATE: kind = PM_PURE_STALEMATE; break;
    case ND_MODELSTALEMATE: kind = PM_MODEL_STALEMATE; break;
    default: kind = PM_IDEAL_STALEMATE; break;
    }
    /* the cheap test first: most positions are neither mate nor stalemate */
    NodeCheck check = game_node_check(ev->cur);
    bool wants_mate = kind <= PM_IDEAL_MATE;
    if (wants_mate ? check != NODE_MATED : check != NODE_NO_CHECK) return false;
    Bitboard participants;
    if (!pm_classify(&ev->cur->pos, kind, &participants)) return false;
    out->type = VT_SET;
    out->set = participants;
    return true;
}

/* }==== */

static const EvalEntry program_entries[] = {
    {ND_ASSERT, eval_assert},
    {ND_TRY, eval_try},
    {ND_REMOVECOMMENT, eval_removecomment},
    {ND_CURRENTTRANSFORM, eval_currenttransform},
    {ND_LASTGAMENUMBER, eval_lastgamenumber},
    {ND_READFILE, eval_readfile},
    {ND_WRITEFILE, eval_writefile},
    {ND_SIMILARPOSITION, eval_similarposition},
    {ND_PUREMATE, eval_problem_mate},
    {ND_MODELMATE, eval_problem_mate},
    {ND_IDEALMATE, eval_problem_mate},
    {ND_PURESTALEMATE, eval_problem_mate},
    {ND_MODELSTALEMATE, eval_problem_mate},
    {ND_IDEALSTALEMATE, eval_problem_mate},
    {ND_COUNT_, NULL},
};

const EvalFamily eval_program_family = {program_entries, program_init, NULL, program_free};
