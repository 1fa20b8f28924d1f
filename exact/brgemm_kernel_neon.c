/*
 * brgemm_kernel_neon.c - the Advanced SIMD (NEON) BRGEMM tile kernels
 * (contract in brgemm_kernels.h): blocks of up to 4 x 4 = 16 rows by NB
 * columns of C, at most 24 accumulators in q registers (32 in all).
 *
 * Per step p: MV loads of a column of A_i (the last one, when the block's
 * rows leave it partly empty, is read lane by lane into zeros), then per
 * column one broadcast load (ld1r) of B_i(p, j) and MV fused multiply-adds
 * (vfmaq_f32). A partial last vector of C is read and written lane by lane.
 */
#include <arm_neon.h>
#include <stddef.h>

#include "brgemm_kernels.h"
#include "brgemm_tile_table.h"

#define VL BRGEMM_NEON_VL
#define NB_MAX_1 BRGEMM_NEON_NB_MAX_1

/* The first `live` (1..4) floats of p, zeros after them. */
static inline float32x4_t load_part(const float *p, int live)
{
    if (live == 4)
        return vld1q_f32(p);
    float32x4_t x = vdupq_n_f32(0.0f);
    x = vld1q_lane_f32(p, x, 0);
    if (live > 1)
        x = vld1q_lane_f32(p + 1, x, 1);
    if (live > 2)
        x = vld1q_lane_f32(p + 2, x, 2);
    return x;
}

static inline void store_part(float *p, float32x4_t x, int live)
{
    if (live == 4) {
        vst1q_f32(p, x);
        return;
    }
    vst1q_lane_f32(p, x, 0);
    if (live > 1)
        vst1q_lane_f32(p + 1, x, 1);
    if (live > 2)
        vst1q_lane_f32(p + 2, x, 2);
}

/* One block; FULL (compile-time): the rows fill the last vector, whose loads and stores are then whole. */
static inline __attribute__((always_inline)) void tile_rows(const int kind, const int mv, const int nb,
                                                            const int full, const brgemm_args *g, int rows,
                                                            const brgemm_batch *bt, float *C)
{
    const int live = full ? VL : rows - VL * (mv - 1);
    const int64_t k = g->k, lda = g->lda, ldb = g->ldb, batch = bt->batch;
    float32x4_t acc[BRGEMM_MAX_MV][NB_MAX_1];
#pragma GCC unroll 16
    for (int j = 0; j < nb; j++)
#pragma GCC unroll 4
        for (int v = 0; v < mv; v++)
            acc[v][j] = vdupq_n_f32(0.0f);

    for (int64_t i = 0; i < batch; i++) {
        const float *a = kind == BRGEMM_KIND_POINTERS ? bt->ap[i] + bt->a_off : bt->a + i * g->stride_a;
        const float *b = kind == BRGEMM_KIND_POINTERS ? bt->bp[i] + bt->b_off : bt->b + i * g->stride_b;
        for (int64_t p = 0; p < k; p++, a += lda, b += 1) {
            float32x4_t av[BRGEMM_MAX_MV];
#pragma GCC unroll 4
            for (int v = 0; v < mv; v++)
                av[v] = v == mv - 1 ? load_part(a + VL * v, live) : vld1q_f32(a + VL * v);
#pragma GCC unroll 16
            for (int j = 0; j < nb; j++) {
                const float32x4_t bj = vld1q_dup_f32(b + j * ldb);
#pragma GCC unroll 4
                for (int v = 0; v < mv; v++)
                    acc[v][j] = vfmaq_f32(acc[v][j], av[v], bj);
            }
        }
    }

    const float alpha = g->alpha, beta = g->beta;
#pragma GCC unroll 16
    for (int j = 0; j < nb; j++) {
        float *c = C + j * g->ldc;
#pragma GCC unroll 4
        for (int v = 0; v < mv; v++) {
            const int n = v == mv - 1 ? live : VL;
            float32x4_t r = vmulq_n_f32(acc[v][j], alpha);
            if (beta != 0.0f)
                r = vfmaq_n_f32(r, load_part(c + VL * v, n), beta);
            store_part(c + VL * v, r, n);
        }
    }
}

BRGEMM_TILE_BY_FULL(VL)

/* One instance per (kind, MV, NB) to the bounds of brgemm_kernels.h, and the table brgemm_tile_neon reads. */
#define TILES_KIND(K) BRGEMM_TILES_16(K, 1) BRGEMM_TILES_12(K, 2) BRGEMM_TILES_8(K, 3) BRGEMM_TILES_6(K, 4)
TILES_KIND(0)
TILES_KIND(1)

#define KIND_TABLE(K) { { BRGEMM_ROW_16(K, 1) }, { BRGEMM_ROW_12(K, 2) }, { BRGEMM_ROW_8(K, 3) }, { BRGEMM_ROW_6(K, 4) } }
static const brgemm_tile_fn tiles[2][BRGEMM_MAX_MV][NB_MAX_1] = { KIND_TABLE(0), KIND_TABLE(1) };

brgemm_tile_fn brgemm_tile_neon(int kind, int mv, int nb)
{
    return tiles[kind][mv - 1][nb - 1];
}
