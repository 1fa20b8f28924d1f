/*
 * smallk_gemm_avx512.c - the small-k product kernel with AVX-512F
 * (smallk_gemm.h): tiles of up to 12 rows by 32 columns (24 accumulators),
 * the strip's A copied once into a p-major panel (one broadcast per value
 * from a fixed offset), two B loads per p, fused multiply-adds from 0 in
 * increasing p, then alpha (skipped when it is 1: x * 1 == x) and beta as
 * exact_sgemm's AVX-512 kernels apply them. Partial tiles load and store
 * under masks (lanes past the columns are neither read nor written). With
 * stream set, the columns before row 0's first 64-byte boundary are a
 * partial tile with regular stores, the whole 32-column tiles after it are
 * written with non-temporal stores (two aligned lines per row), the rest
 * with regular stores, and an sfence orders them before returning. The row
 * count is a compile-time constant in each of the 12 instances the switch
 * picks.
 */
#include <immintrin.h>

#include "exact/smallk_gemm.h"
#include "exact/smallk_tile_avx512.h"


/* Columns 0 .. width - 1 (<= 32) of the strip's rows; nt: whole aligned tile, non-temporal stores. */
static inline __attribute__((always_inline)) void tile(const int mr, int64_t width, int64_t k, float alpha,
                                                      const float *Ap, const float *B, int64_t ldb, float beta,
                                                      float *C, int64_t ldc, int nt)
{
    const __mmask16 m0 = smallk_lanes_avx512(width), m1 = smallk_lanes_avx512(width - 16);
    __m512 acc[SMALLK_AVX512_MR][2];
    smallk_tile_avx512(mr, k, m0, m1, Ap, B, ldb, acc);
    const __m512 valpha = _mm512_set1_ps(alpha), vbeta = _mm512_set1_ps(beta);
#pragma GCC unroll 12
    for (int r = 0; r < mr; r++) {
        float *c = C + r * ldc;
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) {
            const __mmask16 mask = h == 0 ? m0 : m1;
            __m512 v = acc[r][h];
            if (alpha != 1.0f)
                v = _mm512_mul_ps(valpha, v);
            if (beta != 0.0f)
                v = _mm512_fmadd_ps(vbeta, _mm512_maskz_loadu_ps(mask, c + 16 * h), v);
            if (nt)
                _mm512_stream_ps(c + 16 * h, v);
            else
                _mm512_mask_storeu_ps(c + 16 * h, mask, v);
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
        for (; j + SMALLK_AVX512_NR <= n; j += SMALLK_AVX512_NR)
            tile(mr, SMALLK_AVX512_NR, k, alpha, Ap, B + j, ldb, beta, C + j, ldc, 1);
    }
    for (; j < n; j += SMALLK_AVX512_NR)
        tile(mr, n - j < SMALLK_AVX512_NR ? n - j : SMALLK_AVX512_NR, k, alpha, Ap, B + j, ldb, beta, C + j, ldc, 0);
    if (stream)
        _mm_sfence();
}

void smallk_strip_avx512_12x32(int64_t rows, int64_t n, int64_t k, float alpha, const float *A, int64_t rsa,
                               int64_t csa, const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                               int stream)
{
    /* the strip's A, p-major: value (r, p) at Ap[p * 12 + r] (rows past the strip's are never read) */
    float Ap[SMALLK_MAX_K * SMALLK_AVX512_MR];
    for (int64_t p = 0; p < k; p++)
        for (int64_t r = 0; r < rows; r++)
            Ap[p * SMALLK_AVX512_MR + r] = A[r * rsa + p * csa];
    switch (rows) {
    case 1: strip(1, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    case 2: strip(2, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    case 3: strip(3, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    case 4: strip(4, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    case 5: strip(5, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    case 6: strip(6, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    case 7: strip(7, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    case 8: strip(8, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    case 9: strip(9, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    case 10: strip(10, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    case 11: strip(11, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    case 12: strip(12, n, k, alpha, Ap, B, ldb, beta, C, ldc, stream); break;
    default: break;
    }
}
