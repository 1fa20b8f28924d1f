/*
 * sgemm_kernel_neon.c - the AArch64 Advanced SIMD (NEON) SGEMM
 * micro-kernels: 8 x 12, 12 x 8 and 16 x 4.
 *
 * Contract: sgemm_kernel_fn in sgemm_target.h. In scalar terms, for each
 * i < MR and j < NR:
 *
 *     ab = 0;  for p = 0 .. kc-1:  ab = fma(Ap[p*MR + i], Bp[p*NR + j], ab);
 *     C[i*ldc + j] = alpha*ab                     (beta == 0: C not read)
 *                  = fma(beta, C[i*ldc + j], alpha*ab)       (otherwise)
 *
 * Each shape is one instance of neon_tile below: per step, the A column is
 * loaded four rows to a q register and used lane by lane
 * (vfmaq_laneq_f32), the B row as NR / 4 q registers. Registers:
 * accumulators + A + B = 24 + 2 + 3 (8 x 12), 24 + 3 + 2 (12 x 8),
 * 16 + 4 + 1 (16 x 4), out of 32. Advanced SIMD is baseline on AArch64, so
 * no extra compile flags are needed.
 */
#include <arm_neon.h>

#include "sgemm_target.h"

/* c[0 .. 4 nv) := alpha*ab (beta_zero) or fma(beta, c, alpha*ab), ab given as nv vectors. */
static inline __attribute__((always_inline)) void neon_store_row(const int nv, float *c, const float32x4_t *ab,
                                                                 float alpha, float beta, int beta_zero)
{
#pragma GCC unroll 3
    for (int v = 0; v < nv; v++) {
        float32x4_t r = vmulq_n_f32(ab[v], alpha);
        if (!beta_zero)
            r = vfmaq_n_f32(r, vld1q_f32(c + 4 * v), beta);
        vst1q_f32(c + 4 * v, r);
    }
}

/* Rows r .. r+3 += (lane l of a) * b[v] for each of the nv B vectors (lanes as literals). */
static inline __attribute__((always_inline)) void neon_quad(const int nv, float32x4_t acc[][3], int r,
                                                            float32x4_t a, const float32x4_t *b)
{
#pragma GCC unroll 3
    for (int v = 0; v < nv; v++) {
        acc[r + 0][v] = vfmaq_laneq_f32(acc[r + 0][v], b[v], a, 0);
        acc[r + 1][v] = vfmaq_laneq_f32(acc[r + 1][v], b[v], a, 1);
        acc[r + 2][v] = vfmaq_laneq_f32(acc[r + 2][v], b[v], a, 2);
        acc[r + 3][v] = vfmaq_laneq_f32(acc[r + 3][v], b[v], a, 3);
    }
}

static inline __attribute__((always_inline)) void neon_tile(const int mr, const int nv, int64_t kc, float alpha,
                                                            const float *restrict Ap, const float *restrict Bp,
                                                            float beta, float *restrict C, int64_t ldc,
                                                            int64_t a_ahead)
{
    float32x4_t acc[16][3];
#pragma GCC unroll 16
    for (int i = 0; i < mr; i++)
#pragma GCC unroll 3
        for (int v = 0; v < nv; v++)
            acc[i][v] = vdupq_n_f32(0.0f);

    for (int64_t p = 0; p < kc; p++) {
        float32x4_t b[3];
#pragma GCC unroll 3
        for (int v = 0; v < nv; v++)
            b[v] = vld1q_f32(Bp + 4 * v);
        if (a_ahead > 0)
            __builtin_prefetch(Ap + a_ahead);
#pragma GCC unroll 4
        for (int q = 0; q < mr / 4; q++)
            neon_quad(nv, acc, 4 * q, vld1q_f32(Ap + 4 * q), b);
        Ap += mr;
        Bp += 4 * nv;
    }

    const int beta_zero = beta == 0.0f;
#pragma GCC unroll 16
    for (int i = 0; i < mr; i++)
        neon_store_row(nv, C + i * ldc, acc[i], alpha, beta, beta_zero);
}

void sgemm_kernel_neon_8x12(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                            float beta, float *restrict C, int64_t ldc, int64_t a_ahead)
{
    neon_tile(8, 3, kc, alpha, Ap, Bp, beta, C, ldc, a_ahead);
}

void sgemm_kernel_neon_12x8(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                            float beta, float *restrict C, int64_t ldc, int64_t a_ahead)
{
    neon_tile(12, 2, kc, alpha, Ap, Bp, beta, C, ldc, a_ahead);
}

void sgemm_kernel_neon_16x4(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                            float beta, float *restrict C, int64_t ldc, int64_t a_ahead)
{
    neon_tile(16, 1, kc, alpha, Ap, Bp, beta, C, ldc, a_ahead);
}
