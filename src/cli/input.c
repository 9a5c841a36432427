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

static const struct {
    const char *program;
    const unsigned char magic[6];
    size_t len;
} compressors[] = {
    {"gzip", {0x1f, 0x8b}, 2},
    {"bzip2", {'B', 'Z', 'h'}, 3},
    {"xz", {0xfd, '7', 'z', 'X', 'Z', 0x00}, 6},
    {"zstd", {0x28, 0xb5, 0x2f, 0xfd}, 4},
};

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
    in->files[in->count++] = (InputFile){cli_strdup(path), NULL, 0};
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

/* Opens the file and looks at its first bytes: compressed (by what), or
 * binary (refused), or text. */
static int check_file(InputFile *f, CqlMessages *m)
{
    if (strcmp(f->path, "-") == 0) return 0;
    struct stat st;
    if (stat(f->path, &st) != 0) {
        cql_report(m, CQL_ERROR, "cannot open input file '%s': %s", f->path, strerror(errno));
        return -1;
    }
    /* a FIFO or a process substitution (-i <(zcat x.gz)) is opened once, by
     * the reader: opening it here would lose what its writer sends */
    if (!S_ISREG(st.st_mode)) return 0;
    f->size = (uint64_t)st.st_size;
    int fd = open(f->path, O_RDONLY);
    if (fd < 0) {
        cql_report(m, CQL_ERROR, "cannot open input file '%s': %s", f->path, strerror(errno));
        return -1;
    }
    unsigned char head[4096];
    ssize_t got = read(fd, head, sizeof head);
    close(fd);
    if (got < 0) {
        cql_report(m, CQL_ERROR, "cannot read input file '%s': %s", f->path, strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < sizeof compressors / sizeof compressors[0]; i++)
        if ((size_t)got >= compressors[i].len && memcmp(head, compressors[i].magic, compressors[i].len) == 0) {
            f->decompressor = compressors[i].program;
            if (!installed(f->decompressor)) {
                cql_report(m, CQL_ERROR,
                           "the input file '%s' is %s-compressed, and the program '%s' to read it is not "
                           "installed (or not on PATH)", f->path, f->decompressor, f->decompressor);
                return -1;
            }
            return 0;
        }
    if (memchr(head, '\0', (size_t)got)) {
        cql_report(m, CQL_ERROR, "the input file '%s' is not a PGN file (it holds binary data)", f->path);
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
    for (int i = 0; i < in->count; i++) {
        if (check_file(&in->files[i], m) != 0) return -1;
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
        feed_fail(in, "cannot open input file", f->path, strerror(errno));
        return false;
    }
    bool ok = copy_into_stream(in, fd, f->path, lines, last);
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
        feed_fail(in, "cannot start a decompressor for", f->path, strerror(errno));
        return false;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        feed_fail(in, "cannot start a decompressor for", f->path, strerror(errno));
        return false;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        signal(SIGPIPE, SIG_DFL);   /* the run stopped early: the decompressor ends quietly */
        execlp(f->decompressor, f->decompressor, "-dc", "--", f->path, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    pthread_mutex_lock(&in->mu);
    in->child = pid;
    pthread_mutex_unlock(&in->mu);
    bool copied = copy_into_stream(in, fds[0], f->path, lines, last);
    close(fds[0]);   /* a decompressor still writing gets SIGPIPE */
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    pthread_mutex_lock(&in->mu);
    in->child = 0;
    bool stopping = in->stopping;
    pthread_mutex_unlock(&in->mu);
    if (stopping || !copied) return false;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
    char why[64];
    if (WIFEXITED(status)) snprintf(why, sizeof why, "exit status %d", WEXITSTATUS(status));
    else snprintf(why, sizeof why, "signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    CqlText how = {NULL, 0, 0};
    cql_text_printf(&how, "'%s -dc' could not read", f->decompressor);
    feed_fail(in, how.data, f->path, why);
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
        add_bound(in, lines + 1, f->path);
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
    if (in->count == 1 && !in->files[0].decompressor) {
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
    const char *name = in->count == 1 ? in->files[0].path : "<inputs>";
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
    for (int i = 0; i < in->count; i++) free(in->files[i].path);
    free(in->files);
    free(in->bounds);
    free(in->failure);
    pthread_mutex_destroy(&in->mu);
    memset(in, 0, sizeof *in);
    in->feed_fd = -1;
}
