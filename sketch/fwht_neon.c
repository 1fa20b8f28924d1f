/*
 * fwht_neon.c - AArch64 Advanced SIMD FWHT (see hd_rotation.h for the
 * butterflies every kernel must perform).
 *
 * Pass 1 works on blocks of up to 16 registers (64 floats): the optional sign
 * flip is applied as the block is loaded, stages h = 1, 2 run inside each
 * register (a lane permute brings the partner into place; the lower lane gets
 * partner + own = a + b, the upper lane partner - own = a - b, as one fused
 * multiply-add by +-1 whose product is exact: the same IEEE results as the
 * scalar butterfly), stages h = 4 .. 32 between
 * the registers. Each later pass does up to four more stages (16 registers h0
 * apart) per trip through memory; fwht_plan.h plans the passes. Same
 * additions, same stage order per value as fwht_scalar: bit-identical results.
 */
#include <arm_neon.h>
#include <stddef.h>

#include "sketch/fwht_plan.h"
#include "sketch/hd_rotation.h"

/* Registers per pass at most (fwht_plan.h). */
#define MAX_REGS 16
#define LANES 4

static inline float32x4_t load_flipped(const float *p, const uint32_t *flip)
{
    float32x4_t v = vld1q_f32(p);
    if (flip)
        v = vreinterpretq_f32_u32(veorq_u32(vreinterpretq_u32_f32(v), vld1q_u32(flip)));
    return v;
}

/* p + v * (+-1) fused: the exact product makes it the correctly rounded p + v or p - v, as the scalar butterfly. */
static inline float32x4_t stage_in(float32x4_t v, float32x4_t p, float32x4_t sgn)
{
    return vfmaq_f32(p, v, sgn);
}

static inline void butterfly(float32x4_t *a, float32x4_t *b)
{
    const float32x4_t x = *a, y = *b;
    *a = vaddq_f32(x, y);
    *b = vsubq_f32(x, y);
}

/* The butterflies of one stage between registers m apart. */
static inline __attribute__((always_inline)) void cross_stage(float32x4_t *r, const int R, const int m)
{
#pragma GCC unroll 16
    for (int k = 0; k < R; k++)
        if ((k & m) == 0)
            butterfly(&r[k], &r[k + m]);
}

/* Stages m = 1, 2, .. < R between the registers. */
static inline __attribute__((always_inline)) void cross_stages(float32x4_t *r, const int R)
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
    static const float sgn1[4] = { 1.0f, -1.0f, 1.0f, -1.0f };
    static const float sgn2[4] = { 1.0f, 1.0f, -1.0f, -1.0f };
    const float32x4_t n1 = vld1q_f32(sgn1), n2 = vld1q_f32(sgn2);
    for (int64_t base = 0; base < D; base += (int64_t)R * LANES) {
        float32x4_t r[MAX_REGS];
        for (int k = 0; k < R; k++) {
            float32x4_t x = load_flipped(v + base + k * LANES, flip ? flip + base + k * LANES : NULL);
            x = stage_in(x, vrev64q_f32(x), n1);      /* lanes (1,0,3,2) */
            r[k] = stage_in(x, vextq_f32(x, x, 2), n2); /* lanes (2,3,0,1) */
        }
        cross_stages(r, R);
#pragma GCC unroll 16
        for (int k = 0; k < R; k++)
            vst1q_f32(v + base + k * LANES, r[k]);
    }
}

static inline __attribute__((always_inline)) void pass_later(float *v, int64_t D, int64_t h0, const int R)
{
    const int64_t span = h0 * R;
    for (int64_t base = 0; base < D; base += span)
        for (int64_t c = base; c < base + h0; c += LANES) {
            float32x4_t r[MAX_REGS];
#pragma GCC unroll 16
            for (int k = 0; k < R; k++)
                r[k] = vld1q_f32(v + c + k * h0);
            cross_stages(r, R);
#pragma GCC unroll 16
            for (int k = 0; k < R; k++)
                vst1q_f32(v + c + k * h0, r[k]);
        }
}

void fwht_flip_neon(float *v, const uint32_t *flip, int64_t D)
{
    if (D < LANES) {
        fwht_flip_scalar(v, flip, D);
        return;
    }
    FWHT_RUN_PASSES(v, flip, D, LANES, MAX_REGS);
}

void sign_pack_neon(const float *y, int64_t count, uint64_t *words)
{
    static const uint32_t weights[4] = { 1, 2, 4, 8 };
    const uint32x4_t wt = vld1q_u32(weights);
    const float32x4_t zero = vdupq_n_f32(0.0f);
    int64_t w0 = 0;
    for (; w0 + 64 <= count; w0 += 64) {
        uint64_t word = 0;
        for (int k = 0; k < 16; k++) {
            const uint32x4_t gt = vcgtq_f32(vld1q_f32(y + w0 + 4 * k), zero);
            word |= (uint64_t)vaddvq_u32(vandq_u32(gt, wt)) << (4 * k);
        }
        words[w0 / 64] = word;
    }
    if (w0 < count)
        sign_pack_scalar(y + w0, count - w0, words + w0 / 64);
}
