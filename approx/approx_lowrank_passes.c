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
#include "approx/lowrank_sign.h"
#include "exact/sgemm.h"
#include "exact/unary_kernels.h"

/* Columns of op(B) per block (a 128 x 784 float block is 392 KiB: it stays in a 1 MiB L2). */
#define LOWRANK_BLOCK 128
/* Columns per chunk: a chunk's partial (op(B) Z)^T is summed on one thread; chunks are added in order. */
#define LOWRANK_CHUNK 1024
/* Columns per chunk of the sign sketch (fixed: the bits do not depend on the thread count). */
#define SIGN_CHUNK 2048
/* Coordinates per panel of the sign sketch on column-major vectors (64 rows of 8 KiB per chunk). */
#define SIGN_PANEL 64
/* Row-major vectors are split into panels of coordinates only when there are fewer chunks than this many per
 * thread (a whole vector is one sequential read). */
#define SIGN_TASKS_PER_THREAD 4

/*
 * Yt (rows x cols, row-major) := the sum of the chunks' partials parts[c] (rows x cols each, leading
 * dimension ld, chunk c at parts + c rows ld), in chunk order, in double, rounded once; then frees parts.
 * The entries are shared among the threads; each entry's order is the same.
 */
static void sum_chunks(int threads, float *parts, int64_t chunks, int64_t rows, int64_t cols, int64_t ld,
                             float *Yt)
{
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t r = 0; r < rows; r++)
        for (int64_t t = 0; t < cols; t++) {
            double sum = 0.0;
            for (int64_t c = 0; c < chunks; c++)
                sum += parts[(c * rows + r) * ld + t];
            Yt[r * cols + t] = (float)sum;
        }
    smm_aligned_free(parts);
}

/* Coordinates per panel of the sign sketch: a multiple of 16 (a cache line), the whole of k for row-major vectors
 * when the chunks alone give every thread SIGN_TASKS_PER_THREAD tasks. */
static int64_t sign_panel_width(const approx_vectors *cols, int64_t k, int64_t chunks, int threads)
{
    if (cols->layout != SMM_ROW_MAJOR)
        return SIGN_PANEL;
    const int64_t want = (int64_t)SIGN_TASKS_PER_THREAD * threads, panels = (want + chunks - 1) / chunks;
    if (panels <= 1)
        return k;
    const int64_t width = (k + panels - 1) / panels;
    return (width + 15) / 16 * 16;
}

smm_status lowrank_sign_sketch(const smm_context *ctx, const approx_vectors *cols, int64_t k, int64_t l,
                               uint64_t seed, float *Yt)
{
    const int64_t n = cols->count, chunks = (n + SIGN_CHUNK - 1) / SIGN_CHUNK, ldp = (k + 15) / 16 * 16;
    const int64_t width = sign_panel_width(cols, k, chunks, ctx->threads), panels = (k + width - 1) / width;
    const lowrank_sign_kernels *kern = lowrank_sign_kernels_for(ctx->isa);
    const lowrank_sign_fn add = cols->layout == SMM_ROW_MAJOR ? kern->rows : kern->cols;
    smm_status status = SMM_OK;
    float *parts = classical_alloc(chunks * l, ldp, sizeof(float), &status);
    int32_t *bucket = classical_alloc(n, 1, sizeof(int32_t), &status);
    float *sign = classical_alloc(n, 1, sizeof(float), &status);
    if (status == SMM_OK) {
#pragma omp parallel num_threads(ctx->threads)
        {
#pragma omp for schedule(static)
            for (int64_t j = 0; j < n; j++) { /* row j of Omega: sign_j in column bucket_j */
                const uint64_t h = classical_hash(seed, (uint64_t)j);
                bucket[j] = (int32_t)(((h & 0xffffffffu) * (uint64_t)l) >> 32);
                sign[j] = h >> 63 ? -1.0f : 1.0f;
            }
            /* task: the coordinates t0 .. t0 + w of chunk c's partial, every vector of the chunk in order */
#pragma omp for schedule(dynamic, 1)
            for (int64_t task = 0; task < chunks * panels; task++) {
                const int64_t c = task / panels, t0 = task % panels * width, w = k - t0 < width ? k - t0 : width;
                const int64_t j0 = c * SIGN_CHUNK, nb = n - j0 < SIGN_CHUNK ? n - j0 : SIGN_CHUNK;
                float *part = parts + c * l * ldp + t0;
                for (int64_t b = 0; b < l; b++)
                    memset(part + b * ldp, 0, (size_t)w * sizeof *part);
                const float *v = cols->layout == SMM_ROW_MAJOR ? cols->data + j0 * cols->ld + t0
                                                               : cols->data + t0 * cols->ld + j0;
                add(part, ldp, v, cols->ld, bucket + j0, sign + j0, nb, w);
            }
        }
        sum_chunks(ctx->threads, parts, chunks, l, k, ldp, Yt);
        parts = NULL;
    }
    smm_aligned_free(parts);
    smm_aligned_free(bucket);
    smm_aligned_free(sign);
    return status;
}

