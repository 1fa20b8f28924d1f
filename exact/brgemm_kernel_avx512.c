/*
 * brgemm_kernel_avx512.c - the AVX-512F BRGEMM tile kernels (contract in
 * brgemm_kernels.h): blocks of up to 4 x 16 = 64 rows by NB columns of C,
 * MV * NB <= 24 accumulators in zmm registers.
 *
 * Per step p of the k loop: MV vector loads of a column of A_i (the last one
 * masked to the block's rows when they do not fill it), then for each of the NB columns one broadcast
 * of B_i(p, j) and MV fused multiply-adds. The NB columns of B_i are reached
 * from bases three columns apart with offsets 0, ldb and 2 * ldb (an index
 * register scaled by 4 or 8), so no block needs more general registers than
 * x86-64 has. Every (kind, MV, NB) is its own instance with the loops fully
 * unrolled: that is this library's stand-in for libxsmm's code generator.
 *
 * At k == 1 and batch 1, rank1 updates the whole C in one call, the column of
 * A held in up to four registers: there the time is C's loads and stores, and
 * the tiles' per-block set-up cost as much again.
 */
#include <immintrin.h>

#include "brgemm_kernels.h"
#include "brgemm_tile_table.h"

#define VL BRGEMM_AVX512_VL
#define NB_MAX_1 BRGEMM_AVX512_NB_MAX_1
#define BASES ((NB_MAX_1 + 2) / 3)

static inline __attribute__((always_inline)) __m512 update(const int mode, __m512 acc, __m512 c, __m512 valpha,
                                                           __m512 vbeta)
{
    if (mode == BRGEMM_UPDATE_ADD)
        return _mm512_add_ps(c, acc);
    const __m512 r = _mm512_mul_ps(valpha, acc);
    return mode == BRGEMM_UPDATE_SET ? r : _mm512_fmadd_ps(vbeta, c, r);
}

/* The 128-bit forms of update, on the low lanes. */
static inline __attribute__((always_inline)) __m128 update128(const int mode, __m128 acc, __m128 c, __m512 valpha,
                                                              __m512 vbeta)
{
    if (mode == BRGEMM_UPDATE_ADD)
        return _mm_add_ps(c, acc);
    const __m128 r = _mm_mul_ps(_mm512_castps512_ps128(valpha), acc);
    return mode == BRGEMM_UPDATE_SET ? r : _mm_fmadd_ps(_mm512_castps512_ps128(vbeta), c, r);
}

/*
 * The last, partly filled vector of a column: `live` (1..15) floats at c,
 * written as plain pieces of 8, 4, 2 and 1 floats (each piece's lanes moved
 * down to lane 0 first), read back the same way.
 */
static inline __attribute__((always_inline)) void update_part(const int mode, __m512 acc, float *c, int live,
                                                              __m512 valpha, __m512 vbeta)
{
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    int o = 0;
    if (live & 8) {
        const __m256 a = _mm512_castps512_ps256(acc);
        __m256 r;
        if (mode == BRGEMM_UPDATE_ADD) {
            r = _mm256_add_ps(_mm256_loadu_ps(c), a);
        } else {
            r = _mm256_mul_ps(_mm512_castps512_ps256(valpha), a);
            if (mode == BRGEMM_UPDATE_GENERAL)
                r = _mm256_fmadd_ps(_mm512_castps512_ps256(vbeta), _mm256_loadu_ps(c), r);
        }
        _mm256_storeu_ps(c, r);
        o = 8;
    }
    if (live & 4) {
        const __m128 a = _mm512_castps512_ps128(_mm512_permutexvar_ps(_mm512_add_epi32(iota, _mm512_set1_epi32(o)), acc));
        const __m128 old = mode == BRGEMM_UPDATE_SET ? _mm_setzero_ps() : _mm_loadu_ps(c + o);
        _mm_storeu_ps(c + o, update128(mode, a, old, valpha, vbeta));
        o += 4;
    }
    if (live & 2) {
        const __m128 a = _mm512_castps512_ps128(_mm512_permutexvar_ps(_mm512_add_epi32(iota, _mm512_set1_epi32(o)), acc));
        /* 64-bit accesses with no alignment requirement (c + o is only 4-byte aligned) */
        const __m128 old = mode == BRGEMM_UPDATE_SET ? _mm_setzero_ps() : _mm_castsi128_ps(_mm_loadu_si64(c + o));
        _mm_storeu_si64(c + o, _mm_castps_si128(update128(mode, a, old, valpha, vbeta)));
        o += 2;
    }
    if (live & 1) {
        const __m128 a = _mm512_castps512_ps128(_mm512_permutexvar_ps(_mm512_add_epi32(iota, _mm512_set1_epi32(o)), acc));
        const __m128 old = mode == BRGEMM_UPDATE_SET ? _mm_setzero_ps() : _mm_load_ss(c + o);
        _mm_store_ss(c + o, update128(mode, a, old, valpha, vbeta));
    }
}

/*
 * Write the mv x nb accumulators to C with plain (unmasked) loads and stores;
 * unless FULL, the last vector of a column is written as pieces of its `live`
 * floats (update_part). Plain, because a load takes its data straight from an
 * earlier plain store of the same size to the same place (callers often
 * update one C again and again), which it cannot from a masked store:
 * measured on Ice Lake, a 13 x 13 x 1 update of the same C took 4 times as
 * long with masked accesses.
 */
