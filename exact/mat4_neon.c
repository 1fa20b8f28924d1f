/*
 * mat4_neon.c - 4x4 multiply kernels of sketchmm/mat4.h with AArch64
 * Advanced SIMD (contract in mat4_kernels.h). Row i of C is
 * sum_k a[i][k] * (row k of B), with the operations of mat4_avx2.c:
 * acc = a0 b0, then acc += a1 b1, a2 b2, a3 b3 (fused), C = acc.
 *   f32: one q register per row of C, a[i][k] taken as a lane of A's row
 *        (vfmaq_laneq_f32: no broadcast instruction needed).
 *   f64: two q registers per row (columns 0-1 and 2-3).
 * The inverse on this path is the portable one (mat4_scalar.c).
 */
#include <arm_neon.h>

#include <stdint.h>

#include "exact/mat4_kernels.h"


static inline void mul_f32_one(const float *a, const float *b, float *c)
{
    const float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4), b2 = vld1q_f32(b + 8), b3 = vld1q_f32(b + 12);
    for (int i = 0; i < 4; i++) {
        const float32x4_t ar = vld1q_f32(a + 4 * i);
        float32x4_t acc = vmulq_laneq_f32(b0, ar, 0);
        acc = vfmaq_laneq_f32(acc, b1, ar, 1);
        acc = vfmaq_laneq_f32(acc, b2, ar, 2);
        acc = vfmaq_laneq_f32(acc, b3, ar, 3);
        vst1q_f32(c + 4 * i, acc);
    }
}

void mat4_mul_f32_neon(int64_t count, const float *a, const float *b, float *c)
{
    for (int64_t t = 0; t < count; t++)
        mul_f32_one(a + 16 * t, b + 16 * t, c + 16 * t);
}

static inline void mul_f64_one(const double *a, const double *b, double *c)
{
    float64x2_t bl[4], bh[4];
    for (int k = 0; k < 4; k++) {
        bl[k] = vld1q_f64(b + 4 * k);
        bh[k] = vld1q_f64(b + 4 * k + 2);
    }
    for (int i = 0; i < 4; i++) {
        const float64x2_t a01 = vld1q_f64(a + 4 * i), a23 = vld1q_f64(a + 4 * i + 2);
        float64x2_t lo = vmulq_laneq_f64(bl[0], a01, 0), hi = vmulq_laneq_f64(bh[0], a01, 0);
        lo = vfmaq_laneq_f64(lo, bl[1], a01, 1);
        hi = vfmaq_laneq_f64(hi, bh[1], a01, 1);
        lo = vfmaq_laneq_f64(lo, bl[2], a23, 0);
        hi = vfmaq_laneq_f64(hi, bh[2], a23, 0);
        lo = vfmaq_laneq_f64(lo, bl[3], a23, 1);
        hi = vfmaq_laneq_f64(hi, bh[3], a23, 1);
        vst1q_f64(c + 4 * i, lo);
        vst1q_f64(c + 4 * i + 2, hi);
    }
}

void mat4_mul_f64_neon(int64_t count, const double *a, const double *b, double *c)
{
    for (int64_t t = 0; t < count; t++)
        mul_f64_one(a + 16 * t, b + 16 * t, c + 16 * t);
}
