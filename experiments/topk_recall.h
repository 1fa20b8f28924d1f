/*
 * topk_recall.h - the one definition of top-k recall the sweep
 * (sweep_topk.c) and the benchmark (bench/bench_topk.c) report
 * (topk_recall.c).
 *
 * Queries Q (m x k) and database D (n x k) are stored one vector per row,
 * row-major. With E_i the exact top-K of query i (exact_topk's indices) and
 * the threshold of its first t entries
 *     thr_i(t) = float(min over the first t of E_i of <q_i, d_j>),
 * dot products in double rounded to float, the recall@t of a result P
 * (its first t columns of each row) is the mean over i of
 *     |{ j in P_i, in range, not repeated earlier in the row :
 *        float(<q_i, d_j>) >= thr_i(t) }| / t:
 * value-based, so a column tied with the exact t-th value counts as a hit
 * and the figure does not depend on how ties were broken.
 */
#ifndef SKETCHMM_TOPK_RECALL_H
#define SKETCHMM_TOPK_RECALL_H

#include <stdint.h>

/* <x, y> over k floats, accumulated in double in increasing index. */
double topk_dot_double(const float *x, const float *y, int64_t k);

/*
 * thr[i] := thr_i(t) for every query, from the exact top-K indices exact
 * (m x K, row stride K), 1 <= t <= K. Runs on the OpenMP threads.
 */
void topk_recall_thresholds(const float *Q, const float *D, int64_t m, int64_t k, const int64_t *exact, int64_t K,
                            int64_t t, float *thr);

/*
 * The recall@t of idx (m rows, row stride ldi >= t, columns of 0..n-1)
 * against thresholds thr of topk_recall_thresholds(.., t, thr). Runs on the
 * OpenMP threads; the same value for every thread count.
 */
double topk_recall(const float *Q, const float *D, int64_t m, int64_t n, int64_t k, const int64_t *idx, int64_t ldi,
                   int64_t t, const float *thr);

#endif /* SKETCHMM_TOPK_RECALL_H */
