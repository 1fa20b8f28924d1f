/*
 * approx_dot_avx2.c - the exact-valued dot product of approx_dot.h with AVX2:
 * lanes 0-3, 4-7, 8-11 and 12-15 are the doubles of four registers.
 */
#include <immintrin.h>

#include "approx/approx_dot.h"

static inline __m256d widen(const float *p)
{
    return _mm256_cvtps_pd(_mm_loadu_ps(p));
}

double approx_dot_avx2(const float *x, const float *y, int64_t k)
{
    __m256d acc[4] = { _mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd() };
    int64_t t = 0;
    for (; t + APPROX_DOT_LANES <= k; t += APPROX_DOT_LANES)
        for (int q = 0; q < 4; q++)
            acc[q] = _mm256_fmadd_pd(widen(x + t + 4 * q), widen(y + t + 4 * q), acc[q]);
    double lane[APPROX_DOT_LANES];
    for (int q = 0; q < 4; q++)
        _mm256_storeu_pd(lane + 4 * q, acc[q]);
    approx_dot_tail(x, y, t, k, lane);
    return approx_dot_lanes(lane);
}
