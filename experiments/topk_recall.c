/*
 * topk_recall.c - the recall of a top-k result against the exact one, as
 * the sweep and the benchmark report it (topk_recall.h).
 */
#include "topk_recall.h"

#include <math.h>

double topk_dot_double(const float *x, const float *y, int64_t k)
{
    double s = 0.0;
    for (int64_t t = 0; t < k; t++)
        s += (double)x[t] * (double)y[t];
    return s;
}

void topk_recall_thresholds(const float *Q, const float *D, int64_t m, int64_t k, const int64_t *exact, int64_t K,
                            int64_t t, float *thr)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < m; i++) {
        double lo = INFINITY;
        for (int64_t u = 0; u < t && u < K; u++) {
            const double d = topk_dot_double(Q + i * k, D + exact[i * K + u] * k, k);
            lo = d < lo ? d : lo;
        }
        thr[i] = (float)lo;
    }
}

double topk_recall(const float *Q, const float *D, int64_t m, int64_t n, int64_t k, const int64_t *idx, int64_t ldi,
                   int64_t t, const float *thr)
{
    int64_t hits = 0;
#pragma omp parallel for schedule(static) reduction(+ : hits)
    for (int64_t i = 0; i < m; i++)
        for (int64_t u = 0; u < t; u++) {
            const int64_t j = idx[i * ldi + u];
            int repeated = 0;
            for (int64_t v = 0; v < u; v++)
                repeated |= idx[i * ldi + v] == j;
            if (j >= 0 && j < n && !repeated)
                hits += (float)topk_dot_double(Q + i * k, D + j * k, k) >= thr[i];
        }
    return (double)hits / ((double)m * (double)t);
}
