/*
 * src/cli/output_file.c — the output file: written in place or through a
 * temporary file renamed or copied into place at the end, never over the
 * input, never destroying what the name already is (a device, a FIFO, a
 * symlink, a file's other hard links). See output_file.h.
 *
 * The temporary files (one per output: the PGN file, -matches, -report)
 * are the only files cql creates; the signal handler that removes them when
 * the run is interrupted is installed here, together with them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _XOPEN_SOURCE 700   /* realpath */
#include "cli/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cli/memory.h"

/* The output is written in blocks of this size: small enough to stay in a
 * core's cache between the copy into it and the kernel's copy out of it
 * (with 1 MB, the main thread took about one point more of the run's CPU
 * time, `check` on 2 threads, the matches copied into the buffer). With an
 * output thread, the blocks of its pool. */
enum { OUTPUT_BUFFER = OUTPUT_BLOCK };

/* The outputs' buffers held at a time, all outputs together: a run of
 * many queries has an output for each (2,000 queries whose outputs held
 * about 190 KB of matches each kept 333 MB, most of it matches waiting in
 * their buffers). Past BUFFERS_HELD_MAX, an output's bytes go once they
 * fill BUFFER_PAST_BUDGET (keep_to_budget): in smaller writes, with less
 * waiting in memory. Every output is written from the one thread that
 * hands the games over. */
enum { BUFFERS_HELD_MAX = 64,     /* 16 MB of buffers */
       BUFFER_PAST_BUDGET = 16 * 1024 };   /* what an output's buffer holds at most past them */
static int buffers_held;

/* Kept texts (output_write_kept) fewer bytes than this are copied into the
 * buffer rather than written apart: a batch of one game on one thread.
 * More, in a batch not held for the output thread, are written on the
 * calling thread once the output thread has written what it was given. */
enum { KEPT_WRITE_BYTES = 16 * 1024 };

/* At most this many texts kept at a time (output_write_vector writes them
 * IOV_MAX at a time); at that, those kept so far are written or copied
 * (output_release) before the next is kept. */
enum { KEPT_MAX = 1023 };

/* ==== removing the temporary file when a signal ends the run ================ */

/* The temporary files of the outputs open (a run of several queries has
 * one each), read by the signal handler; changed only with the cleanup
 * signals blocked. */
static char **pending_tmp_names;
static size_t pending_count, pending_cap;
/* Every signal whose default action ends the process and that a handler
 * may catch, but those of a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL: the
 * sanitizers report them) and SIGKILL and SIGSTOP, which no handler sees:
 * interrupts and hang-ups, SIGQUIT, the user signals, timers, CPU and file
 * size limits, a closed pipe on standard error, abort() (a failed assert,
 * memory exhausted). */
static const int cleanup_signals[] = {SIGINT,  SIGTERM,   SIGHUP,  SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
                                      SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGPIPE, SIGABRT};
enum { NCLEANUP = sizeof cleanup_signals / sizeof cleanup_signals[0] };

/* Removes the temporary files, then dies of the signal with its default
 * action, so that the shell sees 128+signal and a script loop stops. */
