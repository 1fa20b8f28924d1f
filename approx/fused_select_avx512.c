/*
 * fused_select_avx512.c - the fused candidate-pass kernel with AVX-512F
 * (fused_select.h): tiles of up to 12 rows by 32 columns (24 accumulators),
 * the strip's A copied once into a p-major panel so that each of its values
 * is one broadcast from a fixed offset, two B loads per p (masked to the
 * tile's columns), fused multiply-adds from 0 in increasing p: exact_sgemm's
 * AVX-512 arithmetic. Each tile is compared with the rows' thresholds into
 * masks (lanes past the columns masked off); only a row with a set bit is
 * stored, and its set bits are taken into its selection (top_select_take). The row count is a compile-time constant in each of
 * the 12 instances the switch picks.
 */
#include <immintrin.h>

#include "approx/fused_select.h"
#include "exact/smallk_tile_avx512.h"


static inline __attribute__((always_inline)) void strip(const int mr, int64_t cols, int64_t s, const float *Ap,
                                                       const float *B, int64_t ldb, int64_t j0, top_select *sel)
{
    float thr[SMALLK_AVX512_MR];
#pragma GCC unroll 12
    for (int r = 0; r < mr; r++)
        thr[r] = sel[r].threshold;
    for (int64_t c = 0; c < cols; c += SMALLK_AVX512_NR) {
        const int64_t width = cols - c < SMALLK_AVX512_NR ? cols - c : SMALLK_AVX512_NR;
        const __mmask16 m0 = smallk_lanes_avx512(width), m1 = smallk_lanes_avx512(width - 16);
        __m512 acc[SMALLK_AVX512_MR][2];
        smallk_tile_avx512(mr, s, m0, m1, Ap, B + c, ldb, acc);
        uint32_t hit[SMALLK_AVX512_MR]; /* bit u: column c + u above the row's threshold */
        uint32_t any = 0;
#pragma GCC unroll 12
        for (int r = 0; r < mr; r++) {
            const __m512 t = _mm512_set1_ps(thr[r]);
            hit[r] = (uint32_t)_mm512_mask_cmp_ps_mask(m0, acc[r][0], t, _CMP_GT_OQ) |
                     (uint32_t)_mm512_mask_cmp_ps_mask(m1, acc[r][1], t, _CMP_GT_OQ) << 16;
            any |= hit[r];
        }
        if (__builtin_expect(any != 0, 0)) {
#pragma GCC unroll 12
            for (int r = 0; r < mr; r++)
                if (hit[r]) { /* only a row with a hit is stored */
                    float row[SMALLK_AVX512_NR] __attribute__((aligned(64)));
                    _mm512_store_ps(row, acc[r][0]);
                    _mm512_store_ps(row + 16, acc[r][1]);
                    top_select_take(&sel[r], row, hit[r], j0 + c);
                    thr[r] = sel[r].threshold;
                }
        }
    }
}

void fused_select_avx512_12x32(int64_t rows, int64_t cols, int64_t s, const float *A, int64_t lda, const float *B,
                               int64_t ldb, int64_t j0, top_select *sel)
{
    /* the strip's A, p-major: value (r, p) at Ap[p * 12 + r] (rows past the strip's are never read) */
    float Ap[FUSED_SELECT_MAX_DIM * SMALLK_AVX512_MR];
    for (int64_t p = 0; p < s; p++)
        for (int64_t r = 0; r < rows; r++)
            Ap[p * SMALLK_AVX512_MR + r] = A[r * lda + p];
    switch (rows) {
    case 1: strip(1, cols, s, Ap, B, ldb, j0, sel); break;
    case 2: strip(2, cols, s, Ap, B, ldb, j0, sel); break;
    case 3: strip(3, cols, s, Ap, B, ldb, j0, sel); break;
    case 4: strip(4, cols, s, Ap, B, ldb, j0, sel); break;
    case 5: strip(5, cols, s, Ap, B, ldb, j0, sel); break;
    case 6: strip(6, cols, s, Ap, B, ldb, j0, sel); break;
    case 7: strip(7, cols, s, Ap, B, ldb, j0, sel); break;
    case 8: strip(8, cols, s, Ap, B, ldb, j0, sel); break;
    case 9: strip(9, cols, s, Ap, B, ldb, j0, sel); break;
    case 10: strip(10, cols, s, Ap, B, ldb, j0, sel); break;
    case 11: strip(11, cols, s, Ap, B, ldb, j0, sel); break;
    case 12: strip(12, cols, s, Ap, B, ldb, j0, sel); break;
    default: break;
    }
}
