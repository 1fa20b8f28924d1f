/*
 * approx_select_scalar.c - the collect kernel of the top-k selection in plain
 * C (approx_select.h): the twin the SIMD kernels are tested against, and the
 * kernel of the scalar path. Per step, one branch on whether any score
 * passes; a step that has one is appended branch-free (every score written,
 * the passing ones counted).
 */
#include "approx/approx_select.h"

int64_t top_select_collect_scalar(const float *s, int64_t len, float threshold, int64_t j0, float *score_out,
                                  int64_t *index_out, int64_t room, int64_t *written)
{
    int64_t t = 0, w = 0;
    while (t < len && room - w >= TOP_SELECT_STEP) {
        const int64_t step = len - t < TOP_SELECT_STEP ? len - t : TOP_SELECT_STEP;
        int any = 0;
        for (int64_t u = 0; u < step; u++)
            any |= s[t + u] > threshold;
        if (any)
            w = top_select_append(s, t, step, threshold, j0, score_out, index_out, w);
        t += step;
    }
    *written = w;
    return t;
}
