/*
 * fused_select_avx512.c - the fused candidate-pass kernel with AVX-512F
 * (fused_select.h): tiles of up to 12 rows by 32 columns (24 accumulators),
 * the strip's A copied once into a p-major panel so that each of its values
 * is one broadcast from a fixed offset, two B loads per p (masked to the
 * tile's columns), fused multiply-adds from 0 in increasing p: exact_sgemm's
 * AVX-512 arithmetic. Each tile is compared with the rows' thresholds into
 * masks (lanes past the columns masked off); only when one is set is the
 * tile stored and the rows that have a score above their threshold fed,
 * 32 columns at a time. The row count is a compile-time constant in each of
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
        __mmask16 hit[SMALLK_AVX512_MR];
        unsigned any = 0;
#pragma GCC unroll 12
        for (int r = 0; r < mr; r++) {
            const __m512 t = _mm512_set1_ps(thr[r]);
            hit[r] = (__mmask16)(_mm512_mask_cmp_ps_mask(m0, acc[r][0], t, _CMP_GT_OQ) |
                                 _mm512_mask_cmp_ps_mask(m1, acc[r][1], t, _CMP_GT_OQ));
            any |= hit[r];
        }
        if (__builtin_expect(any != 0, 0)) {
            float tile[SMALLK_AVX512_MR][SMALLK_AVX512_NR] __attribute__((aligned(64)));
#pragma GCC unroll 12
            for (int r = 0; r < mr; r++) {
                _mm512_store_ps(tile[r], acc[r][0]);
                _mm512_store_ps(tile[r] + 16, acc[r][1]);
            }
            for (int r = 0; r < mr; r++)
                if (hit[r]) {
                    top_select_feed(&sel[r], tile[r], j0 + c, width);
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
