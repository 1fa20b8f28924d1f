/*
 * smallk_gemm_avx2.c - the small-k product kernel with AVX2 and FMA
 * (smallk_gemm.h): tiles of up to 6 rows by 16 columns (12 accumulators),
 * the strip's A copied once into a p-major panel, two B loads per p, fused
 * multiply-adds from 0 in increasing p, then alpha (skipped when it is 1)
 * and beta as exact_sgemm's AVX2 kernels apply them. Partial tiles load and
 * store under masks (lanes past the columns are neither read nor written).
 * With stream set, the columns before row 0's first 64-byte boundary are a
 * partial tile with regular stores, each whole 16-column tile after it (one
 * aligned line per row) is written with non-temporal stores, the rest with
 * regular stores, and an sfence orders them before returning. The row count
 * is a compile-time constant in each of the 6 instances the switch picks.
 */
#include <immintrin.h>

#include "exact/smallk_gemm.h"
#include "exact/smallk_tile_avx2.h"

/* Columns 0 .. width - 1 (<= 16) of the strip's rows; nt: whole aligned tile, non-temporal stores. */
static inline __attribute__((always_inline)) void tile(const int mr, int64_t width, int64_t k, float alpha,
                                                      const float *Ap, const float *B, int64_t ldb, float beta,
                                                      float *C, int64_t ldc, int nt)
{
    const int partial = width < SMALLK_AVX2_NR;
    const __m256i v0 = smallk_lanes_avx2(width), v1 = smallk_lanes_avx2(width - 8);
    __m256 acc[SMALLK_AVX2_MR][2];
    smallk_tile_avx2(mr, k, width, v0, v1, Ap, B, ldb, acc);
    const __m256 valpha = _mm256_set1_ps(alpha), vbeta = _mm256_set1_ps(beta);
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++) {
        float *c = C + r * ldc;
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) {
            const __m256i mask = h == 0 ? v0 : v1;
            __m256 v = acc[r][h];
            if (alpha != 1.0f)
                v = _mm256_mul_ps(valpha, v);
            if (beta != 0.0f)
                v = _mm256_fmadd_ps(vbeta, partial ? _mm256_maskload_ps(c + 8 * h, mask) : _mm256_loadu_ps(c + 8 * h),
                                    v);
            if (nt)
                _mm256_stream_ps(c + 8 * h, v);
            else if (partial)
                _mm256_maskstore_ps(c + 8 * h, mask, v);
            else
                _mm256_storeu_ps(c + 8 * h, v);
        }
    }
}

static inline __attribute__((always_inline)) void strip(const int mr, int64_t n, int64_t k, float alpha,
                                                       const float *Ap, const float *B, int64_t ldb, float beta,
                                                       float *C, int64_t ldc, int stream)
{
    int64_t j = 0;
    if (stream) {
        const int64_t head = (int64_t)(((64 - ((uintptr_t)C & 63)) & 63) / sizeof(float));
        if (head > 0) {
            j = head < n ? head : n;
            tile(mr, j, k, alpha, Ap, B, ldb, beta, C, ldc, 0);
        }
        for (; j + SMALLK_AVX2_NR <= n; j += SMALLK_AVX2_NR)
            tile(mr, SMALLK_AVX2_NR, k, alpha, Ap, B + j, ldb, beta, C + j, ldc, 1);
    }
    for (; j < n; j += SMALLK_AVX2_NR)
        tile(mr, n - j < SMALLK_AVX2_NR ? n - j : SMALLK_AVX2_NR, k, alpha, Ap, B + j, ldb, beta, C + j, ldc, 0);
    if (stream)
        _mm_sfence();
}

void smallk_strip_avx2_6x16(int64_t rows, int64_t n, int64_t k, float alpha, const float *A, int64_t rsa,
                            int64_t csa, const float *B, int64_t ldb, float beta, float *C, int64_t ldc, int stream)
{
    /* the strip's A, p-major: value (r, p) at Ap[p * 6 + r] (rows past the strip's are never read) */
    float Ap[SMALLK_MAX_K * SMALLK_AVX2_MR];
    for (int64_t p = 0; p < k; p++)
        for (int64_t r = 0; r < rows; r++)
            Ap[p * SMALLK_AVX2_MR + r] = A[r * rsa + p * csa];
    switch (rows) {
    case 1: strip(1, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    case 2: strip(2, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    case 3: strip(3, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    case 4: strip(4, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    case 5: strip(5, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    case 6: strip(6, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    default: break;
    }
}
