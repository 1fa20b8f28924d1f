/*
 * shard_internal.h - the plan of sketchmm/shard_topk.h and the helpers its
 * two calls share: the exchange of statuses and facts between the ranks,
 * and the record of the last call's phases.
 */
#ifndef SKETCHMM_MPI_SHARD_INTERNAL_H
#define SKETCHMM_MPI_SHARD_INTERNAL_H

#include "sketchmm/shard_topk.h"

struct shard_plan {
    MPI_Comm comm;       /* the plan's own duplicate of the caller's communicator, MPI_ERRORS_RETURN */
    int rank, ranks;
    int64_t k, n;        /* dimension, vectors of the whole database */
    int64_t first, rows; /* this rank's block */
    int exact;
    int64_t candidates;  /* this rank's share c_r of the candidates (0: the method's default) */
    int64_t total;       /* the candidates C of every rank together (0: the default) */
    const float *block;  /* exact: the block, rows vectors, leading dimension ldb (NULL when rows == 0) */
    int64_t ldb;
    float *owned;        /* exact: the plan's copy of the block (block points into it), or NULL when borrowed */
    approx_plan *approx; /* approximate: the plan of the block (NULL when rows == 0) */
};

/* SHARD_ERR_MPI for an MPI error code other than MPI_SUCCESS, else SMM_OK. */
smm_status shard_mpi_status(int err);

/*
 * The agreement after each step of a call: on every rank, the status of the
 * lowest rank whose `mine` is not SMM_OK (that rank in *failed_rank, else
 * -1), or SHARD_ERR_MPI when MPI fails (*failed_rank: this rank). One
 * MPI_Allreduce of 8 bytes (rank and status in one integer, the least
 * kept), no allocation: a rank that ran out of memory still takes part.
 * Every rank makes the same calls in the same order, whatever its own
 * status, and acts only on the agreed one.
 */
smm_status shard_agree(MPI_Comm comm, smm_status mine, int *failed_rank);

/*
 * Rank 0's `count` facts into ref[count] on every rank (MPI_Bcast), for each
 * rank to compare its own with. SMM_OK or SHARD_ERR_MPI.
 */
smm_status shard_reference_facts(MPI_Comm comm, const int64_t *mine, int count, int64_t *ref);

/* Store the phase times and failing rank of this thread's last call (shard_last_call). */
void shard_set_last_call(const shard_call_info *info);

#endif /* SKETCHMM_MPI_SHARD_INTERNAL_H */
