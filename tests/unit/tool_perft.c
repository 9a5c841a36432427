/*
 * tests/unit/tool_perft.c — perft runner and chess-core benchmarks (no cmocka).
 *
 *   tool_perft [--max-nodes N] [--jobs J] FILE...   check every count in the files
 *   tool_perft --divide DEPTH FEN                   perft per root move
 *   tool_perft --bench                              nodes/s and SAN replay moves/s
 *   tool_perft --bench-san                          SAN replay moves/s only
 *
 * FILEs are Ethereal-style EPD ("FEN ;D1 20 ;D2 400 ;id ...") or python-chess
 * .perft files ("id", "epd", "perft DEPTH COUNT" lines). Counts above
 * --max-nodes are not run. A position whose FEN is refused is reported as
 * skipped with the reason. Prints one line per mismatch, then
 * "perft: P positions, C counts, M mismatches, S skipped" and the total
 * number of nodes as a signature; exits 1 on any mismatch.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chess/attacks.h"
#include "chess/movegen.h"
#include "chess/position.h"
#include "chess/san.h"

#define MAX_DEPTHS 10
#define MAX_CASES 4096

typedef struct PerftCase {
    char name[96];             /* "file:line" plus the id when there is one */
    char fen[128];
    int depth_count;
    int depths[MAX_DEPTHS];
    uint64_t expected[MAX_DEPTHS];
    uint64_t got[MAX_DEPTHS];
    bool run[MAX_DEPTHS];
    bool skipped;
    FenError error;
} PerftCase;

typedef struct Suite {
    PerftCase *cases;
    int count;
    uint64_t max_nodes;
    int next;                  /* next case to run; guarded by lock */
    pthread_mutex_t lock;
} Suite;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static PerftCase *new_case(Suite *suite, const char *path, int line)
{
    if (suite->count == MAX_CASES) {
        fprintf(stderr, "tool_perft: more than %d positions\n", MAX_CASES);
        exit(2);
    }
    PerftCase *c = &suite->cases[suite->count++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s:%d", path, line);
    return c;
}

static void add_count(PerftCase *c, int depth, uint64_t count)
{
    if (c->depth_count == MAX_DEPTHS) return;
    c->depths[c->depth_count] = depth;
    c->expected[c->depth_count] = count;
    c->depth_count++;
}

static void trim_line(char *line)
{
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ')) line[--n] = '\0';
}

/* "FEN ;D1 20 ;D2 400 ;id "name"" */
static void read_epd_line(Suite *suite, const char *path, int line_no, char *line)
{
    char *semi = strchr(line, ';');
    if (!semi) return;
    PerftCase *c = new_case(suite, path, line_no);
    *semi = '\0';
    snprintf(c->fen, sizeof c->fen, "%.127s", line);
    for (char *field = semi + 1; field; ) {
        char *next = strchr(field, ';');
        if (next) *next++ = '\0';
        while (*field == ' ') field++;
        int depth;
        uint64_t count;
        if (sscanf(field, "D%d %" SCNu64, &depth, &count) == 2) add_count(c, depth, count);
        else if (strncmp(field, "id ", 3) == 0)
            snprintf(c->name + strlen(c->name), sizeof c->name - strlen(c->name), " %s", field + 3);
        field = next;
    }
}

static void read_file(Suite *suite, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "tool_perft: cannot open %s\n", path);
        exit(2);
    }
    bool perft_format = strstr(path, ".perft") != NULL;
    char line[1024], id[64] = "";
    PerftCase *current = NULL;
    for (int line_no = 1; fgets(line, sizeof line, f); line_no++) {
        trim_line(line);
        if (!line[0] || line[0] == '#') continue;
        if (!perft_format) {
            read_epd_line(suite, path, line_no, line);
        } else if (strncmp(line, "id ", 3) == 0) {
            snprintf(id, sizeof id, "%.63s", line + 3);
        } else if (strncmp(line, "epd ", 4) == 0) {
            current = new_case(suite, path, line_no);
            snprintf(current->fen, sizeof current->fen, "%.127s", line + 4);
            snprintf(current->name + strlen(current->name),
                     sizeof current->name - strlen(current->name), " %s", id);
        } else if (strncmp(line, "perft ", 6) == 0 && current) {
            int depth;
            uint64_t count;
            if (sscanf(line + 6, "%d %" SCNu64, &depth, &count) == 2) add_count(current, depth, count);
        }
    }
    fclose(f);
}

