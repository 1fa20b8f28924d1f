/*
 * hamming_avx512.c - AVX-512 VPOPCNTDQ Hamming row kernel (see
 * hamming_kernels.h).
 *
 * vpopcntq counts the bits of eight 64-bit words at once.
 * - One-word codes stored contiguously (words == 1, ldb == 1): eight codes
 *   per zmm, narrowed to 32-bit results; the last nb % 8 codes use masks.
 * - Contiguous 2- and 4-word codes (ldb == words): four or two codes per zmm,
 *   reduced within each code's lanes by in-register shuffles.
 * - Otherwise each code is counted 8 words per zmm (one masked load for codes
 *   of at most 8 words), its last words % 8 words with a masked load
 *   (masked-off lanes are not read), into eight 64-bit lane sums. Groups of
 *   eight codes are finished together: their lane sums are packed
 *   into 16-bit fields (code k of a group of four shifted left by 16k), two
 *   such vectors are reduced at once and widened to eight 32-bit results.
 *   This is exact while a distance cannot exceed 65535, i.e. words <= 1023
 *   (every SKETCH_MAX_BITS code); longer codes, and the last nb % 8 codes,
 *   are reduced one at a time.
 * The panel kernel at the end of the file (all-pairs and top-k) works on the
 * packed layout instead and needs no horizontal sums; the filter kernel
 * after it reads the 16-bit distances it wrote.
 */
#include <immintrin.h>
#include <string.h>

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

/* Eight 64-bit lane popcounts of (code at bj) xor q for a code of at most 8 words (qv = q under m). */
static inline __m512i xor_popcount_short_avx512(__m512i qv, __mmask8 m, const uint64_t *bj)
{
    return _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_maskz_loadu_epi64(m, bj), qv));
}

/* out[j] for the last nb < 8 codes of a row, one code at a time. */
static void hamming_tail_codes_avx512(const uint64_t *q, const uint64_t *b, int64_t nb, int64_t ldb,
                                      int64_t words, uint32_t *out)
{
    const int64_t full = words & ~(int64_t)7;
    const __mmask8 tmask = (__mmask8)((1u << (words & 7)) - 1u);
    const __m512i qtail = _mm512_maskz_loadu_epi64(tmask, q + full);
    for (int64_t j = 0; j < nb; j++)
        out[j] = (uint32_t)_mm512_reduce_add_epi64(xor_popcount_lanes_avx512(q, b + j * ldb, full, tmask, qtail));
}

/*
 * words == 2, ldb == 2: four codes per zmm. Code j + k's two lanes are
 * added by a swap within 128-bit blocks; codes j..j+3 land in the even lanes
 * in the low 16 bits and codes j+4..j+7 (shifted left by 16) in the next 16.
 */
static void hamming_words2_contiguous_avx512(const uint64_t *q, const uint64_t *b, int64_t nb, uint32_t *out)
{
    const __m512i qv = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)q));
    const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    const __m128i low16 = _mm_set1_epi32(0xffff);
    int64_t j = 0;
    for (; j + 8 <= nb; j += 8) {
        const uint64_t *bj = b + 2 * j;
        const __m512i v0 = _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_loadu_si512((const void *)bj), qv));
        const __m512i v1 = _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_loadu_si512((const void *)(bj + 8)), qv));
        __m512i p = _mm512_add_epi64(v0, _mm512_slli_epi64(v1, 16));
        p = _mm512_add_epi64(p, _mm512_shuffle_epi32(p, _MM_PERM_BADC));
        const __m128i pairs = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm512_cvtepi64_epi32(p), even));
        _mm_storeu_si128((__m128i *)(out + j), _mm_and_si128(pairs, low16));
        _mm_storeu_si128((__m128i *)(out + j + 4), _mm_srli_epi32(pairs, 16));
    }
    if (j < nb)
        hamming_tail_codes_avx512(q, b + 2 * j, nb - j, 2, 2, out + j);
}

/*
 * words == 4, ldb == 4: two codes per zmm. Vector k holds codes j + 2k
 * (low half) and j + 2k + 1 (high half); packed with code pair k in field k,
 * each 256-bit half is summed (swap 64-bit, then 128-bit blocks), leaving
 * codes j, j+2, j+4, j+6 in lane 0 and j+1, j+3, j+5, j+7 in lane 4, which a
 * 16-bit interleave puts back in order.
 */