/*
 * One chunk, columns j0 .. j1 of op(B): its rows of Z, and its partial (op(B) Z)^T into part (when not NULL).
 * With a partial to make from column-major vectors, each block is first transposed into Xt (LOWRANK_BLOCK x k):
 * both products then run on the row-major shapes, which exact_sgemm makes at 3x the speed of op(X)^T's strided one
 * (on Zen 4, 16 x 784 x 128 from a 4096-float stride: 30 against 95 GFLOPS), with the same bits.
 */
static smm_status pass_chunk(const smm_context *one, const approx_vectors *cols, int64_t k, int64_t l,
                             const float *Q, int64_t j0, int64_t j1, float *Z, float *part, float *Xt)
{
    smm_status status = SMM_OK;
    for (int64_t b0 = j0; b0 < j1 && status == SMM_OK; b0 += LOWRANK_BLOCK) {
        const int64_t rows = j1 - b0 < LOWRANK_BLOCK ? j1 - b0 : LOWRANK_BLOCK;
        const float *X;
        int64_t ldx = cols->ld;
        smm_trans tx;
        approx_vectors_operand(cols, b0, &X, &tx); /* op(X) = the block's vectors as rows (rows x k) */
        if (Xt != NULL) {
            unary_kernels_for(one->isa)->transpose(UNARY_IDENTITY, rows, k, X, cols->ld, Xt, k, 0);
            X = Xt;
            ldx = k;
            tx = SMM_NO_TRANS;
        }
        float *zb = Z + b0 * l;
        status = exact_sgemm_with(one, SMM_ROW_MAJOR, tx, SMM_NO_TRANS, rows, l, k, 1.0f, X, ldx, Q, l, 0.0f, zb, l);
        if (status == SMM_OK && part != NULL) /* part += zb^T op(X), the block still in the cache */
            status = exact_sgemm_with(one, SMM_ROW_MAJOR, SMM_TRANS, tx, l, k, rows, 1.0f, zb, l, X, ldx,
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
    const int transpose = Yt != NULL && cols->layout != SMM_ROW_MAJOR;
    int failed = 0;
#pragma omp parallel num_threads(ctx->threads) reduction(| : failed)
    {
        /* each thread's transposition buffer, made once for all the chunks it takes */
        smm_status mine = SMM_OK;
        float *Xt = transpose ? classical_alloc(LOWRANK_BLOCK, k, sizeof(float), &mine) : NULL;
#pragma omp for schedule(dynamic, 1)
        for (int64_t c = 0; c < chunks; c++) {
            const int64_t j0 = c * LOWRANK_CHUNK, j1 = j0 + LOWRANK_CHUNK < n ? j0 + LOWRANK_CHUNK : n;
            if (mine == SMM_OK)
                mine = pass_chunk(&one, cols, k, l, Q, j0, j1, Z, parts != NULL ? parts + c * l * k : NULL, Xt);
        }
        smm_aligned_free(Xt);
        failed |= mine != SMM_OK;
    }
    if (failed) {
        smm_aligned_free(parts);
        return SMM_ERR_NO_MEMORY;
    }
    if (parts != NULL)
        sum_chunks(ctx->threads, parts, chunks, l, k, k, Yt);
    return SMM_OK;
}
