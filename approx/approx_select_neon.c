/*
 * approx_select_neon.c - the collect kernel of the top-k selection
 * (approx_select.h) with NEON: a step's four vectors of 4 scores compared
 * with the threshold, one branch on the maximum of their or; a step with a
 * passing score is appended branch-free as in the scalar twin.
 */
#include <arm_neon.h>

#include "approx/approx_select.h"

int64_t top_select_collect_neon(const float *s, int64_t len, float threshold, int64_t j0, float *score_out,
                                int64_t *index_out, int64_t room, int64_t *written)
{
    const float32x4_t thr = vdupq_n_f32(threshold);
    int64_t t = 0, w = 0;
    while (t < len && room - w >= TOP_SELECT_STEP) {
        const int64_t step = len - t < TOP_SELECT_STEP ? len - t : TOP_SELECT_STEP;
        int any = 0;
        if (step == TOP_SELECT_STEP) {
            const float *p = s + t;
            const uint32x4_t g0 = vcgtq_f32(vld1q_f32(p), thr), g1 = vcgtq_f32(vld1q_f32(p + 4), thr);
            const uint32x4_t g2 = vcgtq_f32(vld1q_f32(p + 8), thr), g3 = vcgtq_f32(vld1q_f32(p + 12), thr);
            any = vmaxvq_u32(vorrq_u32(vorrq_u32(g0, g1), vorrq_u32(g2, g3))) != 0;
        } else {
            for (int64_t u = 0; u < step; u++)
                any |= s[t + u] > threshold;
        }
        if (any)
            w = top_select_append(s, t, step, threshold, j0, score_out, index_out, w);
        t += step;
    }
    *written = w;
    return t;
}
