/*
 * mat4_avx2.c - 4x4 kernels of sketchmm/mat4.h with AVX2 + FMA (contract in
 * mat4_kernels.h).
 *
 * Multiply: row i of C is sum_k a[i][k] * (row k of B), one chain
 * acc = a0 b0, then acc += a1 b1, a2 b2, a3 b3 (fused); every SIMD path
 * (AVX-512, NEON) does the same, so they give the same bits. One chain
 * instead of two (acc = a0 b0 + a2 b2, acc2 = a1 b1 + a3 b3, C = acc +
 * acc2) saves the final add; independent matrices hide the longer latency.
 *   f32: one ymm holds two rows of C (rows i, i + 1 in the low / high
 *        128-bit halves); the a[i][k] / a[i+1][k] pairs come from one
 *        in-lane shuffle of A's rows i, i + 1; B's rows are broadcast to both
 *        halves. 8 FMAs per matrix.
 *   f64: one ymm per row of C; a[i][k] broadcast from memory. 16 FMAs.
 * Inverse: the 2x2 minors and the determinant in scalar code, in the order
 * of the reference; the adjugate four elements at a time:
 *   row r of inv = (X1 * Y1 - X2 * Y2 + X3 * Y3) * (1 / det)
 * with X the columns of A that row r uses, reordered (m[4], m[0], m[12],
 * m[8] for column 0) and sign-alternated, and Y = (c, c, s, s) minor pairs.
 * Every lane performs the reference's operations in the reference's order,
 * so the inverse is bitwise the scalar one.
 */
#include <immintrin.h>

#include <math.h>
#include <stdint.h>

#include "exact/mat4_kernels.h"


static inline void mul_f32_one(const float *a, const float *b, float *c)
{
    const __m256 b0 = _mm256_broadcast_ps((const __m128 *)(b + 0));
    const __m256 b1 = _mm256_broadcast_ps((const __m128 *)(b + 4));
    const __m256 b2 = _mm256_broadcast_ps((const __m128 *)(b + 8));
    const __m256 b3 = _mm256_broadcast_ps((const __m128 *)(b + 12));
    for (int i = 0; i < 4; i += 2) {
        const __m256 ar = _mm256_loadu_ps(a + 4 * i); /* rows i, i + 1 */
        __m256 acc = _mm256_mul_ps(_mm256_shuffle_ps(ar, ar, 0x00), b0);
        acc = _mm256_fmadd_ps(_mm256_shuffle_ps(ar, ar, 0x55), b1, acc);
        acc = _mm256_fmadd_ps(_mm256_shuffle_ps(ar, ar, 0xAA), b2, acc);
        acc = _mm256_fmadd_ps(_mm256_shuffle_ps(ar, ar, 0xFF), b3, acc);
        _mm256_storeu_ps(c + 4 * i, acc);
    }
}

void mat4_mul_f32_avx2(int64_t count, const float *a, const float *b, float *c)
{
    for (int64_t t = 0; t < count; t++)
        mul_f32_one(a + 16 * t, b + 16 * t, c + 16 * t);
}

static inline void mul_f64_one(const double *a, const double *b, double *c)
{
    const __m256d b0 = _mm256_loadu_pd(b + 0), b1 = _mm256_loadu_pd(b + 4);
    const __m256d b2 = _mm256_loadu_pd(b + 8), b3 = _mm256_loadu_pd(b + 12);
    for (int i = 0; i < 4; i++) {
        const double *ai = a + 4 * i;
        __m256d acc = _mm256_mul_pd(_mm256_broadcast_sd(ai + 0), b0);
        acc = _mm256_fmadd_pd(_mm256_broadcast_sd(ai + 1), b1, acc);
        acc = _mm256_fmadd_pd(_mm256_broadcast_sd(ai + 2), b2, acc);
        acc = _mm256_fmadd_pd(_mm256_broadcast_sd(ai + 3), b3, acc);
        _mm256_storeu_pd(c + 4 * i, acc);
    }
}

