/*
 * sketchmm/shard_topk.h - top-k over a database sharded across the ranks of
 * an MPI communicator: the optional library sketchmm_mpi (built when CMake
 * finds MPI; the core library sketchmm stays free of MPI and this header is
 * not part of sketchmm.h).
 *
 * The task is approx_topk's (sketchmm/approx.h) with the database split
 * over P ranks: the n database vectors b_0 .. b_{n-1} (dimension k) are cut
 * into P contiguous blocks, rank r holding rows first_r .. first_r +
 * rows_r - 1 (first_0 = 0, first_{r+1} = first_r + rows_r, sum rows_r = n;
 * blocks may differ in size and may be empty). Every rank passes the same
 * m queries a_i; the result is, for each query, the topk global indices j
 * with the largest <a_i, b_j>, in decreasing value, ties to the smaller j.
 *
 * How it runs (shard_plan_topk)
 *   1. Each rank searches its own block: exact_topk, or approx_plan_topk on
 *      the plan of its block, keeping min(topk, rows_r) per query, and adds
 *      first_r to the indices (global indices).
 *   2. The local lists are merged by one MPI reduction (MPI_Reduce to a
 *      root, or MPI_Allreduce) whose operation merges two sorted lists of
 *      topk into the topk best under the order above: a total order (the
 *      indices are distinct), so the result does not depend on how MPI
 *      groups the ranks. Per query it moves topk (8 + 4) bytes per message.
 *   With the exact method the result is bit-identical to single-process
 *   exact_topk on the whole database: each value is exact_sgemm's dot
 *   product of the two vectors, which does not depend on the other columns
 *   in the call (the library's SGEMM sums over k in the same fixed blocks
 *   for any n), and the merge keeps exact_topk's order. The test
 *   mpi/tests/test_shard_topk.c holds the library to that at 1 to 4 ranks.
 *
 * Approximate methods: every rank builds the approximate plan of its own
 * block (approx_plan_create with opts->approx), so data-aware methods
 * (lowrank, pq, maddness) learn from their own block. opts->approx.candidates
 * counts candidates per query over the whole database: rank r refines
 * c_r = floor(C (first_r + rows_r) / n) - floor(C first_r / n) of them (a
 * share proportional to its rows; the shares add up to C), raised to 1 and
 * cut to rows_r; C = 0 leaves each rank approx_plan_topk's default of 10
 * min(topk, rows_r); C must be at least a call's topk (SMM_ERR_BAD_ARGUMENT
 * otherwise, as approx_plan_topk). A rank whose share is below topk returns its c_r
 * candidates, all refined: the global top-k is then chosen among C
 * candidates in all, as in one process with candidates = C. Values are
 * exact; recall is measured against the exact method (the program
 * sketchmm_shard_topk does).
 *
 * Collective calls and errors
 *   shard_plan_create, shard_plan_topk and shard_plan_free are collective
 *   over the plan's communicator: every rank calls them, in the same order.
 *   Every argument is checked on its own rank first, then the ranks compare
 *   what must agree (k, the blocks' contiguity, the options; m, topk, root
 *   and a 64-bit hash of the queries), then each rank does its part; after
 *   every step the ranks exchange their statuses (MPI_Allgather), so a
 *   failure on any rank (a bad argument, NaN in its block, no memory) makes
 *   the call return the same status on every rank, the status of the lowest
 *   failing rank (shard_last_call names it), with no output written and no
 *   rank left waiting. Failures of MPI itself are SHARD_ERR_MPI: the plan
 *   works on its own duplicate of the communicator, with MPI_ERRORS_RETURN.
 *   MPI must be initialised by the caller (MPI_Init / MPI_Init_thread) and
 *   not finalised before shard_plan_free.
 *
 * Threads: each rank's search uses the library's threads (exact: the
 * default of smm_set_num_threads / SKETCHMM_NUM_THREADS; approximate:
 * opts->approx.num_threads). A plan may be used by one thread at a time (its
 * calls are MPI collectives on one communicator). Results do not depend on
 * the thread count or on the number of ranks (exact method).
 *
 * Ownership: as everywhere in sketchmm, the caller owns every array passed
 * in; a plan keeps its own copy of its block (4 rows_r k bytes, in the
 * approximate plan for the approximate methods), so B may be freed after
 * shard_plan_create returns. With APPROX_BORROW_B in opts->approx.flags
 * (either method) the plan borrows the block instead: no copy, and B must
 * stay alive and unchanged until shard_plan_free.
 */
