/*
 * sgemm_kernel_neon.c - the AArch64 Advanced SIMD (NEON) SGEMM micro-kernel
 * (8 x 12).
 *
 * Contract: sgemm_kernel_fn in sgemm_target.h. In scalar terms, for each
 * i < 8 and j < 12:
 *
 *     ab = 0;  for p = 0 .. kc-1:  ab = fma(Ap[p*8 + i], Bp[p*12 + j], ab);
 *     C[i*ldc + j] = alpha*ab                     (beta == 0: C not read)
 *                  = fma(beta, C[i*ldc + j], alpha*ab)       (otherwise)
 *
 * Register use: 24 q-register accumulators (8 rows x three 4-wide column
 * groups), two for the A column (rows 0-3 and 4-7, used lane by lane through
 * vfmaq_laneq_f32) and three for the B row: 29 of the 32 vector registers.
 * Advanced SIMD is baseline on AArch64, so no extra compile flags are needed.
 */
#include <arm_neon.h>

#include "sgemm_target.h"

#define NEON_MR 8
#define NEON_NR 12

/* c[0..11] := alpha*ab (beta_zero) or fma(beta, c, alpha*ab), ab given in three quarters. */
static inline void neon_store_row(float *c, float32x4_t ab0, float32x4_t ab1, float32x4_t ab2,
                                  float alpha, float beta, int beta_zero)
{
    float32x4_t r0 = vmulq_n_f32(ab0, alpha);
    float32x4_t r1 = vmulq_n_f32(ab1, alpha);
    float32x4_t r2 = vmulq_n_f32(ab2, alpha);
    if (!beta_zero) {
        r0 = vfmaq_n_f32(r0, vld1q_f32(c + 0), beta);
        r1 = vfmaq_n_f32(r1, vld1q_f32(c + 4), beta);
        r2 = vfmaq_n_f32(r2, vld1q_f32(c + 8), beta);
    }
    vst1q_f32(c + 0, r0);
    vst1q_f32(c + 4, r1);
    vst1q_f32(c + 8, r2);
}

void sgemm_kernel_neon_8x12(int64_t kc, float alpha, const float *restrict Ap,
                            const float *restrict Bp, float beta, float *restrict C, int64_t ldc)
{
    const float32x4_t zero = vdupq_n_f32(0.0f);
    float32x4_t c00 = zero, c01 = zero, c02 = zero;
    float32x4_t c10 = zero, c11 = zero, c12 = zero;
    float32x4_t c20 = zero, c21 = zero, c22 = zero;
    float32x4_t c30 = zero, c31 = zero, c32 = zero;
    float32x4_t c40 = zero, c41 = zero, c42 = zero;
    float32x4_t c50 = zero, c51 = zero, c52 = zero;
    float32x4_t c60 = zero, c61 = zero, c62 = zero;
    float32x4_t c70 = zero, c71 = zero, c72 = zero;

    for (int64_t p = 0; p < kc; p++) {
        const float32x4_t a_lo = vld1q_f32(Ap);     /* rows 0-3 */
        const float32x4_t a_hi = vld1q_f32(Ap + 4); /* rows 4-7 */
        const float32x4_t b0 = vld1q_f32(Bp);
        const float32x4_t b1 = vld1q_f32(Bp + 4);
        const float32x4_t b2 = vld1q_f32(Bp + 8);

/* row i of the tile += a(i) * b, a(i) being lane `lane` of vector `a` */
#define NEON_ROW(ci0, ci1, ci2, a, lane)            \
    do {                                            \
        ci0 = vfmaq_laneq_f32(ci0, b0, a, lane);    \
        ci1 = vfmaq_laneq_f32(ci1, b1, a, lane);    \
        ci2 = vfmaq_laneq_f32(ci2, b2, a, lane);    \
    } while (0)
        NEON_ROW(c00, c01, c02, a_lo, 0);
        NEON_ROW(c10, c11, c12, a_lo, 1);
        NEON_ROW(c20, c21, c22, a_lo, 2);
        NEON_ROW(c30, c31, c32, a_lo, 3);
        NEON_ROW(c40, c41, c42, a_hi, 0);
        NEON_ROW(c50, c51, c52, a_hi, 1);
        NEON_ROW(c60, c61, c62, a_hi, 2);
        NEON_ROW(c70, c71, c72, a_hi, 3);
#undef NEON_ROW

        Ap += NEON_MR;
        Bp += NEON_NR;
    }

    const int beta_zero = beta == 0.0f;
    neon_store_row(C + 0 * ldc, c00, c01, c02, alpha, beta, beta_zero);
    neon_store_row(C + 1 * ldc, c10, c11, c12, alpha, beta, beta_zero);
    neon_store_row(C + 2 * ldc, c20, c21, c22, alpha, beta, beta_zero);
    neon_store_row(C + 3 * ldc, c30, c31, c32, alpha, beta, beta_zero);
    neon_store_row(C + 4 * ldc, c40, c41, c42, alpha, beta, beta_zero);
    neon_store_row(C + 5 * ldc, c50, c51, c52, alpha, beta, beta_zero);
    neon_store_row(C + 6 * ldc, c60, c61, c62, alpha, beta, beta_zero);
    neon_store_row(C + 7 * ldc, c70, c71, c72, alpha, beta, beta_zero);
}
