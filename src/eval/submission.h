/*
 * src/eval/submission.h — the positions of a PGN file of submitted games,
 * for `similarposition` (shared/spec/cql62-fidelity-2.md R24): which
 * positions of the database were already reached in the file.
 *
 * A file is read once, before the search (cql_query_read_files): every
 * position of the main line of every game, the initial one included, is
 * recorded with its board and side to move, its game number G in the file
 * and its move number M, and also under transforms: a position without pawns
 * under the 8 rotations and reflections of the board, one with pawns under
 * the identity, the 14 horizontal shifts, the a-h reflection and that
 * reflection followed by each shift (a transform that would move a piece off
 * the board is skipped, and an image equal to an earlier image of the same
 * position is not recorded again). The records of one board and side are
 * kept in the order recorded, found through a hash table in one look-up.
 *
 * Reading is bounded: the file must be a regular file holding text, and it
 * may give at most SUBMISSION_MAX_RECORDS records. Every error names the
 * file. A read file is read-only: any number of threads may look in it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef CQL_SUBMISSION_H
#define CQL_SUBMISSION_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "chess/position.h"
#include "query/ast.h"

/* The most records one file may give, transforms included: at most about
 * 70 bytes each with its board and hash slot, 140 MB (a position with pawns
 * gives up to 30 records, so some 800 games of 80 plies). */
#define SUBMISSION_MAX_RECORDS 2000000

/* One recorded position of the file: where it was reached, and by which
 * transform of it. */
typedef struct SubmissionRecord {
    int32_t game;          /* G: the game's number in the file, from 1 */
    int32_t move;          /* M: its move number, 1 at the game's start */
    uint32_t next;         /* 1 + the index of the next record of the same board, 0: none */
    uint8_t transform;     /* which transform (submission_transform_name) */
} SubmissionRecord;

typedef struct SubmissionFile SubmissionFile;

/* The files a query's `similarposition` filters read, each once. */
typedef struct Submissions {
    SubmissionFile **files;
    int count;
} Submissions;

/* True when q has a `similarposition` filter. */
bool submissions_needed(const Query *q);

/* Reads every file named by a `similarposition` of q into s (which starts
 * zeroed), each once, in the order written. For each it appends CQL 6.2's
 * line `Db: read N games from submission file: FILE` to printed. False
 * after reporting an error (a file that cannot be opened or read, is not a
 * regular file, holds binary data, has no game or a game with an error, or
 * gives more than SUBMISSION_MAX_RECORDS records). */
bool submissions_read(Submissions *s, const Query *q, StrBuf *printed, DiagSink *diag);
void submissions_free(Submissions *s);

/* The file read under the name `path`, or NULL. */
const SubmissionFile *submissions_find(const Submissions *s, const char *path);

/* The first record of pos's board and side to move, in the order recorded,
 * or NULL when the file has none; then the next one after r, or NULL. */
const SubmissionRecord *submission_first(const SubmissionFile *f, const Position *pos);
const SubmissionRecord *submission_next(const SubmissionFile *f, const SubmissionRecord *r);

/* The name of r's transform as `currenttransform` writes it ("" for the
 * identity), and whether it is the identity. */
const char *submission_transform_name(const SubmissionFile *f, const SubmissionRecord *r);
bool submission_is_identity(const SubmissionFile *f, const SubmissionRecord *r);

#endif
