/*
 * brgemm_kernels.h - the BRGEMM tile kernels (library-internal): one block
 * of C summed over the whole batch in registers, per ISA path.
 *
 * Everything is column-major here (brgemm.c turns a row-major description
 * into the column-major product of the transposes). A tile kernel computes
 *
 *     C := beta * C + alpha * sum_{i < batch} A_i * B_i     (rows x NB)
 *
 * for a block of rows <= MV * VL rows (VL floats per vector, MV vectors; the
 * first MV - 1 vectors are full, the last holds the remaining 1..VL rows)
 * and NB columns, both MV and NB fixed in each instance:
 * - A_i element (r, p) at a_i[r + p * lda] (rows of a column are contiguous);
 * - B_i element (p, j) at b_i[p + j * ldb];
 * - C element (r, j) at C[r + j * ldc]; only the rows x NB block is touched;
 * - beta == 0: C is not read.
 * Each element is accumulated from 0 over i, then p, in increasing order
 * (fused multiply-add on the SIMD paths), then c := alpha * acc
 * (beta == 0) or beta * c + alpha * acc.
 * batch >= 1 and k >= 1 (brgemm.c handles the empty cases).
 * The portable tiles (brgemm_kernel_scalar.c: separate multiplies and adds)
 * are the scalar row and the twin the tests compare every SIMD tile and
 * rank-1 kernel with: the same bits where products and sums are exact.
 */
#ifndef EXACT_BRGEMM_KERNELS_H
#define EXACT_BRGEMM_KERNELS_H

#include <stdint.h>

#include "common/smm_dispatch.h"
#include "exact/jit_cache.h"

/* What stays fixed from one tile to the next in one execution. */
typedef struct {
    int64_t k, lda, ldb, ldc;
    int64_t stride_a, stride_b; /* strided batches, in elements */
    float alpha, beta;
} brgemm_args;

/*
 * Where the batch of one tile is. Strided: a_i = a + i * stride_a,
 * b_i = b + i * stride_b (a and b already point at the tile). Pointers:
 * a_i = ap[i] + a_off, b_i = bp[i] + b_off.
 */
typedef struct {
    const float *a, *b;
    const float *const *ap, *const *bp;
    int64_t a_off, b_off;
    int64_t batch;
} brgemm_batch;

typedef void (*brgemm_tile_fn)(const brgemm_args *g, int rows, const brgemm_batch *bt, float *C);

/*
 * The product of one batch entry with k == 1, a rank-1 update of the whole
 * m x n C (an ISA path may leave it out: the tiles then run):
 *
 *     C := beta * C + alpha * a b        (a: m rows at a[r]; b: n columns at b[j * ldb])
 *
 * with the bits of the tile kernels: acc = fma(a[r], b(0, j), 0), then the
 * same update. One call does it all, with no accumulators to set up or tile
 * to walk: at k == 1 the time goes into reading and writing C.
 */
typedef void (*brgemm_rank1_fn)(const brgemm_args *g, int64_t m, int64_t n, const float *a, const float *b,
                                float *C);

/*
 * How the sums reach C, chosen once per call: BRGEMM_UPDATE_SET
 * c := alpha * acc (beta == 0, C not read); BRGEMM_UPDATE_ADD c := c + acc
 * (alpha == beta == 1: the same bits as the general form, without two
 * multiplications by one); BRGEMM_UPDATE_GENERAL c := fma(beta, c, alpha * acc).
 */
enum { BRGEMM_UPDATE_SET, BRGEMM_UPDATE_ADD, BRGEMM_UPDATE_GENERAL };

static inline int brgemm_update_mode(const brgemm_args *g)
{
    if (g->beta == 0.0f)
        return BRGEMM_UPDATE_SET;
    return g->alpha == 1.0f && g->beta == 1.0f ? BRGEMM_UPDATE_ADD : BRGEMM_UPDATE_GENERAL;
}

/* F(mode, ...) with the mode of g a compile-time constant in each call (F inlines its mode). */
#define BRGEMM_BY_UPDATE_MODE(g, F, ...)                                                            \
    do {                                                                                          \
        switch (brgemm_update_mode(g)) {                                                          \
        case BRGEMM_UPDATE_SET: F(BRGEMM_UPDATE_SET, __VA_ARGS__); break;                         \
        case BRGEMM_UPDATE_ADD: F(BRGEMM_UPDATE_ADD, __VA_ARGS__); break;                         \
        default: F(BRGEMM_UPDATE_GENERAL, __VA_ARGS__); break;                                    \
        }                                                                                         \
    } while (0)

/* Full vectors per band of rows in the rank-1 kernels (the column of A they hold in registers). */
#define BRGEMM_RANK1_VECTORS 4

