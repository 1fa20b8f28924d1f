/*
 * hamming_neon.c - AArch64 Advanced SIMD Hamming kernels (see
 * hamming_kernels.h): the row kernel, the panel kernel and the top-k filter kernel.
 *
 * CNT (vcntq_u8) counts the bits of each byte. The row kernel xors two words
 * of a code with the query per vector and adds byte counts for up to 31
 * vectors (31 * 8 = 248 fits a byte) before one ADDV (vaddlvq_u8) folds them;
 * an odd last word goes through the 64-bit CNT. The panel kernel reads the
 * packed layout: one vector holds word w of two codes, so pairwise
 * add-accumulate (UADALP) into 16-bit lanes keeps the codes apart (each
 * lane gains at most 16 per word: exact for 4095 words, after which the
 * lanes are folded into 64-bit sums); no horizontal sums are needed.
 */
#include <arm_neon.h>

#include "sketch/hamming_kernels.h"

/* Largest number of words whose per-lane counts (<= 16 per word) fit 16 bits. */
#define NEON_U16_LANE_WORDS 4095

static inline uint64_t xor_popcount_neon(const uint64_t *q, const uint64_t *bj, int64_t words)
{
    uint64_t total = 0;
    int64_t w = 0;
    while (words - w >= 2) {
        const int64_t pairs = (words - w) / 2;
        const int64_t end = w + 2 * (pairs > 31 ? 31 : pairs);
        uint8x16_t bytes = vdupq_n_u8(0);
        for (; w < end; w += 2) {
            const uint8x16_t x = veorq_u8(vreinterpretq_u8_u64(vld1q_u64(q + w)),
                                          vreinterpretq_u8_u64(vld1q_u64(bj + w)));
            bytes = vaddq_u8(bytes, vcntq_u8(x));
        }
        total += vaddlvq_u8(bytes);
    }
    if (w < words)
        total += vaddlv_u8(vcnt_u8(vcreate_u8(q[w] ^ bj[w])));
    return total;
}

void hamming_row_neon(const uint64_t *q, const uint64_t *b, int64_t nb,
                      int64_t ldb, int64_t words, uint32_t *out)
{
    for (int64_t j = 0; j < nb; j++)
        out[j] = (uint32_t)xor_popcount_neon(q, b + j * ldb, words);
}

/* sums[l] (l < 8) += count of code 4l + f of the panel against q. */
static void panel_quarter_neon(const uint64_t *q, const uint64_t *panel, int64_t words, int f, uint64_t sums[8])
{
    for (int64_t w0 = 0; w0 < words; w0 += NEON_U16_LANE_WORDS) {
        const int64_t end = words - w0 > NEON_U16_LANE_WORDS ? w0 + NEON_U16_LANE_WORDS : words;
        uint16x8_t c0 = vdupq_n_u16(0), c1 = c0, c2 = c0, c3 = c0;
        for (int64_t w = w0; w < end; w++) {
            const uint8x16_t qv = vreinterpretq_u8_u64(vdupq_n_u64(q[w]));
            const uint64_t *pw = panel + w * HAMMING_PANEL + f * 8;
            c0 = vpadalq_u8(c0, vcntq_u8(veorq_u8(vreinterpretq_u8_u64(vld1q_u64(pw)), qv)));
            c1 = vpadalq_u8(c1, vcntq_u8(veorq_u8(vreinterpretq_u8_u64(vld1q_u64(pw + 2)), qv)));
            c2 = vpadalq_u8(c2, vcntq_u8(veorq_u8(vreinterpretq_u8_u64(vld1q_u64(pw + 4)), qv)));
            c3 = vpadalq_u8(c3, vcntq_u8(veorq_u8(vreinterpretq_u8_u64(vld1q_u64(pw + 6)), qv)));
        }
        const uint64x2_t s0 = vpaddlq_u32(vpaddlq_u16(c0)), s1 = vpaddlq_u32(vpaddlq_u16(c1));
        const uint64x2_t s2 = vpaddlq_u32(vpaddlq_u16(c2)), s3 = vpaddlq_u32(vpaddlq_u16(c3));
        sums[0] += vgetq_lane_u64(s0, 0);
        sums[1] += vgetq_lane_u64(s0, 1);
        sums[2] += vgetq_lane_u64(s1, 0);
        sums[3] += vgetq_lane_u64(s1, 1);
        sums[4] += vgetq_lane_u64(s2, 0);
        sums[5] += vgetq_lane_u64(s2, 1);
        sums[6] += vgetq_lane_u64(s3, 0);
        sums[7] += vgetq_lane_u64(s3, 1);
    }
}

