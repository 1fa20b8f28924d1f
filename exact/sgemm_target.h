/*
 * sgemm_target.h - the SGEMM micro-kernel contract and the per-ISA targets
 * (kernel plus block sizes) the blocked driver runs with.
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
 * summed over p = 0 .. kc-1 in increasing order.
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
 * - Ap, Bp and C do not overlap. No alignment is required of any pointer.
 */
typedef void (*sgemm_kernel_fn)(int64_t kc, float alpha, const float *restrict Ap,
                                const float *restrict Bp, float beta, float *restrict C,
                                int64_t ldc);

/*
 * sgemm_pack_lines_fn - pack a w-wide micro-panel whose source lines run
 * along k: dst[p * w + i] := src[i * ls + p] for i < lines and p < kc, and
 * dst[p * w + i] := 0 for lines <= i < w. 1 <= lines <= w <= SGEMM_MAX_NR,
 * kc >= 1, ls >= 1; src lines need no alignment; dst holds kc * w floats.
 */
typedef void (*sgemm_pack_lines_fn)(int w, int64_t lines, int64_t kc, const float *src,
                                    int64_t ls, float *restrict dst);

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

/* The largest register tile of any target (the driver's edge buffer size). */
#define SGEMM_MAX_MR 16
#define SGEMM_MAX_NR 32

/*
 * sgemm_kernels - one target: a micro-kernel and the block sizes the driver
 * uses with it, a row of the kernel table in sgemm_targets.c. mc is a
 * multiple of mr and nc a multiple of nr; all are positive. kc must not
 * depend on anything but the target (results depend on the k-blocking).
 */
typedef struct {
    smm_kernel_head head;  /* name: ISA and register tile, e.g. "avx2_fma_6x16" (exact_sgemm_kernel_name) */
    int mr, nr;            /* register tile: C rows by C columns per kernel call */
    int64_t mc, kc, nc;    /* cache blocks: rows of A (L2), depth (L1 B micro-panel), columns of B (L3) */
    sgemm_kernel_fn kernel;
    sgemm_pack_lines_fn pack_lines; /* the transposing packer (sgemm_pack_lines_fn) */
    sgemm_sup_fn sup;      /* the small-product kernel, or NULL: every product is packed */
    double sup_max_macs;   /* products of at most this many multiply-adds m*n*k use sup */
} sgemm_kernels;

/*
 * The target path isa (SMM_ISA_SCALAR .. SMM_ISA_NEON) runs: its own row, or
 * the row it falls back to (SMM_KERNELS_FOR). Does not check that the CPU
 * supports the path.
 */
const sgemm_kernels *sgemm_kernels_for(smm_isa isa);

/* ---- the transposing packers (see sgemm_pack_lines_fn) ---- */

/* Portable C, an element at a time (sgemm_pack_scalar.c): the twin of the SIMD packers. */
void sgemm_pack_lines_scalar(int w, int64_t lines, int64_t kc, const float *src, int64_t ls,
                             float *restrict dst);

#if defined(__x86_64__)
/* AVX2: 8 x 8 register transposes with masked loads and stores. */
void sgemm_pack_lines_avx2(int w, int64_t lines, int64_t kc, const float *src, int64_t ls,
                           float *restrict dst);
/* AVX-512F: 16 x 16 register transposes with masked loads and stores. */
void sgemm_pack_lines_avx512(int w, int64_t lines, int64_t kc, const float *src, int64_t ls,
                             float *restrict dst);
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

/* ---- the micro-kernels (each in its own file; see sgemm_kernel_fn) ---- */

/* Portable C reference: separate multiplies and adds (no FMA); C := beta*c + alpha*ab. */
void sgemm_kernel_scalar_4x8(int64_t kc, float alpha, const float *restrict Ap,
                             const float *restrict Bp, float beta, float *restrict C, int64_t ldc);

#if defined(__x86_64__)
/* AVX2 + FMA: fused multiply-add over p; C := fma(beta, c, alpha*ab). */
void sgemm_kernel_avx2_6x16(int64_t kc, float alpha, const float *restrict Ap,
                            const float *restrict Bp, float beta, float *restrict C, int64_t ldc);

/* AVX-512F: fused multiply-add over p; C := fma(beta, c, alpha*ab). */
void sgemm_kernel_avx512_12x32(int64_t kc, float alpha, const float *restrict Ap,
                               const float *restrict Bp, float beta, float *restrict C, int64_t ldc);
#endif

#if defined(__aarch64__)
/* Advanced SIMD (NEON): fused multiply-add over p; C := fma(beta, c, alpha*ab). */
void sgemm_kernel_neon_8x12(int64_t kc, float alpha, const float *restrict Ap,
                            const float *restrict Bp, float beta, float *restrict C, int64_t ldc);
#endif

#endif /* SGEMM_TARGET_H */