static inline __attribute__((always_inline)) void
store_tile(const int mode, const int mv, const int nb, const int full, __m512 acc[BRGEMM_MAX_MV][NB_MAX_1],
           int live, const brgemm_args *g, float *C)
{
    const __m512 valpha = _mm512_set1_ps(g->alpha), vbeta = _mm512_set1_ps(g->beta);
    const __m512 zero = _mm512_setzero_ps();
#pragma GCC unroll 24
    for (int j = 0; j < nb; j++) {
        float *c = C + j * g->ldc;
#pragma GCC unroll 4
        for (int v = 0; v < mv; v++) {
            if (v < mv - 1 || full) {
                const __m512 old = mode == BRGEMM_UPDATE_SET ? zero : _mm512_loadu_ps(c + VL * v);
                _mm512_storeu_ps(c + VL * v, update(mode, acc[v][j], old, valpha, vbeta));
            } else {
                update_part(mode, acc[v][j], c + VL * v, live, valpha, vbeta);
            }
        }
    }
}

/*
 * One block. FULL (a compile-time constant) says its last vector of rows is
 * full (rows == mv * VL): its loads and stores are then all plain, as a
 * masked load of A costs an extra uop on the FMA ports each step (on Ice Lake
 * the 64 x 6 tile's step went from 12.6-13.1 to 12.3-12.5 TSC cycles, the
 * FMA-port bound being 12) and the stores need no piecework.
 */
static inline __attribute__((always_inline)) void tile_rows(const int kind, const int mv, const int nb,
                                                            const int full, const brgemm_args *g, int rows,
                                                            const brgemm_batch *bt, float *C)
{
    const int live = full ? VL : rows - VL * (mv - 1);
    const __mmask16 last = (__mmask16)((1u << live) - 1u);
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
                av[v] = v == mv - 1 && !full ? _mm512_maskz_loadu_ps(last, a + VL * v) : _mm512_loadu_ps(a + VL * v);
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

    /* the update is chosen once per tile, not per element */
    BRGEMM_BY_UPDATE_MODE(g, store_tile, mv, nb, full, acc, live, g, C);
}

BRGEMM_TILE_BY_FULL(VL)

/*
 * Rank-1 update (k == 1, batch 1; contract in brgemm_kernels.h) of one band
 * of rows: NV full vectors and, when PART, a last vector of `live` rows,
 * with the column of A in registers and C streamed once, column by column.
 */
static inline __attribute__((always_inline)) void rank1_band(const int mode, const int nv, const int part, int live,
                                                             int64_t n, int64_t ldb, int64_t ldc, const float *a,
                                                             const float *b, float *C, __m512 valpha, __m512 vbeta)
{
    const __m512 zero = _mm512_setzero_ps();
    __m512 av[BRGEMM_RANK1_VECTORS];
#pragma GCC unroll 4
    for (int v = 0; v < nv; v++)
        av[v] = _mm512_loadu_ps(a + VL * v);
    const __m512 at = part ? _mm512_maskz_loadu_ps((__mmask16)((1u << live) - 1u), a + VL * nv) : zero;
#pragma GCC unroll 2
    for (int64_t j = 0; j < n; j++) {
        const __m512 bj = _mm512_set1_ps(b[j * ldb]);
        float *c = C + j * ldc;
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++) {
            const __m512 old = mode == BRGEMM_UPDATE_SET ? zero : _mm512_loadu_ps(c + VL * v);
            _mm512_storeu_ps(c + VL * v, update(mode, _mm512_fmadd_ps(av[v], bj, zero), old, valpha, vbeta));
        }
        if (part)
            update_part(mode, _mm512_fmadd_ps(at, bj, zero), c + VL * nv, live, valpha, vbeta);
    }
}

static inline __attribute__((always_inline)) void rank1_mode(const int mode, const brgemm_args *g, int64_t m,
                                                             int64_t n, const float *a, const float *b, float *C)
{
    const __m512 valpha = _mm512_set1_ps(g->alpha), vbeta = _mm512_set1_ps(g->beta);
    const int64_t ldb = g->ldb, ldc = g->ldc, band = BRGEMM_RANK1_VECTORS * VL;
    int64_t r = 0;
    for (; r + band <= m; r += band)
        rank1_band(mode, BRGEMM_RANK1_VECTORS, 0, 0, n, ldb, ldc, a + r, b, C + r, valpha, vbeta);
    const int nv = (int)((m - r) / VL), live = (int)((m - r) % VL);
#define REST_BAND(NV, PART) rank1_band(mode, NV, PART, live, n, ldb, ldc, a + r, b, C + r, valpha, vbeta)
    BRGEMM_RANK1_REST(nv, live > 0, REST_BAND);
#undef REST_BAND
}

void brgemm_rank1_avx512(const brgemm_args *g, int64_t m, int64_t n, const float *a, const float *b, float *C)
{
    BRGEMM_BY_UPDATE_MODE(g, rank1_mode, g, m, n, a, b, C);
}

/* One instance per (kind, MV, NB) to the bounds of brgemm_kernels.h, and the table brgemm_tile_avx512 reads. */
#define TILES_KIND(K) BRGEMM_TILES_24(K, 1) BRGEMM_TILES_12(K, 2) BRGEMM_TILES_8(K, 3) BRGEMM_TILES_6(K, 4)
TILES_KIND(0)
TILES_KIND(1)

#define KIND_TABLE(K) { { BRGEMM_ROW_24(K, 1) }, { BRGEMM_ROW_12(K, 2) }, { BRGEMM_ROW_8(K, 3) }, { BRGEMM_ROW_6(K, 4) } }
static const brgemm_tile_fn tiles[2][BRGEMM_MAX_MV][NB_MAX_1] = { KIND_TABLE(0), KIND_TABLE(1) };

brgemm_tile_fn brgemm_tile_avx512(int kind, int mv, int nb)
{
    return tiles[kind][mv - 1][nb - 1];
}
