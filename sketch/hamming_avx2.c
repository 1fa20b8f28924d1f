/*
 * hamming_avx2.c - AVX2 Hamming row kernel (see hamming_kernels.h).
 *
 * Codes of 4 words or more are counted 4 words (one ymm) at a time with the
 * nibble-table popcount: vpshufb looks up the bit count of each low and high
 * nibble, byte counts accumulate for up to 31 vectors (31 * 8 = 248 fits a
 * byte) and vpsadbw folds them into four 64-bit lane sums. The leftover
 * words % 4 words use the hardware popcnt, as do codes shorter than 4 words.
 *
 * Four codes are finished together: their lane sums are packed into 16-bit
 * fields of one vector (code k shifted left by 16k) and reduced once. This
 * is exact when a code's distance cannot exceed 65535, i.e. words <= 1023
 * (every SKETCH_MAX_BITS code); longer codes are reduced one at a time.
 */
#include <immintrin.h>

#include "sketch/hamming_kernels.h"

/* Codes shorter than this use popcnt only. */
#define HAMMING_AVX2_VECTOR_MIN_WORDS 4
/* Largest word count whose distances (<= 64 * words) fit a 16-bit field. */
#define HAMMING_AVX2_PACK_MAX_WORDS 1023

/* Per-byte popcount of x. */
static inline __m256i popcount_bytes_avx2(__m256i x)
{
    const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                           0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low_nibbles = _mm256_set1_epi8(0x0f);
    const __m256i lo = _mm256_and_si256(x, low_nibbles);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), low_nibbles);
    return _mm256_add_epi8(_mm256_shuffle_epi8(table, lo), _mm256_shuffle_epi8(table, hi));
}

/* Four 64-bit lane sums of popcount(q xor bj) over the first vw words (vw % 4 == 0). */
static inline __m256i xor_popcount_lanes_avx2(const uint64_t *q, const uint64_t *bj, int64_t vw)
{
    if (vw == 4) { /* 4 to 7 words: one vector, no loop */
        const __m256i x = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)q),
                                           _mm256_loadu_si256((const __m256i *)bj));
        return _mm256_sad_epu8(popcount_bytes_avx2(x), _mm256_setzero_si256());
    }
    __m256i lanes = _mm256_setzero_si256();
    int64_t w = 0;
    while (w < vw) {
        const int64_t end = vw - w > 4 * 31 ? w + 4 * 31 : vw;
        __m256i bytes = _mm256_setzero_si256();
        for (; w < end; w += 4) {
            const __m256i x = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(q + w)),
                                               _mm256_loadu_si256((const __m256i *)(bj + w)));
            bytes = _mm256_add_epi8(bytes, popcount_bytes_avx2(x));
        }
        lanes = _mm256_add_epi64(lanes, _mm256_sad_epu8(bytes, _mm256_setzero_si256()));
    }
    return lanes;
}

/* Sum of the four 64-bit lanes of v. */
static inline uint64_t hsum_epi64_avx2(__m256i v)
{
    __m128i h = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    h = _mm_add_epi64(h, _mm_unpackhi_epi64(h, h));
    return (uint64_t)_mm_cvtsi128_si64(h);
}

/* popcount(q xor bj) over words w0 .. words - 1 with the popcnt instruction. */
static inline uint64_t xor_popcount_tail_avx2(const uint64_t *q, const uint64_t *bj,
                                              int64_t w0, int64_t words)
{
    uint64_t count = 0;
    for (int64_t w = w0; w < words; w++)
        count += (uint64_t)_mm_popcnt_u64(q[w] ^ bj[w]);
    return count;
}

