/*
 * pq_scan_avx512.c - AVX-512 BW scan kernel (pq_scan_kernels.h).
 *
 * A zmm holds 64 contiguous bytes of a block: the code bytes of 4
 * subspaces, one per 128-bit lane, and the same 64 bytes of a query's
 * tables hold those subspaces' 16-byte tables in the same lanes, so one
 * vpshufb looks up 4 subspaces x 16 vectors (low nibbles: vectors 0..15;
 * high nibbles, a second vpshufb: vectors 16..31). Each result is summed as
 * 32 uint16 words, a word being (even vector) + 256 (odd vector) modulo
 * 2^16, beside the words shifted right by 8 (the odd vectors' sums, exact);
 * at the end of a chunk of <= 256 subspaces the even sums are that minus
 * 256 times the odd ones (exact: <= 65280), the words are interleaved back
 * into vector order, the 4 lanes (subspaces m = 0, 1, 2, 3 mod 4) are
 * added in uint16 (their total is at most 256 * 255) and widened into the
 * uint32 totals. A last group of 1..3 subspaces is loaded with byte masks
 * (zero tables give zero lookups). Four query rows share each code load:
 * 16 accumulators, the totals and the nibbles fit the 32 zmm registers.
 * Only AVX-512 F/BW instructions: the row needs nothing beyond the path.
 */
#include <immintrin.h>

#include "sketch/pq_scan_kernels.h"

#define PQ_INLINE static inline __attribute__((always_inline))
#define PQ_AVX512_ROWS 4

/* t0 += sums of vectors 0..15, t1 += 16..31 from the chunk's accumulators. */
PQ_INLINE void fold_avx512(__m512i a0, __m512i a1, __m512i a2, __m512i a3, __m512i *t0, __m512i *t1)
{
    const __m512i e0 = _mm512_sub_epi16(a0, _mm512_slli_epi16(a1, 8));
    const __m512i e1 = _mm512_sub_epi16(a2, _mm512_slli_epi16(a3, 8));
    /* per lane: vectors 0..7 (lo) and 8..15 (hi) of the lane's subspaces, in order */
    const __m512i l0 = _mm512_unpacklo_epi16(e0, a1), h0 = _mm512_unpackhi_epi16(e0, a1);
    const __m512i l1 = _mm512_unpacklo_epi16(e1, a3), h1 = _mm512_unpackhi_epi16(e1, a3);
    /* (l[0]+l[2], l[1]+l[3], h[0]+h[2], h[1]+h[3]) */
    const __m512i u = _mm512_add_epi16(_mm512_shuffle_i64x2(l0, h0, 0x44), _mm512_shuffle_i64x2(l0, h0, 0xEE));
    const __m512i v = _mm512_add_epi16(_mm512_shuffle_i64x2(l1, h1, 0x44), _mm512_shuffle_i64x2(l1, h1, 0xEE));
    /* vectors 0..7, 8..15, 16..23, 24..31 summed over the 4 lanes */
    const __m512i w = _mm512_add_epi16(_mm512_shuffle_i64x2(u, v, 0x88), _mm512_shuffle_i64x2(u, v, 0xDD));
    *t0 = _mm512_add_epi32(*t0, _mm512_cvtepu16_epi32(_mm512_castsi512_si256(w)));
    *t1 = _mm512_add_epi32(*t1, _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(w, 1)));
}

PQ_INLINE void step_avx512(__m512i c, const uint8_t *tab, int64_t lstride, const int R, __m512i a[4][4],
                           __mmask64 k, int masked)
{
    const __m512i low4 = _mm512_set1_epi8(0x0F);
    const __m512i lo = _mm512_and_si512(c, low4);
    const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(c, 4), low4);
    for (int r = 0; r < R; r++) {
        const __m512i t = masked ? _mm512_maskz_loadu_epi8(k, tab + r * lstride)
                                 : _mm512_loadu_si512((const void *)(tab + r * lstride));
        const __m512i x = _mm512_shuffle_epi8(t, lo), y = _mm512_shuffle_epi8(t, hi);
        a[r][0] = _mm512_add_epi16(a[r][0], x);
        a[r][1] = _mm512_add_epi16(a[r][1], _mm512_srli_epi16(x, 8));
        a[r][2] = _mm512_add_epi16(a[r][2], y);
        a[r][3] = _mm512_add_epi16(a[r][3], _mm512_srli_epi16(y, 8));
    }
}