static void hamming_words4_contiguous_avx512(const uint64_t *q, const uint64_t *b, int64_t nb, uint32_t *out)
{
    const __m512i qv = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)q));
    int64_t j = 0;
    for (; j + 8 <= nb; j += 8) {
        const uint64_t *bj = b + 4 * j;
        __m512i p = _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_loadu_si512((const void *)bj), qv));
        p = _mm512_add_epi64(p, _mm512_slli_epi64(
            _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_loadu_si512((const void *)(bj + 8)), qv)), 16));
        p = _mm512_add_epi64(p, _mm512_slli_epi64(
            _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_loadu_si512((const void *)(bj + 16)), qv)), 32));
        p = _mm512_add_epi64(p, _mm512_slli_epi64(
            _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_loadu_si512((const void *)(bj + 24)), qv)), 48));
        p = _mm512_add_epi64(p, _mm512_shuffle_epi32(p, _MM_PERM_BADC));
        p = _mm512_add_epi64(p, _mm512_shuffle_i64x2(p, p, _MM_SHUFFLE(2, 3, 0, 1)));
        const __m128i even_codes = _mm512_castsi512_si128(p);
        const __m128i odd_codes = _mm512_extracti64x2_epi64(p, 2);
        _mm256_storeu_si256((__m256i *)(out + j), _mm256_cvtepu16_epi32(_mm_unpacklo_epi16(even_codes, odd_codes)));
    }
    if (j < nb)
        hamming_tail_codes_avx512(q, b + 4 * j, nb - j, 4, 4, out + j);
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

    if (words == 2 && ldb == 2) {
        hamming_words2_contiguous_avx512(q, b, nb, out);
        return;
    }
    if (words == 4 && ldb == 4) {
        hamming_words4_contiguous_avx512(q, b, nb, out);
        return;
    }
    if (words <= 8) {
        /* one masked load per code, no loop */
        const __mmask8 m = (__mmask8)((1u << words) - 1u);
        const __m512i qv = _mm512_maskz_loadu_epi64(m, q);
        int64_t j = 0;
        for (; j + 8 <= nb; j += 8) {
            const uint64_t *bj = b + j * ldb;
            __m512i lo = xor_popcount_short_avx512(qv, m, bj);
            lo = _mm512_add_epi64(lo, _mm512_slli_epi64(xor_popcount_short_avx512(qv, m, bj + ldb), 16));
            lo = _mm512_add_epi64(lo, _mm512_slli_epi64(xor_popcount_short_avx512(qv, m, bj + 2 * ldb), 32));
            lo = _mm512_add_epi64(lo, _mm512_slli_epi64(xor_popcount_short_avx512(qv, m, bj + 3 * ldb), 48));
            __m512i hi = xor_popcount_short_avx512(qv, m, bj + 4 * ldb);
            hi = _mm512_add_epi64(hi, _mm512_slli_epi64(xor_popcount_short_avx512(qv, m, bj + 5 * ldb), 16));
            hi = _mm512_add_epi64(hi, _mm512_slli_epi64(xor_popcount_short_avx512(qv, m, bj + 6 * ldb), 32));
            hi = _mm512_add_epi64(hi, _mm512_slli_epi64(xor_popcount_short_avx512(qv, m, bj + 7 * ldb), 48));
            _mm256_storeu_si256((__m256i *)(out + j), reduce_packed_groups_avx512(lo, hi));
        }
        if (j < nb)
            hamming_tail_codes_avx512(q, b + j * ldb, nb - j, ldb, words, out + j);
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
    if (j < nb)
        hamming_tail_codes_avx512(q, b + j * ldb, nb - j, ldb, words, out + j);
}

/* ------------------------------------------------------------------------
 * Panel kernel (packed layout of hamming_kernels.h). Up to four queries at a
 * time against one panel of 32 codes: per code word, four aligned loads of
 * the panel (word w of 8 codes each) serve every query, each query word is
 * broadcast once, and acc[r][f] collects the 64-bit counts of codes
 * 4l + f (lane l) for query r: xor, vpopcntq, add, no horizontal sums.
 * The four count vectors of a query are packed into 16-bit fields (vector f
 * shifted left by 16 f), which is the 32 distances in code order, stored as
 * uint16 or widened to uint32. Codes of more than 1023 words (distances that
 * may not fit 16 bits, uint32 output only) are unpacked through memory.
 * ------------------------------------------------------------------------ */

#define PANEL_MAX_ROWS 4

