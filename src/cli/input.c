/*
 * src/cli/input.c — the inputs as people have them: several files,
 * directories and compressed files, given to the run (see input.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/input.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/memory.h"

/* {==== which files ========================================================== */

/* The compressed formats, known by their first bytes. `warned` is the exit
 * status with which the decompressor says it read everything and warns
 * (gzip and xz: 2, as for trailing garbage after a valid .gz): the run goes
 * on as gzip itself does, with the decompressor's own message. */
static const struct {
    const char *program;
    const unsigned char magic[6];
    size_t len;
    int warned;
} compressors[] = {
    {"gzip", {0x1f, 0x8b}, 2, 2},
    {"bzip2", {'B', 'Z', 'h'}, 3, 0},
    {"xz", {0xfd, '7', 'z', 'X', 'Z', 0x00}, 6, 2},
    {"zstd", {0x28, 0xb5, 0x2f, 0xfd}, 4, 0},
};
enum { NCOMPRESSORS = sizeof compressors / sizeof compressors[0], MAGIC_MAX = 6 };

static const char *const pgn_suffixes[] = {".pgn", ".pgn.gz", ".pgn.bz2", ".pgn.xz", ".pgn.zst"};

static bool ends_with_nocase(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    if (ls < lx) return false;
    for (size_t i = 0; i < lx; i++) {
        char c = s[ls - lx + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c + 32);
        if (c != suffix[i]) return false;
    }
    return true;
}

/* True when the program can be found on PATH. */
static bool installed(const char *program)
{
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/bin:/bin";
    CqlText candidate = {NULL, 0, 0};
    bool found = false;
    for (const char *dir = path; !found;) {
        size_t len = strcspn(dir, ":");
        cql_text_clear(&candidate);
        cql_text_printf(&candidate, "%.*s/%s", (int)len, len ? dir : ".", program);
        found = access(candidate.data, X_OK) == 0;
        if (!dir[len]) break;
        dir += len + 1;
    }
    cql_text_free(&candidate);
    return found;
}

static void add_file(InputSet *in, const char *path)
{
    in->files = cli_realloc(in->files, (size_t)(in->count + 1) * sizeof *in->files);
    in->files[in->count++] = (InputFile){.path = cli_strdup(path)};
}

