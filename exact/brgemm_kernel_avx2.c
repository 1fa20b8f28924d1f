/*
 * brgemm_kernel_avx2.c - the AVX2 + FMA BRGEMM tile kernels (contract in
 * brgemm_kernels.h): blocks of up to 2 x 8 = 16 rows by NB columns of C,
 * at most 12 accumulators in ymm registers (16 registers in all: the
 * accumulators, the column of A, one broadcast and the row mask).
 *
 * The loop is that of brgemm_kernel_avx512.c with 8-wide vectors: per step
 * p, MV loads of a column of A_i (the last one masked to the block's rows
 * with vmaskmovps when they do not fill it), then per column one broadcast
 * of B_i(p, j) and MV fused multiply-adds; B columns are reached from bases
 * three columns apart.
 * At k == 1 and batch 1, rank1 updates the whole C in one call, as on
 * AVX-512 (up to 4 vectors of A in registers, C streamed once).
 */
#include <immintrin.h>
#include <stddef.h>

#include "brgemm_kernels.h"
#include "brgemm_tile_table.h"

#define VL BRGEMM_AVX2_VL
#define NB_MAX_1 BRGEMM_AVX2_NB_MAX_1
#define BASES ((NB_MAX_1 + 2) / 3)

/* Lanes 0 .. live-1 on (live in 1..8). */
static inline __m256i lane_mask(int live)
{
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(live), lanes);
}

static inline __attribute__((always_inline)) __m256 update(const int mode, __m256 acc, __m256 c, __m256 valpha,
                                                           __m256 vbeta)
{
    if (mode == BRGEMM_UPDATE_ADD)
        return _mm256_add_ps(c, acc);
    const __m256 r = _mm256_mul_ps(valpha, acc);
    return mode == BRGEMM_UPDATE_SET ? r : _mm256_fmadd_ps(vbeta, c, r);
}

/*
 * Write the mv x nb accumulators to C; unless FULL, the last vector of a
 * column is masked to the block's rows.
 */
static inline __attribute__((always_inline)) void
store_tile(const int mode, const int mv, const int nb, const int full, __m256 acc[2][NB_MAX_1], __m256i last,
           const brgemm_args *g, float *C)
{
    const __m256 valpha = _mm256_set1_ps(g->alpha), vbeta = _mm256_set1_ps(g->beta);
    const __m256 zero = _mm256_setzero_ps();
#pragma GCC unroll 12
    for (int j = 0; j < nb; j++) {
        float *c = C + j * g->ldc;
#pragma GCC unroll 2
        for (int v = 0; v < mv; v++) {
            if (v < mv - 1 || full) {
                const __m256 old = mode == BRGEMM_UPDATE_SET ? zero : _mm256_loadu_ps(c + VL * v);
                _mm256_storeu_ps(c + VL * v, update(mode, acc[v][j], old, valpha, vbeta));
            } else {
                const __m256 old = mode == BRGEMM_UPDATE_SET ? zero : _mm256_maskload_ps(c + VL * v, last);
                _mm256_maskstore_ps(c + VL * v, last, update(mode, acc[v][j], old, valpha, vbeta));
            }
        }
    }
}

/*
 * One block. FULL (a compile-time constant) says its last vector of rows is
 * full (rows == mv * VL): its loads and stores are then plain, as vmaskmovps
 * costs an extra uop on the arithmetic ports each step, and a masked store
 * stops a later load of the same C from taking its data from the store.
 */
static inline __attribute__((always_inline)) void tile_rows(const int kind, const int mv, const int nb,
                                                            const int full, const brgemm_args *g, int rows,
                                                            const brgemm_batch *bt, float *C)
{
    const __m256i last = lane_mask(rows - VL * (mv - 1));
    const int64_t k = g->k, lda = g->lda, ldb = g->ldb, batch = bt->batch;
    __m256 acc[2][NB_MAX_1];
#pragma GCC unroll 12
    for (int j = 0; j < nb; j++)
#pragma GCC unroll 2
        for (int v = 0; v < mv; v++)
            acc[v][j] = _mm256_setzero_ps();

    for (int64_t i = 0; i < batch; i++) {
        const float *a = kind == BRGEMM_KIND_POINTERS ? bt->ap[i] + bt->a_off : bt->a + i * g->stride_a;
        const float *b = kind == BRGEMM_KIND_POINTERS ? bt->bp[i] + bt->b_off : bt->b + i * g->stride_b;
        const float *base[BASES];
#pragma GCC unroll 4
        for (int q = 0; q < (nb + 2) / 3; q++)
            base[q] = b + 3 * q * ldb;
#pragma GCC unroll 2
        for (int64_t p = 0; p < k; p++) {
            __m256 av[2];
#pragma GCC unroll 2
            for (int v = 0; v < mv; v++)
                av[v] = v == mv - 1 && !full ? _mm256_maskload_ps(a + VL * v, last) : _mm256_loadu_ps(a + VL * v);
#pragma GCC unroll 12
            for (int j = 0; j < nb; j++) {
                const __m256 bj = _mm256_broadcast_ss(&base[j / 3][(j % 3) * ldb]);
#pragma GCC unroll 2
                for (int v = 0; v < mv; v++)
                    acc[v][j] = _mm256_fmadd_ps(av[v], bj, acc[v][j]);
            }
            a += lda;
#pragma GCC unroll 4
            for (int q = 0; q < (nb + 2) / 3; q++)
                base[q] += 1;
        }
    }

    /* the update is chosen once per tile, not per element */
    BRGEMM_BY_UPDATE_MODE(g, store_tile, mv, nb, full, acc, last, g, C);
}

