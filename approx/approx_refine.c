/*
 * approx_refine.c - exact values for the candidates of top-k, a batch of
 * rows at a time in increasing candidate column (see approx_refine.h).
 */
#include "approx/approx_refine.h"

#include <math.h>
#include <omp.h>
#include <string.h>

#include "approx/approx_dot.h"
#include "approx/approx_select.h"

/* Vector i of v as k contiguous floats: a pointer into v, or a copy in tmp. */
static const float *vector_of(const approx_vectors *v, int64_t i, int64_t k, float *tmp)
{
    if (v->layout == SMM_ROW_MAJOR)
        return v->data + i * v->ld;
    for (int64_t t = 0; t < k; t++)
        tmp[t] = v->data[t * v->ld + i];
    return tmp;
}

/* Ask for the k floats at v to be brought to the cache (a hint: no fault, no result). */
static void prefetch_vector(const float *v, int64_t k)
{
    for (int64_t t = 0; t < k; t += 16)
        __builtin_prefetch(v + t, 0, 3);
}

smm_status approx_refine(const smm_context *ctx, const approx_vectors *rows_a, const approx_vectors *cols_b, int64_t k,
                         int shift, int64_t m, int64_t r, const int64_t *cand, int64_t topk, int64_t *idx, float *val,
                         int64_t ldk)
{
    const int64_t n = cols_b->count;
    const int64_t batch = m < REFINE_BATCH_ROWS ? m : REFINE_BATCH_ROWS;
    const int threads = ctx->threads;
    int64_t pairs;
    if (smm_mul_size(batch, r, &pairs) != SMM_OK || pairs > INT64_MAX / 16 || n > INT64_MAX / 16)
        return SMM_ERR_OVERFLOW;
    int64_t *start = smm_aligned_alloc((size_t)(n + 1) * sizeof(int64_t)); /* first sorted pair of each column */
    int64_t *order = smm_aligned_alloc((size_t)pairs * sizeof(int64_t));   /* pairs by column: row * r + c */
    float *exact = smm_aligned_alloc((size_t)pairs * sizeof(float));        /* value of pair row * r + c */
    scored_index *best = smm_aligned_alloc((size_t)threads * (size_t)r * sizeof(scored_index));
    float *tmp = smm_aligned_alloc((size_t)threads * (size_t)k * sizeof(float));
    /* a column-major op(A) is copied a batch at a time, so each pair reads its row contiguously */
    const int gather_a = rows_a->layout != SMM_ROW_MAJOR;
    float *a_batch = gather_a ? smm_aligned_alloc((size_t)batch * (size_t)k * sizeof(float)) : NULL;
    smm_status s = start && order && exact && best && tmp && (a_batch || !gather_a) ? SMM_OK : SMM_ERR_NO_MEMORY;
    const approx_dot_kernels *kernels = approx_dot_kernels_for(ctx->isa);
    const int prefetch_b = cols_b->layout == SMM_ROW_MAJOR;

    for (int64_t i0 = 0; i0 < m && s == SMM_OK; i0 += batch) {
        const int64_t rows = m - i0 < batch ? m - i0 : batch;
        const int64_t count = rows * r;
        const int64_t *c0 = cand + i0 * r;
        /* counting sort of the batch's pairs by candidate column (stable: row order within a column) */
        memset(start, 0, (size_t)(n + 1) * sizeof(int64_t));
        for (int64_t p = 0; p < count; p++)
            start[c0[p] + 1]++;
        for (int64_t j = 0; j < n; j++)
            start[j + 1] += start[j];
        for (int64_t p = 0; p < count; p++)
            order[start[c0[p]]++] = p;
        /* start[j] is now the end of column j's pairs, i.e. the start of j + 1's */

#pragma omp parallel num_threads(threads)
        {
            float *b_tmp = tmp + (size_t)omp_get_thread_num() * (size_t)k;
            if (gather_a) {
#pragma omp for schedule(static)
                for (int64_t row = 0; row < rows; row++)
                    for (int64_t t = 0; t < k; t++)
                        a_batch[row * k + t] = approx_vectors_at(rows_a, i0 + row, t);
            }
            /* the thread's share of the sorted pairs, a run of pairs per column */
            const int64_t team = omp_get_num_threads(), me = omp_get_thread_num();
            const int64_t q1 = count * (me + 1) / team;
            for (int64_t q = count * me / team; q < q1;) {
                const int64_t j = c0[order[q]];
                const int64_t end = start[j] < q1 ? start[j] : q1;
                if (prefetch_b && start[j] < count) /* the next column's vector, while this run computes */
                    prefetch_vector(cols_b->data + c0[order[start[j]]] * cols_b->ld, k);
                const float *b = vector_of(cols_b, j, k, b_tmp);
                while (q < end) {
                    const int64_t group = end - q < APPROX_DOT_GROUP ? end - q : APPROX_DOT_GROUP;
                    const float *a[APPROX_DOT_GROUP];
                    int64_t p[APPROX_DOT_GROUP];
                    for (int64_t g = 0; g < group; g++) {
                        p[g] = order[q + g];
                        const int64_t row = p[g] / r;
                        a[g] = gather_a ? a_batch + row * k : rows_a->data + (i0 + row) * rows_a->ld;
                    }
                    double d[APPROX_DOT_GROUP];
                    if (group == APPROX_DOT_GROUP) {
                        kernels->group(a, b, k, d);
                    } else {
                        for (int64_t g = 0; g < group; g++)
                            d[g] = kernels->dot(a[g], b, k);
                    }
                    for (int64_t g = 0; g < group; g++)
                        exact[p[g]] = shift == 0 ? (float)d[g] : (float)ldexp(d[g], shift);
                    q += group;
                }
            }
#pragma omp barrier
#pragma omp for schedule(static)
            for (int64_t row = 0; row < rows; row++) {
                scored_index *mine = best + (size_t)omp_get_thread_num() * (size_t)r;
                for (int64_t c = 0; c < r; c++) {
                    mine[c].score = exact[row * r + c];
                    mine[c].index = c0[row * r + c];
                }
                scored_first(mine, r, topk);
                for (int64_t t = 0; t < topk; t++) {
                    idx[(i0 + row) * ldk + t] = mine[t].index;
                    val[(i0 + row) * ldk + t] = mine[t].score;
                }
            }
        }
    }
    smm_aligned_free(start);
    smm_aligned_free(order);
    smm_aligned_free(exact);
    smm_aligned_free(best);
    smm_aligned_free(tmp);
    smm_aligned_free(a_batch);
    return s;
}
