/*
 * smallk_tile_neon.h - the register tile the two small-k kernels share on
 * AArch64 Advanced SIMD: smallk_gemm_neon.c writes it to C,
 * fused_select_neon.c compares it with the rows' thresholds. One arithmetic
 * for both, so the fused candidate pass and the small-k product give
 * exact_sgemm's NEON bits: up to 8 rows by 12 columns (24 accumulators of 4
 * lanes) from a p-major A panel (value (r, p) at Ap[p * 8 + r]), three B loads
 * of whole 12-column rows per p (a partial tile's B is a zero-padded copy),
 * fused multiply-adds from 0 in increasing p.
 */
#ifndef SMALLK_TILE_NEON_H
#define SMALLK_TILE_NEON_H

#include <arm_neon.h>
#include <stdint.h>

#define SMALLK_NEON_MR 8
#define SMALLK_NEON_NR 12

/* acc[r][h] = sum over p < k of A(r, p) * B(p, 4 h + lane). */
static inline __attribute__((always_inline)) void smallk_tile_neon(const int mr, int64_t k, const float *Ap,
                                                                  const float *b, int64_t ldb,
                                                                  float32x4_t acc[][3])
{
#pragma GCC unroll 8
    for (int r = 0; r < mr; r++)
        for (int h = 0; h < 3; h++)
            acc[r][h] = vdupq_n_f32(0.0f);
    const float *a = Ap;
    for (int64_t p = 0; p < k; p++) {
        const float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4), b2 = vld1q_f32(b + 8);
#pragma GCC unroll 8
        for (int r = 0; r < mr; r++) {
            const float32x4_t av = vdupq_n_f32(a[r]);
            acc[r][0] = vfmaq_f32(acc[r][0], av, b0);
            acc[r][1] = vfmaq_f32(acc[r][1], av, b1);
            acc[r][2] = vfmaq_f32(acc[r][2], av, b2);
        }
        a += SMALLK_NEON_MR;
        b += ldb;
    }
}

#endif
