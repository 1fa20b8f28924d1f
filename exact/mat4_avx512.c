/*
 * mat4_avx512.c - 4x4 kernels of sketchmm/mat4.h with AVX-512 F/DQ
 * (contract in mat4.c).
 *
 * Multiply: row i of C is sum_k a[i][k] * (row k of B), with the same
 * operations in the same order as mat4_avx2.c (so the two give the same
 * bits):
 *   f32: the whole of C in one zmm (row i in 128-bit lane i); a[i][k]
 *        splat within each lane by one in-lane permute of A, row k of B
 *        broadcast to the four lanes. 4 multiplies/FMAs per matrix.
 *   f64: rows i, i + 1 of C in one zmm (256-bit halves); a[i][k] splat
 *        within each half, row k of B broadcast to both halves.
 * Inverse f32 (batches): 16 matrices at once, one matrix per vector lane
 * (element e of every matrix gathered into one register), the reference
 * formula of mat4.c evaluated lane-wise with the same operations in the same
 * order, so every lane gives the scalar result bit for bit. A tail of fewer
 * matrices, and single matrices, go to the AVX2 kernel (also bitwise the
 * reference). Inverse f64: the AVX2 kernel (mat4.c); an 8-lane gather
 * version measured slower than it (gathers and scatters dominate).
 */
#include <immintrin.h>

#include <stdint.h>

#include "exact/mat4_kernels.h"


static inline void mul_f32_one(const float *a, const float *b, float *c)
{
    const __m512 am = _mm512_loadu_ps(a);
    const __m512 b0 = _mm512_broadcast_f32x4(_mm_loadu_ps(b + 0));
    const __m512 b1 = _mm512_broadcast_f32x4(_mm_loadu_ps(b + 4));
    const __m512 b2 = _mm512_broadcast_f32x4(_mm_loadu_ps(b + 8));
    const __m512 b3 = _mm512_broadcast_f32x4(_mm_loadu_ps(b + 12));
    __m512 acc = _mm512_mul_ps(_mm512_permute_ps(am, 0x00), b0);
    __m512 acc2 = _mm512_mul_ps(_mm512_permute_ps(am, 0x55), b1);
    acc = _mm512_fmadd_ps(_mm512_permute_ps(am, 0xAA), b2, acc);
    acc2 = _mm512_fmadd_ps(_mm512_permute_ps(am, 0xFF), b3, acc2);
    _mm512_storeu_ps(c, _mm512_add_ps(acc, acc2));
}

void mat4_mul_f32_avx512(int64_t count, const float *a, const float *b, float *c)
{
    for (int64_t t = 0; t < count; t++)
        mul_f32_one(a + 16 * t, b + 16 * t, c + 16 * t);
}

static inline void mul_f64_one(const double *a, const double *b, double *c)
{
    const __m512d b0 = _mm512_broadcast_f64x4(_mm256_loadu_pd(b + 0));
    const __m512d b1 = _mm512_broadcast_f64x4(_mm256_loadu_pd(b + 4));
    const __m512d b2 = _mm512_broadcast_f64x4(_mm256_loadu_pd(b + 8));
    const __m512d b3 = _mm512_broadcast_f64x4(_mm256_loadu_pd(b + 12));
    for (int i = 0; i < 4; i += 2) {
        const __m512d ar = _mm512_loadu_pd(a + 4 * i); /* rows i, i + 1 */
        __m512d acc = _mm512_mul_pd(_mm512_permutex_pd(ar, 0x00), b0);
        __m512d acc2 = _mm512_mul_pd(_mm512_permutex_pd(ar, 0x55), b1);
        acc = _mm512_fmadd_pd(_mm512_permutex_pd(ar, 0xAA), b2, acc);
        acc2 = _mm512_fmadd_pd(_mm512_permutex_pd(ar, 0xFF), b3, acc2);
        _mm512_storeu_pd(c + 4 * i, _mm512_add_pd(acc, acc2));
    }
}

void mat4_mul_f64_avx512(int64_t count, const double *a, const double *b, double *c)
{
    for (int64_t t = 0; t < count; t++)
        mul_f64_one(a + 16 * t, b + 16 * t, c + 16 * t);
}

/* ---- inverse, one matrix per lane ---- */

static inline __m512 msub_f32(__m512 x, __m512 y, __m512 z, __m512 w)
{
    return _mm512_sub_ps(_mm512_mul_ps(x, y), _mm512_mul_ps(z, w));
}

