/*
 * brgemm_kernel_avx512.c - the AVX-512F BRGEMM tile kernels (contract in
 * brgemm_kernels.h): blocks of up to 4 x 16 = 64 rows by NB columns of C,
 * MV * NB <= 24 accumulators in zmm registers.
 *
 * Per step p of the k loop: MV vector loads of a column of A_i (the last one
 * masked to the block's rows), then for each of the NB columns one broadcast
 * of B_i(p, j) and MV fused multiply-adds. The NB columns of B_i are reached
 * from bases three columns apart with offsets 0, ldb and 2 * ldb (an index
 * register scaled by 4 or 8), so no block needs more general registers than
 * x86-64 has. Every (kind, MV, NB) is its own instance with the loops fully
 * unrolled: that is this library's stand-in for libxsmm's code generator.
 */
#include <immintrin.h>

#include "brgemm_kernels.h"
#include "brgemm_tile_table.h"

#define VL 16
#define NB_MAX_1 24
#define NB_MAX_2 12
#define NB_MAX_3 8
#define NB_MAX_4 6
#define BASES ((NB_MAX_1 + 2) / 3)

static inline __attribute__((always_inline)) void
tile(const int kind, const int mv, const int nb, const brgemm_args *g, int rows, const brgemm_batch *bt,
     float *C)
{
    const __mmask16 last = (__mmask16)((1u << (rows - VL * (mv - 1))) - 1u);
    const int64_t k = g->k, lda = g->lda, ldb = g->ldb, batch = bt->batch;
    __m512 acc[BRGEMM_MAX_MV][NB_MAX_1];
#pragma GCC unroll 24
    for (int j = 0; j < nb; j++)
#pragma GCC unroll 4
        for (int v = 0; v < mv; v++)
            acc[v][j] = _mm512_setzero_ps();

    for (int64_t i = 0; i < batch; i++) {
        const float *a = kind == BRGEMM_KIND_POINTERS ? bt->ap[i] + bt->a_off : bt->a + i * g->stride_a;
        const float *b = kind == BRGEMM_KIND_POINTERS ? bt->bp[i] + bt->b_off : bt->b + i * g->stride_b;
        const float *base[BASES];
#pragma GCC unroll 8
        for (int q = 0; q < (nb + 2) / 3; q++)
            base[q] = b + 3 * q * ldb;
#pragma GCC unroll 2
        for (int64_t p = 0; p < k; p++) {
            __m512 av[BRGEMM_MAX_MV];
#pragma GCC unroll 4
            for (int v = 0; v < mv; v++)
                av[v] = v == mv - 1 ? _mm512_maskz_loadu_ps(last, a + VL * v) : _mm512_loadu_ps(a + VL * v);
#pragma GCC unroll 24
            for (int j = 0; j < nb; j++) {
                const __m512 bj = _mm512_set1_ps(base[j / 3][(j % 3) * ldb]);
#pragma GCC unroll 4
                for (int v = 0; v < mv; v++)
                    acc[v][j] = _mm512_fmadd_ps(av[v], bj, acc[v][j]);
            }
            a += lda;
#pragma GCC unroll 8
            for (int q = 0; q < (nb + 2) / 3; q++)
                base[q] += 1;
        }
    }

    const float alpha = g->alpha, beta = g->beta;
    const __m512 valpha = _mm512_set1_ps(alpha), vbeta = _mm512_set1_ps(beta);
#pragma GCC unroll 24
    for (int j = 0; j < nb; j++) {
        float *c = C + j * g->ldc;
#pragma GCC unroll 4
        for (int v = 0; v < mv; v++) {
            const __mmask16 m = v == mv - 1 ? last : (__mmask16)0xFFFF;
            /* alpha == 1 and beta == 1 skip an exact multiplication by one */
            __m512 r = alpha == 1.0f ? acc[v][j] : _mm512_mul_ps(valpha, acc[v][j]);
            if (beta == 1.0f)
                r = _mm512_add_ps(_mm512_maskz_loadu_ps(m, c + VL * v), r);
            else if (beta != 0.0f)
                r = _mm512_fmadd_ps(vbeta, _mm512_maskz_loadu_ps(m, c + VL * v), r);
            _mm512_mask_storeu_ps(c + VL * v, m, r);
        }
    }
}

/* One instance per (kind, MV, NB), and the table tile_for reads them from. */
#define TILES_KIND(K) BRGEMM_TILES_24(K, 1) BRGEMM_TILES_12(K, 2) BRGEMM_TILES_8(K, 3) BRGEMM_TILES_6(K, 4)
TILES_KIND(0)
TILES_KIND(1)

#define KIND_TABLE(K) { { BRGEMM_ROW_24(K, 1) }, { BRGEMM_ROW_12(K, 2) }, { BRGEMM_ROW_8(K, 3) }, { BRGEMM_ROW_6(K, 4) } }
static const brgemm_tile_fn tiles[2][BRGEMM_MAX_MV][NB_MAX_1] = { KIND_TABLE(0), KIND_TABLE(1) };

static brgemm_tile_fn tile_for(int kind, int mv, int nb)
{
    return tiles[kind][mv - 1][nb - 1];
}

const brgemm_kernel_set brgemm_kernels_avx512 = {
    "avx512", VL, 4, { NB_MAX_1, NB_MAX_2, NB_MAX_3, NB_MAX_4 }, tile_for
};
