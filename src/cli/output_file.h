/*
 * src/cli/output_file.h — where cql's matching games go (and the -matches
 * records and the -report page), written so that nothing the user owns is
 * ever destroyed.
 *
 * What the output name is decides how it is written:
 *   - "-" is standard output, written as it is;
 *   - a device, a FIFO, a socket or a pipe (/dev/null, /dev/stdout,
 *     `>(gzip > x.gz)`) is opened and written in place, never replaced;
 *   - a regular file (or a new name) is written to a temporary file in the
 *     same directory and renamed over the real name when the run succeeds,
 *     so that a crash or an interrupt never leaves a half-written file under
 *     it. The new file keeps the old one's mode (and owner where possible);
 *     a new file gets 0666 & ~umask. Through a symlink, the link stays and
 *     its target is replaced;
 *   - a file with several hard links (a rename would cut them), in a
 *     directory where cql may not create a file, or a dangling symlink's
 *     target is written to a temporary file (beside it, or in $TMPDIR) and
 *     copied into it when the run succeeds: until then it keeps its content.
 * An output that is the input or a query file (by any name: a link,
 * standard input) is refused. Every catchable signal that ends the process
 * (but a crash's) removes the temporary files of the outputs open before
 * the process dies of the signal. Writes are unbuffered by stdio: the first
 * failed write is remembered with its errno, and the caller stops the run.
 * A regular file may be written by a thread of its own (output_thread.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_OUTPUT_FILE_H
#define CQL_OUTPUT_FILE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "cli/output_thread.h"
#include "cql.h"

typedef struct OutputFile {
    const char *name;       /* as given ("-" = standard output) */
    int fd;
    char *tmp_name;         /* the temporary file renamed or copied at the end, or NULL (in place) */
    char *final_name;       /* what tmp_name is renamed to (a symlink's target), or NULL */
    bool copy_back;         /* tmp_name is copied into `name` at the end, not renamed */
    char *buffer;
    size_t used;
    struct iovec *kept;     /* texts of output_write_kept, written after the buffer */
    int nkept, kept_cap;    /* kept texts, and the room for them (the buffer's place besides) */
    size_t kept_bytes;
    OutputThread *thread;   /* the thread that writes it, or NULL: written here */
    atomic_int error;       /* errno of the first failed write, 0 while all is well */
} OutputFile;

/* The files a run reads ("-" = standard input), which the output may not be. */
typedef struct FileId {
    dev_t dev;
    ino_t ino;
} FileId;

typedef struct OutputInputs {
    FileId *inputs, *queries;     /* the regular files among them, sorted */
    size_t ninputs, nqueries;
} OutputInputs;

/* The inputs of a run (count names, "-" = standard input) and its query
 * files (nqueries, an entry may be NULL), each looked up once: a run of
 * thousands of queries over thousands of files opens each output without
 * a stat of every one of them. */
void output_inputs_make(OutputInputs *in, const char *const *names, int count, const char *const *queries,
                        int nqueries);
void output_inputs_free(OutputInputs *in);

/* Opens the output `name` for a run reading `inputs` (NULL when the input
 * is not a file). With noclobber an existing regular file is refused.
 * Returns 0, or -1 after reporting. */
int output_open(OutputFile *o, const char *name, const OutputInputs *inputs, bool noclobber, CqlMessages *m);

/* Appends bytes to the output. False once a write has failed (o->error). */
bool output_write(OutputFile *o, const void *data, size_t len);
/* Appends bytes that stay where they are until output_release: a batch of
 * them is written with one system call and no copy (writev), or copied
 * into the buffer when it is small. False once a write has failed. */
bool output_write_kept(OutputFile *o, const void *data, size_t len);
/* The end of a batch of bytes of output_write_kept. With an output thread
 * and `held` (the bytes stay until the thread has written them: a held
 * batch of the run, whose release the caller queues after), they are
 * queued as they are; else they are written (after what the thread was
 * given) or copied, and may go. */
bool output_release(OutputFile *o, bool held);

/* True when the output is a regular file (or a temporary file for one). */
bool output_is_regular_file(const OutputFile *o);
/* From now on the output is written by thread t. Its failed writes are
 * then seen a little later: a write after one returns false. */
void output_use_thread(OutputFile *o, OutputThread *t);
/* What is buffered goes to the output thread, and the output is written
 * here again; call before the thread stops. */
void output_leave_thread(OutputFile *o);
/* True when the output thread would write the kept bytes as they are,
 * were they held (output_release). */
bool output_would_hold(const OutputFile *o);

/* Flushes and closes the output. When ok, a temporary file is renamed into
 * place; otherwise it is removed and the old file stays as it was. Reports
 * a failed write (naming the file and the error). Returns 0 when the output
 * is complete, -1 otherwise. */
int output_close(OutputFile *o, bool ok, CqlMessages *m);

/* Where an output named `name` (not "-") would write, as far as telling
 * two outputs apart needs: the regular file there by any name (its device
 * and inode), the place of a file not made yet (its directory's device and
 * inode, and its last name), else the name alone (a device, a pipe, a
 * directory that cannot be looked at). Found once per name: a run of
 * thousands of queries compares them without a stat for each pair. */
typedef struct OutputPlace {
    enum { PLACE_FILE, PLACE_NEW, PLACE_NAME } kind;
    FileId id;               /* PLACE_FILE: the file's; PLACE_NEW: its directory's */
    char *name;              /* PLACE_NEW: its last name; PLACE_NAME: the name (owned) */
} OutputPlace;

void output_place_of(const char *name, OutputPlace *p);
void output_place_free(OutputPlace *p);
/* An order of places: 0 when the two outputs may be the same file, which
 * a run refuses to write both. */
int output_place_compare(const OutputPlace *a, const OutputPlace *b);

/* True when the games go to standard output ("-", /dev/stdout, or a name
 * for the same file or pipe): the summary and notes then go to stderr. */
bool output_is_standard_output(const OutputFile *o);

/* "standard output" or the file name, for messages. */
const char *output_display_name(const OutputFile *o);

#endif
