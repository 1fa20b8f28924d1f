/*
 * fused_select.h - the candidate pass of the sketched-factor methods with the
 * scores kept in registers: a strip of rows of AS (m x s) against a range of
 * columns of SB (s x n), each score compared with its row's running
 * threshold as soon as the micro-kernel has summed it, so the block of
 * scores is never written to memory and read back. Only a group of columns
 * holding a score above its row's threshold (rare once the threshold has
 * risen) is stored, to a small buffer, and its scores above the threshold
 * are taken into the row's selection (top_select_take, approx_select.h):
 * the entries top-k would have kept.
 *
 * The scores are those exact_sgemm gives for the same block when s is at
 * most exact_sgemm_sum_depth (one run of its k-loop: its kc, 16 to 2048
 * depending on the configuration, exact/sgemm.h; callers check it): each
 * summed from 0 over p in increasing order, with fused multiply-adds on
 * the SIMD paths (as exact_sgemm's AVX2, AVX-512 and NEON kernels) and with
 * a separate multiply and add on the scalar path (as its scalar kernel; the
 * library is built with -ffp-contract=off). A selection
 * keeps the best r scores under a total order (larger score, then smaller
 * column), so it ends with the same entries whichever scores it was shown
 * beyond those it keeps: the candidates equal those of the buffered pass,
 * bit for bit, on every path and for every thread count.
 */
#ifndef FUSED_SELECT_H
#define FUSED_SELECT_H

#include <stdint.h>

#include "approx/approx_select.h"
#include "common/smm_dispatch.h"

/* The longest sketch the kernels take (their packed strip of A); callers also keep s <= exact_sgemm_sum_depth. */
#define FUSED_SELECT_MAX_DIM 256

/*
 * fused_select_fn - one strip of rows against cols >= 1 columns:
 *
 *     score(r, c) = sum over p < s of A[r * lda + p] * B[p * ldb + c]
 *
 * for r < rows (1 <= rows <= the row's mr), c < cols, 1 <= s <=
 * FUSED_SELECT_MAX_DIM, summed as the top comment says. sel[r] is the
 * selection of row r and must be full (its threshold in force). The kernel
 * walks the columns in groups of its tile width, in increasing order, and
 * passes the scores of a row's group that are above sel[r].threshold to
 * top_select_take(&sel[r], scores of the group, their bits, j0 + first
 * column of the group), reading the threshold again after each. Nothing
 * else is written. A and B are only read inside the rows x s and s x cols
 * ranges; no alignment is required.
 */
typedef void (*fused_select_fn)(int64_t rows, int64_t cols, int64_t s, const float *A, int64_t lda, const float *B,
                                int64_t ldb, int64_t j0, top_select *sel);

void fused_select_scalar(int64_t rows, int64_t cols, int64_t s, const float *A, int64_t lda, const float *B,
                         int64_t ldb, int64_t j0, top_select *sel);
#if defined(__x86_64__)
void fused_select_avx2_6x16(int64_t rows, int64_t cols, int64_t s, const float *A, int64_t lda, const float *B,
                            int64_t ldb, int64_t j0, top_select *sel);
void fused_select_avx512_12x32(int64_t rows, int64_t cols, int64_t s, const float *A, int64_t lda, const float *B,
                               int64_t ldb, int64_t j0, top_select *sel);
#endif
#if defined(__aarch64__)
void fused_select_neon_8x12(int64_t rows, int64_t cols, int64_t s, const float *A, int64_t lda, const float *B,
                            int64_t ldb, int64_t j0, top_select *sel);
#endif

/* The kernel of one ISA path: a row of the table of fused_select.c (common/smm_dispatch.h). */
typedef struct {
    smm_kernel_head head; /* "scalar", "avx2_6x16", "avx512_12x32" or "neon_8x12" */
    int mr;               /* rows per strip */
    fused_select_fn select;
} fused_select_kernels;

/* The row of path isa (never NULL; SMM_ISA_AUTO gives the scalar row). */
const fused_select_kernels *fused_select_kernels_for(smm_isa isa);

/*
 * Feed sel[r] (r < rows, every one full) with score(r, c) for c < cols as
 * above, strip by strip with the kernels of path isa. 1 <= s <=
 * FUSED_SELECT_MAX_DIM.
 */
void fused_select_block(smm_isa isa, int64_t rows, int64_t cols, int64_t s, const float *A, int64_t lda,
                        const float *B, int64_t ldb, int64_t j0, top_select *sel);

#endif /* FUSED_SELECT_H */
