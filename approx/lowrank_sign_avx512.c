/*
 * lowrank_sign_avx512.c - the sparse sign sketch's kernels (lowrank_sign.h)
 * with AVX-512. rows: each vector added 64 coordinates a step (the last
 * step under a mask). cols: tiles of 16 coordinates x 16 vectors loaded as
 * 16 rows (vectors past nb under a mask, coordinates past w as zeros),
 * transposed in registers (64 shuffles) so that each register holds one
 * vector's 16 coordinates, then added in increasing vector order (entries
 * past w under a mask).
 */
#include <immintrin.h>

#include "approx/lowrank_sign.h"

static inline __mmask16 first_lanes(int64_t count)
{
    return count >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << count) - 1u);
}

void lowrank_sign_rows_avx512(float *part, int64_t ldp, const float *v, int64_t ldv, const int32_t *bucket,
                              const float *sign, int64_t nb, int64_t w)
{
    for (int64_t i = 0; i < nb; i++) {
        float *y = part + bucket[i] * ldp;
        const float *x = v + i * ldv;
        const __m512 s = _mm512_set1_ps(sign[i]);
        int64_t t = 0;
        for (; t + 64 <= w; t += 64) { /* y + s x: the product is exact, so the one rounding is the add's */
            const __m512 y0 = _mm512_fmadd_ps(s, _mm512_loadu_ps(x + t), _mm512_loadu_ps(y + t));
            const __m512 y1 = _mm512_fmadd_ps(s, _mm512_loadu_ps(x + t + 16), _mm512_loadu_ps(y + t + 16));
            const __m512 y2 = _mm512_fmadd_ps(s, _mm512_loadu_ps(x + t + 32), _mm512_loadu_ps(y + t + 32));
            const __m512 y3 = _mm512_fmadd_ps(s, _mm512_loadu_ps(x + t + 48), _mm512_loadu_ps(y + t + 48));
            _mm512_storeu_ps(y + t, y0);
            _mm512_storeu_ps(y + t + 16, y1);
            _mm512_storeu_ps(y + t + 32, y2);
            _mm512_storeu_ps(y + t + 48, y3);
        }
        for (; t < w; t += 16) {
            const __mmask16 m = first_lanes(w - t);
            const __m512 y0 = _mm512_fmadd_ps(s, _mm512_maskz_loadu_ps(m, x + t), _mm512_maskz_loadu_ps(m, y + t));
            _mm512_mask_storeu_ps(y + t, m, y0);
        }
    }
}

/* c[p] := column p of the 16 x 16 tile whose rows are r[0 .. 16). */
static inline void transpose16(const __m512 r[16], __m512 c[16])
{
    __m512 t[16], u[16];
    for (int q = 0; q < 16; q += 2) { /* lane L of t[q]: r[q][4L], r[q+1][4L], r[q][4L+1], r[q+1][4L+1] */
        t[q] = _mm512_unpacklo_ps(r[q], r[q + 1]);
        t[q + 1] = _mm512_unpackhi_ps(r[q], r[q + 1]);
    }
    for (int q = 0; q < 16; q += 4) { /* lane L of u[q + m]: column 4L + m of rows q .. q + 3 */
        u[q] = _mm512_shuffle_ps(t[q], t[q + 2], 0x44);
        u[q + 1] = _mm512_shuffle_ps(t[q], t[q + 2], 0xee);
        u[q + 2] = _mm512_shuffle_ps(t[q + 1], t[q + 3], 0x44);
        u[q + 3] = _mm512_shuffle_ps(t[q + 1], t[q + 3], 0xee);
    }
    for (int m = 0; m < 4; m++) { /* column 4L + m: lane L of u[m], u[4 + m], u[8 + m], u[12 + m] */
        const __m512 x0 = _mm512_shuffle_f32x4(u[m], u[4 + m], 0x88), x1 = _mm512_shuffle_f32x4(u[m], u[4 + m], 0xdd);
        const __m512 y0 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0x88);
        const __m512 y1 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0xdd);
        c[m] = _mm512_shuffle_f32x4(x0, y0, 0x88);
        c[4 + m] = _mm512_shuffle_f32x4(x1, y1, 0x88);
        c[8 + m] = _mm512_shuffle_f32x4(x0, y0, 0xdd);
        c[12 + m] = _mm512_shuffle_f32x4(x1, y1, 0xdd);
    }
}

void lowrank_sign_cols_avx512(float *part, int64_t ldp, const float *v, int64_t ldv, const int32_t *bucket,
                              const float *sign, int64_t nb, int64_t w)
{
    for (int64_t t0 = 0; t0 < w; t0 += 16) {
        const int64_t tw = w - t0 < 16 ? w - t0 : 16;
        const __mmask16 mt = first_lanes(tw);
        for (int64_t i0 = 0; i0 < nb; i0 += 16) {
            const int64_t ib = nb - i0 < 16 ? nb - i0 : 16;
            const __mmask16 mi = first_lanes(ib);
            __m512 r[16], c[16];
            for (int64_t q = 0; q < 16; q++) /* row q: coordinate t0 + q of vectors i0 .. i0 + 15 */
                r[q] = q < tw ? _mm512_maskz_loadu_ps(mi, v + (t0 + q) * ldv + i0) : _mm512_setzero_ps();
            transpose16(r, c);
            for (int64_t p = 0; p < ib; p++) {
                float *y = part + bucket[i0 + p] * ldp + t0;
                const __m512 s = _mm512_set1_ps(sign[i0 + p]);
                _mm512_mask_storeu_ps(y, mt, _mm512_fmadd_ps(s, c[p], _mm512_maskz_loadu_ps(mt, y)));
            }
        }
    }
}
