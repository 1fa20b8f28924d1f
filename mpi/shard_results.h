/*
 * shard_results.h - the results file of sketchmm_shard_topk, written by
 * rank 0: root attributes describing the run and its figures, the table
 * /ranks (one row per rank: its block and the medians of its phase times),
 * and with --save-result the global top-k.
 *
 * Root attributes: database, queries (sources), method ("exact" or a
 * sketch_method_name), size (bits or s; 0 exact), candidates (over the
 * whole database; 0: each rank's default), m (queries), n (database
 * vectors), k, topk, ranks, threads, reps, seed, library_version, isa;
 * seconds (median wall time of one search, shard_plan_topk, on rank 0,
 * after a barrier), plan_seconds (the wall time of shard_plan_create, the
 * longest over the ranks),
 * merge_seconds (the largest over the ranks of their median reduction
 * time); for an approximate method exact_seconds and exact_plan_seconds
 * (the exact sharded search, the reference), recall (by value: a returned
 * vector counts when float(<q, b>) in double is at least the exact K-th's),
 * recall_index (indices shared with the exact top-k) and max_value_error
 * (max |returned value - <q, b> in double|); NaN where not measured.
 * /ranks: rank (int32), first, rows, candidates (int64), load_seconds
 * (reading the block), create_seconds (shard_plan_create on this rank,
 * waits included), plan_seconds (the plan of its own block), and the
 * medians over the searches of search_seconds, wait_seconds and
 * merge_seconds (the shard_call_info phases of sketchmm/shard_topk.h);
 * for an approximate method the same of the exact search as
 * exact_create_seconds .. exact_merge_seconds (float64; NaN when absent).
 * --save-result: /idx (m x topk int64), /val (float32), and /exact_idx,
 * /exact_val for an approximate method.
 */
#ifndef SKETCHMM_MPI_SHARD_RESULTS_H
#define SKETCHMM_MPI_SHARD_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "sketchmm/common.h"

/* One rank's row of /ranks (as doubles: gathered to rank 0 in one message). */
enum {
    RANK_FIRST, RANK_ROWS, RANK_CANDIDATES, RANK_LOAD, RANK_CREATE, RANK_PLAN, RANK_SEARCH, RANK_WAIT, RANK_MERGE,
    RANK_EXACT_CREATE, RANK_EXACT_PLAN, RANK_EXACT_SEARCH, RANK_EXACT_WAIT, RANK_EXACT_MERGE, RANK_FIELDS
};

typedef struct {
    const char *database, *queries, *method;
    int64_t size, candidates, m, n, k, topk;
    int ranks, threads, reps;
    uint64_t seed;
    double seconds, plan_seconds, merge_seconds, exact_seconds, exact_plan_seconds;
    double recall, recall_index, max_value_error;
    const double *rank_rows;      /* ranks x RANK_FIELDS */
    const int64_t *idx;           /* m x topk each, or NULL: not saved */
    const float *val;
    const int64_t *exact_idx;     /* NULL for the exact method or when not saved */
    const float *exact_val;
} shard_results;

/*
 * Write r to path (its directory created if needed), through path.tmp.PID
 * renamed at the end: path appears only complete. SMM_OK or
 * DATASET_ERR_IO with a message naming the file.
 */
smm_status shard_results_write(const char *path, const shard_results *r, char *msg, size_t msg_size);

#endif /* SKETCHMM_MPI_SHARD_RESULTS_H */
