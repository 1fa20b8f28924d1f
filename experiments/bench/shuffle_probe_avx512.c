/*
 * shuffle_probe_avx512.c - the 512-bit VPSHUFB + VPADDB loop of the
 * byte-shuffle probe (shuffle_probe.h): SHUFFLE_PROBE_CHAINS independent
 * accumulators, each looked up in the table and added to once per iteration;
 * and the loops of SHUFFLE_PROBE_512_U16 (16-bit accumulation) and
 * SHUFFLE_PROBE_512_VPERMB (the instruction pair of pq_scan's kernel).
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

double shuffle_probe_loop_u16_avx512(int64_t iterations, uint64_t seed)
{
    const __m512i table = _mm512_set1_epi64((long long)seed);
    __m512i a[SHUFFLE_PROBE_CHAINS_U16], b[SHUFFLE_PROBE_CHAINS_U16];
    for (int r = 0; r < SHUFFLE_PROBE_CHAINS_U16; r++) {
        a[r] = _mm512_set1_epi64((long long)(seed * (uint64_t)(r + 3)));
        b[r] = _mm512_setzero_si512();
    }
    for (int64_t it = 0; it < iterations; it++) {
        for (int r = 0; r < SHUFFLE_PROBE_CHAINS_U16; r++) {
            const __m512i x = _mm512_shuffle_epi8(table, a[r]);
            a[r] = _mm512_add_epi16(a[r], x);
            b[r] = _mm512_add_epi16(b[r], _mm512_srli_epi16(x, 8));
        }
    }
    __m512i total = _mm512_setzero_si512();
    for (int r = 0; r < SHUFFLE_PROBE_CHAINS_U16; r++)
        total = _mm512_xor_si512(total, _mm512_xor_si512(a[r], b[r]));
    return (double)_mm512_reduce_add_epi64(_mm512_and_si512(total, _mm512_set1_epi64(0xffff)));
}

__attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vnni"))) double
shuffle_probe_loop_vpermb_avx512(int64_t iterations, uint64_t seed)
{
    const __m512i ones = _mm512_set1_epi8(1), step = _mm512_set1_epi8(5);
    __m512i index0 = _mm512_set1_epi64((long long)seed), index1 = _mm512_add_epi8(index0, step);
    __m512i acc[SHUFFLE_PROBE_CHAINS_VPERMB];
    for (int r = 0; r < SHUFFLE_PROBE_CHAINS_VPERMB; r++)
        acc[r] = _mm512_set1_epi64((long long)(seed * (uint64_t)(r + 3)));
    const __m512i table0 = _mm512_set1_epi64((long long)(seed ^ 0x55)), table1 = _mm512_add_epi8(table0, step);
    for (int64_t it = 0; it < iterations; it++) {
        for (int r = 0; r < SHUFFLE_PROBE_CHAINS_VPERMB; r++)
            acc[r] = _mm512_dpbusd_epi32(acc[r], _mm512_permutexvar_epi8((r & 1) ? index1 : index0, (r & 2) ? table1 : table0),
                                         ones);
        index0 = _mm512_add_epi8(index0, step);
        index1 = _mm512_add_epi8(index1, step);
    }
    __m512i total = acc[0];
    for (int r = 1; r < SHUFFLE_PROBE_CHAINS_VPERMB; r++)
        total = _mm512_xor_si512(total, acc[r]);
    return (double)_mm512_reduce_add_epi64(_mm512_and_si512(total, _mm512_set1_epi64(0xffff)));
}
