/*
 * sgemm_target.h - the SGEMM micro-kernel contract, the kernel table (per
 * ISA path: its micro-kernel shapes, packer and small-product kernel) and
 * the resolved target a call runs with (one shape plus its block sizes,
 * threading split and prefetch distance, from the active configuration of
 * exact/tuning.h).
 *
 * Only the micro-kernels (sgemm_kernel_*.c), the small-product kernels
 * (sgemm_sup_*.c) and the transposing packers (sgemm_pack_*.c) know an
 * instruction set, each with a plain-C twin in its *_scalar.c file; the
 * driver (sgemm_driver.c) and the rest of packing (sgemm_pack.c) are
 * portable C and reach them through the function pointers of a target, the
 * row of the kernel table (common/smm_dispatch.h) in sgemm_targets.c.
 */
#ifndef SGEMM_TARGET_H
#define SGEMM_TARGET_H

#include <stdint.h>

#include "common/smm_dispatch.h"
#include "sketchmm/common.h"

/*
 * sgemm_kernel_fn - one MR x NR tile of C:
 *
 *     C := beta * C + alpha * Ap * Bp
 *
 * where Ap * Bp is the MR x NR product of an MR x kc and a kc x NR matrix,
 * each element summed over p = 0 .. kc-1 in increasing order into one
 * accumulator (so every shape of a path gives the same bits: results
 * depend on kc, never on MR or NR).
 *
 * - Ap: an A micro-panel, MR rows by kc columns, packed column after column:
 *   element (i, p) is Ap[p * MR + i]. kc * MR floats.
 * - Bp: a B micro-panel, kc rows by NR columns, packed row after row:
 *   element (p, j) is Bp[p * NR + j]. kc * NR floats.
 * - C: the full MR x NR tile; element (i, j) is C[i * ldc + j] (row stride
 *   ldc >= NR, unit column stride). Kernels never handle partial tiles: the
 *   driver routes edge tiles through a local MR x NR buffer.
 * - beta == 0: C is write-only (it is not read, so NaN or Inf in it does not
 *   reach the result). Otherwise each element becomes beta*c + alpha*ab with
 *   whatever rounding the kernel documents (FMA or not); the summation order
 *   over p must not depend on anything but kc, so that a result depends only
 *   on the data, the target and the k-blocking, never on threading.
 * - kc >= 0 (kc == 0 gives C := beta * C; the driver never passes it).
 * - a_ahead >= 0: at each step p the kernel may prefetch the A values
 *   a_ahead floats past the step's own (Ap + p * MR + a_ahead: the panel
 *   and, past its end, the next one of the packed block); 0: no prefetch.
 *   A hint only, never a read the result depends on (it may point past
 *   the block).
 * - Ap, Bp and C do not overlap. No alignment is required of any pointer.
 */
typedef void (*sgemm_kernel_fn)(int64_t kc, float alpha, const float *restrict Ap,
                                const float *restrict Bp, float beta, float *restrict C,
                                int64_t ldc, int64_t a_ahead);

/*
 * sgemm_pack_lines_fn - pack a w-wide micro-panel whose source lines run
 * along k: dst[p * w + i] := src[i * ls + p] for i < lines and p < kc, and
 * dst[p * w + i] := 0 for lines <= i < w. 1 <= lines <= w <= SGEMM_MAX_NR,
 * kc >= 1, ls >= 1; src lines need no alignment; dst holds kc * w floats.
 */
typedef void (*sgemm_pack_lines_fn)(int w, int64_t lines, int64_t kc, const float *src,
                                    int64_t ls, float *restrict dst);

/*
 * sgemm_pack_rows_fn - pack consecutive w-wide micro-panels whose source
 * lines run across the panel width (a copy, no transpose): for every panel
 * q < ceil(count / w) and step p < kc,
 *     dst[q * panel + p * w + i] := src[p * ps + q * w + i]   for i < min(w, count - q w),
 *     dst[q * panel + p * w + i] := 0                         for the rest of the w.
 * 1 <= w <= SGEMM_MAX_NR, count >= 1, kc >= 1, ps >= 1, panel >= w kc (the
 * distance between panels in floats); no alignment is needed. Steps go in
 * order, each across every panel, so the source is read in long runs.
 */
typedef void (*sgemm_pack_rows_fn)(int w, int64_t count, int64_t kc, const float *src, int64_t ps,
                                   float *restrict dst, int64_t panel);

/*
 * sgemm_sup_fn - one tile of a small product, read from unpacked operands:
 *
 *     C := beta * C + alpha * A * B      (rows x cols, rows <= MR, cols <= NR)
 *
 * with A element (i, p) at A[i * rsa + p * csa] (any strides), B element
 * (p, j) at B[p * rsb + j] (unit column stride) and C element (i, j) at
 * C[i * ldc + j]. Only the rows x cols elements of C are read or written.
 * k >= 1; beta == 0 means C is not read. The arithmetic (summation order
 * over p, rounding of the update) is that of the target's packed kernel,
 * and sgemm_sup_run calls it on the packed path's blocks of kc (beta, then
 * 1): an entry of C gets the same bits on both paths.
 */
