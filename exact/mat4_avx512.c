/*
 * mat4_avx512.c - 4x4 kernels of sketchmm/mat4.h with AVX-512 F/DQ
 * (contract in mat4_kernels.h).
 *
 * Multiply: row i of C is sum_k a[i][k] * (row k of B), with the same
 * operations in the same order as mat4_avx2.c (so the two give the same
 * bits):
 *   f32: the whole of C in one zmm (row i in 128-bit lane i); a[i][k]
 *        splat within each lane by one in-lane permute of A, row k of B
 *        broadcast to the four lanes. 4 multiplies/FMAs per matrix.
 *   f64: rows i, i + 1 of C in one zmm (256-bit halves); a[i][k] splat
 *        within each half, row k of B broadcast to both halves.
 * Inverse (batches): 16 float or 8 double matrices at once, one matrix per
 * vector lane: the block is loaded one matrix per register and turned into
 * one element per register by an in-register transpose (16 x 16 floats, or
 * two 8 x 8 doubles; 64 resp. 48 shuffles), the formula of mat4_scalar.c
 * is evaluated lane-wise with the same operations in the same order (so
 * every lane gives the scalar bits), and the result is transposed back.
 * The same block load feeds the determinant check that batches run first
 * (mat4_regular_*). A tail of fewer matrices, and single matrices, go to the
 * AVX2 kernels (also bitwise the reference). The gather/scatter version this
 * replaced ran at 27-31 M/s for float; gathers and scatters dominated it.
 */
#include <immintrin.h>

#include <math.h>
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
    acc = _mm512_fmadd_ps(_mm512_permute_ps(am, 0x55), b1, acc);
    acc = _mm512_fmadd_ps(_mm512_permute_ps(am, 0xAA), b2, acc);
    acc = _mm512_fmadd_ps(_mm512_permute_ps(am, 0xFF), b3, acc);
    _mm512_storeu_ps(c, acc);
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
        acc = _mm512_fmadd_pd(_mm512_permutex_pd(ar, 0x55), b1, acc);
        acc = _mm512_fmadd_pd(_mm512_permutex_pd(ar, 0xAA), b2, acc);
        acc = _mm512_fmadd_pd(_mm512_permutex_pd(ar, 0xFF), b3, acc);
        _mm512_storeu_pd(c + 4 * i, acc);
    }
}

void mat4_mul_f64_avx512(int64_t count, const double *a, const double *b, double *c)
{
    for (int64_t t = 0; t < count; t++)
        mul_f64_one(a + 16 * t, b + 16 * t, c + 16 * t);
}

/* ---- inverse and determinant check, one matrix per vector lane ---- */

/*
 * The lane-wise form of the reference (mat4_scalar.c), stamped out for
 * float (V = __m512, 16 lanes) and double (__m512d, 8 lanes): the same
 * operations in the same order, so every lane gives the scalar bits. m[e] holds element e
 * of every matrix of the block, one matrix per lane.
 */