void hamming_row_avx2(const uint64_t *q, const uint64_t *b, int64_t nb,
                      int64_t ldb, int64_t words, uint32_t *out)
{
    if (words == 1) {
        const uint64_t q0 = q[0];
        for (int64_t j = 0; j < nb; j++)
            out[j] = (uint32_t)_mm_popcnt_u64(q0 ^ b[j * ldb]);
        return;
    }
    if (words < HAMMING_AVX2_VECTOR_MIN_WORDS) {
        for (int64_t j = 0; j < nb; j++)
            out[j] = (uint32_t)xor_popcount_tail_avx2(q, b + j * ldb, 0, words);
        return;
    }

    const int64_t vw = words & ~(int64_t)3; /* words counted with vectors */
    int64_t j = 0;
    if (words <= HAMMING_AVX2_PACK_MAX_WORDS) {
        for (; j + 4 <= nb; j += 4) {
            const uint64_t *b0 = b + j * ldb;
            const __m256i s0 = xor_popcount_lanes_avx2(q, b0, vw);
            const __m256i s1 = xor_popcount_lanes_avx2(q, b0 + ldb, vw);
            const __m256i s2 = xor_popcount_lanes_avx2(q, b0 + 2 * ldb, vw);
            const __m256i s3 = xor_popcount_lanes_avx2(q, b0 + 3 * ldb, vw);
            /* field k (bits 16k .. 16k+15) of every lane holds code k's lane sum */
            __m256i packed = _mm256_add_epi64(s0, _mm256_slli_epi64(s1, 16));
            packed = _mm256_add_epi64(packed, _mm256_slli_epi64(s2, 32));
            packed = _mm256_add_epi64(packed, _mm256_slli_epi64(s3, 48));
            const uint64_t fields = hsum_epi64_avx2(packed);
            for (int k = 0; k < 4; k++)
                out[j + k] = (uint32_t)(((fields >> (16 * k)) & 0xffff) +
                                        xor_popcount_tail_avx2(q, b0 + k * ldb, vw, words));
        }
    }
    for (; j < nb; j++) {
        const uint64_t *bj = b + j * ldb;
        out[j] = (uint32_t)(hsum_epi64_avx2(xor_popcount_lanes_avx2(q, bj, vw)) +
                            xor_popcount_tail_avx2(q, bj, vw, words));
    }
}

/* ------------------------------------------------------------------------
 * Panel kernel (packed layout of hamming_kernels.h): one query at a time
 * against half a panel (16 codes, four ymm of word w of 4 codes each). Byte
 * counts from the nibble table accumulate for up to 31 words, then vpsadbw
 * sums each 64-bit lane, which is one code's count: no horizontal sums. The
 * four lane-sum vectors are packed into 16-bit fields in code order.
 * ------------------------------------------------------------------------ */

static inline void store32_avx2(void *dst, __m256i v, int stream)
{
    if (stream && ((uintptr_t)dst & 31) == 0)
        _mm256_stream_si256((__m256i *)dst, v);
    else
        _mm256_storeu_si256((__m256i *)dst, v);
}

/* Store the n <= 16 distances of one half panel (s[f] lane l: code 4l + f). */
static void store_half_avx2(const __m256i s[4], int64_t n, int64_t words, void *dst, int out_u32, int stream)
{
    if (words > HAMMING_U16_MAX_WORDS) { /* uint32 only */
        uint64_t tmp[16];
        for (int f = 0; f < 4; f++)
            _mm256_storeu_si256((__m256i *)(tmp + 4 * f), s[f]);
        uint32_t *o = dst;
        for (int64_t c = 0; c < n; c++)
            o[c] = (uint32_t)tmp[(c % 4) * 4 + c / 4];
        return;
    }
    const __m256i v = _mm256_or_si256(_mm256_or_si256(s[0], _mm256_slli_epi64(s[1], 16)),
                                      _mm256_or_si256(_mm256_slli_epi64(s[2], 32), _mm256_slli_epi64(s[3], 48)));
    if (!out_u32) {
        if (n == 16) {
            store32_avx2(dst, v, stream);
        } else {
            uint16_t tmp[16];
            _mm256_storeu_si256((__m256i *)tmp, v);
            for (int64_t c = 0; c < n; c++)
                ((uint16_t *)dst)[c] = tmp[c];
        }
        return;
    }
    const __m256i lo = _mm256_cvtepu16_epi32(_mm256_castsi256_si128(v));
    const __m256i hi = _mm256_cvtepu16_epi32(_mm256_extracti128_si256(v, 1));
    uint32_t *o = dst;
    if (n == 16) {
        store32_avx2(o, lo, stream);
        store32_avx2(o + 8, hi, stream);
    } else {
        uint32_t tmp[16];
        _mm256_storeu_si256((__m256i *)tmp, lo);
        _mm256_storeu_si256((__m256i *)(tmp + 8), hi);
        for (int64_t c = 0; c < n; c++)
            o[c] = tmp[c];
    }
}

