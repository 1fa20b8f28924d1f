/*
 * approx_dot_avx2.c - the exact-valued dot product of approx_dot.h with AVX2:
 * lanes 0-3, 4-7, 8-11 and 12-15 are the doubles of four registers (a group
 * two vectors at a time, y widened once per pair).
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

/* Two vectors of a group against y: eight sums (of the 16 registers, 8 accumulate, 4 hold y widened). */
static inline void dot_pair(const float *x0, const float *x1, const float *y, int64_t k, double *out)
{
    __m256d a0[4], a1[4];
    for (int q = 0; q < 4; q++)
        a0[q] = a1[q] = _mm256_setzero_pd();
    int64_t t = 0;
    for (; t + APPROX_DOT_LANES <= k; t += APPROX_DOT_LANES)
        for (int q = 0; q < 4; q++) {
            const __m256d yq = widen(y + t + 4 * q);
            a0[q] = _mm256_fmadd_pd(widen(x0 + t + 4 * q), yq, a0[q]);
            a1[q] = _mm256_fmadd_pd(widen(x1 + t + 4 * q), yq, a1[q]);
        }
    double l0[APPROX_DOT_LANES], l1[APPROX_DOT_LANES];
    for (int q = 0; q < 4; q++) {
        _mm256_storeu_pd(l0 + 4 * q, a0[q]);
        _mm256_storeu_pd(l1 + 4 * q, a1[q]);
    }
    approx_dot_tail(x0, y, t, k, l0);
    approx_dot_tail(x1, y, t, k, l1);
    out[0] = approx_dot_lanes(l0);
    out[1] = approx_dot_lanes(l1);
}

void approx_dot_group_avx2(const float *const x[APPROX_DOT_GROUP], const float *y, int64_t k,
                           double out[APPROX_DOT_GROUP])
{
    for (int g = 0; g < APPROX_DOT_GROUP; g += 2)
        dot_pair(x[g], x[g + 1], y, k, out + g);
}
