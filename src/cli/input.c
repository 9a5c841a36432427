/*
 * src/cli/input.c — several inputs, directories and compressed files fed
 * into one stream of games (see input.h).
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
#include <sys/socket.h>
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
    in->files[in->count++] = (InputFile){cli_strdup(path), NULL, 0, 0, 0};
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

/* A directory's PGN files (*.pgn, also compressed), in name order. */
static int add_directory(InputSet *in, const char *dir, CqlMessages *m)
{
    DIR *d = opendir(dir);
    if (!d) {
        cql_report(m, CQL_ERROR, "cannot open input directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        for (size_t i = 0; i < sizeof pgn_suffixes / sizeof pgn_suffixes[0]; i++)
            if (ends_with_nocase(e->d_name, pgn_suffixes[i])) {
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
        add_file(in, path.data);
        cql_text_free(&path);
        free(names[i]);
    }
    free(names);
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
    in->feed_fd = -1;
    pthread_mutex_init(&in->mu, NULL);
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

/* {==== feeding ============================================================== */

/* Keeps "WHAT 'PATH': WHY" as the feeder's first problem. */
static void feed_fail(InputSet *in, const char *what, const char *path, const char *why)
{
    pthread_mutex_lock(&in->mu);
    if (!in->failure && !in->stopping) {
        CqlText t = {NULL, 0, 0};
        cql_text_printf(&t, "%s '%s': %s", what, path, why);
        in->failure = t.data;
    }
    pthread_mutex_unlock(&in->mu);
}

static bool send_all(InputSet *in, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(in->feed_fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;   /* the reader stopped */
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Copies what fd gives into the stream, counting its lines. */
static bool copy_into_stream(InputSet *in, int fd, const char *path, long *lines, char *last)
{
    static char buf[1 << 16];   /* the one feeding thread's */
    for (;;) {
        ssize_t got = read(fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            feed_fail(in, "cannot read input file", path, strerror(errno));
            return false;
        }
        if (got == 0) return true;
        for (const char *p = buf, *end = buf + got; (p = memchr(p, '\n', (size_t)(end - p))); p++) ++*lines;
        *last = buf[got - 1];
        if (!send_all(in, buf, (size_t)got)) return false;
    }
}

static bool feed_plain(InputSet *in, const InputFile *f, long *lines, char *last)
{
    int fd = strcmp(f->path, "-") == 0 ? STDIN_FILENO : open(f->path, O_RDONLY);
    if (fd < 0) {
        feed_fail(in, "cannot open input file", shown_name(f), strerror(errno));
        return false;
    }
    bool ok = copy_into_stream(in, fd, shown_name(f), lines, last);
    if (fd != STDIN_FILENO) close(fd);
    return ok;
}

/* Runs the decompressor as a child writing into a pipe, and copies what it
 * writes into the stream (counting lines, so that messages name the file's
 * own lines). */
static bool feed_compressed(InputSet *in, const InputFile *f, long *lines, char *last)
{
    int fds[2];
    if (pipe(fds) != 0) {
        feed_fail(in, "cannot start a decompressor for", shown_name(f), strerror(errno));
        return false;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        feed_fail(in, "cannot start a decompressor for", shown_name(f), strerror(errno));
        return false;
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
    pthread_mutex_lock(&in->mu);
    in->child = pid;
    pthread_mutex_unlock(&in->mu);
    bool copied = copy_into_stream(in, fds[0], shown_name(f), lines, last);
    close(fds[0]);   /* a decompressor still writing gets SIGPIPE */
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    pthread_mutex_lock(&in->mu);
    in->child = 0;
    bool stopping = in->stopping;
    pthread_mutex_unlock(&in->mu);
    if (stopping || !copied) return false;
    if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == f->warned_status)) return true;
    char why[64];
    if (WIFEXITED(status)) snprintf(why, sizeof why, "exit status %d", WEXITSTATUS(status));
    else snprintf(why, sizeof why, "signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    CqlText how = {NULL, 0, 0};
    cql_text_printf(&how, "'%s -dc' could not read", f->decompressor);
    feed_fail(in, how.data, shown_name(f), why);
    cql_text_free(&how);
    return false;
}

static void add_bound(InputSet *in, long first_line, const char *path)
{
    pthread_mutex_lock(&in->mu);
    if (in->nbounds == in->bounds_cap) {
        in->bounds_cap = in->bounds_cap ? 2 * in->bounds_cap : 16;
        in->bounds = cli_realloc(in->bounds, (size_t)in->bounds_cap * sizeof *in->bounds);
    }
    in->bounds[in->nbounds++] = (InputBoundary){first_line, path};
    pthread_mutex_unlock(&in->mu);
}

static void *feeder_main(void *arg)
{
    InputSet *in = arg;
    long lines = 0;          /* lines fed so far */
    for (int i = 0; i < in->count; i++) {
        const InputFile *f = &in->files[i];
        add_bound(in, lines + 1, shown_name(f));
        char last = '\n';
        bool ok = f->decompressor ? feed_compressed(in, f, &lines, &last) : feed_plain(in, f, &lines, &last);
        if (!ok) break;
        if (last != '\n') {   /* the next file starts on a line of its own */
            if (!send_all(in, "\n", 1)) break;
            lines++;
        }
    }
    shutdown(in->feed_fd, SHUT_WR);
    return NULL;
}

/* }==== */

/* {==== messages ============================================================= */

/* "STREAM:LINE:..." becomes "FILE:LINE-IN-FILE:..." */
static void rewrite_message(void *ctx, CqlSeverity severity, const char *text)
{
    InputSet *in = ctx;
    const char *name = cql_reader_name(in->reader);
    size_t nl = strlen(name);
    if (strncmp(text, name, nl) == 0 && text[nl] == ':' && text[nl + 1] >= '0' && text[nl + 1] <= '9') {
        char *end;
        long line = strtol(text + nl + 1, &end, 10);
        pthread_mutex_lock(&in->mu);
        const InputBoundary *b = NULL;
        for (int i = 0; i < in->nbounds && in->bounds[i].first_line <= line; i++) b = &in->bounds[i];
        CqlText t = {NULL, 0, 0};
        if (b) cql_text_printf(&t, "%s:%ld%s", b->path, line - b->first_line + 1, end);
        pthread_mutex_unlock(&in->mu);
        if (b) {
            cql_deliver(in->target, severity, t.data);
            cql_text_free(&t);
            return;
        }
    }
    cql_deliver(in->target, severity, text);
}

/* }==== */

CqlReader *input_open(InputSet *in, CqlMessages *m, CqlMessages **messages_out)
{
    *messages_out = m;
    if (in->count == 1 && !in->files[0].decompressor && !in->files[0].pump) {
        in->reader = cql_reader_open(in->files[0].path, m);
        return in->reader;
    }
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) {
        cql_report(m, CQL_ERROR, "cannot make a stream for the input: %s", strerror(errno));
        return NULL;
    }
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);   /* a decompressor must not hold the read end */
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);   /* nor the next one the write end (dup2 clears it) */
    in->stream = fdopen(fds[0], "rb");
    in->feed_fd = fds[1];
    if (!in->stream) {
        close(fds[0]);
        cql_report(m, CQL_ERROR, "cannot read the input stream: %s", strerror(errno));
        return NULL;
    }
    in->target = m;
    in->rewrite = (CqlMessages){rewrite_message, in, 0, 0};
    const char *name = in->count == 1 ? shown_name(&in->files[0]) : "<inputs>";
    in->reader = cql_reader_open_stream(in->stream, name, m);
    if (!in->reader) return NULL;
    if (pthread_create(&in->feeder, NULL, feeder_main, in) != 0) {
        cql_report(m, CQL_ERROR, "cannot start the input thread");
        return NULL;
    }
    in->feeding = true;
    *messages_out = &in->rewrite;
    return in->reader;
}

bool input_close(InputSet *in, bool stopped_early, CqlMessages *m)
{
    bool ok = true;
    if (in->feeding) {
        pthread_mutex_lock(&in->mu);
        in->stopping = stopped_early;
        if (stopped_early && in->child) kill((pid_t)in->child, SIGTERM);
        pthread_mutex_unlock(&in->mu);
        if (stopped_early) shutdown(fileno(in->stream), SHUT_RDWR);   /* the feeder's send fails */
        pthread_join(in->feeder, NULL);
        in->feeding = false;
        if (in->failure) {
            cql_report(m, CQL_ERROR, "%s", in->failure);
            ok = false;
        }
    }
    return ok;
}

void input_free(InputSet *in)
{
    if (in->feeding) input_close(in, true, NULL);
    cql_reader_close(in->reader);
    if (in->stream) fclose(in->stream);
    if (in->feed_fd >= 0) close(in->feed_fd);
    for (int i = 0; i < in->count; i++) {
        if (in->files[i].pump) {   /* still copying when the run stopped early */
            kill((pid_t)in->files[i].pump, SIGTERM);
            while (waitpid((pid_t)in->files[i].pump, NULL, 0) < 0 && errno == EINTR) {}
        }
        free(in->files[i].path);
    }
    free(in->files);
    free(in->bounds);
    free(in->failure);
    pthread_mutex_destroy(&in->mu);
    memset(in, 0, sizeof *in);
    in->feed_fd = -1;
}