/* s[f] lane l: the count of code j + 4l + f (j a multiple of 16) against q. */
static inline void half_panel_counts_avx2(const uint64_t *q, const uint64_t *panels, int64_t j, int64_t words,
                                          __m256i s[4])
{
    const __m256i zero = _mm256_setzero_si256();
    const uint64_t *half = panels + (j / HAMMING_PANEL) * HAMMING_PANEL * words + (j % HAMMING_PANEL) / 4;
    s[0] = s[1] = s[2] = s[3] = zero;
    for (int64_t w0 = 0; w0 < words; w0 += 31) {
        const int64_t end = words - w0 > 31 ? w0 + 31 : words;
        __m256i c0 = zero, c1 = zero, c2 = zero, c3 = zero;
        for (int64_t w = w0; w < end; w++) {
            const __m256i qb = _mm256_set1_epi64x((long long)q[w]);
            const uint64_t *pw = half + w * HAMMING_PANEL;
            c0 = _mm256_add_epi8(c0, popcount_bytes_avx2(_mm256_xor_si256(_mm256_load_si256((const __m256i *)pw), qb)));
            c1 = _mm256_add_epi8(c1, popcount_bytes_avx2(_mm256_xor_si256(_mm256_load_si256((const __m256i *)(pw + 8)), qb)));
            c2 = _mm256_add_epi8(c2, popcount_bytes_avx2(_mm256_xor_si256(_mm256_load_si256((const __m256i *)(pw + 16)), qb)));
            c3 = _mm256_add_epi8(c3, popcount_bytes_avx2(_mm256_xor_si256(_mm256_load_si256((const __m256i *)(pw + 24)), qb)));
        }
        s[0] = _mm256_add_epi64(s[0], _mm256_sad_epu8(c0, zero));
        s[1] = _mm256_add_epi64(s[1], _mm256_sad_epu8(c1, zero));
        s[2] = _mm256_add_epi64(s[2], _mm256_sad_epu8(c2, zero));
        s[3] = _mm256_add_epi64(s[3], _mm256_sad_epu8(c3, zero));
    }
}

void hamming_panel_avx2(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                        int64_t words, void *out, int64_t ldo, int out_u32, int stream)
{
    const size_t esize = out_u32 ? sizeof(uint32_t) : sizeof(uint16_t);
    for (int64_t i = 0; i < na; i++) {
        const uint64_t *q = a + i * lda;
        for (int64_t j = 0; j < nb; j += 16) {
            __m256i s[4];
            half_panel_counts_avx2(q, panels, j, words, s);
            const int64_t n = nb - j < 16 ? nb - j : 16;
            store_half_avx2(s, n, words, (char *)out + (size_t)(i * ldo + j) * esize, out_u32, stream);
        }
    }
    if (stream)
        _mm_sfence();
}

/*
 * Filter kernel: a panel's 32 distances are two vectors of 16-bit lanes;
 * d <= t is max(d, t) == t (AVX2 has no unsigned 16-bit compare), the two
 * compare results are packed to bytes (within 128-bit lanes, so a 64-bit
 * permute restores the order) and movemask gives the 32-bit mask. The panel
 * is appended without a branch. The last partial panel goes through a copy
 * padded with distances above the limit.
 */
static inline uint32_t panel_mask_avx2(const uint16_t *d, __m256i lim)
{
    const __m256i lo = _mm256_loadu_si256((const __m256i *)d), hi = _mm256_loadu_si256((const __m256i *)(d + 16));
    const __m256i le_lo = _mm256_cmpeq_epi16(_mm256_max_epu16(lo, lim), lim);
    const __m256i le_hi = _mm256_cmpeq_epi16(_mm256_max_epu16(hi, lim), lim);
    const __m256i bytes = _mm256_permute4x64_epi64(_mm256_packs_epi16(le_lo, le_hi), 0xD8);
    return (uint32_t)_mm256_movemask_epi8(bytes);
}

