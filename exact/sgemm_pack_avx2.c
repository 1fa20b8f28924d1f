/*
 * sgemm_pack_avx2.c - the AVX2 packers: the transposing one
 * (sgemm_pack_lines_fn) and the copying one (sgemm_pack_rows_fn: 8 floats
 * per register, masked loads past the lines there are, which write the zero
 * padding, and past the panel width a masked store, or a plain one that
 * spills onto a step of the same panel still to be written).
 *
 * The transposing packer:
 * The same scheme as the AVX-512 packer with 8 x 8 blocks: lines are loaded
 * a register each (masked at the k tail, zero registers past the last line),
 * transposed in registers and stored a k step per register, masked to the
 * group's part of the panel width.
 */
#include <immintrin.h>

#include "sgemm_target.h"

/* In-place transpose of the 8 x 8 matrix whose row i is r[i]. */
static inline void transpose8(__m256 r[8])
{
    __m256 t[8], s[8];
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
        t[2 * j] = _mm256_unpacklo_ps(r[2 * j], r[2 * j + 1]);
        t[2 * j + 1] = _mm256_unpackhi_ps(r[2 * j], r[2 * j + 1]);
    }
    /* s[4b + c], 128-bit half h = column 4h + c of lines 4b .. 4b+3 */
#pragma GCC unroll 2
    for (int b = 0; b < 2; b++) {
        s[4 * b + 0] = _mm256_shuffle_ps(t[4 * b], t[4 * b + 2], _MM_SHUFFLE(1, 0, 1, 0));
        s[4 * b + 1] = _mm256_shuffle_ps(t[4 * b], t[4 * b + 2], _MM_SHUFFLE(3, 2, 3, 2));
        s[4 * b + 2] = _mm256_shuffle_ps(t[4 * b + 1], t[4 * b + 3], _MM_SHUFFLE(1, 0, 1, 0));
        s[4 * b + 3] = _mm256_shuffle_ps(t[4 * b + 1], t[4 * b + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
#pragma GCC unroll 4
    for (int c = 0; c < 4; c++) {
        r[c] = _mm256_permute2f128_ps(s[c], s[4 + c], 0x20);
        r[4 + c] = _mm256_permute2f128_ps(s[c], s[4 + c], 0x31);
    }
}

/* Lanes [0, count) set (count clamped to 0..8), as a maskload/maskstore mask. */
static inline __m256i low_lanes8(int64_t count)
{
    const int32_t n = count < 0 ? 0 : count > 8 ? 8 : (int32_t)count;
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

void sgemm_pack_lines_avx2(int w, int64_t lines, int64_t kc, const float *src, int64_t ls,
                           float *restrict dst)
{
    for (int g = 0; g < w; g += 8) {
        const int64_t group_lines = lines - g; /* may be <= 0: the group is all padding */
        const int full_width = w - g >= 8;
        const __m256i store_mask = low_lanes8(w - g);
        for (int64_t p0 = 0; p0 < kc; p0 += 8) {
            const int64_t steps = kc - p0 < 8 ? kc - p0 : 8;
            const __m256i load_mask = low_lanes8(steps);
            __m256 r[8];
#pragma GCC unroll 8
            for (int i = 0; i < 8; i++)
                r[i] = i < group_lines ? _mm256_maskload_ps(src + (g + i) * ls + p0, load_mask)
                                       : _mm256_setzero_ps();
            transpose8(r);
            float *out = dst + p0 * w + g;
            for (int64_t q = 0; q < steps; q++) {
                if (full_width)
                    _mm256_storeu_ps(out + q * w, r[q]);
                else
                    _mm256_maskstore_ps(out + q * w, store_mask, r[q]);
            }
        }
    }
}

/*
 * One step of one panel: w floats to out from the `lines` (0 .. w) at in,
 * zeros past them. spill: the store of the last partial chunk may write up
 * to 7 floats past the w (the caller allows it where they belong to a step
 * still to be packed): one plain store instead of a masked one, which is
 * slow on some CPUs (vmaskmovps to memory).
 */
static inline void copy_step8(int w, int64_t lines, const float *in, float *out, int spill)
{
    int g = 0;
    if (lines == w)
        for (; g + 8 <= w; g += 8)
            _mm256_storeu_ps(out + g, _mm256_loadu_ps(in + g));
    for (; g < w; g += 8) {
        const __m256 v = _mm256_maskload_ps(in + g, low_lanes8(lines - g));
        if (spill)
            _mm256_storeu_ps(out + g, v);
        else
            _mm256_maskstore_ps(out + g, low_lanes8(w - g), v);
    }
}

void sgemm_pack_rows_avx2(int w, int64_t count, int64_t kc, const float *src, int64_t ps, float *restrict dst,
                          int64_t panel)
{
    const int64_t full = count / w, rest = count - full * w;
    /* a step's spill (8 - w % 8 floats) lands on later steps of its own panel while they are that many */
    const int64_t spill_floats = 8 - w % 8;
    for (int64_t p = 0; p < kc; p++) {
        const float *in = src + p * ps;
        float *out = dst + p * w;
        const int spill = w % 8 != 0 && (kc - 1 - p) * w >= spill_floats;
        for (int64_t q = 0; q < full; q++, in += w, out += panel)
            copy_step8(w, w, in, out, spill);
        if (rest > 0)
            copy_step8(w, rest, in, out, spill);
    }
}
