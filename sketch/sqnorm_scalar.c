/*
 * sqnorm_scalar.c - portable reference of the group squared-norm and
 * scale-and-pad kernels (see vector_norms.h and hd_rotation.h). Also the fallback of the
 * vector kernels for strides they do not handle.
 */
#include <math.h>

#include "sketch/hd_rotation.h"
#include "sketch/vector_norms.h"

void sq_norms_continue(const float *X, int64_t row_step, int64_t elem_step, int64_t count, int64_t t0,
                       int64_t d, double *ss, float *big)
{
    for (int64_t k = 0; k < count && t0 < d; k++) {
        const float *x = X + k * row_step;
        double s = ss[k];
        float b = big[k];
        for (int64_t t = t0; t < d; t++) {
            const float a = x[t * elem_step], aa = fabsf(a);
            b = aa > b ? aa : b;
            s += (double)a * (double)a;
        }
        ss[k] = s;
        big[k] = b;
    }
}

void sq_norms_scalar(const float *X, int64_t row_step, int64_t elem_step, int64_t d, double *ss, float *big)
{
    for (int k = 0; k < SQ_NORMS_GROUP; k++) {
        ss[k] = 0.0;
        big[k] = 0.0f;
    }
    sq_norms_continue(X, row_step, elem_step, SQ_NORMS_GROUP, 0, d, ss, big);
}

void scale_pad_scalar(const float *x, int64_t d, float scale, float *xs, int64_t D)
{
    for (int64_t t = 0; t < d; t++)
        xs[t] = x[t] * scale;
    for (int64_t t = d; t < D; t++)
        xs[t] = 0.0f;
}
