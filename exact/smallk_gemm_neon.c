/*
 * smallk_gemm_neon.c - the small-k product kernel with AArch64 Advanced SIMD
 * (smallk_gemm.h): tiles of up to 8 rows by 12 columns (24 accumulators of 4
 * lanes), the strip's A copied once into a p-major panel, three B loads per
 * p, fused multiply-adds from 0 in increasing p, then alpha (skipped when it
 * is 1) and beta as exact_sgemm's NEON kernel applies them. The last,
 * partial tile goes through local copies (NEON has no masked loads or
 * stores): B's columns zero-padded, C's rows read into and written from a
 * 12-wide buffer, so nothing outside the columns is touched. No streaming
 * stores (stream is ignored). The row count is a compile-time constant in
 * each of the 8 instances the switch picks.
 */
#include <arm_neon.h>

#include "exact/smallk_gemm.h"
#include "exact/smallk_tile_neon.h"

/* The 12 columns at B (row stride ldb) into C (row stride ldc), whole. */
static inline __attribute__((always_inline)) void tile(const int mr, int64_t k, float alpha, const float *Ap,
                                                      const float *b, int64_t ldb, float beta, float *C, int64_t ldc)
{
    float32x4_t acc[SMALLK_NEON_MR][3];
    smallk_tile_neon(mr, k, Ap, b, ldb, acc);
#pragma GCC unroll 8
    for (int r = 0; r < mr; r++) {
        float *c = C + r * ldc;
        for (int h = 0; h < 3; h++) {
            float32x4_t v = acc[r][h];
            if (alpha != 1.0f)
                v = vmulq_n_f32(v, alpha);
            if (beta != 0.0f)
                v = vfmaq_n_f32(v, vld1q_f32(c + 4 * h), beta);
            vst1q_f32(c + 4 * h, v);
        }
    }
}

static inline __attribute__((always_inline)) void strip(const int mr, int64_t n, int64_t k, float alpha,
                                                       const float *Ap, const float *B, int64_t ldb, float beta,
                                                       float *C, int64_t ldc)
{
    const int64_t whole = n / SMALLK_NEON_NR * SMALLK_NEON_NR;
    for (int64_t j = 0; j < whole; j += SMALLK_NEON_NR)
        tile(mr, k, alpha, Ap, B + j, ldb, beta, C + j, ldc);
    if (whole < n) {
        const int64_t width = n - whole;
        float pad[SMALLK_MAX_K * SMALLK_NEON_NR], out[SMALLK_NEON_MR * SMALLK_NEON_NR];
        for (int64_t p = 0; p < k; p++)
            for (int64_t u = 0; u < SMALLK_NEON_NR; u++)
                pad[p * SMALLK_NEON_NR + u] = u < width ? B[p * ldb + whole + u] : 0.0f;
        for (int r = 0; r < mr; r++)
            for (int64_t u = 0; u < SMALLK_NEON_NR; u++)
                out[r * SMALLK_NEON_NR + u] = beta != 0.0f && u < width ? C[r * ldc + whole + u] : 0.0f;
        tile(mr, k, alpha, Ap, pad, SMALLK_NEON_NR, beta, out, SMALLK_NEON_NR);
        for (int r = 0; r < mr; r++)
            for (int64_t u = 0; u < width; u++)
                C[r * ldc + whole + u] = out[r * SMALLK_NEON_NR + u];
    }
}

void smallk_strip_neon_8x12(int64_t rows, int64_t n, int64_t k, float alpha, const float *A, int64_t rsa,
                            int64_t csa, const float *B, int64_t ldb, float beta, float *C, int64_t ldc, int stream)
{
    (void)stream;
    /* the strip's A, p-major: value (r, p) at Ap[p * 8 + r] (rows past the strip's are never read) */
    float Ap[SMALLK_MAX_K * SMALLK_NEON_MR];
    for (int64_t p = 0; p < k; p++)
        for (int64_t r = 0; r < rows; r++)
            Ap[p * SMALLK_NEON_MR + r] = A[r * rsa + p * csa];
    switch (rows) {
    case 1: strip(1, n, k, alpha, Ap, B, ldb, beta, C, ldc); break;
    case 2: strip(2, n, k, alpha, Ap, B, ldb, beta, C, ldc); break;
    case 3: strip(3, n, k, alpha, Ap, B, ldb, beta, C, ldc); break;
    case 4: strip(4, n, k, alpha, Ap, B, ldb, beta, C, ldc); break;
    case 5: strip(5, n, k, alpha, Ap, B, ldb, beta, C, ldc); break;
    case 6: strip(6, n, k, alpha, Ap, B, ldb, beta, C, ldc); break;
    case 7: strip(7, n, k, alpha, Ap, B, ldb, beta, C, ldc); break;
    case 8: strip(8, n, k, alpha, Ap, B, ldb, beta, C, ldc); break;
    default: break;
    }
}
