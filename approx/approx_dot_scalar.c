/*
 * approx_dot_scalar.c - the reference exact-valued dot product of
 * approx_dot.h in plain C, one vector and a group: the twins the AVX2 and
 * AVX-512 kernels are tested against, and the kernels of the scalar and NEON
 * paths.
 */
#include "approx/approx_dot.h"

double approx_dot_scalar(const float *x, const float *y, int64_t k)
{
    double lane[APPROX_DOT_LANES] = { 0.0 };
    int64_t t = 0;
    for (; t + APPROX_DOT_LANES <= k; t += APPROX_DOT_LANES)
        for (int l = 0; l < APPROX_DOT_LANES; l++)
            lane[l] += (double)x[t + l] * (double)y[t + l];
    approx_dot_tail(x, y, t, k, lane);
    return approx_dot_lanes(lane);
}

void approx_dot_group_scalar(const float *const x[APPROX_DOT_GROUP], const float *y, int64_t k,
                             double out[APPROX_DOT_GROUP])
{
    for (int g = 0; g < APPROX_DOT_GROUP; g++)
        out[g] = approx_dot_scalar(x[g], y, k);
}
