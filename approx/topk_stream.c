/*
 * topk_stream.c - per-row best-r selection over a score matrix produced block
 * by block (see topk_stream.h).
 */
#include "approx/topk_stream.h"

#include <omp.h>

smm_status topk_stream(const smm_context *ctx, int64_t m, int64_t n, int64_t r, topk_score_fn score,
                       const void *score_arg, topk_row_fn done, void *done_arg, size_t scratch_bytes)
{
    const int64_t chunk_rows = m < TOPK_STREAM_ROWS ? m : TOPK_STREAM_ROWS;
    const int64_t block_cols = n < TOPK_STREAM_COLS ? n : TOPK_STREAM_COLS;
    const int64_t cap = top_select_capacity(r);
    const double sel_bytes = (double)chunk_rows * (double)cap * (double)sizeof(scored_index);
    const size_t scratch = (scratch_bytes + 63) & ~(size_t)63;
    if (sel_bytes > 1e15 || (double)scratch * ctx->threads > 1e15)
        return SMM_ERR_OVERFLOW;
    float *block = smm_aligned_alloc((size_t)(chunk_rows * block_cols) * sizeof(float));
    scored_index *bufs = smm_aligned_alloc((size_t)sel_bytes);
    top_select *sel = smm_aligned_alloc((size_t)chunk_rows * sizeof(top_select));
    char *scratches = scratch > 0 ? smm_aligned_alloc(scratch * (size_t)ctx->threads) : NULL;
    smm_status s = block && bufs && sel && (scratch == 0 || scratches) ? SMM_OK : SMM_ERR_NO_MEMORY;
    for (int64_t i0 = 0; i0 < m && s == SMM_OK; i0 += chunk_rows) {
        const int64_t rows = m - i0 < chunk_rows ? m - i0 : chunk_rows;
        for (int64_t row = 0; row < rows; row++)
            top_select_init(&sel[row], bufs + row * cap, r);
        for (int64_t j0 = 0; j0 < n && s == SMM_OK; j0 += block_cols) {
            const int64_t cols = n - j0 < block_cols ? n - j0 : block_cols;
            s = score(score_arg, ctx, i0, rows, j0, cols, block, block_cols);
            if (s != SMM_OK)
                break;
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
            for (int64_t row = 0; row < rows; row++)
                top_select_feed(&sel[row], block + row * block_cols, j0, cols);
        }
        if (s != SMM_OK)
            break;
#pragma omp parallel for num_threads(ctx->threads) schedule(dynamic, 16)
        for (int64_t row = 0; row < rows; row++) {
            const int64_t count = top_select_finish(&sel[row]);
            void *mine = scratch > 0 ? scratches + scratch * (size_t)omp_get_thread_num() : NULL;
            done(done_arg, i0 + row, sel[row].buf, count, mine);
        }
    }
    smm_aligned_free(block);
    smm_aligned_free(bufs);
    smm_aligned_free(sel);
    smm_aligned_free(scratches);
    return s;
}
