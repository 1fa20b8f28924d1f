/*
 * crosspolytope_estimate.c - calibration of cross-polytope codes: collision
 * probabilities interpolated from the table of crosspolytope_table.c, the
 * expected number of matches, its inverse (the cosine estimate) and the
 * variances (see sketch.h, "Cross-polytope LSH").
 *
 * Every function interpolates p_D linearly in theta = acos(rho) between the
 * table angles theta_k = k pi / CP_TABLE_STEPS. E[matches] on the grid is
 * L p_D(theta_k) + [r > 0] p_D'(theta_k), strictly decreasing in k until it
 * reaches 0; the estimate inverts the piecewise-linear E(theta).
 */
#include <math.h>

#include "sketch/crosspolytope.h"

static const double CP_PI = 3.14159265358979323846;

/* log2 of a power of two dim in 1 .. 2^CP_TABLE_MAX_LOG2, or -1. */
static int log2_dim(int64_t dim)
{
    for (int e = 0; e <= CP_TABLE_MAX_LOG2; e++)
        if (dim == (INT64_C(1) << e))
            return e;
    return -1;
}

/* Table segment k (0 .. STEPS - 1) holding theta and the fraction within it. */
static int segment(double theta, double *frac)
{
    const double step = CP_PI / CP_TABLE_STEPS;
    double pos = theta / step;
    if (pos < 0.0)
        pos = 0.0;
    int k = (int)pos;
    if (k >= CP_TABLE_STEPS)
        k = CP_TABLE_STEPS - 1;
    *frac = pos - k;
    if (*frac > 1.0)
        *frac = 1.0;
    return k;
}

static double interp(const double *row, double theta)
{
    double f;
    const int k = segment(theta, &f);
    return row[k] + f * (row[k + 1] - row[k]);
}

double sketch_crosspolytope_collision_probability(int64_t d, int64_t hash_dim, double rho)
{
    sketch_cp_layout lay;
    if (sketch_crosspolytope_layout(d, 1, &lay) != SMM_OK || !(rho >= -1.0 && rho <= 1.0))
        return NAN;
    const int e2 = log2_dim(hash_dim);
    if (e2 < 0 || hash_dim > lay.dim)
        return NAN;
    return interp(cp_table_row(log2_dim(lay.dim), e2), acos(rho));
}

/* The table rows of a layout: *full for dimension D, *last for D' (NULL when r == 0). */
static void layout_rows(const sketch_cp_layout *lay, const double **full, const double **last)
{
    const int e = log2_dim(lay->dim);
    *full = cp_table_row(e, e);
    *last = lay->last_width > 0 ? cp_table_row(e, lay->last_width - 1) : NULL;
}

/* E[matches] at grid angle k. */
static double expected_at(const sketch_cp_layout *lay, const double *full, const double *last, int k)
{
    return (double)lay->full_hashes * full[k] + (last ? last[k] : 0.0);
}

double sketch_crosspolytope_expected_matches(int64_t d, int32_t bits, double rho)
{
    sketch_cp_layout lay;
    if (sketch_crosspolytope_layout(d, bits, &lay) != SMM_OK || !(rho >= -1.0 && rho <= 1.0))
        return NAN;
    const double *full, *last;
    layout_rows(&lay, &full, &last);
    const double theta = acos(rho);
    return (double)lay.full_hashes * interp(full, theta) + (last ? interp(last, theta) : 0.0);
}

double sketch_crosspolytope_cosine_estimate(int64_t d, int32_t bits, int64_t matches)
{
    sketch_cp_layout lay;
    if (sketch_crosspolytope_layout(d, bits, &lay) != SMM_OK || matches < 0 || matches > lay.hashes)
        return NAN;
    if (matches == lay.hashes)
        return 1.0;
    if (matches == 0)
        return -1.0;
    const double *full, *last;
    layout_rows(&lay, &full, &last);
    const double m = (double)matches;
    /* largest k with E_k >= m: E_0 = hashes > m, E_STEPS = 0 < m */
    int lo = 0, hi = CP_TABLE_STEPS;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (expected_at(&lay, full, last, mid) >= m)
            lo = mid;
        else
            hi = mid;
    }
    const double e0 = expected_at(&lay, full, last, lo), e1 = expected_at(&lay, full, last, lo + 1);
    const double theta = (lo + (e0 - m) / (e0 - e1)) * (CP_PI / CP_TABLE_STEPS);
    const double c = cos(theta);
    return c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c;
}

double sketch_crosspolytope_matches_variance(int64_t d, int32_t bits, double rho)
{
    sketch_cp_layout lay;
    if (sketch_crosspolytope_layout(d, bits, &lay) != SMM_OK || !(rho >= -1.0 && rho <= 1.0))
        return NAN;
    const double *full, *last;
    layout_rows(&lay, &full, &last);
    const double theta = acos(rho);
    const double p = interp(full, theta);
    double v = (double)lay.full_hashes * p * (1.0 - p);
    if (last) {
        const double q = interp(last, theta);
        v += q * (1.0 - q);
    }
    return v;
}

double sketch_crosspolytope_cosine_variance(int64_t d, int32_t bits, double rho)
{
    const double var = sketch_crosspolytope_matches_variance(d, bits, rho);
    if (isnan(var))
        return NAN;
    if (var == 0.0)
        return 0.0;
    sketch_cp_layout lay;
    (void)sketch_crosspolytope_layout(d, bits, &lay);
    const double *full, *last;
    layout_rows(&lay, &full, &last);
    /* slope of the interpolated E in rho: the chord of the table segment holding theta */
    double f;
    const int k = segment(acos(rho), &f);
    const double step = CP_PI / CP_TABLE_STEPS;
    const double de = expected_at(&lay, full, last, k + 1) - expected_at(&lay, full, last, k);
    const double drho = cos((k + 1) * step) - cos(k * step);
    const double slope = de / drho;
    return slope > 0.0 ? var / (slope * slope) : INFINITY;
}
