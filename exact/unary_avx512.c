/*
 * unary_avx512.c - the unary kernels of unary.c with AVX-512: copies in
 * 64-float steps with a masked tail, transposes in 16 x 16 register tiles
 * (unpack, shuffle, two rounds of 128-bit lane shuffles); edge tiles use the
 * same tile with masked loads and stores; large transposes write B with
 * non-temporal stores.
 * ReLU is _mm512_max_ps(0, x): the second operand is returned when either is
 * NaN and when both are zero, so NaN propagates and -0 stays -0, as in the
 * scalar twin (unary_scalar.c).
 */
#include <immintrin.h>
#include <stdint.h>

#include "exact/unary_kernels.h"

static inline __m512 relu16(__m512 x)
{
    return _mm512_max_ps(_mm512_setzero_ps(), x);
}

/* Mask of the first n (0..16) lanes. */
static inline __mmask16 first_lanes(int64_t n)
{
    return (__mmask16)((1u << n) - 1u);
}

static void copy_row(int relu, int64_t cols, const float *a, float *b)
{
    int64_t c = 0;
    if (relu) {
        for (; c + 64 <= cols; c += 64) {
            __m512 x0 = _mm512_loadu_ps(a + c), x1 = _mm512_loadu_ps(a + c + 16);
            __m512 x2 = _mm512_loadu_ps(a + c + 32), x3 = _mm512_loadu_ps(a + c + 48);
            _mm512_storeu_ps(b + c, relu16(x0));
            _mm512_storeu_ps(b + c + 16, relu16(x1));
            _mm512_storeu_ps(b + c + 32, relu16(x2));
            _mm512_storeu_ps(b + c + 48, relu16(x3));
        }
        for (; c + 16 <= cols; c += 16)
            _mm512_storeu_ps(b + c, relu16(_mm512_loadu_ps(a + c)));
    } else {
        for (; c + 64 <= cols; c += 64) {
            __m512 x0 = _mm512_loadu_ps(a + c), x1 = _mm512_loadu_ps(a + c + 16);
            __m512 x2 = _mm512_loadu_ps(a + c + 32), x3 = _mm512_loadu_ps(a + c + 48);
            _mm512_storeu_ps(b + c, x0);
            _mm512_storeu_ps(b + c + 16, x1);
            _mm512_storeu_ps(b + c + 32, x2);
            _mm512_storeu_ps(b + c + 48, x3);
        }
        for (; c + 16 <= cols; c += 16)
            _mm512_storeu_ps(b + c, _mm512_loadu_ps(a + c));
    }
    if (c < cols) {
        const __mmask16 mask = first_lanes(cols - c);
        __m512 x = _mm512_maskz_loadu_ps(mask, a + c);
        _mm512_mask_storeu_ps(b + c, mask, relu ? relu16(x) : x);
    }
}

static void zero_row(int64_t cols, float *b)
{
    const __m512 z = _mm512_setzero_ps();
    int64_t c = 0;
    for (; c + 64 <= cols; c += 64) {
        _mm512_storeu_ps(b + c, z);
        _mm512_storeu_ps(b + c + 16, z);
        _mm512_storeu_ps(b + c + 32, z);
        _mm512_storeu_ps(b + c + 48, z);
    }
    for (; c + 16 <= cols; c += 16)
        _mm512_storeu_ps(b + c, z);
    if (c < cols)
        _mm512_mask_storeu_ps(b + c, first_lanes(cols - c), z);
}

void unary_copy_avx512(unary_op op, int64_t rows, int64_t cols, const float *A, int64_t lda, float *B, int64_t ldb)
{
    for (int64_t r = 0; r < rows; r++) {
        if (op == UNARY_ZERO)
            zero_row(cols, B + r * ldb);
        else
            copy_row(op == UNARY_RELU, cols, A + r * lda, B + r * ldb);
    }
}

/*
 * b[k * ldb + i] = op(a[i * lda + k]) for i < ni, k < nk (1 <= ni, nk <= 16):
 * rows i >= ni of the tile are not read (zero), lanes k >= nk are masked off
 * on load, and only the first ni lanes of the first nk output rows are stored.
 * stream: full tiles go out with non-temporal stores (b and ldb must keep
 * every output row 64-byte aligned).
 */
