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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chess/problem_mate.h"
#include "eval/eval_int.h"
#include "eval/submission.h"

/* {==== state ================================================================= */

typedef struct OpenFile {
    char *name;
    FILE *fp;
    dev_t dev;                    /* the file, to know which read file it changes */
    ino_t ino;
} OpenFile;

/* A file `readfile` has read: read once, and its text given at every
 * evaluation, until `writefile` writes to the same file (by device and
 * inode), which makes it stale: the next evaluation reads it again. */
typedef struct ReadFile {
    char *name;                   /* as readfile was given it */
    char *text;                   /* its bytes and a NUL (heap); NULL once stale */
    size_t len;
    dev_t dev;
    ino_t ino;
} ReadFile;

typedef struct ProgramState {
    OpenFile *files;              /* `writefile`'s files, open for the run */
    int nfiles;
    ReadFile *reads;              /* `readfile`'s files, for the run */
    int nreads;
    /* the texts of read files gone stale in this game: the game's values
     * may still hold them, so they are freed when the next game begins */
    char **stale;
    int nstale;
} ProgramState;

static void program_init(Evaluator *ev)
{
    ev->program = xcalloc(1, sizeof(ProgramState));
}

static void free_stale_texts(ProgramState *ps)
{
    for (int i = 0; i < ps->nstale; i++) free(ps->stale[i]);
    ps->nstale = 0;
}

