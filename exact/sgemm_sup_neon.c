/*
 * sgemm_sup_neon.c - the AArch64 Advanced SIMD (NEON) small-product kernel
 * (sgemm_sup_fn): one tile of up to 8 x 12, read straight from unpacked A
 * and B.
 *
 * Per step p: the tile's row of B in three 4-wide groups (a partial last
 * group read lane by lane into zeros, so nothing past the tile's columns is
 * read), and for each row i the element A[i * rsa + p * csa] multiplied into
 * them with fused multiply-adds (vfmaq_n_f32), every element summed from 0
 * over p in increasing order; then c := alpha*ab (beta == 0, C not read) or
 * fma(beta, c, alpha*ab): the arithmetic of the packed neon_8x12 kernel.
 */
#include <arm_neon.h>

#include "sgemm_target.h"

#define SUP_MR 8
#define SUP_GROUPS 3 /* of 4 columns: 12 */

/* The first n (1..4) floats at p, zeros after them. */
static inline float32x4_t load_part(const float *p, int64_t n)
{
    if (n >= 4)
        return vld1q_f32(p);
    float32x4_t x = vdupq_n_f32(0.0f);
    x = vld1q_lane_f32(p, x, 0);
    if (n > 1)
        x = vld1q_lane_f32(p + 1, x, 1);
    if (n > 2)
        x = vld1q_lane_f32(p + 2, x, 2);
    return x;
}

static inline void store_part(float *p, float32x4_t x, int64_t n)
{
    if (n >= 4) {
        vst1q_f32(p, x);
        return;
    }
    vst1q_lane_f32(p, x, 0);
    if (n > 1)
        vst1q_lane_f32(p + 1, x, 1);
    if (n > 2)
        vst1q_lane_f32(p + 2, x, 2);
}

void sgemm_sup_neon_8x12(int64_t rows, int64_t cols, int64_t k, float alpha, const float *A, int64_t rsa,
                         int64_t csa, const float *B, int64_t rsb, float beta, float *C, int64_t ldc)
{
    const int64_t groups = (cols + 3) / 4;
    float32x4_t acc[SUP_MR][SUP_GROUPS];
    for (int64_t i = 0; i < rows; i++)
        for (int64_t g = 0; g < groups; g++)
            acc[i][g] = vdupq_n_f32(0.0f);
    for (int64_t p = 0; p < k; p++) {
        float32x4_t b[SUP_GROUPS];
        for (int64_t g = 0; g < groups; g++)
            b[g] = load_part(B + p * rsb + 4 * g, cols - 4 * g);
        for (int64_t i = 0; i < rows; i++) {
            const float a = A[i * rsa + p * csa];
            for (int64_t g = 0; g < groups; g++)
                acc[i][g] = vfmaq_n_f32(acc[i][g], b[g], a);
        }
    }
    for (int64_t i = 0; i < rows; i++)
        for (int64_t g = 0; g < groups; g++) {
            float *c = C + i * ldc + 4 * g;
            float32x4_t r = vmulq_n_f32(acc[i][g], alpha);
            if (beta != 0.0f)
                r = vfmaq_n_f32(r, load_part(c, cols - 4 * g), beta);
            store_part(c, r, cols - 4 * g);
        }
}
