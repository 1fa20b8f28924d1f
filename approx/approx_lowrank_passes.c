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
#include <omp.h>
#include <string.h>

#include "approx/approx_classical.h"
#include "approx/approx_lowrank_passes.h"
#include "exact/sgemm.h"

/* Columns of op(B) per block (a 128 x 784 float block is 392 KiB: it stays in a 1 MiB L2). */
#define LOWRANK_BLOCK 128
/* Column-major vectors transposed per block of the sign sketch. */
#define SIGN_BLOCK 64
/* Coordinates per slice of the sign sketch (l rows of it: 24 KiB at l = 24). */
#define SIGN_SLICE 256
/* Columns per chunk: a chunk's partial (op(B) Z)^T is summed on one thread; chunks are added in order. */
#define LOWRANK_CHUNK 1024

/* y[0 .. count) += sign * v[0 .. count), sign +-1 (so each sum is exact but for the one rounding of the add). */
static void add_signed(float *restrict y, const float *restrict v, float sign, int64_t count)
{
    for (int64_t t = 0; t < count; t++)
        y[t] += sign * v[t];
}

/*
 * Yt := the sum of the chunks' partials parts[c] (count floats each), in chunk order, in double, rounded
 * once; then frees parts. SMM_OK, or SMM_ERR_NO_MEMORY (Yt untouched).
 */
static smm_status sum_chunks(float *parts, int64_t chunks, int64_t count, float *Yt)
{
    smm_status status = SMM_OK;
    double *sum = classical_alloc(count, 1, sizeof(double), &status);
    if (sum != NULL) {
        memset(sum, 0, (size_t)count * sizeof *sum);
        for (int64_t c = 0; c < chunks; c++)
            for (int64_t e = 0; e < count; e++)
                sum[e] += parts[c * count + e];
        for (int64_t e = 0; e < count; e++)
            Yt[e] = (float)sum[e];
    }
    smm_aligned_free(sum);
    smm_aligned_free(parts);
    return status;
}

/* The partial (op(B) Omega)^T of columns j0 .. j1 into part (l x k), summed in increasing j; rows: a
 * SIGN_BLOCK x k buffer for column-major vectors, transposed into it a block at a time. */
static void sign_chunk(const approx_vectors *cols, int64_t k, int64_t l, uint64_t seed, int64_t j0, int64_t j1,
                       float *part, float *rows)
{
    memset(part, 0, (size_t)(l * k) * sizeof *part);
    for (int64_t b0 = j0; b0 < j1; b0 += SIGN_BLOCK) {
        const int64_t nb = j1 - b0 < SIGN_BLOCK ? j1 - b0 : SIGN_BLOCK;
        const float *v = cols->data + b0 * cols->ld; /* row-major: vector b0 + i at v + i * ld */
        int64_t ld = cols->ld;
        if (cols->layout != SMM_ROW_MAJOR) {
            for (int64_t t = 0; t < k; t++) /* coordinate t of vectors b0 .. b0 + nb */
                for (int64_t i = 0; i < nb; i++)
                    rows[i * k + t] = cols->data[t * cols->ld + b0 + i];
            v = rows;
            ld = k;
        }
        int64_t bucket[SIGN_BLOCK];
        float sign[SIGN_BLOCK];
        for (int64_t i = 0; i < nb; i++) {
            const uint64_t h = classical_hash(seed, (uint64_t)(b0 + i));
            bucket[i] = (int64_t)(((h & 0xffffffffu) * (uint64_t)l) >> 32);
            sign[i] = h >> 63 ? -1.0f : 1.0f;
        }
        /* a slice of coordinates at a time, so that the l rows of the partial it adds to stay in L1 */
        for (int64_t t0 = 0; t0 < k; t0 += SIGN_SLICE) {
            const int64_t w = k - t0 < SIGN_SLICE ? k - t0 : SIGN_SLICE;
            for (int64_t i = 0; i < nb; i++)
                add_signed(part + bucket[i] * k + t0, v + i * ld + t0, sign[i], w);
        }
    }
}

smm_status lowrank_sign_sketch(const smm_context *ctx, const approx_vectors *cols, int64_t k, int64_t l,
                               uint64_t seed, float *Yt)
{
    const int64_t n = cols->count, chunks = (n + LOWRANK_CHUNK - 1) / LOWRANK_CHUNK;
    smm_status status = SMM_OK;
    float *parts = classical_alloc(chunks, l * k, sizeof(float), &status);
    float *rows = cols->layout == SMM_ROW_MAJOR ? NULL
                                                : classical_alloc(ctx->threads, SIGN_BLOCK * k, sizeof(float), &status);
    if (status != SMM_OK) {
        smm_aligned_free(parts);
        smm_aligned_free(rows);
        return status;
    }
#pragma omp parallel for num_threads(ctx->threads) schedule(dynamic, 1)
    for (int64_t c = 0; c < chunks; c++) {
        const int64_t j0 = c * LOWRANK_CHUNK, j1 = j0 + LOWRANK_CHUNK < n ? j0 + LOWRANK_CHUNK : n;
        sign_chunk(cols, k, l, seed, j0, j1, parts + c * l * k,
                   rows != NULL ? rows + (int64_t)omp_get_thread_num() * SIGN_BLOCK * k : NULL);
    }
    smm_aligned_free(rows);
    return sum_chunks(parts, chunks, l * k, Yt);
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
    if (status != SMM_OK)
        return status;
    const smm_context one = { ctx->isa, 1 };
    int failed = 0;
#pragma omp parallel for num_threads(ctx->threads) schedule(dynamic, 1) reduction(| : failed)
    for (int64_t c = 0; c < chunks; c++) {
        const int64_t j0 = c * LOWRANK_CHUNK, j1 = j0 + LOWRANK_CHUNK < n ? j0 + LOWRANK_CHUNK : n;
        failed |= pass_chunk(&one, cols, k, l, Q, j0, j1, Z, parts != NULL ? parts + c * l * k : NULL) != SMM_OK;
    }
    if (failed) {
        smm_aligned_free(parts);
        return SMM_ERR_NO_MEMORY;
    }
    return parts != NULL ? sum_chunks(parts, chunks, l * k, Yt) : SMM_OK;
}
