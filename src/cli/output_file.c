/*
 * src/cli/output_file.c — the output file: written in place or through a
 * temporary file and a rename, never over the input, never destroying what
 * the name already is (a device, a FIFO, a symlink). See output_file.h.
 *
 * The temporary file is the only file cql creates; the signal handler that
 * removes it when the run is interrupted is installed here, together with it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _XOPEN_SOURCE 700   /* realpath */
#include "cli/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/memory.h"

enum { OUTPUT_BUFFER = 1 << 20 };

/* ==== removing the temporary file on SIGINT, SIGTERM, SIGHUP ================ */

static char *volatile pending_tmp_name;   /* read by the signal handler */
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
enum { NCLEANUP = sizeof cleanup_signals / sizeof cleanup_signals[0] };

/* Removes the temporary file, then dies of the signal with its default
 * action, so that the shell sees 128+signal and a script loop stops. */
static void remove_pending_and_die(int sig)
{
    char *name = pending_tmp_name;
    if (name) unlink(name);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_cleanup_handlers(void)
{
    static bool installed;
    if (installed) return;
    installed = true;
    for (int i = 0; i < NCLEANUP; i++) {
        struct sigaction old, sa;
        /* a signal ignored when cql started (nohup, a background job) stays ignored */
        if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = remove_pending_and_die;
        sigemptyset(&sa.sa_mask);
        sigaction(cleanup_signals[i], &sa, NULL);
    }
}

/* Blocks the cleanup signals around creating or renaming the temporary
 * file, so that the handler never misses a file that exists. */
static void block_cleanup_signals(sigset_t *saved)
{
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < NCLEANUP; i++) sigaddset(&set, cleanup_signals[i]);
    sigprocmask(SIG_BLOCK, &set, saved);
}

static void restore_signals(const sigset_t *saved)
{
    sigprocmask(SIG_SETMASK, saved, NULL);
}

/* ==== opening =============================================================== */

/* True when `name` ("-": standard input) is the same regular file as st
 * (by device and inode). */
static bool is_the_file(const struct stat *st, const char *name)
{
    struct stat in;
    int got = strcmp(name, "-") == 0 ? fstat(STDIN_FILENO, &in) : stat(name, &in);
    return got == 0 && S_ISREG(in.st_mode) && S_ISREG(st->st_mode) && in.st_dev == st->st_dev &&
           in.st_ino == st->st_ino;
}

/* True when one of the inputs is the same regular file as st. */
static bool is_the_input(const struct stat *st, const OutputInputs *inputs)
{
    for (int i = 0; inputs && i < inputs->count; i++)
        if (is_the_file(st, inputs->names[i])) return true;
    return false;
}

/* True when the query file is the same regular file as st. */
static bool is_the_query(const struct stat *st, const OutputInputs *inputs)
{
    return inputs && inputs->query && is_the_file(st, inputs->query);
}

static int report_open_error(OutputFile *o, CqlMessages *m, int err)
{
    cql_report(m, CQL_ERROR, "cannot write output file '%s': %s", o->name, strerror(err));
    return -1;
}

/* Writes in place: devices, FIFOs, sockets, hard-linked files, a dangling
 * symlink's new target. O_CREAT and O_TRUNC only reach a regular file. */
static int open_in_place(OutputFile *o, const struct stat *st, CqlMessages *m)
{
    int flags = O_WRONLY;
    if (!st || S_ISREG(st->st_mode)) flags |= O_CREAT | O_TRUNC;
    o->fd = open(o->name, flags, 0666);
    if (o->fd < 0) return report_open_error(o, m, errno);
    return 0;
}

static mode_t current_umask(void)
{
    mode_t mask = umask(0);   /* no other thread runs yet */
    umask(mask);
    return mask;
}

/* Creates ".NAME.XXXXXX" beside `target`, with the mode (and owner) of the
 * existing file `old`, or 0666 & ~umask for a new file. Returns 0, or minus
 * the errno of the failure. */
static int open_temporary(OutputFile *o, const char *target, const struct stat *old)
{
    const char *slash = strrchr(target, '/');
    size_t dir = slash ? (size_t)(slash - target) + 1 : 0;
    const char *base = target + dir;
    size_t size = dir + strlen(base) + sizeof ".XXXXXX" + 1;
    char *name = cli_malloc(size);
    snprintf(name, size, "%.*s.%s.XXXXXX", (int)dir, target, base);

    install_cleanup_handlers();
    sigset_t saved;
    block_cleanup_signals(&saved);
    int fd = mkstemp(name);
    if (fd >= 0) pending_tmp_name = name;
    restore_signals(&saved);
    if (fd < 0) {
        int err = errno;
        free(name);
        return -err;
    }
    if (old) {
        if (fchown(fd, old->st_uid, old->st_gid) != 0) { /* not ours to give: keep cql's */ }
        fchmod(fd, old->st_mode & 07777);
    } else {
        fchmod(fd, 0666 & ~current_umask());
    }
    o->fd = fd;
    o->tmp_name = name;
    return 0;
}

