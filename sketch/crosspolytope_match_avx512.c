/*
 * crosspolytope_match_avx512.c - AVX-512 VPOPCNTDQ match row kernel (the
 * contract is in crosspolytope.h).
 *
 * - One-word codes stored contiguously (words == 1, ldb == 1): eight codes per
 *   zmm against the broadcast query word; the last nb % 8 codes use masks.
 * - Otherwise one code at a time, eight words per zmm with the word masks
 *   loaded alongside; the last words % 8 words with masked loads (masked-off
 *   lanes are zero in q, b, hi and lo, so they count nothing).
 */
#include <immintrin.h>

#include "sketch/crosspolytope.h"

/* Bits of nz = (((x & lo) + lo) | x) & hi counted per 64-bit lane. */
static inline __m512i nonzero_fields_avx512(__m512i x, __m512i hi, __m512i lo)
{
    const __m512i t = _mm512_add_epi64(_mm512_and_si512(x, lo), lo);
    return _mm512_popcnt_epi64(_mm512_and_si512(_mm512_or_si512(t, x), hi));
}

static void cp_match_words1_contiguous_avx512(const uint64_t *q, const uint64_t *b, int64_t nb,
                                              uint64_t hi, uint64_t lo, uint32_t fields,
                                              uint16_t *out)
{
    const __m512i qv = _mm512_set1_epi64((long long)q[0]);
    const __m512i hv = _mm512_set1_epi64((long long)hi);
    const __m512i lv = _mm512_set1_epi64((long long)lo);
    const __m512i fv = _mm512_set1_epi64((long long)fields);
    int64_t j = 0;
    for (; j + 8 <= nb; j += 8) {
        const __m512i x = _mm512_xor_si512(qv, _mm512_loadu_si512((const void *)(b + j)));
        const __m512i m = _mm512_sub_epi64(fv, nonzero_fields_avx512(x, hv, lv));
        _mm_storeu_si128((__m128i *)(out + j), _mm512_cvtepi64_epi16(m));
    }
    if (j < nb) {
        const __mmask8 k = (__mmask8)((1u << (nb - j)) - 1u);
        const __m512i x = _mm512_xor_si512(qv, _mm512_maskz_loadu_epi64(k, b + j));
        const __m512i m = _mm512_sub_epi64(fv, nonzero_fields_avx512(x, hv, lv));
        _mm512_mask_cvtepi64_storeu_epi16(out + j, k, m);
    }
}

void cp_match_row_avx512(const uint64_t *q, const uint64_t *b, int64_t nb, int64_t ldb,
                         int64_t words, const uint64_t *hi, const uint64_t *lo,
                         uint32_t fields, uint16_t *out)
{
    if (words == 1 && ldb == 1) {
        cp_match_words1_contiguous_avx512(q, b, nb, hi[0], lo[0], fields, out);
        return;
    }
    const int64_t full = words & ~(int64_t)7;
    const __mmask8 tmask = (__mmask8)((1u << (words & 7)) - 1u);
    const __m512i qtail = _mm512_maskz_loadu_epi64(tmask, q + full);
    const __m512i htail = _mm512_maskz_loadu_epi64(tmask, hi + full);
    const __m512i ltail = _mm512_maskz_loadu_epi64(tmask, lo + full);
    for (int64_t j = 0; j < nb; j++) {
        const uint64_t *bj = b + j * ldb;
        __m512i acc = nonzero_fields_avx512(
            _mm512_xor_si512(qtail, _mm512_maskz_loadu_epi64(tmask, bj + full)), htail, ltail);
        for (int64_t w = 0; w < full; w += 8) {
            const __m512i x = _mm512_xor_si512(_mm512_loadu_si512((const void *)(q + w)),
                                               _mm512_loadu_si512((const void *)(bj + w)));
            acc = _mm512_add_epi64(acc, nonzero_fields_avx512(x, _mm512_loadu_si512((const void *)(hi + w)),
                                                              _mm512_loadu_si512((const void *)(lo + w))));
        }
        out[j] = (uint16_t)(fields - (uint32_t)_mm512_reduce_add_epi64(acc));
    }
}
