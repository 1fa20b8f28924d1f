/*
 * shard_search.c - shard_plan_topk: the ranks agree on the call, each
 * searches its block, and one MPI reduction merges the local lists into the
 * global top-k (sketchmm/shard_topk.h, shard_merge.h).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "shard_internal.h"
#include "shard_merge.h"

/* Bytes of records one reduction moves at most: larger m is merged in batches of queries. */
#define SHARD_MERGE_BATCH_BYTES ((size_t)64 << 20)

/* What every rank must pass alike. */
enum { FACT_M, FACT_TOPK, FACT_ROOT, FACT_HASH, FACT_COUNT };

/* The bytes [p, p + (lines - 1) * ld + width) of lines of width elements of elem bytes, for the overlap rule. */
typedef struct {
    uintptr_t lo, hi;
} byte_span;

static byte_span span_of(const void *p, int64_t lines, int64_t ld, int64_t width, size_t elem)
{
    byte_span s = { (uintptr_t)p, (uintptr_t)p + ((size_t)(lines - 1) * (size_t)ld + (size_t)width) * elem };
    return s;
}

static int overlap(byte_span a, byte_span b)
{
    return a.lo < b.hi && b.lo < a.hi;
}

/* A 64-bit hash of the m rows of k floats of A, each row's XXH3-64 seeded with the hash so far. */
static uint64_t queries_hash(int64_t m, int64_t k, const float *A, int64_t lda)
{
    uint64_t h = (uint64_t)m;
    for (int64_t i = 0; i < m; i++)
        h = XXH3_64bits_withSeed(A + i * lda, (size_t)k * sizeof(float), h);
    return h;
}

/* This rank's arguments, before anything is exchanged; *receives says whether the result comes here. */
static smm_status check_arguments(const shard_plan *p, int64_t m, const float *A, int64_t lda, int64_t topk,
                                  int root, const int64_t *idx, const float *val, int64_t ldk, int *receives)
{
    *receives = root == SHARD_ALL_RANKS || root == p->rank;
    if (m < 0)
        return SMM_ERR_BAD_SIZE;
    if (m > 0 && (A == NULL || (*receives && (idx == NULL || val == NULL))))
        return SMM_ERR_NULL_POINTER;
    if (lda < p->k)
        return SMM_ERR_BAD_LEADING_DIM;
    if (topk < 1 || topk > p->n || root < SHARD_ALL_RANKS || root >= p->ranks || (p->total > 0 && p->total < topk))
        return SMM_ERR_BAD_ARGUMENT;
    if (topk > INT_MAX / (int64_t)(sizeof(int64_t) + sizeof(float)))
        return SMM_ERR_OVERFLOW; /* one record per query must be an MPI element */
    if (!*receives || m == 0)
        return SMM_OK;
    if (ldk < topk)
        return SMM_ERR_BAD_LEADING_DIM;
    byte_span a = span_of(A, m, lda, p->k, sizeof(float)), i = span_of(idx, m, ldk, topk, sizeof(int64_t)),
              v = span_of(val, m, ldk, topk, sizeof(float));
    return overlap(a, i) || overlap(a, v) || overlap(i, v) ? SMM_ERR_BAD_ARGUMENT : SMM_OK;
}

/*
 * This rank's best min(topk, rows) of its block for every query (an
 * approximate plan whose share of the candidates is smaller: its best
 * candidates, all refined), as records of topk with global indices and
 * sentinels (shard_merge.h) in *records (malloc'ed, m records, also for an
 * empty block).
 */
static smm_status search_block(const shard_plan *p, int64_t m, const float *A, int64_t lda, int64_t topk,
                               void **records)
{
    int64_t local = topk < p->rows ? topk : p->rows;
    if (!p->exact && p->candidates > 0 && p->candidates < local)
        local = p->candidates;
    const size_t rec = shard_record_bytes(topk);
    *records = NULL;
    if ((uint64_t)m > SIZE_MAX / rec)
        return SMM_ERR_OVERFLOW;
    void *out = malloc((size_t)m * rec);
    int64_t *idx = local > 0 ? malloc((size_t)m * (size_t)local * sizeof(int64_t)) : NULL;
    float *val = local > 0 ? malloc((size_t)m * (size_t)local * sizeof(float)) : NULL;
    smm_status s = out != NULL && (local == 0 || (idx != NULL && val != NULL)) ? SMM_OK : SMM_ERR_NO_MEMORY;
    approx_call call = APPROX_CALL_INIT;
    call.candidates = (int32_t)p->candidates; /* this rank's share, or 0: the method's default */
    if (s == SMM_OK && local > 0)
        s = p->exact ? exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, p->rows, p->k, A, lda, p->block,
                                  p->ldb, local, idx, val, local)
                     : approx_plan_topk(p->approx, SMM_ROW_MAJOR, SMM_NO_TRANS, m, A, lda, local, idx, val, local,
                                        &call);
    for (int64_t i = 0; s == SMM_OK && i < m; i++) {
        int64_t *ri = shard_record_idx(out, topk, i);
        float *rv = shard_record_val(out, topk, i);
        for (int64_t t = 0; t < topk; t++) {
            ri[t] = t < local ? p->first + idx[i * local + t] : SHARD_SENTINEL_INDEX;
            rv[t] = t < local ? val[i * local + t] : -INFINITY;
        }
    }
    free(idx);
    free(val);
    if (s == SMM_OK)
        *records = out;
    else
        free(out);
    return s;
}