int output_open(OutputFile *o, const char *name, const OutputInputs *input, bool noclobber, CqlMessages *m)
{
    memset(o, 0, sizeof *o);
    o->name = name;
    o->fd = -1;
    struct stat st;
    if (strcmp(name, "-") == 0) {
        if (fstat(STDOUT_FILENO, &st) == 0 && is_the_input(&st, input)) {
            cql_report(m, CQL_ERROR, "refusing to write the output over the input (standard "
                                      "output is the input file)");
            return -1;
        }
        if (fstat(STDOUT_FILENO, &st) == 0 && is_the_query(&st, input)) {
            cql_report(m, CQL_ERROR, "refusing to write the output over the query (standard "
                                      "output is the query file)");
            return -1;
        }
        o->fd = STDOUT_FILENO;
    } else if (stat(name, &st) != 0) {
        if (errno != ENOENT) return report_open_error(o, m, errno);
        struct stat link;
        bool dangling_link = lstat(name, &link) == 0 && S_ISLNK(link.st_mode);
        if (dangling_link) {
            if (open_in_place(o, NULL, m) != 0) return -1;
        } else {
            int err = open_temporary(o, name, NULL);
            if (err) return report_open_error(o, m, -err);
            o->final_name = cli_strdup(name);
        }
    } else if (is_the_input(&st, input)) {
        cql_report(m, CQL_ERROR, "refusing to write the output over the input file '%s'", name);
        return -1;
    } else if (is_the_query(&st, input)) {
        cql_report(m, CQL_ERROR, "refusing to write the output over the query file '%s'", name);
        return -1;
    } else if (S_ISDIR(st.st_mode)) {
        return report_open_error(o, m, EISDIR);
    } else if (noclobber && S_ISREG(st.st_mode)) {
        cql_report(m, CQL_ERROR, "the output file '%s' exists, and -noclobber keeps it", name);
        return -1;
    } else if (!S_ISREG(st.st_mode) || st.st_nlink > 1) {
        if (open_in_place(o, &st, m) != 0) return -1;
    } else {
        if (access(name, W_OK) != 0) return report_open_error(o, m, errno);
        /* through a symlink, the target is what gets replaced */
        char *target = realpath(name, NULL);
        if (!target) return report_open_error(o, m, errno);
        int err = open_temporary(o, target, &st);
        if (err == -EACCES || err == -EROFS) {
            free(target);   /* a directory we may not create in: write the file itself */
            if (open_in_place(o, &st, m) != 0) return -1;
        } else if (err) {
            free(target);
            return report_open_error(o, m, -err);
        } else {
            o->final_name = target;
        }
    }
    o->buffer = cli_malloc(OUTPUT_BUFFER);
    return 0;
}

/* ==== writing =============================================================== */

static bool write_all(OutputFile *o, const char *p, size_t n)
{
    while (n > 0 && !o->error) {
        ssize_t w = write(o->fd, p, n);
        if (w < 0) {
            if (errno != EINTR) o->error = errno;
            continue;
        }
        if (w == 0) o->error = EIO;
        p += w;
        n -= (size_t)w;
    }
    return !o->error;
}

static bool flush(OutputFile *o)
{
    bool ok = write_all(o, o->buffer, o->used);
    o->used = 0;
    return ok;
}

bool output_write(OutputFile *o, const void *data, size_t len)
{
    if (o->error) return false;
    if (o->used + len > OUTPUT_BUFFER) {
        if (!flush(o)) return false;
        if (len >= OUTPUT_BUFFER) return write_all(o, data, len);
    }
    memcpy(o->buffer + o->used, data, len);
    o->used += len;
    return true;
}

bool output_is_standard_output(const OutputFile *o)
{
    if (o->fd == STDOUT_FILENO) return true;
    struct stat a, b;
    return o->fd >= 0 && fstat(o->fd, &a) == 0 && fstat(STDOUT_FILENO, &b) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* ==== closing =============================================================== */

const char *output_display_name(const OutputFile *o)
{
    return strcmp(o->name, "-") == 0 ? "standard output" : o->name;
}

int output_close(OutputFile *o, bool ok, CqlMessages *m)
{
    if (o->fd < 0) return -1;
    flush(o);
    if (o->fd != STDOUT_FILENO && close(o->fd) != 0 && !o->error) o->error = errno;
    o->fd = -1;
    if (o->error) {
        cql_report(m, CQL_ERROR, "cannot write output file '%s': %s", output_display_name(o),
                   strerror(o->error));
        ok = false;
    }
    if (o->tmp_name) {
        sigset_t saved;
        block_cleanup_signals(&saved);
        if (ok && rename(o->tmp_name, o->final_name) != 0) {
            cql_report(m, CQL_ERROR, "cannot rename '%s' to '%s': %s", o->tmp_name,
                       o->final_name, strerror(errno));
            ok = false;
        }
        if (!ok) unlink(o->tmp_name);
        pending_tmp_name = NULL;
        restore_signals(&saved);
    }
    free(o->tmp_name);
    free(o->final_name);
    free(o->buffer);
    o->tmp_name = o->final_name = o->buffer = NULL;
    return ok ? 0 : -1;
}