/* sums[f * 8 + l]: count of code 4l + f of the panel against q. */
static void panel_sums_neon(const uint64_t *q, const uint64_t *panel, int64_t words, uint64_t sums[HAMMING_PANEL])
{
    for (int c = 0; c < HAMMING_PANEL; c++)
        sums[c] = 0;
    for (int f = 0; f < 4; f++)
        panel_quarter_neon(q, panel, words, f, sums + 8 * f);
}

void hamming_panel_neon(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                        int64_t words, void *out, int64_t ldo, int out_u32, int stream)
{
    (void)stream;
    for (int64_t i = 0; i < na; i++) {
        const uint64_t *q = a + i * lda;
        for (int64_t j = 0; j < nb; j += HAMMING_PANEL) {
            uint64_t sums[HAMMING_PANEL]; /* [f * 8 + l]: code 4l + f */
            panel_sums_neon(q, panels + j * words, words, sums);
            const int64_t n = nb - j < HAMMING_PANEL ? nb - j : HAMMING_PANEL;
            if (out_u32) {
                uint32_t *o = (uint32_t *)out + i * ldo + j;
                for (int64_t c = 0; c < n; c++)
                    o[c] = (uint32_t)sums[(c % 4) * 8 + c / 4];
            } else {
                uint16_t *o = (uint16_t *)out + i * ldo + j;
                for (int64_t c = 0; c < n; c++)
                    o[c] = (uint16_t)sums[(c % 4) * 8 + c / 4];
            }
        }
    }
}

/*
 * Filter kernel: a panel's 32 distances are four vectors of 16-bit lanes,
 * compared with the limit (CMHS); each lane's result keeps its own bit
 * (lane i: bit i of an 8-bit group, ADDV folds a vector to its 8 bits). The
 * panel is appended without a branch; the last partial panel goes through
 * a copy padded with distances above the limit.
 */
static inline uint32_t panel_mask_neon(const uint16_t *d, uint16x8_t lim)
{
    static const uint16_t bit_values[8] = { 1, 2, 4, 8, 16, 32, 64, 128 };
    const uint16x8_t bits = vld1q_u16(bit_values);
    uint32_t m = 0;
    for (int q = 0; q < 4; q++) {
        const uint16x8_t le = vcleq_u16(vld1q_u16(d + 8 * q), lim);
        m |= (uint32_t)vaddvq_u16(vandq_u16(le, bits)) << (8 * q);
    }
    return m;
}

int64_t hamming_filter_neon(const uint16_t *d, int64_t n, uint32_t t, uint32_t *hits, uint32_t *masks)
{
    const uint16x8_t lim = vdupq_n_u16((uint16_t)(t > 65535 ? 65535 : t)); /* distances are at most 65535 */
    int64_t h = 0, p = 0;
    for (; (p + 1) * HAMMING_PANEL <= n; p++) {
        const uint32_t m = panel_mask_neon(d + p * HAMMING_PANEL, lim);
        hits[h] = (uint32_t)p;
        masks[h] = m;
        h += m != 0;
    }
    const int64_t rest = n - p * HAMMING_PANEL;
    if (rest > 0) {
        uint16_t tmp[HAMMING_PANEL];
        for (int64_t c = 0; c < HAMMING_PANEL; c++)
            tmp[c] = c < rest ? d[p * HAMMING_PANEL + c] : 0;
        const uint32_t m = panel_mask_neon(tmp, lim) & (uint32_t)((UINT64_C(1) << rest) - 1);
        hits[h] = (uint32_t)p;
        masks[h] = m;
        h += m != 0;
    }
    return h;
}

/* Scan kernel: the panel kernel, then the filter kernel on each row. */
void hamming_scan_neon(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb, int64_t words,
                       const uint32_t *limit, uint16_t *d, int64_t ldd, uint32_t *hits, uint32_t *masks, int64_t ldh,
                       int64_t *nhits)
{
    hamming_panel_neon(a, lda, na, panels, nb, words, d, ldd, 0, 0);
    for (int64_t i = 0; i < na; i++)
        nhits[i] = hamming_filter_neon(d + i * ldd, nb, limit[i], hits + i * ldh, masks + i * ldh);
}

/* Prefix kernel: the panel kernel, then the bound kernel on each row. */
void hamming_prefix_neon(const uint64_t *a, int64_t lda, int64_t na, const uint64_t *panels, int64_t nb,
                         int64_t words, int64_t k, int64_t gv, uint16_t *d, int64_t ldd, uint16_t *work, uint32_t *t0)
{
    hamming_panel_neon(a, lda, na, panels, nb, words, d, ldd, 0, 0);
    for (int64_t i = 0; i < na; i++)
        t0[i] = hamming_bound_scalar(d + i * ldd, nb, k, gv, work);
}
