/*
 * pq_encode.c - product-quantization codes: the nearest-centroid rule, the
 * packed block layout (writing, reading back, decoding) and the finiteness
 * check shared with pq_train.c (see pq.h).
 *
 * Plain C for the baseline CPU. Each vector's codes depend on that vector and
 * the codebook only, each block of 32 vectors is written by one thread, so
 * codes are bit-identical for every thread count and ISA path.
 */
#include <math.h>
#include <string.h>

#include "sketch/pq.h"

/* Work (values) below which the finiteness check and the encoder stay on one thread. */
#define PQ_PARALLEL_MIN_WORK 32768

int pq_all_finite(const smm_context *ctx, const float *X, int64_t rows, int64_t k, int64_t ld)
{
    int bad = 0;
    #pragma omp parallel for num_threads(ctx->threads) schedule(static) reduction(|| : bad) \
        if (rows * k >= PQ_PARALLEL_MIN_WORK)
    for (int64_t i = 0; i < rows; i++) {
        const float *x = X + i * ld;
        int row_bad = 0;
        for (int64_t t = 0; t < k; t++)
            row_bad |= !isfinite(x[t]);
        bad = bad || row_bad;
    }
    return !bad;
}

int pq_nearest_centroid(const float *x, const float *ct, int64_t d, float *dist)
{
    float acc[PQ_CENTROIDS] = { 0 };
    for (int64_t t = 0; t < d; t++) {
        const float v = x[t];
        const float *c = ct + t * PQ_CENTROIDS;
        for (int cc = 0; cc < PQ_CENTROIDS; cc++) {
            const float e = v - c[cc];
            acc[cc] += e * e;
        }
    }
    int best = 0;
    float bd = acc[0];
    for (int cc = 1; cc < PQ_CENTROIDS; cc++)
        if (acc[cc] < bd) {
            bd = acc[cc];
            best = cc;
        }
    if (dist != NULL)
        *dist = bd;
    return best;
}

/* Row-major vectors against a codebook: the source of pq_encode's codes. */
typedef struct {
    const pq_codebook *cb;
    const float *X;
    int64_t ld;
} nearest_rows;

static void nearest_codes(const void *arg, int64_t j, uint8_t *codes)
{
    const nearest_rows *r = arg;
    const pq_codebook *cb = r->cb;
    const float *x = r->X + j * r->ld;
    for (int32_t m = 0; m < cb->M; m++) {
        const int64_t lo = cb->start[m];
        codes[m] = (uint8_t)pq_nearest_centroid(x + lo, cb->centroids_t + PQ_CENTROIDS * lo, cb->start[m + 1] - lo,
                                                NULL);
    }
}

int64_t pq_codes_bytes(int32_t M, int64_t n)
{
    if (n < 0 || M < 1)
        return -1;
    const int64_t blocks = n / PQ_BLOCK + (n % PQ_BLOCK != 0);
    int64_t bytes;
    if (smm_mul_size(blocks, pq_block_bytes(M), &bytes) != SMM_OK)
        return -1;
    return bytes;
}

smm_status pq_encode(const smm_context *ctx, const pq_codebook *cb, const float *X, int64_t n, int64_t ld,
                     uint8_t *codes)
{
    if (ctx == NULL || cb == NULL)
        return SMM_ERR_NULL_POINTER;
    if (n < 0)
        return SMM_ERR_BAD_SIZE;
    const int64_t k = cb->k;
    const int32_t M = cb->M;
    smm_status st = smm_check_matrix(SMM_ROW_MAJOR, n, k, X, ld, sizeof(float));
    if (st != SMM_OK)
        return st;
    if (n == 0)
        return SMM_OK;
    if (codes == NULL)
        return SMM_ERR_NULL_POINTER;
    const int64_t bytes = pq_codes_bytes(M, n);
    if (bytes < 0 || (uint64_t)bytes > (uint64_t)PTRDIFF_MAX)
        return SMM_ERR_OVERFLOW;
    if (!pq_all_finite(ctx, X, n, k, ld))
        return SMM_ERR_NON_FINITE;

    const nearest_rows rows = { cb, X, ld };
    pq_pack(ctx, n, M, n * k >= PQ_PARALLEL_MIN_WORK, nearest_codes, &rows, codes);
    return SMM_OK;
}

void pq_pack(const smm_context *ctx, int64_t n, int32_t M, int parallel, pq_codes_fn codes, const void *arg,
             uint8_t *out)
{
    const int64_t blocks = (n + PQ_BLOCK - 1) / PQ_BLOCK, bb = pq_block_bytes(M);
    #pragma omp parallel for num_threads(ctx->threads) schedule(static) if (parallel)
    for (int64_t b = 0; b < blocks; b++) {
        uint8_t *blk = out + b * bb;
        uint8_t c[PQ_MAX_SUBSPACES];
        memset(blk, 0, (size_t)bb);
        const int64_t j0 = b * PQ_BLOCK;
        const int64_t cnt = n - j0 < PQ_BLOCK ? n - j0 : PQ_BLOCK;
        for (int64_t t = 0; t < cnt; t++) {
            codes(arg, j0 + t, c);
            uint8_t *byte = blk + (t & 15);
            const int shift = (int)(t >> 4) * 4;
            for (int32_t m = 0; m < M; m++)
                byte[16 * m] |= (uint8_t)(c[m] << shift);
        }
    }
}

int pq_code_at(const uint8_t *codes, int32_t M, int64_t j, int32_t m)
{
    const uint8_t byte = codes[(j / PQ_BLOCK) * pq_block_bytes(M) + 16 * (int64_t)m + (j % PQ_BLOCK) % 16];
    return (j % PQ_BLOCK) < 16 ? byte & 15 : byte >> 4;
}

void pq_decode(const pq_codebook *cb, const uint8_t *codes, int64_t j, float *x)
{
    for (int32_t m = 0; m < cb->M; m++) {
        const int64_t lo = cb->start[m], d = cb->start[m + 1] - lo;
        const int c = pq_code_at(codes, cb->M, j, m);
        memcpy(x + lo, cb->centroids + PQ_CENTROIDS * lo + c * d, (size_t)d * sizeof(float));
    }
}
