/*
 * fma_probe_avx2.c - the 256-bit FMA throughput loop (AVX2 + FMA):
 * FMA_PROBE_AVX2_CHAINS independent accumulators (fma_probe.h), each
 * updated once per iteration, so the loop is limited by FMA throughput,
 * not latency.
 */
#include <immintrin.h>

#include "fma_probe.h"

float fma_probe_loop_avx2(int64_t iterations, float multiplier, float addend)
{
    const __m256 m = _mm256_set1_ps(multiplier);
    const __m256 a = _mm256_set1_ps(addend);
    __m256 acc[FMA_PROBE_AVX2_CHAINS];
    for (int r = 0; r < FMA_PROBE_AVX2_CHAINS; r++)
        acc[r] = _mm256_set1_ps((float)r);
    for (int64_t it = 0; it < iterations; it++) {
        /* a fixed count: the compiler keeps all accumulators in registers */
        for (int r = 0; r < FMA_PROBE_AVX2_CHAINS; r++)
            acc[r] = _mm256_fmadd_ps(acc[r], m, a);
    }
    __m256 total = acc[0];
    for (int r = 1; r < FMA_PROBE_AVX2_CHAINS; r++)
        total = _mm256_add_ps(total, acc[r]);
    float lanes[8];
    _mm256_storeu_ps(lanes, total);
    float sum = 0.0f;
    for (int i = 0; i < 8; i++)
        sum += lanes[i];
    return sum;
}