static inline __attribute__((always_inline)) void panel_counts_avx512(const uint64_t *q, int64_t lda, const int rows,
                                                                      const uint64_t *panel, int64_t words,
                                                                      __m512i acc[PANEL_MAX_ROWS][4])
{
    {
        /* word 0 starts the counts */
        const __m512i p0 = _mm512_load_si512((const void *)panel);
        const __m512i p1 = _mm512_load_si512((const void *)(panel + 8));
        const __m512i p2 = _mm512_load_si512((const void *)(panel + 16));
        const __m512i p3 = _mm512_load_si512((const void *)(panel + 24));
#pragma GCC unroll 4
        for (int r = 0; r < rows; r++) {
            const __m512i qb = _mm512_set1_epi64((long long)q[r * lda]);
            acc[r][0] = _mm512_popcnt_epi64(_mm512_xor_si512(p0, qb));
            acc[r][1] = _mm512_popcnt_epi64(_mm512_xor_si512(p1, qb));
            acc[r][2] = _mm512_popcnt_epi64(_mm512_xor_si512(p2, qb));
            acc[r][3] = _mm512_popcnt_epi64(_mm512_xor_si512(p3, qb));
        }
    }
    for (int64_t w = 1; w < words; w++) {
        const uint64_t *pw = panel + w * HAMMING_PANEL;
        const __m512i p0 = _mm512_load_si512((const void *)pw);
        const __m512i p1 = _mm512_load_si512((const void *)(pw + 8));
        const __m512i p2 = _mm512_load_si512((const void *)(pw + 16));
        const __m512i p3 = _mm512_load_si512((const void *)(pw + 24));
#pragma GCC unroll 4
        for (int r = 0; r < rows; r++) {
            const __m512i qb = _mm512_set1_epi64((long long)q[r * lda + w]);
            acc[r][0] = _mm512_add_epi64(acc[r][0], _mm512_popcnt_epi64(_mm512_xor_si512(p0, qb)));
            acc[r][1] = _mm512_add_epi64(acc[r][1], _mm512_popcnt_epi64(_mm512_xor_si512(p1, qb)));
            acc[r][2] = _mm512_add_epi64(acc[r][2], _mm512_popcnt_epi64(_mm512_xor_si512(p2, qb)));
            acc[r][3] = _mm512_add_epi64(acc[r][3], _mm512_popcnt_epi64(_mm512_xor_si512(p3, qb)));
        }
    }
}

/*
 * The 32 distances of one query in code order as 16-bit fields: word 4l + f
 * of the result is the count in lane l of s[f]. Each count is at most 65535,
 * so word 4l + 1 of every vector is 0. Two two-source word permutes take
 * fields 0 and 1 (from s[0], s[1]) and fields 2 and 3 (from s[2], s[3]),
 * each filling the other two fields with a zero word of its first source,
 * and an or joins them: 3 instructions, where shifting fields 1..3 into
 * place took 5 (3 of them shifts, which on Zen 4 share two pipes with
 * VPOPCNTQ's and the permutes').
 */
static inline __m512i pack_fields16_avx512(const __m512i s[4])
{
    const __m512i fields01 = _mm512_set_epi16(29, 29, 60, 28, 25, 25, 56, 24, 21, 21, 52, 20, 17, 17, 48, 16, 13, 13,
                                              44, 12, 9, 9, 40, 8, 5, 5, 36, 4, 1, 1, 32, 0);
    const __m512i fields23 = _mm512_set_epi16(60, 28, 29, 29, 56, 24, 25, 25, 52, 20, 21, 21, 48, 16, 17, 17, 44, 12,
                                              13, 13, 40, 8, 9, 9, 36, 4, 5, 5, 32, 0, 1, 1);
    return _mm512_or_si512(_mm512_permutex2var_epi16(s[0], fields01, s[1]),
                           _mm512_permutex2var_epi16(s[2], fields23, s[3]));
}

static inline void store64_avx512(void *dst, __m512i v, int stream)
{
    if (stream && ((uintptr_t)dst & 63) == 0)
        _mm512_stream_si512(dst, v);
    else
        _mm512_storeu_si512(dst, v);
}

