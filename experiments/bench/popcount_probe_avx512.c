/*
 * popcount_probe_avx512.c - the 512-bit xor + VPOPCNTQ + add loop of the
 * popcount probe (popcount_probe.h): POPCOUNT_PROBE_CHAINS independent
 * accumulators, each updated once per iteration.
 */
#include <immintrin.h>

#include "popcount_probe.h"

double popcount_probe_loop_avx512(int64_t iterations, uint64_t query)
{
    const __m512i q = _mm512_set1_epi64((long long)query);
    __m512i acc[POPCOUNT_PROBE_CHAINS];
    for (int r = 0; r < POPCOUNT_PROBE_CHAINS; r++)
        acc[r] = _mm512_set1_epi64((long long)(query * (uint64_t)(r + 3)));
    for (int64_t it = 0; it < iterations; it++) {
        /* a fixed count: the compiler keeps all accumulators in registers */
        for (int r = 0; r < POPCOUNT_PROBE_CHAINS; r++)
            acc[r] = _mm512_add_epi64(acc[r], _mm512_popcnt_epi64(_mm512_xor_si512(acc[r], q)));
    }
    __m512i total = acc[0];
    for (int r = 1; r < POPCOUNT_PROBE_CHAINS; r++)
        total = _mm512_add_epi64(total, acc[r]);
    return (double)_mm512_reduce_add_epi64(total);
}
