/*
 * shard_topk_main.c - sketchmm_shard_topk: top-k over a database sharded
 * across the ranks of MPI_COMM_WORLD (sketchmm/shard_topk.h), each rank
 * reading only its block of the file; recall against the exact sharded
 * search, seconds and per-rank phase times to HDF5 (shard_results.h).
 * `sketchmm_shard_topk --help` for the options.
 *
 * Every step that can fail on one rank (a file, memory, a call) ends with
 * an agreement: the lowest failing rank's status and message reach every
 * rank, rank 0 prints them, and every rank stops with the same exit status.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "shard_cli.h"
#include "shard_results.h"
#include "sketchmm/shard_topk.h"

#define MSG_SIZE 1024

/*
 * Agreement of the program's steps: on every rank, the status of the lowest
 * rank whose status is not SMM_OK, and that rank's message in msg (sent
 * from it); rank 0 prints "what: rank r: message". SMM_OK when every rank
 * succeeded.
 */
static smm_status agree(const char *what, smm_status mine, char msg[MSG_SIZE])
{
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int key[2] = { mine == SMM_OK ? ranks : rank, (int)mine }, least[2];
    MPI_Allreduce(key, least, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
    if (least[0] == ranks)
        return SMM_OK;
    const int who = least[0];
    MPI_Bcast(msg, MSG_SIZE, MPI_CHAR, who, MPI_COMM_WORLD);
    const smm_status s = (smm_status)least[1];
    if (rank == 0)
        fprintf(stderr, "sketchmm_shard_topk: %s: rank %d: %s\n", what, who,
                msg[0] != '\0' ? msg : shard_status_str(s));
    return s;
}

/* MPI_Bcast of count floats from rank 0, in pieces an int counts. */
static void broadcast_floats(float *x, int64_t count)
{
    const int64_t piece = INT64_C(1) << 28;
    for (int64_t at = 0; at < count; at += piece)
        MPI_Bcast(x + at, (int)(count - at < piece ? count - at : piece), MPI_FLOAT, 0, MPI_COMM_WORLD);
}

/* The layout: n database vectors over the ranks (--split, or even blocks). */
static smm_status split_rows(const shard_args *a, int ranks, int64_t n, int64_t *rows, char *msg)
{
    if (a->split_count == 0) {
        for (int r = 0; r < ranks; r++)
            rows[r] = (int64_t)((__extension__(unsigned __int128) n * (unsigned)(r + 1)) / (unsigned)ranks -
                                (__extension__(unsigned __int128) n * (unsigned)r) / (unsigned)ranks);
        return SMM_OK;
    }
    if (a->split_count != ranks) {
        snprintf(msg, MSG_SIZE, "--split gives %d blocks for %d ranks", a->split_count, ranks);
        return SMM_ERR_BAD_ARGUMENT;
    }
    int64_t sum = 0;
    for (int r = 0; r < ranks; r++) {
        rows[r] = a->split[r];
        sum = rows[r] > INT64_MAX - sum ? -1 : sum + rows[r];
        if (sum < 0)
            break;
    }
    if (sum != n) {
        snprintf(msg, MSG_SIZE, "--split adds up to %lld, the database has %lld vectors", (long long)sum,
                 (long long)n);
        return SMM_ERR_BAD_ARGUMENT;
    }
    return SMM_OK;
}

/* What a search leaves behind: medians of the timed calls, this rank's phases, and rank 0's result. */
typedef struct {
    double seconds, create, plan, search, wait, merge, candidates;
} search_times;

/*
 * Plan this rank's block and run reps timed searches with the result to
 * rank 0 (idx, val: m x topk there). Times: seconds, the median wall time
 * of a call on this rank after a barrier; the others this rank's median
 * phases (shard_last_call). The status is every rank's.
 */
static smm_status sharded_search(const shard_args *a, const shard_options *opts, int64_t k, int64_t first,
                                 int64_t rows, const float *block, int64_t m, const float *Q, int64_t *idx,
                                 float *val, search_times *t, char msg[MSG_SIZE])
{
    shard_plan *plan = NULL;
    shard_call_info info;
    smm_status s = shard_plan_create(MPI_COMM_WORLD, k, first, rows, block, k, opts, &plan);
    shard_last_call(&info);
    t->create = info.check + info.plan;
    t->plan = info.plan;
    if (s != SMM_OK) {
        snprintf(msg, MSG_SIZE, "shard_plan_create failed on rank %d: %s", info.failed_rank, shard_status_str(s));
        return s;
    }
    int64_t c = 0;
    shard_plan_info(plan, NULL, NULL, NULL, NULL, &c, NULL);
    t->candidates = (double)c;
    double wall[1000], search[1000], wait[1000], merge[1000];
    for (int r = 0; r < a->reps && s == SMM_OK; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = metrics_now();
        s = shard_plan_topk(plan, m, Q, k, a->topk, 0, idx, val, a->topk);
        wall[r] = metrics_now() - t0;
        shard_last_call(&info);
        search[r] = info.search;
        wait[r] = info.wait;
        merge[r] = info.merge;
    }
    if (s != SMM_OK) {
        snprintf(msg, MSG_SIZE, "shard_plan_topk failed on rank %d: %s", info.failed_rank, shard_status_str(s));
    } else {
        t->seconds = metrics_median(wall, a->reps);
        t->search = metrics_median(search, a->reps);
        t->wait = metrics_median(wait, a->reps);
        t->merge = metrics_median(merge, a->reps);
    }
    shard_plan_free(plan);
    return s;
}

/*
 * Recall of (idx, m x topk, on rank 0) against the exact (ref_idx), by value
 * and by index, and the largest value error: the inner products in double
 * of every returned vector and of each query's exact K-th are computed by
 * the rank that holds the vector and summed on rank 0. quality[3] on rank 0:
 * recall, recall_index, max_value_error.
 */
static void measure_quality(int64_t m, int64_t k, int64_t topk, const float *Q, int64_t first, int64_t rows,
                            const float *block, int64_t *idx, const float *val, int64_t *ref_idx, double quality[3])
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int64_t entries = m * topk;
    MPI_Bcast(idx, (int)entries, MPI_INT64_T, 0, MPI_COMM_WORLD);
    MPI_Bcast(ref_idx, (int)entries, MPI_INT64_T, 0, MPI_COMM_WORLD);
    /* dots[0 .. entries): the returned vectors; dots[entries + i]: query i's exact K-th */
    double *dots = calloc((size_t)(entries + m), sizeof(double));
    double *sums = rank == 0 ? calloc((size_t)(entries + m), sizeof(double)) : NULL;
    for (int64_t e = 0; e < entries + m; e++) {
        const int64_t i = e < entries ? e / topk : e - entries;
        const int64_t j = e < entries ? idx[e] : ref_idx[i * topk + topk - 1];
        if (j < first || j >= first + rows)
            continue;
        double d = 0.0;
        for (int64_t t = 0; t < k; t++)
            d += (double)Q[i * k + t] * (double)block[(j - first) * k + t];
        dots[e] = d;
    }
    MPI_Reduce(dots, sums, (int)(entries + m), MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int64_t hits = 0, index_hits = 0;
        double err = 0.0;
        for (int64_t e = 0; e < entries; e++) {
            const int64_t i = e / topk;
            hits += (float)sums[e] >= (float)sums[entries + i];
            for (int64_t t = 0; t < topk; t++)
                index_hits += ref_idx[i * topk + t] == idx[e];
            const double d = fabs((double)val[e] - sums[e]);
            err = d > err ? d : err;
        }
        quality[0] = (double)hits / (double)entries;
        quality[1] = (double)index_hits / (double)entries;
        quality[2] = err;
    }
    free(dots);
    free(sums);
}