static inline __m512 adj_f32(__m512 x1, __m512 y1, __m512 x2, __m512 y2, __m512 x3, __m512 y3, __m512 r)
{
    return _mm512_mul_ps(_mm512_add_ps(msub_f32(x1, y1, x2, y2), _mm512_mul_ps(x3, y3)), r);
}

static inline __m512 neg_f32(__m512 x)
{
    return _mm512_xor_ps(x, _mm512_set1_ps(-0.0f));
}

static void inv_f32_block(const float *a, float *inv)
{
    const __m512i idx = _mm512_set_epi32(240, 224, 208, 192, 176, 160, 144, 128, 112, 96, 80, 64, 48, 32, 16, 0);
    __m512 m[16], n[16];
    for (int e = 0; e < 16; e++) {
        m[e] = _mm512_i32gather_ps(idx, a + e, 4);
        n[e] = neg_f32(m[e]);
    }
    __m512 s[6], c[6];
    s[0] = msub_f32(m[0], m[5], m[4], m[1]);
    s[1] = msub_f32(m[0], m[6], m[4], m[2]);
    s[2] = msub_f32(m[0], m[7], m[4], m[3]);
    s[3] = msub_f32(m[1], m[6], m[5], m[2]);
    s[4] = msub_f32(m[1], m[7], m[5], m[3]);
    s[5] = msub_f32(m[2], m[7], m[6], m[3]);
    c[5] = msub_f32(m[10], m[15], m[14], m[11]);
    c[4] = msub_f32(m[9], m[15], m[13], m[11]);
    c[3] = msub_f32(m[9], m[14], m[13], m[10]);
    c[2] = msub_f32(m[8], m[15], m[12], m[11]);
    c[1] = msub_f32(m[8], m[14], m[12], m[10]);
    c[0] = msub_f32(m[8], m[13], m[12], m[9]);
    const __m512 det = _mm512_add_ps(_mm512_add_ps(msub_f32(s[0], c[5], s[1], c[4]),
                                                   _mm512_add_ps(_mm512_mul_ps(s[2], c[3]), _mm512_mul_ps(s[3], c[2]))),
                                     msub_f32(s[5], c[0], s[4], c[1]));
    const __m512 r = _mm512_div_ps(_mm512_set1_ps(1.0f), det);
    __m512 o[16];
    o[0] = adj_f32(m[5], c[5], m[6], c[4], m[7], c[3], r);
    o[1] = adj_f32(n[1], c[5], n[2], c[4], n[3], c[3], r);
    o[2] = adj_f32(m[13], s[5], m[14], s[4], m[15], s[3], r);
    o[3] = adj_f32(n[9], s[5], n[10], s[4], n[11], s[3], r);
    o[4] = adj_f32(n[4], c[5], n[6], c[2], n[7], c[1], r);
    o[5] = adj_f32(m[0], c[5], m[2], c[2], m[3], c[1], r);
    o[6] = adj_f32(n[12], s[5], n[14], s[2], n[15], s[1], r);
    o[7] = adj_f32(m[8], s[5], m[10], s[2], m[11], s[1], r);
    o[8] = adj_f32(m[4], c[4], m[5], c[2], m[7], c[0], r);
    o[9] = adj_f32(n[0], c[4], n[1], c[2], n[3], c[0], r);
    o[10] = adj_f32(m[12], s[4], m[13], s[2], m[15], s[0], r);
    o[11] = adj_f32(n[8], s[4], n[9], s[2], n[11], s[0], r);
    o[12] = adj_f32(n[4], c[3], n[5], c[1], n[6], c[0], r);
    o[13] = adj_f32(m[0], c[3], m[1], c[1], m[2], c[0], r);
    o[14] = adj_f32(n[12], s[3], n[13], s[1], n[14], s[0], r);
    o[15] = adj_f32(m[8], s[3], m[9], s[1], m[10], s[0], r);
    for (int e = 0; e < 16; e++)
        _mm512_i32scatter_ps(inv + e, idx, o[e], 4);
}

void mat4_inv_f32_avx512(int64_t count, const float *a, float *inv)
{
    int64_t t = 0;
    for (; t + 16 <= count; t += 16)
        inv_f32_block(a + 16 * t, inv + 16 * t);
    if (t < count)
        mat4_inv_f32_avx2(count - t, a + 16 * t, inv + 16 * t);
}