int64_t hamming_filter_avx2(const uint16_t *d, int64_t n, uint32_t t, uint32_t *hits, uint32_t *masks)
{
    const uint16_t t16 = (uint16_t)(t > 65535 ? 65535 : t); /* distances are at most 65535 */
    const __m256i lim = _mm256_set1_epi16((short)t16);
    int64_t h = 0, p = 0;
    for (; (p + 1) * HAMMING_PANEL <= n; p++) {
        const uint32_t m = panel_mask_avx2(d + p * HAMMING_PANEL, lim);
        hits[h] = (uint32_t)p;
        masks[h] = m;
        h += m != 0;
    }
    const int64_t rest = n - p * HAMMING_PANEL;
    if (rest > 0) {
        uint16_t tmp[HAMMING_PANEL];
        for (int64_t c = 0; c < HAMMING_PANEL; c++)
            tmp[c] = c < rest ? d[p * HAMMING_PANEL + c] : 0;
        const uint32_t m = panel_mask_avx2(tmp, lim) & (uint32_t)((UINT64_C(1) << rest) - 1);
        hits[h] = (uint32_t)p;
        masks[h] = m;
        h += m != 0;
    }
    return h;
}

/* Scan kernel: the panel kernel, then the filter kernel on each row. */
void hamming_scan_avx2(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb, int64_t words,
                       const uint32_t *limit, uint16_t *d, int64_t ldd, uint32_t *hits, uint32_t *masks, int64_t ldh,
                       int64_t *nhits)
{
    hamming_panel_avx2(a, lda, na, panels, nb, words, d, ldd, 0, 0);
    for (int64_t i = 0; i < na; i++)
        nhits[i] = hamming_filter_avx2(d + i * ldd, nb, limit[i], hits + i * ldh, masks + i * ldh);
}

/*
 * Bound kernel: group minima with vpminuw (gv accumulators of two vectors
 * in work, the last partial panel padded with 65535), then a binary search
 * on counts (d <= t as max(d, t) == t, movemask, popcount).
 */
uint32_t hamming_bound_avx2(const uint16_t *d, int64_t n, int64_t k, int64_t gv, uint16_t *work)
{
    const int64_t full = n / HAMMING_PANEL;
    for (int64_t l = 0; l < HAMMING_PANEL * gv; l++)
        work[l] = d[l];
    int64_t i = 0;
    for (int64_t v = gv; v < full; v++) {
        uint16_t *w = work + i * HAMMING_PANEL;
        const uint16_t *src = d + v * HAMMING_PANEL;
        _mm256_storeu_si256((__m256i *)w, _mm256_min_epu16(_mm256_loadu_si256((const __m256i *)w),
                                                           _mm256_loadu_si256((const __m256i *)src)));
        _mm256_storeu_si256((__m256i *)(w + 16), _mm256_min_epu16(_mm256_loadu_si256((const __m256i *)(w + 16)),
                                                                  _mm256_loadu_si256((const __m256i *)(src + 16))));
        i = i + 1 == gv ? 0 : i + 1;
    }
    for (int64_t j = full * HAMMING_PANEL; j < n; j++) {
        uint16_t *w = work + (full % gv) * HAMMING_PANEL + (j - full * HAMMING_PANEL);
        *w = d[j] < *w ? d[j] : *w;
    }
    uint32_t lo = 0, hi = 65535;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        const __m256i lim = _mm256_set1_epi16((short)mid);
        int64_t le = 0;
        for (int64_t a = 0; a < 2 * gv; a++) {
            const __m256i x = _mm256_loadu_si256((const __m256i *)(work + 16 * a));
            le += __builtin_popcount((unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi16(_mm256_max_epu16(x, lim), lim))) / 2;
        }
        if (le >= k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Prefix kernel: the panel kernel, then the bound kernel on each row. */
void hamming_prefix_avx2(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                         int64_t words, int64_t k, int64_t gv, uint16_t *d, int64_t ldd, uint16_t *work, uint32_t *t0)
{
    hamming_panel_avx2(a, lda, na, panels, nb, words, d, ldd, 0, 0);
    for (int64_t i = 0; i < na; i++)
        t0[i] = hamming_bound_avx2(d + i * ldd, nb, k, gv, work);
}
