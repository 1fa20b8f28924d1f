/*
 * lowrank_sign_avx2.c - the sparse sign sketch's kernels (lowrank_sign.h)
 * with AVX2. rows: each vector added 32 coordinates a step. cols: tiles of
 * 8 coordinates x 8 vectors transposed in registers (24 shuffles), each
 * register then one vector's 8 coordinates, added in increasing vector
 * order. What is left of a vector (rows) or of the tiles (cols: the last
 * vectors, the last coordinates) goes through the plain-C twin, in the same
 * order, so every entry still gets its terms in increasing vector order.
 */
#include <immintrin.h>

#include "approx/lowrank_sign.h"

void lowrank_sign_rows_avx2(float *part, int64_t ldp, const float *v, int64_t ldv, const int32_t *bucket,
                            const float *sign, int64_t nb, int64_t w)
{
    const int64_t wv = w - w % 8;
    for (int64_t i = 0; i < nb; i++) {
        float *y = part + bucket[i] * ldp;
        const float *x = v + i * ldv;
        const __m256 s = _mm256_set1_ps(sign[i]);
        int64_t t = 0;
        for (; t + 32 <= wv; t += 32) { /* y + s x: the product is exact, so the one rounding is the add's */
            const __m256 y0 = _mm256_fmadd_ps(s, _mm256_loadu_ps(x + t), _mm256_loadu_ps(y + t));
            const __m256 y1 = _mm256_fmadd_ps(s, _mm256_loadu_ps(x + t + 8), _mm256_loadu_ps(y + t + 8));
            const __m256 y2 = _mm256_fmadd_ps(s, _mm256_loadu_ps(x + t + 16), _mm256_loadu_ps(y + t + 16));
            const __m256 y3 = _mm256_fmadd_ps(s, _mm256_loadu_ps(x + t + 24), _mm256_loadu_ps(y + t + 24));
            _mm256_storeu_ps(y + t, y0);
            _mm256_storeu_ps(y + t + 8, y1);
            _mm256_storeu_ps(y + t + 16, y2);
            _mm256_storeu_ps(y + t + 24, y3);
        }
        for (; t < wv; t += 8)
            _mm256_storeu_ps(y + t, _mm256_fmadd_ps(s, _mm256_loadu_ps(x + t), _mm256_loadu_ps(y + t)));
    }
    if (wv < w)
        lowrank_sign_rows_scalar(part + wv, ldp, v + wv, ldv, bucket, sign, nb, w - wv);
}

/* c[p] := column p of the 8 x 8 tile whose rows are r[0 .. 8). */
static inline void transpose8(const __m256 r[8], __m256 c[8])
{
    __m256 t[8], u[8];
    for (int q = 0; q < 8; q += 2) { /* lane L of t[q]: r[q][4L], r[q+1][4L], r[q][4L+1], r[q+1][4L+1] */
        t[q] = _mm256_unpacklo_ps(r[q], r[q + 1]);
        t[q + 1] = _mm256_unpackhi_ps(r[q], r[q + 1]);
    }
    for (int q = 0; q < 8; q += 4) { /* lane L of u[q + m]: column 4L + m of rows q .. q + 3 */
        u[q] = _mm256_shuffle_ps(t[q], t[q + 2], 0x44);
        u[q + 1] = _mm256_shuffle_ps(t[q], t[q + 2], 0xee);
        u[q + 2] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0x44);
        u[q + 3] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0xee);
    }
    for (int m = 0; m < 4; m++) { /* column m: low lanes of u[m], u[4 + m]; column 4 + m: their high lanes */
        c[m] = _mm256_permute2f128_ps(u[m], u[4 + m], 0x20);
        c[4 + m] = _mm256_permute2f128_ps(u[m], u[4 + m], 0x31);
    }
}

void lowrank_sign_cols_avx2(float *part, int64_t ldp, const float *v, int64_t ldv, const int32_t *bucket,
                            const float *sign, int64_t nb, int64_t w)
{
    const int64_t wv = w - w % 8, nv = nb - nb % 8;
    for (int64_t t0 = 0; t0 < wv; t0 += 8) {
        for (int64_t i0 = 0; i0 < nv; i0 += 8) {
            __m256 r[8], c[8];
            for (int64_t q = 0; q < 8; q++) /* row q: coordinate t0 + q of vectors i0 .. i0 + 7 */
                r[q] = _mm256_loadu_ps(v + (t0 + q) * ldv + i0);
            transpose8(r, c);
            for (int64_t p = 0; p < 8; p++) {
                float *y = part + bucket[i0 + p] * ldp + t0;
                _mm256_storeu_ps(y, _mm256_fmadd_ps(_mm256_set1_ps(sign[i0 + p]), c[p], _mm256_loadu_ps(y)));
            }
        }
        if (nv < nb) /* the last vectors of these coordinates, after the tiles */
            lowrank_sign_cols_scalar(part + t0, ldp, v + t0 * ldv + nv, ldv, bucket + nv, sign + nv, nb - nv, 8);
    }
    if (wv < w)
        lowrank_sign_cols_scalar(part + wv, ldp, v + wv * ldv, ldv, bucket, sign, nb, w - wv);
}
