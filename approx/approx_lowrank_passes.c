/*
 * approx_lowrank_passes.c - the range finder's passes over op(B)
 * (approx_lowrank_passes.h).
 *
 * Thin products (l = s + 8 columns against n of 784 coordinates) run far
 * below SGEMM's rate when made whole: a 60,000 x 24 x 784 exact_sgemm packs
 * op(B) to use each element for 24 multiply-adds only. Made a block of
 * LOWRANK_BLOCK columns at a time on one thread, the same product runs from
 * the cache at the small-product path's speed, and the power iteration's
 * second product (op(B) Z) reuses the block just read for the first
 * (op(B)^T Q), so one read of op(B) serves both.
 */
#include <string.h>

#include "approx/approx_classical.h"
#include "approx/approx_lowrank_passes.h"
#include "exact/sgemm.h"

/* Columns of op(B) per block (a 128 x 784 float block is 392 KiB: it stays in a 1 MiB L2). */
#define LOWRANK_BLOCK 128
/* Columns per chunk: a chunk's partial (op(B) Z)^T is summed on one thread; chunks are added in order. */
#define LOWRANK_CHUNK 1024

smm_status lowrank_sign_sketch(const smm_context *ctx, const approx_vectors *cols, int64_t k, int64_t l,
                               uint64_t seed, float *Yt)
{
    const int64_t n = cols->count;
    smm_status status = SMM_OK;
    int64_t *target = classical_alloc(n, 1, sizeof(int64_t), &status); /* +-(bucket + 1) of column j */
    float *acc = classical_alloc(l, k, sizeof(float), &status);
    if (status != SMM_OK) {
        smm_aligned_free(target);
        smm_aligned_free(acc);
        return status;
    }
    const int64_t width = cols->layout == SMM_ROW_MAJOR ? ((k + ctx->threads - 1) / ctx->threads + 15) / 16 * 16 : 64;
#pragma omp parallel num_threads(ctx->threads)
    {
#pragma omp for schedule(static)
        for (int64_t j = 0; j < n; j++) {
            const uint64_t h = classical_hash(seed, (uint64_t)j);
            const int64_t bucket = (int64_t)(((h & 0xffffffffu) * (uint64_t)l) >> 32);
            target[j] = h >> 63 ? -(bucket + 1) : bucket + 1;
        }
        /* each thread owns ranges of coordinates t and sums them over j in increasing order (the bits do
         * not depend on the ranges); row-major: one range per thread, so each reads its part of a row */
#pragma omp for schedule(static)
        for (int64_t t0 = 0; t0 < k; t0 += width) {
            const int64_t t1 = t0 + width < k ? t0 + width : k;
            for (int64_t c = 0; c < l; c++)
                memset(acc + c * k + t0, 0, (size_t)(t1 - t0) * sizeof *acc);
            if (cols->layout == SMM_ROW_MAJOR) {
                for (int64_t j = 0; j < n; j++) {
                    const float *v = cols->data + j * cols->ld;
                    const int64_t tj = target[j];
                    float *y = acc + ((tj > 0 ? tj : -tj) - 1) * k;
                    if (tj > 0)
                        for (int64_t t = t0; t < t1; t++)
                            y[t] += v[t];
                    else
                        for (int64_t t = t0; t < t1; t++)
                            y[t] -= v[t];
                }
            } else {
                for (int64_t t = t0; t < t1; t++) {
                    const float *row = cols->data + t * cols->ld; /* coordinate t of every vector */
                    for (int64_t j = 0; j < n; j++) {
                        const int64_t tj = target[j];
                        float *y = acc + ((tj > 0 ? tj : -tj) - 1) * k + t;
                        *y = tj > 0 ? *y + row[j] : *y - row[j];
                    }
                }
            }
        }
    }
    memcpy(Yt, acc, (size_t)(l * k) * sizeof *Yt);
    smm_aligned_free(target);
    smm_aligned_free(acc);
    return SMM_OK;
}

/* One chunk, columns j0 .. j1 of op(B): its rows of Z, and its partial (op(B) Z)^T into part (when not NULL). */
static smm_status pass_chunk(const smm_context *one, const approx_vectors *cols, int64_t k, int64_t l,
                             const float *Q, int64_t j0, int64_t j1, float *Z, float *part)
{
    smm_status status = SMM_OK;
    for (int64_t b0 = j0; b0 < j1 && status == SMM_OK; b0 += LOWRANK_BLOCK) {
        const int64_t rows = j1 - b0 < LOWRANK_BLOCK ? j1 - b0 : LOWRANK_BLOCK;
        const float *X;
        smm_trans tx;
        approx_vectors_operand(cols, b0, &X, &tx); /* op(X) = the block's vectors as rows (rows x k) */
        float *zb = Z + b0 * l;
        status = exact_sgemm_with(one, SMM_ROW_MAJOR, tx, SMM_NO_TRANS, rows, l, k, 1.0f, X, cols->ld, Q, l, 0.0f,
                                  zb, l);
        if (status == SMM_OK && part != NULL) /* part += zb^T op(X), the block still in the cache */
            status = exact_sgemm_with(one, SMM_ROW_MAJOR, SMM_TRANS, tx, l, k, rows, 1.0f, zb, l, X, cols->ld,
                                      b0 == j0 ? 0.0f : 1.0f, part, k);
    }
    return status;
}

smm_status lowrank_pass(const smm_context *ctx, const approx_vectors *cols, int64_t k, int64_t l, const float *Q,
                        float *Z, float *Yt)
{
    const int64_t n = cols->count, chunks = (n + LOWRANK_CHUNK - 1) / LOWRANK_CHUNK;
    smm_status status = SMM_OK;
    float *parts = Yt != NULL ? classical_alloc(chunks, l * k, sizeof(float), &status) : NULL;
    double *sum = Yt != NULL ? classical_alloc(l, k, sizeof(double), &status) : NULL;
    if (status != SMM_OK) {
        smm_aligned_free(parts);
        smm_aligned_free(sum);
        return status;
    }
    const smm_context one = { ctx->isa, 1 };
    int failed = 0;
#pragma omp parallel for num_threads(ctx->threads) schedule(dynamic, 1) reduction(| : failed)
    for (int64_t c = 0; c < chunks; c++) {
        const int64_t j0 = c * LOWRANK_CHUNK, j1 = j0 + LOWRANK_CHUNK < n ? j0 + LOWRANK_CHUNK : n;
        failed |= pass_chunk(&one, cols, k, l, Q, j0, j1, Z, parts != NULL ? parts + c * l * k : NULL) != SMM_OK;
    }
    if (!failed && Yt != NULL) {
        memset(sum, 0, (size_t)(l * k) * sizeof *sum);
        for (int64_t c = 0; c < chunks; c++)
            for (int64_t e = 0; e < l * k; e++)
                sum[e] += parts[c * l * k + e];
        for (int64_t e = 0; e < l * k; e++)
            Yt[e] = (float)sum[e];
    }
    smm_aligned_free(parts);
    smm_aligned_free(sum);
    return failed ? SMM_ERR_NO_MEMORY : SMM_OK;
}