/* Merge the ranks' records in batches of queries: on root (or on every rank for SHARD_ALL_RANKS). */
static smm_status merge_records(const shard_plan *p, int64_t m, int64_t topk, int root, void *records)
{
    MPI_Datatype type;
    MPI_Op op;
    int err = shard_merge_type_create(topk, &type, &op);
    const size_t rec = shard_record_bytes(topk);
    int64_t batch = (int64_t)(SHARD_MERGE_BATCH_BYTES / rec);
    batch = batch < 1 ? 1 : batch > INT_MAX ? INT_MAX : batch;
    for (int64_t i0 = 0; err == MPI_SUCCESS && i0 < m; i0 += batch) {
        int count = (int)(m - i0 < batch ? m - i0 : batch);
        char *buf = (char *)records + (size_t)i0 * rec;
        if (root == SHARD_ALL_RANKS)
            err = MPI_Allreduce(MPI_IN_PLACE, buf, count, type, op, p->comm);
        else
            err = MPI_Reduce(p->rank == root ? MPI_IN_PLACE : buf, p->rank == root ? buf : NULL, count, type, op,
                             root, p->comm);
    }
    shard_merge_type_free(&type, &op);
    return shard_mpi_status(err);
}

smm_status shard_plan_topk(const shard_plan *plan, int64_t m, const float *A, int64_t lda, int64_t topk, int root,
                           int64_t *idx, float *val, int64_t ldk)
{
    if (plan == NULL)
        return SMM_ERR_NULL_POINTER;
    const shard_plan *p = plan;
    shard_call_info info = { 0.0, 0.0, 0.0, 0.0, 0.0, -1 };
    const double t0 = MPI_Wtime();
    int receives = 0;
    smm_status s = check_arguments(p, m, A, lda, topk, root, idx, val, ldk, &receives);

    /* the ranks compare m, topk, root and the queries with rank 0's */
    int64_t facts[FACT_COUNT] = { m, topk, root, 0 }, ref[FACT_COUNT];
    if (s == SMM_OK && m > 0)
        facts[FACT_HASH] = (int64_t)queries_hash(m, p->k, A, lda);
    smm_status t = shard_reference_facts(p->comm, facts, FACT_COUNT, ref);
    if (s == SMM_OK && t == SMM_OK && memcmp(facts, ref, sizeof facts) != 0)
        s = SMM_ERR_BAD_ARGUMENT;
    if (s == SMM_OK)
        s = t;
    s = shard_agree(p->comm, s, &info.failed_rank);
    info.check = MPI_Wtime() - t0;
    if (s != SMM_OK || m == 0) {
        shard_set_last_call(&info);
        return s;
    }

    /* each rank searches its block; the statuses are exchanged before the merge */
    double t1 = MPI_Wtime();
    void *records = NULL;
    s = search_block(p, m, A, lda, topk, &records);
    double t2 = MPI_Wtime();
    info.search = t2 - t1;
    s = shard_agree(p->comm, s, &info.failed_rank);
    double t3 = MPI_Wtime();
    info.wait = t3 - t2;

    /* one reduction merges the lists; a last exchange makes sure every rank got there */
    if (s == SMM_OK)
        s = shard_agree(p->comm, merge_records(p, m, topk, root, records), &info.failed_rank);
    info.merge = MPI_Wtime() - t3;
    for (int64_t i = 0; s == SMM_OK && receives && i < m; i++) {
        memcpy(idx + i * ldk, shard_record_idx(records, topk, i), (size_t)topk * sizeof(int64_t));
        memcpy(val + i * ldk, shard_record_val(records, topk, i), (size_t)topk * sizeof(float));
    }
    free(records);
    shard_set_last_call(&info);
    return s;
}