static inline void tile16(int relu, int stream, int ni, int nk, const float *a, int64_t lda, float *b, int64_t ldb)
{
    __m512 r[16];
    if (ni == 16 && nk == 16) {
        for (int i = 0; i < 16; i++)
            r[i] = _mm512_loadu_ps(a + i * lda);
    } else {
        const __mmask16 mk = first_lanes(nk);
        for (int i = 0; i < 16; i++)
            r[i] = i < ni ? _mm512_maskz_loadu_ps(mk, a + i * lda) : _mm512_setzero_ps();
    }
    if (relu)
        for (int i = 0; i < 16; i++)
            r[i] = relu16(r[i]);
    /* per 128-bit lane L: t[2g] = r[2g][4L], r[2g+1][4L], r[2g][4L+1], r[2g+1][4L+1]; t[2g+1] for 4L+2, 4L+3 */
    __m512 t[16], u[16], v[16];
    for (int g = 0; g < 8; g++) {
        t[2 * g] = _mm512_unpacklo_ps(r[2 * g], r[2 * g + 1]);
        t[2 * g + 1] = _mm512_unpackhi_ps(r[2 * g], r[2 * g + 1]);
    }
    /* u[4g + k], lane L: column 4L + k of rows 4g .. 4g + 3 */
    for (int g = 0; g < 4; g++) {
        u[4 * g] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0x44);
        u[4 * g + 1] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0xEE);
        u[4 * g + 2] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0x44);
        u[4 * g + 3] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0xEE);
    }
    /* v[k] = lanes 0, 2 of u[k] and of u[4 + k]; v[4 + k] = lanes 1, 3 (rows 0-7); v[8 + ..]: rows 8-15 */
    for (int k = 0; k < 4; k++) {
        v[k] = _mm512_shuffle_f32x4(u[k], u[4 + k], 0x88);
        v[4 + k] = _mm512_shuffle_f32x4(u[k], u[4 + k], 0xDD);
        v[8 + k] = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0x88);
        v[12 + k] = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0xDD);
    }
    /* column k: lanes 0 of v[k], v[8 + k] ... ; column 8 + k: lanes 2; 4 + k and 12 + k from v[4 + k], v[12 + k] */
    __m512 col[16];
    for (int k = 0; k < 4; k++) {
        col[k] = _mm512_shuffle_f32x4(v[k], v[8 + k], 0x88);
        col[8 + k] = _mm512_shuffle_f32x4(v[k], v[8 + k], 0xDD);
        col[4 + k] = _mm512_shuffle_f32x4(v[4 + k], v[12 + k], 0x88);
        col[12 + k] = _mm512_shuffle_f32x4(v[4 + k], v[12 + k], 0xDD);
    }
    if (ni == 16 && nk == 16 && stream) {
        for (int k = 0; k < 16; k++)
            _mm512_stream_ps(b + k * ldb, col[k]);
    } else if (ni == 16 && nk == 16) {
        for (int k = 0; k < 16; k++)
            _mm512_storeu_ps(b + k * ldb, col[k]);
    } else {
        const __mmask16 mi = first_lanes(ni);
        for (int k = 0; k < nk; k++)
            _mm512_mask_storeu_ps(b + k * ldb, mi, col[k]);
    }
}

/*
 * A full 16 x 16 tile with half the shuffles of tile16: each register is
 * assembled from four 128-bit loads (rows i, i + 4, i + 8, i + 12 of one
 * group of 4 columns; the inserts can issue on a port other than the shuffle
 * port), which leaves a 4 x 4 transpose inside every 128-bit lane:
 * x[i] lane L = a[(i + 4L) * lda + 4q .. 4q + 3], and after the 4 x 4
 * transpose col[k] lane L = a[(4L + 0..3) * lda + 4q + k] = output row 4q + k.
 */
static inline void tile16_full(int relu, int stream, const float *a, int64_t lda, float *b, int64_t ldb)
{
    for (int q = 0; q < 4; q++) {
        __m512 x[4];
        for (int i = 0; i < 4; i++) {
            const float *p = a + i * lda + 4 * q;
            __m512 v = _mm512_castps128_ps512(_mm_loadu_ps(p));
            v = _mm512_insertf32x4(v, _mm_loadu_ps(p + 4 * lda), 1);
            v = _mm512_insertf32x4(v, _mm_loadu_ps(p + 8 * lda), 2);
            v = _mm512_insertf32x4(v, _mm_loadu_ps(p + 12 * lda), 3);
            x[i] = relu ? relu16(v) : v;
        }
        const __m512 t0 = _mm512_unpacklo_ps(x[0], x[1]), t1 = _mm512_unpackhi_ps(x[0], x[1]);
        const __m512 t2 = _mm512_unpacklo_ps(x[2], x[3]), t3 = _mm512_unpackhi_ps(x[2], x[3]);
        __m512 col[4];
        col[0] = _mm512_shuffle_ps(t0, t2, 0x44);
        col[1] = _mm512_shuffle_ps(t0, t2, 0xEE);
        col[2] = _mm512_shuffle_ps(t1, t3, 0x44);
        col[3] = _mm512_shuffle_ps(t1, t3, 0xEE);
        float *o = b + 4 * q * ldb;
        if (stream)
            for (int k = 0; k < 4; k++)
                _mm512_stream_ps(o + k * ldb, col[k]);
        else
            for (int k = 0; k < 4; k++)
                _mm512_storeu_ps(o + k * ldb, col[k]);
    }
}

/*
 * Tiles in column-of-B order: the 16 lines of A under one column of tiles are
 * read front to back as sequential streams. Non-temporal stores only when
 * asked and when every tile row of B is 64-byte aligned (B and ldb), so that
 * each store fills one whole cache line.
 */
void unary_transpose_avx512(unary_op op, int64_t rows, int64_t cols, const float *A, int64_t lda, float *B,
                            int64_t ldb, int stream)
{
    const int relu = op == UNARY_RELU;
    stream = stream && ((uintptr_t)B & 63) == 0 && (ldb & 15) == 0;
    for (int64_t c = 0; c < cols; c += 16) {
        const int ni = cols - c < 16 ? (int)(cols - c) : 16;
        for (int64_t r = 0; r < rows; r += 16) {
            const int nk = rows - r < 16 ? (int)(rows - r) : 16;
            if (ni == 16 && nk == 16)
                tile16_full(relu, stream, A + c * lda + r, lda, B + r * ldb + c, ldb);
            else
                tile16(relu, stream, ni, nk, A + c * lda + r, lda, B + r * ldb + c, ldb);
        }
    }
    if (stream)
        _mm_sfence(); /* the non-temporal stores are visible before the caller's next store */
}
