/*
 * unary_avx2.c - the unary kernels of unary.c with AVX2: copies in 32-float
 * steps (masked stores for the tail), transposes in 8 x 8 register tiles
 * (unpack, shuffle, 128-bit permute), scalar for the edge tiles; large
 * transposes write B with non-temporal stores.
 * ReLU is _mm256_max_ps(0, x): the second operand is returned when either is
 * NaN and when both are zero, so NaN propagates and -0 stays -0, as in the
 * scalar twin (unary_scalar.c).
 */
#include <immintrin.h>
#include <stdint.h>

#include "exact/unary_kernels.h"

static inline __m256 relu8(__m256 x)
{
    return _mm256_max_ps(_mm256_setzero_ps(), x);
}

static inline float relu1(float x)
{
    return x < 0.0f ? 0.0f : x;
}

/* Mask of the first n (0..8) lanes. */
static inline __m256i first_lanes(int64_t n)
{
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), idx);
}

static void copy_row(int relu, int64_t cols, const float *a, float *b)
{
    int64_t c = 0;
    if (relu) {
        for (; c + 32 <= cols; c += 32) {
            __m256 x0 = _mm256_loadu_ps(a + c), x1 = _mm256_loadu_ps(a + c + 8);
            __m256 x2 = _mm256_loadu_ps(a + c + 16), x3 = _mm256_loadu_ps(a + c + 24);
            _mm256_storeu_ps(b + c, relu8(x0));
            _mm256_storeu_ps(b + c + 8, relu8(x1));
            _mm256_storeu_ps(b + c + 16, relu8(x2));
            _mm256_storeu_ps(b + c + 24, relu8(x3));
        }
        for (; c + 8 <= cols; c += 8)
            _mm256_storeu_ps(b + c, relu8(_mm256_loadu_ps(a + c)));
    } else {
        for (; c + 32 <= cols; c += 32) {
            __m256 x0 = _mm256_loadu_ps(a + c), x1 = _mm256_loadu_ps(a + c + 8);
            __m256 x2 = _mm256_loadu_ps(a + c + 16), x3 = _mm256_loadu_ps(a + c + 24);
            _mm256_storeu_ps(b + c, x0);
            _mm256_storeu_ps(b + c + 8, x1);
            _mm256_storeu_ps(b + c + 16, x2);
            _mm256_storeu_ps(b + c + 24, x3);
        }
        for (; c + 8 <= cols; c += 8)
            _mm256_storeu_ps(b + c, _mm256_loadu_ps(a + c));
    }
    if (c < cols) {
        const __m256i mask = first_lanes(cols - c);
        __m256 x = _mm256_maskload_ps(a + c, mask);
        _mm256_maskstore_ps(b + c, mask, relu ? relu8(x) : x);
    }
}

static void zero_row(int64_t cols, float *b)
{
    const __m256 z = _mm256_setzero_ps();
    int64_t c = 0;
    for (; c + 32 <= cols; c += 32) {
        _mm256_storeu_ps(b + c, z);
        _mm256_storeu_ps(b + c + 8, z);
        _mm256_storeu_ps(b + c + 16, z);
        _mm256_storeu_ps(b + c + 24, z);
    }
    for (; c + 8 <= cols; c += 8)
        _mm256_storeu_ps(b + c, z);
    if (c < cols)
        _mm256_maskstore_ps(b + c, first_lanes(cols - c), z);
}

void unary_copy_avx2(unary_op op, int64_t rows, int64_t cols, const float *A, int64_t lda, float *B, int64_t ldb)
{
    for (int64_t r = 0; r < rows; r++) {
        if (op == UNARY_ZERO)
            zero_row(cols, B + r * ldb);
        else
            copy_row(op == UNARY_RELU, cols, A + r * lda, B + r * ldb);
    }
}

