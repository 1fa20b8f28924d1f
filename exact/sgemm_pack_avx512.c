/*
 * sgemm_pack_avx512.c - the AVX-512F packers: the transposing one
 * (sgemm_pack_lines_fn) and the copying one (sgemm_pack_rows_fn: a panel's
 * step is copied 16 floats per register, the last chunk with a load mask
 * for the lines there are, so the zero padding is written by the same
 * stores, and a store mask for the panel width, or a plain store that spills
 * onto a step of the same panel still to be written: masked stores to
 * memory are slow on some CPUs, 4.7 against 7.1 GB/s packing A^T for the
 * 6 x 64 kernel on a Zen 4).
 *
 * The transposing packer:
 * The panel is cut into groups of 16 source lines and 16 steps of k. Each
 * 16 x 16 block is loaded a line per register (masked at the k tail; lines
 * past the panel's last are zero registers, which is also how the zero
 * padding is written), transposed in registers, and stored a k step per
 * register with a mask covering the group's part of the panel width.
 */
#include <immintrin.h>

#include "sgemm_target.h"

/* In-place transpose of the 16 x 16 matrix whose row i is r[i]. */
static inline void transpose16(__m512 r[16])
{
    __m512 t[16], u[16];
    /* 32-bit interleave of line pairs: per 128-bit lane L, t[2j] holds columns 4L, 4L+1 and t[2j+1] columns 4L+2, 4L+3 */
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++) {
        t[2 * j] = _mm512_unpacklo_ps(r[2 * j], r[2 * j + 1]);
        t[2 * j + 1] = _mm512_unpackhi_ps(r[2 * j], r[2 * j + 1]);
    }
    /* 64-bit interleave of pairs of pairs: u[4b + c], lane L = column 4L + c of lines 4b .. 4b+3 */
#pragma GCC unroll 4
    for (int b = 0; b < 4; b++) {
        const __m512d lo0 = _mm512_castps_pd(t[4 * b]), hi0 = _mm512_castps_pd(t[4 * b + 1]);
        const __m512d lo1 = _mm512_castps_pd(t[4 * b + 2]), hi1 = _mm512_castps_pd(t[4 * b + 3]);
        u[4 * b + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(lo0, lo1));
        u[4 * b + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(lo0, lo1));
        u[4 * b + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(hi0, hi1));
        u[4 * b + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(hi0, hi1));
    }
    /* gather lane L of u[c], u[4+c], u[8+c], u[12+c] into column 4L + c */
#pragma GCC unroll 4
    for (int c = 0; c < 4; c++) {
        const __m512 s0 = _mm512_shuffle_f32x4(u[c], u[4 + c], _MM_SHUFFLE(2, 0, 2, 0));
        const __m512 s1 = _mm512_shuffle_f32x4(u[c], u[4 + c], _MM_SHUFFLE(3, 1, 3, 1));
        const __m512 s2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], _MM_SHUFFLE(2, 0, 2, 0));
        const __m512 s3 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], _MM_SHUFFLE(3, 1, 3, 1));
        r[0 + c] = _mm512_shuffle_f32x4(s0, s2, _MM_SHUFFLE(2, 0, 2, 0));
        r[8 + c] = _mm512_shuffle_f32x4(s0, s2, _MM_SHUFFLE(3, 1, 3, 1));
        r[4 + c] = _mm512_shuffle_f32x4(s1, s3, _MM_SHUFFLE(2, 0, 2, 0));
        r[12 + c] = _mm512_shuffle_f32x4(s1, s3, _MM_SHUFFLE(3, 1, 3, 1));
    }
}

static inline __mmask16 low_mask16(int64_t count)
{
    return count >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << count) - 1u);
}

void sgemm_pack_lines_avx512(int w, int64_t lines, int64_t kc, const float *src, int64_t ls,
                             float *restrict dst)
{
    for (int g = 0; g < w; g += 16) {
        const int64_t group_lines = lines - g; /* may be <= 0: the group is all padding */
        const __mmask16 store_mask = low_mask16(w - g);
        for (int64_t p0 = 0; p0 < kc; p0 += 16) {
            const int64_t steps = kc - p0 < 16 ? kc - p0 : 16;
            const __mmask16 load_mask = low_mask16(steps);
            __m512 r[16];
#pragma GCC unroll 16
            for (int i = 0; i < 16; i++)
                r[i] = i < group_lines
                           ? _mm512_maskz_loadu_ps(load_mask, src + (g + i) * ls + p0)
                           : _mm512_setzero_ps();
            transpose16(r);
            float *out = dst + p0 * w + g;
            for (int64_t q = 0; q < steps; q++)
                _mm512_mask_storeu_ps(out + q * w, store_mask, r[q]);
        }
    }
}

/*
 * One step of one panel: w floats to out from the `lines` (0 .. w) at in,
 * zeros past them. spill: the store of the last partial chunk may write up
 * to 15 floats past the w (the caller allows it where they belong to a step
 * still to be packed): one plain store instead of a masked one.
 */
static inline void copy_step16(int w, int64_t lines, const float *in, float *out, int spill)
{
    int g = 0;
    if (lines == w)
        for (; g + 16 <= w; g += 16)
            _mm512_storeu_ps(out + g, _mm512_loadu_ps(in + g));
    for (; g < w; g += 16) {
        const __m512 v = _mm512_maskz_loadu_ps(low_mask16(lines > g ? lines - g : 0), in + g);
        if (spill)
            _mm512_storeu_ps(out + g, v);
        else
            _mm512_mask_storeu_ps(out + g, low_mask16(w - g), v);
    }
}

void sgemm_pack_rows_avx512(int w, int64_t count, int64_t kc, const float *src, int64_t ps, float *restrict dst,
                            int64_t panel)
{
    const int64_t full = count / w, rest = count - full * w;
    /* a step's spill (16 - w % 16 floats) lands on later steps of its own panel while they are that many */
    const int64_t spill_floats = 16 - w % 16;
    for (int64_t p = 0; p < kc; p++) {
        const float *in = src + p * ps;
        float *out = dst + p * w;
        const int spill = w % 16 != 0 && (kc - 1 - p) * w >= spill_floats;
        for (int64_t q = 0; q < full; q++, in += w, out += panel)
            copy_step16(w, w, in, out, spill);
        if (rest > 0)
            copy_step16(w, rest, in, out, spill);
    }
}
