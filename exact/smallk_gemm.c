/*
 * smallk_gemm.c - the table of the small-k product kernels, one row per ISA
 * path (common/smm_dispatch.h), and the driver that splits C into strips of
 * rows among the threads (smallk_gemm.h).
 */
#include "exact/smallk_gemm.h"

#include <stdint.h>

static const smallk_kernels table[SMM_ISA_COUNT] = {
    [SMM_ISA_SCALAR] = { { "scalar", 0 }, 4, smallk_strip_scalar },
#if defined(__x86_64__)
    [SMM_ISA_AVX2] = { { "avx2_6x16_stream", 0 }, 6, smallk_strip_avx2_6x16 },
    [SMM_ISA_AVX512] = { { "avx512_12x32_stream", 0 }, 12, smallk_strip_avx512_12x32 },
#endif
#if defined(__aarch64__)
    [SMM_ISA_NEON] = { { "neon_8x12", 0 }, 8, smallk_strip_neon_8x12 },
#endif
};

const smallk_kernels *smallk_kernels_for(smm_isa isa)
{
    return SMM_KERNELS_FOR(table, isa);
}

/* Products of fewer multiply-adds than this run on one thread (a parallel region costs more than they do). */
#define SMALLK_PARALLEL_MIN_MACS (64.0 * 64.0 * 64.0)

smm_status smallk_gemm(const smm_context *ctx, int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                       int64_t rsa, int64_t csa, const float *B, int64_t rsb, int64_t csb, float beta, float *C,
                       int64_t rs_c, int64_t cs_c)
{
    /* a column-major C (rows contiguous down the columns) is the row-major C^T = op(B)^T op(A)^T */
    if (!(cs_c == 1 && (rs_c != 1 || n == 1))) {
        const int64_t t = m;
        m = n;
        n = t;
        const float *p = A;
        A = B;
        B = p;
        int64_t s = rsa;
        rsa = csb;
        csb = s;
        s = csa;
        csa = rsb;
        rsb = s;
        rs_c = cs_c;
    }
    /* B's rows contiguous, or a copy of it that has them */
    float *copy = NULL;
    if (csb != 1 && n > 1) {
        copy = smm_aligned_alloc((size_t)k * (size_t)n * sizeof(float));
        if (copy == NULL)
            return SMM_ERR_NO_MEMORY;
        for (int64_t j = 0; j < n; j++)
            for (int64_t p = 0; p < k; p++)
                copy[p * n + j] = B[p * rsb + j * csb];
        B = copy;
        rsb = n;
    }
    const smallk_kernels *kern = smallk_kernels_for(ctx->isa);
    const int64_t ldc = rs_c, mr = kern->mr, strips = (m + mr - 1) / mr;
    const int stream = beta == 0.0f && ldc % 16 == 0 && (uintptr_t)C % sizeof(float) == 0 &&
                       (double)m * (double)ldc * sizeof(float) >= SMALLK_STREAM_BYTES;
    const int threads = (double)m * (double)n * (double)k < SMALLK_PARALLEL_MIN_MACS ? 1
                        : strips < ctx->threads                                     ? (int)strips
                                                                                    : ctx->threads;
    /* contiguous runs of strips per thread: each thread writes one band of C's rows */
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (int64_t strip = 0; strip < strips; strip++) {
        const int64_t i0 = strip * mr, rows = m - i0 < mr ? m - i0 : mr;
        kern->strip(rows, n, k, alpha, A + i0 * rsa, rsa, csa, B, rsb, beta, C + i0 * ldc, ldc, stream);
    }
    smm_aligned_free(copy);
    return SMM_OK;
}