void mat4_mul_f64_avx2(int64_t count, const double *a, const double *b, double *c)
{
    for (int64_t t = 0; t < count; t++)
        mul_f64_one(a + 16 * t, b + 16 * t, c + 16 * t);
}

/* ---- inverse ---- */

/* (c, c, s, s) */
static inline __m256d pair_f64(double c, double s)
{
    return _mm256_set_pd(s, s, c, c);
}

static inline __m256d adj_row_f64(__m256d x1, __m256d y1, __m256d x2, __m256d y2, __m256d x3, __m256d y3,
                                  __m256d r)
{
    const __m256d t = _mm256_sub_pd(_mm256_mul_pd(x1, y1), _mm256_mul_pd(x2, y2));
    return _mm256_mul_pd(_mm256_add_pd(t, _mm256_mul_pd(x3, y3)), r);
}

/* 0 (inv untouched) when det fails the criterion of mat4.h and check is set */
static inline int inv_f64_one(const double *m, double *inv, int check)
{
    double s[6], c[6];
    const double det = mat4_det_f64(m, s, c);
    if (check && !mat4_det_ok_f64(det))
        return 0;
    const __m256d r = _mm256_set1_pd(1.0 / det);
    /* columns of A, reordered (rows 1, 0, 3, 2) */
    const __m256d r0 = _mm256_loadu_pd(m), r1 = _mm256_loadu_pd(m + 4);
    const __m256d r2 = _mm256_loadu_pd(m + 8), r3 = _mm256_loadu_pd(m + 12);
    /* unpacklo(r1, r0) = (m4, m0, m6, m2); with (m12, m8, m14, m10): columns 0 and 2 */
    const __m256d l10 = _mm256_unpacklo_pd(r1, r0), l32 = _mm256_unpacklo_pd(r3, r2);
    const __m256d h10 = _mm256_unpackhi_pd(r1, r0), h32 = _mm256_unpackhi_pd(r3, r2);
    const __m256d col0 = _mm256_permute2f128_pd(l10, l32, 0x20); /* m4 m0 m12 m8 */
    const __m256d col2 = _mm256_permute2f128_pd(l10, l32, 0x31); /* m6 m2 m14 m10 */
    const __m256d col1 = _mm256_permute2f128_pd(h10, h32, 0x20); /* m5 m1 m13 m9 */
    const __m256d col3 = _mm256_permute2f128_pd(h10, h32, 0x31); /* m7 m3 m15 m11 */
    const __m256d odd = _mm256_set_pd(-0.0, 0.0, -0.0, 0.0);  /* + - + - */
    const __m256d even = _mm256_set_pd(0.0, -0.0, 0.0, -0.0); /* - + - + */
    const __m256d p5 = pair_f64(c[5], s[5]), p4 = pair_f64(c[4], s[4]), p3 = pair_f64(c[3], s[3]);
    const __m256d p2 = pair_f64(c[2], s[2]), p1 = pair_f64(c[1], s[1]), p0 = pair_f64(c[0], s[0]);
    const __m256d x0o = _mm256_xor_pd(col0, odd), x0e = _mm256_xor_pd(col0, even);
    const __m256d x1o = _mm256_xor_pd(col1, odd), x1e = _mm256_xor_pd(col1, even);
    const __m256d x2o = _mm256_xor_pd(col2, odd), x2e = _mm256_xor_pd(col2, even);
    const __m256d x3o = _mm256_xor_pd(col3, odd), x3e = _mm256_xor_pd(col3, even);
    _mm256_storeu_pd(inv + 0, adj_row_f64(x1o, p5, x2o, p4, x3o, p3, r));
    _mm256_storeu_pd(inv + 4, adj_row_f64(x0e, p5, x2e, p2, x3e, p1, r));
    _mm256_storeu_pd(inv + 8, adj_row_f64(x0o, p4, x1o, p2, x3o, p0, r));
    _mm256_storeu_pd(inv + 12, adj_row_f64(x0e, p3, x1e, p1, x2e, p0, r));
    return 1;
}