typedef void (*sgemm_sup_fn)(int64_t rows, int64_t cols, int64_t k, float alpha, const float *A,
                             int64_t rsa, int64_t csa, const float *B, int64_t rsb, float beta,
                             float *C, int64_t ldc);

/*
 * p advanced by n floats as address arithmetic on integers: the kernels step
 * their operand pointers once past the last column they read, which with a
 * leading dimension near INT64_MAX (valid for an operand of one line) would
 * overflow as pointer arithmetic; the result is never dereferenced then.
 */
static inline const float *sup_advance(const float *p, int64_t n)
{
    return (const float *)((uintptr_t)p + (uintptr_t)n * sizeof(float));
}

/* The largest register tile of any shape (the driver's edge buffer size, the packers' widest panel). */
#define SGEMM_MAX_MR 16
#define SGEMM_MAX_NR 64

/* One micro-kernel shape of a path: its name (ISA, then MR x NR: "avx512_12x32") and tile. */
typedef struct {
    const char *name;
    int mr, nr;
    sgemm_kernel_fn kernel;
} sgemm_shape;

/* The most shapes a path offers. */
#define SGEMM_MAX_SHAPES 6

/*
 * sgemm_kernels - the kernels of one ISA path, a row of the kernel table in
 * sgemm_targets.c: the micro-kernel shapes to choose from (shapes[0] is the
 * path's default), the packer and small-product kernel every shape shares,
 * and the fixed block sizes of shapes[0], the last-resort defaults when the
 * cache geometry is unknown (exact/tuning.h).
 */
typedef struct {
    smm_kernel_head head;  /* name: the default shape's name */
    sgemm_shape shapes[SGEMM_MAX_SHAPES];
    int nshapes;
    int fused;             /* 1: the kernels round the C update as fma(beta, c, alpha*ab) */
    sgemm_pack_lines_fn pack_lines; /* the transposing packer (sgemm_pack_lines_fn) */
    sgemm_pack_rows_fn pack_rows;   /* the copying packer (sgemm_pack_rows_fn) */
    sgemm_sup_fn sup;      /* the small-product kernel, or NULL: every product is packed */
    int sup_mr, sup_nr;    /* the largest tile sup takes */
    int64_t mc, kc, nc;    /* the fixed table: cache blocks of shapes[0] */
    int64_t prefetch;      /* the default A prefetch distance of the kernels, in k steps (0: none) */
    double sup_max_macs;   /* the fixed table: products of at most this many multiply-adds use sup */
} sgemm_kernels;

/*
 * The row path isa (SMM_ISA_SCALAR .. SMM_ISA_NEON) runs: its own row, or
 * the row it falls back to (SMM_KERNELS_FOR). Does not check that the CPU
 * supports the path.
 */
const sgemm_kernels *sgemm_kernels_for(smm_isa isa);

/* The path whose row `row` (from sgemm_kernels_for) is. */
smm_isa sgemm_kernels_path(const sgemm_kernels *row);

/* How the threads of one product share its loops (sgemm_driver_run). */
typedef enum {
    SGEMM_SPLIT_AUTO = 0,   /* rows of C (ic blocks); a short m: columns (jr panels) */
    SGEMM_SPLIT_ROWS = 1,   /* rows of C, and columns only where there are too few row blocks */
    SGEMM_SPLIT_COLUMNS = 2 /* columns of C: every thread packs each A block and takes its panels */
} sgemm_split;

/*
 * sgemm_target - what one call runs with: a shape of the path's row, its
 * packer and small-product kernel, and the configuration's parameters for
 * the call's thread count (exact/tuning.h: sgemm_target_for). mc is a
 * multiple of mr and nc of nr; all sizes are positive.
 */
typedef struct {
    const char *name;      /* the shape's name (exact_sgemm_kernel_name) */
    int mr, nr;
    sgemm_kernel_fn kernel;
    int fused;
    sgemm_pack_lines_fn pack_lines;
    sgemm_pack_rows_fn pack_rows;
    int64_t mc, kc, nc;    /* cache blocks: rows of A (L2), depth (L1 B micro-panel), columns of B (L3) */
    sgemm_split split;
    int64_t a_ahead;       /* the kernel's A prefetch distance in floats (sgemm_kernel_fn) */
    sgemm_sup_fn sup;
    int sup_mr, sup_nr;
    double sup_max_macs;
} sgemm_target;

/* ---- the transposing packers (see sgemm_pack_lines_fn) ---- */

/* Portable C, an element at a time (sgemm_pack_scalar.c): the twins of the SIMD packers. */
void sgemm_pack_lines_scalar(int w, int64_t lines, int64_t kc, const float *src, int64_t ls,
                             float *restrict dst);
void sgemm_pack_rows_scalar(int w, int64_t count, int64_t kc, const float *src, int64_t ps, float *restrict dst,
                            int64_t panel);

