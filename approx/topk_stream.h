/*
 * topk_stream.h - the best r columns of every row of an m x n score matrix
 * that is produced block by block and never stored whole. Each thread takes
 * a task of 64 to 256 rows (topk_stream_rows; and, when the rows are too few
 * to keep the threads busy, a range of the columns), computes its scores a cache
 * block of TOPK_STREAM_COLS columns at a time on one thread (e.g. one
 * single-thread SGEMM) and feeds each row's selection (approx_select.h)
 * from that block at once, while it is in the cache: the scores never go
 * to memory. Once a task's selections are full, a stream that can compute
 * its scores straight into them (topk_scores.select: the fused candidate
 * pass of the sketched-factor methods, fused_select.h) does so, and its
 * blocks are not stored at all. The one top-k driver: exact_topk (for long
 * products in the exact core's configured block, approx/exact_topk.h) and
 * the candidate pass of every approximate method.
 */
#ifndef APPROX_TOPK_STREAM_H
#define APPROX_TOPK_STREAM_H

#include "approx/approx_select.h"
#include "common/smm_runtime.h"
#include "exact/tuning.h"

/* The blocks of a stream: rows per task, columns per score block (a method's, approx_method.topk_shape). */
typedef struct {
    int64_t rows, cols;
} topk_shape;

/*
 * Columns per block, and rows per task by the score's cost: dim is the
 * length of the dot products behind a score (the sketch dimension of a
 * classical method, k for exact_topk). Short products are cheap and bound by
 * memory: 64 x 2048 blocks (512 KiB, in L2 next to the selections). Long
 * ones are bound by the SGEMM, which streams the block's columns once per
 * task: more rows per task read them less often (256 rows at dim > 256; the
 * block, 2 MiB, then lives in L3). The block grid depends on m, n and dim,
 * never on the thread count, so every score is computed the same way with
 * any threads.
 */
#define TOPK_STREAM_COLS TUNING_TOPK_COLS_DEFAULT  /* 2048: exact_topk's untuned block (exact/tuning.h) */
#define TOPK_STREAM_MAX_ROWS TUNING_TOPK_ROWS_DEFAULT /* 256 */
static inline int64_t topk_stream_rows(int64_t dim)
{
    return dim <= 64 ? 64 : dim <= 256 ? 128 : TOPK_STREAM_MAX_ROWS;
}

/* The shape of a stream whose scores are dot products of length dim (an SGEMM or a scan per block). */
static inline topk_shape topk_stream_shape(int64_t dim)
{
    const topk_shape shape = { topk_stream_rows(dim), TOPK_STREAM_COLS };
    return shape;
}

/* topk_stream_shape of dot products of the sketch dimension: the blocks of the methods whose scores are
 * SGEMMs or scans over a size-long sketch (an approx_method.topk_shape; k is not used). */
topk_shape topk_shape_of_size(int32_t size, int64_t k);

/*
 * Fill out[r * ldo + c] = score(i0 + r, j0 + c), r < rows, c < cols, with
 * ctx->threads threads (topk_stream passes a context with one thread, from
 * inside its parallel region: the function must be safe to call from several
 * threads at once). rows <= shape.rows, cols <= shape.cols, j0 a multiple of
 * shape.cols. SMM_OK or an allocation failure.
 */
typedef smm_status (*topk_score_fn)(const void *arg, const smm_context *ctx, int64_t i0, int64_t rows, int64_t j0,
                                    int64_t cols, float *out, int64_t ldo);

/*
 * Feed sel[r] (r < rows, every one full: its threshold in force) with
 * score(i0 + r, j0 + c) for c < cols, the values a topk_score_fn of the same
 * stream gives, without storing them (block limits as for topk_score_fn, one
 * thread, safe to call from several threads at once). Returns 1 when done,
 * 0 with sel untouched when it cannot give exactly those values (the stream
 * then computes the block into its buffer).
 */
typedef int (*topk_select_fn)(const void *arg, const smm_context *ctx, int64_t i0, int64_t rows, int64_t j0,
                              int64_t cols, top_select *sel);

/* Where a stream's scores come from: a block into a buffer, and optionally straight into the selections. */
typedef struct {
    topk_score_fn score;
    topk_select_fn select; /* NULL: every block through score */
    const void *arg;       /* the first argument of both */
} topk_scores;

/*
 * Row i is done: best[0 .. count) are its best min(r, n) scores, in order
 * (larger first, then smaller column) when topk_stream was asked for sorted
 * rows, else in no particular order. Called once per row, from several
 * threads at once (different rows); scratch is the calling thread's
 * scratch_bytes. The callback may overwrite best (e.g. with exact values).
 */
typedef void (*topk_row_fn)(void *arg, int64_t i, scored_index *best, int64_t count, void *scratch);

/*
 * Run the stream over m >= 1 rows and n >= 1 columns, keeping r >= 1 per row,
 * with ctx->threads threads (the selection's kernels from ctx->isa), in
 * blocks of shape (rows, cols >= 1; topk_stream_shape for products, a
 * method's own otherwise); sorted != 0 asks for each row's best in order.
 * A task's blocks go through scores->score until every row of the task has
 * r scores (its first block, when r <= shape.cols), then through
 * scores->select when there is one and it accepts the block.
 * Returns SMM_OK, SMM_ERR_NO_MEMORY or SMM_ERR_OVERFLOW (workspace), or the
 * first failure of score; rows finished before a failure may already have
 * been passed to done. The result does not depend on the thread count.
 */
smm_status topk_stream(const smm_context *ctx, int64_t m, int64_t n, int64_t r, topk_shape shape, int sorted,
                       const topk_scores *scores, topk_row_fn done, void *done_arg, size_t scratch_bytes);

#endif /* APPROX_TOPK_STREAM_H */