void mat4_inv_f64_avx2(int64_t count, const double *a, double *inv)
{
    for (int64_t t = 0; t < count; t++)
        inv_f64_one(a + 16 * t, inv + 16 * t, 0);
}

static inline __m128 pair_f32(float c, float s)
{
    return _mm_set_ps(s, s, c, c);
}

static inline __m128 adj_row_f32(__m128 x1, __m128 y1, __m128 x2, __m128 y2, __m128 x3, __m128 y3, __m128 r)
{
    const __m128 t = _mm_sub_ps(_mm_mul_ps(x1, y1), _mm_mul_ps(x2, y2));
    return _mm_mul_ps(_mm_add_ps(t, _mm_mul_ps(x3, y3)), r);
}

/* 0 (inv untouched) when det fails the criterion of mat4.h and check is set */
static inline int inv_f32_one(const float *m, float *inv, int check)
{
    float s[6], c[6];
    const float det = mat4_det_f32(m, s, c);
    if (check && !mat4_det_ok_f32(det))
        return 0;
    const __m128 r = _mm_set1_ps(1.0f / det);
    const __m128 r0 = _mm_loadu_ps(m), r1 = _mm_loadu_ps(m + 4);
    const __m128 r2 = _mm_loadu_ps(m + 8), r3 = _mm_loadu_ps(m + 12);
    /* unpacklo(r1, r0) = (m4, m0, m5, m1); unpacklo(r3, r2) = (m12, m8, m13, m9) */
    const __m128 l10 = _mm_unpacklo_ps(r1, r0), l32 = _mm_unpacklo_ps(r3, r2);
    const __m128 h10 = _mm_unpackhi_ps(r1, r0), h32 = _mm_unpackhi_ps(r3, r2);
    const __m128 col0 = _mm_movelh_ps(l10, l32); /* m4 m0 m12 m8 */
    const __m128 col1 = _mm_movehl_ps(l32, l10); /* m5 m1 m13 m9 */
    const __m128 col2 = _mm_movelh_ps(h10, h32); /* m6 m2 m14 m10 */
    const __m128 col3 = _mm_movehl_ps(h32, h10); /* m7 m3 m15 m11 */
    const __m128 odd = _mm_set_ps(-0.0f, 0.0f, -0.0f, 0.0f);
    const __m128 even = _mm_set_ps(0.0f, -0.0f, 0.0f, -0.0f);
    const __m128 p5 = pair_f32(c[5], s[5]), p4 = pair_f32(c[4], s[4]), p3 = pair_f32(c[3], s[3]);
    const __m128 p2 = pair_f32(c[2], s[2]), p1 = pair_f32(c[1], s[1]), p0 = pair_f32(c[0], s[0]);
    const __m128 x0o = _mm_xor_ps(col0, odd), x0e = _mm_xor_ps(col0, even);
    const __m128 x1o = _mm_xor_ps(col1, odd), x1e = _mm_xor_ps(col1, even);
    const __m128 x2o = _mm_xor_ps(col2, odd), x2e = _mm_xor_ps(col2, even);
    const __m128 x3o = _mm_xor_ps(col3, odd), x3e = _mm_xor_ps(col3, even);
    _mm_storeu_ps(inv + 0, adj_row_f32(x1o, p5, x2o, p4, x3o, p3, r));
    _mm_storeu_ps(inv + 4, adj_row_f32(x0e, p5, x2e, p2, x3e, p1, r));
    _mm_storeu_ps(inv + 8, adj_row_f32(x0o, p4, x1o, p2, x3o, p0, r));
    _mm_storeu_ps(inv + 12, adj_row_f32(x0e, p3, x1e, p1, x2e, p0, r));
    return 1;
}

void mat4_inv_f32_avx2(int64_t count, const float *a, float *inv)
{
    for (int64_t t = 0; t < count; t++)
        inv_f32_one(a + 16 * t, inv + 16 * t, 0);
}

int mat4_inv1_f64_avx2(const double *a, double *inv)
{
    return inv_f64_one(a, inv, 1);
}

int mat4_inv1_f32_avx2(const float *a, float *inv)
{
    return inv_f32_one(a, inv, 1);
}
