/*
 * pq_lut.c - the byte lookup tables of product-quantization queries (see
 * pq_lut in pq.h for the quantization and its error bound): the
 * quantization of any query's exact tables (pq_lut_quantize, shared with
 * MADDNESS, whose tables come from prototypes instead of centroids) and
 * the exact tables of centroids (pq_lut).
 *
 * Plain C, one query at a time: the 16 inner products of a subspace are
 * accumulated in double across the 16 centroids side by side (the
 * transposed centroids), dimensions in increasing order. Up to 256
 * subspaces the exact tables of a query are kept in a 32 KiB stack buffer
 * between the two passes (ranges, then quantization); beyond that they are
 * computed again in the second pass, the same operations in the same order,
 * so the results do not depend on which way ran.
 */
#include <math.h>
#include <string.h>

#include "sketch/pq.h"

/* Subspaces whose exact tables the stack buffer holds. */
#define PQ_LUT_BUFFERED 256

/* The quantization, inlined into pq_lut so that its table source is a direct (inlined) call there. */
static inline __attribute__((always_inline)) void quantize(int32_t M, pq_table_fn table, const void *arg,
                                                           uint8_t *lut, float *scale, float *bias)
{
    const int buffered = M <= PQ_LUT_BUFFERED;
    double buf[PQ_LUT_BUFFERED * PQ_CENTROIDS];
    double widest = 0.0, sum_min = 0.0;
    for (int32_t m = 0; m < M; m++) {
        double local[PQ_CENTROIDS];
        double *T = buffered ? buf + (size_t)m * PQ_CENTROIDS : local;
        table(arg, m, T);
        double lo = T[0], hi = T[0];
        for (int c = 1; c < PQ_CENTROIDS; c++) {
            lo = T[c] < lo ? T[c] : lo;
            hi = T[c] > hi ? T[c] : hi;
        }
        widest = hi - lo > widest ? hi - lo : widest;
        sum_min += lo;
    }
    float delta = 1.0f;
    if (widest > 0.0) {
        delta = (float)(widest / 255.0);
        if ((double)delta * 255.0 < widest) /* exact product: 24 + 8 bits */
            delta = nextafterf(delta, INFINITY);
    }
    for (int32_t m = 0; m < M; m++) {
        double local[PQ_CENTROIDS];
        double *T = buffered ? buf + (size_t)m * PQ_CENTROIDS : local;
        if (!buffered)
            table(arg, m, T);
        double lo = T[0];
        for (int c = 1; c < PQ_CENTROIDS; c++)
            lo = T[c] < lo ? T[c] : lo;
        for (int c = 0; c < PQ_CENTROIDS; c++) {
            double v = floor((T[c] - lo) / (double)delta + 0.5);
            v = v > 255.0 ? 255.0 : v; /* never (range <= 255 delta); NaN only from non-finite input */
            lut[m * PQ_CENTROIDS + c] = v >= 0.0 ? (uint8_t)v : 0;
        }
    }
    *scale = delta;
    *bias = (float)sum_min;
}

void pq_lut_quantize(int32_t M, pq_table_fn table, const void *arg, uint8_t *lut, float *scale, float *bias)
{
    quantize(M, table, arg, lut, scale, bias);
}

/* A query against a codebook: the source of pq_lut's exact tables. */
typedef struct {
    const pq_codebook *cb;
    const float *q;
} centroid_query;

/* T[c] = <q part m, centroid (m, c)> in double. */
static void exact_table(const void *arg, int32_t m, double T[PQ_CENTROIDS])
{
    const centroid_query *cq = arg;
    const pq_codebook *cb = cq->cb;
    const float *q = cq->q;
    const int64_t lo = cb->start[m], d = cb->start[m + 1] - lo;
    const float *ct = cb->centroids_t + PQ_CENTROIDS * lo;
    for (int c = 0; c < PQ_CENTROIDS; c++)
        T[c] = 0.0;
    for (int64_t t = 0; t < d; t++) {
        const double v = (double)q[lo + t];
        for (int c = 0; c < PQ_CENTROIDS; c++)
            T[c] += v * (double)ct[t * PQ_CENTROIDS + c];
    }
}

void pq_lut(const pq_codebook *cb, const float *Q, int64_t rows, int64_t ld, uint8_t *lut, float *scale,
            float *bias)
{
    const int32_t M = cb->M;
    for (int64_t r = 0; r < rows; r++) {
        const centroid_query cq = { cb, Q + r * ld };
        quantize(M, exact_table, &cq, lut + r * (int64_t)M * PQ_CENTROIDS, scale + r, bias + r);
    }
}