/*
 * The rows a rank-1 kernel has left after its bands of BRGEMM_RANK1_VECTORS (4) full vectors:
 * nv (0..3) full vectors and a partial one when `part`; F(NV, PART) is
 * called with both compile-time constants (nothing when no row is left).
 */
#define BRGEMM_RANK1_REST(nv, part, F)                                                              \
    do {                                                                                          \
        switch (2 * (nv) + ((part) ? 1 : 0)) {                                                    \
        case 1: F(0, 1); break;                                                                   \
        case 2: F(1, 0); break;                                                                   \
        case 3: F(1, 1); break;                                                                   \
        case 4: F(2, 0); break;                                                                   \
        case 5: F(2, 1); break;                                                                   \
        case 6: F(3, 0); break;                                                                   \
        case 7: F(3, 1); break;                                                                   \
        default: break;                                                                           \
        }                                                                                         \
    } while (0)

/* The two batch kinds, as indices of the tables below. */
enum { BRGEMM_KIND_STRIDED = 0, BRGEMM_KIND_POINTERS = 1 };

/*
 * The tile geometry of each path: VL floats per vector and, for tiles of
 * mv vectors of rows, at most NB_MAX_<mv> columns. A path's kernel file
 * stamps its instances to these bounds; its row of the kernel table
 * (brgemm.c) gives them to the planner.
 */
#define BRGEMM_SCALAR_VL 4 /* the portable tiles take any row count: blocks of up to 2 x 4 = 8 rows */
#define BRGEMM_SCALAR_NB_MAX_1 4
#define BRGEMM_SCALAR_NB_MAX_2 4
#define BRGEMM_AVX2_VL 8
#define BRGEMM_AVX2_NB_MAX_1 12
#define BRGEMM_AVX2_NB_MAX_2 6
#define BRGEMM_AVX512_VL 16
#define BRGEMM_AVX512_NB_MAX_1 24
#define BRGEMM_AVX512_NB_MAX_2 12
#define BRGEMM_AVX512_NB_MAX_3 8
#define BRGEMM_AVX512_NB_MAX_4 6
#define BRGEMM_NEON_VL 4
#define BRGEMM_NEON_NB_MAX_1 16
#define BRGEMM_NEON_NB_MAX_2 12
#define BRGEMM_NEON_NB_MAX_3 8
#define BRGEMM_NEON_NB_MAX_4 6

/*
 * The BRGEMM kernels of one ISA path, a row of the kernel table
 * (common/smm_dispatch.h) in brgemm.c: vl floats per vector, at most
 * mv_max vectors per tile (mv_max * vl rows), and for mv vectors at most
 * nb_max[mv - 1] columns. tile(kind, mv, nb) returns the instance for
 * 1 <= mv <= mv_max and 1 <= nb <= nb_max[mv - 1]. jit writes a kernel for
 * a whole description (brgemm_jit.h); the tiles and rank-1 kernel are the
 * fallback when none is generated, and give the same bits.
 */
#define BRGEMM_MAX_MV 4
typedef brgemm_tile_fn (*brgemm_tile_lookup_fn)(int kind, int mv, int nb);
typedef struct {
    smm_kernel_head head; /* name: the ISA path, for plan names: "scalar", "avx2", "avx512", "neon" */
    int vl, mv_max;
    int nb_max[BRGEMM_MAX_MV];
    brgemm_tile_lookup_fn tile;
    brgemm_rank1_fn rank1; /* or NULL */
    jit_writer jit;        /* the writer of generated kernels for this path (brgemm_jit.h), or NULL */
} brgemm_kernels;

/*
 * The row path isa (SMM_ISA_SCALAR .. SMM_ISA_NEON) runs: its own or the one
 * it falls back to (SMM_KERNELS_FOR). A plan resolves it once, when created.
 */
const brgemm_kernels *brgemm_kernels_for(smm_isa isa);

/* The tile instances of each path (brgemm_kernel_<isa>.c) and its rank-1 kernel where it has one. */
brgemm_tile_fn brgemm_tile_scalar(int kind, int mv, int nb);
#if defined(__x86_64__)
brgemm_tile_fn brgemm_tile_avx2(int kind, int mv, int nb);
void brgemm_rank1_avx2(const brgemm_args *g, int64_t m, int64_t n, const float *a, const float *b, float *C);
brgemm_tile_fn brgemm_tile_avx512(int kind, int mv, int nb);
void brgemm_rank1_avx512(const brgemm_args *g, int64_t m, int64_t n, const float *a, const float *b, float *C);
#endif
#if defined(__aarch64__)
brgemm_tile_fn brgemm_tile_neon(int kind, int mv, int nb);
#endif

#endif /* EXACT_BRGEMM_KERNELS_H */
