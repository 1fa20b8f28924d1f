/*
 * approx_refine.h - the exact step of top-k: given candidate columns for
 * every row of op(A), compute <a_i, b_j> exactly for those pairs only and
 * keep each row's best topk.
 */
#ifndef APPROX_REFINE_H
#define APPROX_REFINE_H

#include "approx/approx_problem.h"

/*
 * Rows of op(A) handled per batch: their (row, candidate) pairs are visited
 * in increasing candidate column, so each column's vector is read once per
 * batch, in memory order, however many rows chose it (the candidates of one
 * row are scattered over op(B): read row by row they would be one random
 * 4k-byte fetch each). The pairs of a column are computed four at a time
 * (approx_dot.h's group kernels: the column's vector widened once, the same
 * bits as one at a time), each thread on a contiguous share of the sorted
 * pairs, the next column's vector prefetched. Measured on Zen 4 (Fashion-
 * MNIST, 10,000 x 60,000, 50 candidates): 512 to 4096 rows per batch run
 * within noise of each other; 16384 is slower (the batch's rows no longer
 * stay in the last-level cache).
 */
#define REFINE_BATCH_ROWS 2048

/*
 * For i < m: cand[i * r .. i * r + r) are r distinct candidate columns of
 * row i (r <= n = cols_b->count); write the topk (<= r) with the largest
 * exact 2^shift <a_i, b_j> (approx_dot.h in double, times 2^shift in double
 * (exact), rounded to float: the vectors may be scaled by powers of two,
 * approx_scale.h) to idx[i * ldk ..] and
 * val[i * ldk ..], largest first, ties to the smaller column. ctx->threads
 * threads; the result does not depend on them. Returns SMM_OK, or
 * SMM_ERR_NO_MEMORY / SMM_ERR_OVERFLOW with the outputs untouched.
 */
smm_status approx_refine(const smm_context *ctx, const approx_vectors *rows_a, const approx_vectors *cols_b, int64_t k,
                         int shift, int64_t m, int64_t r, const int64_t *cand, int64_t topk, int64_t *idx, float *val,
                         int64_t ldk);

#endif /* APPROX_REFINE_H */
