/*
 * metrics.c - error measures and timing statistics. See metrics.h.
 */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void metrics_compare(const float *Y, const float *Yhat, int64_t count, metrics_errors *out)
{
    if (count <= 0) {
        out->nmse = out->rel_fro_error = out->max_abs_error = NAN;
        return;
    }
    double sum_y = 0.0;
    for (int64_t i = 0; i < count; i++)
        sum_y += Y[i];
    double mean_y = sum_y / (double)count;

    double var_acc = 0.0, y2 = 0.0, e2 = 0.0, emax = 0.0;
    int nan_seen = 0;
    for (int64_t i = 0; i < count; i++) {
        double y = Y[i];
        double d = y - (double)Yhat[i];
        double c = y - mean_y;
        var_acc += c * c;
        y2 += y * y;
        e2 += d * d;
        double ad = fabs(d);
        if (isnan(ad))
            nan_seen = 1;
        else if (ad > emax)
            emax = ad;
    }
    double var = var_acc / (double)count;
    out->nmse = var > 0.0 ? (e2 / (double)count) / var : NAN;
    out->rel_fro_error = y2 > 0.0 ? sqrt(e2) / sqrt(y2) : NAN;
    out->max_abs_error = nan_seen ? NAN : emax;
}

double metrics_fro_norm(const float *X, int64_t count)
{
    double s = 0.0;
    for (int64_t i = 0; i < count; i++)
        s += (double)X[i] * (double)X[i];
    return sqrt(s);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double metrics_median(const double *v, int n)
{
    if (n <= 0)
        return NAN;
    double *w = malloc((size_t)n * sizeof *w);
    if (w == NULL)
        return NAN;
    memcpy(w, v, (size_t)n * sizeof *w);
    qsort(w, (size_t)n, sizeof *w, cmp_double);
    double med = (n % 2 == 1) ? w[n / 2] : 0.5 * (w[n / 2 - 1] + w[n / 2]);
    free(w);
    return med;
}

double metrics_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
