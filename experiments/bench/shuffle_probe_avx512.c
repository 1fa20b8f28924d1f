/*
 * shuffle_probe_avx512.c - the 512-bit VPSHUFB + VPADDB loop of the
 * byte-shuffle probe (shuffle_probe.h): SHUFFLE_PROBE_CHAINS independent
 * accumulators, each looked up in the table and added to once per iteration.
 */
#include <immintrin.h>

#include "shuffle_probe.h"

double shuffle_probe_loop_avx512(int64_t iterations, uint64_t seed)
{
    const __m512i table = _mm512_set1_epi64((long long)seed);
    __m512i acc[SHUFFLE_PROBE_CHAINS];
    for (int r = 0; r < SHUFFLE_PROBE_CHAINS; r++)
        acc[r] = _mm512_set1_epi64((long long)(seed * (uint64_t)(r + 3)));
    for (int64_t it = 0; it < iterations; it++) {
        /* a fixed count: the compiler keeps all accumulators in registers */
        for (int r = 0; r < SHUFFLE_PROBE_CHAINS; r++)
            acc[r] = _mm512_add_epi8(acc[r], _mm512_shuffle_epi8(table, acc[r]));
    }
    __m512i total = acc[0];
    for (int r = 1; r < SHUFFLE_PROBE_CHAINS; r++)
        total = _mm512_xor_si512(total, acc[r]);
    return (double)_mm512_reduce_add_epi64(_mm512_and_si512(total, _mm512_set1_epi64(0xffff)));
}
