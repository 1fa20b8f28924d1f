/*
 * sqnorm_avx2.c - AVX2 group squared norms and scale-and-pad (see
 * hd_rotation.h; reference: sqnorm_scalar.c).
 *
 * Row-major: 8 x 8 blocks (8 vectors, elements t .. t + 7) are transposed
 * in registers (the 128-bit halves come from two loads, then unpack and
 * shuffle within lanes), so that one register holds element t of 8 vectors;
 * its floats are widened to double and added into per-vector accumulators
 * with a fused multiply-add. x * x is exact in double, so fma(x, x, s) is the
 * rounded s + x * x of the scalar loop, and each lane adds its vector's
 * elements in increasing t: the sums are the reference's bits. Two sets of
 * 8 vectors run side by side to hide the FMA latency. Elements past the
 * last full block of 8 are added by the scalar loop, still in order.
 * Column-major: element t of the 16 vectors is one contiguous load.
 * The largest magnitude uses max(|x|, big), which like the reference keeps
 * big when |x| is NaN.
 */
#include <immintrin.h>
#include <math.h>

#include "sketch/hd_rotation.h"
#include "sketch/vector_norms.h"

/* out[j] lane k = x_k[t + j] for the 8 vectors x_k = x0 + k * rs, j < 8. */
static inline void transpose8(const float *x0, int64_t rs, int64_t t, __m256 out[8])
{
    for (int h = 0; h < 2; h++) {
        __m256 r[4];
        for (int k = 0; k < 4; k++)
            r[k] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(x0 + k * rs + t + 4 * h)),
                                        _mm_loadu_ps(x0 + (k + 4) * rs + t + 4 * h), 1);
        const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
        const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
        out[4 * h + 0] = _mm256_shuffle_ps(t0, t2, 0x44);
        out[4 * h + 1] = _mm256_shuffle_ps(t0, t2, 0xEE);
        out[4 * h + 2] = _mm256_shuffle_ps(t1, t3, 0x44);
        out[4 * h + 3] = _mm256_shuffle_ps(t1, t3, 0xEE);
    }
}

/* Adds element x (8 vectors' lanes) to the accumulators lo (vectors 0-3) and hi (4-7) and to big. */
static inline void add8(__m256 x, __m256d *lo, __m256d *hi, __m256 *big, __m256 absmask)
{
    const __m256d a = _mm256_cvtps_pd(_mm256_castps256_ps128(x));
    const __m256d b = _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1));
    *lo = _mm256_fmadd_pd(a, a, *lo);
    *hi = _mm256_fmadd_pd(b, b, *hi);
    *big = _mm256_max_ps(_mm256_and_ps(x, absmask), *big);
}

void sq_norms_avx2(const float *X, int64_t row_step, int64_t elem_step, int64_t d, double *ss, float *big)
{
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256d acc[4] = { _mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd() };
    __m256 bg[2] = { _mm256_setzero_ps(), _mm256_setzero_ps() };
    int64_t t = 0;
    if (elem_step == 1) {
        for (; t + 8 <= d; t += 8) {
            __m256 a[8], b[8];
            transpose8(X, row_step, t, a);
            transpose8(X + 8 * row_step, row_step, t, b);
            for (int j = 0; j < 8; j++) {
                add8(a[j], &acc[0], &acc[1], &bg[0], absmask);
                add8(b[j], &acc[2], &acc[3], &bg[1], absmask);
            }
        }
    } else if (row_step == 1) {
        for (; t < d; t++) {
            add8(_mm256_loadu_ps(X + t * elem_step), &acc[0], &acc[1], &bg[0], absmask);
            add8(_mm256_loadu_ps(X + t * elem_step + 8), &acc[2], &acc[3], &bg[1], absmask);
        }
    } else {
        sq_norms_scalar(X, row_step, elem_step, d, ss, big);
        return;
    }
    for (int q = 0; q < 4; q++)
        _mm256_storeu_pd(ss + 4 * q, acc[q]);
    _mm256_storeu_ps(big, bg[0]);
    _mm256_storeu_ps(big + 8, bg[1]);
    sq_norms_continue(X, row_step, elem_step, SQ_NORMS_GROUP, t, d, ss, big); /* the elements past the last block, in order */
}

void scale_pad_avx2(const float *x, int64_t d, float scale, float *xs, int64_t D)
{
    const __m256 s = _mm256_set1_ps(scale);
    int64_t t = 0;
    for (; t + 32 <= d; t += 32) {
        const __m256 a = _mm256_loadu_ps(x + t), b = _mm256_loadu_ps(x + t + 8);
        const __m256 c = _mm256_loadu_ps(x + t + 16), e = _mm256_loadu_ps(x + t + 24);
        _mm256_storeu_ps(xs + t, _mm256_mul_ps(a, s));
        _mm256_storeu_ps(xs + t + 8, _mm256_mul_ps(b, s));
        _mm256_storeu_ps(xs + t + 16, _mm256_mul_ps(c, s));
        _mm256_storeu_ps(xs + t + 24, _mm256_mul_ps(e, s));
    }
    for (; t + 8 <= d; t += 8)
        _mm256_storeu_ps(xs + t, _mm256_mul_ps(_mm256_loadu_ps(x + t), s));
    for (; t < d; t++)
        xs[t] = x[t] * scale;
    for (; t < D && (t & 7); t++)
        xs[t] = 0.0f;
    for (; t + 8 <= D; t += 8)
        _mm256_storeu_ps(xs + t, _mm256_setzero_ps());
    for (; t < D; t++)
        xs[t] = 0.0f;
}
