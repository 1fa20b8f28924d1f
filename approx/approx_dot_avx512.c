/*
 * approx_dot_avx512.c - the exact-valued dot product of approx_dot.h with
 * AVX-512: lanes 0-7 and 8-15 are the doubles of two registers (per vector
 * of a group: eight independent sums, y widened once).
 */
#include <immintrin.h>

#include "approx/approx_dot.h"

static inline __m512d widen(const float *p)
{
    return _mm512_cvtps_pd(_mm256_loadu_ps(p));
}

double approx_dot_avx512(const float *x, const float *y, int64_t k)
{
    __m512d lo = _mm512_setzero_pd(), hi = _mm512_setzero_pd();
    int64_t t = 0;
    for (; t + APPROX_DOT_LANES <= k; t += APPROX_DOT_LANES) {
        lo = _mm512_fmadd_pd(widen(x + t), widen(y + t), lo);
        hi = _mm512_fmadd_pd(widen(x + t + 8), widen(y + t + 8), hi);
    }
    double lane[APPROX_DOT_LANES];
    _mm512_storeu_pd(lane, lo);
    _mm512_storeu_pd(lane + 8, hi);
    approx_dot_tail(x, y, t, k, lane);
    return approx_dot_lanes(lane);
}

void approx_dot_group_avx512(const float *const x[APPROX_DOT_GROUP], const float *y, int64_t k,
                             double out[APPROX_DOT_GROUP])
{
    __m512d lo[APPROX_DOT_GROUP], hi[APPROX_DOT_GROUP];
    for (int g = 0; g < APPROX_DOT_GROUP; g++)
        lo[g] = hi[g] = _mm512_setzero_pd();
    int64_t t = 0;
    for (; t + APPROX_DOT_LANES <= k; t += APPROX_DOT_LANES) {
        const __m512d ylo = widen(y + t), yhi = widen(y + t + 8);
        for (int g = 0; g < APPROX_DOT_GROUP; g++) {
            lo[g] = _mm512_fmadd_pd(widen(x[g] + t), ylo, lo[g]);
            hi[g] = _mm512_fmadd_pd(widen(x[g] + t + 8), yhi, hi[g]);
        }
    }
    for (int g = 0; g < APPROX_DOT_GROUP; g++) {
        double lane[APPROX_DOT_LANES];
        _mm512_storeu_pd(lane, lo[g]);
        _mm512_storeu_pd(lane + 8, hi[g]);
        approx_dot_tail(x[g], y, t, k, lane);
        out[g] = approx_dot_lanes(lane);
    }
}
