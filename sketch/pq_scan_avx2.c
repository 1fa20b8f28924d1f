/*
 * pq_scan_avx2.c - AVX2 scan kernel (pq_scan_kernels.h).
 *
 * The AVX-512 scheme on ymm registers: one vpshufb looks up 2 subspaces
 * (one per 128-bit lane) x 16 vectors; each result is summed as uint16
 * words (even vector + 256 odd vector, wrapping) beside the words shifted
 * right by 8 (the odd vectors); after a chunk of <= 256 subspaces the even
 * sums are recovered by a subtraction, the words interleaved back into
 * vector order, the 2 lanes added in uint16 (<= 256 * 255) and widened into
 * the uint32 totals. An odd last subspace is a 16-byte load into the low lane
 * (zero high lane: zero lookups). PQ_AVX2_ROWS = 2 query rows share each
 * code load: their 8 accumulators, the nibbles and the shuffle results fit
 * the 16 ymm registers (3 or 4 rows spill and ran 10-15% slower on Zen 5);
 * a last odd row runs alone.
 */
#include <immintrin.h>
#include <string.h>

#include "sketch/pq_scan_kernels.h"

#define PQ_INLINE static inline __attribute__((always_inline))
#define PQ_AVX2_ROWS 2

/* t[0..3] += sums of vectors 0..7, 8..15, 16..23, 24..31 from the chunk's accumulators. */
PQ_INLINE void fold_avx2(__m256i a0, __m256i a1, __m256i a2, __m256i a3, __m256i t[4])
{
    const __m256i e0 = _mm256_sub_epi16(a0, _mm256_slli_epi16(a1, 8));
    const __m256i e1 = _mm256_sub_epi16(a2, _mm256_slli_epi16(a3, 8));
    const __m256i l0 = _mm256_unpacklo_epi16(e0, a1), h0 = _mm256_unpackhi_epi16(e0, a1);
    const __m256i l1 = _mm256_unpacklo_epi16(e1, a3), h1 = _mm256_unpackhi_epi16(e1, a3);
    const __m256i u = _mm256_add_epi16(_mm256_permute2x128_si256(l0, h0, 0x20), _mm256_permute2x128_si256(l0, h0, 0x31));
    const __m256i v = _mm256_add_epi16(_mm256_permute2x128_si256(l1, h1, 0x20), _mm256_permute2x128_si256(l1, h1, 0x31));
    t[0] = _mm256_add_epi32(t[0], _mm256_cvtepu16_epi32(_mm256_castsi256_si128(u)));
    t[1] = _mm256_add_epi32(t[1], _mm256_cvtepu16_epi32(_mm256_extracti128_si256(u, 1)));
    t[2] = _mm256_add_epi32(t[2], _mm256_cvtepu16_epi32(_mm256_castsi256_si128(v)));
    t[3] = _mm256_add_epi32(t[3], _mm256_cvtepu16_epi32(_mm256_extracti128_si256(v, 1)));
}

PQ_INLINE void step_avx2(__m256i c, const uint8_t *tab, int64_t lstride, const int R, __m256i a[PQ_AVX2_ROWS][4], int half)
{
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    const __m256i lo = _mm256_and_si256(c, low4);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(c, 4), low4);
    for (int r = 0; r < R; r++) {
        const __m256i t = half ? _mm256_set_m128i(_mm_setzero_si128(), _mm_loadu_si128((const __m128i *)(tab + r * lstride)))
                               : _mm256_loadu_si256((const __m256i *)(tab + r * lstride));
        const __m256i x = _mm256_shuffle_epi8(t, lo), y = _mm256_shuffle_epi8(t, hi);
        a[r][0] = _mm256_add_epi16(a[r][0], x);
        a[r][1] = _mm256_add_epi16(a[r][1], _mm256_srli_epi16(x, 8));
        a[r][2] = _mm256_add_epi16(a[r][2], y);
        a[r][3] = _mm256_add_epi16(a[r][3], _mm256_srli_epi16(y, 8));
    }
}

/* R (1 or 2) rows of one block: out[r * ldo + u] for u < cnt. */
PQ_INLINE void block_avx2(const uint8_t *lut, int64_t lstride, const int R, int32_t M, const uint8_t *blk,
                          uint32_t *out, int64_t ldo, int64_t cnt)
{
    __m256i t[PQ_AVX2_ROWS][4];
    for (int r = 0; r < R; r++)
        t[r][0] = t[r][1] = t[r][2] = t[r][3] = _mm256_setzero_si256();
    for (int32_t m0 = 0; m0 < M; m0 += PQ_SCAN_CHUNK) {
        const int32_t m1 = M - m0 <= PQ_SCAN_CHUNK ? M : m0 + PQ_SCAN_CHUNK;
        __m256i a[PQ_AVX2_ROWS][4];
        for (int r = 0; r < R; r++)
            a[r][0] = a[r][1] = a[r][2] = a[r][3] = _mm256_setzero_si256();
        int32_t m = m0;
        for (; m + 2 <= m1; m += 2)
            step_avx2(_mm256_loadu_si256((const __m256i *)(blk + 16 * (int64_t)m)), lut + 16 * (int64_t)m, lstride,
                      R, a, 0);
        if (m < m1)
            step_avx2(_mm256_set_m128i(_mm_setzero_si128(), _mm_loadu_si128((const __m128i *)(blk + 16 * (int64_t)m))),
                      lut + 16 * (int64_t)m, lstride, R, a, 1);
        for (int r = 0; r < R; r++)
            fold_avx2(a[r][0], a[r][1], a[r][2], a[r][3], t[r]);
    }
    for (int r = 0; r < R; r++) {
        if (cnt == PQ_BLOCK) {
            for (int q = 0; q < 4; q++)
                _mm256_storeu_si256((__m256i *)(out + r * ldo + 8 * q), t[r][q]);
        } else {
            uint32_t tmp[PQ_BLOCK];
            for (int q = 0; q < 4; q++)
                _mm256_storeu_si256((__m256i *)(tmp + 8 * q), t[r][q]);
            memcpy(out + r * ldo, tmp, (size_t)cnt * sizeof(uint32_t));
        }
    }
}

void pq_scan_avx2(const uint8_t *lut, int64_t rows, int32_t M, const uint8_t *codes, int64_t cols,
                  uint32_t *out, int64_t ldo)
{
    const int64_t bb = pq_block_bytes(M);
    for (int64_t j = 0; j < cols; j += PQ_BLOCK) {
        const uint8_t *blk = codes + (j / PQ_BLOCK) * bb;
        const int64_t cnt = cols - j < PQ_BLOCK ? cols - j : PQ_BLOCK;
        int64_t r = 0;
        for (; r + PQ_AVX2_ROWS <= rows; r += PQ_AVX2_ROWS)
            block_avx2(lut + r * bb, bb, PQ_AVX2_ROWS, M, blk, out + r * ldo + j, ldo, cnt);
        if (r < rows) /* rows - r == 1 */
            block_avx2(lut + r * bb, bb, 1, M, blk, out + r * ldo + j, ldo, cnt);
    }
}
