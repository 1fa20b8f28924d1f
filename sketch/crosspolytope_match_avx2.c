/*
 * crosspolytope_match_avx2.c - AVX2 match row kernel (the contract is in
 * crosspolytope.h).
 *
 * nz = (((x & lo) + lo) | x) & hi is formed four words per ymm and counted
 * with the nibble table (vpshufb) and vpsadbw into four 64-bit lane sums.
 * - One-word codes stored contiguously (words == 1, ldb == 1): four codes per
 *   ymm against the broadcast query word; the last nb % 4 codes in scalar.
 * - Otherwise one code at a time, four words per ymm, the last words % 4
 *   words in scalar (hardware popcnt).
 */
#include <immintrin.h>

#include "sketch/crosspolytope.h"

/* Four 64-bit lane popcounts of nz(x). */
static inline __m256i nonzero_fields_avx2(__m256i x, __m256i hi, __m256i lo)
{
    const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                           0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i t = _mm256_add_epi64(_mm256_and_si256(x, lo), lo);
    const __m256i nz = _mm256_and_si256(_mm256_or_si256(t, x), hi);
    const __m256i cnt = _mm256_add_epi8(_mm256_shuffle_epi8(table, _mm256_and_si256(nz, low4)),
                                        _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(nz, 4), low4)));
    return _mm256_sad_epu8(cnt, _mm256_setzero_si256());
}

static inline uint32_t nonzero_fields_scalar(uint64_t x, uint64_t hi, uint64_t lo)
{
    return (uint32_t)_mm_popcnt_u64((((x & lo) + lo) | x) & hi);
}

void cp_match_row_avx2(const uint64_t *q, const uint64_t *b, int64_t nb, int64_t ldb,
                       int64_t words, const uint64_t *hi, const uint64_t *lo,
                       uint32_t fields, uint16_t *out)
{
    if (words == 1 && ldb == 1) {
        const __m256i qv = _mm256_set1_epi64x((long long)q[0]);
        const __m256i hv = _mm256_set1_epi64x((long long)hi[0]);
        const __m256i lv = _mm256_set1_epi64x((long long)lo[0]);
        int64_t j = 0;
        for (; j + 4 <= nb; j += 4) {
            const __m256i x = _mm256_xor_si256(qv, _mm256_loadu_si256((const __m256i *)(b + j)));
            uint64_t c[4];
            _mm256_storeu_si256((__m256i *)c, nonzero_fields_avx2(x, hv, lv));
            for (int k = 0; k < 4; k++)
                out[j + k] = (uint16_t)(fields - (uint32_t)c[k]);
        }
        for (; j < nb; j++)
            out[j] = (uint16_t)(fields - nonzero_fields_scalar(q[0] ^ b[j], hi[0], lo[0]));
        return;
    }
    const int64_t full = words & ~(int64_t)3;
    for (int64_t j = 0; j < nb; j++) {
        const uint64_t *bj = b + j * ldb;
        __m256i acc = _mm256_setzero_si256();
        for (int64_t w = 0; w < full; w += 4) {
            const __m256i x = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(q + w)),
                                               _mm256_loadu_si256((const __m256i *)(bj + w)));
            acc = _mm256_add_epi64(acc, nonzero_fields_avx2(x, _mm256_loadu_si256((const __m256i *)(hi + w)),
                                                           _mm256_loadu_si256((const __m256i *)(lo + w))));
        }
        uint64_t c[4];
        _mm256_storeu_si256((__m256i *)c, acc);
        uint32_t differ = (uint32_t)(c[0] + c[1] + c[2] + c[3]);
        for (int64_t w = full; w < words; w++)
            differ += nonzero_fields_scalar(q[w] ^ bj[w], hi[w], lo[w]);
        out[j] = (uint16_t)(fields - differ);
    }
}
