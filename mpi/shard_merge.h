/*
 * shard_merge.h - the merge of per-rank top-k lists (shard_topk.h): each
 * query's list is a record of topk global indices and their values, best
 * first (larger value, then smaller index), padded at its end with
 * sentinels (index -1, value -Inf) that sort after every real entry. Merging
 * two records keeps the topk best of their union in that order; the order is
 * total on real entries (the indices of different blocks are distinct), so
 * merging is commutative and associative and MPI may combine the ranks'
 * records in any grouping.
 */
#ifndef SKETCHMM_MPI_SHARD_MERGE_H
#define SKETCHMM_MPI_SHARD_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

/* The index of a sentinel (an empty place of a list shorter than topk). */
#define SHARD_SENTINEL_INDEX (-1)

/*
 * Record layout: topk int64 indices at byte 0, then topk floats at byte
 * 8 topk, the whole padded to a multiple of 8 bytes (shard_record_bytes).
 */
size_t shard_record_bytes(int64_t topk);

/* The indices and values of record r of a buffer of records of topk entries. */
int64_t *shard_record_idx(void *records, int64_t topk, int64_t r);
float *shard_record_val(void *records, int64_t topk, int64_t r);

/*
 * io := the topk best of the union of the sorted lists (in_idx, in_val) and
 * (io_idx, io_val), sorted; the lists do not overlap. No workspace: a
 * backward merge into io, whose unread entries always lie below the place
 * written.
 */
void shard_merge_lists(const int64_t *in_idx, const float *in_val, int64_t *io_idx, float *io_val, int64_t topk);

/*
 * The MPI datatype of one record of topk entries (committed) and the
 * commutative operation that merges records (shard_merge_lists), for
 * MPI_Reduce / MPI_Allreduce. The operation reads topk from the datatype's
 * size. Returns an MPI error code (MPI_SUCCESS); free both with
 * shard_merge_type_free.
 */
int shard_merge_type_create(int64_t topk, MPI_Datatype *type, MPI_Op *op);
void shard_merge_type_free(MPI_Datatype *type, MPI_Op *op);

#endif /* SKETCHMM_MPI_SHARD_MERGE_H */
