/*
 * fwht_avx2.c - AVX2 FWHT (see hd_rotation.h for the butterflies every kernel
 * must perform).
 *
 * Pass 1 works on blocks of up to 8 registers (64 floats): the optional sign
 * flip is applied as the block is loaded, stages h = 1, 2, 4 run inside each
 * register (a permute brings the partner into place; the lower lane gets
 * partner + own = a + b, the upper lane partner - own = a - b, as one fused
 * multiply-add by +-1 whose product is exact: the same IEEE results as the
 * scalar butterfly), stages h = 8, 16, 32
 * between the registers. Each later pass does up to three more stages
 * (8 registers h0 apart) per trip through memory; fwht_plan.h plans the
 * passes. Same additions, same stage order per value as fwht_scalar:
 * bit-identical results.
 */
#include <immintrin.h>
#include <stddef.h>

#include "sketch/fwht_plan.h"
#include "sketch/hd_rotation.h"

/* Registers per pass at most (fwht_plan.h). */
#define MAX_REGS 8
#define LANES 8

static inline __m256 load_flipped(const float *p, const uint32_t *flip)
{
    __m256 v = _mm256_loadu_ps(p);
    if (flip)
        v = _mm256_xor_ps(v, _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)flip)));
    return v;
}

/* fma(v, +-1, p): the exact product makes it the correctly rounded p + v or p - v, as the scalar butterfly. */
static inline __m256 stage_in(__m256 v, __m256 p, __m256 sgn)
{
    return _mm256_fmadd_ps(v, sgn, p);
}

/* Stages h = 1, 2, 4 on 8 consecutive elements. */
static inline __m256 stages_1_to_4(__m256 v, const __m256 neg[3])
{
    v = stage_in(v, _mm256_permute_ps(v, 0xB1), neg[0]);             /* (1,0,3,2) */
    v = stage_in(v, _mm256_permute_ps(v, 0x4E), neg[1]);             /* (2,3,0,1) */
    return stage_in(v, _mm256_permute2f128_ps(v, v, 0x01), neg[2]);  /* halves swapped */
}

static inline void butterfly(__m256 *a, __m256 *b)
{
    const __m256 x = *a, y = *b;
    *a = _mm256_add_ps(x, y);
    *b = _mm256_sub_ps(x, y);
}

/* The butterflies of one stage between registers m apart. */
static inline __attribute__((always_inline)) void cross_stage(__m256 *r, const int R, const int m)
{
#pragma GCC unroll 16
    for (int k = 0; k < R; k++)
        if ((k & m) == 0)
            butterfly(&r[k], &r[k + m]);
}

/* Stages m = 1, 2, .. < R between the registers. */
static inline __attribute__((always_inline)) void cross_stages(__m256 *r, const int R)
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

static inline __attribute__((always_inline)) void pass_first(float *v, const uint32_t *flip, int64_t D, const int R)
{
    const float m = -1.0f, o = 1.0f;
    const __m256 neg[3] = { /* _mm256_set_ps lists lanes 7 .. 0 */
        _mm256_set_ps(m, o, m, o, m, o, m, o),
        _mm256_set_ps(m, m, o, o, m, m, o, o),
        _mm256_set_ps(m, m, m, m, o, o, o, o),
    };
    for (int64_t base = 0; base < D; base += (int64_t)R * LANES) {
        __m256 r[MAX_REGS];
#pragma GCC unroll 16
        for (int k = 0; k < R; k++)
            r[k] = stages_1_to_4(load_flipped(v + base + k * LANES, flip ? flip + base + k * LANES : NULL), neg);
        cross_stages(r, R);
#pragma GCC unroll 16
        for (int k = 0; k < R; k++)
            _mm256_storeu_ps(v + base + k * LANES, r[k]);
    }
}

static inline __attribute__((always_inline)) void pass_later(float *v, int64_t D, int64_t h0, const int R)
{
    const int64_t span = h0 * R;
    for (int64_t base = 0; base < D; base += span)
        for (int64_t c = base; c < base + h0; c += LANES) {
            __m256 r[MAX_REGS];
#pragma GCC unroll 16
            for (int k = 0; k < R; k++)
                r[k] = _mm256_loadu_ps(v + c + k * h0);
            cross_stages(r, R);
#pragma GCC unroll 16
            for (int k = 0; k < R; k++)
                _mm256_storeu_ps(v + c + k * h0, r[k]);
        }
}

void fwht_flip_avx2(float *v, const uint32_t *flip, int64_t D)
{
    if (D < LANES) {
        fwht_flip_scalar(v, flip, D);
        return;
    }
    FWHT_RUN_PASSES(v, flip, D, LANES, MAX_REGS);
}

void sign_pack_avx2(const float *y, int64_t count, uint64_t *words)
{
    const __m256 zero = _mm256_setzero_ps();
    int64_t w0 = 0;
    for (; w0 + 64 <= count; w0 += 64) {
        uint64_t word = 0;
        for (int k = 0; k < 8; k++) {
            const __m256 gt = _mm256_cmp_ps(_mm256_loadu_ps(y + w0 + 8 * k), zero, _CMP_GT_OQ);
            word |= (uint64_t)(uint32_t)_mm256_movemask_ps(gt) << (8 * k);
        }
        words[w0 / 64] = word;
    }
    if (w0 < count)
        sign_pack_scalar(y + w0, count - w0, words + w0 / 64);
}
