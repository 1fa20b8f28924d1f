/*
 * bench_select_avx512.c - the AVX-512 scan kernel of bench_select.h: four
 * vectors of 16 scores compared with the threshold per step, the last
 * partial vector under a mask.
 */
#include <immintrin.h>

#include "bench_select.h"

int64_t bench_select_scan_avx512(const float *s, int64_t len, float threshold)
{
    const __m512 thr = _mm512_set1_ps(threshold);
    int64_t t = 0;
    for (; t + 64 <= len; t += 64) {
        const __mmask16 m0 = _mm512_cmp_ps_mask(_mm512_loadu_ps(s + t), thr, _CMP_GT_OQ);
        const __mmask16 m1 = _mm512_cmp_ps_mask(_mm512_loadu_ps(s + t + 16), thr, _CMP_GT_OQ);
        const __mmask16 m2 = _mm512_cmp_ps_mask(_mm512_loadu_ps(s + t + 32), thr, _CMP_GT_OQ);
        const __mmask16 m3 = _mm512_cmp_ps_mask(_mm512_loadu_ps(s + t + 48), thr, _CMP_GT_OQ);
        if (__builtin_expect((m0 | m1 | m2 | m3) != 0, 0)) {
            const uint64_t m = (uint64_t)m0 | (uint64_t)m1 << 16 | (uint64_t)m2 << 32 | (uint64_t)m3 << 48;
            return t + __builtin_ctzll(m);
        }
    }
    for (; t < len; t += 16) {
        const int64_t rest = len - t;
        const __mmask16 valid = rest >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << rest) - 1u);
        const __mmask16 m = _mm512_mask_cmp_ps_mask(valid, _mm512_maskz_loadu_ps(valid, s + t), thr, _CMP_GT_OQ);
        if (m != 0)
            return t + __builtin_ctz((unsigned)m);
    }
    return len;
}