static void run_case(PerftCase *c, uint64_t max_nodes)
{
    Position pos;
    if (pos_from_fen(&pos, c->fen, &c->error) != 0) {
        c->skipped = true;
        return;
    }
    for (int i = 0; i < c->depth_count; i++) {
        if (c->expected[i] > max_nodes) continue;
        c->got[i] = mg_perft(&pos, c->depths[i]);
        c->run[i] = true;
    }
}

static void *worker(void *arg)
{
    Suite *suite = arg;
    for (;;) {
        pthread_mutex_lock(&suite->lock);
        int i = suite->next++;
        pthread_mutex_unlock(&suite->lock);
        if (i >= suite->count) return NULL;
        run_case(&suite->cases[i], suite->max_nodes);
    }
}

static int run_suite(Suite *suite, int jobs)
{
    double start = now_seconds();
    pthread_t threads[64];
    if (jobs < 1) jobs = 1;
    if (jobs > 64) jobs = 64;
    pthread_mutex_init(&suite->lock, NULL);
    for (int t = 0; t < jobs; t++) pthread_create(&threads[t], NULL, worker, suite);
    for (int t = 0; t < jobs; t++) pthread_join(threads[t], NULL);
    pthread_mutex_destroy(&suite->lock);

    int counts = 0, mismatches = 0, skipped = 0;
    uint64_t nodes = 0;
    for (int i = 0; i < suite->count; i++) {
        PerftCase *c = &suite->cases[i];
        if (c->skipped) {
            skipped++;
            printf("skipped %s: %s: field %d column %d: %s\n", c->name, c->fen, c->error.field,
                   c->error.column, c->error.message);
            continue;
        }
        for (int d = 0; d < c->depth_count; d++) {
            if (!c->run[d]) continue;
            counts++;
            nodes += c->got[d];
            if (c->got[d] != c->expected[d]) {
                mismatches++;
                printf("MISMATCH %s: %s: depth %d: expected %" PRIu64 ", got %" PRIu64 "\n",
                       c->name, c->fen, c->depths[d], c->expected[d], c->got[d]);
            }
        }
    }
    double seconds = now_seconds() - start;
    printf("perft: %d positions, %d counts, %d mismatches, %d skipped\n", suite->count, counts,
           mismatches, skipped);
    printf("perft signature: %" PRIu64 " nodes in %.1f s (%.1f Mnodes/s)\n", nodes, seconds,
           seconds > 0 ? (double)nodes / seconds / 1e6 : 0.0);
    return mismatches ? 1 : 0;
}

static int divide(int depth, const char *fen)
{
    Position pos;
    FenError err;
    if (pos_from_fen(&pos, fen, &err) != 0) {
        fprintf(stderr, "tool_perft: field %d column %d: %s\n", err.field, err.column, err.message);
        return 2;
    }
    MoveList list;
    mg_legal(&pos, &list);
    uint64_t total = 0;
    for (int i = 0; i < list.count; i++) {
        Position child = pos;
        char uci[8];
        pos_make_move(&child, list.moves[i]);
        uint64_t n = depth > 1 ? mg_perft(&child, depth - 1) : 1;
        san_move_uci(list.moves[i], uci);
        printf("%s: %" PRIu64 "\n", uci, n);
        total += n;
    }
    printf("total: %" PRIu64 "\n", total);
    return 0;
}

/* ====================================================================
 * Benchmarks
 * ==================================================================== */