#if defined(__x86_64__)
/* AVX2: 8 x 8 register transposes; row copies 8 floats at a time; masked loads and stores at the edges. */
void sgemm_pack_lines_avx2(int w, int64_t lines, int64_t kc, const float *src, int64_t ls,
                           float *restrict dst);
void sgemm_pack_rows_avx2(int w, int64_t count, int64_t kc, const float *src, int64_t ps, float *restrict dst,
                          int64_t panel);
/* AVX-512F: 16 x 16 register transposes; row copies 16 floats at a time; masked at the edges. */
void sgemm_pack_lines_avx512(int w, int64_t lines, int64_t kc, const float *src, int64_t ls,
                             float *restrict dst);
void sgemm_pack_rows_avx512(int w, int64_t count, int64_t kc, const float *src, int64_t ps, float *restrict dst,
                            int64_t panel);
#endif

/* ---- the small-product kernels (see sgemm_sup_fn) ---- */

/*
 * Portable C, any tile up to SGEMM_MAX_MR x SGEMM_MAX_NR (sgemm_sup_scalar.c):
 * the arithmetic of sgemm_kernel_scalar_4x8 (each element summed from 0 over
 * p in increasing order, separate multiplies and adds, then c := alpha*ab or
 * beta*c + alpha*ab), the twin the tests check the SIMD small-product and
 * packed kernels against. The scalar target has no small-product path: the
 * driver splits k into blocks of kc, and a product with k > kc summed in one
 * run would round differently from the blocked sums the scalar path gives.
 */
void sgemm_sup_scalar(int64_t rows, int64_t cols, int64_t k, float alpha, const float *A, int64_t rsa,
                      int64_t csa, const float *B, int64_t rsb, float beta, float *C, int64_t ldc);

#if defined(__x86_64__)
/* AVX2 + FMA: tiles up to 6 x 16, columns masked. */
void sgemm_sup_avx2_6x16(int64_t rows, int64_t cols, int64_t k, float alpha, const float *A,
                         int64_t rsa, int64_t csa, const float *B, int64_t rsb, float beta,
                         float *C, int64_t ldc);
/* AVX-512F: tiles up to 12 x 32, columns masked. */
void sgemm_sup_avx512_12x32(int64_t rows, int64_t cols, int64_t k, float alpha, const float *A,
                            int64_t rsa, int64_t csa, const float *B, int64_t rsb, float beta,
                            float *C, int64_t ldc);
#endif
#if defined(__aarch64__)
/* Advanced SIMD: tiles up to 8 x 12, partial column groups read and written lane by lane. */
void sgemm_sup_neon_8x12(int64_t rows, int64_t cols, int64_t k, float alpha, const float *A,
                         int64_t rsa, int64_t csa, const float *B, int64_t rsb, float beta,
                         float *C, int64_t ldc);
#endif

/* ---- the micro-kernels (one file per ISA; see sgemm_kernel_fn) ---- */

/* Portable C reference: separate multiplies and adds (no FMA); C := beta*c + alpha*ab. */
void sgemm_kernel_scalar_4x8(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                             float beta, float *restrict C, int64_t ldc, int64_t a_ahead);

#if defined(__x86_64__)
/* AVX2 + FMA (sgemm_kernel_avx2.c): fused multiply-add over p; C := fma(beta, c, alpha*ab). */
void sgemm_kernel_avx2_6x16(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                            float beta, float *restrict C, int64_t ldc, int64_t a_ahead);
void sgemm_kernel_avx2_4x24(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                            float beta, float *restrict C, int64_t ldc, int64_t a_ahead);
void sgemm_kernel_avx2_8x8(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                           float beta, float *restrict C, int64_t ldc, int64_t a_ahead);

/* AVX-512F (sgemm_kernel_avx512.c): fused multiply-add over p; C := fma(beta, c, alpha*ab). */
void sgemm_kernel_avx512_12x32(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                               float beta, float *restrict C, int64_t ldc, int64_t a_ahead);
void sgemm_kernel_avx512_14x32(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                               float beta, float *restrict C, int64_t ldc, int64_t a_ahead);
void sgemm_kernel_avx512_8x48(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                              float beta, float *restrict C, int64_t ldc, int64_t a_ahead);
void sgemm_kernel_avx512_6x64(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                              float beta, float *restrict C, int64_t ldc, int64_t a_ahead);
#endif

#if defined(__aarch64__)
/* Advanced SIMD (sgemm_kernel_neon.c): fused multiply-add over p; C := fma(beta, c, alpha*ab). */
void sgemm_kernel_neon_8x12(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                            float beta, float *restrict C, int64_t ldc, int64_t a_ahead);
void sgemm_kernel_neon_12x8(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                            float beta, float *restrict C, int64_t ldc, int64_t a_ahead);
void sgemm_kernel_neon_16x4(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                            float beta, float *restrict C, int64_t ldc, int64_t a_ahead);
#endif

#endif /* SGEMM_TARGET_H */
