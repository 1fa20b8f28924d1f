/*
 * sqnorm_avx512.c - AVX-512 group squared norms and scale-and-pad (see
 * hd_rotation.h; reference: sqnorm_scalar.c).
 *
 * The scheme of sqnorm_avx2.c with one zmm accumulator of 8 doubles per set
 * of 8 vectors: row-major 8 x 8 blocks are transposed in ymm registers
 * (element t of 8 vectors per register), widened to double and added with
 * fma(x, x, s), exact product and one rounding: the scalar loop's s + x * x,
 * in increasing t per lane, so the sums are the reference's bits. Two sets
 * of 8 vectors hide the FMA latency; elements past the last full block are
 * added by the scalar loop in order. Column-major: element t of the 16
 * vectors is one zmm load. big uses max(|x|, big) as the reference does.
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

static inline void add8(__m256 x, __m512d *acc, __m256 *big, __m256 absmask)
{
    const __m512d a = _mm512_cvtps_pd(x);
    *acc = _mm512_fmadd_pd(a, a, *acc);
    *big = _mm256_max_ps(_mm256_and_ps(x, absmask), *big);
}

void sq_norms_avx512(const float *X, int64_t row_step, int64_t elem_step, int64_t d, double *ss, float *big)
{
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m512d acc[2] = { _mm512_setzero_pd(), _mm512_setzero_pd() };
    __m256 bg[2] = { _mm256_setzero_ps(), _mm256_setzero_ps() };
    int64_t t = 0;
    if (elem_step == 1) {
        for (; t + 8 <= d; t += 8) {
            __m256 a[8], b[8];
            transpose8(X, row_step, t, a);
            transpose8(X + 8 * row_step, row_step, t, b);
            for (int j = 0; j < 8; j++) {
                add8(a[j], &acc[0], &bg[0], absmask);
                add8(b[j], &acc[1], &bg[1], absmask);
            }
        }
    } else if (row_step == 1) {
        for (; t < d; t++) {
            add8(_mm256_loadu_ps(X + t * elem_step), &acc[0], &bg[0], absmask);
            add8(_mm256_loadu_ps(X + t * elem_step + 8), &acc[1], &bg[1], absmask);
        }
    } else {
        sq_norms_scalar(X, row_step, elem_step, d, ss, big);
        return;
    }
    _mm512_storeu_pd(ss, acc[0]);
    _mm512_storeu_pd(ss + 8, acc[1]);
    _mm256_storeu_ps(big, bg[0]);
    _mm256_storeu_ps(big + 8, bg[1]);
    sq_norms_continue(X, row_step, elem_step, SQ_NORMS_GROUP, t, d, ss, big); /* the elements past the last block, in order */
}

void scale_pad_avx512(const float *x, int64_t d, float scale, float *xs, int64_t D)
{
    const __m512 s = _mm512_set1_ps(scale);
    int64_t t = 0;
    for (; t + 64 <= d; t += 64) {
        const __m512 a = _mm512_loadu_ps(x + t), b = _mm512_loadu_ps(x + t + 16);
        const __m512 c = _mm512_loadu_ps(x + t + 32), e = _mm512_loadu_ps(x + t + 48);
        _mm512_storeu_ps(xs + t, _mm512_mul_ps(a, s));
        _mm512_storeu_ps(xs + t + 16, _mm512_mul_ps(b, s));
        _mm512_storeu_ps(xs + t + 32, _mm512_mul_ps(c, s));
        _mm512_storeu_ps(xs + t + 48, _mm512_mul_ps(e, s));
    }
    for (; t + 16 <= d; t += 16)
        _mm512_storeu_ps(xs + t, _mm512_mul_ps(_mm512_loadu_ps(x + t), s));
    if (t < d) { /* the last d - t < 16 elements, and zeros after them in the same 16 lanes (up to D) */
        const int64_t end = D - t < 16 ? D - t : 16;
        const __mmask16 ld = (__mmask16)((1u << (d - t)) - 1u), st = (__mmask16)((1u << end) - 1u);
        _mm512_mask_storeu_ps(xs + t, st, _mm512_mul_ps(_mm512_maskz_loadu_ps(ld, x + t), s));
        t += end;
    }
    for (; t + 16 <= D; t += 16)
        _mm512_storeu_ps(xs + t, _mm512_setzero_ps());
    if (t < D)
        _mm512_mask_storeu_ps(xs + t, (__mmask16)((1u << (D - t)) - 1u), _mm512_setzero_ps());
}