/* R (1..4) rows of one block: out[r * ldo + u] for u < cnt. */
PQ_INLINE void block_avx512(const uint8_t *lut, int64_t lstride, const int R, int32_t M, const uint8_t *blk,
                            uint32_t *out, int64_t ldo, int64_t cnt)
{
    __m512i t0[4], t1[4];
    for (int r = 0; r < R; r++)
        t0[r] = t1[r] = _mm512_setzero_si512();
    for (int32_t m0 = 0; m0 < M; m0 += PQ_SCAN_CHUNK) {
        const int32_t m1 = M - m0 <= PQ_SCAN_CHUNK ? M : m0 + PQ_SCAN_CHUNK;
        __m512i a[4][4];
        for (int r = 0; r < R; r++)
            a[r][0] = a[r][1] = a[r][2] = a[r][3] = _mm512_setzero_si512();
        int32_t m = m0;
        for (; m + 4 <= m1; m += 4)
            step_avx512(_mm512_loadu_si512((const void *)(blk + 16 * (int64_t)m)), lut + 16 * (int64_t)m, lstride,
                        R, a, 0, 0);
        if (m < m1) {
            const __mmask64 k = ((__mmask64)1 << (16 * (m1 - m))) - 1;
            step_avx512(_mm512_maskz_loadu_epi8(k, blk + 16 * (int64_t)m), lut + 16 * (int64_t)m, lstride, R, a,
                        k, 1);
        }
        for (int r = 0; r < R; r++)
            fold_avx512(a[r][0], a[r][1], a[r][2], a[r][3], &t0[r], &t1[r]);
    }
    if (cnt == PQ_BLOCK) {
        for (int r = 0; r < R; r++) {
            _mm512_storeu_si512((void *)(out + r * ldo), t0[r]);
            _mm512_storeu_si512((void *)(out + r * ldo + 16), t1[r]);
        }
    } else {
        const __mmask16 k0 = cnt >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << cnt) - 1);
        const __mmask16 k1 = cnt > 16 ? (__mmask16)((1u << (cnt - 16)) - 1) : (__mmask16)0;
        for (int r = 0; r < R; r++) {
            _mm512_mask_storeu_epi32(out + r * ldo, k0, t0[r]);
            if (k1)
                _mm512_mask_storeu_epi32(out + r * ldo + 16, k1, t1[r]);
        }
    }
}

void pq_scan_avx512(const uint8_t *lut, int64_t rows, int32_t M, const uint8_t *codes, int64_t cols,
                    uint32_t *out, int64_t ldo)
{
    const int64_t bb = pq_block_bytes(M);
    for (int64_t j = 0; j < cols; j += PQ_BLOCK) {
        const uint8_t *blk = codes + (j / PQ_BLOCK) * bb;
        const int64_t cnt = cols - j < PQ_BLOCK ? cols - j : PQ_BLOCK;
        int64_t r = 0;
        for (; r + PQ_AVX512_ROWS <= rows; r += PQ_AVX512_ROWS)
            block_avx512(lut + r * bb, bb, PQ_AVX512_ROWS, M, blk, out + r * ldo + j, ldo, cnt);
        switch (rows - r) {
        case 3:
            block_avx512(lut + r * bb, bb, 3, M, blk, out + r * ldo + j, ldo, cnt);
            break;
        case 2:
            block_avx512(lut + r * bb, bb, 2, M, blk, out + r * ldo + j, ldo, cnt);
            break;
        case 1:
            block_avx512(lut + r * bb, bb, 1, M, blk, out + r * ldo + j, ldo, cnt);
            break;
        default:
            break;
        }
    }
}
