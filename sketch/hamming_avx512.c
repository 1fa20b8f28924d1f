/*
 * hamming_avx512.c - AVX-512 VPOPCNTDQ Hamming row kernel (see
 * hamming_kernels.h).
 *
 * vpopcntq counts the bits of eight 64-bit words at once.
 * - One-word codes stored contiguously (words == 1, ldb == 1): eight codes
 *   per zmm, narrowed to 32-bit results; the last nb % 8 codes use masks.
 * - Otherwise each code is counted 8 words per zmm, its last words % 8 words
 *   with a masked load (masked-off lanes are not read), into eight 64-bit
 *   lane sums. Eight codes are finished together: their lane sums are packed
 *   into 16-bit fields (code k of a group of four shifted left by 16k), two
 *   such vectors are reduced at once and widened to eight 32-bit results.
 *   This is exact while a distance cannot exceed 65535, i.e. words <= 1023
 *   (every SKETCH_MAX_BITS code); longer codes are reduced one at a time.
 */
#include <immintrin.h>

#include "sketch/hamming_kernels.h"

#define HAMMING_AVX512_PACK_MAX_WORDS 1023

/* Eight 64-bit lane sums of popcount(q xor bj): full zmm over words
 * 0 .. full - 1, then the masked tail (qtail = q's tail under tmask). */
static inline __m512i xor_popcount_lanes_avx512(const uint64_t *q, const uint64_t *bj, int64_t full,
                                                __mmask8 tmask, __m512i qtail)
{
    __m512i lanes = _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_maskz_loadu_epi64(tmask, bj + full), qtail));
    for (int64_t w = 0; w < full; w += 8) {
        const __m512i x = _mm512_xor_si512(_mm512_loadu_si512((const void *)(q + w)),
                                           _mm512_loadu_si512((const void *)(bj + w)));
        lanes = _mm512_add_epi64(lanes, _mm512_popcnt_epi64(x));
    }
    return lanes;
}

/*
 * lo and hi each hold four codes' lane sums packed in 16-bit fields (code k
 * of the group in bits 16k .. 16k+15 of every lane). Returns the eight
 * distances as 32-bit integers, lo's four codes first. After the unpack-add
 * each 128-bit lane holds (partial of lo, partial of hi); folding the halves
 * twice leaves the totals in the two 64-bit elements of one xmm.
 */
static inline __m256i reduce_packed_groups_avx512(__m512i lo, __m512i hi)
{
    const __m512i pairs = _mm512_add_epi64(_mm512_unpacklo_epi64(lo, hi), _mm512_unpackhi_epi64(lo, hi));
    const __m256i half = _mm256_add_epi64(_mm512_castsi512_si256(pairs), _mm512_extracti64x4_epi64(pairs, 1));
    const __m128i sums = _mm_add_epi64(_mm256_castsi256_si128(half), _mm256_extracti128_si256(half, 1));
    return _mm256_cvtepu16_epi32(sums);
}

/* out[j] for nb <= 8 one-word codes b[0 .. nb) (ldb == 1). */
static inline void hamming_words1_block8_avx512(__m512i qv, const uint64_t *b, int64_t nb, uint32_t *out)
{
    const __mmask8 m = (__mmask8)((1u << nb) - 1u);
    const __m512i x = _mm512_xor_si512(_mm512_maskz_loadu_epi64(m, b), qv);
    _mm256_mask_storeu_epi32(out, m, _mm512_cvtepi64_epi32(_mm512_popcnt_epi64(x)));
}

void hamming_row_avx512_vpopcntdq(const uint64_t *q, const uint64_t *b, int64_t nb,
                                  int64_t ldb, int64_t words, uint32_t *out)
{
    if (words == 1 && ldb == 1) {
        const __m512i qv = _mm512_set1_epi64((long long)q[0]);
        int64_t j = 0;
        for (; j + 8 <= nb; j += 8) {
            const __m512i x = _mm512_xor_si512(_mm512_loadu_si512((const void *)(b + j)), qv);
            _mm256_storeu_si256((__m256i *)(out + j), _mm512_cvtepi64_epi32(_mm512_popcnt_epi64(x)));
        }
        if (j < nb)
            hamming_words1_block8_avx512(qv, b + j, nb - j, out + j);
        return;
    }

    const int64_t full = words & ~(int64_t)7;
    const __mmask8 tmask = (__mmask8)((1u << (words & 7)) - 1u);
    const __m512i qtail = _mm512_maskz_loadu_epi64(tmask, q + full);

    if (words > HAMMING_AVX512_PACK_MAX_WORDS) {
        for (int64_t j = 0; j < nb; j++)
            out[j] = (uint32_t)_mm512_reduce_add_epi64(
                xor_popcount_lanes_avx512(q, b + j * ldb, full, tmask, qtail));
        return;
    }

    int64_t j = 0;
    for (; j + 8 <= nb; j += 8) {
        const uint64_t *bj = b + j * ldb;
        __m512i lo = xor_popcount_lanes_avx512(q, bj, full, tmask, qtail);
        lo = _mm512_add_epi64(lo, _mm512_slli_epi64(xor_popcount_lanes_avx512(q, bj + ldb, full, tmask, qtail), 16));
        lo = _mm512_add_epi64(lo, _mm512_slli_epi64(xor_popcount_lanes_avx512(q, bj + 2 * ldb, full, tmask, qtail), 32));
        lo = _mm512_add_epi64(lo, _mm512_slli_epi64(xor_popcount_lanes_avx512(q, bj + 3 * ldb, full, tmask, qtail), 48));
        __m512i hi = xor_popcount_lanes_avx512(q, bj + 4 * ldb, full, tmask, qtail);
        hi = _mm512_add_epi64(hi, _mm512_slli_epi64(xor_popcount_lanes_avx512(q, bj + 5 * ldb, full, tmask, qtail), 16));
        hi = _mm512_add_epi64(hi, _mm512_slli_epi64(xor_popcount_lanes_avx512(q, bj + 6 * ldb, full, tmask, qtail), 32));
        hi = _mm512_add_epi64(hi, _mm512_slli_epi64(xor_popcount_lanes_avx512(q, bj + 7 * ldb, full, tmask, qtail), 48));
        _mm256_storeu_si256((__m256i *)(out + j), reduce_packed_groups_avx512(lo, hi));
    }
    if (j < nb) {
        const int64_t count = nb - j;
        const uint64_t *bj = b + j * ldb;
        __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
        for (int64_t k = 0; k < count; k++) {
            const __m512i lanes = xor_popcount_lanes_avx512(q, bj + k * ldb, full, tmask, qtail);
            const __m128i shift = _mm_cvtsi64_si128(16 * (k & 3));
            if (k < 4)
                lo = _mm512_add_epi64(lo, _mm512_sll_epi64(lanes, shift));
            else
                hi = _mm512_add_epi64(hi, _mm512_sll_epi64(lanes, shift));
        }
        _mm256_mask_storeu_epi32(out + j, (__mmask8)((1u << count) - 1u), reduce_packed_groups_avx512(lo, hi));
    }
}