#ifndef SKETCHMM_SHARD_TOPK_H
#define SKETCHMM_SHARD_TOPK_H

#include <stdint.h>

#include <mpi.h>

#include "sketchmm/approx.h"
#include "sketchmm/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the functions the shared library sketchmm_mpi exports (and nothing else). */
#if defined(__GNUC__) || defined(__clang__)
#define SMM_MPI_API __attribute__((visibility("default")))
#else
#define SMM_MPI_API
#endif

/*
 * An MPI call inside the library failed (the communicator is unusable, a
 * rank died, or MPI ran out of resources). Numbered apart from the core's
 * statuses (sketchmm/common.h appends its own from 17 upwards).
 */
#define SHARD_ERR_MPI ((smm_status)64)

/* smm_status_str for every status, SHARD_ERR_MPI included. Never NULL. */
SMM_MPI_API const char *shard_status_str(smm_status s);

/* Root value of shard_plan_topk that gives the result to every rank. */
#define SHARD_ALL_RANKS (-1)

/* Options. Initialise with SHARD_OPTIONS_INIT or shard_options_init(). */
typedef struct {
    int exact;             /* nonzero (default): exact_topk on every block; 0: the method of `approx` */
    approx_options approx; /* the approximate method: method, size, seed, threads, and candidates per query
                            * over the whole database (see the top of this file); ignored when exact, but
                            * for flags (APPROX_BORROW_B: see Ownership above) */
} shard_options;

#define SHARD_OPTIONS_INIT { 1, APPROX_OPTIONS_INIT }

/* Set *opts to the defaults above (no-op for NULL). */
SMM_MPI_API void shard_options_init(shard_options *opts);

/* Opaque: this rank's block, its plan, and the layout of every rank's block. */
typedef struct shard_plan shard_plan;

/*
 * shard_plan_create - collective: rank r passes its block, rows `first` ..
 * first + rows - 1 of the database, stored as rows vectors of k floats,
 * row-major with leading dimension ldb >= k (B may be NULL when rows is 0).
 * Every rank passes the same k (>= 1) and options (NULL: the defaults); the
 * blocks must be contiguous in rank order from 0 (first_0 = 0, first_{r+1}
 * = first_r + rows_r) with n = sum rows_r >= 1. The approximate methods
 * build approx_plan_create's plan of each non-empty block (a block must
 * suit the method: e.g. at least 16 rows for pq and maddness); the exact
 * method copies its block and checks that it is finite.
 * Returns SMM_OK with *plan set on every rank, or the same status on every
 * rank with *plan NULL: SMM_ERR_NULL_POINTER (plan NULL, or B NULL with
 * rows > 0), SMM_ERR_BAD_SIZE (k < 1, rows < 0 or first < 0, n == 0),
 * SMM_ERR_BAD_LEADING_DIM (ldb < k), SMM_ERR_BAD_ARGUMENT (blocks that are
 * not contiguous, or k or the options differing between ranks), the
 * statuses of approx_plan_create (SMM_ERR_NON_FINITE for NaN or Inf in a
 * block, for every method), SMM_ERR_OVERFLOW, SMM_ERR_NO_MEMORY and
 * SHARD_ERR_MPI. comm is duplicated (MPI_Comm_dup); MPI_COMM_NULL is
 * SHARD_ERR_MPI.
 */