/* out[k] lane i = op(a[i * lda + k]) for i, k < 8. */
static inline void tile8(int relu, const float *a, int64_t lda, __m256 out[8])
{
    __m256 r0 = _mm256_loadu_ps(a), r1 = _mm256_loadu_ps(a + lda);
    __m256 r2 = _mm256_loadu_ps(a + 2 * lda), r3 = _mm256_loadu_ps(a + 3 * lda);
    __m256 r4 = _mm256_loadu_ps(a + 4 * lda), r5 = _mm256_loadu_ps(a + 5 * lda);
    __m256 r6 = _mm256_loadu_ps(a + 6 * lda), r7 = _mm256_loadu_ps(a + 7 * lda);
    if (relu) {
        r0 = relu8(r0), r1 = relu8(r1), r2 = relu8(r2), r3 = relu8(r3);
        r4 = relu8(r4), r5 = relu8(r5), r6 = relu8(r6), r7 = relu8(r7);
    }
    /* per 128-bit lane L: t0 = r0[4L], r1[4L], r0[4L+1], r1[4L+1]; t1 the same for 4L+2, 4L+3 */
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    const __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    /* u_k (k < 4), lane L: column 4L + k of rows 0-3; u_{4+k}: of rows 4-7 */
    const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    /* column k = low lanes of u_k and u_{4+k}; column 4 + k = their high lanes */
    out[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
    out[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
    out[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
    out[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
    out[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
    out[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
    out[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
    out[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

static void edge(int relu, int64_t r0, int64_t r1, int64_t c0, int64_t c1, const float *A, int64_t lda, float *B,
                 int64_t ldb)
{
    for (int64_t r = r0; r < r1; r++)
        for (int64_t c = c0; c < c1; c++) {
            const float x = A[c * lda + r];
            B[r * ldb + c] = relu ? relu1(x) : x;
        }
}

/*
 * Column-of-B order as in the AVX-512 kernel: 16 lines of A (two 8 x 8 tiles
 * side by side) are read as streams and each row of B gets one 64-byte run,
 * written with two non-temporal stores into the same line when asked and
 * aligned (B 64-byte aligned, ldb a multiple of 16).
 */
void unary_transpose_avx2(unary_op op, int64_t rows, int64_t cols, const float *A, int64_t lda, float *B, int64_t ldb,
                          int stream)
{
    const int relu = op == UNARY_RELU;
    stream = stream && ((uintptr_t)B & 63) == 0 && (ldb & 15) == 0;
    const int64_t rf = rows & ~INT64_C(7), cf = cols & ~INT64_C(7);
    __m256 lo[8], hi[8];
    int64_t c = 0;
    for (; c + 16 <= cf; c += 16)
        for (int64_t r = 0; r < rf; r += 8) {
            tile8(relu, A + c * lda + r, lda, lo);
            tile8(relu, A + (c + 8) * lda + r, lda, hi);
            float *b = B + r * ldb + c;
            if (stream)
                for (int k = 0; k < 8; k++) {
                    _mm256_stream_ps(b + k * ldb, lo[k]);
                    _mm256_stream_ps(b + k * ldb + 8, hi[k]);
                }
            else
                for (int k = 0; k < 8; k++) {
                    _mm256_storeu_ps(b + k * ldb, lo[k]);
                    _mm256_storeu_ps(b + k * ldb + 8, hi[k]);
                }
        }
    for (; c < cf; c += 8)
        for (int64_t r = 0; r < rf; r += 8) {
            tile8(relu, A + c * lda + r, lda, lo);
            for (int k = 0; k < 8; k++)
                _mm256_storeu_ps(B + (r + k) * ldb + c, lo[k]);
        }
    if (stream)
        _mm_sfence(); /* the non-temporal stores are visible before the caller's next store */
    if (cf < cols)
        edge(relu, 0, rows, cf, cols, A, lda, B, ldb);
    if (rf < rows)
        edge(relu, rf, rows, 0, cf, A, lda, B, ldb);
}