/* Shapes of both sources, checked against each other and the options: n, m, k. */
static smm_status read_shapes(const shard_args *a, int64_t *n, int64_t *m, int64_t *k, char msg[MSG_SIZE])
{
    int64_t n_file = 0, m_file = 0, k_db = 0, k_q = 0;
    char name[4200];
    smm_status s = source_shape(&a->database, &n_file, &k_db, msg, MSG_SIZE);
    if (s == SMM_OK)
        s = source_shape(&a->queries, &m_file, &k_q, msg, MSG_SIZE);
    if (s != SMM_OK)
        return s;
    *n = a->database_rows > 0 ? a->database_rows : n_file;
    *m = a->query_rows > 0 ? a->query_rows : m_file;
    *k = k_db;
    if (k_q != k_db) {
        snprintf(msg, MSG_SIZE, "the database's vectors have %lld values, the queries' (%s) %lld", (long long)k_db,
                 source_name(&a->queries, name, sizeof name), (long long)k_q);
        return SMM_ERR_BAD_ARGUMENT;
    }
    if (*n > n_file || *m > m_file) {
        snprintf(msg, MSG_SIZE, "%lld database vectors and %lld queries asked for, the files hold %lld and %lld",
                 (long long)*n, (long long)*m, (long long)n_file, (long long)m_file);
        return SMM_ERR_BAD_ARGUMENT;
    }
    if (a->topk > *n) {
        snprintf(msg, MSG_SIZE, "--topk %lld is above the %lld database vectors", (long long)a->topk, (long long)*n);
        return SMM_ERR_BAD_ARGUMENT;
    }
    return SMM_OK;
}

