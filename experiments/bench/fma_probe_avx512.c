/*
 * fma_probe_avx512.c - the 512-bit FMA throughput loop (AVX-512 F):
 * FMA_PROBE_AVX512_CHAINS independent accumulators (fma_probe.h), each
 * updated once per iteration, so the loop is limited by FMA throughput,
 * not latency.
 */
#include <immintrin.h>

#include "fma_probe.h"

float fma_probe_loop_avx512(int64_t iterations, float multiplier, float addend)
{
    const __m512 m = _mm512_set1_ps(multiplier);
    const __m512 a = _mm512_set1_ps(addend);
    __m512 acc[FMA_PROBE_AVX512_CHAINS];
    for (int r = 0; r < FMA_PROBE_AVX512_CHAINS; r++)
        acc[r] = _mm512_set1_ps((float)r);
    for (int64_t it = 0; it < iterations; it++) {
        /* a fixed count: the compiler keeps all accumulators in registers */
        for (int r = 0; r < FMA_PROBE_AVX512_CHAINS; r++)
            acc[r] = _mm512_fmadd_ps(acc[r], m, a);
    }
    __m512 total = acc[0];
    for (int r = 1; r < FMA_PROBE_AVX512_CHAINS; r++)
        total = _mm512_add_ps(total, acc[r]);
    return _mm512_reduce_add_ps(total);
}