/* Store the n <= 32 distances of one query (codes j0 .. j0 + n - 1 at dst). */
static inline void store_panel_row_avx512(const __m512i s[4], int64_t n, int64_t words, void *dst, int out_u32,
                                          int stream)
{
    if (words > HAMMING_U16_MAX_WORDS) { /* uint32 only */
        uint64_t tmp[HAMMING_PANEL];
        for (int f = 0; f < 4; f++)
            _mm512_storeu_si512((void *)(tmp + 8 * f), s[f]);
        uint32_t *o = dst;
        for (int64_t c = 0; c < n; c++)
            o[c] = (uint32_t)tmp[(c % 4) * 8 + c / 4];
        return;
    }
    const __m512i v = pack_fields16_avx512(s);
    if (!out_u32) {
        if (n == HAMMING_PANEL)
            store64_avx512(dst, v, stream);
        else
            _mm512_mask_storeu_epi16(dst, (__mmask32)((UINT64_C(1) << n) - 1), v);
        return;
    }
    const __m512i lo = _mm512_cvtepu16_epi32(_mm512_castsi512_si256(v));
    const __m512i hi = _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(v, 1));
    uint32_t *o = dst;
    if (n == HAMMING_PANEL) {
        store64_avx512(o, lo, stream);
        store64_avx512(o + 16, hi, stream);
    } else {
        _mm512_mask_storeu_epi32(o, (__mmask16)(n >= 16 ? 0xffffu : (1u << n) - 1u), lo);
        if (n > 16)
            _mm512_mask_storeu_epi32(o + 16, (__mmask16)((1u << (n - 16)) - 1u), hi);
    }
}

static inline __attribute__((always_inline)) void panel_rows_avx512(const uint64_t *q, int64_t lda, const int rows,
                                                                    const uint64_t *panels, int64_t nb, int64_t words,
                                                                    void *out, int64_t ldo, int out_u32, int stream)
{
    const size_t esize = out_u32 ? sizeof(uint32_t) : sizeof(uint16_t);
    for (int64_t j = 0; j < nb; j += HAMMING_PANEL) {
        __m512i acc[PANEL_MAX_ROWS][4];
        panel_counts_avx512(q, lda, rows, panels + j * words, words, acc);
        const int64_t n = nb - j < HAMMING_PANEL ? nb - j : HAMMING_PANEL;
#pragma GCC unroll 4
        for (int r = 0; r < rows; r++)
            store_panel_row_avx512(acc[r], n, words, (char *)out + ((size_t)(r * ldo + j)) * esize, out_u32, stream);
    }
}

void hamming_panel_avx512_vpopcntdq(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels,
                                    int64_t nb, int64_t words, void *out, int64_t ldo, int out_u32, int stream)
{
    const size_t esize = out_u32 ? sizeof(uint32_t) : sizeof(uint16_t);
    int64_t i = 0;
    for (; i + 4 <= na; i += 4)
        panel_rows_avx512(a + i * lda, lda, 4, panels, nb, words, (char *)out + (size_t)(i * ldo) * esize, ldo,
                          out_u32, stream);
    void *rest = (char *)out + (size_t)(i * ldo) * esize;
    switch (na - i) {
    case 3:
        panel_rows_avx512(a + i * lda, lda, 3, panels, nb, words, rest, ldo, out_u32, stream);
        break;
    case 2:
        panel_rows_avx512(a + i * lda, lda, 2, panels, nb, words, rest, ldo, out_u32, stream);
        break;
    case 1:
        panel_rows_avx512(a + i * lda, lda, 1, panels, nb, words, rest, ldo, out_u32, stream);
        break;
    default:
        break;
    }
    if (stream)
        _mm_sfence();
}

/*
 * Filter kernel: a panel's 32 distances are one vector of 16-bit lanes,
 * compared with the limit into a 32-bit mask, stored for every panel (the
 * last partial one loaded under a mask: lanes past n are not read). A second
 * pass compresses the nonzero masks, 16 per vector, with their panel
 * numbers, to the front of the lists: a few instructions per panel and no
 * branch on the data.
 */