SMM_MPI_API smm_status shard_plan_create(MPI_Comm comm, int64_t k, int64_t first, int64_t rows, const float *B,
                                         int64_t ldb, const shard_options *opts, shard_plan **plan);

/*
 * shard_plan_topk - collective: the topk largest <a_i, b_j> over the whole
 * database for each of the m queries (row-major m x k, leading dimension
 * lda >= k), the same m, queries, topk and root on every rank. The result
 * goes to rank `root` (0 .. P - 1), or to every rank for SHARD_ALL_RANKS:
 * there idx[i * ldk + t] is the global index j and val[i * ldk + t] its
 * value, t = 0 .. topk - 1, in decreasing value, ties to the smaller j
 * (ldk >= topk); idx and val may be NULL on the other ranks, which write
 * nothing. 1 <= topk <= n; m == 0 returns SMM_OK after the agreement. The
 * queries may be the caller's on each rank (each reads them from the same
 * file, or one broadcasts them); a 64-bit hash of them (XXH3, one read of
 * m k floats) is compared across the ranks.
 * Returns SMM_OK, or the same status on every rank with no output written:
 * SMM_ERR_NULL_POINTER (plan, A with m > 0, or idx / val where the result
 * goes), SMM_ERR_BAD_SIZE (m < 0), SMM_ERR_BAD_LEADING_DIM (lda < k, ldk <
 * topk where the result goes), SMM_ERR_BAD_ARGUMENT (topk outside 1..n or above the candidates C,
 * root outside the ranks, m, topk, root or the queries differing between
 * ranks, idx or val overlapping A or each other), SMM_ERR_NON_FINITE (NaN or Inf in the
 * queries), the statuses of exact_topk and approx_plan_topk,
 * SMM_ERR_OVERFLOW, SMM_ERR_NO_MEMORY, SHARD_ERR_MPI.
 */
SMM_MPI_API smm_status shard_plan_topk(const shard_plan *plan, int64_t m, const float *A, int64_t lda,
                                       int64_t topk, int root, int64_t *idx, float *val, int64_t ldk);

/* Collective: free a plan and its communicator (NULL is a no-op; every rank passes its own or NULL alike). */
SMM_MPI_API void shard_plan_free(shard_plan *plan);

/*
 * The layout of a plan, on any rank (any output may be NULL): *n the
 * database's vectors, *k their dimension, *first and *rows this rank's
 * block, *candidates this rank's c_r (0: the approximate method's default,
 * or the exact method), *ranks the communicator's size.
 * SMM_ERR_NULL_POINTER for a NULL plan.
 */
SMM_MPI_API smm_status shard_plan_info(const shard_plan *plan, int64_t *n, int64_t *k, int64_t *first,
                                       int64_t *rows, int64_t *candidates, int *ranks);

/* Wall-clock seconds of the phases of this rank's last collective call, and who failed. */
typedef struct {
    double check;    /* the argument checks and the comparison of the ranks' arguments (collectives) */
    double plan;     /* shard_plan_create: this rank's plan of its block (copy and check, or approx_plan_create) */
    double search;   /* shard_plan_topk: this rank's local top-k (exact_topk or approx_plan_topk) */
    double wait;     /* shard_plan_topk: the exchange of statuses after the search (waits for the slowest rank) */
    double merge;    /* shard_plan_topk: the reduction of the local lists into the global top-k */
    int failed_rank; /* the lowest rank whose part failed, -1 when the call succeeded */
} shard_call_info;

/*
 * The phase times and the failing rank of the calling thread's most recent
 * shard_plan_create or shard_plan_topk (zeros and -1 before the first).
 * SMM_ERR_NULL_POINTER for a NULL info.
 */
SMM_MPI_API smm_status shard_last_call(shard_call_info *info);

#ifdef __cplusplus
}
#endif

#endif /* SKETCHMM_SHARD_TOPK_H */
