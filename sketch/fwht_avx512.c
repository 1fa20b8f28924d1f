/*
 * fwht_avx512.c - AVX-512 FWHT (see hd_rotation.h for the butterflies every
 * kernel must perform).
 *
 * Pass 1 works on blocks of up to 16 registers (256 floats): the optional
 * sign flip is applied as the block is loaded, stages h = 1, 2, 4, 8 run
 * inside each register (a lane permute brings the partner into place; the
 * lower lane gets partner + own = a + b, the upper lane partner - own =
 * a - b, as one fused multiply-add by +-1 whose product is exact: the same
 * IEEE results as the scalar butterfly), stages
 * h = 16 .. 128 between the registers. Each later pass does up to four more
 * stages (16 registers h0 apart) per trip through memory (fwht_plan.h plans
 * the passes). Every value goes
 * through the same additions in the same stage order as in fwht_scalar, so
 * the result is bit-identical; only the schedule differs.
 */
#include <immintrin.h>
#include <stddef.h>

#include "sketch/fwht_plan.h"
#include "sketch/hd_rotation.h"

/* Registers per pass at most (fwht_plan.h). */
#define MAX_REGS 16
#define LANES 16

static inline __m512 load_flipped(const float *p, const uint32_t *flip)
{
    __m512 v = _mm512_loadu_ps(p);
    if (flip)
        v = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(v), _mm512_loadu_si512(flip)));
    return v;
}

/*
 * One in-register stage: partner p (lane l ^ h), sgn = +1 in lower lanes and
 * -1 in upper ones. fma(v, sgn, p) rounds the exact p + (+-v) once: the
 * product is exact, so this is the correctly rounded p + v or p - v, the
 * very value of the scalar butterfly's a + b or a - b.
 */
static inline __m512 stage_in(__m512 v, __m512 p, __m512 sgn)
{
    return _mm512_fmadd_ps(v, sgn, p);
}

/* Stages h = 1, 2, 4, 8 on 16 consecutive elements. */
static inline __m512 stages_1_to_8(__m512 v, const __m512 neg[4])
{
    v = stage_in(v, _mm512_permute_ps(v, 0xB1), neg[0]);           /* lanes (1,0,3,2) */
    v = stage_in(v, _mm512_permute_ps(v, 0x4E), neg[1]);           /* lanes (2,3,0,1) */
    v = stage_in(v, _mm512_shuffle_f32x4(v, v, 0xB1), neg[2]);     /* 128-bit blocks (1,0,3,2) */
    return stage_in(v, _mm512_shuffle_f32x4(v, v, 0x4E), neg[3]);  /* 256-bit halves swapped */
}

static inline void butterfly(__m512 *a, __m512 *b)
{
    const __m512 x = *a, y = *b;
    *a = _mm512_add_ps(x, y);
    *b = _mm512_sub_ps(x, y);
}

/* The butterflies of one stage between registers r[k] and r[k + m]. */
static inline __attribute__((always_inline)) void cross_stage(__m512 *r, const int R, const int m)
{
#pragma GCC unroll 16
    for (int k = 0; k < R; k++)
        if ((k & m) == 0)
            butterfly(&r[k], &r[k + m]);
}

/* Stages m = 1, 2, .. < R between the registers. */
static inline __attribute__((always_inline)) void cross_stages(__m512 *r, const int R)
{
    if (R > 1)
        cross_stage(r, R, 1);
    if (R > 2)
        cross_stage(r, R, 2);
    if (R > 4)
        cross_stage(r, R, 4);
    if (R > 8)
        cross_stage(r, R, 8);
}

/* Pass 1 on every block of R registers: flip, stages 1 .. 16 R / 2. */
static inline __attribute__((always_inline)) void pass_first(float *v, const uint32_t *flip, int64_t D, const int R)
{
    const float m = -1.0f, o = 1.0f;
    const __m512 neg[4] = { /* _mm512_set_ps lists lanes 15 .. 0 */
        _mm512_set_ps(m, o, m, o, m, o, m, o, m, o, m, o, m, o, m, o),
        _mm512_set_ps(m, m, o, o, m, m, o, o, m, m, o, o, m, m, o, o),
        _mm512_set_ps(m, m, m, m, o, o, o, o, m, m, m, m, o, o, o, o),
        _mm512_set_ps(m, m, m, m, m, m, m, m, o, o, o, o, o, o, o, o),
    };
    for (int64_t base = 0; base < D; base += (int64_t)R * LANES) {
        __m512 r[MAX_REGS];
#pragma GCC unroll 16
        for (int k = 0; k < R; k++)
            r[k] = stages_1_to_8(load_flipped(v + base + k * LANES, flip ? flip + base + k * LANES : NULL), neg);
        cross_stages(r, R);
#pragma GCC unroll 16
        for (int k = 0; k < R; k++)
            _mm512_storeu_ps(v + base + k * LANES, r[k]);
    }
}

/* Stages h0, 2 h0, .., h0 R / 2 (h0 >= 16): R registers h0 apart per trip. */
static inline __attribute__((always_inline)) void pass_later(float *v, int64_t D, int64_t h0, const int R)
{
    const int64_t span = h0 * R;
    for (int64_t base = 0; base < D; base += span)
        for (int64_t c = base; c < base + h0; c += LANES) {
            __m512 r[MAX_REGS];
#pragma GCC unroll 16
            for (int k = 0; k < R; k++)
                r[k] = _mm512_loadu_ps(v + c + k * h0);
            cross_stages(r, R);
#pragma GCC unroll 16
            for (int k = 0; k < R; k++)
                _mm512_storeu_ps(v + c + k * h0, r[k]);
        }
}

void fwht_flip_avx512(float *v, const uint32_t *flip, int64_t D)
{
    if (D < LANES) {
        fwht_flip_scalar(v, flip, D);
        return;
    }
    FWHT_RUN_PASSES(v, flip, D, LANES, MAX_REGS);
}

void sign_pack_avx512(const float *y, int64_t count, uint64_t *words)
{
    const __m512 zero = _mm512_setzero_ps();
    int64_t w0 = 0;
    for (; w0 + 64 <= count; w0 += 64) {
        const uint64_t m0 = _mm512_cmp_ps_mask(_mm512_loadu_ps(y + w0), zero, _CMP_GT_OQ);
        const uint64_t m1 = _mm512_cmp_ps_mask(_mm512_loadu_ps(y + w0 + 16), zero, _CMP_GT_OQ);
        const uint64_t m2 = _mm512_cmp_ps_mask(_mm512_loadu_ps(y + w0 + 32), zero, _CMP_GT_OQ);
        const uint64_t m3 = _mm512_cmp_ps_mask(_mm512_loadu_ps(y + w0 + 48), zero, _CMP_GT_OQ);
        words[w0 / 64] = m0 | m1 << 16 | m2 << 32 | m3 << 48;
    }
    if (w0 < count)
        sign_pack_scalar(y + w0, count - w0, words + w0 / 64);
}