int64_t hamming_filter_avx512(const uint16_t *d, int64_t n, uint32_t t, uint32_t *hits, uint32_t *masks)
{
    const __m512i lim = _mm512_set1_epi16((short)(t > 65535 ? 65535 : t)); /* distances are at most 65535 */
    const int64_t full = n / HAMMING_PANEL, panels = (n + HAMMING_PANEL - 1) / HAMMING_PANEL;
    /* every panel's mask, in place, two per 64-bit store (a 32-bit mask store is slower on some cores) */
    int64_t q = 0;
    for (; q + 2 <= full; q += 2) {
        const __mmask32 m0 = _mm512_cmple_epu16_mask(_mm512_loadu_si512((const void *)(d + q * HAMMING_PANEL)), lim);
        const __mmask32 m1 =
            _mm512_cmple_epu16_mask(_mm512_loadu_si512((const void *)(d + (q + 1) * HAMMING_PANEL)), lim);
        const uint64_t pair = _cvtmask64_u64(_mm512_kunpackd((__mmask64)m1, (__mmask64)m0));
        memcpy(masks + q, &pair, sizeof pair);
    }
    if (q < full)
        masks[q] = (uint32_t)_mm512_cmple_epu16_mask(_mm512_loadu_si512((const void *)(d + q * HAMMING_PANEL)), lim);
    if (full < panels) {
        const __mmask32 valid = (__mmask32)((UINT64_C(1) << (n - full * HAMMING_PANEL)) - 1);
        masks[full] = (uint32_t)_mm512_mask_cmple_epu16_mask(
            valid, _mm512_maskz_loadu_epi16(valid, d + full * HAMMING_PANEL), lim);
    }
    /* the nonzero ones compressed to the front, 16 at a time (the stores stay behind the reads: h <= p) */
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    int64_t h = 0, p = 0;
    for (; p + 16 <= panels; p += 16) {
        const __m512i mv = _mm512_loadu_si512((const void *)(masks + p));
        const __mmask16 nz = _mm512_test_epi32_mask(mv, mv);
        _mm512_storeu_si512((void *)(hits + h),
                            _mm512_maskz_compress_epi32(nz, _mm512_add_epi32(_mm512_set1_epi32((int)p), lanes)));
        _mm512_storeu_si512((void *)(masks + h), _mm512_maskz_compress_epi32(nz, mv));
        h += __builtin_popcount(nz);
    }
    for (; p < panels; p++) {
        const uint32_t m = masks[p];
        hits[h] = (uint32_t)p;
        masks[h] = m;
        h += m != 0;
    }
    return h;
}

/*
 * Scan kernel: the panel kernel's counts and 16-bit packing, then, while a
 * query's 32 distances are still in a register, one compare with its limit
 * into a 32-bit mask, appended to its hit list without a branch (written
 * always, the count advanced when the mask is not 0), beside the store of
 * the distances. Up to four queries per pass over a panel.
 */
static inline __attribute__((always_inline)) void scan_rows_avx512(const uint64_t *q, int64_t lda, const int rows,
                                                                   const uint64_t *panels, int64_t nb, int64_t words,
                                                                   const uint32_t *limit, uint16_t *d, int64_t ldd,
                                                                   uint32_t *hits, uint32_t *masks, int64_t ldh,
                                                                   int64_t *nhits)
{
    __m512i lim[PANEL_MAX_ROWS];
    int64_t h[PANEL_MAX_ROWS];
    for (int r = 0; r < rows; r++) {
        lim[r] = _mm512_set1_epi16((short)(limit[r] > 65535 ? 65535 : limit[r])); /* distances are at most 65472 */
        h[r] = 0;
    }
    int64_t j = 0, p = 0;
    for (; j + HAMMING_PANEL <= nb; j += HAMMING_PANEL, p++) {
        __m512i acc[PANEL_MAX_ROWS][4];
        panel_counts_avx512(q, lda, rows, panels + j * words, words, acc);
#pragma GCC unroll 4
        for (int r = 0; r < rows; r++) {
            const __m512i v = pack_fields16_avx512(acc[r]);
            _mm512_storeu_si512((void *)(d + r * ldd + j), v);
            const uint32_t m = (uint32_t)_mm512_cmple_epu16_mask(v, lim[r]);
            hits[r * ldh + h[r]] = (uint32_t)p;
            masks[r * ldh + h[r]] = m;
            h[r] += m != 0;
        }
    }
    if (j < nb) {
        __m512i acc[PANEL_MAX_ROWS][4];
        panel_counts_avx512(q, lda, rows, panels + j * words, words, acc);
        const __mmask32 valid = (__mmask32)((UINT64_C(1) << (nb - j)) - 1);
        for (int r = 0; r < rows; r++) {
            const __m512i v = pack_fields16_avx512(acc[r]);
            _mm512_mask_storeu_epi16(d + r * ldd + j, valid, v);
            const uint32_t m = (uint32_t)_mm512_mask_cmple_epu16_mask(valid, v, lim[r]);
            hits[r * ldh + h[r]] = (uint32_t)p;
            masks[r * ldh + h[r]] = m;
            h[r] += m != 0;
        }
    }
    for (int r = 0; r < rows; r++)
        nhits[r] = h[r];
}

