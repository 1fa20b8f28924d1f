/*
 * metrics.h - error measures and timing statistics of the sweep driver.
 * All sums are accumulated in double.
 */
#ifndef SKETCHMM_EXPERIMENTS_METRICS_H
#define SKETCHMM_EXPERIMENTS_METRICS_H

#include <stdint.h>

/* Errors of an estimate Yhat against the exact Y (count entries each). */
typedef struct {
    double nmse;          /* mean((Y - Yhat)^2) / var(Y), var the population variance; NaN when var(Y) == 0 */
    double rel_fro_error; /* ||Y - Yhat||_F / ||Y||_F; NaN when Y == 0 */
    double max_abs_error; /* max |Y - Yhat| (NaN if any difference is NaN) */
} metrics_errors;

/* Compare Yhat with Y. count == 0 gives NaN everywhere. */
void metrics_compare(const float *Y, const float *Yhat, int64_t count, metrics_errors *out);

/* Frobenius norm of count floats. */
double metrics_fro_norm(const float *X, int64_t count);

/* Median of v[0..n) (n >= 1; v is not modified). NaN for n == 0. */
double metrics_median(const double *v, int n);

/* Wall-clock time in seconds from a monotonic clock. */
double metrics_now(void);

#endif /* SKETCHMM_EXPERIMENTS_METRICS_H */
