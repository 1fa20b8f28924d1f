/*
 * fused_select_avx2.c - the fused candidate-pass kernel with AVX2 and FMA
 * (fused_select.h): tiles of up to 6 rows by 16 columns (12 accumulators),
 * the strip's A copied once into a p-major panel (one broadcast per value
 * from a fixed offset), two B loads per p (masked loads on the last, partial
 * tile), fused multiply-adds from 0 in increasing p: exact_sgemm's AVX2
 * arithmetic. Each tile's compares with the rows' thresholds become one bit
 * mask per row; only a row with a set bit is stored, and its set bits are
 * taken into its selection (top_select_take). The row count is a
 * compile-time constant in each of the 6 instances the switch picks.
 */
#include <immintrin.h>

#include "approx/fused_select.h"
#include "exact/smallk_tile_avx2.h"

static inline __attribute__((always_inline)) void strip(const int mr, int64_t cols, int64_t s, const float *Ap,
                                                       const float *B, int64_t ldb, int64_t j0, top_select *sel)
{
    float thr[SMALLK_AVX2_MR];
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++)
        thr[r] = sel[r].threshold;
    for (int64_t c = 0; c < cols; c += SMALLK_AVX2_NR) {
        const int64_t width = cols - c < SMALLK_AVX2_NR ? cols - c : SMALLK_AVX2_NR;
        const int partial = width < SMALLK_AVX2_NR;
        const __m256i v0 = smallk_lanes_avx2(width), v1 = smallk_lanes_avx2(width - 8);
        __m256 acc[SMALLK_AVX2_MR][2];
        smallk_tile_avx2(mr, s, width, v0, v1, Ap, B + c, ldb, acc);
        uint32_t hit[SMALLK_AVX2_MR]; /* bit u: column c + u above the row's threshold */
        uint32_t any = 0;
#pragma GCC unroll 6
        for (int r = 0; r < mr; r++) {
            const __m256 t = _mm256_broadcast_ss(&thr[r]);
            __m256 c0 = _mm256_cmp_ps(acc[r][0], t, _CMP_GT_OQ), c1 = _mm256_cmp_ps(acc[r][1], t, _CMP_GT_OQ);
            if (partial) { /* lanes past the columns hold 0, which may be above a negative threshold */
                c0 = _mm256_and_ps(c0, _mm256_castsi256_ps(v0));
                c1 = _mm256_and_ps(c1, _mm256_castsi256_ps(v1));
            }
            hit[r] = (uint32_t)_mm256_movemask_ps(c0) | (uint32_t)_mm256_movemask_ps(c1) << 8;
            any |= hit[r];
        }
        if (__builtin_expect(any != 0, 0)) {
#pragma GCC unroll 6
            for (int r = 0; r < mr; r++)
                if (hit[r]) { /* only a row with a hit is stored */
                    float row[SMALLK_AVX2_NR] __attribute__((aligned(32)));
                    _mm256_store_ps(row, acc[r][0]);
                    _mm256_store_ps(row + 8, acc[r][1]);
                    top_select_take(&sel[r], row, hit[r], j0 + c);
                    thr[r] = sel[r].threshold;
                }
        }
    }
}

void fused_select_avx2_6x16(int64_t rows, int64_t cols, int64_t s, const float *A, int64_t lda, const float *B,
                            int64_t ldb, int64_t j0, top_select *sel)
{
    /* the strip's A, p-major: value (r, p) at Ap[p * 6 + r] (rows past the strip's are never read) */
    float Ap[FUSED_SELECT_MAX_DIM * SMALLK_AVX2_MR];
    for (int64_t p = 0; p < s; p++)
        for (int64_t r = 0; r < rows; r++)
            Ap[p * SMALLK_AVX2_MR + r] = A[r * lda + p];
    switch (rows) {
    case 1: strip(1, cols, s, Ap, B, ldb, j0, sel); break;
    case 2: strip(2, cols, s, Ap, B, ldb, j0, sel); break;
    case 3: strip(3, cols, s, Ap, B, ldb, j0, sel); break;
    case 4: strip(4, cols, s, Ap, B, ldb, j0, sel); break;
    case 5: strip(5, cols, s, Ap, B, ldb, j0, sel); break;
    case 6: strip(6, cols, s, Ap, B, ldb, j0, sel); break;
    default: break;
    }
}