static void program_new_game(Evaluator *ev)
{
    free_stale_texts(ev->program);
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
    for (int i = 0; i < ps->nreads; i++) {
        free(ps->reads[i].name);
        free(ps->reads[i].text);
    }
    free(ps->reads);
    free_stale_texts(ps);
    free(ps->stale);
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
    eval_runtime_error(ev, n,
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
    if (ev->settings.run.noremovecomment) return true;
    GameSearch *s = ev->search;
    if (!s->remove_comment) s->remove_comment = ARENA_ARRAY(ev->arena, bool, ev->game->node_count);
    s->remove_comment[ev->cur->id] = true;
    return true;
}

/* }==== */

/* {==== currenttransform, lastgamenumber ======================================== */

static bool eval_currenttransform(Evaluator *ev, const Node *n, Value *out)
{
    if (eval_value_discarded(n)) {
        eval_runtime_error(ev, n, "attempt to use 'currenttransform' for whether it matches rather than its string "
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
    if (eval_value_discarded(n)) {
        eval_runtime_error(ev, n, "'lastgamenumber' invoked in a context where it is used for whether it matches, "
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

/* Reads file `name` for readfile n into f: a regular file (a FIFO or a
 * device, /dev/zero, never ends) no larger than the text budget, whose
 * bytes count towards it. False after stopping the run. */
static bool read_whole_file(Evaluator *ev, const Node *n, const char *name, ReadFile *f)
{
    /* O_NONBLOCK: opening a FIFO does not wait for a writer */
    int fd = open(name, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        eval_runtime_error(ev, n, "Unable to open file: %s", name);   /* CQL 6.2's message */
        return false;
    }
    struct stat st;
    bool ok = false;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        eval_stop_run(ev, n, "readfile: '%s' is not a regular file: the run stops here", name);
    } else {
        size_t budget = eval_text_budget(ev);
        bool too_large = (uint64_t)st.st_size > budget;
        StrBuf sb = SB_INIT;
        char chunk[65536];
        ssize_t got = 0;
        /* no further than just past the budget, should the file grow */
        while (!too_large && (got = read(fd, chunk, sizeof chunk)) > 0) {
            sb_append_n(&sb, chunk, (size_t)got);
            too_large = sb.len > budget;
        }
        if (too_large) {
            char size[32];
            format_size(size, sizeof size, budget);
            eval_stop_run(ev, n, "readfile: '%s' is larger than %s (-textbudget raises the limit): the run stops "
                          "here", name, size);
        } else if (got < 0) {
            eval_runtime_error(ev, n, "Unable to read file: %s", name);
        } else if (eval_count_text(ev, n, sb.len)) {
            f->len = sb.len;
            f->text = sb_take(&sb);
            f->dev = st.st_dev;
            f->ino = st.st_ino;
            ok = true;
        }
        sb_free(&sb);
    }
    close(fd);
    return ok;
}

/* The file readfile n names, read on first use and again once stale;
 * NULL after stopping the run. */
static const ReadFile *read_file(Evaluator *ev, const Node *n, const char *name)
{
    ProgramState *ps = ev->program;
    ReadFile *f = NULL;
    for (int i = 0; i < ps->nreads && !f; i++)
        if (strcmp(ps->reads[i].name, name) == 0) f = &ps->reads[i];
    if (f && f->text) return f;
    ReadFile fresh = {NULL, NULL, 0, 0, 0};
    if (!read_whole_file(ev, n, name, &fresh)) return NULL;
    if (!f) {
        ps->reads = xrealloc(ps->reads, sizeof *ps->reads * (size_t)(ps->nreads + 1));
        f = &ps->reads[ps->nreads++];
        f->name = xstrdup(name);
    }
    fresh.name = f->name;
    *f = fresh;
    return f;
}

/* writefile wrote to the file opened as `written`: a text read from it
 * before is stale. */
static void forget_read_text(ProgramState *ps, const OpenFile *written)
{
    for (int i = 0; i < ps->nreads; i++) {
        ReadFile *f = &ps->reads[i];
        if (!f->text || f->dev != written->dev || f->ino != written->ino) continue;
        ps->stale = xrealloc(ps->stale, sizeof *ps->stale * (size_t)(ps->nstale + 1));
        ps->stale[ps->nstale++] = f->text;
        f->text = NULL;
    }
}

/* readfile F: the whole content of file F, as it is when the filter is
 * evaluated. CQL 6.2 reads the file at every evaluation; here it is read
 * once for the run, and again after writefile wrote to it. */
static bool eval_readfile(Evaluator *ev, const Node *n, Value *out)
{
    if (eval_value_discarded(n)) {
        eval_runtime_error(ev, n, "readfile was evaluated only for whether it matched. The contents of the read "
                               "file were ignored");
        return false;
    }
    Value name;
    if (!eval_node(ev, n->kids[0], &name) || name.type != VT_STRING) return false;
    static const char *const extensions[] = {".cqo", ".pgn", ".cql", NULL};
    if (!has_extension(name.str, extensions)) {
        eval_runtime_error(ev, n, "Invalid filename for 'readfile'. Filename must have extension '.cqo', '.pgn', or "
                               "'.cql' but got filename: %s", name.str);
        return false;
    }
    /* CQL 6.2 prints these lines on standard output, with `message`'s
     * text; they count towards the text budget as a message does */
    size_t printed = ev->messages ? ev->messages->len : 0;
    if (ev->messages) sb_printf(ev->messages, "Reading file: %s\n", name.str);
    const ReadFile *f = read_file(ev, n, name.str);
    if (!f) return false;
    if (ev->messages) sb_printf(ev->messages, "Read file: %s got %zu bytes\n", name.str, f->len);
    if (ev->messages && !eval_count_text(ev, n, ev->messages->len - printed)) return false;
    return eval_string_value(out, f->text);
}

/* True when `name` is the query's own file (by device and inode: any
 * name of it), which writefile would destroy. */
static bool is_the_query_file(const Evaluator *ev, const char *name)
{
    const char *query = ev->settings.run.query_file;
    struct stat a, b;
    return query && stat(query, &a) == 0 && stat(name, &b) == 0 && S_ISREG(a.st_mode) &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The open file named `name` for writefile n, opened (truncated) on first
 * use; NULL after a runtime error. */
static OpenFile *output_file(Evaluator *ev, const Node *n, const char *name)
{
    ProgramState *ps = ev->program;
    for (int i = 0; i < ps->nfiles; i++)
        if (strcmp(ps->files[i].name, name) == 0) return &ps->files[i];
    if (is_the_query_file(ev, name)) {
        eval_stop_run(ev, n, "writefile: refusing to write over the query file '%s': the run stops here", name);
        return NULL;
    }
    if (ev->messages) sb_printf(ev->messages, "writefile: opening file: %s\n", name);
    FILE *fp = fopen(name, "wb");
    if (!fp) {
        eval_runtime_error(ev, n, "writefile: unable to open file: %s", name);
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(fp), &st) != 0) memset(&st, 0, sizeof st);
    ps->files = xrealloc(ps->files, sizeof *ps->files * (size_t)(ps->nfiles + 1));
    ps->files[ps->nfiles] = (OpenFile){xstrdup(name), fp, st.st_dev, st.st_ino};
    return &ps->files[ps->nfiles++];
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
        eval_runtime_error(ev, n, "writefile: filename must have extension '.cqo' or '.cql' but got filename: %s",
                           name.str);
        return false;
    }
    OpenFile *file = output_file(ev, n, name.str);
    if (!file) return false;
    size_t len = strlen(text.str);
    if (fwrite(text.str, 1, len, file->fp) != len || fflush(file->fp) != 0) {
        eval_runtime_error(ev, n, "writefile: unable to write to file: %s: %s", name.str, strerror(errno));
        return false;
    }
    forget_read_text(ev->program, file);
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
        eval_runtime_error(ev, n, "similarposition: the file %s was not read before the search", n->text);
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

const EvalFamily eval_program_family = {program_entries, program_init, program_new_game, program_free};
