/*
 * lowrank_sign_neon.c - the sparse sign sketch's kernels (lowrank_sign.h)
 * with NEON. rows: each vector added 16 coordinates a step. cols: tiles of
 * 4 coordinates x 4 vectors transposed in registers (trn1/trn2 on 32, then
 * 64 bits), each register then one vector's 4 coordinates, added in
 * increasing vector order. What is left of a vector (rows) or of the tiles
 * (cols) goes through the plain-C twin, in the same order.
 */
#include <arm_neon.h>

#include "approx/lowrank_sign.h"

void lowrank_sign_rows_neon(float *part, int64_t ldp, const float *v, int64_t ldv, const int32_t *bucket,
                            const float *sign, int64_t nb, int64_t w)
{
    const int64_t wv = w - w % 4;
    for (int64_t i = 0; i < nb; i++) {
        float *y = part + bucket[i] * ldp;
        const float *x = v + i * ldv;
        const float32x4_t s = vdupq_n_f32(sign[i]);
        int64_t t = 0;
        for (; t + 16 <= wv; t += 16) { /* y + s x: the product is exact, so the one rounding is the add's */
            const float32x4_t y0 = vfmaq_f32(vld1q_f32(y + t), s, vld1q_f32(x + t));
            const float32x4_t y1 = vfmaq_f32(vld1q_f32(y + t + 4), s, vld1q_f32(x + t + 4));
            const float32x4_t y2 = vfmaq_f32(vld1q_f32(y + t + 8), s, vld1q_f32(x + t + 8));
            const float32x4_t y3 = vfmaq_f32(vld1q_f32(y + t + 12), s, vld1q_f32(x + t + 12));
            vst1q_f32(y + t, y0);
            vst1q_f32(y + t + 4, y1);
            vst1q_f32(y + t + 8, y2);
            vst1q_f32(y + t + 12, y3);
        }
        for (; t < wv; t += 4)
            vst1q_f32(y + t, vfmaq_f32(vld1q_f32(y + t), s, vld1q_f32(x + t)));
    }
    if (wv < w)
        lowrank_sign_rows_scalar(part + wv, ldp, v + wv, ldv, bucket, sign, nb, w - wv);
}

void lowrank_sign_cols_neon(float *part, int64_t ldp, const float *v, int64_t ldv, const int32_t *bucket,
                            const float *sign, int64_t nb, int64_t w)
{
    const int64_t wv = w - w % 4, nv = nb - nb % 4;
    for (int64_t t0 = 0; t0 < wv; t0 += 4) {
        for (int64_t i0 = 0; i0 < nv; i0 += 4) {
            const float *x = v + t0 * ldv + i0; /* row q: coordinate t0 + q of vectors i0 .. i0 + 3 */
            const float32x4_t r0 = vld1q_f32(x), r1 = vld1q_f32(x + ldv);
            const float32x4_t r2 = vld1q_f32(x + 2 * ldv), r3 = vld1q_f32(x + 3 * ldv);
            /* t0: r0[0] r1[0] r0[2] r1[2]; t1: r0[1] r1[1] r0[3] r1[3]; then their 64-bit halves paired */
            const float64x2_t a0 = vreinterpretq_f64_f32(vtrn1q_f32(r0, r1));
            const float64x2_t a1 = vreinterpretq_f64_f32(vtrn2q_f32(r0, r1));
            const float64x2_t b0 = vreinterpretq_f64_f32(vtrn1q_f32(r2, r3));
            const float64x2_t b1 = vreinterpretq_f64_f32(vtrn2q_f32(r2, r3));
            float32x4_t c[4];
            c[0] = vreinterpretq_f32_f64(vtrn1q_f64(a0, b0));
            c[1] = vreinterpretq_f32_f64(vtrn1q_f64(a1, b1));
            c[2] = vreinterpretq_f32_f64(vtrn2q_f64(a0, b0));
            c[3] = vreinterpretq_f32_f64(vtrn2q_f64(a1, b1));
            for (int64_t p = 0; p < 4; p++) {
                float *y = part + bucket[i0 + p] * ldp + t0;
                vst1q_f32(y, vfmaq_f32(vld1q_f32(y), vdupq_n_f32(sign[i0 + p]), c[p]));
            }
        }
        if (nv < nb) /* the last vectors of these coordinates, after the tiles */
            lowrank_sign_cols_scalar(part + t0, ldp, v + t0 * ldv + nv, ldv, bucket + nv, sign + nv, nb - nv, 4);
    }
    if (wv < w)
        lowrank_sign_cols_scalar(part + wv, ldp, v + wv * ldv, ldv, bucket, sign, nb, w - wv);
}