#define MAT4_DEFINE_LANEWISE(V, S, SFX, TINY)                                                      \
    static inline V msub_##S(V x, V y, V z, V w)                                                   \
    {                                                                                              \
        return _mm512_sub_##SFX(_mm512_mul_##SFX(x, y), _mm512_mul_##SFX(z, w));                   \
    }                                                                                              \
    static inline V det_##S(const V m[16], V s[6], V c[6])                                         \
    {                                                                                              \
        s[0] = msub_##S(m[0], m[5], m[4], m[1]);                                                   \
        s[1] = msub_##S(m[0], m[6], m[4], m[2]);                                                   \
        s[2] = msub_##S(m[0], m[7], m[4], m[3]);                                                   \
        s[3] = msub_##S(m[1], m[6], m[5], m[2]);                                                   \
        s[4] = msub_##S(m[1], m[7], m[5], m[3]);                                                   \
        s[5] = msub_##S(m[2], m[7], m[6], m[3]);                                                   \
        c[5] = msub_##S(m[10], m[15], m[14], m[11]);                                               \
        c[4] = msub_##S(m[9], m[15], m[13], m[11]);                                                \
        c[3] = msub_##S(m[9], m[14], m[13], m[10]);                                                \
        c[2] = msub_##S(m[8], m[15], m[12], m[11]);                                                \
        c[1] = msub_##S(m[8], m[14], m[12], m[10]);                                                \
        c[0] = msub_##S(m[8], m[13], m[12], m[9]);                                                 \
        return _mm512_add_##SFX(                                                                   \
            _mm512_add_##SFX(msub_##S(s[0], c[5], s[1], c[4]),                                     \
                             _mm512_add_##SFX(_mm512_mul_##SFX(s[2], c[3]), _mm512_mul_##SFX(s[3], c[2]))), \
            msub_##S(s[5], c[0], s[4], c[1]));                                                     \
    }                                                                                              \
    /* lanes whose det passes the criterion of mat4.h: det != 0, det and 1 / det finite; for      \
       |det| >= TINY (1 / TINY finite) the division is skipped */                                  \
    static inline int det_ok_mask_##S(V det)                                                       \
    {                                                                                              \
        const V ad = _mm512_abs_##SFX(det), tiny = _mm512_set1_##SFX(TINY);                        \
        const V inf = _mm512_set1_##SFX(INFINITY);                                                 \
        int ok = (int)(_mm512_cmp_##SFX##_mask(ad, tiny, _CMP_GE_OQ) &                             \
                       _mm512_cmp_##SFX##_mask(ad, inf, _CMP_LT_OQ));                              \
        const int small = (int)(_mm512_cmp_##SFX##_mask(ad, tiny, _CMP_LT_OQ) &                    \
                                _mm512_cmp_##SFX##_mask(ad, _mm512_setzero_##SFX(), _CMP_NEQ_OQ)); \
        if (small) {                                                                               \
            const V r = _mm512_div_##SFX(_mm512_set1_##SFX(1), det);                               \
            ok |= small & (int)_mm512_cmp_##SFX##_mask(_mm512_abs_##SFX(r), inf, _CMP_LT_OQ);      \
        }                                                                                          \
        return ok;                                                                                 \
    }                                                                                              \
    /* (x1 y1 - x2 y2 + x3 y3) r */                                                                \
    static inline V adj_##S(V x1, V y1, V x2, V y2, V x3, V y3, V r)                               \
    {                                                                                              \
        return _mm512_mul_##SFX(_mm512_add_##SFX(msub_##S(x1, y1, x2, y2), _mm512_mul_##SFX(x3, y3)), r); \
    }                                                                                              \
    /* The reference's (-m[e]) * minor is bitwise m[e] * (-minor): the negated minors ns, nc. */   \
    typedef struct {                                                                               \
        V s[6], c[6], ns[6], nc[6], r;                                                             \
    } cofactors_##S;                                                                               \
    static inline void cofactors_##S##_of(const V m[16], cofactors_##S *f)                         \
    {                                                                                              \
        f->r = _mm512_div_##SFX(_mm512_set1_##SFX(1), det_##S(m, f->s, f->c));                     \
        const V sign = _mm512_set1_##SFX(-0.0);                                                    \
        for (int k = 0; k < 6; k++) {                                                              \
            f->ns[k] = _mm512_xor_##SFX(f->s[k], sign);                                            \
            f->nc[k] = _mm512_xor_##SFX(f->c[k], sign);                                            \
        }                                                                                          \
    }                                                                                              \
    /* rows 0, 1 of the inverse: o[0 .. 7] */                                                      \
    static inline void inverse_top_##S(const V m[16], const cofactors_##S *f, V o[8])              \
    {                                                                                              \
        const V *s = f->s, *c = f->c, *ns = f->ns, *nc = f->nc, r = f->r;                          \
        o[0] = adj_##S(m[5], c[5], m[6], c[4], m[7], c[3], r);                                     \
        o[1] = adj_##S(m[1], nc[5], m[2], nc[4], m[3], nc[3], r);                                  \
        o[2] = adj_##S(m[13], s[5], m[14], s[4], m[15], s[3], r);                                  \
        o[3] = adj_##S(m[9], ns[5], m[10], ns[4], m[11], ns[3], r);                                \
        o[4] = adj_##S(m[4], nc[5], m[6], nc[2], m[7], nc[1], r);                                  \
        o[5] = adj_##S(m[0], c[5], m[2], c[2], m[3], c[1], r);                                     \
        o[6] = adj_##S(m[12], ns[5], m[14], ns[2], m[15], ns[1], r);                               \
        o[7] = adj_##S(m[8], s[5], m[10], s[2], m[11], s[1], r);                                   \
    }                                                                                              \
    /* rows 2, 3 of the inverse: o[0 .. 7] = elements 8 .. 15 */                                   \
    static inline void inverse_bottom_##S(const V m[16], const cofactors_##S *f, V o[8])           \
    {                                                                                              \
        const V *s = f->s, *c = f->c, *ns = f->ns, *nc = f->nc, r = f->r;                          \
        o[0] = adj_##S(m[4], c[4], m[5], c[2], m[7], c[0], r);                                     \
        o[1] = adj_##S(m[0], nc[4], m[1], nc[2], m[3], nc[0], r);                                  \
        o[2] = adj_##S(m[12], s[4], m[13], s[2], m[15], s[0], r);                                  \
        o[3] = adj_##S(m[8], ns[4], m[9], ns[2], m[11], ns[0], r);                                 \
        o[4] = adj_##S(m[4], nc[3], m[5], nc[1], m[6], nc[0], r);                                  \
        o[5] = adj_##S(m[0], c[3], m[1], c[1], m[2], c[0], r);                                     \
        o[6] = adj_##S(m[12], ns[3], m[13], ns[1], m[14], ns[0], r);                               \
        o[7] = adj_##S(m[8], s[3], m[9], s[1], m[10], s[0], r);                                    \
    }
MAT4_DEFINE_LANEWISE(__m512, f32, ps, 0x1p-120f)
MAT4_DEFINE_LANEWISE(__m512d, f64, pd, 0x1p-1000)

/*
 * In-register transposes between "one matrix per register" and "one element
 * per register" (both are their own inverse).
 * f32: r[t] = the 16 elements of matrix t  <->  r[e] = element e of matrices 0..15.
 */
static inline void transpose16_f32(__m512 r[16])
{
    __m512 t[16], u[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    /* u[4g + j]: rows 4g .. 4g + 3, column j + 4L in 128-bit lane L */
    for (int g = 0; g < 16; g += 4) {
        const __m512d t0 = _mm512_castps_pd(t[g]), t1 = _mm512_castps_pd(t[g + 1]);
        const __m512d t2 = _mm512_castps_pd(t[g + 2]), t3 = _mm512_castps_pd(t[g + 3]);
        u[g + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2));
        u[g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2));
        u[g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3));
        u[g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3));
    }
    for (int j = 0; j < 4; j++) {
        const __m512 v = _mm512_shuffle_f32x4(u[j], u[4 + j], 0x88);
        const __m512 w = _mm512_shuffle_f32x4(u[j], u[4 + j], 0xDD);
        const __m512 v2 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0x88);
        const __m512 w2 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0xDD);
        r[j] = _mm512_shuffle_f32x4(v, v2, 0x88);
        r[j + 8] = _mm512_shuffle_f32x4(v, v2, 0xDD);
        r[j + 4] = _mm512_shuffle_f32x4(w, w2, 0x88);
        r[j + 12] = _mm512_shuffle_f32x4(w, w2, 0xDD);
    }
}

