/*
 * shuffle_probe_avx2.c - the 256-bit VPSHUFB + VPADDB loop of the
 * byte-shuffle probe (shuffle_probe.h). The SHUFFLE_PROBE_CHAINS_AVX2 (10)
 * accumulators are named variables: held in an array, GCC stores some of
 * them to the stack every iteration (16 ymm registers).
 */
#include <immintrin.h>

#include "shuffle_probe.h"

#if SHUFFLE_PROBE_CHAINS_AVX2 != 10
#error "the loop below is written for 10 chains"
#endif

double shuffle_probe_loop_avx2(int64_t iterations, uint64_t seed)
{
    const __m256i table = _mm256_set1_epi64x((long long)seed);
#define SHUFFLE_PROBE_START(r) _mm256_set1_epi64x((long long)(seed * (uint64_t)((r) + 3)))
    __m256i a0 = SHUFFLE_PROBE_START(0), a1 = SHUFFLE_PROBE_START(1), a2 = SHUFFLE_PROBE_START(2);
    __m256i a3 = SHUFFLE_PROBE_START(3), a4 = SHUFFLE_PROBE_START(4), a5 = SHUFFLE_PROBE_START(5);
    __m256i a6 = SHUFFLE_PROBE_START(6), a7 = SHUFFLE_PROBE_START(7), a8 = SHUFFLE_PROBE_START(8);
    __m256i a9 = SHUFFLE_PROBE_START(9);
#undef SHUFFLE_PROBE_START
#define SHUFFLE_PROBE_STEP(a) a = _mm256_add_epi8(a, _mm256_shuffle_epi8(table, a))
    for (int64_t it = 0; it < iterations; it++) {
        SHUFFLE_PROBE_STEP(a0);
        SHUFFLE_PROBE_STEP(a1);
        SHUFFLE_PROBE_STEP(a2);
        SHUFFLE_PROBE_STEP(a3);
        SHUFFLE_PROBE_STEP(a4);
        SHUFFLE_PROBE_STEP(a5);
        SHUFFLE_PROBE_STEP(a6);
        SHUFFLE_PROBE_STEP(a7);
        SHUFFLE_PROBE_STEP(a8);
        SHUFFLE_PROBE_STEP(a9);
    }
#undef SHUFFLE_PROBE_STEP
    const __m256i total =
        _mm256_xor_si256(_mm256_xor_si256(_mm256_xor_si256(a0, a1), _mm256_xor_si256(a2, a3)),
                         _mm256_xor_si256(_mm256_xor_si256(a4, a5),
                                          _mm256_xor_si256(_mm256_xor_si256(a6, a7), _mm256_xor_si256(a8, a9))));
    const __m128i folded = _mm_xor_si128(_mm256_castsi256_si128(total), _mm256_extracti128_si256(total, 1));
    return (double)(uint16_t)_mm_extract_epi16(folded, 0) + (double)(uint16_t)_mm_extract_epi16(folded, 4);
}