static uint64_t bench_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static void bench_perft(const char *name, const char *fen, int depth)
{
    Position pos;
    int ok = pos_from_fen(&pos, fen, NULL);
    if (ok != 0) abort();
    double start = now_seconds();
    uint64_t nodes = mg_perft(&pos, depth);
    double seconds = now_seconds() - start;
    printf("perft %-10s depth %d: %" PRIu64 " nodes in %.2f s = %.1f Mnodes/s\n", name, depth,
           nodes, seconds, (double)nodes / seconds / 1e6);
}

/* Random games from the start position, written as SAN, are replayed with
 * san_parse + pos_make_move, the PGN reader's inner loop. */
static void bench_san(void)
{
    enum { GAMES = 4000, MAX_PLIES = 160, ROUNDS = 20 };
    typedef struct { char san[SAN_MAX]; } SanText;
    SanText *moves = malloc(sizeof(SanText) * GAMES * MAX_PLIES);
    int *plies = malloc(sizeof(int) * GAMES);
    if (!moves || !plies) abort();
    uint64_t seed = 0x2545F4914F6CDD1DULL;
    long total = 0;
    for (int g = 0; g < GAMES; g++) {
        Position pos;
        pos_start(&pos);
        int n = 0;
        for (; n < MAX_PLIES; n++) {
            MoveList list;
            mg_legal(&pos, &list);
            if (list.count == 0) break;
            Move m = list.moves[bench_random(&seed) % (uint64_t)list.count];
            san_write(&pos, m, moves[g * MAX_PLIES + n].san);
            pos_make_move(&pos, m);
        }
        plies[g] = n;
        total += n;
    }
    Position start_pos;
    pos_start(&start_pos);
    double best = 1e9;
    for (int round = 0; round < ROUNDS; round++) {
        double start = now_seconds();
        for (int g = 0; g < GAMES; g++) {
            Position pos = start_pos;
            for (int i = 0; i < plies[g]; i++) {
                const char *text = moves[g * MAX_PLIES + i].san;
                Move m;
                if (san_parse(&pos, text, strlen(text), &m) != SAN_OK) {
                    fprintf(stderr, "bench: cannot replay %s\n", text);
                    abort();
                }
                pos_make_move(&pos, m);
            }
        }
        double seconds = now_seconds() - start;
        if (seconds < best) best = seconds;
    }
    printf("SAN replay (san_parse + pos_make_move): %ld moves in %.3f s = %.1f Mmoves/s\n", total,
           best, (double)total / best / 1e6);
    free(moves);
    free(plies);
}

int main(int argc, char **argv)
{
    att_init();
    if (argc == 2 && strcmp(argv[1], "--bench") == 0) {
        bench_perft("start", POS_START_FEN, 6);
        bench_perft("kiwipete",
                    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5);
        bench_san();
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--bench-san") == 0) {
        bench_san();
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "--divide") == 0) return divide(atoi(argv[2]), argv[3]);

    static Suite suite;
    suite.max_nodes = UINT64_MAX;
    int jobs = 1, first_file = 1;
    for (; first_file + 1 < argc && argv[first_file][0] == '-'; first_file += 2) {
        if (strcmp(argv[first_file], "--max-nodes") == 0)
            suite.max_nodes = strtoull(argv[first_file + 1], NULL, 10);
        else if (strcmp(argv[first_file], "--jobs") == 0)
            jobs = atoi(argv[first_file + 1]);
        else
            break;
    }
    if (first_file >= argc) {
        fprintf(stderr, "usage: tool_perft [--max-nodes N] [--jobs J] FILE...\n"
                        "       tool_perft --divide DEPTH FEN\n"
                        "       tool_perft --bench\n");
        return 2;
    }
    suite.cases = calloc(MAX_CASES, sizeof(PerftCase));
    if (!suite.cases) abort();
    for (int i = first_file; i < argc; i++) read_file(&suite, argv[i]);
    int status = run_suite(&suite, jobs);
    free(suite.cases);
    return status;
}
