/*
 * topk_stream.h - the best r columns of every row of an m x n score matrix
 * that is produced block by block and never stored whole: rows in chunks,
 * each chunk's scores computed a column block at a time (with all threads,
 * e.g. one SGEMM) and fed to one selection per row (approx_select.h).
 * Used where a block of scores comes from a matrix product: exact_topk and
 * the top-k of the classical approximate methods.
 */
#ifndef APPROX_TOPK_STREAM_H
#define APPROX_TOPK_STREAM_H

#include "approx/approx_select.h"
#include "common/smm_runtime.h"

/* Rows per chunk and columns per block (a block of scores is at most 64 MiB). */
#define TOPK_STREAM_ROWS 2048
#define TOPK_STREAM_COLS 8192

/*
 * Fill out[r * ldo + c] = score(i0 + r, j0 + c), r < rows, c < cols, with
 * ctx->threads threads. SMM_OK or an allocation failure.
 */
typedef smm_status (*topk_score_fn)(const void *arg, const smm_context *ctx, int64_t i0, int64_t rows, int64_t j0,
                                    int64_t cols, float *out, int64_t ldo);

/*
 * Row i is done: best[0 .. count) are its best min(r, n) scores in order
 * (larger first, then smaller column). Called once per row, from several
 * threads at once (different rows); scratch is the calling thread's
 * scratch_bytes. The callback may overwrite best (e.g. with exact values).
 */
typedef void (*topk_row_fn)(void *arg, int64_t i, scored_index *best, int64_t count, void *scratch);

/*
 * Run the stream over m >= 1 rows and n >= 1 columns, keeping r >= 1 per row.
 * Returns SMM_OK, SMM_ERR_NO_MEMORY or SMM_ERR_OVERFLOW (workspace), or the
 * first failure of score; rows of the chunks before a failure may already
 * have been passed to done.
 */
smm_status topk_stream(const smm_context *ctx, int64_t m, int64_t n, int64_t r, topk_score_fn score,
                       const void *score_arg, topk_row_fn done, void *done_arg, size_t scratch_bytes);

#endif /* APPROX_TOPK_STREAM_H */
