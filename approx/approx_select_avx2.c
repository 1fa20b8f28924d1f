/*
 * approx_select_avx2.c - the collect kernel of the top-k selection
 * (approx_select.h) with AVX2: 32 scores (two steps) per branch, compared
 * with the threshold in four vectors whose or is tested at once; a step
 * with a passing score is appended branch-free as in the scalar twin.
 */
#include <immintrin.h>

#include "approx/approx_select.h"

int64_t top_select_collect_avx2(const float *s, int64_t len, float threshold, int64_t j0, float *score_out,
                                int64_t *index_out, int64_t room, int64_t *written)
{
    const __m256 thr = _mm256_set1_ps(threshold);
    int64_t t = 0, w = 0;
    while (t < len && room - w >= TOP_SELECT_STEP) {
        if (len - t >= 2 * TOP_SELECT_STEP) {
            const __m256 g0 = _mm256_cmp_ps(_mm256_loadu_ps(s + t), thr, _CMP_GT_OQ);
            const __m256 g1 = _mm256_cmp_ps(_mm256_loadu_ps(s + t + 8), thr, _CMP_GT_OQ);
            const __m256 g2 = _mm256_cmp_ps(_mm256_loadu_ps(s + t + 16), thr, _CMP_GT_OQ);
            const __m256 g3 = _mm256_cmp_ps(_mm256_loadu_ps(s + t + 24), thr, _CMP_GT_OQ);
            const __m256 any = _mm256_or_ps(_mm256_or_ps(g0, g1), _mm256_or_ps(g2, g3));
            if (__builtin_expect(_mm256_testz_ps(any, any), 1)) {
                t += 2 * TOP_SELECT_STEP; /* two steps with nothing to append */
                continue;
            }
            const __m256 first = _mm256_or_ps(g0, g1);
            if (!_mm256_testz_ps(first, first))
                w = top_select_append(s, t, TOP_SELECT_STEP, threshold, j0, score_out, index_out, w);
            t += TOP_SELECT_STEP;
            continue; /* the second step after the room check */
        }
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
