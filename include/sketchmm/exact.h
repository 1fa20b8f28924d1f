/*
 * sketchmm/exact.h - exact single-precision matrix multiplication.
 */
#ifndef SKETCHMM_EXACT_H
#define SKETCHMM_EXACT_H

#include "sketchmm/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * exact_sgemm - C := alpha * op(A) * op(B) + beta * C, as cblas_sgemm.
 *
 * op(A) is m x k, op(B) is k x n, C is m x n, all stored in `layout`.
 * A is stored as an m x k matrix when transa == SMM_NO_TRANS and as k x m
 * when transa == SMM_TRANS; likewise B is k x n or n x k.
 * Leading dimensions (in elements) must be at least max(1, number of columns
 * of the stored matrix) for SMM_ROW_MAJOR and at least max(1, number of rows)
 * for SMM_COL_MAJOR.
 *
 * Semantics
 * - beta == 0: C is write-only; NaN or Inf already in C does not reach the result.
 * - k == 0 or alpha == 0: C := beta * C (A and B are not read).
 * - m == 0 or n == 0: nothing is done (SMM_OK).
 * - A (B) may be NULL only when it has no elements (m or k, k or n is 0);
 *   C may be NULL only when m or n is 0.
 * - C must not overlap A or B: when A and B are read (m, n, k > 0 and
 *   alpha != 0) the memory span of C (from its first to its last element,
 *   padding between lines included) is compared with those of A and B, and
 *   any shared byte gives SMM_ERR_BAD_ARGUMENT (common.h, "Aliasing").
 *   Buffers that touch without overlapping are fine.
 * - Values are not checked: NaN and Inf in A, B (or C with beta != 0)
 *   propagate as IEEE-754 arithmetic makes them, and an entry whose value
 *   exceeds FLT_MAX in magnitude becomes +-Inf (or NaN when partial sums of
 *   both signs overflow), as with cblas_sgemm. (The approximate calls of
 *   approx.h do check: SMM_ERR_NON_FINITE.)
 *
 * Implementation: BLIS-style cache blocking with packed A and B panels and a
 * register-tiled micro-kernel per ISA path (exact_sgemm_kernel_name names it);
 * small products on the AVX2 and AVX-512 paths skip packing and run an
 * unpacked kernel. The kernel shape, the block sizes, the threshold of the
 * small products and how threads share the work come from the exact core's
 * configuration (sketchmm/tuning.h: a tuning file, else a model of the CPU's
 * caches). A small product that runs on one thread runs a kernel written for
 * its exact shape when code generation is on (sketchmm/jit.h; the same bits
 * as the precompiled unpacked kernel). Threads (OpenMP) split the rows and
 * columns of C, never k.
 *
 * Results are bit-identical for any thread count. Different ISA paths round
 * differently (FMA, summation order), and so may different configurations
 * (their k blocks; sketchmm/tuning.h); each is accurate to the usual
 * k * FLT_EPSILON * sum|a||b| bound.
 *
 * Returns SMM_OK or, leaving C untouched: SMM_ERR_BAD_LAYOUT, SMM_ERR_BAD_TRANS,
 * SMM_ERR_BAD_SIZE (negative m, n or k; zero is valid), SMM_ERR_BAD_LEADING_DIM,
 * SMM_ERR_NULL_POINTER, SMM_ERR_OVERFLOW (a matrix's extent does not fit in
 * the address space), SMM_ERR_BAD_ARGUMENT (C overlaps A or B, see above),
 * SMM_ERR_NO_MEMORY, or the ISA/thread selection error (see common.h).
 * The overlap is checked after every other argument, and not at all when
 * k == 0 or alpha == 0 (A and B are not read then).
 *
 * Thread safety: may be called from several threads at once.
 *
 * Memory: the packed panels go into a workspace that the calling thread
 * keeps for its next call (at most 64 MiB; with the blocks the model gives
 * a Zen 4, at most about 30 MiB and 9.2 MiB for a 2048^3 product on 2
 * threads), freed when the thread exits. Allocating it anew for every call
 * cost 1-4% of a large product's time in page faults.
 *
 * On a machine shared with other busy processes, run with
 * OMP_WAIT_POLICY=passive: OpenMP's idle threads otherwise spin for
 * milliseconds at each barrier, holding a core the team's other thread may
 * be waiting for (docs/tuning.md has the figures).
 */
SMM_API smm_status exact_sgemm(smm_layout layout, smm_trans transa, smm_trans transb,
                       int64_t m, int64_t n, int64_t k, float alpha,
                       const float *A, int64_t lda, const float *B, int64_t ldb,
                       float beta, float *C, int64_t ldc);

/*
 * Name of the micro-kernel exact_sgemm runs on the current ISA path, for logs:
 * path, then register tile (the kernel-name rule of common.h): "scalar_4x8";
 * "avx2_fma_6x16", "avx2_fma_4x24", "avx2_fma_8x8"; "avx512_12x32",
 * "avx512_14x32", "avx512_8x48", "avx512_6x64"; "neon_8x12", "neon_12x8",
 * "neon_16x4" (the first of each path unless the configuration chose
 * another, sketchmm/tuning.h); "unavailable" when the ISA selection failed.
 */
SMM_API const char *exact_sgemm_kernel_name(void);

/*
 * Padded matrices.
 *
 * Rows (or columns) whose byte stride is a multiple of 4 KiB map to the same
 * set of a 48 KiB or 32 KiB L1 cache, so a kernel that walks down a column
 * of such a matrix keeps evicting its own data (a set holds only as many
 * lines as the cache has ways, 8 or 12 on current x86 cores). The allocator
 * below picks a leading dimension that avoids this and aligns every line to
 * a 64-byte cache line.
 */

/*
 * exact_padded_ld - the leading dimension exact_matrix_alloc uses for lines
 * of `inner` floats: the smallest multiple of 16 floats (64 bytes) that is
 * >= max(1, inner) and whose byte stride (ld * 4) is not a multiple of 4096.
 * Returns -1 when inner < 0 or the result would overflow int64_t.
 */
SMM_API int64_t exact_padded_ld(int64_t inner);

/*
 * exact_matrix_alloc - allocate a zero-filled rows x cols float matrix in
 * `layout` with the padded leading dimension exact_padded_ld(cols) for
 * SMM_ROW_MAJOR, exact_padded_ld(rows) for SMM_COL_MAJOR, returned in *ld.
 * The memory starts on a 64-byte boundary, so every row (column) does too.
 * Free it with exact_matrix_free (not free()). With rows or cols 0, *matrix
 * is NULL and SMM_OK is returned.
 *
 * Returns SMM_OK or, with *matrix and *ld untouched: SMM_ERR_NULL_POINTER
 * (matrix or ld NULL), SMM_ERR_BAD_LAYOUT, SMM_ERR_BAD_SIZE (rows or cols
 * negative), SMM_ERR_OVERFLOW (the size does not fit in size_t),
 * SMM_ERR_NO_MEMORY.
 */
SMM_API smm_status exact_matrix_alloc(smm_layout layout, int64_t rows, int64_t cols, float **matrix, int64_t *ld);

/* Free a matrix from exact_matrix_alloc; NULL is allowed. */
SMM_API void exact_matrix_free(float *matrix);

#ifdef __cplusplus
}
#endif

#endif /* SKETCHMM_EXACT_H */