BRGEMM_TILE_BY_FULL(VL)

/*
 * Rank-1 update (k == 1, batch 1; contract in brgemm_kernels.h) of one band
 * of rows: NV full vectors and, when PART, a last vector masked to `last`,
 * with the column of A in registers and C streamed once, column by column.
 */
static inline __attribute__((always_inline)) void rank1_band(const int mode, const int nv, const int part,
                                                             __m256i last, int64_t n, int64_t ldb, int64_t ldc,
                                                             const float *a, const float *b, float *C,
                                                             __m256 valpha, __m256 vbeta)
{
    const __m256 zero = _mm256_setzero_ps();
    __m256 av[BRGEMM_RANK1_VECTORS];
#pragma GCC unroll 4
    for (int v = 0; v < nv; v++)
        av[v] = _mm256_loadu_ps(a + VL * v);
    const __m256 at = part ? _mm256_maskload_ps(a + VL * nv, last) : zero;
#pragma GCC unroll 2
    for (int64_t j = 0; j < n; j++) {
        const __m256 bj = _mm256_broadcast_ss(b + j * ldb);
        float *c = C + j * ldc;
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++) {
            const __m256 old = mode == BRGEMM_UPDATE_SET ? zero : _mm256_loadu_ps(c + VL * v);
            _mm256_storeu_ps(c + VL * v, update(mode, _mm256_fmadd_ps(av[v], bj, zero), old, valpha, vbeta));
        }
        if (part) {
            const __m256 old = mode == BRGEMM_UPDATE_SET ? zero : _mm256_maskload_ps(c + VL * nv, last);
            _mm256_maskstore_ps(c + VL * nv, last, update(mode, _mm256_fmadd_ps(at, bj, zero), old, valpha, vbeta));
        }
    }
}

static inline __attribute__((always_inline)) void rank1_mode(const int mode, const brgemm_args *g, int64_t m,
                                                             int64_t n, const float *a, const float *b, float *C)
{
    const __m256 valpha = _mm256_set1_ps(g->alpha), vbeta = _mm256_set1_ps(g->beta);
    const int64_t ldb = g->ldb, ldc = g->ldc, band = BRGEMM_RANK1_VECTORS * VL;
    int64_t r = 0;
    for (; r + band <= m; r += band)
        rank1_band(mode, BRGEMM_RANK1_VECTORS, 0, lane_mask(VL), n, ldb, ldc, a + r, b, C + r, valpha, vbeta);
    const int nv = (int)((m - r) / VL), live = (int)((m - r) % VL);
    const __m256i last = lane_mask(live);
#define REST_BAND(NV, PART) rank1_band(mode, NV, PART, last, n, ldb, ldc, a + r, b, C + r, valpha, vbeta)
    BRGEMM_RANK1_REST(nv, live > 0, REST_BAND);
#undef REST_BAND
}

void brgemm_rank1_avx2(const brgemm_args *g, int64_t m, int64_t n, const float *a, const float *b, float *C)
{
    BRGEMM_BY_UPDATE_MODE(g, rank1_mode, g, m, n, a, b, C);
}

/* One instance per (kind, MV, NB) to the bounds of brgemm_kernels.h, and the table brgemm_tile_avx2 reads. */
BRGEMM_TILES_12(0, 1) BRGEMM_TILES_6(0, 2)
BRGEMM_TILES_12(1, 1) BRGEMM_TILES_6(1, 2)

static const brgemm_tile_fn tiles[2][2][NB_MAX_1] = {
    { { BRGEMM_ROW_12(0, 1) }, { BRGEMM_ROW_6(0, 2) } },
    { { BRGEMM_ROW_12(1, 1) }, { BRGEMM_ROW_6(1, 2) } },
};

brgemm_tile_fn brgemm_tile_avx2(int kind, int mv, int nb)
{
    return tiles[kind][mv - 1][nb - 1];
}
