/*
 * bench_select_avx2.c - the AVX2 scan kernel of bench_select.h: four vectors
 * of 8 scores compared with the threshold per step (compare, movemask), the
 * rest one score at a time.
 */
#include <immintrin.h>

#include "bench_select.h"

int64_t bench_select_scan_avx2(const float *s, int64_t len, float threshold)
{
    const __m256 thr = _mm256_set1_ps(threshold);
    int64_t t = 0;
    for (; t + 32 <= len; t += 32) {
        const __m256 c0 = _mm256_cmp_ps(_mm256_loadu_ps(s + t), thr, _CMP_GT_OQ);
        const __m256 c1 = _mm256_cmp_ps(_mm256_loadu_ps(s + t + 8), thr, _CMP_GT_OQ);
        const __m256 c2 = _mm256_cmp_ps(_mm256_loadu_ps(s + t + 16), thr, _CMP_GT_OQ);
        const __m256 c3 = _mm256_cmp_ps(_mm256_loadu_ps(s + t + 24), thr, _CMP_GT_OQ);
        const __m256 any = _mm256_or_ps(_mm256_or_ps(c0, c1), _mm256_or_ps(c2, c3));
        if (__builtin_expect(_mm256_movemask_ps(any) != 0, 0)) {
            const uint32_t m = (uint32_t)_mm256_movemask_ps(c0) | (uint32_t)_mm256_movemask_ps(c1) << 8 |
                               (uint32_t)_mm256_movemask_ps(c2) << 16 | (uint32_t)_mm256_movemask_ps(c3) << 24;
            return t + __builtin_ctz(m);
        }
    }
    for (; t < len; t++)
        if (s[t] > threshold)
            return t;
    return len;
}