static void remove_pending_and_die(int sig)
{
    for (size_t i = 0; i < pending_count; i++)
        if (pending_tmp_names[i]) unlink(pending_tmp_names[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Adds or removes a temporary file of the pending ones (signals blocked). */
static void add_pending(char *name)
{
    if (pending_count == pending_cap) {
        size_t cap = pending_cap ? 2 * pending_cap : 4;
        char **grown = cli_calloc(cap, sizeof *grown);
        for (size_t i = 0; i < pending_count; i++) grown[i] = pending_tmp_names[i];
        char **old = pending_tmp_names;
        pending_tmp_names = grown;
        pending_cap = cap;
        free(old);
    }
    pending_tmp_names[pending_count] = name;
    pending_count++;
}

static void remove_pending(const char *name)
{
    for (size_t i = 0; i < pending_count; i++)
        if (pending_tmp_names[i] == name) {
            pending_tmp_names[i] = pending_tmp_names[pending_count - 1];
            pending_count--;
            return;
        }
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

/* An order of files by device, then inode. */
static int compare_ids(const FileId *a, const FileId *b)
{
    if (a->dev != b->dev) return a->dev < b->dev ? -1 : 1;
    return (a->ino > b->ino) - (a->ino < b->ino);
}

static int by_file_id(const void *x, const void *y)
{
    return compare_ids(x, y);
}

/* The regular files among the count names ("-": standard input; NULL
 * entries passed over) into *ids, sorted; their number. */
static size_t identify(const char *const *names, int count, FileId **ids)
{
    size_t n = 0;
    *ids = cli_calloc((size_t)count + 1, sizeof **ids);
    for (int i = 0; i < count; i++) {
        struct stat st;
        if (!names[i]) continue;
        int got = strcmp(names[i], "-") == 0 ? fstat(STDIN_FILENO, &st) : stat(names[i], &st);
        if (got == 0 && S_ISREG(st.st_mode)) (*ids)[n++] = (FileId){st.st_dev, st.st_ino};
    }
    qsort(*ids, n, sizeof **ids, by_file_id);
    return n;
}

void output_inputs_make(OutputInputs *in, const char *const *names, int count, const char *const *queries,
                        int nqueries)
{
    in->ninputs = identify(names, count, &in->inputs);
    in->nqueries = identify(queries, nqueries, &in->queries);
}

void output_inputs_free(OutputInputs *in)
{
    free(in->inputs);
    free(in->queries);
    memset(in, 0, sizeof *in);
}

/* True when st is a regular file among the n sorted ids. */
static bool is_among(const struct stat *st, const FileId *ids, size_t n)
{
    FileId key = {st->st_dev, st->st_ino};
    return S_ISREG(st->st_mode) && n && bsearch(&key, ids, n, sizeof key, by_file_id) != NULL;
}

/* True when one of the inputs is the same regular file as st. */
static bool is_the_input(const struct stat *st, const OutputInputs *inputs)
{
    return inputs && is_among(st, inputs->inputs, inputs->ninputs);
}

/* True when a query file of the run is the same regular file as st. */
static bool is_the_query(const struct stat *st, const OutputInputs *inputs)
{
    return inputs && is_among(st, inputs->queries, inputs->nqueries);
}

static int report_open_error(OutputFile *o, CqlMessages *m, int err)
{
    cql_report(m, CQL_ERROR, "cannot write output file '%s': %s", o->name, strerror(err));
    return -1;
}

/* Writes in place: devices, FIFOs, sockets: never created, never truncated. */
static int open_in_place(OutputFile *o, CqlMessages *m)
{
    o->fd = open(o->name, O_WRONLY);
    if (o->fd < 0) return report_open_error(o, m, errno);
    return 0;
}

static mode_t current_umask(void)
{
    mode_t mask = umask(0);   /* no other thread runs yet */
    umask(mask);
    return mask;
}

/* "DIR/.BASE.XXXXXX", the base cut so that the name stays within NAME_MAX
 * (an output name of 248 to 255 bytes failed). */
static char *temporary_name(const char *dir, size_t dir_len, const char *base)
{
    size_t base_len = strlen(base);
    if (base_len > NAME_MAX - sizeof "..XXXXXX" + 1) base_len = NAME_MAX - sizeof "..XXXXXX" + 1;
    size_t size = dir_len + base_len + sizeof "/..XXXXXX";
    char *name = cli_malloc(size);
    snprintf(name, size, "%.*s%s.%.*s.XXXXXX", (int)dir_len, dir,
             dir_len && dir[dir_len - 1] != '/' ? "/" : "", (int)base_len, base);
    return name;
}

/* Creates the temporary file `name` (its XXXXXX replaced) with the mode
 * (and owner) of the existing file `old`, or 0666 & ~umask for a new file.
 * Returns 0, or minus the errno of the failure (name is then freed). */
static int create_temporary(OutputFile *o, char *name, const struct stat *old)
{
    install_cleanup_handlers();
    sigset_t saved;
    block_cleanup_signals(&saved);
    int fd = mkstemp(name);
    if (fd >= 0) add_pending(name);
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

/* The temporary file beside `target`, renamed over it at the end. */
static int open_beside(OutputFile *o, const char *target, const struct stat *old)
{
    const char *slash = strrchr(target, '/');
    size_t dir = slash ? (size_t)(slash - target) + 1 : 0;
    return create_temporary(o, temporary_name(target, dir, target + dir), old);
}

/* The temporary file copied into `o->name` at the end (copy_into_place),
 * in $TMPDIR (or /tmp): for a file in a directory where cql may not create
 * one. */
static int open_in_tmpdir(OutputFile *o, const char *target, CqlMessages *m)
{
    o->copy_back = true;
    const char *tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir) tmpdir = "/tmp";
    const char *slash = strrchr(target, '/');
    int err = create_temporary(o, temporary_name(tmpdir, strlen(tmpdir), slash ? slash + 1 : target), NULL);
    if (!err) return 0;
    cql_report(m, CQL_ERROR, "cannot write output file '%s': cql may not create a file beside it for the "
               "output to be copied into it at the end, nor in '%s' (%s)", o->name, tmpdir, strerror(-err));
    return -1;
}

/* May a failure to create a file in a directory be its permissions? */
static bool may_not_create(int err)
{
    return err == -EACCES || err == -EPERM || err == -EROFS;
}

/* The temporary file copied into `o->name` at the end, for an output that
 * a rename would not keep (a file with several hard links, a dangling
 * symlink's target): beside `target` (whose directory shares its disk), or
 * in $TMPDIR when cql may not create a file there. */
static int open_for_copy(OutputFile *o, const char *target, CqlMessages *m)
{
    o->copy_back = true;
    int err = open_beside(o, target, NULL);
    if (may_not_create(err)) return open_in_tmpdir(o, target, m);
    return err ? report_open_error(o, m, -err) : 0;
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
            if (open_for_copy(o, name, m) != 0) return -1;   /* created through the link */
        } else {
            int err = open_beside(o, name, NULL);
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
    } else if (!S_ISREG(st.st_mode)) {
        if (open_in_place(o, m) != 0) return -1;
    } else if (access(name, W_OK) != 0) {
        return report_open_error(o, m, errno);
    } else {
        /* through a symlink, the target is what gets replaced */
        char *target = realpath(name, NULL);
        if (!target) return report_open_error(o, m, errno);
        int err;
        if (st.st_nlink > 1) {   /* a rename would cut the other names: copied at the end */
            err = open_for_copy(o, target, m);
        } else if (may_not_create(err = open_beside(o, target, &st))) {
            err = open_in_tmpdir(o, target, m);   /* a directory cql may not create in */
        } else if (err) {
            err = report_open_error(o, m, -err);
        }
        if (err || o->copy_back) free(target);
        else o->final_name = target;
        if (err) return -1;
    }
    return 0;
}

void output_place_of(const char *name, OutputPlace *p)
{
    struct stat st;
    memset(p, 0, sizeof *p);
    if (stat(name, &st) == 0) {
        if (S_ISREG(st.st_mode)) {
            p->kind = PLACE_FILE;
            p->id = (FileId){st.st_dev, st.st_ino};
        } else {
            p->kind = PLACE_NAME;
            p->name = cli_strdup(name);
        }
        return;
    }
    /* not made yet: its directory and last name ("d/x" -> "d/", "/x" -> "/") */
    const char *base = strrchr(name, '/');
    char *dir = base ? cli_strdup(name) : NULL;
    if (dir) dir[base - name + 1] = '\0';
    if (stat(dir ? dir : ".", &st) == 0) {
        p->kind = PLACE_NEW;
        p->id = (FileId){st.st_dev, st.st_ino};
        p->name = cli_strdup(base ? base + 1 : name);
    } else {
        p->kind = PLACE_NAME;
        p->name = cli_strdup(name);
    }
    free(dir);
}

void output_place_free(OutputPlace *p)
{
    free(p->name);
    p->name = NULL;
}

int output_place_compare(const OutputPlace *a, const OutputPlace *b)
{
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    int order = compare_ids(&a->id, &b->id);
    return order || a->kind == PLACE_FILE ? order : strcmp(a->name, b->name);
}

/* ==== writing =============================================================== */

static bool write_all(OutputFile *o, const char *p, size_t n)
{
    struct iovec v = {(void *)(uintptr_t)p, n};
    int err = o->error ? 0 : output_write_vector(o->fd, &v, 1);
    if (err) o->error = err;
    return !o->error;
}

/* Room in o->kept for the buffer and `need` kept texts: grown as needed up
 * to KEPT_MAX, since a run of many queries has an output each (room for
 * KEPT_MAX from the first was 16 KB an output). */
static void kept_room(OutputFile *o, int need)
{
    if (o->kept && need <= o->kept_cap) return;
    int cap = o->kept_cap ? 2 * o->kept_cap : 8;
    while (cap < need) cap *= 2;
    if (cap > KEPT_MAX) cap = KEPT_MAX;
    o->kept = cli_realloc(o->kept, (size_t)(cap + 1) * sizeof *o->kept);   /* + 1: the buffer */
    o->kept_cap = cap;
}

/* Writes the buffer, then the kept texts, with as few system calls as the
 * kernel takes them in. kept[0] is left free for the buffer. */
static bool write_gathered(OutputFile *o)
{
    struct iovec *v = o->kept + 1;
    int n = o->nkept;
    if (o->used) {
        *--v = (struct iovec){o->buffer, o->used};
        n++;
    }
    int err = o->error ? 0 : output_write_vector(o->fd, v, n);
    if (err) o->error = err;
    o->used = 0;
    o->nkept = 0;
    o->kept_bytes = 0;
    return !o->error;
}

/* Queues the buffer's bytes, then the kept texts, on the output thread;
 * the buffer goes with them (the next copy takes another block). */
static void hand_over(OutputFile *o, bool wake)
{
    kept_room(o, 0);
    struct iovec *v = o->kept + 1;
    int n = o->nkept;
    char *block = NULL;
    if (o->used) {
        *--v = (struct iovec){o->buffer, o->used};
        n++;
        block = o->buffer;
        o->buffer = NULL;
        buffers_held--;
    }
    if (n) output_thread_write(o->thread, o->fd, &o->error, v, n, block, wake);
    o->used = 0;
    o->nkept = 0;
    o->kept_bytes = 0;
}

static bool flush(OutputFile *o)
{
    if (o->nkept) return write_gathered(o);
    if (!o->buffer) return !o->error;
    bool ok = write_all(o, o->buffer, o->used);
    o->used = 0;
    return ok;
}

/* Gives the output a buffer when it has none (counted in buffers_held). */
static void take_buffer(OutputFile *o)
{
    if (o->buffer) return;
    o->buffer = o->thread ? output_thread_block(o->thread) : cli_malloc(OUTPUT_BUFFER);
    buffers_held++;
}

/* Frees the output's buffer (given to the output thread instead by
 * hand_over). */
static void drop_buffer(OutputFile *o)
{
    if (!o->buffer) return;
    free(o->buffer);
    o->buffer = NULL;
    buffers_held--;
}

/* Past the outputs' budget of buffers, this one's bytes go once they fill
 * BUFFER_PAST_BUDGET: to the output thread with the buffer (a block its
 * pool gives the next output), or written from the buffer, which is kept
 * (only the pages its writes touch are in memory; freeing it would map and
 * unmap it again and again). Each write going at once made 240,000 writes
 * and 400,000 wake-ups of the output thread for 2,000 queries. */
static bool keep_to_budget(OutputFile *o)
{
    if (buffers_held <= BUFFERS_HELD_MAX || !o->buffer || o->used < BUFFER_PAST_BUDGET) return !o->error;
    if (o->thread) {
        hand_over(o, true);
        return !o->error;
    }
    return flush(o);
}

bool output_is_regular_file(const OutputFile *o)
{
    struct stat st;
    return o->fd >= 0 && fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode);
}

void output_use_thread(OutputFile *o, OutputThread *t)
{
    o->thread = t;
}

void output_leave_thread(OutputFile *o)
{
    if (!o->thread) return;
    if (o->nkept) output_release(o, false);
    hand_over(o, true);
    o->thread = NULL;
}

bool output_would_hold(const OutputFile *o)
{
    return o->thread && o->nkept > 0;
}

bool output_write_kept(OutputFile *o, const void *data, size_t len)
{
    if (o->error) return false;
    if (o->nkept == KEPT_MAX && !output_release(o, false)) return false;
    kept_room(o, o->nkept + 1);
    o->kept[1 + o->nkept++] = (struct iovec){(void *)(uintptr_t)data, len};
    o->kept_bytes += len;
    return true;
}

bool output_release(OutputFile *o, bool held)
{
    if (o->error) o->nkept = 0;   /* never written: the texts may go */
    if (o->nkept == 0) return !o->error;
    if (o->thread && held) {
        hand_over(o, false);   /* woken by the release queued after */
        return true;
    }
    if (o->kept_bytes >= KEPT_WRITE_BYTES) {   /* not copied: written here, after what the thread was given */
        if (o->thread) output_thread_wait(o->thread);
        return write_gathered(o);
    }
    int n = o->nkept;
    o->nkept = 0;
    o->kept_bytes = 0;
    for (int i = 1; i <= n; i++)
        if (!output_write(o, o->kept[i].iov_base, o->kept[i].iov_len)) return false;
    return true;
}

bool output_write(OutputFile *o, const void *data, size_t len)
{
    if (o->nkept && !output_release(o, false)) return false;   /* they go first */
    if (o->error) return false;
    if (o->used + len > OUTPUT_BUFFER && !o->thread) {
        if (!flush(o)) return false;
        if (len >= OUTPUT_BUFFER) return write_all(o, data, len);
    }
    const char *p = data;
    for (;;) {
        /* taken at the first match (many queries match little), or after a hand-over */
        take_buffer(o);
        size_t part = len < OUTPUT_BUFFER - o->used ? len : OUTPUT_BUFFER - o->used;
        memcpy(o->buffer + o->used, p, part);
        o->used += part;
        if (part == len) return keep_to_budget(o);
        p += part;   /* a full block goes to the output thread */
        len -= part;
        hand_over(o, true);
    }
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

/* Copies the complete temporary file into the output file, which keeps
 * its inode (and so its other names), owner and mode. The old content stays
 * until the new one is known to fit: the file is first made long enough
 * (posix_fallocate), and cut back to its old length when it cannot be.
 * Called with the cleanup signals blocked, so that an interrupt waits for
 * the copy. Returns 0, or -1 after reporting; *damaged when the copy failed
 * half-way (the temporary file, which holds the whole output, then stays,
 * and the message names it). */
static int copy_into_place(OutputFile *o, CqlMessages *m, bool *damaged)
{
    take_buffer(o);
    int out = open(o->name, O_WRONLY | O_CREAT, 0666);   /* through a dangling link: created */
    int in = open(o->tmp_name, O_RDONLY);
    struct stat old, new;
    int err = 0;
    if (out < 0 || in < 0 || fstat(out, &old) != 0 || fstat(in, &new) != 0) err = errno;
    if (!err && new.st_size > old.st_size) {
        err = posix_fallocate(out, old.st_size, new.st_size - old.st_size);
        if (err && ftruncate(out, old.st_size) != 0) { /* keeps what the failure left */ }
    }
    for (off_t done = 0; !err && done < new.st_size;) {
        ssize_t got = pread(in, o->buffer, OUTPUT_BUFFER, done);
        if (got <= 0) err = got < 0 ? errno : EIO;
        for (ssize_t put = 0; !err && put < got;) {
            ssize_t w = pwrite(out, o->buffer + put, (size_t)(got - put), done + put);
            if (w > 0) put += w;
            else if (w == 0 || errno != EINTR) err = w ? errno : EIO;
            *damaged = true;   /* until the copy is whole */
        }
        done += got;
    }
    if (!err && ftruncate(out, new.st_size) != 0) err = errno;
    if (out >= 0 && close(out) != 0 && !err) err = errno;
    if (in >= 0) close(in);
    if (!err) {
        *damaged = false;
        return 0;
    }
    if (*damaged)
        cql_report(m, CQL_ERROR, "cannot write output file '%s': %s; it is damaged, and the whole output "
                   "is in '%s'", o->name, strerror(err), o->tmp_name);
    else
        cql_report(m, CQL_ERROR, "cannot write output file '%s': %s; it is as it was", o->name, strerror(err));
    return -1;
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
        bool keep_tmp = false;   /* the output file was damaged: the whole output is there */
        if (ok && o->copy_back) {
            if (copy_into_place(o, m, &keep_tmp) != 0) ok = false;
        } else if (ok && rename(o->tmp_name, o->final_name) != 0) {
            cql_report(m, CQL_ERROR, "cannot rename '%s' to '%s': %s", o->tmp_name,
                       o->final_name, strerror(errno));
            ok = false;
        }
        if ((!ok || o->copy_back) && !keep_tmp) unlink(o->tmp_name);
        remove_pending(o->tmp_name);
        restore_signals(&saved);
    }
    free(o->tmp_name);
    free(o->final_name);
    drop_buffer(o);
    free(o->kept);
    o->kept = NULL;
    o->kept_cap = 0;
    o->tmp_name = o->final_name = NULL;
    return ok ? 0 : -1;
}