void hamming_scan_avx512_vpopcntdq(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                                   int64_t words, const uint32_t *limit, uint16_t *d, int64_t ldd, uint32_t *hits,
                                   uint32_t *masks, int64_t ldh, int64_t *nhits)
{
    int64_t i = 0;
    for (; i + 4 <= na; i += 4)
        scan_rows_avx512(a + i * lda, lda, 4, panels, nb, words, limit + i, d + i * ldd, ldd, hits + i * ldh,
                         masks + i * ldh, ldh, nhits + i);
    const uint64_t *q = a + i * lda;
    switch (na - i) {
    case 3:
        scan_rows_avx512(q, lda, 3, panels, nb, words, limit + i, d + i * ldd, ldd, hits + i * ldh, masks + i * ldh,
                         ldh, nhits + i);
        break;
    case 2:
        scan_rows_avx512(q, lda, 2, panels, nb, words, limit + i, d + i * ldd, ldd, hits + i * ldh, masks + i * ldh,
                         ldh, nhits + i);
        break;
    case 1:
        scan_rows_avx512(q, lda, 1, panels, nb, words, limit + i, d + i * ldd, ldd, hits + i * ldh, masks + i * ldh,
                         ldh, nhits + i);
        break;
    default:
        break;
    }
}

/*
 * Bound kernel: group minima with vpminuw (gv accumulators in work, vector v
 * of the distances into accumulator v mod gv; the last partial vector padded
 * with 65535), then a binary search on counts (compare to masks, popcount).
 */
