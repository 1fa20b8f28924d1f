/*
 * topk_stream.c - per-row best-r selection over a score matrix produced block
 * by block (see topk_stream.h).
 *
 * Tasks: row block b (shape.rows rows) times column range c of csplit
 * ranges (whole column blocks of shape.cols). csplit is 1
 * unless there are fewer than two row blocks per thread; then each row
 * block's columns are split so the threads still have tasks, every task
 * keeps its rows' best r over its own columns, and a second pass merges the
 * ranges of each row (the union holds the best r of the row: each range
 * kept its own best r, under the same total order). Threads take tasks
 * dynamically; each computes a block of scores on one thread into its own
 * buffer and feeds its rows' selections from it while it is in the cache,
 * or, once the selections of its rows are full and the stream has a select
 * function that takes the block, has it feed them without a buffer.
 */
#include "approx/topk_stream.h"

#include <omp.h>
#include <string.h>

/* Largest bytes of per-range partial lists the column split may keep (m x csplit x r entries). */
#define TOPK_STREAM_SPLIT_BYTES (256.0 * 1024 * 1024)

topk_shape topk_shape_of_size(int32_t size, int64_t k)
{
    (void)k;
    return topk_stream_shape(size);
}

smm_status topk_stream(const smm_context *ctx, int64_t m, int64_t n, int64_t r, topk_shape shape, int sorted,
                       const topk_scores *scores, topk_row_fn done, void *done_arg, size_t scratch_bytes)
{
    const int64_t RB = shape.rows, CB = shape.cols;
    const int64_t row_blocks = (m + RB - 1) / RB, col_blocks = (n + CB - 1) / CB;
    const int64_t task_rows = m < RB ? m : RB, block_cols = n < CB ? n : CB;
    const int threads = ctx->threads;
    const int64_t cap = top_select_capacity(r);
    const int64_t kept_r = r < n ? r : n;

    /* the column split: enough tasks for the threads while the partial lists stay small */
    int64_t csplit = 1;
    if (row_blocks < 2 * (int64_t)threads) {
        csplit = (2 * (int64_t)threads + row_blocks - 1) / row_blocks;
        if (csplit > col_blocks)
            csplit = col_blocks;
        while (csplit > 1 && (double)m * (double)csplit * (double)kept_r * sizeof(scored_index) >
                                 TOPK_STREAM_SPLIT_BYTES)
            csplit--;
    }
    const int64_t tasks = row_blocks * csplit;
    const int team = tasks < threads ? (int)tasks : threads;

    /* per-thread workspace: the score block, the selections, the merge buffer, the callback's scratch */
    const size_t block_bytes = ((size_t)(task_rows * block_cols) * sizeof(float) + 63) & ~(size_t)63;
    const double sel_bytes = (double)task_rows * (double)cap * (double)sizeof(scored_index);
    const size_t sels_bytes = ((size_t)task_rows * sizeof(top_select) + 63) & ~(size_t)63;
    const double merge_bytes = csplit > 1 ? (double)csplit * (double)kept_r * (double)sizeof(scored_index) : 0.0;
    const size_t scratch = (scratch_bytes + 63) & ~(size_t)63;
    const double per_thread_d = (double)block_bytes + (double)sels_bytes + ((sel_bytes + 63) / 64) * 64 +
                                ((merge_bytes + 63) / 64) * 64 + (double)scratch;
    if (per_thread_d * team > 1e15)
        return SMM_ERR_OVERFLOW;
    const size_t sel_sz = ((size_t)sel_bytes + 63) & ~(size_t)63;
    const size_t merge_sz = ((size_t)merge_bytes + 63) & ~(size_t)63;
    const size_t per_thread = block_bytes + sels_bytes + sel_sz + merge_sz + scratch;
    char *work = smm_aligned_alloc(per_thread * (size_t)team);
    /* partial lists of the column split: row i's range c at parts[(i * csplit + c) * kept_r], its length in lens */
    scored_index *parts = NULL;
    int64_t *lens = NULL;
    if (csplit > 1) {
        parts = smm_aligned_alloc((size_t)m * (size_t)csplit * (size_t)kept_r * sizeof(scored_index));
        lens = smm_aligned_alloc((size_t)m * (size_t)csplit * sizeof(int64_t));
    }
    if (work == NULL || (csplit > 1 && (parts == NULL || lens == NULL))) {
        smm_aligned_free(work);
        smm_aligned_free(parts);
        smm_aligned_free(lens);
        return SMM_ERR_NO_MEMORY;
    }

    const smm_context one = { ctx->isa, 1 };
    smm_status status = SMM_OK;
    int failed = 0;

#pragma omp parallel num_threads(team)
    {
        char *mine = work + per_thread * (size_t)omp_get_thread_num();
        float *block = (float *)mine;
        top_select *sel = (top_select *)(mine + block_bytes);
        scored_index *bufs = (scored_index *)(mine + block_bytes + sels_bytes);
        scored_index *merge = (scored_index *)(mine + block_bytes + sels_bytes + sel_sz);
        void *my_scratch = scratch > 0 ? mine + block_bytes + sels_bytes + sel_sz + merge_sz : NULL;

#pragma omp for schedule(dynamic, 1)
        for (int64_t task = 0; task < tasks; task++) {
            if (__atomic_load_n(&failed, __ATOMIC_RELAXED))
                continue;
            const int64_t i0 = (task / csplit) * RB, c = task % csplit;
            const int64_t rows = m - i0 < RB ? m - i0 : RB;
            const int64_t cb0 = col_blocks * c / csplit, cb1 = col_blocks * (c + 1) / csplit;
            for (int64_t row = 0; row < rows; row++)
                top_select_init(&sel[row], bufs + row * cap, r, ctx->isa);
            smm_status s = SMM_OK;
            int full = 0; /* every row of the task has r scores: blocks may go to scores->select */
            for (int64_t cb = cb0; cb < cb1 && s == SMM_OK; cb++) {
                const int64_t j0 = cb * CB, cols = n - j0 < CB ? n - j0 : CB;
                if (full && scores->select != NULL && scores->select(scores->arg, &one, i0, rows, j0, cols, sel))
                    continue;
                s = scores->score(scores->arg, &one, i0, rows, j0, cols, block, block_cols);
                if (s == SMM_OK)
                    for (int64_t row = 0; row < rows; row++)
                        top_select_feed(&sel[row], block + row * block_cols, j0, cols);
                full = 1;
                for (int64_t row = 0; row < rows; row++)
                    full &= sel[row].full;
            }
            if (s != SMM_OK) {
                int expected = 0; /* the first failure's status is the call's */
                if (__atomic_compare_exchange_n(&failed, &expected, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
                    status = s;
                continue;
            }
            for (int64_t row = 0; row < rows; row++) {
                const int64_t count = top_select_finish(&sel[row], sorted);
                if (csplit == 1) {
                    done(done_arg, i0 + row, sel[row].buf, count, my_scratch);
                } else {
                    const int64_t slot = (i0 + row) * csplit + c;
                    memcpy(parts + slot * kept_r, sel[row].buf, (size_t)count * sizeof(scored_index));
                    lens[slot] = count;
                }
            }
        }
        /* the implicit barrier of the loop: every range is done, and every thread sees the same `failed` */
        if (csplit > 1 && !__atomic_load_n(&failed, __ATOMIC_RELAXED)) {
#pragma omp for schedule(static)
            for (int64_t i = 0; i < m; i++) {
                int64_t total = 0;
                for (int64_t c = 0; c < csplit; c++) {
                    const int64_t slot = i * csplit + c;
                    memcpy(merge + total, parts + slot * kept_r, (size_t)lens[slot] * sizeof(scored_index));
                    total += lens[slot];
                }
                scored_first(merge, total, r); /* in order, which is also fine unsorted */
                done(done_arg, i, merge, total < r ? total : r, my_scratch);
            }
        }
    }
    smm_aligned_free(work);
    smm_aligned_free(parts);
    smm_aligned_free(lens);
    return status;
}
