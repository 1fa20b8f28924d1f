/*
 * approx_dot.c - the reference exact-valued dot product and the kernel
 * dispatch (see approx_dot.h).
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

approx_dot_fn approx_dot_kernel(smm_isa isa)
{
#if defined(__x86_64__)
    if (isa == SMM_ISA_AVX512)
        return approx_dot_avx512;
    if (isa == SMM_ISA_AVX2)
        return approx_dot_avx2;
#else
    (void)isa;
#endif
    return approx_dot_scalar;
}