uint32_t hamming_bound_avx512(const uint16_t *d, int64_t n, int64_t k, int64_t gv, uint16_t *work)
{
    const int64_t full = n / HAMMING_PANEL;
    for (int64_t i = 0; i < gv; i++)
        _mm512_storeu_si512((void *)(work + i * HAMMING_PANEL), _mm512_loadu_si512((const void *)(d + i * HAMMING_PANEL)));
    int64_t v = gv, i = 0;
    if (gv == 1) { /* the common case: one accumulator in a register */
        __m512i acc = _mm512_loadu_si512((const void *)work);
        for (; v < full; v++)
            acc = _mm512_min_epu16(acc, _mm512_loadu_si512((const void *)(d + v * HAMMING_PANEL)));
        _mm512_storeu_si512((void *)work, acc);
    } else {
        for (; v < full; v++) {
            uint16_t *w = work + i * HAMMING_PANEL;
            _mm512_storeu_si512((void *)w, _mm512_min_epu16(_mm512_loadu_si512((const void *)w),
                                                            _mm512_loadu_si512((const void *)(d + v * HAMMING_PANEL))));
            i = i + 1 == gv ? 0 : i + 1;
        }
    }
    if (full * HAMMING_PANEL < n) {
        const __mmask32 valid = (__mmask32)((UINT64_C(1) << (n - full * HAMMING_PANEL)) - 1);
        const __m512i last = _mm512_mask_loadu_epi16(_mm512_set1_epi16(-1), valid, d + full * HAMMING_PANEL);
        uint16_t *w = work + (full % gv) * HAMMING_PANEL;
        _mm512_storeu_si512((void *)w, _mm512_min_epu16(_mm512_loadu_si512((const void *)w), last));
    }
    uint32_t lo = 0, hi = 65535;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        const __m512i lim = _mm512_set1_epi16((short)mid);
        int64_t le = 0;
        for (int64_t a = 0; a < gv; a++)
            le += __builtin_popcount((uint32_t)_mm512_cmple_epu16_mask(
                _mm512_loadu_si512((const void *)(work + a * HAMMING_PANEL)), lim));
        if (le >= k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/*
 * Gather kernel: per listed panel, its 32 distances widened to two vectors
 * of 32-bit lanes and compressed with the mask's halves, beside the
 * compressed code numbers; whole-vector stores, no branch per entry.
 */
int64_t hamming_gather_avx512(const uint16_t *d, const uint32_t *hits, const uint32_t *masks, int64_t h, uint32_t *pos,
                              uint32_t *dist)
{
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    int64_t w = 0;
    for (int64_t t = 0; t < h; t++) {
        const uint32_t base = hits[t] * HAMMING_PANEL, m = masks[t];
        const __mmask16 mlo = (__mmask16)(m & 0xffffu), mhi = (__mmask16)(m >> 16);
        const __m512i v = _mm512_loadu_si512((const void *)(d + base));
        const __m512i j = _mm512_add_epi32(_mm512_set1_epi32((int)base), lanes);
        const int64_t nlo = __builtin_popcount(m & 0xffffu);
        _mm512_storeu_si512((void *)(pos + w), _mm512_maskz_compress_epi32(mlo, j));
        _mm512_storeu_si512((void *)(dist + w), _mm512_maskz_compress_epi32(mlo, _mm512_cvtepu16_epi32(_mm512_castsi512_si256(v))));
        _mm512_storeu_si512((void *)(pos + w + nlo),
                            _mm512_maskz_compress_epi32(mhi, _mm512_add_epi32(j, _mm512_set1_epi32(16))));
        _mm512_storeu_si512((void *)(dist + w + nlo),
                            _mm512_maskz_compress_epi32(mhi, _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(v, 1))));
        w += __builtin_popcount(m);
    }
    return w;
}

/*
 * Prefix kernel: the panel kernel's distances, and while they are in
 * registers their group minima (vpminuw; with gv == 1 in a register per
 * query, else in work), then the bound kernel's search on the minima. The
 * last partial panel is padded with 65535.
 */
static inline __attribute__((always_inline)) void prefix_rows_avx512(const uint64_t *q, int64_t lda, const int rows,
                                                                     const uint64_t *panels, int64_t nb, int64_t words,
                                                                     int64_t k, int64_t gv, uint16_t *d, int64_t ldd,
                                                                     uint16_t *work, uint32_t *t0)
{
    const int64_t g = HAMMING_PANEL * gv;
    __m512i gmin[PANEL_MAX_ROWS];
    for (int r = 0; r < rows; r++) {
        gmin[r] = _mm512_set1_epi16(-1);
        for (int64_t i = 0; i < gv; i++)
            _mm512_storeu_si512((void *)(work + r * g + i * HAMMING_PANEL), gmin[r]);
    }
    int64_t j = 0, slot = 0;
    for (; j + HAMMING_PANEL <= nb; j += HAMMING_PANEL) {
        __m512i acc[PANEL_MAX_ROWS][4];
        panel_counts_avx512(q, lda, rows, panels + j * words, words, acc);
#pragma GCC unroll 4
        for (int r = 0; r < rows; r++) {
            const __m512i v = pack_fields16_avx512(acc[r]);
            _mm512_storeu_si512((void *)(d + r * ldd + j), v);
            if (gv == 1) {
                gmin[r] = _mm512_min_epu16(gmin[r], v);
            } else {
                uint16_t *w = work + r * g + slot * HAMMING_PANEL;
                _mm512_storeu_si512((void *)w, _mm512_min_epu16(_mm512_loadu_si512((const void *)w), v));
            }
        }
        slot = slot + 1 == gv ? 0 : slot + 1;
    }
    if (j < nb) { /* the last partial panel, padded with 65535 */
        __m512i acc[PANEL_MAX_ROWS][4];
        panel_counts_avx512(q, lda, rows, panels + j * words, words, acc);
        const __mmask32 valid = (__mmask32)((UINT64_C(1) << (nb - j)) - 1);
        for (int r = 0; r < rows; r++) {
            const __m512i v = pack_fields16_avx512(acc[r]);
            _mm512_mask_storeu_epi16(d + r * ldd + j, valid, v);
            const __m512i vv = _mm512_mask_mov_epi16(_mm512_set1_epi16(-1), valid, v);
            if (gv == 1) {
                gmin[r] = _mm512_min_epu16(gmin[r], vv);
            } else {
                uint16_t *w = work + r * g + slot * HAMMING_PANEL;
                _mm512_storeu_si512((void *)w, _mm512_min_epu16(_mm512_loadu_si512((const void *)w), vv));
            }
        }
    }
    for (int r = 0; r < rows; r++) {
        if (gv == 1)
            _mm512_storeu_si512((void *)(work + r * g), gmin[r]);
        /* the search runs between the smallest and the largest minimum */
        __m512i lo_v = _mm512_loadu_si512((const void *)(work + r * g)), hi_v = lo_v;
        for (int64_t a = 1; a < gv; a++) {
            const __m512i x = _mm512_loadu_si512((const void *)(work + r * g + a * HAMMING_PANEL));
            lo_v = _mm512_min_epu16(lo_v, x);
            hi_v = _mm512_max_epu16(hi_v, x);
        }
        uint16_t lanes_lo[HAMMING_PANEL], lanes_hi[HAMMING_PANEL];
        _mm512_storeu_si512((void *)lanes_lo, lo_v);
        _mm512_storeu_si512((void *)lanes_hi, hi_v);
        uint32_t lo = 65535, hi = 0;
        for (int l = 0; l < HAMMING_PANEL; l++) {
            lo = lanes_lo[l] < lo ? lanes_lo[l] : lo;
            hi = lanes_hi[l] > hi ? lanes_hi[l] : hi;
        }
        while (lo < hi) {
            const uint32_t mid = lo + (hi - lo) / 2;
            const __m512i lim = _mm512_set1_epi16((short)mid);
            int64_t le = 0;
            for (int64_t a = 0; a < gv; a++)
                le += __builtin_popcount((uint32_t)_mm512_cmple_epu16_mask(
                    _mm512_loadu_si512((const void *)(work + r * g + a * HAMMING_PANEL)), lim));
            if (le >= k)
                hi = mid;
            else
                lo = mid + 1;
        }
        t0[r] = lo;
    }
}

void hamming_prefix_avx512_vpopcntdq(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                                     int64_t words, int64_t k, int64_t gv, uint16_t *d, int64_t ldd, uint16_t *work,
                                     uint32_t *t0)
{
    const int64_t g = HAMMING_PANEL * gv;
    int64_t i = 0;
    for (; i + 4 <= na; i += 4)
        prefix_rows_avx512(a + i * lda, lda, 4, panels, nb, words, k, gv, d + i * ldd, ldd, work + i * g, t0 + i);
    const uint64_t *q = a + i * lda;
    switch (na - i) {
    case 3:
        prefix_rows_avx512(q, lda, 3, panels, nb, words, k, gv, d + i * ldd, ldd, work + i * g, t0 + i);
        break;
    case 2:
        prefix_rows_avx512(q, lda, 2, panels, nb, words, k, gv, d + i * ldd, ldd, work + i * g, t0 + i);
        break;
    case 1:
        prefix_rows_avx512(q, lda, 1, panels, nb, words, k, gv, d + i * ldd, ldd, work + i * g, t0 + i);
        break;
    default:
        break;
    }
}

/*
 * Place kernel: the distances present, smallest first, each found as the
 * minimum of those above the last one (a masked reduction), and the codes
 * at that distance compressed into the output in array order (whole-vector
 * stores into the room past the count: an empty mask adds nothing, so no
 * branch on the data) until k are out: no histogram, so no chain of stores
 * and loads through it. Up to 64 codes are held in four vectors; more go
 * through the scalar kernel.
 */
void hamming_place_avx512(const uint32_t *pos, const uint32_t *dist, int64_t e, int64_t k, int64_t base, uint32_t lo,
                          uint32_t hi, uint32_t *hist, int64_t *out_idx, uint32_t *out_dist)
{
    if (e > 64) {
        hamming_place_scalar(pos, dist, e, k, base, lo, hi, hist, out_idx, out_dist);
        return;
    }
    __m512i dv[4], pv[4];
    __mmask16 valid[4];
    const int nv = (int)((e + 15) / 16);
    for (int v = 0; v < nv; v++) {
        const int64_t rest = e - 16 * v;
        valid[v] = rest >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << rest) - 1u);
        dv[v] = _mm512_maskz_loadu_epi32(valid[v], dist + 16 * v);
        pv[v] = _mm512_maskz_loadu_epi32(valid[v], pos + 16 * v);
    }
    const __m512i base_v = _mm512_set1_epi64((long long)base);
    int64_t w = 0;
    uint32_t t = lo;
    for (;;) {
        const __m512i tv = _mm512_set1_epi32((int)t);
        for (int v = 0; v < nv; v++) {
            const __mmask16 m = _mm512_mask_cmpeq_epi32_mask(valid[v], dv[v], tv);
            const __m512i pc = _mm512_maskz_compress_epi32(m, pv[v]);
            _mm512_storeu_si512((void *)(out_idx + w),
                                _mm512_add_epi64(base_v, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(pc))));
            _mm512_storeu_si512((void *)(out_idx + w + 8),
                                _mm512_add_epi64(base_v, _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(pc, 1))));
            _mm512_storeu_si512((void *)(out_dist + w), _mm512_maskz_compress_epi32(m, dv[v]));
            w += __builtin_popcount(m);
        }
        if (w >= k || t >= hi)
            break;
        /* the next distance present: the smallest above t */
        __m512i next = _mm512_set1_epi32(-1);
        for (int v = 0; v < nv; v++)
            next = _mm512_mask_min_epu32(next, _mm512_mask_cmpgt_epu32_mask(valid[v], dv[v], tv), next, dv[v]);
        t = (uint32_t)_mm512_reduce_min_epu32(next);
    }
}