/* f64, 8 x 8: r[t] = 8 values of matrix t  <->  r[e] = value e of matrices 0..7. */
static inline void transpose8_f64(__m512d r[8])
{
    __m512d t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm512_unpacklo_pd(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_pd(r[i], r[i + 1]);
    }
    /* u[4g + j]: rows 4g .. 4g + 3; j = 0: columns 0, 4; 1: 2, 6; 2: 1, 5; 3: 3, 7 */
    for (int g = 0; g < 8; g += 4) {
        u[g + 0] = _mm512_shuffle_f64x2(t[g], t[g + 2], 0x88);
        u[g + 1] = _mm512_shuffle_f64x2(t[g], t[g + 2], 0xDD);
        u[g + 2] = _mm512_shuffle_f64x2(t[g + 1], t[g + 3], 0x88);
        u[g + 3] = _mm512_shuffle_f64x2(t[g + 1], t[g + 3], 0xDD);
    }
    static const int col[4] = { 0, 2, 1, 3 };
    for (int j = 0; j < 4; j++) {
        r[col[j]] = _mm512_shuffle_f64x2(u[j], u[4 + j], 0x88);
        r[col[j] + 4] = _mm512_shuffle_f64x2(u[j], u[4 + j], 0xDD);
    }
}

/* Element e of the 16 matrices at a, one register per element. */
static inline void load_block_f32(const float *a, __m512 m[16])
{
    for (int t = 0; t < 16; t++)
        m[t] = _mm512_loadu_ps(a + 16 * t);
    transpose16_f32(m);
}

