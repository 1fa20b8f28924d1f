/*
 * fused_select_neon.c - the fused candidate-pass kernel with AArch64
 * Advanced SIMD (fused_select.h): tiles of up to 8 rows by 12 columns (24
 * accumulators of 4 lanes), the strip's A copied once into a p-major panel,
 * three B loads per p, fused multiply-adds from 0 in increasing p:
 * exact_sgemm's NEON arithmetic. The last, partial tile reads B's columns
 * from a zero-padded copy (NEON has no masked loads) and masks the lanes past
 * the columns off the compares. Each tile's compares with the rows'
 * thresholds become one bit mask per row; only a row with a set bit is
 * stored, and its set bits are taken into its selection (top_select_take). The row count is a compile-time constant in each of the 8
 * instances the switch picks.
 */
#include <arm_neon.h>

#include "approx/fused_select.h"
#include "exact/smallk_tile_neon.h"

static inline __attribute__((always_inline)) void tile(const int mr, int64_t width, int64_t s, const float *Ap,
                                                      const float *b, int64_t ldb, int64_t j, float *thr,
                                                      top_select *sel)
{
    float32x4_t acc[SMALLK_NEON_MR][3];
    smallk_tile_neon(mr, s, Ap, b, ldb, acc);
    /* lanes past the columns (zero-padded: 0 may be above a negative threshold) are masked off */
    const int32x4_t col = { 0, 1, 2, 3 };
    const uint32x4_t v0 = vcltq_s32(col, vdupq_n_s32((int32_t)width));
    const uint32x4_t v1 = vcltq_s32(col, vdupq_n_s32((int32_t)width - 4));
    const uint32x4_t v2 = vcltq_s32(col, vdupq_n_s32((int32_t)width - 8));
    const uint32x4_t weight = { 1, 2, 4, 8 }; /* lane l of a compare to bit l */
    uint32_t hit[SMALLK_NEON_MR]; /* bit u: column j + u above the row's threshold */
    uint32_t any = 0;
#pragma GCC unroll 8
    for (int r = 0; r < mr; r++) {
        const float32x4_t t = vdupq_n_f32(thr[r]);
        hit[r] = vaddvq_u32(vandq_u32(vandq_u32(vcgtq_f32(acc[r][0], t), v0), weight)) |
                 vaddvq_u32(vandq_u32(vandq_u32(vcgtq_f32(acc[r][1], t), v1), weight)) << 4 |
                 vaddvq_u32(vandq_u32(vandq_u32(vcgtq_f32(acc[r][2], t), v2), weight)) << 8;
        any |= hit[r];
    }
    if (__builtin_expect(any != 0, 0)) {
#pragma GCC unroll 8
        for (int r = 0; r < mr; r++)
            if (hit[r]) { /* only a row with a hit is stored */
                float row[SMALLK_NEON_NR];
                for (int h = 0; h < 3; h++)
                    vst1q_f32(row + 4 * h, acc[r][h]);
                top_select_take(&sel[r], row, hit[r], j);
                thr[r] = sel[r].threshold;
            }
    }
}

static inline __attribute__((always_inline)) void strip(const int mr, int64_t cols, int64_t s, const float *Ap,
                                                       const float *B, int64_t ldb, int64_t j0, top_select *sel)
{
    float thr[SMALLK_NEON_MR];
    for (int r = 0; r < mr; r++)
        thr[r] = sel[r].threshold;
    const int64_t whole = cols / SMALLK_NEON_NR * SMALLK_NEON_NR;
    for (int64_t c = 0; c < whole; c += SMALLK_NEON_NR)
        tile(mr, SMALLK_NEON_NR, s, Ap, B + c, ldb, j0 + c, thr, sel);
    if (whole < cols) { /* the last columns from a zero-padded copy */
        const int64_t width = cols - whole;
        float pad[FUSED_SELECT_MAX_DIM * SMALLK_NEON_NR];
        for (int64_t p = 0; p < s; p++)
            for (int64_t u = 0; u < SMALLK_NEON_NR; u++)
                pad[p * SMALLK_NEON_NR + u] = u < width ? B[p * ldb + whole + u] : 0.0f;
        tile(mr, width, s, Ap, pad, SMALLK_NEON_NR, j0 + whole, thr, sel);
    }
}

void fused_select_neon_8x12(int64_t rows, int64_t cols, int64_t s, const float *A, int64_t lda, const float *B,
                            int64_t ldb, int64_t j0, top_select *sel)
{
    /* the strip's A, p-major: value (r, p) at Ap[p * 8 + r] (rows past the strip's are never read) */
    float Ap[FUSED_SELECT_MAX_DIM * SMALLK_NEON_MR];
    for (int64_t p = 0; p < s; p++)
        for (int64_t r = 0; r < rows; r++)
            Ap[p * SMALLK_NEON_MR + r] = A[r * lda + p];
    switch (rows) {
    case 1: strip(1, cols, s, Ap, B, ldb, j0, sel); break;
    case 2: strip(2, cols, s, Ap, B, ldb, j0, sel); break;
    case 3: strip(3, cols, s, Ap, B, ldb, j0, sel); break;
    case 4: strip(4, cols, s, Ap, B, ldb, j0, sel); break;
    case 5: strip(5, cols, s, Ap, B, ldb, j0, sel); break;
    case 6: strip(6, cols, s, Ap, B, ldb, j0, sel); break;
    case 7: strip(7, cols, s, Ap, B, ldb, j0, sel); break;
    case 8: strip(8, cols, s, Ap, B, ldb, j0, sel); break;
    default: break;
    }
}