/* The name messages give a file: standard input is "<stdin>". */
static const char *shown_name(const InputFile *f)
{
    return strcmp(f->path, "-") == 0 ? "<stdin>" : f->path;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **input_list_directory(const char *dir, const char *const *suffixes, size_t nsuffixes, const char *what,
                            int *count, CqlMessages *m)
{
    DIR *d = opendir(dir);
    if (!d) {
        cql_report(m, CQL_ERROR, "cannot open %s directory '%s': %s", what, dir, strerror(errno));
        return NULL;
    }
    char **names = cli_calloc(1, sizeof *names);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        for (size_t i = 0; i < nsuffixes; i++)
            if (ends_with_nocase(e->d_name, suffixes[i])) {
                names = cli_realloc(names, (n + 1) * sizeof *names);
                names[n++] = cli_strdup(e->d_name);
                break;
            }
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    size_t dl = strlen(dir);
    for (size_t i = 0; i < n; i++) {
        CqlText path = {NULL, 0, 0};
        cql_text_printf(&path, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", names[i]);
        free(names[i]);
        names[i] = path.data;
    }
    *count = (int)n;
    return names;
}

/* A directory's PGN files (*.pgn, also compressed), in name order. */
static int add_directory(InputSet *in, const char *dir, CqlMessages *m)
{
    int n;
    char **paths = input_list_directory(dir, pgn_suffixes, sizeof pgn_suffixes / sizeof pgn_suffixes[0], "input",
                                        &n, m);
    if (!paths) return -1;
    for (int i = 0; i < n; i++) {
        add_file(in, paths[i]);
        free(paths[i]);
    }
    free(paths);
    if (n == 0) {
        cql_report(m, CQL_ERROR, "the input directory '%s' has no PGN file (*.pgn, *.pgn.gz ...)", dir);
        return -1;
    }
    return 0;
}

/* The compressor whose magic the first `got` bytes of a file begin with
 * (index in compressors[]), or -1. */
static int compressor_of(const unsigned char *head, size_t got)
{
    for (int i = 0; i < NCOMPRESSORS; i++)
        if (got >= compressors[i].len && memcmp(head, compressors[i].magic, compressors[i].len) == 0) return i;
    return -1;
}

/* Standard input that is a pipe (or a terminal, a socket) cannot be looked
 * at without taking its bytes. Its first byte is looked at and put back
 * (one byte of pushback is what stdio promises): text starts with no
 * compressor's first byte, and the reader then reads standard input as it
 * is. Otherwise the first bytes are taken, and a child process, the pump,
 * gives them back followed by the rest: file descriptor 0 becomes the
 * pump's pipe, read by the decompressor or by the feeding thread. No other
 * thread runs yet (the fork copies none). Returns the compressor's index,
 * or -1 for text. */
static int sniff_stdin_stream(InputFile *f, CqlMessages *m)
{
    int c = getc(stdin);
    if (c == EOF) return -1;
    ungetc(c, stdin);
    bool may_be_compressed = false;
    for (int i = 0; i < NCOMPRESSORS; i++)
        if (c == compressors[i].magic[0]) may_be_compressed = true;
    if (!may_be_compressed) return -1;
    unsigned char head[MAGIC_MAX];
    size_t got = fread(head, 1, sizeof head, stdin);
    int fds[2];
    pid_t pid = -1;
    if (pipe(fds) == 0 && (pid = fork()) < 0) {
        close(fds[0]);
        close(fds[1]);
    }
    if (pid < 0) {
        cql_report(m, CQL_ERROR, "cannot read standard input: %s", strerror(errno));
        return -2;
    }
    if (pid == 0) {   /* the pump: the bytes taken, then the rest */
        close(fds[0]);
        signal(SIGPIPE, SIG_DFL);   /* the run stopped early: the pump ends quietly */
        char buf[1 << 16];
        size_t n = got;
        memcpy(buf, head, got);
        do {
            for (size_t done = 0; done < n;) {
                ssize_t w = write(fds[1], buf + done, n - done);
                if (w < 0 && errno == EINTR) continue;
                if (w <= 0) _exit(1);
                done += (size_t)w;
            }
        } while ((n = fread(buf, 1, sizeof buf, stdin)) > 0);
        _exit(ferror(stdin) ? 1 : 0);
    }
    close(fds[1]);
    dup2(fds[0], STDIN_FILENO);
    close(fds[0]);
    f->pump = pid;
    return compressor_of(head, got);
}

/* Opens the file and looks at its first bytes: compressed (by what), or
 * text. A file with NUL bytes or other binary data is read as text, as
 * standard input is: the reader keeps every game in it and skips what is
 * not PGN with a warning (docs/pgn-input.md). */
static int check_file(InputFile *f, CqlMessages *m)
{
    bool is_stdin = strcmp(f->path, "-") == 0;
    struct stat st;
    if (is_stdin ? fstat(STDIN_FILENO, &st) != 0 : stat(f->path, &st) != 0) {
        cql_report(m, CQL_ERROR, "cannot open input file '%s': %s", shown_name(f), strerror(errno));
        return -1;
    }
    int which = -1;
    if (is_stdin && !S_ISREG(st.st_mode)) {
        which = sniff_stdin_stream(f, m);
        if (which == -2) return -1;
    } else if (!S_ISREG(st.st_mode)) {
        /* a FIFO or a process substitution (-i <(zcat x.gz)) is opened
         * once, by the reader: opening it here would lose what its writer
         * sends */
        return 0;
    } else {
        f->size = is_stdin ? 0 : (uint64_t)st.st_size;
        /* standard input redirected from a file: read where it stands,
         * which the decompressor, reading it after us, also does */
        int fd = is_stdin ? STDIN_FILENO : open(f->path, O_RDONLY);
        if (fd < 0) {
            cql_report(m, CQL_ERROR, "cannot open input file '%s': %s", f->path, strerror(errno));
            return -1;
        }
        unsigned char head[MAGIC_MAX];
        off_t at = is_stdin ? lseek(fd, 0, SEEK_CUR) : 0;
        ssize_t got = pread(fd, head, sizeof head, at < 0 ? 0 : at);
        if (!is_stdin) close(fd);
        if (got < 0) {
            cql_report(m, CQL_ERROR, "cannot read input file '%s': %s", shown_name(f), strerror(errno));
            return -1;
        }
        which = compressor_of(head, (size_t)got);
    }
    if (which < 0) return 0;
    f->decompressor = compressors[which].program;
    f->warned_status = compressors[which].warned;
    if (!installed(f->decompressor)) {
        cql_report(m, CQL_ERROR,
                   "the input file '%s' is %s-compressed, and the program '%s' to read it is not "
                   "installed (or not on PATH)", shown_name(f), f->decompressor, f->decompressor);
        return -1;
    }
    return 0;
}

int input_expand(InputSet *in, const char *const *given, int count, CqlMessages *m)
{
    memset(in, 0, sizeof *in);
    for (int i = 0; i < count; i++) {
        struct stat st;
        if (strcmp(given[i], "-") != 0 && stat(given[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            if (add_directory(in, given[i], m) != 0) return -1;
        } else {
            add_file(in, given[i]);
        }
    }
    in->total_known = true;
    bool stdin_checked = false;   /* standard input given twice is looked at once */
    for (int i = 0; i < in->count; i++) {
        bool is_stdin = strcmp(in->files[i].path, "-") == 0;
        if (!(is_stdin && stdin_checked) && check_file(&in->files[i], m) != 0) return -1;
        stdin_checked |= is_stdin;
        if (in->files[i].decompressor || in->files[i].size == 0) in->total_known = false;
        in->total_size += in->files[i].size;
    }
    return 0;
}

/* }==== */

/* {==== the decompressors ==================================================== */

/* Keeps "WHAT 'PATH': WHY" as the first problem of the inputs, reported
 * after the run (input_finish). */
static void input_fail(InputSet *in, const char *what, const InputFile *f, const char *why)
{
    if (in->failure) return;
    CqlText t = {NULL, 0, 0};
    cql_text_printf(&t, "%s '%s': %s", what, shown_name(f), why);
    in->failure = t.data;
}

/* A compressed input, when the run comes to it: the decompressor as a
 * child writing into a pipe, whose read end is the run's stream. */
static FILE *open_decompressed(void *ctx, CqlMessages *m)
{
    (void)m;   /* a problem is reported after the run, with the others */
    InputFile *f = ctx;
    int fds[2];
    if (pipe(fds) != 0) {
        input_fail(f->set, "cannot start a decompressor for", f, strerror(errno));
        return NULL;
    }
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);   /* the next decompressor must not hold it */
    pid_t pid = fork();
    if (pid < 0) {
        input_fail(f->set, "cannot start a decompressor for", f, strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return NULL;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        signal(SIGPIPE, SIG_DFL);   /* the run stopped early: the decompressor ends quietly */
        if (strcmp(f->path, "-") == 0) execlp(f->decompressor, f->decompressor, "-dc", (char *)NULL);
        else execlp(f->decompressor, f->decompressor, "-dc", "--", f->path, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    f->child = pid;
    FILE *fp = fdopen(fds[0], "rb");
    if (!fp) {
        input_fail(f->set, "cannot read the output of the decompressor for", f, strerror(errno));
        close(fds[0]);
    }
    return fp;
}

/* Done with a compressed input: a decompressor still writing (the run
 * stopped early) is ended; one that failed fails the run. */
static bool close_decompressed(void *ctx, FILE *fp, bool read_to_end)
{
    InputFile *f = ctx;
    if (!read_to_end && f->child) kill((pid_t)f->child, SIGTERM);
    fclose(fp);   /* a decompressor still writing gets SIGPIPE */
    int status = 0;
    while (f->child && waitpid((pid_t)f->child, &status, 0) < 0 && errno == EINTR) {}
    f->child = 0;
    if (!read_to_end) return true;
    if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == f->warned_status)) return true;
    char why[64];
    if (WIFEXITED(status)) snprintf(why, sizeof why, "exit status %d", WEXITSTATUS(status));
    else snprintf(why, sizeof why, "signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    CqlText how = {NULL, 0, 0};
    cql_text_printf(&how, "'%s -dc' could not read", f->decompressor);
    input_fail(f->set, how.data, f, why);
    cql_text_free(&how);
    return false;
}

/* }==== */

bool input_add_to_run(InputSet *in, CqlRun *run, CqlMessages *m)
{
    for (int i = 0; i < in->count; i++) {
        InputFile *f = &in->files[i];
        f->set = in;
        if (f->decompressor) {
            cql_run_add_source(run, shown_name(f), open_decompressed, close_decompressed, f);
        } else if (f->pump) {
            /* standard input whose first bytes were looked at: file
             * descriptor 0 is the pump's pipe, read afresh */
            int fd = dup(STDIN_FILENO);
            f->stream = fd >= 0 ? fdopen(fd, "rb") : NULL;
            if (!f->stream) {
                if (fd >= 0) close(fd);
                cql_report(m, CQL_ERROR, "cannot read standard input: %s", strerror(errno));
                return false;
            }
            cql_run_add_stream(run, f->stream, shown_name(f));
        } else {
            cql_run_add_path(run, f->path);
        }
    }
    return true;
}

bool input_finish(InputSet *in, CqlMessages *m)
{
    if (!in->failure) return true;
    cql_report(m, CQL_ERROR, "%s", in->failure);
    return false;
}

void input_free(InputSet *in)
{
    for (int i = 0; i < in->count; i++) {
        InputFile *f = &in->files[i];
        if (f->stream) fclose(f->stream);
        if (f->pump) {   /* still copying when the run stopped early */
            kill((pid_t)f->pump, SIGTERM);
            while (waitpid((pid_t)f->pump, NULL, 0) < 0 && errno == EINTR) {}
        }
        free(f->path);
    }
    free(in->files);
    free(in->failure);
    memset(in, 0, sizeof *in);
}