/* The inverses of the block whose elements are m, written to inv. */
static inline void invert_block_f32(const __m512 m[16], float *inv)
{
    cofactors_f32 f;
    cofactors_f32_of(m, &f);
    __m512 o[16];
    inverse_top_f32(m, &f, o);
    inverse_bottom_f32(m, &f, o + 8);
    transpose16_f32(o);
    for (int t = 0; t < 16; t++)
        _mm512_storeu_ps(inv + 16 * t, o[t]);
}

/* Element e of the 8 matrices at a, one register per element. */
static inline void load_block_f64(const double *a, __m512d m[16])
{
    for (int t = 0; t < 8; t++) {
        m[t] = _mm512_loadu_pd(a + 16 * t);
        m[8 + t] = _mm512_loadu_pd(a + 16 * t + 8);
    }
    transpose8_f64(m);
    transpose8_f64(m + 8);
}

/* The same for double: each half of the inverses transposed and stored as soon as it is done. */
static inline void invert_block_f64(const __m512d m[16], double *inv)
{
    cofactors_f64 f;
    cofactors_f64_of(m, &f);
    __m512d o[8];
    inverse_top_f64(m, &f, o);
    transpose8_f64(o);
    for (int t = 0; t < 8; t++)
        _mm512_storeu_pd(inv + 16 * t, o[t]);
    inverse_bottom_f64(m, &f, o);
    transpose8_f64(o);
    for (int t = 0; t < 8; t++)
        _mm512_storeu_pd(inv + 16 * t + 8, o[t]);
}

/*
 * Batch kernels: whole blocks lane-wise, a tail of fewer matrices through the
 * AVX2 kernels (bitwise the reference too).
 */
#define MAT4_DEFINE_BATCH(T, V, S, LANES)                                                          \
    void mat4_inv_##S##_avx512(int64_t count, const T *a, T *inv)                                  \
    {                                                                                              \
        int64_t t = 0;                                                                             \
        for (; t + LANES <= count; t += LANES) {                                                   \
            V m[16];                                                                               \
            load_block_##S(a + 16 * t, m);                                                         \
            invert_block_##S(m, inv + 16 * t);                                                     \
        }                                                                                          \
        if (t < count)                                                                             \
            mat4_inv_##S##_avx2(count - t, a + 16 * t, inv + 16 * t);                              \
    }                                                                                              \
    int mat4_regular_##S##_avx512(int64_t count, const T *a)                                       \
    {                                                                                              \
        const int all = (int)((1u << LANES) - 1);                                                  \
        int64_t t = 0;                                                                             \
        for (; t + LANES <= count; t += LANES) {                                                   \
            V m[16], s[6], c[6];                                                                   \
            load_block_##S(a + 16 * t, m);                                                         \
            if (det_ok_mask_##S(det_##S(m, s, c)) != all)                                          \
                return 0;                                                                          \
        }                                                                                          \
        return mat4_regular_##S##_portable(count - t, a + 16 * t);                                 \
    }
MAT4_DEFINE_BATCH(float, __m512, f32, 16)
MAT4_DEFINE_BATCH(double, __m512d, f64, 8)