static int run(const shard_args *a, int rank, int ranks)
{
    char msg[MSG_SIZE] = "";
    int64_t n = 0, m = 0, k = 0;
    smm_status s = agree("data", read_shapes(a, &n, &m, &k, msg), msg);
    int64_t *rows = calloc((size_t)ranks, sizeof(int64_t));
    if (s == SMM_OK)
        s = agree("--split", rows == NULL ? SMM_ERR_NO_MEMORY : split_rows(a, ranks, n, rows, msg), msg);
    if (a->threads > 0 && s == SMM_OK)
        s = agree("--threads", smm_set_num_threads(a->threads), msg);
    if (s != SMM_OK) {
        free(rows);
        return SHARD_EXIT_USAGE;
    }
    int64_t first = 0;
    for (int r = 0; r < rank; r++)
        first += rows[r];
    const int64_t mine = rows[rank];

    /* this rank's block, and the queries from rank 0 */
    double rank_row[RANK_FIELDS];
    for (int f = 0; f < RANK_FIELDS; f++)
        rank_row[f] = NAN;
    rank_row[RANK_FIRST] = (double)first;
    rank_row[RANK_ROWS] = (double)mine;
    dataset_matrix block = { 0, 0, NULL }, queries = { 0, 0, NULL };
    double t0 = metrics_now();
    s = mine > 0 ? source_load_rows(&a->database, first, mine, &block, msg, MSG_SIZE) : SMM_OK;
    rank_row[RANK_LOAD] = metrics_now() - t0;
    s = agree("loading the database", s, msg);
    smm_status q = SMM_OK;
    if (s == SMM_OK && rank == 0)
        q = source_load_rows(&a->queries, 0, m, &queries, msg, MSG_SIZE);
    if (s == SMM_OK)
        s = agree("loading the queries", q, msg);
    float *Q = rank == 0 ? queries.data : NULL;
    if (s == SMM_OK) {
        if (rank != 0)
            Q = malloc((size_t)(m * k) * sizeof(float));
        s = agree("memory for the queries", Q == NULL ? SMM_ERR_NO_MEMORY : SMM_OK, msg);
    }
    if (s == SMM_OK)
        broadcast_floats(Q, m * k);
    const int input_failed = s != SMM_OK; /* a file that cannot be read: bad input, as a bad command line */

    /* the exact sharded search (the reference of an approximate method), then the method's */
    const int64_t entries = m * a->topk;
    int64_t *idx = malloc((size_t)entries * sizeof(int64_t)), *ref_idx = malloc((size_t)entries * sizeof(int64_t));
    float *val = malloc((size_t)entries * sizeof(float)), *ref_val = malloc((size_t)entries * sizeof(float));
    if (s == SMM_OK)
        s = agree("memory for the results", idx && ref_idx && val && ref_val ? SMM_OK : SMM_ERR_NO_MEMORY, msg);
    shard_options exact = SHARD_OPTIONS_INIT, approx = SHARD_OPTIONS_INIT;
    approx.exact = 0;
    approx.approx.method = a->method;
    approx.approx.size = a->size;
    approx.approx.seed = a->seed;
    approx.approx.num_threads = a->threads;
    approx.approx.candidates = a->candidates;
    search_times te = { NAN, NAN, NAN, NAN, NAN, NAN, NAN }, ta = te;
    if (s == SMM_OK)
        s = agree("exact search", sharded_search(a, &exact, k, first, mine, block.data, m, Q, ref_idx, ref_val, &te, msg),
                  msg);
    if (s == SMM_OK && !a->exact)
        s = agree("approximate search", sharded_search(a, &approx, k, first, mine, block.data, m, Q, idx, val, &ta, msg),
                  msg);
    double quality[3] = { NAN, NAN, NAN };
    if (s == SMM_OK && !a->exact)
        measure_quality(m, k, a->topk, Q, first, mine, block.data, idx, val, ref_idx, quality);

    /* every rank's row to rank 0, the summary and the results file */
    const search_times *main_search = a->exact ? &te : &ta;
    rank_row[RANK_CANDIDATES] = a->exact ? 0.0 : ta.candidates;
    rank_row[RANK_CREATE] = main_search->create;
    rank_row[RANK_PLAN] = main_search->plan;
    rank_row[RANK_SEARCH] = main_search->search;
    rank_row[RANK_WAIT] = main_search->wait;
    rank_row[RANK_MERGE] = main_search->merge;
    if (!a->exact) {
        rank_row[RANK_EXACT_CREATE] = te.create;
        rank_row[RANK_EXACT_PLAN] = te.plan;
        rank_row[RANK_EXACT_SEARCH] = te.search;
        rank_row[RANK_EXACT_WAIT] = te.wait;
        rank_row[RANK_EXACT_MERGE] = te.merge;
    }
    double *table = rank == 0 ? malloc((size_t)ranks * RANK_FIELDS * sizeof(double)) : NULL;
    MPI_Gather(rank_row, RANK_FIELDS, MPI_DOUBLE, table, RANK_FIELDS, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int rc = s == SMM_OK ? 0 : input_failed ? SHARD_EXIT_USAGE : SHARD_EXIT_FAILED;
    if (rank == 0 && s == SMM_OK && table != NULL) {
        double plan_max = 0.0, merge_max = 0.0, exact_plan_max = 0.0;
        for (int r = 0; r < ranks; r++) {
            const double *row = table + (size_t)r * RANK_FIELDS;
            plan_max = row[RANK_CREATE] > plan_max ? row[RANK_CREATE] : plan_max;
            merge_max = row[RANK_MERGE] > merge_max ? row[RANK_MERGE] : merge_max;
            exact_plan_max =
                !a->exact && row[RANK_EXACT_CREATE] > exact_plan_max ? row[RANK_EXACT_CREATE] : exact_plan_max;
        }
        char db[4200], qs[4200];
        const char *method = a->exact ? "exact" : sketch_method_name(a->method);
        shard_results res = {
            source_name(&a->database, db, sizeof db), source_name(&a->queries, qs, sizeof qs), method,
            a->exact ? 0 : (a->size > 0 ? a->size : approx_default_size(a->method)),
            a->exact ? 0 : a->candidates, m, n, k, a->topk, ranks, a->threads, a->reps, a->seed,
            main_search->seconds, plan_max, merge_max, a->exact ? NAN : te.seconds, a->exact ? NAN : exact_plan_max,
            quality[0], quality[1], quality[2], table,
            a->save_result ? (a->exact ? ref_idx : idx) : NULL, a->save_result ? (a->exact ? ref_val : val) : NULL,
            a->save_result && !a->exact ? ref_idx : NULL, a->save_result && !a->exact ? ref_val : NULL
        };
        printf("sketchmm_shard_topk: %s, %lld queries x %lld vectors of %lld, top-%lld, %d rank%s\n", method,
               (long long)m, (long long)n, (long long)k, (long long)a->topk, ranks, ranks == 1 ? "" : "s");
        printf("  search %.4f s (median of %d), plan %.4f s, merge %.6f s (the slowest rank's median)\n",
               res.seconds, a->reps, res.plan_seconds, res.merge_seconds);
        if (!a->exact)
            printf("  exact search %.4f s; recall %.4f (by index %.4f), max value error %.3g\n", res.exact_seconds,
                   res.recall, res.recall_index, res.max_value_error);
        for (int r = 0; r < ranks; r++) {
            const double *row = table + (size_t)r * RANK_FIELDS;
            printf("  rank %d: %lld vectors from %lld, load %.4f s, plan %.4f s, search %.4f s, wait %.4f s, "
                   "merge %.6f s\n",
                   r, (long long)row[RANK_ROWS], (long long)row[RANK_FIRST], row[RANK_LOAD], row[RANK_PLAN],
                   row[RANK_SEARCH], row[RANK_WAIT], row[RANK_MERGE]);
        }
        if (shard_results_write(a->out, &res, msg, MSG_SIZE) != SMM_OK) {
            fprintf(stderr, "sketchmm_shard_topk: %s\n", msg);
            rc = SHARD_EXIT_FAILED;
        } else {
            printf("  results: %s\n", a->out);
        }
    }
    free(table);
    free(idx);
    free(val);
    free(ref_idx);
    free(ref_val);
    if (rank != 0)
        free(Q);
    dataset_matrix_free(&queries);
    dataset_matrix_free(&block);
    free(rows);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    static shard_args args; /* 33 KiB with --split's room */
    int rc = shard_parse_args(argc, argv, rank, &args);
    if (rc < 0)
        rc = run(&args, rank, ranks);
    MPI_Finalize();
    return rc;
}
